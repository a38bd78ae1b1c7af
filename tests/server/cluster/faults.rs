//! Faults of a room's owner while its table plays: the owner paused for
//! longer than the others wait for its heartbeat, then continued; and the
//! owner killed and started again at once under its name. Either way the
//! room has one owner at a time, and every player and spectator, whatever
//! node he is connected through, plays or watches one game to its end,
//! which is the game stored.

use std::collections::HashMap;

use spades_protocol::event::EventKind;
use spades_protocol::ws::MessageId;

use super::restarts::Traveller;
use super::*;

/// The table of these tests: the room is node a's; North is on a, East on
/// b, South on c, a bot in the west seat, and a spectator on c.
async fn table_across(cluster: &TestCluster) -> Vec<Traveller> {
    let homes = [0, 1, 2];
    let mut players = Vec::new();
    for (name, &home) in ["North", "East", "South"].iter().zip(&homes) {
        players.push(Player::connect(&cluster.url(home), name).await);
    }
    // A short game, so that the scenarios can be run many times over.
    let rules = RulesSpec {
        target: Some(200),
        ..RulesSpec::default()
    };
    let code = players[0].create_room(rules, false).await;
    for player in players.iter_mut().skip(1) {
        join_anywhere(player, &code).await;
    }
    for (seat, player) in players.iter_mut().enumerate() {
        player.sit(seat as u8).await;
    }
    players[0]
        .request(|id| ClientMessage::AddBot {
            id,
            seat: spades_engine::Seat::new(3),
            level: None,
        })
        .await
        .expect("a bot sits");
    let mut spectator = Player::connect(&cluster.url(2), "Watcher").await;
    join_anywhere(&mut spectator, &code).await;
    players[0].start_game().await;
    let mut travellers: Vec<Traveller> = players
        .into_iter()
        .zip(homes)
        .map(|(player, home)| Traveller::new(player, code.clone(), home))
        .collect();
    travellers.push(Traveller::new(spectator, code, 2));
    travellers
}

