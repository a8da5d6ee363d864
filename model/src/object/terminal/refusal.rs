//! Why a terminal request was refused, in the user's terms: `kubectl proxy`'s default
//! refusal of exec and attach, RBAC naming the permission, a pod or container that is gone.

use super::request::PodSubresource;
use crate::api::errors::ApiError;

/// What a refused terminal request (the plain GET after a failed handshake) means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestRefusal {
    /// `kubectl proxy` rejects the exec and attach paths unless started with other
    /// `--reject-paths` (its default is `^/api/.*/pods/.*/exec,^/api/.*/pods/.*/attach`). It
    /// answers 403 with the bare text `Forbidden`, where kube-apiserver sends a Status.
    ProxyRejectsPath,
    /// RBAC said no: the permission it lacks, and the server's words.
    Forbidden { permission: String, message: String },
    /// The pod (or the container) is not there: the server's words.
    NotFound(String),
    /// Anything else, in the server's words.
    Other(String),
}

/// The bare body `kubectl proxy` answers a rejected path with (recorded from kubectl v1.32).
const PROXY_REJECTION_BODY: &str = "Forbidden";

/// Reads a refused terminal request's error.
pub fn explain_refusal(sub: PodSubresource, namespace: &str, error: &ApiError) -> RequestRefusal {
    match error {
        // A Status from kube-apiserver always has a reason; the proxy's bare text has none.
        ApiError::Status {
            code: 403,
            reason: None,
            message,
            ..
        } if message.trim() == PROXY_REJECTION_BODY => RequestRefusal::ProxyRejectsPath,
        ApiError::Status {
            code: 403, message, ..
        } => RequestRefusal::Forbidden {
            permission: format!(
                "{} pods/{} in namespace {namespace}",
                rbac_verb(sub),
                sub.name()
            ),
            message: message.clone(),
        },
        ApiError::Status {
            code: 404, message, ..
        } => RequestRefusal::NotFound(message.clone()),
        other => RequestRefusal::Other(other.to_string()),
    }
}

/// The verb RBAC checks: the exec and attach handshakes are authorized as `create` (and
/// `get` before v1.31), adding a debug container as `patch`.
fn rbac_verb(sub: PodSubresource) -> &'static str {
    match sub {
        PodSubresource::Exec | PodSubresource::Attach => "create",
        PodSubresource::EphemeralContainers => "patch",
    }
}

impl RequestRefusal {
    /// One or two sentences to show where the terminal would be.
    pub fn sentence(&self) -> String {
        match self {
            RequestRefusal::ProxyRejectsPath => "kubectl proxy refuses exec and attach by default \
                 (its --reject-paths). Start it as `kubectl proxy --reject-paths='^$'` to allow \
                 them, or open the dashboard through kube-atlas, which passes them."
                .to_string(),
            RequestRefusal::Forbidden {
                permission,
                message,
            } => format!("You may not {permission}: {message}"),
            RequestRefusal::NotFound(message) => format!("Not found: {message}"),
            RequestRefusal::Other(message) => message.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bare_forbidden_of_kubectl_proxy_is_told_from_rbac() {
        // kubectl proxy's answer to a rejected path: 403, text/plain, "Forbidden\n".
        let proxy = ApiError::from_response(403, "Forbidden\n");
        assert_eq!(
            explain_refusal(PodSubresource::Exec, "default", &proxy),
            RequestRefusal::ProxyRejectsPath
        );
        assert!(RequestRefusal::ProxyRejectsPath
            .sentence()
            .contains("--reject-paths"));
        // kube-apiserver's RBAC refusal (recorded, v1.36).
        let rbac = ApiError::from_response(
            403,
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"web-1\" is forbidden: User \"viewer\" cannot create resource \"pods/exec\" in API group \"\" in the namespace \"shop\"","reason":"Forbidden","details":{"name":"web-1","kind":"pods"},"code":403}"#,
        );
        let refusal = explain_refusal(PodSubresource::Exec, "shop", &rbac);
        assert!(
            matches!(&refusal, RequestRefusal::Forbidden { permission, .. } if permission == "create pods/exec in namespace shop"),
            "{refusal:?}"
        );
        assert!(refusal.sentence().starts_with(
            "You may not create pods/exec in namespace shop: pods \"web-1\" is forbidden"
        ));
        let attach = explain_refusal(PodSubresource::Attach, "shop", &rbac);
        assert!(attach.sentence().contains("create pods/attach"));
    }

    #[test]
    fn a_missing_pod_and_other_errors_keep_the_servers_words() {
        let gone = ApiError::from_response(
            404,
            r#"{"kind":"Status","status":"Failure","message":"pods \"web-1\" not found","reason":"NotFound","code":404}"#,
        );
        assert_eq!(
            explain_refusal(PodSubresource::Exec, "default", &gone).sentence(),
            "Not found: pods \"web-1\" not found"
        );
        let busy = ApiError::from_response(
            500,
            r#"{"kind":"Status","status":"Failure","message":"etcd is sad","reason":"InternalError","code":500}"#,
        );
        assert!(explain_refusal(PodSubresource::Exec, "default", &busy)
            .sentence()
            .contains("etcd is sad"));
    }
}
