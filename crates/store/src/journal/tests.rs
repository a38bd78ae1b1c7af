//! The journal's loop against a real SQLite store.

use std::sync::atomic::AtomicUsize;

use super::*;

/// Counts what the journal reports.
#[derive(Debug, Default)]
struct Counts {
    writes: AtomicUsize,
    batches: AtomicUsize,
}

impl JournalObserver for Counts {
    fn batch_stored(&self, writes: usize) {
        self.writes.fetch_add(writes, Ordering::Relaxed);
        self.batches.fetch_add(1, Ordering::Relaxed);
    }

    fn commit_waited(&self, _: Duration) {}
}

/// A migrated SQLite store in a fresh file, and a game in it.
async fn store_with_game() -> (Store, uuid::Uuid) {
    let path = std::env::temp_dir().join(format!("spades-journal-{}.db", uuid::Uuid::new_v4()));
    let store = Store::open(&format!("sqlite:{}", path.display())).await.unwrap();
    store.migrate().await.unwrap();
    let player = uuid::Uuid::new_v4();
    let now = time::OffsetDateTime::now_utc();
    store.create_account(player, "p", None, now).await.unwrap();
    let game = crate::NewGame {
        id: uuid::Uuid::new_v4(),
        room: "ROOM01".into(),
        room_name: "journal".into(),
        private: false,
        owner: player,
        number: 0,
        rules: serde_json::json!({}),
        seed: 7,
        players: vec![player; 4],
        started_at: now,
        tournament: None,
        rated: true,
        speed: "normal".into(),
        same_deals_as: None,
    };
    let id = game.id;
    store.write(&[Write::Started(game)]).await.unwrap();
    (store, id)
}

fn action(game: uuid::Uuid, index: u32) -> Write {
    Write::Action {
        game,
        index,
        seat: (index % 4) as u8,
        action: "bid 3".into(),
        request_id: None,
        room_seq: u64::from(index) + 1,
    }
}

/// The journal's loop as the tests run it: on the test's runtime, without
/// waiting for company.
async fn run_plain(
    store: &Store,
    receiver: mpsc::UnboundedReceiver<Request>,
    observer: Arc<dyn JournalObserver>,
) {
    run(
        store.clone(),
        receiver,
        Arc::default(),
        observer,
        false,
        Duration::ZERO,
    )
    .await;
}

fn commit(writes: Vec<Write>) -> (Request, oneshot::Receiver<Durability>) {
    let (done, answer) = oneshot::channel();
    (Request::Commit(Commit { writes, done }), answer)
}

#[tokio::test]
async fn a_stop_ends_the_journal_after_what_came_before() {
    let (store, game) = store_with_game().await;
    // Everything is queued before the journal runs, so that the stop
    // comes in the same batch as the commits before it.
    let (requests, receiver) = mpsc::unbounded_channel();
    let (first, first_answer) = commit(vec![action(game, 0)]);
    let (second, second_answer) = commit(vec![action(game, 1)]);
    let (late, late_answer) = commit(vec![action(game, 2)]);
    for request in [first, second, Request::Stop, late] {
        assert!(requests.send(request).is_ok());
    }
    let counts = Arc::new(Counts::default());
    // It returns although a sender is still alive.
    let journal = run_plain(&store, receiver, counts.clone());
    tokio::time::timeout(Duration::from_secs(5), journal)
        .await
        .expect("the journal returns at the stop");
    assert_eq!(first_answer.await, Ok(Durability::Stored));
    assert_eq!(second_answer.await, Ok(Durability::Stored));
    assert!(
        late_answer.await.is_err(),
        "a commit after the stop is never answered"
    );
    let stored = store.unfinished_games().await.unwrap();
    assert_eq!(stored[0].actions.len(), 2);
    assert_eq!(counts.writes.load(Ordering::Relaxed), 2);
    assert_eq!(counts.batches.load(Ordering::Relaxed), 1, "one batch");
}

#[tokio::test]
async fn a_room_opened_again_elsewhere_is_refused_and_the_rest_of_its_batch_stored() {
    let (store, game) = store_with_game().await;
    let old = store.open_room("ROOM01", 10).await.unwrap();
    // Another node opens the room again; another room's owner is current.
    store.open_room("ROOM01", 10).await.unwrap();
    let other = store.open_room("ROOM02", 10).await.unwrap();
    let fence = |room: &str, epoch: u64| Write::Fence {
        room: room.into(),
        epoch,
    };
    let (requests, receiver) = mpsc::unbounded_channel();
    let (stale, stale_answer) = commit(vec![fence("ROOM01", old.epoch), action(game, 0)]);
    let (current, current_answer) = commit(vec![fence("ROOM02", other.epoch), action(game, 1)]);
    for request in [stale, current, Request::Stop] {
        assert!(requests.send(request).is_ok());
    }
    run_plain(&store, receiver, Arc::new(())).await;
    assert_eq!(stale_answer.await, Ok(Durability::Fenced));
    assert_eq!(current_answer.await, Ok(Durability::Stored));
    let stored = &store.unfinished_games().await.unwrap()[0];
    let seqs: Vec<Option<u64>> = stored.actions.iter().map(|a| a.room_seq).collect();
    assert_eq!(seqs, [Some(2)], "only the current owner's action is stored");
}

