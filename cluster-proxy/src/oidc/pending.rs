//! Sign-ins under way: what `/kube-atlas/oidc/start` keeps until the issuer sends the browser
//! back (the PKCE verifier, the nonce, the redirect URL), by state. Each is taken once, lives
//! a few minutes, and is bound to the browser that started it by a cookie of its own, so a
//! callback carried to another browser (login CSRF) finds nothing.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use openidconnect::{CsrfToken, Nonce, PkceCodeVerifier, RedirectUrl};

/// The cookie binding a sign-in under way to its browser.
const BINDING_COOKIE: &str = "kube-atlas-oidc";
/// How long a user may take at the issuer.
const LIFETIME: Duration = Duration::from_secs(10 * 60);
/// At most this many sign-ins under way at once (a flood of starts cannot fill memory).
const MAX_PENDING: usize = 10_000;

pub struct PendingLogin {
    state: String,
    pub verifier: PkceCodeVerifier,
    pub nonce: Nonce,
    pub redirect: RedirectUrl,
    started: Instant,
}

impl PendingLogin {
    pub fn new(
        state: String,
        verifier: PkceCodeVerifier,
        nonce: Nonce,
        redirect: RedirectUrl,
    ) -> PendingLogin {
        PendingLogin {
            state,
            verifier,
            nonce,
            redirect,
            started: Instant::now(),
        }
    }
}

/// Pending sign-ins by binding (the cookie's random value).
#[derive(Default)]
pub struct PendingLogins {
    by_binding: Mutex<HashMap<String, PendingLogin>>,
}

impl PendingLogins {
    /// Keeps `login`; the binding for the cookie, or `None` when too many are under way.
    pub fn insert(&self, login: PendingLogin) -> Option<String> {
        let binding = CsrfToken::new_random().secret().clone();
        let mut by_binding = self.by_binding.lock().ok()?;
        by_binding.retain(|_, pending| pending.started.elapsed() < LIFETIME);
        if by_binding.len() >= MAX_PENDING {
            return None;
        }
        by_binding.insert(binding.clone(), login);
        Some(binding)
    }

    /// The sign-in of this browser's `binding` whose state is `state`, removed; `None` when
    /// there is none, it is too old, or the state is another.
    pub fn take(&self, state: &str, binding: Option<&str>) -> Option<PendingLogin> {
        let binding = binding?;
        let mut by_binding = self.by_binding.lock().ok()?;
        let login = by_binding.remove(binding)?;
        (login.state == state && login.started.elapsed() < LIFETIME).then_some(login)
    }

    fn cookie_name(secure: bool) -> String {
        if secure {
            format!("__Host-{BINDING_COOKIE}")
        } else {
            BINDING_COOKIE.to_string()
        }
    }

    /// The binding cookie: sent back on the issuer's top-level redirect (SameSite=Lax), to
    /// the callback only.
    pub fn cookie(&self, binding: &str, secure: bool) -> String {
        let name = Self::cookie_name(secure);
        let max_age = LIFETIME.as_secs();
        let secure = if secure { "; Secure" } else { "" };
        format!("{name}={binding}; Path=/; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}")
    }

    pub fn removing_cookie(&self, secure: bool) -> String {
        let name = Self::cookie_name(secure);
        let secure = if secure { "; Secure" } else { "" };
        format!("{name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax{secure}")
    }

    /// The binding a request's cookies carry.
    pub fn binding_in(&self, headers: &http::HeaderMap, secure: bool) -> Option<String> {
        crate::session::cookie_value(headers, &Self::cookie_name(secure))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn login(state: &str) -> PendingLogin {
        PendingLogin::new(
            state.to_string(),
            PkceCodeVerifier::new("v".repeat(43)),
            Nonce::new("n".into()),
            RedirectUrl::new("http://127.0.0.1/kube-atlas/oidc/callback".into()).expect("url"),
        )
    }

    #[test]
    fn a_sign_in_is_taken_once_by_its_own_browser_with_its_own_state() {
        let pending = PendingLogins::default();
        let binding = pending.insert(login("s1")).expect("kept");
        assert!(pending.take("s1", None).is_none(), "no cookie");
        let other = pending.insert(login("s2")).expect("kept");
        assert!(
            pending.take("s1", Some(&other)).is_none(),
            "another browser's"
        );
        assert!(pending.take("s1", Some(&binding)).is_some());
        assert!(pending.take("s1", Some(&binding)).is_none(), "taken once");
        let cookie = pending.cookie(&binding, false);
        assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"));
    }
}
