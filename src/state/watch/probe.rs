//! Whether WebSocket watches work through whatever serves the page: some proxies (Trunk's
//! dev proxy) accept the upgrade and then forward nothing, so watches must go over HTTP. The
//! decisions are the model's (`model::watch::probe`): a refused socket counts against sockets
//! only when the same watch over HTTP is answered.

use futures::future::{select, Either};
use leptos::prelude::*;

use super::{SocketHealth, StreamTransport, WatchHub};
use crate::api;
use crate::api::stream::stream_text;
use crate::api::watch::{Received, WatchSocket};
use crate::model::navigation::route::Page;
use crate::model::watch::probe::{
    probe_collection, probe_verdict, ProbeAnswer, ProbeVerdict, PROBE_OBJECT_NAME,
};

/// How long an open socket may stay silent before it counts as one that never answers (the
/// probe's watch ends after 1 s).
const SILENT_AFTER_MS: u32 = 4_000;

impl WatchHub {
    /// Does a WebSocket watch answer here? A watch with `timeoutSeconds=1` must be closed by
    /// the server within a second; one still open and silent after 4 s never will be. It
    /// watches inside the namespace in view (a viewer of one namespace may not watch
    /// namespaces), and stops as soon as any stream's socket delivered an event.
    pub(super) async fn probe_websocket(&self) {
        let namespace = web_sys::window()
            .and_then(|w| w.location().hash().ok())
            .and_then(|hash| Page::parse(&hash).namespace().map(str::to_string))
            .or_else(crate::state::permissions::last_namespace);
        // With bookmarks allowed, a server that streams lists by default answers at once (the
        // end-of-initial-events bookmark); others close the watch after its 1 s timeout.
        let request = api::ApiRequest::get(&probe_collection(namespace.as_deref()))
            .query(
                "fieldSelector",
                &format!("metadata.name={PROBE_OBJECT_NAME}"),
            )
            .query("watch", "true")
            .query("allowWatchBookmarks", "true")
            .query("timeoutSeconds", "1");
        let mut attempt = 1;
        let mut answer = self.probe_socket_once(&request).await;
        let health = loop {
            if self.socket_health.get_untracked() == SocketHealth::Works {
                return;
            }
            match probe_verdict(answer, attempt) {
                ProbeVerdict::SocketsWork => break SocketHealth::Works,
                ProbeVerdict::SocketsFail => break SocketHealth::Silent,
                ProbeVerdict::Undecided => return,
                ProbeVerdict::RetrySocket(delay_ms) => {
                    gloo_timers::future::TimeoutFuture::new(delay_ms).await;
                    attempt += 1;
                    answer = self.probe_socket_once(&request).await;
                }
                ProbeVerdict::CheckOverHttp => answer = probe_over_http(&request).await,
            }
        };
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

    async fn probe_socket_once(&self, request: &api::ApiRequest) -> ProbeAnswer {
        let Ok(mut socket) = WatchSocket::open(request).await else {
            return ProbeAnswer::SocketRefused;
        };
        let answered = socket.next();
        let timeout = gloo_timers::future::TimeoutFuture::new(SILENT_AFTER_MS);
        futures::pin_mut!(answered);
        match select(answered, timeout).await {
            Either::Left((Received::Failed(_), _)) => ProbeAnswer::SocketRefused,
            Either::Left(_) => ProbeAnswer::SocketAnswered,
            Either::Right(_) => ProbeAnswer::SocketSilent,
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

/// The probe's watch over plain HTTP: answered (with its status) or not at all.
async fn probe_over_http(request: &api::ApiRequest) -> ProbeAnswer {
    match stream_text(request, None, |_| std::ops::ControlFlow::Break(())).await {
        Ok(_) => ProbeAnswer::HttpAnswered(200),
        Err(api::ApiError::Status { code, .. }) => ProbeAnswer::HttpAnswered(code),
        Err(_) => ProbeAnswer::HttpUnreachable,
    }
}
