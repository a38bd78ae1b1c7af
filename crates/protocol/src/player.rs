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
}
