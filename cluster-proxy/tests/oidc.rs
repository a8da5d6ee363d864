//! OIDC sign-in for a team (issue #51): the real `kube-atlas` binary as in a pod, a real
//! kube-apiserver started with `--oidc-issuer-url`, `--oidc-client-id`, `--oidc-ca-file`,
//! `--oidc-username-claim` and `--oidc-groups-claim` naming the test issuer
//! (`support::oidc_issuer`: HTTPS with its own CA, short-lived ID tokens), and a browser
//! played by the test: cookies kept, redirects followed by hand, the issuer's approval given
//! in-process.

mod support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use http_body_util::BodyExt;
use support::oidc::{
    assert_no_token_in, configmap, location, start_all, Browser, Mode, CONFIGMAPS, PODS, SECRETS,
};
use support::oidc_issuer::{TestIssuer, CLIENT_ID, CLIENT_SECRET};
use support::team::{ask, closes, frame_where, open_socket, watch, Answer, TeamAtlas};

#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_and_a_viewer_sign_in_with_the_issuer_and_each_has_their_own_rights() {
    let (issuer, _plane, atlas, _scratch) =
        start_all(Duration::from_secs(300), Mode::IdTokens).await;

    let mut alice = Browser::new(&atlas);
    let signed_in = alice.sign_in_with(&issuer, "alice").await;
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);
    assert_eq!(location(&signed_in), "/");
    let session_cookie = signed_in
        .headers
        .get_all(http::header::SET_COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .find(|value| value.starts_with("kube-atlas-session="))
        .expect("a session cookie")
        .to_string();
    assert!(
        session_cookie.contains("HttpOnly") && session_cookie.contains("SameSite=Lax"),
        "{session_cookie}"
    );
    assert!(
        !alice.cookies.contains_key("kube-atlas-oidc"),
        "the sign-in's own cookie is gone"
    );
    let who = alice.get("/kube-atlas/session").await;
    assert_eq!(who.status, 200, "{}", who.body);
    let who: serde_json::Value = serde_json::from_str(&who.body).expect("JSON");
    assert_eq!(who["user"], "alice");
    assert!(who["groups"]
        .as_array()
        .is_some_and(|groups| groups.contains(&"admins".into())));
    let page = alice.get("/").await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains(r#""user":"alice""#), "{}", page.body);
    let secrets = alice
        .get("/clusters/in-cluster/api/v1/namespaces/kube-system/secrets")
        .await;
    assert_eq!(secrets.status, 200, "alice lists secrets: {}", secrets.body);
    let created = alice
        .request("POST", CONFIGMAPS, &configmap("made-by-alice"))
        .await;
    assert_eq!(created.status, 201, "alice creates: {}", created.body);

    let mut victor = Browser::new(&atlas);
    let signed_in = victor.sign_in_with(&issuer, "victor").await;
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);
    let who = victor.get("/kube-atlas/session").await;
    let who: serde_json::Value = serde_json::from_str(&who.body).expect("JSON");
    assert_eq!(who["user"], "victor");
    let pods = victor.get(PODS).await;
    assert_eq!(pods.status, 200, "victor lists pods: {}", pods.body);
    let secrets = victor.get(SECRETS).await;
    assert_eq!(
        secrets.status, 403,
        "view reads no secrets: {}",
        secrets.body
    );
    let everywhere = victor.get("/clusters/in-cluster/api/v1/pods").await;
    assert_eq!(everywhere.status, 403, "view only in default");
    let deleted = victor
        .request("DELETE", &format!("{CONFIGMAPS}/made-by-alice"), "")
        .await;
    assert_eq!(
        deleted.status, 403,
        "victor deletes nothing: {}",
        deleted.body
    );
    let kept = alice.get(&format!("{CONFIGMAPS}/made-by-alice")).await;
    assert_eq!(kept.status, 200);

    // Sign-out: the cookie opens nothing after, even sent again by hand.
    let victor_cookie = victor.cookie_header();
    let signed_out = victor.request("POST", "/kube-atlas/sign-out", "").await;
    assert_eq!(signed_out.status, 303);
    let replayed = ask(atlas.addr, "GET", PODS, &[("cookie", &victor_cookie)], "").await;
    assert_eq!(replayed.status, 401, "{}", replayed.body);
    assert_eq!(alice.get(PODS).await.status, 200, "alice is still in");

    let mut bodies = alice.bodies.clone();
    bodies.extend(victor.bodies.clone());
    assert_no_token_in(&issuer, &bodies, "a response body");
    assert_no_token_in(&issuer, &[atlas.output()], "kube-atlas's output");
    let output = atlas.output();
    assert!(
        output.contains(r#""user":"alice""#) && output.contains(r#""user":"victor""#),
        "the access log names the users: {output}"
    );
    assert!(
        !output.contains(CLIENT_SECRET),
        "the client secret is printed"
    );
    let ready = format!("kube-atlas: OIDC issuer {}: ready", &issuer.url()[8..]);
    assert!(output.contains(&ready), "discovery said at start: {output}");
}

/// Reads a streamed body into `into` as it comes.
fn keep_reading(response: hyper::Response<hyper::body::Incoming>, into: Arc<Mutex<String>>) {
    tokio::spawn(async move {
        let mut body = response.into_body();
        while let Some(Ok(frame)) = body.frame().await {
            if let Some(data) = frame.data_ref() {
                if let Ok(mut text) = into.lock() {
                    text.push_str(&String::from_utf8_lossy(data));
                }
            }
        }
    });
}

async fn wait_until(what: &str, within: Duration, test: impl Fn() -> bool) {
    let deadline = Instant::now() + within;
    while !test() {
        assert!(Instant::now() < deadline, "{what} within {within:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The `exp` claim of a JWT, read without checking it.
fn expiry_of(jwt: &str) -> u64 {
    let payload = jwt.split('.').nth(1).expect("a JWT");
    let json = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .expect("base64url");
    let claims: serde_json::Value = serde_json::from_slice(&json).expect("JSON");
    claims["exp"].as_u64().expect("exp")
}

#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_id_token_is_refreshed_under_an_open_watch_and_a_refused_refresh_ends_the_session() {
    let lifetime = Duration::from_secs(20);
    let (issuer, plane, atlas, _scratch) = start_all(lifetime, Mode::IdTokens).await;
    let mut alice = Browser::new(&atlas);
    let signed_in = alice.sign_in_with(&issuer, "alice").await;
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);
    let first_id_token = issuer.issued_tokens()[0].clone();
    let expires = expiry_of(&first_id_token);

    // A watch opened with the first ID token.
    let cookie = alice.cookie_header();
    let http_watch = support::send(
        atlas.addr,
        "GET",
        &format!("{CONFIGMAPS}?watch=true"),
        &[("cookie", &cookie)],
        "",
    )
    .await;
    assert_eq!(http_watch.status(), 200);
    let events = Arc::new(Mutex::new(String::new()));
    keep_reading(http_watch, events.clone());
    let created = alice
        .request("POST", CONFIGMAPS, &configmap("before-expiry"))
        .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let seen = |name: &'static str| {
        let events = events.clone();
        move || events.lock().is_ok_and(|text| text.contains(name))
    };
    // And one over the page's multiplexing socket, as the dashboard watches.
    let mut socket = open_socket(&atlas, &cookie).await;
    let mut frames = Vec::new();
    let upstream_watch = "/api/v1/namespaces/default/configmaps?watch=true";
    watch(&mut socket, 1, upstream_watch).await;
    let carries = |id: u64, name: &'static str| {
        move |frame: &serde_json::Value| {
            frame["id"] == id
                && frame["data"]
                    .as_str()
                    .is_some_and(|data| data.contains(name))
        }
    };
    frame_where(&mut socket, &mut frames, carries(1, "before-expiry"))
        .await
        .expect("the socket's watch sees before-expiry");
    wait_until(
        "the watch sees before-expiry",
        Duration::from_secs(10),
        seen("before-expiry"),
    )
    .await;

    // The first ID token expires; kube-atlas refreshed it before.
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_secs())
    };
    wait_until(
        "the first ID token expires",
        lifetime + Duration::from_secs(5),
        || now() > expires + 1,
    )
    .await;
    assert!(
        issuer.refreshes() >= 1,
        "no refresh before the token expired"
    );
    let old = plane
        .plane
        .kubectl(&["get", "--raw", "/api", &format!("--token={first_id_token}")])
        .expect("kubectl runs");
    assert!(
        !old.status.success() && String::from_utf8_lossy(&old.stderr).contains("Unauthorized"),
        "the first ID token has expired for the cluster: {old:?}"
    );
    let created = alice
        .request("POST", CONFIGMAPS, &configmap("after-expiry"))
        .await;
    assert_eq!(
        created.status, 201,
        "a request after expiry: {}",
        created.body
    );
    wait_until(
        "the watch opened before the refresh sees after-expiry",
        Duration::from_secs(10),
        seen("after-expiry"),
    )
    .await;
    frame_where(&mut socket, &mut frames, carries(1, "after-expiry"))
        .await
        .expect("the socket's watch opened before the refresh sees after-expiry");
    // A watch opened after the refresh (as the page reopens one) goes with the new token.
    watch(&mut socket, 2, upstream_watch).await;
    frame_where(&mut socket, &mut frames, carries(2, "after-expiry"))
        .await
        .expect("a watch opened after the refresh");
    let who = alice.get("/kube-atlas/session").await;
    assert_eq!(who.status, 200, "{}", who.body);
    assert!(who.body.contains(r#""user":"alice""#));

    // The issuer refuses the next refresh: the session ends; the page load gets the sign-in
    // page saying why (not a blank page, not a redirect to the issuer), the API a 401 Status.
    issuer.revoke("alice");
    wait_until("a refused refresh", lifetime, || {
        issuer.refused_refreshes() >= 1
    })
    .await;
    assert!(
        closes(&mut socket).await,
        "the ended session's socket closes"
    );
    let page = alice.get("/").await;
    assert_eq!(page.status, 303, "{}", page.body);
    assert_eq!(location(&page), "/kube-atlas/sign-in?ended");
    let sign_in = alice.get("/kube-atlas/sign-in?ended").await;
    assert_eq!(sign_in.status, 200);
    assert!(
        sign_in
            .body
            .contains("Your sign-in expired; sign in again."),
        "{}",
        sign_in.body
    );
    assert!(
        sign_in.body.contains("Sign in with 127.0.0.1:"),
        "{}",
        sign_in.body
    );
    let api = alice.get(PODS).await;
    assert_eq!(api.status, 401, "{}", api.body);
    let status: serde_json::Value = serde_json::from_str(&api.body).expect("a Status");
    assert_eq!(status["kind"], "Status");
    assert!(api.body.contains("expired"), "{}", api.body);
    // Signing in again works at once.
    let again = alice.sign_in_with(&issuer, "alice").await;
    assert_eq!(again.status, 303, "{}", again.body);
    assert_eq!(alice.get(PODS).await.status, 200);

    assert_no_token_in(&issuer, &alice.bodies, "a response body");
    let events = events.lock().map(|text| text.clone()).unwrap_or_default();
    assert_no_token_in(&issuer, &[atlas.output(), events], "kube-atlas's output");
}

/// kube-atlas and the issuer without a cluster: every refusal happens before the cluster
/// would be asked.
async fn start_without_a_cluster() -> (TestIssuer, TeamAtlas, tempfile::TempDir) {
    let issuer = TestIssuer::start(Duration::from_secs(300), &[("alice", &["admins"])]).await;
    let scratch = tempfile::tempdir().expect("a folder");
    let token_file = scratch.path().join("token");
    std::fs::write(&token_file, "never-read").expect("token");
    let issuer_url = issuer.url();
    let ca_file = issuer.ca_file.display().to_string();
    let atlas = TeamAtlas::start_as_in_a_pod_with_env(
        &token_file,
        &issuer.ca_file,
        ("127.0.0.1", &envtest::free_port().to_string()),
        &[
            "--oidc-issuer-url",
            &issuer_url,
            "--oidc-client-id",
            CLIENT_ID,
            "--oidc-ca-file",
            &ca_file,
        ],
        // The secret from the environment this time.
        &[("KUBE_ATLAS_OIDC_CLIENT_SECRET", CLIENT_SECRET)],
    );
    (issuer, atlas, scratch)
}

/// Starts a sign-in in `browser`: the issuer's redirect back (with code and state), not yet
/// followed.
async fn started(browser: &mut Browser, issuer: &TestIssuer) -> String {
    let start = browser.get("/kube-atlas/oidc/start").await;
    assert_eq!(start.status, 303, "{}", start.body);
    issuer.sign_in_next_as("alice");
    let back = issuer.authorize(&location(&start));
    back.strip_prefix(&browser.origin)
        .expect("to kube-atlas")
        .to_string()
}

fn query_value(path: &str, name: &str) -> String {
    let query = path.split_once('?').map_or("", |(_, query)| query);
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query).expect("a query");
    pairs
        .into_iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value)
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_state_a_code_for_another_verifier_or_a_wrong_nonce_is_refused() {
    let (issuer, atlas, _scratch) = start_without_a_cluster().await;
    let refused = |answer: &Answer, why: &str| {
        assert!(
            answer.status == 400 || answer.status == 401,
            "{why}: {} {}",
            answer.status,
            answer.body
        );
        let session = answer
            .headers
            .get_all(http::header::SET_COOKIE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .any(|value| value.starts_with("kube-atlas-session="));
        assert!(!session, "{why}: a session");
        // The sign-in page again, with its link: never a blank page or a redirect loop.
        assert!(
            answer.body.contains("Sign in with"),
            "{why}: {}",
            answer.body
        );
    };

    // A state this browser never started.
    let mut browser = Browser::new(&atlas);
    let back = started(&mut browser, &issuer).await;
    let code = query_value(&back, "code");
    let forged = browser
        .get(&format!(
            "/kube-atlas/oidc/callback?code={code}&state=forged"
        ))
        .await;
    refused(&forged, "a forged state");
    assert!(forged.body.contains("not started here"), "{}", forged.body);
    // Refused before the code is exchanged (without a cluster, a sign-in that got further
    // would fail too, but later and in other words).
    let not_started = |answer: &Answer, why: &str| {
        refused(answer, why);
        assert!(
            answer.body.contains("not started here"),
            "{why}: {}",
            answer.body
        );
    };
    // The real state after a wrong one: the sign-in was burnt.
    not_started(&browser.get(&back).await, "a state tried after a wrong one");

    // Another browser's callback (login CSRF): its state, without its cookie.
    let mut victim = Browser::new(&atlas);
    let mut attacker = Browser::new(&atlas);
    let attackers_back = started(&mut attacker, &issuer).await;
    not_started(
        &victim.get(&attackers_back).await,
        "another browser's callback",
    );
    // Nor with a sign-in of its own under way.
    let _ = started(&mut victim, &issuer).await;
    not_started(
        &victim.get(&attackers_back).await,
        "another sign-in's state",
    );

    // A code issued for another sign-in's PKCE challenge, carried into this one's callback.
    let mut first = Browser::new(&atlas);
    let mut second = Browser::new(&atlas);
    let first_back = started(&mut first, &issuer).await;
    let second_back = started(&mut second, &issuer).await;
    let injected = format!(
        "/kube-atlas/oidc/callback?code={}&state={}",
        query_value(&second_back, "code"),
        query_value(&first_back, "state")
    );
    let answer = first.get(&injected).await;
    refused(&answer, "a code for another verifier");
    assert!(
        answer.body.contains("PKCE verification failed"),
        "{}",
        answer.body
    );

    // An ID token with another nonce than the one asked for.
    let mut browser = Browser::new(&atlas);
    let back = started(&mut browser, &issuer).await;
    issuer.wrong_nonce_next();
    let answer = browser.get(&back).await;
    refused(&answer, "a wrong nonce");
    assert!(answer.body.contains("nonce"), "{}", answer.body);

    // The issuer's own refusal is said in words.
    let mut browser = Browser::new(&atlas);
    let start = browser.get("/kube-atlas/oidc/start").await;
    let state = query_value(&location(&start), "state");
    let denied = browser
        .get(&format!(
            "/kube-atlas/oidc/callback?error=access_denied&error_description=not+today&state={state}"
        ))
        .await;
    refused(&denied, "the issuer's refusal");
    // A link carrying words of its own puts none on kube-atlas's page.
    let planted = Browser::new(&atlas)
        .get("/kube-atlas/oidc/callback?error=locked&error_description=call+0800+now")
        .await;
    refused(&planted, "a planted error");
    assert!(!planted.body.contains("call 0800"), "{}", planted.body);
    assert!(
        denied.body.contains("access_denied: not today"),
        "{}",
        denied.body
    );

    // Nothing of a token or the secret in any page or log line.
    let mut bodies = browser.bodies.clone();
    bodies.extend(first.bodies.clone());
    bodies.push(atlas.output());
    assert_no_token_in(&issuer, &bodies, "a page or the log");
    assert!(!atlas.output().contains(CLIENT_SECRET));
    drop(victim);
    drop(second);
}
