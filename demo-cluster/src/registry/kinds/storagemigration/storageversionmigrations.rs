//! storagemigration.k8s.io/v1 StorageVersionMigrations (feature-gated): stored as written, with
//! a status subresource; nothing migrates.

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind(
        "storagemigration.k8s.io",
        "storageversionmigrations",
        "StorageVersionMigration",
        false,
    )
    .status()
    .build()
}
