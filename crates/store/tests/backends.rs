//! One suite of storage tests, run against both backends: SQLite always (a
//! fresh file per test), Postgres at `DATABASE_URL` (a fresh database per
//! test). With `CI=true` a missing Postgres fails the suite instead of
//! skipping it.

use std::time::Duration;

use spades_engine::Seating;
use spades_store::{
    FinishedGame, JournalWriter, LeaseFence, NewGame, NewTable, NewTournament, PlayerStats, Registration,
    Step, Store, StoreError, TableLink, Write,
};
use time::OffsetDateTime;
use uuid::Uuid;

/// A store for one test, and how to clean it up.
struct TestStore {
    store: Store,
    cleanup: Option<(String, String)>,
}

impl TestStore {
    async fn sqlite() -> TestStore {
        let (store, _) = sqlite_file().await;
        TestStore { store, cleanup: None }
    }

    /// A fresh database on the Postgres server of `DATABASE_URL`, or `None`
    /// (outside CI) when there is none.
    async fn postgres() -> Option<TestStore> {
        let in_ci = std::env::var("CI").is_ok_and(|ci| ci == "true");
        let Ok(url) = std::env::var("DATABASE_URL") else {
            assert!(!in_ci, "CI: DATABASE_URL is not set");
            eprintln!("DATABASE_URL is not set: Postgres tests skipped");
            return None;
        };
        let admin = match Store::open(&url).await {
            Ok(admin) => admin,
            Err(error) => {
                assert!(!in_ci, "CI: Postgres at {url} is unreachable: {error}");
                eprintln!("Postgres unreachable ({error}): Postgres tests skipped");
                return None;
            }
        };
        let name = format!("spades_test_{}", Uuid::new_v4().simple());
        admin.create_database(&name).await.expect("creates a database");
        admin.close().await;
        let test_url = replace_database(&url, &name);
        let store = Store::open(&test_url).await.expect("the new database opens");
        store.migrate().await.expect("migrations apply");
        Some(TestStore {
            store,
            cleanup: Some((url, name)),
        })
    }

    async fn finish(self) {
        self.store.close().await;
        if let Some((url, name)) = self.cleanup
            && let Ok(admin) = Store::open(&url).await
        {
            let _ = admin.drop_database(&name).await;
            admin.close().await;
        }
    }
}

/// A migrated SQLite store in a fresh file, and the file's path for tests
/// that look at it directly.
async fn sqlite_file() -> (Store, std::path::PathBuf) {
    let path = std::env::temp_dir().join(format!("spades-store-test-{}.db", Uuid::new_v4()));
    let store = Store::open(&format!("sqlite:{}", path.display()))
        .await
        .expect("sqlite opens");
    store.migrate().await.expect("migrations apply");
    (store, path)
}

/// Closes a store made by `sqlite_file` and deletes its files.
async fn remove_sqlite_file(store: Store, path: &std::path::Path) {
    store.close().await;
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

/// The same Postgres address with another database name.
fn replace_database(url: &str, database: &str) -> String {
    let (base, query) = url.split_once('?').map_or((url, None), |(b, q)| (b, Some(q)));
    let prefix = match base.rfind('/') {
        Some(slash) if slash > "postgres://".len() => &base[..slash],
        _ => base,
    };
    match query {
        Some(query) => format!("{prefix}/{database}?{query}"),
        None => format!("{prefix}/{database}"),
    }
}

fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc()
}

async fn registered(store: &Store, name: &str) -> Uuid {
    let id = Uuid::new_v4();
    store
        .create_account(id, name, Some("$argon2id$hash"), now())
        .await
        .unwrap();
    id
}

async fn guest(store: &Store, name: &str) -> Uuid {
    let id = Uuid::new_v4();
    store.create_account(id, name, None, now()).await.unwrap();
    id
}

fn new_game(players: [Uuid; 4]) -> NewGame {
    NewGame {
        id: Uuid::new_v4(),
        room: "ABCDEF".into(),
        room_name: "test".into(),
        private: false,
        owner: players[0],
        number: 0,
        rules: serde_json::json!({"target": 500}),
        seed: u64::MAX - 5,
        players: players.to_vec(),
        started_at: now(),
        tournament: None,
    }
}

fn finished(game: Uuid, winner: Option<u8>) -> FinishedGame {
    FinishedGame {
        id: game,
        winner,
        score: vec![512, 230],
        seating: Seating::Partners,
        abandoned: [false; 4],
        stats: [PlayerStats {
            bids_made: 3,
            bids_total: 5,
            nils_made: 1,
            nils_tried: 2,
        }; 4],
        finished_at: now(),
        tournament: None,
    }
}

