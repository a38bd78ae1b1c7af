//! Quick play over the protocol: matching, pairs, bots after the wait,
//! and players who cancel or disconnect.

use std::time::Duration;

use spades_engine::Preset;
use spades_protocol::ws::{ClientMessage, ErrorCode, ServerMessage, UnqueueReason};
use spades_server::Config;

use crate::support::*;

async fn queue(player: &mut Player, partner: Option<&str>) -> ServerMessage {
    let partner = partner.map(str::to_string);
    player
        .request(|id| ClientMessage::Queue {
            id,
            rules: Preset::Tournament,
            partner,
        })
        .await
        .expect("queued")
}

/// Waits for the player's `matched` message (unless it came already): its
/// room and seat.
async fn matched(player: &mut Player, within: Duration) -> (String, u8, Vec<bool>) {
    let is_matched = |m: &ServerMessage| matches!(m, ServerMessage::Matched { .. });
    let message = match player.received.iter().find(|m| is_matched(m)) {
        Some(message) => message.clone(),
        None => player.wait_for(within, is_matched).await,
    };
    let ServerMessage::Matched {
        room, seat, seats, ..
    } = message
    else {
        unreachable!()
    };
    (
        room,
        seat.index() as u8,
        seats.iter().map(|player| player.bot).collect(),
    )
}

fn was_matched(player: &Player) -> bool {
    player
        .received
        .iter()
        .any(|m| matches!(m, ServerMessage::Matched { .. }))
}

