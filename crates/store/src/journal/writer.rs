//! The writer behind the game journal: [`Store::write`], except that on
//! SQLite the journal's common batches skip sqlx and go through a log.
//!
//! sqlx runs every SQLite statement on a thread of the connection's own and
//! hands each statement and its result across with channels, which costs a
//! few thread wake-ups per statement. A journal batch is on the path from a
//! player's action to its confirmation, and a thread switch on this kind
//! of machine costs tens of microseconds, as much as the SQLite work itself.
//! So the journal's batches of actions and hand records (and the rooms'
//! marks for their event numbers), nearly all of what it writes, go
//! through a plain SQLite connection (rusqlite) run on the
//! caller's thread; the writes that start and finish games, rarer and full
//! of queries, take the shared path. Both connections open the same file
//! and the journal uses them one at a time, so its order is kept.
//!
//! On that connection, the actions of a batch that spans many games are
//! appended to `action_log` rather than inserted into `game_actions` (see
//! [`ActionLog`] and the migration that makes the log): such a commit then
//! changes a page or two of the log instead of one page of `game_actions`
//! per game in it.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags, ToSql, TransactionBehavior, params, params_from_iter};
use uuid::Uuid;

use crate::{ActionRow, Result, Store, StoreError, Write};

/// Stores the game journal's batches. Get one with [`Store::journal_writer`].
#[derive(Debug)]
pub struct JournalWriter {
    store: Store,
    /// The file of an SQLite store, and the connection to it with what it
    /// knows of the log once one is open. It is opened at the first batch
    /// that uses it, and again after a failure, so that a writer made while
    /// the file was unreachable works once it is back.
    sqlite: Option<(PathBuf, Option<(Connection, ActionLog)>)>,
    /// Where the last batch written on the SQLite connection spent its
    /// time, for the report of a slow batch.
    last_times: Option<BatchTimes>,
}

/// Where a batch written on the journal's SQLite connection spent its
/// time: waiting for the write lock (`BEGIN IMMEDIATE`, which waits while
/// another connection writes), writing its rows, and committing (which
/// appends to the log, and fsyncs it when it starts the log again).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchTimes {
    pub lock: Duration,
    pub rows: Duration,
    pub commit: Duration,
}

/// How long the writer waits for another connection's write to end, as the
/// store's pools do.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

impl Store {
    /// A writer for the game journal. Its batches are stored as by
    /// [`Store::write`], but see [`JournalWriter::write`] for the thread it
    /// needs.
    ///
    /// A database has one journal writer at a time: on SQLite, the writer
    /// keeps track of the rows it logged and deletes them once they are
    /// copied, and a second writer would delete the first one's rows.
    pub fn journal_writer(&self) -> JournalWriter {
        JournalWriter {
            store: self.clone(),
            sqlite: self.sqlite_file.clone().map(|file| (file, None)),
            last_times: None,
        }
    }
}

impl JournalWriter {
    /// Stores a batch, all of it or nothing, as [`Store::write`] does.
    ///
    /// On SQLite, a batch of actions, hand records and rooms' marks alone
    /// (see [`Store::open_room`]) is written on
    /// the calling thread, which waits for the file (and for another
    /// connection's write, up to five seconds) without yielding: on SQLite,
    /// call this from a thread of its own, never from a runtime's worker.
    pub async fn write(&mut self, writes: &[Write]) -> Result<()> {
        let plain = writes.iter().all(|write| {
            matches!(
                write,
                Write::Action { .. } | Write::Hand { .. } | Write::RoomSeq { .. } | Write::Fence { .. }
            )
        });
        self.last_times = None;
        match &mut self.sqlite {
            Some((file, connection)) if plain && !writes.is_empty() => {
                let mut times = BatchTimes::default();
                let result = match connection {
                    Some((open, log)) => log.store(open, writes, &mut times),
                    None => open(file).and_then(|(mut open, mut log)| {
                        let result = log.store(&mut open, writes, &mut times);
                        *connection = Some((open, log));
                        result
                    }),
                };
                self.last_times = Some(times);
                if result
                    .as_ref()
                    .is_err_and(|error| !matches!(error, StoreError::Fenced(_)))
                {
                    // The next batch starts from a new connection rather
                    // than one whose state the failure may have left odd,
                    // and from the log as stored rather than as this
                    // writer last knew it.
                    *connection = None;
                }
                result
            }
            _ => self.store.write(writes).await,
        }
    }

    /// Where the last batch spent its time, when it was written on the
    /// journal's own SQLite connection.
    pub fn last_times(&self) -> Option<BatchTimes> {
        self.last_times
    }

