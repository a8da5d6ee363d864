//! Resource endpoints under `/api/v1` and `/apis/{group}/{version}`: path resolution (scope from
//! the registry, not the path shape) and the verbs on collections, objects and subresources.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use serde_json::{json, Value};

use super::negotiate::{include_object, negotiate_output, Output};
use super::{table, watch, AppState};
use crate::chaos::WatchFaults;
use crate::registry::kinds::ResourceDef;
use crate::registry::{DeleteOptions, DeleteOutcome, PatchType, Registry, WriteOptions};
use crate::status::{
    ApiError, ApiResult, BODY_MEDIA_TYPES, CUSTOM_RESOURCE_PATCH_MEDIA_TYPES, PATCH_MEDIA_TYPES,
};
use crate::storage::object::{write_partial_metadata, ObjectRef, StoredObject};
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
        _ => return Err(ApiError::path_not_found()),
    };
    Ok((def, target))
}

fn query_map(parts: &Parts) -> HashMap<String, String> {
    axum::extract::Query::<HashMap<String, String>>::try_from_uri(&parts.uri)
        .map(|q| q.0)
        .unwrap_or_default()
}

fn truthy(q: &HashMap<String, String>, key: &str) -> bool {
    matches!(q.get(key).map(String::as_str), Some("true" | "1" | "True"))
}

fn json_with(code: StatusCode, v: &Value, content_type: &str) -> Response {
    let mut resp = (code, v.to_string()).into_response();
    if let Ok(ct) = HeaderValue::from_str(content_type) {
        resp.headers_mut().insert(header::CONTENT_TYPE, ct);
    }
    resp
}

fn json_response(code: StatusCode, v: &Value) -> Response {
    json_with(code, v, "application/json")
}

fn require_verb(def: &ResourceDef, verb: &str) -> ApiResult<()> {
    if def.supports(verb) {
        Ok(())
    } else {
        Err(ApiError::method_not_allowed(verb, &def.resource))
    }
}

fn content_type(headers: &HeaderMap) -> String {
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
fn decode_body(headers: &HeaderMap, body: &[u8]) -> ApiResult<Value> {
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

fn write_options(
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
    })
}

/// The manager passed explicitly (apply requires one; the User-Agent does not count).
fn explicit_manager(q: &HashMap<String, String>) -> String {
    q.get("fieldManager").cloned().unwrap_or_default()
}

#[derive(serde::Serialize, serde::Deserialize)]
struct ContinueToken {
    rv: u64,
    start: String,
}

fn encode_continue(rv: u64, after: &str) -> String {
    let token = serde_json::to_vec(&ContinueToken {
        rv,
        start: after.to_string(),
    })
    .unwrap_or_default();
    base64::engine::general_purpose::STANDARD.encode(token)
}

fn decode_continue(s: &str) -> ApiResult<ContinueToken> {
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or_else(|| ApiError::bad_request("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"))
}

fn sort_key(obj: &Value) -> String {
    format!(
        "{}/{}",
        obj["metadata"]["namespace"].as_str().unwrap_or_default(),
        obj["metadata"]["name"].as_str().unwrap_or_default()
    )
}

