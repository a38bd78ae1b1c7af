//! Tournaments that go on without anyone pressing a button: a server killed in
//! the middle of a stage, and a start time that either starts the tournament or
//! cancels it. Both run on the server's own schedule and must survive a
//! restart.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_killed_mid_stage_resumes_and_finishes() {
    let database = fresh_database();
    let server = ServerProcess::start(&database, free_port()).await;
    let address = server.address;
    let url = server.url();
    let (admin, _) = account(address, "Organiser").await;
    admin_cli(&database, &["role", "Organiser", "admin"]);
    let id = create(
        address,
        &admin,
        json!({"name": "Survivor", "format": "knockout", "max_players": 8}),
    )
    .await;
    let mut players = entrants(address, &url, &id, "kill", 8).await;

    // Play the first stage until seat 0's table has scored a hand, then
    // kill the server in the middle of the next.
    play_until_a_hand_is_scored(&mut players).await;
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

    come_back(&mut players, &url, &after).await;
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
    server.make_admin("Organiser");

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
