//! POST: creating objects in a collection, and the subresources created by POST
//! (`pods/eviction`, `serviceaccounts/token`, `pods/binding`).

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::json;

use super::delete::delete_options_of;
use super::{json_response, require_verb, Request, Target};
use crate::errors::{ApiError, ApiResult};

pub(super) fn create(request: Request<'_>, target: Target) -> ApiResult<Response> {
    let (registry, def) = (&request.app.registry, &request.def);
    match &target {
        Target::Collection { namespace } => {
            require_verb(def, "create")?;
            let namespace = namespace.as_deref();
            let Some(ns) = namespace.or(if def.namespaced { None } else { Some("") }) else {
                return Err(ApiError::method_not_allowed());
            };
            let opts = request.write_options()?;
            let obj = request.decoded_body()?;
            if obj["metadata"]["resourceVersion"]
                .as_str()
                .is_some_and(|rv| !rv.is_empty())
            {
                return Err(ApiError::resource_version_on_create());
            }
            let created = registry.create(def, ns, obj, &opts)?;
            Ok(json_response(StatusCode::CREATED, &created))
        }
        Target::Subresource { sub, .. } => {
            let (ns, name) = (target.namespace(), target.name());
            match sub.as_str() {
                "eviction" => evict(&request, ns, name),
                "token" => {
                    let token = registry.create_token(ns, name, &request.decoded_body()?)?;
                    Ok(json_response(StatusCode::CREATED, &token))
                }
                "binding" => {
                    let opts = request.write_options()?;
                    let binding = request.decoded_body()?;
                    let status = registry.bind_pod(ns, name, &binding, &opts)?;
                    Ok(json_response(StatusCode::CREATED, &status))
                }
                _ => Err(ApiError::method_not_allowed()),
            }
        }
        Target::Object { .. } => Err(ApiError::method_not_allowed()),
    }
}

/// policy/v1 Eviction: deletes the pod with the eviction's options unless a
/// PodDisruptionBudget holds it (201 and a Status, as served).
fn evict(request: &Request<'_>, ns: &str, name: &str) -> ApiResult<Response> {
    let registry = &request.app.registry;
    let eviction = request.decoded_body()?;
    let named = eviction["metadata"]["name"].as_str().unwrap_or_default();
    if !named.is_empty() && named != name {
        return Err(ApiError::bad_request(
            "name in URL does not match name in Eviction object",
        ));
    }
    let given = Some(&eviction["deleteOptions"]).filter(|v| v.is_object());
    let opts = delete_options_of(given, &request.q)?;
    let pod = registry.get(&request.def, ns, name)?;
    crate::registry::disruption::check_eviction(registry, ns, &pod)?;
    registry.delete(&request.def, ns, name, &opts)?;
    Ok(json_response(
        StatusCode::CREATED,
        &json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}),
    ))
}
