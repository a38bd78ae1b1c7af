//! The listener that holds at most a set number of sockets open at once, in
//! all and per client address, and makes room for a client that waits.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::serve::Listener;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use super::counted_stream::CountedStream;
use super::forwarded::TrustedProxies;
use super::per_address::{AddressPlace, PerAddress};
use super::unheard::{Unheard, UnheardSockets};

/// The kernel's send buffer for each client socket (Linux doubles it).
const SEND_BUFFER: usize = 64 * 1024;

/// The listener's caps on the sockets it holds.
#[derive(Clone, Copy, Debug)]
pub struct SocketCaps {
    /// Sockets served at once, of every client.
    pub sockets: usize,
    /// Sockets served at once for one client address (see
    /// [`AddressKey`](super::per_address::AddressKey));
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
    /// The reverse proxies, whose sockets carry many clients each and so
    /// count under no address's cap (only under the cap on all sockets).
    proxies: Arc<TrustedProxies>,
    proxy_sockets: Arc<PerAddress>,
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
pub(super) struct Accepted {
    pub(super) stream: CountedStream,
    pub(super) address: SocketAddr,
    /// Its place among the sockets that have sent no request yet, which the
    /// serving loop watches for the listener's call to close it.
    pub(super) unheard: Unheard,
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
            proxies: Arc::default(),
            proxy_sockets: PerAddress::new(usize::MAX),
            unheard: Arc::default(),
            closed,
            stall_limit,
            waiting: None,
        }
    }

    /// Believes the forwarding headers of sockets from `proxies`, and caps
    /// no proxy's sockets as one address's.
    pub fn with_proxies(mut self, proxies: TrustedProxies) -> CappedListener {
        self.proxies = Arc::new(proxies);
        self
    }

    /// The proxies whose forwarding headers are believed.
    pub(super) fn proxies(&self) -> Arc<TrustedProxies> {
        self.proxies.clone()
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
    pub(super) async fn accept(&mut self) -> Accepted {
        loop {
            let waiting = match &mut self.waiting {
                Some(waiting) => waiting,
                None => {
                    // Axum's own accept for a TCP listener logs and retries
                    // on errors.
                    let (stream, address) = Listener::accept(&mut self.listener).await;
                    let counts = if self.proxies.contains(address.ip()) {
                        &self.proxy_sockets
                    } else {
                        &self.per_address
                    };
                    let Some(place) = counts.take(address.ip()) else {
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
                stream: CountedStream::new(stream, permit, place, self.stall_limit),
                address,
                unheard: self.unheard.enter(),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::IpAddr;

    use tokio::io::AsyncReadExt;
    use tokio::net::TcpSocket;

    use super::*;

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
}
