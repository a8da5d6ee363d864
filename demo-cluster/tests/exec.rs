//! `pods/exec` and `pods/attach` on the demo cluster, held to the sessions recorded from
//! kube-apiserver v1.36 and the stand-in kubelet (`model/tests/fixtures/terminal`): each
//! recorded session is replayed over a WebSocket (same path, same protocols offered, the same
//! messages sent at the same points) and the demo must answer the same handshake and the same
//! messages, byte for byte. Then the real `kubectl exec`, which speaks `v5.channel.k8s.io`.
//!
//! One demo cluster serves every test: pods `web` (container `web`, nginx), `tty` (container
//! `main`, started with stdin and a terminal) and `broken` (container `app`, an image that
//! does not exist), named as in the recordings.

use std::sync::OnceLock;

use serde_json::{json, Value};

mod common;

use common::terminal::{fixture, render, replay, Msg, Outcome, Step};

static DEMO: OnceLock<String> = OnceLock::new();

/// The demo cluster's URL, with the recordings' pods created and started.
fn demo() -> &'static str {
    DEMO.get_or_init(|| {
        let url = common::start_on_own_runtime(demo_cluster::Config {
            speed: 50.0,
            ..common::empty_cluster_config()
        })
        .expect("the demo cluster starts");
        let setup_url = url.clone();
        std::thread::spawn(move || {
            tokio::runtime::Runtime::new()
                .expect("a runtime")
                .block_on(create_pods(&setup_url))
        })
        .join()
        .expect("the pods are created");
        url
    })
}

async fn create_pods(url: &str) {
    let client = common::raw::client_for(url);
    let pods = "/api/v1/namespaces/default/pods";
    for pod in [
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
            "spec": {"containers": [{"name": "web", "image": "nginx"}]}}),
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "tty"},
            "spec": {"containers": [{"name": "main", "image": "busybox", "command": ["sh"],
                "stdin": true, "tty": true}]}}),
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "broken"},
            "spec": {"containers": [{"name": "app", "image": "example.com/doesnotexist:1"}]}}),
    ] {
        let request = http::Request::post(pods).header("content-type", "application/json");
        let reply =
            common::raw::send(&client, request, pod.to_string().into_bytes(), "POST pod").await;
        assert_eq!(reply.status, 201, "{}", reply.text());
    }
    common::terminal::wait_until_started(&client, pods, "the demo cluster").await;
}

/// Replays the recorded session `name` on the demo cluster.
async fn replay_fixture(name: &str) -> (Outcome, Outcome) {
    let recorded = fixture(name);
    let script: Vec<Step> = recorded.recorded.steps.clone();
    let answered = replay(demo(), &recorded.path, &recorded.offered, None, &script).await;
    (recorded.recorded, answered)
}

async fn assert_replays(name: &str) {
    let (recorded, answered) = replay_fixture(name).await;
    assert_eq!(
        answered,
        recorded,
        "{name}: the demo answered\n{}\nkube-apiserver answered\n{}",
        render(&answered),
        render(&recorded)
    );
}

#[tokio::test]
async fn exec_hostname_answers_as_kube_apiserver_on_every_protocol() {
    for name in ["v5_hostname.txt", "v4_hostname.txt", "base64_hostname.txt"] {
        assert_replays(name).await;
    }
}

#[tokio::test]
async fn exit_3_reports_the_exit_code_in_each_protocols_words() {
    for name in [
        "v5_exit_3.txt",
        "v4_exit_3.txt",
        "v4_base64_echo_exit_3.txt",
        "base64_echo_exit_3.txt",
    ] {
        assert_replays(name).await;
    }
}

#[tokio::test]
async fn an_unknown_command_is_not_found_with_exit_127() {
    assert_replays("v5_nosuchcommand.txt").await;
}

#[tokio::test]
async fn stty_size_reports_the_last_resize() {
    assert_replays("v5_tty_resize_stty_size.txt").await;
}

