//! `cargo xtask setup`: installs, idempotently and at pinned versions, what builds and tests need.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::cmd;

pub const TRUNK_VERSION: &str = "0.21.14";
/// binaryen from npm: Debian's binaryen 108 emits wasm that crashes on load.
pub const BINARYEN_VERSION: &str = "132.0.0";
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// The official Python client, for the demo cluster's client-compatibility test.
pub const PYTHON_CLIENT: &str = "kubernetes==37.0.2";
pub const PYTHON_VENV: &str = "target/python-venv";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// The YAML editor's npm package (CodeMirror 6 + esbuild, pinned by its package-lock.json).
pub const EDITOR_DIR: &str = "editor";
/// axe-core for the e2e accessibility audit (pinned by its package-lock.json; never shipped).
pub const A11Y_DIR: &str = "tests/a11y";
/// A copy of the package-lock.json that `npm ci` last installed, inside node_modules.
const NPM_STAMP: &str = "node_modules/.kube-atlas-installed-lock.json";

pub struct Options {
    /// Also install chromium + chromedriver (needed by tests, not by `demo`).
    pub browser: bool,
}

pub fn run(options: Options) -> Result<()> {
    wasm_target()?;
    wasm_bindgen_cli()?;
    wasm_opt()?;
    trunk()?;
    editor_packages()?;
    if options.browser {
        browser()?;
        npm_packages(A11Y_DIR, "node_modules/axe-core/axe.min.js")?;
        python_client()?;
        kubectl()?;
        control_plane()?;
    }
    println!("xtask: setup complete");
    Ok(())
}

/// What the port-forward benchmark needs (`cargo xtask bench forward`): kubectl and the real
/// control plane, not the browser or the UI's tools.
pub fn real_cluster() -> Result<()> {
    kubectl()?;
    control_plane()
}

/// True when everything `build` needs is present (so `demo` can skip setup quickly).
pub fn build_tools_ready() -> bool {
    let Ok(bindgen) = locked_wasm_bindgen_version() else {
        return false;
    };
    has_wasm_target()
        && cmd::version_of("wasm-bindgen", "--version").as_deref()
            == Some(format!("wasm-bindgen {bindgen}").as_str())
        && cmd::version_of("trunk", "--version").as_deref()
            == Some(format!("trunk {TRUNK_VERSION}").as_str())
        && wasm_opt_ok()
        && editor_packages_ready()
}

fn has_wasm_target() -> bool {
    Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).contains("wasm32-unknown-unknown"))
        .unwrap_or(false)
}

fn wasm_target() -> Result<()> {
    if has_wasm_target() {
        println!("xtask: wasm32-unknown-unknown target: present");
        return Ok(());
    }
    cmd::run(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))
}

/// The wasm-bindgen version Cargo.lock resolved; the CLI must match it exactly.
pub fn locked_wasm_bindgen_version() -> Result<String> {
    let lock = std::fs::read_to_string("Cargo.lock").context("reading Cargo.lock")?;
    let mut in_wasm_bindgen = false;
    for line in lock.lines() {
        let line = line.trim();
        if line == "[[package]]" {
            in_wasm_bindgen = false;
        } else if line == "name = \"wasm-bindgen\"" {
            in_wasm_bindgen = true;
        } else if in_wasm_bindgen {
            if let Some(version) = line.strip_prefix("version = \"") {
                return Ok(version.trim_end_matches('"').to_string());
            }
        }
    }
    bail!("Cargo.lock has no wasm-bindgen package")
}

fn wasm_bindgen_cli() -> Result<()> {
    let wanted = locked_wasm_bindgen_version()?;
    let found = cmd::version_of("wasm-bindgen", "--version");
    if found.as_deref() == Some(format!("wasm-bindgen {wanted}").as_str()) {
        println!("xtask: wasm-bindgen-cli {wanted}: present");
        return Ok(());
    }
    // Without --locked: the CLI's own lockfile pins a crate version the registry lacks.
    cmd::run(cmd::command("cargo").args([
        "install",
        "wasm-bindgen-cli",
        "--version",
        &wanted,
        "--force",
    ]))
}

