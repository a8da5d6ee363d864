//! Watch: chunked JSON lines or WebSocket text messages, fed by one producer task per watch
//! that replays the watch cache (or sends the current state) and then forwards live events,
//! translating selector matches into ADDED/DELETED, with bookmarks and timeouts.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;

use super::negotiate::{IncludeObject, Output};
use super::table;
use crate::chaos::WatchFaults;
use crate::registry::kinds::ResourceDef;
use crate::registry::Registry;
use crate::status::ApiError;
use crate::storage::object::StoredObject;
use crate::storage::selectors::{FieldSelector, LabelSelector};
use crate::storage::watch_cache::{watch_line, EventType, StoredEvent};

pub struct WatchRequest {
    pub def: Arc<ResourceDef>,
    pub namespace: Option<String>,
    pub since: Option<u64>,
    pub send_initial_events: bool,
    pub bookmarks: bool,
    pub timeout: Duration,
    pub bookmark_interval: Duration,
    pub labels: LabelSelector,
    pub fields: FieldSelector,
    pub output: Output,
    pub include: IncludeObject,
    /// Chaos mode's faults for this stream (cuts, 410 on resume); `None` without `--chaos`.
    pub chaos: Option<WatchFaults>,
}

impl WatchRequest {
    fn matches(&self, obj: &Value) -> bool {
        let ns_ok = match &self.namespace {
            Some(ns) => obj["metadata"]["namespace"].as_str() == Some(ns.as_str()),
            None => true,
        };
        ns_ok && self.labels.matches(obj) && self.fields.matches(obj)
    }

    /// Whether the stored JSON of `obj` is exactly what this watch sends: plain objects whose
    /// stored form is the served one. Such events are rendered once for all watchers.
    fn sends_as_stored(&self, api_version: &str, obj: &StoredObject) -> bool {
        self.output == Output::Object && Registry::presents_as_stored(&self.def, api_version, obj)
    }

    /// Renders an already presented object.
    fn render(&self, event_type: &str, obj: &Value) -> Bytes {
        let rendered = match self.output {
            Output::Object => obj.clone(),
            Output::Metadata => table::partial_metadata(obj),
            Output::Table => table::table(
                &self.def,
                std::slice::from_ref(obj),
                self.include,
                json!({"resourceVersion": obj["metadata"]["resourceVersion"]}),
            ),
        };
        line(&json!({"type": event_type, "object": rendered}))
    }

    fn bookmark(&self, rv: u64, initial_end: bool) -> Bytes {
        let mut meta = json!({"resourceVersion": rv.to_string(), "creationTimestamp": null});
        if initial_end {
            meta["annotations"] = json!({"k8s.io/initial-events-end": "true"});
        }
        line(
            &json!({"type": "BOOKMARK", "object": {"kind": self.def.kind, "apiVersion": self.def.api_version(), "metadata": meta}}),
        )
    }

    /// The event to send for a store change, with selector translation.
    fn translate(&self, api_version: &str, ev: &StoredEvent) -> Option<Bytes> {
        if ev.key.group != self.def.storage_group || ev.key.resource != self.def.resource {
            return None;
        }
        // Fast path: selectors see the stored shape, which is the served one here, and the
        // line is the event's shared rendering. Leaving the selector needs the slow path.
        if self.sends_as_stored(api_version, &ev.object)
            && ev
                .prev
                .as_ref()
                .is_none_or(|p| self.sends_as_stored(api_version, p))
        {
            let now = self.matches(&ev.object);
            match ev.event_type {
                EventType::Added | EventType::Deleted => {
                    return now.then(|| ev.line().clone());
                }
                EventType::Modified => {
                    let before = ev.prev.as_ref().is_some_and(|p| self.matches(p));
                    match (before, now) {
                        (true, true) => return Some(ev.line().clone()),
                        (false, true) => return Some(watch_line("ADDED", ev.object.json())),
                        (false, false) => return None,
                        (true, false) => {}
                    }
                }
            }
        }
        let object = Registry::present(&self.def, ev.object.value().clone());
        match ev.event_type {
            EventType::Added => self.matches(&object).then(|| self.render("ADDED", &object)),
            EventType::Deleted => self
                .matches(&object)
                .then(|| self.render("DELETED", &object)),
            EventType::Modified => {
                let prev = ev
                    .prev
                    .as_ref()
                    .map(|p| Registry::present(&self.def, p.value().clone()));
                let now = self.matches(&object);
                let before = prev.as_ref().is_some_and(|p| self.matches(p));
                match (before, now) {
                    (true, true) => Some(self.render("MODIFIED", &object)),
                    (false, true) => Some(self.render("ADDED", &object)),
                    (true, false) => {
                        let mut last = prev.unwrap_or(Value::Null);
                        last["metadata"]["resourceVersion"] = json!(ev.rv.to_string());
                        Some(self.render("DELETED", &last))
                    }
                    (false, false) => None,
                }
            }
        }
    }
}

/// One newline-terminated JSON line.
fn line(v: &Value) -> Bytes {
    let mut buf = v.to_string().into_bytes();
    buf.push(b'\n');
    Bytes::from(buf)
}

fn error_event(e: &ApiError) -> Bytes {
    line(&json!({"type": "ERROR", "object": e.to_status()}))
}

/// Chaos mode: whether the stream ends before its next event (then the producer returns,
/// which ends the chunked body or closes the WebSocket, as a cut connection would).
fn cut(chaos: &mut Option<WatchFaults>, def: &ResourceDef) -> bool {
    let cut = chaos.as_mut().is_some_and(WatchFaults::cut);
    if cut {
        tracing::debug!("chaos: a watch of {} cut", def.resource);
    }
    cut
}

