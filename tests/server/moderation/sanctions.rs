//! A suspended or banned player is told why and until when, his socket
//! closes at once, and he gets back in through no door: not his old token
//! on the WebSocket or over HTTP, not his password, not a new account made
//! with his session. A muted player cannot chat until the mute is lifted.

use std::time::Duration;

use spades_client::{Client, ClientError};
use spades_protocol::ws::{ClientMessage, ErrorCode, NoticeKind, ServerMessage};

use super::*;
use crate::sessions::{close_code, next_message, signed_in};

fn refusal(result: Result<ServerMessage, ClientError>) -> (ErrorCode, String) {
    match result {
        Err(ClientError::Refused { code, message }) => (code, message),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_suspension_closes_the_socket_with_its_reason_and_keeps_every_door_shut() {
    let site = Site::start(Config::default()).await;
    let api = site.api();
    let sam = api.account("Sam").await;
    let mut socket = signed_in(&site.server, &sam.token).await;

    let body = json!({"kind": "suspend", "reason": "abusive chat", "minutes": 60});
    let made = site
        .sanction(&site.moderator.token, &sam.player.id, body)
        .await
        .expect(201);
    let sanction = made.value();
    assert_eq!(sanction["kind"], "suspend");
    assert_eq!(sanction["in_force"], true);

    // His socket is told why and until when, then closed with 4009.
    let notice = next_message(&mut socket)
        .await
        .expect("a notice before the close");
    let ServerMessage::Notice { kind, message, until } = notice else {
        panic!("expected a notice, got {notice:?}");
    };
    assert_eq!(kind, NoticeKind::Suspended);
    assert!(
        message.contains("abusive chat") && message.contains("until"),
        "{message}"
    );
    assert!(until.is_some());
    assert_eq!(close_code(&mut socket).await, Some(4009));

    // The old token, on the WebSocket and over HTTP.
    let mut client = Client::connect(&site.server.url).await.unwrap();
    let (code, message) = refusal(client.hello_again(&sam.token).await);
    assert_eq!(code, ErrorCode::Suspended);
    assert!(message.contains("abusive chat"), "{message}");
    assert_eq!(api.try_me(&sam.token).await.error().1, "suspended");
    // His right password opens no session; a wrong one says nothing more.
    let login = api.login("Sam", PASSWORD).await;
    assert_eq!(login.error(), (403, "suspended".into()));
    assert_eq!(api.login("Sam", "not his password").await.status, 401);
    // A new account, or a guest's, from the same session is refused.
    let body = json!({"name": "Sam Again", "password": PASSWORD});
    let again = api.post("/api/register", Some(body), Some(&sam.token)).await;
    assert_eq!(again.error(), (403, "suspended".into()));
    let mut guest = Client::connect(&site.server.url).await.unwrap();
    let hello = guest
        .request(|id| ClientMessage::Hello {
            id,
            version: 1,
            name: Some("Sneaky".into()),
            token: Some(sam.token.clone()),
        })
        .await;
    assert_eq!(refusal(hello).0, ErrorCode::Suspended);

    // Lifted, he is back.
    let lift = format!("/api/sanctions/{}/lift", sanction["id"].as_str().unwrap());
    let body = json!({"reason": "appeal granted"});
    let lifted = site
        .call(Method::POST, &lift, Some(body.clone()), &site.moderator.token)
        .await;
    assert!(lifted.expect(200).value()["lifted_at"].is_string());
    assert_eq!(
        site.call(Method::POST, &lift, Some(body), &site.moderator.token)
            .await
            .status,
        404
    );
    api.me(&sam.token).await;
    api.login("Sam", PASSWORD).await.expect(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ban_lasts_until_the_operator_lifts_it_from_the_command_line() {
    let site = Site::start(Config::default()).await;
    let api = site.api();
    let bea = api.account("Bea").await;
    let body = json!({"kind": "ban", "reason": "cheating with a second account"});
    site.sanction(&site.admin.token, &bea.player.id, body)
        .await
        .expect(201);
    let mut client = Client::connect(&site.server.url).await.unwrap();
    let (code, message) = refusal(client.hello_again(&bea.token).await);
    assert_eq!(code, ErrorCode::Banned);
    assert!(message.contains("until it is lifted"), "{message}");
    assert_eq!(api.login("Bea", PASSWORD).await.error(), (403, "banned".into()));

    let printed = site.server.admin(&["lift", "Bea"]);
    assert!(printed.contains("1 sanction"), "{printed}");
    let mut client = Client::connect(&site.server.url).await.unwrap();
    client.hello_again(&bea.token).await.expect("welcome again");
    let audit = site
        .call(Method::GET, "/api/audit", None, &site.admin.token)
        .await
        .expect(200);
    let lines = audit.value()["lines"].as_array().unwrap().clone();
    assert_eq!(lines[0]["action"], "lift");
    assert_eq!(lines[0]["actor_name"], "operator (command line)");
    assert_eq!(lines[0]["target_name"], "Bea");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mute_silences_a_player_until_it_is_lifted_and_a_warning_is_told() {
    let site = Site::start(Config::default()).await;
    let api = site.api();
    let bob_session = api.account("Bob").await;
    let mut ann = Player::connect(&site.server.url, "Ann").await;
    let mut bob = Player::sign_in(&site.server.url, "Bob", &bob_session.token).await;
    let code = ann.create_room(Default::default(), false).await;
    bob.join_room(&code).await;

    let body = json!({"kind": "mute", "reason": "spamming the table", "minutes": 10});
    let mute = site
        .sanction(&site.moderator.token, &bob.id, body)
        .await
        .expect(201)
        .value();
    let notice = bob
        .wait_for(Duration::from_secs(5), |m| {
            matches!(m, ServerMessage::Notice { .. })
        })
        .await;
    assert!(
        matches!(
            notice,
            ServerMessage::Notice {
                kind: NoticeKind::Muted,
                ..
            }
        ),
        "{notice:?}"
    );
    let said = bob
        .request(|id| ClientMessage::Chat {
            id,
            text: "hello?".into(),
        })
        .await;
    let (code, message) = refusal(said);
    assert_eq!(code, ErrorCode::Muted);
    assert!(
        message.contains("spamming the table") && message.contains("until"),
        "{message}"
    );
    let me = api.me(&bob_session.token).await;
    assert_eq!(me.sanctions.len(), 1);
    assert_eq!(me.sanctions[0].kind, "mute");
    ann.request(|id| ClientMessage::Chat {
        id,
        text: "others still talk".into(),
    })
    .await
    .expect("Ann is not muted");

    let lift = format!("/api/sanctions/{}/lift", mute["id"].as_str().unwrap());
    site.call(Method::POST, &lift, Some(json!({})), &site.moderator.token)
        .await
        .expect(200);
    bob.wait_for(Duration::from_secs(5), |m| {
        matches!(
            m,
            ServerMessage::Notice {
                kind: NoticeKind::Unmuted,
                ..
            }
        )
    })
    .await;
    bob.request(|id| ClientMessage::Chat {
        id,
        text: "thanks".into(),
    })
    .await
    .expect("chat again");

    let body = json!({"kind": "warn", "reason": "mind your language"});
    site.sanction(&site.moderator.token, &bob.id, body)
        .await
        .expect(201);
    let warned = bob
        .wait_for(Duration::from_secs(5), |m| {
            matches!(
                m,
                ServerMessage::Notice {
                    kind: NoticeKind::Warning,
                    ..
                }
            )
        })
        .await;
    assert!(
        matches!(warned, ServerMessage::Notice { ref message, .. } if message.contains("mind your language"))
    );
    let record = format!("/api/players/{}/moderation", bob.id);
    let record = site
        .call(Method::GET, &record, None, &site.moderator.token)
        .await
        .expect(200)
        .value();
    let kinds: Vec<&str> = record["sanctions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["warn", "mute"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sanction_is_refused_when_its_terms_are_wrong() {
    let site = Site::start(Config::default()).await;
    let cy = site.api().account("Cy").await;
    let token = &site.moderator.token;
    let cases = [
        json!({"kind": "jail", "reason": "x", "minutes": 5}),
        json!({"kind": "mute", "reason": "no time"}),
        json!({"kind": "suspend", "reason": "too long", "minutes": 600_000}),
        json!({"kind": "warn", "reason": "", }),
        json!({"kind": "warn", "reason": "has a time", "minutes": 5}),
        json!({"kind": "ban", "reason": "x".repeat(501)}),
    ];
    for body in cases {
        let answer = site.sanction(token, &cy.player.id, body.clone()).await;
        assert_eq!(answer.error(), (400, "bad_request".into()), "{body}");
    }
    let unknown = site
        .sanction(token, &uuid_text(), json!({"kind": "warn", "reason": "x"}))
        .await;
    assert_eq!(unknown.status, 404);
    let extra = site
        .sanction(
            token,
            &cy.player.id,
            json!({"kind": "warn", "reason": "x", "why": 1}),
        )
        .await;
    assert_eq!(extra.error().1, "bad_fields");
}

fn uuid_text() -> String {
    "00000000-0000-4000-8000-000000000001".into()
}
