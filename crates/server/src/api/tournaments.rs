//! The tournament endpoints of the HTTP API, and the permission grant
//! that lets accounts run tournaments.

use axum::Json;
use axum::extract::{DefaultBodyLimit, FromRequestParts, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use spades_engine::RuleSet;
use spades_protocol::http::{
    ApiErrorBody, BotCount, Entry, NewTournament, Permissions, PlayedTournament, TournamentFormat,
    TournamentSummary, TournamentView,
};
use spades_store::Account;
use time::OffsetDateTime;
use uuid::Uuid;

use super::{ApiError, ApiJson, ApiPath, ApiQuery, ApiResult, BODY_LIMIT, Caller};
use crate::AppState;
use crate::identity::clean_text;
use spades_lobby::tournament::Refusal;
use spades_lobby::views;

/// The longest tournament name, in characters (the stores' limit).
const MAX_TOURNAMENT_NAME: usize = 60;

/// The most tournaments one list answer holds.
const LIST_LIMIT: u32 = 200;

pub fn routes() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/api/tournaments", get(list).post(create))
        .route("/api/tournaments/{id}", get(show))
        .route(
            "/api/tournaments/{id}/register",
            post(register).delete(unregister),
        )
        .route("/api/tournaments/{id}/bots", post(add_bots))
        .route("/api/tournaments/{id}/start", post(start))
        .route("/api/tournaments/{id}/cancel", post(cancel))
        .route("/api/players/{id}/tournaments", get(history))
        .route("/api/players/{id}/permissions", post(grant))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
}

impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> ApiError {
        let status = match refusal {
            Refusal::NotFound | Refusal::NotRegistered => StatusCode::NOT_FOUND,
            Refusal::Unavailable(unavailable) => return unavailable.into(),
            _ => StatusCode::CONFLICT,
        };
        ApiError::new(status, refusal.code(), refusal.message())
    }
}

fn forbidden(message: &str) -> ApiError {
    ApiError::new(StatusCode::FORBIDDEN, "forbidden", message)
}

/// The caller, if he may run tournaments: an extractor listed before the
/// path and body, as [`Caller`] is, so that a stranger is told `401` and a
/// player without the permission `403` before anything else.
struct Organizer(Account);

impl FromRequestParts<AppState> for Organizer {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Organizer, ApiError> {
        let Caller(account) = Caller::from_request_parts(parts, state).await?;
        if account.can_organize || account.is_admin {
            Ok(Organizer(account))
        } else {
            Err(forbidden("only organisers may do that"))
        }
    }
}

fn bad(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
}