async fn accounts_are_unique_by_registered_name(store: &Store) {
    let ann = registered(store, "Ann").await;
    let taken = store
        .create_account(Uuid::new_v4(), "ANN", Some("x"), now())
        .await;
    assert!(matches!(taken, Err(StoreError::NameTaken)), "{taken:?}");
    // Guests may share names with anyone.
    let guest_ann = guest(store, "ann").await;
    guest(store, "ann").await;
    let found = store.registered_account("aNn").await.unwrap().unwrap();
    assert_eq!(found.id, ann);
    assert!(found.registered);
    // A guest cannot claim a registered name; another can claim a free one.
    assert!(matches!(
        store.claim(guest_ann, "y").await,
        Err(StoreError::NameTaken)
    ));
    let bob = guest(store, "Bob").await;
    assert!(store.claim(bob, "hash").await.unwrap());
    assert!(!store.claim(bob, "hash").await.unwrap(), "already registered");
    let bob = store.account(bob).await.unwrap().unwrap();
    assert!(bob.registered && bob.password_hash.as_deref() == Some("hash"));
    assert_eq!(store.registered_count().await.unwrap(), 2);
    // The first registered account becomes the administrator; no later one.
    assert!(store.make_first_admin(ann).await.unwrap());
    assert!(!store.make_first_admin(ann).await.unwrap());
    assert!(!store.make_first_admin(bob.id).await.unwrap());
    let account = store.account(ann).await.unwrap().unwrap();
    assert!(account.is_admin && account.can_organize);
}

async fn sessions_expire_and_are_revoked(store: &Store) {
    let ann = registered(store, "Ann").await;
    let (live, old, gone) = ([1u8; 32], [2u8; 32], [3u8; 32]);
    let t = now();
    store
        .create_session(&live, ann, t, t + Duration::from_secs(3600))
        .await
        .unwrap();
    store
        .create_session(&old, ann, t, t - Duration::from_secs(1))
        .await
        .unwrap();
    store
        .create_session(&gone, ann, t, t + Duration::from_secs(3600))
        .await
        .unwrap();
    assert_eq!(
        store.session_account(&live, t).await.unwrap().map(|a| a.id),
        Some(ann)
    );
    assert_eq!(store.session_account(&old, t).await.unwrap(), None, "expired");
    assert!(store.revoke_session(&gone, t).await.unwrap());
    assert_eq!(store.session_account(&gone, t).await.unwrap(), None, "revoked");
    assert_eq!(
        store.session_account(&[9u8; 32], t).await.unwrap(),
        None,
        "unknown"
    );
    store.revoke_sessions_of(ann, t).await.unwrap();
    assert_eq!(store.session_account(&live, t).await.unwrap(), None);
}

async fn games_are_journaled_resumed_and_finished(store: &Store) {
    let players = [
        registered(store, "P0").await,
        registered(store, "P1").await,
        registered(store, "P2").await,
        registered(store, "P3").await,
    ];
    let game = new_game(players);
    let id = game.id;
    let mut writes = vec![Write::Started(game.clone())];
    for (index, action) in ["bid 3", "bid 4", "bid nil", "bid 2", "play 2C"]
        .iter()
        .enumerate()
    {
        writes.push(Write::Action {
            game: id,
            index: index as u32,
            seat: (index % 4) as u8,
            action: action.to_string(),
            request_id: Some(format!("\"r{index}\"")),
            room_seq: 10 + index as u64,
        });
    }
    store.write(&writes).await.unwrap();
    // A batch written twice (a retry) stores nothing twice.
    store.write(&writes).await.unwrap();

    let unfinished = store.unfinished_games().await.unwrap();
    assert_eq!(unfinished.len(), 1);
    let stored = &unfinished[0];
    assert_eq!(stored.seed, u64::MAX - 5, "seeds keep all 64 bits");
    assert_eq!(stored.rules, serde_json::json!({"target": 500}));
    assert_eq!(stored.owner, players[0]);
    assert_eq!(
        stored.players.iter().map(|p| p.account_id).collect::<Vec<_>>(),
        players
    );
    assert_eq!(stored.players[1].name, "P1");
    let actions: Vec<&str> = stored.actions.iter().map(|a| a.action.as_str()).collect();
    assert_eq!(actions, ["bid 3", "bid 4", "bid nil", "bid 2", "play 2C"]);
    assert_eq!(stored.actions[1].seat, 1);
    // Each action keeps the request that made it and the room's event after it.
    assert_eq!(stored.actions[4].request_id.as_deref(), Some("\"r4\""));
    assert_eq!(stored.actions[4].room_seq, Some(14));

    let hand = serde_json::json!({"hand": 0, "score": [50, 40]});
    store
        .write(&[
            Write::Hand {
                game: id,
                hand: 0,
                record: hand.clone(),
            },
            Write::Finished(finished(id, Some(0))),
        ])
        .await
        .unwrap();
    // Finishing again (a retried batch) counts nothing twice.
    store
        .write(&[Write::Finished(finished(id, Some(0)))])
        .await
        .unwrap();
    assert!(store.unfinished_games().await.unwrap().is_empty());
    assert_eq!(store.hands(id).await.unwrap(), [hand]);

    let stored = store.game(id).await.unwrap().unwrap();
    assert_eq!(stored.summary.status, "finished");
    assert_eq!(stored.summary.winner, Some(0));
    assert_eq!(
        (stored.summary.score0, stored.summary.score1),
        (Some(512), Some(230))
    );

    let winner = store.profile(players[0]).await.unwrap().unwrap();
    let loser = store.profile(players[1]).await.unwrap().unwrap();
    assert_eq!((winner.games_played, winner.games_won), (1, 1));
    assert_eq!((loser.games_played, loser.games_won), (1, 0));
    assert_eq!(
        (
            winner.bids_made,
            winner.bids_total,
            winner.nils_made,
            winner.nils_tried
        ),
        (3, 5, 1, 2)
    );
    assert!(winner.rating > 1500.0 && loser.rating < 1500.0);

    let (board, total) = store.leaderboard(0, 2).await.unwrap();
    assert_eq!(total, 4);
    assert_eq!(board.len(), 2);
    assert!(board[0].rating >= board[1].rating);
    let (rest, _) = store.leaderboard(2, 10).await.unwrap();
    assert_eq!(rest.len(), 2);
    assert!(rest[0].rating < 1500.0);

    let recent = store.recent_games(players[2], 10).await.unwrap();
    assert_eq!(recent.len(), 1);
    assert_eq!(recent[0].id, id);
}

