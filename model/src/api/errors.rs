//! Errors of talking to the API server, in terms a user can act on. Pure, so the wording and
//! the classification are tested natively.

use serde::Deserialize;

/// Why a request failed, in terms a user can act on.
#[derive(Debug, Clone, PartialEq)]
pub enum ApiError {
    /// The request never got an HTTP answer (proxy not running, network down).
    Unreachable(String),
    /// An HTTP error; `message` comes from the Kubernetes Status when there is one.
    Status {
        code: u16,
        reason: Option<String>,
        message: String,
        /// The Status's details (the object, the causes per field, Retry-After), kept whole
        /// so a view can show each cause beside its field.
        details: Option<Box<StatusDetails>>,
    },
    /// The view that asked went away and the request was cancelled: nothing to show.
    Aborted,
}

/// `Status.details` of a failed request.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StatusDetails {
    pub name: Option<String>,
    pub group: Option<String>,
    pub kind: Option<String>,
    pub uid: Option<String>,
    pub causes: Vec<StatusCause>,
    pub retry_after_seconds: Option<u32>,
}

/// One cause of a failure, often naming the field (`spec.replicas`) it is about.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StatusCause {
    pub reason: Option<String>,
    pub message: Option<String>,
    pub field: Option<String>,
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApiError::Unreachable(detail) => write!(
                f,
                "the API server could not be reached ({detail}); is `kubectl proxy` running?"
            ),
            ApiError::Status {
                code,
                reason,
                message,
                ..
            } => match reason {
                Some(reason) => write!(f, "{code} {reason}: {message}"),
                None => write!(f, "HTTP {code}: {message}"),
            },
            ApiError::Aborted => write!(f, "the request was cancelled"),
        }
    }
}

impl ApiError {
    /// Turns an error body into a readable error: a Kubernetes Status when it is one.
    pub fn from_response(code: u16, body: &str) -> ApiError {
        let parsed: Option<serde_json::Value> = serde_json::from_str(body).ok();
        let status = parsed
            .as_ref()
            .filter(|v| v.get("kind").and_then(|k| k.as_str()) == Some("Status"));
        match status {
            Some(status) => ApiError::Status {
                code,
                reason: status
                    .get("reason")
                    .and_then(|r| r.as_str())
                    .map(str::to_string),
                message: status
                    .get("message")
                    .and_then(|m| m.as_str())
                    .unwrap_or("")
                    .to_string(),
                // Details that do not parse are dropped, never the error itself.
                details: status
                    .get("details")
                    .and_then(|d| serde_json::from_value(d.clone()).ok())
                    .map(Box::new),
            },
            None => ApiError::Status {
                code,
                reason: None,
                message: summarize_foreign_body(body),
                details: None,
            },
        }
    }

    /// An error of our own about an answer that came back (e.g. a body that is not JSON).
    pub fn bad_response(code: u16, message: impl Into<String>) -> ApiError {
        ApiError::Status {
            code,
            reason: None,
            message: message.into(),
            details: None,
        }
    }

