//! Several servers as one service: three `spades` processes on one
//! Postgres database and a NATS server of the test's own, with players
//! spread over them.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use spades_client::{Client, ClientError};
use spades_protocol::ws::{ClientMessage, ErrorCode, RulesSpec, ServerMessage};
use spades_store::Store;
use tokio::time::Instant;

use crate::durability::{ServerProcess, check_against_replay, free_port, game_over};
use crate::support::*;

/// A NATS server with JetStream, in a folder of its own.
struct Nats {
    child: Child,
    port: u16,
    folder: PathBuf,
}

impl Nats {
    /// Starts one, or says why it cannot (outside CI only).
    async fn start() -> Option<Nats> {
        let binary = [
            "/usr/sbin/nats-server",
            "/usr/bin/nats-server",
            "/usr/local/bin/nats-server",
        ]
        .into_iter()
        .map(PathBuf::from)
        .find(|path| path.exists());
        let Some(binary) = binary else {
            assert!(!required(), "CI: nats-server is not installed");
            eprintln!("no nats-server: the cluster tests are skipped");
            return None;
        };
        let port = free_port();
        let folder = std::env::temp_dir().join(format!("spades-nats-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let child = Command::new(binary)
            .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
            .arg(&folder)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nats-server starts");
        let nats = Nats { child, port, folder };
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
                return Some(nats);
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("nats-server did not come up");
    }

    fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// A fresh database on the Postgres of `DATABASE_URL`, dropped at the end.
struct Database {
    admin_url: String,
    name: String,
}

impl Database {
    async fn create() -> Option<Database> {
        let Ok(admin_url) = std::env::var("DATABASE_URL") else {
            assert!(!required(), "CI: DATABASE_URL is not set");
            eprintln!("DATABASE_URL is not set: the cluster tests are skipped");
            return None;
        };
        let admin = Store::open(&admin_url).await.expect("Postgres at DATABASE_URL");
        let name = format!("spades_cluster_{}_{}", std::process::id(), free_port());
        admin.create_database(&name).await.expect("creates a database");
        admin.close().await;
        Some(Database { admin_url, name })
    }

    fn url(&self) -> String {
        let base = self.admin_url.split('?').next().unwrap_or(&self.admin_url);
        let server = &base[..base.rfind('/').expect("a database in the URL")];
        format!("{server}/{}", self.name)
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        let (url, name) = (self.admin_url.clone(), self.name.clone());
        // Dropped outside the test's runtime, which may be ending.
        let _ = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                if let Ok(admin) = Store::open(&url).await {
                    let _ = admin.drop_database(&name).await;
                    admin.close().await;
                }
            });
        })
        .join();
    }
}

/// Nodes of one cluster.
struct TestCluster {
    nodes: Vec<Option<ServerProcess>>,
    database: Database,
    nats: Nats,
}

impl TestCluster {
    /// Starts `count` nodes, named `a`, `b`, `c`..., or `None` where the
    /// machine lacks NATS or Postgres (outside CI only).
    async fn start(count: usize) -> Option<TestCluster> {
        let nats = Nats::start().await?;
        let database = Database::create().await?;
        let mut cluster = TestCluster {
            nodes: Vec::new(),
            database,
            nats,
        };
        for i in 0..count {
            let node = cluster.start_node(i).await;
            cluster.nodes.push(Some(node));
        }
        Some(cluster)
    }

    async fn start_node(&self, i: usize) -> ServerProcess {
        let mut command = Command::new(env!("CARGO_BIN_EXE_spades"));
        command
            .env("SPADES_NATS_URL", self.nats.url())
            .env("SPADES_NODE", node_name(i))
            // Quick-play tables fill with bots soon, so that two players
            // make a table.
            .env("SPADES_QUEUE_MAX_WAIT", "1");
        ServerProcess::start_with(command, &self.database.url(), free_port()).await
    }

    fn url(&self, i: usize) -> String {
        self.nodes[i].as_ref().expect("a running node").url()
    }

    fn node(&self, i: usize) -> &ServerProcess {
        self.nodes[i].as_ref().expect("a running node")
    }
}

fn node_name(i: usize) -> String {
    ((b'a' + i as u8) as char).to_string()
}

