//! kube-atlas in front of either backend, with two contexts: `admin` and `viewer` (who may
//! read pods in `default` but not create `pods/portforward`). The real control plane runs
//! kube-apiserver with the stand-in kubelet's streaming server (`--streams`), whose forwarded
//! ports answer HTTP with `Hello from pod NS/NAME, port P: GET /path`; the demo cluster runs
//! its simulated kubelets. Objects are written through kube-atlas as the admin, the same way on
//! both.

use std::net::SocketAddr;
use std::time::Duration;

use envtest::{ContextEntry, Credentials, ServerCheck};
use http_body_util::BodyExt;
use kube_atlas_server::RunningServer;
use serde_json::{json, Value};

use super::{get, quick_timeouts, send, start_atlas};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Real,
    Demo,
}

/// One real control plane at a time: two at once on two cores slow each other past timeouts.
static REAL_PLANES: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

pub struct Cluster {
    pub atlas: RunningServer,
    pub backend: Backend,
    _plane: Option<envtest::ControlPlane>,
    _demo: Option<demo_cluster::RunningCluster>,
    _tokens: tempfile::TempDir,
    _one_plane: Option<tokio::sync::MutexGuard<'static, ()>>,
}

fn example(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../demo-cluster")
        .join(name)
}

impl Cluster {
    pub async fn start(backend: Backend) -> Cluster {
        let tokens = tempfile::tempdir().expect("a folder for the tokens file");
        let (plane, demo, server, guard) = match backend {
            Backend::Real => {
                let guard = REAL_PLANES.lock().await;
                let plane = tokio::task::spawn_blocking(|| {
                    let plane = envtest::ControlPlane::start(envtest::Options {
                        controllers: false,
                        nodes: 1,
                    })?;
                    plane.prepare_without_controllers()?;
                    Ok::<_, String>(plane)
                })
                .await
                .expect("the control plane's thread")
                .unwrap_or_else(|e| panic!("a control plane starts: {e}"));
                let server = plane.server_url();
                (Some(plane), None, server, Some(guard))
            }
            Backend::Demo => {
                let file = tokens.path().join("tokens.csv");
                std::fs::write(&file, envtest::tokens_csv()).expect("tokens written");
                let demo = demo_cluster::start(demo_cluster::Config {
                    listen: SocketAddr::from(([127, 0, 0, 1], 0)),
                    empty: true,
                    speed: 50.0,
                    token_auth_file: Some(file),
                    tls_cert_file: Some(example("tls.example.crt")),
                    tls_private_key_file: Some(example("tls.example.key")),
                    ..Default::default()
                })
                .await
                .expect("the demo cluster starts");
                let server = demo.url();
                (None, Some(demo), server, None)
            }
        };
        let context = |name, token| ContextEntry {
            name,
            server: server.clone(),
            check: ServerCheck::Unchecked,
            credentials: Credentials::Token(token),
        };
        let kubeconfig = envtest::kubeconfig_of(&[
            context("admin", envtest::ADMIN_TOKEN),
            context("viewer", envtest::VIEWER_TOKEN),
        ]);
        let atlas = start_atlas(&kubeconfig, quick_timeouts()).await;
        Cluster {
            atlas,
            backend,
            _plane: plane,
            _demo: demo,
            _tokens: tokens,
            _one_plane: guard,
        }
    }

    /// The real control plane's admin kubeconfig (for kubectl); `None` on the demo.
    pub fn admin_kubeconfig(&self) -> Option<std::path::PathBuf> {
        self._plane.as_ref().map(|plane| plane.admin_kubeconfig())
    }

    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.atlas.addr.port())
    }

    /// Sends `method path` to kube-atlas as its own page would, with a JSON body: the status
    /// and the answer as JSON (`Null` when it is none).
    pub async fn call(&self, method: &str, path: &str, body: &Value) -> (u16, Value) {
        let origin = self.origin();
        let headers = [
            ("origin", origin.as_str()),
            ("content-type", "application/json"),
        ];
        let text = if body.is_null() {
            String::new()
        } else {
            body.to_string()
        };
        let response = send(self.atlas.addr, method, path, &headers, &text).await;
        let status = response.status().as_u16();
        let bytes = response
            .into_body()
            .collect()
            .await
            .expect("the answer")
            .to_bytes();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    /// Creates an object in `default` as the admin (`resources`: `pods`, `services`).
    pub async fn create(&self, resources: &str, object: Value) {
        let path = format!("/clusters/admin/api/v1/namespaces/default/{resources}");
        let (status, answer) = self.call("POST", &path, &object).await;
        assert_eq!(status, 201, "creating {resources}: {answer}");
    }

    pub async fn delete_pod(&self, name: &str) {
        let path = format!("/clusters/admin/api/v1/namespaces/default/pods/{name}");
        let (status, answer) = self.call("DELETE", &path, &Value::Null).await;
        assert_eq!(status, 200, "deleting pod {name}: {answer}");
    }

    /// A pod `name` in `default` with `labels` and a container port `http` 8080, once it runs
    /// and is ready.
    pub async fn running_pod(&self, name: &str, labels: Value) {
        let mut pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": labels},
            "spec": {"containers": [{"name": "web", "image": "nginx",
                "ports": [{"name": "http", "containerPort": 8080}]}]}});
        if self.backend == Backend::Real {
            // No scheduler runs: the pod is placed on the stand-in kubelet's node itself.
            pod["spec"]["nodeName"] = json!("node-1");
        }
        self.create("pods", pod).await;
        let path = format!("/clusters/admin/api/v1/namespaces/default/pods/{name}");
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            let (_, body) = get(self.atlas.addr, &path, &[]).await;
            let pod: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
            let ready = pod["status"]["conditions"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|c| c["type"] == "Ready" && c["status"] == "True");
            if ready && pod["status"]["phase"] == "Running" {
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{name} never got ready: {pod}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Starts a forward as the page would; the status and the answer.
    pub async fn start_forward(
        &self,
        context: &str,
        kind: &str,
        name: &str,
        port: Value,
        local_port: Option<u16>,
    ) -> (u16, Value) {
        let request = json!({"context": context, "namespace": "default",
            "target": {"kind": kind, "name": name}, "port": port,
            "localPort": local_port, "keepAfterPageCloses": true});
        self.call("POST", "/kube-atlas/forwards", &request).await
    }

    pub async fn forward(&self, id: &str) -> Value {
        let (status, info) = self
            .call("GET", &format!("/kube-atlas/forwards/{id}"), &Value::Null)
            .await;
        assert_eq!(status, 200, "forward {id}: {info}");
        info
    }

    /// Waits (20 s at most) until forward `id` passes `test`, and returns it.
    pub async fn wait_for_forward(&self, id: &str, test: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let info = self.forward(id).await;
            if test(&info) {
                return info;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "forward {id} stayed {info}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// The local address of a forward's answer (`127.0.0.1:PORT`).
pub fn local_address(info: &Value) -> SocketAddr {
    info["localAddress"]
        .as_str()
        .and_then(|text| text.parse().ok())
        .unwrap_or_else(|| panic!("no local address in {info}"))
}
