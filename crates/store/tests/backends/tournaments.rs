//! Tournaments and their brackets. A tournament outlives many games and
//! restarts of the server, so its stages, tables and places must read back
//! exactly as they were written.

use super::*;

pub(crate) async fn tournaments_keep_their_bracket(store: &Store) {
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
