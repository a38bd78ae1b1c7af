//! Friends: a request one player makes of another, which holds once the
//! other accepts; and what a player shows of himself (his picture, and
//! whether friends see his table).
//!
//! One row stands for a pair, written by whoever asked first. Two players
//! who ask each other at the same moment may leave a row each way; a pair
//! with rows both ways counts as friends, as if either had accepted.

use time::OffsetDateTime;
use uuid::Uuid;

use crate::{Pool, Result, Store};

/// How many friends and open requests one player may have: more than a
/// community's regulars, too few to make a list a way to spam.
pub const MAX_FRIENDS: i64 = 200;

/// What asking someone to be a friend did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FriendAsk {
    /// The request waits for the other player.
    Requested,
    /// He had asked first: they are friends now.
    Accepted,
    /// They were friends already, or the request was waiting already.
    Unchanged,
    /// The asker has [`MAX_FRIENDS`] friends and requests.
    TooMany,
}

/// One of a player's friends or requests, as his list shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Friend {
    pub id: Uuid,
    pub name: String,
    pub avatar: Option<String>,
    /// Whether he hides from his friends the table he sits at.
    pub hide_table: bool,
    pub state: FriendState,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FriendState {
    Friends,
    /// He asked, and waits for this player to accept.
    AskedMe,
    /// This player asked him.
    Asked,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: Uuid,
    name: String,
    avatar: Option<String>,
    hide_table: bool,
    mine: bool,
    accepted: bool,
}

impl Store {
    /// `account` asks `other` to be his friend, or accepts the request
    /// `other` made.
    pub async fn ask_friend(&self, account: Uuid, other: Uuid) -> Result<FriendAsk> {
        let now = OffsetDateTime::now_utc();
        let accept = "UPDATE friends SET accepted_at = $3 \
                      WHERE account_id = $2 AND friend_id = $1 AND accepted_at IS NULL";
        let accepted = on_pool!(self, pool => sqlx::query(accept).bind(account).bind(other).bind(now)
            .execute(pool).await?.rows_affected());
        if accepted == 1 {
            return Ok(FriendAsk::Accepted);
        }
        let count = "SELECT COUNT(*) FROM friends WHERE account_id = $1 OR friend_id = $1";
        let held: i64 =
            on_pool!(self, pool => sqlx::query_scalar(count).bind(account).fetch_one(pool).await?);
        if held >= MAX_FRIENDS {
            return Ok(FriendAsk::TooMany);
        }
        let ask = "INSERT INTO friends (account_id, friend_id, created_at) \
                   SELECT $1, $2, $3 WHERE NOT EXISTS \
                   (SELECT 1 FROM friends WHERE account_id = $2 AND friend_id = $1) \
                   ON CONFLICT (account_id, friend_id) DO NOTHING";
        let asked = on_pool!(self, pool => sqlx::query(ask).bind(account).bind(other).bind(now)
            .execute(pool).await?.rows_affected());
        Ok(if asked == 1 {
            FriendAsk::Requested
        } else {
            FriendAsk::Unchanged
        })
    }

    /// Ends a friendship, or declines or withdraws a request, whichever
    /// way it was made; true if there was one.
    pub async fn remove_friend(&self, account: Uuid, other: Uuid) -> Result<bool> {
        let sql = "DELETE FROM friends WHERE (account_id = $1 AND friend_id = $2) \
                   OR (account_id = $2 AND friend_id = $1)";
        let rows = on_pool!(self, pool => sqlx::query(sql).bind(account).bind(other).execute(pool).await?
            .rows_affected());
        Ok(rows > 0)
    }

    /// Whether the two are friends.
    pub async fn are_friends(&self, account: Uuid, other: Uuid) -> Result<bool> {
        let sql = "SELECT COUNT(*), COUNT(accepted_at) FROM friends \
                   WHERE (account_id = $1 AND friend_id = $2) OR (account_id = $2 AND friend_id = $1)";
        let (rows, accepted): (i64, i64) =
            on_pool!(self, pool => sqlx::query_as(sql).bind(account).bind(other).fetch_one(pool).await?);
        Ok(accepted > 0 || rows == 2)
    }

    /// A player's friends and requests, both ways, by name.
    pub async fn friends_of(&self, account: Uuid) -> Result<Vec<Friend>> {
        let sql = "SELECT a.id, a.name, a.avatar, a.hide_table, f.account_id = $1 AS mine, \
                   f.accepted_at IS NOT NULL AS accepted \
                   FROM friends f JOIN accounts a \
                   ON a.id = CASE WHEN f.account_id = $1 THEN f.friend_id ELSE f.account_id END \
                   WHERE (f.account_id = $1 OR f.friend_id = $1) AND a.deleted_at IS NULL \
                   ORDER BY a.name, a.id";
        let rows = on_pool!(self, pool => sqlx::query_as::<_, Row>(sql).bind(account).fetch_all(pool).await?);
        let mut friends: Vec<Friend> = Vec::with_capacity(rows.len());
        for row in rows {
            let state = match (row.accepted, row.mine) {
                (true, _) => FriendState::Friends,
                (false, true) => FriendState::Asked,
                (false, false) => FriendState::AskedMe,
            };
            // A row each way: they asked each other at once.
            if let Some(last) = friends.last_mut().filter(|last| last.id == row.id) {
                last.state = FriendState::Friends;
                continue;
            }
            friends.push(Friend {
                id: row.id,
                name: row.name,
                avatar: row.avatar,
                hide_table: row.hide_table,
                state,
            });
        }
        Ok(friends)
    }

    /// Sets or clears the player's picture.
    pub async fn set_avatar(&self, account: Uuid, avatar: Option<&str>) -> Result<()> {
        let sql = "UPDATE accounts SET avatar = $2 WHERE id = $1";
        on_pool!(self, pool => {
            sqlx::query(sql).bind(account).bind(avatar).execute(pool).await?;
        });
        Ok(())
    }

    /// Whether the player's friends see the table he sits at.
    pub async fn set_hide_table(&self, account: Uuid, hide: bool) -> Result<()> {
        let sql = "UPDATE accounts SET hide_table = $2 WHERE id = $1";
        on_pool!(self, pool => {
            sqlx::query(sql).bind(account).bind(hide).execute(pool).await?;
        });
        Ok(())
    }

    /// Whether the player hides his table from his friends.
    pub async fn hides_table(&self, account: Uuid) -> Result<bool> {
        let sql = "SELECT hide_table FROM accounts WHERE id = $1";
        let hide: Option<bool> =
            on_pool!(self, pool => sqlx::query_scalar(sql).bind(account).fetch_optional(pool).await?);
        Ok(hide.unwrap_or(false))
    }
}
