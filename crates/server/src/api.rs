//! The HTTP API: accounts, sessions, profiles, the leaderboard and stored
//! games. Every answer is JSON (a game's history is JSON lines); every error
//! is `{"error": code, "message": text}` with a fitting status.

use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::{Algorithm, Argon2, Params, Version};
use axum::Json;
use axum::extract::{ConnectInfo, FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use spades_protocol::ws::PlayerInfo;
use spades_store::{Account, Profile, StoreError};
use uuid::Uuid;

use crate::AppState;
use crate::identity::{self, NAME_RULES, PlayerRef, TokenKind, clean_name};

/// The cost of hashing a password with Argon2id.
#[derive(Clone, Copy, Debug)]
pub struct PasswordCost {
    pub memory_kib: u32,
    pub iterations: u32,
}

impl Default for PasswordCost {
    /// The OWASP recommendation for Argon2id: 19 MiB, 2 iterations.
    fn default() -> PasswordCost {
        PasswordCost {
            memory_kib: 19 * 1024,
            iterations: 2,
        }
    }
}

/// The routes under `/api`.
pub fn routes() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/api/register", post(register))
        .route("/api/login", post(login))
        .route("/api/logout", post(logout))
        .route("/api/claim", post(claim))
        .route("/api/me", get(me))
        .route("/api/me/games", get(my_games))
        .route("/api/players/{id}", get(player))
        .route("/api/leaderboard", get(leaderboard))
        .route("/api/games/{id}", get(game))
        .route("/api/games/{id}/history", get(history))
}

