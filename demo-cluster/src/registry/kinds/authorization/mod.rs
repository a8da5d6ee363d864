//! authorization.k8s.io: the four access review kinds, and the checks and readings of a
//! review's spec they share.

pub(crate) mod localsubjectaccessreviews;
pub(crate) mod selfsubjectaccessreviews;
pub(crate) mod selfsubjectrulesreviews;
pub(crate) mod subjectaccessreviews;

use serde_json::Value;

use crate::auth::request_info::Attributes;
use crate::auth::UserInfo;
use crate::errors::{ApiError, ApiResult, Cause};
use crate::registry::kinds::reviews::allowed;
use crate::registry::kinds::ResourceDef;

/// Exactly one of resourceAttributes and nonResourceAttributes, as every access review needs.
pub(crate) fn attribute_causes(spec: &Value) -> Vec<Cause> {
    let resource = spec["resourceAttributes"].is_object();
    let non_resource = spec["nonResourceAttributes"].is_object();
    match (resource, non_resource) {
        (true, true) => vec![Cause::new(
            "FieldValueInvalid",
            "spec.nonResourceAttributes",
            "Invalid value: cannot be specified in combination with resourceAttributes",
        )],
        (false, false) => vec![Cause::new(
            "FieldValueRequired",
            "spec.resourceAttributes",
            "Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified",
        )],
        _ => vec![],
    }
}

pub(crate) fn checked(def: &ResourceDef, causes: Vec<Cause>) -> ApiResult<Value> {
    if causes.is_empty() {
        Ok(allowed())
    } else {
        Err(ApiError::invalid(&def.group, &def.kind, "", causes))
    }
}

/// The attributes an access review asks about (`resourceAttributes` or
/// `nonResourceAttributes`).
pub(crate) fn asked_attributes(spec: &Value) -> Attributes {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let resource = &spec["resourceAttributes"];
    if resource.is_object() {
        return Attributes {
            verb: text(&resource["verb"]),
            resource_request: true,
            group: text(&resource["group"]),
            version: text(&resource["version"]),
            resource: text(&resource["resource"]),
            subresource: text(&resource["subresource"]),
            namespace: text(&resource["namespace"]),
            name: text(&resource["name"]),
            path: String::new(),
        };
    }
    let non_resource = &spec["nonResourceAttributes"];
    Attributes {
        verb: text(&non_resource["verb"]),
        path: text(&non_resource["path"]),
        ..Attributes::default()
    }
}

/// The user a subject access review names (as given: no group is added).
pub(crate) fn named_user(spec: &Value) -> UserInfo {
    UserInfo {
        name: spec["user"].as_str().unwrap_or_default().to_string(),
        uid: spec["uid"].as_str().unwrap_or_default().to_string(),
        groups: crate::registry::string_list(&spec["groups"]),
    }
}

/// A subject access review names whom it asks about.
pub(crate) fn subject_causes(spec: &Value) -> Vec<Cause> {
    let no_user = spec["user"].as_str().is_none_or(str::is_empty);
    let no_groups = spec["groups"].as_array().is_none_or(Vec::is_empty);
    if no_user && no_groups {
        vec![Cause::invalid(
            "spec.user",
            "",
            "at least one of user or group must be specified",
        )]
    } else {
        vec![]
    }
}
