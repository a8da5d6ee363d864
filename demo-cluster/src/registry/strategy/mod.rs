//! Per-kind behaviour for the generic registry, shaped as kube-apiserver's strategies
//! (`pkg/registry/<group>/<kind>/strategy.go`): defaults, create and update preparation,
//! validation of new objects and of updates, which part is status, hooks after writes and
//! deletes, the storage shape, and the Table printer. Each built-in kind's strategy is in its
//! own module (`registry::kinds::<group>::<kind>`); the one table `kinds::BUILT_IN` finds
//! them by (group, resource), so a custom resource that shares a built-in's plural in its own
//! group gets none of the built-in's behaviour. This module keeps the trait, the generic
//! steps around it, and the strategies' shared helpers ([`common`], [`printing`]).

pub(crate) mod common;
pub mod printing;

use serde_json::Value;

use super::kinds::{custom, ResourceDef, BUILT_IN};
use super::{Registry, WriteOptions};
use crate::errors::{ApiResult, Cause};
use crate::names::{is_dns1123_label, is_dns1123_subdomain};
use crate::storage::selectors::{labels_of, LabelSelector};
use printing::Printer;

/// What a create may need from the registry.
pub struct CreateContext<'a> {
    /// Allocates the next Service ClusterIP.
    pub allocate_service_ip: &'a dyn Fn() -> String,
    /// Allocates the next Service node port (30000-32767).
    pub allocate_node_port: &'a dyn Fn() -> i64,
}

/// Which part of an object is status, and which writes may set it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusPolicy {
    /// No status subresource: writes to the object set everything.
    None,
    /// `status` is written through `/status` only: reset on create, kept by other writes.
    Subresource,
    /// As `Subresource`, except that a create may bring the initial status (a Node
    /// registered by its kubelet).
    SubresourceSetOnCreate,
}

/// The syntax of `metadata.name`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRule {
    /// RFC 1123 subdomain: most built-in kinds.
    Subdomain,
    /// RFC 1123 label: Namespaces.
    Label,
    /// RFC 1035 label (starts with a letter): Services, whose names become DNS labels.
    Label1035,
    /// Any path segment: custom resources.
    PathSegment,
}

pub trait Strategy: Sync {
    /// Defaults applied to every write the server decodes (create, update, patch, apply), so
    /// writing an object back without them changes nothing.
    fn default_fields(&self, _obj: &mut Value) {}
    /// Create only, after the defaults: generated fields and the initial status.
    fn prepare_for_create(&self, _obj: &mut Value, _ctx: &CreateContext) {}
    /// Writes to the object itself (not `/status`), after the defaults and the status split.
    fn prepare_for_update(&self, _old: &Value, _new: &mut Value) {}
    fn name_rule(&self) -> NameRule {
        NameRule::Subdomain
    }
    /// A create answered instead of stored (the review kinds, core Bindings); `None` stores
    /// the object as usual.
    fn answer_create(
        &self,
        _registry: &Registry,
        _def: &ResourceDef,
        _namespace: &str,
        _body: &Value,
        _opts: &WriteOptions,
    ) -> Option<ApiResult<Value>> {
        None
    }
    /// A write through a subresource of the kind's own (a Namespace's `finalize`): makes
    /// `new` the stored object with what that subresource may change. `false` if the kind
    /// has no such subresource.
    /// Whether the annotations count as spec: a change to them written to the object moves
    /// the generation on, and a status write keeps the body's (kube-apiserver's Deployment
    /// strategies: the annotations are copied to the ReplicaSets, and the controller records
    /// the revision through the status without moving the generation on).
    fn annotations_are_spec(&self) -> bool {
        false
    }

