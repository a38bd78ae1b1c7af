//! Ratings people can trust: a room is rated or casual and says so, only
//! rated tables move ratings, and leaving games at rated tables pauses
//! quick play for a while.

use std::time::Duration;

use spades_client::ClientError;
use spades_protocol::ws::{BotLevel, ClientMessage, ErrorCode, RulesSpec, ServerMessage};

use super::*;

async fn registered_players(site: &Site, names: [&str; 4]) -> Vec<Player> {
    let mut players = Vec::new();
    for name in names {
        let session = site.api().account(name).await;
        players.push(Player::sign_in(&site.server.url, name, &session.token).await);
    }
    players
}

/// Opens a room by `owner` with `private` and `rated`, and returns the
/// answer (a snapshot, or the refusal).
async fn open(owner: &mut Player, private: bool, rated: bool) -> Result<ServerMessage, ClientError> {
    owner
        .request(|id| ClientMessage::CreateRoom {
            speed: Default::default(),
            id,
            name: None,
            rules: RulesSpec::default(),
            private,
            bots: Some(BotLevel::Basic),
            rated,
        })
        .await
}

fn rated_of(snapshot: &ServerMessage) -> (String, bool) {
    match snapshot {
        ServerMessage::Snapshot { state, .. } => (state.room.clone(), state.rated),
        other => panic!("expected a snapshot, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_is_casual_unless_its_creator_asks_for_rated_and_says_which_it_is() {
    let site = Site::start(Config::default()).await;
    let mut players = registered_players(&site, ["Ann", "Bob", "Cy", "Di"]).await;
    let refused = open(&mut players[0], true, true).await;
    assert_eq!(
        refused_code(refused),
        ErrorCode::BadMessage,
        "a private room is casual"
    );
    let (casual, is_rated) = rated_of(&open(&mut players[1], false, false).await.unwrap());
    assert!(!is_rated);
    let (rated, is_rated) = rated_of(&open(&mut players[0], false, true).await.unwrap());
    assert!(is_rated);
    let listed = players[2]
        .request(|id| ClientMessage::ListRooms { id })
        .await
        .unwrap();
    let ServerMessage::Rooms { rooms, .. } = listed else {
        panic!("expected rooms, got {listed:?}");
    };
    let flag = |code: &str| rooms.iter().find(|room| room.room == code).map(|room| room.rated);
    assert_eq!((flag(&rated), flag(&casual)), (Some(true), Some(false)));

    // The game remembers its table's kind.
    for player in players.iter_mut().skip(1) {
        player.join_room(&rated).await;
    }
    for (seat, player) in players.iter_mut().enumerate() {
        player.sit(seat as u8).await;
    }
    players[0].start_game().await;
    let games = site
        .api()
        .get("/api/me/games", Some(&players[0].token))
        .await
        .expect(200)
        .value();
    assert_eq!(games["games"][0]["rated"], true);
    let id = games["games"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(
        site.api().get(&format!("/api/games/{id}"), None).await.value()["rated"],
        true
    );
}

fn refused_code(result: Result<ServerMessage, ClientError>) -> ErrorCode {
    match result {
        Err(ClientError::Refused { code, .. }) => code,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaving_a_game_at_a_rated_table_pauses_quick_play() {
    let config = Config {
        seat_hold: Duration::from_millis(200),
        ..Config::default()
    };
    let site = Site::start(config).await;
    let mut players = registered_players(&site, ["Ann", "Bob", "Cy", "Di"]).await;
    let (code, _) = rated_of(&open(&mut players[0], false, true).await.unwrap());
    for player in players.iter_mut().skip(1) {
        player.join_room(&code).await;
    }
    for (seat, player) in players.iter_mut().enumerate() {
        player.sit(seat as u8).await;
    }
    players[0].start_game().await;
    // Everybody walks out: the game is abandoned, each of them a leaver.
    for player in players.iter_mut() {
        player
            .request(|id| ClientMessage::LeaveRoom { id })
            .await
            .unwrap();
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let paused = loop {
        let me = site.api().me(&players[0].token).await;
        if let Some(until) = me.quick_play_paused_until {
            break until;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the game was never counted as abandoned"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let minutes = (paused - time::OffsetDateTime::now_utc()).whole_minutes();
    assert!(
        (3..=5).contains(&minutes),
        "a first abandon pauses for five minutes: {minutes}"
    );
    let queued = players[0]
        .request(|id| ClientMessage::Queue {
            id,
            rules: spades_engine::Preset::Classic,
            partner: None,
        })
        .await;
    match queued {
        Err(ClientError::Refused { code, message }) => {
            assert_eq!(code, ErrorCode::QuickPlayPaused);
            assert!(message.contains("until"), "{message}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_a_moderator_ends_sends_everyone_away_and_its_game_counts_for_nothing() {
    let site = Site::start(Config::default()).await;
    let mut players = registered_players(&site, ["Ann", "Bob", "Cy", "Di"]).await;
    let code = seat_four_at(&mut players, RulesSpec::default(), true).await;
    players[0].start_game().await;
    let path = format!("/api/rooms/{code}/end");
    let body = serde_json::json!({"reason": "abusive table name"});
    let refused = site
        .call(Method::POST, &path, Some(body.clone()), &players[1].token)
        .await;
    assert_eq!(refused.status, 403);
    let missing = site
        .call(
            Method::POST,
            "/api/rooms/NOSUCH/end",
            Some(body.clone()),
            &site.moderator.token,
        )
        .await;
    assert_eq!(missing.status, 404);
    site.call(Method::POST, &path, Some(body), &site.moderator.token)
        .await
        .expect(204);
    for player in players.iter_mut() {
        let told = player
            .wait_for(Duration::from_secs(5), |m| {
                matches!(
                    m,
                    ServerMessage::Error {
                        code: ErrorCode::RoomEnded,
                        ..
                    }
                )
            })
            .await;
        assert!(
            matches!(told, ServerMessage::Error { ref message, .. } if message.contains("abusive table name"))
        );
    }
    let games = site
        .api()
        .get("/api/me/games", Some(&players[0].token))
        .await
        .expect(200)
        .value();
    assert_eq!(games["games"][0]["status"], "abandoned");
    for player in &players {
        let me = site.api().me(&player.token).await;
        assert_eq!(me.profile.rating, 1500.0, "{}: no rating moved", player.name);
        assert_eq!(
            me.quick_play_paused_until, None,
            "{}: nobody left it",
            player.name
        );
    }
    let log = site
        .call(Method::GET, "/api/audit", None, &site.admin.token)
        .await
        .value();
    assert_eq!(log["lines"][0]["action"], "end_room");
    assert_eq!(log["lines"][0]["detail"], format!("room {code}"));
}
