//! `cargo xtask build` and `cargo xtask demo`.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::{cmd, setup, split};

pub const DIST: &str = "dist";
/// Where index.html has Trunk copy the editor bundle (`editor/dist/`), inside dist/. The app
/// imports it from there when an editor first opens (src/components/code_editor.rs).
pub const EDITOR_IN_DIST: &str = "editor";

/// Sizes of the built UI, in bytes. `wasm_*` and `js_gzip` are what the page loads at start;
/// `chunks_*` the pages' own modules, each loaded when its page is first opened; `editor_*`
/// the YAML editor's bundle, loaded only when an editor first opens.
#[derive(Debug, Clone, Copy)]
pub struct UiSize {
    pub wasm_raw: u64,
    pub wasm_gzip: u64,
    pub js_gzip: u64,
    pub chunks_gzip: u64,
    pub chunk_files: usize,
    pub editor_raw: u64,
    pub editor_gzip: u64,
    pub editor_files: usize,
}

/// Release build of the UI into dist/ with wasm-opt applied; prints and returns the sizes.
pub fn release_ui() -> Result<UiSize> {
    if !setup::build_tools_ready() {
        setup::run(setup::Options { browser: false })?;
    }
    bundle_editor()?;
    cmd::run(
        cmd::command("trunk")
            .args(["build", "--release", "--dist", DIST])
            .args(["--features", split::FEATURE])
            .env("RUSTFLAGS", split::RUSTFLAGS),
    )?;
    let dist = Path::new(DIST);
    let glue_stem = glue_stem(dist)?;
    split::split_dist(dist, &glue_stem)?;
    lock_down_index(dist, &glue_stem)?;
    let size = measure(dist)?;
    println!(
        "xtask: dist/ built: page start: wasm {} KiB raw, {} KiB gzip; js {} KiB gzip",
        size.wasm_raw / 1024,
        size.wasm_gzip / 1024,
        size.js_gzip / 1024
    );
    println!(
        "xtask: pages loaded when first opened: {} wasm module(s), {} KiB gzip",
        size.chunk_files,
        size.chunks_gzip / 1024
    );
    println!(
        "xtask: editor bundle (dist/{EDITOR_IN_DIST}/, loaded when an editor first opens): \
         {} file(s), {} KiB raw, {} KiB gzip",
        size.editor_files,
        size.editor_raw / 1024,
        size.editor_gzip / 1024
    );
    Ok(size)
}

/// The Content-Security-Policy of the served page. The page acts with whatever rights the
/// proxy holds (often cluster-admin), so a rendering bug must not become code execution:
/// scripts only from this origin (and wasm compilation), no inline script, connections only
/// to this origin (its API and watch WebSockets). Styles may be inline: Leptos sets style
/// attributes (the virtual table's offsets) and CodeMirror adds its style elements.
pub const CONTENT_SECURITY_POLICY: &str =
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
     object-src 'none'; base-uri 'self'; form-action 'self'";

/// Fits Trunk's page to [`CONTENT_SECURITY_POLICY`]: its inline start-up module moves to a
/// file of its own beside the JS glue, and the policy goes first in `<head>` (a `<meta>`,
/// so it holds wherever dist/ is served from, `kubectl proxy --www` included). `trunk serve`
/// keeps its inline scripts (live reload) and no policy.
fn lock_down_index(dist: &Path, stem: &str) -> Result<()> {
    let path = dist.join("index.html");
    let html =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let start_file = format!("{stem}-start.js");
    let (page, start_script) = with_external_start(&html, &start_file)?;
    std::fs::write(dist.join(&start_file), start_script)
        .with_context(|| format!("writing {start_file}"))?;
    std::fs::write(&path, page).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// The name (without `.js`) of the one JS file Trunk writes: the wasm-bindgen glue.
fn glue_stem(dist: &Path) -> Result<String> {
    let scripts = files_with_extension(dist, "js")?;
    let [glue] = scripts.as_slice() else {
        bail!("expected Trunk's JS glue alone in dist/, found {scripts:?}");
    };
    Ok(glue
        .file_stem()
        .and_then(|s| s.to_str())
        .context("the JS glue's file name")?
        .to_string())
}

/// The page with its one inline module script replaced by `src="./{start_file}"` and the
/// policy added, and the script's text.
fn with_external_start(html: &str, start_file: &str) -> Result<(String, String)> {
    const OPEN: &str = "<script type=\"module\">";
    let start = html
        .find(OPEN)
        .context("Trunk's start-up script is not in index.html")?;
    let body_start = start + OPEN.len();
    let end = html[body_start..]
        .find("</script>")
        .map(|i| body_start + i)
        .context("Trunk's start-up script does not end")?;
    if html[end..].contains(OPEN) {
        bail!("index.html has more than one inline module script");
    }
    let script = html[body_start..end].trim().to_string() + "\n";
    let mut page = String::with_capacity(html.len());
    page.push_str(&html[..start]);
    page.push_str(&format!(
        "<script type=\"module\" src=\"./{start_file}\"></script>"
    ));
    page.push_str(&html[end + "</script>".len()..]);
    let meta = format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{CONTENT_SECURITY_POLICY}\" />"
    );
    let head = page.find("<head>").context("index.html has no <head>")? + "<head>".len();
    page.insert_str(head, &format!("\n    {meta}"));
    Ok((page, script))
}

