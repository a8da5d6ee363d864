//! The authentication and authorization filters of kube-apiserver's handler chain, installed
//! only with a token file: who is asking (401 for credentials naming nobody), then whether
//! RBAC lets them (403 with kube-apiserver's Status), before any handler looks at the path.
//! The user goes on in the request's extensions, for the review kinds.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::OriginalPath;
use crate::auth::request_info::Attributes;
use crate::auth::token_file::TokenFile;
use crate::auth::{rbac, RequestUser};
use crate::errors::ApiError;
use crate::registry::Registry;

/// What the filter needs.
#[derive(Clone)]
pub struct Access {
    pub tokens: Arc<TokenFile>,
    pub registry: Arc<Registry>,
    /// The dashboard's files are served too (`--www`): paths outside the API are theirs and
    /// open to all, as `kubectl proxy --www` serves them without asking the cluster.
    pub serves_files: bool,
}

/// The first path segments kube-apiserver's routes have (and the demo serves).
const API_ROOTS: [&str; 7] = [
    "api", "apis", "version", "openapi", "healthz", "livez", "readyz",
];

fn is_api_path(path: &str) -> bool {
    let first = path.trim_start_matches('/').split('/').next().unwrap_or("");
    API_ROOTS.contains(&first)
}

pub async fn authenticate_and_authorize(
    State(access): State<Access>,
    mut req: Request,
    next: Next,
) -> Response {
    let path = req
        .extensions()
        .get::<OriginalPath>()
        .map(|original| original.0.clone())
        .unwrap_or_else(|| req.uri().path().to_string());
    if access.serves_files && !is_api_path(&path) {
        return next.run(req).await;
    }
    let user = match access.tokens.authenticate(req.headers_mut()) {
        Ok(user) => user,
        Err(_) => return ApiError::unauthorized().into_response(),
    };
    let attributes = Attributes::of_request(req.method().as_str(), &path, req.uri().query());
    let decision = rbac::authorize(&access.registry.store, &user, &attributes);
    if !decision.allowed {
        tracing::debug!(
            "forbidden: {} {} for {}",
            req.method(),
            req.uri(),
            user.name
        );
        return ApiError::forbidden_by_authorizer(
            &attributes.group,
            &attributes.resource,
            &attributes.name,
            &rbac::forbidden_text(&user, &attributes, &decision.reason),
        )
        .into_response();
    }
    req.extensions_mut().insert(RequestUser {
        user: Arc::new(user),
        tokens: access.tokens.clone(),
    });
    next.run(req).await
}