    /// The HTTP status, if an answer came back.
    pub fn code(&self) -> Option<u16> {
        match self {
            ApiError::Status { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// The Status reason (`Conflict`, `Expired`, `Invalid`...).
    pub fn reason(&self) -> Option<&str> {
        match self {
            ApiError::Status { reason, .. } => reason.as_deref(),
            _ => None,
        }
    }

    /// The per-field causes (a 422's validation errors, a 409's apply conflicts).
    pub fn causes(&self) -> &[StatusCause] {
        match self {
            ApiError::Status {
                details: Some(details),
                ..
            } => &details.causes,
            _ => &[],
        }
    }

    /// 410 Gone: a resourceVersion or continue token too old to resume from.
    pub fn is_expired(&self) -> bool {
        self.code() == Some(410)
    }

    /// 409 Conflict: someone else wrote the object first (or an apply field conflict).
    pub fn is_conflict(&self) -> bool {
        self.code() == Some(409)
    }

    pub fn is_aborted(&self) -> bool {
        matches!(self, ApiError::Aborted)
    }
}

/// What to say of an answer that is not a Kubernetes Status: a proxy's or load balancer's
/// HTML error page is named by its title or first heading (never its markup), other text is
/// cut to one short line without control characters.
fn summarize_foreign_body(body: &str) -> String {
    const LIMIT: usize = 200;
    let trimmed = body.trim_start();
    let lower = trimmed
        .get(..trimmed.len().min(512))
        .unwrap_or("")
        .to_ascii_lowercase();
    let looks_like_html = lower.starts_with("<!doctype html")
        || lower.starts_with("<html")
        || lower.contains("<body");
    if looks_like_html {
        let heading = ["title", "h1"]
            .iter()
            .find_map(|tag| element_text(trimmed, tag))
            .filter(|t| !t.is_empty());
        return match heading {
            Some(heading) => format!("an HTML page, not a Kubernetes Status: “{heading}”"),
            None => "an HTML page, not a Kubernetes Status".to_string(),
        };
    }
    let one_line: String = trimmed
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(LIMIT)
        .collect();
    one_line.trim_end().to_string()
}

/// The text inside the first `<tag>` of an HTML document, tags inside it dropped.
fn element_text(html: &str, tag: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let open = lower.find(&format!("<{tag}"))?;
    let start = open + lower[open..].find('>')? + 1;
    let end = start + lower[start..].find(&format!("</{tag}"))?;
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.get(start..end)?.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => text.push(if c.is_control() { ' ' } else { c }),
            _ => {}
        }
    }
    Some(
        text.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .take(120)
            .collect(),
    )
}

/// Why discovery could not be loaded at all (a partial failure is in `Discovery::errors`).
#[derive(Debug, Clone, PartialEq)]
pub enum DiscoveryLoadError {
    Unreachable(String),
    NotKubernetes(String),
    Forbidden(String),
    Failed(String),
}

impl std::fmt::Display for DiscoveryLoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DiscoveryLoadError::Unreachable(d) => write!(
                f,
                "Cannot reach the Kubernetes API on this origin: {d}. Start `kubectl proxy` \
                 (or `cargo xtask demo`) and serve this page from it."
            ),
            DiscoveryLoadError::NotKubernetes(d) => write!(
                f,
                "This origin does not look like a Kubernetes API server: {d}"
            ),
            DiscoveryLoadError::Forbidden(d) => write!(
                f,
                "The API server refused discovery (check your credentials or RBAC): {d}"
            ),
            DiscoveryLoadError::Failed(d) => write!(f, "Discovery failed: {d}"),
        }
    }
}

