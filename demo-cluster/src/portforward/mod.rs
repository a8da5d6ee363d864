//! What answers on a pod's ports: the demo's containers are simulated, so behind
//! `pods/portforward`, `pods/proxy` and `services/proxy` is one small HTTP server per
//! (pod, port) that answers as the stand-in kubelet of `../shared/kubernetes` does
//! (`Hello from pod NS/NAME, port P: GET /path`), so one test can run on both backends.
//!
//! A port answers when a running container of the pod declares it (`ports[].containerPort`,
//! TCP); anything else is what a real node says when nothing listens in the pod's network
//! namespace. An image whose name contains [`HOSTILE_IMAGE_MARK`] serves a hostile HTML page
//! instead, for the dashboard to prove that a pod's page cannot reach the API.
//!
//! The transports are [`websocket`] (the channel protocol `v4.channel.k8s.io`), [`tunnel`]
//! (kubectl's SPDY inside a WebSocket, `SPDY/3.1+portforward.k8s.io`) and the proxies
//! (`http/resource/proxy.rs`).

pub mod container;
pub mod tunnel;
pub mod websocket;

use std::sync::Arc;

use serde_json::Value;

use crate::registry::Registry;

/// The mark, in an image's name, of a container that serves the hostile page
/// (`kube-atlas/hostile-page:1`).
pub const HOSTILE_IMAGE_MARK: &str = "hostile-page";

/// What a listening port serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    /// The stand-in kubelet's text answer.
    Hello,
    /// An HTML page whose script tries to read the API with the viewer's credentials.
    Hostile,
}

/// One forwarded port of one pod, as the session found it when it opened.
#[derive(Debug, Clone)]
pub struct Forwarded {
    pub namespace: String,
    pub pod: String,
    pub uid: String,
    pub port: u16,
}

impl Forwarded {
    pub fn of(pod: &Value, port: u16) -> Forwarded {
        let text = |field: &str| {
            pod["metadata"][field]
                .as_str()
                .unwrap_or_default()
                .to_string()
        };
        Forwarded {
            namespace: text("namespace"),
            pod: text("name"),
            uid: text("uid"),
            port,
        }
    }

    /// What listens on the port now: the pod is looked up again, so a pod deleted (or
    /// replaced under the same name) while a session is open stops answering.
    pub fn listening(&self, registry: &Arc<Registry>) -> Result<Page, String> {
        let current = registry
            .resolve("", "v1", "pods")
            .and_then(|pods| registry.get(&pods, &self.namespace, &self.pod).ok())
            .filter(|pod| pod["metadata"]["uid"].as_str() == Some(self.uid.as_str()));
        match current {
            Some(pod) => listening(&pod, self.port),
            None => Err(self.refused()),
        }
    }

    /// The kubelet's error for a port nothing listens on (the websocket and SPDY handlers'
    /// `error forwarding port P to pod SANDBOX, uid : …`), with containerd's reason: the
    /// sandbox's id stands in for the pod, as the runtime's streaming server sees it.
    pub fn refused(&self) -> String {
        let sandbox = sandbox_id(&self.uid);
        let port = self.port;
        format!(
            "error forwarding port {port} to pod {sandbox}, uid : failed to execute portforward \
             in network namespace \"/var/run/netns/cni-{netns}\": failed to connect to \
             localhost:{port} inside namespace \"{sandbox}\", IPv4: dial tcp4 127.0.0.1:{port}: \
             connect: connection refused IPv6 dial tcp6 [::1]:{port}: connect: connection refused ",
            netns = &sandbox[..8],
        )
    }
}

/// What the pod serves on `port`, or why nothing answers there.
pub fn listening(pod: &Value, port: u16) -> Result<Page, String> {
    let running: Vec<&str> = pod["status"]["containerStatuses"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["state"]["running"].is_object())
        .filter_map(|s| s["name"].as_str())
        .collect();
    let serving = pod["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["name"].as_str().is_some_and(|n| running.contains(&n)))
        .find(|c| declares(c, port));
    match serving {
        Some(container) if is_hostile(container) => Ok(Page::Hostile),
        Some(_) => Ok(Page::Hello),
        None => Err(Forwarded::of(pod, port).refused()),
    }
}

fn declares(container: &Value, port: u16) -> bool {
    container["ports"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|p| {
            p["containerPort"].as_u64() == Some(u64::from(port))
                && p["protocol"].as_str().unwrap_or("TCP") == "TCP"
        })
}

fn is_hostile(container: &Value) -> bool {
    container["image"]
        .as_str()
        .is_some_and(|image| image.contains(HOSTILE_IMAGE_MARK))
}

/// A stable sandbox id for a pod (64 hex digits, as containerd's).
fn sandbox_id(uid: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(format!("sandbox/{uid}").as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
