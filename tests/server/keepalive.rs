//! Keepalive: the server pings a client it has not heard from, and takes
//! one that answers nothing for gone, as when the network between them
//! dies without closing the connection.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use spades_protocol::event::{EventKind, RoomEvent};
use spades_protocol::ws::ServerMessage;
use spades_server::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use crate::support::*;

const KEEPALIVE: Duration = Duration::from_millis(300);

async fn server_with(keepalive: Duration) -> TestServer {
    TestServer::start(Config {
        keepalive,
        ..Config::default()
    })
    .await
}

async fn server() -> TestServer {
    server_with(KEEPALIVE).await
}

#[tokio::test]
async fn a_quiet_client_that_reads_is_pinged_and_kept() {
    let server = server().await;
    let (mut socket, _) = tokio_tungstenite::connect_async(&server.url).await.unwrap();
    // Reading answers pings (the library sends the pongs); the client
    // sends nothing of its own for ten intervals.
    let mut pings = 0;
    let until = Instant::now() + KEEPALIVE * 10;
    while let Ok(frame) = tokio::time::timeout_at(until, socket.next()).await {
        match frame {
            Some(Ok(Message::Ping(_))) => pings += 1,
            other => panic!("expected only pings, got {other:?}"),
        }
    }
    assert!(pings >= 3, "{pings} pings");

    socket
        .send(Message::text(
            r#"{"type":"hello","id":1,"version":1,"name":"Quiet"}"#,
        ))
        .await
        .unwrap();
    loop {
        match socket.next().await {
            Some(Ok(Message::Text(text))) => {
                assert!(text.contains(r#""type":"welcome""#), "{text}");
                break;
            }
            Some(Ok(Message::Ping(_))) => {}
            other => panic!("expected a welcome, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_client_that_answers_nothing_is_closed_with_4002() {
    let server = server().await;
    let (mut socket, _) = tokio_tungstenite::connect_async(&server.url).await.unwrap();
    // Not reading, the client sends no pongs: to the server it is gone.
    tokio::time::sleep(KEEPALIVE * 4).await;
    let mut pings = 0;
    let deadline = Instant::now() + Duration::from_secs(5);
    let close = loop {
        match tokio::time::timeout_at(deadline, socket.next()).await {
            Ok(Some(Ok(Message::Ping(_)))) => pings += 1,
            Ok(Some(Ok(Message::Close(frame)))) => break frame.expect("a close frame with a code"),
            other => panic!("expected pings then a close, got {other:?}"),
        }
    };
    assert_eq!(pings, 1, "one ping, then the close");
    assert_eq!(close.code, CloseCode::from(4002));
}

#[tokio::test]
async fn a_seated_player_who_answers_nothing_is_away_and_the_table_goes_on() {
    // A longer interval than the other tests: the three players who read
    // must not be taken for gone on a busy machine while the table is set.
    let server = server_with(Duration::from_secs(1)).await;
    let (mut players, _) = four_in_a_game(&server.url).await;

    // Three players read; the fourth goes silent, as if his network died.
    let deadline = Instant::now() + Duration::from_secs(15);
    let away = loop {
        for player in &mut players[..3] {
            player.pump().await;
        }
        let away = players[0].received.iter().find_map(|m| match m {
            ServerMessage::Event(RoomEvent {
                kind: EventKind::PlayerAway { seat, .. },
                ..
            }) => Some(seat.index()),
            _ => None,
        });
        if let Some(seat) = away {
            break seat;
        }
        assert!(
            Instant::now() < deadline,
            "the silent player was never taken for away"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_eq!(away, 3);

    // The others are still served.
    for player in &mut players[..3] {
        let reply = player
            .request(|id| spades_protocol::ws::ClientMessage::Ping { id })
            .await
            .expect("still connected");
        assert!(matches!(reply, ServerMessage::Pong { .. }), "{reply:?}");
    }
}

#[tokio::test]
async fn an_http_client_that_sends_no_request_or_stalls_is_let_go() {
    let server = server().await;
    let mut silent = TcpStream::connect(server.address()).await.unwrap();
    let mut partial = TcpStream::connect(server.address()).await.unwrap();
    partial
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n")
        .await
        .unwrap();
    // Two intervals to send a request's headers, then the server hangs up.
    for socket in [&mut silent, &mut partial] {
        let mut rest = Vec::new();
        let closed = tokio::time::timeout(Duration::from_secs(5), socket.read_to_end(&mut rest)).await;
        assert!(closed.is_ok(), "the server kept a socket that sent no request");
    }
    // A request whose body stops half way is answered 408 in as long.
    let mut stalled = TcpStream::connect(server.address()).await.unwrap();
    stalled
        .write_all(
            b"POST /api/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
              Content-Length: 100\r\n\r\n{\"name\":",
        )
        .await
        .unwrap();
    let mut answer = Vec::new();
    let answered = tokio::time::timeout(Duration::from_secs(5), stalled.read_to_end(&mut answer)).await;
    assert!(answered.is_ok(), "a stalled request held its socket");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains(r#""error":"request_timeout""#), "{answer}");

    // A client that sends its request in time is served as ever.
    let health = http(server.address(), "GET", "/healthz", None, None).await;
    assert_eq!(health.status, 200);
}
