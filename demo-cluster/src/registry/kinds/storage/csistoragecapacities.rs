//! storage.k8s.io/v1 CSIStorageCapacities: kube-apiserver v1.36 has no printer for them, so
//! NAME and CREATED AT.

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::CREATED_AT;
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::storage::v1::CSIStorageCapacity;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind(
        "storage.k8s.io",
        "csistoragecapacities",
        "CSIStorageCapacity",
        true,
    )
    .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<CSIStorageCapacity>(generator);

pub static STRATEGY: Printed = Printed(CREATED_AT);
