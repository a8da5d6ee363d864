//! The schemas of the served kinds, as far as the server needs them itself: the typed
//! schemas of the built-in kinds (from k8s-openapi, as kube-apiserver's Go types) and CRD
//! versions' `openAPIV3Schema`, and pruning an object's undeclared fields by them. The
//! OpenAPI documents (`openapi`) publish the same schemas; the registry prunes with them.
//! Each built-in kind names its type in its own module (`registry::kinds::<group>::<kind>`'s
//! `SCHEMA`); [`BUILT_IN_SCHEMAS`] finds them by (group, kind).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, OnceLock};

use schemars::generate::{SchemaGenerator, SchemaSettings};
use schemars::JsonSchema;
use serde_json::{json, Map, Value};

use crate::registry::kinds;

/// Adds a built-in kind's typed schema (k8s-openapi's, as kube-apiserver's Go types) of the
/// served `version` to the generator; returns its definition name.
pub(crate) type SchemaOf = fn(&mut SchemaGenerator, &str) -> String;

/// Adds `T`'s schema to the generator; returns its definition name (the kinds' `SCHEMA`).
pub(crate) fn schema_of<T: JsonSchema>(generator: &mut SchemaGenerator) -> String {
    generator.subschema_for::<T>();
    T::schema_name().into_owned()
}

