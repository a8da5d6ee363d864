//! Port-forwards (`/kube-atlas/forwards`, issue #49): a browser cannot listen on a port, so
//! kube-atlas does. Each forward listens on 127.0.0.1 (an asked port or a free one) and carries
//! every accepted connection through the API's `pods/portforward` with its context's
//! credentials ([`tunnel`]). A forward to a Pod ends when the pod goes; one to a Service or a
//! Deployment moves to another ready pod behind it ([`run`]). Which pod and port is the pure
//! model's decision (`kube_atlas_model::api::forwards`), made here with the API's answers
//! ([`resolve`]); [`http`] is the page's API.
//!
//! A forward outlives the page that started it only when asked (`keepAfterPageCloses`).
//! Otherwise it belongs to the page's session: the page holds a lease it renews
//! (`POST /kube-atlas/forwards/leases/{session}`) and the forward ends when the lease has not
//! been renewed for [`ForwardConfig::lease`]. A lease rather than a socket: a page that
//! reconnects its sockets (a network change, a laptop waking) keeps its forwards.

pub mod http;
mod info;
pub mod resolve;
pub mod run;
mod session;
mod spare;
pub mod tunnel;
pub mod watch;

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kube_atlas_model::api::forwards::ForwardError;
use tokio::sync::watch as signal;

use crate::contexts::Contexts;
pub use info::{ForwardInfo, ForwardRequest};
use resolve::Resolved;
use tunnel::Counters;

/// How many ended forwards the list keeps, so the page can say why one ended.
const ENDED_KEPT: usize = 20;

/// How forwards of a page's session live.
#[derive(Debug, Clone, Copy)]
pub struct ForwardConfig {
    /// A session's forwards end once its lease was last renewed this long ago.
    pub lease: Duration,
}

impl Default for ForwardConfig {
    fn default() -> Self {
        ForwardConfig {
            lease: Duration::from_secs(30),
        }
    }
}

/// One forward.
pub struct Forward {
    pub id: String,
    pub request: ForwardRequest,
    pub local: SocketAddr,
    since: String,
    pub counters: Counters,
    current: Mutex<Resolved>,
    notes: Mutex<Vec<String>>,
    stop: signal::Sender<bool>,
    task: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

const NOTES_KEPT: usize = 10;

impl Forward {
    pub fn current(&self) -> Resolved {
        self.current
            .lock()
            .map(|current| current.clone())
            .unwrap_or_else(|poisoned| poisoned.into_inner().clone())
    }

    fn set_current(&self, resolved: Resolved) {
        if let Ok(mut current) = self.current.lock() {
            *current = resolved;
        }
    }

    pub fn note(&self, note: String) {
        if let Ok(mut notes) = self.notes.lock() {
            if notes.len() == NOTES_KEPT {
                notes.remove(0);
            }
            notes.push(note);
        }
    }

    fn info(&self, ended: Option<String>) -> ForwardInfo {
        let current = self.current();
        let request = &self.request;
        ForwardInfo {
            id: self.id.clone(),
            context: request.context.clone(),
            namespace: request.namespace.clone(),
            target: request.target.clone(),
            port: request.port.clone(),
            pod: current.pod,
            remote_port: current.remote_port,
            local_address: self.local.to_string(),
            url: format!("http://{}", self.local),
            keep_after_page_closes: request.keep_after_page_closes,
            session: request.session.clone(),
            connections: self.counters.open.load(Ordering::Relaxed),
            bytes_in: self.counters.bytes_in.load(Ordering::Relaxed),
            bytes_out: self.counters.bytes_out.load(Ordering::Relaxed),
            since: self.since.clone(),
            notes: self.notes.lock().map(|n| n.clone()).unwrap_or_default(),
            ended,
        }
    }
}

/// Every forward of a kube-atlas.
pub struct Forwards {
    contexts: Arc<Contexts>,
    config: ForwardConfig,
    next_id: AtomicU64,
    active: Mutex<HashMap<String, Arc<Forward>>>,
    ended: Mutex<VecDeque<ForwardInfo>>,
    /// When each page session last renewed its lease.
    leases: Mutex<HashMap<String, Instant>>,
}

impl Forwards {
    pub fn new(contexts: Arc<Contexts>, config: ForwardConfig) -> Forwards {
        Forwards {
            contexts,
            config,
            next_id: AtomicU64::new(1),
            active: Mutex::new(HashMap::new()),
            ended: Mutex::new(VecDeque::new()),
            leases: Mutex::new(HashMap::new()),
        }
    }

