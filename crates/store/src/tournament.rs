//! Tournaments: their settings, registrations, the tables of every stage
//! with their seats and results, standings and places.
//!
//! Everything the server needs to draw a bracket, or to carry a tournament
//! on after a restart, is here: the tables of a stage are written in one
//! transaction before any of them opens, and a table's result is written in
//! the transaction that finishes its game (see [`crate::Store::write`]).

use sqlx::types::Json;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::lease::{CheckLease, LeaseFence};
use crate::{Pool, Result, Store, StoreError};

/// Where a game sits in a tournament.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TableLink {
    pub tournament: Uuid,
    /// The knockout stage or Swiss round, from 0.
    pub stage: u32,
    /// The table's number within its stage, from 0.
    pub table: u32,
}

/// A tournament as the organiser creates it.
#[derive(Clone, Debug, PartialEq)]
pub struct NewTournament {
    pub id: Uuid,
    pub name: String,
    /// `knockout` or `swiss`.
    pub format: &'static str,
    pub organizer: Uuid,
    pub created_at: OffsetDateTime,
    /// `None`: it starts when full, or when an organiser starts it.
    pub starts_at: Option<OffsetDateTime>,
    pub max_players: u32,
    /// The number of Swiss rounds; `None` for a knockout.
    pub rounds: Option<u32>,
    pub rules: serde_json::Value,
    pub seed: u64,
}

/// A line of the tournament list.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct TournamentSummary {
    pub id: Uuid,
    pub name: String,
    pub format: String,
    pub status: String,
    pub organizer_id: Uuid,
    pub organizer_name: String,
    pub created_at: OffsetDateTime,
    pub starts_at: Option<OffsetDateTime>,
    pub started_at: Option<OffsetDateTime>,
    pub finished_at: Option<OffsetDateTime>,
    pub max_players: i32,
    pub rounds: Option<i32>,
    /// Entries registered so far, bots included.
    pub players: i64,
}

/// One entry of a tournament, with its standing.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Entrant {
    pub entry: i32,
    pub account_id: Uuid,
    pub name: String,
    pub bot: bool,
    pub points: i32,
    pub score_diff: i32,
    pub place: Option<i32>,
}

/// One table of a stage, as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredTable {
    pub table: u32,
    /// The entries in seats 0 to 3; seats 0 and 2 are team 0.
    pub seats: [u32; 4],
    pub room: String,
    pub game: Option<Uuid>,
    /// `pending` (not started yet), `playing` or `finished`.
    pub status: String,
    pub winner: Option<u8>,
    pub score: Option<[i32; 2]>,
}

/// The tables of one stage or round.
#[derive(Clone, Debug, PartialEq)]
pub struct Stage {
    pub stage: u32,
    pub tables: Vec<StoredTable>,
}

/// A whole tournament: enough to draw its bracket or standings.
#[derive(Clone, Debug, PartialEq)]
pub struct Tournament {
    pub summary: TournamentSummary,
    pub rules: serde_json::Value,
    pub seed: u64,
    pub entrants: Vec<Entrant>,
    pub stages: Vec<Stage>,
}

impl Tournament {
    pub fn stage(&self, stage: u32) -> Option<&Stage> {
        self.stages.iter().find(|s| s.stage == stage)
    }

    pub fn last_stage(&self) -> Option<&Stage> {
        self.stages.last()
    }

    pub fn entrant(&self, entry: u32) -> Option<&Entrant> {
        self.entrants.iter().find(|e| e.entry as u32 == entry)
    }
}

/// A tournament in a player's history.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct PlayedTournament {
    pub id: Uuid,
    pub name: String,
    pub format: String,
    pub status: String,
    pub started_at: Option<OffsetDateTime>,
    pub entry: i32,
    pub points: i32,
    pub score_diff: i32,
    pub place: Option<i32>,
}

/// A table about to be opened.
#[derive(Clone, Debug, PartialEq)]
pub struct NewTable {
    pub table: u32,
    pub seats: [u32; 4],
    pub room: String,
}

/// What one step of a tournament writes, all in one transaction: a new
/// status, the tables of the next stage, and standings and places.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Step {
    /// `running` (the start) or `finished`.
    pub status: Option<&'static str>,
    /// The tables of stage `stage`.
    pub stage: u32,
    pub tables: Vec<NewTable>,
    /// Entries and their points and score difference.
    pub standings: Vec<(u32, i32, i32)>,
    /// Entries and their final place.
    pub places: Vec<(u32, u32)>,
}

