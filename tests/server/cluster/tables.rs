//! Tables across nodes: one lobby, which node serves a connection and
//! which owns a room, a game whose players are on three nodes, a connection replaced from another node, a node killed
//! mid-hand, and login limits counted across nodes.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_welcome_names_the_connections_node_and_the_snapshot_the_rooms() {
    let Some(cluster) = TestCluster::start(2).await else {
        return;
    };
    let mut owner = Player::connect(&cluster.url(0), "Owner").await;
    let code = owner.create_room(RulesSpec::default(), false).await;
    let mut client = Client::connect(&cluster.url(1)).await.unwrap();
    let welcome = client.hello("Guest").await.unwrap();
    let ServerMessage::Welcome { node, token, .. } = welcome else {
        panic!("{welcome:?}")
    };
    assert_eq!(node.as_deref(), Some("b"), "the connection is node b's");
    let mut guest = Player::sign_in(&cluster.url(1), "Guest", &token).await;
    let room = code.clone();
    let snapshot = guest
        .request(|id| ClientMessage::JoinRoom { id, room })
        .await
        .unwrap();
    let ServerMessage::Snapshot { state, .. } = snapshot else {
        panic!("{snapshot:?}")
    };
    assert_eq!(state.node.as_deref(), Some("a"), "the room is node a's");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_opened_on_one_node_is_in_every_nodes_lobby_within_a_second() {
    let Some(cluster) = TestCluster::start(3).await else {
        return;
    };
    let mut watcher = Player::lobby_watcher(&cluster.url(2), "Watcher").await;
    let mut owner = Player::connect(&cluster.url(0), "Owner").await;
    let opened = Instant::now();
    let code = owner.create_room(RulesSpec::default(), false).await;
    watcher
        .wait_for(Duration::from_secs(1), |m| is_lobby_room(m, &code))
        .await;
    eprintln!("the room reached another node's lobby in {:?}", opened.elapsed());

    for node in [1, 2] {
        let mut lister = Player::connect(&cluster.url(node), &format!("Lister{node}")).await;
        let reply = lister
            .request(|id| ClientMessage::ListRooms { id })
            .await
            .unwrap();
        let ServerMessage::Rooms { rooms, .. } = reply else {
            panic!("{reply:?}")
        };
        let listed = rooms
            .iter()
            .find(|room| room.room == code)
            .expect("listed on every node");
        assert_eq!(listed.seats.len(), 4);
    }

    // A private room of node b is listed nowhere, and a room that closes
    // leaves every lobby.
    let mut hider = Player::connect(&cluster.url(1), "Hider").await;
    let hidden = hider.create_room(RulesSpec::default(), true).await;
    owner.request(|id| ClientMessage::LeaveRoom { id }).await.unwrap();
    let closed = watcher
        .wait_for(
            Duration::from_secs(1),
            |m| matches!(m, ServerMessage::LobbyRoomClosed { room } if *room == code),
        )
        .await;
    assert!(matches!(closed, ServerMessage::LobbyRoomClosed { .. }));
    let seen_hidden = watcher.received.iter().any(|m| is_lobby_room(m, &hidden));
    assert!(!seen_hidden, "a private room is never shown in a lobby");
}

/// The node of each seat in the tests of a table across nodes: seat 0,
/// which opens the room, on node a.
const HOMES: [usize; 4] = [0, 1, 2, 1];

