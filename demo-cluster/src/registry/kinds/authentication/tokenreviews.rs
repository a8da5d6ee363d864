//! authentication.k8s.io/v1 TokenReviews: a service account token issued here names its
//! account; any other token is the demo's user, or the token file's.

use serde_json::{json, Value};

use crate::errors::{ApiError, ApiResult};
use crate::registry::kinds::builder::review;
use crate::registry::kinds::reviews::{user_info, Asker, Review};
use crate::registry::kinds::ResourceDef;
use crate::registry::tokens;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::authentication::v1::TokenReview;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    review(
        "authentication.k8s.io",
        "tokenreviews",
        "TokenReview",
        false,
    )
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<TokenReview>(generator);

pub(crate) static STRATEGY: Review = Review(token_review);

fn token_review(asker: &Asker, _: &ResourceDef, _: &str, body: &Value) -> ApiResult<Value> {
    if body["spec"]["token"].as_str().is_none_or(str::is_empty) {
        return Err(ApiError::bad_request(
            "token is required for TokenReview in authentication",
        ));
    }
    let audiences = match body["spec"]["audiences"].as_array() {
        Some(named) if !named.is_empty() => Value::Array(named.clone()),
        _ => json!(tokens::API_AUDIENCES),
    };
    // A service account token issued here is that account; any other token is the admin.
    let token = body["spec"]["token"].as_str().unwrap_or_default();
    let user = match tokens::service_account_of(token) {
        Some((namespace, name, uid)) => json!({
            "username": format!("system:serviceaccount:{namespace}:{name}"),
            "uid": uid,
            "groups": ["system:serviceaccounts", format!("system:serviceaccounts:{namespace}"), "system:authenticated"],
        }),
        None => match asker.user {
            None => user_info(),
            Some(asker) => match asker.tokens.user_of(token) {
                Some(user) => user.to_json(),
                // As kube-apiserver: not authenticated, and why.
                None => return Ok(json!({"user": {}, "error": "invalid bearer token"})),
            },
        },
    };
    Ok(json!({"authenticated": true, "user": user, "audiences": audiences}))
}
