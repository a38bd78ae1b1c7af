//! Nodes stopping: every node restarted in turn while games play, and a
//! node that loses NATS stopping itself.

use super::*;

/// A player of the rolling-restart test: his connection may be closed
/// under him at any time, and he comes back through another node.
pub(super) struct Traveller {
    pub(super) player: Player,
    pub(super) code: String,
    /// The node he is connected through.
    pub(super) node: usize,
    pub(super) lost: bool,
    /// When he may next try to come back.
    retry_at: Instant,
    /// When he may act on the turn in front of him: people think.
    act_at: Option<Instant>,
    /// The ids of the game actions he sent.
    pub(super) actions_sent: Vec<spades_protocol::ws::MessageId>,
}

/// How long a traveller thinks before each action, so that the games
/// outlast the restarts.
const THINK: Duration = Duration::from_millis(60);

impl Traveller {
    pub(super) fn new(player: Player, code: String, node: usize) -> Traveller {
        Traveller {
            player,
            code,
            node,
            lost: false,
            retry_at: Instant::now(),
            act_at: None,
            actions_sent: Vec::new(),
        }
    }

    /// Reads what came, acts when due, and comes back after a lost
    /// connection. Returns whether anything happened.
    pub(super) async fn step(&mut self, urls: &[String]) -> bool {
        if self.lost {
            return self.come_back(urls).await;
        }
        match self.player.client.try_recv(Duration::ZERO).await {
            Ok(Some(message)) => {
                self.player.note(message);
                return true;
            }
            Ok(None) => {}
            Err(_) => {
                self.lost = true;
                return true;
            }
        }
        if !self.player.table.should_act() {
            self.act_at = None;
            return false;
        }
        let now = Instant::now();
        let act_at = *self.act_at.get_or_insert(now + THINK);
        if now < act_at {
            return false;
        }
        let Some(mv) = self.player.table.decide(false) else {
            return false;
        };
        self.act_at = None;
        self.player.table.acted();
        let id = self.player.client.next_id();
        self.actions_sent.push(id.clone());
        if self.player.client.send(&mv.message(id)).await.is_err() {
            self.lost = true;
        }
        true
    }

