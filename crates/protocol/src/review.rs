//! The review of a player's game by the strongest bot, as the HTTP API
//! gives it (`POST /api/games/{id}/review`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// A player's game reviewed: his choices that the bot found clearly worse
/// than another, hand by hand.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct GameReview {
    pub game_id: Uuid,
    /// The reviewed player's seat.
    pub seat: u8,
    /// The bot that reviewed it: `expert`.
    pub level: String,
    /// The bids and cards he chose among several.
    pub decisions: u32,
    /// His choices that the bot found clearly worse, in the order played.
    pub marks: Vec<ReviewMark>,
}

/// One choice found clearly worse than another.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct ReviewMark {
    /// The hand, from 0.
    pub hand: u32,
    /// For a card, the trick it went to, from 1; absent for a bid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trick: Option<u8>,
    /// The player's choice, in the stored actions' text form (`bid 4`,
    /// `bid nil`, `play QH`).
    pub played: String,
    /// The choice the bot found worth most, in the same form.
    pub better: String,
    /// How many points more `better` was worth on average: the team's
    /// score after the hand, less what its bags will cost, against the
    /// other side's, a game won or lost counting 0.6 times the target.
    pub loss: f64,
}

/// A review that is not ready yet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct ReviewPending {
    /// `queued` or `working`.
    pub status: String,
    /// Reviews before this one in the server's queue.
    pub ahead: u32,
}
