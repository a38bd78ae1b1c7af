//! The HTTP API's bodies for moderation, operations and looking after
//! one's account: roles, sanctions, reports, blocks, the audit log,
//! notices, maintenance, passwords, reset links, deletion and export.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::rfc3339::Rfc3339;

/// `POST /api/players/{id}/role`: the role an administrator gives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RoleChange {
    /// `player`, `moderator` or `admin`.
    pub role: String,
    /// Why, for the audit log.
    #[serde(default)]
    pub reason: String,
}

/// `POST /api/players/{id}/sanctions`: what a moderator decides.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSanction {
    /// `warn`, `mute`, `suspend` or `ban`.
    pub kind: String,
    /// Why, in words the player is shown: 1 to 500 characters.
    pub reason: String,
    /// How long it lasts: required for `mute` and `suspend`, optional for
    /// `ban` (without it the ban lasts until lifted), refused for `warn`.
    /// At most a year.
    #[serde(default)]
    pub minutes: Option<u32>,
}

/// A sanction, as moderators and the sanctioned player read it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct SanctionView {
    pub id: Uuid,
    pub player: Uuid,
    pub player_name: String,
    /// `warn`, `mute`, `suspend` or `ban`.
    pub kind: String,
    pub reason: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(with = "Rfc3339")]
    pub created_at: OffsetDateTime,
    /// When it ends by itself; absent for a ban until lifted and for a
    /// warning.
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[schemars(with = "Option<Rfc3339>")]
    pub ends_at: Option<OffsetDateTime>,
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[schemars(with = "Option<Rfc3339>")]
    pub lifted_at: Option<OffsetDateTime>,
    /// Whether it restricts the player now.
    pub in_force: bool,
}

/// `GET /api/sanctions`: every sanction in force.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct Sanctions {
    pub sanctions: Vec<SanctionView>,
}

/// `POST /api/sanctions/{id}/lift`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Lift {
    /// Why, for the audit log.
    #[serde(default)]
    pub reason: String,
}

/// `POST /api/players/{id}/report`: a player reports another.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewReport {
    /// What the player did: 1 to 500 characters.
    pub reason: String,
    /// The room where it happened, if it happened at a table: the server
    /// adds the room's game and its last chat lines to the report itself.
    #[serde(default)]
    pub room: Option<String>,
}

/// A report, as moderators read it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct ReportView {
    pub id: Uuid,
    pub reporter: Uuid,
    pub reporter_name: String,
    pub player: Uuid,
    pub player_name: String,
    pub reason: String,
    pub room: Option<String>,
    pub game: Option<Uuid>,
    /// What the server gathered by itself: `chat`, the room's last chat
    /// lines (`{from, name, text}`), as the room held them.
    pub context: serde_json::Value,
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(with = "Rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[schemars(with = "Option<Rfc3339>")]
    pub resolved_at: Option<OffsetDateTime>,
    pub resolution: Option<String>,
}

/// `GET /api/reports`: the open reports, oldest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct Reports {
    pub reports: Vec<ReportView>,
}

/// `POST /api/reports/{id}/resolve`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Resolve {
    /// What was done about it: 1 to 500 characters.
    pub resolution: String,
}

/// `GET /api/players/{id}/moderation`: a player's record, for moderators.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct ModerationRecord {
    pub player: Uuid,
    pub name: String,
    /// `player`, `moderator` or `admin`.
    pub role: String,
    pub sanctions: Vec<SanctionView>,
    pub reports: Vec<ReportView>,
}

/// One line of the audit log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct AuditLine {
    /// Its place in the log: later lines have larger numbers.
    pub seq: i64,
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(with = "Rfc3339")]
    pub at: OffsetDateTime,
    /// Who did it; absent for the operator at the command line.
    pub actor: Option<Uuid>,
    pub actor_name: String,
    /// `role`, `sanction`, `lift`, `resolve_report`, `reset_link`,
    /// `password`, `notice`, `maintenance`, `end_room`.
    pub action: String,
    pub target: Option<Uuid>,
    pub target_name: Option<String>,
    pub reason: String,
    pub detail: String,
    /// The address the request came from; absent for the command line.
    pub client: Option<String>,
}

/// `GET /api/audit`: lines of the audit log, newest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct AuditLog {
    pub lines: Vec<AuditLine>,
}

/// `POST /api/admin/notice`: a message for every connected player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NoticeBody {
    /// 1 to 500 characters.
    pub message: String,
}

/// `PUT /api/admin/maintenance`: maintenance begins.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MaintenanceBody {
    /// What the players are told, up to 500 characters.
    #[serde(default)]
    pub message: String,
    /// When it is expected to end, in minutes from now (at most a week).
    #[serde(default)]
    pub minutes: Option<u32>,
}

/// `GET /api/maintenance`: whether the server is in maintenance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct MaintenanceView {
    pub active: bool,
    #[serde(default, with = "time::serde::rfc3339::option")]
    #[schemars(with = "Option<Rfc3339>")]
    pub until: Option<OffsetDateTime>,
    pub message: String,
}

/// `POST /api/me/password`: a new password, given with the old one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PasswordChange {
    pub old_password: String,
    pub new_password: String,
}

/// `POST /api/players/{id}/reset-link`: a one-time link an administrator
/// hands to a player who lost his password.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct ResetLink {
    /// The secret the link carries; `POST /api/reset` takes it.
    pub token: String,
    /// The web client's page for it, relative to the server's address.
    pub path: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(with = "Rfc3339")]
    pub expires_at: OffsetDateTime,
}

/// `POST /api/reset`: a reset link used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResetBody {
    pub token: String,
    pub password: String,
}

/// `POST /api/me/delete`: the account's owner confirms with his password
/// (a guest, who has none, sends an empty one).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteBody {
    #[serde(default)]
    pub password: String,
}

/// A player someone blocks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct BlockedPlayer {
    pub id: Uuid,
    pub name: String,
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(with = "Rfc3339")]
    pub since: OffsetDateTime,
}

/// `GET /api/me/blocks`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, ToSchema)]
pub struct Blocks {
    pub blocked: Vec<BlockedPlayer>,
}
