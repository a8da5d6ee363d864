//! The contexts of a kubeconfig, each with its client (kube-rs's, holding the context's
//! credentials) and its connection state, kept fresh by a probe of `/version`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::Client;
use serde::Serialize;

/// How long a context's credentials may take to come (an exec plugin runs when the client is
/// built): a plugin waiting for a browser login or a dead network must not hold the others.
pub const DEFAULT_CREDENTIALS_TIMEOUT: Duration = Duration::from_secs(20);
/// How long `/version` may take before the cluster is marked as not answering.
pub const DEFAULT_PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// A cluster's connection as the page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum ClusterState {
    /// Not probed yet.
    Connecting,
    /// `/version` answered.
    Connected {
        /// The server's `gitVersion`.
        version: String,
    },
    /// The last attempt failed; the reason is for the user.
    Failed { reason: String },
}

/// Why a context could not be reached, in the user's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The context's entries in the kubeconfig cannot be used (missing cluster or user, bad
    /// certificate data).
    Config(String),
    /// The credentials did not come (an exec plugin failed, a token file is missing).
    Credentials(String),
    /// The exec plugin (or whatever gives the credentials) did not finish in time.
    CredentialsTimedOut(Duration),
    /// No connection to the server.
    Unreachable { server: String, detail: String },
    /// Connected, but no answer in time.
    NoAnswer { server: String, after: Duration },
    /// The server refused the credentials.
    Unauthorized { status: u16, message: String },
    /// Any other answer to `/version`.
    UnexpectedAnswer { status: u16, body: String },
}

impl Failure {
    /// What the page shows on the cluster's entry.
    pub fn reason(&self) -> String {
        match self {
            Failure::Config(detail) => format!("the kubeconfig entry cannot be used: {detail}"),
            Failure::Credentials(detail) => format!("no credentials: {detail}"),
            Failure::CredentialsTimedOut(after) => format!(
                "no credentials: the exec plugin did not finish within {} s (does it wait for a \
                 login?)",
                after.as_secs()
            ),
            Failure::Unreachable { server, detail } => {
                format!("unreachable: {server}: {detail}")
            }
            Failure::NoAnswer { server, after } => {
                format!("no answer from {server} within {} s", after.as_secs())
            }
            Failure::Unauthorized {
                status: 401,
                message,
            } => format!(
                "the server refused the credentials (401 Unauthorized: the token may have \
                 expired or been revoked){}",
                suffix(message)
            ),
            Failure::Unauthorized { status, message } => {
                format!(
                    "the server refused the credentials ({status}){}",
                    suffix(message)
                )
            }
            Failure::UnexpectedAnswer { status, body } => {
                format!("/version answered {status}{}", suffix(body))
            }
        }
    }
}

fn suffix(text: &str) -> String {
    let text = text.trim();
    if text.is_empty() {
        String::new()
    } else {
        let shortened: String = text.chars().take(300).collect();
        format!(": {shortened}")
    }
}

/// An error and its sources, as one line ("a: b: c"), without repeating a source that its
/// parent already printed.
pub fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// A failed exec plugin in words: its command, exit status and what it printed on stderr
/// (kube-rs's own message shows the raw bytes).
fn describe_auth_error(error: &kube::client::AuthError) -> String {
    match error {
        kube::client::AuthError::AuthExecRun { cmd, out } => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            format!(
                "the exec plugin {cmd} failed ({}){}",
                out.status,
                suffix(&stderr)
            )
        }
        other => error_chain(other),
    }
}

/// Sorts a client-building error (kube-rs runs the exec plugin while building) into a
/// [`Failure`].
pub fn failure_of_client_error(error: &kube::Error) -> Failure {
    match error {
        kube::Error::Auth(auth) => Failure::Credentials(describe_auth_error(auth)),
        other => Failure::Config(error_chain(other)),
    }
}

/// Sorts an error of a request that got no answer into a [`Failure`].
pub fn failure_of_request_error(error: &kube::Error, server: &str) -> Failure {
    match error {
        kube::Error::Auth(auth) => Failure::Credentials(describe_auth_error(auth)),
        other => Failure::Unreachable {
            server: server.to_string(),
            detail: error_chain(other),
        },
    }
}

/// Reads the kubeconfig files (merged in order, as `KUBECONFIG` merges them), or
/// `KUBECONFIG` / `~/.kube/config` when none is given. The error names the file that does not
/// parse.
pub fn read_kubeconfigs(paths: &[PathBuf]) -> Result<Kubeconfig, String> {
    if paths.is_empty() {
        return Kubeconfig::read().map_err(|e| {
            format!(
                "no kubeconfig could be read from KUBECONFIG or ~/.kube/config: {}",
                error_chain(&e)
            )
        });
    }
    let mut merged = Kubeconfig::default();
    for path in paths {
        let config = Kubeconfig::read_from(path).map_err(|e| {
            format!(
                "the kubeconfig {} cannot be read: {}",
                path.display(),
                error_chain(&e)
            )
        })?;
        merged = merged
            .merge(config)
            .map_err(|e| format!("merging {}: {}", path.display(), error_chain(&e)))?;
    }
    Ok(merged)
}

