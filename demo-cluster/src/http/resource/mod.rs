//! Resource endpoints under `/api/v1` and `/apis/{group}/{version}`: path resolution (scope from
//! the registry, not the path shape), then one module per verb, as kube-apiserver's handlers:
//! [`read`] (get and list), [`watch`], [`create`], [`update`], [`patch`] and [`delete`],
//! each for the collections, objects and subresources it serves.

mod connect;
mod create;
mod delete;
mod exec;
mod patch;
mod portforward;
mod proxy;
mod read;
mod update;
mod watch;

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::AppState;
use crate::errors::{ApiError, ApiResult, BODY_MEDIA_TYPES, CUSTOM_RESOURCE_PATCH_MEDIA_TYPES};
use crate::registry::kinds::ResourceDef;
use crate::registry::{PatchType, Registry, WriteOptions};
use crate::storage::selectors::{FieldSelector, LabelSelector};

#[derive(Debug)]
pub enum Target {
    Collection {
        namespace: Option<String>,
    },
    Object {
        namespace: Option<String>,
        name: String,
    },
    Subresource {
        namespace: Option<String>,
        name: String,
        sub: String,
    },
}

impl Target {
    /// The namespace in the path: "" for cluster-scoped objects and for collections of all
    /// namespaces.
    fn namespace(&self) -> &str {
        match self {
            Target::Collection { namespace }
            | Target::Object { namespace, .. }
            | Target::Subresource { namespace, .. } => namespace.as_deref().unwrap_or_default(),
        }
    }

    /// The object's name ("" for a collection).
    fn name(&self) -> &str {
        match self {
            Target::Collection { .. } => "",
            Target::Object { name, .. } | Target::Subresource { name, .. } => name,
        }
    }
}

/// Resolves the segments after `/api/v1` or `/apis/{g}/{v}`.
pub fn resolve(
    registry: &Registry,
    group: &str,
    version: &str,
    segs: &[&str],
) -> ApiResult<(Arc<ResourceDef>, Target)> {
    let find = |r: &str| registry.resolve(group, version, r);
    if segs.len() >= 3 && segs[0] == "namespaces" {
        if let Some(def) = find(segs[2]).filter(|d| d.namespaced) {
            let ns = Some(segs[1].to_string());
            let target = match &segs[3..] {
                [] => Target::Collection { namespace: ns },
                [name] => Target::Object {
                    namespace: ns,
                    name: name.to_string(),
                },
                [name, sub] => Target::Subresource {
                    namespace: ns,
                    name: name.to_string(),
                    sub: sub.to_string(),
                },
                // A proxy's path goes on past the subresource (`pods/p/proxy/metrics`); the
                // demo forwards nothing, so the rest is not kept.
                [name, "proxy", ..] => Target::Subresource {
                    namespace: ns,
                    name: name.to_string(),
                    sub: "proxy".to_string(),
                },
                _ => return Err(ApiError::path_not_found()),
            };
            return Ok((def, target));
        }
    }
    let def = segs
        .first()
        .and_then(|r| find(r))
        .ok_or_else(ApiError::path_not_found)?;
    let target = match &segs[1..] {
        [] => Target::Collection { namespace: None },
        [name] if !def.namespaced => Target::Object {
            namespace: None,
            name: name.to_string(),
        },
        [name, sub] if !def.namespaced => Target::Subresource {
            namespace: None,
            name: name.to_string(),
            sub: sub.to_string(),
        },
        [name, "proxy", ..] if !def.namespaced => Target::Subresource {
            namespace: None,
            name: name.to_string(),
            sub: "proxy".to_string(),
        },
        _ => return Err(ApiError::path_not_found()),
    };
    Ok((def, target))
}

pub(super) fn query_map(parts: &Parts) -> HashMap<String, String> {
    axum::extract::Query::<HashMap<String, String>>::try_from_uri(&parts.uri)
        .map(|q| q.0)
        .unwrap_or_default()
}

pub(super) fn truthy(q: &HashMap<String, String>, key: &str) -> bool {
    matches!(q.get(key).map(String::as_str), Some("true" | "1" | "True"))
}

