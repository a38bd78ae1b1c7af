//! Storage for accounts, sessions, games, hand histories and ratings, on
//! Postgres (the production store) or an embedded SQLite file (the default,
//! which needs nothing installed).
//!
//! Both backends run the same SQL: the queries use only what the two share
//! (`$1` parameters, `ON CONFLICT`, `RETURNING`, partial and expression
//! indexes), and the schemas in `migrations/postgres` and
//! `migrations/sqlite` give each database its own types. A query is written
//! once and [`on_pool!`] runs it on whichever pool the store holds. The
//! exceptions are on the game journal's hot path: the bulk insert of a
//! batch's actions (`InsertActions` in `games.rs`), where each backend has
//! its own fastest form, and the [`JournalWriter`], which on SQLite stores
//! the common batches on a connection of its own, outside sqlx, through a
//! log of actions that the reading of a game's actions takes into account.
//!
//! This file opens the store and holds what every part shares; the queries
//! are in `accounts.rs`, `games.rs`, `tournament.rs` and `rating.rs`, and
//! moderation's in `moderation.rs`, `care.rs` and `social.rs`.

mod rating;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use uuid::Uuid;

pub use rating::{Finish, Rating, rate_game};

/// The database behind a store.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Backend {
    Postgres,
    Sqlite,
}

/// The state of the store's pool of connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolStatus {
    pub size: u32,
    pub idle: usize,
}

#[derive(Clone, Debug)]
enum Pool {
    Postgres(PgPool),
    Sqlite(SqlitePool),
}

/// Runs the same code on the store's pool, whichever backend it is: the
/// body is compiled once per backend with `$pool` bound to that pool.
/// `on_pool!(@ &pool, ...)` does the same on a pool other than the main one.
macro_rules! on_pool {
    ($store:expr, $pool:ident => $body:expr) => {
        on_pool!(@ &$store.pool, $pool => $body)
    };
    (@ $which:expr, $pool:ident => $body:expr) => {
        match $which {
            Pool::Postgres($pool) => $body,
            Pool::Sqlite($pool) => $body,
        }
    };
}

mod accounts;
mod care;
mod conduct;
mod fence;
mod friends;
mod games;
mod journal;
mod lease;
mod moderation;
mod record;
mod reviews;
mod social;
mod tournament;

pub use accounts::{Account, Profile};
pub use care::DELETED_NAME;
pub use friends::{Friend, FriendAsk, FriendState, MAX_FRIENDS};
pub use games::{
    FinishedGame, GamePlayer, GameSummary, NewGame, PlayerStats, REPEAT_WINDOW_DAYS, RoomSeqs, StoredAction,
    StoredGame, Write, rating_weight,
};
pub use journal::{Durability, Journal, JournalObserver, JournalTask, JournalWriter};
pub use lease::LeaseFence;
pub use moderation::{Actor, AuditEntry, AuditNote, Role, Sanction, SanctionKind};
use record::ActionRow;
pub use social::{Blocked, NewReport, OPEN_REPORTS_PER_REPORTER, Report};

pub use tournament::{
    Entrant, NewTable, NewTournament, PlayedTournament, Registration, Stage, Step, StoredTable, TableLink,
    Tournament, TournamentSummary,
};

/// A connection to the store. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Store {
    pool: Pool,
    /// Where the journal's batches go. On SQLite it is one connection of
    /// its own: SQLite writes one transaction at a time anyway, and a
    /// connection that makes every write keeps its page cache, where
    /// writes spread over a pool's connections would make each one read
    /// back the pages the others changed. On Postgres it is the pool.
    journal: Pool,
    /// The file of an SQLite store, where [`JournalWriter`] opens a
    /// connection of its own.
    sqlite_file: Option<std::path::PathBuf>,
    /// On SQLite, held only to be dropped with the last clone of the store,
    /// which stops `checkpoint_regularly`.
    _checkpoints: Option<Arc<tokio::sync::oneshot::Sender<()>>>,
}