/// The contexts to serve: those asked for (each must exist), else all, in the kubeconfig's
/// order.
pub fn select_contexts(kubeconfig: &Kubeconfig, asked: &[String]) -> Result<Vec<String>, String> {
    let known: Vec<String> = kubeconfig
        .contexts
        .iter()
        .map(|named| named.name.clone())
        .collect();
    if known.is_empty() {
        return Err("the kubeconfig has no contexts".to_string());
    }
    if asked.is_empty() {
        return Ok(known);
    }
    asked
        .iter()
        .map(|name| {
            if known.contains(name) {
                Ok(name.clone())
            } else {
                Err(format!(
                    "no context {name:?} in the kubeconfig (it has: {})",
                    known.join(", ")
                ))
            }
        })
        .collect()
}

/// The API server URL a context points at, as written in the kubeconfig.
pub fn server_of(kubeconfig: &Kubeconfig, context: &str) -> String {
    let cluster_name = kubeconfig
        .contexts
        .iter()
        .find(|named| named.name == context)
        .and_then(|named| named.context.as_ref())
        .map(|context| context.cluster.clone());
    cluster_name
        .and_then(|cluster_name| {
            kubeconfig
                .clusters
                .iter()
                .find(|named| named.name == cluster_name)
        })
        .and_then(|named| named.cluster.as_ref())
        .and_then(|cluster| cluster.server.clone())
        .unwrap_or_default()
}

/// Timeouts for building clients and probing.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    pub credentials: Duration,
    pub probe: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            credentials: DEFAULT_CREDENTIALS_TIMEOUT,
            probe: DEFAULT_PROBE_TIMEOUT,
        }
    }
}

/// One context: its client once built, and its state.
pub struct ContextSlot {
    pub name: String,
    pub server: String,
    kubeconfig: Arc<Kubeconfig>,
    client: RwLock<Option<Client>>,
    state: RwLock<ClusterState>,
    /// One build at a time: a request arriving while the prober builds waits for its client.
    build_lock: tokio::sync::Mutex<()>,
    /// A client's credentials are being resolved on a blocking thread, which outlives a
    /// timed-out build: while a hung exec plugin still runs, no second one is started.
    resolving: Arc<AtomicBool>,
    /// The context holds no credentials: each user's request brings its own (kube-atlas for
    /// a team), so the probe asks as nobody.
    users_bring_credentials: AtomicBool,
}

impl ContextSlot {
    pub fn new(name: String, kubeconfig: Arc<Kubeconfig>) -> ContextSlot {
        ContextSlot {
            server: server_of(&kubeconfig, &name),
            name,
            kubeconfig,
            client: RwLock::new(None),
            state: RwLock::new(ClusterState::Connecting),
            build_lock: tokio::sync::Mutex::new(()),
            resolving: Arc::new(AtomicBool::new(false)),
            users_bring_credentials: AtomicBool::new(false),
        }
    }

    pub fn state(&self) -> ClusterState {
        self.state
            .read()
            .map(|state| state.clone())
            .unwrap_or(ClusterState::Connecting)
    }

    pub fn set_failed(&self, failure: &Failure) {
        self.set_state(ClusterState::Failed {
            reason: failure.reason(),
        });
    }

    fn set_state(&self, state: ClusterState) {
        if let Ok(mut slot) = self.state.write() {
            *slot = state;
        }
    }

    fn cached_client(&self) -> Option<Client> {
        self.client.read().ok().and_then(|client| client.clone())
    }

    /// The context's client, built on first use (running its exec plugin, if any, within
    /// `timeout`); a failed build is tried again on the next call.
    pub async fn client(&self, timeout: Duration) -> Result<Client, Failure> {
        if let Some(client) = self.cached_client() {
            return Ok(client);
        }
        let _one_build = tokio::time::timeout(timeout, self.build_lock.lock())
            .await
            .map_err(|_| Failure::CredentialsTimedOut(timeout))?;
        if let Some(client) = self.cached_client() {
            return Ok(client);
        }
        let client = build_client(
            (*self.kubeconfig).clone(),
            self.name.clone(),
            timeout,
            self.resolving.clone(),
        )
        .await?;
        if let Ok(mut slot) = self.client.write() {
            *slot = Some(client.clone());
        }
        Ok(client)
    }

