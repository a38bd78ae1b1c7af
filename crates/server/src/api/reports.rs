//! Reports over HTTP: a player reports another from his profile, and
//! moderators read the open reports and resolve them. A report from the
//! table or the chat goes through the WebSocket instead (`report`), so
//! that the room adds its own context; see `spades_room`.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use serde_json::json;
use spades_protocol::http::ApiErrorBody;
use spades_protocol::moderation::{NewReport, ReportView, Reports, Resolve};
use spades_store::{AuditNote, OPEN_REPORTS_PER_REPORTER, Report};
use uuid::Uuid;

use super::moderation::{Moderator, checked_text};
use super::{ApiError, ApiJson, ApiPath, ApiResult, Caller};
use crate::AppState;

pub fn routes() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/api/players/{id}/report", post(report))
        .route("/api/reports", get(open))
        .route("/api/reports/{id}/resolve", post(resolve))
}

pub(crate) fn report_view(report: Report) -> ReportView {
    ReportView {
        id: report.id,
        reporter: report.reporter_id,
        reporter_name: report.reporter_name,
        player: report.target_id,
        player_name: report.target_name,
        reason: report.reason,
        room: report.room,
        game: report.game_id,
        context: report.context.0,
        created_at: report.created_at,
        resolved_at: report.resolved_at,
        resolution: report.resolution,
    }
}

/// `POST /api/players/{id}/report {reason}`: a player reports another from
/// his profile. The server adds the last game the two played together.
#[utoipa::path(
    post,
    path = "/api/players/{id}/report",
    tag = "moderation",
    params(("id" = Uuid, Path, description = "The reported player's id")),
    request_body = NewReport,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The report is filed for the moderators", body = ReportView),
        (status = 400, description = "`bad_request` (no reason, or one too long; or the caller names himself), `bad_path`, `bad_json`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`suspended` or `banned`", body = ApiErrorBody),
        (status = 404, description = "`not_found`", body = ApiErrorBody),
        (status = 422, description = "`bad_fields`", body = ApiErrorBody),
        (status = 429, description = "`too_many_reports`: the caller has 20 reports still open", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn report(
    State(state): State<AppState>,
    Caller(reporter): Caller,
    ApiPath(id): ApiPath<Uuid>,
    ApiJson(body): ApiJson<NewReport>,
) -> ApiResult<(StatusCode, Json<ReportView>)> {
    let reason = checked_text(&body.reason, "reason", false)?;
    if id == reporter.id {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            "a player cannot report himself",
        ));
    }
    let store = state.store();
    store
        .account(id)
        .await?
        .filter(|target| target.deleted_at.is_none())
        .ok_or_else(|| ApiError::not_found("player"))?;
    if store.open_reports_by(reporter.id).await? >= OPEN_REPORTS_PER_REPORTER {
        return Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "too_many_reports",
            "you have 20 reports the moderators have not resolved yet; wait for them",
        ));
    }
    let shared = store.last_game_together(reporter.id, id).await?;
    let new = spades_store::NewReport {
        id: Uuid::new_v4(),
        reporter: reporter.id,
        target: id,
        reason,
        room: shared.as_ref().map(|(_, room)| room.clone()),
        game: shared.as_ref().map(|(game, _)| *game),
        context: json!({"from": "profile", "chat": []}),
    };
    store.add_report(&new).await?;
    let stored = store
        .report(new.id)
        .await?
        .ok_or_else(|| ApiError::not_found("report"))?;
    Ok((StatusCode::CREATED, Json(report_view(stored))))
}

/// `GET /api/reports`: the open reports, oldest first, with their context.
#[utoipa::path(
    get,
    path = "/api/reports",
    tag = "moderation",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The open reports", body = Reports),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`forbidden`: the caller is not a moderator; `suspended` or `banned`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn open(State(state): State<AppState>, _: Moderator) -> ApiResult<Json<Reports>> {
    let reports = state.store().open_reports(200).await?;
    Ok(Json(Reports {
        reports: reports.into_iter().map(report_view).collect(),
    }))
}

/// `POST /api/reports/{id}/resolve {resolution}`: a moderator closes a
/// report, saying what was done.
#[utoipa::path(
    post,
    path = "/api/reports/{id}/resolve",
    tag = "moderation",
    params(("id" = Uuid, Path, description = "The report's id")),
    request_body = Resolve,
    security(("bearer" = [])),
    responses(
        (status = 204, description = "The report is resolved, and that is in the audit log"),
        (status = 400, description = "`bad_request` (no resolution, or one too long), `bad_path`, `bad_json`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`forbidden`; `suspended` or `banned`", body = ApiErrorBody),
        (status = 404, description = "`not_found`: no open report has that id", body = ApiErrorBody),
        (status = 422, description = "`bad_fields`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn resolve(
    State(state): State<AppState>,
    Moderator(moderator, actor): Moderator,
    ApiPath(id): ApiPath<Uuid>,
    ApiJson(body): ApiJson<Resolve>,
) -> ApiResult<StatusCode> {
    let resolution = checked_text(&body.resolution, "resolution", false)?;
    let report = state
        .store()
        .report(id)
        .await?
        .filter(|report| report.resolved_at.is_none())
        .ok_or_else(|| ApiError::not_found("open report"))?;
    let note = AuditNote {
        actor,
        action: "resolve_report".into(),
        target: Some((report.target_id, report.target_name.clone())),
        reason: resolution.clone(),
        detail: format!("report {id}: {}", report.reason),
    };
    if state
        .store()
        .resolve_report(id, moderator.id, &resolution, &note)
        .await?
    {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found("open report"))
    }
}
