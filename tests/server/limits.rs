//! The limits on what clients may hold: the `spades` binary raises its
//! soft limit on open files to the hard one and admits no more connections
//! than fit below what it gets, and no client address may take every
//! connection or every socket. These tests start the binary, some from a
//! shell that sets the limits first.
//!
//! Clients of different addresses connect from different loopback
//! addresses: Linux routes all of 127/8 to the loopback interface.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::Command;
use std::time::Duration;

use spades_client::Client;

use spades_protocol::ws::{RulesSpec, ServerMessage};
use tokio::io::AsyncReadExt;
use tokio::net::{TcpSocket, TcpStream};
use tokio::time::Instant;

use crate::durability::{ServerProcess, free_port, play_into_hand};
use crate::support::*;

/// The address the server's own tests connect from by default.
const LOCAL: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);
/// Another client's address.
const OTHER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));
/// The address the tests read metrics from, so that those requests count
/// against no client under test.
const OBSERVER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 99));

/// The longest any connection, request or answer may take in these tests:
/// far below the server's header timeout (two keepalive intervals of 300
/// s), so that a client left waiting in the server's queue fails the test
/// instead of being served once the sockets ahead of it time out.
const PROMPT: Duration = Duration::from_secs(10);

/// The binary run by a shell under the open-file limits that `ulimit`
/// sets.
fn limited(ulimit: &str) -> Command {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!("ulimit {ulimit} && exec \"$@\""))
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_spades"))
        // Long enough that clients which send nothing stay connected for
        // the whole test.
        .env("SPADES_KEEPALIVE", "300");
    command
}

async fn start(command: Command) -> ServerProcess {
    ServerProcess::start_with(command, &fresh_database(), free_port()).await
}

/// Starts the server under the open-file limits that `ulimit` sets in a
/// shell, allowing it `max_connections`.
async fn start_limited(ulimit: &str, max_connections: usize) -> ServerProcess {
    let mut command = limited(ulimit);
    command.env("SPADES_MAX_CONNECTIONS", max_connections.to_string());
    start(command).await
}

/// A TCP connection to `server` from the loopback address `source`.
async fn connect_from(source: IpAddr, server: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(source, 0)).unwrap();
    tokio::time::timeout(PROMPT, socket.connect(server))
        .await
        .expect("the kernel did not complete the connection")
        .expect("connects")
}

/// `GET path` from `source`, answered within `PROMPT`.
async fn get_from(source: IpAddr, server: SocketAddr, path: &str) -> HttpAnswer {
    tokio::time::timeout(PROMPT, Api::from_address(server, source).get(path, None))
        .await
        .unwrap_or_else(|_| panic!("GET {path} from {source} was not answered within {PROMPT:?}"))
}

/// The server's answer to a WebSocket upgrade from `source` that it
/// refuses. The request asks the server to close the connection after a
/// refusal, so that the answer ends there.
async fn refused_upgrade_from(source: IpAddr, server: SocketAddr) -> HttpAnswer {
    let stream = connect_from(source, server).await;
    let request = "GET /ws HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, close\r\n\
                   Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
                   Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";
    let answer = tokio::time::timeout(PROMPT, http_over(stream, request))
        .await
        .expect("the upgrade was not answered");
    assert_ne!(
        answer.status, 101,
        "the upgrade was accepted: {:?}",
        answer.headers
    );
    answer
}

/// Sends `request`, written out whole by hand, over `stream`, and reads
/// the answer until the server closes the connection (so the request
/// should ask it to).
async fn http_over(mut stream: TcpStream, request: &str) -> HttpAnswer {
    use tokio::io::AsyncWriteExt;
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    HttpAnswer::from_raw(&response)
}

/// A WebSocket client connected from `source`, or the error that refused
/// it.
async fn client_from(source: IpAddr, server: &ServerProcess) -> Result<Client, spades_client::ClientError> {
    let stream = connect_from(source, server.address).await;
    tokio::time::timeout(PROMPT, Client::connect_over(&server.url(), stream))
        .await
        .expect("the upgrade was not answered")
}

/// Whether the server closed `client`'s connection within `PROMPT`.
async fn closed_by_server(client: &mut TcpStream) -> bool {
    let mut byte = [0; 1];
    let read = tokio::time::timeout(PROMPT, client.read(&mut byte)).await;
    matches!(read, Ok(Ok(0) | Err(_)))
}

