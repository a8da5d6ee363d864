//! Warm spare sessions: a forward keeps a few port-forward sessions open before they are
//! needed, so an accepted connection takes a ready one instead of waiting for a TLS handshake,
//! an upgrade and the kubelet's dial (kubectl multiplexes SPDY streams over one connection
//! and pays none of that per connection; the API's WebSocket port-forward carries one
//! connection per session). A taken spare is replaced at once.
//!
//! What the pod sees: [`SPARES`] more idle connections to its port. A pod that closes an idle
//! connection (a server's idle timeout) ends that spare; it is found closed when taken and
//! left for a fresh session. A pod that speaks first (a greeting) has its bytes kept for the
//! connection that takes the spare.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use kube::Client;
use tokio::sync::{mpsc, Mutex, Notify};
use tokio::task::JoinSet;

use super::session::{self, Session};
use super::tunnel::Destination;

/// Spares kept open per forward. Several, opened in parallel: connections arriving faster
/// than one session opens (a browser opening six at once) still find them ready.
pub const SPARES: usize = 4;

/// After failed opens (the pod going, a 403) the next waits this long, doubling up to
/// [`MAX_BACKOFF`]; connections meanwhile open their own session and say the error.
const MIN_BACKOFF: Duration = Duration::from_millis(50);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// How long a connection waits for a spare being opened before it opens its own: one opened
/// earlier is ready sooner than a new one unless opening hangs.
const WAIT: Duration = Duration::from_secs(2);

/// The ready spares of one destination; dropping it stops refilling (spares not taken close
/// with the last [`Taker`]).
pub struct Spares {
    taker: Taker,
    filler: tokio::task::JoinHandle<()>,
}

/// Takes spares for connections, in the order they were accepted.
#[derive(Clone)]
pub struct Taker {
    ready: Arc<Mutex<mpsc::Receiver<Session>>>,
    /// Opens are failing: connections open their own rather than wait for a spare.
    failing: Arc<Failing>,
}

/// Whether the last open failed, and a wake-up for connections waiting when one does.
#[derive(Default)]
struct Failing {
    now: AtomicBool,
    woken: Notify,
}

impl Spares {
    /// Starts keeping spares to `to`, `first` (the start check's session) among them.
    pub fn start(client: Client, to: Destination, first: Option<Session>) -> Spares {
        let (sender, ready) = mpsc::channel(SPARES);
        if let Some(first) = first {
            let _ = sender.try_send(first);
        }
        let failing = Arc::new(Failing::default());
        Spares {
            taker: Taker {
                ready: Arc::new(Mutex::new(ready)),
                failing: failing.clone(),
            },
            filler: tokio::spawn(fill(client, to, sender, failing)),
        }
    }

    pub fn taker(&self) -> Taker {
        self.taker.clone()
    }
}

impl Taker {
    /// A spare that is still open (its slot is refilled at once): a ready one, else the next
    /// one being opened; `None` when opens fail or take longer than [`WAIT`].
    pub async fn take(&self) -> Option<Session> {
        let mut ready = self.ready.lock().await;
        loop {
            let mut spare = match ready.try_recv() {
                Ok(spare) => spare,
                Err(mpsc::error::TryRecvError::Disconnected) => return None,
                Err(mpsc::error::TryRecvError::Empty) => {
                    let failed = self.failing.woken.notified();
                    if self.failing.now.load(Ordering::Relaxed) {
                        return None;
                    }
                    tokio::select! {
                        spare = ready.recv() => spare?,
                        _ = failed => return None,
                        _ = tokio::time::sleep(WAIT) => return None,
                    }
                }
            };
            if spare.still_open() {
                return Some(spare);
            }
        }
    }
}

impl Drop for Spares {
    fn drop(&mut self) {
        self.filler.abort();
    }
}

/// Opens a session whenever a slot is free, several at once.
async fn fill(
    client: Client,
    to: Destination,
    sender: mpsc::Sender<Session>,
    failing: Arc<Failing>,
) {
    let mut opening: JoinSet<bool> = JoinSet::new();
    let mut failures: u32 = 0;
    loop {
        let permit = tokio::select! {
            permit = sender.clone().reserve_owned() => permit,
            Some(opened) = opening.join_next(), if !opening.is_empty() => {
                failures = match opened {
                    Ok(true) => 0,
                    _ => failures.saturating_add(1),
                };
                continue;
            }
        };
        // The forward ended: its receiver is gone.
        let Ok(permit) = permit else { return };
        if failures > 0 {
            let backoff = MIN_BACKOFF.saturating_mul(1 << failures.min(7));
            tokio::time::sleep(backoff.min(MAX_BACKOFF)).await;
        }
        let (client, to, failing) = (client.clone(), to.clone(), failing.clone());
        opening.spawn(async move {
            let opened = session::open(&client, &to).await;
            failing.now.store(opened.is_err(), Ordering::Relaxed);
            match opened {
                Ok(session) => {
                    permit.send(session);
                    true
                }
                Err(_) => {
                    failing.woken.notify_waiters();
                    false
                }
            }
        });
        // Failures are learnt before the next open, so a refusing API is not asked in a burst.
        if failures > 0 {
            if let Some(opened) = opening.join_next().await {
                failures = if opened.unwrap_or(false) {
                    0
                } else {
                    failures + 1
                };
            }
        }
    }
}
