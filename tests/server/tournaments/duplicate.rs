//! Duplicate tournaments: every table of a round is dealt the same boards,
//! the deals stay secret until the round is over everywhere, and the
//! standings are the documented matchpoints, worked out here again from
//! the stored hands.

use super::*;

/// One table's stored hands: the seats' entries, each board's cards by
/// seat, and each board's points for team 0 and team 1.
pub(crate) struct Played {
    seats: [u32; 4],
    cards: Vec<Value>,
    points: Vec<[i64; 2]>,
}

async fn played(address: SocketAddr, table: &Table) -> Played {
    let game = table.game.expect("a stored game");
    let history = Api::new(address).history(game).await;
    assert_eq!(history.status, 200, "{}", history.body);
    let lines: Vec<Value> = history
        .body
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    Played {
        seats: seats(table),
        cards: lines.iter().map(|line| line["hands"].clone()).collect(),
        points: lines
            .iter()
            .map(|line| {
                [
                    line["hand_score"][0].as_i64().unwrap(),
                    line["hand_score"][1].as_i64().unwrap(),
                ]
            })
            .collect(),
    }
}

/// The rule of README's "Tournaments", written out again: on each board,
/// 2 matchpoints for every other table where the same seats scored less,
/// 1 where they scored the same; the tie-break adds the points above them.
fn expected_standings(rounds: &[Vec<Played>]) -> HashMap<u32, (i32, i32)> {
    let mut standings: HashMap<u32, (i32, i32)> = HashMap::new();
    for tables in rounds {
        for (t, table) in tables.iter().enumerate() {
            for (board, mine) in table.points.iter().enumerate() {
                for (u, other) in tables.iter().enumerate() {
                    let Some(theirs) = other.points.get(board) else {
                        continue;
                    };
                    if u == t {
                        continue;
                    }
                    for team in 0..2 {
                        let matchpoints = match mine[team].cmp(&theirs[team]) {
                            std::cmp::Ordering::Greater => 2,
                            std::cmp::Ordering::Equal => 1,
                            std::cmp::Ordering::Less => 0,
                        };
                        for seat in [team, team + 2] {
                            let standing = standings.entry(table.seats[seat]).or_default();
                            standing.0 += matchpoints;
                            standing.1 += (mine[team] - theirs[team]) as i32;
                        }
                    }
                }
            }
        }
    }
    standings
}

