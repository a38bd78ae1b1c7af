//! Seating test players: four at a new room, or one alone with bots.

use spades_engine::Seat;
use spades_protocol::ws::{BotLevel, ClientMessage, RulesSpec, ServerMessage};

use super::Player;

/// Makes four players sit at a new room created by the first, with the given
/// rules. Returns the room code.
pub async fn seat_four(players: &mut [Player], rules: RulesSpec) -> String {
    seat_four_at(players, rules, false).await
}

/// As [`seat_four`], at a public room that is rated if `rated`.
pub async fn seat_four_at(players: &mut [Player], rules: RulesSpec, rated: bool) -> String {
    let reply = players[0]
        .request(|id| ClientMessage::CreateRoom {
            speed: Default::default(),
            id,
            name: None,
            rules,
            private: false,
            bots: Some(BotLevel::Basic),
            rated,
        })
        .await
        .expect("room created");
    let ServerMessage::Snapshot { state, .. } = reply else {
        panic!("expected a snapshot, got {reply:?}");
    };
    let code = state.room;
    for player in players.iter_mut().skip(1) {
        player.join_room(&code).await;
    }
    for (seat, player) in players.iter_mut().enumerate() {
        player.sit(seat as u8).await;
    }
    code
}

/// A player alone with bots: he opens a room of `preset` whose games last
/// `hands` hands, sits in seat 0, fills the other seats of the game with
/// the room's bots and starts the game.
pub async fn alone_with_bots(url: &str, name: &str, preset: spades_engine::Preset, hands: u32) -> Player {
    let mut owner = Player::connect(url, name).await;
    let rules = RulesSpec {
        preset: Some(preset),
        max_hands: Some(Some(hands)),
        ..RulesSpec::default()
    };
    let seats = preset.rules().seating().seat_count() as u8;
    owner.create_room(rules, false).await;
    owner.sit(0).await;
    for seat in 1..seats {
        let seat = Seat::new(seat);
        owner
            .request(|id| ClientMessage::AddBot {
                id,
                seat,
                level: None,
            })
            .await
            .expect("a bot sits");
    }
    owner.start_game().await;
    owner
}

pub async fn four_players(url: &str) -> Vec<Player> {
    let mut players = Vec::new();
    for name in ["North", "East", "South", "West"] {
        players.push(Player::connect(url, name).await);
    }
    players
}

/// Four players at a new room with the default rules, whose game the
/// first has started: the players and the room's code.
pub async fn four_in_a_game(url: &str) -> (Vec<Player>, String) {
    let mut players = four_players(url).await;
    let code = seat_four(&mut players, RulesSpec::default()).await;
    players[0].start_game().await;
    (players, code)
}