#[tokio::test]
async fn ctrl_c_interrupts_sleep_and_ctrl_d_exits_with_130() {
    assert_replays("v5_tty_ctrl_c_sleep.txt").await;
}

#[tokio::test]
async fn closing_stdin_ends_a_shell_reading_it() {
    assert_replays("v5_stdin_close.txt").await;
}

#[tokio::test]
async fn attach_ticks_and_answers_lines_with_and_without_a_terminal() {
    assert_replays("v5_attach.txt").await;
    assert_replays("v5_attach_tty.txt").await;
}

#[tokio::test]
async fn a_container_not_running_is_an_internal_error_on_the_status_channel() {
    assert_replays("v5_container_not_running.txt").await;
}

#[tokio::test]
async fn refused_handshakes_answer_as_kube_apiserver() {
    assert_replays("refused_container_not_valid.txt").await;
    assert_replays("refused_unknown_protocol.txt").await;
    // A pod that does not exist (recorded with curl: `handshake_probes.txt`).
    let missing = replay(
        demo(),
        "/api/v1/namespaces/default/pods/gone/exec?command=hostname&container=web&stdout=true",
        &["v5.channel.k8s.io".to_string()],
        None,
        &[],
    )
    .await;
    assert_eq!(missing.status, 404);
    assert_eq!(
        serde_json::from_str::<Value>(&missing.body).expect("a Status"),
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "pods \"gone\" not found", "reason": "NotFound",
            "details": {"name": "gone", "kind": "pods"}, "code": 404})
    );
}

#[tokio::test]
async fn a_plain_get_is_asked_for_an_upgrade() {
    let client = common::raw::client_for(demo());
    let reply = common::raw::send(
        &client,
        http::Request::get(
            "/api/v1/namespaces/default/pods/web/exec?command=hostname&container=web&stdout=true",
        ),
        vec![],
        "GET exec",
    )
    .await;
    assert_eq!(reply.status, 400);
    assert_eq!(reply.json()["message"], "Upgrade request required");
}

#[tokio::test]
async fn an_exec_without_streams_is_refused_by_the_translator_on_v5_only() {
    let path = "/api/v1/namespaces/default/pods/web/exec?command=hostname&container=web";
    let v5 = replay(
        demo(),
        path,
        &["v5.channel.k8s.io".into()],
        None,
        &[
            Step::Receive(Msg::Close(None)),
            Step::Receive(Msg::Close(None)),
            Step::Receive(Msg::Close(None)),
        ],
    )
    .await;
    let status = r#"{"metadata":{},"status":"Failure","message":"Internal error occurred: unable to upgrade connection: you must specify at least 1 of stdin, stdout, stderr","reason":"InternalError","details":{"causes":[{"message":"unable to upgrade connection: you must specify at least 1 of stdin, stdout, stderr"}]},"code":500}"#;
    let mut with_channel = vec![3u8];
    with_channel.extend(status.as_bytes());
    assert_eq!(
        v5.steps,
        vec![
            Step::Receive(Msg::Binary(vec![3])),
            Step::Receive(Msg::Binary(with_channel)),
            Step::Receive(Msg::Close(Some(1000))),
        ],
        "{}",
        render(&v5)
    );
    let v4 = replay(demo(), path, &["v4.channel.k8s.io".into()], None, &[]).await;
    assert_eq!(
        (v4.status, v4.body.as_str()),
        (400, "you must specify at least 1 of stdin, stdout, stderr")
    );
}

