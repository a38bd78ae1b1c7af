//! Stored games over HTTP: a game's record and its hand history, each
//! given in full only once the game, and its deals everywhere, are over.

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use spades_protocol::http::{ApiErrorBody, GameRecord, GameStatus};
use spades_store::StoredGame;
use uuid::Uuid;

use super::{ApiError, ApiPath, ApiResult};
use crate::AppState;

pub fn routes() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/api/games/{id}", get(game))
        .route("/api/games/{id}/history", get(history))
}

/// `GET /api/games/{id}`: a stored game. The seed and the actions, which
/// reveal every card, are given only once the game is over.
#[utoipa::path(
    get,
    path = "/api/games/{id}",
    tag = "games",
    params(("id" = Uuid, Path, description = "The game's id")),
    responses(
        (status = 200, description = "The game; `seed` and `actions` once it is over and its deals are over at every table", body = GameRecord),
        (status = 400, description = "`bad_path`: the id is not a UUID", body = ApiErrorBody),
        (status = 404, description = "`not_found`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn game(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<Uuid>,
) -> ApiResult<Json<GameRecord>> {
    let game = stored_game(&state, id).await?;
    let deals_in_play = state.store().deals_in_play(id, game.seed).await?;
    Ok(Json(spades_lobby::views::game_record(game, deals_in_play)?))
}

/// `GET /api/games/{id}/history`: a finished game's hands as JSON lines.
#[utoipa::path(
    get,
    path = "/api/games/{id}/history",
    tag = "games",
    operation_id = "game_history",
    params(("id" = Uuid, Path, description = "The game's id")),
    responses(
        (status = 200, description = "One JSON object per hand, one per line, as `docs/hand-history.md` describes", body = String, content_type = "application/x-ndjson"),
        (status = 400, description = "`bad_path`: the id is not a UUID", body = ApiErrorBody),
        (status = 404, description = "`not_found`", body = ApiErrorBody),
        (status = 409, description = "`game_in_progress`: the history is given once the game is over; `deals_in_play`: and once its deals are over at every table", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn history(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<Uuid>,
) -> ApiResult<Response> {
    let game = stored_game(&state, id).await?;
    refuse_unless_dealt_out(&state, &game, "its history is given").await?;
    // Each line carries the game's id, seed and commitment, so that any
    // one line (or a file of several games) can be checked on its own
    // (protocol.md, "Verifiable deals").
    let game_id = id.to_string();
    let mut lines = String::new();
    for mut record in state.store().hands(id).await? {
        spades_protocol::history::reveal_seed(&mut record, &game_id, game.seed);
        lines.push_str(&record.to_string());
        lines.push('\n');
    }
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], lines).into_response())
}

/// A stored game, or `404 not_found`.
pub(super) async fn stored_game(state: &AppState, id: Uuid) -> ApiResult<StoredGame> {
    state
        .store()
        .game(id)
        .await?
        .ok_or_else(|| ApiError::not_found("game"))
}

/// Refuses what reveals a game's cards (`given`: "its history is given")
/// until the game is over and no other game dealt from its seed is still
/// to finish.
pub(super) async fn refuse_unless_dealt_out(
    state: &AppState,
    game: &StoredGame,
    given: &str,
) -> ApiResult<()> {
    if game.summary.status == <&str>::from(GameStatus::Playing) {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "game_in_progress",
            format!("this game is still being played; {given} once it is over"),
        ));
    }
    if state.store().deals_in_play(game.summary.id, game.seed).await? {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "deals_in_play",
            format!(
                "this game's deals are still being played at another table; {given} once they are over everywhere"
            ),
        ));
    }
    Ok(())
}