    fn prepare_subresource_update(&self, _sub: &str, _old: &Value, _new: &mut Value) -> bool {
        false
    }
    /// The kind's checks of an object as it would be stored (metadata is checked for all).
    fn validate(&self, _obj: &Value) -> Vec<Cause> {
        vec![]
    }
    /// Checks of an update against the stored object: fields fixed at creation.
    fn validate_update(&self, _old: &Value, _new: &Value) -> Vec<Cause> {
        vec![]
    }
    fn status(&self, def: &ResourceDef) -> StatusPolicy {
        if def.has_status() {
            StatusPolicy::Subresource
        } else {
            StatusPolicy::None
        }
    }
    /// Fields selectable in `fieldSelector` besides `metadata.name` and `metadata.namespace`.
    fn field_selectors(&self) -> &'static [&'static str] {
        &[]
    }
    /// Columns and cells of server-side Tables; `None` prints Name and Created At.
    fn printer(&self) -> Option<Printer> {
        None
    }
    /// A Table row's `conditions` (kubectl greys out completed Jobs).
    fn row_conditions(&self, _obj: &Value) -> Option<Value> {
        None
    }
    /// After an object was created, updated or deleted.
    fn after_write(&self, _registry: &Registry) {}
    /// Before an object is removed from the store.
    fn before_delete(&self, _registry: &Registry, _obj: &Value) {}
    /// Whether a DELETE may let the object finish gracefully (pods on a node).
    fn graceful_deletion(&self) -> bool {
        false
    }
    /// Whether a deletion must wait for more than `metadata.finalizers` (a Namespace's
    /// `spec.finalizers`).
    fn deletion_waits(&self, _obj: &Value) -> bool {
        false
    }
    /// Marks an object whose deletion has started (a Namespace's Terminating phase).
    fn mark_terminating(&self, _obj: &mut Value) {}
    /// The stored shape of an object received through `def` (events.k8s.io Events are
    /// stored as core ones, autoscaling/v1 HorizontalPodAutoscalers as v2 ones).
    fn stored_shape(&self, _def: &ResourceDef, obj: Value) -> Value {
        obj
    }
    /// The shape `def` serves of a stored object.
    fn served_shape(&self, _def: &ResourceDef, obj: Value) -> Value {
        obj
    }
    /// Whether `served_shape` changes objects served through `def`.
    fn reshapes(&self, _def: &ResourceDef) -> bool {
        false
    }
}

/// Built-in kinds without behaviour of their own.
struct Plain;
impl Strategy for Plain {}

/// Built-in kinds whose only behaviour of their own is how kubectl prints them.
pub struct Printed(pub Printer);

impl Strategy for Printed {
    fn printer(&self) -> Option<Printer> {
        Some(self.0)
    }
}

/// The strategy of the kind `def` serves: a built-in's by (group, resource), the generic
/// one of custom resources for everything a CRD defines.
pub fn of(def: &ResourceDef) -> &'static dyn Strategy {
    if !def.builtin {
        return &custom::CustomResources;
    }
    BUILT_IN
        .iter()
        .find(|(group, resource, _)| *group == def.group && *resource == def.resource)
        .map_or(&Plain, |(_, _, strategy)| *strategy)
}

fn without_status(obj: &mut Value) {
    if let Some(m) = obj.as_object_mut() {
        m.remove("status");
    }
}

/// Create: the status reset, the defaults, then the kind's own preparation (the registry
/// adds uid, timestamps and versions).
pub fn prepare_for_create(def: &ResourceDef, obj: &mut Value, ctx: &CreateContext) {
    let strategy = of(def);
    if strategy.status(def) == StatusPolicy::Subresource {
        without_status(obj);
    }
    strategy.default_fields(obj);
    strategy.prepare_for_create(obj, ctx);
    if def.builtin && strategy.status(def) != StatusPolicy::None && obj.get("status").is_none() {
        initial_status(def, obj);
    }
}

