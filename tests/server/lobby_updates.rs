//! The lobby's live list under churn: each room's changes reach the
//! watchers at most about once per update window (250 ms), and the room's
//! last look always comes. In the room itself, spectators coming and
//! going make at most ten `seats` events a second: told at once while
//! there is room, and the rest together.

use std::time::{Duration, Instant};

use spades_protocol::event::EventKind;
use spades_protocol::ws::{ClientMessage, RoomSummary, ServerMessage};
use spades_server::Config;

use crate::support::*;

/// The server's update window for one room (protocol.md, `lobby_room`).
const WINDOW: Duration = Duration::from_millis(250);

fn looks_of<'a>(player: &'a Player, code: &str) -> Vec<&'a RoomSummary> {
    player
        .received
        .iter()
        .filter_map(|message| match message {
            ServerMessage::LobbyRoom { room } if room.room == code => Some(room),
            _ => None,
        })
        .collect()
}

/// A player joins the room and leaves it `rounds` times, as fast as the
/// server answers; returns how long it took.
async fn churn(server: &TestServer, code: &str, rounds: usize) -> Duration {
    let mut churner = Player::connect(&server.url, "Churner").await;
    let started = Instant::now();
    for _ in 0..rounds {
        churner.join_room(code).await;
        churner
            .request(|id| ClientMessage::LeaveRoom { id })
            .await
            .unwrap();
    }
    started.elapsed()
}

#[tokio::test]
async fn a_room_churned_by_joins_and_leaves_is_shown_at_a_bounded_rate_and_ends_right() {
    let server = TestServer::start(Config::default()).await;
    let mut watcher = Player::lobby_watcher(&server.url, "Lobbyist").await;
    let mut host = Player::connect(&server.url, "Host").await;
    let code = host.create_room(Default::default(), false).await;
    watcher
        .wait_for(
            Duration::from_secs(5),
            |m| matches!(m, ServerMessage::LobbyRoom { room } if room.room == code),
        )
        .await;

    // Each join and each leave changes the room's look.
    const ROUNDS: usize = 40;
    let churn = churn(&server, &code, ROUNDS).await;
    // The last change is held for at most one window.
    tokio::time::sleep(3 * WINDOW).await;
    watcher.pump().await;

    let looks = looks_of(&watcher, &code);
    let last = looks.last().expect("the room was shown");
    assert_eq!(last.spectators, 1, "the last look shows the host alone: {last:?}");
    assert!(last.seats.iter().all(Option::is_none), "{last:?}");
    // The creation's look, then at most one look per window of the churn
    // and one when it ended, where every change would be 80.
    let most = 2 + churn.as_millis() / WINDOW.as_millis() + 1;
    assert!(
        looks.len() as u128 <= most,
        "{} looks for {} changes in {churn:?} (at most {most} expected)",
        looks.len(),
        2 * ROUNDS
    );
    assert!(
        looks.len() < ROUNDS,
        "{} looks for {} changes in {churn:?}: the churn was too slow to show the window",
        looks.len(),
        2 * ROUNDS
    );

    // A room that closes is announced as closed, and no look held for it
    // follows.
    host.request(|id| ClientMessage::LeaveRoom { id }).await.unwrap();
    watcher.wait_for_room_closed(&code).await;
    tokio::time::sleep(2 * WINDOW).await;
    watcher.pump().await;
    let after_close = watcher
        .received
        .iter()
        .rev()
        .take_while(|m| !matches!(m, ServerMessage::LobbyRoomClosed { .. }))
        .filter(|m| matches!(m, ServerMessage::LobbyRoom { room } if room.room == code))
        .count();
    assert_eq!(after_close, 0, "a look of the room came after it closed");
    server.server.shutdown().await.unwrap();
}

/// The `seats` events a member has received, as spectator counts.
fn spectator_counts(player: &Player) -> Vec<u32> {
    player
        .received
        .iter()
        .filter_map(|message| match message.event() {
            Some(EventKind::Seats { spectators, .. }) => Some(*spectators),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spectators_coming_and_going_fast_are_told_to_the_room_in_bounded_numbers() {
    let server = TestServer::start(Config::default()).await;
    let mut host = Player::connect(&server.url, "Host").await;
    let code = host.create_room(Default::default(), false).await;
    host.pump().await;
    let before = spectator_counts(&host).len();

    // Forty comings and goings, far more than ten a second.
    const ROUNDS: usize = 20;
    let churn = churn(&server, &code, ROUNDS).await;
    let mut stayer = Player::connect(&server.url, "Stayer").await;
    stayer.join_room(&code).await;

    // What was held back is told within a second.
    host.until(Duration::from_secs(3), |host| {
        spectator_counts(host).last() == Some(&2)
    })
    .await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    host.pump().await;
    let counts = spectator_counts(&host);
    assert_eq!(counts.last(), Some(&2), "the host and the stayer: {counts:?}");
    let told = counts.len() - before;
    // At most ten in any second, the one that tells what was held back
    // included: ten for each second begun.
    let seconds = churn.as_secs() as usize + 2;
    assert!(
        told <= 10 * seconds,
        "{told} seats events for {} changes in {churn:?}",
        2 * ROUNDS + 1
    );
    assert!(
        told < 2 * ROUNDS,
        "{told} seats events for {} changes in {churn:?}: the churn was too slow to show the bound",
        2 * ROUNDS + 1
    );
}
