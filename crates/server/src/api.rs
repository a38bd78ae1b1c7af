//! The HTTP API: accounts, sessions, profiles, the leaderboard and stored
//! games. Every answer is JSON (a game's history is JSON lines); every error
//! is `{"error": code, "message": text}` with a fitting status.

use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::{Algorithm, Argon2, Params, Version};
use axum::Json;
use axum::extract::path::ErrorKind;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{
    ConnectInfo, DefaultBodyLimit, FromRequest, FromRequestParts, Path, Query, Request, State,
};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
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
        .route("/api/players/{id}", get(player))
        .route("/api/leaderboard", get(leaderboard))
        .route("/api/games/{id}", get(game))
        .route("/api/games/{id}/history", get(history))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
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

/// A JSON body. Unlike `axum::Json`, whose refusals are plain text that
/// names the server's types, it refuses in the API's shape (see
/// `From<JsonRejection>`).
#[derive(Debug)]
pub(crate) struct ApiJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<ApiJson<T>, ApiError> {
        let Json(value) = Json::<T>::from_request(request, state).await?;
        Ok(ApiJson(value))
    }
}

/// The parameters in a request's path, refused in the API's shape.
#[derive(Debug)]
pub(crate) struct ApiPath<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<ApiPath<T>, ApiError> {
        let Path(value) = Path::<T>::from_request_parts(parts, state).await?;
        Ok(ApiPath(value))
    }
}

/// A request's query string, refused in the API's shape.
#[derive(Debug)]
pub(crate) struct ApiQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<ApiQuery<T>, ApiError> {
        let Query(value) = Query::<T>::from_request_parts(parts, state).await?;
        Ok(ApiQuery(value))
    }
}

/// The first error of type `E` in `error`'s chain of sources. axum keeps
/// the deserializer's error, which says where the input went wrong, a few
/// wrappers down.
fn find<'a, E: std::error::Error + 'static>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a E> {
    let mut next = Some(error);
    while let Some(error) = next {
        if let Some(found) = error.downcast_ref::<E>() {
            return Some(found);
        }
        next = error.source();
    }
    None
}

/// A name the client sent, cut short enough to quote in a message.
fn quoted(name: &str) -> String {
    const LONGEST: usize = 40;
    match name.char_indices().nth(LONGEST) {
        Some((end, _)) => format!("`{}...`", &name[..end]),
        None => format!("`{name}`"),
    }
}

/// The messages below are written here rather than taken from serde or
/// axum, whose texts name the server's Rust types ("expected u32",
/// "expected struct Credentials").
impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> ApiError {
        match &rejection {
            JsonRejection::MissingJsonContentType(_) => ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "the body must be JSON, sent with Content-Type: application/json",
            ),
            JsonRejection::JsonSyntaxError(_) => ApiError::new(
                StatusCode::BAD_REQUEST,
                "bad_json",
                json_syntax_message(&rejection),
            ),
            JsonRejection::JsonDataError(_) => ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "bad_fields",
                json_fields_message(&rejection),
            ),
            _ if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                format!("a request's body is at most {} KiB", BODY_LIMIT / 1024),
            ),
            // The body could not be read: the client stopped sending it.
            _ => ApiError::new(
                StatusCode::BAD_REQUEST,
                "bad_request",
                "the request's body could not be read",
            ),
        }
    }
}

fn json_syntax_message(rejection: &JsonRejection) -> String {
    let error = find::<serde_path_to_error::Error<serde_json::Error>>(rejection)
        .map(serde_path_to_error::Error::inner)
        .or_else(|| find::<serde_json::Error>(rejection));
    match error {
        Some(error) if error.is_eof() => "the body's JSON ends too soon (or the body is empty)".into(),
        Some(error) => format!(
            "the body is not valid JSON (at line {}, column {})",
            error.line(),
            error.column()
        ),
        None => "the body is not valid JSON".into(),
    }
}

fn json_fields_message(rejection: &JsonRejection) -> String {
    let Some(error) = find::<serde_path_to_error::Error<serde_json::Error>>(rejection) else {
        return "the body lacks a field, or has one of the wrong type or value".into();
    };
    let path = error.path();
    let at_top = path.iter().next().is_none();
    // The path leads to the object that lacks a field, but to the field
    // itself when it is one too many.
    let missing = |name: &str| {
        if at_top {
            quoted(name)
        } else {
            quoted(&format!("{path}.{name}"))
        }
    };
    let here = |name: &str| {
        if at_top {
            quoted(name)
        } else {
            quoted(&path.to_string())
        }
    };
    // serde words these three the same way for every format, and names
    // the field in backquotes.
    let text = error.inner().to_string();
    let named = |prefix: &str| {
        text.strip_prefix(prefix)
            .and_then(|rest| rest.split_once('`'))
            .map(|(name, _)| name)
    };
    if let Some(name) = named("missing field `") {
        format!("the field {} is missing", missing(name))
    } else if let Some(name) = named("unknown field `") {
        format!("{} is not a field this request takes", here(name))
    } else if let Some(name) = named("duplicate field `") {
        format!("the field {} is given twice", here(name))
    } else if at_top {
        "the body must be a JSON object with the fields this request takes".into()
    } else {
        format!(
            "the field {} has a value of the wrong type or out of range",
            quoted(&path.to_string())
        )
    }
}

