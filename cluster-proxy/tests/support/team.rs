//! kube-atlas as a team runs it: the `kube-atlas` binary started as in a pod (in-cluster
//! environment, a ServiceAccount token and the CA given by path) in front of a real
//! kube-apiserver, every line it prints kept, and the requests a browser (or an attacker's
//! page) would send.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::BodyExt;

use super::send;

/// A started control plane for team tests: no controllers, no nodes, a ConfigMap `victim` in
/// `default`, and the dashboard's own ServiceAccount `kube-atlas` bound to cluster-admin (so
/// that a request made with the dashboard's token could do anything: the tests prove users'
/// requests never are).
pub struct TeamPlane {
    pub plane: envtest::ControlPlane,
    /// The dashboard ServiceAccount's token, written where a pod has it mounted.
    pub service_account_token: String,
    pub token_file: PathBuf,
    pub ca_file: PathBuf,
}

pub fn start_team_plane() -> TeamPlane {
    let plane = envtest::ControlPlane::start(envtest::Options {
        controllers: false,
        nodes: 0,
    })
    .unwrap_or_else(|e| panic!("a control plane starts: {e}"));
    let kubectl = |args: &[&str]| kubectl(&plane, args);
    kubectl(&[
        "create",
        "configmap",
        "victim",
        "--namespace=default",
        "--from-literal=a=1",
    ]);
    // What `view` gives in `default` (no controller aggregates the ClusterRole here): reading
    // ConfigMaps, never writing them.
    kubectl(&[
        "create",
        "role",
        "configmap-reader",
        "--verb=get,list,watch",
        "--resource=configmaps",
        "--namespace=default",
    ]);
    kubectl(&[
        "create",
        "rolebinding",
        "viewers-read-configmaps",
        "--role=configmap-reader",
        "--group=viewers",
        "--namespace=default",
    ]);
    let service_account_token = dashboard_service_account(&plane, "cluster-admin");
    let viewer = format!("--token={}", envtest::VIEWER_TOKEN);
    wait_until_allowed(
        &plane,
        &["list", "configmaps", &viewer],
        Duration::from_secs(20),
    );
    TeamPlane::new(plane, service_account_token)
}

/// The dashboard's ServiceAccount `default/kube-atlas`, bound to `cluster_role` cluster-wide:
/// a token of it.
pub fn dashboard_service_account(plane: &envtest::ControlPlane, cluster_role: &str) -> String {
    kubectl(
        plane,
        &[
            "create",
            "serviceaccount",
            "kube-atlas",
            "--namespace=default",
        ],
    );
    kubectl(
        plane,
        &[
            "create",
            "clusterrolebinding",
            &format!("kube-atlas-is-{cluster_role}"),
            &format!("--clusterrole={cluster_role}"),
            "--serviceaccount=default:kube-atlas",
        ],
    );
    kubectl(
        plane,
        &["create", "token", "kube-atlas", "--namespace=default"],
    )
    .trim()
    .to_string()
}