/// Checks a finished duplicate tournament of two tables a round: the same
/// boards at both tables of a round (new ones each round), at least
/// `boards` of them, standings and places by the rule.
pub(crate) async fn check_duplicate(
    address: SocketAddr,
    view: &TournamentView,
    rounds: usize,
    boards: usize,
) -> Vec<Vec<Played>> {
    assert_eq!(view.summary.status, TournamentStatus::Finished);
    assert_eq!(stages(view).len(), rounds);
    let mut all = Vec::new();
    let mut seeds = HashSet::new();
    for (r, round) in stages(view).iter().enumerate() {
        assert_eq!(round.tables.len(), 2, "round {r}: two tables");
        let seated: HashSet<u32> = round.tables.iter().flat_map(seats).collect();
        assert_eq!(seated.len(), 8, "round {r} seats everyone");
        let mut tables = Vec::new();
        for table in &round.tables {
            let record = Api::new(address).game(table.game.expect("a game")).await;
            seeds.insert((r, record.seed.expect("the seed, the round being over")));
            tables.push(played(address, table).await);
        }
        let common = tables[0].points.len().min(tables[1].points.len());
        assert!(
            common >= boards,
            "round {r}: {common} boards played at both tables"
        );
        for board in 0..common {
            assert_eq!(
                tables[0].cards[board], tables[1].cards[board],
                "round {r}, board {board}: the same cards"
            );
        }
        all.push(tables);
    }
    assert_eq!(
        seeds.len(),
        rounds,
        "one seed per round, shared by its tables: {seeds:?}"
    );
    let rounds_seeds: HashSet<&String> = seeds.iter().map(|(_, seed)| seed).collect();
    assert_eq!(rounds_seeds.len(), rounds, "each round has boards of its own");

    let expected = expected_standings(&all);
    for entrant in &view.entrants {
        assert_eq!(
            (entrant.points, entrant.score_diff),
            expected[&entrant.entry],
            "entry {}'s matchpoints and tie-break",
            entrant.entry
        );
    }
    let mut by_place: Vec<&Entrant> = view.entrants.iter().collect();
    by_place.sort_by_key(|e| e.place.expect("a place"));
    assert_eq!(by_place[0].place, Some(1));
    for pair in by_place.windows(2) {
        let key = |e: &Entrant| (e.points, e.score_diff);
        assert!(key(pair[0]) >= key(pair[1]), "{:?} before {:?}", pair[0], pair[1]);
        assert_eq!(key(pair[0]) == key(pair[1]), pair[0].place == pair[1].place);
    }
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_players_play_duplicate_pairs_on_the_same_boards() {
    let (server, admin, id) = organised(json!({
        "name": "Duplicate night", "format": "duplicate_pairs", "max_players": 12, "rounds": 2, "hands": 4,
    }))
    .await;
    let address = server.address();
    let summary = view(address, &id).await.summary;
    assert_eq!(
        (summary.format, summary.rounds),
        (TournamentFormat::DuplicatePairs, Some(2))
    );
    let mut players = entrants(address, &server.url, &id, "dup", 8).await;
    let start = format!("/api/tournaments/{id}/start");
    assert_eq!(
        http(address, "POST", &start, None, Some(&admin)).await.status,
        204
    );

    // While the first round is played, no table's deals can be read.
    let first = loop {
        let view = view(address, &id).await;
        if let Some(table) = view
            .stages
            .first()
            .and_then(|stage| stage.tables.first())
            .filter(|t| t.game.is_some())
        {
            break table.clone();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let record = Api::new(address).game(first.game.unwrap()).await;
    assert_eq!(record.seed, None, "no seed while the round is played");
    assert_eq!(record.deal_commitment.len(), 64);

    let view = play_tournament(address, &mut players, &id, Duration::from_secs(300)).await;
    check_duplicate(address, &view, 2, 4).await;
    // Fixed partnerships: the same pairs in both rounds, North–South pairs
    // at the same table, East–West pairs moved on.
    let pairs =
        |round: &Stage| -> HashSet<(u32, u32)> { round.tables.iter().flat_map(partnerships).collect() };
    assert_eq!(pairs(&view.stages[0]), pairs(&view.stages[1]));
    for (before, after) in view.stages[0].tables.iter().zip(&view.stages[1].tables) {
        assert_eq!(
            partnerships(before)[0],
            partnerships(after)[0],
            "North–South stays"
        );
        assert_ne!(partnerships(before)[1], partnerships(after)[1], "East–West moves");
    }
    // Duplicate-only settings are refused elsewhere, and scores that end a
    // game early are refused for a duplicate one.
    let refused = Api::new(address)
        .create_tournament(
            &admin,
            json!({"name": "x", "format": "duplicate_pairs", "target": 200}),
        )
        .await;
    assert_eq!(refused.error(), (400, "bad_request".into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_duplicate_tournament_killed_mid_round_resumes_and_scores_by_the_rule() {
    let database = fresh_database();
    let server = ServerProcess::start(&database, free_port()).await;
    let address = server.address;
    let url = server.url();
    let (admin, _) = account(address, "Organiser").await;
    admin_cli(&database, &["role", "Organiser", "admin"]);
    let id = create(
        address,
        &admin,
        json!({"name": "Shuffle", "format": "duplicate_individual", "max_players": 8, "rounds": 2, "hands": 4}),
    )
    .await;
    let mut players = entrants(address, &url, &id, "ind", 8).await;

    // Play the first round until a hand has been scored, then kill the
    // server in the middle of the next hand.
    play_until_a_hand_is_scored(&mut players).await;
    let (database, port) = server.kill();
    let server = ServerProcess::start(&database, port).await;
    let url = server.url();
    let after = view(address, &id).await;
    assert_eq!(after.summary.status, TournamentStatus::Running);
    come_back(&mut players, &url, &after).await;
    let view = play_tournament(address, &mut players, &id, Duration::from_secs(300)).await;
    check_duplicate(address, &view, 2, 4).await;
    // Individual movement: new partners in the second round.
    let pairs =
        |round: &Stage| -> HashSet<(u32, u32)> { round.tables.iter().flat_map(partnerships).collect() };
    assert!(pairs(&view.stages[0]).is_disjoint(&pairs(&view.stages[1])));
    drop(server);
}
