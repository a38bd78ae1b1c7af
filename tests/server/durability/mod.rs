//! Games that survive the server: killed with SIGKILL in the middle of a
//! hand, stopped with SIGTERM, and the database going away under it. These
//! tests run the real `spades` binary as a separate process.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use spades_client::Client;
use spades_engine::{Action, Event, Game, HandRecord, RuleSet, Seat};
use spades_protocol::event::{EventKind, RoomEvent};
use spades_protocol::history::OwnedHandLine;
use spades_protocol::http::GameStatus;
use spades_protocol::ws::{ClientMessage, ErrorCode, RulesSpec, ServerMessage};

use crate::support::*;

mod postgres_outage;
mod restarts;

/// A port free now and never handed out before in this process: a server
/// started on a port another test's server used earlier would otherwise
/// share its log file (named by port), and a test reading the log would
/// read the other server's lines too. A restart passes its port again
/// itself.
pub fn free_port() -> u16 {
    static GIVEN: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    loop {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut given = GIVEN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
    }
}

/// Clocks that never run out during a test.
const LONG_CLOCKS: &[&str] = &["--turn-time", "600", "--seat-hold", "600"];

/// The `spades` server as a child process.
pub struct ServerProcess {
    child: Child,
    pub address: SocketAddr,
    database: String,
    log: PathBuf,
}

impl ServerProcess {
    pub async fn start(database: &str, port: u16) -> ServerProcess {
        ServerProcess::start_with(Command::new(env!("CARGO_BIN_EXE_spades")), database, port).await
    }

    /// Starts the server through `command`, which runs the binary (a shell
    /// that sets limits first, say) and takes the server's arguments after
    /// its own.
    pub async fn start_with(command: Command, database: &str, port: u16) -> ServerProcess {
        ServerProcess::launch(command, database, port, LONG_CLOCKS).await
    }

    /// Starts the server with the turn clock and the seat hold given in
    /// seconds.
    pub async fn start_timed(database: &str, port: u16, turn_time: u32, seat_hold: u32) -> ServerProcess {
        let (turn_time, seat_hold) = (turn_time.to_string(), seat_hold.to_string());
        let clocks = [
            "--turn-time",
            turn_time.as_str(),
            "--seat-hold",
            seat_hold.as_str(),
        ];
        ServerProcess::launch(
            Command::new(env!("CARGO_BIN_EXE_spades")),
            database,
            port,
            &clocks,
        )
        .await
    }

    async fn launch(mut command: Command, database: &str, port: u16, clocks: &[&str]) -> ServerProcess {
        let log = std::env::temp_dir().join(format!("spades-server-{port}-{}.log", std::process::id()));
        let log_file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .unwrap();
        // Bots act at once unless a test asks for their human pace.
        for (name, value) in [("SPADES_BOT_DELAY_MS", "0"), ("SPADES_TRICK_PAUSE_MS", "0")] {
            if !command.get_envs().any(|(set, _)| set == name) {
                command.env(name, value);
            }
        }
        let child = command
            .args([
                "serve",
                "--bind",
                &format!("127.0.0.1:{port}"),
                "--database",
                database,
            ])
            .args(["--password-memory", "256", "--password-iterations", "1"])
            .args(clocks)
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(log_file)
            .spawn()
            .expect("the spades binary starts");
        let address: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let mut server = ServerProcess {
            child,
            address,
            database: database.to_string(),
            log,
        };
        server.wait_healthy().await;
        server
    }

    pub fn url(&self) -> String {
        format!("ws://{}/ws", self.address)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the server wrote to its log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    async fn wait_healthy(&mut self) {
        for _ in 0..300 {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "the server exited ({status}): {}",
                    std::fs::read_to_string(&self.log).unwrap_or_default()
                );
            }
            if tokio::net::TcpStream::connect(self.address).await.is_ok()
                && http(self.address, "GET", "/healthz", None, None).await.status == 200
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!(
            "the server did not come up: {}",
            std::fs::read_to_string(&self.log).unwrap_or_default()
        );
    }

    /// Waits up to `within` for the process to exit by itself; its status
    /// if it did.
    /// The process's exit status, if it has ended.
    pub fn has_exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    pub async fn exited_within(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let deadline = tokio::time::Instant::now() + within;
        while tokio::time::Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        None
    }

