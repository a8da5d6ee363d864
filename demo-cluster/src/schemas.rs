//! The schemas of the served kinds, as far as the server needs them itself: the typed
//! schemas of the built-in kinds (from k8s-openapi, as kube-apiserver's Go types) and CRD
//! versions' `openAPIV3Schema`, and pruning an object's undeclared fields by them. The
//! OpenAPI documents (`openapi`) publish the same schemas; the registry prunes with them.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, OnceLock};

use schemars::generate::{SchemaGenerator, SchemaSettings};
use schemars::JsonSchema;
use serde_json::{json, Map, Value};

/// Adds the schema of a built-in kind to the generator; returns its definition name.
pub fn builtin_schema(
    generator: &mut SchemaGenerator,
    group: &str,
    version: &str,
    kind: &str,
) -> Option<String> {
    use k8s_openapi::api::{
        admissionregistration, apps, authentication, authorization, autoscaling, batch,
        certificates, coordination, core, discovery, events, flowcontrol, networking, node, policy,
        rbac, resource, scheduling, storage,
    };
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions;
    use k8s_openapi::kube_aggregator::pkg::apis::apiregistration;
    fn add<T: JsonSchema>(generator: &mut SchemaGenerator) -> Option<String> {
        generator.subschema_for::<T>();
        Some(T::schema_name().into_owned())
    }
    match (group, kind) {
        ("autoscaling", "HorizontalPodAutoscaler") if version == "v1" => {
            add::<autoscaling::v1::HorizontalPodAutoscaler>(generator)
        }
        ("autoscaling", "HorizontalPodAutoscaler") => {
            add::<autoscaling::v2::HorizontalPodAutoscaler>(generator)
        }
        ("", "ComponentStatus") => add::<core::v1::ComponentStatus>(generator),
        ("", "ConfigMap") => add::<core::v1::ConfigMap>(generator),
        ("", "LimitRange") => add::<core::v1::LimitRange>(generator),
        ("", "PersistentVolume") => add::<core::v1::PersistentVolume>(generator),
        ("", "PersistentVolumeClaim") => add::<core::v1::PersistentVolumeClaim>(generator),
        ("", "PodTemplate") => add::<core::v1::PodTemplate>(generator),
        ("", "ReplicationController") => add::<core::v1::ReplicationController>(generator),
        ("apiregistration.k8s.io", "APIService") => {
            add::<apiregistration::v1::APIService>(generator)
        }
        ("certificates.k8s.io", "CertificateSigningRequest") => {
            add::<certificates::v1::CertificateSigningRequest>(generator)
        }
        ("certificates.k8s.io", "PodCertificateRequest") => {
            add::<certificates::v1::PodCertificateRequest>(generator)
        }
        ("networking.k8s.io", "IPAddress") => add::<networking::v1::IPAddress>(generator),
        ("networking.k8s.io", "ServiceCIDR") => add::<networking::v1::ServiceCIDR>(generator),
        ("storage.k8s.io", "CSIStorageCapacity") => {
            add::<storage::v1::CSIStorageCapacity>(generator)
        }
        ("storage.k8s.io", "VolumeAttributesClass") => {
            add::<storage::v1::VolumeAttributesClass>(generator)
        }
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicy") => {
            add::<admissionregistration::v1::MutatingAdmissionPolicy>(generator)
        }
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding") => {
            add::<admissionregistration::v1::MutatingAdmissionPolicyBinding>(generator)
        }
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy") => {
            add::<admissionregistration::v1::ValidatingAdmissionPolicy>(generator)
        }
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding") => {
            add::<admissionregistration::v1::ValidatingAdmissionPolicyBinding>(generator)
        }
        ("flowcontrol.apiserver.k8s.io", "FlowSchema") => {
            add::<flowcontrol::v1::FlowSchema>(generator)
        }
        ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration") => {
            add::<flowcontrol::v1::PriorityLevelConfiguration>(generator)
        }
        ("resource.k8s.io", "DeviceClass") => add::<resource::v1::DeviceClass>(generator),
        ("resource.k8s.io", "ResourceClaim") => add::<resource::v1::ResourceClaim>(generator),
        ("resource.k8s.io", "ResourceClaimTemplate") => {
            add::<resource::v1::ResourceClaimTemplate>(generator)
        }
        ("resource.k8s.io", "ResourceSlice") => add::<resource::v1::ResourceSlice>(generator),
        ("", "ResourceQuota") => add::<core::v1::ResourceQuota>(generator),
        ("apps", "ControllerRevision") => add::<apps::v1::ControllerRevision>(generator),
        ("networking.k8s.io", "IngressClass") => add::<networking::v1::IngressClass>(generator),
        ("networking.k8s.io", "Ingress") => add::<networking::v1::Ingress>(generator),
        ("networking.k8s.io", "NetworkPolicy") => add::<networking::v1::NetworkPolicy>(generator),
        ("policy", "PodDisruptionBudget") => add::<policy::v1::PodDisruptionBudget>(generator),
        ("storage.k8s.io", "CSIDriver") => add::<storage::v1::CSIDriver>(generator),
        ("storage.k8s.io", "CSINode") => add::<storage::v1::CSINode>(generator),
        ("storage.k8s.io", "StorageClass") => add::<storage::v1::StorageClass>(generator),
        ("storage.k8s.io", "VolumeAttachment") => add::<storage::v1::VolumeAttachment>(generator),
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration") => {
            add::<admissionregistration::v1::MutatingWebhookConfiguration>(generator)
        }
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration") => {
            add::<admissionregistration::v1::ValidatingWebhookConfiguration>(generator)
        }
        ("scheduling.k8s.io", "PriorityClass") => add::<scheduling::v1::PriorityClass>(generator),
        ("node.k8s.io", "RuntimeClass") => add::<node::v1::RuntimeClass>(generator),
        ("discovery.k8s.io", "EndpointSlice") => add::<discovery::v1::EndpointSlice>(generator),
        ("", "Endpoints") => add::<core::v1::Endpoints>(generator),
        ("", "Event") => add::<core::v1::Event>(generator),
        ("", "Namespace") => add::<core::v1::Namespace>(generator),
        ("", "Node") => add::<core::v1::Node>(generator),
        ("", "Pod") => add::<core::v1::Pod>(generator),
        ("", "Secret") => add::<core::v1::Secret>(generator),
        ("", "ServiceAccount") => add::<core::v1::ServiceAccount>(generator),
        ("", "Service") => add::<core::v1::Service>(generator),
        ("apps", "DaemonSet") => add::<apps::v1::DaemonSet>(generator),
        ("apps", "Deployment") => add::<apps::v1::Deployment>(generator),
        ("apps", "ReplicaSet") => add::<apps::v1::ReplicaSet>(generator),
        ("apps", "StatefulSet") => add::<apps::v1::StatefulSet>(generator),
        ("events.k8s.io", "Event") => add::<events::v1::Event>(generator),
        ("batch", "CronJob") => add::<batch::v1::CronJob>(generator),
        ("batch", "Job") => add::<batch::v1::Job>(generator),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding") => {
            add::<rbac::v1::ClusterRoleBinding>(generator)
        }
        ("rbac.authorization.k8s.io", "ClusterRole") => add::<rbac::v1::ClusterRole>(generator),
        ("rbac.authorization.k8s.io", "RoleBinding") => add::<rbac::v1::RoleBinding>(generator),
        ("rbac.authorization.k8s.io", "Role") => add::<rbac::v1::Role>(generator),
        ("apiextensions.k8s.io", "CustomResourceDefinition") => {
            add::<apiextensions::v1::CustomResourceDefinition>(generator)
        }
        ("coordination.k8s.io", "Lease") => add::<coordination::v1::Lease>(generator),
        ("authentication.k8s.io", "SelfSubjectReview") => {
            add::<authentication::v1::SelfSubjectReview>(generator)
        }
        ("authentication.k8s.io", "TokenReview") => {
            add::<authentication::v1::TokenReview>(generator)
        }
        ("authorization.k8s.io", "LocalSubjectAccessReview") => {
            add::<authorization::v1::LocalSubjectAccessReview>(generator)
        }
        ("authorization.k8s.io", "SelfSubjectAccessReview") => {
            add::<authorization::v1::SelfSubjectAccessReview>(generator)
        }
        ("authorization.k8s.io", "SelfSubjectRulesReview") => {
            add::<authorization::v1::SelfSubjectRulesReview>(generator)
        }
        ("authorization.k8s.io", "SubjectAccessReview") => {
            add::<authorization::v1::SubjectAccessReview>(generator)
        }
        _ => None,
    }
}