async fn games_with_a_guest_are_not_rated_and_abandoners_lose(store: &Store) {
    let players = [
        registered(store, "R0").await,
        guest(store, "G1").await,
        registered(store, "R2").await,
        registered(store, "R3").await,
    ];
    let game = new_game(players);
    store.write(&[Write::Started(game.clone())]).await.unwrap();
    let mut end = finished(game.id, Some(0));
    end.abandoned = [true, false, false, false];
    store.write(&[Write::Finished(end)]).await.unwrap();
    let quitter = store.profile(players[0]).await.unwrap().unwrap();
    assert_eq!(
        (quitter.games_won, quitter.games_abandoned),
        (0, 1),
        "abandoning loses"
    );
    assert_eq!(quitter.rating, 1500.0, "a game with a guest is not rated");
    let partner = store.profile(players[2]).await.unwrap().unwrap();
    assert_eq!(partner.games_won, 1);
    let stored = store.game(game.id).await.unwrap().unwrap();
    assert!(stored.players[0].abandoned && !stored.players[2].abandoned);
}

/// A solo game (four teams of one) stores its four scores and any of the
/// four seats as its winner, and rates each player against the three others
/// by place, the rows that refer to the game kept.
async fn solo_games_store_four_scores_and_any_winner(store: &Store) {
    let players = [
        registered(store, "S0").await,
        registered(store, "S1").await,
        registered(store, "S2").await,
        registered(store, "S3").await,
    ];
    let game = new_game(players);
    let hand = serde_json::json!({"hand": 0, "score": [50, 40, -10, 30]});
    store
        .write(&[
            Write::Started(game.clone()),
            Write::Hand {
                game: game.id,
                hand: 0,
                record: hand.clone(),
            },
            Write::Finished(FinishedGame {
                winner: Some(3),
                score: vec![310, 120, -40, 505],
                seating: Seating::Solo,
                ..finished(game.id, Some(3))
            }),
        ])
        .await
        .unwrap();
    let stored = store.game(game.id).await.unwrap().unwrap();
    assert_eq!(stored.summary.status, "finished");
    assert_eq!(stored.summary.winner, Some(3));
    assert_eq!(stored.summary.scores(), Some(vec![310, 120, -40, 505]));
    assert_eq!(stored.players.len(), 4);
    assert_eq!(store.hands(game.id).await.unwrap(), [hand]);
    let mut ratings = Vec::new();
    for (seat, player) in players.iter().enumerate() {
        let profile = store.profile(*player).await.unwrap().unwrap();
        assert_eq!(profile.games_won, i32::from(seat == 3), "seat {seat}");
        ratings.push(profile.rating);
    }
    // The winner first, then by score: seat 0, seat 1, seat 2.
    assert!(
        ratings[3] > ratings[0] && ratings[0] > ratings[1] && ratings[1] > ratings[2],
        "{ratings:?}"
    );
    let recent = store.recent_games(players[1], 10).await.unwrap();
    assert_eq!(recent[0].scores(), Some(vec![310, 120, -40, 505]));
}

/// Four guests named after `prefix`.
async fn guests(store: &Store, prefix: &str) -> [Uuid; 4] {
    let mut players = [Uuid::nil(); 4];
    for (seat, player) in players.iter_mut().enumerate() {
        *player = guest(store, &format!("{prefix}{seat}")).await;
    }
    players
}

/// An action of a game that does not exist, which the foreign key refuses,
/// and the whole batch with it.
fn orphan_action() -> Write {
    Write::Action {
        game: Uuid::new_v4(),
        index: 0,
        seat: 0,
        action: "bid 1".into(),
        request_id: None,
        room_seq: 1,
    }
}

async fn a_failing_batch_stores_nothing(store: &Store) {
    let game = new_game(guests(store, "a").await);
    let batch = [Write::Started(game.clone()), orphan_action()];
    assert!(store.write(&batch).await.is_err());
    assert!(store.game(game.id).await.unwrap().is_none());
}

