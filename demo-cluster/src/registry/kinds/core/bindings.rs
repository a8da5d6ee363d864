//! core/v1 Bindings (`POST /api/v1/namespaces/{ns}/bindings`, the older form of
//! `pods/binding`): binds the pod the Binding names, nothing is stored.

use serde_json::Value;

use crate::errors::ApiResult;
use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::Strategy;
use crate::registry::{Registry, WriteOptions};

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("", "bindings", "Binding", true)
        .verbs(&["create"])
        .build()
}

pub(crate) static STRATEGY: Bindings = Bindings;

pub struct Bindings;

impl Strategy for Bindings {
    fn answer_create(
        &self,
        registry: &Registry,
        _: &ResourceDef,
        namespace: &str,
        body: &Value,
        opts: &WriteOptions,
    ) -> Option<ApiResult<Value>> {
        let pod = body["metadata"]["name"].as_str().unwrap_or_default();
        Some(registry.bind_pod(namespace, pod, body, opts))
    }
}
