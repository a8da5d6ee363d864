//! Finds optional test dependencies (the shared fixtures, kubectl for the proxy e2e test); see
//! build-support/test_env.rs.

#[path = "build-support/test_env.rs"]
mod test_env;

use std::path::Path;

fn main() {
    let workspace_root = Path::new(env!("CARGO_MANIFEST_DIR"));
    test_env::emit(&[
        test_env::fixtures_probe(workspace_root),
        test_env::kubectl_probe(),
        test_env::control_plane_probe(workspace_root),
    ]);
}
