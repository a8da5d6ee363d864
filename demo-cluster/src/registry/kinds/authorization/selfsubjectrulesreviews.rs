//! authorization.k8s.io/v1 SelfSubjectRulesReviews (`kubectl auth can-i --list`): the
//! request's user's rules in a namespace, everything without a token file.

use serde_json::{json, Value};

use crate::auth::rbac;
use crate::errors::{ApiError, ApiResult};
use crate::registry::kinds::builder::review;
use crate::registry::kinds::reviews::{Asker, Review};
use crate::registry::kinds::ResourceDef;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::authorization::v1::SelfSubjectRulesReview;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    review(
        "authorization.k8s.io",
        "selfsubjectrulesreviews",
        "SelfSubjectRulesReview",
        false,
    )
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<SelfSubjectRulesReview>(generator);

pub(crate) static STRATEGY: Review = Review(self_subject_rules_review);

fn self_subject_rules_review(
    asker: &Asker,
    _: &ResourceDef,
    _: &str,
    body: &Value,
) -> ApiResult<Value> {
    if let Some(own) = asker.user {
        let namespace = body["spec"]["namespace"].as_str().unwrap_or_default();
        if namespace.is_empty() {
            return Err(ApiError::bad_request("no namespace on request"));
        }
        let (rules, errors) = rbac::rules_for(&asker.registry.store, &own.user, namespace);
        return Ok(rbac::rules_review_status(&rules, &errors));
    }
    Ok(json!({
        "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
        "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
        "incomplete": false
    }))
}
