//! Friends: asking and accepting over HTTP, each friend's presence, an
//! invitation to a table that brings the friend there, pictures, and what
//! the routes refuse.

use std::time::Duration;

use reqwest::Method;
use serde_json::json;
use spades_protocol::friends::{Friends, InviteTo, Presence};
use spades_protocol::ws::{ClientMessage, ErrorCode, RulesSpec, ServerMessage};
use spades_server::Config;

use crate::support::api::Api;
use crate::support::*;

fn invite(player: &str, to: InviteTo) -> impl FnOnce(spades_protocol::ws::MessageId) -> ClientMessage {
    let player = player.to_string();
    move |id| ClientMessage::Invite {
        id,
        player,
        to,
        rules: spades_engine::Preset::Classic,
    }
}

fn refused(answer: Result<ServerMessage, spades_client::ClientError>) -> ErrorCode {
    match answer {
        Err(spades_client::ClientError::Refused { code, .. }) => code,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

async fn friends(api: &Api, token: &str) -> Friends {
    api.get("/api/friends", Some(token)).await.expect(200).json()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn friends_see_each_other_and_an_invitation_brings_one_to_the_table() {
    let server = TestServer::start(Config::default()).await;
    let api = server.api();
    let (ann, bob, cy) = (
        api.account("Ann").await,
        api.account("Bob").await,
        api.account("Cy").await,
    );
    let mut bob_ws = Player::sign_in(&server.url, "Bob", &bob.token).await;

    // Ann asks; Bob is told at once and sees the request.
    let asked = api
        .post("/api/friends", Some(json!({"name": "bob"})), Some(&ann.token))
        .await
        .expect(200)
        .value();
    assert_eq!(
        (asked["status"].as_str(), asked["player"]["name"].as_str()),
        (Some("requested"), Some("Bob"))
    );
    bob_ws
        .wait_for(
            Duration::from_secs(5),
            |m| matches!(m, ServerMessage::FriendRequest { from } if from.name == "Ann"),
        )
        .await;
    let seen = friends(&api, &bob.token).await;
    assert_eq!(
        seen.incoming.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        ["Ann"]
    );
    assert!(seen.friends.is_empty());

    // Bob accepts by asking back. Ann sees him online, in no room.
    let accepted = api
        .post("/api/friends", Some(json!({"name": "Ann"})), Some(&bob.token))
        .await
        .expect(200)
        .value();
    assert_eq!(accepted["status"], "friends");
    let list = friends(&api, &ann.token).await;
    assert_eq!(list.friends.len(), 1);
    assert_eq!(
        (list.friends[0].presence, list.friends[0].room.as_deref()),
        (Presence::Online, None)
    );

    // Ann opens a room and invites Bob; Cy, who is no friend, cannot be.
    let mut ann_ws = Player::sign_in(&server.url, "Ann", &ann.token).await;
    assert_eq!(
        refused(ann_ws.request(invite(&bob.player.id, InviteTo::Table)).await),
        ErrorCode::NotInRoom
    );
    let code = ann_ws.create_room(RulesSpec::default(), false).await;
    ann_ws.sit(0).await;
    assert_eq!(
        refused(ann_ws.request(invite(&cy.player.id, InviteTo::Table)).await),
        ErrorCode::NotFriends
    );
    ann_ws
        .request(invite(&bob.player.id, InviteTo::Table))
        .await
        .expect("invited");
    let invitation = bob_ws
        .wait_for(Duration::from_secs(5), |m| {
            matches!(m, ServerMessage::Invitation { .. })
        })
        .await;
    let ServerMessage::Invitation { from, to, room, .. } = invitation else {
        unreachable!()
    };
    assert_eq!(
        (from.name.as_str(), to, room.as_deref()),
        ("Ann", InviteTo::Table, Some(code.as_str()))
    );
    bob_ws.join_room(&code).await;
    bob_ws.sit(2).await;

    // Both are at Ann's table now, and each sees the other playing there,
    // until Bob hides his table.
    let list = friends(&api, &ann.token).await;
    assert_eq!(
        (list.friends[0].presence, list.friends[0].room.as_deref()),
        (Presence::Playing, Some(code.as_str()))
    );
    api.send(
        Method::PUT,
        "/api/me/presence",
        Some(json!({"hide_table": true})),
        Some(&bob.token),
    )
    .await
    .expect(204);
    let list = friends(&api, &ann.token).await;
    assert_eq!(
        (list.friends[0].presence, list.friends[0].room.as_deref()),
        (Presence::Playing, None)
    );
    assert!(friends(&api, &bob.token).await.hide_table);

    // Gone, Bob is offline and cannot be invited.
    drop(bob_ws);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while friends(&api, &ann.token).await.friends[0].presence != Presence::Offline {
        assert!(
            tokio::time::Instant::now() < deadline,
            "Bob still shows as connected"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        refused(ann_ws.request(invite(&bob.player.id, InviteTo::Queue)).await),
        ErrorCode::PlayerOffline
    );

    // Parting ends it both ways.
    api.send(
        Method::DELETE,
        &format!("/api/friends/{}", ann.player.id),
        None,
        Some(&bob.token),
    )
    .await
    .expect(204);
    assert!(friends(&api, &ann.token).await.friends.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pictures_show_with_the_player_and_bad_requests_are_refused_by_name() {
    let server = TestServer::start(Config::default()).await;
    let api = server.api();
    let ann = api.account("Ann").await;
    api.send(
        Method::PUT,
        "/api/me/avatar",
        Some(json!({"avatar": "fox"})),
        Some(&ann.token),
    )
    .await
    .expect(204);
    let profile = api
        .get(&format!("/api/players/{}", ann.player.id), None)
        .await
        .expect(200)
        .value();
    assert_eq!(profile["avatar"], "fox");
    let mut ann_ws = Player::sign_in(&server.url, "Ann", &ann.token).await;
    let reply = ann_ws
        .request(|id| ClientMessage::CreateRoom {
            id,
            name: None,
            rules: RulesSpec::default(),
            private: false,
            bots: None,
            rated: false,
            speed: Default::default(),
        })
        .await
        .expect("created");
    let ServerMessage::Snapshot { state, .. } = reply else {
        panic!("expected the room's state");
    };
    assert_eq!(
        state.owner.avatar.as_deref(),
        Some("fox"),
        "the table shows the picture"
    );

    let cases = [
        (
            Method::PUT,
            "/api/me/avatar",
            json!({"avatar": "skull"}),
            400,
            "bad_avatar",
        ),
        (
            Method::POST,
            "/api/friends",
            json!({"name": "Ann"}),
            400,
            "bad_request",
        ),
        (
            Method::POST,
            "/api/friends",
            json!({"name": "Nobody"}),
            404,
            "not_found",
        ),
        (
            Method::POST,
            "/api/friends",
            json!({"name": "Ann", "extra": 1}),
            422,
            "bad_fields",
        ),
    ];
    for (method, path, body, status, code) in cases {
        let answer = api.send(method, path, Some(body.clone()), Some(&ann.token)).await;
        assert_eq!(answer.error(), (status, code.to_string()), "{path} {body}");
    }
    let answer = api
        .send(
            Method::DELETE,
            &format!("/api/friends/{}", ann.player.id),
            None,
            Some(&ann.token),
        )
        .await;
    assert_eq!(answer.error().0, 404);
    assert_eq!(api.get("/api/friends", None).await.error().0, 401);

    // A guest has no friends list, and invitations are few a minute.
    let guest = Player::connect(&server.url, "Guest").await;
    let answer = api
        .post("/api/friends", Some(json!({"name": "Ann"})), Some(&guest.token))
        .await;
    assert_eq!(answer.error(), (409, "guest_account".to_string()));
    let mut sent = 0;
    let code = loop {
        match ann_ws.request(invite(&guest.id, InviteTo::Table)).await {
            Err(spades_client::ClientError::Refused {
                code: ErrorCode::NotFriends,
                ..
            }) => sent += 1,
            Err(spades_client::ClientError::Refused { code, .. }) => break code,
            other => panic!("{other:?}"),
        }
        assert!(sent < 50, "no limit on invitations");
    };
    // Refused invitations count too: a limit that only counted friends
    // would let anyone probe who is whose friend at any rate.
    assert_eq!(code, ErrorCode::TooManyInvitations);
    ann_ws.still_answers().await;
}
