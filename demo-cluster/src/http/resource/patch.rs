//! PATCH: JSON, merge, strategic-merge and apply patches of objects and of their status,
//! approval and scale subresources.

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::Value;

use super::{explicit_manager, json_response, patch_type, require_verb, Request, Target};
use crate::errors::{ApiError, ApiResult};
use crate::registry::PatchType;

pub(super) fn patch(request: Request<'_>, target: Target) -> ApiResult<Response> {
    let (registry, def, q) = (&request.app.registry, &request.def, &request.q);
    match &target {
        Target::Object { namespace, name } => {
            require_verb(def, "patch")?;
            let pt = patch_type(&request.parts.headers, def)?;
            let mut opts = request.write_options()?;
            if pt == PatchType::Apply {
                opts.field_manager = explicit_manager(q);
            }
            let ns = namespace.as_deref().unwrap_or_default();
            let (obj, created) = registry.patch(def, ns, name, pt, &request.body, &opts)?;
            let code = if created {
                StatusCode::CREATED
            } else {
                StatusCode::OK
            };
            Ok(json_response(code, &obj))
        }
        Target::Subresource { sub, .. } => {
            let (ns, name) = (target.namespace(), target.name());
            match sub.as_str() {
                "status" | "approval" | "resize" | "ephemeralcontainers" => {
                    let pt = patch_type(&request.parts.headers, def)?;
                    let mut opts = request.write_options()?;
                    opts.subresource = sub.clone();
                    if pt == PatchType::Apply {
                        opts.field_manager = explicit_manager(q);
                    }
                    let (obj, _) = registry.patch(def, ns, name, pt, &request.body, &opts)?;
                    Ok(json_response(StatusCode::OK, &obj))
                }
                "scale" => patch_scale(&request, ns, name),
                _ => Err(ApiError::method_not_allowed()),
            }
        }
        Target::Collection { .. } => Err(ApiError::method_not_allowed()),
    }
}

/// A patch of the Scale view, applied to the current Scale.
fn patch_scale(request: &Request<'_>, ns: &str, name: &str) -> ApiResult<Response> {
    let pt = patch_type(&request.parts.headers, &request.def)?;
    let opts = request.write_options()?;
    let body = &request.body;
    let patch: Value = match pt {
        PatchType::Apply => {
            serde_yaml_ng::from_slice(body).map_err(|e| ApiError::bad_request(e.to_string()))?
        }
        _ => serde_json::from_slice(body).map_err(|e| ApiError::bad_request(e.to_string()))?,
    };
    let scale =
        request
            .app
            .registry
            .update_scale(&request.def, ns, name, &opts, |mut current| {
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
