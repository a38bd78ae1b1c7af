//! Roles, sanctions and the audit log.
//!
//! Every change a moderator or an administrator makes is written in the
//! same transaction as its entry in the audit log, so that the log cannot
//! miss an action that took effect. The log itself only grows: the
//! migrations give it triggers that refuse updates and deletions.

use time::OffsetDateTime;
use uuid::Uuid;

use crate::{Pool, Result, Store, StoreError};

/// What an account may do beyond playing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    Player,
    /// Sanctions players, reads and resolves reports, ends rooms.
    Moderator,
    /// All a moderator does, and grants or takes the moderator role,
    /// broadcasts notices and sets maintenance.
    Admin,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Player => "player",
            Role::Moderator => "moderator",
            Role::Admin => "admin",
        }
    }

    pub fn parse(word: &str) -> Option<Role> {
        [Role::Player, Role::Moderator, Role::Admin]
            .into_iter()
            .find(|role| role.as_str() == word)
    }
}

/// The kinds of sanction, mildest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SanctionKind {
    /// A recorded warning, shown to the player; it restricts nothing.
    Warn,
    /// No chat.
    Mute,
    /// No play and no login, for a time.
    Suspend,
    /// No play and no login, until it is lifted.
    Ban,
}

impl SanctionKind {
    pub const ALL: [SanctionKind; 4] = [
        SanctionKind::Warn,
        SanctionKind::Mute,
        SanctionKind::Suspend,
        SanctionKind::Ban,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SanctionKind::Warn => "warn",
            SanctionKind::Mute => "mute",
            SanctionKind::Suspend => "suspend",
            SanctionKind::Ban => "ban",
        }
    }

    pub fn parse(word: &str) -> Option<SanctionKind> {
        SanctionKind::ALL.into_iter().find(|kind| kind.as_str() == word)
    }

    /// Whether it keeps the player out: no login, no play.
    pub fn bars(self) -> bool {
        matches!(self, SanctionKind::Suspend | SanctionKind::Ban)
    }
}

/// A sanction as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Sanction {
    pub id: Uuid,
    pub account: Uuid,
    pub kind: SanctionKind,
    pub reason: String,
    pub issued_by: Option<Uuid>,
    pub created_at: OffsetDateTime,
    /// When it ends by itself; never, if none.
    pub ends_at: Option<OffsetDateTime>,
    pub lifted_at: Option<OffsetDateTime>,
}

impl Sanction {
    /// Whether it restricts the player at `now`. A warning never does.
    pub fn in_force(&self, now: OffsetDateTime) -> bool {
        self.kind != SanctionKind::Warn
            && self.lifted_at.is_none()
            && self.ends_at.is_none_or(|end| end > now)
    }
}

#[derive(sqlx::FromRow)]
struct SanctionRow {
    id: Uuid,
    account_id: Uuid,
    kind: String,
    reason: String,
    issued_by: Option<Uuid>,
    created_at: OffsetDateTime,
    ends_at: Option<OffsetDateTime>,
    lifted_at: Option<OffsetDateTime>,
}

impl TryFrom<SanctionRow> for Sanction {
    type Error = StoreError;

    fn try_from(row: SanctionRow) -> Result<Sanction> {
        let kind = SanctionKind::parse(&row.kind)
            .ok_or_else(|| StoreError::Corrupt(format!("sanction kind {:?}", row.kind)))?;
        Ok(Sanction {
            id: row.id,
            account: row.account_id,
            kind,
            reason: row.reason,
            issued_by: row.issued_by,
            created_at: row.created_at,
            ends_at: row.ends_at,
            lifted_at: row.lifted_at,
        })
    }
}

macro_rules! sanction_columns {
    () => {
        "id, account_id, kind, reason, issued_by, created_at, ends_at, lifted_at"
    };
}

/// Who did something that goes in the audit log: an account, or the
/// operator at the server's command line (`spades admin`), who has none.
#[derive(Clone, Debug, PartialEq)]
pub struct Actor {
    pub id: Option<Uuid>,
    pub name: String,
    /// The address his request came from (the real client's, behind a
    /// trusted proxy); none for the command line.
    pub client: Option<String>,
}

impl Actor {
    pub fn account(id: Uuid, name: &str) -> Actor {
        Actor {
            id: Some(id),
            name: name.to_string(),
            client: None,
        }
    }

    /// The same actor, acting from `client`.
    pub fn from(self, client: Option<std::net::IpAddr>) -> Actor {
        Actor {
            client: client.map(|address| address.to_string()),
            ..self
        }
    }

