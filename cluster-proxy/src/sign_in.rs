//! Signing in with a bearer token (as Headlamp offers): a server-rendered page with one form,
//! so the pasted token goes from the form straight to kube-atlas and never through the page's
//! JavaScript; checked with a SelfSubjectReview (`kubectl auth whoami`) before a session is
//! made. With an OIDC issuer configured the page offers "Sign in with …" first (`crate::oidc`),
//! a plain link: the page never sends the browser to the issuer by itself, so a failed or
//! expired sign-in cannot loop. Also sign-out and `GET /kube-atlas/session` (who is signed in,
//! for the page's header).

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use http::{header, Request, StatusCode};
use http_body_util::BodyExt;
use serde::Deserialize;

use crate::contexts::{ContextSlot, Timeouts};
use crate::proxy;
use crate::session::{BearerToken, Credentials, Identity, Session, Sessions};

pub const SIGN_IN_PATH: &str = "/kube-atlas/sign-in";
pub const SIGN_OUT_PATH: &str = "/kube-atlas/sign-out";
pub const SESSION_PATH: &str = "/kube-atlas/session";

/// The sign-in page allows no script at all, and no framing (no click-jacking of the form).
const SIGN_IN_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; \
                              form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The largest sign-in form read (a ServiceAccount token is about 1 KiB).
const MAX_FORM: usize = 64 * 1024;