/// An error answer.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
    retry_after: Option<Duration>,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            retry_after: None,
        }
    }

    fn unauthorized() -> ApiError {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "a valid bearer token is needed",
        )
    }

    pub(crate) fn not_found(what: &str) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", format!("no such {what}"))
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> ApiError {
        match error {
            StoreError::NameTaken => ApiError::new(
                StatusCode::CONFLICT,
                "name_taken",
                "that name is already registered",
            ),
            error => {
                // Details go to the log, not to the client.
                tracing::error!(%error, "storage error in the HTTP API");
                ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "unavailable",
                    "storage is unavailable; try again",
                )
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Json(serde_json::json!({"error": self.code, "message": self.message}));
        let mut response = (self.status, body).into_response();
        if let Some(wait) = self.retry_after
            && let Ok(value) = HeaderValue::from_str(&wait.as_secs().max(1).to_string())
        {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        response
    }
}

pub(crate) type ApiResult<T> = Result<T, ApiError>;

/// The client's address, when the server knows it.
pub struct ClientAddress(Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<ClientAddress, Self::Rejection> {
        let info = parts.extensions.get::<ConnectInfo<SocketAddr>>();
        Ok(ClientAddress(info.map(|ConnectInfo(address)| address.ip())))
    }
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
        .map(str::trim)
}

/// The account behind the request's bearer token.
pub(crate) async fn caller(state: &AppState, headers: &HeaderMap) -> ApiResult<Account> {
    let token = bearer(headers).ok_or_else(ApiError::unauthorized)?;
    identity::resolve(state.store(), token)
        .await?
        .ok_or_else(ApiError::unauthorized)
}

fn hasher(cost: PasswordCost) -> Argon2<'static> {
    // The parameters are checked once when the server's settings are read
    // (`Config::validate`), so they are valid here.
    let params = Params::new(cost.memory_kib, cost.iterations, 1, None).unwrap_or_default();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// Hashes a password on a blocking thread: it takes tens of milliseconds.
async fn hash_password(cost: PasswordCost, password: String) -> ApiResult<String> {
    tokio::task::spawn_blocking(move || {
        hasher(cost)
            .hash_password(password.as_bytes())
            .map(|hash| hash.to_string())
    })
    .await
    .map_err(|_| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", "hashing failed"))?
    .map_err(|_| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", "hashing failed"))
}

async fn verify_password(hash: String, password: String) -> bool {
    tokio::task::spawn_blocking(move || {
        PasswordHash::new(&hash)
            .map(|parsed| {
                Argon2::default()
                    .verify_password(password.as_bytes(), &parsed)
                    .is_ok()
            })
            .unwrap_or(false)
    })
    .await
    .unwrap_or(false)
}

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

/// Failed logins, counted per account name and per client address.
#[derive(Debug)]
pub struct LoginLimiter {
    failures: Mutex<HashMap<String, VecDeque<Instant>>>,
    per_account: usize,
    per_address: usize,
    window: Duration,
}

impl LoginLimiter {
    pub fn new(per_account: usize, per_address: usize, window: Duration) -> LoginLimiter {
        LoginLimiter {
            failures: Mutex::new(HashMap::new()),
            per_account,
            per_address,
            window,
        }
    }

    fn keys(name: &str, address: Option<IpAddr>) -> [(String, bool); 2] {
        [
            (format!("account:{}", name.trim().to_lowercase()), true),
            (
                address.map_or_else(|| "address:unknown".into(), |ip| format!("address:{ip}")),
                false,
            ),
        ]
    }

    /// How long the caller must wait, if a limit is reached.
    fn blocked(&self, name: &str, address: Option<IpAddr>) -> Option<Duration> {
        let mut failures = self
            .failures
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let now = Instant::now();
        let mut wait = None;
        for (key, is_account) in LoginLimiter::keys(name, address) {
            let limit = if is_account {
                self.per_account
            } else {
                self.per_address
            };
            if let Some(times) = failures.get_mut(&key) {
                while times
                    .front()
                    .is_some_and(|&at| now.duration_since(at) >= self.window)
                {
                    times.pop_front();
                }
                if times.len() >= limit
                    && let Some(&oldest) = times.front()
                {
                    let left = self.window - now.duration_since(oldest);
                    wait = Some(wait.map_or(left, |w: Duration| w.max(left)));
                }
            }
        }
        wait
    }

    fn failed(&self, name: &str, address: Option<IpAddr>) {
        let mut failures = self
            .failures
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let now = Instant::now();
        // Forget keys with nothing recent, so the map stays small.
        if failures.len() > 100_000 {
            let window = self.window;
            failures.retain(|_, times| times.back().is_some_and(|&at| now.duration_since(at) < window));
        }
        for (key, _) in LoginLimiter::keys(name, address) {
            failures.entry(key).or_default().push_back(now);
        }
    }

    fn succeeded(&self, name: &str) {
        let mut failures = self
            .failures
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        failures.remove(&format!("account:{}", name.trim().to_lowercase()));
    }
}

#[derive(Deserialize)]
struct Credentials {
    name: String,
    password: String,
}

#[derive(Deserialize)]
struct NewPassword {
    password: String,
}

#[derive(Serialize)]
struct SessionAnswer {
    token: String,
    player: PlayerInfo,
}

async fn session_for(state: &AppState, account: Uuid, name: &str) -> ApiResult<SessionAnswer> {
    let lifetime = state.config().session_lifetime;
    let token = identity::open_session(state.store(), account, TokenKind::Account, lifetime).await?;
    Ok(SessionAnswer {
        token,
        player: PlayerRef::new(account, name).info(),
    })
}

/// `POST /api/register {name, password}`: a new account and a session.
async fn register(State(state): State<AppState>, Json(body): Json<Credentials>) -> ApiResult<Response> {
    let name = check_name(&body.name)?;
    check_password(&body.password)?;
    let hash = hash_password(state.config().password_cost, body.password).await?;
    let id = Uuid::new_v4();
    state
        .store()
        .create_account(id, &name, Some(&hash), time::OffsetDateTime::now_utc())
        .await?;
    // The first registered account administers the server (the first while
    // there is no administrator), and so does the one the settings name: it
    // may run tournaments and give that permission to others.
    let named = state
        .config()
        .admin
        .as_deref()
        .is_some_and(|admin| identity::normalize(admin).eq_ignore_ascii_case(&name));
    if named {
        state.store().set_permissions(id, true, true).await?;
    } else {
        state.store().make_first_admin(id).await?;
    }
    let answer = session_for(&state, id, &name).await?;
    Ok((StatusCode::CREATED, Json(answer)).into_response())
}

/// `POST /api/login {name, password}`: a session for a registered account.
async fn login(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    Json(body): Json<Credentials>,
) -> ApiResult<Json<SessionAnswer>> {
    let limiter = state.login_limiter();
    let name = identity::normalize(&body.name);
    if let Some(wait) = limiter.blocked(&name, address) {
        return Err(ApiError {
            retry_after: Some(wait),
            ..ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_attempts",
                "too many failed logins; wait",
            )
        });
    }
    let account = registered_account(&state, &body.name, &name).await?;
    let verified = match account.as_ref().and_then(|account| account.password_hash.clone()) {
        Some(hash) => verify_password(hash, body.password).await,
        None => false,
    };
    match account {
        Some(account) if verified => {
            limiter.succeeded(&name);
            Ok(Json(session_for(&state, account.id, &account.name).await?))
        }
        _ => {
            limiter.failed(&name, address);
            Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "bad_credentials",
                "wrong name or password",
            ))
        }
    }
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
async fn logout(State(state): State<AppState>, headers: HeaderMap) -> ApiResult<StatusCode> {
    let token = bearer(&headers).ok_or_else(ApiError::unauthorized)?;
    let revoked = state
        .store()
        .revoke_session(&identity::token_hash(token), time::OffsetDateTime::now_utc())
        .await?;
    if revoked {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::unauthorized())
    }
}

