//! Friends and what a player shows of himself: asking, accepting and
//! parting, the list with each friend's whereabouts on every node, the
//! player's picture, and whether his friends see his table.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{delete, get, put};
use spades_protocol::AVATARS;
use spades_protocol::friends::{
    AvatarChoice, FriendAnswer, FriendAsk, FriendView, Friends, Presence, PresenceChoice,
};
use spades_protocol::http::ApiErrorBody;
use spades_protocol::ws::{PlayerInfo, ServerMessage};
use spades_room::Text;
use spades_store::{Friend, FriendState, MAX_FRIENDS};
use uuid::Uuid;

use super::{ApiError, ApiJson, ApiPath, ApiResult, Caller, registered_account};
use crate::{AppState, identity};

pub fn routes() -> axum::Router<AppState> {
    axum::Router::new()
        .route("/api/friends", get(list).post(ask))
        .route("/api/friends/{id}", delete(part))
        .route("/api/me/avatar", put(avatar))
        .route("/api/me/presence", put(presence))
}

fn info(friend: &Friend) -> PlayerInfo {
    PlayerInfo {
        id: friend.id.to_string(),
        name: friend.name.clone(),
        bot: false,
        level: None,
        avatar: friend.avatar.clone(),
    }
}

fn registered_only() -> ApiError {
    ApiError::new(
        StatusCode::CONFLICT,
        "guest_account",
        "friends are for registered players; register with `POST /api/claim`",
    )
}

/// `GET /api/friends`: the caller's friends, with where each is now on
/// any node, and the requests both ways.
#[utoipa::path(
    get,
    path = "/api/friends",
    tag = "players",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Friends by name, with their presence; requests both ways", body = Friends),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`suspended` or `banned`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn list(State(state): State<AppState>, Caller(account): Caller) -> ApiResult<Json<Friends>> {
    let all = state.store().friends_of(account.id).await?;
    let (friends, requests): (Vec<Friend>, Vec<Friend>) = all
        .into_iter()
        .partition(|friend| friend.state == FriendState::Friends);
    let ids: Vec<String> = friends.iter().map(|friend| friend.id.to_string()).collect();
    let elsewhere = state.network().whereabouts(&ids).await;
    let mut views = Vec::with_capacity(friends.len());
    for (i, friend) in friends.iter().enumerate() {
        let id = &ids[i];
        let found = elsewhere.get(i).cloned().unwrap_or_default();
        let online = found.online || state.online().is_connected(id);
        let room = match found.room {
            Some(room) => Some(room),
            None => state
                .lobby()
                .seated_room(id.as_str().into())
                .await
                .unwrap_or_default(),
        };
        let presence = match (online, &room) {
            (_, Some(_)) => Presence::Playing,
            (true, None) => Presence::Online,
            (false, None) => Presence::Offline,
        };
        views.push(FriendView {
            player: info(friend),
            presence,
            room: room.filter(|_| !friend.hide_table),
        });
    }
    let of = |wanted: FriendState| requests.iter().filter(|f| f.state == wanted).map(info).collect();
    Ok(Json(Friends {
        friends: views,
        incoming: of(FriendState::AskedMe),
        outgoing: of(FriendState::Asked),
        hide_table: state.store().hides_table(account.id).await?,
    }))
}

