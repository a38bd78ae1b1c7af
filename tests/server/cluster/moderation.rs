//! Moderation across nodes: a sanction decided through one node acts at
//! once on the player's connection and rooms on another, and a notice
//! reaches the players of every node.

use spades_protocol::ws::NoticeKind;

use super::*;

fn is_notice(kind: NoticeKind) -> impl Fn(&ServerMessage) -> bool {
    move |message| matches!(message, ServerMessage::Notice { kind: seen, .. } if *seen == kind)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sanction_made_on_one_node_acts_on_every_node() {
    let Some(cluster) = TestCluster::start(2).await else {
        return;
    };
    let (a, b) = (cluster.node(0).address, cluster.node(1).address);
    let admin = Api::new(a).account("Ada").await;
    admin_cli(&cluster.database.url(), &["role", "Ada", "admin"]);
    let sam = Api::new(a).account("Sam").await;
    let bob = Api::new(b).account("Bob").await;

    // Bob chats in a room of node b; muted through node a, he cannot.
    let mut bob_player = Player::sign_in(&cluster.url(1), "Bob", &bob.token).await;
    bob_player.create_room(RulesSpec::default(), false).await;
    bob_player
        .request(|id| ClientMessage::Chat {
            id,
            text: "hello".into(),
        })
        .await
        .unwrap();
    let mute = serde_json::json!({"kind": "mute", "reason": "flooding", "minutes": 30});
    let path = format!("/api/players/{}/sanctions", bob.player.id);
    Api::new(a)
        .post(&path, Some(mute), Some(&admin.token))
        .await
        .expect(201);
    bob_player
        .wait_for(Duration::from_secs(5), is_notice(NoticeKind::Muted))
        .await;
    let said = bob_player
        .request(|id| ClientMessage::Chat {
            id,
            text: "still here".into(),
        })
        .await;
    assert_eq!(
        refused(said),
        ErrorCode::Muted,
        "the room's node knows of the mute"
    );

    // Sam plays through node b; suspended through node a, he is out.
    let mut sam_player = Player::sign_in(&cluster.url(1), "Sam", &sam.token).await;
    let suspend = serde_json::json!({"kind": "suspend", "reason": "cheating", "minutes": 60});
    let path = format!("/api/players/{}/sanctions", sam.player.id);
    Api::new(a)
        .post(&path, Some(suspend), Some(&admin.token))
        .await
        .expect(201);
    sam_player
        .wait_for(Duration::from_secs(5), is_notice(NoticeKind::Suspended))
        .await;
    let closed = sam_player.client.recv().await;
    assert!(
        matches!(closed, Err(ClientError::Closed | ClientError::WebSocket(_))),
        "{closed:?}"
    );
    for node in [0, 1] {
        let mut again = Client::connect(&cluster.url(node)).await.unwrap();
        let refused = again.hello_again(&sam.token).await;
        assert!(
            matches!(
                refused,
                Err(ClientError::Refused {
                    code: ErrorCode::Suspended,
                    ..
                })
            ),
            "node {node}: {refused:?}"
        );
    }

    // A notice sent through node a reaches node b's players.
    let notice = serde_json::json!({"message": "Back in five minutes."});
    Api::new(a)
        .post("/api/admin/notice", Some(notice), Some(&admin.token))
        .await
        .expect(204);
    bob_player
        .wait_for(Duration::from_secs(5), is_notice(NoticeKind::Broadcast))
        .await;
}
