//! The open-file limit: the `spades` binary raises its soft limit to the
//! hard one, and admits no more connections than fit below what it gets.
//! These tests start the binary from a shell that sets the limits first.

use std::process::Command;
use std::time::Duration;

use spades_client::Client;

use crate::durability::{ServerProcess, free_port};
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
        .env("SPADES_MAX_CONNECTIONS", max_connections.to_string());
    ServerProcess::start_with(command, &fresh_database(), free_port()).await
}

/// The most connections the server admits, from its metrics.
async fn admitted(server: &ServerProcess) -> usize {
    let metrics = http(server.address, "GET", "/metrics", None, None).await.body;
    metrics
        .lines()
        .find_map(|line| line.strip_prefix("spades_connections_max "))
        .expect("the metrics give the most connections admitted")
        .parse()
        .unwrap()
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
    // 96 files, 64 of them the server's own: 32 connections.
    let server = start_limited("-n 96", 1_000).await;
    assert_eq!(admitted(&server).await, 32, "{}", server.log());
    assert!(server.log().contains("fewer connections"), "{}", server.log());

    let mut clients = Vec::new();
    for _ in 0..32 {
        clients.push(
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
    // Every admitted connection still works.
    for (n, client) in clients.iter_mut().enumerate() {
        client
            .hello(&format!("p{n}"))
            .await
            .expect("an admitted client is served");
    }

    // A place freed is a place for the next one.
    clients.pop().unwrap().close().await;
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
}
