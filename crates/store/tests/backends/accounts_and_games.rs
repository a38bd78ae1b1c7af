//! Accounts, sessions and the life of a game from its start to its result.
//! These are the records players see directly, so both backends must agree on
//! uniqueness, expiry, ratings and scores.

use super::*;

pub(crate) async fn accounts_are_unique_by_registered_name(store: &Store) {
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
    // Registering makes no one an administrator, first or not.
    let account = store.account(ann).await.unwrap().unwrap();
    assert!(!account.is_admin && !account.can_organize && !account.is_moderator);
}

pub(crate) async fn sessions_expire_and_are_revoked(store: &Store) {
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

pub(crate) async fn games_are_journaled_resumed_and_finished(store: &Store) {
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

pub(crate) async fn games_with_a_guest_are_not_rated_and_abandoners_lose(store: &Store) {
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
pub(crate) async fn solo_games_store_four_scores_and_any_winner(store: &Store) {
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
