//! OpenAPI documents generated from the registry: `/openapi/v3` (index + one document per
//! group-version) and `/openapi/v2`. They carry the operations kubectl inspects: every PATCH is
//! tagged with `x-kubernetes-group-version-kind` and lists the `fieldValidation` parameter, so
//! kubectl delegates validation to the server. Component schemas of the built-in kinds come from
//! k8s-openapi (for `kubectl explain`), annotated with the strategic-merge patch metadata kubectl
//! uses to compute client-side apply patches; custom kinds use their CRD's schema.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use schemars::generate::SchemaSettings;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha512};

use crate::registry::kinds::ResourceDef;
use crate::registry::Registry;
use crate::schemas::{builtin_schema, crd_version_schema};

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

fn operation(gvk: &Value, action: &str, op_id: String, v3: bool, with_write_params: bool) -> Value {
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
        "x-kubernetes-group-version-kind": gvk,
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

/// The operations of every resource and subresource, as kube-apiserver publishes them: one
/// per verb it serves (so the create-only review kinds have a POST on their collection and
/// nothing else), named `<verb><Group><Version>[Namespaced]<Kind>[<Subresource>]`.
fn paths_for(defs: &[Arc<ResourceDef>], v3: bool) -> Map<String, Value> {
    let mut paths = Map::new();
    for d in defs {
        let prefix = format!("/{}", gv_path(&d.group, &d.version));
        let gv_id = format!(
            "{}{}",
            // kube-apiserver's operation IDs drop the `.k8s.io` of built-in groups.
            camel(if d.group.is_empty() {
                "core"
            } else {
                d.group.trim_end_matches(".k8s.io")
            }),
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
        let gvk = json!({"group": d.group, "version": d.version, "kind": d.kind});
        // (method, verb served, x-kubernetes-action, operationId, write parameters)
        let collection_ops = [
            (
                "get",
                "list",
                "list",
                format!("list{gv_id}{scope}{kind}"),
                false,
            ),
            (
                "post",
                "create",
                "post",
                format!("create{gv_id}{scope}{kind}"),
                true,
            ),
            (
                "delete",
                "deletecollection",
                "deletecollection",
                format!("delete{gv_id}Collection{scope}{kind}"),
                false,
            ),
        ];
        let object_ops = [
            (
                "get",
                "get",
                "get",
                format!("read{gv_id}{scope}{kind}"),
                false,
            ),
            (
                "put",
                "update",
                "put",
                format!("replace{gv_id}{scope}{kind}"),
                true,
            ),
            (
                "patch",
                "patch",
                "patch",
                format!("patch{gv_id}{scope}{kind}"),
                true,
            ),
            (
                "delete",
                "delete",
                "delete",
                format!("delete{gv_id}{scope}{kind}"),
                false,
            ),
        ];
        // The operations of `ops` whose verb is among `verbs`, by method.
        type Op<'a> = (&'a str, &'a str, &'a str, String, bool);
        let served = |verbs: &[String], gvk: &Value, ops: &[Op]| -> Map<String, Value> {
            ops.iter()
                .filter(|(_, verb, ..)| verbs.iter().any(|v| v == verb))
                .map(|(method, _, action, id, write)| {
                    (
                        method.to_string(),
                        operation(gvk, action, id.clone(), v3, *write),
                    )
                })
                .collect()
        };
        for (path, ops) in [
            (collection, &collection_ops[..]),
            (object.clone(), &object_ops[..]),
        ] {
            let ops = served(&d.verbs, &gvk, ops);
            if !ops.is_empty() {
                paths.insert(path, Value::Object(ops));
            }
        }
        if d.namespaced && d.supports("list") {
            paths.insert(
                format!("{prefix}/{}", d.resource),
                json!({"get": operation(&gvk, "list", format!("list{gv_id}{kind}ForAllNamespaces"), v3, false)}),
            );
        }
        for s in &d.subresources {
            let sub_kind = format!("{kind}{}", camel(&s.name));
            let sub_ops = [
                (
                    "get",
                    "get",
                    "get",
                    format!("read{gv_id}{scope}{sub_kind}"),
                    false,
                ),
                (
                    "post",
                    "create",
                    "post",
                    format!("create{gv_id}{scope}{sub_kind}"),
                    true,
                ),
                (
                    "put",
                    "update",
                    "put",
                    format!("replace{gv_id}{scope}{sub_kind}"),
                    true,
                ),
                (
                    "patch",
                    "patch",
                    "patch",
                    format!("patch{gv_id}{scope}{sub_kind}"),
                    true,
                ),
            ];
            // The subresource's own kind (autoscaling/v1 Scale, policy/v1 Eviction, ...).
            let sub_gvk = json!({
                "group": s.group.as_deref().unwrap_or(&d.group),
                "version": s.version.as_deref().unwrap_or(&d.version),
                "kind": s.kind,
            });
            let ops = served(&s.verbs, &sub_gvk, &sub_ops);
            if !ops.is_empty() {
                paths.insert(format!("{object}/{}", s.name), Value::Object(ops));
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
        if let Some(name) = builtin_schema(&mut generator, &d.group, &d.version, &d.kind) {
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
    let custom: Vec<&Arc<ResourceDef>> = defs.iter().filter(|d| !d.builtin).collect();
    let crds = if custom.is_empty() {
        vec![]
    } else {
        registry
            .store
            .list(
                crate::registry::CRD_GROUP,
                crate::registry::CRD_RESOURCE,
                None,
            )
            .0
    };
    for d in custom {
        let schema = crd_version_schema(&crds, &d.group, &d.resource, &d.version).unwrap_or_else(
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

/// The media type of OpenAPI v2 in protobuf (gnostic's `openapi_v2.Document`), the only
/// form kubectl asks `/openapi/v2` for (as `...spec.v2@v1.0+protobuf`, kube-openapi's older
/// spelling, which a response cannot carry: `@` is not allowed in a media type).
pub const V2_PROTOBUF: &str = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

/// Whether an Accept header asks for [`V2_PROTOBUF`] in either spelling.
pub fn accepts_v2_protobuf(accept: &str) -> bool {
    accept.contains("com.github.proto-openapi.spec.v2")
}

/// `/openapi/v2` in protobuf: the document's header only (swagger version and info), without
/// paths or definitions. kubectl reads it when a kind has no PATCH operation in the v3
/// documents (the create-only kinds) to learn whether the server validates fields; finding
/// none there, it validates on the client, where a kind without a schema is not checked.
pub fn v2_protobuf() -> Vec<u8> {
    fn field(number: u8, bytes: &[u8]) -> Vec<u8> {
        // Length-delimited field; every length here is below 128 (a one-byte varint).
        let mut out = vec![(number << 3) | 2, bytes.len() as u8];
        out.extend_from_slice(bytes);
        out
    }
    let info = [field(1, b"Kubernetes"), field(2, b"v1.34.0")].concat();
    [field(1, b"2.0"), field(2, &info)].concat()
}

pub fn v2_document(registry: &Registry) -> Value {
    json!({
        "swagger": "2.0",
        "info": {"title": "Kubernetes", "version": "v1.34.0"},
        "paths": paths_for(&registry.defs(), false),
        "definitions": {},
    })
}
