//! A player's review of his finished game by the expert bot: asked for with
//! `POST /api/games/{id}/review`, read with `GET` (see `crate::reviews`).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use spades_engine::{Action, Seat};
use spades_protocol::http::ApiErrorBody;
use spades_protocol::review::{GameReview, ReviewPending};
use spades_store::StoredGame;
use uuid::Uuid;

use super::games::{refuse_unless_dealt_out, stored_game};
use super::{ApiError, ApiPath, ApiResult, Caller};
use crate::AppState;
use crate::reviews::{Refused, ReviewJob, Standing};

pub fn routes() -> axum::Router<AppState> {
    axum::Router::new().route("/api/games/{id}/review", get(show).post(ask))
}

/// `POST /api/games/{id}/review`: the caller's review of his play in a
/// finished game, or its place in the queue.
#[utoipa::path(
    post,
    path = "/api/games/{id}/review",
    tag = "games",
    operation_id = "ask_review",
    params(("id" = Uuid, Path, description = "The game's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The review, worked out before", body = GameReview),
        (status = 202, description = "The review is queued or being worked out: ask again in a few seconds", body = ReviewPending),
        (status = 400, description = "`bad_path`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`not_a_player`: the caller did not play in the game; `suspended` or `banned`", body = ApiErrorBody),
        (status = 404, description = "`not_found`", body = ApiErrorBody),
        (status = 409, description = "`game_in_progress`: a game is reviewed once it is over; `deals_in_play`: and once its deals are over at every table", body = ApiErrorBody),
        (status = 429, description = "`one_review_at_a_time`: another review the caller asked for is waiting", body = ApiErrorBody),
        (status = 500, description = "`internal`: the game's record could not be replayed", body = ApiErrorBody),
        (status = 503, description = "`reviews_busy`: the server's review queue is full (`Retry-After`); `unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn ask(
    State(state): State<AppState>,
    Caller(account): Caller,
    ApiPath(id): ApiPath<Uuid>,
) -> ApiResult<Response> {
    let (game, seat) = players_game(&state, id, account.id).await?;
    if let Some(answer) = known(&state, id, seat).await? {
        return Ok(answer);
    }
    let job = ReviewJob {
        key: (id, seat),
        asker: account.id,
        rules: spades_lobby::views::rules(&game.rules)?,
        seed: game.seed,
        actions: actions(&game)?,
    };
    match state.reviews().ask(job) {
        Ok(pending) => Ok((StatusCode::ACCEPTED, Json(pending)).into_response()),
        Err(Refused::Full) => Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "reviews_busy",
            "the server is reviewing as many games as it queues; try again in a minute",
        )
        .retry_after(std::time::Duration::from_secs(60))),
        Err(Refused::OneAtATime) => Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "one_review_at_a_time",
            "another of your reviews is waiting; ask for this one once it is done",
        )),
    }
}

/// `GET /api/games/{id}/review`: the caller's review, if it was asked for.
#[utoipa::path(
    get,
    path = "/api/games/{id}/review",
    tag = "games",
    operation_id = "show_review",
    params(("id" = Uuid, Path, description = "The game's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The review", body = GameReview),
        (status = 202, description = "The review is queued or being worked out on this server", body = ReviewPending),
        (status = 400, description = "`bad_path`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`not_a_player`; `suspended` or `banned`", body = ApiErrorBody),
        (status = 404, description = "`not_found`: no such game, or no review asked for", body = ApiErrorBody),
        (status = 409, description = "`game_in_progress`, `deals_in_play`", body = ApiErrorBody),
        (status = 500, description = "`internal`: the game's record could not be replayed", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn show(
    State(state): State<AppState>,
    Caller(account): Caller,
    ApiPath(id): ApiPath<Uuid>,
) -> ApiResult<Response> {
    let (_, seat) = players_game(&state, id, account.id).await?;
    known(&state, id, seat)
        .await?
        .ok_or_else(|| ApiError::not_found("review"))
}

/// The finished game and the caller's seat in it.
async fn players_game(state: &AppState, id: Uuid, account: Uuid) -> ApiResult<(StoredGame, u8)> {
    let game = stored_game(state, id).await?;
    let seat = game
        .players
        .iter()
        .find(|player| player.account_id == account)
        .map(|player| player.seat as u8)
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::FORBIDDEN,
                "not_a_player",
                "only a player of the game can ask for its review",
            )
        })?;
    refuse_unless_dealt_out(state, &game, "it is reviewed").await?;
    Ok((game, seat))
}

/// The stored review, or where it stands in this server's queue.
async fn known(state: &AppState, id: Uuid, seat: u8) -> ApiResult<Option<Response>> {
    if let Some(review) = state.store().review(id, seat).await? {
        return Ok(Some(Json(review).into_response()));
    }
    match state.reviews().standing((id, seat)) {
        Standing::Pending(pending) => Ok(Some((StatusCode::ACCEPTED, Json(pending)).into_response())),
        Standing::Failed => Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "this game's record could not be replayed for a review",
        )),
        Standing::Unknown => Ok(None),
    }
}

/// The game's actions, read back from their stored text.
fn actions(game: &StoredGame) -> ApiResult<Vec<(Seat, Action)>> {
    game.actions
        .iter()
        .map(|stored| {
            let seat = Seat::new(stored.seat);
            let action = stored.action.parse::<Action>().ok();
            seat.zip(action).ok_or_else(|| {
                ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "this game's record could not be read for a review",
                )
            })
        })
        .collect()
}
