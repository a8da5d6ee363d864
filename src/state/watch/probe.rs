//! Whether WebSocket watches work through whatever serves the page: some proxies (Trunk's
//! dev proxy) accept the upgrade and then forward nothing, so watches must go over HTTP.

use futures::future::{select, Either};
use leptos::prelude::*;

use super::{SocketHealth, StreamTransport, WatchHub};
use crate::api;
use crate::api::watch::{Received, WatchSocket};

impl WatchHub {
    /// Does a WebSocket watch answer here? A watch with `timeoutSeconds=1` must be closed by
    /// the server within a second; one still open and silent after 4 s never will be. A
    /// handshake that fails may be a passing 429 or 500, so it is tried again; only a proxy
    /// that stays silent, or refuses every time, sends watches over HTTP.
    pub(super) async fn probe_websocket(&self) {
        // With bookmarks allowed, a server that streams lists by default answers at once (the
        // end-of-initial-events bookmark); others close the watch after its 1 s timeout.
        let request = api::ApiRequest::get("/api/v1/namespaces")
            .query("fieldSelector", "metadata.name=kube-atlas-websocket-probe")
            .query("watch", "true")
            .query("allowWatchBookmarks", "true")
            .query("timeoutSeconds", "1");
        const ATTEMPTS: u32 = 3;
        let mut health = SocketHealth::Silent;
        for attempt in 1..=ATTEMPTS {
            let Ok(mut socket) = WatchSocket::open(&request) else {
                break;
            };
            let answered = socket.next();
            let timeout = gloo_timers::future::TimeoutFuture::new(4_000);
            futures::pin_mut!(answered);
            match select(answered, timeout).await {
                Either::Left((Received::Failed(_), _)) if attempt < ATTEMPTS => {
                    gloo_timers::future::TimeoutFuture::new(500 * attempt).await;
                }
                Either::Left((Received::Failed(_), _)) | Either::Right(_) => break,
                Either::Left(_) => {
                    health = SocketHealth::Works;
                    break;
                }
            }
        }
        self.inner
            .update_value(|inner| inner.socket_health = health);
        self.socket_health.set(health);
        if health == SocketHealth::Silent {
            // Streams that started on a socket move to HTTP.
            for stream in self.streams() {
                if stream.transport() == StreamTransport::WebSocket {
                    stream.kick_now();
                }
            }
        }
    }

    /// A socket delivered an event: sockets work here, whatever the probe still waits for.
    pub(super) fn socket_works(&self) {
        let changed = self.inner.try_update_value(|inner| {
            let unknown = inner.socket_health == SocketHealth::Unknown;
            if unknown {
                inner.socket_health = SocketHealth::Works;
            }
            unknown
        });
        if changed == Some(true) {
            self.socket_health.set(SocketHealth::Works);
        }
    }
}