fn is_lobby_room(message: &ServerMessage, code: &str) -> bool {
    matches!(message, ServerMessage::LobbyRoom { room } if room.room == code)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_opened_on_one_node_is_in_every_nodes_lobby_within_a_second() {
    let Some(cluster) = TestCluster::start(3).await else {
        return;
    };
    let mut watcher = Player::connect(&cluster.url(2), "Watcher").await;
    watcher
        .request(|id| ClientMessage::WatchLobby { id })
        .await
        .unwrap();
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

/// Joins `code` through a player's node: the first join of a room that
/// opened a moment ago on another node may race its registration.
async fn join_anywhere(player: &mut Player, code: &str) {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let room = code.to_string();
        match player.request(|id| ClientMessage::JoinRoom { id, room }).await {
            Ok(ServerMessage::Snapshot { .. }) => return,
            Err(ClientError::Refused {
                code: ErrorCode::RoomNotFound,
                ..
            }) if Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(50)).await,
            other => panic!("{}: cannot join {code}: {other:?}", player.name),
        }
    }
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

/// Opens a room, seats `player` at it with three bots and starts its game;
/// returns the room's code.
async fn play_with_bots(player: &mut Player, private: bool) -> String {
    let code = player.create_room(RulesSpec::default(), private).await;
    player.sit(0).await;
    for seat in 1..4 {
        player
            .request(|id| ClientMessage::AddBot {
                id,
                seat: spades_engine::Seat::new(seat),
            })
            .await
            .unwrap();
    }
    player.start_game().await;
    code
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

/// A player of the rolling-restart test: his connection may be closed
/// under him at any time, and he comes back through another node.
struct Traveller {
    player: Player,
    code: String,
    /// The node he is connected through.
    node: usize,
    lost: bool,
    /// When he may next try to come back.
    retry_at: Instant,
    /// When he may act on the turn in front of him: people think.
    act_at: Option<Instant>,
}

/// How long a traveller thinks before each action, so that the games
/// outlast the restarts.
const THINK: Duration = Duration::from_millis(60);

impl Traveller {
    /// Reads what came, acts when due, and comes back after a lost
    /// connection. Returns whether anything happened.
    async fn step(&mut self, urls: &[String]) -> bool {
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
                })
                .await
                .expect("a bot sits");
        }
        owner.start_game().await;
        for (player, node) in [(owner, home), (partner, other)] {
            travellers.push(Traveller {
                player,
                code: code.clone(),
                node,
                lost: false,
                retry_at: Instant::now(),
                act_at: None,
            });
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
    use crate::tournaments::{account, check_knockout, create, play_tournament, tables_announced};
    let Some(cluster) = TestCluster::start(3).await else {
        return;
    };
    let a = cluster.node(0).address;
    let (organiser, _) = account(a, "Organiser").await;
    let settings = serde_json::json!({"name": "Spread", "format": "knockout", "max_players": 8});
    let id = create(a, &organiser, settings).await;
    // The players are spread over the nodes, and register through them.
    let mut players = Vec::new();
    for i in 0..8 {
        let node = i % 3;
        let name = format!("ko{i}");
        let (token, _) = account(cluster.node(node).address, &name).await;
        players.push(Player::sign_in(&cluster.url(node), &name, &token).await);
    }
    for (i, player) in players.iter().enumerate() {
        let node = cluster.node(i % 3).address;
        Api::new(node).enter(&player.token, &id).await.expect(201);
    }
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_the_tournament_runner_dies_another_node_runs_the_tournament() {
    use crate::tournaments::{account, check_knockout, create, play_tournament};
    let Some(mut cluster) = TestCluster::start(3).await else {
        return;
    };
    let a = cluster.node(0).address;
    let (organiser, _) = account(a, "Organiser").await;
    let settings = serde_json::json!({"name": "Handed on", "format": "knockout", "max_players": 8});
    let id = create(a, &organiser, settings).await;
    // The node that took the tournaments lease runs them; it dies.
    let runner = tournament_runner(&cluster).await;
    cluster.nodes[runner].take().expect("the runner").kill();
    let alive: Vec<usize> = (0..3).filter(|&i| i != runner).collect();
    // Eight players register through the other nodes, which fills the
    // tournament; one of those nodes takes the lease and runs it.
    let mut players = Vec::new();
    for i in 0..8 {
        let node = alive[i % 2];
        let name = format!("ko{i}");
        let (token, _) = account(cluster.node(node).address, &name).await;
        players.push(Player::sign_in(&cluster.url(node), &name, &token).await);
        Api::new(cluster.node(node).address)
            .enter(&players[i].token, &id)
            .await
            .expect(201);
    }
    let view = play_tournament(
        cluster.node(alive[0]).address,
        &mut players,
        &id,
        Duration::from_secs(300),
    )
    .await;
    check_knockout(&view, 8);
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
    use crate::tournaments::{account, check_knockout, create, play_tournament, tables_announced};
    use spades_protocol::http::TableStatus;
    let Some(mut cluster) = TestCluster::start(3).await else {
        return;
    };
    let a = cluster.node(0).address;
    let (organiser, _) = account(a, "Organiser").await;
    let settings = serde_json::json!({"name": "Mid-stage", "format": "knockout", "max_players": 8});
    let id = create(a, &organiser, settings).await;
    let runner = tournament_runner(&cluster).await;
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
    let mut players = Vec::new();
    for i in 0..8 {
        let node = alive[i % 2];
        let name = format!("ko{i}");
        let (token, _) = account(cluster.node(node).address, &name).await;
        players.push(Player::sign_in(&cluster.url(node), &name, &token).await);
        Api::new(cluster.node(node).address)
            .enter(&players[i].token, &id)
            .await
            .expect(201);
    }
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
}
