//! authorization.k8s.io/v1 LocalSubjectAccessReviews: a subject access review about the
//! request's namespace only.

use serde_json::Value;

use super::{asked_attributes, checked, named_user, subject_causes};
use crate::errors::{ApiError, ApiResult, Cause};
use crate::registry::kinds::builder::review;
use crate::registry::kinds::reviews::{Asker, Review};
use crate::registry::kinds::ResourceDef;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::authorization::v1::LocalSubjectAccessReview;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    review(
        "authorization.k8s.io",
        "localsubjectaccessreviews",
        "LocalSubjectAccessReview",
        true,
    )
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<LocalSubjectAccessReview>(generator);

pub(crate) static STRATEGY: Review = Review(local_subject_access_review);

/// As a subject access review, about resources of the request's namespace only.
fn local_subject_access_review(
    asker: &Asker,
    def: &ResourceDef,
    namespace: &str,
    body: &Value,
) -> ApiResult<Value> {
    let spec = &body["spec"];
    let mut causes = subject_causes(spec);
    if !spec["resourceAttributes"].is_object() {
        causes.push(Cause::new(
            "FieldValueRequired",
            "spec.resourceAttributes",
            "Required value: resourceAttributes is required",
        ));
    }
    if spec["nonResourceAttributes"].is_object() {
        causes.push(Cause::new(
            "FieldValueInvalid",
            "spec.nonResourceAttributes",
            "Invalid value: disallowed on this kind of request",
        ));
    }
    checked(def, causes)?;
    if spec["resourceAttributes"]["namespace"].as_str() != Some(namespace) {
        return Err(ApiError::bad_request(format!(
            "spec.resourceAttributes.namespace must match namespace: {namespace}"
        )));
    }
    Ok(asker.decide(&named_user(spec), &asked_attributes(spec)))
}
