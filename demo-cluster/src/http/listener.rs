//! The listener: TCP_NODELAY on every connection, TLS when the server has a certificate
//! (negotiated on the connection's own task, so a slow handshake holds up no other client),
//! and a deadline for a connection's first request head (kube-apiserver's
//! `ReadHeaderTimeout`, the handshake included), so a client that connects and sends nothing,
//! or its head a byte at a time, does not hold a connection and a task forever. hyper has such
//! a timeout of its own, but only with a timer, which `axum::serve` does not give it.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use axum::serve::Listener;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Sleep;
use tokio_rustls::rustls;
use tokio_rustls::TlsAcceptor;

pub struct GuardedListener {
    inner: TcpListener,
    head_timeout: Duration,
    /// Present when the server speaks HTTPS.
    tls: Option<TlsAcceptor>,
}

impl GuardedListener {
    pub fn new(inner: TcpListener, head_timeout: Duration) -> Self {
        GuardedListener {
            inner,
            head_timeout,
            tls: None,
        }
    }

    /// Serves HTTPS on every connection.
    pub fn with_tls(mut self, tls: TlsAcceptor) -> Self {
        self.tls = Some(tls);
        self
    }
}

/// The TLS side of a server with the certificate chain and key of two PEM files (as
/// kube-apiserver's `--tls-cert-file` and `--tls-private-key-file`), offering HTTP/1.1.
pub fn tls_acceptor(cert_file: &Path, key_file: &Path) -> io::Result<TlsAcceptor> {
    let unreadable = |path: &Path, e: &dyn std::fmt::Display| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {e}", path.display()),
        )
    };
    let chain = CertificateDer::pem_file_iter(cert_file)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| unreadable(cert_file, &e))?;
    if chain.is_empty() {
        return Err(unreadable(cert_file, &"no certificate in the file"));
    }
    let key = PrivateKeyDer::from_pem_file(key_file).map_err(|e| unreadable(key_file, &e))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(io::Error::other)?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| unreadable(key_file, &e))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

impl Listener for GuardedListener {
    type Io = HeadDeadline;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        // axum's accept retries on errors (running out of file descriptors) itself.
        let (stream, addr) = Listener::accept(&mut self.inner).await;
        // Watch events are small writes: without TCP_NODELAY each waits for the peer's
        // delayed ACK (~40 ms) behind the previous one.
        let _ = stream.set_nodelay(true);
        let connection = match &self.tls {
            Some(tls) => Connection::Handshaking(Box::new(tls.accept(stream))),
            None => Connection::Plain(stream),
        };
        (HeadDeadline::new(connection, self.head_timeout), addr)
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

/// The end of a request head.
const HEAD_END: &[u8] = b"\r\n\r\n";

/// How much of `HEAD_END` the bytes read end with, after one more `byte`.
fn advance(matched: usize, byte: u8) -> usize {
    if byte == HEAD_END[matched] {
        matched + 1
    } else if byte == HEAD_END[0] {
        1
    } else {
        0
    }
}

/// An accepted connection: plain TCP, or TLS on TCP (negotiated by the first read or write).
pub enum Connection {
    Plain(TcpStream),
    Handshaking(Box<tokio_rustls::Accept<TcpStream>>),
    Tls(Box<tokio_rustls::server::TlsStream<TcpStream>>),
}

/// The connection's byte stream, once a TLS handshake is done.
enum Ready<'a> {
    Plain(&'a mut TcpStream),
    Tls(&'a mut tokio_rustls::server::TlsStream<TcpStream>),
}

impl Connection {
    /// Drives a pending handshake to its end; then the stream to read and write.
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Ready<'_>>> {
        if let Connection::Handshaking(accept) = self {
            let stream = ready!(Pin::new(accept.as_mut()).poll(cx))?;
            *self = Connection::Tls(Box::new(stream));
        }
        Poll::Ready(match self {
            Connection::Plain(stream) => Ok(Ready::Plain(stream)),
            Connection::Tls(stream) => Ok(Ready::Tls(stream)),
            Connection::Handshaking(_) => Err(io::Error::other("TLS handshake not finished")),
        })
    }
}

impl AsyncRead for Connection {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match ready!(self.get_mut().poll_ready(cx))? {
            Ready::Plain(stream) => Pin::new(stream).poll_read(cx, buf),
            Ready::Tls(stream) => Pin::new(stream).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Connection {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match ready!(self.get_mut().poll_ready(cx))? {
            Ready::Plain(stream) => Pin::new(stream).poll_write(cx, buf),
            Ready::Tls(stream) => Pin::new(stream).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match ready!(self.get_mut().poll_ready(cx))? {
            Ready::Plain(stream) => Pin::new(stream).poll_write_vectored(cx, bufs),
            Ready::Tls(stream) => Pin::new(stream).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Connection::Plain(stream) => stream.is_write_vectored(),
            Connection::Tls(stream) => stream.is_write_vectored(),
            Connection::Handshaking(_) => false,
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match ready!(self.get_mut().poll_ready(cx))? {
            Ready::Plain(stream) => Pin::new(stream).poll_flush(cx),
            Ready::Tls(stream) => Pin::new(stream).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match ready!(self.get_mut().poll_ready(cx))? {
            Ready::Plain(stream) => Pin::new(stream).poll_shutdown(cx),
            Ready::Tls(stream) => Pin::new(stream).poll_shutdown(cx),
        }
    }
}

/// A connection whose reads fail once `deadline` passes before the first request head ended.
pub struct HeadDeadline {
    stream: Connection,
    /// `None` once the first head is in: later requests and long watches have no deadline.
    deadline: Option<Pin<Box<Sleep>>>,
    /// How much of `HEAD_END` the bytes read so far end with.
    matched: usize,
}

impl HeadDeadline {
    fn new(stream: Connection, timeout: Duration) -> Self {
        HeadDeadline {
            stream,
            deadline: Some(Box::pin(tokio::time::sleep(timeout))),
            matched: 0,
        }
    }

    /// Follows the bytes read for the end of the head; true once it was seen.
    fn head_ended(&mut self, read: &[u8]) -> bool {
        for &byte in read {
            self.matched = advance(self.matched, byte);
            if self.matched == HEAD_END.len() {
                return true;
            }
        }
        false
    }
}

impl AsyncRead for HeadDeadline {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        match Pin::new(&mut this.stream).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if this.deadline.is_some() && this.head_ended(&buf.filled()[before..]) {
                    this.deadline = None;
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => {
                let expired = this
                    .deadline
                    .as_mut()
                    .is_some_and(|deadline| deadline.as_mut().poll(cx).is_ready());
                if expired {
                    Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the request head did not arrive in time",
                    )))
                } else {
                    Poll::Pending
                }
            }
        }
    }
}

impl AsyncWrite for HeadDeadline {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::{advance, HEAD_END};

    /// The matcher over chunks as they might arrive.
    fn ends(chunks: &[&[u8]]) -> bool {
        let mut matched = 0;
        chunks.iter().flat_map(|c| c.iter()).any(|&byte| {
            matched = advance(matched, byte);
            matched == HEAD_END.len()
        })
    }

    #[test]
    fn the_head_end_is_found_across_reads() {
        assert!(ends(&[b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"]));
        assert!(ends(&[b"GET / HTTP/1.1\r\nHost: x\r", b"\n\r", b"\n"]));
        assert!(ends(&[b"a\r\r\n\r\n"]));
        assert!(!ends(&[b"GET / HTTP/1.1\r\nHost: x\r\n"]));
        assert!(!ends(&[b"\r\n\n\r\n"]));
    }
}