/// How often an SQLite store looks at its write-ahead log, to copy it into
/// the database once it is long enough.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);

/// How many frames (pages) the log may hold, not yet copied, before the
/// store copies them: 2 MiB with SQLite's pages of 4 KiB. A busy server
/// writes that much between two looks, so it is copied as often as it
/// would be at every look; a server with a few tables takes seconds or
/// minutes to write it.
const CHECKPOINT_FRAMES: i64 = 500;

/// Copies the write-ahead log of an SQLite store into the database file
/// (a passive checkpoint, on a connection of the pool) whenever more than
/// `CHECKPOINT_FRAMES` of it are not yet copied, until the pool is closed
/// or the last clone of the store is dropped.
///
/// Two costs of a checkpoint fall on the journal's commits, which players
/// wait for, unless this task keeps them rare:
///
/// - SQLite checkpoints inside the commit that fills the log past its
///   threshold (`wal_autocheckpoint`), and the checkpoint ends with an
///   fsync of everything it copied. This task copies long before that, and
///   a passive checkpoint waits for nobody and lets the journal go on
///   writing.
/// - Once every frame of the log is copied, the next commit starts the log
///   from the beginning again, and that commit writes the log's header and
///   fsyncs the log before its frames. An fsync takes about a millisecond
///   on a quiet disk, but hundreds while the kernel writes back a large
///   file, for instance one a build has just written. Copying only a long
///   log makes that commit one in hundreds rather than nearly every one
///   when players act a few times a second.
async fn checkpoint_regularly(pool: SqlitePool, mut dropped: tokio::sync::oneshot::Receiver<()>) {
    let mut tick = tokio::time::interval(CHECKPOINT_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = &mut dropped => return,
            _ = tick.tick() => {}
        }
        // A checkpoint that copies nothing answers how long the log is and
        // how much of it is copied.
        let log: std::result::Result<(i64, i64, i64), sqlx::Error> =
            sqlx::query_as("PRAGMA wal_checkpoint(NOOP)")
                .fetch_one(&pool)
                .await;
        match log {
            Ok((_, frames, copied)) if frames - copied <= CHECKPOINT_FRAMES => continue,
            // A closed pool ends the task; another error leaves the
            // decision to the checkpoint, which fails alike or copies.
            Err(_) if pool.is_closed() => return,
            _ => {}
        }
        // A failed checkpoint leaves more to the next one.
        if sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
            .execute(&pool)
            .await
            .is_err()
            && pool.is_closed()
        {
            return;
        }
    }
}

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A registered account already has this name (in any case).
    #[error("the name is taken")]
    NameTaken,
    #[error("unsupported database address {0:?}: use postgres://... or sqlite:...")]
    BadUrl(String),
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("stored data is not valid: {0}")]
    Corrupt(String),
    /// From the journal's own SQLite connection (see [`JournalWriter`]).
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A batch named an epoch of these rooms that is no longer theirs: each
    /// was opened again since, here or on another node, and its writes
    /// belong to that opening alone. Nothing of the batch was stored.
    #[error("rooms {0:?} were opened again under a newer epoch; their old owner may not write")]
    Fenced(Vec<String>),
    /// A write made under a lease (see [`LeaseFence`]) whose epoch is no
    /// longer the latest: another node took the lease since. Nothing of it
    /// was stored.
    #[error("the lease {0:?} was taken by another holder since; its earlier holder may not write")]
    LeaseLost(String),
}

