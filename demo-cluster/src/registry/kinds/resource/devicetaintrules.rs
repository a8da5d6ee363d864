//! resource.k8s.io/v1 DeviceTaintRules (feature-gated): stored as written, with a status
//! subresource; no behaviour of their own.

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind(
        "resource.k8s.io",
        "devicetaintrules",
        "DeviceTaintRule",
        false,
    )
    .status()
    .build()
}