/// Long enough that no table is completed with bots during a test.
fn patient() -> Config {
    Config {
        queue_max_wait: Duration::from_secs(600),
        ..Config::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_queued_players_get_one_table_and_play_their_game() {
    let server = TestServer::start(patient()).await;
    let mut players = four_players(&server.url).await;
    for player in players.iter_mut() {
        let reply = queue(player, None).await;
        let ServerMessage::Queued {
            waiting_for_partner,
            max_wait_ms,
            ..
        } = reply
        else {
            panic!("expected queued, got {reply:?}")
        };
        assert!(!waiting_for_partner);
        assert_eq!(max_wait_ms, 600_000);
    }
    let mut rooms = Vec::new();
    let mut seats = Vec::new();
    for player in players.iter_mut() {
        let (room, seat, bots) = matched(player, Duration::from_secs(5)).await;
        assert_eq!(bots, [false; 4]);
        rooms.push(room);
        seats.push(seat);
    }
    assert!(rooms.iter().all(|room| *room == rooms[0]), "{rooms:?}");
    seats.sort();
    assert_eq!(seats, [0, 1, 2, 3]);
    for player in players.iter_mut() {
        player.join_room(&rooms[0]).await;
        assert!(player.table.seat.is_some(), "{}: the seat is his", player.name);
    }
    play_games(&mut players, &mut [], 1, Duration::from_secs(120)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn friends_who_queue_together_sit_as_partners() {
    let server = TestServer::start(patient()).await;
    let mut ann = Player::connect(&server.url, "Ann").await;
    let mut bob = Player::connect(&server.url, "Bob").await;
    let mut others = [
        Player::connect(&server.url, "Xavier").await,
        Player::connect(&server.url, "Yolanda").await,
    ];
    assert!(matches!(
        queue(&mut ann, Some("bob")).await,
        ServerMessage::Queued {
            waiting_for_partner: true,
            ..
        }
    ));
    for other in others.iter_mut() {
        queue(other, None).await;
    }
    // Ann waits for Bob, so three players cannot make a table.
    tokio::time::sleep(Duration::from_millis(600)).await;
    ann.pump().await;
    assert!(!was_matched(&ann));
    assert!(matches!(
        queue(&mut bob, Some("Ann")).await,
        ServerMessage::Queued {
            waiting_for_partner: false,
            ..
        }
    ));
    let (_, ann_seat, _) = matched(&mut ann, Duration::from_secs(5)).await;
    let (_, bob_seat, _) = matched(&mut bob, Duration::from_secs(5)).await;
    assert_eq!(ann_seat % 2, bob_seat % 2, "partners sit opposite each other");
    assert_ne!(ann_seat, bob_seat);
    for other in others.iter_mut() {
        let (_, seat, _) = matched(other, Duration::from_secs(5)).await;
        assert_ne!(seat % 2, ann_seat % 2);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lone_player_gets_bots_after_the_longest_wait() {
    let config = Config {
        queue_max_wait: Duration::from_millis(700),
        ..Config::default()
    };
    let server = TestServer::start(config).await;
    let mut alone = Player::connect(&server.url, "Alone").await;
    let started = tokio::time::Instant::now();
    queue(&mut alone, None).await;
    let (room, seat, bots) = matched(&mut alone, Duration::from_secs(5)).await;
    assert!(
        started.elapsed() >= Duration::from_millis(700),
        "not before the wait"
    );
    assert_eq!(seat, 0);
    assert_eq!(bots, [false, true, true, true]);
    alone.join_room(&room).await;
    play_games(
        std::slice::from_mut(&mut alone),
        &mut [],
        1,
        Duration::from_secs(120),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelled_and_disconnected_players_leave_the_queue() {
    let server = TestServer::start(patient()).await;
    let mut quitter = Player::connect(&server.url, "Quitter").await;
    queue(&mut quitter, None).await;
    quitter
        .request(|id| ClientMessage::LeaveQueue { id })
        .await
        .expect("left the queue");
    assert_eq!(
        refused(quitter.request(|id| ClientMessage::LeaveQueue { id }).await),
        ErrorCode::NotQueued
    );
    let mut gone = Player::connect(&server.url, "Gone").await;
    queue(&mut gone, None).await;
    let Player { client, .. } = gone;
    client.close().await;
    tokio::time::sleep(Duration::from_millis(200)).await;

    // Had either still been queued, the oldest of them would be at the
    // first table and the last of these four would still wait.
    let mut players = four_players(&server.url).await;
    for player in players.iter_mut() {
        queue(player, None).await;
    }
    for player in players.iter_mut() {
        matched(player, Duration::from_secs(5)).await;
    }
    quitter.pump().await;
    assert!(!was_matched(&quitter));

    // A pair is undone when one of the two leaves, and the other is told.
    let mut ann = Player::connect(&server.url, "Ann").await;
    let mut bob = Player::connect(&server.url, "Bob").await;
    queue(&mut ann, Some("Bob")).await;
    queue(&mut bob, Some("Ann")).await;
    bob.request(|id| ClientMessage::LeaveQueue { id })
        .await
        .expect("left the queue");
    let notice = ann
        .wait_for(Duration::from_secs(5), |m| {
            matches!(m, ServerMessage::Unqueued { .. })
        })
        .await;
    assert_eq!(
        notice,
        ServerMessage::Unqueued {
            reason: UnqueueReason::PartnerLeft
        }
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_at_a_game_cannot_queue_and_a_partner_must_be_another() {
    let server = TestServer::start(patient()).await;
    let (mut players, _) = four_in_a_game(&server.url).await;
    let busy = players[1]
        .request(|id| ClientMessage::Queue {
            id,
            rules: Preset::Classic,
            partner: None,
        })
        .await;
    assert_eq!(refused(busy), ErrorCode::GameInProgress);
    let mut lonely = Player::connect(&server.url, "Narcissus").await;
    let himself = lonely
        .request(|id| ClientMessage::Queue {
            id,
            rules: Preset::Classic,
            partner: Some("narcissus".into()),
        })
        .await;
    assert_eq!(refused(himself), ErrorCode::BadPartner);
    // Solo has no partners to sit with: a pair is refused, a single queues.
    let pair = lonely
        .request(|id| ClientMessage::Queue {
            id,
            rules: Preset::Solo,
            partner: Some("Echo".into()),
        })
        .await;
    assert_eq!(refused(pair), ErrorCode::BadPartner);
    lonely
        .request(|id| ClientMessage::Queue {
            id,
            rules: Preset::Solo,
            partner: None,
        })
        .await
        .expect("a single player queues for solo");
}