fn parse_selectors(
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

fn parse_rv(s: &str) -> ApiResult<u64> {
    s.parse::<u64>()
        .map_err(|_| ApiError::bad_request(format!("invalid resource version {s:?}")))
}

fn list(
    app: &AppState,
    def: &Arc<ResourceDef>,
    namespace: Option<&str>,
    q: &HashMap<String, String>,
    output: Output,
) -> ApiResult<Response> {
    require_verb(def, "list")?;
    let (labels, fields) = parse_selectors(def, q)?;
    let rv_param = q.get("resourceVersion").map(String::as_str).unwrap_or("");
    let rvm = q
        .get("resourceVersionMatch")
        .map(String::as_str)
        .unwrap_or("");
    let limit = match q.get("limit").map(String::as_str) {
        None | Some("") => None,
        Some(l) => l.parse::<i64>().ok().filter(|n| *n > 0).map(|n| n as usize),
    };
    let cont = q.get("continue").map(String::as_str).unwrap_or("");
    if truthy(q, "sendInitialEvents") {
        return Err(ApiError::invalid_list_options(
            "sendInitialEvents",
            "sendInitialEvents is forbidden for list",
        ));
    }
    if !rvm.is_empty() {
        if !cont.is_empty() {
            return Err(ApiError::invalid_list_options(
                "resourceVersionMatch",
                "resourceVersionMatch is forbidden when continue is provided",
            ));
        }
        if rv_param.is_empty() {
            return Err(ApiError::invalid_list_options(
                "resourceVersionMatch",
                "resourceVersionMatch is forbidden unless resourceVersion is provided",
            ));
        }
        if !matches!(rvm, "Exact" | "NotOlderThan") {
            return Err(ApiError::invalid_list_options(
                "resourceVersionMatch",
                &format!("{rvm:?} is not a supported resourceVersionMatch"),
            ));
        }
        if rvm == "Exact" && rv_param == "0" {
            return Err(ApiError::invalid_list_options(
                "resourceVersionMatch",
                "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
            ));
        }
    }
    let ns = if def.namespaced { namespace } else { None };
    let store = &app.registry.store;
    let (at, start_after) = if !cont.is_empty() {
        if !rv_param.is_empty() && rv_param != "0" {
            return Err(ApiError::bad_request(
                "specifying resource version is not allowed when using continue",
            ));
        }
        let token = decode_continue(cont)?;
        (Some(token.rv), Some(token.start))
    } else {
        let exact = rvm == "Exact"
            || (rvm.is_empty() && limit.is_some() && !rv_param.is_empty() && rv_param != "0");
        if exact {
            (Some(parse_rv(rv_param)?), None)
        } else {
            if !rv_param.is_empty() && rv_param != "0" {
                let wanted = parse_rv(rv_param)?;
                if wanted > store.current_rv() {
                    return Err(ApiError::timeout(format!(
                        "Too large resource version: {wanted}, current: {}",
                        store.current_rv()
                    )));
                }
            }
            (None, None)
        }
    };
    // The token's start is "namespace/name" of the last item sent (neither may contain '/').
    let after = start_after
        .as_deref()
        .map(|s| s.split_once('/').unwrap_or(("", s)));
    let api_version = def.api_version();
    let unfiltered = labels.is_empty() && fields.is_empty();
    // Selectors see the served shape (events.k8s.io field names differ from the stored ones).
    let keep = |o: &StoredObject| {
        if unfiltered {
            true
        } else if Registry::presents_as_stored(def, &api_version, o) {
            labels.matches(o) && fields.matches(o)
        } else {
            let served = Registry::present(def, o.value().clone());
            labels.matches(&served) && fields.matches(&served)
        }
    };
    let page = store
        .list_page(&def.storage_group, &def.resource, ns, at, after, limit, keep)
        .map_err(|e| {
            if e.code == 410 && !cont.is_empty() {
                ApiError::expired("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.")
            } else {
                e
            }
        })?;
    let mut meta = json!({"resourceVersion": page.rv.to_string()});
    if let (Some(remaining), Some(last)) = (page.remaining, page.items.last()) {
        meta["continue"] = json!(encode_continue(page.rv, &sort_key(last)));
        if unfiltered {
            meta["remainingItemCount"] = json!(remaining);
        }
    }
    // Served forms, borrowing the stored versions where they are already that.
    let served = || -> Vec<Cow<'_, Value>> {
        page.items
            .iter()
            .map(|o| {
                if Registry::presents_as_stored(def, &api_version, o) {
                    Cow::Borrowed(o.value())
                } else {
                    Cow::Owned(Registry::present(def, o.value().clone()))
                }
            })
            .collect()
    };
    let body = match output {
        Output::Table => {
            let served = served();
            // The stored version goes along where it is the served form, so its cached
            // renderings can be reused.
            let rows = served.iter().zip(&page.items).map(|(o, stored)| match o {
                Cow::Borrowed(v) => (*v, Some(stored.as_ref())),
                Cow::Owned(v) => (v, None),
            });
            Bytes::from(table::table_bytes(def, rows, include_object(q)?, &meta))
        }
        Output::Metadata => {
            let head = json!({"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1", "metadata": meta})
                .to_string();
            let mut buf = Vec::with_capacity(head.len() + page.items.len() * 1024);
            // `head` is a JSON object: reopen it to append the items.
            buf.extend_from_slice(&head.as_bytes()[..head.len() - 1]);
            buf.extend_from_slice(b",\"items\":[");
            for (i, (o, stored)) in served().iter().zip(&page.items).enumerate() {
                if i > 0 {
                    buf.push(b',');
                }
                match o {
                    // The stored version's rendering, cached across requests.
                    Cow::Borrowed(_) => buf.extend_from_slice(stored.metadata_json()),
                    Cow::Owned(v) => write_partial_metadata(&mut buf, v),
                }
            }
            buf.extend_from_slice(b"]}");
            Bytes::from(buf)
        }
        Output::Object => object_list_body(def, &api_version, &meta, &page.items),
    };
    let mut resp = (StatusCode::OK, body).into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(output.content_type()),
    );
    Ok(resp)
}

