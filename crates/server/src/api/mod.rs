//! The HTTP API: accounts, sessions, profiles, the leaderboard and stored
//! games. Every answer is JSON (a game's history is JSON lines); every error
//! is `{"error": code, "message": text}` with a fitting status
//! (`error.rs`). Password hashing is in `passwords.rs`, the login limiter
//! in `login.rs`.

mod account;
mod caller;
mod error;
mod friends;
mod games;
mod login;
pub(crate) mod moderation;
pub(crate) mod openapi;
mod operations;
mod passwords;
mod reports;
mod reviews;
mod tournaments;

pub use tournaments::routes as tournament_routes;

use axum::Json;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use spades_protocol::http::{
    ApiErrorBody, Credentials, Leaderboard, Me, NewPassword, PresetInfo, Profile, RecentGames, Session,
};
use spades_store::Account;
use uuid::Uuid;

pub use account::RESET_LINK_LIFE;
pub(crate) use caller::Caller;
use caller::{ClientAddress, bearer, refuse_barred_session};
pub(crate) use error::{ApiError, ApiJson, ApiPath, ApiQuery, ApiResult, no_route, wrong_method};
pub use login::LoginLimiter;
use passwords::Lane;
pub use passwords::{Passwords, hash_password};

use crate::AppState;
use crate::identity::{self, NAME_RULES, TokenKind, clean_name};
use spades_room::PlayerRef;

/// The largest request body the API reads. Its largest request, a
/// tournament's settings, takes a few hundred bytes.
pub(crate) const BODY_LIMIT: usize = 16 * 1024;

/// The routes under `/api`.
pub fn routes() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/api/register", post(register))
        .route("/api/login", post(login))
        .route("/api/logout", post(logout))
        .route("/api/claim", post(claim))
        .route("/api/me", get(me))
        .route("/api/me/games", get(my_games))
        .route("/api/players", get(player_named))
        .route("/api/players/{id}", get(player))
        .route("/api/leaderboard", get(leaderboard))
        .route("/api/presets", get(presets))
        .merge(account::routes())
        .merge(friends::routes())
        .merge(moderation::routes())
        .merge(operations::routes())
        .merge(reports::routes())
        .merge(reviews::routes())
        .merge(games::routes())
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
}

/// The shortest and the longest password, in characters.
pub const PASSWORD_LENGTH: (usize, usize) = (MIN_PASSWORD, MAX_PASSWORD);
const MIN_PASSWORD: usize = 8;
const MAX_PASSWORD: usize = 256;

fn check_password(password: &str) -> ApiResult<()> {
    let length = password.chars().count();
    if (MIN_PASSWORD..=MAX_PASSWORD).contains(&length) {
        Ok(())
    } else {
        Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_password",
            format!("a password is {MIN_PASSWORD} to {MAX_PASSWORD} characters"),
        ))
    }
}

fn check_name(name: &str) -> ApiResult<String> {
    clean_name(name).ok_or_else(|| ApiError::new(StatusCode::BAD_REQUEST, "bad_name", NAME_RULES))
}

async fn session_for(state: &AppState, account: Uuid, name: &str) -> ApiResult<Session> {
    let lifetime = state.config().session_lifetime;
    let token = identity::open_session(state.store(), account, TokenKind::Account, lifetime).await?;
    let player = PlayerRef::new(account, name);
    let expires_at = time::OffsetDateTime::now_utc() + lifetime;
    state
        .known_sessions()
        .remember(identity::token_hash(&token), &player, expires_at);
    Ok(Session {
        token,
        player: PlayerRef::new(account, name).info(),
    })
}

/// `POST /api/register {name, password}`: a new account and a session.
#[utoipa::path(
    post,
    path = "/api/register",
    tag = "accounts",
    request_body = Credentials,
    responses(
        (status = 201, description = "The account is made: a player's, whatever its order (`spades admin` makes administrators)", body = Session),
        (status = 403, description = "`suspended` or `banned`: the request carries the token of a suspended or banned player", body = ApiErrorBody),
        (status = 400, description = "`bad_name`, `bad_password`, `bad_json`, or `bad_request` (the body could not be read)", body = ApiErrorBody),
        (status = 409, description = "`name_taken`", body = ApiErrorBody),
        (status = 413, description = "`payload_too_large`", body = ApiErrorBody),
        (status = 415, description = "`unsupported_media_type`", body = ApiErrorBody),
        (status = 422, description = "`bad_fields`", body = ApiErrorBody),
        (status = 500, description = "`internal`: hashing the password failed", body = ApiErrorBody),
        (status = 503, description = "`unavailable`, or `busy` (too many passwords wait to be hashed)", body = ApiErrorBody,
            headers(("Retry-After" = u64, description = "With `busy`: seconds to wait"))),
    )
)]
async fn register(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiJson(body): ApiJson<Credentials>,
) -> ApiResult<Response> {
    refuse_barred_session(&state, &headers).await?;
    let name = check_name(&body.name)?;
    check_password(&body.password)?;
    let hash = state.passwords().hash(body.password).await?;
    let id = Uuid::new_v4();
    state
        .store()
        .create_account(id, &name, Some(&hash), time::OffsetDateTime::now_utc())
        .await?;
    let answer = session_for(&state, id, &name).await?;
    Ok((StatusCode::CREATED, Json(answer)).into_response())
}