    /// Active forwards, oldest first.
    pub fn list(&self) -> Vec<ForwardInfo> {
        let mut forwards: Vec<Arc<Forward>> = self
            .active
            .lock()
            .map(|active| active.values().cloned().collect())
            .unwrap_or_default();
        forwards.sort_by_key(|forward| forward.id.parse::<u64>().unwrap_or(u64::MAX));
        forwards.iter().map(|forward| forward.info(None)).collect()
    }

    /// Recently ended forwards, newest last, each with why.
    pub fn ended(&self) -> Vec<ForwardInfo> {
        self.ended
            .lock()
            .map(|ended| ended.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// One forward, active or recently ended.
    pub fn get(&self, id: &str) -> Option<ForwardInfo> {
        let active = self.active.lock().ok()?.get(id).cloned();
        match active {
            Some(forward) => Some(forward.info(None)),
            None => self.ended().into_iter().rev().find(|info| info.id == id),
        }
    }

    /// Resolves the target, listens, checks the API lets it through, and starts forwarding.
    pub async fn start(
        self: &Arc<Self>,
        request: ForwardRequest,
    ) -> Result<ForwardInfo, ForwardError> {
        if let Some(session) = request.session.as_deref() {
            self.renew(session);
        }
        let Some(slot) = self.contexts.get(&request.context) else {
            return Err(ForwardError::Other(format!(
                "kube-atlas serves no context {:?}",
                request.context
            )));
        };
        let client = slot
            .client(self.contexts.timeouts.credentials)
            .await
            .map_err(|failure| {
                ForwardError::Other(format!("cluster {}: {}", slot.name, failure.reason()))
            })?;
        let (forward, listener, checked) = run::prepare(self, client.clone(), request).await?;
        self.active
            .lock()
            .map_err(|_| ForwardError::Other("kube-atlas's forward list is broken".into()))?
            .insert(forward.id.clone(), forward.clone());
        let manager = self.clone();
        let running = forward.clone();
        let task = tokio::spawn(async move {
            let why = run::run(running.clone(), listener, client, checked).await;
            manager.finish(&running, why);
        });
        if let Ok(mut slot) = forward.task.lock() {
            *slot = Some(task);
        }
        Ok(forward.info(None))
    }

    fn new_id(&self) -> String {
        self.next_id.fetch_add(1, Ordering::Relaxed).to_string()
    }

    /// Moves an ended forward to the ended list with why.
    fn finish(&self, forward: &Forward, why: String) {
        if let Ok(mut active) = self.active.lock() {
            active.remove(&forward.id);
        }
        if let Ok(mut ended) = self.ended.lock() {
            if ended.len() == ENDED_KEPT {
                ended.pop_front();
            }
            ended.push_back(forward.info(Some(why)));
        }
    }

    /// Stops forward `id` (its listener and connections closed when this returns), recording
    /// `why`; `None` when there is no such active forward.
    pub async fn stop(&self, id: &str, why: &str) -> Option<ForwardInfo> {
        let forward = self.active.lock().ok()?.get(id).cloned()?;
        let _ = forward.stop.send(true);
        let task = forward.task.lock().ok().and_then(|mut task| task.take());
        if let Some(task) = task {
            let _ = task.await;
        }
        // The task recorded "stopped"; say who stopped it.
        if let Ok(mut ended) = self.ended.lock() {
            if let Some(info) = ended.iter_mut().rev().find(|info| info.id == id) {
                info.ended = Some(why.to_string());
            }
        }
        self.get(id)
    }

    /// Renews the lease of a page session.
    pub fn renew(&self, session: &str) {
        if let Ok(mut leases) = self.leases.lock() {
            leases.insert(session.to_string(), Instant::now());
        }
    }

    /// Ends the forwards of sessions whose lease ran out (kept forwards stay).
    pub async fn end_expired_sessions(&self) {
        let now = Instant::now();
        let expired: Vec<String> = match self.leases.lock() {
            Ok(mut leases) => {
                let expired = leases
                    .iter()
                    .filter(|(_, renewed)| now.duration_since(**renewed) > self.config.lease)
                    .map(|(session, _)| session.clone())
                    .collect();
                leases.retain(|_, renewed| now.duration_since(*renewed) <= self.config.lease);
                expired
            }
            Err(_) => return,
        };
        let orphans: Vec<String> = self
            .list()
            .into_iter()
            .filter(|info| !info.keep_after_page_closes)
            .filter(|info| info.session.as_ref().is_some_and(|s| expired.contains(s)))
            .map(|info| info.id)
            .collect();
        for id in orphans {
            self.stop(&id, "the page that started it was closed").await;
        }
    }

    /// Ends every forward at once (kube-atlas stopping).
    pub fn abort_all(&self) {
        if let Ok(active) = self.active.lock() {
            for forward in active.values() {
                if let Some(task) = forward.task.lock().ok().and_then(|mut t| t.take()) {
                    task.abort();
                }
            }
        }
    }
}
