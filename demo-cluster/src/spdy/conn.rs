//! A plain SPDY/3.1 connection: the bytes of an HTTP/1.1 connection after the server's
//! `101 Switching Protocols` to `SPDY/3.1` (kubectl's exec, attach and port-forward without
//! WebSocket), as the kubelet's `httpstream/spdy` upgrader answers it.

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use hyper::upgrade::OnUpgrade;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

/// The upgraded connection.
pub type Upgraded = TokioIo<hyper::upgrade::Upgraded>;

/// The header naming the subprotocol, offered by the client (one value per protocol) and
/// answered by the server.
pub const PROTOCOL_HEADER: &str = "x-stream-protocol-version";

/// Whether the request asks for a plain SPDY/3.1 upgrade.
pub fn is_spdy_upgrade(headers: &HeaderMap) -> bool {
    headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("SPDY/3.1"))
}

/// The client's protocols, in its order (each header value, as Go's `req.Header` holds them,
/// commas split as well).
pub fn offered(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all(PROTOCOL_HEADER)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// apimachinery's `httpstream.Handshake`: the first of the client's protocols the server
/// knows, or the response refusing the upgrade (its `http.Error`).
pub fn handshake(
    headers: &HeaderMap,
    server: &[&'static str],
) -> Result<&'static str, Box<Response>> {
    let client = offered(headers);
    if client.is_empty() {
        return Err(Box::new(plain_error(
            StatusCode::BAD_REQUEST,
            "unable to upgrade: X-Stream-Protocol-Version is required",
        )));
    }
    if let Some(chosen) = client
        .iter()
        .find_map(|c| server.iter().find(|s| **s == c.as_str()))
    {
        return Ok(chosen);
    }
    let mut response = plain_error(
        StatusCode::FORBIDDEN,
        &format!(
            "unable to upgrade: unable to negotiate protocol: client supports [{}], server \
             accepts [{}]",
            client.join(" "),
            server.join(" ")
        ),
    );
    for protocol in server {
        response.headers_mut().append(
            "x-accepted-stream-protocol-versions",
            HeaderValue::from_static(protocol),
        );
    }
    Err(Box::new(response))
}

/// Go's `http.Error`.
pub fn plain_error(status: StatusCode, message: &str) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        format!("{message}\n"),
    )
        .into_response()
}

/// The `101 Switching Protocols` to SPDY/3.1 with `protocol` chosen, `serve` run on the
/// connection once hyper hands it over. Without hyper's upgrade handle (a request not from a
/// connection that can be upgraded) the request is refused.
pub fn upgrade<F, Fut>(on_upgrade: Option<OnUpgrade>, protocol: &'static str, serve: F) -> Response
where
    F: FnOnce(Upgraded) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let Some(on_upgrade) = on_upgrade else {
        return plain_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "unable to upgrade: the connection cannot be upgraded",
        );
    };
    tokio::spawn(async move {
        if let Ok(upgraded) = on_upgrade.await {
            serve(TokioIo::new(upgraded)).await;
        }
    });
    (
        StatusCode::SWITCHING_PROTOCOLS,
        [
            (header::CONNECTION, "Upgrade"),
            (header::UPGRADE, "SPDY/3.1"),
            (header::HeaderName::from_static(PROTOCOL_HEADER), protocol),
        ],
    )
        .into_response()
}

/// The bytes read, a chunk at a time, until the peer's end or an error.
pub fn chunks<R: AsyncRead + Unpin>(read: R) -> impl Stream<Item = Vec<u8>> {
    futures_util::stream::unfold(read, |mut read| async move {
        let mut buf = vec![0u8; 32 * 1024];
        match read.read(&mut buf).await {
            Ok(0) | Err(_) => None,
            Ok(n) => {
                buf.truncate(n);
                Some((buf, read))
            }
        }
    })
}

/// A task writing what is sent to it, in order; the connection's write side is shut down once
/// every sender is gone.
pub fn writer<W: AsyncWrite + Unpin + Send + 'static>(
    mut write: W,
) -> mpsc::UnboundedSender<Vec<u8>> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    tokio::spawn(async move {
        while let Some(bytes) = rx.recv().await {
            if write.write_all(&bytes).await.is_err() || write.flush().await.is_err() {
                return;
            }
        }
        let _ = write.shutdown().await;
    });
    tx
}