    /// Does a step of the work that batches put off because no player
    /// waits for it (on SQLite, copying the logged rows of games whose hand
    /// was recorded, and deleting the head of the log), and says whether
    /// there is more. Call it while no batch is waiting, from the thread
    /// that calls [`JournalWriter::write`]; it blocks it, but a step is
    /// short, so that a batch that comes meanwhile waits little.
    pub fn tidy(&mut self) -> Result<bool> {
        let Some((_, connection)) = &mut self.sqlite else {
            return Ok(false);
        };
        let Some((open, log)) = connection else {
            return Ok(false);
        };
        let result = log.tidy(open);
        if result.is_err() {
            *connection = None;
        }
        result
    }
}

/// Runs `body` in a transaction that takes the write lock first (`BEGIN
/// IMMEDIATE`), so that a commit by another connection in between cannot
/// fail it half way. The `BEGIN` and `COMMIT` are prepared once per
/// connection: rusqlite's transactions parse both at every batch, which
/// showed in profiles of a journal committing every action.
///
/// On an error the transaction is rolled back; the caller drops the
/// connection anyway, which would roll it back too. `times` learns where
/// the time went.
fn immediate<T>(
    connection: &Connection,
    times: &mut BatchTimes,
    body: impl FnOnce(&Connection) -> Result<T>,
) -> Result<T> {
    let began = Instant::now();
    connection.prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
    let locked = Instant::now();
    times.lock = locked - began;
    let outcome = body(connection).and_then(|value| {
        let written = Instant::now();
        times.rows = written - locked;
        connection.prepare_cached("COMMIT")?.execute([])?;
        times.commit = written.elapsed();
        Ok(value)
    });
    if outcome.is_err() && !connection.is_autocommit() {
        let _ = connection.execute_batch("ROLLBACK");
    }
    outcome
}

/// Opens the journal's own connection with the settings of the store's
/// pools, and copies whatever the log holds into `game_actions`.
fn open(file: &Path) -> Result<(Connection, ActionLog)> {
    // The database exists: the store made it and applied its migrations.
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut connection = Connection::open_with_flags(file, flags)?;
    connection.busy_timeout(BUSY_TIMEOUT)?;
    connection.pragma_update(None, "foreign_keys", true)?;
    connection.pragma_update(None, "synchronous", "NORMAL")?;
    // As on the pools (see `Store::open`): checkpoints are mostly made by
    // the store's background task, and this connection makes most commits.
    connection.pragma_update(None, "wal_autocheckpoint", 10_000)?;
    let log = ActionLog::open(&mut connection)?;
    Ok((connection, log))
}

impl ActionRow<'_> {
    /// The row's columns, in the order `game_actions` and the log list
    /// them, for rusqlite. The game's identifier is its 16 bytes, as sqlx
    /// stores it, so that either connection reads what the other wrote.
    fn sqlite_params(&self) -> [&dyn ToSql; 6] {
        [
            self.game.as_bytes(),
            &self.index,
            &self.seat,
            &self.action,
            &self.request_id,
            &self.room_seq,
        ]
    }
}

/// What the writer knows of `action_log`: which logged rows are not yet
/// in `game_actions`.
///
/// A game's rows are copied once its hand is recorded, which changes its
/// page of `game_actions` a few times per hand rather than once per
/// action. The rows of a game whose hand goes on for long (players who
/// think, or are away) are copied once they are old, so that the log stays
/// short; rows older than every row still to copy are then deleted.
/// Copying is spread out ([`ActionLog::maintain`]): a batch copies at most
/// twice the rows it appends, and the rest is done a step at a time when
/// the journal is idle ([`JournalWriter::tidy`]). The log always holds
/// every action not yet copied, so what is stored is whole at every
/// commit, and [`ActionLog::open`] copies what a previous writer left.
#[derive(Debug)]
struct ActionLog {
    /// The `seq` of each game's rows still to copy, oldest first; never empty.
    uncopied: HashMap<Uuid, Vec<i64>>,
    /// Games whose hand was recorded and whose rows are to be copied.
    due: VecDeque<Uuid>,
    /// The oldest such row of each game, so that the oldest of all is known.
    oldest: BTreeSet<(i64, Uuid)>,
    /// The last `seq` used. The writer numbers rows itself, so that `seq`
    /// only grows and every row goes to the end of the table.
    last: i64,
    /// Rows below this `seq` are deleted.
    deleted_below: i64,
}

