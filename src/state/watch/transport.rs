//! Performing a watcher's commands: list pages with `api::send`; watches of objects over a
//! WebSocket, Table watches (and every watch where WebSockets stay silent) over chunked HTTP,
//! at most `model::watch::slots::MAX_HTTP_WATCHES` at once (or, behind kube-atlas, all
//! on its one multiplexed socket); each answer, event and ending fed back to the watcher.

use std::cell::Cell;
use std::ops::ControlFlow;
use std::rc::Rc;

use futures::future::{select, Either};
use leptos::prelude::*;

use super::slots::Asked;
use super::stream::{KeyStream, StreamStore};
use super::{SocketHealth, StreamTransport, WatchHub};
use crate::api::stream::stream_text;
use crate::api::watch::{Received, WatchSocket};
use crate::api::{self, Abort, ApiError};
use crate::browser::monotonic_now;
use crate::model::watch::{decode_event, Command, Input, LineDecoder, Silence, IDLE_TIMEOUT_MS};

/// How long a watch that falls back to HTTP after a silent WebSocket failure stays open
/// before the next one tries the socket again.
const FALLBACK_WATCH_SECONDS: u32 = 20;

impl WatchHub {
    /// Performs the watcher's commands until the stream is closed.
    pub(super) async fn run<S: StreamStore>(&self, stream: Rc<KeyStream<S>>, first: Command) {
        let mut command = first;
        while !stream.closed.get() {
            command = match command {
                Command::Continue => {
                    // Only a stream returns Continue; with none open, start over safely.
                    stream.watcher.borrow_mut().reconnect(monotonic_now())
                }
                Command::List { request, delay_ms } => {
                    if !wait(&stream, delay_ms).await {
                        stream.continue_after_kick()
                    } else {
                        list_page(&stream, &request).await
                    }
                }
                Command::Idle => {
                    // Forbidden: nothing is asked until the user retries (or the stream closes).
                    stream.flush();
                    let _ = stream.kicked().await;
                    stream.continue_after_kick()
                }
                Command::Watch { request, delay_ms } => {
                    if !wait(&stream, delay_ms).await {
                        stream.continue_after_kick()
                    } else if api::multiplex::available()
                        || stream.needs_http()
                        || self.inner.with_value(|i| i.socket_health) == SocketHealth::Silent
                    {
                        self.watch_http(&stream, &request).await
                    } else if stream.socket_failed_silently.take() {
                        // Over HTTP only to hear what the socket could not say (a 403 and its
                        // words), and briefly: a quiet resource's watch would otherwise hold
                        // one of the browser's six connections to the server for minutes,
                        // shared with every other tab, whose lists then wait for it.
                        let brief = request
                            .with_query("timeoutSeconds", &FALLBACK_WATCH_SECONDS.to_string());
                        self.watch_http(&stream, &brief).await
                    } else {
                        self.watch_socket(&stream, &request).await
                    }
                }
            };
        }
        stream.discard_pending();
    }

    async fn watch_socket<S: StreamStore>(
        &self,
        stream: &Rc<KeyStream<S>>,
        request: &api::ApiRequest,
    ) -> Command {
        stream.transport.set(StreamTransport::WebSocket);
        let mut socket = match WatchSocket::open(request).await {
            Ok(socket) => socket,
            Err(error) => return stream.feed(Input::StreamFailed(error)),
        };
        let silence = Cell::new(Silence::since(monotonic_now()));
        let dead = silent_too_long(&silence);
        futures::pin_mut!(dead);
        let mut said_something = false;
        loop {
            let kicked = stream.kicked();
            let received = socket.next();
            futures::pin_mut!(received);
            let received = match select(received, select(kicked, dead.as_mut())).await {
                Either::Left((received, _)) => received,
                Either::Right((Either::Left(_), _)) => return stream.continue_after_kick(),
                Either::Right((Either::Right(_), _)) => return stream.feed(silent_stream()),
            };
            let command = match received {
                Received::Text(text) => {
                    said_something = true;
                    silence.set(Silence::since(monotonic_now()));
                    self.socket_works();
                    stream.feed(event_input(&text))
                }
                Received::Closed => {
                    stream.socket_failed_silently.set(!said_something);
                    stream.feed(Input::StreamEnded)
                }
                Received::Failed(error) => {
                    stream.socket_failed_silently.set(!said_something);
                    stream.feed(Input::StreamFailed(ApiError::Unreachable(error)))
                }
            };
            if command != Command::Continue {
                return command;
            }
        }
    }

    /// Waits for one of the HTTP watch slots (`slots::SlotPool`); None when kicked
    /// meanwhile. A stream on screen that must wait closes a lingering one that holds a
    /// slot, and says it is waiting meanwhile.
    async fn http_slot<S: StreamStore>(&self, stream: &Rc<KeyStream<S>>) -> Option<HttpSlot> {
        let id = stream.opened;
        let (asked, lingering) = self.inner.try_update_value(|inner| {
            let streams = &mut inner.streams;
            let asked = inner.slots.ask(id, |s| streams.is_viewed(s));
            let lingering = match &asked {
                Asked::Wait {
                    close_now: Some(holder),
                    ..
                } => streams.take_if_idle(*holder),
                _ => None,
            };
            (asked, lingering)
        })?;
        if let Some(lingering) = lingering {
            // Its view went: its slot is worth more to the one on screen than its linger.
            lingering.close();
            self.open_streams
                .set(self.inner.with_value(|inner| inner.streams.count()));
        }
        let Asked::Wait { handed, .. } = asked else {
            return Some(HttpSlot { hub: *self, id });
        };
        stream.transport.set(StreamTransport::WaitingForConnection);
        let kicked = stream.kicked();
        if let Either::Right(_) = select(handed, kicked).await {
            self.inner.update_value(|inner| inner.slots.give_up(id));
            // A slot handed over as the kick came is passed on (a no-op when none was).
            self.release_http_slot(id);
            return None;
        }
        stream.transport.set(StreamTransport::Http);
        Some(HttpSlot { hub: *self, id })
    }

