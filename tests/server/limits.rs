//! The open-file limit: the `spades` binary raises its soft limit to the
//! hard one, and admits no more connections than fit below what it gets.
//! These tests start the binary from a shell that sets the limits first.

use std::process::Command;
use std::time::Duration;

use spades_client::Client;

use spades_protocol::ws::RulesSpec;

use crate::durability::{ServerProcess, free_port, play_into_hand};
use crate::support::*;

/// Starts the server under the open-file limits that `ulimit` sets in a
/// shell, allowing it `max_connections`.
async fn start_limited(ulimit: &str, max_connections: usize) -> ServerProcess {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!("ulimit {ulimit} && exec \"$@\""))
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_spades"))
        .env("SPADES_MAX_CONNECTIONS", max_connections.to_string())
        // Long enough that clients which send nothing stay connected for
        // the whole test.
        .env("SPADES_KEEPALIVE", "300");
    ServerProcess::start_with(command, &fresh_database(), free_port()).await
}

/// The value of one of the server's metrics.
async fn metric(server: &ServerProcess, name: &str) -> u64 {
    let metrics = http(server.address, "GET", "/metrics", None, None).await.body;
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
    for _ in 4..32 {
        others.push(
            Client::connect(&server.url())
                .await
                .expect("a connection that fits"),
        );
    }
    // The next is turned away at the upgrade, while HTTP goes on.
    assert!(Client::connect(&server.url()).await.is_err());
    assert_eq!(
        http(server.address, "GET", "/healthz", None, None).await.status,
        200
    );
    let ready = http(server.address, "GET", "/readyz", None, None).await;
    assert_eq!((ready.status, ready.body.as_str()), (503, "full\n"));

    // Sockets that never send a byte take the places left, then wait in
    // the kernel's queue; without a cap on sockets they would take the
    // files the store opens once play begins, and the game would stall.
    let mut idle = Vec::new();
    for _ in 0..60 {
        idle.push(tokio::net::TcpStream::connect(server.address).await.unwrap());
    }
    seat_four(&mut players, RulesSpec::default()).await;
    players[0].start_game().await;
    play_into_hand(&mut players, 0, 8).await;
    for (n, client) in others.iter_mut().enumerate() {
        client
            .hello(&format!("p{n}"))
            .await
            .expect("an admitted client is served");
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
