//! Pieces several kinds' strategies share: defaulting helpers, pod template defaults and
//! checks, workload selectors, immutable fields.

use serde_json::{json, Map, Value};

use super::printing::{Col, Printer};
use super::Strategy;
use crate::errors::Cause;
use crate::names::is_dns1123_label;
use crate::storage::selectors::{labels_of, LabelSelector};

pub fn ensure_object<'a>(obj: &'a mut Value, key: &str) -> &'a mut Map<String, Value> {
    if !obj[key].is_object() {
        obj[key] = json!({});
    }
    match obj.get_mut(key) {
        Some(Value::Object(m)) => m,
        _ => unreachable!("just inserted an object"),
    }
}

pub fn default_field(map: &mut Map<String, Value>, key: &str, value: Value) {
    map.entry(key.to_string()).or_insert(value);
}

pub fn default_pod_spec(spec: &mut Value) {
    if !spec.is_object() {
        return;
    }
    if let Some(m) = spec.as_object_mut() {
        default_field(m, "restartPolicy", json!("Always"));
        default_field(m, "terminationGracePeriodSeconds", json!(30));
        default_field(m, "dnsPolicy", json!("ClusterFirst"));
        default_field(m, "schedulerName", json!("default-scheduler"));
        default_field(m, "securityContext", json!({}));
        // The deprecated `serviceAccount` mirrors `serviceAccountName` (kube-apiserver's
        // conversion fills either from the other).
        match (m.get("serviceAccountName"), m.get("serviceAccount")) {
            (Some(Value::String(name)), _) if !name.is_empty() => {
                let name = name.clone();
                m.insert("serviceAccount".into(), json!(name));
            }
            (_, Some(Value::String(old))) if !old.is_empty() => {
                let old = old.clone();
                m.insert("serviceAccountName".into(), json!(old));
            }
            _ => {}
        }
    }
    for field in ["containers", "initContainers"] {
        for c in spec
            .get_mut(field)
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            let image = c["image"].as_str().unwrap_or_default().to_string();
            let Some(m) = c.as_object_mut() else { continue };
            let tag = image.rsplit('/').next().unwrap_or_default();
            let latest = !tag.contains(':') || tag.ends_with(":latest");
            let policy = if latest && !image.contains('@') {
                "Always"
            } else {
                "IfNotPresent"
            };
            default_field(m, "imagePullPolicy", json!(policy));
            default_field(m, "terminationMessagePath", json!("/dev/termination-log"));
            default_field(m, "terminationMessagePolicy", json!("File"));
            default_field(m, "resources", json!({}));
            for p in m
                .get_mut("ports")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                if let Some(pm) = p.as_object_mut() {
                    default_field(pm, "protocol", json!("TCP"));
                }
            }
        }
    }
}

/// Defaults of `spec.template.spec`, for the kinds that hold a pod template.
pub fn default_template(obj: &mut Value) {
    if obj["spec"]["template"]["spec"].is_object() {
        default_pod_spec(&mut obj["spec"]["template"]["spec"]);
    }
}

pub fn validate_pod_spec(spec: &Value, field: &str, causes: &mut Vec<Cause>) {
    let containers = spec["containers"].as_array();
    if containers.is_none_or(|c| c.is_empty()) {
        causes.push(Cause::required(&format!("{field}.containers")));
        return;
    }
    for (i, c) in containers.into_iter().flatten().enumerate() {
        if c["name"].as_str().is_none_or(|n| !is_dns1123_label(n)) {
            causes.push(Cause::required(&format!("{field}.containers[{i}].name")));
        }
        if c["image"].as_str().is_none_or(str::is_empty) {
            causes.push(Cause::required(&format!("{field}.containers[{i}].image")));
        }
    }
}

