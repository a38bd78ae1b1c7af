//! Batches of writes and the journal writer that sends them, and the games of
//! bots. A batch that half succeeds would leave a game that cannot be resumed,
//! so these cases check that a batch is stored whole or not at all.

use super::*;

/// Four guests named after `prefix`.
pub(crate) async fn guests(store: &Store, prefix: &str) -> [Uuid; 4] {
    let mut players = [Uuid::nil(); 4];
    for (seat, player) in players.iter_mut().enumerate() {
        *player = guest(store, &format!("{prefix}{seat}")).await;
    }
    players
}

/// An action of a game that does not exist, which the foreign key refuses,
/// and the whole batch with it.
pub(crate) fn orphan_action() -> Write {
    Write::Action {
        game: Uuid::new_v4(),
        index: 0,
        seat: 0,
        action: "bid 1".into(),
        request_id: None,
        room_seq: 1,
    }
}

pub(crate) async fn a_failing_batch_stores_nothing(store: &Store) {
    let game = new_game(guests(store, "a").await);
    let batch = [Write::Started(game.clone()), orphan_action()];
    assert!(store.write(&batch).await.is_err());
    assert!(store.game(game.id).await.unwrap().is_none());
}

/// The journal's writer stores what `Store::write` stores (on SQLite its
/// batches of actions and hands take a connection of their own), keeps a
/// retried batch from counting twice, and refuses a bad batch whole.
pub(crate) async fn the_journal_writer_stores_batches_whole(store: &Store) {
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

pub(crate) async fn bots_have_accounts_and_their_games_are_not_rated(store: &Store) {
    for (id, name) in [
        (spades_store::BASIC_BOT_ACCOUNT, "Basic bot"),
        (spades_store::STRONG_BOT_ACCOUNT, "Strong bot"),
        (spades_store::BEGINNER_BOT_ACCOUNT, "Beginner bot"),
        (spades_store::EXPERT_BOT_ACCOUNT, "Expert bot"),
    ] {
        let account = store.account(id).await.unwrap().expect("made by a migration");
        assert_eq!((account.name.as_str(), account.registered), (name, false));
    }
    // One bot account can hold several seats of a game.
    let players = [
        registered(store, "Human").await,
        spades_store::BASIC_BOT_ACCOUNT,
        spades_store::EXPERT_BOT_ACCOUNT,
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
