//! Who is asking: the client's address, and the account behind a bearer
//! token, refused when its player is suspended or banned.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use spades_store::Account;

use super::{ApiError, ApiResult, moderation};
use crate::AppState;
use crate::identity;

/// The client's address, when the server knows it.
pub struct ClientAddress(pub(super) Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<ClientAddress, Self::Rejection> {
        let info = parts.extensions.get::<ConnectInfo<SocketAddr>>();
        Ok(ClientAddress(info.map(|ConnectInfo(address)| address.ip())))
    }
}

/// The token of an `Authorization: Bearer TOKEN` header. HTTP takes the
/// scheme's name in any case (RFC 9110, section 11.1).
pub(super) fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// The account behind the request's bearer token. A suspended or banned
/// player's token is refused with `suspended` or `banned`, which says why
/// and until when.
async fn caller(state: &AppState, headers: &HeaderMap) -> ApiResult<Account> {
    let token = bearer(headers).ok_or_else(ApiError::unauthorized)?;
    let account = identity::resolve(state.store(), token)
        .await?
        .ok_or_else(ApiError::unauthorized)?;
    moderation::refuse_barred(state, &account).await?;
    Ok(account)
}

/// Refuses a request that carries the token of a suspended or banned
/// player, even where no token is needed (a registration, a login): he
/// does not get back in under another name from the same session.
pub(super) async fn refuse_barred_session(state: &AppState, headers: &HeaderMap) -> ApiResult<()> {
    let Some(token) = bearer(headers) else {
        return Ok(());
    };
    match identity::resolve(state.store(), token).await? {
        Some(account) => moderation::refuse_barred(state, &account).await,
        None => Ok(()),
    }
}

/// The account behind the request's bearer token, as an extractor. A
/// handler lists it before its path, query and body, so that a request
/// without a valid token is answered `401 unauthorized` whatever else is
/// wrong with it, and nothing of the request is read for a stranger.
pub(crate) struct Caller(pub(crate) Account);

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Caller, ApiError> {
        caller(state, &parts.headers).await.map(Caller)
    }
}
