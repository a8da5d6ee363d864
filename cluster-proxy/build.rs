//! Finds the control-plane binaries (see build-support/test_env.rs): the test with two real
//! control planes is ignored without them, and fails under CI.

#[path = "../build-support/test_env.rs"]
mod test_env;

use std::path::Path;

fn main() {
    let workspace_root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    test_env::emit(&[test_env::control_plane_probe(&workspace_root)]);
    // The embedded dashboard (feature `embedded-ui`): a rebuilt dist/ rebuilds the binary.
    println!("cargo::rerun-if-env-changed=KUBE_ATLAS_EMBED_DIR");
    if let Some(dir) = std::env::var_os("KUBE_ATLAS_EMBED_DIR") {
        println!("cargo::rerun-if-changed={}", Path::new(&dir).display());
    }
}
