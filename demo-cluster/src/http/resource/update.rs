//! PUT: replacing objects, and the subresources written by PUT (status, approval, finalize,
//! scale).

use axum::http::StatusCode;
use axum::response::Response;

use super::{json_response, require_verb, Request, Target};
use crate::errors::{ApiError, ApiResult};

pub(super) fn update(request: Request<'_>, target: Target) -> ApiResult<Response> {
    let (registry, def) = (&request.app.registry, &request.def);
    match &target {
        Target::Object { namespace, name } => {
            require_verb(def, "update")?;
            let opts = request.write_options()?;
            let obj = request.decoded_body()?;
            let ns = namespace.as_deref().unwrap_or_default();
            let updated = registry.update(def, ns, name, obj, &opts)?;
            Ok(json_response(StatusCode::OK, &updated))
        }
        Target::Subresource { sub, .. } => {
            let (ns, name) = (target.namespace(), target.name());
            match sub.as_str() {
                // A CertificateSigningRequest's approval is written as its status is; a
                // Namespace's finalize writes its spec.finalizers, a Pod's resize its
                // containers' resources and ephemeralcontainers its ephemeral containers
                // (registry::strategy).
                "status" | "approval" | "finalize" | "resize" | "ephemeralcontainers" => {
                    let mut opts = request.write_options()?;
                    opts.subresource = sub.clone();
                    let obj = request.decoded_body()?;
                    Ok(json_response(
                        StatusCode::OK,
                        &registry.update(def, ns, name, obj, &opts)?,
                    ))
                }
                "scale" => {
                    let opts = request.write_options()?;
                    let desired = request.decoded_body()?;
                    let scale =
                        registry.update_scale(def, ns, name, &opts, |_| Ok(desired.clone()))?;
                    Ok(json_response(StatusCode::OK, &scale))
                }
                _ => Err(ApiError::method_not_allowed()),
            }
        }
        Target::Collection { .. } => Err(ApiError::method_not_allowed()),
    }
}
