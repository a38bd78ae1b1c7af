//! A three-player room over the WebSocket: three seats, one card from each
//! player to a trick, per-seat lists of three, and a spectator who sees
//! the same table without anyone's cards.

use spades_engine::Preset;
use spades_protocol::event::EventKind;
use spades_protocol::ws::{ClientMessage, ErrorCode, RulesSpec, ServerMessage};
use spades_server::Config;

use crate::support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_players_play_a_game_that_a_spectator_watches() {
    let server = TestServer::start(Config::default()).await;
    let rules = RulesSpec {
        preset: Some(Preset::ThreePlayer),
        max_hands: Some(Some(2)),
        ..RulesSpec::default()
    };
    let mut players = Vec::new();
    for name in ["North", "East", "South"] {
        players.push(Player::connect(&server.url, name).await);
    }
    let code = players[0].create_room(rules, false).await;
    for player in players.iter_mut().skip(1) {
        player.join_room(&code).await;
    }
    for (seat, player) in players.iter_mut().enumerate() {
        player.sit(seat as u8).await;
    }

    // A fourth person finds no seat 3 and no free seat.
    let mut watcher = Player::connect(&server.url, "Watcher").await;
    watcher.join_room(&code).await;
    assert_eq!(refused(watcher.try_sit(3).await), ErrorCode::NoSuchSeat);
    let any = watcher.request(|id| ClientMessage::Sit { id, seat: None }).await;
    assert_eq!(refused(any), ErrorCode::SeatTaken);
    let add = players[0]
        .request(|id| ClientMessage::AddBot {
            id,
            seat: spades_engine::Seat::new(3),
            level: None,
        })
        .await;
    assert_eq!(refused(add), ErrorCode::NoSuchSeat);
    let remove = players[0]
        .request(|id| ClientMessage::RemoveBot {
            id,
            seat: spades_engine::Seat::new(3).expect("seat 3 is a seat"),
        })
        .await;
    assert_eq!(refused(remove), ErrorCode::NoSuchSeat);

    // The room lists three seats, all taken, and three teams of one.
    let (seats, teams) = watcher
        .received
        .iter()
        .rev()
        .find_map(|message| match message {
            ServerMessage::Snapshot { state, .. } => Some((state.seats.clone(), state.teams.clone())),
            _ => None,
        })
        .expect("the watcher's snapshot");
    assert_eq!(seats.len(), 3);
    assert!(seats.iter().all(Option::is_some));
    let seat = |n: u8| spades_engine::Seat::new(n).expect("a seat");
    assert_eq!(teams, [[seat(0)], [seat(1)], [seat(2)]]);

    players[0].start_game().await;
    play_games(&mut players, std::slice::from_mut(&mut watcher), 1, GAME_DEADLINE).await;
    watcher
        .until(std::time::Duration::from_secs(5), |w| w.table.games_over == 1)
        .await;

    // Each player is dealt 17 cards; the spectator sees no one's.
    for player in &players {
        let dealt = player
            .received
            .iter()
            .find_map(|message| match message.event() {
                Some(EventKind::HandStarted { cards, .. }) => Some(*cards),
                _ => None,
            })
            .expect("a deal");
        assert_eq!(dealt.map(|cards| cards.len()), Some(17), "{}", player.name);
    }
    let watcher_events: Vec<&EventKind> = watcher.received.iter().filter_map(ServerMessage::event).collect();
    for event in &watcher_events {
        if let EventKind::HandStarted { cards, .. } = event {
            assert_eq!(*cards, None, "a spectator is shown no hand");
        }
    }

    // Seventeen tricks a hand, each of three cards from seats 0 to 2, and
    // every per-seat and per-team list has three entries.
    let mut played_in_trick = 0;
    let mut scored = 0;
    for event in &watcher_events {
        match event {
            EventKind::CardPlayed { seat, .. } => {
                assert!(seat.index() < 3, "seat 3 never plays");
                played_in_trick += 1;
            }
            EventKind::TrickWon { .. } => {
                assert_eq!(played_in_trick, 3, "a trick is three cards");
                played_in_trick = 0;
            }
            EventKind::HandScored {
                tricks_won, teams, ..
            } => {
                assert_eq!(tricks_won.len(), 3);
                assert_eq!(tricks_won.iter().map(|&n| u32::from(n)).sum::<u32>(), 17);
                assert_eq!(teams.len(), 3);
                scored += 1;
            }
            _ => {}
        }
    }
    assert!(scored >= 1);

    // The stored history keeps three hands of 17 cards and 17 tricks of
    // three cards.
    let game_id = watcher_events
        .iter()
        .find_map(|event| match event {
            EventKind::GameStarted { game_id, .. } => Some(game_id.clone()),
            _ => None,
        })
        .expect("the game started");
    let history = server.api().history(&game_id).await;
    assert_eq!(history.status, 200);
    let first: serde_json::Value = serde_json::from_str(history.body.lines().next().unwrap()).unwrap();
    let hands = first["hands"].as_array().unwrap();
    assert_eq!(hands.len(), 3);
    assert!(hands.iter().all(|hand| hand.as_array().unwrap().len() == 17));
    let tricks = first["tricks"].as_array().unwrap();
    assert_eq!(tricks.len(), 17);
    assert!(
        tricks
            .iter()
            .all(|trick| trick["cards"].as_array().unwrap().len() == 3)
    );
    assert_eq!(first["tricks_won"].as_array().unwrap().len(), 3);
    assert_eq!(first["bids"].as_array().unwrap().len(), 3);
    assert_eq!(first["rule_set"]["players"], 3);
}