/// The apps/v1 workloads' checks: a non-empty selector matching the template's labels, a
/// valid pod template, replicas not negative.
pub fn validate_workload(obj: &Value) -> Vec<Cause> {
    let mut causes = vec![];
    let selector = &obj["spec"]["selector"];
    if !selector.is_object() {
        causes.push(Cause::required("spec.selector"));
    } else {
        match LabelSelector::from_structured(selector) {
            Ok(sel) if sel.is_empty() => causes.push(Cause::invalid(
                "spec.selector",
                "{}",
                "empty selector is invalid for deployment",
            )),
            Ok(sel) => {
                if !sel.matches_labels(&labels_of(&obj["spec"]["template"])) {
                    let labels =
                        serde_json::to_string(&obj["spec"]["template"]["metadata"]["labels"])
                            .unwrap_or_default();
                    causes.push(Cause::invalid(
                        "spec.template.metadata.labels",
                        &labels,
                        "`selector` does not match template `labels`",
                    ));
                }
            }
            Err(e) => causes.push(Cause::invalid("spec.selector", "", &e)),
        }
    }
    validate_pod_spec(
        &obj["spec"]["template"]["spec"],
        "spec.template.spec",
        &mut causes,
    );
    if obj["spec"]["replicas"].as_i64().is_some_and(|r| r < 0) {
        causes.push(Cause::invalid(
            "spec.replicas",
            &obj["spec"]["replicas"].to_string(),
            "must be greater than or equal to 0",
        ));
    }
    causes
}

/// A cause for each field (a path of keys, as `["spec", "selector"]`) an update changed
/// although it may only be set at creation.
pub fn immutable_fields(old: &Value, new: &Value, paths: &[&[&str]]) -> Vec<Cause> {
    let at = |obj: &Value, path: &[&str]| {
        path.iter()
            .try_fold(obj, |v, key| v.get(key))
            .cloned()
            .unwrap_or(Value::Null)
    };
    paths
        .iter()
        .filter(|path| at(old, path) != at(new, path))
        .map(|path| {
            let value = at(new, path).to_string();
            Cause::invalid(&path.join("."), &value, "field is immutable")
        })
        .collect()
}

/// The apps/v1 workloads (Deployments, ReplicaSets, StatefulSets, DaemonSets): each its own
/// defaults and printer; all the same checks, and a selector fixed at creation.
pub struct Workload {
    /// Defaults of the kind's own fields (the pod template's are added for all).
    pub defaults: fn(&mut Value),
    pub printer: Printer,
    pub field_selectors: &'static [&'static str],
    /// See [`Strategy::annotations_are_spec`] (Deployments).
    pub annotations_are_spec: bool,
}

impl Workload {
    pub const fn new(
        defaults: fn(&mut Value),
        columns: &'static [Col],
        cells: fn(&Value) -> Vec<Value>,
    ) -> Workload {
        Workload {
            defaults,
            printer: Printer::new(columns, cells),
            field_selectors: &[],
            annotations_are_spec: false,
        }
    }

    /// The same, with annotations that count as spec (Deployments).
    pub const fn annotations_are_spec(self) -> Workload {
        Workload {
            annotations_are_spec: true,
            ..self
        }
    }

    /// The same, with fields selectable in `fieldSelector`.
    pub const fn selectable(self, field_selectors: &'static [&'static str]) -> Workload {
        Workload {
            field_selectors,
            ..self
        }
    }
}

impl Strategy for Workload {
    fn default_fields(&self, obj: &mut Value) {
        (self.defaults)(obj);
        default_template(obj);
    }

    fn validate(&self, obj: &Value) -> Vec<Cause> {
        validate_workload(obj)
    }

    fn validate_update(&self, old: &Value, new: &Value) -> Vec<Cause> {
        immutable_fields(old, new, &[&["spec", "selector"]])
    }

    fn printer(&self) -> Option<Printer> {
        Some(self.printer)
    }

    fn field_selectors(&self) -> &'static [&'static str] {
        self.field_selectors
    }

    fn annotations_are_spec(&self) -> bool {
        self.annotations_are_spec
    }
}
