//! Finds the shared fixtures beside the clone; see build-support/test_env.rs.

#[path = "../build-support/test_env.rs"]
mod test_env;

use std::path::Path;

fn main() {
    let workspace_root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    test_env::emit(&[test_env::fixtures_probe(&workspace_root)]);
}