    /// Asks `/version` and records the outcome.
    pub async fn probe(&self, timeouts: Timeouts) -> ClusterState {
        let asked_as_nobody = self.users_bring_credentials.load(Ordering::Relaxed);
        let state = probe_state(self.try_version(timeouts).await, asked_as_nobody);
        self.set_state(state.clone());
        state
    }

    async fn try_version(&self, timeouts: Timeouts) -> Result<String, Failure> {
        let client = self.client(timeouts.credentials).await?;
        let request = http::Request::get("/version")
            .header(http::header::ACCEPT, "application/json")
            .body(kube::client::Body::empty())
            .map_err(|e| Failure::Config(e.to_string()))?;
        let no_answer = || Failure::NoAnswer {
            server: self.server.clone(),
            after: timeouts.probe,
        };
        let response = tokio::time::timeout(timeouts.probe, client.send(request))
            .await
            .map_err(|_| no_answer())?
            .map_err(|e| failure_of_request_error(&e, &self.server))?;
        let status = response.status().as_u16();
        let body = tokio::time::timeout(timeouts.probe, response.into_body().collect_bytes())
            .await
            .map_err(|_| no_answer())?
            .map_err(|e| failure_of_request_error(&e, &self.server))?;
        let text = String::from_utf8_lossy(&body).into_owned();
        version_outcome(status, &text)
    }
}

/// The state a probe's outcome shows. Asked as nobody (no credentials: users bring their
/// own), a refusal still means the server answered: clusters that turn anonymous requests
/// away are as reachable as those that answer them.
pub fn probe_state(outcome: Result<String, Failure>, asked_as_nobody: bool) -> ClusterState {
    match outcome {
        Ok(version) => ClusterState::Connected { version },
        Err(Failure::Unauthorized { .. }) if asked_as_nobody => ClusterState::Connected {
            version: String::new(),
        },
        Err(failure) => ClusterState::Failed {
            reason: failure.reason(),
        },
    }
}

/// What an answer to `/version` says about the connection.
pub fn version_outcome(status: u16, body: &str) -> Result<String, Failure> {
    let message = || {
        serde_json::from_str::<serde_json::Value>(body)
            .ok()
            .and_then(|status| status["message"].as_str().map(str::to_string))
            .unwrap_or_else(|| body.to_string())
    };
    match status {
        200 => Ok(serde_json::from_str::<serde_json::Value>(body)
            .ok()
            .and_then(|version| version["gitVersion"].as_str().map(str::to_string))
            .unwrap_or_default()),
        401 | 403 => Err(Failure::Unauthorized {
            status,
            message: message(),
        }),
        _ => Err(Failure::UnexpectedAnswer {
            status,
            body: message(),
        }),
    }
}

/// Builds a context's client: its credentials resolved (an exec plugin run) on a blocking
/// thread, given up after `timeout`. Retries are the page's: it sees 429s and 503s as they
/// come.
async fn build_client(
    kubeconfig: Kubeconfig,
    context: String,
    timeout: Duration,
    resolving: Arc<AtomicBool>,
) -> Result<Client, Failure> {
    let options = KubeConfigOptions {
        context: Some(context),
        ..Default::default()
    };
    let mut config = tokio::time::timeout(
        timeout,
        kube::Config::from_custom_kubeconfig(kubeconfig, &options),
    )
    .await
    .map_err(|_| Failure::CredentialsTimedOut(timeout))?
    .map_err(|e| Failure::Config(error_chain(&e)))?;
    config.default_retry = false;
    // Watches and followed logs are long-lived and may be silent: no read timeout (the page
    // replaces a stream silent too long itself).
    config.read_timeout = None;
    if resolving.swap(true, Ordering::SeqCst) {
        return Err(Failure::CredentialsTimedOut(timeout));
    }
    let building = tokio::task::spawn_blocking(move || {
        let built = crate::client::build(config);
        resolving.store(false, Ordering::SeqCst);
        built
    });
    tokio::time::timeout(timeout, building)
        .await
        .map_err(|_| Failure::CredentialsTimedOut(timeout))?
        .map_err(|e| Failure::Config(format!("building the client: {e}")))?
        .map_err(|e| failure_of_client_error(&e))
}

/// Every served context, in order.
pub struct Contexts {
    pub slots: Vec<Arc<ContextSlot>>,
    pub timeouts: Timeouts,
}

/// One entry of `GET /clusters`.
#[derive(Debug, Clone, Serialize)]
pub struct ClusterEntry {
    pub name: String,
    pub server: String,
    #[serde(flatten)]
    pub state: ClusterState,
}

