//! What a player's record says about his conduct at rated tables: the
//! rated games he abandoned, from which quick play's pause is reckoned.

use time::OffsetDateTime;
use uuid::Uuid;

use crate::{Pool, Result, Store};

impl Store {
    /// When each game at a rated table that the player abandoned (gone
    /// past his seat's hold, or out of the room) ended, since `since`,
    /// oldest first.
    pub async fn abandoned_rated_since(
        &self,
        account: Uuid,
        since: OffsetDateTime,
    ) -> Result<Vec<OffsetDateTime>> {
        let sql = "SELECT g.finished_at FROM game_players p JOIN games g ON g.id = p.game_id \
                   WHERE p.account_id = $1 AND p.abandoned AND g.rated AND g.finished_at > $2 \
                   ORDER BY g.finished_at";
        let rows: Vec<Option<OffsetDateTime>> = on_pool!(self, pool => sqlx::query_scalar(sql)
            .bind(account).bind(since).fetch_all(pool).await?);
        Ok(rows.into_iter().flatten().collect())
    }
}