/// Why a registration was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Registration {
    Done { entry: u32 },
    AlreadyRegistered,
}

#[derive(sqlx::FromRow)]
struct TableRow {
    stage: i32,
    table_no: i32,
    seat0: i32,
    seat1: i32,
    seat2: i32,
    seat3: i32,
    room: String,
    game_id: Option<Uuid>,
    status: String,
    winner: Option<i16>,
    score0: Option<i32>,
    score1: Option<i32>,
}

macro_rules! summary_query {
    ($where:literal) => {
        concat!(
            "SELECT t.id, t.name, t.format, t.status, t.organizer_id, a.name AS organizer_name, t.created_at, \
             t.starts_at, t.started_at, t.finished_at, t.max_players, t.rounds, \
             (SELECT count(*) FROM tournament_players p WHERE p.tournament_id = t.id) AS players \
             FROM tournaments t JOIN accounts a ON a.id = t.organizer_id ",
            $where
        )
    };
}

fn unique_violation(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(db) if db.is_unique_violation())
}

impl Store {
    pub async fn create_tournament(&self, new: &NewTournament) -> Result<()> {
        let sql = "INSERT INTO tournaments (id, name, format, status, organizer_id, created_at, starts_at, \
                   max_players, rounds, rules, seed) VALUES ($1, $2, $3, 'open', $4, $5, $6, $7, $8, $9, $10)";
        on_pool!(self, pool => {
            sqlx::query(sql)
                .bind(new.id)
                .bind(&new.name)
                .bind(new.format)
                .bind(new.organizer)
                .bind(new.created_at)
                .bind(new.starts_at)
                .bind(new.max_players as i32)
                .bind(new.rounds.map(|r| r as i32))
                .bind(Json(&new.rules))
                .bind(new.seed as i64)
                .execute(pool)
                .await?;
        });
        Ok(())
    }

    /// Tournaments whose status is one of `statuses` (at most four: there
    /// are four), newest first.
    pub async fn tournaments(&self, statuses: &[&str], limit: u32) -> Result<Vec<TournamentSummary>> {
        let Some(first) = statuses.first() else {
            return Ok(Vec::new());
        };
        // A fixed list of four, padded with the first status, keeps the
        // statement the same for every filter and both backends.
        let status = |i: usize| *statuses.get(i).unwrap_or(first);
        let sql = summary_query!("WHERE t.status IN ($1, $2, $3, $4) ORDER BY t.created_at DESC LIMIT $5");
        Ok(on_pool!(self, pool => sqlx::query_as(sql)
            .bind(status(0))
            .bind(status(1))
            .bind(status(2))
            .bind(status(3))
            .bind(i64::from(limit))
            .fetch_all(pool)
            .await?))
    }

    /// Everything about one tournament.
    pub async fn tournament(&self, id: Uuid) -> Result<Option<Tournament>> {
        let sql = summary_query!("WHERE t.id = $1");
        let summary: Option<TournamentSummary> =
            on_pool!(self, pool => sqlx::query_as(sql).bind(id).fetch_optional(pool).await?);
        let Some(summary) = summary else {
            return Ok(None);
        };
        let (rules, seed): (Json<serde_json::Value>, i64) = on_pool!(self, pool =>
            sqlx::query_as("SELECT rules, seed FROM tournaments WHERE id = $1").bind(id).fetch_one(pool).await?);
        let entrants: Vec<Entrant> = on_pool!(self, pool => sqlx::query_as(
            "SELECT p.entry, p.account_id, a.name, p.bot, p.points, p.score_diff, p.place \
             FROM tournament_players p JOIN accounts a ON a.id = p.account_id \
             WHERE p.tournament_id = $1 ORDER BY p.entry")
            .bind(id).fetch_all(pool).await?);
        let rows: Vec<TableRow> = on_pool!(self, pool => sqlx::query_as(
            "SELECT stage, table_no, seat0, seat1, seat2, seat3, room, game_id, status, winner, score0, score1 \
             FROM tournament_tables WHERE tournament_id = $1 ORDER BY stage, table_no")
            .bind(id).fetch_all(pool).await?);
        let mut stages: Vec<Stage> = Vec::new();
        for row in rows {
            let stage = row.stage as u32;
            if stages.last().is_none_or(|last| last.stage != stage) {
                stages.push(Stage {
                    stage,
                    tables: Vec::new(),
                });
            }
            let score = row.score0.zip(row.score1).map(|(a, b)| [a, b]);
            if let Some(last) = stages.last_mut() {
                last.tables.push(StoredTable {
                    table: row.table_no as u32,
                    seats: [row.seat0, row.seat1, row.seat2, row.seat3].map(|s| s as u32),
                    room: row.room,
                    game: row.game_id,
                    status: row.status,
                    winner: row.winner.map(|w| w as u8),
                    score,
                });
            }
        }
        Ok(Some(Tournament {
            summary,
            rules: rules.0,
            seed: seed as u64,
            entrants,
            stages,
        }))
    }

