//! DELETE: of one object (graceful, with preconditions and propagation) and of a
//! collection (deletecollection, by selectors), and the DeleteOptions both read.

use std::collections::HashMap;

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{json, Value};

use super::{content_type, json_response, parse_selectors, require_verb, Request, Target};
use crate::errors::{ApiError, ApiResult};
use crate::registry::{DeleteOptions, DeleteOutcome};

pub(super) fn delete(request: Request<'_>, target: Target) -> ApiResult<Response> {
    let (registry, def, q) = (&request.app.registry, &request.def, &request.q);
    match &target {
        Target::Collection { namespace } => {
            require_verb(def, "deletecollection")?;
            let ns = namespace.as_deref();
            // As kube-apiserver: namespaced kinds are deleted by collection only within one
            // namespace.
            if def.namespaced && ns.is_none() {
                return Err(ApiError::method_not_allowed());
            }
            let (labels, fields) = parse_selectors(def, q)?;
            let opts = delete_options(&request.parts.headers, &request.body, q)?;
            let (items, _) = registry.list(def, ns);
            let mut deleted = vec![];
            for o in items
                .iter()
                .filter(|o| labels.matches(o) && fields.matches(o))
            {
                let name = o["metadata"]["name"].as_str().unwrap_or_default();
                let ons = o["metadata"]["namespace"].as_str().unwrap_or_default();
                match registry.delete(def, ons, name, &opts) {
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
        Target::Object { namespace, name } => {
            require_verb(def, "delete")?;
            let opts = delete_options(&request.parts.headers, &request.body, q)?;
            let ns = namespace.as_deref().unwrap_or_default();
            match registry.delete(def, ns, name, &opts)? {
                DeleteOutcome::Object(obj, code) => Ok(json_response(
                    StatusCode::from_u16(code).unwrap_or(StatusCode::OK),
                    &obj,
                )),
                DeleteOutcome::Status(s) => Ok(json_response(StatusCode::OK, &s)),
            }
        }
        Target::Subresource { .. } => Err(ApiError::method_not_allowed()),
    }
}

pub(super) fn delete_options(
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
    // kube-apiserver's delete handler reads DeleteOptions from the body when there is one and
    // from the query only otherwise: `?dryRun=All` beside a body deletes for real.
    delete_options_of(Some(&v), &HashMap::new())
}

/// DeleteOptions from a decoded body (a DELETE's, or an Eviction's `deleteOptions`) and the
/// query (an Eviction's create query, or a DELETE's without a body), which wins.
pub(super) fn delete_options_of(
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
            vec![crate::errors::Cause::new(
                "FieldValueInvalid",
                "propagationPolicy",
                "orphanDependents and deletionPropagation cannot be both set",
            )],
        ));
    }
    if let Some(p) = &opts.propagation_policy {
        if !matches!(p.as_str(), "Orphan" | "Background" | "Foreground") {
            return Err(ApiError::invalid("meta.k8s.io", "DeleteOptions", "", vec![crate::errors::Cause::new("FieldValueNotSupported", "propagationPolicy", format!("Unsupported value: {p:?}: supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""))]));
        }
    }
    Ok(opts)
}
