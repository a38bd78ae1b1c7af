//! A session that ends takes its WebSocket with it: logging out closes the
//! connection opened with the token, and so does a guest's claim of his
//! name, which ends the guest's session.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use spades_protocol::http::Session;
use spades_protocol::ws::{ClientMessage, ErrorCode, MessageId, ServerMessage};
use spades_server::Config;
use tokio_tungstenite::tungstenite::Message;

use crate::support::*;

pub(crate) type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A WebSocket that said hello with `token`.
pub(crate) async fn signed_in(server: &TestServer, token: &str) -> Socket {
    let (mut socket, _) = tokio_tungstenite::connect_async(server.url.as_str())
        .await
        .unwrap();
    let hello = ClientMessage::Hello {
        id: MessageId::Number(1),
        version: 1,
        name: None,
        token: Some(token.to_string()),
    };
    socket.send(Message::text(hello.to_json())).await.unwrap();
    let welcome = next_message(&mut socket).await.expect("a welcome");
    assert!(
        matches!(welcome, ServerMessage::Welcome { node: None, .. }),
        "a server that runs alone names no node: {welcome:?}"
    );
    socket
}

/// The next protocol message, or `None` once the socket is closed.
pub(crate) async fn next_message(socket: &mut Socket) -> Option<ServerMessage> {
    loop {
        match socket.next().await? {
            Ok(Message::Text(text)) => return Some(serde_json::from_str(text.as_str()).unwrap()),
            Ok(Message::Close(_)) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

/// Reads until the server closes the socket, and returns the close code.
pub(crate) async fn close_code(socket: &mut Socket) -> Option<u16> {
    let wait = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match socket.next().await {
                Some(Ok(Message::Close(frame))) => return frame.map(|frame| u16::from(frame.code)),
                Some(Ok(_)) => continue,
                _ => return None,
            }
        }
    });
    wait.await.expect("the connection was not closed")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logging_out_closes_the_sessions_websocket() {
    let server = TestServer::start(Config::default()).await;
    let registered = server.api().register("Quinn", "quinn's password").await;
    assert_eq!(registered.status, 201, "{}", registered.body);
    let token = registered.json::<Session>().token;
    // A second session of the same account, on another device.
    let login = server.api().login("Quinn", "quinn's password").await;
    let other_token = login.json::<Session>().token;

    let mut socket = signed_in(&server, &token).await;
    let create = ClientMessage::CreateRoom {
        speed: Default::default(),
        id: MessageId::Number(2),
        name: None,
        rules: Default::default(),
        private: false,
        bots: None,
        rated: false,
    };
    socket.send(Message::text(create.to_json())).await.unwrap();
    let snapshot = next_message(&mut socket).await.expect("a snapshot");
    assert!(matches!(snapshot, ServerMessage::Snapshot { .. }), "{snapshot:?}");

    let out = http(server.address(), "POST", "/api/logout", None, Some(&token)).await;
    assert_eq!(out.status, 204);
    assert_eq!(
        close_code(&mut socket).await,
        Some(4004),
        "the socket of the session is closed"
    );

    // The token is dead on the WebSocket as over HTTP; the other session
    // of the account lives on.
    let mut client = spades_client::Client::connect(&server.url).await.unwrap();
    assert!(matches!(
        client.hello_again(&token).await,
        Err(spades_client::ClientError::Refused {
            code: ErrorCode::BadToken,
            ..
        })
    ));
    let mut other = signed_in(&server, &other_token).await;
    let ping = ClientMessage::Ping {
        id: MessageId::Number(2),
    };
    other.send(Message::text(ping.to_json())).await.unwrap();
    assert!(matches!(
        next_message(&mut other).await,
        Some(ServerMessage::Pong { .. })
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_who_claims_his_name_is_asked_to_come_back_with_his_new_token() {
    let server = TestServer::start(Config::default()).await;
    let guest = Player::connect(&server.url, "Rowan").await;
    let mut socket = signed_in(&server, &guest.token).await;
    let claimed = server.api().claim(&guest.token, "rowan's password").await;
    assert_eq!(claimed.status, 200, "{}", claimed.body);
    assert_eq!(close_code(&mut socket).await, Some(4004));
    let account_token = claimed.json::<Session>().token;
    signed_in(&server, &account_token).await;
}