impl From<PathRejection> for ApiError {
    fn from(rejection: PathRejection) -> ApiError {
        if rejection.status().is_server_error() {
            // A route whose handler does not fit its path: a bug, not the
            // client's doing.
            tracing::error!(%rejection, "a handler cannot read its route's path");
            return ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "the server could not read the path",
            );
        }
        let key = match &rejection {
            PathRejection::FailedToDeserializePathParams(error) => match error.kind() {
                ErrorKind::ParseErrorAtKey { key, .. }
                | ErrorKind::InvalidUtf8InPathParam { key }
                | ErrorKind::DeserializeError { key, .. } => Some(key.as_str()),
                _ => None,
            },
            _ => None,
        };
        let message = match key {
            Some(key) => format!("the {} in the path is malformed", quoted(key)),
            None => "a value in the path is malformed".into(),
        };
        ApiError::new(StatusCode::BAD_REQUEST, "bad_path", message)
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> ApiError {
        let parameter = find::<serde_path_to_error::Error<serde::de::value::Error>>(&rejection)
            .map(serde_path_to_error::Error::path)
            .filter(|path| path.iter().next().is_some())
            .map(ToString::to_string);
        let message = match parameter {
            Some(parameter) => format!("the query parameter {} is malformed", quoted(&parameter)),
            None => "the query string is malformed".into(),
        };
        ApiError::new(StatusCode::BAD_REQUEST, "bad_query", message)
    }
}

/// The answer to a path that no route serves.
pub(crate) async fn no_route() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        "there is nothing at this path",
    )
}

/// The answer to a method that a path does not take; axum adds `Allow`.
pub(crate) async fn wrong_method() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this path does not take that method",
    )
}

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

/// Login attempts, counted until they are `window` old or succeed. Each
/// counts twice: for the pair of the account name and the client's address,
/// and for the address alone. A request is refused only for attempts from
/// its own address: a count for a name across addresses would be one that
/// strangers could fill to lock the owner out.
///
/// An IPv6 address counts by its /64 network, since a single host is
/// commonly given a whole /64 and could otherwise change address between
/// guesses.
#[derive(Debug)]
pub struct LoginLimiter {
    attempts: Mutex<HashMap<LoginKey, VecDeque<Instant>>>,
    per_name: usize,
    per_address: usize,
    window: Duration,
    /// The hash that the password sent for an unknown name is checked
    /// against (see `login`), made with the server's cost on first use.
    decoy: tokio::sync::OnceCell<String>,
}

/// What attempts are counted for.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum LoginKey {
    /// An account name from an address. The name is kept as the SHA-256 of
    /// its lowercase form, so that a key's size does not depend on what a
    /// client sends.
    Name([u8; 32], Option<IpAddr>),
    Address(Option<IpAddr>),
}

/// A counted attempt, which `LoginLimiter::succeeded` forgives.
#[derive(Debug)]
struct Attempt {
    name: LoginKey,
    address: LoginKey,
    at: Instant,
}

impl LoginLimiter {
    /// A limit of 0 counts as 1: nobody could ever log in otherwise.
    pub fn new(per_name: usize, per_address: usize, window: Duration) -> LoginLimiter {
        LoginLimiter {
            attempts: Mutex::new(HashMap::new()),
            per_name: per_name.max(1),
            per_address: per_address.max(1),
            window,
            decoy: tokio::sync::OnceCell::new(),
        }
    }

