//! Signing in with an OIDC issuer (issue #51): the authorization code flow with PKCE, as
//! kube-atlas's own confidential client. `GET /kube-atlas/oidc/start` keeps a state, a nonce
//! and a PKCE verifier server-side (a few minutes, bound to the browser by a cookie) and sends
//! the browser to the issuer; `GET /kube-atlas/oidc/callback` takes them back (once), exchanges
//! the code, checks the ID token (signature from the issuer's keys, issuer, audience, expiry,
//! nonce), asks the cluster who that token is (the SelfSubjectReview the token sign-in asks)
//! and makes the same server-side session. The ID token is the session's bearer (kube-apiserver
//! started with the same `--oidc-issuer-url` and client id takes it); [`renewal`] refreshes it
//! before it expires. The page never sees a token: only redirects and a session cookie.

mod config;
pub mod impersonation;
pub mod issuer_client;
mod pending;
pub mod renewal;

use std::sync::Arc;

use axum::response::Response;
use http::{header, StatusCode};
use openidconnect::core::{CoreAuthenticationFlow, CoreClient, CoreProviderMetadata};
use openidconnect::{
    AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointMaybeSet, EndpointNotSet,
    EndpointSet, IssuerUrl, Nonce, OAuth2TokenResponse, PkceCodeChallenge, RedirectUrl, Scope,
    TokenResponse,
};
use serde::Deserialize;

use crate::contexts::{ContextSlot, Timeouts};
use crate::session::{BearerToken, Identity, Impersonation, Sessions};
use crate::sign_in;
pub use config::{HiddenText, OidcConfig};
use issuer_client::IssuerClient;
use pending::{PendingLogin, PendingLogins};

pub const START_PATH: &str = "/kube-atlas/oidc/start";
pub const CALLBACK_PATH: &str = "/kube-atlas/oidc/callback";

/// The client as discovery makes it: an authorization endpoint always, a token endpoint
/// maybe (checked when used).
pub type DiscoveredClient = CoreClient<
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointMaybeSet,
    EndpointMaybeSet,
>;

/// OIDC sign-in for one kube-atlas.
pub struct Oidc {
    config: OidcConfig,
    http: IssuerClient,
    /// Discovered on first use and kept: an issuer down while kube-atlas starts is asked
    /// again at the next sign-in.
    client: tokio::sync::Mutex<Option<Arc<DiscoveredClient>>>,
    pending: PendingLogins,
    /// `Secure` cookies (behind TLS), and https in a derived redirect URL.
    secure: bool,
}

#[derive(Deserialize)]
struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

impl Oidc {
    pub fn new(config: OidcConfig, secure: bool) -> Result<Oidc, String> {
        IssuerUrl::new(config.issuer_url.clone())
            .map_err(|error| format!("--oidc-issuer-url {}: {error}", config.issuer_url))?;
        if let Some(url) = &config.redirect_url {
            RedirectUrl::new(url.clone())
                .map_err(|error| format!("--oidc-redirect-url {url}: {error}"))?;
        }
        let http = IssuerClient::new(config.ca_file.as_deref())?;
        Ok(Oidc {
            config,
            http,
            client: tokio::sync::Mutex::new(None),
            pending: PendingLogins::default(),
            secure,
        })
    }

    /// The issuer's name on the sign-in page's button.
    pub fn issuer_label(&self) -> &str {
        let url = self.config.issuer_url.as_str();
        let without_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
        without_scheme.trim_end_matches('/')
    }

    /// The client from the issuer's discovery document (fetched once, then kept).
    pub async fn client(&self) -> Result<Arc<DiscoveredClient>, String> {
        let mut held = self.client.lock().await;
        if let Some(client) = held.as_ref() {
            return Ok(client.clone());
        }
        let issuer = IssuerUrl::new(self.config.issuer_url.clone()).map_err(|e| e.to_string())?;
        let metadata = CoreProviderMetadata::discover_async(issuer, &self.http)
            .await
            .map_err(|error| issuer_client::describe_discovery_error(&error))?;
        let client = Arc::new(CoreClient::from_provider_metadata(
            metadata,
            ClientId::new(self.config.client_id.clone()),
            self.config
                .client_secret
                .as_ref()
                .map(|secret| ClientSecret::new(secret.0.clone())),
        ));
        *held = Some(client.clone());
        Ok(client)
    }

