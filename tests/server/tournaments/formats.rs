//! Whole tournaments played in each format: knockouts, Swiss rounds, fields
//! completed with bots and the suicide preset. Each stage depends on the
//! results of the one before, so only playing them through to the places shows
//! the bracket is right.

use super::*;

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