/// The journal's writer stores what `Store::write` stores (on SQLite its
/// batches of actions and hands take a connection of their own), keeps a
/// retried batch from counting twice, and refuses a bad batch whole.
async fn the_journal_writer_stores_batches_whole(store: &Store) {
    let game = new_game(guests(store, "w").await);
    let id = game.id;
    // Even actions were sent by players, odd ones made by the server.
    let action = |index: u32, text: &str| Write::Action {
        game: id,
        index,
        seat: (index % 4) as u8,
        action: text.into(),
        request_id: index.is_multiple_of(2).then(|| index.to_string()),
        room_seq: u64::from(index) * 3,
    };
    let mut writer = store.journal_writer();
    writer
        .write(&[Write::Started(game.clone()), action(0, "bid 3")])
        .await
        .unwrap();
    let record = serde_json::json!({"hand": 0, "score": [50, 40]});
    let plain = [
        action(1, "bid 4"),
        action(2, "bid nil"),
        Write::Hand {
            game: id,
            hand: 0,
            record: record.clone(),
        },
    ];
    writer.write(&plain).await.unwrap();
    // A retried batch stores nothing twice.
    writer.write(&plain).await.unwrap();
    writer.write(&[action(3, "bid 2")]).await.unwrap();

    // A batch with an action of no game is refused whole, for good.
    let refused = writer
        .write(&[action(4, "play 2C"), orphan_action()])
        .await
        .unwrap_err();
    assert!(!refused.is_transient(), "{refused}");
    // The writer goes on after a refusal.
    writer.write(&[action(4, "play 3C")]).await.unwrap();

    let unfinished = store.unfinished_games().await.unwrap();
    let stored = unfinished
        .iter()
        .find(|stored| stored.summary.id == id)
        .expect("the game is stored");
    let actions: Vec<(u8, &str)> = stored
        .actions
        .iter()
        .map(|a| (a.seat, a.action.as_str()))
        .collect();
    let requests: Vec<(Option<&str>, Option<u64>)> = stored
        .actions
        .iter()
        .map(|a| (a.request_id.as_deref(), a.room_seq))
        .collect();
    assert_eq!(
        requests,
        [
            (Some("0"), Some(0)),
            (None, Some(3)),
            (Some("2"), Some(6)),
            (None, Some(9)),
            (Some("4"), Some(12))
        ]
    );
    assert_eq!(
        actions,
        [
            (0, "bid 3"),
            (1, "bid 4"),
            (2, "bid nil"),
            (3, "bid 2"),
            (0, "play 3C")
        ]
    );
    assert_eq!(store.hands(id).await.unwrap(), [record]);

    // The same refusal through `Store::write` is not transient either.
    let refused = store.write(&[orphan_action()]).await.unwrap_err();
    assert!(!refused.is_transient(), "{refused}");
}

async fn bots_have_accounts_and_their_games_are_not_rated(store: &Store) {
    for (id, name) in [
        (spades_store::BASIC_BOT_ACCOUNT, "Basic bot"),
        (spades_store::STRONG_BOT_ACCOUNT, "Strong bot"),
    ] {
        let account = store.account(id).await.unwrap().expect("made by a migration");
        assert_eq!((account.name.as_str(), account.registered), (name, false));
    }
    // One bot account can hold several seats of a game.
    let players = [
        registered(store, "Human").await,
        spades_store::BASIC_BOT_ACCOUNT,
        spades_store::BASIC_BOT_ACCOUNT,
        spades_store::STRONG_BOT_ACCOUNT,
    ];
    let game = new_game(players);
    store.write(&[Write::Started(game.clone())]).await.unwrap();
    store
        .write(&[Write::Finished(finished(game.id, Some(0)))])
        .await
        .unwrap();
    let human = store.profile(players[0]).await.unwrap().unwrap();
    assert_eq!((human.games_won, human.rating), (1, 1500.0));
    let (board, _) = store.leaderboard(0, 50).await.unwrap();
    assert!(board.iter().all(|profile| profile.name != "Basic bot"));
}

async fn tournaments_keep_their_bracket(store: &Store) {
    let organizer = registered(store, "Organiser").await;
    let id = Uuid::new_v4();
    store
        .create_tournament(&NewTournament {
            id,
            name: "Spring cup".into(),
            format: "knockout",
            organizer,
            created_at: now(),
            starts_at: None,
            max_players: 8,
            rounds: None,
            rules: serde_json::json!({"target": 300}),
            seed: u64::MAX - 1,
        })
        .await
        .unwrap();
    let people = [
        registered(store, "P0").await,
        registered(store, "P1").await,
        guest(store, "P2").await,
    ];
    for (i, person) in people.iter().enumerate() {
        let done = store.register_player(id, *person, now()).await.unwrap();
        assert_eq!(done, Registration::Done { entry: i as u32 });
    }
    assert_eq!(
        store.register_player(id, people[0], now()).await.unwrap(),
        Registration::AlreadyRegistered
    );
    assert!(store.unregister_player(id, people[2]).await.unwrap());
    assert!(!store.unregister_player(id, people[2]).await.unwrap());
    // Bots share one account; entries keep counting up.
    store.register_bots(id, 2, now(), None).await.unwrap();
    let open = store.tournament(id).await.unwrap().unwrap();
    assert_eq!(open.summary.players, 4);
    assert_eq!(
        open.entrants.iter().map(|e| (e.entry, e.bot)).collect::<Vec<_>>(),
        vec![(0, false), (1, false), (2, true), (3, true)]
    );
    let listed = store.tournaments(&["open"], 10).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].organizer_name, "Organiser");

    // The start writes the status and the first stage together; a second
    // start finds the tournament running and writes nothing.
    let start = Step {
        status: Some("running"),
        stage: 0,
        tables: vec![NewTable {
            table: 0,
            seats: [0, 2, 1, 3],
            room: "ROOMCODE01".into(),
        }],
        ..Step::default()
    };
    assert!(store.tournament_step(id, &start, now(), None).await.unwrap());
    assert!(!store.tournament_step(id, &start, now(), None).await.unwrap());
    assert!(store.running_tournaments().await.unwrap().contains(&id));

    // The game at the table links itself when it starts and stores its
    // result with its own.
    let link = TableLink {
        tournament: id,
        stage: 0,
        table: 0,
    };
    let players = [
        people[0],
        spades_store::BASIC_BOT_ACCOUNT,
        people[1],
        spades_store::BASIC_BOT_ACCOUNT,
    ];
    let game = NewGame {
        tournament: Some(link),
        ..new_game(players)
    };
    let game_id = game.id;
    store.write(&[Write::Started(game)]).await.unwrap();
    assert_eq!(store.game_table(game_id).await.unwrap(), Some(link));
    let playing = store.tournament(id).await.unwrap().unwrap();
    assert_eq!(playing.stages[0].tables[0].status, "playing");
    assert_eq!(playing.stages[0].tables[0].game, Some(game_id));
    let stored = store.game(game_id).await.unwrap().unwrap();
    assert_eq!(stored.tournament, Some(link));
    store
        .write(&[Write::Finished(FinishedGame {
            tournament: Some(link),
            ..finished(game_id, Some(0))
        })])
        .await
        .unwrap();
    let played = store.tournament(id).await.unwrap().unwrap();
    let table = &played.stages[0].tables[0];
    assert_eq!(
        (table.status.as_str(), table.winner, table.score),
        ("finished", Some(0), Some([512, 230]))
    );

    // The end: places and standings in the same transaction.
    let end = Step {
        status: Some("finished"),
        places: vec![(0, 1), (1, 1), (2, 2), (3, 2)],
        standings: vec![(0, 1, 282), (1, 1, 282)],
        ..Step::default()
    };
    assert!(store.tournament_step(id, &end, now(), None).await.unwrap());
    let done = store.tournament(id).await.unwrap().unwrap();
    assert_eq!(done.summary.status, "finished");
    assert!(done.summary.finished_at.is_some());
    assert_eq!(done.entrant(0).unwrap().place, Some(1));
    assert_eq!(done.entrant(0).unwrap().score_diff, 282);
    assert_eq!(done.entrant(3).unwrap().place, Some(2));
    let history = store.player_tournaments(people[0], 10).await.unwrap();
    assert_eq!((history[0].id, history[0].place), (id, Some(1)));
    assert!(store.player_tournaments(people[2], 10).await.unwrap().is_empty());
    // A finished tournament cannot be cancelled.
    assert!(!store.cancel_tournament(id, now(), None).await.unwrap());
}

