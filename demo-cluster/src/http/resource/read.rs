//! GET: lists (chunked, at a resourceVersion, as objects, metadata or Tables), objects and
//! the readable subresources (status, approval, scale, log).

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use serde_json::{json, Value};

use super::{
    json_response, json_with, parse_rv, parse_selectors, require_verb, truthy, version_params,
    Request, Target,
};
use crate::errors::{ApiError, ApiResult};
use crate::http::negotiate::{include_object, negotiate_output, Output};
use crate::http::{table, AppState};
use crate::registry::kinds::ResourceDef;
use crate::registry::Registry;
use crate::storage::object::{write_partial_metadata, ObjectRef, StoredObject};

/// GET of a collection (list), an object, or a subresource.
pub(super) fn get(request: Request<'_>, target: Target) -> ApiResult<Response> {
    let Request { app, def, q, .. } = &request;
    let registry = &app.registry;
    match &target {
        Target::Collection { namespace } => {
            let output = negotiate_output(&request.parts.headers)?;
            list(app, def, namespace.as_deref(), q, output)
        }
        Target::Object { namespace, name } => {
            require_verb(def, "get")?;
            let output = negotiate_output(&request.parts.headers)?;
            let obj = registry.get(def, namespace.as_deref().unwrap_or_default(), name)?;
            render_one(def, obj, output, q)
        }
        Target::Subresource { sub, .. } => {
            let (ns, name) = (target.namespace(), target.name());
            match sub.as_str() {
                // A CertificateSigningRequest's approval and a Pod's resize and
                // ephemeralcontainers read as its status does: the whole object.
                "status" | "approval" | "resize" | "ephemeralcontainers" => {
                    Ok(json_response(StatusCode::OK, &registry.get(def, ns, name)?))
                }
                "scale" => Ok(json_response(
                    StatusCode::OK,
                    &registry.get_scale(def, ns, name)?,
                )),
                "log" => log(&request, ns, name),
                _ => Err(ApiError::method_not_allowed()),
            }
        }
    }
}

/// `pods/log`: the container's simulated log, followed or not.
fn log(request: &Request<'_>, ns: &str, name: &str) -> ApiResult<Response> {
    let (registry, q) = (&request.app.registry, &request.q);
    let pod = registry.get(&request.def, ns, name)?;
    let container =
        super::connect::container_of(&pod, q.get("container").map(String::as_str), name)?;
    let number = |key: &str| -> ApiResult<Option<i64>> {
        q.get(key)
            .map(|v| {
                v.parse::<i64>()
                    .map_err(|_| ApiError::bad_request(format!("invalid {key}: {v:?}")))
            })
            .transpose()
    };
    let opts = crate::pod_logs::LogOptions {
        container,
        follow: truthy(q, "follow"),
        timestamps: truthy(q, "timestamps"),
        previous: truthy(q, "previous"),
        tail_lines: number("tailLines")?.map(|n| n.max(0) as usize),
        since_seconds: number("sinceSeconds")?,
    };
    crate::pod_logs::respond(registry.clone(), ns, &pod, opts)
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

fn list(
    app: &AppState,
    def: &Arc<ResourceDef>,
    namespace: Option<&str>,
    q: &HashMap<String, String>,
    output: Output,
) -> ApiResult<Response> {
    require_verb(def, "list")?;
    let (labels, fields) = parse_selectors(def, q)?;
    let (rv_param, rvm) = version_params(q);
    let limit = match q.get("limit").map(String::as_str) {
        None | Some("") => None,
        // As kube-apiserver's query decoder: a limit that is not a number is a 400.
        Some(l) => match l.parse::<i64>() {
            Ok(n) => Some(n).filter(|n| *n > 0).map(|n| n as usize),
            Err(_) => {
                return Err(ApiError::bad_request(format!(
                    "strconv.ParseInt: parsing {l:?}: invalid syntax"
                )))
            }
        },
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
        // Version 0: the fresh token of an expired one, continuing from the current state
        // (kube-apiserver's -1).
        let at = (token.rv != 0).then_some(token.rv);
        (at, Some(token.start))
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
                let mut expired = ApiError::expired("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.");
                // As kube-apiserver: a token to go on from the current state where the
                // expired one stopped.
                let start = start_after.clone().unwrap_or_default();
                expired.metadata = Box::new(json!({"continue": encode_continue(0, &start)}));
                expired
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
            Bytes::from(table::table_bytes(
                def,
                rows,
                include_object(q)?,
                &meta,
                true,
            ))
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