#[derive(Deserialize)]
struct SignInForm {
    token: String,
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// What the sign-in page says after a session ended by itself (expired, its token no longer
/// renewed or accepted): `/kube-atlas/sign-in?ended`.
pub const ENDED_SENTENCE: &str = "Your sign-in expired; sign in again.";

/// The sign-in page, with a sentence saying why when a sign-in failed, and a "Sign in with
/// `issuer`" link when OIDC is configured.
pub fn page(status: StatusCode, problem: Option<&str>, issuer: Option<&str>) -> Response {
    let oidc = issuer
        .map(|issuer| {
            format!(
                r#"<p><a class="oidc" href="{}">Sign in with {}</a></p>
<p class="hint">Or with a bearer token:</p>"#,
                crate::oidc::START_PATH,
                escape_html(issuer)
            )
        })
        .unwrap_or_default();
    let problem = problem
        .map(|text| {
            format!(
                r#"<p class="problem" role="alert">{}</p>"#,
                escape_html(text)
            )
        })
        .unwrap_or_default();
    let html = format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Sign in · Kube Atlas</title>
<style>
body {{ font: 15px system-ui, sans-serif; max-width: 34rem; margin: 4rem auto; padding: 0 1rem; color: #1b1f24; }}
textarea {{ width: 100%; min-height: 7rem; font: 13px ui-monospace, monospace; box-sizing: border-box; }}
button {{ margin-top: .8rem; padding: .45rem 1.2rem; font: inherit; }}
.oidc {{ display: inline-block; padding: .5rem 1.2rem; border: 1px solid #1b1f24; border-radius: 4px; color: inherit; text-decoration: none; }}
.problem {{ color: #a40e26; }} .hint {{ color: #57606a; font-size: 13px; }}
</style></head>
<body><main>
<h1>Kube Atlas</h1>
<p>Sign in as yourself: you see and do what the cluster lets you.</p>
{problem}
{oidc}
<form method="post" action="{SIGN_IN_PATH}">
<label for="token">Bearer token</label>
<textarea id="token" name="token" autocomplete="off" spellcheck="false" required autofocus></textarea>
<button type="submit">Sign in</button>
</form>
<p class="hint">A ServiceAccount's token: <code>kubectl create token NAME -n NAMESPACE</code>.
The token stays on the server; the browser keeps only a session cookie.</p>
</main></body></html>
"#
    );
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, SIGN_IN_POLICY),
            (header::CACHE_CONTROL, "no-store"),
        ],
        html,
    )
        .into_response()
}

pub(crate) fn see_other(location: &str, cookie: Option<String>) -> Response {
    let mut response = Response::builder()
        .status(StatusCode::SEE_OTHER)
        .header(header::LOCATION, location)
        .header(header::CACHE_CONTROL, "no-store");
    if let Some(cookie) = cookie {
        response = response.header(header::SET_COOKIE, cookie);
    }
    response
        .body(Body::empty())
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

/// Where a signed-in browser asking for the sign-in page goes.
pub fn to_dashboard() -> Response {
    see_other("/", None)
}

/// Where a browser without a session goes; `ended` when its cookie names a session that
/// ended by itself, so the page says so.
pub fn to_sign_in(ended: bool) -> Response {
    if ended {
        see_other(&format!("{SIGN_IN_PATH}?ended"), None)
    } else {
        see_other(SIGN_IN_PATH, None)
    }
}

/// `POST /kube-atlas/sign-in`: the form's token checked with the API server; a session and
/// its cookie when the server knows the token, the page again with why when not.
pub async fn sign_in(
    sessions: &Sessions,
    slot: &ContextSlot,
    timeouts: Timeouts,
    request: Request<Body>,
    issuer: Option<&str>,
) -> Response {
    let page = |status, problem: &str| page(status, Some(problem), issuer);
    let body = match http_body_util::Limited::new(request.into_body(), MAX_FORM)
        .collect()
        .await
    {
        Ok(body) => body.to_bytes(),
        Err(_) => return page(StatusCode::PAYLOAD_TOO_LARGE, "The form is too large."),
    };
    let Ok(form) = serde_urlencoded::from_bytes::<SignInForm>(&body) else {
        return page(StatusCode::BAD_REQUEST, "Paste a token to sign in.");
    };
    let Some(token) = BearerToken::parse(&form.token) else {
        return page(
            StatusCode::BAD_REQUEST,
            "That is not a bearer token: it is empty or holds spaces or other characters a token cannot have.",
        );
    };
    let identity = match review(slot, timeouts, &token).await {
        Ok(identity) => identity,
        Err(problem) => return page(StatusCode::UNAUTHORIZED, &problem),
    };
    match sessions.create(identity, token) {
        Some(id) => see_other("/", Some(sessions.cookie(&id))),
        None => page(
            StatusCode::INTERNAL_SERVER_ERROR,
            "kube-atlas could not make a session (no randomness from the system).",
        ),
    }
}

/// Asks the API server who `token` is (a SelfSubjectReview): the identity, or why the token
/// is not accepted, in words (never the token).
pub async fn review(
    slot: &ContextSlot,
    timeouts: Timeouts,
    token: &BearerToken,
) -> Result<Identity, String> {
    let Some(credentials) = token.credentials() else {
        return Err("That token cannot be sent in a header.".to_string());
    };
    review_as(slot, timeouts, credentials).await
}

/// As [`review`], for requests made with `credentials` (a token, or kube-atlas's own
/// impersonating a user).
pub async fn review_as(
    slot: &ContextSlot,
    timeouts: Timeouts,
    credentials: Credentials,
) -> Result<Identity, String> {
    let mut request = http::Request::post("/apis/authentication.k8s.io/v1/selfsubjectreviews")
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json");
    for (name, value) in credentials {
        request = request.header(name, value);
    }
    let request = request
        .body(kube::client::Body::from(
            br#"{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}"#.to_vec(),
        ))
        .map_err(|error| format!("The check could not be sent: {error}"))?;
    let response = proxy::send_upstream(slot, timeouts, request)
        .await
        .map_err(|unreachable| {
            format!(
                "The API server could not be asked ({}). Try again.",
                unreachable.message
            )
        })?;
    let status = response.status();
    let body = tokio::time::timeout(timeouts.probe, response.into_body().collect_bytes())
        .await
        .map_err(|_| "The API server did not finish its answer. Try again.".to_string())?
        .map_err(|_| "The API server's answer broke off. Try again.".to_string())?;
    match status {
        StatusCode::CREATED | StatusCode::OK => identity_of(&body)
            .ok_or_else(|| "The API server's answer names no user.".to_string()),
        StatusCode::UNAUTHORIZED => Err(
            "The cluster does not accept this token (401 Unauthorized): it may be wrong, expired or revoked."
                .to_string(),
        ),
        other => Err(format!(
            "The cluster refused to say who this token is ({other})."
        )),
    }
}

/// `status.userInfo` of a SelfSubjectReview.
fn identity_of(body: &[u8]) -> Option<Identity> {
    let review: serde_json::Value = serde_json::from_slice(body).ok()?;
    let user_info = &review["status"]["userInfo"];
    let user = user_info["username"].as_str()?.to_string();
    let groups = user_info["groups"]
        .as_array()
        .map(|groups| {
            groups
                .iter()
                .filter_map(|group| group.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    Some(Identity { user, groups })
}

/// `POST /kube-atlas/sign-out`: the session ends at once (its id opens nothing after), the
/// cookie is removed, and the browser goes to the sign-in page.
pub fn sign_out(sessions: &Sessions, request: &Request<Body>) -> Response {
    if let Some(id) = sessions.id_in(request.headers()) {
        sessions.end(&id);
    }
    see_other(SIGN_IN_PATH, Some(sessions.removing_cookie()))
}

/// `GET /kube-atlas/session`: who is signed in, for the page's header.
pub fn who(session: &Session) -> Response {
    (
        [(header::CACHE_CONTROL, "no-store")],
        axum::Json(session_json(session)),
    )
        .into_response()
}

/// Who is signed in, and where to sign out: never the token.
pub fn session_json(session: &Session) -> serde_json::Value {
    serde_json::json!({
        "user": session.identity.user,
        "groups": session.identity.groups,
        "signOut": SIGN_OUT_PATH,
    })
}

/// The answer when the cluster refused the session's token (401): the session is over.
pub fn token_refused() -> Response {
    proxy::status_response(
        StatusCode::UNAUTHORIZED,
        "Unauthorized",
        &format!(
            "the cluster no longer accepts your token (expired or revoked): your session has \
             ended; sign in again at {SIGN_IN_PATH}"
        ),
    )
}

/// The answer to an API request without a live session; `ended` when its cookie names a
/// session that ended by itself.
pub fn unauthorized(ended: bool) -> Response {
    let message = if ended {
        format!("your kube-atlas sign-in expired: sign in again at {SIGN_IN_PATH}")
    } else {
        format!("not signed in to kube-atlas (or the session ended): sign in at {SIGN_IN_PATH}")
    };
    proxy::status_response(StatusCode::UNAUTHORIZED, "Unauthorized", &message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_review_gives_the_user_and_groups() {
        let body = br#"{"kind":"SelfSubjectReview","status":{"userInfo":{"username":"viewer","groups":["viewers","system:authenticated"]}}}"#;
        assert_eq!(
            identity_of(body),
            Some(Identity {
                user: "viewer".into(),
                groups: vec!["viewers".into(), "system:authenticated".into()],
            })
        );
        assert_eq!(identity_of(b"{}"), None);
    }

    #[test]
    fn a_problem_is_text_on_the_page() {
        assert_eq!(
            escape_html(r#"<script>"x"&'y'"#),
            "&lt;script&gt;&quot;x&quot;&amp;&#39;y&#39;"
        );
    }
}
