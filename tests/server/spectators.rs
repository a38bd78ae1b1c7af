//! Spectators coming and going reach the people in a room at a bounded
//! pace: a crowd that joins and leaves over and over makes at most ten
//! messages that tell of spectators in any second, and the last of its
//! comings and goings is still told.

use std::time::Duration;

use spades_protocol::event::EventKind;
use spades_protocol::ws::{ClientMessage, RulesSpec, ServerMessage};
use spades_server::Config;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::support::*;

/// The number of spectators a message tells of, if it tells of them: a
/// `seats` event does, and so do a `snapshot` and a lobby's `lobby_room`,
/// which hold the spectators' number too. The watcher below asks for no
/// snapshot and does not watch the lobby, so only `seats` events should
/// come, but any other that came would count.
fn tells_of_spectators(message: &ServerMessage) -> Option<u32> {
    match message {
        ServerMessage::Snapshot { state, .. } => Some(state.spectators),
        ServerMessage::LobbyRoom { room } => Some(room.spectators),
        _ => match message.event() {
            Some(EventKind::Seats { spectators, .. }) => Some(*spectators),
            _ => None,
        },
    }
}

/// The number of spectators the watcher was last told of.
fn last_told(watcher: &Player) -> Option<u32> {
    watcher.received.iter().rev().find_map(tells_of_spectators)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crowd_of_spectators_is_told_at_most_ten_times_a_second() {
    let server = TestServer::start(Config::default()).await;
    let mut watcher = Player::connect(&server.url, "Watcher").await;
    let code = watcher.create_room(RulesSpec::default(), false).await;
    watcher.sit(0).await;

    // Forty spectators join and leave, each some ten times a second at a
    // pace of his own, so that the room sees hundreds of comings and
    // goings a second, spread over it rather than in waves (each stays
    // under the message rate). They all connect first, and the watcher
    // has read everything before they start, so that the times below are
    // those of events sent while it reads.
    let mut spectators = Vec::new();
    for n in 0..40 {
        spectators.push(Player::connect(&server.url, &format!("Spectator{n}")).await);
    }
    watcher.pump().await;
    let stop = CancellationToken::new();
    let mut crowd = Vec::new();
    for (n, mut spectator) in spectators.into_iter().enumerate() {
        let (code, stop) = (code.clone(), stop.clone());
        let pause = Duration::from_millis(50 + (n as u64 * 37) % 100);
        crowd.push(tokio::spawn(async move {
            tokio::time::sleep(pause / 40 * n as u32).await;
            let mut visits = 0u32;
            while !stop.is_cancelled() {
                spectator.join_room(&code).await;
                spectator
                    .request(|id| ClientMessage::LeaveRoom { id })
                    .await
                    .expect("left");
                visits += 1;
                // What came meanwhile is not needed.
                spectator.received.clear();
                tokio::time::sleep(pause).await;
            }
            visits
        }));
    }

    // The watcher notes when each message telling of spectators arrives.
    let measured = Duration::from_secs(4);
    let until = Instant::now() + measured;
    let mut arrivals = Vec::new();
    while let Some(left) = until.checked_duration_since(Instant::now()) {
        let Some(message) = watcher.client.try_recv(left).await.expect("the watcher stays") else {
            break;
        };
        if tells_of_spectators(&watcher.note(message)).is_some() {
            arrivals.push(Instant::now());
        }
    }
    stop.cancel();
    let mut visits = 0;
    for spectator in crowd {
        visits += spectator.await.unwrap();
    }
    assert!(visits >= 200, "only {visits} visits: the crowd hardly came");

    // Events are timed where they arrive, which may put two that left the
    // server a second apart a little closer: 100 ms is allowed for that.
    let span = Duration::from_millis(900);
    for (first, eleventh) in arrivals.iter().zip(arrivals.iter().skip(10)) {
        assert!(
            *eleventh - *first >= span,
            "eleven messages telling of spectators within {:?} ({} in {measured:?})",
            *eleventh - *first,
            arrivals.len()
        );
    }
    // The news still flows, about ten a second.
    assert!(arrivals.len() >= 20, "{} in {measured:?}", arrivals.len());
    // And the last going is told, within the second it may be held.
    watcher
        .until(Duration::from_secs(3), |watcher| last_told(watcher) == Some(0))
        .await;
}
