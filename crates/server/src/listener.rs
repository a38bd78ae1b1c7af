//! Serving sockets: a listener that accepts a socket only while the server
//! has a file to spare for it, and the loop that serves each one over HTTP.
//!
//! The cap on WebSocket connections (`Config::max_connections`) is checked
//! at the upgrade, after the socket is open, and plain HTTP requests do not
//! count against it. Without a cap on sockets as well, a crowd of clients
//! that connect and send nothing could take every file the process may
//! open, and the store, which opens its files as it needs them, would fail.
//! With it, the extra clients wait in the kernel's queue until a socket
//! closes.
//!
//! The loop drives hyper's HTTP/1 connections itself rather than through
//! `axum::serve`, which gives hyper no timer: without one, hyper's limit on
//! the time to send a request's headers never applies, and a socket that
//! never sends a request, or an idle kept-alive connection, would hold its
//! place under the cap for good. For the same reason a write to a client
//! that takes nothing of it for too long fails (see `CountedStream`).

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::extract::Request;
use axum::response::Response;
use axum::serve::Listener;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Sleep;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// How long the HTTP requests under way at shutdown have to finish.
const DRAIN: Duration = Duration::from_secs(5);

/// Serves `router` on `listener` until `shutdown` is cancelled, then stops
/// accepting and lets the HTTP requests under way finish (for `DRAIN` at
/// most). A client gets `header_timeout` to send each request's headers,
/// the first one included, and an idle kept-alive connection is closed
/// after as long.
///
/// Upgraded connections leave this loop: the WebSocket handler owns them,
/// and the server's shutdown closes them.
pub async fn serve(
    mut listener: CappedListener,
    router: Router,
    header_timeout: Duration,
    shutdown: CancellationToken,
) -> io::Result<()> {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(header_timeout);
    let connections = TaskTracker::new();
    loop {
        let (stream, address) = tokio::select! {
            accepted = listener.accept() => accepted,
            () = shutdown.cancelled() => break,
        };
        let service = WithPeer {
            router: router.clone(),
            peer: address,
        };
        let connection = http
            .serve_connection(TokioIo::new(stream), service)
            .with_upgrades();
        let shutdown = shutdown.clone();
        connections.spawn(async move {
            let mut connection = pin!(connection);
            let ended = tokio::select! {
                ended = connection.as_mut() => ended,
                () = shutdown.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    // A client that does not read its answer must not hold
                    // the server's shutdown: dropping the connection closes
                    // the socket.
                    match tokio::time::timeout(DRAIN, connection).await {
                        Ok(ended) => ended,
                        Err(_) => return,
                    }
                }
            };
            // A failed connection (a client gone, a request malformed or too
            // slow) concerns that client alone.
            if let Err(error) = ended {
                tracing::trace!(%error, "an HTTP connection failed");
            }
        });
    }
    drop(listener);
    connections.close();
    connections.wait().await;
    Ok(())
}

/// The router, with the client's address put into every request (as
/// `ConnectInfo<SocketAddr>`, which handlers read).
#[derive(Clone, Debug)]
struct WithPeer {
    router: Router,
    peer: SocketAddr,
}

impl hyper::service::Service<hyper::Request<Incoming>> for WithPeer {
    type Response = Response;
    type Error = Infallible;
    type Future = <Router as tower_service::Service<Request<Incoming>>>::Future;

    fn call(&self, mut request: hyper::Request<Incoming>) -> Self::Future {
        request.extensions_mut().insert(ConnectInfo(self.peer));
        // A router is always ready, so it needs no `poll_ready` first.
        tower_service::Service::call(&mut self.router.clone(), request)
    }
}

/// The kernel's send buffer for each client socket (Linux doubles it).
const SEND_BUFFER: usize = 64 * 1024;

/// A TCP listener that holds at most a set number of sockets open at once.
#[derive(Debug)]
pub struct CappedListener {
    listener: TcpListener,
    permits: Arc<Semaphore>,
    stall_limit: Duration,
}

impl CappedListener {
    /// Accepts from `listener` while fewer than `max_sockets` of the
    /// sockets it gave out are open. A write to one of them fails once it
    /// has waited `stall_limit` for the client to take any of what it was
    /// sent.
    pub fn new(listener: TcpListener, max_sockets: usize, stall_limit: Duration) -> CappedListener {
        CappedListener {
            listener,
            permits: Arc::new(Semaphore::new(max_sockets.min(Semaphore::MAX_PERMITS))),
            stall_limit,
        }
    }

    /// The next socket, once one of the places is free.
    pub async fn accept(&mut self) -> (CountedStream, SocketAddr) {
        let permit = self
            .permits
            .clone()
            .acquire_owned()
            .await
            .expect("the semaphore is never closed");
        // Axum's own accept for a TCP listener logs and retries on errors.
        let (stream, address) = Listener::accept(&mut self.listener).await;
        // Small messages must not wait for Nagle's algorithm.
        let _ = stream.set_nodelay(true);
        // The kernel would otherwise let a client that does not read pile
        // up megabytes per connection before the outbox notices.
        let _ = socket2::SockRef::from(&stream).set_send_buffer_size(SEND_BUFFER);
        (
            CountedStream {
                stream,
                _permit: permit,
                stall_limit: self.stall_limit,
                stalled: None,
            },
            address,
        )
    }
}

/// An accepted socket that gives its place back when it closes, and gives
/// up on a client that takes nothing it is sent.
///
/// Without the second, a client that asked for a large answer (a game's
/// history) and never read it would hold its socket for good, since the
/// HTTP layer has no limit on writing. A WebSocket client that stops
/// reading is cut off sooner by its outbox or the keepalive; this is the
/// backstop for both.
#[derive(Debug)]
pub struct CountedStream {
    stream: TcpStream,
    _permit: OwnedSemaphorePermit,
    stall_limit: Duration,
    /// Runs while a write waits for room in the socket; made at the first
    /// wait, since most sockets never wait.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl CountedStream {
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
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_full_listener_waits_until_a_socket_closes() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let mut capped = CappedListener::new(listener, 2, Duration::from_secs(60));
        // The kernel completes connections that the server has not
        // accepted yet, so all three connect.
        let _clients = [
            TcpStream::connect(address).await.unwrap(),
            TcpStream::connect(address).await.unwrap(),
            TcpStream::connect(address).await.unwrap(),
        ];
        let first = capped.accept().await;
        let _second = capped.accept().await;
        let third = tokio::time::timeout(Duration::from_millis(200), capped.accept()).await;
        assert!(third.is_err(), "a third socket was accepted past the cap");

        drop(first);
        let third = tokio::time::timeout(Duration::from_secs(5), capped.accept()).await;
        assert!(third.is_ok(), "the closed socket's place was not given back");
    }

    #[tokio::test]
    async fn a_write_to_a_client_that_reads_nothing_gives_up() {
        use tokio::io::AsyncWriteExt;

        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let mut capped = CappedListener::new(listener, 2, Duration::from_millis(200));
        let _client = TcpStream::connect(address).await.unwrap();
        let (mut stream, _) = capped.accept().await;
        // Far more than the socket buffers on both sides hold.
        let answer = vec![b'x'; 16 << 20];
        let written = tokio::time::timeout(Duration::from_secs(10), stream.write_all(&answer)).await;
        let error = written
            .expect("the write to a client that reads nothing never gave up")
            .expect_err("16 MiB fitted in the socket buffers");
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
    }
}