fn wasm_opt_ok() -> bool {
    cmd::version_of("wasm-opt", "--version")
        .map(|v| v.contains(&format!("version {}", major(BINARYEN_VERSION))))
        .unwrap_or(false)
}

fn major(version: &str) -> &str {
    version.split('.').next().unwrap_or(version)
}

fn wasm_opt() -> Result<()> {
    if wasm_opt_ok() {
        println!(
            "xtask: wasm-opt (binaryen {}): present",
            major(BINARYEN_VERSION)
        );
        return Ok(());
    }
    cmd::run(cmd::command("npm").args([
        "install",
        "--global",
        "--no-fund",
        "--no-audit",
        &format!("binaryen@{BINARYEN_VERSION}"),
    ]))?;
    if !wasm_opt_ok() {
        bail!(
            "wasm-opt on PATH is not binaryen {}: {:?}",
            BINARYEN_VERSION,
            cmd::version_of("wasm-opt", "--version")
        );
    }
    Ok(())
}

fn trunk() -> Result<()> {
    if cmd::version_of("trunk", "--version").as_deref()
        == Some(format!("trunk {TRUNK_VERSION}").as_str())
    {
        println!("xtask: trunk {TRUNK_VERSION}: present");
        return Ok(());
    }
    cmd::run(cmd::command("cargo").args([
        "install",
        "--locked",
        "trunk",
        "--version",
        TRUNK_VERSION,
        "--force",
    ]))
}

/// True when editor/node_modules holds what editor/package-lock.json pins (as of the last
/// `npm ci` here) and esbuild is there.
pub fn editor_packages_ready() -> bool {
    npm_packages_ready(EDITOR_DIR, "node_modules/.bin/esbuild")
}

/// True when `dir`'s node_modules holds what its package-lock.json pins (as of the last
/// `npm ci` here) and `needed` is there.
fn npm_packages_ready(dir: &str, needed: &str) -> bool {
    let dir = Path::new(dir);
    let (Ok(lock), Ok(installed)) = (
        std::fs::read(dir.join("package-lock.json")),
        std::fs::read(dir.join(NPM_STAMP)),
    ) else {
        return false;
    };
    lock == installed && dir.join(needed).exists()
}

/// `npm ci` in editor/: exactly the lockfile's versions, or nothing when they are installed.
/// Without install scripts: esbuild's only one is an optional speed-up (its launcher finds the
/// platform binary package without it).
pub fn editor_packages() -> Result<()> {
    npm_packages(EDITOR_DIR, "node_modules/.bin/esbuild")
}

/// `npm ci` in `dir`, or nothing when its lockfile's versions are installed.
fn npm_packages(dir: &str, needed: &str) -> Result<()> {
    if npm_packages_ready(dir, needed) {
        println!("xtask: npm packages ({dir}/package-lock.json): present");
        return Ok(());
    }
    let path = Path::new(dir);
    cmd::run(cmd::command("npm").current_dir(path).args([
        "ci",
        "--ignore-scripts",
        "--no-fund",
        "--no-audit",
    ]))?;
    std::fs::copy(path.join("package-lock.json"), path.join(NPM_STAMP))
        .with_context(|| format!("writing {dir}/{NPM_STAMP}"))?;
    Ok(())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
        .unwrap_or(false)
}

fn browser() -> Result<()> {
    if Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists() {
        println!("xtask: chromium + chromedriver: present");
        return Ok(());
    }
    let install = "apt-get update && apt-get install -y chromium chromium-driver";
    if !is_root() {
        bail!("chromium and chromedriver are missing; install them with: sudo sh -c '{install}'");
    }
    cmd::run(Command::new("apt-get").arg("update"))?;
    cmd::run(
        Command::new("apt-get")
            .env("DEBIAN_FRONTEND", "noninteractive")
            .args(["install", "-y", "--no-install-recommends"])
            .args(["chromium", "chromium-driver", "fonts-dejavu-core"]),
    )
}

