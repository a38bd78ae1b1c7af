//! Roles, sanctions and the audit log over HTTP. Moderators sanction and
//! lift; administrators also give and take roles and read the audit log.
//! Every change is stored with its audit line before it is acted on, and
//! the audit log has no route that changes it.

use axum::Json;
use axum::extract::{FromRequestParts, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::routing::{get, post};
use serde::Deserialize;
use spades_lobby::ModerationEvent;
use spades_protocol::http::ApiErrorBody;
use spades_protocol::moderation::{
    AuditLine, AuditLog, Lift, ModerationRecord, NewSanction, RoleChange, SanctionView, Sanctions,
};
use spades_store::{Account, Actor, AuditNote, Role, Sanction, SanctionKind, Store, StoreError};
use time::OffsetDateTime;
use uuid::Uuid;

use super::{ApiError, ApiJson, ApiPath, ApiQuery, ApiResult, Caller};
use crate::AppState;
use crate::moderation::rfc3339;

/// The longest a reason, a resolution or a notice may be, in characters.
pub(crate) const MAX_REASON: usize = 500;

/// The longest a mute or a suspension may last: a year.
const MAX_MINUTES: u32 = 366 * 24 * 60;

pub fn routes() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/api/players/{id}/role", post(set_role))
        .route("/api/players/{id}/sanctions", post(sanction))
        .route("/api/players/{id}/moderation", get(record))
        .route("/api/sanctions", get(in_force))
        .route("/api/sanctions/{id}/lift", post(lift))
        .route("/api/audit", get(audit))
        .route("/api/rooms/{code}/end", post(end_room))
}

pub(crate) fn forbidden(message: &str) -> ApiError {
    ApiError::new(StatusCode::FORBIDDEN, "forbidden", message)
}

/// The caller, if he is a moderator or an administrator, and who he is for
/// the audit log: an extractor listed before the path and body, so that a
/// stranger is told `401` and a player `403` before anything else about
/// the request.
pub(crate) struct Moderator(pub(crate) Account, pub(crate) Actor);

impl FromRequestParts<AppState> for Moderator {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Moderator, ApiError> {
        let Caller(account) = Caller::from_request_parts(parts, state).await?;
        if account.can_moderate() {
            let actor = acting(&account, parts);
            Ok(Moderator(account, actor))
        } else {
            Err(forbidden("only moderators and administrators may do that"))
        }
    }
}

/// The caller, if he is an administrator, and who he is for the audit log.
pub(crate) struct Administrator(pub(crate) Account, pub(crate) Actor);

impl FromRequestParts<AppState> for Administrator {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Administrator, ApiError> {
        let Caller(account) = Caller::from_request_parts(parts, state).await?;
        if account.is_admin {
            let actor = acting(&account, parts);
            Ok(Administrator(account, actor))
        } else {
            Err(forbidden("only administrators may do that"))
        }
    }
}

/// The account acting, from the address the request came from: the real
/// client's behind a trusted proxy, as the listener set it.
fn acting(account: &Account, parts: &Parts) -> Actor {
    let client = parts
        .extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|info| info.0.ip());
    Actor::account(account.id, &account.name).from(client)
}

/// The suspension or ban that keeps an account out now, if any.
pub(crate) async fn bar(store: &Store, account: Uuid) -> Result<Option<Sanction>, StoreError> {
    let sanctions = store
        .sanctions_in_force(account, OffsetDateTime::now_utc())
        .await?;
    Ok(sanctions.into_iter().find(|sanction| sanction.kind.bars()))
}

/// The refusal a suspended or banned player gets, in words for him.
pub(crate) fn barred(sanction: &Sanction) -> (StatusCode, &'static str, String) {
    let (code, what) = if sanction.kind == SanctionKind::Ban {
        ("banned", "banned")
    } else {
        ("suspended", "suspended")
    };
    let message = format!(
        "you are {what} {}: {}",
        spades_room::until_words(sanction.ends_at),
        sanction.reason
    );
    (StatusCode::FORBIDDEN, code, message)
}

/// Refuses an account that is suspended or banned.
pub(crate) async fn refuse_barred(state: &AppState, account: &Account) -> ApiResult<()> {
    match bar(state.store(), account.id).await? {
        Some(sanction) => {
            let (status, code, message) = barred(&sanction);
            Err(ApiError::new(status, code, message))
        }
        None => Ok(()),
    }
}

