//! One local TCP connection carried through the API's `pods/portforward` (a WebSocket per
//! connection, kube-rs's port-forward with the context's credentials), counting its bytes;
//! and the check a forward makes before it says it started.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, Portforwarder};
use kube_atlas_model::api::forwards::{ForwardError, TargetKind};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, DuplexStream};
use tokio::net::TcpStream;

use super::resolve::api_error;

/// How long the start check waits for the pod's error channel to say nothing listens. The
/// kubelet dials the pod's port when the stream opens and reports a refusal at once.
pub const CHECK_GRACE: Duration = Duration::from_millis(250);

/// What a forward's connections have done; read by the list.
#[derive(Debug, Default)]
pub struct Counters {
    pub open: AtomicU64,
    /// Received from the pod.
    pub bytes_in: AtomicU64,
    /// Sent to the pod.
    pub bytes_out: AtomicU64,
}

/// Where a connection goes.
#[derive(Debug, Clone)]
pub struct Destination {
    pub namespace: String,
    pub pod: String,
    pub port: u16,
}

/// Ends the port-forward's background task when the connection is done with (or aborted):
/// dropping a kube-rs `Portforwarder` leaves its task running until the socket closes.
struct AbortOnDrop(Portforwarder);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

type ErrorChannel = std::pin::Pin<Box<dyn Future<Output = Option<String>> + Send>>;

/// Opens a port-forward stream to `to`: the byte stream, the port's error channel, and the
/// forwarder that carries both.
async fn open(
    api: &Api<Pod>,
    to: &Destination,
) -> Result<(DuplexStream, ErrorChannel, AbortOnDrop), ForwardError> {
    let mut forwarder = api
        .portforward(&to.pod, &[to.port])
        .await
        .map_err(|error| {
            if matches!(&error, kube::Error::Api(status) if status.code == 403) {
                ForwardError::Forbidden {
                    namespace: to.namespace.clone(),
                }
            } else {
                api_error(error, TargetKind::Pod, &to.namespace, &to.pod)
            }
        })?;
    let (Some(stream), Some(errors)) = (
        forwarder.take_stream(to.port),
        forwarder.take_error(to.port),
    ) else {
        return Err(ForwardError::Other(format!(
            "the port-forward to {}/{} gave no stream for port {}",
            to.namespace, to.pod, to.port
        )));
    };
    Ok((stream, Box::pin(errors), AbortOnDrop(forwarder)))
}

fn port_error(to: &Destination, message: String) -> ForwardError {
    ForwardError::PortError {
        namespace: to.namespace.clone(),
        pod: to.pod.clone(),
        port: to.port,
        message,
    }
}

/// Opens one stream to `to` and closes it, as `kubectl port-forward` connects before it says
/// it forwards: a refusal (403, a pod gone, nothing listening) is said when the forward starts,
/// not at its first connection.
pub async fn check(api: &Api<Pod>, to: &Destination) -> Result<(), ForwardError> {
    let (_stream, errors, _forwarder) = open(api, to).await?;
    match tokio::time::timeout(CHECK_GRACE, errors).await {
        Ok(Some(message)) => Err(port_error(to, message)),
        _ => Ok(()),
    }
}

/// Copies until either side ends, adding what passed to `counter` as it goes (the list shows
/// live figures).
async fn counted_copy(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    counter: &AtomicU64,
) {
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        if to.write_all(&buffer[..read]).await.is_err() {
            break;
        }
        counter.fetch_add(read as u64, Ordering::Relaxed);
    }
    let _ = to.shutdown().await;
}

/// Carries `local` to `to` until both directions end, or the pod's error channel speaks (the
/// error, in words: usually nothing listens on the port).
pub async fn carry(
    api: &Api<Pod>,
    to: &Destination,
    local: TcpStream,
    counters: &Counters,
) -> Result<(), ForwardError> {
    let (stream, errors, _forwarder) = open(api, to).await?;
    let (local_read, local_write) = local.into_split();
    let (pod_read, pod_write) = tokio::io::split(stream);
    let both = async {
        tokio::join!(
            counted_copy(local_read, pod_write, &counters.bytes_out),
            counted_copy(pod_read, local_write, &counters.bytes_in),
        )
    };
    tokio::select! {
        _ = both => Ok(()),
        Some(message) = errors => Err(port_error(to, message)),
    }
}
