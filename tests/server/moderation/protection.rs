//! What players do to protect themselves: a report from the table carries
//! the room's own record of the chat, a block hides a player's chat, and
//! the owner of a private room removes a player for good.

use std::time::Duration;

use spades_client::ClientError;
use spades_protocol::event::EventKind;
use spades_protocol::ws::{ClientMessage, ErrorCode, ServerMessage};

use super::*;

fn chat_text(message: &ServerMessage) -> Option<(String, bool)> {
    match message.event() {
        Some(EventKind::ChatMessage { text, hidden, .. }) => Some((text.clone(), *hidden)),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_report_from_the_table_carries_the_rooms_chat_and_is_resolved() {
    let site = Site::start(Config::default()).await;
    let mut ann = Player::connect(&site.server.url, "Ann").await;
    let mut rex = Player::connect(&site.server.url, "Rex").await;
    let code = ann.create_room(Default::default(), false).await;
    rex.join_room(&code).await;
    rex.request(|id| ClientMessage::Chat {
        id,
        text: "you play like a fool".into(),
    })
    .await
    .unwrap();

    let (rex_id, reason) = (rex.id.clone(), "insults at the table".to_string());
    let reported = ann
        .request(|id| ClientMessage::Report {
            id,
            player: rex_id,
            reason,
        })
        .await;
    assert!(matches!(reported, Ok(ServerMessage::Ack { .. })), "{reported:?}");
    let empty = ann
        .request(|id| ClientMessage::Report {
            id,
            player: rex.id.clone(),
            reason: " ".into(),
        })
        .await;
    assert_eq!(refused(empty), ErrorCode::BadMessage);
    let stranger = ann
        .request(|id| ClientMessage::Report {
            id,
            player: "nobody".into(),
            reason: "x".into(),
        })
        .await;
    assert_eq!(refused(stranger), ErrorCode::NotInRoom);

    let open = site
        .call(Method::GET, "/api/reports", None, &site.moderator.token)
        .await
        .expect(200)
        .value();
    let report = &open["reports"][0];
    assert_eq!(report["reporter_name"], "Ann");
    assert_eq!(report["player_name"], "Rex");
    assert_eq!(report["room"], code.as_str());
    assert_eq!(report["context"]["chat"][0]["text"], "you play like a fool");
    assert_eq!(report["context"]["chat"][0]["name"], "Rex");

    // From his profile, the report carries what the store has.
    let path = format!("/api/players/{}/report", rex.id);
    site.call(
        Method::POST,
        &path,
        Some(json!({"reason": "again in the lobby"})),
        &ann.token,
    )
    .await
    .expect(201);
    let own = format!("/api/players/{}/report", ann.id);
    let answer = site
        .call(Method::POST, &own, Some(json!({"reason": "me"})), &ann.token)
        .await;
    assert_eq!(answer.status, 400);

    let id = report["id"].as_str().unwrap();
    let resolve = format!("/api/reports/{id}/resolve");
    site.call(
        Method::POST,
        &resolve,
        Some(json!({"resolution": "warned him"})),
        &site.moderator.token,
    )
    .await
    .expect(204);
    let again = site
        .call(
            Method::POST,
            &resolve,
            Some(json!({"resolution": "twice"})),
            &site.moderator.token,
        )
        .await;
    assert_eq!(again.status, 404);
    let open = site
        .call(Method::GET, "/api/reports", None, &site.moderator.token)
        .await
        .value();
    assert_eq!(
        open["reports"].as_array().unwrap().len(),
        1,
        "only the profile report is left"
    );
    let record = format!("/api/players/{}/moderation", rex.id);
    let record = site
        .call(Method::GET, &record, None, &site.moderator.token)
        .await
        .value();
    assert_eq!(record["reports"].as_array().unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocked_players_chat_is_hidden_from_the_blocker_only_and_words_are_masked() {
    let config = Config {
        chat_words: vec!["darn".into(), "# a comment".into()],
        ..Config::default()
    };
    let site = Site::start(config).await;
    let ann_session = site.api().account("Ann").await;
    let mut ann = Player::sign_in(&site.server.url, "Ann", &ann_session.token).await;
    let mut bob = Player::connect(&site.server.url, "Bob").await;
    let mut cy = Player::connect(&site.server.url, "Cy").await;
    let code = ann.create_room(Default::default(), false).await;
    bob.join_room(&code).await;
    cy.join_room(&code).await;
    let path = format!("/api/me/blocks/{}", bob.id);
    site.call(Method::PUT, &path, None, &ann_session.token)
        .await
        .expect(204);
    let blocks = site
        .call(Method::GET, "/api/me/blocks", None, &ann_session.token)
        .await
        .value();
    assert_eq!(blocks["blocked"][0]["name"], "Bob");

    bob.request(|id| ClientMessage::Chat {
        id,
        text: "Darn you".into(),
    })
    .await
    .unwrap();
    let seen_by_cy = cy
        .wait_for(Duration::from_secs(5), |m| chat_text(m).is_some())
        .await;
    assert_eq!(chat_text(&seen_by_cy), Some(("**** you".into(), false)));
    let seen_by_ann = ann
        .wait_for(Duration::from_secs(5), |m| chat_text(m).is_some())
        .await;
    assert_eq!(chat_text(&seen_by_ann), Some((String::new(), true)));
    assert_eq!(ann.gaps, 0, "the hidden line keeps Ann's events whole");

    site.call(Method::DELETE, &path, None, &ann_session.token)
        .await
        .expect(204);
    assert_eq!(
        site.call(Method::DELETE, &path, None, &ann_session.token)
            .await
            .status,
        404
    );
    bob.request(|id| ClientMessage::Chat {
        id,
        text: "sorry".into(),
    })
    .await
    .unwrap();
    let seen = ann
        .wait_for(Duration::from_secs(5), |m| chat_text(m).is_some())
        .await;
    assert_eq!(chat_text(&seen), Some(("sorry".into(), false)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_of_a_private_room_removes_a_player_for_good() {
    let site = Site::start(Config::default()).await;
    let url = &site.server.url;
    let mut players = Vec::new();
    for name in ["Owen", "Pia", "Quin", "Ray"] {
        players.push(Player::connect(url, name).await);
    }
    let code = players[0].create_room(Default::default(), true).await;
    for player in players.iter_mut().skip(1) {
        player.join_room(&code).await;
    }
    for (seat, player) in players.iter_mut().enumerate() {
        player.sit(seat as u8).await;
    }
    let pia = players[1].id.clone();
    // Only the owner removes.
    let refusal = players[2]
        .request(|id| ClientMessage::RemovePlayer {
            id,
            player: pia.clone(),
        })
        .await;
    assert_eq!(refused(refusal), ErrorCode::NotOwner);
    players[0].start_game().await;

    let removed = players[0]
        .request(|id| ClientMessage::RemovePlayer {
            id,
            player: pia.clone(),
        })
        .await;
    assert!(matches!(removed, Ok(ServerMessage::Ack { .. })), "{removed:?}");
    let told = players[1]
        .wait_for(Duration::from_secs(5), |m| {
            matches!(m, ServerMessage::Error { .. })
        })
        .await;
    assert!(
        matches!(
            told,
            ServerMessage::Error {
                code: ErrorCode::Removed,
                ..
            }
        ),
        "{told:?}"
    );
    let seen = players[3]
        .wait_for(Duration::from_secs(5), |m| {
            matches!(m.event(), Some(EventKind::PlayerRemoved { .. }))
        })
        .await;
    assert!(matches!(seen.event(), Some(EventKind::PlayerRemoved { player, .. }) if player.name == "Pia"));
    // He may not come back, and his commands are refused.
    let room = code.clone();
    let back = players[1]
        .request(|id| ClientMessage::JoinRoom { id, room })
        .await;
    assert_eq!(refused(back), ErrorCode::Removed);
    let chat = players[1]
        .request(|id| ClientMessage::Chat {
            id,
            text: "hey".into(),
        })
        .await;
    assert!(matches!(chat, Err(ClientError::Refused { .. })), "{chat:?}");
    // The server plays his seat: the game goes on.
    players[0].still_answers().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_private_rooms_owner_removes_and_not_from_a_public_room() {
    let site = Site::start(Config::default()).await;
    let mut owner = Player::connect(&site.server.url, "Owen").await;
    let mut guest = Player::connect(&site.server.url, "Gus").await;
    let code = owner.create_room(Default::default(), false).await;
    guest.join_room(&code).await;
    let gus = guest.id.clone();
    let answer = owner
        .request(|id| ClientMessage::RemovePlayer { id, player: gus })
        .await;
    assert_eq!(refused(answer), ErrorCode::NotOwner);
    let me = owner.id.clone();
    let answer = owner
        .request(|id| ClientMessage::RemovePlayer { id, player: me })
        .await;
    assert_eq!(
        refused(answer),
        ErrorCode::NotOwner,
        "a public room, whoever is named"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_others_learn_of_a_removal_before_they_see_the_seat_freed() {
    let site = Site::start(Config::default()).await;
    let mut owner = Player::connect(&site.server.url, "Owen").await;
    let mut pia = Player::connect(&site.server.url, "Pia").await;
    let mut quin = Player::connect(&site.server.url, "Quin").await;
    let code = owner.create_room(Default::default(), true).await;
    pia.join_room(&code).await;
    quin.join_room(&code).await;
    pia.sit(1).await;
    let target = pia.id.clone();
    owner
        .request(|id| ClientMessage::RemovePlayer { id, player: target })
        .await
        .expect("removed between games");
    quin.wait_for(Duration::from_secs(5), |m| {
        matches!(m.event(), Some(EventKind::PlayerRemoved { seat: Some(_), .. }))
    })
    .await;
    // Every look at the seats before the removal still shows her seated.
    let last_seats = quin
        .received
        .iter()
        .rev()
        .skip(1)
        .find_map(|m| match m.event() {
            Some(EventKind::Seats { seats, .. }) => Some(seats.clone()),
            _ => None,
        })
        .expect("the seats were shown before");
    assert!(
        last_seats[1].is_some(),
        "the seat looked free before the reason came"
    );
    let freed = quin
        .wait_for(Duration::from_secs(5), |m| {
            matches!(m.event(), Some(EventKind::Seats { .. }))
        })
        .await;
    let Some(EventKind::Seats { seats, .. }) = freed.event() else {
        panic!("{freed:?}");
    };
    assert!(seats[1].is_none(), "Pia's seat is free");
}
