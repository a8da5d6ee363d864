//! OpenAPI documents generated from the registry: `/openapi/v3` (index + one document per
//! group-version) and `/openapi/v2`. They carry the operations kubectl inspects: every PATCH is
//! tagged with `x-kubernetes-group-version-kind` and lists the `fieldValidation` parameter, so
//! kubectl delegates validation to the server. Component schemas of the built-in kinds come from
//! k8s-openapi (for `kubectl explain`), annotated with the strategic-merge patch metadata kubectl
//! uses to compute client-side apply patches; custom kinds use their CRD's schema.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use schemars::generate::{SchemaGenerator, SchemaSettings};
use schemars::JsonSchema;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha512};

use crate::registry::kinds::ResourceDef;
use crate::registry::Registry;

fn gv_path(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("api/{version}")
    } else {
        format!("apis/{group}/{version}")
    }
}

fn query_param(name: &str, v3: bool) -> Value {
    if v3 {
        json!({"name": name, "in": "query", "schema": {"type": "string", "uniqueItems": true}})
    } else {
        json!({"name": name, "in": "query", "type": "string", "uniqueItems": true})
    }
}

fn operation(
    def: &ResourceDef,
    action: &str,
    op_id: String,
    v3: bool,
    with_write_params: bool,
) -> Value {
    let mut params = vec![];
    if with_write_params {
        for p in ["dryRun", "fieldManager", "fieldValidation"] {
            params.push(query_param(p, v3));
        }
    }
    if action == "patch" {
        params.push(query_param("force", v3));
    }
    let mut op = json!({
        "operationId": op_id,
        "parameters": params,
        "responses": {"200": {"description": "OK"}, "401": {"description": "Unauthorized"}},
        "x-kubernetes-action": action,
        "x-kubernetes-group-version-kind": {"group": def.group, "version": def.version, "kind": def.kind},
    });
    if action == "patch" {
        let types = [
            "application/apply-patch+yaml",
            "application/json-patch+json",
            "application/merge-patch+json",
            "application/strategic-merge-patch+json",
        ];
        if v3 {
            let content: Map<String, Value> = types
                .iter()
                .map(|t| (t.to_string(), json!({"schema": {"type": "object"}})))
                .collect();
            op["requestBody"] = json!({"content": content, "required": true});
        } else {
            op["consumes"] = json!(types);
        }
    }
    op
}