/// A reason, trimmed: 1 to [`MAX_REASON`] characters unless `optional`.
pub(crate) fn checked_text(text: &str, field: &'static str, optional: bool) -> ApiResult<String> {
    let text = text.trim();
    let length = text.chars().count();
    if (length == 0 && !optional) || length > MAX_REASON || text.chars().any(char::is_control) {
        let message = format!("`{field}` is 1 to {MAX_REASON} characters, without control characters");
        return Err(ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message));
    }
    Ok(text.to_string())
}

pub(crate) fn sanction_view(sanction: Sanction, name: &str) -> SanctionView {
    SanctionView {
        in_force: sanction.in_force(OffsetDateTime::now_utc()),
        id: sanction.id,
        player: sanction.account,
        player_name: name.to_string(),
        kind: sanction.kind.as_str().to_string(),
        reason: sanction.reason,
        created_at: sanction.created_at,
        ends_at: sanction.ends_at,
        lifted_at: sanction.lifted_at,
    }
}

/// The account a moderator acts on: it exists and is not deleted.
async fn target(state: &AppState, id: Uuid) -> ApiResult<Account> {
    state
        .store()
        .account(id)
        .await?
        .filter(|account| account.deleted_at.is_none())
        .ok_or_else(|| ApiError::not_found("player"))
}

fn note(actor: &Actor, action: &str, target: &Account, reason: &str, detail: String) -> AuditNote {
    AuditNote {
        actor: actor.clone(),
        action: action.to_string(),
        target: Some((target.id, target.name.clone())),
        reason: reason.to_string(),
        detail,
    }
}

