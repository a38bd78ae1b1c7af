//! Accounts and sessions: creating and claiming accounts, permissions,
//! session tokens, profiles and the leaderboard.

use time::OffsetDateTime;
use uuid::Uuid;

use crate::{Pool, Result, Store, StoreError};

// Column lists shared by several queries of accounts. They are macros so
// that each query stays one string literal, which sqlx accepts as safe
// SQL.
macro_rules! account_columns {
    () => {
        "id, name, registered, password_hash, is_admin, can_organize, is_moderator, deleted_at, avatar"
    };
}
macro_rules! profile_columns {
    () => {
        "id, name, registered, created_at, rating, rating_deviation, games_played, games_won, \
         games_abandoned, bids_made, bids_total, nils_made, nils_tried, avatar"
    };
}

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
    pub is_moderator: bool,
    /// When the account was deleted: it keeps its row, anonymous, so that
    /// its games still read, but nobody can log into it.
    pub deleted_at: Option<OffsetDateTime>,
    /// The picture the player chose (see `spades_protocol::AVATARS`).
    pub avatar: Option<String>,
}

impl Account {
    /// The account's role: an administrator's is `Admin` whatever else
    /// it holds.
    pub fn role(&self) -> crate::Role {
        if self.is_admin {
            crate::Role::Admin
        } else if self.is_moderator {
            crate::Role::Moderator
        } else {
            crate::Role::Player
        }
    }

    /// Whether the account may moderate: moderators and administrators.
    pub fn can_moderate(&self) -> bool {
        self.role() >= crate::Role::Moderator
    }
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
    pub avatar: Option<String>,
}

impl Store {
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
             a.is_moderator, a.deleted_at, a.avatar, s.expires_at FROM sessions s JOIN accounts a ON a.id = s.account_id \
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
}