/// A node that takes the tournaments' lease raises its epoch in the store,
/// and from then on every write of the lease's earlier holder is refused
/// whole: the bots it would add at a start, a stage, a cancellation.
async fn writes_under_a_lease_taken_since_are_refused(store: &Store) {
    let organizer = registered(store, "Leaseholder").await;
    let id = Uuid::new_v4();
    store
        .create_tournament(&NewTournament {
            id,
            name: "Fenced cup".into(),
            format: "swiss",
            organizer,
            created_at: now(),
            starts_at: None,
            max_players: 8,
            rounds: Some(2),
            rules: serde_json::json!({}),
            seed: 7,
        })
        .await
        .unwrap();
    let first = store.take_lease("tournaments").await.unwrap();
    store.register_bots(id, 2, now(), Some(&first)).await.unwrap();

    // Another node takes the lease over.
    let second = store.take_lease("tournaments").await.unwrap();
    assert!(second.epoch > first.epoch, "{second:?} after {first:?}");
    let lost = |result: Result<(), StoreError>| match result {
        Err(StoreError::LeaseLost(lease)) => assert_eq!(lease, "tournaments"),
        other => panic!("a write under an old epoch was answered {other:?}"),
    };
    lost(store.register_bots(id, 2, now(), Some(&first)).await);
    let start = Step {
        status: Some("running"),
        stage: 0,
        tables: vec![NewTable {
            table: 0,
            seats: [0, 1, 2, 3],
            room: "FENCEDCUP1".into(),
        }],
        ..Step::default()
    };
    lost(
        store
            .tournament_step(id, &start, now(), Some(&first))
            .await
            .map(|_| ()),
    );
    lost(store.cancel_tournament(id, now(), Some(&first)).await.map(|_| ()));
    // An epoch the store never gave is refused too.
    let forged = LeaseFence {
        lease: "tournaments".into(),
        epoch: second.epoch + 1,
    };
    lost(
        store
            .tournament_step(id, &start, now(), Some(&forged))
            .await
            .map(|_| ()),
    );
    let untouched = store.tournament(id).await.unwrap().unwrap();
    assert_eq!(untouched.summary.status, "open");
    assert_eq!(untouched.entrants.len(), 2, "only the first holder's bots");
    assert!(untouched.stages.is_empty());

    // The new holder writes as usual, and the bots are added to what the
    // old one stored.
    store.register_bots(id, 2, now(), Some(&second)).await.unwrap();
    assert!(
        store
            .tournament_step(id, &start, now(), Some(&second))
            .await
            .unwrap()
    );
    assert_eq!(
        store.tournament(id).await.unwrap().unwrap().summary.status,
        "running"
    );
}

/// Tidies until nothing is left to do, failing if that never comes.
fn tidy_all(writer: &mut JournalWriter) {
    for _ in 0..1_000 {
        if !writer.tidy().unwrap() {
            return;
        }
    }
    panic!("tidying never ends");
}

