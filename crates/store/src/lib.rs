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
//! batch's actions ([`InsertActions`]), where each backend has its own
//! fastest form, and the [`JournalWriter`], which on SQLite stores the
//! common batches on a connection of its own, outside sqlx, through a log
//! of actions that the reading of a game's actions takes into account.

mod rating;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::types::Json;
use time::OffsetDateTime;
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

mod journal;
mod tournament;

pub use journal::JournalWriter;

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

/// How often an SQLite store copies its log into the database beside the
/// journal's commits.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);

/// Copies the write-ahead log of an SQLite store into the database file
/// every `CHECKPOINT_EVERY`, on a connection of the pool, until the pool
/// is closed or the last clone of the store is dropped.
///
/// SQLite checkpoints inside the commit that fills the log past its
/// threshold, and the checkpoint ends with an fsync of everything it
/// copied: a journal commit that players wait for would stall for as long
/// (tens of milliseconds on this kind of disk). A passive checkpoint here
/// waits for nobody and lets the journal go on writing, so that when the
/// journal's own checkpoint comes, little is left to copy and sync. The
/// journal's checkpoint is still needed: only it starts the log from the
/// beginning again, since new commits keep arriving while this one runs.
async fn checkpoint_regularly(pool: SqlitePool, mut dropped: tokio::sync::oneshot::Receiver<()>) {
    let mut tick = tokio::time::interval(CHECKPOINT_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = &mut dropped => return,
            _ = tick.tick() => {}
        }
        // A failed checkpoint leaves more to the next one; a closed pool
        // ends the task.
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
            | StoreError::Corrupt(_) => false,
        }
    }
}

/// Whether a primary SQLite result code says that the data was refused:
/// a constraint (19), a value too big (18) or of the wrong type (20).
fn refuses_data(primary: i32) -> bool {
    matches!(primary, 18..=20)
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// One action row of a journal batch, ready to bind.
struct ActionRow<'a> {
    game: Uuid,
    index: i32,
    seat: i16,
    action: &'a str,
    request_id: Option<&'a str>,
    room_seq: i64,
}

/// How each backend stores a batch of actions inside a transaction. The
/// actions are most of what the journal writes, so this is the one place
/// where the backends run different SQL.
trait InsertActions: sqlx::Database {
    async fn insert_actions<'e, E>(executor: E, rows: &[ActionRow<'_>]) -> Result<()>
    where
        E: sqlx::Executor<'e, Database = Self>;
}

impl InsertActions for sqlx::Postgres {
    /// One statement for the whole batch, whatever its size: the columns go
    /// as arrays, so the statement text never changes and stays prepared.
    async fn insert_actions<'e, E>(executor: E, rows: &[ActionRow<'_>]) -> Result<()>
    where
        E: sqlx::Executor<'e, Database = Self>,
    {
        let games: Vec<Uuid> = rows.iter().map(|row| row.game).collect();
        let indexes: Vec<i32> = rows.iter().map(|row| row.index).collect();
        let seats: Vec<i16> = rows.iter().map(|row| row.seat).collect();
        let actions: Vec<&str> = rows.iter().map(|row| row.action).collect();
        let requests: Vec<Option<&str>> = rows.iter().map(|row| row.request_id).collect();
        let room_seqs: Vec<i64> = rows.iter().map(|row| row.room_seq).collect();
        sqlx::query(
            "INSERT INTO game_actions (game_id, idx, seat, action, request_id, room_seq) \
             SELECT * FROM UNNEST($1::uuid[], $2::integer[], $3::smallint[], $4::text[], $5::text[], \
             $6::bigint[]) ON CONFLICT (game_id, idx) DO NOTHING",
        )
        .bind(games)
        .bind(indexes)
        .bind(seats)
        .bind(actions)
        .bind(requests)
        .bind(room_seqs)
        .execute(executor)
        .await?;
        Ok(())
    }
}

