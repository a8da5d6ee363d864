//! Warm spare sessions: a forward keeps port-forward sessions open before they are needed, so
//! an accepted connection takes a ready one instead of waiting for a TLS handshake, an upgrade
//! and the kubelet's dial (kubectl multiplexes SPDY streams over one connection and pays none
//! of that per connection; the API's WebSocket port-forward carries one connection per
//! session). A taken spare is replaced at once.
//!
//! How many: [`MIN_SPARES`] while connections are few; when one has to wait for a spare (they
//! arrive faster than sessions open), more are kept, up to [`MAX_SPARES`], opened in
//! parallel; after [`CALM`] without a wait the count halves back.
//!
//! What the pod sees: that many more idle connections to its port. A pod that closes an idle
//! connection (a server's idle timeout) ends that spare; it is found closed when taken and
//! left for another. A pod that speaks first (a greeting) has its bytes kept for the
//! connection that takes the spare.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use kube::Client;
use tokio::sync::{mpsc, Mutex, Notify};
use tokio::task::JoinSet;

use super::session::{self, Session};
use super::tunnel::Destination;

pub const MIN_SPARES: usize = 2;
pub const MAX_SPARES: usize = 16;
/// Without a connection waiting this long, the spares kept halve (down to [`MIN_SPARES`]).
const CALM: Duration = Duration::from_secs(30);

/// How long a connection waits for a spare being opened before it opens its own: one opened
/// earlier is ready sooner than a new one unless opening hangs.
const WAIT: Duration = Duration::from_secs(2);

/// After failed opens (the pod going, a 403) the next waits this long, doubling up to
/// [`MAX_BACKOFF`]; connections meanwhile open their own session and say the error.
const MIN_BACKOFF: Duration = Duration::from_millis(50);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// The spares of one destination; dropping it stops refilling (spares not taken close with
/// the last [`Taker`]).
pub struct Spares {
    taker: Taker,
    filler: tokio::task::JoinHandle<()>,
}

/// Takes spares for connections, in the order they were accepted.
#[derive(Clone)]
pub struct Taker {
    ready: Arc<Mutex<mpsc::Receiver<Session>>>,
    shared: Arc<Shared>,
}

/// What the takers and the filler tell each other.
struct Shared {
    /// The last open failed: connections open their own rather than wait for a spare.
    failing: AtomicBool,
    /// Wakes connections waiting for a spare when an open fails.
    failed: Notify,
    /// How many spares to keep (open or opening).
    wanted: AtomicUsize,
    /// A connection waited since the filler last looked.
    waited: AtomicBool,
    /// Wakes the filler: a spare was taken, or more are wanted.
    taken: Notify,
}

impl Spares {
    /// Starts keeping spares to `to`, `first` (the start check's session) among them.
    pub fn start(client: Client, to: Destination, first: Option<Session>) -> Spares {
        let (sender, ready) = mpsc::channel(MAX_SPARES);
        if let Some(first) = first {
            let _ = sender.try_send(first);
        }
        let shared = Arc::new(Shared {
            failing: AtomicBool::new(false),
            failed: Notify::new(),
            wanted: AtomicUsize::new(MIN_SPARES),
            waited: AtomicBool::new(false),
            taken: Notify::new(),
        });
        Spares {
            taker: Taker {
                ready: Arc::new(Mutex::new(ready)),
                shared: shared.clone(),
            },
            filler: tokio::spawn(fill(client, to, sender, shared)),
        }
    }

    pub fn taker(&self) -> Taker {
        self.taker.clone()
    }
}

impl Drop for Spares {
    fn drop(&mut self) {
        self.filler.abort();
    }
}

impl Taker {
    /// A spare that is still open (its slot is refilled at once): a ready one, else the next
    /// one being opened; `None` when opens fail or take longer than [`WAIT`].
    pub async fn take(&self) -> Option<Session> {
        let shared = &self.shared;
        let mut ready = self.ready.lock().await;
        loop {
            let mut spare = match ready.try_recv() {
                Ok(spare) => spare,
                Err(mpsc::error::TryRecvError::Disconnected) => return None,
                Err(mpsc::error::TryRecvError::Empty) => {
                    let failed = shared.failed.notified();
                    if shared.failing.load(Ordering::Relaxed) {
                        return None;
                    }
                    // Connections come faster than spares open: keep more.
                    let wanted = shared.wanted.load(Ordering::Relaxed);
                    shared
                        .wanted
                        .store((wanted + 2).min(MAX_SPARES), Ordering::Relaxed);
                    shared.waited.store(true, Ordering::Relaxed);
                    shared.taken.notify_one();
                    tokio::select! {
                        spare = ready.recv() => spare?,
                        _ = failed => return None,
                        _ = tokio::time::sleep(WAIT) => return None,
                    }
                }
            };
            shared.taken.notify_one();
            if spare.still_open() {
                return Some(spare);
            }
        }
    }
}

/// Keeps `wanted` spares open or opening, several opening at once.
async fn fill(client: Client, to: Destination, sender: mpsc::Sender<Session>, shared: Arc<Shared>) {
    let mut opening: JoinSet<bool> = JoinSet::new();
    let mut failures: u32 = 0;
    loop {
        // Ready spares and opens under way hold the channel's slots.
        let held = MAX_SPARES - sender.capacity();
        if held >= shared.wanted.load(Ordering::Relaxed) {
            tokio::select! {
                _ = shared.taken.notified() => {}
                Some(opened) = opening.join_next(), if !opening.is_empty() => {
                    failures = if opened.unwrap_or(false) { 0 } else { failures.saturating_add(1) };
                }
                _ = tokio::time::sleep(CALM) => {
                    if !shared.waited.swap(false, Ordering::Relaxed) {
                        let wanted = shared.wanted.load(Ordering::Relaxed);
                        shared.wanted.store((wanted / 2).max(MIN_SPARES), Ordering::Relaxed);
                    }
                }
            }
            continue;
        }
        // The forward ended: its receiver is gone.
        let Ok(permit) = sender.clone().reserve_owned().await else {
            return;
        };
        if failures > 0 {
            let backoff = MIN_BACKOFF.saturating_mul(1 << failures.min(7));
            tokio::time::sleep(backoff.min(MAX_BACKOFF)).await;
        }
        let (client, to, shared) = (client.clone(), to.clone(), shared.clone());
        opening.spawn(async move {
            let opened = session::open(&client, &to).await;
            shared.failing.store(opened.is_err(), Ordering::Relaxed);
            match opened {
                Ok(session) => {
                    permit.send(session);
                    true
                }
                Err(_) => {
                    shared.failed.notify_waiters();
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
                    failures.saturating_add(1)
                };
            }
        }
    }
}
