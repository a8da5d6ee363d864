//! Kubernetes `Status` errors: one error type for the whole server, rendered as the Status
//! JSON kube-apiserver sends (reasons, codes and message templates of apimachinery's errors.go).

use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

/// `resource.group`, or just `resource` for the core group (kube-apiserver's qualified resource).
/// What a create or update body may be written in.
pub const BODY_MEDIA_TYPES: &[&str] = &[
    "application/json",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
];
/// Patch types of built-in kinds, in kube-apiserver's order.
pub const PATCH_MEDIA_TYPES: &[&str] = &[
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
];
/// Custom resources have no strategic merge patch (their schemas carry no merge keys).
pub const CUSTOM_RESOURCE_PATCH_MEDIA_TYPES: &[&str] = &[
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/apply-patch+yaml",
];

pub fn qualified_resource(group: &str, resource: &str) -> String {
    if group.is_empty() {
        resource.to_string()
    } else {
        format!("{resource}.{group}")
    }
}

/// One field-level cause in `details.causes`.
#[derive(Debug, Clone, PartialEq)]
pub struct Cause {
    pub reason: String,
    pub message: String,
    pub field: String,
}

impl Cause {
    pub fn new(reason: &str, field: &str, message: impl Into<String>) -> Self {
        Cause {
            reason: reason.into(),
            message: message.into(),
            field: field.into(),
        }
    }
    pub fn required(field: &str) -> Self {
        Cause::new("FieldValueRequired", field, "Required value")
    }
    pub fn invalid(field: &str, value: &str, detail: &str) -> Self {
        Cause::new(
            "FieldValueInvalid",
            field,
            format!("Invalid value: {value:?}: {detail}"),
        )
    }
    pub fn immutable(field: &str) -> Self {
        Cause::new("FieldValueInvalid", field, "field is immutable")
    }
}

/// Every non-2xx API answer. Built through the constructors so messages match kube-apiserver.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub code: u16,
    pub reason: &'static str,
    pub message: String,
    // Boxed: with serde_json's preserve_order (enabled elsewhere in the workspace) a Value is
    // large, and every handler returns Result<_, ApiError>.
    pub details: Option<Box<Value>>,
    /// `metadata` of the Status (used for the fresh `continue` of an expired token).
    pub metadata: Box<Value>,
}

