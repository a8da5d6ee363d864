//! Service account tokens (`serviceaccounts/token`, `kubectl create token`): JWTs shaped as
//! kube-apiserver's (issuer, audiences, expiry, the `kubernetes.io` claim), unsigned, since
//! nothing here checks signatures. A TokenReview of one names its service account.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::{json, Value};

use super::Registry;
use crate::errors::{ApiError, ApiResult, Cause};

pub const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";
/// Audiences of a token whose request names none (kube-apiserver's `--api-audiences`).
pub const API_AUDIENCES: &[&str] = &[ISSUER];
/// kube-apiserver's default and minimum token lifetimes.
const DEFAULT_EXPIRATION_SECONDS: i64 = 3600;
const MIN_EXPIRATION_SECONDS: i64 = 600;

impl Registry {
    /// `serviceaccounts/token`: a token for the service account, which must exist.
    pub fn create_token(
        &self,
        namespace: &str,
        account: &str,
        request: &Value,
    ) -> ApiResult<Value> {
        let def = self
            .builtin("", "serviceaccounts")
            .ok_or_else(ApiError::path_not_found)?;
        let stored = self.get(&def, namespace, account)?;
        issue(&stored, namespace, request)
    }
}

/// The TokenRequest answer for service account `account` (its stored object) in `namespace`.
pub fn issue(account: &Value, namespace: &str, request: &Value) -> ApiResult<Value> {
    let spec = &request["spec"];
    let seconds = spec["expirationSeconds"]
        .as_i64()
        .unwrap_or(DEFAULT_EXPIRATION_SECONDS);
    if seconds < MIN_EXPIRATION_SECONDS {
        return Err(ApiError::invalid(
            "authentication.k8s.io",
            "TokenRequest",
            "",
            vec![Cause::invalid(
                "spec.expirationSeconds",
                &seconds.to_string(),
                "may not specify a duration less than 10 minutes",
            )],
        ));
    }
    let audiences = match spec["audiences"].as_array() {
        Some(named) if !named.is_empty() => Value::Array(named.clone()),
        _ => json!(API_AUDIENCES),
    };
    let name = account["metadata"]["name"].as_str().unwrap_or_default();
    let now = chrono::Utc::now();
    let expires = now + chrono::Duration::seconds(seconds);
    let claims = json!({
        "aud": audiences,
        "exp": expires.timestamp(),
        "iat": now.timestamp(),
        "nbf": now.timestamp(),
        "iss": ISSUER,
        "sub": format!("system:serviceaccount:{namespace}:{name}"),
        "kubernetes.io": {"namespace": namespace,
            "serviceaccount": {"name": name, "uid": account["metadata"]["uid"]}},
    });
    let part = |v: &Value| URL_SAFE_NO_PAD.encode(v.to_string());
    let token = format!(
        "{}.{}.{}",
        part(&json!({"alg": "none", "typ": "JWT"})),
        part(&claims),
        URL_SAFE_NO_PAD.encode("unsigned")
    );
    Ok(json!({
        "apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
        "metadata": {"name": name, "namespace": namespace,
                     "creationTimestamp": now.format("%Y-%m-%dT%H:%M:%SZ").to_string()},
        "spec": {"audiences": audiences, "expirationSeconds": seconds,
                 "boundObjectRef": spec.get("boundObjectRef").cloned().unwrap_or(Value::Null)},
        "status": {"token": token,
                   "expirationTimestamp": expires.format("%Y-%m-%dT%H:%M:%SZ").to_string()},
    }))
}

/// The service account a token issued here names (namespace, name, uid), if it is one.
pub fn service_account_of(token: &str) -> Option<(String, String, String)> {
    let payload = token.split('.').nth(1)?;
    let claims: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).ok()?).ok()?;
    let k8s = &claims["kubernetes.io"];
    Some((
        k8s["namespace"].as_str()?.to_string(),
        k8s["serviceaccount"]["name"].as_str()?.to_string(),
        k8s["serviceaccount"]["uid"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    ))
}
