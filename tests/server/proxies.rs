//! A server behind a reverse proxy: the client's address comes from the
//! proxy's `X-Forwarded-For` only on sockets from a trusted proxy, and
//! every per-address limit then counts the real clients. The tests' own
//! sockets come from 127.0.0.1, which plays the proxy when it is trusted
//! and an attacker forging headers when it is not.

use std::net::SocketAddr;

use spades_server::{Config, TrustedProxies};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::api::Api;
use crate::support::*;

/// A WebSocket upgrade that says it is forwarded for `client`, and the
/// status of its answer. The socket is returned open, so that an admitted
/// connection keeps its place.
async fn upgrade_for(server: SocketAddr, client: &str) -> (u16, TcpStream) {
    let mut stream = TcpStream::connect(server).await.unwrap();
    let request = format!(
        "GET /ws HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
         X-Forwarded-For: {client}\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8; 1];
        let read = tokio::time::timeout(std::time::Duration::from_secs(10), stream.read(&mut byte))
            .await
            .expect("the upgrade is answered")
            .unwrap();
        assert_eq!(read, 1, "the server closed before its answer's head");
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head);
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    (status, stream)
}

/// A server with `config` and one registered account, `Owner`.
async fn with_owner(config: Config) -> TestServer {
    let server = TestServer::start(config).await;
    Api::new(server.address())
        .register("Owner", "a good password")
        .await
        .expect(201);
    server
}

fn behind(proxies: &str, config: Config) -> Config {
    Config {
        trusted_proxies: TrustedProxies::parse(proxies).unwrap(),
        ..config
    }
}

#[tokio::test]
async fn a_forged_forwarding_header_from_an_untrusted_address_is_ignored() {
    let server = TestServer::start(Config {
        max_connections_per_address: 2,
        ..Config::default()
    })
    .await;
    let mut open = Vec::new();
    for client in ["198.51.100.1", "198.51.100.2"] {
        let (status, stream) = upgrade_for(server.address(), client).await;
        assert_eq!(status, 101);
        open.push(stream);
    }
    // Every upgrade came from 127.0.0.1, whatever its header says.
    let (status, _) = upgrade_for(server.address(), "198.51.100.3").await;
    assert_eq!(status, 503, "the third connection of one address is refused");

    // The same holds for logins: three failures from one address close it,
    // whichever addresses the requests claim to come from.
    let server = with_owner(Config {
        login_failures_per_address: 3,
        ..Config::default()
    })
    .await;
    for n in 1..=3 {
        let forged = Api::forwarded_for(server.address(), &format!("203.0.113.{n}"));
        forged.login("Owner", "wrong").await.expect(401);
    }
    let owner = Api::forwarded_for(server.address(), "192.0.2.10");
    owner.login("Owner", "a good password").await.expect(429);
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_client_counts_apart() {
    let server = TestServer::start(behind(
        "127.0.0.1",
        Config {
            max_connections_per_address: 2,
            max_sockets_per_address: 3,
            ..Config::default()
        },
    ))
    .await;
    // Five clients through one proxy: the proxy's sockets go past the
    // per-address socket cap (3), and each client is under its own.
    let mut open = Vec::new();
    for n in 1..=5 {
        let (status, stream) = upgrade_for(server.address(), &format!("198.51.100.{n}")).await;
        assert_eq!(status, 101, "client {n}");
        open.push(stream);
    }
    // One client still cannot take more than its share.
    let (status, stream) = upgrade_for(server.address(), "198.51.100.1").await;
    assert_eq!(status, 101);
    open.push(stream);
    let (status, _) = upgrade_for(server.address(), "198.51.100.1").await;
    assert_eq!(status, 503, "a third connection of one client is refused");
    // A client that writes its own header sits behind it: the proxy
    // appends the address it was reached from, which is what counts.
    let (status, _) = upgrade_for(server.address(), "198.51.100.7, 198.51.100.1").await;
    assert_eq!(
        status, 503,
        "a forged entry in front of the proxy's does not help"
    );
}

#[tokio::test]
async fn behind_a_trusted_proxy_a_flood_of_bad_logins_does_not_lock_the_owner_out() {
    let server = with_owner(behind(
        "127.0.0.0/8",
        Config {
            login_failures_per_address: 3,
            ..Config::default()
        },
    ))
    .await;
    // Many addresses guess the owner's password, a few times each.
    for n in 1..=12 {
        let attacker = Api::forwarded_for(server.address(), &format!("203.0.113.{n}"));
        attacker.login("Owner", "wrong").await.expect(401);
    }
    let owner = Api::forwarded_for(server.address(), "192.0.2.10");
    owner.login("Owner", "a good password").await.expect(200);
    // One address is still stopped after its failures.
    let one = Api::forwarded_for(server.address(), "203.0.113.99");
    for name in ["Owner", "Nobody", "Someone"] {
        one.login(name, "wrong").await.expect(401);
    }
    one.login("Owner", "a good password").await.expect(429);
}

#[tokio::test]
async fn the_audit_log_names_the_real_client_behind_a_trusted_proxy_only() {
    for (proxies, expected) in [("127.0.0.1", "203.0.113.9"), ("10.0.0.0/8", "127.0.0.1")] {
        let server = TestServer::start(behind(proxies, Config::default())).await;
        let admin = server.api().account("Ada").await;
        server.make_admin("Ada");
        let pat = server.api().account("Pat").await;
        let from = Api::forwarded_for(server.address(), "203.0.113.9");
        let path = format!("/api/players/{}/sanctions", pat.player.id);
        let warn = serde_json::json!({"kind": "warn", "reason": "testing"});
        from.post(&path, Some(warn), Some(&admin.token)).await.expect(201);
        let log = from
            .get("/api/audit", Some(&admin.token))
            .await
            .expect(200)
            .value();
        assert_eq!(log["lines"][0]["client"], expected, "behind {proxies}");
        assert!(
            log["lines"][1]["client"].is_null(),
            "the command line has no address"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_lines_name_the_real_client_behind_a_trusted_proxy() {
    use crate::durability::{ServerProcess, free_port};
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_spades"));
    command.env("SPADES_TRUSTED_PROXIES", "127.0.0.1");
    let server = ServerProcess::start_with(command, &fresh_database(), free_port()).await;
    let api = Api::new(server.address);
    api.register("Owner", "a good password").await.expect(201);
    let guesser = Api::forwarded_for(server.address, "203.0.113.77");
    guesser.login("Owner", "a wrong password").await.expect(401);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let log = server.log();
        let failed = log
            .lines()
            .any(|line| line.contains("failed login") && line.contains("203.0.113.77"));
        if failed {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no log line names the client:\n{log}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}