/// The status a built-in kind is stored with before anyone writes one: kube-apiserver's Go
/// types serialise their zero-valued status struct (`{}`, or its non-omitempty fields).
fn initial_status(def: &ResourceDef, obj: &mut Value) {
    obj["status"] = match (def.group.as_str(), def.resource.as_str()) {
        ("autoscaling", "horizontalpodautoscalers") => {
            serde_json::json!({"currentMetrics": null, "desiredReplicas": 0})
        }
        ("networking.k8s.io", "ingresses") => serde_json::json!({"loadBalancer": {}}),
        ("apps", "replicasets") => serde_json::json!({"replicas": 0}),
        ("apps", "statefulsets") => serde_json::json!({"replicas": 0, "availableReplicas": 0}),
        ("apps", "daemonsets") => serde_json::json!({"currentNumberScheduled": 0,
            "numberMisscheduled": 0, "desiredNumberScheduled": 0, "numberReady": 0}),
        ("policy", "poddisruptionbudgets") => serde_json::json!({"disruptionsAllowed": 0,
            "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}),
        ("", "nodes") => {
            // A Node written without its kubelet's status: not ready, so kube-apiserver's
            // TaintNodesByCondition admission taints it (the node lifecycle controller lifts
            // the taint once the kubelet reports Ready).
            let taint =
                serde_json::json!({"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"});
            if !obj["spec"].is_object() {
                obj["spec"] = serde_json::json!({});
            }
            match obj["spec"]["taints"].as_array_mut() {
                Some(taints) => {
                    if !taints.iter().any(|t| t["key"] == taint["key"]) {
                        taints.push(taint);
                    }
                }
                None => obj["spec"]["taints"] = serde_json::json!([taint]),
            }
            serde_json::json!({"daemonEndpoints": {"kubeletEndpoint": {"Port": 0}}, "nodeInfo": {
                "architecture": "", "bootID": "", "containerRuntimeVersion": "", "kernelVersion": "",
                "kubeProxyVersion": "", "kubeletVersion": "", "machineID": "", "operatingSystem": "",
                "osImage": "", "systemUUID": ""}})
        }
        _ => serde_json::json!({}),
    };
}

/// Update through the object or a subresource: writes to `/status` (and a
/// CertificateSigningRequest's `/approval`) keep everything but the status; other writes get
/// the defaults and keep the stored status.
pub fn prepare_for_update(def: &ResourceDef, old: &Value, new: &mut Value, subresource: &str) {
    let strategy = of(def);
    if strategy.prepare_subresource_update(subresource, old, new) {
        return;
    }
    if subresource.is_empty() {
        strategy.default_fields(new);
    }
    if subresource == "status" || subresource == "approval" {
        // The stored object with the body's status: everything else is copied from `old`
        // (old's own status is not, a copy that was dropped at once).
        let status = new.as_object_mut().and_then(|m| m.remove("status"));
        let rv = new
            .pointer_mut("/metadata/resourceVersion")
            .map(Value::take)
            .unwrap_or_default();
        let annotations = strategy
            .annotations_are_spec()
            .then(|| new["metadata"]["annotations"].take());
        *new = match old.as_object() {
            Some(fields) => Value::Object(
                fields
                    .iter()
                    .filter(|(k, _)| k.as_str() != "status")
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            ),
            None => old.clone(),
        };
        if let Some(status) = status {
            new["status"] = status;
        }
        new["metadata"]["resourceVersion"] = rv;
        match annotations {
            Some(Value::Null) => {
                if let Some(m) = new["metadata"].as_object_mut() {
                    m.remove("annotations");
                }
            }
            Some(annotations) => new["metadata"]["annotations"] = annotations,
            None => {}
        }
        return;
    }
    if strategy.status(def) != StatusPolicy::None {
        match old.get("status") {
            Some(s) => new["status"] = s.clone(),
            None => without_status(new),
        }
    }
    strategy.prepare_for_update(old, new);
}

/// Whether an update moves `metadata.generation` on: a spec change, or an annotation change
/// written to the object itself where the kind's annotations count as spec.
pub fn generation_changed(def: &ResourceDef, old: &Value, new: &Value, subresource: &str) -> bool {
    spec_changed(old, new)
        || (subresource.is_empty()
            && of(def).annotations_are_spec()
            && old["metadata"]["annotations"] != new["metadata"]["annotations"])
}

/// Spec-like content changed (generation bumps): everything but metadata and status.
pub fn spec_changed(old: &Value, new: &Value) -> bool {
    const NOT_SPEC: [&str; 4] = ["metadata", "status", "apiVersion", "kind"];
    let (Some(old), Some(new)) = (old.as_object(), new.as_object()) else {
        return old != new;
    };
    // Compared in place: copying both objects without those fields was most of the cost of
    // a status write's check.
    let spec_like = |map: &'_ serde_json::Map<String, Value>| {
        map.keys()
            .filter(|k| !NOT_SPEC.contains(&k.as_str()))
            .count()
    };
    spec_like(old) != spec_like(new)
        || old
            .iter()
            .filter(|(k, _)| !NOT_SPEC.contains(&k.as_str()))
            .any(|(k, v)| new.get(k) != Some(v))
}

fn validate_metadata(strategy: &dyn Strategy, obj: &Value, causes: &mut Vec<Cause>) {
    let name = obj["metadata"]["name"].as_str().unwrap_or_default();
    let ok = match strategy.name_rule() {
        NameRule::Subdomain => is_dns1123_subdomain(name),
        NameRule::Label => is_dns1123_label(name),
        NameRule::Label1035 => {
            is_dns1123_label(name) && name.starts_with(|c: char| c.is_ascii_lowercase())
        }
        NameRule::PathSegment => {
            !name.is_empty() && !name.contains('/') && name != "." && name != ".."
        }
    };
    if !ok {
        causes.push(Cause::invalid(
            "metadata.name",
            name,
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ));
    }
    for (k, v) in labels_of(obj) {
        if LabelSelector::parse(&format!("{k}={v}")).is_err() {
            causes.push(Cause::invalid("metadata.labels", &v, "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.'"));
        }
    }
    if let Some(a) = obj["metadata"].get("annotations") {
        if !a.is_null()
            && !a
                .as_object()
                .is_some_and(|m| m.values().all(Value::is_string))
        {
            causes.push(Cause::new(
                "FieldValueTypeInvalid",
                "metadata.annotations",
                "annotation values must be strings",
            ));
        }
    }
}

/// Validation errors for the object as it would be stored.
pub fn validate(def: &ResourceDef, obj: &Value) -> Vec<Cause> {
    let strategy = of(def);
    let mut causes = vec![];
    validate_metadata(strategy, obj, &mut causes);
    causes.extend(strategy.validate(obj));
    causes
}

/// Validation errors of an update: the new object's, then what it may not change.
pub fn validate_update(def: &ResourceDef, old: &Value, new: &Value) -> Vec<Cause> {
    let mut causes = validate(def, new);
    causes.extend(of(def).validate_update(old, new));
    causes
}

/// A built-in kind's definition, for the kinds' unit tests.
#[cfg(test)]
pub(crate) fn builtin_def(group: &str, resource: &str) -> crate::registry::kinds::ResourceDef {
    crate::registry::kinds::builtin_resources()
        .into_iter()
        .find(|d| d.group == group && d.resource == resource)
        .unwrap_or_else(|| panic!("no built-in {group}/{resource}"))
}

#[cfg(test)]
fn no_service_ip() -> String {
    String::new()
}

#[cfg(test)]
fn first_node_port() -> i64 {
    30000
}

#[cfg(test)]
impl CreateContext<'static> {
    /// A create without Service IPs to hand out, for the kinds' unit tests.
    pub(crate) fn without_service_ips() -> Self {
        CreateContext {
            allocate_service_ip: &no_service_ip,
            allocate_node_port: &first_node_port,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::spec_changed;
    use serde_json::json;

    #[test]
    fn spec_changed_sees_everything_but_metadata_status_and_type() {
        let old = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "a", "labels": {"x": "1"}}, "status": {"phase": "A"},
            "spec": {"replicas": 1}, "data": {"k": "v"}});
        let changed = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut new = old.clone();
            edit(&mut new);
            spec_changed(&old, &new)
        };
        assert!(!changed(&|_| {}));
        assert!(!changed(&|n| n["metadata"]["labels"]["x"] = json!("2")));
        assert!(!changed(&|n| n["status"]["phase"] = json!("B")));
        assert!(!changed(&|n| n["apiVersion"] = json!("v2")));
        assert!(changed(&|n| n["spec"]["replicas"] = json!(2)));
        assert!(changed(&|n| n["data"]["k"] = json!("w")));
        assert!(changed(&|n| n["binaryData"] = json!({})));
        assert!(changed(&|n| {
            n.as_object_mut().map(|m| m.remove("data"));
        }));
        // A field that moved: one gone, another come, as many fields as before.
        assert!(changed(&|n| {
            let map = n.as_object_mut().expect("object");
            map.remove("data");
            map.insert("immutable".into(), json!(true));
        }));
    }
}
