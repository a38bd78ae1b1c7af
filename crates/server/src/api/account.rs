//! Looking after one's account without email: a new password, a one-time
//! reset link an administrator issues, deleting the account, downloading
//! one's data, and blocking players.

use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use serde_json::json;
use spades_lobby::ModerationEvent;
use spades_protocol::http::{ApiErrorBody, Session};
use spades_protocol::moderation::{BlockedPlayer, Blocks, DeleteBody, PasswordChange, ResetBody, ResetLink};
use spades_store::AuditNote;
use time::OffsetDateTime;
use uuid::Uuid;

use super::moderation::{Administrator, sanction_view};
use super::passwords::Lane;
use super::{ApiError, ApiJson, ApiPath, ApiResult, Caller, check_password, session_for};
use crate::AppState;
use crate::identity;

/// How long a reset link works.
pub const RESET_LINK_LIFE: Duration = Duration::from_secs(24 * 3600);

pub fn routes() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/api/me/password", post(change_password))
        .route("/api/me/delete", post(delete))
        .route("/api/me/export", get(export))
        .route("/api/me/blocks", get(blocks))
        .route("/api/me/blocks/{id}", put(block).delete(unblock))
        .route("/api/players/{id}/reset-link", post(reset_link))
        .route("/api/reset", post(reset))
}

fn wrong_password() -> ApiError {
    ApiError::new(StatusCode::FORBIDDEN, "wrong_password", "the password is wrong")
}

/// Whether `password` is the account's.
async fn verified(state: &AppState, hash: Option<String>, password: String) -> ApiResult<bool> {
    match hash {
        Some(hash) => state.passwords().verify(Lane::Known, hash, password).await,
        None => Ok(false),
    }
}

/// Ends every session of the account on every node.
async fn end_sessions(state: &AppState, account: Uuid) {
    state.moderate(ModerationEvent::SessionsEnded { account }).await;
}

/// `POST /api/me/password {old_password, new_password}`: a registered
/// player sets a new password. Every session of the account ends, its
/// connections close on every node, and a new session is returned.
#[utoipa::path(
    post,
    path = "/api/me/password",
    tag = "accounts",
    request_body = PasswordChange,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The password is changed; every other session has ended", body = Session),
        (status = 400, description = "`bad_password` (the new one), `bad_json`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`wrong_password`: the old password is wrong; `suspended` or `banned`", body = ApiErrorBody),
        (status = 409, description = "`guest_account`: a guest has no password to change", body = ApiErrorBody),
        (status = 422, description = "`bad_fields`", body = ApiErrorBody),
        (status = 503, description = "`unavailable` or `busy`", body = ApiErrorBody),
    )
)]
pub(crate) async fn change_password(
    State(state): State<AppState>,
    Caller(account): Caller,
    ApiJson(body): ApiJson<PasswordChange>,
) -> ApiResult<Json<Session>> {
    if !account.registered {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "guest_account",
            "a guest has no password; register with `POST /api/claim`",
        ));
    }
    check_password(&body.new_password)?;
    if !verified(&state, account.password_hash.clone(), body.old_password).await? {
        return Err(wrong_password());
    }
    let hash = state.passwords().hash(body.new_password).await?;
    if !state.store().set_password(account.id, &hash, None).await? {
        return Err(ApiError::not_found("registered player"));
    }
    end_sessions(&state, account.id).await;
    Ok(Json(session_for(&state, account.id, &account.name).await?))
}

