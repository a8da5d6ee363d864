//! authentication.k8s.io/v1 SelfSubjectReviews (`kubectl auth whoami`): the request's user,
//! or the demo's one user without a token file.

use serde_json::{json, Value};

use crate::errors::ApiResult;
use crate::registry::kinds::builder::review;
use crate::registry::kinds::reviews::{user_info, Asker, Review};
use crate::registry::kinds::ResourceDef;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::authentication::v1::SelfSubjectReview;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    review(
        "authentication.k8s.io",
        "selfsubjectreviews",
        "SelfSubjectReview",
        false,
    )
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<SelfSubjectReview>(generator);

pub(crate) static STRATEGY: Review = Review(self_subject_review);

fn self_subject_review(asker: &Asker, _: &ResourceDef, _: &str, _: &Value) -> ApiResult<Value> {
    match asker.user {
        Some(asker) => Ok(json!({"userInfo": asker.user.to_json()})),
        None => Ok(json!({"userInfo": user_info()})),
    }
}