    /// Drops the discovered client, so the next use fetches discovery and the keys again: an
    /// ID token that does not verify may be signed with a key the issuer rotated in since.
    pub(crate) async fn forget_keys(&self) {
        *self.client.lock().await = None;
    }

    pub(crate) fn http(&self) -> &IssuerClient {
        &self.http
    }

    fn redirect_url(&self, host: Option<&str>) -> Option<RedirectUrl> {
        let url = match (&self.config.redirect_url, host) {
            (Some(url), _) => url.clone(),
            (None, Some(host)) => {
                let scheme = if self.secure { "https" } else { "http" };
                format!("{scheme}://{host}{CALLBACK_PATH}")
            }
            (None, None) => return None,
        };
        RedirectUrl::new(url).ok()
    }

    /// `GET /kube-atlas/oidc/start`: to the issuer, with a fresh state, nonce and PKCE
    /// challenge; their other halves stay here.
    pub async fn start(&self, host: Option<&str>) -> Response {
        let client = match self.client().await {
            Ok(client) => client,
            Err(problem) => return self.page(StatusCode::BAD_GATEWAY, &problem),
        };
        let Some(redirect) = self.redirect_url(host) else {
            let problem =
                "kube-atlas cannot tell its own address (no Host header): set --oidc-redirect-url.";
            return self.page(StatusCode::BAD_REQUEST, problem);
        };
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = client
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                CsrfToken::new_random,
                Nonce::new_random,
            )
            .set_pkce_challenge(challenge)
            .set_redirect_uri(std::borrow::Cow::Owned(redirect.clone()));
        for scope in &self.config.scopes {
            request = request.add_scope(Scope::new(scope.clone()));
        }
        let (url, state, nonce) = request.url();
        let binding = self.pending.insert(PendingLogin::new(
            state.secret().clone(),
            verifier,
            nonce,
            redirect,
        ));
        let Some(binding) = binding else {
            let problem = "Too many sign-ins are under way; try again in a minute.";
            return self.page(StatusCode::SERVICE_UNAVAILABLE, problem);
        };
        sign_in::see_other(
            url.as_str(),
            Some(self.pending.cookie(&binding, self.secure)),
        )
    }

    /// `GET /kube-atlas/oidc/callback?code&state`: the session, or the sign-in page saying
    /// what went wrong (never a blank page, never straight back to the issuer).
    pub async fn callback(
        self: &Arc<Self>,
        sessions: &Sessions,
        slot: &ContextSlot,
        timeouts: Timeouts,
        query: Option<&str>,
        headers: &http::HeaderMap,
    ) -> Response {
        let query = query.unwrap_or_default();
        let Ok(query) = serde_urlencoded::from_str::<CallbackQuery>(query) else {
            return self.page(
                StatusCode::BAD_REQUEST,
                "The issuer's answer could not be read.",
            );
        };
        // Taken once: a replayed callback, another browser's state or an old one finds nothing.
        let binding = self.pending.binding_in(headers, self.secure);
        let login = query
            .state
            .as_deref()
            .and_then(|state| self.pending.take(state, binding.as_deref()));
        let Some(login) = login else {
            // Also for an error: a link to this path must not put its words on kube-atlas's page.
            let problem = "This sign-in was not started here, or took too long: sign in again.";
            return self.page(StatusCode::BAD_REQUEST, problem);
        };
        if let Some(error) = &query.error {
            let problem = format!(
                "The issuer did not sign you in ({error}{}).",
                query
                    .error_description
                    .as_deref()
                    .map(|text| format!(": {text}"))
                    .unwrap_or_default()
            );
            return self.page(StatusCode::UNAUTHORIZED, &problem);
        }
        let Some(code) = query.code else {
            return self.page(
                StatusCode::BAD_REQUEST,
                "The issuer's answer holds no code.",
            );
        };
        match self.finish(sessions, slot, timeouts, code, login).await {
            Ok(cookie) => {
                let mut response = sign_in::see_other("/", Some(cookie));
                if let Ok(removing) = self.pending.removing_cookie(self.secure).parse() {
                    response.headers_mut().append(header::SET_COOKIE, removing);
                }
                response
            }
            Err(problem) => self.page(StatusCode::UNAUTHORIZED, &problem),
        }
    }

    /// The code exchanged (with the PKCE verifier), the ID token checked, the cluster asked:
    /// the new session's cookie, or why not in words.
    async fn finish(
        self: &Arc<Self>,
        sessions: &Sessions,
        slot: &ContextSlot,
        timeouts: Timeouts,
        code: String,
        login: PendingLogin,
    ) -> Result<String, String> {
        let client = self.client().await?;
        let exchange = client
            .exchange_code(AuthorizationCode::new(code))
            .map_err(|_| "The issuer names no token endpoint.".to_string())?
            .set_pkce_verifier(login.verifier)
            .set_redirect_uri(std::borrow::Cow::Owned(login.redirect));
        let answer = exchange.request_async(&self.http).await.map_err(|error| {
            format!(
                "The issuer refused the sign-in: {}",
                renewal::describe(&error)
            )
        })?;
        let id_token = answer
            .id_token()
            .ok_or_else(|| "The issuer sent no ID token.".to_string())?;
        let verified = id_token.claims(&client.id_token_verifier(), &login.nonce);
        if verified.is_err() {
            self.forget_keys().await;
        }
        let claims = verified
            .map_err(|error| format!("The issuer's ID token is not valid here: {error}."))?;
        let grant = renewal::Grant::new(claims, answer.refresh_token().cloned());
        let id_token = id_token.to_string();
        let token = BearerToken::parse(&id_token)
            .ok_or_else(|| "The ID token cannot be sent as a bearer token.".to_string())?;
        let (identity, impersonation) = self.who(slot, timeouts, &token, &id_token).await?;
        let (id, session) = sessions
            .start_with(identity, token, impersonation)
            .ok_or_else(|| {
                "kube-atlas could not make a session (no randomness from the system).".to_string()
            })?;
        tokio::spawn(renewal::keep_fresh(self.clone(), session, grant));
        Ok(sessions.cookie(&id))
    }

    /// Who the signed-in user is for the cluster: its answer to a SelfSubjectReview made with
    /// the ID token, or with `--impersonate` the claims' user and groups, once the cluster has
    /// let kube-atlas act as them.
    async fn who(
        &self,
        slot: &ContextSlot,
        timeouts: Timeouts,
        token: &BearerToken,
        id_token: &str,
    ) -> Result<(Identity, Option<Impersonation>), String> {
        let Some(config) = &self.config.impersonate else {
            let identity = sign_in::review(slot, timeouts, token)
                .await
                .map_err(|problem| {
                    format!(
                        "{problem} (kube-apiserver takes ID tokens of {} only when started with \
                     --oidc-issuer-url and --oidc-client-id naming them.)",
                        self.issuer_label()
                    )
                })?;
            return Ok((identity, None));
        };
        let identity = impersonation::identity_from_claims(id_token, config)?;
        let impersonation = Impersonation {
            token_file: config.token_file.clone(),
        };
        let credentials = impersonation.credentials(&identity).ok_or_else(|| {
            "kube-atlas cannot read its ServiceAccount's token to act for you.".to_string()
        })?;
        sign_in::review_as(slot, timeouts, credentials)
            .await
            .map_err(|problem| {
                format!(
                    "kube-atlas may not act as {} here: {problem} (its ServiceAccount may \
                     impersonate only the users and groups it is allowed to.)",
                    identity.user
                )
            })?;
        Ok((identity, Some(impersonation)))
    }

    fn page(&self, status: StatusCode, problem: &str) -> Response {
        sign_in::page(status, Some(problem), Some(self.issuer_label()))
    }
}
