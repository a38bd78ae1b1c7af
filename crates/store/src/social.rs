//! What players do about each other: blocks and reports.

use time::OffsetDateTime;
use uuid::Uuid;

use crate::moderation::{AuditNote, write_audit};
use crate::{Pool, Result, Store};

/// A player someone blocks.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Blocked {
    pub id: Uuid,
    pub name: String,
    pub created_at: OffsetDateTime,
}

/// A report, as stored.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Report {
    pub id: Uuid,
    pub reporter_id: Uuid,
    pub reporter_name: String,
    pub target_id: Uuid,
    pub target_name: String,
    pub reason: String,
    pub room: Option<String>,
    pub game_id: Option<Uuid>,
    /// What the server gathered when the report was made, as JSON.
    pub context: sqlx::types::Json<serde_json::Value>,
    pub created_at: OffsetDateTime,
    pub resolved_at: Option<OffsetDateTime>,
    pub resolution: Option<String>,
}

/// A report before it is stored.
#[derive(Clone, Debug, PartialEq)]
pub struct NewReport {
    pub id: Uuid,
    pub reporter: Uuid,
    pub target: Uuid,
    pub reason: String,
    pub room: Option<String>,
    pub game: Option<Uuid>,
    pub context: serde_json::Value,
}

macro_rules! report_select {
    () => {
        "SELECT r.id, r.reporter_id, a.name AS reporter_name, r.target_id, t.name AS target_name, r.reason, \
         r.room, r.game_id, r.context, r.created_at, r.resolved_at, r.resolution \
         FROM reports r JOIN accounts a ON a.id = r.reporter_id JOIN accounts t ON t.id = r.target_id "
    };
}

/// How many reports one player may have open at once: enough for a bad
/// table, too few to bury the moderators.
pub const OPEN_REPORTS_PER_REPORTER: i64 = 20;

impl Store {
    /// Blocks a player; blocking him twice is blocking him once.
    pub async fn block(&self, account: Uuid, blocked: Uuid) -> Result<()> {
        let sql = "INSERT INTO blocks (account_id, blocked_id, created_at) VALUES ($1, $2, $3) \
                   ON CONFLICT (account_id, blocked_id) DO NOTHING";
        on_pool!(self, pool => {
            sqlx::query(sql).bind(account).bind(blocked).bind(OffsetDateTime::now_utc()).execute(pool).await?;
        });
        Ok(())
    }

    /// Unblocks a player; true if he was blocked.
    pub async fn unblock(&self, account: Uuid, blocked: Uuid) -> Result<bool> {
        let sql = "DELETE FROM blocks WHERE account_id = $1 AND blocked_id = $2";
        let rows = on_pool!(self, pool => sqlx::query(sql).bind(account).bind(blocked).execute(pool).await?
            .rows_affected());
        Ok(rows == 1)
    }

    /// The players an account blocks, most recent first.
    pub async fn blocks_of(&self, account: Uuid) -> Result<Vec<Blocked>> {
        let sql = "SELECT a.id, a.name, b.created_at FROM blocks b JOIN accounts a ON a.id = b.blocked_id \
                   WHERE b.account_id = $1 ORDER BY b.created_at DESC LIMIT 1000";
        Ok(on_pool!(self, pool => sqlx::query_as::<_, Blocked>(sql).bind(account).fetch_all(pool).await?))
    }

    /// Every block on the server, as (blocker, blocked): each node keeps
    /// them all in memory for chat and quick play.
    pub async fn all_blocks(&self) -> Result<Vec<(Uuid, Uuid)>> {
        let sql = "SELECT account_id, blocked_id FROM blocks";
        Ok(on_pool!(self, pool => sqlx::query_as::<_, (Uuid, Uuid)>(sql).fetch_all(pool).await?))
    }

