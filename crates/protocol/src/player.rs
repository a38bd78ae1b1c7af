//! A player as the WebSocket messages and the HTTP bodies both show him.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A player as others see him.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, JsonSchema, utoipa::ToSchema)]
pub struct PlayerInfo {
    pub id: String,
    pub name: String,
    /// True for one of the server's bots.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bot: bool,
    /// A bot's level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<BotLevel>,
    /// The picture a person chose, one of [`AVATARS`]; without one,
    /// clients draw his initials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avatar: Option<String>,
}

/// The pictures a player may choose from, which every client draws itself.
pub const AVATARS: [&str; 12] = [
    "spade", "heart", "diamond", "club", "fox", "owl", "cat", "bear", "rocket", "star", "moon", "sun",
];

/// How well the server's bots play in a room: at its bot seats and for its
/// absent players.
#[derive(
    Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize, JsonSchema, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum BotLevel {
    /// Rule-based play, decided in microseconds.
    #[default]
    Basic,
    /// Looks ahead over guesses at the hidden hands before each card.
    Strong,
}

impl BotLevel {
    pub const fn name(self) -> &'static str {
        match self {
            BotLevel::Basic => "basic",
            BotLevel::Strong => "strong",
        }
    }
}