fn camel(s: &str) -> String {
    s.split(['.', '-'])
        .map(|p| {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

fn paths_for(defs: &[Arc<ResourceDef>], v3: bool) -> Map<String, Value> {
    let mut paths = Map::new();
    for d in defs {
        let prefix = format!("/{}", gv_path(&d.group, &d.version));
        let gv_id = format!(
            "{}{}",
            camel(if d.group.is_empty() { "core" } else { &d.group }),
            camel(&d.version)
        );
        let (collection, object) = if d.namespaced {
            (
                format!("{prefix}/namespaces/{{namespace}}/{}", d.resource),
                format!("{prefix}/namespaces/{{namespace}}/{}/{{name}}", d.resource),
            )
        } else {
            (
                format!("{prefix}/{}", d.resource),
                format!("{prefix}/{}/{{name}}", d.resource),
            )
        };
        let scope = if d.namespaced { "Namespaced" } else { "" };
        let kind = &d.kind;
        paths.insert(
            collection,
            json!({
                "get": operation(d, "list", format!("list{gv_id}{scope}{kind}"), v3, false),
                "post": operation(d, "post", format!("create{gv_id}{scope}{kind}"), v3, true),
            }),
        );
        paths.insert(
            object.clone(),
            json!({
                "get": operation(d, "get", format!("read{gv_id}{scope}{kind}"), v3, false),
                "put": operation(d, "put", format!("replace{gv_id}{scope}{kind}"), v3, true),
                "patch": operation(d, "patch", format!("patch{gv_id}{scope}{kind}"), v3, true),
                "delete": operation(d, "delete", format!("delete{gv_id}{scope}{kind}"), v3, false),
            }),
        );
        for s in &d.subresources {
            if s.verbs.iter().any(|v| v == "patch") {
                let sub_kind = format!("{kind}{}", camel(&s.name));
                paths.insert(format!("{object}/{}", s.name), json!({
                    "get": operation(d, "get", format!("read{gv_id}{scope}{sub_kind}"), v3, false),
                    "put": operation(d, "put", format!("replace{gv_id}{scope}{sub_kind}"), v3, true),
                    "patch": operation(d, "patch", format!("patch{gv_id}{scope}{sub_kind}"), v3, true),
                }));
            }
        }
    }
    paths
}

fn group_versions(registry: &Registry) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = vec![];
    for d in registry.defs() {
        let gv = (d.group.clone(), d.version.clone());
        if !out.contains(&gv) {
            out.push(gv);
        }
    }
    out
}

/// Adds the schema of a built-in kind to the generator; returns its definition name.
fn builtin_schema(generator: &mut SchemaGenerator, def: &ResourceDef) -> Option<String> {
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
    match (def.group.as_str(), def.kind.as_str()) {
        ("autoscaling", "HorizontalPodAutoscaler") if def.version == "v1" => {
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

/// Strategic-merge metadata (`patchMergeKey`/`patchStrategy` struct tags) that kubectl reads
/// from the schema when it computes client-side apply patches.
fn patch_metadata(
    definition: &str,
    property: &str,
) -> Option<(Option<&'static str>, &'static str)> {
    let in_pod_spec = definition.ends_with(".PodSpec");
    let in_container =
        definition.ends_with(".Container") || definition.ends_with(".EphemeralContainer");
    match property {
        "containers" | "initContainers" | "ephemeralContainers" | "imagePullSecrets"
            if in_pod_spec =>
        {
            Some((Some("name"), "merge"))
        }
        "volumes" if in_pod_spec => Some((Some("name"), "merge,retainKeys")),
        "hostAliases" if in_pod_spec => Some((Some("ip"), "merge")),
        "env" if in_container => Some((Some("name"), "merge")),
        "volumeMounts" if in_container => Some((Some("mountPath"), "merge")),
        "volumeDevices" if in_container => Some((Some("devicePath"), "merge")),
        "ports" if in_container => Some((Some("containerPort"), "merge")),
        "ports" if definition.ends_with(".ServiceSpec") => Some((Some("port"), "merge")),
        "conditions" if definition.ends_with("Status") => Some((Some("type"), "merge")),
        "ownerReferences" if definition.ends_with(".ObjectMeta") => Some((Some("uid"), "merge")),
        "finalizers" if definition.ends_with(".ObjectMeta") => Some((None, "merge")),
        _ => None,
    }
}

fn annotate_patch_metadata(definitions: &mut Map<String, Value>) {
    for (name, schema) in definitions.iter_mut() {
        let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
            continue;
        };
        for (prop, prop_schema) in props.iter_mut() {
            if let (Some((key, strategy)), Some(m)) =
                (patch_metadata(name, prop), prop_schema.as_object_mut())
            {
                if let Some(key) = key {
                    m.insert("x-kubernetes-patch-merge-key".into(), json!(key));
                }
                m.insert("x-kubernetes-patch-strategy".into(), json!(strategy));
            }
        }
    }
}

/// Component schemas for a group-version's kinds, each tagged with its GVK.
fn component_schemas(defs: &[Arc<ResourceDef>], registry: &Registry) -> Map<String, Value> {
    let mut generator = SchemaSettings::openapi3().into_generator();
    let mut tagged: Vec<(String, &ResourceDef)> = vec![];
    for d in defs {
        if let Some(name) = builtin_schema(&mut generator, d) {
            tagged.push((name, d));
        }
    }
    let mut definitions = generator.take_definitions(true);
    annotate_patch_metadata(&mut definitions);
    for (name, d) in tagged {
        if let Some(m) = definitions.get_mut(&name).and_then(Value::as_object_mut) {
            m.insert(
                "x-kubernetes-group-version-kind".into(),
                json!([{"group": d.group, "version": d.version, "kind": d.kind}]),
            );
        }
    }
    for d in defs.iter().filter(|d| !d.builtin) {
        let crd = registry
            .store
            .list(
                crate::registry::CRD_GROUP,
                crate::registry::CRD_RESOURCE,
                None,
            )
            .0
            .into_iter()
            .find(|c| {
                c["spec"]["group"] == d.group.as_str()
                    && c["spec"]["names"]["plural"] == d.resource.as_str()
            });
        let schema = crd
            .as_ref()
            .and_then(|c| {
                c["spec"]["versions"]
                    .as_array()?
                    .iter()
                    .find(|v| v["name"] == d.version.as_str())
                    .map(|v| v["schema"]["openAPIV3Schema"].clone())
            })
            .filter(Value::is_object)
            .unwrap_or_else(
                || json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
            );
        let mut schema = schema;
        schema["x-kubernetes-group-version-kind"] =
            json!([{"group": d.group, "version": d.version, "kind": d.kind}]);
        let reversed: Vec<&str> = d.group.split('.').rev().collect();
        definitions.insert(
            format!("{}.{}.{}", reversed.join("."), d.version, d.kind),
            schema,
        );
    }
    definitions
}

/// Built-in group-version documents never change, so they are generated once.
fn builtin_cache() -> &'static std::sync::Mutex<HashMap<String, Arc<Value>>> {
    static CACHE: OnceLock<std::sync::Mutex<HashMap<String, Arc<Value>>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// One group-version document, e.g. for `apis/apps/v1`.
pub fn v3_document(registry: &Registry, path: &str) -> Option<Arc<Value>> {
    let defs: Vec<Arc<ResourceDef>> = registry
        .defs()
        .into_iter()
        .filter(|d| gv_path(&d.group, &d.version) == path)
        .collect();
    if defs.is_empty() {
        return None;
    }
    let all_builtin = defs.iter().all(|d| d.builtin);
    if all_builtin {
        if let Some(doc) = builtin_cache()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(path)
        {
            return Some(doc.clone());
        }
    }
    let doc = Arc::new(json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.34.0"},
        "paths": paths_for(&defs, true),
        "components": {"schemas": component_schemas(&defs, registry)},
    }));
    if all_builtin {
        builtin_cache()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(path.to_string(), doc.clone());
    }
    Some(doc)
}

pub fn v3_index(registry: &Registry) -> Value {
    let mut paths = Map::new();
    for (g, v) in group_versions(registry) {
        let p = gv_path(&g, &v);
        let hash = v3_document(registry, &p)
            .map(|d| {
                Sha512::digest(d.to_string().as_bytes())
                    .iter()
                    .take(64)
                    .map(|b| format!("{b:02X}"))
                    .collect::<String>()
            })
            .unwrap_or_default();
        paths.insert(
            p.clone(),
            json!({"serverRelativeURL": format!("/openapi/v3/{p}?hash={hash}")}),
        );
    }
    json!({"paths": paths})
}

pub fn v2_document(registry: &Registry) -> Value {
    json!({
        "swagger": "2.0",
        "info": {"title": "Kubernetes", "version": "v1.34.0"},
        "paths": paths_for(&registry.defs(), false),
        "definitions": {},
    })
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

fn prune(
    node: &Value,
    value: &mut Value,
    path: &str,
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
                let child = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match (props.and_then(|p| p.get(k)), additional) {
                    (Some(s), _) | (None, Some(s)) => prune(s, v, &child, schemas, out, mode),
                    (None, None) => unknown.push((k.clone(), child)),
                }
            }
            for (k, child) in unknown {
                map.remove(&k);
                out.push(child);
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = node.get("items") {
                for (i, item) in items.iter_mut().enumerate() {
                    prune(
                        item_schema,
                        item,
                        &format!("{path}[{i}]"),
                        schemas,
                        out,
                        mode,
                    );
                }
            }
        }
        _ => {}
    }
}

/// Drops fields a built-in kind does not have (kube-apiserver decodes into typed structs, so
/// they vanish) and returns their paths, for `fieldValidation` Warn/Strict reporting.
pub fn prune_unknown_fields(
    registry: &Registry,
    def: &ResourceDef,
    obj: &mut Value,
) -> Vec<String> {
    if !def.builtin {
        return prune_custom(registry, def, obj);
    }
    let Some(doc) = v3_document(registry, &gv_path(&def.group, &def.version)) else {
        return vec![];
    };
    let Some(schemas) = doc["components"]["schemas"].as_object() else {
        return vec![];
    };
    let Some(root) = schemas.values().find(|s| {
        s["x-kubernetes-group-version-kind"][0]["kind"] == def.kind.as_str()
            && s["x-kubernetes-group-version-kind"][0]["group"] == def.group.as_str()
    }) else {
        return vec![];
    };
    let mut out = vec![];
    prune(root, obj, "", schemas, &mut out, Undeclared::Allowed);
    out.sort();
    out
}

/// Structural-schema pruning of a custom resource (apiVersion, kind and metadata are the
/// server's; everything else must be declared unless x-kubernetes-preserve-unknown-fields).
fn prune_custom(registry: &Registry, def: &ResourceDef, obj: &mut Value) -> Vec<String> {
    let (crds, _) = registry.store.list(
        crate::registry::CRD_GROUP,
        crate::registry::CRD_RESOURCE,
        None,
    );
    let schema = crds
        .iter()
        .find(|c| {
            c["spec"]["group"] == def.group.as_str()
                && c["spec"]["names"]["plural"] == def.resource.as_str()
        })
        .and_then(|c| {
            c["spec"]["versions"]
                .as_array()?
                .iter()
                .find(|v| v["name"] == def.version.as_str())
                .map(|v| v["schema"]["openAPIV3Schema"].clone())
        });
    let Some(mut schema) = schema.filter(Value::is_object) else {
        return vec![];
    };
    schema["x-kubernetes-embedded-resource"] = json!(true);
    let mut out = vec![];
    prune(&schema, obj, "", &Map::new(), &mut out, Undeclared::Pruned);
    out.sort();
    out
}