/// On SQLite the journal writer appends the actions of a batch that spans
/// many games to a log (a batch of one or two games goes straight to
/// `game_actions`), copies a game's logged rows into `game_actions` once
/// its hand is recorded (some at once, the rest a step at a time when told
/// the journal is idle) or once they are old, deletes the log's head that
/// nothing needs, and when it starts copies what an earlier writer left;
/// a game read back is whole at every step.
#[tokio::test]
async fn the_sqlite_journal_logs_copies_and_trims() {
    let (store, path) = sqlite_file().await;
    let raw = rusqlite::Connection::open(&path).unwrap();
    let count = |table: &str, game: Option<Uuid>| -> i64 {
        let sql = format!("SELECT count(*) FROM {table} WHERE ?1 IS NULL OR game_id = ?1");
        let game = game.map(|game| game.as_bytes().to_vec());
        raw.query_row(&sql, [game], |row| row.get(0)).unwrap()
    };
    let players = guests(&store, "p").await;
    let games: Vec<NewGame> = (0..11).map(|_| new_game(players)).collect();
    let started: Vec<Write> = games.iter().cloned().map(Write::Started).collect();
    store.write(&started).await.unwrap();
    let (a, b, c, others) = (games[0].id, games[1].id, games[2].id, &games[3..]);
    let action = |game: Uuid, index: u32| Write::Action {
        game,
        index,
        seat: (index % 4) as u8,
        action: format!("bid {}", index % 14),
        request_id: Some(format!("{index}")),
        room_seq: u64::from(index) + 100,
    };
    let hand = |game: Uuid, hand: u32| Write::Hand {
        game,
        hand,
        record: serde_json::json!({ "hand": hand }),
    };
    let read = async |game: Uuid| -> Vec<String> {
        let stored = store.game(game).await.unwrap().unwrap();
        // Whichever table an action was read from, its request came with it.
        for (index, stored) in stored.actions.iter().enumerate() {
            assert_eq!(stored.request_id, Some(index.to_string()));
            assert_eq!(stored.room_seq, Some(index as u64 + 100));
        }
        stored.actions.into_iter().map(|stored| stored.action).collect()
    };
    let expected = |game: Uuid, actions: std::ops::Range<u32>| -> Vec<String> {
        actions
            .map(|index| match action(game, index) {
                Write::Action { action, .. } => action,
                _ => unreachable!(),
            })
            .collect()
    };

    let mut writer = store.journal_writer();
    let batch = [action(a, 0), action(b, 0), action(c, 0), action(a, 1)];
    writer.write(&batch).await.unwrap();
    assert_eq!((count("action_log", None), count("game_actions", None)), (4, 0));
    assert_eq!(read(a).await, expected(a, 0..2), "read from the log");
    writer.write(&[action(b, 1), action(c, 1)]).await.unwrap();
    assert_eq!((count("action_log", None), count("game_actions", None)), (4, 2));
    assert_eq!(read(b).await, expected(b, 0..2), "read from both tables");

    // A recorded hand's rows are copied when the journal is idle, and the
    // other games' are not.
    writer.write(&[action(a, 2), hand(a, 0)]).await.unwrap();
    assert_eq!(count("game_actions", Some(a)), 1, "the logged rows wait");
    assert!(writer.tidy().unwrap());
    assert!(!writer.tidy().unwrap(), "nothing more to do");
    assert_eq!(count("game_actions", None), 5);
    assert_eq!(read(a).await, expected(a, 0..3));

    // Rows logged earlier are copied a little at a time: a batch copies
    // twice as many as it appends, and a step of tidying sixteen.
    let (x, y, z) = (others[0].id, others[1].id, others[2].id);
    let batch: Vec<Write> = (0..20)
        .flat_map(|index| [action(x, index), action(y, index), action(z, index)])
        .collect();
    writer.write(&batch).await.unwrap();
    let stored =
        || count("game_actions", Some(x)) + count("game_actions", Some(y)) + count("game_actions", Some(z));
    assert_eq!(stored(), 0);
    let mut batch = vec![hand(x, 0), hand(y, 0), hand(z, 0)];
    batch.extend(others[3..6].iter().map(|game| action(game.id, 0)));
    writer.write(&batch).await.unwrap();
    assert_eq!(stored(), 6);
    assert!(writer.tidy().unwrap());
    assert_eq!(stored(), 6 + 16);
    tidy_all(&mut writer);
    assert_eq!(stored(), 60);
    assert_eq!(read(y).await, expected(y, 0..20));

    // While games play on, the rows of games b and c grow old and are
    // copied, and the head of the log, copied everywhere, is deleted.
    let played = 5_000;
    for (number, batch) in (3..played).collect::<Vec<u32>>().chunks(98).enumerate() {
        let mut writes: Vec<Write> = batch.iter().map(|index| action(a, *index)).collect();
        let index = number as u32;
        writes.extend([action(others[6].id, index), action(others[7].id, index)]);
        writer.write(&writes).await.unwrap();
    }
    let others_played = (3..played).len().div_ceil(98) as u32;
    assert_eq!(
        (count("game_actions", Some(b)), count("game_actions", Some(c))),
        (2, 2)
    );
    tidy_all(&mut writer);
    let logged = count("action_log", None);
    assert!(logged < 4_096 + 8 * 16 + 512, "the log is trimmed: {logged} rows");
    assert_eq!(read(a).await, expected(a, 0..played));
    assert_eq!(read(others[6].id).await, expected(others[6].id, 0..others_played));

    // A writer that stops leaves rows in the log; the next copies them.
    let batch = [action(b, 2), action(c, 2), action(others[3].id, 1)];
    writer.write(&batch).await.unwrap();
    assert_eq!(count("game_actions", Some(b)), 2);
    drop(writer);
    let mut writer = store.journal_writer();
    writer.write(&[action(b, 3)]).await.unwrap();
    assert_eq!(
        count("game_actions", Some(b)),
        4,
        "left rows are copied at the start"
    );
    assert_eq!(count("action_log", None), 0);
    for (game, actions) in [(b, 0..4), (c, 0..3), (a, 0..played), (others[3].id, 0..2)] {
        assert_eq!(read(game).await, expected(game, actions));
    }

    drop(raw);
    remove_sqlite_file(store, &path).await;
}

