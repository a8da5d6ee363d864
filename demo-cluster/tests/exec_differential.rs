//! `pods/exec` and `pods/attach` on the demo cluster held to kube-apiserver v1.36 with the
//! stand-in kubelet (`../shared/kubernetes`, `fake_kubelet.py --streams`: its `kubelet-streams`
//! serves exec and attach through Kubernetes' own streaming server, with the built-in shell the
//! demo imitates). The same sessions (the recorded ones of `model/tests/fixtures/terminal`
//! replayed, and more commands) are run on both, over a WebSocket through an unfiltered
//! `kubectl proxy` on the real side, and the handshakes and every message must be the same,
//! byte for byte; so must `kubectl exec`'s output and exit status.
//!
//! Pods as in the recordings: `web` (container `web`), `tty` (container `main` with stdin and a
//! terminal) and `broken` (container `app`, an image that does not exist); bound to the
//! stand-in's `node-1` on the real side (no scheduler runs there), scheduled on the demo.

use std::time::Duration;

use serde_json::{json, Value};

mod common;

use common::terminal::{fixture, render, replay, Msg, Outcome, Step};

struct ChildKilledOnDrop(std::process::Child);

impl Drop for ChildKilledOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `kubectl proxy` to the real side with no rejected paths (the default rejects exec and
/// attach), and its URL.
fn unfiltered_proxy(
    plane: &envtest::ControlPlane,
    cache_dir: &std::path::Path,
) -> (ChildKilledOnDrop, String) {
    let child = std::process::Command::new("kubectl")
        .arg(format!(
            "--kubeconfig={}",
            plane.admin_kubeconfig().display()
        ))
        .arg(format!("--cache-dir={}", cache_dir.display()))
        .args([
            "proxy",
            "--address=127.0.0.1",
            "--port=0",
            "--reject-paths=^/no-path-is-rejected$",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("kubectl proxy starts");
    let mut child = ChildKilledOnDrop(child);
    let port = envtest::announced_port(&mut child.0, "Starting to serve on")
        .expect("kubectl proxy announces its port");
    (child, format!("http://127.0.0.1:{port}"))
}

/// Creates the recordings' pods at `url` (bound to `node` when given) and waits until `web`
/// and `tty` run and `broken` failed its pull.
async fn create_pods(url: &str, node: Option<&str>) {
    let client = common::raw::client_for(url);
    let pods = "/api/v1/namespaces/default/pods";
    if node.is_some() {
        // No controller manager on the real side: the service account pods need is made here.
        let account = json!({"apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": "default"}});
        let request = http::Request::post("/api/v1/namespaces/default/serviceaccounts")
            .header("content-type", "application/json");
        common::raw::send(
            &client,
            request,
            account.to_string().into_bytes(),
            "POST sa",
        )
        .await;
    }
    for (name, container) in [
        ("web", json!({"name": "web", "image": "nginx"})),
        (
            "tty",
            json!({"name": "main", "image": "busybox", "command": ["sh"], "stdin": true, "tty": true}),
        ),
        (
            "broken",
            json!({"name": "app", "image": "example.com/doesnotexist:1"}),
        ),
    ] {
        let mut pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [container]}});
        if let Some(node) = node {
            pod["spec"]["nodeName"] = json!(node);
        }
        let request = http::Request::post(pods).header("content-type", "application/json");
        let reply =
            common::raw::send(&client, request, pod.to_string().into_bytes(), "POST pod").await;
        assert_eq!(reply.status, 201, "{url}: {}", reply.text());
    }
    common::terminal::wait_until_started(&client, pods, url).await;
}

/// One session to run on both sides.
struct Case {
    what: String,
    path: String,
    offered: Vec<String>,
    script: Vec<Step>,
}

const ALL: &str =
    "v5.channel.k8s.io,v4.channel.k8s.io,v4.base64.channel.k8s.io,base64.channel.k8s.io";

