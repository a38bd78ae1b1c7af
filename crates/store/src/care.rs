//! Looking after one's account: a new password, one-time reset links, and
//! deleting the account.

use time::OffsetDateTime;
use uuid::Uuid;

use crate::moderation::{AuditNote, write_audit};
use crate::{Pool, Result, Store};

/// The name a deleted account's games show in place of his.
pub const DELETED_NAME: &str = "Deleted player";

impl Store {
    /// Sets a registered account's password and ends every session it has,
    /// in one transaction; false if there is no such registered account.
    /// With a note, the change goes in the audit log (an operator's reset).
    pub async fn set_password(
        &self,
        id: Uuid,
        password_hash: &str,
        note: Option<&AuditNote>,
    ) -> Result<bool> {
        let now = OffsetDateTime::now_utc();
        let rows = on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            let rows = sqlx::query(
                "UPDATE accounts SET password_hash = $1 WHERE id = $2 AND registered AND deleted_at IS NULL",
            )
            .bind(password_hash)
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if rows == 1 {
                sqlx::query("UPDATE sessions SET revoked_at = $1 WHERE account_id = $2 AND revoked_at IS NULL")
                    .bind(now)
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                if let Some(note) = note {
                    write_audit!(tx, note, now);
                }
            }
            tx.commit().await?;
            rows
        });
        Ok(rows == 1)
    }

    /// Stores a reset link for a registered account (only its token's
    /// hash), and notes who issued it; false if there is no such account.
    pub async fn create_reset_link(
        &self,
        token_hash: &[u8; 32],
        account: Uuid,
        expires_at: OffsetDateTime,
        note: &AuditNote,
    ) -> Result<bool> {
        let now = OffsetDateTime::now_utc();
        let created = on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            let registered: Option<bool> = sqlx::query_scalar(
                "SELECT registered FROM accounts WHERE id = $1 AND deleted_at IS NULL",
            )
            .bind(account)
            .fetch_optional(&mut *tx)
            .await?;
            let created = registered == Some(true);
            if created {
                sqlx::query(
                    "INSERT INTO reset_links (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
                )
                .bind(&token_hash[..])
                .bind(account)
                .bind(now)
                .bind(expires_at)
                .execute(&mut *tx)
                .await?;
                write_audit!(tx, note, now);
            }
            tx.commit().await?;
            created
        });
        Ok(created)
    }

    /// Uses a reset link: if it is unused and has not expired, sets the
    /// account's password, ends its sessions and spends every link of the
    /// account, all at once. The account, or `None` if the link does not
    /// work.
    pub async fn use_reset_link(&self, token_hash: &[u8; 32], password_hash: &str) -> Result<Option<Uuid>> {
        let now = OffsetDateTime::now_utc();
        let account = on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            // The first statement both checks and spends the link, so that
            // of two uses at the same moment only one finds it unused.
            let account: Option<Uuid> = sqlx::query_scalar(
                "UPDATE reset_links SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL \
                 AND expires_at > $1 RETURNING account_id",
            )
            .bind(now)
            .bind(&token_hash[..])
            .fetch_optional(&mut *tx)
            .await?;
            if let Some(account) = account {
                sqlx::query("UPDATE reset_links SET used_at = $1 WHERE account_id = $2 AND used_at IS NULL")
                    .bind(now)
                    .bind(account)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(
                    "UPDATE accounts SET password_hash = $1 WHERE id = $2 AND registered AND deleted_at IS NULL",
                )
                .bind(password_hash)
                .bind(account)
                .execute(&mut *tx)
                .await?;
                sqlx::query("UPDATE sessions SET revoked_at = $1 WHERE account_id = $2 AND revoked_at IS NULL")
                    .bind(now)
                    .bind(account)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            account
        });
        Ok(account)
    }

    /// Deletes an account's personal data: its name becomes
    /// [`DELETED_NAME`], its password, blocks, reset links and sessions go,
    /// and it can never be logged into again. Its games, ratings and the
    /// moderation records about it stay, under the anonymous name.
    pub async fn delete_account(&self, id: Uuid) -> Result<bool> {
        let now = OffsetDateTime::now_utc();
        let rows = on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            let rows = sqlx::query(
                "UPDATE accounts SET name = $1, password_hash = NULL, registered = false, is_admin = false, \
                 is_moderator = false, can_organize = false, deleted_at = $2 WHERE id = $3 AND deleted_at IS NULL",
            )
            .bind(DELETED_NAME)
            .bind(now)
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if rows == 1 {
                for sql in [
                    "DELETE FROM blocks WHERE account_id = $1 OR blocked_id = $1",
                    "DELETE FROM reset_links WHERE account_id = $1",
                ] {
                    sqlx::query(sql).bind(id).execute(&mut *tx).await?;
                }
                sqlx::query("UPDATE sessions SET revoked_at = $1 WHERE account_id = $2 AND revoked_at IS NULL")
                    .bind(now)
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            rows
        });
        Ok(rows == 1)
    }
}
