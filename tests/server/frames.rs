//! The WebSocket layer under abuse: frames that break RFC 6455 get its
//! close codes, a client's close is answered, every kind of frame counts
//! toward the rate limit, and a connection that never says `hello` is
//! closed. The raw frames are written by hand, since a WebSocket library
//! will not send broken ones.

use std::time::Duration;

use futures_util::StreamExt;
use spades_protocol::ws::{ErrorCode, ServerMessage};
use spades_server::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

use crate::support::*;

/// A WebSocket client that writes frames byte by byte.
struct RawSocket {
    stream: TcpStream,
}

/// A frame the server sent.
#[derive(Debug)]
struct Frame {
    opcode: u8,
    payload: Vec<u8>,
}

const TEXT: u8 = 0x1;
const BINARY: u8 = 0x2;
const CLOSE: u8 = 0x8;

impl RawSocket {
    /// Opens a socket and upgrades it to a WebSocket at `/ws`.
    async fn open(server: &TestServer) -> RawSocket {
        let mut stream = TcpStream::connect(server.address()).await.unwrap();
        let request = "GET /ws HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
                       Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            let mut byte = [0u8; 1];
            stream.read_exact(&mut byte).await.expect("an upgrade answer");
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head);
        assert!(head.starts_with("HTTP/1.1 101"), "{head}");
        RawSocket { stream }
    }

    /// Writes one frame: final, with the given first-byte flags and
    /// opcode, masked as a client must unless `masked` is false.
    async fn write(&mut self, flags: u8, opcode: u8, payload: &[u8], masked: bool) {
        let mut frame = vec![flags | opcode];
        let mask_bit = if masked { 0x80 } else { 0 };
        match payload.len() {
            n if n < 126 => frame.push(mask_bit | n as u8),
            n if n <= 0xFFFF => {
                frame.push(mask_bit | 126);
                frame.extend((n as u16).to_be_bytes());
            }
            n => {
                frame.push(mask_bit | 127);
                frame.extend((n as u64).to_be_bytes());
            }
        }
        if masked {
            let key = [0x12, 0x34, 0x56, 0x78];
            frame.extend(key);
            frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
        } else {
            frame.extend(payload);
        }
        self.stream.write_all(&frame).await.unwrap();
    }

    async fn send(&mut self, opcode: u8, payload: &[u8]) {
        self.write(0x80, opcode, payload, true).await;
    }

    /// The next frame, or `None` once the server has closed the socket.
    async fn read(&mut self) -> Option<Frame> {
        let mut head = [0u8; 2];
        self.stream.read_exact(&mut head).await.ok()?;
        let length = match head[1] & 0x7F {
            126 => {
                let mut bytes = [0u8; 2];
                self.stream.read_exact(&mut bytes).await.ok()?;
                u64::from(u16::from_be_bytes(bytes))
            }
            127 => {
                let mut bytes = [0u8; 8];
                self.stream.read_exact(&mut bytes).await.ok()?;
                u64::from_be_bytes(bytes)
            }
            n => u64::from(n),
        };
        let mut payload = vec![0u8; length as usize];
        self.stream.read_exact(&mut payload).await.ok()?;
        Some(Frame {
            opcode: head[0] & 0x0F,
            payload,
        })
    }

    /// Reads until the server's close frame and returns its status code;
    /// fails if the socket ends without one.
    async fn close_code(&mut self) -> u16 {
        let wait = tokio::time::timeout(Duration::from_secs(10), async {
            while let Some(frame) = self.read().await {
                if frame.opcode == CLOSE {
                    assert!(frame.payload.len() >= 2, "a close frame without a code");
                    return Some(u16::from_be_bytes([frame.payload[0], frame.payload[1]]));
                }
            }
            None
        });
        wait.await
            .expect("the server neither closed nor ended the socket")
            .expect("the socket ended without a close frame")
    }

    /// Reads the server's text frames as messages for `within`.
    async fn messages(&mut self, within: Duration) -> Vec<ServerMessage> {
        let mut messages = Vec::new();
        let deadline = tokio::time::Instant::now() + within;
        while let Ok(Some(frame)) = tokio::time::timeout_at(deadline, self.read()).await {
            if frame.opcode == TEXT {
                messages.push(serde_json::from_slice(&frame.payload).expect("the server sends JSON"));
            }
        }
        messages
    }

    async fn hello(&mut self) {
        self.send(TEXT, br#"{"type":"hello","id":1,"version":1,"name":"Raw"}"#)
            .await;
        let frame = self.read().await.expect("a welcome");
        let welcome: ServerMessage = serde_json::from_slice(&frame.payload).unwrap();
        assert!(matches!(welcome, ServerMessage::Welcome { .. }), "{welcome:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_that_break_the_protocol_get_its_close_codes() {
    let server = TestServer::start(Config::default()).await;
    let mut bystander = Player::connect(&server.url, "Bystander").await;

    // Text that is not UTF-8: 1007.
    let mut socket = RawSocket::open(&server).await;
    socket.hello().await;
    socket.send(TEXT, &[0x7B, 0xFF, 0xFE, 0x7D]).await;
    assert_eq!(socket.close_code().await, 1007);

    // A reserved opcode: 1002, before hello as after.
    let mut socket = RawSocket::open(&server).await;
    socket.send(0x3, b"{}").await;
    assert_eq!(socket.close_code().await, 1002);

    // A frame with a reserved bit set: 1002.
    let mut socket = RawSocket::open(&server).await;
    socket.hello().await;
    socket.write(0x80 | 0x40, TEXT, b"{}", true).await;
    assert_eq!(socket.close_code().await, 1002);

    // A frame the client did not mask: 1002.
    let mut socket = RawSocket::open(&server).await;
    socket
        .write(0x80, TEXT, br#"{"type":"ping","id":1}"#, false)
        .await;
    assert_eq!(socket.close_code().await, 1002);

    // A client that closes gets its close frame answered with its code.
    let mut socket = RawSocket::open(&server).await;
    socket.hello().await;
    socket.send(CLOSE, &1000u16.to_be_bytes()).await;
    assert_eq!(socket.close_code().await, 1000);

    // None of it touched anyone else.
    let pong = bystander
        .request(|id| spades_protocol::ws::ClientMessage::Ping { id })
        .await
        .unwrap();
    assert!(matches!(pong, ServerMessage::Pong { .. }));
}

/// The rate of the flood tests below, high enough that 1,000 frames pass
/// in under a second.
const FAST_RATE: u32 = 1_000;

/// Sends 1,000 frames of one kind, and counts what came back and how long
/// the last answer took from the first frame: the burst allowance is read
/// at once, the rest only as the rate allows, with a notice a second.
async fn flood(server: &TestServer, opcode: u8, payload: &[u8]) -> (usize, usize, Duration) {
    let mut socket = RawSocket::open(server).await;
    socket.hello().await;
    let started = tokio::time::Instant::now();
    for _ in 0..1000 {
        socket.send(opcode, payload).await;
    }
    let mut messages = Vec::new();
    let mut last = started;
    while messages.len() < 1100 {
        let more = socket.messages(Duration::from_millis(300)).await;
        if more.is_empty() {
            break;
        }
        last = tokio::time::Instant::now();
        messages.extend(more);
    }
    let limited = messages
        .iter()
        .filter(|m| {
            matches!(
                m,
                ServerMessage::Error {
                    code: ErrorCode::RateLimited,
                    ..
                }
            )
        })
        .count();
    (messages.len() - limited, limited, last - started)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_and_oversized_frames_count_toward_the_rate_limit() {
    let server = TestServer::start(Config {
        message_rate: FAST_RATE,
        ..Config::default()
    })
    .await;
    // A burst of 200 (the hello took one), then 1,000 a second: the last of
    // 1,000 frames is read 0.8 s after the first at the earliest.
    let least = Duration::from_millis(790);
    let (answered, limited, took) = flood(&server, BINARY, b"\x00\x01").await;
    assert_eq!(answered, 1000, "every binary frame is answered, none dropped");
    assert!(took >= least, "1,000 binary frames were answered in {took:?}");
    assert!(limited >= 1, "no rate_limited notice");
    let oversized = vec![b'x'; 5000];
    let (answered, limited, took) = flood(&server, TEXT, &oversized).await;
    assert_eq!(
        answered, 1000,
        "every oversized message is answered, none dropped"
    );
    assert!(
        took >= least,
        "1,000 oversized messages were answered in {took:?}"
    );
    assert!(limited >= 1, "no rate_limited notice");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_never_says_hello_is_closed() {
    // Pings come often, and the client answers them: it is alive, but it
    // never says who it is.
    let server = TestServer::start(Config {
        hello_timeout: Duration::from_secs(1),
        keepalive: Duration::from_millis(200),
        ..Config::default()
    })
    .await;
    let (mut silent, _) = tokio_tungstenite::connect_async(server.url.as_str())
        .await
        .unwrap();
    let mut talker = Player::connect(&server.url, "Talker").await;
    let started = tokio::time::Instant::now();
    let closed = tokio::spawn(async move {
        loop {
            match silent.next().await {
                // The library answers pings by itself.
                Some(Ok(Message::Ping(_))) => continue,
                Some(Ok(Message::Close(frame))) => return frame.map(|frame| u16::from(frame.code)),
                other => panic!("unexpected {other:?}"),
            }
        }
    });
    // The player who said hello reads (and so answers pings) meanwhile.
    let deadline = started + Duration::from_secs(10);
    while !closed.is_finished() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the silent connection was not closed"
        );
        talker.pump().await;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(closed.await.unwrap(), Some(4003));
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "closed too early"
    );
    // The connection that said hello is kept past the same time.
    for _ in 0..25 {
        talker.pump().await;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let pong = talker
        .request(|id| spades_protocol::ws::ClientMessage::Ping { id })
        .await
        .unwrap();
    assert!(matches!(pong, ServerMessage::Pong { .. }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_request_to_the_websocket_path_is_told_what_it_takes() {
    let server = TestServer::start(Config::default()).await;
    let answer = http(server.address(), "GET", "/ws", None, None).await;
    assert_eq!(answer.status, 400, "{}", answer.body);
    let body = answer.value();
    assert_eq!(body["error"], "not_a_websocket");
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
}
