//! Friends across nodes: a friend connected to another node shows as
//! online, then as playing at a table of a third, and an invitation sent
//! through one node reaches him on another.

use reqwest::Method;
use spades_protocol::friends::{Friends, InviteTo, Presence};

use super::*;

async fn friends_of(api: &Api, token: &str) -> Friends {
    api.get("/api/friends", Some(token)).await.expect(200).json()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_friend_on_another_node_is_seen_and_invited() {
    let Some(cluster) = TestCluster::start(3).await else {
        return;
    };
    let (a, b) = (
        Api::new(cluster.node(0).address),
        Api::new(cluster.node(1).address),
    );
    let ann = a.account("Ann").await;
    let bob = b.account("Bob").await;
    a.post(
        "/api/friends",
        Some(serde_json::json!({"name": "Bob"})),
        Some(&ann.token),
    )
    .await
    .expect(200);
    let accepted = b
        .post(
            "/api/friends",
            Some(serde_json::json!({"name": "Ann"})),
            Some(&bob.token),
        )
        .await
        .expect(200)
        .value();
    assert_eq!(accepted["status"], "friends");
    assert_eq!(
        friends_of(&a, &ann.token).await.friends[0].presence,
        Presence::Offline
    );

    // Bob connects to node b: Ann, asking node a, sees him online.
    let mut bob_ws = Player::sign_in(&cluster.url(1), "Bob", &bob.token).await;
    let list = friends_of(&a, &ann.token).await;
    assert_eq!(
        (list.friends[0].presence, list.friends[0].room.as_deref()),
        (Presence::Online, None)
    );

    // Ann opens a room on node c and invites Bob through it; he comes.
    let mut ann_ws = Player::sign_in(&cluster.url(2), "Ann", &ann.token).await;
    let code = ann_ws.create_room(RulesSpec::default(), false).await;
    ann_ws.sit(0).await;
    ann_ws
        .request(|id| ClientMessage::Invite {
            id,
            player: bob.player.id.clone(),
            to: InviteTo::Table,
            rules: spades_engine::Preset::Classic,
        })
        .await
        .expect("invited across nodes");
    let invitation = bob_ws
        .wait_for(Duration::from_secs(5), |m| {
            matches!(m, ServerMessage::Invitation { .. })
        })
        .await;
    let ServerMessage::Invitation { room, .. } = invitation else {
        unreachable!()
    };
    assert_eq!(room.as_deref(), Some(code.as_str()));
    bob_ws.join_room(&code).await;
    bob_ws.sit(2).await;

    // Seated at node c's table, Bob shows as playing there to a friend
    // who asks node a, once the seat has reached the cluster's registry.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let list = friends_of(&a, &ann.token).await;
        if list.friends[0].room.as_deref() == Some(code.as_str()) {
            assert_eq!(list.friends[0].presence, Presence::Playing);
            break;
        }
        assert!(Instant::now() < deadline, "Bob's seat never showed: {list:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    b.send(
        Method::PUT,
        "/api/me/presence",
        Some(serde_json::json!({"hide_table": true})),
        Some(&bob.token),
    )
    .await
    .expect(204);
    let list = friends_of(&a, &ann.token).await;
    assert_eq!(
        (list.friends[0].presence, list.friends[0].room.as_deref()),
        (Presence::Playing, None)
    );
}