impl StoreError {
    /// Whether the same request may succeed later: the database was
    /// unreachable, busy or failing, rather than refusing the data itself
    /// (a constraint, a value of the wrong type or size), which no retry
    /// can change.
    pub fn is_transient(&self) -> bool {
        match self {
            StoreError::Database(sqlx::Error::Database(error)) => {
                use sqlx::error::ErrorKind;
                if !matches!(error.kind(), ErrorKind::Other) {
                    // A unique, foreign key, not-null or check violation.
                    return false;
                }
                let code = error.code().unwrap_or_default();
                if code.len() == 5 {
                    // A Postgres SQLSTATE: class 22 is a data exception,
                    // class 23 an integrity violation.
                    !(code.starts_with("22") || code.starts_with("23"))
                } else {
                    // An SQLite result code, whose low byte is the primary
                    // code.
                    code.parse::<i32>()
                        .map_or(true, |code| !refuses_data(code & 0xff))
                }
            }
            StoreError::Database(_) => true,
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(error, _)) => {
                !refuses_data(error.extended_code & 0xff)
            }
            StoreError::Sqlite(_) => false,
            StoreError::NameTaken
            | StoreError::BadUrl(_)
            | StoreError::Migrate(_)
            | StoreError::Corrupt(_)
            | StoreError::Fenced(_)
            | StoreError::LeaseLost(_) => false,
        }
    }
}

