//! core/v1 Bindings (`POST /api/v1/namespaces/{ns}/bindings`, the older form of
//! `pods/binding`): binds the pod the Binding names, nothing is stored.

use serde_json::Value;

use super::{ResourceDef, Strategy};
use crate::registry::{Registry, WriteOptions};
use crate::status::ApiResult;

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
