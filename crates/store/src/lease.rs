//! Leases in the store: each holding of a cluster's lease (the one that
//! names the node running the tournaments) has an epoch here, and the
//! holder's writes are stored only while its epoch is the latest.
//!
//! The lease itself lives in NATS, where a node takes it when its holder
//! is gone. That alone cannot keep a holder that was paused, or cut off,
//! from writing on the strength of what it remembers once it runs again;
//! so a node that takes the lease raises its epoch in the store
//! ([`Store::take_lease`]) before it acts, and each of its writes under the
//! lease checks, in its own transaction, that the epoch is still the one it
//! took. A write under an older epoch is refused whole with
//! [`StoreError::LeaseLost`]: once another node has taken the lease,
//! nothing the earlier holder does can be stored.

use crate::{Pool, Result, Store, StoreError};

/// A holding of a lease: the lease's name and the epoch this holder took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseFence {
    pub lease: String,
    pub epoch: u64,
}

impl Store {
    /// Takes the lease `lease` in the store: raises its epoch and returns
    /// it. The update waits for a write of the previous holder that is
    /// under way, and every write after it sees the new epoch.
    pub async fn take_lease(&self, lease: &str) -> Result<LeaseFence> {
        let sql = "INSERT INTO leases (name, epoch) VALUES ($1, 1) \
                   ON CONFLICT (name) DO UPDATE SET epoch = leases.epoch + 1 \
                   RETURNING epoch";
        let epoch: i64 = on_pool!(self, pool => sqlx::query_scalar(sql).bind(lease).fetch_one(pool).await?);
        Ok(LeaseFence {
            lease: lease.to_string(),
            epoch: epoch as u64,
        })
    }
}

/// How each backend checks a lease's epoch inside a transaction.
pub(crate) trait CheckLease: sqlx::Database {
    async fn check_lease<'e, E>(executor: E, fence: &LeaseFence) -> Result<()>
    where
        E: sqlx::Executor<'e, Database = Self>;
}

impl CheckLease for sqlx::Postgres {
    /// Locks the lease's row, shared, until the transaction ends: a node
    /// taking the lease waits until this write is stored or abandoned.
    async fn check_lease<'e, E>(executor: E, fence: &LeaseFence) -> Result<()>
    where
        E: sqlx::Executor<'e, Database = Self>,
    {
        let epoch: Option<i64> = sqlx::query_scalar("SELECT epoch FROM leases WHERE name = $1 FOR SHARE")
            .bind(&fence.lease)
            .fetch_optional(executor)
            .await?;
        refuse_stale(fence, epoch)
    }
}

impl CheckLease for sqlx::Sqlite {
    /// Reads the epoch with a write that changes nothing, so that the
    /// transaction holds SQLite's write lock from its first statement, as
    /// the rooms' fences do (see `fence.rs`).
    async fn check_lease<'e, E>(executor: E, fence: &LeaseFence) -> Result<()>
    where
        E: sqlx::Executor<'e, Database = Self>,
    {
        let epoch: Option<i64> =
            sqlx::query_scalar("UPDATE leases SET epoch = epoch WHERE name = ?1 RETURNING epoch")
                .bind(&fence.lease)
                .fetch_optional(executor)
                .await?;
        refuse_stale(fence, epoch)
    }
}

fn refuse_stale(fence: &LeaseFence, stored: Option<i64>) -> Result<()> {
    if stored == Some(fence.epoch as i64) {
        Ok(())
    } else {
        Err(StoreError::LeaseLost(fence.lease.clone()))
    }
}
