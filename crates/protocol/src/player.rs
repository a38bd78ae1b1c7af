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
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Debug,
    Default,
    Serialize,
    Deserialize,
    JsonSchema,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum BotLevel {
    /// The basic bot's play with a newcomer's slips: wins about a quarter
    /// of its games against the basic bot.
    Beginner,
    /// Rule-based play, decided in microseconds.
    #[default]
    Basic,
    /// Looks ahead over guesses at the hidden hands before each card.
    Strong,
    /// Looks ahead before every bid and card, with a partner's good habits
    /// and the whole game in mind.
    Expert,
}

impl BotLevel {
    /// Every level, weakest first.
    pub const ALL: [BotLevel; 4] = [
        BotLevel::Beginner,
        BotLevel::Basic,
        BotLevel::Strong,
        BotLevel::Expert,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            BotLevel::Beginner => "beginner",
            BotLevel::Basic => "basic",
            BotLevel::Strong => "strong",
            BotLevel::Expert => "expert",
        }
    }

    /// The level named `name`, as the protocol writes it.
    pub fn from_name(name: &str) -> Option<BotLevel> {
        BotLevel::ALL.into_iter().find(|level| level.name() == name)
    }

    /// Whether the bot looks ahead, and so thinks on a blocking thread
    /// within the server's budget rather than in the room's task.
    pub const fn looks_ahead(self) -> bool {
        matches!(self, BotLevel::Strong | BotLevel::Expert)
    }
}