#[tokio::test]
async fn a_stopped_journal_ends_its_task() {
    let (store, game) = store_with_game().await;
    let (journal, task) = store.start_journal(Arc::new(()));
    assert_eq!(journal.commit(vec![action(game, 0)]).await, Durability::Stored);
    tokio::time::timeout(Duration::from_secs(5), task.close())
        .await
        .expect("the journal ends once closed");
    // After the close nothing is stored, and the room is told so.
    assert_eq!(journal.commit(vec![action(game, 1)]).await, Durability::Held);
    // Closed in SQLite's order, the store folded its log into the file.
    let file = store.sqlite_file.clone().expect("an SQLite store");
    let log = format!("{}-wal", file.display());
    assert!(!std::path::Path::new(&log).exists(), "{log} is left behind");
    let reopened = Store::open(&format!("sqlite:{}", file.display())).await.unwrap();
    assert_eq!(reopened.unfinished_games().await.unwrap()[0].actions.len(), 1);
}

#[tokio::test]
async fn a_commit_whose_data_is_refused_takes_no_other_room_s_writes_with_it() {
    let (store, game) = store_with_game().await;
    // A game whose owner has no account: the database refuses it (a
    // foreign key), and no retry could change that.
    let orphan = crate::NewGame {
        id: uuid::Uuid::new_v4(),
        room: "ROOM02".into(),
        room_name: "orphan".into(),
        private: false,
        owner: uuid::Uuid::new_v4(),
        number: 0,
        rules: serde_json::json!({}),
        seed: 1,
        players: vec![uuid::Uuid::new_v4(); 4],
        started_at: time::OffsetDateTime::now_utc(),
        tournament: None,
        rated: false,
        speed: "normal".into(),
        same_deals_as: None,
    };
    let (requests, receiver) = mpsc::unbounded_channel();
    let (refused, refused_answer) = commit(vec![Write::Started(orphan)]);
    let (good, good_answer) = commit(vec![action(game, 0)]);
    for request in [refused, good, Request::Stop] {
        assert!(requests.send(request).is_ok());
    }
    let counts = Arc::new(Counts::default());
    run_plain(&store, receiver, counts.clone()).await;
    assert_eq!(
        refused_answer.await,
        Ok(Durability::Stored),
        "refused data is not held forever"
    );
    assert_eq!(good_answer.await, Ok(Durability::Stored));
    let stored = store.unfinished_games().await.unwrap();
    assert_eq!(stored.len(), 1, "the orphan game was not stored");
    assert_eq!(stored[0].actions.len(), 1, "the other room's action was stored");
    assert_eq!(counts.writes.load(Ordering::Relaxed), 1);
}

/// After a batch of several commits, a journal with company to wait for
/// stores a commit together with the one that follows it shortly; after a
/// lone commit it stores the next at once.
#[tokio::test]
async fn after_a_busy_batch_the_journal_waits_for_company() {
    let (store, game) = store_with_game().await;
    let (requests, receiver) = mpsc::unbounded_channel();
    let counts = Arc::new(Counts::default());
    // Far longer than the pause below, so that timing cannot decide it.
    let company = Duration::from_millis(300);
    let journal = tokio::spawn(run(
        store.clone(),
        receiver,
        Arc::default(),
        counts.clone(),
        false,
        company,
    ));
    let send = |index| {
        let (request, answer) = commit(vec![action(game, index)]);
        assert!(requests.send(request).is_ok());
        answer
    };
    let batches = || counts.batches.load(Ordering::Relaxed);

    // A lone commit is stored at once, and the next one too.
    let started = Instant::now();
    assert_eq!(send(0).await, Ok(Durability::Stored));
    assert_eq!(send(1).await, Ok(Durability::Stored));
    assert!(started.elapsed() < company, "a lone commit waited for company");
    assert_eq!(batches(), 2);

    // Two commits sent together make a busy batch.
    let (first, second) = (send(2), send(3));
    assert_eq!(
        (first.await, second.await),
        (Ok(Durability::Stored), Ok(Durability::Stored))
    );
    assert_eq!(batches(), 3);

    // The next commit waits for the one that comes 20 ms later.
    let waiting = send(4);
    tokio::time::sleep(Duration::from_millis(20)).await;
    let follower = send(5);
    assert_eq!(
        (waiting.await, follower.await),
        (Ok(Durability::Stored), Ok(Durability::Stored))
    );
    assert_eq!(batches(), 4, "the two were stored together");

    assert!(requests.send(Request::Stop).is_ok());
    journal.await.unwrap();
    assert_eq!(store.unfinished_games().await.unwrap()[0].actions.len(), 6);
}