/// Rows of the log that a game's oldest uncopied row may have after it,
/// beyond [`STALE_PER_GAME`] for each game with uncopied rows, before its
/// rows are copied without waiting for the end of its hand. With every
/// table playing at the same pace, a game's rows are copied at least every
/// sixteen actions, and the log holds about sixteen rows per table.
const STALE_AFTER: i64 = 4_096;
const STALE_PER_GAME: i64 = 16;

/// Deleted rows are deleted in runs of at least this many, a few pages of
/// the log at a time, when the journal is idle; a batch deletes only when
/// the journal has not been idle for long ([`BATCH_DELETE_EVERY`]).
const DELETE_EVERY: i64 = 512;
const BATCH_DELETE_EVERY: i64 = 2 * DELETE_EVERY;

/// A batch whose actions are of this many games or fewer stores them in
/// `game_actions` directly: it changes as many pages there as it would in
/// the log, and spares the copy.
const DIRECT_GAMES: usize = 2;

/// Whether a batch holds actions of more than [`DIRECT_GAMES`] games.
fn spans_many_games(writes: &[Write]) -> bool {
    let mut games: Vec<Uuid> = Vec::with_capacity(DIRECT_GAMES);
    for write in writes {
        if let Write::Action { game, .. } = write
            && !games.contains(game)
        {
            if games.len() == DIRECT_GAMES {
                return true;
            }
            games.push(*game);
        }
    }
    false
}

/// Rows copied by a step of [`JournalWriter::tidy`]: a quarter of a hand.
const TIDY_ROWS: usize = 16;

/// Rows a batch may copy for each row it appends: enough for the copies to
/// keep up when the journal is never idle, and spread over its batches so
/// that no batch makes its players wait long. When many tables start
/// together their rows grow old together, and copying them all at once
/// held a batch for seconds.
const BATCH_COPIES_PER_ROW: usize = 2;

impl ActionLog {
    /// Copies every row of the log into `game_actions` and empties it:
    /// a writer that starts knows nothing of rows logged before.
    fn open(connection: &mut Connection) -> Result<ActionLog> {
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        transaction.execute(
            "INSERT INTO game_actions (game_id, idx, seat, action, request_id, room_seq) \
             SELECT game_id, idx, seat, action, request_id, room_seq FROM action_log WHERE true \
             ON CONFLICT (game_id, idx) DO NOTHING",
            [],
        )?;
        transaction.execute("DELETE FROM action_log", [])?;
        transaction.commit()?;
        Ok(ActionLog {
            uncopied: HashMap::new(),
            due: VecDeque::new(),
            oldest: BTreeSet::new(),
            last: 0,
            deleted_below: 1,
        })
    }

    /// Stores a batch of actions and hand records in one transaction. On
    /// an error, what this log knows may be wrong: drop it.
    fn store(&mut self, connection: &mut Connection, writes: &[Write], times: &mut BatchTimes) -> Result<()> {
        immediate(connection, times, |transaction| {
            self.store_in(transaction, writes)
        })
    }

    /// The body of [`ActionLog::store`], inside its transaction.
    fn store_in(&mut self, transaction: &Connection, writes: &[Write]) -> Result<()> {
        // Before anything is written, so that a refused batch leaves this
        // log's account of the rows as it was.
        crate::fence::check_rusqlite(transaction, &crate::fence::fences(writes))?;
        let logged = spans_many_games(writes);
        let mut appended = 0;
        for write in writes {
            match write {
                Write::Action { .. } => {
                    let row = write.action_row().expect("an action write has a row");
                    if logged {
                        self.append(transaction, &row)?;
                        appended += 1;
                    } else {
                        transaction
                            .prepare_cached(
                                "INSERT INTO game_actions (game_id, idx, seat, action, request_id, room_seq) \
                                 VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (game_id, idx) DO NOTHING",
                            )?
                            .execute(row.sqlite_params())?;
                    }
                }
                Write::RoomSeq { room, seq } => {
                    transaction
                        .prepare_cached("UPDATE rooms SET seq = ?1 WHERE code = ?2 AND seq < ?1")?
                        .execute(params![*seq as i64, room])?;
                }
                Write::Hand { game, hand, record } => {
                    let record = serde_json::to_string(record)
                        .map_err(|error| StoreError::Corrupt(error.to_string()))?;
                    // Identifiers are stored as their 16 bytes, as sqlx stores them.
                    transaction
                        .prepare_cached(
                            "INSERT INTO hands (game_id, hand, record) VALUES (?1, ?2, ?3) \
                             ON CONFLICT (game_id, hand) DO NOTHING",
                        )?
                        .execute(params![&game.as_bytes()[..], hand, record])?;
                    if self.uncopied.contains_key(game) {
                        self.due.push_back(*game);
                    }
                }
                // Checked above.
                Write::Fence { .. } => {}
                Write::Started(_) | Write::Finished(_) => unreachable!("the caller sends these to sqlx"),
            }
        }
        // The players of this batch wait for its commit: it copies no more
        // than its share, and leaves the rest to `tidy`.
        self.maintain(transaction, BATCH_COPIES_PER_ROW * appended, BATCH_DELETE_EVERY)
    }

