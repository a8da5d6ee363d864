//! `pods/binding` (POST pods/{name}/binding, as the scheduler binds; the older core/v1
//! Binding kind, `kinds/core/bindings.rs`, comes here too): sets the pod's `spec.nodeName`
//! and its PodScheduled condition.

use serde_json::{json, Value};

use super::{now, Registry, WriteOptions};
use crate::errors::{success_status, ApiError, ApiResult, Cause};
use crate::storage::store::rv_of;

impl Registry {
    /// Binds pod `name` to the node `binding.target.name` names; 409 when it is bound already.
    pub fn bind_pod(
        &self,
        namespace: &str,
        name: &str,
        binding: &Value,
        opts: &WriteOptions,
    ) -> ApiResult<Value> {
        let def = self
            .builtin("", "pods")
            .ok_or_else(ApiError::path_not_found)?;
        let node = binding["target"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if node.is_empty() {
            return Err(ApiError::invalid(
                "",
                "Binding",
                name,
                vec![Cause::required("target.name")],
            ));
        }
        let key = Self::key(&def, namespace, name);
        let current = self
            .store
            .get(&key)
            .ok_or_else(|| ApiError::not_found("", "pods", name))?;
        if current["spec"]["nodeName"]
            .as_str()
            .is_some_and(|n| !n.is_empty())
        {
            return Err(ApiError::conflict(
                "",
                "pods/binding",
                name,
                &format!(
                    "pod {name} is already assigned to node {:?}",
                    current["spec"]["nodeName"].as_str().unwrap_or_default()
                ),
            ));
        }
        let mut next = current.clone();
        next["spec"]["nodeName"] = json!(node);
        let cond = json!({"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": now()});
        if !next["status"].is_object() {
            next["status"] = json!({});
        }
        let conds = next["status"]["conditions"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let mut conds: Vec<Value> = conds
            .into_iter()
            .filter(|c| c["type"] != "PodScheduled")
            .collect();
        conds.push(cond);
        next["status"]["conditions"] = json!(conds);
        if opts.dry_run {
            return Ok(success_status(Value::Null, Some(201)));
        }
        // Binding changes spec and status together, so it bypasses the spec/status split.
        self.store.update(&key, next, rv_of(&current))?;
        Ok(success_status(Value::Null, Some(201)))
    }
}
