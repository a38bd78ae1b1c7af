//! Reviews of players' games by the strongest bot, kept once worked out so
//! that asking again costs nothing.

use sqlx::types::Json;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::{Pool, Result, Store};

impl Store {
    /// Keeps the review of `seat`'s play in `game`, replacing any before.
    pub async fn save_review(&self, game: Uuid, seat: u8, review: &serde_json::Value) -> Result<()> {
        let sql = "INSERT INTO game_reviews (game_id, seat, created_at, review) VALUES ($1, $2, $3, $4) \
                   ON CONFLICT (game_id, seat) DO UPDATE SET created_at = excluded.created_at, review = excluded.review";
        let now = OffsetDateTime::now_utc();
        on_pool!(self, pool => {
            sqlx::query(sql).bind(game).bind(i16::from(seat)).bind(now).bind(Json(review)).execute(pool).await?;
        });
        Ok(())
    }

    /// The review of `seat`'s play in `game`, if one was kept.
    pub async fn review(&self, game: Uuid, seat: u8) -> Result<Option<serde_json::Value>> {
        let sql = "SELECT review FROM game_reviews WHERE game_id = $1 AND seat = $2";
        let row: Option<Json<serde_json::Value>> = on_pool!(self, pool => sqlx::query_scalar(sql).bind(game).bind(i16::from(seat)).fetch_optional(pool).await?);
        Ok(row.map(|review| review.0))
    }
}
