//! The administrators' levers: a notice that reaches every connected
//! player, and maintenance that stops new rooms, games and queueing and
//! tells everyone when it ends.

use std::time::Duration;

use spades_protocol::ws::{ClientMessage, ErrorCode, NoticeKind, ServerMessage};

use super::*;

fn is_notice(kind: NoticeKind) -> impl Fn(&ServerMessage) -> bool {
    move |message| matches!(message, ServerMessage::Notice { kind: seen, .. } if *seen == kind)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notice_reaches_every_connected_player() {
    let site = Site::start(Config::default()).await;
    let mut ann = Player::connect(&site.server.url, "Ann").await;
    let mut bob = Player::connect(&site.server.url, "Bob").await;
    let body = json!({"message": "The server restarts at 22:00 UTC."});
    site.call(Method::POST, "/api/admin/notice", Some(body), &site.admin.token)
        .await
        .expect(204);
    for player in [&mut ann, &mut bob] {
        let notice = player
            .wait_for(Duration::from_secs(5), is_notice(NoticeKind::Broadcast))
            .await;
        assert!(matches!(notice, ServerMessage::Notice { ref message, .. } if message.contains("22:00")));
    }
    let empty = site
        .call(
            Method::POST,
            "/api/admin/notice",
            Some(json!({"message": ""})),
            &site.admin.token,
        )
        .await;
    assert_eq!(empty.status, 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn maintenance_stops_new_rooms_games_and_queueing_until_it_ends() {
    let site = Site::start(Config::default()).await;
    let mut players = Vec::new();
    for name in ["Ann", "Bob", "Cy", "Di"] {
        players.push(Player::connect(&site.server.url, name).await);
    }
    let code = seat_four(&mut players, Default::default()).await;
    let body = json!({"message": "Moving to a new machine.", "minutes": 30});
    let on = site
        .call(
            Method::PUT,
            "/api/admin/maintenance",
            Some(body),
            &site.admin.token,
        )
        .await;
    assert_eq!(on.expect(200).value()["active"], true);
    let told = players[1]
        .wait_for(Duration::from_secs(5), is_notice(NoticeKind::Maintenance))
        .await;
    assert!(
        matches!(told, ServerMessage::Notice { until: Some(_), .. }),
        "{told:?}"
    );
    let shown = site.api().get("/api/maintenance", None).await.expect(200).value();
    assert_eq!(shown["message"], "Moving to a new machine.");

    let room = players[1].try_create_room().await;
    assert_eq!(refused(room), ErrorCode::Maintenance);
    let start = players[0].request(|id| ClientMessage::StartGame { id }).await;
    assert_eq!(
        refused(start),
        ErrorCode::Maintenance,
        "the seated table waits too"
    );
    let queue = players[2]
        .request(|id| ClientMessage::Queue {
            id,
            rules: spades_engine::Preset::Classic,
            partner: None,
        })
        .await;
    let (code_seen, message) = match queue {
        Err(spades_client::ClientError::Refused { code, message }) => (code, message),
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert_eq!(code_seen, ErrorCode::Maintenance);
    assert!(
        message.contains("until") && message.contains("Moving"),
        "{message}"
    );

    site.call(Method::DELETE, "/api/admin/maintenance", None, &site.admin.token)
        .await
        .expect(204);
    players[3]
        .wait_for(Duration::from_secs(5), is_notice(NoticeKind::MaintenanceOver))
        .await;
    players[0].start_game().await;
    assert!(!code.is_empty());
    let log = site
        .call(Method::GET, "/api/audit", None, &site.admin.token)
        .await
        .value();
    assert_eq!(log["lines"][0]["action"], "maintenance");
    assert_eq!(log["lines"][0]["detail"], "off");
}
