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
//! A cap that every client shares is also one that a single client can
//! fill, and then everyone else waits. So the listener counts the sockets
//! of each client address as well ([`PerAddress`], by /64 prefix for IPv6)
//! and closes a socket past its address's cap as soon as it is accepted.
//! And when every place is taken and a client waits, it closes the oldest
//! socket that has not sent a request yet to make room: a client that has
//! connected and said nothing is the cheapest to turn away, and the one an
//! attacker spread over many addresses holds.
//!
//! The loop drives hyper's HTTP/1 connections itself rather than through
//! `axum::serve`, which gives hyper no timer: without one, hyper's limit on
//! the time to send a request's headers never applies, and a socket that
//! never sends a request, or an idle kept-alive connection, would hold its
//! place under the cap for good. For the same reason a write to a client
//! that takes nothing of it for too long fails (see `CountedStream`).
//!
//! This file holds the serving loop; `capped.rs` the listener and its
//! caps, `per_address.rs` the count of each client address's places,
//! `unheard.rs` the sockets that have sent no request, and
//! `counted_stream.rs` the socket it gives out.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::extract::Request;
use axum::response::Response;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

mod capped;
mod counted_stream;
mod forwarded;
mod per_address;
mod unheard;

use capped::Accepted;
pub use capped::{CappedListener, SocketCaps, SocketsClosed};
pub use forwarded::TrustedProxies;
pub(crate) use per_address::AddressKey;
pub use per_address::{AddressPlace, PerAddress};
use unheard::Unheard;

/// How long the HTTP requests under way at shutdown have to finish.
const DRAIN: Duration = Duration::from_secs(5);

/// Serves `router` on `listener` until `shutdown` is cancelled, then stops
/// accepting and lets the HTTP requests under way finish (for `DRAIN` at
/// most). A client gets `header_timeout` to send each request's headers,
/// the first one included, and an idle kept-alive connection is closed
/// after as long.
///
/// A socket that has sent no request is closed when the listener needs its
/// place (see [`CappedListener::accept`]). Upgraded connections leave this
/// loop: the WebSocket handler owns them, and the server's shutdown closes
/// them.
pub async fn serve(
    mut listener: CappedListener,
    router: Router,
    header_timeout: Duration,
    shutdown: CancellationToken,
) -> io::Result<()> {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(header_timeout);
    let connections = TaskTracker::new();
    let proxies = listener.proxies();
    loop {
        let Accepted {
            stream,
            address,
            unheard,
        } = tokio::select! {
            accepted = listener.accept() => accepted,
            () = shutdown.cancelled() => break,
        };
        let unheard = Arc::new(unheard);
        let service = WithPeer {
            router: router.clone(),
            peer: address,
            proxies: proxies.clone(),
            unheard: unheard.clone(),
        };
        let connection = http
            .serve_connection(TokioIo::new(stream), service)
            .with_upgrades();
        let shutdown = shutdown.clone();
        connections.spawn(async move {
            let mut connection = pin!(connection);
            let ended = tokio::select! {
                ended = connection.as_mut() => ended,
                // Dropping the connection closes the socket and gives its
                // place to the client that waits for one.
                () = unheard.evicted() => return,
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
/// `ConnectInfo<SocketAddr>`, which handlers read): the socket's peer, or
/// for a socket from a trusted proxy the client the proxy names.
#[derive(Clone, Debug)]
struct WithPeer {
    router: Router,
    peer: SocketAddr,
    proxies: Arc<TrustedProxies>,
    /// Told of every request, since a socket that has sent one is no longer
    /// among the first to close.
    unheard: Arc<Unheard>,
}

impl hyper::service::Service<hyper::Request<Incoming>> for WithPeer {
    type Response = Response;
    type Error = Infallible;
    type Future = <Router as tower_service::Service<Request<Incoming>>>::Future;

    fn call(&self, mut request: hyper::Request<Incoming>) -> Self::Future {
        self.unheard.heard();
        let client = self.proxies.client(self.peer.ip(), request.headers());
        let client = SocketAddr::new(client, self.peer.port());
        request.extensions_mut().insert(ConnectInfo(client));
        // A router is always ready, so it needs no `poll_ready` first.
        tower_service::Service::call(&mut self.router.clone(), request)
    }
}