/// kubectl is a test client of the demo cluster and the e2e `kubectl proxy` test. It ships on
/// these machines (Debian package `kubectl`); it is not installed here because no registry we
/// reach carries a current one. Without it those tests show as ignored, and under CI, where it
/// is required, they fail.
fn kubectl() -> Result<()> {
    let client = Command::new("kubectl")
        .args(["version", "--client"])
        .output();
    if let Some(out) = client.ok().filter(|out| out.status.success()) {
        let text = String::from_utf8_lossy(&out.stdout);
        println!(
            "xtask: kubectl: present ({})",
            text.lines().next().unwrap_or_default().trim()
        );
        return Ok(());
    }
    let advice =
        "install kubectl 1.28 or newer on PATH (Debian/Ubuntu: the `kubectl` package from \
                  the Kubernetes apt repository; or a release binary), then run this again";
    if crate::test_env::in_ci() {
        bail!("kubectl is missing and CI requires it: {advice}");
    }
    println!("xtask: warning: kubectl not found: its tests will show as ignored; {advice}");
    Ok(())
}

/// Interpreter of the venv that has the official Python client.
pub fn python_interpreter() -> std::path::PathBuf {
    cmd::workspace_root().join(PYTHON_VENV).join("bin/python")
}

fn python_client() -> Result<()> {
    let python = python_interpreter();
    let has_client = Command::new(&python)
        .args(["-c", "import kubernetes"])
        .output()
        .is_ok_and(|out| out.status.success());
    if has_client {
        println!("xtask: Python client ({PYTHON_CLIENT}): present");
        return Ok(());
    }
    cmd::run(Command::new("python3").args(["-m", "venv", PYTHON_VENV]))?;
    cmd::run(Command::new(&python).args([
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        PYTHON_CLIENT,
    ]))
}

/// The binaries of the real control plane the tests run against (`envtest/`).
const CONTROL_PLANE_BINARIES: [&str; 5] = [
    "etcd",
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
    // The stand-in kubelet's streaming half (logs, exec, attach, port-forward, metrics).
    "kubelet-streams",
];

/// Unpacks `../shared/kubernetes/bin/*.xz` into `target/control-plane/bin` (once), where the
/// envtest harness finds them unless `KUBEBUILDER_ASSETS` points elsewhere. Without them the
/// real-cluster tests show as ignored; under CI, where they are required, setup fails.
fn control_plane() -> Result<()> {
    if let Some(assets) = std::env::var_os("KUBEBUILDER_ASSETS") {
        println!(
            "xtask: control plane: KUBEBUILDER_ASSETS={}",
            Path::new(&assets).display()
        );
        return Ok(());
    }
    let root = cmd::workspace_root();
    let source = root.join("../shared/kubernetes/bin");
    let target = root.join("target/control-plane/bin");
    if CONTROL_PLANE_BINARIES
        .iter()
        .all(|binary| target.join(binary).is_file())
    {
        println!("xtask: control plane (kube-apiserver, etcd, ...): present");
        return Ok(());
    }
    if !source.is_dir() {
        let advice = format!(
            "no {} (the real control plane beside the clone); or set KUBEBUILDER_ASSETS",
            source.display()
        );
        if crate::test_env::in_ci() {
            bail!("CI requires the real control plane: {advice}");
        }
        println!("xtask: warning: {advice}: the real-cluster tests will show as ignored");
        return Ok(());
    }
    std::fs::create_dir_all(&target).with_context(|| format!("creating {}", target.display()))?;
    for binary in CONTROL_PLANE_BINARIES {
        let packed = source.join(format!("{binary}.xz"));
        let partial = target.join(format!("{binary}.partial"));
        let file = std::fs::File::create(&partial)
            .with_context(|| format!("creating {}", partial.display()))?;
        cmd::run(Command::new("xz").arg("-dc").arg(&packed).stdout(file))?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&partial, std::fs::Permissions::from_mode(0o755))?;
        std::fs::rename(&partial, target.join(binary))?;
    }
    println!("xtask: control plane unpacked into {}", target.display());
    Ok(())
}
