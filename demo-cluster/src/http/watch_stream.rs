//! Watch: chunked JSON lines or WebSocket text messages, fed by one producer task per watch
//! that replays the watch cache (or sends the current state) and then forwards live events,
//! translating selector matches into ADDED/DELETED, with bookmarks and timeouts.

use std::borrow::Cow;
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
use crate::errors::ApiError;
use crate::registry::kinds::ResourceDef;
use crate::registry::Registry;
use crate::storage::object::{write_partial_metadata, StoredObject};
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

    /// `obj` as this watch serves it, and its stored form when that is the served one (then
    /// nothing is copied, and its cached renderings are used).
    fn presented<'a>(
        &self,
        api_version: &str,
        obj: &'a StoredObject,
    ) -> (Cow<'a, Value>, Option<&'a StoredObject>) {
        if Registry::presents_as_stored(&self.def, api_version, obj) {
            (Cow::Borrowed(obj.value()), Some(obj))
        } else {
            (
                Cow::Owned(Registry::present(&self.def, obj.value().clone())),
                None,
            )
        }
    }

    /// One event line for `obj` (presented; `stored` when that is its stored form). A Table
    /// carries its columnDefinitions in the first event only, as kube-apiserver's watches do
    /// (`TableOptions.NoHeaders` after the first): `columns_sent` remembers it.
    fn render(
        &self,
        event_type: &str,
        obj: &Value,
        stored: Option<&StoredObject>,
        columns_sent: &mut bool,
    ) -> Bytes {
        let object = match (self.output, stored) {
            (Output::Object, Some(stored)) => return watch_line(event_type, stored.json()),
            (Output::Object, None) => serde_json::to_vec(obj).unwrap_or_default(),
            (Output::Metadata, Some(stored)) => {
                return watch_line(event_type, stored.metadata_json())
            }
            (Output::Metadata, None) => {
                let mut buf = Vec::with_capacity(1024);
                write_partial_metadata(&mut buf, obj);
                buf
            }
            (Output::Table, _) => {
                let meta = json!({"resourceVersion": obj["metadata"]["resourceVersion"]});
                let columns = !std::mem::replace(columns_sent, true);
                table::table_bytes(&self.def, [(obj, stored)], self.include, &meta, columns)
            }
        };
        watch_line(event_type, &object)
    }

    fn bookmark(&self, rv: u64, initial_end: bool) -> Bytes {
        // As kube-apiserver v1.36: no `creationTimestamp: null` in a bookmark's metadata.
        let mut meta = json!({"resourceVersion": rv.to_string()});
        if initial_end {
            meta["annotations"] = json!({"k8s.io/initial-events-end": "true"});
        }
        line(
            &json!({"type": "BOOKMARK", "object": {"kind": self.def.kind, "apiVersion": self.def.api_version(), "metadata": meta}}),
        )
    }

    /// The event to send for a store change, with selector translation: an object entering
    /// the selection is ADDED, one leaving it DELETED (at the change's resourceVersion).
    fn translate(
        &self,
        api_version: &str,
        ev: &StoredEvent,
        columns_sent: &mut bool,
    ) -> Option<Bytes> {
        if ev.key.group != self.def.storage_group || ev.key.resource != self.def.resource {
            return None;
        }
        let (object, stored) = self.presented(api_version, &ev.object);
        let now = self.matches(&object);
        match ev.event_type {
            EventType::Added | EventType::Deleted => {
                // Plain objects as stored: the event's line, rendered once for all watchers.
                if self.output == Output::Object && stored.is_some() {
                    return now.then(|| ev.line().clone());
                }
                let kind = match ev.event_type {
                    EventType::Added => "ADDED",
                    _ => "DELETED",
                };
                now.then(|| self.render(kind, &object, stored, columns_sent))
            }
            EventType::Modified => {
                let prev = ev.prev.as_ref().map(|p| self.presented(api_version, p));
                let before = prev.as_ref().is_some_and(|(p, _)| self.matches(p));
                match (before, now) {
                    (true, true) => {
                        if self.output == Output::Object && stored.is_some() {
                            return Some(ev.line().clone());
                        }
                        Some(self.render("MODIFIED", &object, stored, columns_sent))
                    }
                    (false, true) => Some(self.render("ADDED", &object, stored, columns_sent)),
                    (true, false) => {
                        let mut last = prev.map(|(p, _)| p.into_owned()).unwrap_or(Value::Null);
                        last["metadata"]["resourceVersion"] = json!(ev.rv.to_string());
                        Some(self.render("DELETED", &last, None, columns_sent))
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
            let e = ApiError::watch_too_old(
                &req.def.storage_group,
                &req.def.resource,
                since,
                registry.store.current_rv(),
            );
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
        let mut columns_sent = false;
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
            let (presented, stored) = req.presented(&api_version, obj);
            let line = req
                .matches(&presented)
                .then(|| req.render("ADDED", &presented, stored, &mut columns_sent));
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
            if let Some(line) = req.translate(&api_version, ev, &mut columns_sent) {
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
                        if let Some(line) = req.translate(&api_version, &ev, &mut columns_sent) {
                            if cut(&mut chaos, &req.def) || tx.send(line).await.is_err() {
                                return;
                            }
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        // This watcher fell behind the fan-out buffer; it must relist.
                        let oldest = registry.store.oldest_resumable();
                        let expired = ApiError::watch_too_old(&req.def.storage_group, &req.def.resource, last_rv, oldest);
                        let _ = tx.send(error_event(&expired)).await;
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