    /// The part of a client's address that attempts are counted by.
    fn source(address: Option<IpAddr>) -> Option<IpAddr> {
        address.map(|address| match address.to_canonical() {
            IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from_bits(v6.to_bits() & !u128::from(u64::MAX))),
            v4 => v4,
        })
    }

    fn keys(name: &str, address: Option<IpAddr>) -> (LoginKey, LoginKey) {
        let source = LoginLimiter::source(address);
        let folded = identity::normalize(name).to_lowercase();
        (
            LoginKey::Name(Sha256::digest(folded.as_bytes()).into(), source),
            LoginKey::Address(source),
        )
    }

    /// Counts an attempt to log in as `name` from `address`, or says how long
    /// to wait if a limit is reached. An attempt is counted before its
    /// password is checked, so that many requests sent at once cannot all
    /// pass the check before any of them has failed.
    fn attempt(&self, name: &str, address: Option<IpAddr>) -> Result<Attempt, Duration> {
        let (name, address) = LoginLimiter::keys(name, address);
        let mut attempts = self
            .attempts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let now = Instant::now();
        let mut wait: Option<Duration> = None;
        for (key, limit) in [(name, self.per_name), (address, self.per_address)] {
            let Some(times) = attempts.get_mut(&key) else {
                continue;
            };
            while times
                .front()
                .is_some_and(|&at| now.duration_since(at) >= self.window)
            {
                times.pop_front();
            }
            // Times are in order: the attempt that must age out for the
            // count to fall below the limit is the `len - limit`th.
            if let Some(len) = times.len().checked_sub(limit)
                && let Some(&at) = times.get(len)
            {
                let left = self.window.saturating_sub(now.duration_since(at));
                wait = Some(wait.map_or(left, |wait| wait.max(left)));
            }
        }
        if let Some(wait) = wait {
            return Err(wait);
        }
        // Forget keys with nothing recent, so that the map stays small.
        if attempts.len() > 100_000 {
            let window = self.window;
            attempts.retain(|_, times| times.back().is_some_and(|&at| now.duration_since(at) < window));
        }
        for key in [name, address] {
            attempts.entry(key).or_default().push_back(now);
        }
        Ok(Attempt {
            name,
            address,
            at: now,
        })
    }

    /// Forgives a successful attempt, and the name's earlier failures from
    /// the same address, which were most likely its owner's typing. The
    /// address's failures at other names stand, so that logging in to an
    /// account of one's own cannot reset the count of guesses at others.
    fn succeeded(&self, attempt: Attempt) {
        let mut attempts = self
            .attempts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        attempts.remove(&attempt.name);
        if let Some(times) = attempts.get_mut(&attempt.address)
            && let Some(index) = times.iter().rposition(|&at| at == attempt.at)
        {
            times.remove(index);
        }
    }

    /// A hash of a password nobody has, made with `cost` (the server's; the
    /// hash carries it, so checking against it costs what checking against
    /// an account's costs).
    async fn decoy(&self, cost: PasswordCost) -> ApiResult<String> {
        self.decoy
            .get_or_try_init(|| hash_password(cost, Uuid::new_v4().to_string()))
            .await
            .cloned()
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
    let player = PlayerRef::new(account, name);
    let expires_at = time::OffsetDateTime::now_utc() + lifetime;
    state
        .known_sessions()
        .remember(identity::token_hash(&token), &player, expires_at);
    Ok(SessionAnswer {
        token,
        player: PlayerRef::new(account, name).info(),
    })
}