    pub fn kill(mut self) -> (String, u16) {
        self.child.kill().expect("SIGKILL");
        let _ = self.child.wait();
        (self.database.clone(), self.address.port())
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Plays until seat 0 has seen `hands` hands scored and `cards` more cards
/// of the next hand played.
pub async fn play_into_hand(players: &mut [Player], hands: u32, cards: usize) {
    let deadline = tokio::time::Instant::now() + GAME_DEADLINE;
    loop {
        for player in players.iter_mut() {
            player.pump().await;
        }
        let played = players[0]
            .received
            .iter()
            .rev()
            .take_while(|m| !matches!(m.event(), Some(EventKind::HandStarted { .. })))
            .filter(|m| matches!(m.event(), Some(EventKind::CardPlayed { .. })))
            .count();
        if players[0].table.hands_scored >= hands && played >= cards {
            return;
        }
        for player in players.iter_mut() {
            player.act_if_due().await;
        }
        assert!(tokio::time::Instant::now() < deadline, "the game stalled");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// Puts every player back into the room on new connections after the
/// server came back: hello with the token, then resync.
async fn come_back(players: &mut [Player], url: &str, code: &str) {
    for player in players.iter_mut() {
        let mut client = Client::connect(url).await.expect("reconnects");
        client.continue_ids(&player.client);
        let welcome = client
            .hello_again(&player.token)
            .await
            .expect("the token still works");
        let ServerMessage::Welcome { room, .. } = &welcome else {
            panic!("{welcome:?}")
        };
        assert_eq!(
            room.as_deref(),
            Some(code),
            "the welcome names the room of the seat"
        );
        player.client = client;
        let (room, last_seq) = (code.to_string(), player.table.last_seq);
        let reply = player
            .request(|id| ClientMessage::Resync { id, room, last_seq })
            .await
            .expect("resync");
        assert!(
            matches!(reply, ServerMessage::Snapshot { .. }),
            "a restarted room sends a snapshot: {reply:?}"
        );
        player.table.dropped();
    }
}

/// Checks a finished game against an uninterrupted replay of its stored
/// rules, seed and actions: same hands, same winner, same score as the
/// players were told.
pub async fn check_against_replay(
    address: SocketAddr,
    token: &str,
    told_winner: Option<u8>,
    told_score: Vec<i32>,
) {
    let api = Api::new(address);
    let games = api.recent_games(token).await;
    let id = games.games.first().expect("the game is listed").id;
    let stored = api.game(id).await;
    assert_eq!(stored.status, GameStatus::Finished);
    let rules: RuleSet = stored.rules;
    let seed: u64 = stored.seed.expect("the seed").parse().unwrap();
    let actions: Vec<(Seat, Action)> = stored
        .actions
        .expect("the actions")
        .iter()
        .map(|a| (Seat::new(a.seat).unwrap(), a.action.parse().unwrap()))
        .collect();

    let mut game = Game::new(rules, seed).unwrap();
    let mut replayed: Vec<HandRecord> = Vec::new();
    for &(seat, action) in &actions {
        let events = game.apply(seat, action).expect("every stored action replays");
        if events.iter().any(|e| matches!(e, Event::HandEnded { .. })) {
            replayed.push(game.last_hand().unwrap().clone());
        }
    }
    assert!(game.is_over(), "the stored actions make a whole game");
    assert_eq!(game.winner().map(|t| t.index() as u8), told_winner);
    assert_eq!(game.score().as_slice(), told_score);
    assert_eq!(stored.winner, told_winner);
    assert_eq!(stored.score, Some(told_score));

    let history = api.history(id).await;
    let kept: Vec<HandRecord> = history
        .body
        .lines()
        .map(|l| OwnedHandLine::parse(l).unwrap().record)
        .collect();
    assert_eq!(kept, replayed, "every stored hand equals the replay's");
}

/// Starts the server again on its database and port once `server` is
/// gone, brings the players back to their table, plays the game to its
/// end and checks it against a replay of what was stored.
async fn restart_and_finish(server: ServerProcess, players: &mut [Player], url: &str, code: &str) {
    let (database, port) = server.kill();
    let server = ServerProcess::start(&database, port).await;
    come_back(players, url, code).await;
    play_games(players, &mut [], 1, Duration::from_secs(120)).await;
    let (winner, score) = game_over(&players[0]);
    check_against_replay(server.address, &players[0].token, winner, score).await;
}

/// A server process on a fresh database, and four players whose game has
/// started there: the server, the players and the room's code.
async fn a_game_on_a_process() -> (ServerProcess, Vec<Player>, String) {
    let server = ServerProcess::start(&fresh_database(), free_port()).await;
    let (players, code) = four_in_a_game(&server.url()).await;
    (server, players, code)
}

pub fn game_over(player: &Player) -> (Option<u8>, Vec<i32>) {
    player
        .received
        .iter()
        .rev()
        .find_map(|m| match m {
            ServerMessage::Event(RoomEvent {
                kind: EventKind::GameOver { winner, score, .. },
                ..
            }) => Some((winner.map(|t| t.index() as u8), score.as_slice().to_vec())),
            _ => None,
        })
        .expect("a game over")
}

/// How a test stops the server.
#[derive(Clone, Copy, Debug)]
pub enum Stop {
    Kill,
    Term,
}

/// Stops the server as told and waits until it is gone; returns its
/// database and port for the next start.
pub async fn stop_server(mut server: ServerProcess, stop: Stop) -> (String, u16) {
    match stop {
        Stop::Kill => server.kill(),
        Stop::Term => {
            let status = Command::new("kill")
                .args(["-TERM", &server.child.id().to_string()])
                .status()
                .unwrap();
            assert!(status.success());
            let (server, status) = tokio::task::spawn_blocking(move || {
                let status = server.child.wait();
                (server, status)
            })
            .await
            .unwrap();
            assert!(status.unwrap().success(), "the server stops cleanly");
            server.kill()
        }
    }
}
