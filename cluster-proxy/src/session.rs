//! Users signed in as themselves: server-side sessions, each holding the user's bearer token
//! and who the API server says the user is. The browser holds only an opaque random id in an
//! HttpOnly cookie; the token never goes back to it (no response body, header or log line
//! carries it), so the page's JavaScript cannot read it and a cookie copied after sign-out opens
//! nothing. An OIDC session's token is replaced when it is refreshed (`crate::oidc::renewal`):
//! requests made after use the new one, streams opened before go on as they were authorized.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use base64::Engine;
use http::{HeaderName, HeaderValue};
use serde::Serialize;
use tokio::sync::{watch, OwnedSemaphorePermit, Semaphore};

/// The session cookie's name; with `Secure` the `__Host-` prefix makes the browser refuse it
/// from a subdomain or for another path.
pub const COOKIE_NAME: &str = "kube-atlas-session";
const SECURE_COOKIE_NAME: &str = "__Host-kube-atlas-session";

/// How sessions live.
#[derive(Debug, Clone, Copy)]
pub struct SessionConfig {
    /// A session unused this long ends.
    pub idle: Duration,
    /// A session ends this long after sign-in, used or not.
    pub absolute: Duration,
    /// `Secure` cookies (behind TLS): the browser sends them over HTTPS only.
    pub secure_cookies: bool,
    /// Long-running requests (watches, followed logs, terminals) one session may hold at once.
    pub max_streams: usize,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            idle: Duration::from_secs(60 * 60),
            absolute: Duration::from_secs(12 * 60 * 60),
            secure_cookies: false,
            max_streams: 64,
        }
    }
}

/// A user's bearer token. Its `Debug` shows nothing of it, so no log of a session leaks it.
#[derive(Clone)]
pub struct BearerToken(String);

impl std::fmt::Debug for BearerToken {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("BearerToken(hidden)")
    }
}

impl BearerToken {
    /// A pasted token, trimmed; `None` when empty or not fit for a header.
    pub fn parse(pasted: &str) -> Option<BearerToken> {
        let token = pasted.trim();
        let token = token.strip_prefix("Bearer ").unwrap_or(token).trim();
        let fits = !token.is_empty() && token.bytes().all(|byte| byte.is_ascii_graphic());
        fits.then(|| BearerToken(token.to_string()))
    }

    /// `Authorization: Bearer …`, marked sensitive (HTTP/2 never indexes it).
    pub fn authorization(&self) -> Option<HeaderValue> {
        let mut value = HeaderValue::from_str(&format!("Bearer {}", self.0)).ok()?;
        value.set_sensitive(true);
        Some(value)
    }

    /// The token as a request's only credentials.
    pub fn credentials(&self) -> Option<Credentials> {
        Some(vec![(http::header::AUTHORIZATION, self.authorization()?)])
    }
}

/// The headers that make a request a user's: `Authorization`, and with impersonation
/// `Impersonate-User` and `Impersonate-Group`.
pub type Credentials = Vec<(HeaderName, HeaderValue)>;

/// kube-atlas's own ServiceAccount acting as the signed-in user (`--impersonate`, for clusters
/// that do not take the issuer's tokens): the pod's token, read from its file at each request
/// (the kubelet rotates it), with the user's name and groups as impersonation headers.
#[derive(Debug, Clone)]
pub struct Impersonation {
    pub token_file: std::path::PathBuf,
}

impl Impersonation {
    /// The ServiceAccount's token and `identity` as impersonation headers; `None` when the
    /// token cannot be read or a name cannot be a header.
    pub fn credentials(&self, identity: &Identity) -> Option<Credentials> {
        let token = std::fs::read_to_string(&self.token_file).ok()?;
        let mut credentials = BearerToken::parse(&token)?.credentials()?;
        let mut user = HeaderValue::from_str(&identity.user).ok()?;
        user.set_sensitive(true);
        credentials.push((HeaderName::from_static("impersonate-user"), user));
        for group in &identity.groups {
            let group = HeaderValue::from_str(group).ok()?;
            credentials.push((HeaderName::from_static("impersonate-group"), group));
        }
        Some(credentials)
    }
}

/// Who the API server says the user is (a SelfSubjectReview's `status.userInfo`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Identity {
    pub user: String,
    pub groups: Vec<String>,
}

/// One signed-in user.
#[derive(Debug)]
pub struct Session {
    pub identity: Identity,
    /// Replaced by a refresh; every request reads it when it is sent.
    token: RwLock<BearerToken>,
    /// With impersonation the token only proves the sign-in; requests go as kube-atlas's
    /// ServiceAccount impersonating [`Session::identity`].
    impersonation: Option<Impersonation>,
    signed_in: Instant,
    last_used: Mutex<Instant>,
    streams: Arc<Semaphore>,
    /// Turns true when the session ends: its open streams close.
    ended: watch::Sender<bool>,
}

