//! Leases and room openings, which fence off a server that has lost a room. Two
//! servers writing the same game would corrupt it, so a write from an earlier
//! owner must be refused and the numbering of events must never go back.

use super::*;

/// A node that takes the tournaments' lease raises its epoch in the store,
/// and from then on every write of the lease's earlier holder is refused
/// whole: the bots it would add at a start, a stage, a cancellation.
pub(crate) async fn writes_under_a_lease_taken_since_are_refused(store: &Store) {
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

/// A room's numbering starts at 0, and every later opening starts above
/// both the mark stored at the last opening and any mark raised since.
pub(crate) async fn rooms_number_their_events_above_every_earlier_opening(store: &Store) {
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
pub(crate) async fn writes_of_an_earlier_opening_are_refused(store: &Store) {
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
pub(crate) async fn an_opening_fences_batches_in_flight(store: &Store) {
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
