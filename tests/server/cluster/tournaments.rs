//! One tournament runner for the whole cluster, and its death before
//! and during a tournament.

use super::*;

/// The hands a node has scored, as its `/metrics` says.
async fn hands_scored(node: &ServerProcess) -> f64 {
    let answer = http(node.address, "GET", "/metrics", None, None).await;
    answer
        .body
        .lines()
        .find_map(|line| line.strip_prefix("spades_hands_total ")?.parse().ok())
        .expect("spades_hands_total in /metrics")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_knockout_of_eight_players_on_three_nodes_runs_to_its_places() {
    use crate::tournaments::{check_knockout, play_tournament, tables_announced};
    let Some(cluster) = TestCluster::start(3).await else {
        return;
    };
    let (id, _) = new_knockout(&cluster, "Spread").await;
    // The players are spread over the nodes, and register through them.
    let mut players = enter_eight(&cluster, &[0, 1, 2], &id).await;
    let a = cluster.node(0).address;
    let view = play_tournament(a, &mut players, &id, Duration::from_secs(300)).await;
    check_knockout(&view, 8);
    for player in &players {
        assert!(
            !tables_announced(player).is_empty(),
            "{} was told of his table",
            player.name
        );
    }
    // The tables were played on more than one node.
    let mut busy = 0;
    for node in 0..3 {
        if hands_scored(cluster.node(node)).await > 0.0 {
            busy += 1;
        }
    }
    assert!(busy >= 2, "the tables were spread over the nodes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_duplicate_tournament_on_three_nodes_deals_every_table_of_a_round_alike() {
    use crate::tournaments::{account, check_duplicate, create, play_tournament};
    let Some(cluster) = TestCluster::start(3).await else {
        return;
    };
    let a = cluster.node(0).address;
    let (organiser, _) = account(a, "Organiser").await;
    crate::support::admin_cli(&cluster.database.url(), &["role", "Organiser", "admin"]);
    let settings = serde_json::json!({
        "name": "Spread boards", "format": "duplicate_pairs", "max_players": 8, "rounds": 2, "hands": 4,
    });
    let id = create(a, &organiser, settings).await;
    let mut players = enter_eight(&cluster, &[0, 1, 2], &id).await;
    let view = play_tournament(a, &mut players, &id, Duration::from_secs(300)).await;
    check_duplicate(a, &view, 2, 4).await;
    let mut busy = 0;
    for node in 0..3 {
        if hands_scored(cluster.node(node)).await > 0.0 {
            busy += 1;
        }
    }
    assert!(busy >= 2, "the tables were spread over the nodes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_the_tournament_runner_dies_another_node_runs_the_tournament() {
    use crate::tournaments::{check_knockout, play_tournament};
    let Some(mut cluster) = TestCluster::start(3).await else {
        return;
    };
    // The node that took the tournaments lease runs them; it dies.
    let (id, runner) = new_knockout(&cluster, "Handed on").await;
    cluster.nodes[runner].take().expect("the runner").kill();
    let alive: Vec<usize> = (0..3).filter(|&i| i != runner).collect();
    // Eight players register through the other nodes, which fills the
    // tournament; one of those nodes takes the lease and runs it.
    let mut players = enter_eight(&cluster, &alive, &id).await;
    let view = play_tournament(
        cluster.node(alive[0]).address,
        &mut players,
        &id,
        Duration::from_secs(300),
    )
    .await;
    check_knockout(&view, 8);
}

/// Creates a knockout for eight players through node a; returns its id and
/// the node that runs the tournaments.
async fn new_knockout(cluster: &TestCluster, name: &str) -> (String, usize) {
    use crate::tournaments::{account, create};
    let a = cluster.node(0).address;
    let (organiser, _) = account(a, "Organiser").await;
    crate::support::admin_cli(&cluster.database.url(), &["role", "Organiser", "admin"]);
    let settings = serde_json::json!({"name": name, "format": "knockout", "max_players": 8});
    let id = create(a, &organiser, settings).await;
    (id, tournament_runner(cluster).await)
}

/// Eight players, connected to the nodes `homes` in turn, who enter the
/// tournament `id` through their own nodes.
async fn enter_eight(cluster: &TestCluster, homes: &[usize], id: &str) -> Vec<Player> {
    let mut players = Vec::new();
    for i in 0..8 {
        let node = homes[i % homes.len()];
        let name = format!("ko{i}");
        let (token, _) = crate::tournaments::account(cluster.node(node).address, &name).await;
        players.push(Player::sign_in(&cluster.url(node), &name, &token).await);
        Api::new(cluster.node(node).address)
            .enter(&players[i].token, id)
            .await
            .expect(201);
    }
    players
}

/// The node that took the tournaments lease, from the nodes' logs.
async fn tournament_runner(cluster: &TestCluster) -> usize {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let runner = (0..cluster.nodes.len()).find(|&i| {
            let log = cluster.node(i).log();
            log.lines()
                .any(|line| line.contains("took a lease") && line.contains("tournaments"))
        });
        if let Some(runner) = runner {
            return runner;
        }
        assert!(Instant::now() < deadline, "no node took the tournaments lease");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_the_tournament_runner_dies_mid_stage_the_next_stage_is_seated_by_another() {
    use crate::tournaments::{check_knockout, play_tournament, tables_announced};
    use spades_protocol::http::TableStatus;
    let Some(mut cluster) = TestCluster::start(3).await else {
        return;
    };
    let (id, runner) = new_knockout(&cluster, "Mid-stage").await;
    let alive: Vec<usize> = (0..3).filter(|&i| i != runner).collect();
    // The runner has three rooms open, so that the first stage's tables
    // open on the other nodes, where the players are connected too: its
    // death then takes away only the running of the tournament.
    let mut hosts = Vec::new();
    for name in ["Host1", "Host2", "Host3"] {
        let mut host = Player::connect(&cluster.url(runner), name).await;
        host.create_room(RulesSpec::default(), false).await;
        hosts.push(host);
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let mut players = enter_eight(&cluster, &alive, &id).await;
    // Every player gets to his first table and the games begin.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut joined = [false; 8];
    while !joined.iter().all(|&j| j) {
        for (i, player) in players.iter_mut().enumerate() {
            player.pump().await;
            if !joined[i]
                && let Some((_, room)) = tables_announced(player).last().cloned()
            {
                player.clear_table();
                player.join_room(&room).await;
                joined[i] = true;
            }
            player.act_if_due().await;
        }
        assert!(Instant::now() < deadline, "the first stage was not seated");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let view = Api::new(cluster.node(alive[0]).address).tournament(&id).await;
    assert_eq!(view.stages.len(), 1, "{view:?}");
    assert!(
        view.stages[0]
            .tables
            .iter()
            .all(|table| table.status != TableStatus::Finished),
        "no table of the first stage has finished: {view:?}"
    );
    cluster.nodes[runner].take().expect("the runner").kill();
    drop(hosts);
    // The first stage's games go on; another node takes the lease, sees
    // the stage finished and seats the final.
    let view = play_tournament(
        cluster.node(alive[0]).address,
        &mut players,
        &id,
        Duration::from_secs(300),
    )
    .await;
    check_knockout(&view, 8);
    let runners: Vec<usize> = alive
        .iter()
        .copied()
        .filter(|&i| {
            cluster
                .node(i)
                .log()
                .lines()
                .any(|line| line.contains("took over a lease") && line.contains("tournaments"))
        })
        .collect();
    assert_eq!(
        runners.len(),
        1,
        "one node took the tournaments over: {runners:?}"
    );
    // It took the lease in the store as well, under a newer epoch than the
    // dead runner's, which fences off anything the dead runner might
    // still have tried to write.
    let epochs: Vec<u64> = cluster
        .node(runners[0])
        .log()
        .lines()
        .filter(|line| line.contains("runs the tournaments"))
        .filter_map(|line| {
            let plain = without_colours(line);
            plain
                .split("epoch=")
                .nth(1)?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .collect();
    assert!(
        epochs.last().is_some_and(|&epoch| epoch >= 2),
        "the new runner took no newer epoch in the store: {epochs:?}"
    );
}

/// A log line without its terminal colour codes (`ESC [ ... m`).
fn without_colours(line: &str) -> String {
    let mut plain = String::with_capacity(line.len());
    let mut in_code = false;
    for c in line.chars() {
        match (in_code, c) {
            (false, '\x1b') => in_code = true,
            (false, c) => plain.push(c),
            (true, 'm') => in_code = false,
            (true, _) => {}
        }
    }
    plain
}