/// Starts the producer; newline-terminated lines arrive on the returned channel.
pub fn start(
    registry: Arc<Registry>,
    mut req: WatchRequest,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) -> mpsc::Receiver<Bytes> {
    let (tx, rx) = mpsc::channel::<Bytes>(256);
    tokio::spawn(async move {
        let mut chaos = req.chaos.take();
        if chaos.as_ref().is_some_and(|c| c.expire) {
            // As the watch cache answers a resume point it no longer holds: an ERROR event in
            // a 200 stream, then the end. Clients must relist.
            let since = req.since.unwrap_or(0);
            let e = ApiError::too_old_resource_version(since, registry.store.current_rv());
            tracing::debug!(
                "chaos: a watch of {} from {since} expired",
                req.def.resource
            );
            let _ = tx.send(error_event(&e)).await;
            return;
        }
        let api_version = req.def.api_version();
        let stopping = async move {
            if shutdown.wait_for(|stop| *stop).await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        tokio::pin!(stopping);
        let ns = if req.def.namespaced {
            req.namespace.as_deref()
        } else {
            None
        };
        let sub =
            match registry
                .store
                .subscribe(&req.def.storage_group, &req.def.resource, ns, req.since)
            {
                Ok(s) => s,
                Err(e) => {
                    let _ = tx.send(error_event(&e)).await;
                    return;
                }
            };
        let mut receiver = sub.receiver;
        let mut last_rv = sub.rv.max(req.since.unwrap_or(0));
        // The initial state counts as one event for cuts (cut at a random object inside it):
        // one draw per object would almost never let a large state through.
        let initial_cut = chaos
            .as_mut()
            .and_then(|c| c.cut_initial(sub.initial.len()));
        for (i, obj) in sub.initial.iter().enumerate() {
            if initial_cut == Some(i) {
                tracing::debug!(
                    "chaos: a watch of {} cut in its initial state",
                    req.def.resource
                );
                return;
            }
            let line = if req.sends_as_stored(&api_version, obj) {
                req.matches(obj).then(|| watch_line("ADDED", obj.json()))
            } else {
                let presented = Registry::present(&req.def, obj.value().clone());
                req.matches(&presented)
                    .then(|| req.render("ADDED", &presented))
            };
            if let Some(line) = line {
                if tx.send(line).await.is_err() {
                    return;
                }
            }
        }
        if req.send_initial_events
            && req.bookmarks
            && tx.send(req.bookmark(last_rv, true)).await.is_err()
        {
            return;
        }
        for ev in &sub.replay {
            if let Some(line) = req.translate(&api_version, ev) {
                if cut(&mut chaos, &req.def) || tx.send(line).await.is_err() {
                    return;
                }
            }
        }
        let deadline = tokio::time::sleep(req.timeout);
        tokio::pin!(deadline);
        let mut ticker = tokio::time::interval_at(
            tokio::time::Instant::now() + req.bookmark_interval,
            req.bookmark_interval,
        );
        loop {
            tokio::select! {
                received = receiver.recv() => match received {
                    Ok(ev) => {
                        last_rv = last_rv.max(ev.rv);
                        // A resume point ahead of the store: changes up to it are not wanted.
                        if req.since.is_some_and(|since| ev.rv <= since) {
                            continue;
                        }
                        if let Some(line) = req.translate(&api_version, &ev) {
                            if cut(&mut chaos, &req.def) || tx.send(line).await.is_err() {
                                return;
                            }
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        // This watcher fell behind the fan-out buffer; it must relist.
                        let oldest = registry.store.oldest_resumable();
                        let _ = tx.send(error_event(&ApiError::too_old_resource_version(last_rv, oldest))).await;
                        return;
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                _ = ticker.tick(), if req.bookmarks => {
                    if cut(&mut chaos, &req.def)
                        || tx.send(req.bookmark(last_rv, false)).await.is_err()
                    {
                        return;
                    }
                }
                _ = &mut deadline => {
                    if req.bookmarks {
                        let _ = tx.send(req.bookmark(last_rv, false)).await;
                    }
                    return;
                }
                _ = tx.closed() => return,
                _ = &mut stopping => return,
            }
        }
    });
    rx
}

/// Chunked HTTP: one JSON document per line.
pub fn chunked_response(rx: mpsc::Receiver<Bytes>, output: Output) -> Response {
    let stream = ReceiverStream::new(rx).map(Ok::<_, std::convert::Infallible>);
    let mut resp = (StatusCode::OK, Body::from_stream(stream)).into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(output.content_type()),
    );
    resp.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("no-cache, private"),
    );
    resp
}

/// WebSocket: one text message per event; echoes base64.binary.k8s.io / binary.k8s.io.
pub fn websocket_response(ws: WebSocketUpgrade, rx: mpsc::Receiver<Bytes>) -> Response {
    ws.protocols(["base64.binary.k8s.io", "binary.k8s.io"])
        .on_upgrade(move |socket| forward(socket, rx))
}

async fn forward(mut socket: WebSocket, mut rx: mpsc::Receiver<Bytes>) {
    loop {
        tokio::select! {
            line = rx.recv() => match line {
                Some(line) => {
                    // Lines are JSON (UTF-8) plus the chunked encoding's newline.
                    let text = line.strip_suffix(b"\n").unwrap_or(&line);
                    let Ok(text) = Utf8Bytes::try_from(line.slice_ref(text)) else {
                        return;
                    };
                    if socket.send(Message::Text(text)).await.is_err() {
                        return;
                    }
                }
                None => {
                    let _ = socket.send(Message::Close(None)).await;
                    return;
                }
            },
            incoming = socket.recv() => match incoming {
                // The client sends nothing meaningful; a close or error ends the watch.
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                Some(Ok(_)) => {}
            },
        }
    }
}