/// Waits until `kubectl auth can-i ARGS --namespace=default` answers yes: RBAC reads its
/// objects through a watch, so a binding holds a moment after it is made (and an aggregated
/// ClusterRole once the controller manager has filled it).
pub fn wait_until_allowed(plane: &envtest::ControlPlane, args: &[&str], within: Duration) {
    let deadline = std::time::Instant::now() + within;
    let mut command = vec!["auth", "can-i", "--namespace=default"];
    command.extend_from_slice(args);
    loop {
        let answer = plane
            .kubectl(&command)
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
            .unwrap_or_default();
        if answer == "yes" {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still not allowed: kubectl {command:?}: {answer}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// `kubectl` as the admin on `plane`, run to its end: its standard output, or a panic with its
/// words.
pub fn kubectl(plane: &envtest::ControlPlane, args: &[&str]) -> String {
    plane
        .kubectl_ok(args)
        .unwrap_or_else(|e| panic!("kubectl {args:?}: {e}"))
}

impl TeamPlane {
    /// `plane` as a pod sees it: `service_account_token` written where it is mounted, the API
    /// server's CA beside it.
    pub fn new(plane: envtest::ControlPlane, service_account_token: String) -> TeamPlane {
        let token_file = plane.dir().join("serviceaccount-token");
        std::fs::write(&token_file, &service_account_token).expect("token file");
        let ca_file = plane.dir().join("certs/apiserver.crt");
        TeamPlane {
            plane,
            service_account_token,
            token_file,
            ca_file,
        }
    }

    /// Whether the ConfigMap `victim` is still there.
    pub fn victim_exists(&self) -> bool {
        self.plane
            .kubectl(&["get", "configmap", "victim", "--namespace=default"])
            .is_ok_and(|out| out.status.success())
    }

    /// What `kubectl auth can-i VERB RESOURCE -n default` answers for `token`.
    pub fn can_i(&self, token: &str, verb: &str, resource: &str) -> String {
        let out = self
            .plane
            .kubectl(&[
                "auth",
                "can-i",
                verb,
                resource,
                "--namespace=default",
                &format!("--token={token}"),
            ])
            .expect("kubectl runs");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    fn api_server_port(&self) -> String {
        self.plane
            .server_url()
            .rsplit(':')
            .next()
            .unwrap_or_default()
            .to_string()
    }
}

/// The `kube-atlas` binary running as in a pod; killed on drop.
pub struct TeamAtlas {
    pub addr: SocketAddr,
    child: Child,
    /// Everything it printed, stdout and stderr.
    output: Arc<Mutex<String>>,
}

impl TeamAtlas {
    /// Starts `kube-atlas --in-cluster` with `extra` flags, and waits for its address.
    pub fn start(plane: &TeamPlane, extra: &[&str]) -> TeamAtlas {
        TeamAtlas::start_with_env(plane, extra, &[])
    }

    /// As [`TeamAtlas::start`], with `env` set besides the pod's.
    pub fn start_with_env(plane: &TeamPlane, extra: &[&str], env: &[(&str, &str)]) -> TeamAtlas {
        let port = plane.api_server_port();
        TeamAtlas::spawn(
            &plane.token_file,
            &plane.ca_file,
            ("127.0.0.1", &port),
            extra,
            env,
        )
    }

    /// Starts `kube-atlas --in-cluster` with the pod's token and CA files, and
    /// KUBERNETES_SERVICE_HOST and _PORT, as a pod has them.
    pub fn start_as_in_a_pod(
        token_file: &std::path::Path,
        ca_file: &std::path::Path,
        service_host: &str,
        service_port: &str,
        extra: &[&str],
    ) -> TeamAtlas {
        let service = (service_host, service_port);
        TeamAtlas::spawn(token_file, ca_file, service, extra, &[])
    }

    /// As [`TeamAtlas::start_as_in_a_pod`], with `env` set besides the pod's.
    pub fn start_as_in_a_pod_with_env(
        token_file: &std::path::Path,
        ca_file: &std::path::Path,
        service: (&str, &str),
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> TeamAtlas {
        TeamAtlas::spawn(token_file, ca_file, service, extra, env)
    }

    fn spawn(
        token_file: &std::path::Path,
        ca_file: &std::path::Path,
        (service_host, service_port): (&str, &str),
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> TeamAtlas {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kube-atlas"))
            .args([
                "--in-cluster",
                "--listen",
                "127.0.0.1:0",
                "--probe-interval",
                "1",
            ])
            .arg("--token-file")
            .arg(token_file)
            .arg("--ca-file")
            .arg(ca_file)
            .args(extra)
            .env("KUBERNETES_SERVICE_HOST", service_host)
            .env("KUBERNETES_SERVICE_PORT", service_port)
            .envs(env.iter().copied())
            .env_remove("KUBECONFIG")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("kube-atlas starts");
        let output = Arc::new(Mutex::new(String::new()));
        let (address_sender, address) = std::sync::mpsc::channel();
        let stdout = child.stdout.take().expect("stdout piped");
        let stderr = child.stderr.take().expect("stderr piped");
        {
            let output = output.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if let Some(url) = line.strip_prefix("kube-atlas: http://") {
                        let _ = address_sender.send(url.trim_end_matches('/').to_string());
                    }
                    if let Ok(mut output) = output.lock() {
                        output.push_str(&line);
                        output.push('\n');
                    }
                }
            });
        }
        {
            let output = output.clone();
            // Line by line, as it comes: a test reads it while kube-atlas runs.
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    if let Ok(mut output) = output.lock() {
                        output.push_str(&line);
                        output.push('\n');
                    }
                }
            });
        }
        let addr = address
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| {
                panic!(
                    "kube-atlas did not say where it listens: {}",
                    output.lock().map(|o| o.clone()).unwrap_or_default()
                )
            })
            .parse()
            .expect("an address");
        TeamAtlas {
            addr,
            child,
            output,
        }
    }

    /// What it printed so far.
    pub fn output(&self) -> String {
        self.output.lock().map(|o| o.clone()).unwrap_or_default()
    }

    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.addr.port())
    }

    /// Sends SIGTERM, as Kubernetes stops a pod, and waits (up to `within`) for the exit.
    pub fn terminate(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = std::time::Instant::now() + within;
        while std::time::Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for TeamAtlas {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An answer: status, headers and the whole body as text.
pub struct Answer {
    pub status: u16,
    pub headers: http::HeaderMap,
    pub body: String,
}

/// Sends a request and reads all of its answer.
pub async fn ask(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Answer {
    let response = send(addr, method, path, headers, body).await;
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = tokio::time::timeout(Duration::from_secs(20), response.into_body().collect())
        .await
        .expect("the body within 20 s")
        .expect("the whole body")
        .to_bytes();
    Answer {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

/// Signs in with `token` as the dashboard's own sign-in form does (from its own origin); the
/// `Cookie` header value to send after, and the answer.
pub async fn sign_in(atlas: &TeamAtlas, token: &str) -> (Option<String>, Answer) {
    let form = format!(
        "token={}",
        percent_encoding::utf8_percent_encode(token, percent_encoding::NON_ALPHANUMERIC)
    );
    let origin = atlas.origin();
    let answer = ask(
        atlas.addr,
        "POST",
        "/kube-atlas/sign-in",
        &[
            ("origin", &origin),
            ("content-type", "application/x-www-form-urlencoded"),
        ],
        &form,
    )
    .await;
    let cookie = answer
        .headers
        .get(http::header::SET_COOKIE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .map(str::to_string);
    (cookie, answer)
}

/// The request headers of a WebSocket handshake from `origin`, with `cookie` when given.
pub fn websocket_headers<'a>(origin: &'a str, cookie: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut headers = vec![
        ("origin", origin),
        ("connection", "Upgrade"),
        ("upgrade", "websocket"),
        ("sec-websocket-version", "13"),
        ("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="),
    ];
    if let Some(cookie) = cookie {
        headers.push(("cookie", cookie));
    }
    headers
}

/// The path of the ConfigMap `victim` through kube-atlas.
pub const VICTIM: &str = "/clusters/in-cluster/api/v1/namespaces/default/configmaps/victim";

pub type Socket = tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>;

/// The page's multiplexing socket, opened with the session cookie.
pub async fn open_socket(atlas: &TeamAtlas, cookie: &str) -> Socket {
    super::multiplex_socket(atlas.addr, &atlas.origin(), Some(cookie))
        .await
        .expect("the multiplexing socket opens")
}

/// Asks for a watch of `path` on stream `id`.
pub async fn watch(socket: &mut Socket, id: u64, path: &str) {
    use futures_util::SinkExt;
    let open = serde_json::json!({ "op": "open", "id": id, "cluster": "in-cluster", "path": path });
    socket
        .send(tokio_tungstenite::tungstenite::Message::text(
            open.to_string(),
        ))
        .await
        .expect("sent");
}

/// Reads frames (up to 20 s) until one passes `wanted`; `None` when the socket closes first
/// (the frames read are in `seen`).
pub async fn frame_where(
    socket: &mut Socket,
    seen: &mut Vec<serde_json::Value>,
    wanted: impl Fn(&serde_json::Value) -> bool,
) -> Option<serde_json::Value> {
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let message = tokio::time::timeout_at(deadline, socket.next())
            .await
            .unwrap_or_else(|_| panic!("no such frame within 20 s; read {seen:?}"));
        match message {
            Some(Ok(Message::Text(text))) => {
                let frame: serde_json::Value =
                    serde_json::from_str(text.as_str()).expect("every frame is JSON");
                seen.push(frame.clone());
                if wanted(&frame) {
                    return Some(frame);
                }
            }
            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return None,
            Some(Ok(_)) => {}
        }
    }
}

/// Whether the socket closes (a close frame or its end) within 10 s.
pub async fn closes(socket: &mut Socket) -> bool {
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        match tokio::time::timeout_at(deadline, socket.next()).await {
            Err(_) => return false,
            Ok(Some(Ok(Message::Close(_))) | None | Some(Err(_))) => return true,
            Ok(Some(Ok(_))) => {}
        }
    }
}
