//! OpenAPI documents generated from the registry: `/openapi/v3` (index + one document per
//! group-version) and `/openapi/v2`. They carry the operations kubectl inspects: every PATCH is
//! tagged with `x-kubernetes-group-version-kind` and lists the `fieldValidation` parameter, so
//! kubectl delegates validation to the server. Component schemas are deliberately absent:
//! kubectl then computes client-side apply patches from its compiled-in types.

use std::sync::Arc;

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

/// One group-version document, e.g. for `apis/apps/v1`.
pub fn v3_document(registry: &Registry, path: &str) -> Option<Value> {
    let defs: Vec<Arc<ResourceDef>> = registry
        .defs()
        .into_iter()
        .filter(|d| gv_path(&d.group, &d.version) == path)
        .collect();
    if defs.is_empty() {
        return None;
    }
    Some(json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": "v1.34.0"},
        "paths": paths_for(&defs, true),
        "components": {"schemas": {}},
    }))
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
