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

use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::io;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
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
use tokio_util::sync::{CancellationToken, WaitForCancellationFuture};
use tokio_util::task::TaskTracker;

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
/// `ConnectInfo<SocketAddr>`, which handlers read).
#[derive(Clone, Debug)]
struct WithPeer {
    router: Router,
    peer: SocketAddr,
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
        request.extensions_mut().insert(ConnectInfo(self.peer));
        // A router is always ready, so it needs no `poll_ready` first.
        tower_service::Service::call(&mut self.router.clone(), request)
    }
}

/// The kernel's send buffer for each client socket (Linux doubles it).
const SEND_BUFFER: usize = 64 * 1024;

/// The listener's caps on the sockets it holds.
#[derive(Clone, Copy, Debug)]
pub struct SocketCaps {
    /// Sockets served at once, of every client.
    pub sockets: usize,
    /// Sockets served at once for one client address (see [`AddressKey`]);
    /// `usize::MAX` is no cap.
    pub per_address: usize,
}

/// Sockets the listener closed without serving them, by reason, for
/// `/metrics`.
#[derive(Debug, Default)]
pub struct SocketsClosed {
    /// Past their address's cap, as soon as they were accepted.
    pub per_address: AtomicU64,
    /// Sent no request, and closed to make room for a client that waited.
    pub evicted: AtomicU64,
}

/// A TCP listener that holds at most a set number of sockets open at once,
/// in all and per client address.
#[derive(Debug)]
pub struct CappedListener {
    listener: TcpListener,
    permits: Arc<Semaphore>,
    per_address: Arc<PerAddress>,
    unheard: Arc<UnheardSockets>,
    closed: Arc<SocketsClosed>,
    stall_limit: Duration,
    /// The client accepted while every place was taken, kept here rather
    /// than in `accept`'s future so that an `accept` cancelled meanwhile
    /// does not drop it.
    waiting: Option<Waiting>,
}

/// A client that has its address's place and waits for one under the cap.
#[derive(Debug)]
struct Waiting {
    stream: TcpStream,
    address: SocketAddr,
    place: AddressPlace,
    /// Whether a socket was already told to close for this client.
    made_room: bool,
}

/// A socket the listener gave out.
#[derive(Debug)]
pub struct Accepted {
    pub stream: CountedStream,
    pub address: SocketAddr,
    /// Its place among the sockets that have sent no request yet, which the
    /// serving loop watches for the listener's call to close it.
    pub unheard: Unheard,
}

impl CappedListener {
    /// Accepts from `listener` while fewer than `caps.sockets` of the
    /// sockets it gave out are open, and fewer than `caps.per_address` of
    /// the client's. A write to one of them fails once it has waited
    /// `stall_limit` for the client to take any of what it was sent. The
    /// sockets it closes unserved are counted in `closed`.
    pub fn new(
        listener: TcpListener,
        caps: SocketCaps,
        stall_limit: Duration,
        closed: Arc<SocketsClosed>,
    ) -> CappedListener {
        CappedListener {
            listener,
            permits: Arc::new(Semaphore::new(caps.sockets.min(Semaphore::MAX_PERMITS))),
            per_address: PerAddress::new(caps.per_address),
            unheard: Arc::default(),
            closed,
            stall_limit,
            waiting: None,
        }
    }

