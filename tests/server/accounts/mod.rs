//! Accounts over the HTTP API and their use on the WebSocket: registration,
//! names, passwords, lockout, expiry, logout, guests claiming their name,
//! and what a token does and does not give access to; and the API's
//! answers to requests it cannot read.

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use serde_json::json;
use spades_client::Client;
use spades_protocol::event::{EventKind, RoomEvent};
use spades_protocol::http::{GameRecord, GameStatus, Leaderboard, RecentGames, Session};
use spades_protocol::ws::{BotLevel, ClientMessage, ErrorCode, RulesSpec, ServerMessage};
use spades_server::{Config, PasswordCost, Server};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support::*;

fn token_of(answer: &HttpAnswer) -> String {
    answer.json::<Session>().token
}

mod games;
mod sign_in;
mod unreadable;

/// Another loopback address: Linux routes all of 127/8 to the loopback
/// interface, so a test can be a second client address.
const ELSEWHERE: [u8; 4] = [127, 0, 0, 2];

/// Sends a request from the local address `from`: `head` is its request
/// line and any headers beyond `Host`, `Connection` and `Content-Length`.
/// The body is written while the answer is read, since the server may
/// answer a large body, and close, before it has read all of it.
async fn send_from(server: &TestServer, from: IpAddr, head: &str, body: Vec<u8>) -> HttpAnswer {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::new(from, 0))
        .expect("binds to the address");
    let stream = socket.connect(server.address()).await.expect("connects");
    let (mut reader, mut writer) = stream.into_split();
    let request = format!(
        "{head}\r\nHost: localhost\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let writing = tokio::spawn(async move {
        let _ = writer.write_all(request.as_bytes()).await;
        let _ = writer.write_all(&body).await;
        // The write half stays open until the answer is read, since the
        // server takes a client that closes it for one that is gone.
        std::future::pending::<()>().await;
        drop(writer);
    });
    // A server that closes with some of the body unread resets the
    // connection; what it answered before has arrived and is kept.
    let mut response = Vec::new();
    let _ = reader.read_to_end(&mut response).await;
    writing.abort();
    HttpAnswer::from_raw(&String::from_utf8_lossy(&response))
}

fn json_head(method: &str, path: &str) -> String {
    format!("{method} {path} HTTP/1.1\r\nContent-Type: application/json")
}

async fn login_from(server: &TestServer, from: [u8; 4], name: &str, password: &str) -> HttpAnswer {
    Api::from_address(server.address(), IpAddr::from(from))
        .login(name, password)
        .await
}
