//! Shared by the build scripts of the app, the model and the demo cluster: finds which optional test
//! dependencies this machine has and emits a `cfg` for each, so a test that needs a missing
//! one is compiled as `#[ignore]` and shows as *ignored* in cargo's summary instead of passing
//! silently.
//!
//! Under CI (`CI=true` or `CI=1`, see [`in_ci`]) every cfg is set: CI is meant to have all of them, so a missing tool
//! or fixture makes its tests run and fail with a clear message instead of being skipped.
//!
//! Use in a test: `#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]`.

// Each build script uses only the probes its tests need.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A condition a test can depend on.
pub struct Probe {
    pub cfg: &'static str,
    pub present: bool,
}

/// Under CI every optional dependency is required. The one rule for "under CI", used by the
/// build scripts, xtask and the tests alike: `CI` is `true` (as `.ci/run` and most CI
/// services set it) or `1`.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// The shared fixtures folder beside the clone (`../shared/fixtures`), given the workspace root.
pub fn fixtures_dir(workspace_root: &Path) -> PathBuf {
    workspace_root.join("../shared/fixtures")
}

pub fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|out| out.status.success())
}

/// Prints the cargo directives: declares every cfg, sets those present (all of them in CI).
pub fn emit(probes: &[Probe]) {
    println!("cargo::rerun-if-env-changed=CI");
    println!("cargo::rerun-if-env-changed=PATH");
    let ci = in_ci();
    for probe in probes {
        println!("cargo::rustc-check-cfg=cfg({})", probe.cfg);
        if probe.present || ci {
            println!("cargo::rustc-cfg={}", probe.cfg);
        } else {
            println!(
                "cargo::warning=test dependency missing: tests needing `{}` are ignored (run `cargo xtask setup`)",
                probe.cfg
            );
        }
    }
}

/// The discovery fixtures, watched so that adding them later re-runs the probe.
pub fn fixtures_probe(workspace_root: &Path) -> Probe {
    let discovery = fixtures_dir(workspace_root).join("discovery");
    println!("cargo::rerun-if-changed={}", discovery.display());
    Probe {
        cfg: "have_fixtures",
        present: discovery.join("aggregated_v2.json").is_file(),
    }
}

pub fn kubectl_probe() -> Probe {
    Probe {
        cfg: "have_kubectl",
        present: runs("kubectl", &["version", "--client"]),
    }
}

/// A real control plane for the `envtest` harness: etcd and kube-apiserver in
/// `KUBEBUILDER_ASSETS`, else in `target/control-plane/bin` (unpacked by `cargo xtask setup`),
/// and kubectl, which the harness drives.
pub fn control_plane_probe(workspace_root: &Path) -> Probe {
    println!("cargo::rerun-if-env-changed=KUBEBUILDER_ASSETS");
    let unpacked = workspace_root.join("target/control-plane/bin");
    println!("cargo::rerun-if-changed={}", unpacked.display());
    let dir = std::env::var_os("KUBEBUILDER_ASSETS")
        .map(PathBuf::from)
        .unwrap_or(unpacked);
    Probe {
        cfg: "have_control_plane",
        present: ["etcd", "kube-apiserver"]
            .iter()
            .all(|binary| dir.join(binary).is_file())
            && runs("kubectl", &["version", "--client"]),
    }
}