/// `POST /api/login {name, password}`: a session for a registered account.
#[utoipa::path(
    post,
    path = "/api/login",
    tag = "accounts",
    request_body = Credentials,
    responses(
        (status = 200, description = "A new session", body = Session),
        (status = 400, description = "`bad_json`, or `bad_request` (the body could not be read)", body = ApiErrorBody),
        (status = 401, description = "`bad_credentials`, for a wrong password and an unregistered name alike", body = ApiErrorBody),
        (status = 403, description = "`suspended` or `banned`: the password is right but the player is kept out, until the time the message gives", body = ApiErrorBody),
        (status = 413, description = "`payload_too_large`", body = ApiErrorBody),
        (status = 415, description = "`unsupported_media_type`", body = ApiErrorBody),
        (status = 422, description = "`bad_fields`", body = ApiErrorBody),
        (status = 429, description = "`too_many_attempts`: too many failed logins from the client's address", body = ApiErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
        (status = 500, description = "`internal`: hashing failed", body = ApiErrorBody),
        (status = 503, description = "`unavailable`, or `busy` (too many passwords wait to be checked); neither counts as a failed login", body = ApiErrorBody,
            headers(("Retry-After" = u64, description = "With `busy`: seconds to wait"))),
    )
)]
async fn login(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    headers: HeaderMap,
    ApiJson(body): ApiJson<Credentials>,
) -> ApiResult<Json<Session>> {
    refuse_barred_session(&state, &headers).await?;
    let limiter = state.login_limiter();
    let name = identity::normalize(&body.name);
    let attempt = limiter.attempt(&name, address).map_err(|wait| {
        tracing::warn!(client = ?address, "login refused: too many failed attempts");
        ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "too_many_attempts",
            "too many failed logins from your address; wait before trying again",
        )
        .retry_after(wait)
    })?;
    let checked = check_login(&state, &body.name, &name, body.password, attempt.lane()).await;
    let account = match checked {
        // The password could not be checked (`busy`, or the store is
        // away): that is no failed login, and it is not counted.
        Err(refused) => {
            limiter.withdraw(attempt);
            return Err(refused);
        }
        Ok(account) => account,
    };
    let shared = attempt.shared(account.is_some());
    if let Some(shared) = shared {
        state.network().share_login(&shared).await;
    }
    match account {
        Some(account) => {
            limiter.succeeded(attempt);
            // The right password of a suspended or banned player opens no
            // session; he is told why instead.
            moderation::refuse_barred(&state, &account).await?;
            Ok(Json(session_for(&state, account.id, &account.name).await?))
        }
        None => {
            // The client, behind a trusted proxy the real one, is what an
            // operator's fail2ban or firewall acts on.
            tracing::info!(client = ?address, "failed login");
            Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "bad_credentials",
                "wrong name or password",
            ))
        }
    }
}

/// The account named `name` (normalised from `typed`) if `password` is
/// its password; `None` for a wrong password or a name with no password;
/// or the refusal that kept the password from being checked.
async fn check_login(
    state: &AppState,
    typed: &str,
    name: &str,
    password: String,
    lane: Lane,
) -> ApiResult<Option<Account>> {
    let account = registered_account(state, typed, name)
        .await?
        .filter(|account| account.password_hash.is_some());
    // A name with no password to check is checked against the decoy, whose
    // cost is the same, so that the answer takes as long as for a wrong
    // password and does not tell which names are registered.
    let hash = match account.as_ref().and_then(|account| account.password_hash.clone()) {
        Some(hash) => hash,
        None => state.login_limiter().decoy(state.passwords()).await?,
    };
    let verified = state.passwords().verify(lane, hash, password).await?;
    Ok(account.filter(|_| verified))
}