/// Four players connected to the nodes of `homes`, one per seat, seated at
/// a room the first opened: the players and the room's code.
async fn seated_across(cluster: &TestCluster, homes: [usize; 4]) -> (Vec<Player>, String) {
    let mut players = Vec::new();
    for (name, &home) in ["North", "East", "South", "West"].iter().zip(&homes) {
        players.push(Player::connect(&cluster.url(home), name).await);
    }
    let code = players[0].create_room(RulesSpec::default(), false).await;
    for player in players.iter_mut().skip(1) {
        join_anywhere(player, &code).await;
    }
    for (seat, player) in players.iter_mut().enumerate() {
        player.sit(seat as u8).await;
    }
    (players, code)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_players_on_three_nodes_and_a_spectator_play_a_whole_game() {
    let Some(cluster) = TestCluster::start(3).await else {
        return;
    };
    // North on a, whose room it is; East and West on b; South on c; the
    // spectator on c.
    let (mut players, code) = seated_across(&cluster, HOMES).await;
    let mut spectator = Player::connect(&cluster.url(2), "Spectator").await;
    join_anywhere(&mut spectator, &code).await;
    players[0].start_game().await;
    let mut others = [spectator];
    play_games(&mut players, &mut others, 1, GAME_DEADLINE).await;

    let (winner, score) = game_over(&players[0]);
    for player in players.iter().chain(others.iter()) {
        assert_eq!(player.gaps, 0, "{} saw every event in order", player.name);
        assert_eq!(game_over(player), (winner, score.clone()), "{}", player.name);
    }
    let spectator = &others[0];
    assert!(spectator.table.games_over >= 1, "the spectator saw the game end");
    check_against_replay(cluster.node(1).address, &players[1].token, winner, score).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hello_on_another_node_replaces_the_connection() {
    let Some(cluster) = TestCluster::start(2).await else {
        return;
    };
    let mut first = Player::connect(&cluster.url(0), "Traveller").await;
    let code = play_with_bots(&mut first, false).await;
    let second = Player::sign_in(&cluster.url(1), "Traveller", &first.token).await;
    assert_eq!(second.id, first.id);
    // The game's events go on until the replaced message, which comes
    // before the close.
    first
        .wait_for(Duration::from_secs(2), |m| matches!(m, ServerMessage::Replaced))
        .await;
    let closed = first.client.try_recv(Duration::from_secs(2)).await;
    assert!(closed.is_err(), "the old connection is closed: {closed:?}");

    // His seat follows him: a welcome on any node names the room, and
    // he gets back into his seat through it.
    for node in [1, 0] {
        let mut again = Client::connect(&cluster.url(node)).await.unwrap();
        let welcome = again.hello_again(&first.token).await.unwrap();
        let ServerMessage::Welcome { room, .. } = welcome else {
            panic!("{welcome:?}")
        };
        assert_eq!(room.as_deref(), Some(code.as_str()), "welcome on node {node}");
        let joined = again
            .request(|id| ClientMessage::JoinRoom {
                id,
                room: code.clone(),
            })
            .await
            .unwrap();
        let ServerMessage::Snapshot { state, .. } = joined else {
            panic!("{joined:?}")
        };
        assert_eq!(
            state.your_seat.map(|seat| seat.index()),
            Some(0),
            "back in his seat"
        );
    }
}

/// Brings a player back after his connection was lost, through node
/// `home`: hello with his token, then resync, again until the room has
/// opened on its new node or `deadline` passes.
async fn come_back_through(player: &mut Player, url: &str, code: &str, deadline: Instant) {
    loop {
        let mut client = Client::connect(url).await.expect("reconnects");
        client.continue_ids(&player.client);
        client
            .hello_again(&player.token)
            .await
            .expect("the token still works");
        player.client = client;
        let (room, last_seq) = (code.to_string(), player.table.last_seq);
        match player
            .request(|id| ClientMessage::Resync { id, room, last_seq })
            .await
        {
            Ok(ServerMessage::Snapshot { .. }) => {
                player.table.dropped();
                return;
            }
            // The room's new node has not opened it yet; or this node
            // still took the old one for alive, and closed the connection
            // (status 1012) on learning that it is gone.
            Err(ClientError::Refused { code: refused, .. })
                if Instant::now() < deadline
                    && matches!(refused, ErrorCode::ServerBusy | ErrorCode::RoomNotFound) =>
            {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(ClientError::Closed) if Instant::now() < deadline => {}
            other => panic!("{}: cannot resync into {code}: {other:?}", player.name),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_whose_node_is_killed_goes_on_on_another_within_ten_seconds() {
    let Some(mut cluster) = TestCluster::start(3).await else {
        return;
    };
    // The room is node a's; its players are on every node.
    let (mut players, code) = seated_across(&cluster, HOMES).await;
    players[0].start_game().await;
    crate::durability::play_into_hand(&mut players, 1, 6).await;
    let seen: Vec<u64> = players.iter().map(|p| p.table.last_seq).collect();
    let events_before: Vec<usize> = players.iter().map(|p| p.received.len()).collect();

    let killed = Instant::now();
    cluster.nodes[0].take().expect("node a").kill();
    // Every player comes back through a node that is still up.
    let deadline = killed + Duration::from_secs(10);
    for (i, player) in players.iter_mut().enumerate() {
        let home = if HOMES[i] == 0 { 2 } else { HOMES[i] };
        come_back_through(player, &cluster.url(home), &code, deadline).await;
    }
    eprintln!(
        "the game was back for every player {:?} after the kill",
        killed.elapsed()
    );
    assert!(killed.elapsed() < Duration::from_secs(10));
    for (player, &before) in players.iter().zip(&seen) {
        assert!(
            player.table.last_seq > before,
            "{}: seq goes on above {before}",
            player.name
        );
    }
    play_games(&mut players, &mut [], 1, GAME_DEADLINE).await;
    let (winner, score) = game_over(&players[0]);
    for (player, &before) in players.iter().zip(&events_before) {
        assert!(player.received.len() > before, "{} kept what he saw", player.name);
        assert_eq!(game_over(player), (winner, score.clone()));
    }
    check_against_replay(cluster.node(1).address, &players[1].token, winner, score).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_node_refuses_to_start_on_sqlite() {
    let output = Command::new(env!("CARGO_BIN_EXE_spades"))
        .args(["serve", "--bind", "127.0.0.1:0", "--database"])
        .arg(fresh_database())
        .args(["--nats", "nats://127.0.0.1:1"])
        .output()
        .expect("the binary runs");
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("Postgres"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_logins_on_one_node_count_on_the_others() {
    let Some(cluster) = TestCluster::start(2).await else {
        return;
    };
    let (a, b) = (
        Api::new(cluster.node(0).address),
        Api::new(cluster.node(1).address),
    );
    assert_eq!(a.register("Carol", "carol's password").await.status, 201);
    for _ in 0..5 {
        assert_eq!(a.login("carol", "nope nope").await.status, 401);
    }
    // The other node hears of each failure as it is counted.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let locked = b.login("Carol", "carol's password").await;
    assert_eq!(
        locked.status, 429,
        "locked on the other node too: {}",
        locked.body
    );
    assert_eq!(locked.value()["error"], "too_many_attempts");
}
