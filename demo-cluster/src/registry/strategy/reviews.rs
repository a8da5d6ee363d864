//! The create-only review kinds of `authentication.k8s.io` and `authorization.k8s.io`: never
//! stored, answered at once. Without a token file the demo has one user, who may do everything
//! (as a kubeadm cluster's `kubernetes-admin` in `system:masters`): requests carry no
//! credentials, so every request is that user, and every token names it (but a service
//! account token issued here, which names its account). With one (`--token-auth-file`) the
//! reviews answer for the request's user, or the user a subject access review names, with
//! the RBAC authorizer's decisions and rules, as kube-apiserver does.

use serde_json::{json, Value};

use super::{ResourceDef, Strategy};
use crate::auth::request_info::Attributes;
use crate::auth::{rbac, RequestUser, UserInfo};
use crate::registry::tokens;
use crate::registry::{Registry, WriteOptions};
use crate::status::{ApiError, ApiResult, Cause};

pub const DEMO_USER: &str = "kubernetes-admin";
pub const DEMO_GROUPS: &[&str] = &["system:masters", "system:authenticated"];

/// Why an access review is allowed (kube-apiserver puts its authorizer's reason here).
const ALLOWED_REASON: &str = "the demo cluster allows every request";

/// Who asks a review, and where the authorizer reads roles and bindings.
struct Asker<'a> {
    registry: &'a Registry,
    /// `None` without a token file: the demo's all-powerful user.
    user: Option<&'a RequestUser>,
}

impl Asker<'_> {
    /// The access review's status for `user` asking `attributes`.
    fn decide(&self, user: &UserInfo, attributes: &Attributes) -> Value {
        if self.user.is_none() {
            return allowed();
        }
        let decision = rbac::authorize(&self.registry.store, user, attributes);
        let mut status = json!({"allowed": decision.allowed});
        if !decision.reason.is_empty() {
            status["reason"] = json!(decision.reason);
        }
        status
    }
}

type Answer = fn(&Asker, &ResourceDef, &str, &Value) -> ApiResult<Value>;

/// A review kind's strategy: its create is answered with the computed status.
pub struct Review(Answer);

pub static SELF_SUBJECT_REVIEW: Review = Review(self_subject_review);
pub static TOKEN_REVIEW: Review = Review(token_review);
pub static SELF_SUBJECT_ACCESS_REVIEW: Review = Review(self_subject_access_review);
pub static SUBJECT_ACCESS_REVIEW: Review = Review(subject_access_review);
pub static LOCAL_SUBJECT_ACCESS_REVIEW: Review = Review(local_subject_access_review);
pub static SELF_SUBJECT_RULES_REVIEW: Review = Review(self_subject_rules_review);

impl Strategy for Review {
    fn answer_create(
        &self,
        registry: &Registry,
        def: &ResourceDef,
        namespace: &str,
        body: &Value,
        opts: &WriteOptions,
    ) -> Option<ApiResult<Value>> {
        let asker = Asker {
            registry,
            user: opts.user.as_ref(),
        };
        Some((self.0)(&asker, def, namespace, body).map(|status| {
            let mut review = body.clone();
            review["status"] = status;
            review
        }))
    }
}

fn user_info() -> Value {
    json!({"username": DEMO_USER, "groups": DEMO_GROUPS})
}

fn self_subject_review(asker: &Asker, _: &ResourceDef, _: &str, _: &Value) -> ApiResult<Value> {
    match asker.user {
        Some(asker) => Ok(json!({"userInfo": asker.user.to_json()})),
        None => Ok(json!({"userInfo": user_info()})),
    }
}

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

fn allowed() -> Value {
    json!({"allowed": true, "reason": ALLOWED_REASON})
}

/// Exactly one of resourceAttributes and nonResourceAttributes, as every access review needs.
fn attribute_causes(spec: &Value) -> Vec<Cause> {
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

fn checked(def: &ResourceDef, causes: Vec<Cause>) -> ApiResult<Value> {
    if causes.is_empty() {
        Ok(allowed())
    } else {
        Err(ApiError::invalid(&def.group, &def.kind, "", causes))
    }
}

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

/// The attributes an access review asks about (`resourceAttributes` or
/// `nonResourceAttributes`).
fn asked_attributes(spec: &Value) -> Attributes {
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
fn named_user(spec: &Value) -> UserInfo {
    UserInfo {
        name: spec["user"].as_str().unwrap_or_default().to_string(),
        uid: spec["uid"].as_str().unwrap_or_default().to_string(),
        groups: crate::registry::string_list(&spec["groups"]),
    }
}

/// A subject access review names whom it asks about.
fn subject_causes(spec: &Value) -> Vec<Cause> {
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