/// The YAML editor (CodeMirror 6) bundled by esbuild into editor/dist/, which Trunk then
/// copies into dist/ (index.html).
fn bundle_editor() -> Result<()> {
    setup::editor_packages()?;
    let dir = Path::new(setup::EDITOR_DIR);
    // Only this build's files: a chunk left over from an older bundle would ship too.
    let out = dir.join("dist");
    if out.exists() {
        std::fs::remove_dir_all(&out).with_context(|| format!("removing {}", out.display()))?;
    }
    cmd::run(
        cmd::command("npm")
            .current_dir(dir)
            .args(["run", "--silent", "build"]),
    )
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

/// Every file under `dir`, recursively.
pub(crate) fn files_under(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            found.extend(files_under(&path)?);
        } else {
            found.push(path);
        }
    }
    Ok(found)
}

fn measure(dist: &Path) -> Result<UiSize> {
    // Top level only: the editor's files (in a subdirectory) are not loaded at page start.
    let wasm = files_with_extension(dist, "wasm")?;
    let js = files_with_extension(dist, "js")?;
    if wasm.is_empty() {
        bail!("no .wasm file in {}", dist.display());
    }
    let editor = dist.join(EDITOR_IN_DIST);
    let editor_files = files_under(&editor)
        .with_context(|| format!("the editor bundle is missing from {}", editor.display()))?;
    if !editor_files
        .iter()
        .any(|p| p.extension().and_then(|e| e.to_str()) == Some("js"))
    {
        bail!("no .js file in {}", editor.display());
    }
    let mut size = UiSize {
        wasm_raw: 0,
        wasm_gzip: 0,
        js_gzip: 0,
        chunks_gzip: 0,
        chunk_files: 0,
        editor_raw: 0,
        editor_gzip: 0,
        editor_files: editor_files.len(),
    };
    for path in &editor_files {
        size.editor_raw += std::fs::metadata(path)?.len();
        size.editor_gzip += gzip_len(path)?;
    }
    for path in &wasm {
        // The page-start module is wasm-bindgen's `<glue>_bg.wasm`; the split pieces are not.
        let is_chunk = !path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with("_bg.wasm"));
        if is_chunk {
            size.chunk_files += 1;
            size.chunks_gzip += gzip_len(path)?;
        } else {
            size.wasm_raw += std::fs::metadata(path)?.len();
            size.wasm_gzip += gzip_len(path)?;
        }
    }
    for path in &js {
        size.js_gzip += gzip_len(path)?;
    }
    Ok(size)
}

/// Builds the UI, then serves it and the demo cluster's API on one origin until Ctrl-C.
/// The demo cluster's flags `cargo xtask demo` passes on with their value (the cluster
/// validates them): load mode, and RBAC for token users with the certificate kubectl needs to
/// send tokens.
const PASSED_WITH_VALUE: [&str; 9] = [
    "--pods",
    "--crds",
    "--churn",
    "--seed",
    "--event-ttl",
    "--chaos",
    "--token-auth-file",
    "--tls-cert-file",
    "--tls-private-key-file",
];

pub fn demo(args: &[String]) -> Result<()> {
    let mut listen = "127.0.0.1:8001".to_string();
    let mut passthrough: Vec<String> = Vec::new();
    // `--clusters`: the demo cluster as one more context beside a kubeconfig's, behind
    // kube-atlas; `--kubeconfig F` (repeatable) names that kubeconfig.
    let mut clusters = false;
    let mut kubeconfigs: Vec<String> = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--listen" => {
                listen = iter.next().context("--listen needs an address")?.clone();
            }
            "--clusters" => clusters = true,
            "--kubeconfig" => {
                clusters = true;
                kubeconfigs.push(iter.next().context("--kubeconfig needs a file")?.clone());
            }
            "--speed" => {
                passthrough.push(arg.clone());
                passthrough.push(iter.next().context("--speed needs a number")?.clone());
            }
            "--empty" => passthrough.push(arg.clone()),
            flag if PASSED_WITH_VALUE.contains(&flag) => {
                let value = iter
                    .next()
                    .with_context(|| format!("{arg} needs a value"))?;
                passthrough.push(arg.clone());
                passthrough.push(value.clone());
            }
            other => bail!(
                "unknown demo option `{other}` (use --listen ADDR, --speed F, --empty, \
                 --pods N, --crds N, --churn R, --seed S, --event-ttl D, --chaos SPEC, \
                 --token-auth-file PATH, --tls-cert-file PATH, --tls-private-key-file PATH, \
                 --clusters, --kubeconfig FILE)"
            ),
        }
    }
    release_ui()?;
    if clusters {
        return demo_beside_kubeconfig(&listen, &kubeconfigs, &passthrough);
    }
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

