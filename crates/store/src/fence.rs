//! Fencing: a room's writes are stored only while the opening that made
//! them is the room's latest.
//!
//! Every opening of a room raises its epoch in `rooms` ([`Store::open_room`]),
//! and every batch of a room's writes begins with a [`Write::Fence`] naming
//! the epoch it was made under. A batch locks the rows of the rooms it
//! fences (shared, so that batches of many rooms never wait on each other)
//! and is refused whole, with [`StoreError::Fenced`], when one of them has
//! a newer epoch. An opening takes the row's lock for its update, so it
//! waits for a batch in flight, and every batch after it sees its epoch:
//! once a node has opened a room, nothing the previous owner does can be
//! stored, and since a room confirms nothing before its writes are stored,
//! the previous owner can confirm nothing either.
//!
//! [`Store::open_room`]: crate::Store::open_room

use crate::{Result, StoreError, Write};

/// The distinct (room, epoch) pairs a batch is fenced with.
pub(crate) fn fences(writes: &[Write]) -> Vec<(&str, i64)> {
    let mut fences: Vec<(&str, i64)> = Vec::new();
    for write in writes {
        if let Write::Fence { room, epoch } = write {
            let fence = (room.as_str(), *epoch as i64);
            if !fences.contains(&fence) {
                fences.push(fence);
            }
        }
    }
    fences
}

/// The rooms of `fences` that are not among the `live` ones, as the error
/// that refuses the batch; `Ok` when every fence holds.
pub(crate) fn refuse_stale(fences: &[(&str, i64)], live: &[(String, i64)]) -> Result<()> {
    let stale: Vec<String> = fences
        .iter()
        .filter(|(room, epoch)| !live.iter().any(|(code, now)| code == room && now == epoch))
        .map(|(room, _)| (*room).to_string())
        .collect();
    if stale.is_empty() {
        Ok(())
    } else {
        Err(StoreError::Fenced(stale))
    }
}

/// How each backend checks a batch's fences inside its transaction.
pub(crate) trait CheckFences: sqlx::Database {
    async fn check_fences<'e, E>(executor: E, fences: &[(&str, i64)]) -> Result<()>
    where
        E: sqlx::Executor<'e, Database = Self>;
}

impl CheckFences for sqlx::Postgres {
    /// Locks the fenced rooms' rows that still have the batch's epochs, in
    /// one statement, until the transaction ends.
    async fn check_fences<'e, E>(executor: E, fences: &[(&str, i64)]) -> Result<()>
    where
        E: sqlx::Executor<'e, Database = Self>,
    {
        if fences.is_empty() {
            return Ok(());
        }
        let (rooms, epochs): (Vec<&str>, Vec<i64>) = fences.iter().copied().unzip();
        let live: Vec<(String, i64)> = sqlx::query_as(
            "SELECT r.code, r.epoch FROM rooms r \
             JOIN UNNEST($1::text[], $2::bigint[]) AS f(code, epoch) ON r.code = f.code AND r.epoch = f.epoch \
             FOR SHARE OF r",
        )
        .bind(rooms)
        .bind(epochs)
        .fetch_all(executor)
        .await?;
        refuse_stale(fences, &live)
    }
}

impl CheckFences for sqlx::Sqlite {
    /// Reads the fenced rooms' epochs with a write that changes nothing, so
    /// that the transaction holds SQLite's write lock from its first
    /// statement: nothing can open a room before it commits, and it never
    /// has to turn a read into a write after another connection's commit.
    async fn check_fences<'e, E>(executor: E, fences: &[(&str, i64)]) -> Result<()>
    where
        E: sqlx::Executor<'e, Database = Self>,
    {
        if fences.is_empty() {
            return Ok(());
        }
        let rooms = serde_json::to_string(&fences.iter().map(|(room, _)| room).collect::<Vec<_>>())
            .map_err(|error| StoreError::Corrupt(error.to_string()))?;
        let live: Vec<(String, i64)> = sqlx::query_as(
            "UPDATE rooms SET epoch = epoch WHERE code IN (SELECT value FROM json_each(?1)) RETURNING code, epoch",
        )
        .bind(rooms)
        .fetch_all(executor)
        .await?;
        refuse_stale(fences, &live)
    }
}

/// Checks a batch's fences on the journal's own SQLite connection, inside
/// its write transaction.
pub(crate) fn check_rusqlite(connection: &rusqlite::Connection, fences: &[(&str, i64)]) -> Result<()> {
    let mut live = Vec::with_capacity(fences.len());
    let mut statement = connection.prepare_cached("SELECT epoch FROM rooms WHERE code = ?1")?;
    for (room, _) in fences {
        let epoch: Option<i64> = match statement.query_row([room], |row| row.get(0)) {
            Ok(epoch) => Some(epoch),
            Err(rusqlite::Error::QueryReturnedNoRows) => None,
            Err(error) => return Err(error.into()),
        };
        if let Some(epoch) = epoch {
            live.push(((*room).to_string(), epoch));
        }
    }
    refuse_stale(fences, &live)
}