/// `POST /api/players/{id}/reset-link`: an administrator issues a one-time
/// link that lets a registered player who lost his password set a new
/// one. It works once, for 24 hours; issuing it is in the audit log.
#[utoipa::path(
    post,
    path = "/api/players/{id}/reset-link",
    tag = "moderation",
    params(("id" = Uuid, Path, description = "The registered player's id")),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The link: hand `path` (after the server's address) to the player", body = ResetLink),
        (status = 400, description = "`bad_path`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`forbidden`: the caller is not an administrator; `suspended` or `banned`", body = ApiErrorBody),
        (status = 404, description = "`not_found`: no registered player has that id", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn reset_link(
    State(state): State<AppState>,
    Administrator(_, actor): Administrator,
    ApiPath(id): ApiPath<Uuid>,
) -> ApiResult<(StatusCode, Json<ResetLink>)> {
    let target = state
        .store()
        .account(id)
        .await?
        .filter(|target| target.registered)
        .ok_or_else(|| ApiError::not_found("registered player"))?;
    let note = AuditNote {
        actor,
        action: "reset_link".into(),
        target: Some((target.id, target.name.clone())),
        reason: String::new(),
        detail: "a one-time password reset link, for 24 hours".into(),
    };
    let link = issue_reset_link(&state, target.id, &note).await?;
    Ok((StatusCode::CREATED, Json(link)))
}

/// Stores a new reset link for an account and returns it.
pub(crate) async fn issue_reset_link(
    state: &AppState,
    account: Uuid,
    note: &AuditNote,
) -> ApiResult<ResetLink> {
    let token = identity::new_secret();
    let expires_at = OffsetDateTime::now_utc() + RESET_LINK_LIFE;
    let hash = identity::token_hash(&token);
    if !state
        .store()
        .create_reset_link(&hash, account, expires_at, note)
        .await?
    {
        return Err(ApiError::not_found("registered player"));
    }
    Ok(ResetLink {
        path: format!("/#/reset/{token}"),
        token,
        expires_at,
    })
}

/// `POST /api/reset {token, password}`: a reset link used. The password is
/// set, every session of the account ends, every link of the account is
/// spent, and a new session is returned.
#[utoipa::path(
    post,
    path = "/api/reset",
    tag = "accounts",
    request_body = ResetBody,
    responses(
        (status = 200, description = "The new password is set; the player is logged in", body = Session),
        (status = 400, description = "`bad_password`, `bad_json`; `bad_reset_link`: the link is unknown, used or expired", body = ApiErrorBody),
        (status = 413, description = "`payload_too_large`", body = ApiErrorBody),
        (status = 415, description = "`unsupported_media_type`", body = ApiErrorBody),
        (status = 422, description = "`bad_fields`", body = ApiErrorBody),
        (status = 503, description = "`unavailable` or `busy`", body = ApiErrorBody),
    )
)]
pub(crate) async fn reset(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<ResetBody>,
) -> ApiResult<Json<Session>> {
    check_password(&body.password)?;
    let bad_link = || {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_reset_link",
            "this reset link is unknown, already used or expired; ask an administrator for a new one",
        )
    };
    if body.token.len() > 128 {
        return Err(bad_link());
    }
    // The password is hashed before the link is looked at, so that the
    // answer takes as long for a wrong link as for a right one.
    let hash = state.passwords().hash(body.password).await?;
    let account = state
        .store()
        .use_reset_link(&identity::token_hash(&body.token), &hash)
        .await?
        .ok_or_else(bad_link)?;
    end_sessions(&state, account).await;
    let account = state
        .store()
        .account(account)
        .await?
        .ok_or_else(|| ApiError::not_found("player"))?;
    Ok(Json(session_for(&state, account.id, &account.name).await?))
}