impl Session {
    /// The bearer token to send now.
    pub fn token(&self) -> BearerToken {
        match self.token.read() {
            Ok(token) => token.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// The headers that make a request this user's, or `None` when they cannot be made (a
    /// request then goes as nobody, never as anyone else: it is refused).
    pub fn credentials(&self) -> Option<Credentials> {
        match &self.impersonation {
            Some(impersonation) => impersonation.credentials(&self.identity),
            None => self.token().credentials(),
        }
    }

    /// Whether requests go as kube-atlas's ServiceAccount impersonating the user (the page's
    /// own `Impersonate-*` headers must then never pass).
    pub fn impersonates(&self) -> bool {
        self.impersonation.is_some()
    }

    /// Sends `token` from now on (a refreshed ID token).
    pub fn replace_token(&self, token: BearerToken) {
        match self.token.write() {
            Ok(mut held) => *held = token,
            Err(poisoned) => *poisoned.into_inner() = token,
        }
    }

    /// Ends the session from the server's side (its token could not be renewed): its streams
    /// close, and the next request made with its id finds no session.
    pub fn end_now(&self) {
        self.ended.send_replace(true);
    }

    /// A permit for one more long-running request, or `None` when the session holds its
    /// limit already.
    pub fn try_stream(&self) -> Option<OwnedSemaphorePermit> {
        self.streams.clone().try_acquire_owned().ok()
    }

    /// Resolves when the session ends (sign-out, expiry seen by a request).
    pub fn ended(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut ended = self.ended.subscribe();
        async move {
            let _ = ended.wait_for(|ended| *ended).await;
        }
    }

    fn expired(&self, config: &SessionConfig, now: Instant) -> bool {
        if *self.ended.borrow() {
            return true;
        }
        let last_used = self.last_used.lock().map_or(self.signed_in, |last| *last);
        now.duration_since(self.signed_in) >= config.absolute
            || now.duration_since(last_used) >= config.idle
    }
}

/// Every live session, by id.
pub struct Sessions {
    pub config: SessionConfig,
    by_id: Mutex<HashMap<String, Arc<Session>>>,
}

impl Sessions {
    pub fn new(config: SessionConfig) -> Sessions {
        Sessions {
            config,
            by_id: Mutex::new(HashMap::new()),
        }
    }

    /// Starts a session; its id (256 random bits) for the cookie, or `None` when the system
    /// gives no randomness.
    pub fn create(&self, identity: Identity, token: BearerToken) -> Option<String> {
        self.start(identity, token).map(|(id, _)| id)
    }

    /// As [`Sessions::create`], with the session itself (for what keeps its token fresh).
    pub fn start(&self, identity: Identity, token: BearerToken) -> Option<(String, Arc<Session>)> {
        self.start_with(identity, token, None)
    }

    /// As [`Sessions::start`], the requests going as kube-atlas impersonating the user when
    /// `impersonation` is given.
    pub fn start_with(
        &self,
        identity: Identity,
        token: BearerToken,
        impersonation: Option<Impersonation>,
    ) -> Option<(String, Arc<Session>)> {
        let mut random = [0u8; 32];
        getrandom::fill(&mut random).ok()?;
        let id = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(random);
        let now = Instant::now();
        let session = Session {
            identity,
            token: RwLock::new(token),
            impersonation,
            signed_in: now,
            last_used: Mutex::new(now),
            streams: Arc::new(Semaphore::new(self.config.max_streams)),
            ended: watch::Sender::new(false),
        };
        let session = Arc::new(session);
        self.by_id.lock().ok()?.insert(id.clone(), session.clone());
        Some((id, session))
    }

    /// The live session of `id`, its idle clock restarted; an expired one is ended.
    pub fn find(&self, id: &str) -> Option<Arc<Session>> {
        let mut by_id = self.by_id.lock().ok()?;
        let session = by_id.get(id)?.clone();
        let now = Instant::now();
        if session.expired(&self.config, now) {
            by_id.remove(id);
            session.ended.send_replace(true);
            return None;
        }
        if let Ok(mut last_used) = session.last_used.lock() {
            *last_used = now;
        }
        Some(session)
    }

    /// Ends the session of `id` (sign-out): its id opens nothing from now on and its streams
    /// close.
    pub fn end(&self, id: &str) {
        let removed = self
            .by_id
            .lock()
            .ok()
            .and_then(|mut by_id| by_id.remove(id));
        if let Some(session) = removed {
            session.ended.send_replace(true);
        }
    }

    /// Ends every expired session (run now and then, so a session nobody uses again does not
    /// keep its token in memory).
    pub fn end_expired(&self) {
        let now = Instant::now();
        let Ok(mut by_id) = self.by_id.lock() else {
            return;
        };
        by_id.retain(|_, session| {
            let expired = session.expired(&self.config, now);
            if expired {
                session.ended.send_replace(true);
            }
            !expired
        });
    }

    pub fn count(&self) -> usize {
        self.by_id.lock().map_or(0, |by_id| by_id.len())
    }

    fn cookie_name(&self) -> &'static str {
        if self.config.secure_cookies {
            SECURE_COOKIE_NAME
        } else {
            COOKIE_NAME
        }
    }

    /// The `Set-Cookie` value giving the browser session `id`. No `Max-Age`: the cookie goes
    /// with the browser session, and the server ends the session on its own clocks anyway.
    pub fn cookie(&self, id: &str) -> String {
        format!("{}={id}{}", self.cookie_name(), self.cookie_attributes())
    }

    /// The `Set-Cookie` value that removes the cookie (sign-out).
    pub fn removing_cookie(&self) -> String {
        format!(
            "{}=; Max-Age=0{}",
            self.cookie_name(),
            self.cookie_attributes()
        )
    }

    fn cookie_attributes(&self) -> &'static str {
        if self.config.secure_cookies {
            "; Path=/; HttpOnly; SameSite=Lax; Secure"
        } else {
            "; Path=/; HttpOnly; SameSite=Lax"
        }
    }