/// `kubectl` with the plain SPDY/3.1 upgrade (`KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false`, as
/// kubectl before 1.30): (exit code, stdout, stderr).
fn kubectl_over_spdy(
    kubectl: &common::Kubectl,
    args: &[&str],
    stdin: Option<&str>,
) -> (Option<i32>, String, String) {
    let mut command = kubectl.command(args);
    command.env("KUBECTL_REMOTE_COMMAND_WEBSOCKETS", "false");
    if let Some(path) = stdin {
        command.stdin(std::fs::File::open(path).expect("stdin file"));
    }
    let out = command.output().expect("kubectl runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
fn kubectl_exec_over_a_plain_spdy_upgrade() {
    let kubectl = kubectl();
    let (code, out, err) = kubectl_over_spdy(&kubectl, &["exec", "web", "--", "echo", "hi"], None);
    assert_eq!((code, out.as_str()), (Some(0), "hi\n"), "{err}");
    let (code, out, err) =
        kubectl_over_spdy(&kubectl, &["exec", "web", "--", "sh", "-c", "exit 3"], None);
    assert_eq!((code, out.as_str()), (Some(3), ""), "{err}");
    assert!(err.contains("command terminated with exit code 3"), "{err}");
    let input = kubectl.manifest("spdy-input.txt", "hostname\n");
    let (code, out, err) =
        kubectl_over_spdy(&kubectl, &["exec", "-i", "web", "--", "sh"], Some(&input));
    assert_eq!((code, out.as_str()), (Some(0), "web\n"), "{err}");
    let (code, _, err) = kubectl_over_spdy(&kubectl, &["exec", "broken", "--", "hostname"], None);
    assert_ne!(code, Some(0));
    assert!(err.contains("is not running"), "{err}");
}

#[test]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
fn kubectl_attach_over_a_plain_spdy_upgrade() {
    let kubectl = kubectl();
    let input = kubectl.manifest("spdy-attach.txt", "hello\n");
    let (code, out, err) = kubectl_over_spdy(
        &kubectl,
        &["attach", "-i", "tty", "-c", "main"],
        Some(&input),
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("received: hello"), "{out}");
}

/// The kubelet's refusals of a plain SPDY upgrade, before it: no stream asked for, no
/// protocol offered, none it knows.
#[tokio::test]
async fn a_plain_spdy_upgrade_is_refused_as_the_kubelet_refuses_it() {
    let client = common::raw::client_for(demo());
    let path = "/api/v1/namespaces/default/pods/web/exec?command=hostname";
    let spdy = |path: String, protocols: &[&str]| {
        let mut request = http::Request::post(path)
            .header("connection", "Upgrade")
            .header("upgrade", "SPDY/3.1");
        for protocol in protocols {
            request = request.header("x-stream-protocol-version", *protocol);
        }
        request
    };
    let none = spdy(path.to_string(), &["v4.channel.k8s.io"]);
    let reply = common::raw::send(&client, none, vec![], "POST exec").await;
    assert_eq!(
        (reply.status, reply.text().as_str()),
        (
            400,
            "you must specify at least 1 of stdin, stdout, stderr\n"
        )
    );
    let path = format!("{path}&stdout=true");
    let reply = common::raw::send(&client, spdy(path.clone(), &[]), vec![], "POST exec").await;
    assert_eq!(
        (reply.status, reply.text().as_str()),
        (
            400,
            "unable to upgrade: X-Stream-Protocol-Version is required\n"
        )
    );
    let unknown = spdy(path, &["v9.channel.k8s.io"]);
    let reply = common::raw::send(&client, unknown, vec![], "POST exec").await;
    assert_eq!(reply.status, 403, "{}", reply.text());
    assert!(
        reply.text().starts_with(
            "unable to upgrade: unable to negotiate protocol: client supports \
             [v9.channel.k8s.io], server accepts [v4.channel.k8s.io"
        ),
        "{}",
        reply.text()
    );
}

/// A terminal on a plain SPDY upgrade, as client-go's v4 opens it (error, resize, stdout
/// streams; the resize sent before stdout opens, so before the process starts): `stty size`
/// prints the size from the resize stream, and the error stream carries the Status.
#[tokio::test]
async fn a_terminal_over_plain_spdy_takes_its_size_from_the_resize_stream() {
    use demo_cluster::spdy::{frame, Frame, FrameReader, HeaderDeflater};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let address = demo().trim_start_matches("http://").to_string();
    let mut tcp = tokio::net::TcpStream::connect(&address)
        .await
        .expect("connects");
    let request = format!(
        "POST /api/v1/namespaces/default/pods/web/exec?command=stty&command=size&stdout=true\
         &tty=true HTTP/1.1\r\nHost: {address}\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\
         X-Stream-Protocol-Version: v5.channel.k8s.io\r\n\
         X-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\n"
    );
    tcp.write_all(request.as_bytes()).await.expect("writes");
    let mut received = vec![];
    let head_end = loop {
        let mut buf = [0u8; 4096];
        let n = tcp.read(&mut buf).await.expect("reads");
        assert!(n > 0, "closed before the head");
        received.extend_from_slice(&buf[..n]);
        if let Some(at) = received.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&received[..head_end]).to_lowercase();
    assert!(head.starts_with("http/1.1 101"), "{head}");
    assert!(head.contains("upgrade: spdy/3.1"), "{head}");
    assert!(
        head.contains("x-stream-protocol-version: v4.channel.k8s.io"),
        "{head}"
    );

    let mut deflater = HeaderDeflater::default();
    let mut out = frame::syn_stream(&mut deflater, 1, false, &[("streamtype", "error")]);
    out.extend(frame::syn_stream(
        &mut deflater,
        3,
        false,
        &[("streamtype", "resize")],
    ));
    out.extend(frame::data(3, br#"{"Width":120,"Height":40}"#, false));
    out.extend(frame::syn_stream(
        &mut deflater,
        5,
        false,
        &[("streamtype", "stdout")],
    ));
    tcp.write_all(&out).await.expect("writes");

    let mut reader = FrameReader::default();
    reader.push(&received[head_end..]);
    let (mut stdout, mut error) = (vec![], vec![]);
    let (mut stdout_done, mut error_done) = (false, false);
    let read = async {
        while !(stdout_done && error_done) {
            while let Some(frame) = reader.next_frame().expect("SPDY/3") {
                if let Frame::Data {
                    stream_id,
                    fin,
                    bytes,
                } = frame
                {
                    let (into, done) = match stream_id {
                        5 => (&mut stdout, &mut stdout_done),
                        1 => (&mut error, &mut error_done),
                        other => panic!("data on stream {other}"),
                    };
                    into.extend(bytes);
                    *done |= fin;
                }
            }
            let mut buf = [0u8; 4096];
            let n = tcp.read(&mut buf).await.expect("reads");
            if n == 0 {
                break;
            }
            reader.push(&buf[..n]);
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), read)
        .await
        .expect("the session ends");
    assert!(stdout_done && error_done);
    assert_eq!(String::from_utf8_lossy(&stdout).trim_end(), "40 120");
    assert_eq!(String::from_utf8_lossy(&error), r#"{"status":"Success"}"#);
}

fn kubectl() -> common::Kubectl {
    common::Kubectl {
        server: demo().to_string(),
        home: tempfile::tempdir().expect("a temporary home"),
    }
}

#[test]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
fn kubectl_exec_runs_a_command_over_websocket() {
    let kubectl = kubectl();
    assert_eq!(kubectl.ok(&["exec", "web", "--", "hostname"]), "web\n");
    assert_eq!(
        kubectl.ok(&["exec", "web", "--", "cat", "/etc/os-release"]),
        "NAME=\"Stand-in Linux\"\nID=standin\nVERSION_ID=1.0\n"
    );
    let (ok, out, err) = kubectl.run(&["exec", "web", "--", "sh", "-c", "echo hi; exit 3"], None);
    assert!(!ok);
    assert_eq!(out, "hi\n");
    assert!(err.contains("command terminated with exit code 3"), "{err}");
    let (ok, _, err) = kubectl.run(&["exec", "broken", "--", "hostname"], None);
    assert!(!ok);
    assert!(
        err.contains("container \\\"app\\\" is not running")
            || err.contains("container \"app\" is not running"),
        "{err}"
    );
}

#[test]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
fn kubectl_exec_i_feeds_stdin_to_the_shell() {
    let kubectl = kubectl();
    // kubectl sends stdin and its end at once: the shell runs the line it has, then ends
    // with stdin (as on the stand-in: lines still queued behind a running command when stdin
    // ends are dropped, so only one line makes a deterministic test).
    let input = kubectl.manifest("input.txt", "hostname\n");
    let (ok, out, err) = kubectl.run(
        &["exec", "-i", "web", "--", "sh"],
        Some(std::path::Path::new(&input)),
    );
    assert!(ok, "{err}");
    assert_eq!(out, "web\n");
    let input = kubectl.manifest("input2.txt", "seq 3\n");
    let (ok, out, err) = kubectl.run(
        &["exec", "-i", "web", "--", "sh"],
        Some(std::path::Path::new(&input)),
    );
    assert!(ok, "{err}");
    assert_eq!(out, "1\n2\n3\n");
}

/// With `--token-auth-file`, an exec WebSocket (a GET) needs `get` on `pods/exec` (the
/// filter) and then `create` (kube-apiserver 1.35+, `AuthorizePodWebsocketUpgradeCreatePermission`),
/// refused in kube-apiserver's words: `refused_viewer_forbidden.txt` for the first, and for the
/// second what kube-apiserver v1.36 answered a user holding `get` alone (no reason, before
/// the pod is looked up).
#[tokio::test]
async fn exec_needs_get_then_create_on_pods_exec() {
    let tokens = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tokens.example.csv");
    let url = common::start_on_own_runtime(demo_cluster::Config {
        speed: 50.0,
        token_auth_file: Some(tokens),
        ..common::empty_cluster_config()
    })
    .expect("the demo cluster starts");
    let recorded = fixture("refused_viewer_forbidden.txt");
    let offered = recorded.offered.clone();
    let viewer = Some(envtest::VIEWER_TOKEN);
    let refused = replay(&url, &recorded.path, &offered, viewer, &[]).await;
    assert_eq!(
        (
            refused.status,
            serde_json::from_str::<Value>(&refused.body).ok()
        ),
        (
            recorded.recorded.status,
            serde_json::from_str::<Value>(&recorded.recorded.body).ok()
        )
    );

    // Give the viewer `get` (not `create`) on pods/exec.
    let client = common::raw::client_for(&url);
    let admin = format!("Bearer {}", envtest::ADMIN_TOKEN);
    for (path, object) in [
        (
            "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                "metadata": {"name": "exec-get"},
                "rules": [{"apiGroups": [""], "resources": ["pods/exec"], "verbs": ["get"]}]}),
        ),
        (
            "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                "metadata": {"name": "viewer-exec-get"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "exec-get"},
                "subjects": [{"kind": "User", "name": "viewer", "apiGroup": "rbac.authorization.k8s.io"}]}),
        ),
    ] {
        let request = http::Request::post(path)
            .header("content-type", "application/json")
            .header("authorization", &admin);
        let reply =
            common::raw::send(&client, request, object.to_string().into_bytes(), path).await;
        assert_eq!(reply.status, 201, "{}", reply.text());
    }
    for pod in ["web", "gone"] {
        let path = recorded
            .path
            .replace("/pods/web/", &format!("/pods/{pod}/"));
        let refused = replay(&url, &path, &offered, viewer, &[]).await;
        assert_eq!(refused.status, 403, "{pod}");
        assert_eq!(
            serde_json::from_str::<Value>(&refused.body).expect("a Status"),
            json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": format!("pods \"{pod}\" is forbidden: "), "reason": "Forbidden",
                "details": {"name": pod, "kind": "pods"}, "code": 403})
        );
    }
}