pub(super) fn json_with(code: StatusCode, v: &Value, content_type: &str) -> Response {
    let mut resp = (code, v.to_string()).into_response();
    if let Ok(ct) = HeaderValue::from_str(content_type) {
        resp.headers_mut().insert(header::CONTENT_TYPE, ct);
    }
    resp
}

pub(super) fn json_response(code: StatusCode, v: &Value) -> Response {
    json_with(code, v, "application/json")
}

pub(super) fn require_verb(def: &ResourceDef, verb: &str) -> ApiResult<()> {
    if def.supports(verb) {
        Ok(())
    } else {
        Err(ApiError::method_not_allowed())
    }
}

pub(super) fn content_type(headers: &HeaderMap) -> String {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/json")
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Decodes a create/update body (JSON, or YAML for convenience).
pub(super) fn decode_body(headers: &HeaderMap, body: &[u8]) -> ApiResult<Value> {
    let ct = content_type(headers);
    match ct.as_str() {
        "application/json" | "" | "*/*" => serde_json::from_slice(body).map_err(|e| {
            ApiError::bad_request(format!("couldn't get version/kind; json parse error: {e}"))
        }),
        "application/vnd.kubernetes.protobuf" => crate::protobuf::decode(body)
            .map_err(|e| ApiError::bad_request(format!("unable to decode protobuf body: {e}"))),
        "application/yaml" => serde_yaml_ng::from_slice(body)
            .map_err(|e| ApiError::bad_request(format!("error decoding YAML: {e}"))),
        _ => Err(ApiError::unsupported_media_type(BODY_MEDIA_TYPES)),
    }
}

pub(super) fn write_options(
    parts: &Parts,
    q: &HashMap<String, String>,
    warnings: &Warnings,
) -> ApiResult<WriteOptions> {
    let dry_run = match q.get("dryRun").map(String::as_str) {
        None | Some("") => false,
        Some("All") => true,
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "Invalid dryRun value: {other:?}; supported values: \"All\""
            )))
        }
    };
    if let Some(v) = q.get("fieldValidation") {
        if !matches!(v.as_str(), "" | "Ignore" | "Warn" | "Strict") {
            return Err(ApiError::bad_request(format!(
                "Invalid fieldValidation value: {v:?}; supported values: \"Ignore\", \"Warn\", \"Strict\""
            )));
        }
    }
    let field_manager = match q.get("fieldManager").filter(|s| !s.is_empty()) {
        Some(m) if m.len() > 128 => {
            return Err(ApiError::bad_request(
                "fieldManager: Too long: may not be longer than 128",
            ))
        }
        Some(m) => m.clone(),
        None => parts
            .headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .and_then(|ua| ua.split('/').next())
            .filter(|s| !s.is_empty())
            .unwrap_or("unknown")
            .to_string(),
    };
    Ok(WriteOptions {
        dry_run,
        field_manager,
        subresource: String::new(),
        force: truthy(q, "force"),
        field_validation: q
            .get("fieldValidation")
            .cloned()
            .unwrap_or_else(|| "Warn".into()),
        warnings: warnings.clone(),
        user: parts.extensions.get::<crate::auth::RequestUser>().cloned(),
    })
}

/// The manager passed explicitly (apply requires one; the User-Agent does not count).
pub(super) fn explicit_manager(q: &HashMap<String, String>) -> String {
    q.get("fieldManager").cloned().unwrap_or_default()
}

pub(super) fn parse_selectors(
    def: &ResourceDef,
    q: &HashMap<String, String>,
) -> ApiResult<(LabelSelector, FieldSelector)> {
    let labels = LabelSelector::parse(q.get("labelSelector").map(String::as_str).unwrap_or(""))
        .map_err(ApiError::bad_request)?;
    let fields = FieldSelector::parse(
        q.get("fieldSelector").map(String::as_str).unwrap_or(""),
        crate::registry::strategy::of(def).field_selectors(),
    )
    .map_err(ApiError::bad_request)?;
    Ok((labels, fields))
}

/// The `resourceVersion` and `resourceVersionMatch` parameters ("" when absent).
pub(super) fn version_params(q: &HashMap<String, String>) -> (&str, &str) {
    let param = |key: &str| q.get(key).map(String::as_str).unwrap_or("");
    (param("resourceVersion"), param("resourceVersionMatch"))
}

