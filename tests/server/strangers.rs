//! WebSocket connections that never say `hello` cannot keep players out:
//! when the server is full, an upgrade takes the place of one of them,
//! the oldest of the address that holds the most, which is closed with
//! status 4005. A connection that said `hello` is never closed for this.
//!
//! Clients of different addresses connect from different loopback
//! addresses: Linux routes all of 127/8 to the loopback interface.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use futures_util::StreamExt;
use spades_client::Client;
use spades_protocol::ws::ServerMessage;
use spades_server::Config;
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::{Error, Message};

use crate::support::*;

/// The longest a connection, an upgrade or a close may take here.
const PROMPT: Duration = Duration::from_secs(10);

fn loopback(last: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, last))
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

/// A player from `source` who connects and says `hello`.
async fn player_from(source: IpAddr, server: &TestServer, name: &str) -> Client {
    let stream = connect_from(source, server.address()).await;
    let mut client = tokio::time::timeout(PROMPT, Client::connect_over(&server.url, stream))
        .await
        .expect("the upgrade was not answered")
        .unwrap_or_else(|error| panic!("{name} from {source} was refused: {error}"));
    let welcome = client.hello(name).await.expect("welcomed");
    assert!(matches!(welcome, ServerMessage::Welcome { .. }), "{welcome:?}");
    client
}

/// Opens a WebSocket from `source` that never says `hello`, and a task
/// that reports on `closed` the close code the server sends it, with
/// `label`.
async fn stranger_from(
    source: IpAddr,
    server: &TestServer,
    label: (u8, usize),
    closed: mpsc::UnboundedSender<((u8, usize), Option<u16>)>,
) {
    let stream = connect_from(source, server.address()).await;
    let (mut socket, _) = tokio::time::timeout(
        PROMPT,
        tokio_tungstenite::client_async(server.url.as_str(), stream),
    )
    .await
    .expect("the upgrade was not answered")
    .expect("a stranger is admitted while there is room");
    tokio::spawn(async move {
        let code = loop {
            match socket.next().await {
                // The library answers pings by itself.
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                Some(Ok(Message::Close(frame))) => break frame.map(|frame| u16::from(frame.code)),
                other => panic!("a stranger got {other:?}"),
            }
        };
        let _ = closed.send((label, code));
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_without_hello_make_room_for_players_and_players_keep_theirs() {
    let server = TestServer::start(Config {
        max_connections: 12,
        // Long enough that neither the hello timeout nor the keepalive
        // closes anyone during the test.
        hello_timeout: Duration::from_secs(300),
        keepalive: Duration::from_secs(300),
        ..Config::default()
    })
    .await;
    let mut players = vec![
        player_from(loopback(1), &server, "First").await,
        player_from(loopback(1), &server, "Second").await,
    ];
    // Three addresses fill the other ten places with connections that
    // never say hello: four from .2, then three each from .3 and .4.
    let (closed_tx, mut closed) = mpsc::unbounded_channel();
    for (address, count) in [(2u8, 4usize), (3, 3), (4, 3)] {
        for n in 0..count {
            stranger_from(loopback(address), &server, (address, n), closed_tx.clone()).await;
        }
    }

    // Each new player, from an address of his own, is admitted and takes
    // the place of the oldest stranger of the address holding the most
    // (the older oldest on a tie), which is closed with 4005.
    let expected = [
        (2, 0),
        (2, 1),
        (3, 0),
        (4, 0),
        (2, 2),
        (3, 1),
        (4, 1),
        (2, 3),
        (3, 2),
        (4, 2),
    ];
    for (n, want) in expected.into_iter().enumerate() {
        let newcomer = player_from(loopback(10 + n as u8), &server, &format!("New{n}")).await;
        players.push(newcomer);
        let (label, code) = tokio::time::timeout(PROMPT, closed.recv())
            .await
            .expect("no stranger was closed")
            .unwrap();
        assert_eq!((label, code), (want, Some(4005)), "newcomer {n}");
    }
    assert_eq!(
        server.server.state().connections(),
        12,
        "the newcomers took the strangers' places"
    );

    // Every connection now said hello: none is closed for a newcomer, who
    // is refused, and every player is still served.
    let stream = connect_from(loopback(30), server.address()).await;
    match tokio_tungstenite::client_async(server.url.as_str(), stream).await {
        Err(Error::Http(answer)) => {
            assert_eq!(answer.status(), 503);
            let body = String::from_utf8_lossy(answer.body().as_deref().unwrap_or_default()).into_owned();
            assert!(body.contains("server_full"), "{body}");
        }
        other => panic!("a 13th connection was not refused: {:?}", other.map(|_| ())),
    }
    for player in &mut players {
        let pong = player
            .request(|id| spades_protocol::ws::ClientMessage::Ping { id })
            .await
            .expect("a player who said hello keeps his connection");
        assert!(matches!(pong, ServerMessage::Pong { .. }));
    }
    assert!(
        closed.try_recv().is_err(),
        "a connection was closed past the ten strangers"
    );
    let metrics = server.api().get("/metrics", None).await.body;
    assert!(
        metrics
            .lines()
            .any(|line| line == "spades_connections_evicted_total 10"),
        "{metrics}"
    );
}