/// Every built-in kind with a typed schema, by (group, kind) (Bindings, ClusterTrustBundles,
/// DeviceTaintRules and StorageVersionMigrations have none: nothing is pruned from them).
static BUILT_IN_SCHEMAS: &[(&str, &str, SchemaOf)] = &[
    (
        "autoscaling",
        "HorizontalPodAutoscaler",
        kinds::autoscaling::horizontalpodautoscalers::SCHEMA,
    ),
    (
        "",
        "ComponentStatus",
        kinds::core::componentstatuses::SCHEMA,
    ),
    ("", "ConfigMap", kinds::core::configmaps::SCHEMA),
    ("", "LimitRange", kinds::core::limitranges::SCHEMA),
    (
        "",
        "PersistentVolume",
        kinds::core::persistentvolumes::SCHEMA,
    ),
    (
        "",
        "PersistentVolumeClaim",
        kinds::core::persistentvolumeclaims::SCHEMA,
    ),
    ("", "PodTemplate", kinds::core::podtemplates::SCHEMA),
    (
        "",
        "ReplicationController",
        kinds::core::replicationcontrollers::SCHEMA,
    ),
    (
        "apiregistration.k8s.io",
        "APIService",
        kinds::apiregistration::apiservices::SCHEMA,
    ),
    (
        "certificates.k8s.io",
        "CertificateSigningRequest",
        kinds::certificates::certificatesigningrequests::SCHEMA,
    ),
    (
        "certificates.k8s.io",
        "PodCertificateRequest",
        kinds::certificates::podcertificaterequests::SCHEMA,
    ),
    (
        "networking.k8s.io",
        "IPAddress",
        kinds::networking::ipaddresses::SCHEMA,
    ),
    (
        "networking.k8s.io",
        "ServiceCIDR",
        kinds::networking::servicecidrs::SCHEMA,
    ),
    (
        "storage.k8s.io",
        "CSIStorageCapacity",
        kinds::storage::csistoragecapacities::SCHEMA,
    ),
    (
        "storage.k8s.io",
        "VolumeAttributesClass",
        kinds::storage::volumeattributesclasses::SCHEMA,
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicy",
        kinds::admissionregistration::mutatingadmissionpolicies::SCHEMA,
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicyBinding",
        kinds::admissionregistration::mutatingadmissionpolicybindings::SCHEMA,
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicy",
        kinds::admissionregistration::validatingadmissionpolicies::SCHEMA,
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
        kinds::admissionregistration::validatingadmissionpolicybindings::SCHEMA,
    ),
    (
        "flowcontrol.apiserver.k8s.io",
        "FlowSchema",
        kinds::flowcontrol::flowschemas::SCHEMA,
    ),
    (
        "flowcontrol.apiserver.k8s.io",
        "PriorityLevelConfiguration",
        kinds::flowcontrol::prioritylevelconfigurations::SCHEMA,
    ),
    (
        "resource.k8s.io",
        "DeviceClass",
        kinds::resource::deviceclasses::SCHEMA,
    ),
    (
        "resource.k8s.io",
        "ResourceClaim",
        kinds::resource::resourceclaims::SCHEMA,
    ),
    (
        "resource.k8s.io",
        "ResourceClaimTemplate",
        kinds::resource::resourceclaimtemplates::SCHEMA,
    ),
    (
        "resource.k8s.io",
        "ResourceSlice",
        kinds::resource::resourceslices::SCHEMA,
    ),
    ("", "ResourceQuota", kinds::core::resourcequotas::SCHEMA),
    (
        "apps",
        "ControllerRevision",
        kinds::apps::controllerrevisions::SCHEMA,
    ),
    (
        "networking.k8s.io",
        "IngressClass",
        kinds::networking::ingressclasses::SCHEMA,
    ),
    (
        "networking.k8s.io",
        "Ingress",
        kinds::networking::ingresses::SCHEMA,
    ),
    (
        "networking.k8s.io",
        "NetworkPolicy",
        kinds::networking::networkpolicies::SCHEMA,
    ),
    (
        "policy",
        "PodDisruptionBudget",
        kinds::policy::poddisruptionbudgets::SCHEMA,
    ),
    (
        "storage.k8s.io",
        "CSIDriver",
        kinds::storage::csidrivers::SCHEMA,
    ),
    (
        "storage.k8s.io",
        "CSINode",
        kinds::storage::csinodes::SCHEMA,
    ),
    (
        "storage.k8s.io",
        "StorageClass",
        kinds::storage::storageclasses::SCHEMA,
    ),
    (
        "storage.k8s.io",
        "VolumeAttachment",
        kinds::storage::volumeattachments::SCHEMA,
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
        kinds::admissionregistration::mutatingwebhookconfigurations::SCHEMA,
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
        kinds::admissionregistration::validatingwebhookconfigurations::SCHEMA,
    ),
    (
        "scheduling.k8s.io",
        "PriorityClass",
        kinds::scheduling::priorityclasses::SCHEMA,
    ),
    (
        "node.k8s.io",
        "RuntimeClass",
        kinds::node::runtimeclasses::SCHEMA,
    ),
    (
        "discovery.k8s.io",
        "EndpointSlice",
        kinds::discovery::endpointslices::SCHEMA,
    ),
    ("", "Endpoints", kinds::core::endpoints::SCHEMA),
    ("", "Event", kinds::core::events::SCHEMA),
    ("", "Namespace", kinds::core::namespaces::SCHEMA),
    ("", "Node", kinds::core::nodes::SCHEMA),
    ("", "Pod", kinds::core::pods::SCHEMA),
    ("", "Secret", kinds::core::secrets::SCHEMA),
    ("", "ServiceAccount", kinds::core::serviceaccounts::SCHEMA),
    ("", "Service", kinds::core::services::SCHEMA),
    ("apps", "DaemonSet", kinds::apps::daemonsets::SCHEMA),
    ("apps", "Deployment", kinds::apps::deployments::SCHEMA),
    ("apps", "ReplicaSet", kinds::apps::replicasets::SCHEMA),
    ("apps", "StatefulSet", kinds::apps::statefulsets::SCHEMA),
    ("events.k8s.io", "Event", kinds::events::events::SCHEMA),
    ("batch", "CronJob", kinds::batch::cronjobs::SCHEMA),
    ("batch", "Job", kinds::batch::jobs::SCHEMA),
    (
        "rbac.authorization.k8s.io",
        "ClusterRoleBinding",
        kinds::rbac::clusterrolebindings::SCHEMA,
    ),
    (
        "rbac.authorization.k8s.io",
        "ClusterRole",
        kinds::rbac::clusterroles::SCHEMA,
    ),
    (
        "rbac.authorization.k8s.io",
        "RoleBinding",
        kinds::rbac::rolebindings::SCHEMA,
    ),
    (
        "rbac.authorization.k8s.io",
        "Role",
        kinds::rbac::roles::SCHEMA,
    ),
    (
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        kinds::apiextensions::customresourcedefinitions::SCHEMA,
    ),
    (
        "coordination.k8s.io",
        "Lease",
        kinds::coordination::leases::SCHEMA,
    ),
    (
        "authentication.k8s.io",
        "SelfSubjectReview",
        kinds::authentication::selfsubjectreviews::SCHEMA,
    ),
    (
        "authentication.k8s.io",
        "TokenReview",
        kinds::authentication::tokenreviews::SCHEMA,
    ),
    (
        "authorization.k8s.io",
        "LocalSubjectAccessReview",
        kinds::authorization::localsubjectaccessreviews::SCHEMA,
    ),
    (
        "authorization.k8s.io",
        "SelfSubjectAccessReview",
        kinds::authorization::selfsubjectaccessreviews::SCHEMA,
    ),
    (
        "authorization.k8s.io",
        "SelfSubjectRulesReview",
        kinds::authorization::selfsubjectrulesreviews::SCHEMA,
    ),
    (
        "authorization.k8s.io",
        "SubjectAccessReview",
        kinds::authorization::subjectaccessreviews::SCHEMA,
    ),
];

/// The schema of the built-in `kind` of `group`, if it has one.
fn builtin_schema_of(group: &str, kind: &str) -> Option<SchemaOf> {
    BUILT_IN_SCHEMAS
        .iter()
        .find(|(g, k, _)| *g == group && *k == kind)
        .map(|(_, _, schema)| *schema)
}

/// Adds the schema of a built-in kind to the generator; returns its definition name.
pub fn builtin_schema(
    generator: &mut SchemaGenerator,
    group: &str,
    version: &str,
    kind: &str,
) -> Option<String> {
    builtin_schema_of(group, kind).map(|schema| schema(generator, version))
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