pub(super) fn parse_rv(s: &str) -> ApiResult<u64> {
    s.parse::<u64>()
        .map_err(|_| ApiError::bad_request(format!("invalid resource version {s:?}")))
}

/// The patch type named by Content-Type; a patch without one cannot be read (415).
/// A strategic merge patch of a custom resource is refused naming the types it takes.
pub(super) fn patch_type(headers: &HeaderMap, def: &ResourceDef) -> ApiResult<PatchType> {
    let named = headers
        .get(header::CONTENT_TYPE)
        .map(|_| content_type(headers));
    let patch_type = match named.as_deref() {
        Some("application/json-patch+json") => PatchType::Json,
        Some("application/merge-patch+json") => PatchType::Merge,
        Some("application/strategic-merge-patch+json") if def.builtin => PatchType::Strategic,
        Some("application/apply-patch+yaml") => PatchType::Apply,
        Some("application/strategic-merge-patch+json") => {
            return Err(ApiError::unsupported_media_type(
                CUSTOM_RESOURCE_PATCH_MEDIA_TYPES,
            ))
        }
        _ => return Err(ApiError::unsupported_patch_media_type()),
    };
    Ok(patch_type)
}

type Warnings = Arc<std::sync::Mutex<Vec<String>>>;

/// One resolved resource request: what every verb's handler reads.
pub(super) struct Request<'a> {
    pub app: &'a AppState,
    pub parts: Parts,
    pub body: Bytes,
    pub def: Arc<ResourceDef>,
    pub q: HashMap<String, String>,
    pub warnings: &'a Warnings,
}

impl Request<'_> {
    /// The write options of this request (query and User-Agent).
    fn write_options(&self) -> ApiResult<WriteOptions> {
        write_options(&self.parts, &self.q, self.warnings)
    }

    /// The request body decoded as an object.
    fn decoded_body(&self) -> ApiResult<Value> {
        decode_body(&self.parts.headers, &self.body)
    }
}

/// Entry point for every resource request; adds `Warning` headers collected by writes.
pub async fn handle(
    app: AppState,
    parts: Parts,
    body: Bytes,
    group: String,
    version: String,
    segs: Vec<String>,
) -> ApiResult<Response> {
    let warnings: Warnings = Default::default();
    let mut resp = handle_inner(&app, parts, body, group, version, segs, &warnings).await?;
    for w in warnings.lock().unwrap_or_else(|p| p.into_inner()).iter() {
        let escaped = w.replace('\\', "\\\\").replace('"', "\\\"");
        if let Ok(v) = HeaderValue::from_str(&format!("299 - \"{escaped}\"")) {
            resp.headers_mut().append(header::WARNING, v);
        }
    }
    Ok(resp)
}

/// Resolves the target and hands the request to its verb's handler.
async fn handle_inner(
    app: &AppState,
    parts: Parts,
    body: Bytes,
    group: String,
    version: String,
    segs: Vec<String>,
    warnings: &Warnings,
) -> ApiResult<Response> {
    let seg_refs: Vec<&str> = segs.iter().map(String::as_str).collect();
    let (def, target) = resolve(&app.registry, &group, &version, &seg_refs)?;
    if let Target::Subresource { sub, .. } = &target {
        if !def.has_subresource(sub) {
            return Err(ApiError::path_not_found());
        }
    }
    if let Target::Subresource { sub, .. } = &target {
        if connect::is_connect(sub) {
            return connect::connect(app, parts, def, target).await;
        }
    }
    let q = query_map(&parts);
    let method = parts.method.clone();
    let request = Request {
        app,
        parts,
        body,
        def,
        q,
        warnings,
    };
    match method {
        Method::GET => match target {
            Target::Collection { namespace } if truthy(&request.q, "watch") => {
                watch::watch(request, namespace.as_deref()).await
            }
            target => read::get(request, target),
        },
        Method::POST => create::create(request, target),
        Method::PUT => update::update(request, target),
        Method::PATCH => patch::patch(request, target),
        Method::DELETE => delete::delete(request, target),
        _ => Err(ApiError::method_not_allowed()),
    }
}
