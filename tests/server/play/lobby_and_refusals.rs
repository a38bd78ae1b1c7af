//! The lobby, a full server and rule sets that cannot be played. These are what
//! a player meets before a game starts, so the answers must be live, honest
//! about why and never leave a half-made room behind.

use super::*;

#[tokio::test]
async fn the_lobby_lists_public_rooms_and_sends_live_updates() {
    let server = TestServer::start(Config::default()).await;
    let mut watcher = Player::lobby_watcher(&server.url, "Lobbyist").await;

    let mut host = Player::connect(&server.url, "Host").await;
    let code = host.create_room(Default::default(), false).await;
    let update = watcher
        .wait_for(Duration::from_secs(5), |m| {
            matches!(m, ServerMessage::LobbyRoom { .. })
        })
        .await;
    let ServerMessage::LobbyRoom { room } = update else {
        unreachable!()
    };
    assert_eq!(room.room, code);
    assert_eq!(room.spectators, 1, "the room is announced with its creator in it");

    let mut hidden_host = Player::connect(&server.url, "Secret").await;
    let private_code = hidden_host.create_room(Default::default(), true).await;
    assert_eq!(private_code.len(), 10);

    let reply = watcher
        .request(|id| ClientMessage::ListRooms { id })
        .await
        .unwrap();
    let ServerMessage::Rooms { rooms, .. } = reply else {
        panic!("{reply:?}")
    };
    assert!(rooms.iter().any(|r| r.room == code));
    assert!(
        rooms.iter().all(|r| r.room != private_code),
        "private rooms are not listed"
    );

    // A private room is joined by its code.
    let mut guest = Player::connect(&server.url, "Guest").await;
    guest.join_room(&private_code).await;
    guest.sit(2).await;
    assert_eq!(guest.table.seat, Seat::new(2));

    // Seat changes before the game and a taken seat.
    guest.sit(3).await;
    assert_eq!(guest.table.seat, Seat::new(3));
    let refusal = hidden_host.try_sit(3).await;
    assert_eq!(refused(refusal), ErrorCode::SeatTaken);

    // When the host leaves, the room closes and the lobby says so.
    host.request(|id| ClientMessage::LeaveRoom { id }).await.unwrap();
    watcher.wait_for_room_closed(&code).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_with_every_room_open_says_it_is_busy_not_that_its_store_is_down() {
    let server = TestServer::start(Config {
        max_rooms: 1,
        ..Config::default()
    })
    .await;
    let mut first = Player::connect(&server.url, "First").await;
    first.create_room(RulesSpec::default(), false).await;
    let mut second = Player::connect(&server.url, "Second").await;
    let refusal = second.try_create_room().await;
    let Err(spades_client::ClientError::Refused { code, message }) = refusal else {
        panic!("a second room opened: {refusal:?}");
    };
    assert_eq!(code, ErrorCode::ServerBusy);
    assert!(message.contains("too many rooms"), "{message}");
    // The connection carries on: the room it could not open takes nothing
    // from it.
    second.still_answers().await;
}

/// A rule set that cannot be played is refused with the field and the
/// reason, and the presets are listed over HTTP.
#[tokio::test]
async fn impossible_house_rules_are_refused_and_the_presets_are_listed() {
    let server = TestServer::start(Config::default()).await;
    let mut player = Player::connect(&server.url, "Rules").await;
    let answer = player
        .request(|id| ClientMessage::CreateRoom {
            id,
            name: None,
            rules: RulesSpec {
                preset: Some(spades_engine::Preset::Whiz),
                min_team_bid: Some(4),
                ..RulesSpec::default()
            },
            private: false,
            bots: Some(spades_protocol::ws::BotLevel::Basic),
            rated: false,
            speed: Default::default(),
        })
        .await;
    let Err(spades_client::ClientError::Refused { code, message }) = answer else {
        panic!("whiz with a team minimum was not refused: {answer:?}");
    };
    assert_eq!(code, ErrorCode::BadRules);
    assert!(
        message.contains("min_team_bid") && message.contains("whiz"),
        "{message}"
    );

    let presets = server.api().get("/api/presets", None).await;
    assert_eq!(presets.status, 200);
    let list: Vec<spades_protocol::http::PresetInfo> = serde_json::from_str(&presets.body).unwrap();
    let names: Vec<&str> = list.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names.len(), spades_engine::Preset::ALL.len());
    assert_eq!(&names[..2], ["classic", "tournament"]);
    assert!(names.contains(&"suicide") && names.contains(&"board-4"));
    let board = list.iter().find(|p| p.name == "board-4").unwrap();
    assert_eq!(board.rules.min_team_bid, 4);
    server.server.shutdown().await.unwrap();
}
