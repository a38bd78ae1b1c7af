//! Several servers as one service: three `spades` processes on one
//! Postgres database and a NATS server of the test's own, with players
//! spread over them. This module starts them; its children test tables
//! across nodes, quick play, restarts and tournaments.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use spades_client::{Client, ClientError};
use spades_protocol::ws::{ClientMessage, ErrorCode, RulesSpec, ServerMessage};
use spades_store::Store;
use tokio::time::Instant;

use crate::durability::{ServerProcess, check_against_replay, free_port, game_over};
use crate::support::*;

mod faults;
mod friends;
mod moderation;
mod queue;
mod restarts;
mod tables;
mod tournaments;

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
                level: None,
            })
            .await
            .unwrap();
    }
    player.start_game().await;
    code
}