/// `POST /api/tournaments`: an organiser creates a tournament.
#[utoipa::path(
    post,
    path = "/api/tournaments",
    tag = "tournaments",
    operation_id = "create_tournament",
    request_body = NewTournament,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The new tournament", body = TournamentView),
        (status = 400, description = "`bad_request` (a setting is out of range, or the body could not be read), or `bad_json`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`forbidden`: the caller is neither an organiser nor an administrator", body = ApiErrorBody),
        (status = 413, description = "`payload_too_large`", body = ApiErrorBody),
        (status = 415, description = "`unsupported_media_type`", body = ApiErrorBody),
        (status = 422, description = "`bad_fields`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
async fn create(
    State(state): State<AppState>,
    Organizer(account): Organizer,
    ApiJson(body): ApiJson<NewTournament>,
) -> ApiResult<Response> {
    let name = clean_text(&body.name, MAX_TOURNAMENT_NAME).ok_or_else(|| {
        bad(format!(
            "a tournament name is 1 to {MAX_TOURNAMENT_NAME} characters and starts with a visible one; \
                 control characters, invisible ones and those that change the direction of text are refused"
        ))
    })?;
    let format: TournamentFormat = body
        .format
        .parse()
        .map_err(|_| bad("the format is knockout, swiss, duplicate_pairs or duplicate_individual"))?;
    if !(4..=1024).contains(&body.max_players) {
        return Err(bad("max_players is between 4 and 1024"));
    }
    let rounds = match (format, body.rounds) {
        (TournamentFormat::Swiss, rounds) => Some(rounds.unwrap_or(7)),
        (format, rounds) if format.is_duplicate() => Some(rounds.unwrap_or(3)),
        (_, None) => None,
        (_, Some(_)) => return Err(bad("rounds are set for a Swiss or duplicate tournament only")),
    };
    if rounds.is_some_and(|rounds| !(1..=30).contains(&rounds)) {
        return Err(bad("a Swiss or duplicate tournament has 1 to 30 rounds"));
    }
    let rules = tournament_rules(format, &body)?;
    let id = Uuid::new_v4();
    let new = spades_store::NewTournament {
        id,
        name,
        format: format.into(),
        organizer: account.id,
        created_at: OffsetDateTime::now_utc(),
        starts_at: body.starts_at,
        max_players: body.max_players,
        rounds,
        rules: serde_json::to_value(rules).unwrap_or_default(),
        seed: Uuid::new_v4().as_u64_pair().0,
    };
    state.store().create_tournament(&new).await?;
    state.tournaments().created(id).await;
    let tournament = state
        .store()
        .tournament(id)
        .await?
        .ok_or_else(|| ApiError::not_found("tournament"))?;
    Ok((StatusCode::CREATED, Json(views::tournament(&tournament)?)).into_response())
}

/// The rule set every game of a new tournament plays: the organiser's
/// preset, bounded as tournament games are.
fn tournament_rules(format: TournamentFormat, body: &NewTournament) -> ApiResult<RuleSet> {
    let base = match body.preset.as_deref() {
        None => RuleSet::TOURNAMENT,
        Some(name) => spades_engine::Preset::from_name(name)
            .ok_or_else(|| bad("the preset is not one of those GET /api/presets lists"))?
            .rules(),
    };
    if !base.partners {
        // Brackets, standings and table results are kept by partnership:
        // a tournament seats pairs and advances the winning pair.
        return Err(bad(
            "tournaments are played in partnerships: presets without partners (solo, three-player) cannot be used for one",
        ));
    }
    // Whatever the preset, a tournament game is bounded: to 300, out at
    // -300 and seven hands unless the organiser says otherwise. A duplicate
    // game plays all its boards: no score ends it sooner.
    let rules = if format.is_duplicate() {
        if body.target.is_some() || body.loss_threshold.is_some() {
            return Err(bad(
                "a duplicate game plays every board: target and loss_threshold do not apply",
            ));
        }
        if body.hands.is_some_and(|boards| !(1..=13).contains(&boards)) {
            return Err(bad("a duplicate round has 1 to 13 boards (hands)"));
        }
        RuleSet {
            target: spades_engine::MAX_POINTS,
            mercy: None,
            max_hands: Some(body.hands.unwrap_or(4)),
            ..base
        }
    } else {
        RuleSet {
            target: body.target.unwrap_or(RuleSet::TOURNAMENT.target),
            mercy: Some(body.loss_threshold.unwrap_or(-300)),
            max_hands: Some(body.hands.unwrap_or(7)),
            ..base
        }
    };
    if body.hands.is_some_and(|hands| hands > 50) {
        return Err(bad("a tournament game has at most 50 hands"));
    }
    rules
        .validate()
        .map_err(|error| bad(format!("{error} (target, loss_threshold, hands)")))?;
    Ok(rules)
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct ListQuery {
    /// `upcoming`, `running` or `finished` (which includes cancelled);
    /// every tournament when absent.
    #[param(inline, value_type = Option<ListedStatus>)]
    status: Option<String>,
}

// The query is read as text and parsed into this, so that another word is
// refused with a message that lists these rather than as a malformed query.
/// Which tournaments `GET /api/tournaments` lists.
#[derive(Clone, Copy, strum::EnumString, utoipa::ToSchema)]
#[strum(serialize_all = "snake_case")]
#[schema(rename_all = "snake_case")]
enum ListedStatus {
    Upcoming,
    Running,
    /// Finished or cancelled.
    Finished,
}

impl ListedStatus {
    /// The stored statuses the word stands for.
    fn stored(self) -> &'static [&'static str] {
        match self {
            ListedStatus::Upcoming => &["open"],
            ListedStatus::Running => &["running"],
            ListedStatus::Finished => &["finished", "cancelled"],
        }
    }
}

/// `GET /api/tournaments?status=upcoming|running|finished`.
#[utoipa::path(
    get,
    path = "/api/tournaments",
    tag = "tournaments",
    operation_id = "list_tournaments",
    params(ListQuery),
    responses(
        (status = 200, description = "The tournaments, newest first (200 at most)", body = Vec<TournamentSummary>),
        (status = 400, description = "`bad_request`: `status` is another word; `bad_query`: the query string is malformed", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
async fn list(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<ListQuery>,
) -> ApiResult<Json<Vec<TournamentSummary>>> {
    let statuses: &[&str] = match query.status.as_deref().map(str::parse::<ListedStatus>) {
        None => &["open", "running", "finished", "cancelled"],
        Some(Ok(listed)) => listed.stored(),
        Some(Err(_)) => return Err(bad("status is upcoming, running or finished")),
    };
    let tournaments = state.store().tournaments(statuses, LIST_LIMIT).await?;
    let tournaments = tournaments
        .into_iter()
        .map(views::tournament_summary)
        .collect::<Result<_, _>>()?;
    Ok(Json(tournaments))
}

/// `GET /api/tournaments/{id}`: the settings, the entrants with their
/// standings and places, and every table of every stage.
#[utoipa::path(
    get,
    path = "/api/tournaments/{id}",
    tag = "tournaments",
    operation_id = "show_tournament",
    params(("id" = Uuid, Path, description = "The tournament's id")),
    responses(
        (status = 200, description = "The tournament, as the WebSocket's `tournament` message shows it", body = TournamentView),
        (status = 400, description = "`bad_path`: the id is not a UUID", body = ApiErrorBody),
        (status = 404, description = "`not_found`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
async fn show(State(state): State<AppState>, ApiPath(id): ApiPath<Uuid>) -> ApiResult<Json<TournamentView>> {
    let tournament = state
        .store()
        .tournament(id)
        .await?
        .ok_or_else(|| ApiError::not_found("tournament"))?;
    Ok(Json(views::tournament(&tournament)?))
}

/// `POST /api/tournaments/{id}/register`: the caller enters.
#[utoipa::path(
    post,
    path = "/api/tournaments/{id}/register",
    tag = "tournaments",
    operation_id = "enter_tournament",
    params(("id" = Uuid, Path, description = "The tournament's id")),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The caller's entry", body = Entry),
        (status = 400, description = "`bad_path`: the id is not a UUID", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 404, description = "`not_found`", body = ApiErrorBody),
        (status = 409, description = "`not_open` (started, finished or cancelled), `full`, or `already_registered`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
async fn register(
    State(state): State<AppState>,
    Caller(account): Caller,
    ApiPath(id): ApiPath<Uuid>,
) -> ApiResult<Response> {
    let entry = state.tournaments().register(id, account.id).await?;
    Ok((StatusCode::CREATED, Json(Entry { entry })).into_response())
}

/// `DELETE /api/tournaments/{id}/register`: the caller withdraws.
#[utoipa::path(
    delete,
    path = "/api/tournaments/{id}/register",
    tag = "tournaments",
    operation_id = "withdraw_from_tournament",
    params(("id" = Uuid, Path, description = "The tournament's id")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "The caller's entry is gone"),
        (status = 400, description = "`bad_path`: the id is not a UUID", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 404, description = "`not_found`, or `not_registered` (the caller has no entry)", body = ApiErrorBody),
        (status = 409, description = "`not_open`: the tournament has started, finished or been cancelled", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
async fn unregister(
    State(state): State<AppState>,
    Caller(account): Caller,
    ApiPath(id): ApiPath<Uuid>,
) -> ApiResult<StatusCode> {
    state.tournaments().unregister(id, account.id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/tournaments/{id}/bots {count}`: an organiser enters bots.
#[utoipa::path(
    post,
    path = "/api/tournaments/{id}/bots",
    tag = "tournaments",
    operation_id = "add_bots",
    params(("id" = Uuid, Path, description = "The tournament's id")),
    request_body = BotCount,
    security(("bearer" = [])),
    responses(
        (status = 204, description = "The bots are entered"),
        (status = 400, description = "`bad_path` (the id is not a UUID), `bad_json`, or `bad_request` (the body could not be read)", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`forbidden`: the caller is neither an organiser nor an administrator", body = ApiErrorBody),
        (status = 404, description = "`not_found`", body = ApiErrorBody),
        (status = 409, description = "`not_open`, or `full` (fewer places are left than `count`)", body = ApiErrorBody),
        (status = 413, description = "`payload_too_large`", body = ApiErrorBody),
        (status = 415, description = "`unsupported_media_type`", body = ApiErrorBody),
        (status = 422, description = "`bad_fields`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
async fn add_bots(
    State(state): State<AppState>,
    _: Organizer,
    ApiPath(id): ApiPath<Uuid>,
    ApiJson(body): ApiJson<BotCount>,
) -> ApiResult<StatusCode> {
    state.tournaments().add_bots(id, body.count).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/tournaments/{id}/start`: an organiser starts it now.
#[utoipa::path(
    post,
    path = "/api/tournaments/{id}/start",
    tag = "tournaments",
    operation_id = "start_tournament",
    params(("id" = Uuid, Path, description = "The tournament's id")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Started: bots fill the field, and the first stage's tables open"),
        (status = 400, description = "`bad_path`: the id is not a UUID", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`forbidden`: the caller is neither an organiser nor an administrator", body = ApiErrorBody),
        (status = 404, description = "`not_found`", body = ApiErrorBody),
        (status = 409, description = "`not_open` (started already, finished or cancelled), or `too_few_players` (under four entries)", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
async fn start(
    State(state): State<AppState>,
    _: Organizer,
    ApiPath(id): ApiPath<Uuid>,
) -> ApiResult<StatusCode> {
    state.tournaments().start(id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/tournaments/{id}/cancel`: an organiser calls it off.
#[utoipa::path(
    post,
    path = "/api/tournaments/{id}/cancel",
    tag = "tournaments",
    operation_id = "cancel_tournament",
    params(("id" = Uuid, Path, description = "The tournament's id")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Cancelled; tables being played finish as ordinary games"),
        (status = 400, description = "`bad_path`: the id is not a UUID", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`forbidden`: the caller is neither an organiser nor an administrator", body = ApiErrorBody),
        (status = 404, description = "`not_found`", body = ApiErrorBody),
        (status = 409, description = "`not_open`: the tournament is over or cancelled already", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
async fn cancel(
    State(state): State<AppState>,
    _: Organizer,
    ApiPath(id): ApiPath<Uuid>,
) -> ApiResult<StatusCode> {
    state.tournaments().cancel(id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /api/players/{id}/tournaments`: the tournaments a player entered,
/// with his standing and place.
#[utoipa::path(
    get,
    path = "/api/players/{id}/tournaments",
    tag = "tournaments",
    operation_id = "player_tournaments",
    params(("id" = Uuid, Path, description = "The player's id")),
    responses(
        (status = 200, description = "The player's tournaments, newest first (200 at most); empty for an unknown id", body = Vec<PlayedTournament>),
        (status = 400, description = "`bad_path`: the id is not a UUID", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
async fn history(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<Uuid>,
) -> ApiResult<Json<Vec<PlayedTournament>>> {
    let played = state.store().player_tournaments(id, LIST_LIMIT).await?;
    let played = played
        .into_iter()
        .map(views::played_tournament)
        .collect::<Result<_, _>>()?;
    Ok(Json(played))
}

/// `POST /api/players/{id}/permissions {organizer, admin}`: an
/// administrator grants or takes away the right to run tournaments (and
/// to administer).
#[utoipa::path(
    post,
    path = "/api/players/{id}/permissions",
    tag = "players",
    operation_id = "grant_permissions",
    params(("id" = Uuid, Path, description = "The registered player's id")),
    request_body = Permissions,
    security(("bearer" = [])),
    responses(
        (status = 204, description = "The player's permissions are set: `admin` implies `organizer`"),
        (status = 400, description = "`bad_path` (the id is not a UUID), `bad_json`, or `bad_request` (the body could not be read)", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`forbidden`: the caller is not an administrator", body = ApiErrorBody),
        (status = 404, description = "`not_found`: no registered player has that id", body = ApiErrorBody),
        (status = 413, description = "`payload_too_large`", body = ApiErrorBody),
        (status = 415, description = "`unsupported_media_type`", body = ApiErrorBody),
        (status = 422, description = "`bad_fields`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
async fn grant(
    State(state): State<AppState>,
    super::moderation::Administrator(_, actor): super::moderation::Administrator,
    ApiPath(id): ApiPath<Uuid>,
    ApiJson(body): ApiJson<Permissions>,
) -> ApiResult<StatusCode> {
    let target = state
        .store()
        .account(id)
        .await?
        .filter(|target| target.registered)
        .ok_or_else(|| ApiError::not_found("registered player"))?;
    state
        .store()
        .set_permissions(target.id, body.admin, body.organizer || body.admin)
        .await?;
    let note = spades_store::AuditNote {
        actor,
        action: "permissions".into(),
        target: Some((target.id, target.name.clone())),
        reason: String::new(),
        detail: format!(
            "organizer: {}, admin: {}",
            body.organizer || body.admin,
            body.admin
        ),
    };
    state.store().audit(&note).await?;
    Ok(StatusCode::NO_CONTENT)
}
