//! What `--oidc-*` and `--impersonate` ask for.

use std::path::PathBuf;

use super::impersonation::ImpersonationConfig;

/// How kube-atlas signs users in with an OIDC issuer (the `--oidc-*` flags).
#[derive(Debug, Clone)]
pub struct OidcConfig {
    /// The issuer, as kube-apiserver's `--oidc-issuer-url` names it.
    pub issuer_url: String,
    pub client_id: String,
    /// Never printed (`Debug` of the config shows `(hidden)`).
    pub client_secret: Option<HiddenText>,
    /// Besides `openid` (e.g. `profile`, `email`, `groups`, `offline_access`).
    pub scopes: Vec<String>,
    /// The CA of the issuer's certificate; the system's roots without one.
    pub ca_file: Option<PathBuf>,
    /// Where the issuer sends the browser back; derived from the request's Host without one.
    pub redirect_url: Option<String>,
    /// Requests go as kube-atlas's ServiceAccount impersonating the user (`--impersonate`),
    /// for a cluster that does not take the issuer's tokens.
    pub impersonate: Option<ImpersonationConfig>,
}

/// A secret whose `Debug` shows nothing.
#[derive(Clone)]
pub struct HiddenText(pub String);

impl std::fmt::Debug for HiddenText {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("(hidden)")
    }
}
