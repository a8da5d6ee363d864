//! kube-atlas in front of a small stand-in API server: the credentials each kind of
//! kubeconfig entry gives (token, exec plugin), what the page reads when a plugin fails or
//! hangs or a kubeconfig does not parse, streaming without buffering, and refused hosts and
//! origins.

mod support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use http_body_util::BodyExt;
use kube_atlas_server::contexts::read_kubeconfigs;
use kube_atlas_server::{ClusterState, Timeouts};
use support::{
    clusters, get as get_text, quick_timeouts, send, settled_state, start_atlas,
    start_atlas_serving, write_script,
};
use tokio::sync::Notify;

/// The token the stand-in accepts.
const GOOD_TOKEN: &str = "token-of-dev";

/// A stand-in API server: `/version` for [`GOOD_TOKEN`] only; `/api/v1/whoami` echoes the
/// credentials it was sent; `/api/v1/stream` sends a line, waits for `release`, sends another;
/// `POST /api/v1/echo` answers its body.
struct StandIn {
    addr: SocketAddr,
    release: Arc<Notify>,
}

fn bearer(headers: &HeaderMap) -> String {
    headers
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

async fn start_stand_in() -> StandIn {
    let release = Arc::new(Notify::new());
    let stream_release = release.clone();
    let app = axum::Router::new()
        .route(
            "/version",
            get(|headers: HeaderMap| async move {
                if bearer(&headers) == format!("Bearer {GOOD_TOKEN}") {
                    (StatusCode::OK, r#"{"gitVersion":"v1.36.0-standin"}"#).into_response()
                } else {
                    (
                        StatusCode::UNAUTHORIZED,
                        r#"{"kind":"Status","message":"Unauthorized","code":401}"#,
                    )
                        .into_response()
                }
            }),
        )
        .route(
            "/api/v1/whoami",
            get(|headers: HeaderMap| async move {
                let header = |name: &str| {
                    headers
                        .get(name)
                        .and_then(|value| value.to_str().ok())
                        .unwrap_or_default()
                        .to_string()
                };
                axum::Json(serde_json::json!({
                    "authorization": header("authorization"),
                    "cookie": header("cookie"),
                    "accept": header("accept"),
                }))
            }),
        )
        .route(
            "/api/v1/stream",
            get(move || {
                let release = stream_release.clone();
                async move {
                    let lines = futures_util::stream::unfold(0, move |sent| {
                        let release = release.clone();
                        async move {
                            match sent {
                                0 => Some((Ok::<_, std::io::Error>("first\n".to_string()), 1)),
                                1 => {
                                    release.notified().await;
                                    Some((Ok("second\n".to_string()), 2))
                                }
                                _ => None,
                            }
                        }
                    });
                    Body::from_stream(lines)
                }
            }),
        )
        .route("/api/v1/echo", post(|body: String| async move { body }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("stand-in binds");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    StandIn { addr, release }
}

/// A kubeconfig with one context per `(context, user entry)`, all on the stand-in.
fn kubeconfig(server: SocketAddr, users: &[(&str, String)]) -> String {
    let mut text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: standin\n  cluster:\n    server: http://{server}\nusers:\n"
    );
    for (name, user) in users {
        text.push_str(&format!("- name: {name}\n  user:\n{user}\n"));
    }
    text.push_str("contexts:\n");
    for (name, _) in users {
        text.push_str(&format!(
            "- name: {name}\n  context:\n    cluster: standin\n    user: {name}\n"
        ));
    }
    text
}

fn token_user(token: &str) -> String {
    format!("    token: {token}")
}

fn exec_user(command: &std::path::Path) -> String {
    format!(
        "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: {}\n      interactiveMode: Never",
        command.display()
    )
}

fn reason(state: &ClusterState) -> String {
    match state {
        ClusterState::Failed { reason } => reason.clone(),
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[tokio::test]
async fn a_token_reaches_the_server_and_the_pages_own_credentials_do_not() {
    let stand_in = start_stand_in().await;
    let config = kubeconfig(stand_in.addr, &[("dev", token_user(GOOD_TOKEN))]);
    let atlas = start_atlas(&config, quick_timeouts()).await;
    assert_eq!(
        settled_state(&atlas, "dev").await,
        ClusterState::Connected {
            version: "v1.36.0-standin".into()
        }
    );
    let (status, body) = get_text(
        atlas.addr,
        "/clusters/dev/api/v1/whoami?x=1",
        &[
            ("authorization", "Bearer from-the-page"),
            ("cookie", "session=1"),
            ("accept", "application/json;as=Table;v=v1;g=meta.k8s.io"),
        ],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let seen: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(seen["authorization"], format!("Bearer {GOOD_TOKEN}"));
    assert_eq!(seen["cookie"], "");
    assert_eq!(
        seen["accept"],
        "application/json;as=Table;v=v1;g=meta.k8s.io"
    );
    // The page never sees the token: not in /clusters either.
    let listed = clusters(atlas.addr).await.to_string();
    assert!(!listed.contains(GOOD_TOKEN), "{listed}");
    atlas.stop().await;
}

#[tokio::test]
async fn the_served_page_carries_the_clusters_and_their_states() {
    let stand_in = start_stand_in().await;
    let config = kubeconfig(
        stand_in.addr,
        &[
            ("dev", token_user(GOOD_TOKEN)),
            ("old", token_user("expired")),
        ],
    );
    let www = tempfile::tempdir().expect("temporary directory");
    std::fs::write(
        www.path().join("index.html"),
        "<html><head><title>Kube Atlas</title></head><body></body></html>",
    )
    .expect("index.html written");
    let atlas =
        start_atlas_serving(&config, quick_timeouts(), Some(www.path().to_path_buf())).await;
    settled_state(&atlas, "dev").await;
    settled_state(&atlas, "old").await;
    let (status, page) = get_text(atlas.addr, "/", &[]).await;
    assert_eq!(status, 200, "{page}");
    // The page reads its clusters from this element instead of asking /clusters first.
    let opening = r#"<script type="application/json" id="kube-atlas-clusters">"#;
    let start = page.find(opening).expect("the cluster list element") + opening.len();
    let end = start + page[start..].find("</script>").expect("its end");
    let carried: serde_json::Value = serde_json::from_str(&page[start..end]).expect("JSON");
    assert_eq!(carried, clusters(atlas.addr).await, "{page}");
    let states: Vec<(&str, &str)> = carried["clusters"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap_or_default(),
                c["state"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [("dev", "connected"), ("old", "failed")],
        "{carried}"
    );
    assert!(
        page.contains("Kube Atlas") && !page.contains(GOOD_TOKEN),
        "{page}"
    );
    atlas.stop().await;
}

#[tokio::test]
async fn an_expired_token_marks_its_cluster_and_says_so() {
    let stand_in = start_stand_in().await;
    let config = kubeconfig(
        stand_in.addr,
        &[
            ("dev", token_user(GOOD_TOKEN)),
            ("old", token_user("token-revoked")),
        ],
    );
    let atlas = start_atlas(&config, quick_timeouts()).await;
    let old = reason(&settled_state(&atlas, "old").await);
    assert!(old.contains("401") && old.contains("expired"), "{old}");
    assert!(matches!(
        settled_state(&atlas, "dev").await,
        ClusterState::Connected { .. }
    ));
    let listed = clusters(atlas.addr).await;
    assert_eq!(listed["clusters"][0]["name"], "dev");
    assert_eq!(listed["clusters"][0]["state"], "connected");
    assert_eq!(listed["clusters"][1]["state"], "failed");
    assert_eq!(listed["clusters"][1]["reason"], old.as_str());
    atlas.stop().await;
}

#[tokio::test]
async fn an_exec_plugins_token_is_used() {
    let stand_in = start_stand_in().await;
    let scripts = tempfile::tempdir().expect("scripts folder");
    let plugin = write_script(
        scripts.path(),
        "credentials.sh",
        &format!(
            "#!/bin/sh\necho '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{{\"token\":\"{GOOD_TOKEN}\"}}}}'\n"
        ),
    );
    let config = kubeconfig(stand_in.addr, &[("sso", exec_user(&plugin))]);
    let atlas = start_atlas(&config, quick_timeouts()).await;
    assert!(matches!(
        settled_state(&atlas, "sso").await,
        ClusterState::Connected { .. }
    ));
    let (status, body) = get_text(atlas.addr, "/clusters/sso/api/v1/whoami", &[]).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(&format!("Bearer {GOOD_TOKEN}")), "{body}");
    atlas.stop().await;
}

#[tokio::test]
async fn a_failing_exec_plugin_is_reported_with_its_words_and_the_others_work() {
    let stand_in = start_stand_in().await;
    let scripts = tempfile::tempdir().expect("scripts folder");
    let plugin = write_script(
        scripts.path(),
        "broken.sh",
        "#!/bin/sh\necho 'error: the SSO session expired, run: sso login' >&2\nexit 3\n",
    );
    let config = kubeconfig(
        stand_in.addr,
        &[("dev", token_user(GOOD_TOKEN)), ("sso", exec_user(&plugin))],
    );
    let atlas = start_atlas(&config, quick_timeouts()).await;
    let failed = reason(&settled_state(&atlas, "sso").await);
    assert!(
        failed.starts_with("no credentials: the exec plugin"),
        "{failed}"
    );
    assert!(failed.contains("broken.sh"), "{failed}");
    assert!(
        failed.contains("the SSO session expired, run: sso login"),
        "{failed}"
    );
    // A request through it is refused with the same words, as a Kubernetes Status.
    let (status, body) = get_text(atlas.addr, "/clusters/sso/api/v1/whoami", &[]).await;
    assert_eq!(status, 502);
    let refusal: serde_json::Value = serde_json::from_str(&body).expect("a Status");
    assert_eq!(refusal["kind"], "Status");
    assert!(
        refusal["message"]
            .as_str()
            .is_some_and(|message| message.starts_with("cluster sso: no credentials")),
        "{body}"
    );
    assert!(matches!(
        settled_state(&atlas, "dev").await,
        ClusterState::Connected { .. }
    ));
    atlas.stop().await;
}

#[tokio::test]
async fn a_hanging_exec_plugin_times_out_without_holding_the_others() {
    let stand_in = start_stand_in().await;
    let scripts = tempfile::tempdir().expect("scripts folder");
    let plugin = write_script(scripts.path(), "hangs.sh", "#!/bin/sh\nsleep 8\n");
    let config = kubeconfig(
        stand_in.addr,
        &[("sso", exec_user(&plugin)), ("dev", token_user(GOOD_TOKEN))],
    );
    // A credentials timeout long enough that the other context, unless it waits for the
    // plugin, connects while the plugin still runs, however loaded the machine.
    let timeouts = Timeouts {
        credentials: Duration::from_secs(6),
        ..quick_timeouts()
    };
    let atlas = start_atlas(&config, timeouts).await;
    let connected = settled_state(&atlas, "dev").await;
    // Read right after: the plugin's context is still waiting for it.
    let sso_meanwhile = atlas
        .entries()
        .into_iter()
        .find(|entry| entry.name == "sso")
        .map(|entry| entry.state);
    assert!(
        matches!(connected, ClusterState::Connected { .. }),
        "{connected:?}"
    );
    assert_eq!(
        sso_meanwhile,
        Some(ClusterState::Connecting),
        "the other context connected while the exec plugin still ran"
    );
    // Then the plugin's timeout fires, as its error says.
    let failed = reason(&settled_state(&atlas, "sso").await);
    assert_eq!(
        failed,
        "no credentials: the exec plugin did not finish within 6 s (does it wait for a login?)"
    );
    atlas.stop().await;
}

#[tokio::test]
async fn a_kubeconfig_that_does_not_parse_is_named_with_why() {
    let folder = tempfile::tempdir().expect("folder");
    let broken = folder.path().join("broken.yaml");
    std::fs::write(&broken, "apiVersion: v1\nclusters: [ {name: a,\n").expect("written");
    let error = read_kubeconfigs(std::slice::from_ref(&broken)).expect_err("does not parse");
    assert!(
        error.starts_with(&format!(
            "the kubeconfig {} cannot be read: ",
            broken.display()
        )),
        "{error}"
    );
    let missing = folder.path().join("missing.yaml");
    let error = read_kubeconfigs(std::slice::from_ref(&missing)).expect_err("missing");
    assert!(error.contains(&missing.display().to_string()), "{error}");
}

#[tokio::test]
async fn a_stream_is_passed_on_as_it_comes_not_when_it_ends() {
    let stand_in = start_stand_in().await;
    let config = kubeconfig(stand_in.addr, &[("dev", token_user(GOOD_TOKEN))]);
    let atlas = start_atlas(&config, quick_timeouts()).await;
    let response = send(atlas.addr, "GET", "/clusters/dev/api/v1/stream", &[], "").await;
    assert_eq!(response.status(), 200);
    let mut body = response.into_body();
    let first = tokio::time::timeout(Duration::from_secs(5), body.frame())
        .await
        .expect("the first line arrives while the stream is still open")
        .expect("a frame")
        .expect("no error");
    assert_eq!(first.data_ref().map(|d| d.as_ref()), Some(&b"first\n"[..]));
    stand_in.release.notify_one();
    let second = tokio::time::timeout(Duration::from_secs(5), body.frame())
        .await
        .expect("the second line")
        .expect("a frame")
        .expect("no error");
    assert_eq!(
        second.data_ref().map(|d| d.as_ref()),
        Some(&b"second\n"[..])
    );
    atlas.stop().await;
}

#[tokio::test]
async fn a_request_body_is_passed_on() {
    let stand_in = start_stand_in().await;
    let config = kubeconfig(stand_in.addr, &[("dev", token_user(GOOD_TOKEN))]);
    let atlas = start_atlas(&config, quick_timeouts()).await;
    let origin = format!("http://127.0.0.1:{}", atlas.addr.port());
    let response = send(
        atlas.addr,
        "POST",
        "/clusters/dev/api/v1/echo",
        &[("origin", &origin), ("content-type", "application/json")],
        r#"{"kind":"ConfigMap"}"#,
    )
    .await;
    assert_eq!(response.status(), 200);
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    assert_eq!(&body[..], br#"{"kind":"ConfigMap"}"#);
    atlas.stop().await;
}

#[tokio::test]
async fn foreign_hosts_and_origins_are_refused_unknown_contexts_are_not_found() {
    let stand_in = start_stand_in().await;
    let config = kubeconfig(stand_in.addr, &[("dev", token_user(GOOD_TOKEN))]);
    let atlas = start_atlas(&config, quick_timeouts()).await;
    let (status, body) = get_text(
        atlas.addr,
        "/clusters/dev/api/v1/whoami",
        &[("origin", "http://evil.example")],
    )
    .await;
    assert_eq!(status, 403);
    assert!(
        body.contains("another origin (http://evil.example)"),
        "{body}"
    );
    assert!(!body.contains(GOOD_TOKEN));
    let (status, body) = get_text(atlas.addr, "/clusters", &[("host", "evil.example:8001")]).await;
    assert_eq!(status, 403);
    assert!(
        body.contains("does not answer for host \\\"evil.example:8001\\\""),
        "{body}"
    );
    let (status, body) = get_text(atlas.addr, "/clusters/prod/api", &[]).await;
    assert_eq!(status, 404);
    assert!(body.contains("no context \\\"prod\\\""), "{body}");
    // Without --www, the files are not there, and say why.
    let (status, body) = get_text(atlas.addr, "/", &[]).await;
    assert_eq!(status, 404);
    assert!(body.contains("--www"), "{body}");
    atlas.stop().await;
}