    /// The next socket, once one of the places is free.
    ///
    /// A socket past its address's cap is closed as soon as it is accepted,
    /// and the next client is taken. When every place is taken, the client
    /// accepted waits for one (the listener holds its socket meanwhile, one
    /// past the cap, and no other is accepted), and the oldest socket that
    /// has sent no request is closed to make room for it. Clients that send
    /// their request as soon as they connect, as browsers and libraries do,
    /// are rarely the oldest such socket; one that connects and waits is
    /// the cheapest to turn away, and it is what a crowd of idle sockets
    /// from many addresses is made of.
    ///
    /// Cancel-safe: a client accepted before the call was cancelled is
    /// given out by the next.
    pub async fn accept(&mut self) -> Accepted {
        loop {
            let waiting = match &mut self.waiting {
                Some(waiting) => waiting,
                None => {
                    // Axum's own accept for a TCP listener logs and retries
                    // on errors.
                    let (stream, address) = Listener::accept(&mut self.listener).await;
                    let Some(place) = self.per_address.take(address.ip()) else {
                        // The client learns at once, and holds nothing of
                        // the server's while others wait.
                        drop(stream);
                        self.closed.per_address.fetch_add(1, Ordering::Relaxed);
                        tracing::debug!(%address, "closed a socket past its address's cap");
                        continue;
                    };
                    self.waiting.insert(Waiting {
                        stream,
                        address,
                        place,
                        made_room: false,
                    })
                }
            };
            let permit = match self.permits.clone().try_acquire_owned() {
                Ok(permit) => permit,
                Err(_) => {
                    // One socket closed for each client that waits: the
                    // place it frees is this client's, unless another
                    // socket closes first.
                    if !waiting.made_room {
                        waiting.made_room = true;
                        if self.unheard.evict_oldest() {
                            self.closed.evicted.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    self.permits
                        .clone()
                        .acquire_owned()
                        .await
                        .expect("the semaphore is never closed")
                }
            };
            let Waiting {
                stream,
                address,
                place,
                ..
            } = self.waiting.take().expect("a client waits for the place");
            // Small messages must not wait for Nagle's algorithm.
            let _ = stream.set_nodelay(true);
            // The kernel would otherwise let a client that does not read pile
            // up megabytes per connection before the outbox notices.
            let _ = socket2::SockRef::from(&stream).set_send_buffer_size(SEND_BUFFER);
            return Accepted {
                stream: CountedStream {
                    stream,
                    _permit: permit,
                    _place: place,
                    stall_limit: self.stall_limit,
                    stalled: None,
                },
                address,
                unheard: self.unheard.enter(),
            };
        }
    }
}

/// The part of a client's address that per-address caps count by: an IPv4
/// address, or the /64 prefix of an IPv6 one, since an IPv6 host (a home
/// network behind its router, a rented server) is usually given a whole
/// /64 and may use any address in it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct AddressKey(IpAddr);

impl AddressKey {
    pub fn of(address: IpAddr) -> AddressKey {
        // A dual-stack listener sees IPv4 clients as IPv4-mapped IPv6
        // addresses, which all share one /64: they count as the IPv4
        // addresses they are.
        match address.to_canonical() {
            IpAddr::V6(v6) => {
                let prefix = u128::from(v6) & !u128::from(u64::MAX);
                AddressKey(IpAddr::V6(Ipv6Addr::from(prefix)))
            }
            v4 => AddressKey(v4),
        }
    }
}

/// How many places (sockets, connections) each client address holds, with
/// a cap on each.
///
/// An address is forgotten when it holds nothing, so the map is never
/// larger than the number of places held.
#[derive(Debug)]
pub struct PerAddress {
    cap: usize,
    held: Mutex<HashMap<AddressKey, usize>>,
}

impl PerAddress {
    /// Allows `cap` places per address; `usize::MAX` is no cap.
    pub fn new(cap: usize) -> Arc<PerAddress> {
        Arc::new(PerAddress {
            cap,
            held: Mutex::default(),
        })
    }

    fn held_map(&self) -> MutexGuard<'_, HashMap<AddressKey, usize>> {
        // Each change is one insert or remove, so a panic elsewhere while
        // the lock was held cannot have left a count half updated.
        self.held.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A place for `address`, unless its key holds `cap` already.
    pub fn take(self: &Arc<Self>, address: IpAddr) -> Option<AddressPlace> {
        let key = AddressKey::of(address);
        let mut held = self.held_map();
        let count = held.get(&key).copied().unwrap_or(0);
        if count >= self.cap {
            return None;
        }
        held.insert(key, count + 1);
        Some(AddressPlace {
            counts: self.clone(),
            key,
        })
    }

    /// The places held by `address`'s key.
    #[cfg(test)]
    pub fn held(&self, address: IpAddr) -> usize {
        let key = AddressKey::of(address);
        self.held_map().get(&key).copied().unwrap_or(0)
    }
}

/// One place held by a client address; dropping it gives the place back.
#[derive(Debug)]
pub struct AddressPlace {
    counts: Arc<PerAddress>,
    key: AddressKey,
}

impl Drop for AddressPlace {
    fn drop(&mut self) {
        let mut held = self.counts.held_map();
        if let Some(count) = held.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.key);
            }
        }
    }
}

/// The sockets that have not sent a request's headers yet, oldest first:
/// those the listener closes to make room.
#[derive(Debug, Default)]
struct UnheardSockets {
    state: Mutex<UnheardState>,
}

#[derive(Debug, Default)]
struct UnheardState {
    next: u64,
    /// Each socket's token, cancelled to have its serving task close it,
    /// by the order they were accepted in.
    sockets: BTreeMap<u64, CancellationToken>,
}

impl UnheardSockets {
    fn state(&self) -> MutexGuard<'_, UnheardState> {
        // Each change is one insert or remove (see `PerAddress::held_map`).
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Puts a socket just accepted at the end of the list.
    fn enter(self: &Arc<Self>) -> Unheard {
        let evict = CancellationToken::new();
        let mut state = self.state();
        let id = state.next;
        state.next += 1;
        state.sockets.insert(id, evict.clone());
        Unheard {
            list: self.clone(),
            id,
            evict,
            heard: AtomicBool::new(false),
        }
    }

