//! certificates.k8s.io/v1 PodCertificateRequests (feature-gated): stored as written, with a
//! status subresource; no behaviour of their own.

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::certificates::v1::PodCertificateRequest;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind(
        "certificates.k8s.io",
        "podcertificaterequests",
        "PodCertificateRequest",
        true,
    )
    .status()
    .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<PodCertificateRequest>(generator);