    /// Does a step of [`ActionLog::maintain`], with a budget of
    /// [`TIDY_ROWS`], in a transaction of its own; says whether there was
    /// anything to do.
    fn tidy(&mut self, connection: &mut Connection) -> Result<bool> {
        let stale = self
            .oldest
            .first()
            .is_some_and(|&(first, _)| first < self.stale_below());
        if self.due.is_empty() && !stale && self.needed_from() - self.deleted_below < DELETE_EVERY {
            return Ok(false);
        }
        immediate(connection, &mut BatchTimes::default(), |transaction| {
            self.maintain(transaction, TIDY_ROWS, DELETE_EVERY)
        })?;
        Ok(true)
    }

    /// Appends an action to the log.
    fn append(&mut self, transaction: &Connection, row: &ActionRow<'_>) -> Result<()> {
        self.last += 1;
        // The log's row is the action's, behind its place in the log.
        let columns = std::iter::once(&self.last as &dyn ToSql).chain(row.sqlite_params());
        transaction
            .prepare_cached(
                "INSERT INTO action_log (seq, game_id, idx, seat, action, request_id, room_seq) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params_from_iter(columns))?;
        let game = row.game;
        let rows = self.uncopied.entry(game).or_default();
        if rows.is_empty() {
            self.oldest.insert((self.last, game));
        }
        rows.push(self.last);
        Ok(())
    }

    /// Copies a game's oldest uncopied rows, `limit` of them at most, into
    /// `game_actions`.
    fn copy(&mut self, transaction: &Connection, game: Uuid, limit: usize) -> Result<usize> {
        let Some(rows) = self.uncopied.get_mut(&game) else {
            return Ok(0);
        };
        self.oldest.remove(&(rows[0], game));
        let copied: Vec<i64> = rows.drain(..limit.min(rows.len())).collect();
        match rows.first() {
            Some(&first) => {
                self.oldest.insert((first, game));
            }
            None => {
                self.uncopied.remove(&game);
            }
        }
        let list = serde_json::to_string(&copied).map_err(|error| StoreError::Corrupt(error.to_string()))?;
        transaction
            .prepare_cached(
                "INSERT INTO game_actions (game_id, idx, seat, action, request_id, room_seq) \
                 SELECT game_id, idx, seat, action, request_id, room_seq FROM action_log \
                 WHERE seq IN (SELECT value FROM json_each(?1)) \
                 ON CONFLICT (game_id, idx) DO NOTHING",
            )?
            .execute([list])?;
        Ok(copied.len())
    }

    /// Copies up to `budget` rows, of the games that are due first and then
    /// of those whose rows have grown old, oldest first; then deletes the
    /// head of the log that nothing needs if it holds `delete_every` rows or
    /// more.
    fn maintain(&mut self, transaction: &Connection, budget: usize, delete_every: i64) -> Result<()> {
        let mut left = budget;
        while left > 0
            && let Some(&game) = self.due.front()
        {
            left -= self.copy(transaction, game, left)?;
            if !self.uncopied.contains_key(&game) {
                self.due.pop_front();
            }
        }
        let stale_below = self.stale_below();
        while left > 0
            && let Some(&(first, game)) = self.oldest.first()
            && first < stale_below
        {
            left -= self.copy(transaction, game, left)?;
        }
        let needed_from = self.needed_from();
        if needed_from - self.deleted_below >= delete_every {
            transaction
                .prepare_cached("DELETE FROM action_log WHERE seq < ?1")?
                .execute([needed_from])?;
            self.deleted_below = needed_from;
        }
        Ok(())
    }

    /// Rows below this `seq` are old: their games' rows are copied now.
    fn stale_below(&self) -> i64 {
        self.last - STALE_AFTER - STALE_PER_GAME * self.uncopied.len() as i64
    }

    /// The oldest row still to copy, or the next row when there is none.
    fn needed_from(&self) -> i64 {
        self.oldest.first().map_or(self.last + 1, |&(first, _)| first)
    }
}