    /// The session id a request's `Cookie` headers carry, if any.
    pub fn id_in(&self, headers: &http::HeaderMap) -> Option<String> {
        cookie_value(headers, self.cookie_name())
    }
}

/// The value of the cookie `name` in a request's `Cookie` headers, if any.
pub fn cookie_value(headers: &http::HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(http::header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity() -> Identity {
        Identity {
            user: "viewer".into(),
            groups: vec!["viewers".into()],
        }
    }

    fn token() -> BearerToken {
        BearerToken::parse(" Bearer abc.def \n").expect("a token")
    }

    #[test]
    fn a_pasted_token_is_trimmed_and_never_printed() {
        assert_eq!(
            token().authorization().expect("header").to_str().ok(),
            Some("Bearer abc.def")
        );
        assert!(BearerToken::parse("  ").is_none());
        assert!(BearerToken::parse("two words").is_none());
        assert_eq!(format!("{:?}", token()), "BearerToken(hidden)");
    }

    #[test]
    fn sessions_end_on_sign_out_when_idle_and_at_their_absolute_limit() {
        let sessions = Sessions::new(SessionConfig {
            idle: Duration::from_millis(300),
            absolute: Duration::from_millis(900),
            ..SessionConfig::default()
        });
        let first = sessions.create(identity(), token()).expect("an id");
        let second = sessions.create(identity(), token()).expect("an id");
        assert_ne!(first, second);
        assert_eq!(first.len(), 43, "256 bits in URL-safe base64");
        assert!(sessions.find(&first).is_some());
        sessions.end(&first);
        assert!(sessions.find(&first).is_none(), "signed out");
        // Used every 100 ms: the idle limit never comes, the absolute one does.
        let mut kept = Duration::ZERO;
        while sessions.find(&second).is_some() {
            std::thread::sleep(Duration::from_millis(100));
            kept += Duration::from_millis(100);
            assert!(kept < Duration::from_secs(2), "never ended");
        }
        assert!(kept >= Duration::from_millis(800), "{kept:?}");
        let idle = sessions.create(identity(), token()).expect("an id");
        std::thread::sleep(Duration::from_millis(350));
        assert!(sessions.find(&idle).is_none(), "idle too long");
    }

    #[test]
    fn the_cookie_is_http_only_lax_and_secure_behind_tls() {
        let plain = Sessions::new(SessionConfig::default());
        assert_eq!(
            plain.cookie("abc"),
            "kube-atlas-session=abc; Path=/; HttpOnly; SameSite=Lax"
        );
        let secure = Sessions::new(SessionConfig {
            secure_cookies: true,
            ..SessionConfig::default()
        });
        assert_eq!(
            secure.cookie("abc"),
            "__Host-kube-atlas-session=abc; Path=/; HttpOnly; SameSite=Lax; Secure"
        );
        let mut headers = http::HeaderMap::new();
        headers.insert(
            http::header::COOKIE,
            HeaderValue::from_static("theme=dark; kube-atlas-session=xyz"),
        );
        assert_eq!(plain.id_in(&headers).as_deref(), Some("xyz"));
        assert_eq!(secure.id_in(&headers), None);
    }

    #[test]
    fn a_refreshed_token_is_sent_from_then_on_and_a_session_ended_by_the_server_is_gone() {
        let sessions = Sessions::new(SessionConfig::default());
        let (id, session) = sessions.start(identity(), token()).expect("a session");
        let refreshed = BearerToken::parse("refreshed.id.token").expect("a token");
        session.replace_token(refreshed);
        let found = sessions.find(&id).expect("the session");
        assert_eq!(
            found.token().authorization().expect("header").to_str().ok(),
            Some("Bearer refreshed.id.token")
        );
        let ended = found.ended();
        session.end_now();
        assert!(sessions.find(&id).is_none(), "ended by the server");
        assert_eq!(sessions.count(), 0);
        futures_util::FutureExt::now_or_never(ended).expect("its streams are told");
    }

    #[test]
    fn a_session_holds_at_most_its_streams() {
        let sessions = Sessions::new(SessionConfig {
            max_streams: 2,
            ..SessionConfig::default()
        });
        let id = sessions.create(identity(), token()).expect("an id");
        let session = sessions.find(&id).expect("a session");
        let first = session.try_stream();
        let second = session.try_stream();
        assert!(first.is_some() && second.is_some());
        assert!(session.try_stream().is_none());
        drop(first);
        assert!(session.try_stream().is_some());
    }
}
