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

/// A server with an organiser (its first account) and one tournament he
/// created with `settings`: the server, his token and the tournament's id.
async fn organised(settings: Value) -> (TestServer, String, String) {
    let server = TestServer::start(fast_config()).await;
    let (admin, _) = account(server.address(), "Organiser").await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixteen_players_play_a_knockout_to_the_final() {
    let (server, _, id) =
        organised(json!({"name": "Sixteen", "format": "knockout", "max_players": 16})).await;
    let address = server.address();
    // One more follows the bracket as it is played.
    let (watcher_token, _) = account(address, "Watcher").await;
    let mut watcher = Player::sign_in(&server.url, "Watcher", &watcher_token).await;
    let tournament = id.clone();
    let reply = watcher
        .request(|id| ClientMessage::WatchTournament { id, tournament })
        .await
        .expect("watching");
    assert!(
        matches!(reply, ServerMessage::Tournament { id: Some(_), .. }),
        "{reply:?}"
    );

    // The sixteenth registration fills the tournament and starts it.
    let mut players = entrants(address, &server.url, &id, "ko", 16).await;
    let view = play_tournament(address, &mut players, &id, Duration::from_secs(240)).await;
    check_knockout(&view, 16);
    assert_eq!(view.summary.format, TournamentFormat::Knockout);
    assert!(view.entrants.iter().all(|e| !e.bot));

    // Every player was told of each table he played, one per stage reached.
    let places = places(&view);
    for (entry, player) in players.iter().enumerate() {
        let expected = match places[&(entry as u32)] {
            1 | 2 => 3,
            3 => 2,
            _ => 1,
        };
        let announced = tables_announced(player);
        assert_eq!(
            announced.len(),
            expected,
            "{} was told of {announced:?}",
            player.name
        );
        let stages: Vec<u32> = announced.iter().map(|(stage, _)| *stage).collect();
        assert_eq!(stages, (0..expected as u32).collect::<Vec<_>>());
    }

    // Each table's game is stored with its result.
    for stage in stages(&view) {
        for table in &stage.tables {
            let game = table.game.expect("a stored game");
            let stored: GameRecord = http(address, "GET", &format!("/api/games/{game}"), None, None)
                .await
                .json();
            assert_eq!(stored.status, GameStatus::Finished, "{stored:?}");
            assert_eq!(stored.winner, table.winner);
            assert_eq!(stored.score, table.score.map(Vec::from));
        }
    }

    // A player's history shows the tournament and his place.
    let champion = (0..16).find(|e| places[e] == 1).unwrap() as usize;
    let path = format!("/api/players/{}/tournaments", players[champion].id);
    let history: Vec<PlayedTournament> = http(address, "GET", &path, None, None).await.json();
    assert_eq!(history[0].id.to_string(), id);
    assert_eq!(history[0].place, Some(1));

    // The watcher was sent the bracket as it changed, up to the end.
    watcher.pump().await;
    let last = watcher
        .received
        .iter()
        .rev()
        .find_map(|m| match m {
            ServerMessage::Tournament { tournament, .. } => Some(tournament.clone()),
            _ => None,
        })
        .expect("bracket updates");
    assert_eq!(last.summary.status, TournamentStatus::Finished);
    let updates = watcher
        .received
        .iter()
        .filter(|m| matches!(m, ServerMessage::Tournament { id: None, .. }))
        .count();
    assert!(updates >= 7, "one update per table at least: {updates}");
    // Watchers are told when tables start playing, not only when they end:
    // some update shows a whole stage under way, none of it finished.
    let playing = watcher.received.iter().any(|m| match m {
        ServerMessage::Tournament { tournament, .. } => tournament.stages.iter().any(|stage| {
            stage
                .tables
                .iter()
                .all(|t| t.status == TableStatus::Playing && t.game.is_some())
        }),
        _ => false,
    });
    assert!(playing, "no update showed a stage being played");

    // The list shows it among the finished ones, not the upcoming.
    let list = |status: &'static str| async move {
        let path = format!("/api/tournaments?status={status}");
        let list: Vec<TournamentSummary> = http(address, "GET", &path, None, None).await.json();
        list.into_iter().map(|t| t.id.to_string()).collect::<Vec<_>>()
    };
    assert!(list("finished").await.contains(&id));
    assert!(!list("upcoming").await.contains(&id));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn six_players_are_completed_to_eight_with_bots() {
    let (server, _, id) = organised(json!({"name": "Six", "format": "knockout", "max_players": 6})).await;
    let address = server.address();
    let mut players = entrants(address, &server.url, &id, "six", 6).await;
    // Two of them never come to their tables: bots play for them and the
    // results count for them.
    let absent: Vec<Player> = players.drain(4..).collect();
    let view = play_tournament(address, &mut players, &id, Duration::from_secs(180)).await;
    let entrants = &view.entrants;
    assert_eq!(entrants.len(), 8, "the bracket is completed to 8");
    let bots: HashSet<u32> = entrants.iter().filter(|e| e.bot).map(|e| e.entry).collect();
    assert_eq!(bots.len(), 2, "by two bots");
    check_knockout(&view, 8);
    // The bots partner people in the first stage.
    for table in &stages(&view)[0].tables {
        for (a, b) in partnerships(table) {
            assert!(!(bots.contains(&a) && bots.contains(&b)), "two bots partnered");
        }
    }
    // The absent players have places like everyone else.
    for player in &absent {
        let path = format!("/api/players/{}/tournaments", player.id);
        let history: Vec<PlayedTournament> = http(address, "GET", &path, None, None).await.json();
        assert!(history[0].place.is_some(), "{history:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_players_play_seven_swiss_rounds() {
    let (server, admin, id) =
        organised(json!({"name": "Club night", "format": "swiss", "max_players": 12})).await;
    let address = server.address();
    assert_eq!(
        view(address, &id).await.summary.rounds,
        Some(7),
        "seven rounds by default"
    );
    let mut players = entrants(address, &server.url, &id, "sw", 8).await;
    assert_eq!(
        view(address, &id).await.summary.status,
        TournamentStatus::Open,
        "not full: waits"
    );
    let start = format!("/api/tournaments/{id}/start");
    assert_eq!(
        http(address, "POST", &start, None, Some(&admin)).await.status,
        204
    );

    let view = play_tournament(address, &mut players, &id, Duration::from_secs(300)).await;
    let rounds = stages(&view);
    assert_eq!(rounds.len(), 7);
    // Everyone plays every round, and standings add up from the tables.
    let mut points: HashMap<u32, (i32, i32)> = HashMap::new();
    let mut partnered: HashMap<(u32, u32), u32> = HashMap::new();
    for (r, round) in rounds.iter().enumerate() {
        let tables = &round.tables;
        assert_eq!(tables.len(), 2);
        let seated: HashSet<u32> = tables.iter().flat_map(seats).collect();
        assert_eq!(seated.len(), 8, "round {r} seats everyone");
        for table in tables {
            let won = winners(table);
            let score = table.score.expect("a finished table's score");
            for (seat, entry) in seats(table).into_iter().enumerate() {
                let standing = points.entry(entry).or_default();
                standing.0 += i32::from(won.contains(&entry));
                standing.1 += score[seat % 2] - score[1 - seat % 2];
            }
            for pair in partnerships(table) {
                let times = partnered.entry(pair).or_default();
                *times += 1;
                // The first four rounds can always be seated with new
                // partners (every player still has four he has not had).
                assert!(r >= 4 || *times == 1, "round {r}: {pair:?} partnered again");
            }
        }
    }
    assert!(partnered.values().all(|&times| times <= 2));
    let entrants = &view.entrants;
    assert_eq!(
        points.values().map(|p| p.0).sum::<i32>(),
        28,
        "two winners per table"
    );
    for entrant in entrants {
        assert_eq!(entrant.points, points[&entrant.entry].0);
        assert_eq!(entrant.score_diff, points[&entrant.entry].1);
    }
    // Places follow the standings: points, then score difference.
    let mut by_place: Vec<&Entrant> = entrants.iter().collect();
    by_place.sort_by_key(|e| e.place.expect("a place"));
    assert_eq!(by_place[0].place, Some(1));
    for pair in by_place.windows(2) {
        let key = |e: &Entrant| (e.points, e.score_diff);
        assert!(key(pair[0]) >= key(pair[1]), "{:?} before {:?}", pair[0], pair[1]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_is_refused_for_its_token_or_permission_before_its_path_query_or_body() {
    let server = TestServer::start(fast_config()).await;
    let address = server.address();
    // The first account registered administers the server; the second is
    // an ordinary player.
    account(address, "Boss").await;
    let (player, _) = account(address, "Plain").await;
    let raw = reqwest::Client::new();
    let base = format!("http://{address}");

    // No token: 401, however broken the rest is.
    let text_body = raw
        .post(format!("{base}/api/tournaments"))
        .header("content-type", "text/plain")
        .body("not json")
        .send()
        .await
        .expect("an answer");
    assert_eq!(text_body.status().as_u16(), 401);
    let checks = [
        ("POST", "/api/claim", Some(json!({}))),
        ("POST", "/api/tournaments", Some(json!({"max_players": "many"}))),
        (
            "POST",
            "/api/tournaments/not-an-id/bots",
            Some(json!({"count": -1})),
        ),
        ("POST", "/api/players/not-an-id/permissions", Some(json!([]))),
        ("GET", "/api/me/games?limit=lots", None),
    ];
    for (method, path, body) in &checks {
        let answer = http(address, method, path, body.clone(), None).await;
        assert_eq!(answer.error(), (401, "unauthorized".into()), "{method} {path}");
    }

    // A valid token without the permission: 403, before the path or body.
    for (method, path, body) in &checks[1..4] {
        let answer = http(address, method, path, body.clone(), Some(&player)).await;
        assert_eq!(answer.error(), (403, "forbidden".into()), "{method} {path}");
    }
    // With the token, what is wrong with the request is said as before.
    let bad_query = http(address, "GET", "/api/me/games?limit=lots", None, Some(&player)).await;
    assert_eq!(bad_query.error().0, 400);
    let bad_claim = http(address, "POST", "/api/claim", Some(json!({})), Some(&player)).await;
    assert_eq!(bad_claim.error(), (422, "bad_fields".into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_organisers_start_or_cancel_and_registration_closes() {
    let server = TestServer::start(fast_config()).await;
    let address = server.address();
    let (admin, _) = account(address, "Organiser").await;
    let (player, player_id) = account(address, "Ordinary").await;
    let settings = json!({"name": "Closed", "max_players": 8});
    // An ordinary player can neither create, start nor cancel.
    let refused = http(
        address,
        "POST",
        "/api/tournaments",
        Some(settings.clone()),
        Some(&player),
    )
    .await;
    assert_eq!(refused.status, 403);
    assert_eq!(refused.value()["error"], "forbidden");
    let id = create(address, &admin, settings).await;
    for action in ["start", "cancel"] {
        let path = format!("/api/tournaments/{id}/{action}");
        let refused = http(address, "POST", &path, None, Some(&player)).await;
        assert_eq!(refused.status, 403, "{action}: {}", refused.body);
        assert_eq!(add_bots(address, &player, &id, 2).await.status, 403);
    }
    assert_eq!(view(address, &id).await.summary.status, TournamentStatus::Open);

    // Registration: once, then withdrawn, then again.
    let register = format!("/api/tournaments/{id}/register");
    assert_eq!(
        http(address, "POST", &register, None, Some(&player)).await.status,
        201
    );
    let twice = http(address, "POST", &register, None, Some(&player)).await;
    assert_eq!(twice.error(), (409, "already_registered".to_string()));
    assert_eq!(
        http(address, "DELETE", &register, None, Some(&player))
            .await
            .status,
        204
    );
    assert_eq!(
        http(address, "DELETE", &register, None, Some(&player))
            .await
            .status,
        404
    );
    assert_eq!(
        http(address, "POST", &register, None, Some(&player)).await.status,
        201
    );

    // Too few to start.
    let start = format!("/api/tournaments/{id}/start");
    let early = http(address, "POST", &start, None, Some(&admin)).await;
    assert_eq!(early.error(), (409, "too_few_players".to_string()));

    // The administrator grants the permission; then the player may.
    let grant = format!("/api/players/{player_id}/permissions");
    let refused = http(
        address,
        "POST",
        &grant,
        Some(json!({"organizer": true})),
        Some(&player),
    )
    .await;
    assert_eq!(refused.status, 403);
    assert_eq!(
        http(
            address,
            "POST",
            &grant,
            Some(json!({"organizer": true})),
            Some(&admin)
        )
        .await
        .status,
        204
    );
    let cancel = format!("/api/tournaments/{id}/cancel");
    assert_eq!(
        http(address, "POST", &cancel, None, Some(&player)).await.status,
        204
    );
    assert_eq!(
        view(address, &id).await.summary.status,
        TournamentStatus::Cancelled
    );
    let late = http(address, "POST", &register, None, Some(&admin)).await;
    assert_eq!(late.error(), (409, "not_open".to_string()));

    // Watching a tournament that does not exist is a clear error.
    let mut client = Player::sign_in(&server.url, "Ordinary", &player).await;
    let tournament = "00000000-0000-4000-8000-000000000000".to_string();
    let reply = client
        .request(|id| ClientMessage::WatchTournament { id, tournament })
        .await;
    assert_eq!(crate::support::refused(reply), ErrorCode::TournamentNotFound);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_killed_mid_stage_resumes_and_finishes() {
    let database = fresh_database();
    let server = ServerProcess::start(&database, free_port()).await;
    let address = server.address;
    let url = server.url();
    let (admin, _) = account(address, "Organiser").await;
    let id = create(
        address,
        &admin,
        json!({"name": "Survivor", "format": "knockout", "max_players": 8}),
    )
    .await;
    let mut players = entrants(address, &url, &id, "kill", 8).await;

    // Play the first stage until seat 0's table has scored a hand, then
    // kill the server in the middle of the next.
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
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "the first stage stalled");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let first_hand_tricks = players[0]
        .received
        .iter()
        .find_map(|m| match m {
            ServerMessage::Event(RoomEvent {
                kind: EventKind::HandScored { tricks_won, .. },
                ..
            }) => Some(tricks_won.clone()),
            _ => None,
        })
        .expect("a hand was scored");
    let before = view(address, &id).await;
    assert_eq!(before.summary.status, TournamentStatus::Running);
    let (database, port) = server.kill();

    let server = ServerProcess::start(&database, port).await;
    let url = server.url();
    let after = view(address, &id).await;
    assert_eq!(after.summary.status, TournamentStatus::Running);
    assert_eq!(before.stages[0].tables.len(), after.stages[0].tables.len());
    for (old, new) in before.stages[0].tables.iter().zip(&after.stages[0].tables) {
        assert_eq!(old.room, new.room, "the same tables");
        if old.status == TableStatus::Playing {
            assert_eq!(old.game, new.game, "each game resumed, not started again");
        }
    }

    // Everyone comes back on a new connection and sits down again.
    for player in players.iter_mut() {
        let mut again = Player::sign_in(&url, &player.name.clone(), &player.token.clone()).await;
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
    let view = play_tournament(address, &mut players, &id, Duration::from_secs(180)).await;
    check_knockout(&view, 8);

    // Seat 0's game kept its first hand exactly as it was played.
    let room = &tables_announced(&players[0])[0].1;
    let table = stages(&view)[0]
        .tables
        .iter()
        .find(|t| t.room == *room)
        .expect("seat 0's first table")
        .clone();
    let game = table.game.expect("a stored game");
    let history = Api::new(address).history(game).await;
    let first: Value = serde_json::from_str(history.body.lines().next().expect("hands stored")).unwrap();
    assert_eq!(first["tricks_won"], json!(first_hand_tricks));
    drop(server);
}

/// An RFC 3339 time `seconds` from now, in UTC.
fn in_seconds(seconds: u64) -> String {
    let unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + seconds;
    // Days since 1970-01-01 to a civil date (the proleptic Gregorian
    // calendar), after Howard Hinnant's algorithm.
    let (days, rest) = ((unix / 86_400) as i64, unix % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_time_starts_the_tournament_or_cancels_it() {
    let server = TestServer::start(fast_config()).await;
    let address = server.address();
    let (admin, _) = account(address, "Organiser").await;

    // Full, but its time has not come: it waits.
    let later = create(
        address,
        &admin,
        json!({"name": "Later", "max_players": 4, "starts_at": in_seconds(3600)}),
    )
    .await;
    assert_eq!(add_bots(address, &admin, &later, 4).await.status, 204);
    let full = add_bots(address, &admin, &later, 1).await;
    assert_eq!(full.error(), (409, "full".to_string()));
    assert_eq!(view(address, &later).await.summary.status, TournamentStatus::Open);

    // Its time comes with enough entries: it starts by itself, and a
    // tournament of bots alone plays to the end.
    let soon = create(
        address,
        &admin,
        json!({"name": "Soon", "max_players": 8, "starts_at": in_seconds(2)}),
    )
    .await;
    assert_eq!(add_bots(address, &admin, &soon, 5).await.status, 204);
    assert_eq!(
        view(address, &soon).await.summary.status,
        TournamentStatus::Open,
        "not before its time"
    );

    // Its time comes with too few entries: it is cancelled.
    let empty = create(
        address,
        &admin,
        json!({"name": "Empty", "max_players": 8, "starts_at": in_seconds(2)}),
    )
    .await;

    let deadline = tokio::time::Instant::now() + GAME_DEADLINE;
    loop {
        let (soon_view, empty_view) = (view(address, &soon).await, view(address, &empty).await);
        if soon_view.summary.status == TournamentStatus::Finished
            && empty_view.summary.status == TournamentStatus::Cancelled
        {
            // Five entries make a bracket of eight.
            assert_eq!(soon_view.entrants.len(), 8);
            check_knockout(&soon_view, 8);
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{soon_view:?}\n{empty_view:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let upcoming: Vec<TournamentSummary> =
        http(address, "GET", "/api/tournaments?status=upcoming", None, None)
            .await
            .json();
    assert_eq!(upcoming.len(), 1);
    assert_eq!(upcoming[0].id.to_string(), later);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_account_named_by_the_settings_administers_too() {
    let config = Config {
        admin: Some("Boss".into()),
        ..fast_config()
    };
    let server = TestServer::start(config).await;
    let address = server.address();
    let is_admin = |token: String| async move { Api::new(address).me(&token).await.is_admin };
    let (first, _) = account(address, "First").await;
    let (boss, _) = account(address, "boss").await;
    let (other, _) = account(address, "Other").await;
    assert!(is_admin(first).await, "the first account");
    assert!(is_admin(boss.clone()).await, "the named account, in any case");
    assert!(!is_admin(other.clone()).await);
    // The named administrator may run tournaments; the other may not.
    let settings = json!({"name": "Boss cup"});
    create(address, &boss, settings.clone()).await;
    let refused = http(address, "POST", "/api/tournaments", Some(settings), Some(&other)).await;
    assert_eq!(refused.status, 403);
}

/// A tournament on another preset plays its games under that preset's
/// rules, bounded as every tournament game is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_on_the_suicide_preset_plays_to_its_places() {
    let (server, admin, id) = organised(
        json!({"name": "Suicide cup", "format": "knockout", "max_players": 4, "preset": "suicide", "hands": 3}),
    )
    .await;
    let address = server.address();
    let created = view(address, &id).await;
    assert_eq!(created.rules.bidding, spades_engine::Bidding::Suicide);
    assert_eq!((created.rules.target, created.rules.max_hands), (300, Some(3)));
    let mut players = entrants(address, &server.url, &id, "suicide", 4).await;
    let finished = play_tournament(address, &mut players, &id, Duration::from_secs(180)).await;
    check_knockout(&finished, 4);
    // The games were played under suicide: every hand of the table had one
    // nil in each team. Bids are grouped by the deal they follow, and only
    // hands seen from their deal count, since a player who joined his table
    // late missed the first bids.
    let mut hands: Vec<Vec<(u8, u8)>> = Vec::new();
    for message in &players[0].received {
        match message.event() {
            Some(EventKind::HandStarted { .. }) => hands.push(Vec::new()),
            Some(EventKind::BidMade { seat, bid, .. }) => {
                if let Some(hand) = hands.last_mut() {
                    hand.push((seat.index() as u8, *bid));
                }
            }
            _ => {}
        }
    }
    let complete: Vec<&Vec<(u8, u8)>> = hands.iter().filter(|hand| hand.len() == 4).collect();
    assert!(!complete.is_empty(), "whole hands were seen: {hands:?}");
    for hand in complete {
        for team in 0..2 {
            let nils = hand
                .iter()
                .filter(|(seat, bid)| seat % 2 == team && *bid == 0)
                .count();
            assert_eq!(nils, 1, "team {team} in {hand:?}");
        }
    }

    let unknown = Api::new(address)
        .create_tournament(&admin, json!({"name": "Bad", "preset": "chess"}))
        .await;
    assert_eq!(unknown.status, 400, "{}", unknown.body);
    assert!(unknown.body.contains("preset"), "{}", unknown.body);
    // Brackets and standings are kept by partnership: no solo tournament.
    let solo = Api::new(address)
        .create_tournament(&admin, json!({"name": "Alone", "preset": "solo"}))
        .await;
    assert_eq!(solo.status, 400, "{}", solo.body);
    assert!(solo.body.contains("partnerships"), "{}", solo.body);
}