    /// Tells the oldest socket that has sent nothing to close; false when
    /// every socket has sent a request.
    fn evict_oldest(&self) -> bool {
        let oldest = self.state().sockets.pop_first();
        oldest.map(|(_, evict)| evict.cancel()).is_some()
    }
}

/// A socket's place on the list of those that have sent no request. It
/// leaves the list at its first request, or when it closes.
#[derive(Debug)]
pub struct Unheard {
    list: Arc<UnheardSockets>,
    id: u64,
    evict: CancellationToken,
    /// Set at the first request, so that later ones need not take the
    /// list's lock.
    heard: AtomicBool,
}

impl Unheard {
    /// Takes the socket off the list: it has sent a request.
    pub fn heard(&self) {
        if !self.heard.swap(true, Ordering::Relaxed) {
            self.list.state().sockets.remove(&self.id);
        }
    }

    /// Completes when the listener wants this socket closed to make room.
    /// Once the socket is off the list, that never happens.
    pub fn evicted(&self) -> WaitForCancellationFuture<'_> {
        self.evict.cancelled()
    }
}

impl Drop for Unheard {
    fn drop(&mut self) {
        self.heard();
    }
}

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
pub struct CountedStream {
    stream: TcpStream,
    _permit: OwnedSemaphorePermit,
    _place: AddressPlace,
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
    use tokio::io::AsyncReadExt;
    use tokio::net::TcpSocket;

