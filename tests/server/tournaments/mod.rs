//! Tournaments run by the server on its own: registration over HTTP, every
//! table opened and announced over the WebSocket, played by real clients
//! (and bots for the absent), stages advanced, places and standings stored,
//! and a server killed in the middle of a stage that carries on.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};
use spades_protocol::event::{EventKind, RoomEvent};
use spades_protocol::http::{
    Entrant, Entry, GameRecord, GameStatus, PlayedTournament, Stage, Table, TableStatus, TournamentFormat,
    TournamentStatus, TournamentSummary, TournamentView,
};
use spades_protocol::ws::{ClientMessage, ErrorCode, ServerMessage};
use spades_server::Config;

use crate::durability::{ServerProcess, free_port};
use crate::support::*;

mod duplicate;
pub(crate) use duplicate::check_duplicate;
mod formats;
mod organisers;
mod resuming_and_start_times;

/// Registers an account; returns its token and id.
pub(crate) async fn account(address: SocketAddr, name: &str) -> (String, String) {
    let session = Api::new(address).account(name).await;
    (session.token, session.player.id)
}

/// Creates a tournament as `organizer`; returns its id.
pub(crate) async fn create(address: SocketAddr, organizer: &str, settings: Value) -> String {
    let answer = Api::new(address)
        .create_tournament(organizer, settings)
        .await
        .expect(201);
    answer.json::<TournamentView>().summary.id.to_string()
}

/// Enters `count` bots in a tournament, as the holder of `token`.
async fn add_bots(address: SocketAddr, token: &str, id: &str, count: u32) -> HttpAnswer {
    Api::new(address).add_bots(token, id, count).await
}

async fn view(address: SocketAddr, id: &str) -> TournamentView {
    Api::new(address).tournament(id).await
}

/// Registers `count` players and connects each on his own WebSocket.
async fn entrants(
    address: SocketAddr,
    url: &str,
    tournament: &str,
    prefix: &str,
    count: usize,
) -> Vec<Player> {
    let mut players = Vec::with_capacity(count);
    for i in 0..count {
        let name = format!("{prefix}{i}");
        let (token, _) = account(address, &name).await;
        players.push(Player::sign_in(url, &name, &token).await);
    }
    for player in &players {
        let entry: Entry = Api::new(address)
            .enter(&player.token, tournament)
            .await
            .expect(201)
            .json();
        assert!(entry.entry < count as u32);
    }
    players
}

/// The tables a player has been sent to, in order.
pub(crate) fn tables_announced(player: &Player) -> Vec<(u32, String)> {
    player
        .received
        .iter()
        .filter_map(|message| match message {
            ServerMessage::TournamentTable { stage, room, .. } => Some((*stage, room.clone())),
            _ => None,
        })
        .collect()
}

