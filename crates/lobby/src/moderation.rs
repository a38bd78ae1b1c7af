//! What a moderator or an administrator did that every node of a cluster
//! must act on at once: the node where it was done acts on it and
//! publishes it, and the others act on it when they hear it.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

/// See the module's documentation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum ModerationEvent {
    /// A player was warned, muted, suspended or banned (`kind` is the
    /// sanction's word: `warn`, `mute`, `suspend` or `ban`).
    Sanctioned {
        account: Uuid,
        kind: String,
        reason: String,
        #[serde(with = "time::serde::rfc3339::option")]
        until: Option<OffsetDateTime>,
    },
    /// A sanction was lifted before its end.
    Lifted { account: Uuid, kind: String },
    /// Every session of the account ended (a new password, a reset, the
    /// account deleted): its connections close on every node.
    SessionsEnded { account: Uuid },
    /// A player blocked (`on`) or unblocked another.
    Block { account: Uuid, blocked: Uuid, on: bool },
    /// A moderator ended a room; the node that runs it ends it.
    EndRoom { code: String, reason: String },
    /// A notice for every connected player.
    Notice { message: String },
    /// Maintenance began (`Some`) or ended (`None`).
    Maintenance {
        #[serde(default)]
        active: bool,
        #[serde(with = "time::serde::rfc3339::option")]
        until: Option<OffsetDateTime>,
        message: String,
    },
}