    /// Connects through the next node and resyncs into his room; on a
    /// refusal while the room moves, tries again a moment later.
    async fn come_back(&mut self, urls: &[String]) -> bool {
        if Instant::now() < self.retry_at {
            return false;
        }
        self.retry_at = Instant::now() + Duration::from_millis(300);
        self.node = (self.node + 1) % urls.len();
        let Ok(mut client) = Client::connect(&urls[self.node]).await else {
            return true;
        };
        client.continue_ids(&self.player.client);
        if client.hello_again(&self.player.token).await.is_err() {
            return true;
        }
        self.player.client = client;
        let (room, last_seq) = (self.code.clone(), self.player.table.last_seq);
        match self
            .player
            .request(|id| ClientMessage::Resync { id, room, last_seq })
            .await
        {
            Ok(_) => {
                self.player.table.dropped();
                self.lost = false;
            }
            Err(ClientError::Refused {
                code: ErrorCode::ServerBusy | ErrorCode::RoomNotFound | ErrorCode::ShuttingDown,
                ..
            }) => {}
            Err(ClientError::Refused { code, message }) => {
                panic!("{}: resync refused: {code:?} {message}", self.player.name)
            }
            // Closed again: the node he reached is stopping.
            Err(_) => {}
        }
        true
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_node_restarted_in_turn_ends_none_of_twenty_games() {
    let Some(mut cluster) = TestCluster::start(3).await else {
        return;
    };
    let urls: Vec<String> = (0..3).map(|i| cluster.url(i)).collect();
    // Twenty tables, each with two players on different nodes and two bots.
    let mut travellers = Vec::new();
    for table in 0..20 {
        let (home, other) = (table % 3, (table + 1) % 3);
        let mut owner = Player::connect(&urls[home], &format!("Owner{table}")).await;
        let mut partner = Player::connect(&urls[other], &format!("Partner{table}")).await;
        let code = owner.create_room(RulesSpec::default(), true).await;
        join_anywhere(&mut partner, &code).await;
        owner.sit(0).await;
        partner.sit(2).await;
        for seat in [1, 3] {
            owner
                .request(|id| ClientMessage::AddBot {
                    id,
                    seat: spades_engine::Seat::new(seat),
                    level: None,
                })
                .await
                .expect("a bot sits");
        }
        owner.start_game().await;
        for (player, node) in [(owner, home), (partner, other)] {
            travellers.push(Traveller::new(player, code.clone(), node));
        }
    }

    // Every node in turn is stopped with SIGTERM and started again, while
    // the games play.
    let nodes: Vec<ServerProcess> = cluster.nodes.iter_mut().map(|n| n.take().unwrap()).collect();
    let restarts = {
        let (nats, database) = (cluster.nats.url(), cluster.database.url());
        tokio::spawn(async move {
            let mut restarted = Vec::new();
            for (i, node) in nodes.into_iter().enumerate() {
                tokio::time::sleep(Duration::from_secs(1)).await;
                let (_, port) = crate::durability::stop_server(node, crate::durability::Stop::Term).await;
                let mut command = Command::new(env!("CARGO_BIN_EXE_spades"));
                command
                    .env("SPADES_NATS_URL", &nats)
                    .env("SPADES_NODE", node_name(i));
                restarted.push(ServerProcess::start_with(command, &database, port).await);
            }
            restarted
        })
    };

    let deadline = Instant::now() + Duration::from_secs(300);
    let mut restarted = None;
    let mut restarts = Some(restarts);
    loop {
        let mut busy = false;
        for traveller in travellers.iter_mut() {
            busy |= traveller.step(&urls).await;
        }
        if restarts.as_ref().is_some_and(|task| task.is_finished()) {
            restarted = Some(restarts.take().unwrap().await.expect("every node restarts"));
            let finished = travellers
                .iter()
                .filter(|t| t.player.table.games_over > 0)
                .count();
            assert_eq!(
                finished, 0,
                "every game was still being played while the nodes restarted"
            );
        }
        let over = travellers
            .iter()
            .all(|t| !t.lost && t.player.table.games_over >= 1);
        if over && restarted.is_some() {
            break;
        }
        if Instant::now() >= deadline {
            for t in travellers
                .iter()
                .filter(|t| t.lost || t.player.table.games_over == 0)
            {
                eprintln!(
                    "{} in {} through node {}: lost {}, seq {}, games over {}, last: {:?}",
                    t.player.name,
                    t.code,
                    t.node,
                    t.lost,
                    t.player.table.last_seq,
                    t.player.table.games_over,
                    t.player.received.last()
                );
            }
            panic!("the games did not all finish");
        }
        if !busy {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
    let restarted = restarted.unwrap();
    let lost = travellers
        .iter()
        .filter(|t| t.player.table.games_over == 0)
        .count();
    assert_eq!(lost, 0);
    // Every game, as stored, is the game its players were told of.
    for pair in travellers.chunks(2) {
        let (winner, score) = game_over(&pair[0].player);
        assert_eq!(game_over(&pair[1].player), (winner, score.clone()));
        check_against_replay(restarted[0].address, &pair[0].player.token, winner, score).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_that_loses_the_cluster_stops_before_its_rooms_are_taken_over() {
    let Some(mut cluster) = TestCluster::start(1).await else {
        return;
    };
    let mut player = Player::connect(&cluster.url(0), "Alone").await;
    player.create_room(RulesSpec::default(), false).await;
    // NATS goes away: the node cannot write its heartbeat any more, and
    // the other nodes (were there any) would take its rooms over after
    // three seconds. It stops first.
    let lost = Instant::now();
    let _ = cluster.nats.child.kill();
    let _ = cluster.nats.child.wait();
    let node = cluster.nodes[0].as_mut().expect("the node");
    let status = node
        .exited_within(Duration::from_secs(10))
        .await
        .expect("the node stops by itself");
    assert_eq!(status.code(), Some(75), "{}", node.log());
    assert!(lost.elapsed() < Duration::from_secs(4), "{:?}", lost.elapsed());
}