/// The registered account named `name` (normalised from `typed`). A name
/// registered before names were stored normalised is found as it was typed.
async fn registered_account(state: &AppState, typed: &str, name: &str) -> ApiResult<Option<Account>> {
    let store = state.store();
    if let Some(account) = store.registered_account(name).await? {
        return Ok(Some(account));
    }
    let typed = typed.trim();
    if typed == name {
        return Ok(None);
    }
    Ok(store.registered_account(typed).await?)
}

/// `POST /api/logout`: ends the bearer token's session.
#[utoipa::path(
    post,
    path = "/api/logout",
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 204, description = "The session is over, and the WebSocket that said `hello` with it is closed"),
        (status = 401, description = "`unauthorized`: no token, or one that is not a live session", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
async fn logout(State(state): State<AppState>, headers: HeaderMap) -> ApiResult<StatusCode> {
    let token = bearer(&headers).ok_or_else(ApiError::unauthorized)?;
    let session = identity::token_hash(token);
    let revoked = state
        .store()
        .revoke_session(&session, time::OffsetDateTime::now_utc())
        .await?;
    if revoked {
        // The session ends everywhere: its WebSocket is closed, and the
        // server no longer vouches for it while the store is away.
        state.known_sessions().forget(&session);
        state.online().end_session(&session);
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::unauthorized())
    }
}

/// `POST /api/claim {password}` with a guest's token: the guest keeps his
/// name (if no registered player has it) and becomes a registered player.
#[utoipa::path(
    post,
    path = "/api/claim",
    tag = "accounts",
    request_body = NewPassword,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The guest is registered under his name and id; his guest token ends", body = Session),
        (status = 400, description = "`bad_password`, `bad_json`, or `bad_request` (the body could not be read)", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 409, description = "`already_registered` (the account has a password), or `name_taken`", body = ApiErrorBody),
        (status = 413, description = "`payload_too_large`", body = ApiErrorBody),
        (status = 415, description = "`unsupported_media_type`", body = ApiErrorBody),
        (status = 422, description = "`bad_fields`", body = ApiErrorBody),
        (status = 500, description = "`internal`: hashing the password failed", body = ApiErrorBody),
        (status = 503, description = "`unavailable`, or `busy` (too many passwords wait to be hashed)", body = ApiErrorBody,
            headers(("Retry-After" = u64, description = "With `busy`: seconds to wait"))),
    )
)]
async fn claim(
    State(state): State<AppState>,
    Caller(account): Caller,
    ApiJson(body): ApiJson<NewPassword>,
) -> ApiResult<Json<Session>> {
    if account.registered {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "already_registered",
            "this account has a password already",
        ));
    }
    check_password(&body.password)?;
    let hash = state.passwords().hash(body.password).await?;
    state.store().claim(account.id, &hash).await?;
    // The guest token opened a session without a password; it ends here.
    let now = time::OffsetDateTime::now_utc();
    state.store().revoke_sessions_of(account.id, now).await?;
    state.known_sessions().forget_account(account.id);
    state.online().end_sessions_of(&account.id.to_string());
    Ok(Json(session_for(&state, account.id, &account.name).await?))
}