impl InsertActions for sqlx::Sqlite {
    /// SQLite runs each statement on the connection's own thread, so every
    /// statement costs two thread wake-ups: the batch goes as one JSON
    /// array that SQLite unpacks itself, in one fixed statement.
    async fn insert_actions<'e, E>(executor: E, rows: &[ActionRow<'_>]) -> Result<()>
    where
        E: sqlx::Executor<'e, Database = Self>,
    {
        type Row<'a> = (String, i32, i16, &'a str, Option<&'a str>, i64);
        let batch: Vec<Row<'_>> = rows
            .iter()
            .map(|row| {
                let game = row.game.simple().to_string();
                (
                    game,
                    row.index,
                    row.seat,
                    row.action,
                    row.request_id,
                    row.room_seq,
                )
            })
            .collect();
        let batch = serde_json::to_string(&batch).map_err(|error| StoreError::Corrupt(error.to_string()))?;
        sqlx::query(
            "INSERT INTO game_actions (game_id, idx, seat, action, request_id, room_seq) \
             SELECT unhex(value ->> 0), value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5 \
             FROM json_each($1) WHERE true ON CONFLICT (game_id, idx) DO NOTHING",
        )
        .bind(batch)
        .execute(executor)
        .await?;
        Ok(())
    }
}

/// The action writes of a batch, in order, as rows to bind.
fn action_rows(writes: &[Write]) -> Vec<ActionRow<'_>> {
    writes.iter().filter_map(Write::action_row).collect()
}

impl Write {
    /// An action write as the row both backends and the journal's SQLite
    /// connection bind, so that every path stores an action's columns
    /// with the same types; `None` for any other write.
    fn action_row(&self) -> Option<ActionRow<'_>> {
        match self {
            Write::Action {
                game,
                index,
                seat,
                action,
                request_id,
                room_seq,
            } => Some(ActionRow {
                game: *game,
                index: *index as i32,
                seat: i16::from(*seat),
                action,
                request_id: request_id.as_deref(),
                room_seq: *room_seq as i64,
            }),
            _ => None,
        }
    }
}

/// The account of the server's basic bots, made by a migration.
pub const BASIC_BOT_ACCOUNT: Uuid = Uuid::from_u128(0x0000_0000_0000_4000_8000_0000_0000_b001);

/// The account of the server's strong bots, made by a migration.
pub const STRONG_BOT_ACCOUNT: Uuid = Uuid::from_u128(0x0000_0000_0000_4000_8000_0000_0000_b002);

/// The unique index on registered names (see the migrations).
const NAME_INDEX: &str = "accounts_registered_name";

/// Whether an error is a violation of the unique index on registered names.
fn is_name_conflict(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Database(db) => {
            // Postgres names the constraint; SQLite names the index in its message.
            db.is_unique_violation()
                && (db.constraint() == Some(NAME_INDEX) || db.message().contains(NAME_INDEX))
        }
        _ => false,
    }
}

/// An account as the server needs it.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Account {
    pub id: Uuid,
    pub name: String,
    pub registered: bool,
    pub password_hash: Option<String>,
    pub is_admin: bool,
    pub can_organize: bool,
}

/// What anyone may read about a player.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Profile {
    pub id: Uuid,
    pub name: String,
    pub registered: bool,
    pub created_at: OffsetDateTime,
    pub rating: f64,
    pub rating_deviation: f64,
    pub games_played: i32,
    pub games_won: i32,
    pub games_abandoned: i32,
    /// Hands in which the player bid a number and his team made its contract.
    pub bids_made: i32,
    /// Hands in which the player bid a number.
    pub bids_total: i32,
    pub nils_made: i32,
    pub nils_tried: i32,
}

/// A game as it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct NewGame {
    pub id: Uuid,
    pub room: String,
    pub room_name: String,
    pub private: bool,
    pub owner: Uuid,
    /// The game's number in its room.
    pub number: u32,
    pub rules: serde_json::Value,
    pub seed: u64,
    /// The players' accounts in seat order, one per seat of the game.
    pub players: Vec<Uuid>,
    pub started_at: OffsetDateTime,
    /// The tournament table the game is played at, if any.
    pub tournament: Option<TableLink>,
}

/// One player's counts over a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlayerStats {
    pub bids_made: u32,
    pub bids_total: u32,
    pub nils_made: u32,
    pub nils_tried: u32,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq)]
pub struct FinishedGame {
    pub id: Uuid,
    /// The winning team; `None` when the game was abandoned.
    pub winner: Option<u8>,
    /// One final score per team: two with partners, four in solo.
    pub score: Vec<i32>,
    /// Whether the game was played by partners (two teams) or solo (four
    /// teams of one, numbered as their seats).
    pub partners: bool,
    /// Seats whose players were gone for good when the game ended: a loss
    /// for them whatever their team did.
    pub abandoned: [bool; 4],
    pub stats: [PlayerStats; 4],
    pub finished_at: OffsetDateTime,
    /// The tournament table the game was played at: its result is stored
    /// with the game's.
    pub tournament: Option<TableLink>,
}