    /// Whether any of these players (up to four) blocks another of them.
    pub async fn any_blocks_among(&self, players: &[Uuid]) -> Result<bool> {
        if players.len() < 2 {
            return Ok(false);
        }
        // A table seats at most four, so the query takes four ids; a
        // shorter list repeats its first, which changes nothing.
        let mut four = [players[0]; 4];
        for (slot, id) in four.iter_mut().zip(players.iter().take(4)) {
            *slot = *id;
        }
        let sql = "SELECT count(*) FROM blocks WHERE account_id IN ($1, $2, $3, $4) \
                   AND blocked_id IN ($1, $2, $3, $4)";
        let count: i64 = on_pool!(self, pool => sqlx::query_scalar(sql)
            .bind(four[0]).bind(four[1]).bind(four[2]).bind(four[3]).fetch_one(pool).await?);
        Ok(count > 0)
    }

    /// How many reports a player has filed that are still open.
    pub async fn open_reports_by(&self, reporter: Uuid) -> Result<i64> {
        let sql = "SELECT count(*) FROM reports WHERE reporter_id = $1 AND resolved_at IS NULL";
        Ok(on_pool!(self, pool => sqlx::query_scalar::<_, i64>(sql).bind(reporter).fetch_one(pool).await?))
    }

    pub async fn add_report(&self, report: &NewReport) -> Result<()> {
        let sql = "INSERT INTO reports (id, reporter_id, target_id, reason, room, game_id, context, created_at) \
                   VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
        on_pool!(self, pool => {
            sqlx::query(sql)
                .bind(report.id)
                .bind(report.reporter)
                .bind(report.target)
                .bind(&report.reason)
                .bind(&report.room)
                .bind(report.game)
                .bind(sqlx::types::Json(&report.context))
                .bind(OffsetDateTime::now_utc())
                .execute(pool)
                .await?;
        });
        Ok(())
    }

    pub async fn report(&self, id: Uuid) -> Result<Option<Report>> {
        let sql = concat!(report_select!(), "WHERE r.id = $1");
        Ok(on_pool!(self, pool => sqlx::query_as::<_, Report>(sql).bind(id).fetch_optional(pool).await?))
    }

    /// The reports still open, oldest first.
    pub async fn open_reports(&self, limit: u32) -> Result<Vec<Report>> {
        let sql = concat!(
            report_select!(),
            "WHERE r.resolved_at IS NULL ORDER BY r.created_at, r.id LIMIT $1"
        );
        Ok(
            on_pool!(self, pool => sqlx::query_as::<_, Report>(sql).bind(i64::from(limit)).fetch_all(pool).await?),
        )
    }

    /// The reports about a player, newest first.
    pub async fn reports_about(&self, target: Uuid) -> Result<Vec<Report>> {
        let sql = concat!(
            report_select!(),
            "WHERE r.target_id = $1 ORDER BY r.created_at DESC, r.id LIMIT 200"
        );
        Ok(on_pool!(self, pool => sqlx::query_as::<_, Report>(sql).bind(target).fetch_all(pool).await?))
    }

    /// Resolves an open report, and notes it; false if it was not open.
    pub async fn resolve_report(
        &self,
        id: Uuid,
        by: Uuid,
        resolution: &str,
        note: &AuditNote,
    ) -> Result<bool> {
        let now = OffsetDateTime::now_utc();
        let sql = "UPDATE reports SET resolved_at = $1, resolved_by = $2, resolution = $3 \
                   WHERE id = $4 AND resolved_at IS NULL";
        let rows = on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            let rows = sqlx::query(sql).bind(now).bind(by).bind(resolution).bind(id).execute(&mut *tx).await?
                .rows_affected();
            if rows == 1 {
                write_audit!(tx, note, now);
            }
            tx.commit().await?;
            rows
        });
        Ok(rows == 1)
    }

    /// The last game two players sat at together, and its room.
    pub async fn last_game_together(&self, one: Uuid, other: Uuid) -> Result<Option<(Uuid, String)>> {
        let sql = "SELECT g.id, g.room FROM games g \
                   JOIN game_players a ON a.game_id = g.id AND a.account_id = $1 \
                   JOIN game_players b ON b.game_id = g.id AND b.account_id = $2 \
                   ORDER BY g.started_at DESC LIMIT 1";
        Ok(on_pool!(self, pool => sqlx::query_as::<_, (Uuid, String)>(sql)
            .bind(one).bind(other).fetch_optional(pool).await?))
    }
}
