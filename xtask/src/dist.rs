//! `cargo xtask dist [--target TRIPLE]`: one `kube-atlas` binary carrying the release
//! dashboard. Builds dist/ as `cargo xtask build` does, gzips every file of it (best
//! compression) under its own name into `<target>/embedded-dist/`, then builds
//! `kube-atlas-server` in release with the `embedded-ui` feature and that folder in
//! `KUBE_ATLAS_EMBED_DIR` (read at compile time), and prints the binary's size.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::{build, cmd};

/// The feature of `kube-atlas-server` that compiles the dashboard in.
pub const FEATURE: &str = "embedded-ui";

pub fn run(args: &[String]) -> Result<()> {
    let target = match args {
        [] => None,
        [flag, triple] if flag == "--target" => Some(triple.clone()),
        other => anyhow::bail!("usage: cargo xtask dist [--target TRIPLE], not {other:?}"),
    };
    build::release_ui()?;
    let target_dir = target_dir();
    let staged = std::env::current_dir()?
        .join(&target_dir)
        .join("embedded-dist");
    let (files, bytes) = gzip_tree(Path::new(build::DIST), &staged)?;
    println!(
        "xtask: {files} dashboard file(s) gzipped into {}: {} KiB",
        staged.display(),
        bytes / 1024
    );
    let mut cargo = cmd::command("cargo");
    cargo
        .args(["build", "--release", "-p", "kube-atlas-server"])
        .args(["--features", FEATURE])
        .env("KUBE_ATLAS_EMBED_DIR", &staged);
    if let Some(triple) = &target {
        cargo.args(["--target", triple]);
    }
    cmd::run(&mut cargo)?;
    let binary = match &target {
        Some(triple) => target_dir.join(triple).join("release/kube-atlas"),
        None => target_dir.join("release/kube-atlas"),
    };
    let size = std::fs::metadata(&binary)
        .with_context(|| format!("the built binary {}", binary.display()))?
        .len();
    println!(
        "xtask: {}: {:.1} MiB, the dashboard inside (run it: {} --kubeconfig ~/.kube/config)",
        binary.display(),
        size as f64 / (1024.0 * 1024.0),
        binary.display()
    );
    Ok(())
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target"))
}

/// Writes every file under `from` gzipped to the same relative path under `to` (emptied
/// first, so a file gone from dist/ is gone from the binary); the count and the bytes written.
fn gzip_tree(from: &Path, to: &Path) -> Result<(usize, u64)> {
    if to.exists() {
        std::fs::remove_dir_all(to).with_context(|| format!("emptying {}", to.display()))?;
    }
    let mut files = 0;
    let mut bytes = 0;
    for source in build::files_under(from)? {
        let relative = source.strip_prefix(from)?;
        let destination = to.join(relative);
        if let Some(parent) = destination.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let raw =
            std::fs::read(&source).with_context(|| format!("reading {}", source.display()))?;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        encoder.write_all(&raw)?;
        let gzipped = encoder.finish()?;
        bytes += gzipped.len() as u64;
        files += 1;
        std::fs::write(&destination, gzipped)
            .with_context(|| format!("writing {}", destination.display()))?;
    }
    Ok((files, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_is_gzipped_under_its_own_name() {
        let from = tempfile_dir("from");
        let to = tempfile_dir("to");
        std::fs::create_dir_all(from.join("editor")).expect("dir");
        std::fs::write(from.join("index.html"), "<html></html>").expect("write");
        std::fs::write(from.join("editor/a.js"), "let a = 1;").expect("write");
        std::fs::write(to.join("stale.wasm"), "old").expect("write");
        let (files, _) = gzip_tree(&from, &to).expect("gzipped");
        assert_eq!(files, 2);
        assert!(!to.join("stale.wasm").exists());
        let gzipped = std::fs::read(to.join("editor/a.js")).expect("read");
        let mut raw = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gzipped[..]), &mut raw)
            .expect("gzip");
        assert_eq!(raw, "let a = 1;");
        let _ = std::fs::remove_dir_all(from.parent().expect("parent"));
    }

    fn tempfile_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir()
            .join(format!("xtask-dist-test-{}", std::process::id()))
            .join(name);
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    }
}