/// `POST /api/register {name, password}`: a new account and a session.
async fn register(State(state): State<AppState>, ApiJson(body): ApiJson<Credentials>) -> ApiResult<Response> {
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
    ApiJson(body): ApiJson<Credentials>,
) -> ApiResult<Json<SessionAnswer>> {
    let limiter = state.login_limiter();
    let name = identity::normalize(&body.name);
    let attempt = limiter.attempt(&name, address).map_err(|wait| ApiError {
        retry_after: Some(wait),
        ..ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "too_many_attempts",
            "too many failed logins from your address; wait before trying again",
        )
    })?;
    let account = registered_account(&state, &body.name, &name)
        .await?
        .filter(|account| account.password_hash.is_some());
    // A name with no password to check is checked against the decoy, whose
    // cost is the same, so that the answer takes as long as for a wrong
    // password and does not tell which names are registered.
    let hash = match account.as_ref().and_then(|account| account.password_hash.clone()) {
        Some(hash) => hash,
        None => limiter.decoy(state.config().password_cost).await?,
    };
    let verified = verify_password(hash, body.password).await;
    match account {
        Some(account) if verified => {
            limiter.succeeded(attempt);
            Ok(Json(session_for(&state, account.id, &account.name).await?))
        }
        _ => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "bad_credentials",
            "wrong name or password",
        )),
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
async fn claim(
    State(state): State<AppState>,
    headers: HeaderMap,
    ApiJson(body): ApiJson<NewPassword>,
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
    state.known_sessions().forget_account(account.id);
    state.online().end_sessions_of(&account.id.to_string());
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
async fn player(State(state): State<AppState>, ApiPath(id): ApiPath<Uuid>) -> ApiResult<Json<Profile>> {
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
async fn leaderboard(State(state): State<AppState>, ApiQuery(page): ApiQuery<Page>) -> ApiResult<Response> {
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
    ApiQuery(limit): ApiQuery<Limit>,
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
async fn game(State(state): State<AppState>, ApiPath(id): ApiPath<Uuid>) -> ApiResult<Response> {
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
            .map(|stored| serde_json::json!({"seat": stored.seat, "action": stored.action}))
            .collect();
        body["actions"] = actions.into();
    }
    Ok(Json(body).into_response())
}

/// `GET /api/games/{id}/history`: a finished game's hands as JSON lines.
async fn history(State(state): State<AppState>, ApiPath(id): ApiPath<Uuid>) -> ApiResult<Response> {
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

    const HERE: Option<IpAddr> = Some(IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 1)));
    const THERE: Option<IpAddr> = Some(IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 1)));

    /// Makes `count` attempts that fail, each of which must be let through.
    fn fail(limiter: &LoginLimiter, name: &str, address: Option<IpAddr>, count: usize) {
        for n in 0..count {
            assert!(
                limiter.attempt(name, address).is_ok(),
                "attempt {n} at {name} from {address:?}"
            );
        }
    }

    #[test]
    fn the_limiter_counts_per_name_and_address_and_per_address() {
        let limiter = LoginLimiter::new(3, 5, Duration::from_secs(60));
        fail(&limiter, "Ann", HERE, 3);
        let wait = limiter
            .attempt("ANN", HERE)
            .expect_err("the name is locked from here in any case");
        assert!(
            wait > Duration::from_secs(59) && wait <= Duration::from_secs(60),
            "{wait:?}"
        );
        assert!(limiter.attempt("Bob", HERE).is_ok(), "another name is not");
        assert!(
            limiter.attempt("Ann", THERE).is_ok(),
            "nor is the name from elsewhere"
        );
        assert!(limiter.attempt("Cy", HERE).is_ok());
        assert!(
            limiter.attempt("Dee", HERE).is_err(),
            "the address is locked after 5"
        );
        assert!(limiter.attempt("Dee", THERE).is_ok());
    }

    #[test]
    fn failures_from_elsewhere_never_lock_the_owner_out() {
        let limiter = LoginLimiter::new(5, 20, Duration::from_secs(60));
        // Guesses from many addresses, each up to its limit.
        for host in 0..=255u8 {
            let address = Some(IpAddr::from([10, 1, 0, host]));
            fail(&limiter, "owner", address, 5);
            assert!(limiter.attempt("owner", address).is_err());
        }
        let attempt = limiter
            .attempt("Owner", HERE)
            .expect("the owner's address is free");
        limiter.succeeded(attempt);
    }

    #[test]
    fn success_forgives_the_names_failures_but_not_the_addresss() {
        let limiter = LoginLimiter::new(3, 5, Duration::from_secs(60));
        fail(&limiter, "ann", HERE, 2);
        let attempt = limiter.attempt("Ann", HERE).expect("a third try");
        limiter.succeeded(attempt);
        // Had the name's two failures stood, the second of these would be
        // refused.
        fail(&limiter, "Ann", HERE, 2);
        // The address still counts the two failures before the success and
        // the two after it, so one more attempt from it is let through.
        assert!(limiter.attempt("Eve", HERE).is_ok());
        assert!(limiter.attempt("Eve", HERE).is_err());
    }

    #[test]
    fn attempts_age_out() {
        let limiter = LoginLimiter::new(2, 10, Duration::from_millis(100));
        fail(&limiter, "ann", HERE, 2);
        let wait = limiter.attempt("ann", HERE).expect_err("locked");
        std::thread::sleep(wait + Duration::from_millis(5));
        assert!(limiter.attempt("ann", HERE).is_ok());
    }

    #[test]
    fn an_ipv6_host_counts_by_its_network() {
        let limiter = LoginLimiter::new(2, 10, Duration::from_secs(60));
        let host = |last: u16| Some(IpAddr::from([0x2001, 0xdb8, 0, 1, 0, 0, 0, last]));
        fail(&limiter, "ann", host(1), 1);
        fail(&limiter, "ann", host(2), 1);
        assert!(limiter.attempt("ann", host(3)).is_err(), "one /64");
        let next_network = Some(IpAddr::from([0x2001, 0xdb8, 0, 2, 0, 0, 0, 1]));
        assert!(limiter.attempt("ann", next_network).is_ok());
        let mapped = Some(IpAddr::from(
            std::net::Ipv4Addr::new(127, 0, 0, 1).to_ipv6_mapped(),
        ));
        fail(&limiter, "bob", HERE, 2);
        assert!(
            limiter.attempt("bob", mapped).is_err(),
            "a mapped IPv4 address is itself"
        );
    }

    #[test]
    fn names_count_in_their_normal_form() {
        let limiter = LoginLimiter::new(2, 10, Duration::from_secs(60));
        fail(&limiter, "Jos\u{E9}", HERE, 1);
        fail(&limiter, " JOSE\u{301} ", HERE, 1);
        assert!(limiter.attempt("jos\u{E9}", HERE).is_err());
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