/// `GET /api/me`: the caller's profile, with his permissions.
#[utoipa::path(
    get,
    path = "/api/me",
    tag = "players",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller's profile, role and the sanctions that restrict him now", body = Me),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`suspended` or `banned`", body = ApiErrorBody),
        (status = 404, description = "`not_found`: the account has no profile", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
async fn me(State(state): State<AppState>, Caller(account): Caller) -> ApiResult<Json<Me>> {
    let profile = state
        .store()
        .profile(account.id)
        .await?
        .ok_or_else(|| ApiError::not_found("player"))?;
    let mut me = spades_lobby::views::me(profile, &account)?;
    let now = time::OffsetDateTime::now_utc();
    me.sanctions = state
        .store()
        .sanctions_in_force(account.id, now)
        .await?
        .into_iter()
        .map(|sanction| moderation::sanction_view(sanction, &account.name))
        .collect();
    me.quick_play_paused_until = crate::moderation::quick_play_pause(state.store(), account.id).await?;
    Ok(Json(me))
}

/// `GET /api/players/{id}`: anyone's public profile.
#[utoipa::path(
    get,
    path = "/api/players/{id}",
    tag = "players",
    params(("id" = Uuid, Path, description = "The player's id")),
    responses(
        (status = 200, description = "The player's profile", body = Profile),
        (status = 400, description = "`bad_path`: the id is not a UUID", body = ApiErrorBody),
        (status = 404, description = "`not_found`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
async fn player(State(state): State<AppState>, ApiPath(id): ApiPath<Uuid>) -> ApiResult<Json<Profile>> {
    let profile = state
        .store()
        .profile(id)
        .await?
        .ok_or_else(|| ApiError::not_found("player"))?;
    Ok(Json(spades_lobby::views::profile(profile)?))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct Named {
    /// A registered player's name, in any case.
    name: String,
}

/// `GET /api/players?name=NAME`: the registered player of that name, so
/// that a moderator (or anyone) can find someone by the name he plays
/// under; registered names are public, on the leaderboard too.
#[utoipa::path(
    get,
    path = "/api/players",
    tag = "players",
    params(Named),
    responses(
        (status = 200, description = "The registered player's profile", body = Profile),
        (status = 400, description = "`bad_query`: no `name`", body = ApiErrorBody),
        (status = 404, description = "`not_found`: no registered player has that name", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
async fn player_named(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<Named>,
) -> ApiResult<Json<Profile>> {
    let name = identity::normalize(&query.name);
    let account = registered_account(&state, &query.name, &name)
        .await?
        .ok_or_else(|| ApiError::not_found("registered player"))?;
    let profile = state
        .store()
        .profile(account.id)
        .await?
        .ok_or_else(|| ApiError::not_found("registered player"))?;
    Ok(Json(spades_lobby::views::profile(profile)?))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct Page {
    /// The page, from 1 (the default); 0 counts as 1.
    page: Option<u32>,
    /// Players on a page: 20 by default, at most 100 (more counts as 100,
    /// 0 as 1).
    per_page: Option<u32>,
}

/// `GET /api/presets`: the named rule sets, `classic` first, each with a
/// line that says what it changes and its rules in full.
#[utoipa::path(
    get,
    path = "/api/presets",
    tag = "games",
    responses((status = 200, description = "Every preset", body = Vec<PresetInfo>)),
)]
async fn presets() -> Json<Vec<PresetInfo>> {
    Json(
        spades_engine::Preset::ALL
            .iter()
            .map(|preset| PresetInfo {
                name: preset.name().to_owned(),
                summary: preset.summary().to_owned(),
                rules: preset.rules(),
            })
            .collect(),
    )
}

/// `GET /api/leaderboard?page=1&per_page=20`: registered players by rating.
#[utoipa::path(
    get,
    path = "/api/leaderboard",
    tag = "players",
    params(Page),
    responses(
        (status = 200, description = "One page of registered players, best rated first", body = Leaderboard),
        (status = 400, description = "`bad_query`: a parameter is not a whole number", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
async fn leaderboard(
    State(state): State<AppState>,
    ApiQuery(page): ApiQuery<Page>,
) -> ApiResult<Json<Leaderboard>> {
    let per_page = page.per_page.unwrap_or(20).clamp(1, 100);
    let number = page.page.unwrap_or(1).max(1);
    // A page whose ranks would not fit in 32 bits is past every player
    // there can be: it is empty, without asking for it.
    let offset = u64::from(number - 1) * u64::from(per_page);
    let first = u32::try_from(offset)
        .ok()
        .filter(|offset| offset.checked_add(per_page).is_some());
    let (players, total) = match first {
        Some(offset) => state.store().leaderboard(offset, per_page).await?,
        None => (Vec::new(), state.store().registered_count().await?),
    };
    let first_rank = first.unwrap_or(0) + 1;
    let players = players
        .into_iter()
        .zip(first_rank..)
        .map(|(profile, rank)| spades_lobby::views::leaderboard_row(profile, rank))
        .collect::<Result<_, _>>()?;
    Ok(Json(Leaderboard {
        page: number,
        per_page,
        total: u64::try_from(total).unwrap_or_default(),
        players,
    }))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct Limit {
    /// Games to list: 20 by default, at most 100 (more counts as 100, 0 as
    /// 1).
    limit: Option<u32>,
}

/// `GET /api/me/games?limit=20`: the caller's recent games.
#[utoipa::path(
    get,
    path = "/api/me/games",
    tag = "games",
    params(Limit),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller's games, newest first", body = RecentGames),
        (status = 400, description = "`bad_query`: `limit` is not a whole number", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
async fn my_games(
    State(state): State<AppState>,
    Caller(account): Caller,
    ApiQuery(limit): ApiQuery<Limit>,
) -> ApiResult<Json<RecentGames>> {
    let games = state
        .store()
        .recent_games(account.id, limit.limit.unwrap_or(20).clamp(1, 100))
        .await?;
    let games = games
        .into_iter()
        .map(spades_lobby::views::recent_game)
        .collect::<Result<_, _>>()?;
    Ok(Json(RecentGames { games }))
}
