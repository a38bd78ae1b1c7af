//! An accepted socket that holds its places while it is open and gives up
//! on a client that takes nothing it is sent.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::Sleep;

use super::per_address::AddressPlace;

/// An accepted socket that gives its places back when it closes (under the
/// listener's cap and under its address's), and gives up on a client that
/// takes nothing it is sent.
///
/// Without the second, a client that asked for a large answer (a game's
/// history) and never read it would hold its socket for good, since the
/// HTTP layer has no limit on writing. A WebSocket client that stops
/// reading is cut off sooner by its outbox or the keepalive; this is the
/// backstop for both.
#[derive(Debug)]
pub(super) struct CountedStream {
    stream: TcpStream,
    _permit: OwnedSemaphorePermit,
    _place: AddressPlace,
    stall_limit: Duration,
    /// Runs while a write waits for room in the socket; made at the first
    /// wait, since most sockets never wait.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl CountedStream {
    /// Holds `permit` and `place` while `stream` is open; a write fails
    /// once it has waited `stall_limit` for the client to take anything.
    pub(super) fn new(
        stream: TcpStream,
        permit: OwnedSemaphorePermit,
        place: AddressPlace,
        stall_limit: Duration,
    ) -> CountedStream {
        CountedStream {
            stream,
            _permit: permit,
            _place: place,
            stall_limit,
            stalled: None,
        }
    }

    /// Handles the outcome of a write: progress ends a stall, and a write
    /// that has waited too long fails.
    fn written<T>(&mut self, cx: &mut Context<'_>, outcome: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        if outcome.is_ready() {
            self.stalled = None;
            return outcome;
        }
        let limit = self.stall_limit;
        let stalled = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match stalled.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client took nothing it was sent for too long",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncRead for CountedStream {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for CountedStream {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let outcome = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.written(cx, outcome)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let outcome = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        this.written(cx, outcome)
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
    use std::sync::Arc;

    use tokio::net::TcpListener;

    use super::*;
    use crate::listener::capped::{Accepted, CappedListener, SocketCaps};

    #[tokio::test]
    async fn a_write_to_a_client_that_reads_nothing_gives_up() {
        use tokio::io::AsyncWriteExt;

        let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = tcp.local_addr().unwrap();
        let mut capped = CappedListener::new(
            tcp,
            SocketCaps {
                sockets: 2,
                per_address: usize::MAX,
            },
            Duration::from_millis(200),
            Arc::default(),
        );
        let _client = TcpStream::connect(address).await.unwrap();
        let Accepted { mut stream, .. } = capped.accept().await;
        // Far more than the socket buffers on both sides hold.
        let answer = vec![b'x'; 16 << 20];
        let written = tokio::time::timeout(Duration::from_secs(10), stream.write_all(&answer)).await;
        let error = written
            .expect("the write to a client that reads nothing never gave up")
            .expect_err("16 MiB fitted in the socket buffers");
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
    }
}
