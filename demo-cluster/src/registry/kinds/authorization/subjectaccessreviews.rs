//! authorization.k8s.io/v1 SubjectAccessReviews: whether the user the review names may do
//! what it asks.

use serde_json::Value;

use super::{asked_attributes, attribute_causes, checked, named_user, subject_causes};
use crate::errors::ApiResult;
use crate::registry::kinds::builder::review;
use crate::registry::kinds::reviews::{Asker, Review};
use crate::registry::kinds::ResourceDef;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::authorization::v1::SubjectAccessReview;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    review(
        "authorization.k8s.io",
        "subjectaccessreviews",
        "SubjectAccessReview",
        false,
    )
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<SubjectAccessReview>(generator);

pub(crate) static STRATEGY: Review = Review(subject_access_review);

fn subject_access_review(
    asker: &Asker,
    def: &ResourceDef,
    _: &str,
    body: &Value,
) -> ApiResult<Value> {
    let spec = &body["spec"];
    let mut causes = attribute_causes(spec);
    causes.extend(subject_causes(spec));
    checked(def, causes)?;
    Ok(asker.decide(&named_user(spec), &asked_attributes(spec)))
}