    const LOCAL: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);
    const OTHER: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 2));

    fn listener(listener: TcpListener, sockets: usize, per_address: usize) -> CappedListener {
        CappedListener::new(
            listener,
            SocketCaps { sockets, per_address },
            Duration::from_secs(60),
            Arc::default(),
        )
    }

    /// A client socket from `source` (Linux routes all of 127/8 to the
    /// loopback interface, so any such address works).
    async fn connect_from(source: IpAddr, server: SocketAddr) -> TcpStream {
        let socket = TcpSocket::new_v4().unwrap();
        socket.bind(SocketAddr::new(source, 0)).unwrap();
        socket.connect(server).await.unwrap()
    }

    /// Whether the server closed `client`'s socket within a few seconds.
    async fn closed_by_server(client: &mut TcpStream) -> bool {
        let mut byte = [0; 1];
        let read = tokio::time::timeout(Duration::from_secs(5), client.read(&mut byte)).await;
        matches!(read, Ok(Ok(0) | Err(_)))
    }

    #[test]
    fn ipv6_addresses_count_by_their_64_bit_prefix() {
        let address = |text: &str| text.parse::<IpAddr>().unwrap();
        let key = |text: &str| AddressKey::of(address(text));
        assert_eq!(key("2001:db8:1:2::1"), key("2001:db8:1:2:ffff:ffff:ffff:ffff"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("2001:db8:1:2:abcd::7"), AddressKey(address("2001:db8:1:2::")));
        // IPv4 clients of a dual-stack socket keep their own addresses
        // rather than share the mapped range's prefix.
        assert_eq!(key("::ffff:192.0.2.7"), key("192.0.2.7"));
        assert_ne!(key("::ffff:192.0.2.7"), key("::ffff:192.0.2.8"));
        assert_ne!(key("192.0.2.7"), key("192.0.2.8"));
    }

    #[test]
    fn each_address_holds_at_most_its_cap_and_gets_places_back() {
        let counts = PerAddress::new(2);
        let first = counts.take(LOCAL).expect("a first place");
        let _second = counts.take(LOCAL).expect("a second place");
        assert!(counts.take(LOCAL).is_none(), "a third place past the cap of 2");
        let elsewhere = counts.take(OTHER).expect("another address has its own places");
        assert_eq!((counts.held(LOCAL), counts.held(OTHER)), (2, 1));

        drop(first);
        assert_eq!(counts.held(LOCAL), 1);
        let _again = counts.take(LOCAL).expect("the place given back is free again");
        drop(elsewhere);
        assert_eq!(counts.held(OTHER), 0);
        assert!(
            !counts.held_map().contains_key(&AddressKey::of(OTHER)),
            "an address that holds nothing is forgotten"
        );
    }

    #[test]
    fn one_ipv6_host_shares_one_cap_across_its_prefix() {
        let counts = PerAddress::new(2);
        let address = |text: &str| text.parse::<IpAddr>().unwrap();
        let _a = counts.take(address("2001:db8:0:1::1")).unwrap();
        let _b = counts.take(address("2001:db8:0:1::2")).unwrap();
        assert!(
            counts.take(address("2001:db8:0:1:8000::3")).is_none(),
            "a third address of the same /64 got a place past the cap"
        );
        assert!(
            counts.take(address("2001:db8:0:2::1")).is_some(),
            "the next /64 is another client"
        );
    }

    #[tokio::test]
    async fn a_full_listener_waits_until_a_socket_closes() {
        let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = tcp.local_addr().unwrap();
        let mut capped = listener(tcp, 2, usize::MAX);
        // The kernel completes connections that the server has not
        // accepted yet, so all three connect.
        let _clients = [
            TcpStream::connect(address).await.unwrap(),
            TcpStream::connect(address).await.unwrap(),
            TcpStream::connect(address).await.unwrap(),
        ];
        // Both sockets sent a request, so neither is one to close.
        let first = capped.accept().await;
        first.unheard.heard();
        let second = capped.accept().await;
        second.unheard.heard();
        let third = tokio::time::timeout(Duration::from_millis(200), capped.accept()).await;
        assert!(third.is_err(), "a third socket was accepted past the cap");
        assert_eq!(capped.closed.evicted.load(Ordering::Relaxed), 0);

        drop(first);
        let third = tokio::time::timeout(Duration::from_secs(5), capped.accept()).await;
        assert!(third.is_ok(), "the closed socket's place was not given back");
    }

    #[tokio::test]
    async fn a_full_listener_closes_the_oldest_socket_that_sent_nothing() {
        let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = tcp.local_addr().unwrap();
        let mut capped = listener(tcp, 3, usize::MAX);
        let _clients = [
            TcpStream::connect(address).await.unwrap(),
            TcpStream::connect(address).await.unwrap(),
            TcpStream::connect(address).await.unwrap(),
        ];
        let oldest = capped.accept().await;
        let served = capped.accept().await;
        served.unheard.heard();
        let newer = capped.accept().await;

        // Each accepted socket closes when it is told to, as the serving
        // loop's tasks do.
        let watch = |accepted: Accepted| {
            tokio::spawn(async move {
                let Accepted {
                    stream,
                    address,
                    unheard,
                } = accepted;
                unheard.evicted().await;
                drop(stream);
                address
            })
        };
        let oldest_address = oldest.address;
        let oldest = watch(oldest);
        let served = watch(served);
        let newer = watch(newer);

        let _waiting = TcpStream::connect(address).await.unwrap();
        let fourth = tokio::time::timeout(Duration::from_secs(5), capped.accept()).await;
        assert!(fourth.is_ok(), "no room was made for a client that waited");
        let closed = tokio::time::timeout(Duration::from_secs(5), oldest).await;
        assert_eq!(closed.unwrap().unwrap(), oldest_address);
        assert_eq!(capped.closed.evicted.load(Ordering::Relaxed), 1);
        // The others were left alone: the one that sent a request, and the
        // newer one that has not.
        assert!(!served.is_finished() && !newer.is_finished());
    }

    #[tokio::test]
    async fn a_socket_past_its_address_cap_is_closed_at_once() {
        let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = tcp.local_addr().unwrap();
        let mut capped = listener(tcp, 10, 2);
        let _first = connect_from(LOCAL, address).await;
        let _second = connect_from(LOCAL, address).await;
        let mut third = connect_from(LOCAL, address).await;
        let _other = connect_from(OTHER, address).await;

        let first = capped.accept().await;
        let second = capped.accept().await;
        assert_eq!((first.address.ip(), second.address.ip()), (LOCAL, LOCAL));
        // The third from the same address is closed, and the listener takes
        // the next client without waiting for it to send anything.
        let next = tokio::time::timeout(Duration::from_secs(5), capped.accept())
            .await
            .expect("the client after the closed socket was not accepted");
        assert_eq!(next.address.ip(), OTHER);
        assert!(
            closed_by_server(&mut third).await,
            "the socket past the cap stayed open"
        );
        assert_eq!(capped.closed.per_address.load(Ordering::Relaxed), 1);
        // It took no place under the listener's cap.
        assert_eq!(capped.permits.available_permits(), 7);

        // A socket that closes gives its address's place back.
        drop(first);
        let _again = connect_from(LOCAL, address).await;
        let again = tokio::time::timeout(Duration::from_secs(5), capped.accept())
            .await
            .expect("the address's freed place was not given back");
        assert_eq!(again.address.ip(), LOCAL);
        assert_eq!(capped.closed.per_address.load(Ordering::Relaxed), 1);
    }

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
