//! Whole games, watched by a spectator.

use std::time::Duration;

use spades_engine::{CardSet, Seat};
use spades_protocol::event::{EventKind, RoomEvent};
use spades_protocol::ws::{ClientMessage, ErrorCode, RoomStatus, RulesSpec, ServerMessage};
use spades_server::Config;

use crate::support::*;

mod lobby_and_refusals;
mod whole_games;

/// Four players seated in a new room of `rules`, a spectator watching, and
/// the game started.
async fn watched_game(server: &TestServer, rules: RulesSpec) -> (Vec<Player>, Player) {
    let mut players = four_players(&server.url).await;
    let code = seat_four(&mut players, rules).await;
    let mut watcher = Player::connect(&server.url, "Watcher").await;
    watcher.join_room(&code).await;
    players[0].start_game().await;
    (players, watcher)
}

/// Plays the started game to its end, the spectator following it.
async fn finish_game(players: &mut [Player], watcher: &mut Player) {
    play_games(players, std::slice::from_mut(watcher), 1, GAME_DEADLINE).await;
    watcher
        .until(Duration::from_secs(5), |w| w.table.games_over == 1)
        .await;
}

/// Fails if the spectator was sent any hand or any passed card.
fn assert_no_hidden_card(watcher: &Player) {
    for message in &watcher.received {
        let hidden = match message.event() {
            Some(EventKind::HandStarted { cards, .. } | EventKind::HandRevealed { cards, .. }) => {
                cards.is_some()
            }
            Some(EventKind::CardsPassed { cards, .. }) => cards.is_some(),
            _ => false,
        };
        assert!(!hidden, "the spectator received hidden cards: {message:?}");
    }
}