impl Contexts {
    pub fn new(kubeconfig: Kubeconfig, names: Vec<String>, timeouts: Timeouts) -> Contexts {
        let kubeconfig = Arc::new(kubeconfig);
        Contexts {
            slots: names
                .into_iter()
                .map(|name| Arc::new(ContextSlot::new(name, kubeconfig.clone())))
                .collect(),
            timeouts,
        }
    }

    /// Marks every context as holding no credentials of its own: each user's request brings
    /// its own (kube-atlas for a team).
    pub fn users_bring_credentials(self) -> Contexts {
        for slot in &self.slots {
            slot.users_bring_credentials.store(true, Ordering::Relaxed);
        }
        self
    }

    pub fn get(&self, name: &str) -> Option<&Arc<ContextSlot>> {
        self.slots.iter().find(|slot| slot.name == name)
    }

    pub fn entries(&self) -> Vec<ClusterEntry> {
        self.slots
            .iter()
            .map(|slot| ClusterEntry {
                name: slot.name.clone(),
                server: slot.server.clone(),
                state: slot.state(),
            })
            .collect()
    }

    /// Probes every context at once; a slow one does not delay the others' states.
    pub async fn probe_all(&self) {
        let probes = self.slots.iter().map(|slot| {
            let slot = slot.clone();
            let timeouts = self.timeouts;
            tokio::spawn(async move { slot.probe(timeouts).await })
        });
        futures_util::future::join_all(probes).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_read_as_what_to_do() {
        let expired = Failure::Unauthorized {
            status: 401,
            message: "Unauthorized".into(),
        };
        assert!(
            expired.reason().contains("token may have expired"),
            "{}",
            expired.reason()
        );
        let hung = Failure::CredentialsTimedOut(Duration::from_secs(20));
        assert_eq!(
            hung.reason(),
            "no credentials: the exec plugin did not finish within 20 s (does it wait for a login?)"
        );
        let down = Failure::Unreachable {
            server: "https://127.0.0.1:6443".into(),
            detail: "connection refused".into(),
        };
        assert_eq!(
            down.reason(),
            "unreachable: https://127.0.0.1:6443: connection refused"
        );
    }

    #[test]
    fn asked_as_nobody_a_refusal_still_means_connected() {
        let refused = || {
            Err(Failure::Unauthorized {
                status: 401,
                message: "Unauthorized".into(),
            })
        };
        assert!(matches!(
            probe_state(refused(), false),
            ClusterState::Failed { .. }
        ));
        assert_eq!(
            probe_state(refused(), true),
            ClusterState::Connected {
                version: String::new()
            }
        );
        let down = Failure::Unreachable {
            server: "https://10.96.0.1:443".into(),
            detail: "connection refused".into(),
        };
        assert!(matches!(
            probe_state(Err(down), true),
            ClusterState::Failed { .. }
        ));
    }

    #[test]
    fn version_answers_give_the_version_or_the_refusal() {
        assert_eq!(
            version_outcome(200, r#"{"gitVersion":"v1.36.0"}"#),
            Ok("v1.36.0".into())
        );
        assert_eq!(
            version_outcome(401, r#"{"kind":"Status","message":"Unauthorized"}"#),
            Err(Failure::Unauthorized {
                status: 401,
                message: "Unauthorized".into()
            })
        );
        assert!(matches!(
            version_outcome(500, "boom"),
            Err(Failure::UnexpectedAnswer { status: 500, .. })
        ));
    }

    const TWO_CONTEXTS: &str = r#"
apiVersion: v1
kind: Config
clusters:
- name: a
  cluster: {server: "https://a.example:6443"}
- name: b
  cluster: {server: "http://127.0.0.1:8080"}
users:
- name: u
  user: {token: t}
contexts:
- name: ctx-a
  context: {cluster: a, user: u}
- name: ctx-b
  context: {cluster: b, user: u}
current-context: ctx-a
"#;

    #[test]
    fn contexts_are_all_by_default_or_those_named() {
        let config = Kubeconfig::from_yaml(TWO_CONTEXTS).expect("parses");
        assert_eq!(
            select_contexts(&config, &[]),
            Ok(vec!["ctx-a".to_string(), "ctx-b".to_string()])
        );
        assert_eq!(
            select_contexts(&config, &["ctx-b".to_string()]),
            Ok(vec!["ctx-b".to_string()])
        );
        assert_eq!(
            select_contexts(&config, &["prod".to_string()]),
            Err("no context \"prod\" in the kubeconfig (it has: ctx-a, ctx-b)".to_string())
        );
        assert_eq!(server_of(&config, "ctx-b"), "http://127.0.0.1:8080");
        assert_eq!(server_of(&config, "nope"), "");
    }
}
