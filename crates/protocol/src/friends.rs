//! Friends, presence and what a player shows of himself: the HTTP API's
//! bodies, and the kinds of invitation the WebSocket protocol carries.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::player::PlayerInfo;

/// Where a friend is, as his friends see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Presence {
    /// No connection on any node.
    Offline,
    /// Connected, and seated at no table (or hiding which).
    Online,
    /// Seated at a table; `room` names it unless he hides it.
    Playing,
}

/// One friend in `GET /api/friends`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct FriendView {
    pub player: PlayerInfo,
    pub presence: Presence,
    /// The room where he sits, unless he hides it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room: Option<String>,
}

/// `GET /api/friends`: the caller's friends and the requests both ways.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct Friends {
    /// By name.
    pub friends: Vec<FriendView>,
    /// Players who asked the caller, waiting for his answer.
    pub incoming: Vec<PlayerInfo>,
    /// Players the caller asked, who have not answered.
    pub outgoing: Vec<PlayerInfo>,
    /// Whether the caller hides his table from his friends.
    pub hide_table: bool,
}

/// `POST /api/friends`: ask a registered player, by name, to be a friend
/// (or accept his request).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FriendAsk {
    pub name: String,
}

/// The answer to `POST /api/friends`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct FriendAnswer {
    pub player: PlayerInfo,
    /// `requested` (he has to accept) or `friends` (he had asked first,
    /// or they were friends already).
    pub status: String,
}

/// `PUT /api/me/avatar`: the picture to show, or `null` for initials.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AvatarChoice {
    pub avatar: Option<String>,
}

/// `PUT /api/me/presence`: whether friends see the table the caller sits at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PresenceChoice {
    pub hide_table: bool,
}

/// What a friend is invited to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InviteTo {
    /// The inviter's room: the friend joins it with `join_room`.
    Table,
    /// Quick play as the inviter's partner: the friend queues naming him
    /// as `partner`, as the inviter does.
    Queue,
}