/// A plain JSON list assembled from the items' cached JSON (rendered once per stored
/// version), so a large list costs a copy of bytes rather than copying, presenting and
/// serializing every object again. Items whose served form differs are serialized here.
fn object_list_body(
    def: &ResourceDef,
    api_version: &str,
    meta: &Value,
    items: &[ObjectRef],
) -> Bytes {
    let size: usize = items.iter().map(|o| o.json().len() + 1).sum();
    let mut buf = Vec::with_capacity(size + 256);
    let head = json!({"kind": def.list_kind, "apiVersion": api_version, "metadata": meta});
    let head = head.to_string();
    // `head` is a JSON object: reopen it to append the items.
    buf.extend_from_slice(&head.as_bytes()[..head.len() - 1]);
    buf.extend_from_slice(b",\"items\":[");
    for (i, obj) in items.iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        if Registry::presents_as_stored(def, api_version, obj) {
            buf.extend_from_slice(obj.json());
        } else {
            let served = Registry::present(def, obj.value().clone());
            // Writing a `Value` into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut buf, &served);
        }
    }
    buf.extend_from_slice(b"]}");
    Bytes::from(buf)
}

fn watch_request(
    app: &AppState,
    def: &Arc<ResourceDef>,
    namespace: Option<&str>,
    q: &HashMap<String, String>,
    output: Output,
    chaos: Option<&WatchFaults>,
) -> ApiResult<watch::WatchRequest> {
    require_verb(def, "watch")?;
    let (labels, fields) = parse_selectors(def, q)?;
    let rv_param = q.get("resourceVersion").map(String::as_str).unwrap_or("");
    let rvm = q
        .get("resourceVersionMatch")
        .map(String::as_str)
        .unwrap_or("");
    let send_initial = q.get("sendInitialEvents").map(|v| v == "true" || v == "1");
    if send_initial.is_some() && rvm != "NotOlderThan" {
        return Err(ApiError::invalid_list_options(
            "sendInitialEvents",
            "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
        ));
    }
    if !rvm.is_empty() && send_initial.is_none() {
        return Err(ApiError::invalid_list_options(
            "resourceVersionMatch",
            "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
        ));
    }
    if !rvm.is_empty() && rvm != "NotOlderThan" {
        return Err(ApiError::invalid_list_options(
            "resourceVersionMatch",
            &format!("{rvm:?} is invalid with sendInitialEvents"),
        ));
    }
    let bookmarks = truthy(q, "allowWatchBookmarks");
    let send_initial_events = send_initial.unwrap_or(false);
    let since = if send_initial_events || rv_param.is_empty() || rv_param == "0" {
        None
    } else {
        Some(parse_rv(rv_param)?)
    };
    // Chaos's 410 is for resumes only: a watch starting from the current state has no
    // resume point to lose.
    let resumed = since.is_some();
    let chaos = chaos.cloned().map(|mut c| {
        c.expire &= resumed;
        c
    });
    // sendInitialEvents=false without a version: only changes from now on.
    let since = if send_initial == Some(false) && since.is_none() {
        Some(app.registry.store.current_rv())
    } else {
        since
    };
    let timeout = q
        .get("timeoutSeconds")
        .and_then(|t| t.parse::<u64>().ok())
        .filter(|t| *t > 0)
        .map(Duration::from_secs)
        .unwrap_or(Duration::from_secs(1800));
    Ok(watch::WatchRequest {
        def: def.clone(),
        namespace: namespace.map(String::from),
        since,
        send_initial_events,
        bookmarks,
        timeout,
        bookmark_interval: app.tuning.bookmark_interval,
        labels,
        fields,
        output,
        include: include_object(q)?,
        chaos,
    })
}

