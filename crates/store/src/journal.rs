//! The writer behind the game journal: [`Store::write`], except that on
//! SQLite the journal's common batches skip sqlx.
//!
//! sqlx runs every SQLite statement on a thread of the connection's own and
//! hands each statement and its result across with channels, which costs a
//! few thread wake-ups per statement. A journal batch is on the path from a
//! player's action to its confirmation, and a thread switch on this kind
//! of machine costs tens of microseconds, as much as the SQLite work itself.
//! So the journal's batches of actions and hand records, nearly all of what
//! it writes, go through a plain SQLite connection (rusqlite) run on the
//! caller's thread; the writes that start and finish games, rarer and full
//! of queries, take the shared path. Both connections open the same file
//! and the journal uses them one at a time, so its order is kept.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, TransactionBehavior, params};

use crate::{Result, Store, StoreError, Write};

/// Stores the game journal's batches. Get one with [`Store::journal_writer`].
#[derive(Debug)]
pub struct JournalWriter {
    store: Store,
    /// The file of an SQLite store, and the connection to it once one is
    /// open. It is opened at the first batch that uses it, and again after
    /// a failure, so that a writer made while the file was unreachable
    /// works once it is back.
    sqlite: Option<(PathBuf, Option<Connection>)>,
}

/// How long the writer waits for another connection's write to end, as the
/// store's pools do.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

impl Store {
    /// A writer for the game journal. Its batches are stored as by
    /// [`Store::write`], but see [`JournalWriter::write`] for the thread it
    /// needs.
    pub fn journal_writer(&self) -> JournalWriter {
        JournalWriter {
            store: self.clone(),
            sqlite: self.sqlite_file.clone().map(|file| (file, None)),
        }
    }
}

impl JournalWriter {
    /// Stores a batch, all of it or nothing, as [`Store::write`] does.
    ///
    /// On SQLite, a batch of actions and hand records alone is written on
    /// the calling thread, which waits for the file (and for another
    /// connection's write, up to five seconds) without yielding: on SQLite,
    /// call this from a thread of its own, never from a runtime's worker.
    pub async fn write(&mut self, writes: &[Write]) -> Result<()> {
        let plain = writes
            .iter()
            .all(|write| matches!(write, Write::Action { .. } | Write::Hand { .. }));
        match &mut self.sqlite {
            Some((file, connection)) if plain && !writes.is_empty() => {
                let result = match connection {
                    Some(open) => insert(open, writes),
                    None => open(file).and_then(|mut open| {
                        let result = insert(&mut open, writes);
                        *connection = Some(open);
                        result
                    }),
                };
                if result.is_err() {
                    // The next batch starts from a new connection rather
                    // than one whose state the failure may have left odd.
                    *connection = None;
                }
                result
            }
            _ => self.store.write(writes).await,
        }
    }
}

/// Opens the journal's own connection with the settings of the store's pools.
fn open(file: &Path) -> Result<Connection> {
    // The database exists: the store made it and applied its migrations.
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = Connection::open_with_flags(file, flags)?;
    connection.busy_timeout(BUSY_TIMEOUT)?;
    connection.pragma_update(None, "foreign_keys", true)?;
    connection.pragma_update(None, "synchronous", "NORMAL")?;
    // As on the pools (see `Store::open`): checkpoints are mostly made by
    // the store's background task, and this connection makes most commits.
    connection.pragma_update(None, "wal_autocheckpoint", 10_000)?;
    Ok(connection)
}

/// Inserts the actions and hand records of a batch in one transaction.
fn insert(connection: &mut Connection, writes: &[Write]) -> Result<()> {
    // Immediate: take the write lock first, so that a commit by another
    // connection in between cannot fail this transaction half way.
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    {
        let mut action = transaction.prepare_cached(
            "INSERT INTO game_actions (game_id, idx, seat, action) VALUES (?1, ?2, ?3, ?4) \
             ON CONFLICT (game_id, idx) DO NOTHING",
        )?;
        let mut hand = transaction.prepare_cached(
            "INSERT INTO hands (game_id, hand, record) VALUES (?1, ?2, ?3) ON CONFLICT (game_id, hand) DO NOTHING",
        )?;
        for write in writes {
            match write {
                // Identifiers are stored as their 16 bytes, as sqlx stores them.
                Write::Action {
                    game,
                    index,
                    seat,
                    action: text,
                } => action.execute(params![&game.as_bytes()[..], index, seat, text])?,
                Write::Hand {
                    game,
                    hand: number,
                    record,
                } => {
                    let record = serde_json::to_string(record)
                        .map_err(|error| StoreError::Corrupt(error.to_string()))?;
                    hand.execute(params![&game.as_bytes()[..], number, record])?
                }
                Write::Started(_) | Write::Finished(_) => unreachable!("the caller sends these to sqlx"),
            };
        }
    }
    transaction.commit()?;
    Ok(())
}