/// What a failed discovery request means for the user.
pub fn classify_discovery_failure(path: &str, error: ApiError) -> DiscoveryLoadError {
    match error {
        ApiError::Unreachable(d) => DiscoveryLoadError::Unreachable(d),
        ApiError::Status {
            code: 401 | 403, ..
        } => DiscoveryLoadError::Forbidden(format!("{path}: {error}")),
        // A proxy (kubectl proxy, an ingress) answering for an API server it cannot reach:
        // a gateway error, or any 5xx whose body is not a Kubernetes Status.
        ApiError::Status {
            code: 502..=504, ..
        }
        | ApiError::Status {
            code: 500..=599,
            reason: None,
            ..
        } => DiscoveryLoadError::Unreachable(format!("{path}: {error}")),
        ApiError::Status { code: 404, .. } => {
            DiscoveryLoadError::NotKubernetes(format!("{path} answered 404"))
        }
        ApiError::Status { code, .. } if code >= 500 => {
            DiscoveryLoadError::Failed(format!("{path}: {error}"))
        }
        other => DiscoveryLoadError::Failed(format!("{path}: {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubernetes_status_bodies_keep_reason_and_message() {
        let body = r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"x\" is forbidden","reason":"Forbidden","code":403}"#;
        let error = ApiError::from_response(403, body);
        assert_eq!(
            error,
            ApiError::Status {
                code: 403,
                reason: Some("Forbidden".into()),
                message: "pods \"x\" is forbidden".into(),
                details: None,
            }
        );
        assert_eq!(error.to_string(), "403 Forbidden: pods \"x\" is forbidden");
    }

    #[test]
    fn status_details_and_causes_are_kept() {
        // As kube-apiserver answers an invalid Deployment (422).
        let body = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
            "message":"Deployment.apps \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0",
            "reason":"Invalid","details":{"name":"web","group":"apps","kind":"Deployment",
            "causes":[{"reason":"FieldValueInvalid","message":"Invalid value: -1: must be greater than or equal to 0","field":"spec.replicas"}]},
            "code":422}"#;
        let error = ApiError::from_response(422, body);
        assert_eq!(error.code(), Some(422));
        assert_eq!(error.reason(), Some("Invalid"));
        let causes = error.causes();
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field.as_deref(), Some("spec.replicas"));
        assert_eq!(causes[0].reason.as_deref(), Some("FieldValueInvalid"));
        let ApiError::Status {
            details: Some(details),
            ..
        } = &error
        else {
            panic!("details kept: {error:?}");
        };
        assert_eq!(details.kind.as_deref(), Some("Deployment"));
        assert_eq!(details.name.as_deref(), Some("web"));
        // Throttling carries Retry-After in the details.
        let throttled = ApiError::from_response(
            429,
            r#"{"kind":"Status","reason":"TooManyRequests","message":"slow down","details":{"retryAfterSeconds":3}}"#,
        );
        let ApiError::Status {
            details: Some(details),
            ..
        } = &throttled
        else {
            panic!("details kept: {throttled:?}");
        };
        assert_eq!(details.retry_after_seconds, Some(3));
        let expired = ApiError::from_response(
            410,
            r#"{"kind":"Status","reason":"Expired","message":"too old resource version"}"#,
        );
        assert!(expired.is_expired() && !expired.is_conflict());
        assert!(ApiError::from_response(409, "{}").is_conflict());
        // Details of the wrong shape lose only the details.
        let odd = ApiError::from_response(
            500,
            r#"{"kind":"Status","reason":"InternalError","message":"x","details":"nope"}"#,
        );
        assert_eq!(odd.reason(), Some("InternalError"));
        assert!(odd.causes().is_empty());
    }

    #[test]
    fn discovery_failures_are_told_apart() {
        let unreachable = classify_discovery_failure(
            "/api",
            ApiError::Unreachable("TypeError: Failed to fetch".into()),
        );
        assert!(matches!(unreachable, DiscoveryLoadError::Unreachable(_)));
        // kubectl proxy in front of a dead API server answers 500 with plain text.
        let proxy =
            ApiError::from_response(500, "dial tcp 127.0.0.1:9: connect: connection refused");
        assert!(matches!(
            classify_discovery_failure("/api", proxy),
            DiscoveryLoadError::Unreachable(_)
        ));
        let gateway = ApiError::from_response(502, "Bad Gateway");
        assert!(matches!(
            classify_discovery_failure("/api", gateway),
            DiscoveryLoadError::Unreachable(_)
        ));
        let forbidden = ApiError::from_response(
            403,
            r#"{"kind":"Status","reason":"Forbidden","message":"no"}"#,
        );
        let forbidden = classify_discovery_failure("/apis", forbidden);
        assert!(matches!(forbidden, DiscoveryLoadError::Forbidden(_)));
        assert!(forbidden.to_string().contains("refused discovery"));
        let not_found = ApiError::from_response(404, "<html>Not Found</html>");
        let not_found = classify_discovery_failure("/api", not_found);
        assert!(matches!(not_found, DiscoveryLoadError::NotKubernetes(_)));
        assert!(not_found
            .to_string()
            .contains("does not look like a Kubernetes API server"));
        // A Status 500 comes from the API server itself: not an unreachable server.
        let internal = ApiError::from_response(
            500,
            r#"{"kind":"Status","reason":"InternalError","message":"boom"}"#,
        );
        assert!(matches!(
            classify_discovery_failure("/api", internal),
            DiscoveryLoadError::Failed(_)
        ));
    }

    #[test]
    fn answers_from_a_proxy_are_named_not_echoed() {
        let page = "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\
            <body><h1>Bad <b>Gateway</b></h1><script>alert(1)</script></body></html>";
        let error = ApiError::from_response(502, page);
        assert_eq!(error.code(), Some(502));
        let text = error.to_string();
        assert!(
            text.contains("an HTML page, not a Kubernetes Status: “502 Bad Gateway”"),
            "{text}"
        );
        assert!(!text.contains('<'), "{text}");
        let headed = ApiError::from_response(
            503,
            "<html><body><h1>Service\nUnavailable</h1></body></html>",
        );
        assert!(
            headed.to_string().contains("“Service Unavailable”"),
            "{headed}"
        );
        // Plain text: one short line, control characters gone.
        let plain = ApiError::from_response(
            500,
            &format!("upstream\u{1b}[31m reset\n{}", "x".repeat(500)),
        );
        let text = plain.to_string();
        assert!(!text.chars().any(char::is_control), "{text:?}");
        assert!(text.chars().count() < 260, "{}", text.len());
    }
}