    /// The operator, working on the database with `spades admin`.
    pub fn operator() -> Actor {
        Actor {
            id: None,
            name: "operator (command line)".to_string(),
            client: None,
        }
    }
}

/// One line of the audit log, before it is written.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditNote {
    pub actor: Actor,
    /// What was done, as a short word: `role`, `sanction`, `lift`, ...
    pub action: String,
    pub target: Option<(Uuid, String)>,
    pub reason: String,
    /// What else the action needs to be understood (the role given, the
    /// sanction's kind and end, the notice's text).
    pub detail: String,
}

/// One line of the audit log, as stored.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct AuditEntry {
    pub seq: i64,
    pub at: OffsetDateTime,
    pub actor_id: Option<Uuid>,
    pub actor_name: String,
    pub action: String,
    pub target_id: Option<Uuid>,
    pub target_name: Option<String>,
    pub reason: String,
    pub detail: String,
    pub client: Option<String>,
}

/// Adds a line to the audit log inside the transaction `$tx`.
macro_rules! write_audit {
    ($tx:expr, $note:expr, $now:expr) => {{
        let note: &AuditNote = $note;
        sqlx::query(
            "INSERT INTO audit_log (at, actor_id, actor_name, action, target_id, target_name, reason, detail, client) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind($now)
        .bind(note.actor.id)
        .bind(&note.actor.name)
        .bind(&note.action)
        .bind(note.target.as_ref().map(|(id, _)| *id))
        .bind(note.target.as_ref().map(|(_, name)| name.as_str()))
        .bind(&note.reason)
        .bind(&note.detail)
        .bind(&note.actor.client)
        .execute(&mut *$tx)
        .await?;
    }};
}
pub(crate) use write_audit;

impl Store {
    /// Gives an account a role, and notes it in the audit log; false if
    /// there is no such account. An administrator may run tournaments.
    pub async fn set_role(&self, id: Uuid, role: Role, note: &AuditNote) -> Result<bool> {
        let now = OffsetDateTime::now_utc();
        let sql = "UPDATE accounts SET is_admin = $1, is_moderator = $2, \
                   can_organize = (can_organize OR $1) WHERE id = $3 AND deleted_at IS NULL";
        let rows = on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            let rows = sqlx::query(sql)
                .bind(role == Role::Admin)
                .bind(role == Role::Moderator)
                .bind(id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            if rows == 1 {
                write_audit!(tx, note, now);
            }
            tx.commit().await?;
            rows
        });
        Ok(rows == 1)
    }

    /// Records a sanction and its line in the audit log.
    pub async fn add_sanction(&self, sanction: &Sanction, note: &AuditNote) -> Result<()> {
        let sql = "INSERT INTO sanctions (id, account_id, kind, reason, issued_by, created_at, ends_at) \
                   VALUES ($1, $2, $3, $4, $5, $6, $7)";
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            sqlx::query(sql)
                .bind(sanction.id)
                .bind(sanction.account)
                .bind(sanction.kind.as_str())
                .bind(&sanction.reason)
                .bind(sanction.issued_by)
                .bind(sanction.created_at)
                .bind(sanction.ends_at)
                .execute(&mut *tx)
                .await?;
            write_audit!(tx, note, sanction.created_at);
            tx.commit().await?;
        });
        Ok(())
    }

    /// Lifts a sanction that is in force, and notes it; the sanction as it
    /// was, or `None` if there is none such or it had ended already.
    pub async fn lift_sanction(
        &self,
        id: Uuid,
        by: Option<Uuid>,
        note: &AuditNote,
    ) -> Result<Option<Sanction>> {
        let now = OffsetDateTime::now_utc();
        let sql = concat!(
            "UPDATE sanctions SET lifted_at = $1, lifted_by = $2 WHERE id = $3 AND lifted_at IS NULL \
             AND kind <> 'warn' AND (ends_at IS NULL OR ends_at > $1) RETURNING ",
            sanction_columns!()
        );
        let row = on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            let row = sqlx::query_as::<_, SanctionRow>(sql)
                .bind(now)
                .bind(by)
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
            if row.is_some() {
                write_audit!(tx, note, now);
            }
            tx.commit().await?;
            row
        });
        row.map(Sanction::try_from).transpose()
    }

    /// One sanction, in force or not.
    pub async fn sanction(&self, id: Uuid) -> Result<Option<Sanction>> {
        let sql = concat!("SELECT ", sanction_columns!(), " FROM sanctions WHERE id = $1");
        let row = on_pool!(self, pool => sqlx::query_as::<_, SanctionRow>(sql).bind(id).fetch_optional(pool).await?);
        row.map(Sanction::try_from).transpose()
    }

    /// An account's sanctions, newest first, ended ones included.
    pub async fn sanctions_of(&self, account: Uuid) -> Result<Vec<Sanction>> {
        let sql = concat!(
            "SELECT ",
            sanction_columns!(),
            " FROM sanctions WHERE account_id = $1 ORDER BY created_at DESC, id LIMIT 200"
        );
        let rows = on_pool!(self, pool => sqlx::query_as::<_, SanctionRow>(sql).bind(account).fetch_all(pool).await?);
        rows.into_iter().map(Sanction::try_from).collect()
    }

    /// The account's sanctions that restrict him at `now`, the heaviest
    /// first and, among those of a kind, the one that lasts longest.
    pub async fn sanctions_in_force(&self, account: Uuid, now: OffsetDateTime) -> Result<Vec<Sanction>> {
        let sql = concat!(
            "SELECT ",
            sanction_columns!(),
            " FROM sanctions WHERE account_id = $1 AND kind <> 'warn' AND lifted_at IS NULL \
             AND (ends_at IS NULL OR ends_at > $2)"
        );
        let rows = on_pool!(self, pool => sqlx::query_as::<_, SanctionRow>(sql)
            .bind(account).bind(now).fetch_all(pool).await?);
        let mut sanctions = rows
            .into_iter()
            .map(Sanction::try_from)
            .collect::<Result<Vec<_>>>()?;
        sanctions.sort_by_key(|sanction| {
            (
                std::cmp::Reverse(sanction.kind),
                std::cmp::Reverse(
                    sanction
                        .ends_at
                        .unwrap_or(OffsetDateTime::new_utc(time::Date::MAX, time::Time::MIDNIGHT)),
                ),
            )
        });
        Ok(sanctions)
    }

    /// Every sanction in force on the server, newest first.
    pub async fn all_sanctions_in_force(&self, now: OffsetDateTime) -> Result<Vec<Sanction>> {
        let sql = concat!(
            "SELECT ",
            sanction_columns!(),
            " FROM sanctions WHERE kind <> 'warn' AND lifted_at IS NULL AND (ends_at IS NULL OR ends_at > $1) \
             ORDER BY created_at DESC, id LIMIT 500"
        );
        let rows =
            on_pool!(self, pool => sqlx::query_as::<_, SanctionRow>(sql).bind(now).fetch_all(pool).await?);
        rows.into_iter().map(Sanction::try_from).collect()
    }

    /// Notes in the audit log an action that changes nothing in the store
    /// (a notice, a room ended).
    pub async fn audit(&self, note: &AuditNote) -> Result<()> {
        let now = OffsetDateTime::now_utc();
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            write_audit!(tx, note, now);
            tx.commit().await?;
        });
        Ok(())
    }

    /// Lines of the audit log before `before` (all, if none), newest first.
    pub async fn audit_log(&self, before: Option<i64>, limit: u32) -> Result<Vec<AuditEntry>> {
        let sql = "SELECT seq, at, actor_id, actor_name, action, target_id, target_name, reason, detail, client \
                   FROM audit_log WHERE seq < $1 ORDER BY seq DESC LIMIT $2";
        Ok(on_pool!(self, pool => sqlx::query_as::<_, AuditEntry>(sql)
            .bind(before.unwrap_or(i64::MAX))
            .bind(i64::from(limit))
            .fetch_all(pool)
            .await?))
    }

    /// The maintenance in force, if any: when it is to end, and the
    /// operator's message.
    pub async fn maintenance(&self) -> Result<Option<(Option<OffsetDateTime>, String)>> {
        let sql = "SELECT until, message FROM maintenance WHERE id = 1";
        Ok(
            on_pool!(self, pool => sqlx::query_as::<_, (Option<OffsetDateTime>, String)>(sql)
            .fetch_optional(pool).await?),
        )
    }

    /// Starts (`Some`) or ends (`None`) maintenance, and notes it.
    pub async fn set_maintenance(
        &self,
        maintenance: Option<(Option<OffsetDateTime>, &str)>,
        note: &AuditNote,
    ) -> Result<()> {
        let now = OffsetDateTime::now_utc();
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            sqlx::query("DELETE FROM maintenance").execute(&mut *tx).await?;
            if let Some((until, message)) = maintenance {
                sqlx::query("INSERT INTO maintenance (id, until, message, started_at) VALUES (1, $1, $2, $3)")
                    .bind(until)
                    .bind(message)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
            }
            write_audit!(tx, note, now);
            tx.commit().await?;
        });
        Ok(())
    }
}