impl FinishedGame {
    /// The team a seat played for.
    pub fn team_of(&self, seat: usize) -> u8 {
        if self.partners {
            (seat % 2) as u8
        } else {
            seat as u8
        }
    }

    /// The result as the ratings need it.
    pub fn outcome(&self) -> Finish<'_> {
        match <&[i32; 4]>::try_from(self.score.as_slice()) {
            Ok(score) if !self.partners => Finish::Solo {
                winner: self.winner,
                score,
            },
            _ => Finish::Partners { winner: self.winner },
        }
    }
}

/// One write of the game journal.
#[derive(Clone, Debug, PartialEq)]
pub enum Write {
    Started(NewGame),
    Action {
        game: Uuid,
        index: u32,
        seat: u8,
        action: String,
        /// The id the player gave the request, as its JSON; `None` for an
        /// action the server made for him.
        request_id: Option<String>,
        /// The room's last event after the action.
        room_seq: u64,
    },
    /// The room may number its events up to `seq` (see [`Store::open_room`]).
    RoomSeq {
        room: String,
        seq: u64,
    },
    Hand {
        game: Uuid,
        hand: u32,
        record: serde_json::Value,
    },
    Finished(FinishedGame),
}

/// A game as stored, for a list or a summary.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct GameSummary {
    pub id: Uuid,
    pub room: String,
    pub room_name: String,
    pub private: bool,
    pub number: i32,
    pub status: String,
    pub started_at: OffsetDateTime,
    pub finished_at: Option<OffsetDateTime>,
    pub winner: Option<i16>,
    pub score0: Option<i32>,
    pub score1: Option<i32>,
    /// The third and fourth players' scores of a game without partners
    /// (the fourth absent with three players).
    pub score2: Option<i32>,
    pub score3: Option<i32>,
}

impl GameSummary {
    /// The final scores, one per team; `None` while the game is played.
    pub fn scores(&self) -> Option<Vec<i32>> {
        let two = [self.score0?, self.score1?];
        match (self.score2, self.score3) {
            (Some(third), Some(fourth)) => Some(vec![two[0], two[1], third, fourth]),
            (Some(third), None) => Some(vec![two[0], two[1], third]),
            _ => Some(two.to_vec()),
        }
    }
}

/// A seat of a stored game.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct GamePlayer {
    pub seat: i16,
    pub account_id: Uuid,
    pub name: String,
    pub abandoned: bool,
}

/// An action of a stored game.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredAction {
    pub seat: u8,
    pub action: String,
    /// The id the player gave the request, as its JSON, if a player sent it.
    pub request_id: Option<String>,
    /// The room's last event after the action, where it was stored.
    pub room_seq: Option<u64>,
}

/// Where a room's event numbers start when it opens, and how far it may
/// go before it must store a higher mark (see [`Store::open_room`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoomSeqs {
    /// The number before the room's first event in this opening: higher
    /// than any event it had before.
    pub base: u64,
    /// The highest number the room may give an event before it stores a
    /// new mark.
    pub reserved: u64,
}

/// Everything needed to resume a game: its room, rules, seed, players and
/// every action so far.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredGame {
    pub summary: GameSummary,
    pub owner: Uuid,
    pub rules: serde_json::Value,
    pub seed: u64,
    pub players: Vec<GamePlayer>,
    pub actions: Vec<StoredAction>,
    /// The tournament table the game is played at, if any.
    pub tournament: Option<TableLink>,
}

#[derive(sqlx::FromRow)]
struct GameDetails {
    owner_id: Uuid,
    rules: Json<serde_json::Value>,
    seed: i64,
}

#[derive(sqlx::FromRow)]
struct RatingRow {
    registered: bool,
    rating: f64,
    rating_deviation: f64,
    rating_volatility: f64,
}

// Column lists shared by several queries. They are macros so that each
// query stays one string literal, which sqlx accepts as safe SQL.
macro_rules! account_columns {
    () => {
        "id, name, registered, password_hash, is_admin, can_organize"
    };
}
macro_rules! profile_columns {
    () => {
        "id, name, registered, created_at, rating, rating_deviation, games_played, games_won, \
         games_abandoned, bids_made, bids_total, nils_made, nils_tried"
    };
}
macro_rules! game_columns {
    () => {
        "id, room, room_name, private, number, status, started_at, finished_at, winner, score0, score1, score2, score3"
    };
}