fn render_one(
    def: &ResourceDef,
    obj: Value,
    output: Output,
    q: &HashMap<String, String>,
) -> ApiResult<Response> {
    let body = match output {
        Output::Object => obj,
        Output::Metadata => table::partial_metadata(&obj),
        Output::Table => table::table(
            def,
            std::slice::from_ref(&obj),
            include_object(q)?,
            json!({"resourceVersion": obj["metadata"]["resourceVersion"]}),
        ),
    };
    Ok(json_with(StatusCode::OK, &body, output.content_type()))
}

fn delete_options(
    headers: &HeaderMap,
    body: &[u8],
    q: &HashMap<String, String>,
) -> ApiResult<DeleteOptions> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return delete_options_of(None, q);
    }
    // JSON, or protobuf from typed clients (`kubectl drain --disable-eviction` deletes so).
    let v: Value = match content_type(headers).as_str() {
        "application/vnd.kubernetes.protobuf" => crate::protobuf::decode(body),
        _ => serde_json::from_slice(body).map_err(|e| e.to_string()),
    }
    .map_err(|e| ApiError::bad_request(format!("error decoding DeleteOptions: {e}")))?;
    delete_options_of(Some(&v), q)
}

/// DeleteOptions from a decoded body (a DELETE's, or an Eviction's `deleteOptions`) and the
/// query, which wins.
fn delete_options_of(
    body: Option<&Value>,
    q: &HashMap<String, String>,
) -> ApiResult<DeleteOptions> {
    let mut opts = DeleteOptions::default();
    if let Some(v) = body {
        opts.grace_period_seconds = v["gracePeriodSeconds"].as_i64();
        opts.propagation_policy = v["propagationPolicy"].as_str().map(String::from);
        opts.orphan_dependents = v["orphanDependents"].as_bool();
        opts.precondition_uid = v["preconditions"]["uid"].as_str().map(String::from);
        opts.precondition_resource_version = v["preconditions"]["resourceVersion"]
            .as_str()
            .map(String::from);
        opts.dry_run = v["dryRun"]
            .as_array()
            .is_some_and(|a| a.iter().any(|x| x == "All"));
    }
    if let Some(g) = q.get("gracePeriodSeconds").and_then(|g| g.parse().ok()) {
        opts.grace_period_seconds = Some(g);
    }
    if let Some(p) = q.get("propagationPolicy").filter(|p| !p.is_empty()) {
        opts.propagation_policy = Some(p.clone());
    }
    if let Some(o) = q.get("orphanDependents") {
        opts.orphan_dependents = Some(o == "true");
    }
    if q.get("dryRun").map(String::as_str) == Some("All") {
        opts.dry_run = true;
    }
    if opts.orphan_dependents.is_some() && opts.propagation_policy.is_some() {
        return Err(ApiError::invalid(
            "meta.k8s.io",
            "DeleteOptions",
            "",
            vec![crate::status::Cause::new(
                "FieldValueInvalid",
                "propagationPolicy",
                "orphanDependents and deletionPropagation cannot be both set",
            )],
        ));
    }
    if let Some(p) = &opts.propagation_policy {
        if !matches!(p.as_str(), "Orphan" | "Background" | "Foreground") {
            return Err(ApiError::invalid("meta.k8s.io", "DeleteOptions", "", vec![crate::status::Cause::new("FieldValueNotSupported", "propagationPolicy", format!("Unsupported value: {p:?}: supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""))]));
        }
    }
    Ok(opts)
}

/// The patch type named by Content-Type; a patch without one cannot be read (415).
fn patch_type(headers: &HeaderMap, def: &ResourceDef) -> ApiResult<PatchType> {
    let accepted = if def.builtin {
        PATCH_MEDIA_TYPES
    } else {
        CUSTOM_RESOURCE_PATCH_MEDIA_TYPES
    };
    let named = headers
        .get(header::CONTENT_TYPE)
        .map(|_| content_type(headers));
    let patch_type = match named.as_deref() {
        Some("application/json-patch+json") => PatchType::Json,
        Some("application/merge-patch+json") => PatchType::Merge,
        Some("application/strategic-merge-patch+json") if def.builtin => PatchType::Strategic,
        Some("application/apply-patch+yaml") => PatchType::Apply,
        _ => return Err(ApiError::unsupported_media_type(accepted)),
    };
    Ok(patch_type)
}

type Warnings = Arc<std::sync::Mutex<Vec<String>>>;

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
    let mut resp = handle_inner(app, parts, body, group, version, segs, &warnings).await?;
    for w in warnings.lock().unwrap_or_else(|p| p.into_inner()).iter() {
        let escaped = w.replace('\\', "\\\\").replace('"', "\\\"");
        if let Ok(v) = HeaderValue::from_str(&format!("299 - \"{escaped}\"")) {
            resp.headers_mut().append(header::WARNING, v);
        }
    }
    Ok(resp)
}

async fn handle_inner(
    app: AppState,
    mut parts: Parts,
    body: Bytes,
    group: String,
    version: String,
    segs: Vec<String>,
    warnings: &Warnings,
) -> ApiResult<Response> {
    let seg_refs: Vec<&str> = segs.iter().map(String::as_str).collect();
    let (def, target) = resolve(&app.registry, &group, &version, &seg_refs)?;
    let q = query_map(&parts);
    let method = parts.method.clone();
    let registry = app.registry.clone();
    match target {
        Target::Collection { namespace } => {
            let ns = namespace.as_deref();
            match method {
                Method::GET => {
                    let output = negotiate_output(&parts.headers)?;
                    if truthy(&q, "watch") {
                        let chaos = parts.extensions.get::<WatchFaults>();
                        let req = watch_request(&app, &def, ns, &q, output, chaos)?;
                        let is_ws = parts
                            .headers
                            .get(header::UPGRADE)
                            .and_then(|v| v.to_str().ok())
                            .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
                        if is_ws {
                            let ws = WebSocketUpgrade::from_request_parts(&mut parts, &())
                                .await
                                .map_err(|e| ApiError::bad_request(e.to_string()))?;
                            let rx = watch::start(registry, req, app.shutdown.clone());
                            return Ok(watch::websocket_response(ws, rx));
                        }
                        let rx = watch::start(registry, req, app.shutdown.clone());
                        return Ok(watch::chunked_response(rx, output));
                    }
                    list(&app, &def, ns, &q, output)
                }
                Method::POST => {
                    require_verb(&def, "create")?;
                    let Some(ns) = ns.or(if def.namespaced { None } else { Some("") }) else {
                        return Err(ApiError::method_not_allowed("create", &def.resource));
                    };
                    let opts = write_options(&parts, &q, warnings)?;
                    let obj = decode_body(&parts.headers, &body)?;
                    let created = registry.create(&def, ns, obj, &opts)?;
                    Ok(json_response(StatusCode::CREATED, &created))
                }
                Method::DELETE => {
                    require_verb(&def, "deletecollection")?;
                    // As kube-apiserver: namespaced kinds are deleted by collection only
                    // within one namespace.
                    if def.namespaced && ns.is_none() {
                        return Err(ApiError::method_not_allowed(
                            "deletecollection",
                            &def.resource,
                        ));
                    }
                    let (labels, fields) = parse_selectors(&def, &q)?;
                    let opts = delete_options(&parts.headers, &body, &q)?;
                    let (items, _) = registry.list(&def, ns);
                    let mut deleted = vec![];
                    for o in items
                        .iter()
                        .filter(|o| labels.matches(o) && fields.matches(o))
                    {
                        let name = o["metadata"]["name"].as_str().unwrap_or_default();
                        let ons = o["metadata"]["namespace"].as_str().unwrap_or_default();
                        match registry.delete(&def, ons, name, &opts) {
                            Ok(DeleteOutcome::Object(obj, _)) => deleted.push(obj),
                            Ok(DeleteOutcome::Status(_)) => deleted.push(o.clone()),
                            Err(e) if e.code == 404 => {}
                            Err(e) => return Err(e),
                        }
                    }
                    let rv = registry.store.current_rv();
                    Ok(json_response(
                        StatusCode::OK,
                        &json!({"kind": def.list_kind, "apiVersion": def.api_version(), "metadata": {"resourceVersion": rv.to_string()}, "items": deleted}),
                    ))
                }
                _ => Err(ApiError::method_not_allowed(method.as_str(), &def.resource)),
            }
        }
        Target::Object { namespace, name } => {
            let ns = namespace.unwrap_or_default();
            match method {
                Method::GET => {
                    require_verb(&def, "get")?;
                    let output = negotiate_output(&parts.headers)?;
                    let obj = registry.get(&def, &ns, &name)?;
                    render_one(&def, obj, output, &q)
                }
                Method::PUT => {
                    require_verb(&def, "update")?;
                    let opts = write_options(&parts, &q, warnings)?;
                    let obj = decode_body(&parts.headers, &body)?;
                    let updated = registry.update(&def, &ns, &name, obj, &opts)?;
                    Ok(json_response(StatusCode::OK, &updated))
                }
                Method::PATCH => {
                    require_verb(&def, "patch")?;
                    let pt = patch_type(&parts.headers, &def)?;
                    let mut opts = write_options(&parts, &q, warnings)?;
                    if pt == PatchType::Apply {
                        opts.field_manager = explicit_manager(&q);
                    }
                    let (obj, created) = registry.patch(&def, &ns, &name, pt, &body, &opts)?;
                    let code = if created {
                        StatusCode::CREATED
                    } else {
                        StatusCode::OK
                    };
                    Ok(json_response(code, &obj))
                }
                Method::DELETE => {
                    require_verb(&def, "delete")?;
                    let opts = delete_options(&parts.headers, &body, &q)?;
                    match registry.delete(&def, &ns, &name, &opts)? {
                        DeleteOutcome::Object(obj, code) => Ok(json_response(
                            StatusCode::from_u16(code).unwrap_or(StatusCode::OK),
                            &obj,
                        )),
                        DeleteOutcome::Status(s) => Ok(json_response(StatusCode::OK, &s)),
                    }
                }
                _ => Err(ApiError::method_not_allowed(method.as_str(), &def.resource)),
            }
        }
        Target::Subresource {
            namespace,
            name,
            sub,
        } => {
            let ns = namespace.unwrap_or_default();
            if !def.has_subresource(&sub) {
                return Err(ApiError::path_not_found());
            }
            let sub_ref = sub.as_str();
            match (sub_ref, method) {
                // A CertificateSigningRequest's approval is written as its status is; a
                // Namespace's finalize writes its spec.finalizers (registry::strategy).
                ("status" | "approval", Method::GET) => {
                    let obj = registry.get(&def, &ns, &name)?;
                    Ok(json_response(StatusCode::OK, &obj))
                }
                ("status" | "approval" | "finalize", Method::PUT) => {
                    let mut opts = write_options(&parts, &q, warnings)?;
                    opts.subresource = sub.clone();
                    let obj = decode_body(&parts.headers, &body)?;
                    Ok(json_response(
                        StatusCode::OK,
                        &registry.update(&def, &ns, &name, obj, &opts)?,
                    ))
                }
                ("status" | "approval", Method::PATCH) => {
                    let pt = patch_type(&parts.headers, &def)?;
                    let mut opts = write_options(&parts, &q, warnings)?;
                    opts.subresource = sub.clone();
                    if pt == PatchType::Apply {
                        opts.field_manager = explicit_manager(&q);
                    }
                    let (obj, _) = registry.patch(&def, &ns, &name, pt, &body, &opts)?;
                    Ok(json_response(StatusCode::OK, &obj))
                }
                ("scale", Method::GET) => Ok(json_response(
                    StatusCode::OK,
                    &registry.get_scale(&def, &ns, &name)?,
                )),
                ("scale", Method::PUT) => {
                    let opts = write_options(&parts, &q, warnings)?;
                    let desired = decode_body(&parts.headers, &body)?;
                    let scale =
                        registry.update_scale(&def, &ns, &name, &opts, |_| Ok(desired.clone()))?;
                    Ok(json_response(StatusCode::OK, &scale))
                }
                ("scale", Method::PATCH) => {
                    let pt = patch_type(&parts.headers, &def)?;
                    let opts = write_options(&parts, &q, warnings)?;
                    let patch: Value = match pt {
                        PatchType::Apply => serde_yaml_ng::from_slice(&body)
                            .map_err(|e| ApiError::bad_request(e.to_string()))?,
                        _ => serde_json::from_slice(&body)
                            .map_err(|e| ApiError::bad_request(e.to_string()))?,
                    };
                    let scale = registry.update_scale(&def, &ns, &name, &opts, |mut current| {
                        match pt {
                            PatchType::Json => {
                                let ops: json_patch::Patch = serde_json::from_value(patch.clone())
                                    .map_err(|e| ApiError::bad_request(e.to_string()))?;
                                json_patch::patch(&mut current, &ops)
                                    .map_err(|e| ApiError::bad_request(e.to_string()))?;
                            }
                            PatchType::Strategic => {
                                crate::registry::patch::strategic_merge(&mut current, &patch)
                                    .map_err(ApiError::bad_request)?
                            }
                            _ => crate::registry::patch::merge_patch(&mut current, &patch),
                        }
                        Ok(current)
                    })?;
                    Ok(json_response(StatusCode::OK, &scale))
                }
                // policy/v1 Eviction: there are no PodDisruptionBudgets to consult, so it
                // deletes the pod with the eviction's options (201 and a Status, as served).
                ("eviction", Method::POST) => {
                    let eviction = decode_body(&parts.headers, &body)?;
                    let named = eviction["metadata"]["name"].as_str().unwrap_or_default();
                    if !named.is_empty() && named != name {
                        return Err(ApiError::bad_request(
                            "name in URL does not match name in Eviction object",
                        ));
                    }
                    let given = Some(&eviction["deleteOptions"]).filter(|v| v.is_object());
                    let opts = delete_options_of(given, &q)?;
                    let pod = registry.get(&def, &ns, &name)?;
                    crate::registry::disruption::check_eviction(&registry, &ns, &pod)?;
                    registry.delete(&def, &ns, &name, &opts)?;
                    Ok(json_response(
                        StatusCode::CREATED,
                        &json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}),
                    ))
                }
                ("token", Method::POST) => {
                    let request = decode_body(&parts.headers, &body)?;
                    let token = registry.create_token(&ns, &name, &request)?;
                    Ok(json_response(StatusCode::CREATED, &token))
                }
                ("binding", Method::POST) => {
                    let opts = write_options(&parts, &q, warnings)?;
                    let binding = decode_body(&parts.headers, &body)?;
                    let status = registry.bind_pod(&ns, &name, &binding, &opts)?;
                    Ok(json_response(StatusCode::CREATED, &status))
                }
                ("log", Method::GET) => {
                    let pod = registry.get(&def, &ns, &name)?;
                    let containers: Vec<String> = pod["spec"]["containers"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|c| c["name"].as_str().map(String::from))
                        .collect();
                    let container = match q.get("container") {
                        Some(c) if containers.contains(c) => c.clone(),
                        Some(c) => return Err(ApiError::bad_request(format!("container {c} is not valid for pod {name}"))),
                        None if containers.len() == 1 => containers[0].clone(),
                        None => return Err(ApiError::bad_request(format!("a container name must be specified for pod {name}, choose one of: [{}]", containers.join(" ")))),
                    };
                    let number = |key: &str| -> ApiResult<Option<i64>> {
                        q.get(key)
                            .map(|v| {
                                v.parse::<i64>().map_err(|_| {
                                    ApiError::bad_request(format!("invalid {key}: {v:?}"))
                                })
                            })
                            .transpose()
                    };
                    let opts = crate::logs::LogOptions {
                        container,
                        follow: truthy(&q, "follow"),
                        timestamps: truthy(&q, "timestamps"),
                        previous: truthy(&q, "previous"),
                        tail_lines: number("tailLines")?.map(|n| n.max(0) as usize),
                        since_seconds: number("sinceSeconds")?,
                    };
                    crate::logs::respond(registry.clone(), &ns, &pod, opts)
                }
                (_, m) => Err(ApiError::method_not_allowed(
                    m.as_str(),
                    &format!("{}/{sub}", def.resource),
                )),
            }
        }
    }
}