impl ApiError {
    fn new(code: u16, reason: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            code,
            reason,
            message: message.into(),
            details: None,
            metadata: Box::new(json!({})),
        }
    }

    fn with_details(mut self, details: Value) -> Self {
        self.details = Some(Box::new(details));
        self
    }

    pub fn not_found(group: &str, resource: &str, name: &str) -> Self {
        Self::new(
            404,
            "NotFound",
            format!("{} {name:?} not found", qualified_resource(group, resource)),
        )
        .with_details(details(name, group, resource))
    }

    /// Unknown path or resource type.
    pub fn path_not_found() -> Self {
        Self::new(
            404,
            "NotFound",
            "the server could not find the requested resource",
        )
        .with_details(json!({}))
    }

    pub fn already_exists(group: &str, resource: &str, name: &str) -> Self {
        Self::new(
            409,
            "AlreadyExists",
            format!(
                "{} {name:?} already exists",
                qualified_resource(group, resource)
            ),
        )
        .with_details(details(name, group, resource))
    }

    pub fn conflict(group: &str, resource: &str, name: &str, why: &str) -> Self {
        Self::new(
            409,
            "Conflict",
            format!(
                "Operation cannot be fulfilled on {} {name:?}: {why}",
                qualified_resource(group, resource)
            ),
        )
        .with_details(details(name, group, resource))
    }

    pub fn stale(group: &str, resource: &str, name: &str) -> Self {
        Self::conflict(
            group,
            resource,
            name,
            "the object has been modified; please apply your changes to the latest version and try again",
        )
    }

    pub fn apply_conflict(causes: Vec<Cause>) -> Self {
        let n = causes.len();
        let listed: Vec<String> = causes
            .iter()
            .map(|c| format!("- {}: {}", c.message, c.field))
            .collect();
        let message = if n == 1 {
            format!(
                "Apply failed with 1 conflict: {}: {}",
                causes[0].message, causes[0].field
            )
        } else {
            format!("Apply failed with {n} conflicts:\n{}", listed.join("\n"))
        };
        Self::new(409, "Conflict", message).with_details(json!({ "causes": causes_json(&causes) }))
    }

    pub fn invalid(group: &str, kind: &str, name: &str, causes: Vec<Cause>) -> Self {
        let summary: Vec<String> = causes
            .iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect();
        let summary = if summary.len() == 1 {
            summary[0].clone()
        } else {
            format!("[{}]", summary.join(", "))
        };
        let qualified_kind = if group.is_empty() {
            kind.to_string()
        } else {
            format!("{kind}.{group}")
        };
        let mut d =
            json!({ "name": name, "group": group, "kind": kind, "causes": causes_json(&causes) });
        strip_empty(&mut d);
        Self::new(
            422,
            "Invalid",
            format!("{qualified_kind} {name:?} is invalid: {summary}"),
        )
        .with_details(d)
    }

    pub fn invalid_list_options(field: &str, detail: &str) -> Self {
        let cause = Cause::new("FieldValueForbidden", field, format!("Forbidden: {detail}"));
        Self::new(
            422,
            "Invalid",
            format!("ListOptions.meta.k8s.io \"\" is invalid: {field}: Forbidden: {detail}"),
        )
        .with_details(
            json!({"group": "meta.k8s.io", "kind": "ListOptions", "causes": causes_json(&[cause])}),
        )
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, "BadRequest", message)
    }

    pub fn forbidden(group: &str, resource: &str, name: &str, why: &str) -> Self {
        Self::new(
            403,
            "Forbidden",
            format!(
                "{} {name:?} is forbidden: {why}",
                qualified_resource(group, resource)
            ),
        )
        .with_details(details(name, group, resource))
    }

    /// 403 as kube-apiserver refuses a request its authorizer did not allow: `text` is the
    /// authorizer's (`User "u" cannot list resource ...`), led by the resource and name asked
    /// for, or by `forbidden:` alone for a path outside the resource API.
    pub fn forbidden_by_authorizer(group: &str, resource: &str, name: &str, text: &str) -> Self {
        let message = if group.is_empty() && resource.is_empty() {
            format!("forbidden: {text}")
        } else if name.is_empty() {
            format!(
                "{} is forbidden: {text}",
                qualified_resource(group, resource)
            )
        } else {
            format!(
                "{} {name:?} is forbidden: {text}",
                qualified_resource(group, resource)
            )
        };
        Self::new(403, "Forbidden", message).with_details(details(name, group, resource))
    }

    /// 401 for credentials that name nobody, as kube-apiserver words it (no details).
    pub fn unauthorized() -> Self {
        Self::new(401, "Unauthorized", "Unauthorized")
    }

    /// 405 as kube-apiserver answers a verb the resource does not serve: its router's words,
    /// which name neither the verb nor the resource, and empty details.
    pub fn method_not_allowed() -> Self {
        Self::new(
            405,
            "MethodNotAllowed",
            "the server does not allow this method on the requested resource",
        )
        .with_details(json!({}))
    }

    /// 422 as kube-apiserver answers a JSON patch that cannot be applied (a failed `test`, a
    /// path that is not there): no details.
    pub fn json_patch_not_applied() -> Self {
        Self::new(
            422,
            "Invalid",
            "the server rejected our request due to an error in our request",
        )
        .with_details(json!({}))
    }

    /// 500 without a reason: kube-apiserver's answer to a create whose body has a
    /// resourceVersion.
    pub fn resource_version_on_create() -> Self {
        Self::new(
            500,
            "",
            "resourceVersion should not be set on objects to be created",
        )
    }

    pub fn not_acceptable(accept: &str) -> Self {
        Self::new(
            406,
            "NotAcceptable",
            format!("only the following media types are accepted: application/json (requested {accept:?})"),
        )
    }

    /// 415 naming what the endpoint reads (one of the `*_MEDIA_TYPES` lists).
    pub fn unsupported_media_type(accepted: &[&str]) -> Self {
        Self::new(
            415,
            "UnsupportedMediaType",
            format!(
                "the body of the request was in an unknown format - accepted media types include: {}",
                accepted.join(", ")
            ),
        )
    }

    /// 415 as kube-apiserver answers a PATCH whose Content-Type is no patch type at all
    /// (its router's words, empty details).
    pub fn unsupported_patch_media_type() -> Self {
        Self::new(415, "UnsupportedMediaType", "415: Unsupported Media Type")
            .with_details(json!({}))
    }

    pub fn too_large() -> Self {
        Self::new(
            413,
            "RequestEntityTooLarge",
            "Request entity too large: limit is 3145728",
        )
    }

    pub fn expired(message: impl Into<String>) -> Self {
        Self::new(410, "Expired", message)
    }

    /// A watch from a resourceVersion no longer kept. kube-apiserver keeps no watch cache
    /// for Events (`--watch-cache-sizes` defaults both event kinds to 0), so their watches
    /// read etcd and report its compaction in etcd's words; every other kind's window is the
    /// watch cache's.
    pub fn watch_too_old(group: &str, resource: &str, requested: u64, oldest: u64) -> Self {
        let uncached = resource == "events" && matches!(group, "" | "events.k8s.io");
        if uncached {
            Self::expired("The resourceVersion for the provided watch is too old.")
        } else {
            Self::expired(format!("too old resource version: {requested} ({oldest})"))
        }
    }

    /// A list at an exact resourceVersion no longer kept: kube-apiserver serves those from
    /// etcd for every kind, so its 410 is etcd's compaction in any case.
    pub fn list_too_old() -> Self {
        Self::expired("The resourceVersion for the provided list is too old.")
    }

    /// 429, as kube-apiserver's overload filters answer; `Retry-After` goes with it.
    pub fn too_many_requests(message: impl Into<String>, retry_after_seconds: u64) -> Self {
        Self::new(429, "TooManyRequests", message)
            .with_details(json!({ "retryAfterSeconds": retry_after_seconds }))
    }

    /// 429 of an eviction a PodDisruptionBudget forbids, as kube-apiserver words it.
    pub fn disruption_budget(budget: &str, desired_healthy: i64, current_healthy: i64) -> Self {
        Self::new(
            429,
            "TooManyRequests",
            "Cannot evict pod as it would violate the pod's disruption budget.",
        )
        .with_details(json!({"causes": [{"reason": "DisruptionBudget",
            "message": format!("The disruption budget {budget} needs {desired_healthy} healthy pods and has {current_healthy} currently")}]}))
    }

    pub fn timeout(message: impl Into<String>) -> Self {
        Self::new(504, "Timeout", message)
    }

    /// 500 without a reason: an error kube-apiserver passes on as it is (a failed dial to
    /// a kubelet, a node without addresses).
    pub fn internal_without_reason(message: impl Into<String>) -> Self {
        Self::new(500, "", message)
    }

    /// 503: a proxied backend that cannot be reached.
    pub fn service_unavailable(message: impl Into<String>) -> Self {
        Self::new(503, "ServiceUnavailable", message)
    }

    pub fn internal(message: impl std::fmt::Display) -> Self {
        Self::new(
            500,
            "InternalError",
            format!("Internal error occurred: {message}"),
        )
    }

    pub fn to_status(&self) -> Value {
        let mut s = json!({
            "kind": "Status", "apiVersion": "v1", "metadata": self.metadata,
            "status": "Failure", "message": self.message, "reason": self.reason, "code": self.code,
        });
        // kube-apiserver's internal errors carry no reason at all.
        if self.reason.is_empty() {
            s.as_object_mut().map(|m| m.remove("reason"));
        }
        if let Some(d) = &self.details {
            s["details"] = (**d).clone();
        }
        s
    }
}

