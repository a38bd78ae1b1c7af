//! The turn clock, and the health endpoints.

use std::time::Duration;

use spades_protocol::event::EventKind;
use spades_protocol::ws::{AutoReason, ServerMessage};
use spades_server::Config;

use crate::support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_the_clock_runs_out_the_server_plays_and_the_hand_goes_on() {
    let config = Config {
        turn_time: Duration::from_millis(60),
        ..Config::default()
    };
    let server = TestServer::start(config).await;
    let (mut players, _) = four_in_a_game(&server.url).await;

    // Nobody acts: the whole first hand is played by the clock.
    let first = players[2]
        .wait_for(Duration::from_secs(5), |m| {
            matches!(m, ServerMessage::Turn { .. })
        })
        .await;
    let ServerMessage::Turn { turn, .. } = first else {
        unreachable!()
    };
    assert!(
        turn.clock_ms <= 60 && turn.clock_ms > 0,
        "the turn carries its clock: {}",
        turn.clock_ms
    );
    players[2]
        .wait_for(Duration::from_secs(30), |m| {
            matches!(m.event(), Some(EventKind::HandScored { .. }))
        })
        .await;
    let auto = players[2]
        .received
        .iter()
        .filter(|m| {
            matches!(
                m.event(),
                Some(EventKind::AutoPlayed {
                    reason: AutoReason::Clock,
                    ..
                })
            )
        })
        .count();
    let bids = players[2]
        .received
        .iter()
        .filter(|m| matches!(m.event(), Some(EventKind::BidMade { .. })))
        .count();
    let plays = players[2]
        .received
        .iter()
        .filter(|m| matches!(m.event(), Some(EventKind::CardPlayed { .. })))
        .count();
    assert_eq!((bids, plays), (4, 52));
    assert_eq!(auto, 56, "every action of the hand was the server's");
}

#[tokio::test]
async fn health_and_readiness() {
    let server = TestServer::start(Config::default()).await;
    let health = server.api().get("/healthz", None).await;
    assert_eq!(health.status, 200, "{health:?}");
    let ready = server.api().get("/readyz", None).await;
    assert!(
        ready.status == 200 && ready.body.ends_with("ready\n"),
        "{ready:?}"
    );

    let full = TestServer::start(Config {
        max_connections: 0,
        ..Config::default()
    })
    .await;
    let ready = full.api().get("/readyz", None).await;
    assert_eq!(ready.status, 503, "{ready:?}");
    let refused = spades_client::Client::connect(&full.url).await;
    assert!(refused.is_err(), "a full server refuses the upgrade");
}

/// A player who connects again and again within his hold keeps the clock
/// he had: it runs out, and the server plays for him.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connecting_again_and_again_does_not_put_off_a_turn() {
    let config = Config {
        turn_time: Duration::from_secs(1),
        ..Config::default()
    };
    let server = TestServer::start(config).await;
    let (mut players, code) = four_in_a_game(&server.url).await;
    let first = players[0]
        .wait_for(Duration::from_secs(5), |m| {
            matches!(m, ServerMessage::Turn { .. })
        })
        .await;
    let ServerMessage::Turn { turn, .. } = first else {
        unreachable!()
    };
    let seat = turn.seats[0];
    let staller = players
        .iter()
        .position(|p| p.table.seat == Some(seat))
        .expect("someone sits in the seat to act");
    let watcher = (staller + 1) % 4;
    let token = players[staller].token.clone();
    let started = tokio::time::Instant::now();
    let mut connections = Vec::new();
    let clock_ran_out = loop {
        let mut client = spades_client::Client::connect(&server.url).await.unwrap();
        client.hello_again(&token).await.unwrap();
        let room = code.clone();
        client
            .request(|id| spades_protocol::ws::ClientMessage::Resync {
                id,
                room,
                last_seq: 0,
            })
            .await
            .expect("back in the room");
        connections.push(client);
        players[watcher].pump().await;
        let played_for_him = players[watcher].received.iter().any(|m| {
            matches!(
                m.event(),
                Some(EventKind::AutoPlayed {
                    seat: s,
                    reason: AutoReason::Clock,
                }) if *s == seat
            )
        });
        if played_for_him {
            break true;
        }
        if started.elapsed() > Duration::from_secs(4) {
            break false;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(
        clock_ran_out,
        "the server played for {seat} when his one-second clock ran out"
    );
}
