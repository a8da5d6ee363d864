//! The `/scale` subresource (autoscaling/v1 Scale) of Deployments, ReplicaSets,
//! StatefulSets, ReplicationControllers and custom resources that declare one: a view of
//! the object's replica count and selector, and writes that change only the replicas.

use serde_json::{json, Value};

use super::kinds::{self, ResourceDef};
use super::{Ownership, Registry, WriteOptions};
use crate::errors::{ApiError, ApiResult, Cause};
use crate::storage::selectors::LabelSelector;

impl Registry {
    /// The Scale view of an object with a scale subresource.
    pub fn get_scale(&self, def: &ResourceDef, namespace: &str, name: &str) -> ApiResult<Value> {
        let obj = self.get(def, namespace, name)?;
        Ok(Self::scale_of(def, &obj))
    }

    fn scale_of(def: &ResourceDef, obj: &Value) -> Value {
        let paths = def.scale.clone().unwrap_or(kinds::ScalePaths {
            spec_replicas: ".spec.replicas".into(),
            status_replicas: ".status.replicas".into(),
            label_selector: None,
        });
        let at = |p: &str| -> Value {
            let mut cur = obj;
            for seg in p.trim_start_matches('.').split('.') {
                cur = &cur[seg];
            }
            cur.clone()
        };
        let selector = match &paths.label_selector {
            Some(p) => at(p).as_str().unwrap_or_default().to_string(),
            None => {
                // ReplicationControllers select by a plain label map, the others by a
                // LabelSelector.
                let selector = &obj["spec"]["selector"];
                let structured = selector.get("matchLabels").is_some()
                    || selector.get("matchExpressions").is_some();
                let selector = if structured || !selector.is_object() {
                    selector.clone()
                } else {
                    json!({ "matchLabels": selector })
                };
                LabelSelector::from_structured(&selector)
                    .map(|s| s.to_string_form())
                    .unwrap_or_default()
            }
        };
        let meta = &obj["metadata"];
        json!({
            "kind": "Scale", "apiVersion": "autoscaling/v1",
            "metadata": {"name": meta["name"], "namespace": meta["namespace"], "uid": meta["uid"],
                         "resourceVersion": meta["resourceVersion"], "creationTimestamp": meta["creationTimestamp"]},
            "spec": {"replicas": at(&paths.spec_replicas).as_i64().unwrap_or(0)},
            "status": {"replicas": at(&paths.status_replicas).as_i64().unwrap_or(0), "selector": selector},
        })
    }

    /// PUT or PATCH of `/scale`: `change` turns the current Scale into the desired one.
    pub fn update_scale<F>(
        &self,
        def: &ResourceDef,
        namespace: &str,
        name: &str,
        opts: &WriteOptions,
        change: F,
    ) -> ApiResult<Value>
    where
        F: Fn(Value) -> ApiResult<Value>,
    {
        let key = Self::key(def, namespace, name);
        let stored = self
            .store
            .get(&key)
            .ok_or_else(|| ApiError::not_found(&def.group, &def.resource, name))?;
        let current = Self::present(def, stored.clone());
        let desired = change(Self::scale_of(def, &current))?;
        let Some(replicas) = desired["spec"]["replicas"].as_i64() else {
            return Err(ApiError::invalid(
                "autoscaling",
                "Scale",
                name,
                vec![Cause::required("spec.replicas")],
            ));
        };
        if replicas < 0 {
            return Err(ApiError::invalid(
                "autoscaling",
                "Scale",
                name,
                vec![Cause::invalid(
                    "spec.replicas",
                    &replicas.to_string(),
                    "must be greater than or equal to 0",
                )],
            ));
        }
        let mut next = current.clone();
        let path = def
            .scale
            .as_ref()
            .map(|s| s.spec_replicas.clone())
            .unwrap_or(".spec.replicas".into());
        let segs: Vec<&str> = path.trim_start_matches('.').split('.').collect();
        let mut cur = &mut next;
        for seg in &segs {
            if !cur.is_object() {
                *cur = json!({});
            }
            cur = &mut cur[*seg];
        }
        *cur = json!(replicas);
        if let Some(rv) = desired["metadata"]["resourceVersion"]
            .as_str()
            .filter(|s| !s.is_empty())
        {
            next["metadata"]["resourceVersion"] = json!(rv);
        }
        let mut sub_opts = opts.clone();
        sub_opts.subresource = "scale".into();
        let stored = self.write_update(def, &key, &stored, next, &sub_opts, Ownership::Update)?;
        Ok(Self::scale_of(def, &stored))
    }
}