    /// Adds a person to an open tournament, with the next entry number.
    pub async fn register_player(
        &self,
        tournament: Uuid,
        account: Uuid,
        now: OffsetDateTime,
    ) -> Result<Registration> {
        let sql = "INSERT INTO tournament_players (tournament_id, entry, account_id, bot, registered_at) \
                   SELECT $1, COALESCE(MAX(entry) + 1, 0), $2, false, $3 FROM tournament_players \
                   WHERE tournament_id = $1 RETURNING entry";
        let result: std::result::Result<i32, sqlx::Error> = on_pool!(self, pool =>
            sqlx::query_scalar(sql).bind(tournament).bind(account).bind(now).fetch_one(pool).await);
        match result {
            Ok(entry) => Ok(Registration::Done { entry: entry as u32 }),
            Err(error) if unique_violation(&error) => Ok(Registration::AlreadyRegistered),
            Err(error) => Err(error.into()),
        }
    }

    /// Adds `count` bot entries to a tournament; under `fence`, only while
    /// that holding of the lease is the latest (see `lease.rs`).
    pub async fn register_bots(
        &self,
        tournament: Uuid,
        count: u32,
        now: OffsetDateTime,
        fence: Option<&LeaseFence>,
    ) -> Result<()> {
        let sql = "INSERT INTO tournament_players (tournament_id, entry, account_id, bot, registered_at) \
                   SELECT $1, COALESCE(MAX(entry) + 1, 0), $2, true, $3 FROM tournament_players \
                   WHERE tournament_id = $1";
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            if let Some(fence) = fence {
                CheckLease::check_lease(&mut *tx, fence).await?;
            }
            for _ in 0..count {
                sqlx::query(sql)
                    .bind(tournament)
                    .bind(crate::BASIC_BOT_ACCOUNT)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// Takes a person's registration back; false if he had none.
    pub async fn unregister_player(&self, tournament: Uuid, account: Uuid) -> Result<bool> {
        let sql = "DELETE FROM tournament_players WHERE tournament_id = $1 AND account_id = $2 AND NOT bot";
        let rows = on_pool!(self, pool => sqlx::query(sql).bind(tournament).bind(account)
            .execute(pool).await?.rows_affected());
        Ok(rows == 1)
    }

    /// Cancels a tournament that has not finished; false if it had. Under
    /// `fence`, only while that holding of the lease is the latest.
    pub async fn cancel_tournament(
        &self,
        tournament: Uuid,
        now: OffsetDateTime,
        fence: Option<&LeaseFence>,
    ) -> Result<bool> {
        let sql = "UPDATE tournaments SET status = 'cancelled', finished_at = $1 \
                   WHERE id = $2 AND status IN ('open', 'running')";
        let rows = on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            if let Some(fence) = fence {
                CheckLease::check_lease(&mut *tx, fence).await?;
            }
            let rows = sqlx::query(sql).bind(now).bind(tournament).execute(&mut *tx).await?.rows_affected();
            tx.commit().await?;
            rows
        });
        Ok(rows == 1)
    }