impl Store {
    /// Opens the store at `url`: `postgres://...` or `sqlite:PATH` (the file
    /// is created if missing).
    pub async fn open(url: &str) -> Result<Store> {
        let (pool, journal) = if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            let options = PgConnectOptions::from_str(url)?;
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

    // Accounts.

    /// Creates an account: a guest without a password, or a registered
    /// player with one.
    pub async fn create_account(
        &self,
        id: Uuid,
        name: &str,
        password_hash: Option<&str>,
        now: OffsetDateTime,
    ) -> Result<()> {
        let sql = "INSERT INTO accounts (id, name, password_hash, registered, created_at) VALUES ($1, $2, $3, $4, $5)";
        let result = on_pool!(self, pool => sqlx::query(sql)
            .bind(id)
            .bind(name)
            .bind(password_hash)
            .bind(password_hash.is_some())
            .bind(now)
            .execute(pool)
            .await
            .map(|_| ()));
        result.map_err(|error| {
            if is_name_conflict(&error) {
                StoreError::NameTaken
            } else {
                error.into()
            }
        })
    }

    pub async fn account(&self, id: Uuid) -> Result<Option<Account>> {
        let sql = concat!("SELECT ", account_columns!(), " FROM accounts WHERE id = $1");
        Ok(on_pool!(self, pool => sqlx::query_as::<_, Account>(sql).bind(id).fetch_optional(pool).await?))
    }

    /// The registered account with this name, in any case.
    pub async fn registered_account(&self, name: &str) -> Result<Option<Account>> {
        let sql = concat!(
            "SELECT ",
            account_columns!(),
            " FROM accounts WHERE registered AND lower(name) = lower($1)"
        );
        Ok(on_pool!(self, pool => sqlx::query_as::<_, Account>(sql).bind(name).fetch_optional(pool).await?))
    }

    /// Turns a guest into a registered player under his current name.
    pub async fn claim(&self, id: Uuid, password_hash: &str) -> Result<bool> {
        let sql =
            "UPDATE accounts SET password_hash = $1, registered = true WHERE id = $2 AND NOT registered";
        let result = on_pool!(self, pool => sqlx::query(sql).bind(password_hash).bind(id).execute(pool).await
            .map(|done| done.rows_affected()));
        match result {
            Ok(rows) => Ok(rows == 1),
            Err(error) if is_name_conflict(&error) => Err(StoreError::NameTaken),
            Err(error) => Err(error.into()),
        }
    }

    /// Gives or takes an account's permissions.
    pub async fn set_permissions(&self, id: Uuid, is_admin: bool, can_organize: bool) -> Result<bool> {
        let sql = "UPDATE accounts SET is_admin = $1, can_organize = $2 WHERE id = $3";
        let rows = on_pool!(self, pool => sqlx::query(sql).bind(is_admin).bind(can_organize).bind(id)
            .execute(pool).await?.rows_affected());
        Ok(rows == 1)
    }

    /// Makes a registered account the administrator if the server has none
    /// yet; true if it did. One statement, so that of two accounts
    /// registered at the same moment on a new server at least one is made
    /// administrator.
    pub async fn make_first_admin(&self, id: Uuid) -> Result<bool> {
        let sql = "UPDATE accounts SET is_admin = true, can_organize = true \
                   WHERE id = $1 AND registered AND NOT EXISTS (SELECT 1 FROM accounts WHERE is_admin)";
        let rows = on_pool!(self, pool => sqlx::query(sql).bind(id).execute(pool).await?.rows_affected());
        Ok(rows == 1)
    }

    /// How many registered accounts exist.
    pub async fn registered_count(&self) -> Result<i64> {
        let sql = "SELECT count(*) FROM accounts WHERE registered";
        Ok(on_pool!(self, pool => sqlx::query_scalar::<_, i64>(sql).fetch_one(pool).await?))
    }

    // Sessions.

    pub async fn create_session(
        &self,
        token_hash: &[u8; 32],
        account: Uuid,
        now: OffsetDateTime,
        expires_at: OffsetDateTime,
    ) -> Result<()> {
        let sql =
            "INSERT INTO sessions (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)";
        on_pool!(self, pool => {
            sqlx::query(sql).bind(&token_hash[..]).bind(account).bind(now).bind(expires_at).execute(pool).await?;
        });
        Ok(())
    }

    /// The account of a session that has neither expired nor been revoked.
    pub async fn session_account(
        &self,
        token_hash: &[u8; 32],
        now: OffsetDateTime,
    ) -> Result<Option<Account>> {
        Ok(self.session(token_hash, now).await?.map(|(account, _)| account))
    }

    /// The account of a session that has neither expired nor been revoked,
    /// and when the session expires.
    pub async fn session(
        &self,
        token_hash: &[u8; 32],
        now: OffsetDateTime,
    ) -> Result<Option<(Account, OffsetDateTime)>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            #[sqlx(flatten)]
            account: Account,
            expires_at: OffsetDateTime,
        }
        let sql = "SELECT a.id, a.name, a.registered, a.password_hash, a.is_admin, a.can_organize, \
             s.expires_at FROM sessions s JOIN accounts a ON a.id = s.account_id \
             WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > $2";
        let row = on_pool!(self, pool => sqlx::query_as::<_, Row>(sql).bind(&token_hash[..]).bind(now)
            .fetch_optional(pool).await?);
        Ok(row.map(|row| (row.account, row.expires_at)))
    }

    pub async fn revoke_session(&self, token_hash: &[u8; 32], now: OffsetDateTime) -> Result<bool> {
        let sql = "UPDATE sessions SET revoked_at = $1 WHERE token_hash = $2 AND revoked_at IS NULL";
        let rows = on_pool!(self, pool => sqlx::query(sql).bind(now).bind(&token_hash[..]).execute(pool).await?
            .rows_affected());
        Ok(rows == 1)
    }

    /// Revokes every session of an account (after a password is set).
    pub async fn revoke_sessions_of(&self, account: Uuid, now: OffsetDateTime) -> Result<()> {
        let sql = "UPDATE sessions SET revoked_at = $1 WHERE account_id = $2 AND revoked_at IS NULL";
        on_pool!(self, pool => {
            sqlx::query(sql).bind(now).bind(account).execute(pool).await?;
        });
        Ok(())
    }

    // Profiles and the leaderboard.

    pub async fn profile(&self, id: Uuid) -> Result<Option<Profile>> {
        let sql = concat!("SELECT ", profile_columns!(), " FROM accounts WHERE id = $1");
        Ok(on_pool!(self, pool => sqlx::query_as::<_, Profile>(sql).bind(id).fetch_optional(pool).await?))
    }

    /// Registered players by rating, best first, and how many there are.
    pub async fn leaderboard(&self, offset: u32, limit: u32) -> Result<(Vec<Profile>, i64)> {
        let sql = concat!(
            "SELECT ",
            profile_columns!(),
            " FROM accounts WHERE registered ORDER BY rating DESC, id LIMIT $1 OFFSET $2"
        );
        let page = on_pool!(self, pool => sqlx::query_as::<_, Profile>(sql)
            .bind(i64::from(limit)).bind(i64::from(offset)).fetch_all(pool).await?);
        Ok((page, self.registered_count().await?))
    }

    // Games.

    /// Applies a batch of journal writes in one transaction: either all of
    /// them are stored or none is.
    pub async fn write(&self, writes: &[Write]) -> Result<()> {
        let actions_only = writes.iter().all(|write| matches!(write, Write::Action { .. }));
        if actions_only && !writes.is_empty() {
            // Most batches are a few actions: one statement, which is atomic
            // on its own, saves the round trips of a transaction.
            let rows = action_rows(writes);
            on_pool!(@ &self.journal, pool => InsertActions::insert_actions(pool, &rows).await?);
            return Ok(());
        }
        on_pool!(@ &self.journal, pool => {
            let mut tx = pool.begin().await?;
            // New games first, so that the actions and hands of a game that
            // starts in this batch find their parent row; then every action
            // of the batch in one statement; then hands and endings, in order.
            for write in writes {
                if let Write::Started(game) = write {
                    sqlx::query(
                        "INSERT INTO games (id, room, room_name, private, owner_id, number, rules, seed, status, started_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'playing', $9) ON CONFLICT (id) DO NOTHING",
                    )
                    .bind(game.id)
                    .bind(&game.room)
                    .bind(&game.room_name)
                    .bind(game.private)
                    .bind(game.owner)
                    .bind(game.number as i32)
                    .bind(Json(&game.rules))
                    .bind(game.seed as i64)
                    .bind(game.started_at)
                    .execute(&mut *tx)
                    .await?;
                    for (seat, player) in game.players.iter().enumerate() {
                        sqlx::query(
                            "INSERT INTO game_players (game_id, seat, account_id) VALUES ($1, $2, $3) \
                             ON CONFLICT (game_id, seat) DO NOTHING",
                        )
                        .bind(game.id)
                        .bind(seat as i16)
                        .bind(player)
                        .execute(&mut *tx)
                        .await?;
                    }
                    if let Some(link) = &game.tournament {
                        sqlx::query(
                            "UPDATE tournament_tables SET game_id = $1, status = 'playing' \
                             WHERE tournament_id = $2 AND stage = $3 AND table_no = $4 AND status = 'pending'",
                        )
                        .bind(game.id)
                        .bind(link.tournament)
                        .bind(link.stage as i32)
                        .bind(link.table as i32)
                        .execute(&mut *tx)
                        .await?;
                    }
                }
            }
            let actions = action_rows(writes);
            if !actions.is_empty() {
                InsertActions::insert_actions(&mut *tx, &actions).await?;
            }
            for write in writes {
                match write {
                    // Stored above.
                    Write::Started(_) | Write::Action { .. } => {}
                    Write::RoomSeq { room, seq } => {
                        sqlx::query("UPDATE rooms SET seq = $1 WHERE code = $2 AND seq < $1")
                            .bind(*seq as i64)
                            .bind(room)
                            .execute(&mut *tx)
                            .await?;
                    }
                    Write::Hand { game, hand, record } => {
                        sqlx::query(
                            "INSERT INTO hands (game_id, hand, record) VALUES ($1, $2, $3) \
                             ON CONFLICT (game_id, hand) DO NOTHING",
                        )
                        .bind(game)
                        .bind(*hand as i32)
                        .bind(Json(record))
                        .execute(&mut *tx)
                        .await?;
                    }
                    Write::Finished(end) => {
                        let status = if end.winner.is_some() { "finished" } else { "abandoned" };
                        let updated = sqlx::query(
                            "UPDATE games SET status = $1, finished_at = $2, winner = $3, score0 = $4, score1 = $5, \
                             score2 = $6, score3 = $7 WHERE id = $8 AND status = 'playing'",
                        )
                        .bind(status)
                        .bind(end.finished_at)
                        .bind(end.winner.map(i16::from))
                        .bind(end.score.first().copied())
                        .bind(end.score.get(1).copied())
                        .bind(end.score.get(2).copied())
                        .bind(end.score.get(3).copied())
                        .bind(end.id)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                        if updated == 0 {
                            // Already finished: a retry of a batch that was stored.
                            continue;
                        }
                        if let (Some(_), Some(winner)) = (&end.tournament, end.winner) {
                            sqlx::query(
                                "UPDATE tournament_tables SET status = 'finished', winner = $1, score0 = $2, \
                                 score1 = $3 WHERE game_id = $4",
                            )
                            .bind(i16::from(winner))
                            .bind(end.score.first().copied())
                            .bind(end.score.get(1).copied())
                            .bind(end.id)
                            .execute(&mut *tx)
                            .await?;
                        }
                        let players: Vec<(i16, Uuid)> =
                            sqlx::query_as("SELECT seat, account_id FROM game_players WHERE game_id = $1 ORDER BY seat")
                                .bind(end.id)
                                .fetch_all(&mut *tx)
                                .await?;
                        let mut ratings = Vec::with_capacity(4);
                        for (seat, account) in &players {
                            let row: RatingRow = sqlx::query_as(
                                "SELECT registered, rating, rating_deviation, rating_volatility FROM accounts WHERE id = $1",
                            )
                            .bind(account)
                            .fetch_one(&mut *tx)
                            .await?;
                            ratings.push((*seat, *account, row));
                        }
                        let all_registered = ratings.len() == 4 && ratings.iter().all(|(_, _, row)| row.registered);
                        let updated_ratings = if all_registered {
                            let current: [Rating; 4] = std::array::from_fn(|i| Rating {
                                rating: ratings[i].2.rating,
                                deviation: ratings[i].2.rating_deviation,
                                volatility: ratings[i].2.rating_volatility,
                            });
                            Some(rate_game(&current, &end.outcome(), &end.abandoned))
                        } else {
                            None
                        };
                        for (i, (seat, account, row)) in ratings.iter().enumerate() {
                            let seat = *seat as usize;
                            let won = !end.abandoned[seat] && end.winner == Some(end.team_of(seat));
                            let stats = end.stats[seat];
                            let new = updated_ratings.map(|r| r[i]).unwrap_or(Rating {
                                rating: row.rating,
                                deviation: row.rating_deviation,
                                volatility: row.rating_volatility,
                            });
                            sqlx::query(
                                "UPDATE accounts SET games_played = games_played + 1, games_won = games_won + $1, \
                                 games_abandoned = games_abandoned + $2, bids_made = bids_made + $3, \
                                 bids_total = bids_total + $4, nils_made = nils_made + $5, nils_tried = nils_tried + $6, \
                                 rating = $7, rating_deviation = $8, rating_volatility = $9 WHERE id = $10",
                            )
                            .bind(i32::from(won))
                            .bind(i32::from(end.abandoned[seat]))
                            .bind(stats.bids_made as i32)
                            .bind(stats.bids_total as i32)
                            .bind(stats.nils_made as i32)
                            .bind(stats.nils_tried as i32)
                            .bind(new.rating)
                            .bind(new.deviation)
                            .bind(new.volatility)
                            .bind(account)
                            .execute(&mut *tx)
                            .await?;
                            sqlx::query("UPDATE game_players SET abandoned = $1 WHERE game_id = $2 AND seat = $3")
                                .bind(end.abandoned[seat])
                                .bind(end.id)
                                .bind(seat as i16)
                                .execute(&mut *tx)
                                .await?;
                        }
                    }
                }
            }
            tx.commit().await?;
        });
        Ok(())
    }

    // Rooms.

    /// Opens a room, new or again: returns the number its first event in
    /// this opening comes after, above every number it used before, and
    /// stores a mark `reserve` above that. The room must store a higher
    /// mark ([`Write::RoomSeq`]) before it sends an event numbered above
    /// the mark, so that the next opening starts above whatever it sent.
    /// A room that was never opened starts at 0.
    pub async fn open_room(&self, code: &str, reserve: u64) -> Result<RoomSeqs> {
        let sql = "INSERT INTO rooms (code, seq) VALUES ($1, $2) \
                   ON CONFLICT (code) DO UPDATE SET seq = rooms.seq + 1 + $2 RETURNING seq";
        let reserved: i64 = on_pool!(self, pool => sqlx::query_scalar(sql)
            .bind(code).bind(reserve as i64).fetch_one(pool).await?);
        let reserved = reserved as u64;
        Ok(RoomSeqs {
            base: reserved - reserve,
            reserved,
        })
    }

    /// Games that were being played when the server stopped, with all they
    /// need to be resumed.
    pub async fn unfinished_games(&self) -> Result<Vec<StoredGame>> {
        let sql = concat!(
            "SELECT ",
            game_columns!(),
            " FROM games WHERE status = 'playing' ORDER BY started_at"
        );
        let summaries = on_pool!(self, pool => sqlx::query_as::<_, GameSummary>(sql).fetch_all(pool).await?);
        let mut games = Vec::with_capacity(summaries.len());
        for summary in summaries {
            games.push(self.stored_game(summary).await?);
        }
        Ok(games)
    }

    /// The game being played in room `code`, if there is one.
    pub async fn unfinished_game_in_room(&self, code: &str) -> Result<Option<StoredGame>> {
        let sql = concat!(
            "SELECT ",
            game_columns!(),
            " FROM games WHERE status = 'playing' AND room = $1 ORDER BY started_at DESC LIMIT 1"
        );
        let summary = on_pool!(self, pool => sqlx::query_as::<_, GameSummary>(sql).bind(code).fetch_optional(pool).await?);
        match summary {
            Some(summary) => Ok(Some(self.stored_game(summary).await?)),
            None => Ok(None),
        }
    }

    /// Everything stored about one game.
    pub async fn game(&self, id: Uuid) -> Result<Option<StoredGame>> {
        let sql = concat!("SELECT ", game_columns!(), " FROM games WHERE id = $1");
        let summary = on_pool!(self, pool => sqlx::query_as::<_, GameSummary>(sql).bind(id).fetch_optional(pool).await?);
        match summary {
            Some(summary) => Ok(Some(self.stored_game(summary).await?)),
            None => Ok(None),
        }
    }

    async fn stored_game(&self, summary: GameSummary) -> Result<StoredGame> {
        let id = summary.id;
        let details = on_pool!(self, pool => sqlx::query_as::<_, GameDetails>(
            "SELECT owner_id, rules, seed FROM games WHERE id = $1").bind(id).fetch_one(pool).await?);
        let players = on_pool!(self, pool => sqlx::query_as::<_, GamePlayer>(
            "SELECT p.seat, p.account_id, a.name, p.abandoned FROM game_players p \
             JOIN accounts a ON a.id = p.account_id WHERE p.game_id = $1 ORDER BY p.seat")
            .bind(id).fetch_all(pool).await?);
        type Row = (i16, String, Option<String>, Option<i64>);
        let actions: Vec<Row> = match &self.pool {
            Pool::Postgres(pool) => {
                sqlx::query_as(
                    "SELECT seat, action, request_id, room_seq FROM game_actions WHERE game_id = $1 \
                     ORDER BY idx",
                )
                .bind(id)
                .fetch_all(pool)
                .await?
            }
            // The journal's latest actions may be in its log still, and an
            // action may be in both tables while it is being copied.
            Pool::Sqlite(pool) => {
                sqlx::query_as(
                    "SELECT seat, action, request_id, room_seq FROM (\
                     SELECT idx, seat, action, request_id, room_seq FROM game_actions WHERE game_id = $1 \
                     UNION SELECT idx, seat, action, request_id, room_seq FROM action_log \
                     WHERE game_id = $1) ORDER BY idx",
                )
                .bind(id)
                .fetch_all(pool)
                .await?
            }
        };
        let tournament = self.game_table(id).await?;
        Ok(StoredGame {
            tournament,
            summary,
            owner: details.owner_id,
            rules: details.rules.0,
            seed: details.seed as u64,
            players,
            actions: actions
                .into_iter()
                .map(|(seat, action, request_id, room_seq)| StoredAction {
                    seat: seat as u8,
                    action,
                    request_id,
                    room_seq: room_seq.map(|seq| seq as u64),
                })
                .collect(),
        })
    }

    /// The records of a game's finished hands, in order.
    pub async fn hands(&self, game: Uuid) -> Result<Vec<serde_json::Value>> {
        let sql = "SELECT record FROM hands WHERE game_id = $1 ORDER BY hand";
        let rows: Vec<Json<serde_json::Value>> =
            on_pool!(self, pool => sqlx::query_scalar(sql).bind(game).fetch_all(pool).await?);
        Ok(rows.into_iter().map(|record| record.0).collect())
    }

    /// A player's most recent games, newest first.
    pub async fn recent_games(&self, account: Uuid, limit: u32) -> Result<Vec<GameSummary>> {
        let sql = "SELECT g.id, g.room, g.room_name, g.private, g.number, g.status, g.started_at, g.finished_at, \
                   g.winner, g.score0, g.score1, g.score2, g.score3 FROM games g JOIN game_players p ON p.game_id = g.id \
                   WHERE p.account_id = $1 ORDER BY g.started_at DESC LIMIT $2";
        Ok(
            on_pool!(self, pool => sqlx::query_as::<_, GameSummary>(sql).bind(account).bind(i64::from(limit))
            .fetch_all(pool).await?),
        )
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
    use super::*;

    #[test]
    fn only_an_action_write_has_an_action_row() {
        let game = Uuid::from_u128(7);
        let action = Write::Action {
            game,
            index: 12,
            seat: 3,
            action: "play AS".into(),
            request_id: Some("\"r1\"".into()),
            room_seq: 40,
        };
        let row = action.action_row().expect("an action has a row");
        assert_eq!(
            (
                row.game,
                row.index,
                row.seat,
                row.action,
                row.request_id,
                row.room_seq
            ),
            (game, 12, 3, "play AS", Some("\"r1\""), 40)
        );
        let mark = Write::RoomSeq {
            room: "ABCDEF".into(),
            seq: 40,
        };
        assert!(mark.action_row().is_none());
        assert_eq!(action_rows(&[mark, action.clone(), action]).len(), 2);
    }
}