    fn release_http_slot(&self, id: u64) {
        self.inner.try_update_value(|inner| {
            let streams = &inner.streams;
            inner.slots.release(id, |s| streams.is_viewed(s));
        });
    }

    async fn watch_http<S: StreamStore>(
        &self,
        stream: &Rc<KeyStream<S>>,
        request: &api::ApiRequest,
    ) -> Command {
        // Behind kube-atlas, every watch shares its one socket: no connection to wait for.
        let multiplexed = api::multiplex::available();
        let _slot = if multiplexed {
            stream.transport.set(StreamTransport::Multiplexed);
            None
        } else {
            stream.transport.set(StreamTransport::Http);
            match self.http_slot(stream).await {
                Some(slot) => Some(slot),
                None => return stream.continue_after_kick(),
            }
        };
        let abort = Abort::new();
        let signal = abort.signal();
        let mut decoder = if stream.needs_http() {
            // A list's rows: their managedFields are never shown.
            LineDecoder::without_managed_fields()
        } else {
            LineDecoder::default()
        };
        let next = Cell::new(None);
        let kicked = stream.kicked();
        let silence = Cell::new(Silence::since(monotonic_now()));
        let dead = silent_too_long(&silence);
        futures::pin_mut!(dead);
        let on_chunk = |chunk: &str| {
            silence.set(Silence::since(monotonic_now()));
            for event in decoder.push(chunk) {
                let input = match event {
                    Ok(event) => Input::Event(event),
                    Err(error) => Input::Garbage(error.to_string()),
                };
                let command = stream.feed(input);
                if command != Command::Continue {
                    next.set(Some(command));
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        };
        let reading = async {
            if multiplexed {
                api::multiplex::stream_text(request, on_chunk).await
            } else {
                stream_text(request, signal.as_ref(), on_chunk).await
            }
        };
        futures::pin_mut!(reading);
        let ended = match select(reading, select(kicked, dead)).await {
            Either::Left((ended, _)) => ended,
            Either::Right((Either::Left(_), _)) => {
                abort.abort();
                return stream.continue_after_kick();
            }
            Either::Right((Either::Right(_), _)) => {
                abort.abort();
                return stream.feed(silent_stream());
            }
        };
        if let Some(command) = next.take() {
            return command;
        }
        match ended {
            Ok(_) => stream.feed(Input::StreamEnded),
            Err(error) => stream.feed(Input::StreamFailed(error)),
        }
    }
}

/// Waits `delay_ms`; false when kicked meanwhile.
async fn wait<S: StreamStore>(stream: &Rc<KeyStream<S>>, delay_ms: u32) -> bool {
    if delay_ms == 0 {
        return true;
    }
    stream.flush();
    let kicked = stream.kicked();
    let timeout = gloo_timers::future::TimeoutFuture::new(delay_ms);
    matches!(select(timeout, kicked).await, Either::Left(_))
}

async fn list_page<S: StreamStore>(
    stream: &Rc<KeyStream<S>>,
    request: &api::ApiRequest,
) -> Command {
    let abort = Abort::new();
    let signal = abort.signal();
    let kicked = stream.kicked();
    let fetch = api::send(request, signal.as_ref());
    futures::pin_mut!(fetch);
    match select(fetch, kicked).await {
        Either::Left((result, _)) => {
            let page = result.and_then(|fetched| {
                serde_json::from_str(&fetched.body).map_err(|e| {
                    ApiError::bad_response(fetched.status, format!("the list is not JSON: {e}"))
                })
            });
            stream.feed(Input::Page(page))
        }
        Either::Right(_) => {
            abort.abort();
            stream.continue_after_kick()
        }
    }
}

/// One held HTTP watch slot, given back when dropped.
struct HttpSlot {
    hub: WatchHub,
    id: u64,
}

impl Drop for HttpSlot {
    fn drop(&mut self) {
        self.hub.release_http_slot(self.id);
    }
}

/// Resolves once the stream has heard nothing for [`IDLE_TIMEOUT_MS`]: its connection died
/// without a word (a machine that slept, a proxy or NAT that forgot it).
async fn silent_too_long(silence: &Cell<Silence>) {
    while let Some(left_ms) = silence.get().remaining_ms(monotonic_now()) {
        gloo_timers::future::TimeoutFuture::new(left_ms).await;
    }
}

fn silent_stream() -> Input {
    Input::StreamFailed(ApiError::Unreachable(format!(
        "the watch said nothing for {} s",
        IDLE_TIMEOUT_MS / 1000
    )))
}

fn event_input(text: &str) -> Input {
    match decode_event(text) {
        Ok(event) => Input::Event(event),
        Err(error) => Input::Garbage(error.to_string()),
    }
}