/// `POST /api/players/{id}/role {role, reason}`: an administrator makes a
/// registered player a moderator, an administrator or a player again.
#[utoipa::path(
    post,
    path = "/api/players/{id}/role",
    tag = "moderation",
    params(("id" = Uuid, Path, description = "The registered player's id")),
    request_body = RoleChange,
    security(("bearer" = [])),
    responses(
        (status = 204, description = "The role is set and the change is in the audit log"),
        (status = 400, description = "`bad_request` (an unknown role, or a reason too long), `bad_path`, `bad_json`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`forbidden`: the caller is not an administrator, or names himself; `suspended` or `banned`", body = ApiErrorBody),
        (status = 404, description = "`not_found`: no registered player has that id", body = ApiErrorBody),
        (status = 422, description = "`bad_fields`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn set_role(
    State(state): State<AppState>,
    Administrator(admin, actor): Administrator,
    ApiPath(id): ApiPath<Uuid>,
    ApiJson(body): ApiJson<RoleChange>,
) -> ApiResult<StatusCode> {
    let role = Role::parse(&body.role).ok_or_else(|| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            "`role` is `player`, `moderator` or `admin`",
        )
    })?;
    let reason = checked_text(&body.reason, "reason", true)?;
    let target = target(&state, id).await?;
    if !target.registered {
        return Err(ApiError::not_found("registered player"));
    }
    if target.id == admin.id {
        // An administrator who took his own role away could leave the
        // server with none; the command line does that on purpose.
        return Err(forbidden("an administrator cannot change his own role"));
    }
    let note = note(
        &actor,
        "role",
        &target,
        &reason,
        format!("role: {}", role.as_str()),
    );
    state.store().set_role(target.id, role, &note).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/players/{id}/sanctions {kind, reason, minutes}`: a moderator
/// warns, mutes, suspends or bans a player.
#[utoipa::path(
    post,
    path = "/api/players/{id}/sanctions",
    tag = "moderation",
    params(("id" = Uuid, Path, description = "The player's id")),
    request_body = NewSanction,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The sanction is in force on every node, and in the audit log", body = SanctionView),
        (status = 400, description = "`bad_request`: an unknown kind, a reason missing or too long, or `minutes` missing, refused or above a year; `bad_path`, `bad_json`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`forbidden`: the caller is not a moderator, or the player is a moderator or an administrator, or the caller himself; `suspended` or `banned`", body = ApiErrorBody),
        (status = 404, description = "`not_found`", body = ApiErrorBody),
        (status = 422, description = "`bad_fields`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn sanction(
    State(state): State<AppState>,
    Moderator(moderator, actor): Moderator,
    ApiPath(id): ApiPath<Uuid>,
    ApiJson(body): ApiJson<NewSanction>,
) -> ApiResult<(StatusCode, Json<SanctionView>)> {
    let bad = |message: &str| ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message);
    let kind =
        SanctionKind::parse(&body.kind).ok_or_else(|| bad("`kind` is `warn`, `mute`, `suspend` or `ban`"))?;
    let reason = checked_text(&body.reason, "reason", false)?;
    let minutes = match (kind, body.minutes) {
        (SanctionKind::Warn, Some(_)) => return Err(bad("a warning has no `minutes`")),
        (SanctionKind::Mute | SanctionKind::Suspend, None) => {
            return Err(bad("a mute or a suspension needs `minutes`"));
        }
        (_, Some(minutes)) if minutes == 0 || minutes > MAX_MINUTES => {
            return Err(bad("`minutes` is 1 to 527040 (a year)"));
        }
        (_, minutes) => minutes,
    };
    let target = target(&state, id).await?;
    if target.id == moderator.id {
        return Err(forbidden("nobody may sanction himself"));
    }
    // A moderator's peers and superiors are out of his reach; an
    // administrator may sanction a moderator but not another administrator.
    if target.role() >= moderator.role() || target.is_admin {
        return Err(forbidden(
            "a moderator cannot sanction another moderator or an administrator",
        ));
    }
    let now = OffsetDateTime::now_utc();
    let ends_at = minutes.map(|minutes| now + time::Duration::minutes(i64::from(minutes)));
    let sanction = Sanction {
        id: Uuid::new_v4(),
        account: target.id,
        kind,
        reason: reason.clone(),
        issued_by: Some(moderator.id),
        created_at: now,
        ends_at,
        lifted_at: None,
    };
    let until = ends_at.and_then(rfc3339).unwrap_or_else(|| "none".into());
    let detail = format!("{}, until {until}", kind.as_str());
    let note = note(&actor, "sanction", &target, &reason, detail);
    state.store().add_sanction(&sanction, &note).await?;
    tracing::info!(moderator = %moderator.id, player = %target.id, kind = kind.as_str(), "sanction");
    state
        .moderate(ModerationEvent::Sanctioned {
            account: target.id,
            kind: kind.as_str().to_string(),
            reason,
            until: ends_at,
        })
        .await;
    Ok((StatusCode::CREATED, Json(sanction_view(sanction, &target.name))))
}

/// `POST /api/sanctions/{id}/lift {reason}`: a moderator ends a sanction
/// before its time.
#[utoipa::path(
    post,
    path = "/api/sanctions/{id}/lift",
    tag = "moderation",
    params(("id" = Uuid, Path, description = "The sanction's id")),
    request_body = Lift,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The sanction as it was, now lifted", body = SanctionView),
        (status = 400, description = "`bad_request` (a reason too long), `bad_path`, `bad_json`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`forbidden`; `suspended` or `banned`", body = ApiErrorBody),
        (status = 404, description = "`not_found`: no sanction in force has that id", body = ApiErrorBody),
        (status = 422, description = "`bad_fields`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn lift(
    State(state): State<AppState>,
    Moderator(moderator, actor): Moderator,
    ApiPath(id): ApiPath<Uuid>,
    ApiJson(body): ApiJson<Lift>,
) -> ApiResult<Json<SanctionView>> {
    let reason = checked_text(&body.reason, "reason", true)?;
    let found = state.store().sanction(id).await?;
    let sanction = found.ok_or_else(|| ApiError::not_found("sanction in force"))?;
    let target = target(&state, sanction.account).await?;
    let note = note(
        &actor,
        "lift",
        &target,
        &reason,
        sanction.kind.as_str().to_string(),
    );
    let lifted = state
        .store()
        .lift_sanction(id, Some(moderator.id), &note)
        .await?
        .ok_or_else(|| ApiError::not_found("sanction in force"))?;
    state
        .moderate(ModerationEvent::Lifted {
            account: target.id,
            kind: lifted.kind.as_str().to_string(),
        })
        .await;
    let lifted = Sanction {
        lifted_at: Some(OffsetDateTime::now_utc()),
        ..lifted
    };
    Ok(Json(sanction_view(lifted, &target.name)))
}

/// `GET /api/sanctions`: every sanction in force, newest first.
#[utoipa::path(
    get,
    path = "/api/sanctions",
    tag = "moderation",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The sanctions in force", body = Sanctions),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`forbidden`; `suspended` or `banned`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn in_force(State(state): State<AppState>, _: Moderator) -> ApiResult<Json<Sanctions>> {
    let mut sanctions = Vec::new();
    for sanction in state
        .store()
        .all_sanctions_in_force(OffsetDateTime::now_utc())
        .await?
    {
        let name = state
            .store()
            .account(sanction.account)
            .await?
            .map(|a| a.name)
            .unwrap_or_default();
        sanctions.push(sanction_view(sanction, &name));
    }
    Ok(Json(Sanctions { sanctions }))
}

/// `GET /api/players/{id}/moderation`: a player's sanctions and the
/// reports about him.
#[utoipa::path(
    get,
    path = "/api/players/{id}/moderation",
    tag = "moderation",
    params(("id" = Uuid, Path, description = "The player's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The player's record", body = ModerationRecord),
        (status = 400, description = "`bad_path`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`forbidden`; `suspended` or `banned`", body = ApiErrorBody),
        (status = 404, description = "`not_found`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn record(
    State(state): State<AppState>,
    _: Moderator,
    ApiPath(id): ApiPath<Uuid>,
) -> ApiResult<Json<ModerationRecord>> {
    let account = state
        .store()
        .account(id)
        .await?
        .ok_or_else(|| ApiError::not_found("player"))?;
    let sanctions = state.store().sanctions_of(id).await?;
    let reports = state.store().reports_about(id).await?;
    Ok(Json(ModerationRecord {
        player: account.id,
        role: account.role().as_str().to_string(),
        sanctions: sanctions
            .into_iter()
            .map(|sanction| sanction_view(sanction, &account.name))
            .collect(),
        reports: reports.into_iter().map(super::reports::report_view).collect(),
        name: account.name,
    }))
}

/// `POST /api/rooms/{code}/end {reason}`: a moderator ends a room on
/// whichever node runs it. Its game stops without counting for anyone, and
/// everyone in it is told why (`room_ended`) and sent away.
#[utoipa::path(
    post,
    path = "/api/rooms/{code}/end",
    tag = "moderation",
    params(("code" = String, Path, description = "The room's code")),
    request_body = Lift,
    security(("bearer" = [])),
    responses(
        (status = 204, description = "The room is being ended, and that is in the audit log"),
        (status = 400, description = "`bad_request` (a reason too long), `bad_json`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`forbidden`; `suspended` or `banned`", body = ApiErrorBody),
        (status = 404, description = "`not_found`: no open room has that code", body = ApiErrorBody),
        (status = 422, description = "`bad_fields`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn end_room(
    State(state): State<AppState>,
    Moderator(_, actor): Moderator,
    axum::extract::Path(code): axum::extract::Path<String>,
    ApiJson(body): ApiJson<Lift>,
) -> ApiResult<StatusCode> {
    let reason = checked_text(&body.reason, "reason", true)?;
    let code = code.trim().to_ascii_uppercase();
    let found = state.lobby().find(&code).await.ok().flatten();
    if found.is_none() || code.len() > 16 {
        return Err(ApiError::not_found("room"));
    }
    let note = AuditNote {
        actor,
        action: "end_room".into(),
        target: None,
        reason: reason.clone(),
        detail: format!("room {code}"),
    };
    state.store().audit(&note).await?;
    state.moderate(ModerationEvent::EndRoom { code, reason }).await;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct AuditPage {
    /// Lines before this `seq` (the newest, if absent).
    before: Option<i64>,
    /// Lines on the page: 50 by default, at most 200.
    limit: Option<u32>,
}

/// `GET /api/audit?before=SEQ&limit=50`: the audit log, newest first. It
/// has no route that changes it, and the database refuses changes too.
#[utoipa::path(
    get,
    path = "/api/audit",
    tag = "moderation",
    params(AuditPage),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Lines of the audit log", body = AuditLog),
        (status = 400, description = "`bad_query`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`forbidden`: the caller is not an administrator; `suspended` or `banned`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn audit(
    State(state): State<AppState>,
    _: Administrator,
    ApiQuery(page): ApiQuery<AuditPage>,
) -> ApiResult<Json<AuditLog>> {
    let limit = page.limit.unwrap_or(50).clamp(1, 200);
    let entries = state.store().audit_log(page.before, limit).await?;
    let lines = entries
        .into_iter()
        .map(|entry| AuditLine {
            seq: entry.seq,
            at: entry.at,
            actor: entry.actor_id,
            actor_name: entry.actor_name,
            action: entry.action,
            target: entry.target_id,
            target_name: entry.target_name,
            reason: entry.reason,
            detail: entry.detail,
            client: entry.client,
        })
        .collect();
    Ok(Json(AuditLog { lines }))
}