/// `cargo xtask demo --clusters`: the demo cluster on a free loopback port as the context
/// `demo`, beside every context of the user's kubeconfig (`--kubeconfig`, else KUBECONFIG or
/// ~/.kube/config when there is one), all behind one kube-atlas on `listen`.
fn demo_beside_kubeconfig(
    listen: &str,
    kubeconfigs: &[String],
    passthrough: &[String],
) -> Result<()> {
    cmd::run(cmd::command("cargo").args([
        "build",
        "--quiet",
        "-p",
        "demo-cluster",
        "-p",
        "kube-atlas-server",
    ]))?;
    let demo_port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .context("a free port for the demo cluster")?
        .port();
    let demo_listen = format!("127.0.0.1:{demo_port}");
    let demo_kubeconfig = std::env::temp_dir().join("kube-atlas-demo-context.kubeconfig");
    std::fs::write(
        &demo_kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: demo\n  cluster:\n    server: http://{demo_listen}\n\
             users:\n- name: demo\n  user: {{}}\n\
             contexts:\n- name: demo\n  context: {{cluster: demo, user: demo}}\n"
        ),
    )
    .with_context(|| format!("writing {}", demo_kubeconfig.display()))?;
    let mut files: Vec<String> = kubeconfigs.to_vec();
    if files.is_empty() {
        let default = std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".kube/config"));
        match std::env::var("KUBECONFIG") {
            Ok(value) if !value.is_empty() => {
                files.extend(std::env::split_paths(&value).map(|path| path.display().to_string()))
            }
            _ => files.extend(
                default
                    .filter(|path| path.is_file())
                    .map(|path| path.display().to_string()),
            ),
        }
    }
    files.push(demo_kubeconfig.display().to_string());
    let mut demo = cmd::command("cargo")
        .args(["run", "--quiet", "-p", "demo-cluster", "--"])
        .args(["--listen", &demo_listen])
        .args(passthrough)
        .spawn()
        .context("starting the demo cluster")?;
    println!(
        "xtask: Kube Atlas for {} and the demo cluster: http://{listen}/  (Ctrl-C stops)",
        files[..files.len() - 1].join(", ")
    );
    let mut atlas = cmd::command("cargo");
    atlas.args([
        "run",
        "--quiet",
        "-p",
        "kube-atlas-server",
        "--bin",
        "kube-atlas",
        "--",
    ]);
    for file in &files {
        atlas.args(["--kubeconfig", file]);
    }
    let mut atlas = atlas
        .args(["--listen", listen, "--www", DIST])
        .spawn()
        .context("starting kube-atlas")?;
    ctrlc::set_handler(|| {}).context("installing the Ctrl-C handler")?;
    let status = atlas.wait()?;
    let _ = demo.kill();
    let _ = demo.wait();
    if !status.success() && status.code().is_some() {
        bail!("kube-atlas exited with {status}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_up_script_leaves_the_page_and_the_policy_comes_first() {
        let html = "<!DOCTYPE html>\n<html><head>\n<meta charset=\"utf-8\" />\n<script type=\"module\">\nimport init from './app-1.js';\nawait init();\n</script>\n<link rel=\"stylesheet\" href=\"./a.css\"/></head><body></body></html>";
        let (page, script) = with_external_start(html, "app-1-start.js").expect("rewritten");
        assert_eq!(script, "import init from './app-1.js';\nawait init();\n");
        assert!(page.contains("<script type=\"module\" src=\"./app-1-start.js\"></script>"));
        assert!(
            !page.contains("await init()"),
            "no inline script left: {page}"
        );
        let policy = page.find("Content-Security-Policy").expect("policy");
        assert!(
            policy < page.find("<script").expect("script"),
            "the policy comes first"
        );
        assert!(page.contains("script-src 'self' 'wasm-unsafe-eval'"));
        assert!(with_external_start("<html><head></head></html>", "x.js").is_err());
    }

    #[test]
    fn editor_bundle_is_measured_apart_from_the_page_start() {
        let dist = std::env::temp_dir().join(format!("xtask-measure-{}", std::process::id()));
        let editor = dist.join(EDITOR_IN_DIST);
        std::fs::create_dir_all(editor.join("chunks")).unwrap();
        std::fs::write(dist.join("app_bg.wasm"), vec![0_u8; 4096]).unwrap();
        std::fs::write(dist.join("app.js"), "export {};").unwrap();
        std::fs::write(editor.join("kube-atlas-editor.js"), "x".repeat(10_000)).unwrap();
        std::fs::write(editor.join("chunks/more.js"), "y".repeat(1_000)).unwrap();
        let size = measure(&dist);
        std::fs::remove_dir_all(&dist).unwrap();
        let size = size.unwrap();
        assert_eq!(size.wasm_raw, 4096);
        assert_eq!((size.editor_files, size.editor_raw), (2, 11_000));
        assert!(size.editor_gzip > 0 && size.editor_gzip < 11_000);
        // The editor's files are not page-start JavaScript.
        assert!(size.js_gzip < 100);
    }
}