/// `POST /api/claim {password}` with a guest's token: the guest keeps his
/// name (if no registered player has it) and becomes a registered player.
async fn claim(
    State(state): State<AppState>,
    headers: HeaderMap,
    Json(body): Json<NewPassword>,
) -> ApiResult<Json<SessionAnswer>> {
    let account = caller(&state, &headers).await?;
    if account.registered {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "already_registered",
            "this account has a password already",
        ));
    }
    check_password(&body.password)?;
    let hash = hash_password(state.config().password_cost, body.password).await?;
    state.store().claim(account.id, &hash).await?;
    // The guest token opened a session without a password; it ends here.
    let now = time::OffsetDateTime::now_utc();
    state.store().revoke_sessions_of(account.id, now).await?;
    Ok(Json(session_for(&state, account.id, &account.name).await?))
}

/// `GET /api/me`: the caller's profile, with his permissions.
async fn me(State(state): State<AppState>, headers: HeaderMap) -> ApiResult<Response> {
    let account = caller(&state, &headers).await?;
    let profile = state
        .store()
        .profile(account.id)
        .await?
        .ok_or_else(|| ApiError::not_found("player"))?;
    let mut body = serde_json::to_value(profile).unwrap_or_default();
    body["is_admin"] = account.is_admin.into();
    body["can_organize"] = account.can_organize.into();
    Ok(Json(body).into_response())
}

/// `GET /api/players/{id}`: anyone's public profile.
async fn player(State(state): State<AppState>, Path(id): Path<Uuid>) -> ApiResult<Json<Profile>> {
    Ok(Json(
        state
            .store()
            .profile(id)
            .await?
            .ok_or_else(|| ApiError::not_found("player"))?,
    ))
}

#[derive(Deserialize)]
struct Page {
    page: Option<u32>,
    per_page: Option<u32>,
}