fn offer(list: &str) -> Vec<String> {
    list.split(',')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

fn escape(word: &str) -> String {
    word.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `command` run in `web` with stdout and stderr, offering `offered`; read to the close.
fn command_case(command: &[&str], offered: &str) -> Case {
    let query: Vec<String> = command
        .iter()
        .map(|w| format!("command={}", escape(w)))
        .collect();
    Case {
        what: format!("{command:?} offering {offered:?}"),
        path: format!(
            "/api/v1/namespaces/default/pods/web/exec?{}&container=web&stdout=true&stderr=true",
            query.join("&")
        ),
        offered: offer(offered),
        // Read until the close (a message count beyond any of these sessions).
        script: vec![Step::Receive(Msg::Close(None)); 8],
    }
}

fn cases() -> Vec<Case> {
    let mut cases = vec![];
    for name in [
        "v5_hostname.txt",
        "v5_exit_3.txt",
        "v4_exit_3.txt",
        "v4_base64_echo_exit_3.txt",
        "base64_echo_exit_3.txt",
        "v5_nosuchcommand.txt",
        "v5_stdin_close.txt",
        "v5_tty_resize_stty_size.txt",
        "v5_tty_ctrl_c_sleep.txt",
        "v5_attach.txt",
        "v5_attach_tty.txt",
        "v5_container_not_running.txt",
        "v4_hostname.txt",
        "base64_hostname.txt",
        "refused_container_not_valid.txt",
        "refused_unknown_protocol.txt",
    ] {
        let recorded = fixture(name);
        cases.push(Case {
            what: name.to_string(),
            path: recorded.path,
            offered: recorded.offered,
            script: recorded.recorded.steps,
        });
    }
    for command in [
        &["env"][..],
        &["ls", "/etc"],
        &["ls", "/nope"],
        &["cat", "/etc/hosts", "/etc/hostname"],
        &["cat", "/etc"],
        &["seq", "5"],
        &["sh", "-c", "echo a; echo b; exit 7"],
        &["stty", "size"],
        &["whoami"],
        &["/bin/echo", "one", "two"],
        &["printf", "x\\ty\\n"],
        &["bash"],
        &["sh", "-x"],
    ] {
        for offered in [ALL, "v4.channel.k8s.io", "base64.channel.k8s.io"] {
            cases.push(command_case(command, offered));
        }
    }
    // (Nothing offered is left out: the kubelet then answers an empty `Sec-WebSocket-Protocol`
    // header, which WebSocket clients refuse; the demo sends none.)
    // An unknown name first: the first one known.
    cases.push(command_case(
        &["hostname"],
        "x.k8s.io,v4.base64.channel.k8s.io,v4.channel.k8s.io",
    ));
    // No streams: the translator's error on v5, the kubelet's bare 400 otherwise.
    for offered in ["v5.channel.k8s.io", "v4.channel.k8s.io"] {
        cases.push(Case {
            what: format!("no streams offering {offered}"),
            path: "/api/v1/namespaces/default/pods/web/exec?command=hostname&container=web".into(),
            offered: offer(offered),
            script: vec![Step::Receive(Msg::Close(None)); 4],
        });
    }
    // A missing pod, and a container of another pod.
    cases.push(Case {
        what: "a missing pod".into(),
        path: "/api/v1/namespaces/default/pods/gone/exec?command=hostname&stdout=true".into(),
        offered: offer(ALL),
        script: vec![],
    });
    cases.push(Case {
        what: "attach to a container the pod lacks".into(),
        path: "/api/v1/namespaces/default/pods/tty/attach?container=web&stdout=true".into(),
        offered: offer(ALL),
        script: vec![],
    });
    // An interactive shell without a terminal reads lines; its end ends the shell.
    cases.push(Case {
        what: "sh reading lines until stdin closes".into(),
        path: "/api/v1/namespaces/default/pods/web/exec?command=sh&container=web&stdin=true&stdout=true&stderr=true".into(),
        offered: offer(ALL),
        script: vec![
            Step::Receive(Msg::Close(None)),
            Step::Send(Msg::Binary(b"\x00echo one\nnope\n".to_vec())),
            Step::Receive(Msg::Close(None)),
            Step::Receive(Msg::Close(None)),
            Step::Send(Msg::Binary(vec![255, 0])),
            Step::Receive(Msg::Close(None)),
            Step::Receive(Msg::Close(None)),
        ],
    });
    cases
}

/// What may differ, and is normalised away before comparing:
/// - the order of messages *between* stdout and stderr: kube-apiserver relays each of the
///   kubelet's SPDY streams on its own, so a write to stdout and the next to stderr may arrive
///   either way round; within a channel the order is kept, and sent messages stay in place;
/// - the key order of a refused handshake's Status (the demo writes `code` before `details`).
fn normalised(outcome: &Outcome) -> (u16, Option<String>, Value, Vec<Vec<Step>>) {
    let body = serde_json::from_str(&outcome.body).unwrap_or(json!(outcome.body));
    let channel = |step: &Step| match step {
        Step::Receive(Msg::Binary(bytes)) => bytes.first().map_or(0, |c| u32::from(*c) + 1),
        Step::Receive(Msg::Text(text)) => text.bytes().next().map_or(0, |c| u32::from(c) + 1),
        _ => 0,
    };
    // Messages between two sent ones, grouped by channel (in order within each).
    let mut groups: Vec<Vec<Step>> = vec![];
    let mut current: Vec<Step> = vec![];
    for step in &outcome.steps {
        if matches!(step, Step::Send(_)) {
            current.sort_by_key(channel);
            groups.push(std::mem::take(&mut current));
            groups.push(vec![step.clone()]);
        } else {
            current.push(step.clone());
        }
    }
    current.sort_by_key(channel);
    groups.push(current);
    (outcome.status, outcome.protocol.clone(), body, groups)
}

fn same(real: &Outcome, demo: &Outcome) -> bool {
    normalised(real) == normalised(demo)
}

#[tokio::test]
#[cfg_attr(
    not(all(have_control_plane, have_kubectl)),
    ignore = "needs the control-plane binaries (with kubelet-streams) and kubectl"
)]
async fn exec_and_attach_sessions_match_kube_apiserver_with_the_stand_in_kubelet() {
    let plane = envtest::ControlPlane::start(envtest::Options {
        controllers: false,
        nodes: 1,
    })
    .expect("the control plane starts");
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let (_proxy, real) = unfiltered_proxy(&plane, &scratch.path().join("cache"));
    let demo = common::start_on_own_runtime(demo_cluster::Config {
        speed: 50.0,
        ..common::empty_cluster_config()
    })
    .expect("the demo cluster starts");
    // The stand-in registers node-1 a moment after kube-apiserver is up.
    let client = common::raw::client_for(&real);
    let deadline = tokio::time::Instant::now() + common::PATIENCE;
    loop {
        let reply = common::raw::send(
            &client,
            http::Request::get("/api/v1/nodes/node-1"),
            vec![],
            "GET node",
        )
        .await;
        if reply.status == 200 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the stand-in kubelet registered no node"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    tokio::join!(create_pods(&real, Some("node-1")), create_pods(&demo, None));

    let mut differences = vec![];
    for case in cases() {
        let (mut r, d) = tokio::join!(
            replay(&real, &case.path, &case.offered, None, &case.script),
            replay(&demo, &case.path, &case.offered, None, &case.script),
        );
        // The WebSocket client keeps only the part of a refused handshake's body that came
        // with its headers: kube-apiserver's sometimes comes after (seen once in four runs,
        // an empty body beside a 400). Asked again, it says the same in full.
        for _ in 0..3 {
            if r.status == 101 || !r.body.is_empty() {
                break;
            }
            r = replay(&real, &case.path, &case.offered, None, &case.script).await;
        }
        if !same(&r, &d) {
            differences.push(format!(
                "{}:\nkube-apiserver:\n{}demo:\n{}",
                case.what,
                render(&r),
                render(&d)
            ));
        }
    }

    // A plain GET (no upgrade): kube-apiserver asks for one.
    let exec =
        "/api/v1/namespaces/default/pods/web/exec?command=hostname&container=web&stdout=true";
    let plain = |url: String| async move {
        let reply = common::raw::send(
            &common::raw::client_for(&url),
            http::Request::get(exec),
            vec![],
            "GET exec",
        )
        .await;
        (reply.status, reply.json())
    };
    let (r, d) = tokio::join!(plain(real.clone()), plain(demo.clone()));
    if r != d {
        differences.push(format!("plain GET: kube-apiserver {r:?}, demo {d:?}"));
    }

    // kubectl exec, which speaks v5.
    let run = |server: &str, args: &[&str], stdin: Option<&str>| {
        let kubectl = common::Kubectl {
            server: server.to_string(),
            home: tempfile::tempdir().expect("a temporary home"),
        };
        let input = stdin.map(|text| kubectl.manifest("stdin.txt", text));
        let (ok, out, err) = kubectl.run(args, input.as_deref().map(std::path::Path::new));
        json!({"ok": ok, "stdout": out, "stderr": err})
    };
    // `exec -i` with one line of stdin: the stand-in drops lines still queued behind a running
    // command when stdin ends, or runs them, depending on timing (both seen).
    let kubectl_cases: [(&[&str], Option<&str>); 5] = [
        (&["exec", "web", "--", "hostname"], None),
        (&["exec", "web", "--", "sh", "-c", "echo hi; exit 3"], None),
        (&["exec", "web", "--", "nosuchcommand"], None),
        (&["exec", "-i", "web", "--", "sh"], Some("hostname\n")),
        (&["exec", "broken", "--", "hostname"], None),
    ];
    for (args, stdin) in kubectl_cases {
        let (r, d) = (run(&real, args, stdin), run(&demo, args, stdin));
        if r != d {
            differences.push(format!("kubectl {args:?}: kube-apiserver {r}, demo {d}"));
        }
    }
    assert!(
        differences.is_empty(),
        "{} differences:\n{}",
        differences.len(),
        differences.join("\n")
    );
}