/// `POST /api/friends {name}`: asks a registered player to be a friend, or
/// accepts the request he made. He is told at once if he is connected.
#[utoipa::path(
    post,
    path = "/api/friends",
    tag = "players",
    request_body = FriendAsk,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "`friends`: he had asked first (or they were friends already); `requested`: he has to accept", body = FriendAnswer),
        (status = 400, description = "`bad_request`: the caller names himself; `bad_json`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`blocked`: one of them blocks the other; `suspended` or `banned`", body = ApiErrorBody),
        (status = 404, description = "`not_found`: no registered player has that name", body = ApiErrorBody),
        (status = 409, description = "`guest_account`: guests have no friends list; `too_many_friends`", body = ApiErrorBody),
        (status = 422, description = "`bad_fields`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn ask(
    State(state): State<AppState>,
    Caller(account): Caller,
    ApiJson(body): ApiJson<FriendAsk>,
) -> ApiResult<Json<FriendAnswer>> {
    if !account.registered {
        return Err(registered_only());
    }
    let name = identity::normalize(&body.name);
    let other = registered_account(&state, &body.name, &name)
        .await?
        .filter(|other| other.deleted_at.is_none())
        .ok_or_else(|| ApiError::not_found("registered player"))?;
    if other.id == account.id {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            "a player cannot be his own friend",
        ));
    }
    let policy = state.policy();
    if policy.blocks(account.id, other.id) || policy.blocks(other.id, account.id) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "blocked",
            "one of you blocks the other",
        ));
    }
    let status = match state.store().ask_friend(account.id, other.id).await? {
        spades_store::FriendAsk::Requested => {
            let message = ServerMessage::FriendRequest {
                from: spades_room::PlayerRef::from(&account).info(),
            };
            let other = other.id.to_string();
            let text = Text::from(message.to_json());
            if !state.online().send(&other, text.clone()) {
                state.network().notify(state.online(), &other, text).await;
            }
            "requested"
        }
        spades_store::FriendAsk::Accepted => "friends",
        spades_store::FriendAsk::Unchanged if state.store().are_friends(account.id, other.id).await? => {
            "friends"
        }
        spades_store::FriendAsk::Unchanged => "requested",
        spades_store::FriendAsk::TooMany => {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "too_many_friends",
                format!("at most {MAX_FRIENDS} friends and requests; remove some first"),
            ));
        }
    };
    Ok(Json(FriendAnswer {
        player: spades_room::PlayerRef::from(&other).info(),
        status: status.into(),
    }))
}

/// `DELETE /api/friends/{id}`: ends a friendship, declines a request or
/// withdraws one.
#[utoipa::path(
    delete,
    path = "/api/friends/{id}",
    tag = "players",
    params(("id" = Uuid, Path, description = "The friend's id, or the player of the request")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "They are not friends, and no request is left either way"),
        (status = 400, description = "`bad_path`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`suspended` or `banned`", body = ApiErrorBody),
        (status = 404, description = "`not_found`: no friendship or request with that player", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn part(
    State(state): State<AppState>,
    Caller(account): Caller,
    ApiPath(id): ApiPath<Uuid>,
) -> ApiResult<StatusCode> {
    if state.store().remove_friend(account.id, id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found("friend or request"))
    }
}

/// `PUT /api/me/avatar {avatar}`: the picture others see beside the
/// caller's name, or `null` for his initials. Tables he enters afterwards
/// show it.
#[utoipa::path(
    put,
    path = "/api/me/avatar",
    tag = "players",
    request_body = AvatarChoice,
    security(("bearer" = [])),
    responses(
        (status = 204, description = "The picture is set"),
        (status = 400, description = "`bad_avatar`: not one of the pictures; `bad_json`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`suspended` or `banned`", body = ApiErrorBody),
        (status = 422, description = "`bad_fields`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn avatar(
    State(state): State<AppState>,
    Caller(account): Caller,
    ApiJson(body): ApiJson<AvatarChoice>,
) -> ApiResult<StatusCode> {
    if let Some(avatar) = body.avatar.as_deref()
        && !AVATARS.contains(&avatar)
    {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_avatar",
            format!("the picture must be one of: {}", AVATARS.join(", ")),
        ));
    }
    state
        .store()
        .set_avatar(account.id, body.avatar.as_deref())
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `PUT /api/me/presence {hide_table}`: whether the caller's friends see
/// the table he sits at (they still see that he is playing).
#[utoipa::path(
    put,
    path = "/api/me/presence",
    tag = "players",
    request_body = PresenceChoice,
    security(("bearer" = [])),
    responses(
        (status = 204, description = "The choice is kept"),
        (status = 400, description = "`bad_json`", body = ApiErrorBody),
        (status = 401, description = "`unauthorized`", body = ApiErrorBody),
        (status = 403, description = "`suspended` or `banned`", body = ApiErrorBody),
        (status = 422, description = "`bad_fields`", body = ApiErrorBody),
        (status = 503, description = "`unavailable`", body = ApiErrorBody),
    )
)]
pub(crate) async fn presence(
    State(state): State<AppState>,
    Caller(account): Caller,
    ApiJson(body): ApiJson<PresenceChoice>,
) -> ApiResult<StatusCode> {
    state.store().set_hide_table(account.id, body.hide_table).await?;
    Ok(StatusCode::NO_CONTENT)
}