/// The value of one of the server's metrics.
async fn metric(server: &ServerProcess, name: &str) -> u64 {
    let metrics = get_from(OBSERVER, server.address, "/metrics").await.body;
    metrics
        .lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("no metric {name}: {metrics}"))
        .parse()
        .unwrap()
}

/// The most connections the server admits.
async fn admitted(server: &ServerProcess) -> u64 {
    metric(server, "spades_connections_max").await
}

#[tokio::test]
async fn a_low_soft_limit_is_raised_to_the_hard_one() {
    // A soft limit of 80 alone would leave room for 16 connections; the
    // hard limit is the machine's, far higher.
    let server = start_limited("-Sn 80", 100).await;
    assert_eq!(admitted(&server).await, 100, "{}", server.log());
    assert!(!server.log().contains("fewer connections"), "{}", server.log());
}

#[tokio::test]
async fn connections_past_the_hard_limit_are_refused_cleanly() {
    // 96 files: 32 for the server's own, 64 sockets, of which 32 may be
    // WebSocket connections.
    let server = start_limited("-n 96", 1_000).await;
    assert_eq!(admitted(&server).await, 32, "{}", server.log());
    assert!(server.log().contains("fewer connections"), "{}", server.log());

    let mut players = four_players(&server.url()).await;
    let mut others = Vec::new();
    for n in 4..32 {
        let mut client = Client::connect(&server.url())
            .await
            .expect("a connection that fits");
        // Connections that have said hello keep their places: a full
        // server would close one that has not to admit a newcomer.
        client.hello(&format!("p{n}")).await.expect("welcome");
        others.push(client);
    }
    // The next is turned away at the upgrade, with a body that says why,
    // while HTTP goes on.
    let refused = refused_upgrade_from(LOCAL, server.address).await;
    assert_eq!(refused.status, 503);
    assert_eq!(refused.value()["error"], "server_full", "{}", refused.body);
    assert!(Client::connect(&server.url()).await.is_err());
    assert_eq!(
        metric(&server, "spades_connections_refused_total{reason=\"full\"}").await,
        2
    );
    assert_eq!(
        http(server.address, "GET", "/healthz", None, None).await.status,
        200
    );
    let ready = http(server.address, "GET", "/readyz", None, None).await;
    assert_eq!((ready.status, ready.body.as_str()), (503, "full\n"));

    // Sockets that never send a byte take the places left; the rest wait
    // in the kernel's queue, each closing the oldest idle one to take its
    // place. Without a cap on sockets they would take the files the store
    // opens once play begins, and the game would stall.
    let mut idle = Vec::new();
    for _ in 0..60 {
        idle.push(tokio::net::TcpStream::connect(server.address).await.unwrap());
    }
    seat_four(&mut players, RulesSpec::default()).await;
    players[0].start_game().await;
    play_into_hand(&mut players, 0, 8).await;
    for client in others.iter_mut() {
        let pong = client
            .request(|id| spades_protocol::ws::ClientMessage::Ping { id })
            .await
            .expect("an admitted client is served");
        assert!(matches!(pong, ServerMessage::Pong { .. }), "{pong:?}");
    }
    drop(idle);

    // A place freed is a place for the next one.
    others.pop().unwrap().close().await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let mut late = loop {
        if let Ok(client) = Client::connect(&server.url()).await {
            break client;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the freed place stays taken"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    late.hello("late").await.expect("served");
    assert_eq!(metric(&server, "spades_degraded").await, 0, "{}", server.log());
    assert!(!server.log().contains("Too many open files"), "{}", server.log());
}

#[tokio::test]
async fn one_address_cannot_take_every_connection() {
    let mut command = Command::new(env!("CARGO_BIN_EXE_spades"));
    command
        .env("SPADES_MAX_CONNECTIONS_PER_ADDRESS", "3")
        .env("SPADES_KEEPALIVE", "300");
    let server = start(command).await;

    let mut held = Vec::new();
    for n in 0..3 {
        let mut client = client_from(LOCAL, &server)
            .await
            .expect("a connection under the address's cap");
        client.hello(&format!("held{n}")).await.expect("welcome");
        held.push(client);
    }
    // The next from the same address is refused, with a body that says why.
    assert!(
        client_from(LOCAL, &server).await.is_err(),
        "a fourth connection from one address was admitted"
    );
    let refused = refused_upgrade_from(LOCAL, server.address).await;
    assert_eq!(refused.status, 503);
    assert_eq!(
        refused.value()["error"],
        "too_many_connections",
        "{}",
        refused.body
    );

    // Another address connects and is welcomed.
    let mut other = client_from(OTHER, &server)
        .await
        .expect("another address is not held to the first one's cap");
    let welcome = other.hello("Elsewhere").await.expect("served");
    assert!(matches!(welcome, ServerMessage::Welcome { .. }), "{welcome:?}");
    assert_eq!(
        metric(
            &server,
            "spades_connections_refused_total{reason=\"per_address\"}"
        )
        .await,
        2
    );
    assert_eq!(
        metric(&server, "spades_connections_refused_total{reason=\"full\"}").await,
        0
    );

    // A connection that closes gives its address's place back, once the
    // server has seen it close.
    held.pop().unwrap().close().await;
    let deadline = Instant::now() + PROMPT;
    let mut again = loop {
        if let Ok(client) = client_from(LOCAL, &server).await {
            break client;
        }
        assert!(
            Instant::now() < deadline,
            "the closed connection's place stays taken"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    again.hello("again").await.expect("served");
}

/// The server under an open-file limit that leaves it 40 sockets (and 8
/// WebSocket connections), 16 sockets and 4 connections for each address.
async fn start_with_40_sockets() -> ServerProcess {
    // 72 files: 32 for the server's own, 40 sockets.
    let mut command = limited("-n 72");
    command
        .env("SPADES_MAX_CONNECTIONS_PER_ADDRESS", "4")
        .env("SPADES_MAX_SOCKETS_PER_ADDRESS", "16");
    let server = start(command).await;
    assert_eq!(admitted(&server).await, 8, "{}", server.log());
    server
}

#[tokio::test]
async fn idle_sockets_from_one_address_do_not_keep_others_waiting() {
    let server = start_with_40_sockets().await;
    // One address opens more sockets than the server may hold in all, and
    // sends nothing on any of them.
    let mut idle = Vec::new();
    for _ in 0..100 {
        idle.push(connect_from(LOCAL, server.address).await);
    }
    // Another address is answered at once, long before the idle sockets'
    // header timeout would free their places.
    let health = get_from(OTHER, server.address, "/healthz").await;
    assert_eq!(health.status, 200);

    // The sockets past the address's 16 were closed as they were accepted,
    // and only they.
    for (n, socket) in idle.iter_mut().enumerate().skip(16) {
        assert!(
            closed_by_server(socket).await,
            "socket {n} past the cap stayed open"
        );
    }
    assert_eq!(
        metric(&server, "spades_sockets_closed_total{reason=\"per_address\"}").await,
        84
    );
    assert_eq!(
        metric(&server, "spades_sockets_closed_total{reason=\"evicted\"}").await,
        0,
        "16 sockets of one address filled the server"
    );

    // A player from the other address still gets in.
    let mut player = client_from(OTHER, &server).await.expect("a place for a player");
    player.hello("Player").await.expect("served");
}

#[tokio::test]
async fn idle_sockets_from_many_addresses_make_room_for_a_request() {
    let server = start_with_40_sockets().await;
    // Six addresses open 60 sockets, each under its address's cap but
    // together more than the server may hold, and send nothing.
    let mut idle = Vec::new();
    for n in 0..60 {
        let source = IpAddr::V4(Ipv4Addr::new(127, 0, 1, 1 + n / 10));
        idle.push(connect_from(source, server.address).await);
    }
    // Another address is answered at once: the server closes the oldest
    // idle sockets to make room for the clients waiting behind them.
    let health = get_from(OTHER, server.address, "/healthz").await;
    assert_eq!(health.status, 200);
    // 40 places for 61 clients: at least 21 idle sockets were closed.
    let evicted = metric(&server, "spades_sockets_closed_total{reason=\"evicted\"}").await;
    assert!(evicted >= 21, "{evicted} idle sockets closed");
    assert!(
        closed_by_server(&mut idle[0]).await,
        "the oldest idle socket stayed open"
    );
    assert_eq!(
        metric(&server, "spades_sockets_closed_total{reason=\"per_address\"}").await,
        0
    );

    // A player from the other address still gets in.
    let mut player = client_from(OTHER, &server).await.expect("a place for a player");
    player.hello("Player").await.expect("served");
}
