//! Finds optional test dependencies (kubectl, the control plane for the e2e suites' real backend); see
//! build-support/test_env.rs.

#[path = "build-support/test_env.rs"]
mod test_env;

use std::path::Path;

fn main() {
    let workspace_root = Path::new(env!("CARGO_MANIFEST_DIR"));
    test_env::emit(&[
        test_env::kubectl_probe(),
        test_env::control_plane_probe(workspace_root),
    ]);
}
