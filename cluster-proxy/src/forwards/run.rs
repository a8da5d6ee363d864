//! A forward's life: prepared (target resolved, local port bound, the API's consent checked),
//! then accepting connections until it is stopped or its pod goes. A forward to a Service or a
//! Deployment then moves to another ready pod; one to a Pod ends, saying why.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use k8s_openapi::api::core::v1::Pod;
use kube::api::Api;
use kube::Client;
use kube_atlas_model::api::forwards::{moved_note, ForwardError, TargetKind};
use tokio::net::TcpListener;
use tokio::sync::watch as signal;
use tokio::task::JoinSet;

use super::resolve::resolve;
use super::session::{self, Session};
use super::spare::Spares;
use super::tunnel::{self, Counters, Destination};
use super::{watch, Forward, ForwardRequest, Forwards};

/// Binds 127.0.0.1 on the asked port (0: a free one), the taken port said in words.
async fn listen(port: u16) -> Result<TcpListener, ForwardError> {
    TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::AddrInUse => ForwardError::LocalPortTaken { port },
            _ => ForwardError::CannotListen {
                port,
                why: error.to_string(),
            },
        })
}

/// Everything a forward does before it says it started; the start check's session is
/// returned for the first connection.
pub(super) async fn prepare(
    forwards: &Forwards,
    client: Client,
    request: ForwardRequest,
) -> Result<(Arc<Forward>, TcpListener, Session), ForwardError> {
    let namespace = request.namespace.as_str();
    let resolved = resolve(&client, namespace, &request.target, &request.port, &[]).await?;
    let listener = listen(request.local_port.unwrap_or(0)).await?;
    let local = listener
        .local_addr()
        .map_err(|error| ForwardError::Other(format!("the local address: {error}")))?;
    let destination = Destination {
        namespace: namespace.to_string(),
        pod: resolved.pod.clone(),
        port: resolved.remote_port,
    };
    let checked = tunnel::check(&client, &destination).await?;
    let since = k8s_openapi::jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    let (stop, _) = signal::channel(false);
    let forward = Forward {
        id: forwards.new_id(),
        request,
        local,
        since,
        counters: Counters::default(),
        current: Mutex::new(resolved),
        notes: Mutex::new(Vec::new()),
        stop,
        task: Mutex::new(None),
    };
    Ok((Arc::new(forward), listener, checked))
}

/// One open connection in the forward's count, for as long as it lives (aborted too).
struct Open<'a>(&'a Counters);

impl<'a> Open<'a> {
    fn new(counters: &'a Counters) -> Self {
        counters.open.fetch_add(1, Ordering::Relaxed);
        Open(counters)
    }
}

impl Drop for Open<'_> {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Forwards until stopped or the pod goes (without another to move to); returns why it ended.
/// Returning drops the listener (new connections are refused) and every connection's task.
pub(super) async fn run(
    forward: Arc<Forward>,
    listener: TcpListener,
    client: Client,
    checked: Session,
) -> String {
    let request = &forward.request;
    let namespace = request.namespace.clone();
    let api: Api<Pod> = Api::namespaced(client.clone(), &namespace);
    let moves = request.target.kind != TargetKind::Pod;
    let mut stop = forward.stop.subscribe();
    let mut connections = JoinSet::new();
    let mut first = Some(checked);
    loop {
        let current = forward.current();
        let destination = Destination {
            namespace: namespace.clone(),
            pod: current.pod.clone(),
            port: current.remote_port,
        };
        // Sessions opened ahead for this pod (dropped, and closed, when the forward moves).
        let spares = Spares::start(client.clone(), destination.clone(), first.take());
        // Behind a Service, a pod that is no longer ready is left as kube-proxy leaves it.
        let gone = watch::until_gone(&api, &current.pod, moves);
        tokio::pin!(gone);
        let why = loop {
            tokio::select! {
                accepted = listener.accept() => {
                    let Ok((local, _)) = accepted else { continue };
                    // Small requests and answers are not held back for Nagle's algorithm.
                    let _ = local.set_nodelay(true);
                    let spares = spares.taker();
                    let (forward, client, destination) = (forward.clone(), client.clone(), destination.clone());
                    connections.spawn(async move {
                        let _open = Open::new(&forward.counters);
                        let session = match spares.take().await {
                            Some(spare) => Ok(spare),
                            None => session::open(&client, &destination).await,
                        };
                        let carried = match session {
                            Ok(session) => tunnel::carry(session, &destination, local, &forward.counters).await,
                            Err(error) => Err(error),
                        };
                        if let Err(error) = carried {
                            forward.note(error.to_string());
                        }
                    });
                }
                _ = stop.changed() => return "stopped".to_string(),
                why = &mut gone => break why,
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
            }
        };
        let gone_sentence = why.sentence(&namespace, &current.pod);
        if !moves {
            return gone_sentence;
        }
        let excluded = [current.pod.as_str()];
        match resolve(
            &client,
            &namespace,
            &request.target,
            &request.port,
            &excluded,
        )
        .await
        {
            Ok(next) => {
                forward.note(moved_note(&next.pod, &current.pod, &why));
                forward.set_current(next);
            }
            Err(error) => {
                return format!("{gone_sentence}, and no other pod can take over: {error}")
            }
        }
    }
}