/// SQLite's write-ahead log is copied into the database only once it is
/// long: a short log stays as it is, so that commits do not start it over
/// (each start costs an fsync that players would wait for), and a long one
/// is copied within moments.
#[tokio::test]
async fn the_sqlite_log_is_copied_once_it_is_long() {
    let (store, path) = sqlite_file().await;
    // A checkpoint that copies nothing answers the log's length in frames
    // and how many of them are copied.
    let raw = rusqlite::Connection::open(&path).unwrap();
    let log = || -> (i64, i64) {
        raw.query_row("PRAGMA wal_checkpoint(NOOP)", [], |row| {
            Ok((row.get(1)?, row.get(2)?))
        })
        .unwrap()
    };
    let players = guests(&store, "p").await;
    let game = new_game(players);
    let id = game.id;
    store.write(&[Write::Started(game)]).await.unwrap();
    let action = |index: u32, action: String| Write::Action {
        game: id,
        index,
        seat: (index % 4) as u8,
        action,
        request_id: None,
        room_seq: u64::from(index),
    };
    for index in 0..3 {
        store.write(&[action(index, "bid 3".into())]).await.unwrap();
    }
    // The store looks at the log four times a second.
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let (frames, copied) = log();
    assert!(frames > 0, "the writes are in the log");
    assert!(
        copied < frames,
        "a short log is left as it is: {copied} of {frames} frames copied"
    );

    // Rows of 4000 bytes take a page each at least.
    let long: Vec<Write> = (3..2_503).map(|index| action(index, "x".repeat(4_000))).collect();
    store.write(&long).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (frames, copied) = log();
        assert!(frames > 2_500, "the long batch is in the log: {frames} frames");
        if copied == frames {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "a long log is copied: {copied} of {frames} frames after 10 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(store.game(id).await.unwrap().unwrap().actions.len(), 2_503);
    drop(raw);
    remove_sqlite_file(store, &path).await;
}

/// A room's numbering starts at 0, and every later opening starts above
/// both the mark stored at the last opening and any mark raised since.
async fn rooms_number_their_events_above_every_earlier_opening(store: &Store) {
    let first = store.open_room("ABC123", 100).await.unwrap();
    assert_eq!((first.base, first.reserved), (0, 100));
    let second = store.open_room("ABC123", 100).await.unwrap();
    assert_eq!(second.base, 101, "above every number the first opening could use");
    assert_eq!(second.reserved, 201);
    // The room went past its mark and raised it through the journal.
    let raise = Write::RoomSeq {
        room: "ABC123".into(),
        seq: 450,
    };
    store.journal_writer().write(&[raise]).await.unwrap();
    // A lower mark, from a batch retried late, does not lower it.
    let lower = Write::RoomSeq {
        room: "ABC123".into(),
        seq: 300,
    };
    store.write(&[lower]).await.unwrap();
    let third = store.open_room("ABC123", 100).await.unwrap();
    assert_eq!(third.base, 451);
    let other = store.open_room("XYZ789", 100).await.unwrap();
    assert_eq!(other.base, 0, "rooms are numbered apart");
}

/// A write names the opening of its room it was made under, and once the
/// room has been opened again (a restart, or another node taking it over)
/// the store refuses the earlier opening's batches whole, on every path:
/// actions alone, a transaction with other writes, and the journal's
/// writer.
async fn writes_of_an_earlier_opening_are_refused(store: &Store) {
    let game = new_game(guests(store, "f").await);
    let id = game.id;
    let room = game.room.clone();
    let fence = |epoch: u64| Write::Fence {
        room: room.clone(),
        epoch,
    };
    let action = |index: u32| Write::Action {
        game: id,
        index,
        seat: (index % 4) as u8,
        action: format!("bid {}", index % 4 + 1),
        request_id: None,
        room_seq: u64::from(index) + 1,
    };
    let first = store.open_room(&room, 100).await.unwrap();
    store
        .write(&[fence(first.epoch), Write::Started(game.clone()), action(0)])
        .await
        .unwrap();
    store.write(&[fence(first.epoch), action(1)]).await.unwrap();
    let mut writer = store.journal_writer();
    writer.write(&[fence(first.epoch), action(2)]).await.unwrap();

    // Another node takes the room over.
    let second = store.open_room(&room, 100).await.unwrap();
    assert!(second.epoch > first.epoch, "{second:?} after {first:?}");

    let other = store.open_room("OTHER1", 100).await.unwrap();
    let other_fence = Write::Fence {
        room: "OTHER1".into(),
        epoch: other.epoch,
    };
    let hand = Write::Hand {
        game: id,
        hand: 0,
        record: serde_json::json!({"hand": 0}),
    };
    let stale = Write::Action {
        game: id,
        index: 3,
        seat: 3,
        action: "bid 13".into(),
        request_id: None,
        room_seq: 4,
    };
    let stale_batches = [
        vec![fence(first.epoch), stale.clone()],
        vec![fence(first.epoch), stale.clone(), hand.clone()],
        // A batch with a room whose fence holds is refused whole too.
        vec![other_fence.clone(), fence(first.epoch), stale],
    ];
    for batch in &stale_batches {
        match store.write(batch).await {
            Err(StoreError::Fenced(rooms)) => assert_eq!(rooms, std::slice::from_ref(&room)),
            other => panic!("a stale batch was not refused: {other:?}"),
        }
        match writer.write(batch).await {
            Err(StoreError::Fenced(rooms)) => assert_eq!(rooms, std::slice::from_ref(&room)),
            other => panic!("the journal's writer took a stale batch: {other:?}"),
        }
    }
    let refused = StoreError::Fenced(vec![room.clone()]);
    assert!(!refused.is_transient(), "a fenced batch is never retried");

    // The new owner writes as usual, through both paths.
    store.write(&[fence(second.epoch), action(3)]).await.unwrap();
    writer
        .write(&[fence(second.epoch), other_fence, action(4), hand])
        .await
        .unwrap();
    let stored = store.game(id).await.unwrap().expect("the game is stored");
    let actions: Vec<&str> = stored.actions.iter().map(|a| a.action.as_str()).collect();
    assert_eq!(
        actions,
        ["bid 1", "bid 2", "bid 3", "bid 4", "bid 1"],
        "the new owner's action 3"
    );
    assert_eq!(store.hands(id).await.unwrap().len(), 1);
}

/// However an old owner's batches and a new opening interleave, what the
/// new owner reads right after opening is all the old owner ever stores:
/// a batch either lands before the opening (and is read) or is refused.
async fn an_opening_fences_batches_in_flight(store: &Store) {
    let game = new_game(guests(store, "r").await);
    let id = game.id;
    let room = game.room.clone();
    let first = store.open_room(&room, 100).await.unwrap();
    store.write(&[Write::Started(game)]).await.unwrap();
    let old_owner = {
        let store = store.clone();
        let room = room.clone();
        tokio::spawn(async move {
            // Writes until the new opening refuses one, then a few more,
            // which must all be refused too.
            let mut accepted = 0u32;
            let mut refused = 0;
            for index in 0..1_000_000u32 {
                if refused == 5 {
                    break;
                }
                let batch = [
                    Write::Fence {
                        room: room.clone(),
                        epoch: first.epoch,
                    },
                    Write::Action {
                        game: id,
                        index,
                        seat: (index % 4) as u8,
                        action: "bid 1".into(),
                        request_id: None,
                        room_seq: u64::from(index),
                    },
                ];
                match store.write(&batch).await {
                    Ok(()) => {
                        assert_eq!(refused, 0, "nothing is accepted after a refusal");
                        accepted += 1;
                    }
                    Err(StoreError::Fenced(_)) => refused += 1,
                    Err(error) => panic!("{error}"),
                }
            }
            accepted
        })
    };
    tokio::time::sleep(Duration::from_millis(30)).await;
    let second = store.open_room(&room, 100).await.unwrap();
    let read_at_opening = store.game(id).await.unwrap().unwrap().actions.len();
    let accepted = old_owner.await.unwrap();
    assert!(second.epoch > first.epoch);
    assert!(accepted > 0, "the opening came while the old owner was writing");
    assert_eq!(
        accepted as usize, read_at_opening,
        "every batch the old owner had accepted was read by the new one, and none came after"
    );
    assert_eq!(
        store.game(id).await.unwrap().unwrap().actions.len(),
        read_at_opening
    );
}

macro_rules! suite {
    ($backend:ident, $open:expr) => {
        mod $backend {
            use super::*;

            macro_rules! case {
                ($name:ident) => {
                    #[tokio::test]
                    async fn $name() {
                        let Some(test) = $open else { return };
                        super::$name(&test.store).await;
                        test.finish().await;
                    }
                };
            }

            case!(accounts_are_unique_by_registered_name);
            case!(sessions_expire_and_are_revoked);
            case!(games_are_journaled_resumed_and_finished);
            case!(games_with_a_guest_are_not_rated_and_abandoners_lose);
            case!(solo_games_store_four_scores_and_any_winner);
            case!(a_failing_batch_stores_nothing);
            case!(the_journal_writer_stores_batches_whole);
            case!(bots_have_accounts_and_their_games_are_not_rated);
            case!(tournaments_keep_their_bracket);
            case!(rooms_number_their_events_above_every_earlier_opening);
            case!(writes_of_an_earlier_opening_are_refused);
            case!(an_opening_fences_batches_in_flight);
            case!(writes_under_a_lease_taken_since_are_refused);
        }
    };
}

suite!(sqlite, Some(TestStore::sqlite().await));
suite!(postgres, TestStore::postgres().await);

#[test]
fn database_names_are_replaced_in_addresses() {
    assert_eq!(
        replace_database("postgres://postgres@127.0.0.1:5432/test", "x"),
        "postgres://postgres@127.0.0.1:5432/x"
    );
    assert_eq!(
        replace_database("postgres://h/test?sslmode=disable", "x"),
        "postgres://h/x?sslmode=disable"
    );
}
