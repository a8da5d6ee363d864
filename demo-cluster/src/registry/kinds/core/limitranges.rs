//! core/v1 LimitRanges: stored as written (no admission enforces them here); no behaviour
//! of their own.

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::core::v1::LimitRange;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("", "limitranges", "LimitRange", true)
        .short(&["limits"])
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<LimitRange>(generator);
