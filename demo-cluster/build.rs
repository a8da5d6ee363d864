//! Finds optional test dependencies (kubectl, the Python client, the shared fixtures); see
//! build-support/test_env.rs.

#[path = "../build-support/test_env.rs"]
mod test_env;

use std::path::Path;

fn main() {
    let workspace_root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    println!("cargo::rerun-if-env-changed=DEMO_CLUSTER_PYTHON");
    let python = std::env::var("DEMO_CLUSTER_PYTHON").unwrap_or_else(|_| "python3".into());
    test_env::emit(&[
        test_env::fixtures_probe(&workspace_root),
        test_env::kubectl_probe(),
        test_env::control_plane_probe(&workspace_root),
        test_env::Probe {
            cfg: "have_python_client",
            present: test_env::runs(&python, &["-c", "import kubernetes"]),
        },
    ]);
}
