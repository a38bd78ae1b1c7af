//! One quick-play queue for the whole cluster.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_on_different_nodes_are_matched_by_one_queue() {
    let Some(cluster) = TestCluster::start(3).await else {
        return;
    };
    // Node a, where the queue will be kept, has two rooms open; the table
    // opens on a node with fewer.
    let mut hosts = Vec::new();
    for name in ["Host1", "Host2"] {
        let mut host = Player::connect(&cluster.url(0), name).await;
        host.create_room(RulesSpec::default(), false).await;
        hosts.push(host);
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let mut ann = Player::connect(&cluster.url(0), "Ann").await;
    let mut bob = Player::connect(&cluster.url(1), "Bob").await;
    for player in [&mut ann, &mut bob] {
        let reply = player
            .request(|id| ClientMessage::Queue {
                id,
                rules: spades_engine::Preset::Classic,
                partner: None,
            })
            .await
            .expect("queued");
        assert!(matches!(reply, ServerMessage::Queued { .. }), "{reply:?}");
    }
    let mut rooms = Vec::new();
    for player in [&mut ann, &mut bob] {
        let matched = player
            .wait_for(Duration::from_secs(10), |m| {
                matches!(m, ServerMessage::Matched { .. })
            })
            .await;
        let ServerMessage::Matched {
            room, seat, seats, ..
        } = matched
        else {
            unreachable!()
        };
        assert_eq!(seats[seat.index()].name, player.name);
        rooms.push(room);
    }
    assert_eq!(rooms[0], rooms[1], "one table for both");
    // Each gets into his seat from his own node, wherever the table opened.
    for player in [&mut ann, &mut bob] {
        join_anywhere(player, &rooms[0]).await;
        assert!(player.table.seat.is_some(), "{} is seated", player.name);
    }
    let mut open = Vec::new();
    for node in 0..3 {
        open.push(rooms_open(cluster.node(node)).await);
    }
    assert_eq!(open[0], 2.0, "the table is not on the busiest node: {open:?}");
    assert_eq!(open[1] + open[2], 1.0, "{open:?}");
    let mut players = [ann, bob];
    play_games(&mut players, &mut [], 1, GAME_DEADLINE).await;
}

/// The rooms a node has open, as its `/metrics` says.
async fn rooms_open(node: &ServerProcess) -> f64 {
    let answer = http(node.address, "GET", "/metrics", None, None).await;
    answer
        .body
        .lines()
        .find_map(|line| line.strip_prefix("spades_rooms ")?.parse().ok())
        .expect("spades_rooms in /metrics")
}

/// Puts a player in the quick-play queue of the classic preset, with a
/// partner to wait for when named.
async fn queue(player: &mut Player, partner: Option<&str>) {
    let partner = partner.map(str::to_string);
    let reply = player
        .request(|id| ClientMessage::Queue {
            id,
            rules: spades_engine::Preset::Classic,
            partner,
        })
        .await
        .expect("queued");
    assert!(matches!(reply, ServerMessage::Queued { .. }), "{reply:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_in_a_game_on_any_node_cannot_queue_for_another() {
    let Some(cluster) = TestCluster::start(2).await else {
        return;
    };
    // Zed queues first, on node a, which so keeps the queue.
    let mut zed = Player::connect(&cluster.url(0), "Zed").await;
    queue(&mut zed, Some("Nobody")).await;
    // Ann plays in a private room of node b, which node a's lobby does
    // not see.
    let mut ann = Player::connect(&cluster.url(1), "Ann").await;
    let code = play_with_bots(&mut ann, true).await;
    // The registry is written a few milliseconds after the game starts.
    tokio::time::sleep(Duration::from_secs(1)).await;
    // From the room's node the request goes to node a's queue; from node
    // a it stays there. Either way she is refused, and the connection
    // carries on.
    for node in [1, 0] {
        let mut again = Player::sign_in(&cluster.url(node), "Ann", &ann.token).await;
        let answer = again
            .request(|id| ClientMessage::Queue {
                id,
                rules: spades_engine::Preset::Classic,
                partner: None,
            })
            .await;
        assert_eq!(refused(answer), ErrorCode::GameInProgress, "on node {node}");
        again.join_room(&code).await;
        assert_eq!(
            again.table.seat.map(|seat| seat.index()),
            Some(0),
            "still seated, on node {node}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_the_queues_node_dies_its_players_are_told_and_another_node_keeps_the_queue() {
    let Some(mut cluster) = TestCluster::start(2).await else {
        return;
    };
    // Ann queues first, on node a, which so keeps the queue; Bob, on node
    // b, waits in it there. Each waits for a partner who never comes.
    let mut ann = Player::connect(&cluster.url(0), "Ann").await;
    queue(&mut ann, Some("Zed")).await;
    let mut bob = Player::connect(&cluster.url(1), "Bob").await;
    queue(&mut bob, Some("Cy")).await;

    cluster.nodes[0].take().expect("node a").kill();
    let told = bob
        .wait_for(Duration::from_secs(10), |m| {
            matches!(m, ServerMessage::Unqueued { .. })
        })
        .await;
    assert!(
        matches!(
            told,
            ServerMessage::Unqueued {
                reason: spades_protocol::ws::UnqueueReason::QueueMoved
            }
        ),
        "{told:?}"
    );
    // Queueing again, he waits in node b's queue, which completes his
    // table with bots.
    queue(&mut bob, None).await;
    let matched = bob
        .wait_for(Duration::from_secs(10), |m| {
            matches!(m, ServerMessage::Matched { .. })
        })
        .await;
    let ServerMessage::Matched { room, .. } = matched else {
        unreachable!()
    };
    join_anywhere(&mut bob, &room).await;
    assert!(bob.table.seat.is_some());
}