    /// Writes one step of a running tournament in one transaction. The
    /// step applies only while the tournament is in the status it expects
    /// (open for a start, running otherwise); returns false when it was not.
    /// Under `fence`, it is refused with [`StoreError::LeaseLost`] once
    /// another node has taken the lease.
    pub async fn tournament_step(
        &self,
        tournament: Uuid,
        step: &Step,
        now: OffsetDateTime,
        fence: Option<&LeaseFence>,
    ) -> Result<bool> {
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            if let Some(fence) = fence {
                CheckLease::check_lease(&mut *tx, fence).await?;
            }
            let expected = if step.status == Some("running") { "open" } else { "running" };
            let status: Option<String> = sqlx::query_scalar("SELECT status FROM tournaments WHERE id = $1")
                .bind(tournament)
                .fetch_optional(&mut *tx)
                .await?;
            if status.as_deref() != Some(expected) {
                return Ok(false);
            }
            match step.status {
                Some("running") => {
                    sqlx::query("UPDATE tournaments SET status = 'running', started_at = $1 WHERE id = $2")
                        .bind(now)
                        .bind(tournament)
                        .execute(&mut *tx)
                        .await?;
                }
                Some("finished") => {
                    sqlx::query("UPDATE tournaments SET status = 'finished', finished_at = $1 WHERE id = $2")
                        .bind(now)
                        .bind(tournament)
                        .execute(&mut *tx)
                        .await?;
                }
                Some(other) => return Err(StoreError::Corrupt(format!("no tournament status {other:?}"))),
                None => {}
            }
            for table in &step.tables {
                sqlx::query(
                    "INSERT INTO tournament_tables (tournament_id, stage, table_no, seat0, seat1, seat2, seat3, \
                     room, status) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending')",
                )
                .bind(tournament)
                .bind(step.stage as i32)
                .bind(table.table as i32)
                .bind(table.seats[0] as i32)
                .bind(table.seats[1] as i32)
                .bind(table.seats[2] as i32)
                .bind(table.seats[3] as i32)
                .bind(&table.room)
                .execute(&mut *tx)
                .await?;
            }
            for (entry, points, diff) in &step.standings {
                sqlx::query("UPDATE tournament_players SET points = $1, score_diff = $2 WHERE tournament_id = $3 AND entry = $4")
                    .bind(points)
                    .bind(diff)
                    .bind(tournament)
                    .bind(*entry as i32)
                    .execute(&mut *tx)
                    .await?;
            }
            for (entry, place) in &step.places {
                sqlx::query("UPDATE tournament_players SET place = $1 WHERE tournament_id = $2 AND entry = $3")
                    .bind(*place as i32)
                    .bind(tournament)
                    .bind(*entry as i32)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
        });
        Ok(true)
    }

    /// Tournaments being played, to carry on after a start.
    pub async fn running_tournaments(&self) -> Result<Vec<Uuid>> {
        let sql = "SELECT id FROM tournaments WHERE status = 'running' ORDER BY created_at";
        Ok(on_pool!(self, pool => sqlx::query_scalar(sql).fetch_all(pool).await?))
    }

    /// Open tournaments whose start time has come.
    pub async fn due_tournaments(&self, now: OffsetDateTime) -> Result<Vec<Uuid>> {
        let sql =
            "SELECT id FROM tournaments WHERE status = 'open' AND starts_at IS NOT NULL AND starts_at <= $1";
        Ok(on_pool!(self, pool => sqlx::query_scalar(sql).bind(now).fetch_all(pool).await?))
    }

    /// The tournaments a player entered, newest first.
    pub async fn player_tournaments(&self, account: Uuid, limit: u32) -> Result<Vec<PlayedTournament>> {
        let sql = "SELECT t.id, t.name, t.format, t.status, t.started_at, p.entry, p.points, p.score_diff, p.place \
                   FROM tournament_players p JOIN tournaments t ON t.id = p.tournament_id \
                   WHERE p.account_id = $1 AND NOT p.bot ORDER BY t.created_at DESC LIMIT $2";
        Ok(
            on_pool!(self, pool => sqlx::query_as(sql).bind(account).bind(i64::from(limit))
            .fetch_all(pool).await?),
        )
    }

    /// The tournament table a game is played at, if any.
    pub async fn game_table(&self, game: Uuid) -> Result<Option<TableLink>> {
        let sql = "SELECT tournament_id, stage, table_no FROM tournament_tables WHERE game_id = $1";
        let row: Option<(Uuid, i32, i32)> =
            on_pool!(self, pool => sqlx::query_as(sql).bind(game).fetch_optional(pool).await?);
        Ok(row.map(|(tournament, stage, table)| TableLink {
            tournament,
            stage: stage as u32,
            table: table as u32,
        }))
    }
}