/// `POST /api/me/delete {password}`: the caller deletes his account.
#[utoipa::path(
    post,
    path = "/api/me/delete",
    tag = "accounts",
    request_body = DeleteBody,
    security(("bearer" = [])),
    responses(
        (status = 204, description = "The account's personal data is gone; its games stay under an anonymous name, and every session has ended"),
        (status = 400, description = "`bad_json`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`wrong_password`; `forbidden`: an administrator must first give up the role; `suspended` or `banned`", body = ApiErrorBody),
        (status = 422, description = "`bad_fields`", body = ApiErrorBody),
        (status = 503, description = "`unavailable` or `busy`", body = ApiErrorBody),
    )
)]
pub(crate) async fn delete(
    State(state): State<AppState>,
    Caller(account): Caller,
    ApiJson(body): ApiJson<DeleteBody>,
) -> ApiResult<StatusCode> {
    if account.registered && !verified(&state, account.password_hash.clone(), body.password).await? {
        return Err(wrong_password());
    }
    if account.is_admin {
        return Err(super::moderation::forbidden(
            "an administrator's account is deleted once another administrator has taken his role away",
        ));
    }
    state.store().delete_account(account.id).await?;
    end_sessions(&state, account.id).await;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /api/me/export`: everything the server keeps about the caller, as
/// one JSON document to download.
#[utoipa::path(
    get,
    path = "/api/me/export",
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller's data: account, profile, games, sanctions, blocks and the reports he filed", body = Object),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`suspended` or `banned`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn export(State(state): State<AppState>, Caller(account): Caller) -> ApiResult<Response> {
    let store = state.store();
    let profile = store
        .profile(account.id)
        .await?
        .ok_or_else(|| ApiError::not_found("player"))?;
    let profile = spades_lobby::views::profile(profile)?;
    let games: Vec<_> = store
        .recent_games(account.id, 100_000)
        .await?
        .into_iter()
        .map(spades_lobby::views::recent_game)
        .collect::<Result<_, _>>()?;
    let sanctions: Vec<_> = store
        .sanctions_of(account.id)
        .await?
        .into_iter()
        .map(|sanction| sanction_view(sanction, &account.name))
        .collect();
    let blocks = blocked(&state, account.id).await?;
    let document = json!({
        "exported_at": crate::moderation::rfc3339(OffsetDateTime::now_utc()),
        "account": {
            "id": account.id,
            "name": account.name,
            "registered": account.registered,
            "role": account.role().as_str(),
        },
        "profile": profile,
        "games": games,
        "sanctions": sanctions,
        "blocked": blocks.blocked,
    });
    let disposition = "attachment; filename=\"spades-account.json\"";
    Ok(([(header::CONTENT_DISPOSITION, disposition)], Json(document)).into_response())
}

async fn blocked(state: &AppState, account: Uuid) -> ApiResult<Blocks> {
    let blocked = state.store().blocks_of(account).await?;
    Ok(Blocks {
        blocked: blocked
            .into_iter()
            .map(|blocked| BlockedPlayer {
                id: blocked.id,
                name: blocked.name,
                since: blocked.created_at,
            })
            .collect(),
    })
}

/// `GET /api/me/blocks`: the players the caller blocks.
#[utoipa::path(
    get,
    path = "/api/me/blocks",
    tag = "players",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The players the caller blocks, most recent first", body = Blocks),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`suspended` or `banned`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn blocks(
    State(state): State<AppState>,
    Caller(account): Caller,
) -> ApiResult<Json<Blocks>> {
    Ok(Json(blocked(&state, account.id).await?))
}

/// `PUT /api/me/blocks/{id}`: the caller blocks a player: his chat is
/// hidden from the caller, and quick play never seats them together.
#[utoipa::path(
    put,
    path = "/api/me/blocks/{id}",
    tag = "players",
    params(("id" = Uuid, Path, description = "The player to block")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "The player is blocked (blocking twice is blocking once)"),
        (status = 400, description = "`bad_path`; `bad_request`: the caller names himself", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`suspended` or `banned`", body = ApiErrorBody),
        (status = 404, description = "`not_found`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn block(
    State(state): State<AppState>,
    Caller(account): Caller,
    ApiPath(id): ApiPath<Uuid>,
) -> ApiResult<StatusCode> {
    if id == account.id {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            "a player cannot block himself",
        ));
    }
    state
        .store()
        .account(id)
        .await?
        .filter(|target| target.deleted_at.is_none())
        .ok_or_else(|| ApiError::not_found("player"))?;
    state.store().block(account.id, id).await?;
    let event = ModerationEvent::Block {
        account: account.id,
        blocked: id,
        on: true,
    };
    state.moderate(event).await;
    Ok(StatusCode::NO_CONTENT)
}

/// `DELETE /api/me/blocks/{id}`: the caller unblocks a player.
#[utoipa::path(
    delete,
    path = "/api/me/blocks/{id}",
    tag = "players",
    params(("id" = Uuid, Path, description = "The player to unblock")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "The player is not blocked"),
        (status = 400, description = "`bad_path`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`suspended` or `banned`", body = ApiErrorBody),
        (status = 404, description = "`not_found`: the caller does not block that player", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn unblock(
    State(state): State<AppState>,
    Caller(account): Caller,
    ApiPath(id): ApiPath<Uuid>,
) -> ApiResult<StatusCode> {
    if state.store().unblock(account.id, id).await? {
        let event = ModerationEvent::Block {
            account: account.id,
            blocked: id,
            on: false,
        };
        state.moderate(event).await;
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found("blocked player"))
    }
}
