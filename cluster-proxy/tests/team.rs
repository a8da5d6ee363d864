//! kube-atlas for a team, attacked as an attacker would: the real binary run as in a pod
//! (`--in-cluster`, the environment and the ServiceAccount token and CA given by path) in
//! front of a real kube-apiserver with RBAC, where the dashboard's own ServiceAccount is
//! cluster-admin. Users sign in with their own tokens; every request is theirs.

mod support;

use std::time::Duration;

use support::team::{
    ask, closes, frame_where, open_socket, sign_in, start_team_plane, watch, websocket_headers,
    TeamAtlas, TeamPlane, VICTIM,
};

const VIEWER: &str = envtest::VIEWER_TOKEN;
const ADMIN: &str = envtest::ADMIN_TOKEN;

async fn plane() -> TeamPlane {
    tokio::task::spawn_blocking(start_team_plane)
        .await
        .expect("the control plane")
}

#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_session_from_another_origin_or_after_sign_out_nothing_gets_through() {
    let plane = plane().await;
    let www = tempfile::tempdir().expect("a dist folder");
    std::fs::write(
        www.path().join("index.html"),
        "<html><head><title>Kube Atlas</title></head><body></body></html>",
    )
    .expect("index.html");
    let www_dir = www.path().display().to_string();
    let atlas = TeamAtlas::start(&plane, &["--www", &www_dir]);
    let addr = atlas.addr;
    let origin = atlas.origin();
    let mut bodies = Vec::new();

    // No cookie: no API access, the page sends the browser to sign in.
    for path in [
        VICTIM,
        "/clusters",
        "/kube-atlas/session",
        "/clusters/in-cluster/api/v1/namespaces/default/configmaps?watch=true",
    ] {
        let answer = ask(addr, "GET", path, &[], "").await;
        assert_eq!(
            answer.status, 401,
            "{path} without a session: {}",
            answer.body
        );
        bodies.push(answer.body);
    }
    let deleted = ask(addr, "DELETE", VICTIM, &[("origin", &origin)], "").await;
    assert_eq!(deleted.status, 401, "a delete without a session");
    let page = ask(addr, "GET", "/", &[], "").await;
    assert_eq!(page.status, 303, "the page without a session");
    assert_eq!(
        page.headers.get("location").and_then(|v| v.to_str().ok()),
        Some("/kube-atlas/sign-in")
    );
    let socket = ask(
        addr,
        "GET",
        "/kube-atlas/multiplex",
        &websocket_headers(&origin, None),
        "",
    )
    .await;
    assert_eq!(
        socket.status, 401,
        "the multiplexing socket without a session"
    );

    // A token the cluster does not know makes no session, and the page says why.
    let (cookie, refused) = sign_in(&atlas, "not-a-token-anyone-knows").await;
    assert_eq!(refused.status, 401);
    assert!(cookie.is_none(), "no cookie for a wrong token");
    assert!(
        refused.body.contains("does not accept this token"),
        "{}",
        refused.body
    );

    // Signing in from another origin (login CSRF) is refused.
    let foreign_sign_in = ask(
        addr,
        "POST",
        "/kube-atlas/sign-in",
        &[
            ("origin", "https://evil.example"),
            ("content-type", "application/x-www-form-urlencoded"),
        ],
        &format!("token={VIEWER}"),
    )
    .await;
    assert_eq!(foreign_sign_in.status, 403, "sign-in from another origin");

    // The viewer signs in: an HttpOnly, SameSite=Lax cookie, and the token nowhere.
    let (cookie, signed_in) = sign_in(&atlas, VIEWER).await;
    assert_eq!(signed_in.status, 303, "{}", signed_in.body);
    let set_cookie = signed_in.headers["set-cookie"].to_str().expect("text");
    assert!(
        set_cookie.contains("HttpOnly") && set_cookie.contains("SameSite=Lax"),
        "{set_cookie}"
    );
    let cookie = cookie.expect("a session cookie");
    bodies.push(signed_in.body);
    let session = ask(
        addr,
        "GET",
        "/kube-atlas/session",
        &[("cookie", &cookie)],
        "",
    )
    .await;
    assert_eq!(session.status, 200, "{}", session.body);
    let who: serde_json::Value = serde_json::from_str(&session.body).expect("JSON");
    assert_eq!(who["user"], "viewer");
    assert!(who["groups"]
        .as_array()
        .is_some_and(|g| g.contains(&"viewers".into())));
    bodies.push(session.body);
    let again = ask(
        addr,
        "GET",
        "/kube-atlas/sign-in",
        &[("cookie", &cookie)],
        "",
    )
    .await;
    assert_eq!(again.status, 303, "the sign-in page when signed in already");
    // The page served says who is signed in (for its header), and nothing of the token.
    let page = ask(addr, "GET", "/", &[("cookie", &cookie)], "").await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains(r#"<script type="application/json" id="kube-atlas-session">{"user":"viewer","groups":["viewers","system:authenticated"],"signOut":"/kube-atlas/sign-out"}</script>"#),
        "{}",
        page.body
    );
    bodies.push(page.body);
    let listed = ask(
        addr,
        "GET",
        "/clusters/in-cluster/api/v1/namespaces/default/configmaps",
        &[("cookie", &cookie)],
        "",
    )
    .await;
    assert_eq!(
        listed.status, 200,
        "the viewer lists configmaps: {}",
        listed.body
    );
    bodies.push(listed.body);

    // Another origin's page, with the browser's cookie: no write, no WebSocket.
    let foreign = ask(
        addr,
        "DELETE",
        VICTIM,
        &[("cookie", &cookie), ("origin", "https://evil.example")],
        "",
    )
    .await;
    // Refused by kube-atlas, not by RBAC: the viewer's delete would be refused there too.
    assert_eq!(
        foreign.status, 403,
        "a delete from another origin: {}",
        foreign.body
    );
    assert!(
        foreign.body.contains("pages of another origin"),
        "refused by kube-atlas: {}",
        foreign.body
    );
    let foreign_review = ask(
        addr,
        "POST",
        "/clusters/in-cluster/apis/authentication.k8s.io/v1/selfsubjectreviews",
        &[
            ("cookie", &cookie),
            ("origin", "https://evil.example"),
            ("content-type", "application/json"),
        ],
        r#"{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}"#,
    )
    .await;
    assert_eq!(
        foreign_review.status, 403,
        "a POST any user may make, from another origin: {}",
        foreign_review.body
    );
    let no_origin = ask(
        addr,
        "POST",
        "/clusters/in-cluster/api/v1/namespaces/default/configmaps",
        &[("cookie", &cookie)],
        "{}",
    )
    .await;
    assert_eq!(
        no_origin.status, 403,
        "a write without Origin: {}",
        no_origin.body
    );
    assert!(
        no_origin.body.contains("without an Origin"),
        "refused by kube-atlas: {}",
        no_origin.body
    );
    let foreign_socket = ask(
        addr,
        "GET",
        "/kube-atlas/multiplex",
        &websocket_headers("https://evil.example", Some(&cookie)),
        "",
    )
    .await;
    assert_eq!(
        foreign_socket.status, 403,
        "a WebSocket from another origin"
    );
    let own_socket = support::send(
        addr,
        "GET",
        "/kube-atlas/multiplex",
        &websocket_headers(&origin, Some(&cookie)),
        "",
    )
    .await;
    assert_eq!(own_socket.status(), 101, "the page's own WebSocket opens");
    drop(own_socket);

    // Signed out: the same cookie, replayed, opens nothing.
    let signed_out = ask(
        addr,
        "POST",
        "/kube-atlas/sign-out",
        &[("cookie", &cookie), ("origin", &origin)],
        "",
    )
    .await;
    assert_eq!(signed_out.status, 303);
    for path in [VICTIM, "/kube-atlas/session"] {
        let replayed = ask(addr, "GET", path, &[("cookie", &cookie)], "").await;
        assert_eq!(
            replayed.status, 401,
            "{path} with a signed-out cookie: {}",
            replayed.body
        );
    }
    let replayed_socket = ask(
        addr,
        "GET",
        "/kube-atlas/multiplex",
        &websocket_headers(&origin, Some(&cookie)),
        "",
    )
    .await;
    assert_eq!(
        replayed_socket.status, 401,
        "a WebSocket with a signed-out cookie"
    );

    // The tokens are in no answer and no log line; the log says who did what.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let output = atlas.output();
    for token in [
        VIEWER,
        plane.service_account_token.as_str(),
        "not-a-token-anyone-knows",
    ] {
        for body in &bodies {
            assert!(!body.contains(token), "a token in an answer: {body}");
        }
        assert!(
            !output.contains(token),
            "a token in kube-atlas's output:\n{output}"
        );
    }
    let line = output
        .lines()
        .find(|line| line.contains(r#""user":"viewer""#) && line.contains("configmaps"))
        .unwrap_or_else(|| panic!("no access log line of the viewer's list:\n{output}"));
    let line: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
    assert_eq!(line["verb"], "get");
    assert_eq!(line["status"], 200);
    assert!(line["duration_ms"].is_number());
}

#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_user_acts_with_their_own_rights_never_the_dashboards() {
    let plane = plane().await;
    // The dashboard's own ServiceAccount could delete anything; the viewer may not.
    assert_eq!(
        plane.can_i(&plane.service_account_token, "delete", "configmaps"),
        "yes"
    );
    assert_eq!(plane.can_i(VIEWER, "delete", "configmaps"), "no");
    let mut atlas = TeamAtlas::start(&plane, &["--max-streams-per-session", "2"]);
    let addr = atlas.addr;
    let origin = atlas.origin();

    // Probes answer whatever the Host (the kubelet sends the pod's address).
    for probe in ["/healthz", "/readyz"] {
        let answer = ask(addr, "GET", probe, &[("host", "10.244.0.7:8080")], "").await;
        assert_eq!(answer.status, 200, "{probe}: {}", answer.body);
    }

    let (viewer, _) = sign_in(&atlas, VIEWER).await;
    let viewer = viewer.expect("the viewer's session");
    let refused = ask(
        addr,
        "DELETE",
        VICTIM,
        &[("cookie", &viewer), ("origin", &origin)],
        "",
    )
    .await;
    assert_eq!(refused.status, 403, "the viewer deletes: {}", refused.body);
    assert!(
        refused.body.contains(r#"User \"viewer\" cannot delete"#),
        "refused as the viewer: {}",
        refused.body
    );
    assert!(plane.victim_exists(), "the viewer's delete went through");

    // A session holds at most its streams (2 here), over HTTP and the socket together; the
    // third watch is refused either way.
    let watch_path = "/api/v1/namespaces/default/configmaps?watch=true";
    let http_watch = format!("/clusters/in-cluster{watch_path}");
    let first = support::send(addr, "GET", &http_watch, &[("cookie", &viewer)], "").await;
    assert_eq!(first.status().as_u16(), 200);
    let mut socket = open_socket(&atlas, &viewer).await;
    let mut seen = Vec::new();
    watch(&mut socket, 1, watch_path).await;
    watch(&mut socket, 2, watch_path).await;
    for (id, status) in [(1, 200), (2, 429)] {
        let frame = frame_where(&mut socket, &mut seen, |f| {
            f["id"] == id && f["status"].is_number()
        })
        .await
        .unwrap_or_else(|| panic!("no status for stream {id}: {seen:?}"));
        assert_eq!(frame["status"], status, "socket stream {id}: {seen:?}");
    }
    let third = ask(addr, "GET", &http_watch, &[("cookie", &viewer)], "").await;
    assert_eq!(
        third.status, 429,
        "a third stream over HTTP: {}",
        third.body
    );
    drop((first, socket));

    // A token the cluster stops taking (its ServiceAccount deleted) ends the session.
    let kubectl = |args: &[&str]| {
        plane
            .plane
            .kubectl_ok(args)
            .unwrap_or_else(|e| panic!("kubectl {args:?}: {e}"))
    };
    kubectl(&["create", "serviceaccount", "leaver", "--namespace=default"]);
    let leaver_token = kubectl(&["create", "token", "leaver", "--namespace=default"]);
    let (leaver, _) = sign_in(&atlas, leaver_token.trim()).await;
    let leaver = leaver.expect("the leaver's session");
    let session = ask(
        addr,
        "GET",
        "/kube-atlas/session",
        &[("cookie", &leaver)],
        "",
    )
    .await;
    assert_eq!(session.status, 200, "{}", session.body);
    kubectl(&["delete", "serviceaccount", "leaver", "--namespace=default"]);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let refused = loop {
        let answer = ask(addr, "GET", VICTIM, &[("cookie", &leaver)], "").await;
        if answer.status == 401 || std::time::Instant::now() > deadline {
            break answer;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(
        refused.status, 401,
        "a deleted ServiceAccount's token: {}",
        refused.body
    );
    assert!(refused.body.contains("sign in again"), "{}", refused.body);
    let session = ask(
        addr,
        "GET",
        "/kube-atlas/session",
        &[("cookie", &leaver)],
        "",
    )
    .await;
    assert_eq!(
        session.status, 401,
        "the session outlived its token: {}",
        session.body
    );

    let (admin, _) = sign_in(&atlas, ADMIN).await;
    let admin = admin.expect("the admin's session");
    let deleted = ask(
        addr,
        "DELETE",
        VICTIM,
        &[("cookie", &admin), ("origin", &origin)],
        "",
    )
    .await;
    assert_eq!(deleted.status, 200, "the admin deletes: {}", deleted.body);
    assert!(!plane.victim_exists(), "the admin's delete did not happen");
    let output = atlas.output();
    assert!(
        output.contains(r#""user":"admin","method":"DELETE","verb":"delete""#),
        "{output}"
    );

    // SIGTERM: the server stops at once when nothing is open, and says so.
    let status = atlas
        .terminate(Duration::from_secs(15))
        .expect("kube-atlas stops on SIGTERM");
    assert!(status.success(), "{status}: {}", atlas.output());
    assert!(atlas.output().contains("kube-atlas: stopping"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn not_ready_while_the_api_server_does_not_answer_yet_alive() {
    let dir = tempfile::tempdir().expect("a folder");
    // A real certificate, so the client is built and only the connection fails.
    let ca_file = dir.path().join("ca.crt");
    let made = std::process::Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=ca", "-days", "1",
        ])
        .arg("-keyout")
        .arg(dir.path().join("ca.key"))
        .arg("-out")
        .arg(&ca_file)
        .output()
        .expect("openssl runs");
    assert!(made.status.success(), "{made:?}");
    let token_file = dir.path().join("token");
    std::fs::write(&token_file, "never read").expect("a token file");
    // Nothing listens on the API server's port.
    let closed_port = envtest::free_port().to_string();
    let atlas = TeamAtlas::start_as_in_a_pod(&token_file, &ca_file, "127.0.0.1", &closed_port, &[]);
    let alive = ask(atlas.addr, "GET", "/healthz", &[], "").await;
    assert_eq!(alive.status, 200, "{}", alive.body);
    let ready = ask(atlas.addr, "GET", "/readyz", &[], "").await;
    assert_eq!(ready.status, 503, "{}", ready.body);
}

#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn socket_watches_are_the_users_and_end_cleanly_on_sign_out_and_on_sigterm() {
    let plane = plane().await;
    let mut atlas = TeamAtlas::start(&plane, &[]);
    let origin = atlas.origin();
    let (viewer, _) = sign_in(&atlas, VIEWER).await;
    let viewer = viewer.expect("the viewer's session");

    // Over the socket too, each watch is the viewer's: default yes, kube-system no.
    let mut socket = open_socket(&atlas, &viewer).await;
    let mut seen = Vec::new();
    watch(
        &mut socket,
        1,
        "/api/v1/namespaces/default/configmaps?watch=true",
    )
    .await;
    watch(
        &mut socket,
        2,
        "/api/v1/namespaces/kube-system/configmaps?watch=true",
    )
    .await;
    for (id, status) in [(1, 200), (2, 403)] {
        let frame = frame_where(&mut socket, &mut seen, |f| {
            f["id"] == id && f["status"].is_number()
        })
        .await
        .unwrap_or_else(|| panic!("no status for stream {id}: {seen:?}"));
        assert_eq!(frame["status"], status, "stream {id}: {seen:?}");
    }

    // Signing out ends the session's open watch (its `end`, as the server ending a watch)
    // and closes the socket.
    let signed_out = ask(
        atlas.addr,
        "POST",
        "/kube-atlas/sign-out",
        &[("cookie", &viewer), ("origin", &origin)],
        "",
    )
    .await;
    assert_eq!(signed_out.status, 303);
    let ended = frame_where(&mut socket, &mut seen, |f| f["id"] == 1 && f["end"] == true).await;
    assert!(
        ended.is_some(),
        "the watch did not end at sign-out: {seen:?}"
    );
    assert!(
        closes(&mut socket).await,
        "the socket stays open after sign-out"
    );

    // SIGTERM: the open watch gets its `end`, the socket its close, and kube-atlas exits 0.
    let (admin, _) = sign_in(&atlas, ADMIN).await;
    let admin = admin.expect("the admin's session");
    let mut socket = open_socket(&atlas, &admin).await;
    let mut seen = Vec::new();
    watch(&mut socket, 7, "/api/v1/configmaps?watch=true").await;
    let started = frame_where(&mut socket, &mut seen, |f| {
        f["id"] == 7 && f["status"] == 200
    })
    .await;
    assert!(started.is_some(), "the admin's watch: {seen:?}");
    let stopping = tokio::task::spawn_blocking(move || {
        let status = atlas.terminate(Duration::from_secs(15));
        (status, atlas)
    });
    let ended = frame_where(&mut socket, &mut seen, |f| f["id"] == 7 && f["end"] == true).await;
    assert!(
        ended.is_some(),
        "the watch did not end at SIGTERM: {seen:?}"
    );
    assert!(
        closes(&mut socket).await,
        "the socket stays open at SIGTERM"
    );
    let (status, atlas) = stopping.await.expect("terminate");
    let status = status.expect("kube-atlas exits after SIGTERM");
    assert!(status.success(), "{status}: {}", atlas.output());
}