/// Whether a primary SQLite result code says that the data was refused:
/// a constraint (19), a value too big (18) or of the wrong type (20).
fn refuses_data(primary: i32) -> bool {
    matches!(primary, 18..=20)
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// The account of the server's basic bots, made by a migration.
pub const BASIC_BOT_ACCOUNT: Uuid = Uuid::from_u128(0x0000_0000_0000_4000_8000_0000_0000_b001);

/// The account of the server's strong bots, made by a migration.
pub const STRONG_BOT_ACCOUNT: Uuid = Uuid::from_u128(0x0000_0000_0000_4000_8000_0000_0000_b002);

/// The account of the server's beginner bots, made by a migration.
pub const BEGINNER_BOT_ACCOUNT: Uuid = Uuid::from_u128(0x0000_0000_0000_4000_8000_0000_0000_b003);

/// The account of the server's expert bots, made by a migration.
pub const EXPERT_BOT_ACCOUNT: Uuid = Uuid::from_u128(0x0000_0000_0000_4000_8000_0000_0000_b004);

/// The connection settings of a Postgres store at `url`.
///
/// Its sessions plan each prepared statement once (`plan_cache_mode =
/// force_generic_plan`). The journal binds its rows as arrays, and from
/// an array's length Postgres estimates a plan for each batch that looks
/// cheaper than the shared one, so by default it planned the journal's
/// statements and their foreign-key checks again at every batch: a tenth
/// of its CPU time at 3,000 tables. The store's statements look rows up
/// by key, where one plan serves every value.
fn postgres_options(url: &str) -> Result<PgConnectOptions> {
    Ok(PgConnectOptions::from_str(url)?.options([("plan_cache_mode", "force_generic_plan")]))
}

impl Store {
    /// Opens the store at `url`: `postgres://...` or `sqlite:PATH` (the file
    /// is created if missing).
    pub async fn open(url: &str) -> Result<Store> {
        let (pool, journal) = if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            let options = postgres_options(url)?;
            // A short acquire timeout lets the journal notice a database
            // that went away instead of hanging on it.
            let pool = PgPoolOptions::new()
                .max_connections(8)
                .acquire_timeout(Duration::from_secs(3))
                .connect_with(options)
                .await?;
            (Pool::Postgres(pool.clone()), Pool::Postgres(pool))
        } else if url.starts_with("sqlite:") {
            let options = SqliteConnectOptions::from_str(url)?
                .create_if_missing(true)
                .foreign_keys(true)
                // With write-ahead logging, a committed transaction survives
                // the process being killed; `NORMAL` skips the fsync per
                // commit that only a power cut would need.
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                // SQLite copies its log into the database (a checkpoint)
                // in the commit that fills the log past this many pages;
                // `checkpoint_regularly` does most of that work beforehand.
                // Hot pages are written to the log at every commit that
                // changes them and copied once per checkpoint, so a longer
                // log (40 MiB instead of the default 4) copies each of them
                // less often.
                .pragma("wal_autocheckpoint", "10000")
                .busy_timeout(Duration::from_secs(5));
            // A pool pings a connection before lending it out unless told
            // not to; for SQLite that is a round trip to the connection's
            // thread which can only find a local file still open, and it
            // would double the thread hand-offs of every journal commit.
            let pool = SqlitePoolOptions::new()
                .max_connections(4)
                .test_before_acquire(false)
                .connect_with(options.clone())
                .await?;
            let file = options.get_filename().to_path_buf();
            let journal = SqlitePoolOptions::new()
                .max_connections(1)
                .min_connections(1)
                .test_before_acquire(false)
                .connect_with(options)
                .await?;
            let (alive, dropped) = tokio::sync::oneshot::channel();
            tokio::spawn(checkpoint_regularly(pool.clone(), dropped));
            return Ok(Store {
                pool: Pool::Sqlite(pool),
                journal: Pool::Sqlite(journal),
                sqlite_file: Some(file),
                _checkpoints: Some(Arc::new(alive)),
            });
        } else {
            return Err(StoreError::BadUrl(url.to_string()));
        };
        Ok(Store {
            pool,
            journal,
            sqlite_file: None,
            _checkpoints: None,
        })
    }

    pub fn backend(&self) -> Backend {
        match self.pool {
            Pool::Postgres(_) => Backend::Postgres,
            Pool::Sqlite(_) => Backend::Sqlite,
        }
    }

    /// How many connections the main pool holds, and how many of them are
    /// idle, for the server's metrics.
    pub fn pool_status(&self) -> PoolStatus {
        on_pool!(self, pool => PoolStatus {
            size: pool.size(),
            idle: pool.num_idle(),
        })
    }

    /// Applies the migrations this build carries that the database lacks.
    pub async fn migrate(&self) -> Result<()> {
        match &self.pool {
            Pool::Postgres(pool) => sqlx::migrate!("../../migrations/postgres").run(pool).await?,
            Pool::Sqlite(pool) => sqlx::migrate!("../../migrations/sqlite").run(pool).await?,
        }
        Ok(())
    }

    /// Closes the pool, waiting for connections in use.
    pub async fn close(&self) {
        on_pool!(@ &self.journal, pool => pool.close().await);
        on_pool!(self, pool => pool.close().await)
    }

    /// Creates a Postgres database (for tests and setup). The name must be a
    /// plain identifier.
    pub async fn create_database(&self, name: &str) -> Result<()> {
        self.database_command("CREATE DATABASE", name).await
    }

    /// Drops a Postgres database if it exists.
    pub async fn drop_database(&self, name: &str) -> Result<()> {
        self.database_command("DROP DATABASE IF EXISTS", name).await
    }

    async fn database_command(&self, command: &str, name: &str) -> Result<()> {
        let plain = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        let Pool::Postgres(pool) = &self.pool else {
            return Err(StoreError::BadUrl(
                "databases are created on Postgres only".into(),
            ));
        };
        if !plain {
            return Err(StoreError::Corrupt(format!(
                "{name:?} is not a plain database name"
            )));
        }
        // The name was checked to be a plain identifier just above.
        let sql = sqlx::AssertSqlSafe(format!("{command} {name}"));
        sqlx::query(sql).execute(pool).await?;
        Ok(())
    }

    /// Checks that the database answers.
    pub async fn ping(&self) -> Result<()> {
        on_pool!(self, pool => {
            sqlx::query("SELECT 1").execute(pool).await?;
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::postgres_options;

    #[test]
    fn postgres_sessions_plan_each_statement_once() {
        let options =
            postgres_options("postgres://spades@db.example:5432/spades?options=-c%20statement_timeout%3D5s")
                .expect("a valid address");
        let settings = options.get_options().expect("the sessions have settings");
        assert!(
            settings.contains("plan_cache_mode=force_generic_plan"),
            "{settings}"
        );
        // Settings given in the address are kept beside it.
        assert!(settings.contains("statement_timeout=5s"), "{settings}");
    }
}