/// Resolves `$ref` / single-element `allOf` wrappers to the referenced definition.
fn resolve<'a>(mut node: &'a Value, schemas: &'a Map<String, Value>) -> &'a Value {
    for _ in 0..8 {
        let target = node["$ref"]
            .as_str()
            .or_else(|| node["allOf"][0]["$ref"].as_str());
        match target.and_then(|r| r.strip_prefix("#/components/schemas/")) {
            Some(name) => match schemas.get(name) {
                Some(n) => node = n,
                None => return node,
            },
            None => return node,
        }
    }
    node
}

/// How a schema without `properties` is read: built-in opaque types (FieldsV1, RawExtension)
/// accept anything, while a CRD's structural schema prunes everything it does not declare.
#[derive(Clone, Copy, PartialEq)]
enum Undeclared {
    Allowed,
    Pruned,
}

/// `path` is the dotted path of `value` (one buffer for the whole walk: a string per node
/// was a tenth of a churning cluster's write time, and paths are only needed for what is
/// pruned).
fn prune(
    node: &Value,
    value: &mut Value,
    path: &mut String,
    schemas: &Map<String, Value>,
    out: &mut Vec<String>,
    mode: Undeclared,
) {
    let node = resolve(node, schemas);
    if node["x-kubernetes-preserve-unknown-fields"].as_bool() == Some(true)
        || node["x-kubernetes-int-or-string"].as_bool() == Some(true)
    {
        return;
    }
    let parent_len = path.len();
    match value {
        Value::Object(map) => {
            let props = node["properties"].as_object();
            let additional = node.get("additionalProperties").filter(|a| a.is_object());
            if props.is_none() && additional.is_none() && mode == Undeclared::Allowed {
                return;
            }
            let embedded = node["x-kubernetes-embedded-resource"].as_bool() == Some(true);
            let mut unknown = vec![];
            for (k, v) in map.iter_mut() {
                if embedded && matches!(k.as_str(), "apiVersion" | "kind" | "metadata") {
                    continue;
                }
                if parent_len > 0 {
                    path.push('.');
                }
                path.push_str(k);
                match (props.and_then(|p| p.get(k)), additional) {
                    (Some(s), _) | (None, Some(s)) => prune(s, v, path, schemas, out, mode),
                    (None, None) => unknown.push((k.clone(), path.clone())),
                }
                path.truncate(parent_len);
            }
            for (k, child) in unknown {
                map.remove(&k);
                out.push(child);
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = node.get("items") {
                for (i, item) in items.iter_mut().enumerate() {
                    // Writing to a String cannot fail.
                    let _ = write!(path, "[{i}]");
                    prune(item_schema, item, path, schemas, out, mode);
                    path.truncate(parent_len);
                }
            }
        }
        _ => {}
    }
}

/// Drops the fields of a built-in kind's object that its type does not have
/// (kube-apiserver decodes into typed structs, so they vanish) and returns their paths, for
/// `fieldValidation` Warn/Strict reporting.
pub fn prune_builtin(group: &str, version: &str, kind: &str, obj: &mut Value) -> Vec<String> {
    let Some(schema) = builtin_kind_schema(group, version, kind) else {
        return vec![];
    };
    let (root, definitions) = &*schema;
    let Some(root) = definitions.get(root) else {
        return vec![];
    };
    let mut out = vec![];
    prune(
        root,
        obj,
        &mut String::new(),
        definitions,
        &mut out,
        Undeclared::Allowed,
    );
    out.sort();
    out
}

/// Structural-schema pruning of a custom resource by its version's `openAPIV3Schema`
/// (apiVersion, kind and metadata are the server's; everything else must be declared unless
/// x-kubernetes-preserve-unknown-fields). Returns the paths pruned.
pub fn prune_custom(schema: Option<Value>, obj: &mut Value) -> Vec<String> {
    let Some(mut schema) = schema.filter(Value::is_object) else {
        return vec![];
    };
    schema["x-kubernetes-embedded-resource"] = json!(true);
    let mut out = vec![];
    prune(
        &schema,
        obj,
        &mut String::new(),
        &Map::new(),
        &mut out,
        Undeclared::Pruned,
    );
    out.sort();
    out
}

/// The `openAPIV3Schema` of `version` of the CRD (among `crds`) serving `group`/`plural`.
pub fn crd_version_schema(
    crds: &[Value],
    group: &str,
    plural: &str,
    version: &str,
) -> Option<Value> {
    let crd = crds
        .iter()
        .find(|c| c["spec"]["group"] == group && c["spec"]["names"]["plural"] == plural)?;
    crd["spec"]["versions"]
        .as_array()?
        .iter()
        .find(|v| v["name"] == version)
        .map(|v| v["schema"]["openAPIV3Schema"].clone())
        .filter(Value::is_object)
}

/// A built-in kind's definition name and every definition it refers to (generated once per
/// kind: the types never change).
fn builtin_kind_schema(
    group: &str,
    version: &str,
    kind: &str,
) -> Option<Arc<(String, Map<String, Value>)>> {
    type Cache =
        Mutex<HashMap<(String, String, String), Option<Arc<(String, Map<String, Value>)>>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let key = (group.to_string(), version.to_string(), kind.to_string());
    let mut cache = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    cache
        .entry(key)
        .or_insert_with(|| {
            let mut generator = SchemaSettings::openapi3().into_generator();
            let root = builtin_schema(&mut generator, group, version, kind)?;
            Some(Arc::new((root, generator.take_definitions(true))))
        })
        .clone()
}
