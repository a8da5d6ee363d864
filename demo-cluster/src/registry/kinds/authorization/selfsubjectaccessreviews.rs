//! authorization.k8s.io/v1 SelfSubjectAccessReviews (`kubectl auth can-i`): the request's
//! user asking, allowed everything without a token file.

use serde_json::Value;

use super::{asked_attributes, attribute_causes, checked};
use crate::errors::ApiResult;
use crate::registry::kinds::builder::review;
use crate::registry::kinds::reviews::{allowed, Asker, Review};
use crate::registry::kinds::ResourceDef;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::authorization::v1::SelfSubjectAccessReview;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    review(
        "authorization.k8s.io",
        "selfsubjectaccessreviews",
        "SelfSubjectAccessReview",
        false,
    )
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<SelfSubjectAccessReview>(generator);

pub(crate) static STRATEGY: Review = Review(self_subject_access_review);

fn self_subject_access_review(
    asker: &Asker,
    def: &ResourceDef,
    _: &str,
    body: &Value,
) -> ApiResult<Value> {
    checked(def, attribute_causes(&body["spec"]))?;
    match asker.user {
        Some(own) => Ok(asker.decide(&own.user, &asked_attributes(&body["spec"]))),
        None => Ok(allowed()),
    }
}
