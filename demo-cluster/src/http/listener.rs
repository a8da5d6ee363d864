//! The listener: TCP_NODELAY on every connection, and a deadline for a connection's first
//! request head (kube-apiserver's `ReadHeaderTimeout`), so a client that connects and sends
//! nothing, or its head a byte at a time, does not hold a connection and a task forever.
//! hyper has such a timeout of its own, but only with a timer, which `axum::serve` does not
//! give it.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::serve::Listener;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Sleep;

pub struct GuardedListener {
    inner: TcpListener,
    head_timeout: Duration,
}

impl GuardedListener {
    pub fn new(inner: TcpListener, head_timeout: Duration) -> Self {
        GuardedListener {
            inner,
            head_timeout,
        }
    }
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
        (HeadDeadline::new(stream, self.head_timeout), addr)
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

/// A connection whose reads fail once `deadline` passes before the first request head ended.
pub struct HeadDeadline {
    stream: TcpStream,
    /// `None` once the first head is in: later requests and long watches have no deadline.
    deadline: Option<Pin<Box<Sleep>>>,
    /// How much of `HEAD_END` the bytes read so far end with.
    matched: usize,
}

impl HeadDeadline {
    fn new(stream: TcpStream, timeout: Duration) -> Self {
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