/// `GET /api/leaderboard?page=1&per_page=20`: registered players by rating.
async fn leaderboard(State(state): State<AppState>, Query(page): Query<Page>) -> ApiResult<Response> {
    let per_page = page.per_page.unwrap_or(20).clamp(1, 100);
    let number = page.page.unwrap_or(1).max(1);
    let (players, total) = state
        .store()
        .leaderboard((number - 1) * per_page, per_page)
        .await?;
    let first_rank = (number - 1) * per_page + 1;
    let rows: Vec<serde_json::Value> = players
        .into_iter()
        .enumerate()
        .map(|(i, profile)| {
            let mut row = serde_json::to_value(profile).unwrap_or_default();
            row["rank"] = (first_rank + i as u32).into();
            row
        })
        .collect();
    Ok(
        Json(serde_json::json!({"page": number, "per_page": per_page, "total": total, "players": rows}))
            .into_response(),
    )
}

#[derive(Deserialize)]
struct Limit {
    limit: Option<u32>,
}

/// `GET /api/me/games?limit=20`: the caller's recent games.
async fn my_games(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(limit): Query<Limit>,
) -> ApiResult<Response> {
    let account = caller(&state, &headers).await?;
    let games = state
        .store()
        .recent_games(account.id, limit.limit.unwrap_or(20).clamp(1, 100))
        .await?;
    Ok(Json(serde_json::json!({"games": games})).into_response())
}

/// `GET /api/games/{id}`: a stored game. The seed and the actions, which
/// reveal every card, are given only once the game is over.
async fn game(State(state): State<AppState>, Path(id): Path<Uuid>) -> ApiResult<Response> {
    let game = state
        .store()
        .game(id)
        .await?
        .ok_or_else(|| ApiError::not_found("game"))?;
    let mut body = serde_json::to_value(&game.summary).unwrap_or_default();
    body["players"] = serde_json::to_value(&game.players).unwrap_or_default();
    body["rules"] = game.rules.clone();
    if game.summary.status != "playing" {
        body["seed"] = game.seed.to_string().into();
        let actions: Vec<serde_json::Value> = game
            .actions
            .iter()
            .map(|(seat, action)| serde_json::json!({"seat": seat, "action": action}))
            .collect();
        body["actions"] = actions.into();
    }
    Ok(Json(body).into_response())
}

/// `GET /api/games/{id}/history`: a finished game's hands as JSON lines.
async fn history(State(state): State<AppState>, Path(id): Path<Uuid>) -> ApiResult<Response> {
    let game = state
        .store()
        .game(id)
        .await?
        .ok_or_else(|| ApiError::not_found("game"))?;
    if game.summary.status == "playing" {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "game_in_progress",
            "a game's history is given once the game is over",
        ));
    }
    let mut lines = String::new();
    for record in state.store().hands(id).await? {
        lines.push_str(&record.to_string());
        lines.push('\n');
    }
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], lines).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limiter_counts_per_account_and_per_address() {
        let limiter = LoginLimiter::new(3, 5, Duration::from_secs(60));
        let here = Some(IpAddr::from([127, 0, 0, 1]));
        for _ in 0..3 {
            assert!(limiter.blocked("Ann", here).is_none());
            limiter.failed("ann", here);
        }
        assert!(
            limiter.blocked("ANN", here).is_some(),
            "the account is locked in any case"
        );
        assert!(limiter.blocked("Bob", here).is_none(), "another account is not");
        limiter.failed("Bob", here);
        limiter.failed("Cy", here);
        assert!(
            limiter.blocked("Dee", here).is_some(),
            "the address is locked after 5"
        );
        assert!(
            limiter
                .blocked("Dee", Some(IpAddr::from([10, 0, 0, 1])))
                .is_none()
        );
        limiter.succeeded("ann");
    }

    #[test]
    fn passwords_hash_and_verify() {
        let cost = PasswordCost {
            memory_kib: 256,
            iterations: 1,
        };
        let hash = hasher(cost).hash_password(b"correct horse").unwrap().to_string();
        assert!(hash.starts_with("$argon2id$"));
        let parsed = PasswordHash::new(&hash).unwrap();
        assert!(
            Argon2::default()
                .verify_password(b"correct horse", &parsed)
                .is_ok()
        );
        assert!(Argon2::default().verify_password(b"wrong", &parsed).is_err());
    }
}
