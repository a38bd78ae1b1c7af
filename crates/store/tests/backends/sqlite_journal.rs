//! The log the SQLite journal writer keeps for batches that span many games.
//! SQLite has one writer at a time, so the log is how large batches stay fast;
//! these cases check that its rows are copied, trimmed and never lost.

use super::*;

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