/// Plays every table the players are sent to until the tournament is
/// finished, and returns its final view.
pub(crate) async fn play_tournament(
    address: SocketAddr,
    players: &mut [Player],
    id: &str,
    within: Duration,
) -> TournamentView {
    let deadline = tokio::time::Instant::now() + within;
    // Tables announced before this call have been dealt with by the caller.
    let mut joined: Vec<usize> = players.iter().map(|p| tables_announced(p).len()).collect();
    let mut next_look = tokio::time::Instant::now();
    loop {
        for (i, player) in players.iter_mut().enumerate() {
            player.pump().await;
            let announced = tables_announced(player);
            if announced.len() > joined[i] {
                let (_, room) = announced.last().cloned().unwrap();
                joined[i] = announced.len();
                player.clear_table();
                player.join_room(&room).await;
            }
            player.act_if_due().await;
        }
        if tokio::time::Instant::now() >= next_look {
            let view = view(address, id).await;
            if view.summary.status == TournamentStatus::Finished {
                return view;
            }
            next_look = tokio::time::Instant::now() + Duration::from_millis(200);
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the tournament did not finish within {within:?}: {:?}",
            view(address, id).await
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// Plays the first stage's tables until seat 0's table has scored a hand
/// and is in the middle of the next: a moment to kill the server.
pub(crate) async fn play_until_a_hand_is_scored(players: &mut [Player]) {
    let deadline = tokio::time::Instant::now() + GAME_DEADLINE;
    let mut joined = vec![false; players.len()];
    loop {
        for (i, player) in players.iter_mut().enumerate() {
            player.pump().await;
            if !joined[i]
                && let Some((_, room)) = tables_announced(player).first().cloned()
            {
                joined[i] = true;
                player.clear_table();
                player.join_room(&room).await;
            }
            player.act_if_due().await;
        }
        if players[0].table.hands_scored >= 1 && players[0].table.trick.len() >= 2 {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "the first stage stalled");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// After a restart, everyone comes back on a new connection to `url` and
/// sits down again at his table if it is still being played (`after` is
/// the tournament as the restarted server shows it).
pub(crate) async fn come_back(players: &mut [Player], url: &str, after: &TournamentView) {
    for player in players.iter_mut() {
        let mut again = Player::sign_in(url, &player.name.clone(), &player.token.clone()).await;
        // Ids go on from the last connection's, as the protocol asks: the
        // server remembers each player's last actions across the restart,
        // and an id it has seen with the same action is taken for a retry.
        again.client.continue_ids(&player.client);
        again.received = std::mem::take(&mut player.received);
        *player = again;
        let (_, room) = tables_announced(player).last().cloned().expect("a table");
        let playing = after.stages[0]
            .tables
            .iter()
            .any(|t| t.room == room && t.status == TableStatus::Playing);
        if playing {
            player.clear_table();
            player.join_room(&room).await;
        }
    }
}

fn stages(view: &TournamentView) -> &[Stage] {
    &view.stages
}

fn seats(table: &Table) -> [u32; 4] {
    table.seats
}

/// The two partnerships of a table, each as an ordered pair of entries.
fn partnerships(table: &Table) -> [(u32, u32); 2] {
    let s = seats(table);
    [(s[0].min(s[2]), s[0].max(s[2])), (s[1].min(s[3]), s[1].max(s[3]))]
}

/// The entries of the winning team of a finished table.
fn winners(table: &Table) -> [u32; 2] {
    assert_eq!(table.status, TableStatus::Finished, "{table:?}");
    let s = seats(table);
    match table.winner {
        Some(0) => [s[0], s[2]],
        Some(1) => [s[1], s[3]],
        other => panic!("no winner: {other:?}"),
    }
}

pub(crate) fn places(view: &TournamentView) -> HashMap<u32, u32> {
    view.entrants
        .iter()
        .map(|e| (e.entry, e.place.expect("a place")))
        .collect()
}

/// Checks a finished knockout: each stage seats exactly the winners of the
/// one before, nobody partners anyone twice, and the places follow the
/// stage each pair went out in.
pub(crate) fn check_knockout(view: &TournamentView, entries: usize) {
    assert_eq!(view.summary.status, TournamentStatus::Finished);
    let stages = stages(view);
    let expected_stages = (entries / 4).trailing_zeros() as usize + 1;
    assert_eq!(stages.len(), expected_stages, "{view:?}");
    let mut partnered = HashSet::new();
    let mut previous_winners: Option<HashSet<u32>> = None;
    for (s, stage) in stages.iter().enumerate() {
        let tables = &stage.tables;
        assert_eq!(tables.len(), entries >> (2 + s), "stage {s}");
        let seated: HashSet<u32> = tables.iter().flat_map(seats).collect();
        assert_eq!(seated.len(), tables.len() * 4, "everyone sits once in stage {s}");
        if let Some(previous) = &previous_winners {
            assert_eq!(
                &seated,
                previous,
                "stage {s} seats the winners of stage {}",
                s - 1
            );
        }
        for table in tables {
            assert!(table.game.is_some(), "every table has its game stored");
            for pair in partnerships(table) {
                assert!(partnered.insert(pair), "{pair:?} partnered twice");
            }
        }
        previous_winners = Some(tables.iter().flat_map(winners).collect());
    }
    let places = places(view);
    let final_table = &stages.last().unwrap().tables[0];
    let champions = winners(final_table);
    for entry in champions {
        assert_eq!(places[&entry], 1, "champions are first");
    }
    let runners_up: Vec<u32> = seats(final_table)
        .into_iter()
        .filter(|e| !champions.contains(e))
        .collect();
    for entry in runners_up {
        assert_eq!(places[&entry], 2, "runners-up are second");
    }
    // Losers of a stage of n tables share place n + 1.
    for stage in stages {
        let tables = &stage.tables;
        for table in tables {
            let won = winners(table);
            for entry in seats(table).into_iter().filter(|e| !won.contains(e)) {
                if tables.len() > 1 {
                    assert_eq!(places[&entry], tables.len() as u32 + 1);
                }
            }
        }
    }
}

/// A server with an organiser (an administrator, made one by `spades
/// admin`) and one tournament he created with `settings`: the server, his
/// token and the tournament's id.
async fn organised(settings: Value) -> (TestServer, String, String) {
    let server = TestServer::start(fast_config()).await;
    let (admin, _) = account(server.address(), "Organiser").await;
    server.make_admin("Organiser");
    let id = create(server.address(), &admin, settings).await;
    (server, admin, id)
}

fn fast_config() -> Config {
    Config {
        turn_time: Duration::from_secs(30),
        // Absent players are played by bots soon after their table opens.
        seat_hold: Duration::from_millis(300),
        message_rate: 10_000,
        message_burst: 10_000,
        ..Config::default()
    }
}