/// Steps every traveller, connecting again through `urls` when lost,
/// until `done` or the deadline.
async fn play_until(
    travellers: &mut [Traveller],
    urls: &[String],
    within: Duration,
    mut done: impl FnMut(&[Traveller]) -> bool,
) {
    let deadline = Instant::now() + within;
    while !done(travellers) {
        let mut busy = false;
        for traveller in travellers.iter_mut() {
            // A traveller connected through a node missing from `urls`
            // comes back through one of them.
            traveller.node %= urls.len();
            busy |= traveller.step(urls).await;
        }
        if Instant::now() >= deadline {
            for t in travellers.iter() {
                eprintln!(
                    "{} through node {}: lost {}, seq {}, games over {}, last: {:?}",
                    t.player.name,
                    t.node,
                    t.lost,
                    t.player.table.last_seq,
                    t.player.table.games_over,
                    t.player.received.last()
                );
            }
            panic!("the table did not get there within {within:?}");
        }
        if !busy {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
}

fn cards_played(traveller: &Traveller) -> usize {
    traveller
        .player
        .received
        .iter()
        .filter(|m| matches!(m.event(), Some(EventKind::CardPlayed { .. })))
        .count()
}

/// Whether every traveller has seen an event numbered above what he had
/// seen at the fault: the table plays on for all of them.
fn all_past(travellers: &[Traveller], seen: &[u64]) -> bool {
    travellers
        .iter()
        .zip(seen)
        .all(|(t, &before)| !t.lost && t.player.table.last_seq > before)
}

/// The node the last snapshot a traveller received names as the room's.
fn owner_seen(traveller: &Traveller) -> Option<String> {
    traveller.player.received.iter().rev().find_map(|m| match m {
        ServerMessage::Snapshot { state, .. } => {
            Some(state.node.clone().expect("a cluster's snapshot names its node"))
        }
        _ => None,
    })
}

fn all_over(travellers: &[Traveller]) -> bool {
    travellers
        .iter()
        .all(|t| !t.lost && t.player.table.games_over >= 1)
}

/// What every test of a fault checks once the game is over: one game for
/// everyone, the stored one; numbers that never went back at any client
/// or in the store; and every acknowledged action stored exactly once.
async fn check_one_game(cluster: &TestCluster, node: usize, travellers: &[Traveller]) {
    let (winner, score) = game_over(&travellers[0].player);
    for t in travellers {
        assert_eq!(
            game_over(&t.player),
            (winner, score.clone()),
            "{} saw the same game",
            t.player.name
        );
        let mut high = 0;
        for message in &t.player.received {
            match message {
                ServerMessage::Snapshot { seq, .. } => {
                    assert!(
                        *seq >= high,
                        "{}: a snapshot at {seq} after {high}",
                        t.player.name
                    );
                    high = *seq;
                }
                ServerMessage::Event(event) => {
                    assert!(
                        event.seq > high,
                        "{}: event {} after {high}",
                        t.player.name,
                        event.seq
                    );
                    high = event.seq;
                }
                _ => {}
            }
        }
    }
    let address = cluster.node(node).address;
    check_against_replay(address, &travellers[0].player.token, winner, score).await;

    let games = Api::new(address).recent_games(&travellers[0].player.token).await;
    let id = games.games.first().expect("the game is listed").id;
    let store = Store::open(&cluster.database.url()).await.unwrap();
    let stored = store.game(id).await.unwrap().expect("the game is stored");
    store.close().await;
    let numbers: Vec<u64> = stored.actions.iter().filter_map(|a| a.room_seq).collect();
    assert!(
        numbers.windows(2).all(|pair| pair[0] < pair[1]),
        "the stored actions' room_seq only grows: {numbers:?}"
    );
    let mut stored_requests: HashMap<(u8, String), usize> = HashMap::new();
    for action in &stored.actions {
        if let Some(request) = &action.request_id {
            *stored_requests.entry((action.seat, request.clone())).or_default() += 1;
        }
    }
    let mut acknowledged = 0;
    for t in travellers {
        let Some(seat) = t.player.table.seat else { continue };
        for message in &t.player.received {
            let ServerMessage::Ack { id, .. } = message else {
                continue;
            };
            if !t.actions_sent.contains(id) {
                continue;
            }
            acknowledged += 1;
            let key = (seat.index() as u8, request_json(id));
            assert_eq!(
                stored_requests.get(&key),
                Some(&1),
                "{}'s acknowledged action {id:?} is stored exactly once",
                t.player.name
            );
        }
    }
    assert!(
        acknowledged > 20,
        "the players' actions were acknowledged ({acknowledged})"
    );
}

fn request_json(id: &MessageId) -> String {
    serde_json::to_string(id).unwrap()
}

/// The urls of the nodes with these indexes.
fn urls_of(cluster: &TestCluster, nodes: &[usize]) -> Vec<String> {
    nodes.iter().map(|&i| cluster.url(i)).collect()
}

/// The table of [`table_across`] played a few cards into its first hand:
/// the travellers, every node's url, and the last `seq` each has seen.
async fn into_the_first_hand(cluster: &TestCluster) -> (Vec<Traveller>, Vec<String>, Vec<u64>) {
    let mut travellers = table_across(cluster).await;
    let all = urls_of(cluster, &[0, 1, 2]);
    play_until(&mut travellers, &all, GAME_DEADLINE, |t| cards_played(&t[0]) >= 6).await;
    let seen = travellers.iter().map(|t| t.player.table.last_seq).collect();
    (travellers, all, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_paused_past_the_timeout_stops_and_its_table_plays_on_elsewhere() {
    let Some(mut cluster) = TestCluster::start(3).await else {
        return;
    };
    let (mut travellers, _, seen) = into_the_first_hand(&cluster).await;

    // Node a is frozen for seven seconds, more than twice the time after
    // which the others take its rooms over, while the table goes on.
    let pid = cluster.node(0).pid().to_string();
    let signal = |name: &str| {
        let status = Command::new("kill").args([name, &pid]).status().unwrap();
        assert!(status.success(), "kill {name}");
    };
    let paused = Instant::now();
    signal("-STOP");
    // Players connected through the frozen node wait on it; the others
    // come back through b and c.
    let live = urls_of(&cluster, &[1, 2]);
    let mut pause = std::mem::take(&mut travellers);
    let mut taken_over = None;
    play_until(&mut pause, &live, Duration::from_secs(8), |t| {
        // Everyone but North, who is connected through the frozen node,
        // has resynced with the room's new owner and seen it play on.
        let moved = t[1..]
            .iter()
            .all(|t| !t.lost && owner_seen(t).is_some_and(|owner| owner != "a"));
        if taken_over.is_none() && moved && all_past(&t[1..], &seen[1..]) {
            taken_over = Some(paused.elapsed());
        }
        paused.elapsed() >= Duration::from_secs(7)
    })
    .await;
    let taken_over = taken_over.expect("the table went on elsewhere while its owner was frozen");
    eprintln!("the players on other nodes were back at the table {taken_over:?} after the pause began");
    signal("-CONT");
    let continued = Instant::now();

    // The node finds on waking that it has not renewed its heartbeat in
    // time, and stops; it confirms nothing more.
    let node = cluster.nodes[0].as_mut().unwrap();
    let mut status = None;
    let deadline = continued + Duration::from_secs(10);
    while status.is_none() {
        status = node.has_exited();
        for traveller in pause.iter_mut() {
            traveller.node %= live.len();
            traveller.step(&live).await;
        }
        assert!(
            Instant::now() < deadline,
            "the paused node did not stop: {}",
            node.log()
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    assert_eq!(status.unwrap().code(), Some(75), "{}", node.log());
    eprintln!(
        "the paused node stopped {:?} after it was continued",
        continued.elapsed()
    );
    travellers = pause;

    play_until(&mut travellers, &live, Duration::from_secs(20), |t| {
        all_past(t, &seen)
    })
    .await;
    eprintln!(
        "every player, North included, was back at the table {:?} after the pause began",
        paused.elapsed()
    );
    // Everyone resynced with the room's new owner, which the snapshot names.
    let owners: Vec<Option<String>> = travellers.iter().map(owner_seen).collect();
    assert!(
        owners
            .iter()
            .all(|o| o == &owners[0] && o.as_deref().is_some_and(|o| o != "a")),
        "{owners:?}"
    );
    play_until(&mut travellers, &live, GAME_DEADLINE, all_over).await;
    check_one_game(&cluster, 1, &travellers).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_started_again_at_once_under_its_name_strands_nobody() {
    let Some(mut cluster) = TestCluster::start(3).await else {
        return;
    };
    let (mut travellers, all, seen) = into_the_first_hand(&cluster).await;

    // Node a is killed and started again under its name within a second,
    // well before the others would take it for dead.
    let killed = Instant::now();
    let (_, port) = cluster.nodes[0].take().expect("node a").kill();
    let mut command = Command::new(env!("CARGO_BIN_EXE_spades"));
    command
        .env("SPADES_NATS_URL", cluster.nats.url())
        .env("SPADES_NODE", node_name(0));
    cluster.nodes[0] = Some(ServerProcess::start_with(command, &cluster.database.url(), port).await);
    eprintln!("node a was back {:?} after it was killed", killed.elapsed());
    assert!(
        killed.elapsed() < Duration::from_secs(3),
        "{:?}",
        killed.elapsed()
    );

    play_until(&mut travellers, &all, Duration::from_secs(20), |t| {
        all_past(t, &seen)
    })
    .await;
    eprintln!(
        "every player and the spectator were back at the table {:?} after the kill",
        killed.elapsed()
    );
    play_until(&mut travellers, &all, GAME_DEADLINE, all_over).await;
    check_one_game(&cluster, 1, &travellers).await;
}