fn details(name: &str, group: &str, resource: &str) -> Value {
    let mut d = json!({ "name": name, "group": group, "kind": resource });
    strip_empty(&mut d);
    d
}

fn strip_empty(v: &mut Value) {
    if let Some(m) = v.as_object_mut() {
        m.retain(|_, x| !(x.as_str() == Some("") || x.as_array().is_some_and(|a| a.is_empty())));
    }
}

fn causes_json(causes: &[Cause]) -> Value {
    Value::Array(
        causes
            .iter()
            .map(|c| json!({"reason": c.reason, "message": c.message, "field": c.field}))
            .collect(),
    )
}

/// Success Status, e.g. the body of a DELETE that does not return the object.
pub fn success_status(details: Value, code: Option<u16>) -> Value {
    let mut s = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"});
    if !details.is_null() {
        s["details"] = details;
    }
    if let Some(c) = code {
        s["code"] = json!(c);
    }
    s
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.reason, self.code, self.message)
    }
}

impl std::error::Error for ApiError {}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let code = StatusCode::from_u16(self.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let body = self.to_status().to_string();
        let mut resp = (code, body).into_response();
        resp.headers_mut().insert(
            axum::http::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        // As apiserver's response writers do: a Status asking to wait says so in the header
        // too, which is what clients honour.
        let retry_after = self
            .details
            .as_ref()
            .and_then(|d| d["retryAfterSeconds"].as_u64());
        if let Some(seconds) = retry_after.filter(|s| *s > 0) {
            resp.headers_mut()
                .insert(axum::http::header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        resp
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
