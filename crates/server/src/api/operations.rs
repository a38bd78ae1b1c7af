//! The administrators' levers on the whole site: a notice to every
//! connected player, and maintenance (no new rooms, games or queueing).
//! Both reach every node of a cluster at once, and go in the audit log.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post, put};
use spades_lobby::ModerationEvent;
use spades_protocol::http::ApiErrorBody;
use spades_protocol::moderation::{MaintenanceBody, MaintenanceView, NoticeBody};
use spades_store::{Actor, AuditNote};
use time::OffsetDateTime;

use super::moderation::{Administrator, checked_text};
use super::{ApiError, ApiJson, ApiResult};
use crate::AppState;

/// The longest maintenance that may be announced: a week.
const MAX_MAINTENANCE_MINUTES: u32 = 7 * 24 * 60;

pub fn routes() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/api/admin/notice", post(notice))
        .route("/api/admin/maintenance", put(begin).delete(end))
        .route("/api/maintenance", get(show))
}

fn note(admin: &Actor, action: &str, detail: String) -> AuditNote {
    AuditNote {
        actor: admin.clone(),
        action: action.to_string(),
        target: None,
        reason: String::new(),
        detail,
    }
}

/// `POST /api/admin/notice {message}`: a notice to every player connected
/// to any node, as a `notice` of kind `broadcast`.
#[utoipa::path(
    post,
    path = "/api/admin/notice",
    tag = "operations",
    request_body = NoticeBody,
    security(("bearer" = [])),
    responses(
        (status = 204, description = "The notice is on its way to every connected player"),
        (status = 400, description = "`bad_request`: no message, or one too long; `bad_json`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`forbidden`: the caller is not an administrator; `suspended` or `banned`", body = ApiErrorBody),
        (status = 422, description = "`bad_fields`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn notice(
    State(state): State<AppState>,
    Administrator(_, admin): Administrator,
    ApiJson(body): ApiJson<NoticeBody>,
) -> ApiResult<StatusCode> {
    let message = checked_text(&body.message, "message", false)?;
    state
        .store()
        .audit(&note(&admin, "notice", message.clone()))
        .await?;
    state.moderate(ModerationEvent::Notice { message }).await;
    Ok(StatusCode::NO_CONTENT)
}

/// `PUT /api/admin/maintenance {message, minutes}`: maintenance begins.
#[utoipa::path(
    put,
    path = "/api/admin/maintenance",
    tag = "operations",
    request_body = MaintenanceBody,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Maintenance is on, on every node; every connected player was told", body = MaintenanceView),
        (status = 400, description = "`bad_request`: a message too long, or `minutes` 0 or above a week; `bad_json`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`forbidden`: the caller is not an administrator; `suspended` or `banned`", body = ApiErrorBody),
        (status = 422, description = "`bad_fields`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn begin(
    State(state): State<AppState>,
    Administrator(_, admin): Administrator,
    ApiJson(body): ApiJson<MaintenanceBody>,
) -> ApiResult<Json<MaintenanceView>> {
    let message = checked_text(&body.message, "message", true)?;
    if body
        .minutes
        .is_some_and(|minutes| minutes == 0 || minutes > MAX_MAINTENANCE_MINUTES)
    {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            "`minutes` is 1 to 10080 (a week)",
        ));
    }
    let until = body
        .minutes
        .map(|minutes| OffsetDateTime::now_utc() + time::Duration::minutes(i64::from(minutes)));
    let detail = format!("on: {message}");
    state
        .store()
        .set_maintenance(Some((until, &message)), &note(&admin, "maintenance", detail))
        .await?;
    let event = ModerationEvent::Maintenance {
        active: true,
        until,
        message: message.clone(),
    };
    state.moderate(event).await;
    Ok(Json(MaintenanceView {
        active: true,
        until,
        message,
    }))
}

/// `DELETE /api/admin/maintenance`: maintenance ends.
#[utoipa::path(
    delete,
    path = "/api/admin/maintenance",
    tag = "operations",
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Maintenance is over on every node; every connected player was told"),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`forbidden`: the caller is not an administrator; `suspended` or `banned`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn end(
    State(state): State<AppState>,
    Administrator(_, admin): Administrator,
) -> ApiResult<StatusCode> {
    state
        .store()
        .set_maintenance(None, &note(&admin, "maintenance", "off".into()))
        .await?;
    let event = ModerationEvent::Maintenance {
        active: false,
        until: None,
        message: String::new(),
    };
    state.moderate(event).await;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /api/maintenance`: whether the server is in maintenance, for
/// anyone (the web client shows it before a player logs in).
#[utoipa::path(
    get,
    path = "/api/maintenance",
    tag = "operations",
    responses((status = 200, description = "The maintenance in force, if any", body = MaintenanceView)),
)]
pub(crate) async fn show(State(state): State<AppState>) -> Json<MaintenanceView> {
    Json(match state.policy().maintenance() {
        Some(maintenance) => MaintenanceView {
            active: true,
            until: maintenance.until,
            message: maintenance.message,
        },
        None => MaintenanceView {
            active: false,
            until: None,
            message: String::new(),
        },
    })
}
