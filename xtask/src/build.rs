//! `cargo xtask build` and `cargo xtask demo`.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::{cmd, setup};

pub const DIST: &str = "dist";

/// Sizes of the built UI, in bytes.
#[derive(Debug, Clone, Copy)]
pub struct UiSize {
    pub wasm_raw: u64,
    pub wasm_gzip: u64,
    pub js_gzip: u64,
}

/// Release build of the UI into dist/ with wasm-opt applied; prints and returns the sizes.
pub fn release_ui() -> Result<UiSize> {
    if !setup::build_tools_ready() {
        setup::run(setup::Options { browser: false })?;
    }
    cmd::run(cmd::command("trunk").args(["build", "--release", "--dist", DIST]))?;
    let size = measure(Path::new(DIST))?;
    println!(
        "xtask: dist/ built: wasm {} KiB raw, {} KiB gzip; js glue {} KiB gzip",
        size.wasm_raw / 1024,
        size.wasm_gzip / 1024,
        size.js_gzip / 1024
    );
    Ok(size)
}

fn files_with_extension(dir: &Path, extension: &str) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().and_then(|e| e.to_str()) == Some(extension) {
            found.push(path);
        }
    }
    Ok(found)
}

fn gzip_len(path: &Path) -> Result<u64> {
    let mut raw = Vec::new();
    std::fs::File::open(path)?.read_to_end(&mut raw)?;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut encoder, &raw)?;
    Ok(encoder.finish()?.len() as u64)
}

fn measure(dist: &Path) -> Result<UiSize> {
    let wasm = files_with_extension(dist, "wasm")?;
    let js = files_with_extension(dist, "js")?;
    if wasm.is_empty() {
        bail!("no .wasm file in {}", dist.display());
    }
    let mut size = UiSize {
        wasm_raw: 0,
        wasm_gzip: 0,
        js_gzip: 0,
    };
    for path in &wasm {
        size.wasm_raw += std::fs::metadata(path)?.len();
        size.wasm_gzip += gzip_len(path)?;
    }
    for path in &js {
        size.js_gzip += gzip_len(path)?;
    }
    Ok(size)
}

/// Builds the UI, then serves it and the demo cluster's API on one origin until Ctrl-C.
pub fn demo(args: &[String]) -> Result<()> {
    let mut listen = "127.0.0.1:8001".to_string();
    let mut passthrough: Vec<String> = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--listen" => {
                listen = iter.next().context("--listen needs an address")?.clone();
            }
            "--speed" => {
                passthrough.push(arg.clone());
                passthrough.push(iter.next().context("--speed needs a number")?.clone());
            }
            "--empty" => passthrough.push(arg.clone()),
            // Load mode, passed through to the demo cluster (it validates the numbers).
            "--pods" | "--crds" | "--churn" | "--seed" => {
                let value = iter
                    .next()
                    .with_context(|| format!("{arg} needs a number"))?;
                passthrough.push(arg.clone());
                passthrough.push(value.clone());
            }
            other => bail!(
                "unknown demo option `{other}` (use --listen ADDR, --speed F, --empty, \
                 --pods N, --crds N, --churn R, --seed S)"
            ),
        }
    }
    release_ui()?;
    cmd::run(cmd::command("cargo").args(["build", "--quiet", "-p", "demo-cluster"]))?;
    println!("xtask: Kube Atlas on the demo cluster: http://{listen}/  (Ctrl-C stops)");
    let mut child = cmd::command("cargo")
        .args(["run", "--quiet", "-p", "demo-cluster", "--"])
        .args(["--listen", &listen, "--www", DIST])
        .args(&passthrough)
        .spawn()
        .context("starting the demo cluster")?;
    // Ctrl-C reaches the child too (same process group): ignore it here so we wait for the
    // server's clean shutdown instead of leaving it printing after the prompt returns.
    ctrlc::set_handler(|| {}).context("installing the Ctrl-C handler")?;
    let status = child.wait()?;
    if !status.success() && status.code().is_some() {
        bail!("demo cluster exited with {status}");
    }
    Ok(())
}
