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

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_hand_resumes_the_game_exactly() {
    let (server, mut players, code) = a_game_on_a_process().await;
    let url = server.url();
    play_into_hand(&mut players, 1, 6).await;

    restart_and_finish(server, &mut players, &url, &code).await;
}

/// A three-player game resumes with its three seats: the stored game has
/// three players, and the replay of its actions checks the result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_three_player_game_killed_mid_hand_resumes_exactly() {
    let server = ServerProcess::start(&fresh_database(), free_port()).await;
    let url = server.url();
    let mut players = Vec::new();
    for name in ["North", "East", "South"] {
        players.push(Player::connect(&url, name).await);
    }
    let rules = spades_protocol::ws::RulesSpec {
        preset: Some(spades_engine::Preset::ThreePlayer),
        max_hands: Some(Some(3)),
        ..Default::default()
    };
    let code = players[0].create_room(rules, false).await;
    for player in players.iter_mut().skip(1) {
        player.join_room(&code).await;
    }
    for (seat, player) in players.iter_mut().enumerate() {
        player.sit(seat as u8).await;
    }
    players[0].start_game().await;
    play_into_hand(&mut players, 1, 10).await;

    restart_and_finish(server, &mut players, &url, &code).await;
    assert_eq!(game_over(&players[0]).1.len(), 3, "three final scores");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_tells_clients_and_the_game_resumes_after_the_restart() {
    let (server, mut players, code) = a_game_on_a_process().await;
    let url = server.url();
    play_into_hand(&mut players, 0, 9).await;

    let status = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    for player in players.iter_mut() {
        player
            .wait_for(Duration::from_secs(10), |m| {
                matches!(m, ServerMessage::ShuttingDown { .. })
            })
            .await;
        assert!(player.client.recv().await.is_err(), "then the connection closes");
    }
    let mut server = server;
    let exit = tokio::task::spawn_blocking(move || {
        let status = server.child.wait();
        (server, status)
    })
    .await
    .unwrap();
    let (server, status) = exit;
    assert!(status.unwrap().success(), "the server stops cleanly");

    restart_and_finish(server, &mut players, &url, &code).await;
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

/// Waits until it is player `who`'s turn, the others playing meanwhile,
/// then plays his move as a request. Returns the message sent and the
/// `seq` of its `ack`.
async fn act_and_confirm(players: &mut [Player], who: usize) -> (ClientMessage, u64) {
    let deadline = tokio::time::Instant::now() + GAME_DEADLINE;
    loop {
        for (i, player) in players.iter_mut().enumerate() {
            player.pump().await;
            if i != who {
                player.act_if_due().await;
            }
        }
        let me = &mut players[who];
        if me.table.should_act()
            && let Some(mv) = me.table.decide(false)
        {
            me.table.acted();
            let id = me.client.next_id();
            let message = mv.message(id.clone());
            me.client.send(&message).await.expect("sent");
            let reply = me.client.reply_to(&id).await.expect("a reply");
            for pending in me.client.take_pending() {
                me.note(pending);
            }
            let reply = me.note(reply);
            let ServerMessage::Ack { seq: Some(seq), .. } = reply else {
                panic!("the move was not accepted: {reply:?}")
            };
            return (message, seq);
        }
        assert!(tokio::time::Instant::now() < deadline, "no turn came");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// The highest room event any player saw.
fn highest_seq(players: &[Player]) -> u64 {
    players
        .iter()
        .flat_map(|player| player.received.iter().filter_map(ServerMessage::seq))
        .max()
        .unwrap_or(0)
}

/// A restart must not make a client believe something false: a room's
/// events are numbered on above every number it used before, a client
/// that resyncs from before the restart gets a snapshot and not events of
/// the new numbering, and an action sent again with its id is recognised.
async fn numbering_and_retries_survive(stop: Stop) {
    let database = fresh_database();
    // Held seats are given to the server after a second, so that the game
    // goes on without the player who stays away.
    let server = ServerProcess::start_timed(&database, free_port(), 600, 1).await;
    let url = server.url();
    let (mut players, code) = four_in_a_game(&url).await;
    play_into_hand(&mut players, 0, 3).await;

    // West leaves the table; the server plays for him from now on.
    let mut west = players.pop().expect("four players");
    let west_seen = west.table.last_seq;
    let reply = west.request(|id| ClientMessage::LeaveRoom { id }).await;
    assert!(matches!(reply, Ok(ServerMessage::Ack { .. })), "{reply:?}");
    // The others play on, and North's last move is confirmed just before
    // the server stops.
    play_into_hand(&mut players, 0, 8).await;
    let (last_move, acked_seq) = act_and_confirm(&mut players, 0).await;
    let before = highest_seq(&players).max(acked_seq);
    assert!(before > west_seen + 5, "the table moved on without West");

    let (database, port) = stop_server(server, stop).await;
    let server = ServerProcess::start_timed(&database, port, 600, 1).await;
    come_back(&mut players, &url, &code).await;
    for player in &players {
        let snapshot_seq = player.table.last_seq;
        assert!(
            snapshot_seq > before,
            "{}: the room numbered from {snapshot_seq} after a restart, below the {before} seen before",
            player.name
        );
    }

    // North sends his last move again with the same id: it was applied
    // before the restart, and is not applied twice.
    let north = &mut players[0];
    let id = last_move.id();
    north.client.send(&last_move).await.expect("sent again");
    let again = north.client.reply_to(id).await.expect("an answer");
    for pending in north.client.take_pending() {
        north.note(pending);
    }
    assert_eq!(
        north.note(again),
        ServerMessage::Ack {
            id: id.clone(),
            seq: Some(acked_seq),
            duplicate: true
        },
        "the retry is recognised after the restart, with the seq of its first ack"
    );

    // Play goes on, numbered without gaps from the snapshots.
    let gaps: Vec<u32> = players.iter().map(|player| player.gaps).collect();
    let resumed_at = players[0].table.last_seq;
    play_into_hand(&mut players, 1, 2).await;
    assert!(players[0].table.last_seq > resumed_at + 5, "the game went on");
    for (player, gaps) in players.iter().zip(gaps) {
        assert_eq!(player.gaps, gaps, "{} saw a gap in the events", player.name);
    }

    // West comes back with the last event he saw, from before the restart:
    // he gets a snapshot of the game as it is, not events that only share
    // their numbers with the ones he missed.
    let mut client = Client::connect(&url).await.expect("reconnects");
    client.continue_ids(&west.client);
    client.hello_again(&west.token).await.expect("welcome");
    west.client = client;
    let room = code.clone();
    let reply = west
        .request(|id| ClientMessage::Resync {
            id,
            room,
            last_seq: west_seen,
        })
        .await
        .expect("resync");
    let ServerMessage::Snapshot { seq, state, .. } = &reply else {
        panic!("a resync from before the restart got {reply:?}, not a snapshot")
    };
    assert!(*seq >= players[0].table.last_seq);
    assert_eq!(
        state.your_seat.map(|seat| seat.index()),
        Some(3),
        "back in his seat"
    );
    west.table.dropped();
    players.push(west);

    play_games(&mut players, &mut [], 1, Duration::from_secs(120)).await;
    let (winner, score) = game_over(&players[0]);
    check_against_replay(server.address, &players[0].token, winner, score).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_sigkill_numbering_goes_on_and_retries_are_recognised() {
    numbering_and_retries_survive(Stop::Kill).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_sigterm_numbering_goes_on_and_retries_are_recognised() {
    numbering_and_retries_survive(Stop::Term).await;
}

/// A Postgres server of the test's own, in a folder of its own, run as the
/// `postgres` user (Postgres refuses to run as root).
struct ThrowawayPostgres {
    bin: PathBuf,
    data: PathBuf,
    port: u16,
}

impl ThrowawayPostgres {
    fn as_postgres(&self, program: &str) -> Command {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(self.bin.join(program));
        command
    }

    /// Sets one up, or says why it cannot be (outside CI only).
    fn create() -> Option<ThrowawayPostgres> {
        let in_ci = std::env::var("CI").is_ok_and(|ci| ci == "true");
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .ok()
            .and_then(|versions| {
                versions
                    .flatten()
                    .map(|v| v.path().join("bin"))
                    .find(|b| b.join("initdb").exists())
            });
        let Some(bin) = bin else {
            assert!(!in_ci, "CI: initdb is not installed");
            eprintln!("no initdb: the Postgres outage test is skipped");
            return None;
        };
        let data = std::env::temp_dir().join(format!("spades-pg-{}-{}", std::process::id(), free_port()));
        std::fs::create_dir_all(&data).unwrap();
        let owned = Command::new("chown")
            .args(["-R", "postgres:postgres"])
            .arg(&data)
            .status();
        if !owned.is_ok_and(|s| s.success()) {
            assert!(!in_ci, "CI: cannot give the data folder to the postgres user");
            eprintln!("cannot chown to postgres: the Postgres outage test is skipped");
            return None;
        }
        let postgres = ThrowawayPostgres {
            bin,
            data,
            port: free_port(),
        };
        let init = postgres
            .as_postgres("initdb")
            .args(["-A", "trust", "-U", "postgres", "-D"])
            .arg(&postgres.data)
            .stdout(Stdio::null())
            .status()
            .expect("runuser runs");
        assert!(init.success(), "initdb failed");
        Some(postgres)
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    fn start(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1",
            self.port,
            self.data.display()
        );
        let status = self
            .as_postgres("pg_ctl")
            .args(["-D"])
            .arg(&self.data)
            .args(["-o", &options, "-l"])
            .arg(self.data.join("log"))
            .args(["-w", "start"])
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "pg_ctl start failed");
    }

    fn stop(&self) {
        let status = self
            .as_postgres("pg_ctl")
            .args(["-D"])
            .arg(&self.data)
            .args(["-m", "fast", "-w", "stop"])
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "pg_ctl stop failed");
    }
}

impl Drop for ThrowawayPostgres {
    fn drop(&mut self) {
        let _ = self
            .as_postgres("pg_ctl")
            .args(["-D"])
            .arg(&self.data)
            .args(["-m", "immediate", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.data);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_postgres_goes_away_play_goes_on_and_every_hand_is_stored_when_it_returns() {
    let Some(postgres) = ThrowawayPostgres::create() else {
        return;
    };
    postgres.start();
    let server = ServerProcess::start(&postgres.url(), free_port()).await;
    let url = server.url();
    let mut players = four_players(&url).await;
    let tournament = RulesSpec {
        preset: Some(spades_engine::Preset::Tournament),
        ..RulesSpec::default()
    };
    seat_four(&mut players, tournament).await;
    players[0].start_game().await;
    // Four more players wait at another table, to try to start a game.
    let mut others = four_players(&url).await;
    seat_four(&mut others, RulesSpec::default()).await;
    play_into_hand(&mut players, 1, 4).await;

    postgres.stop();
    // Play goes on; the server says it is degraded and starts no game.
    play_into_hand(&mut players, 2, 8).await;
    let ready = http(server.address, "GET", "/readyz", None, None).await;
    assert_eq!(ready.status, 503);
    assert!(ready.body.contains("degraded"), "{}", ready.body);
    let refused_start = others[0].request(|id| ClientMessage::StartGame { id }).await;
    assert_eq!(refused(refused_start), ErrorCode::StoreUnavailable);

    // East's connection drops. The server cannot ask the store about his
    // token, but it has seen his session: he comes back to his seat.
    let east = &mut players[1];
    let mut client = Client::connect(&url).await.expect("reconnects");
    client.continue_ids(&east.client);
    let welcome = client
        .hello_again(&east.token)
        .await
        .expect("a session seen before is let in while the store is down");
    assert!(
        matches!(welcome, ServerMessage::Welcome { room: Some(_), .. }),
        "{welcome:?}"
    );
    east.client = client;
    east.table.dropped();
    let (room, last_seq) = (east.table.room.clone().unwrap(), east.table.last_seq);
    let back = east
        .request(|id| ClientMessage::Resync { id, room, last_seq })
        .await
        .expect("resync");
    assert!(
        matches!(back, ServerMessage::Ack { .. } | ServerMessage::Snapshot { .. }),
        "{back:?}"
    );
    // A token the server never saw cannot be checked now.
    let mut stranger = Client::connect(&url).await.unwrap();
    assert!(matches!(
        stranger.hello_again("a_0123456789abcdef0123456789abcdef").await,
        Err(spades_client::ClientError::Refused {
            code: ErrorCode::StoreUnavailable,
            ..
        })
    ));
    // No room opens either: it could not number its events.
    let refused_room = others[0].try_create_room().await;
    assert_eq!(refused(refused_room), ErrorCode::StoreUnavailable);
    play_into_hand(&mut players, 2, 11).await;

    postgres.start();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while http(server.address, "GET", "/readyz", None, None).await.status != 200 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the server stayed degraded"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    play_games(&mut players, &mut [], 1, Duration::from_secs(120)).await;

    // Everything played while the database was down is stored.
    let (winner, score) = game_over(&players[0]);
    check_against_replay(server.address, &players[0].token, winner, score).await;
    let api = Api::new(server.address);
    let games = api.recent_games(&players[0].token).await;
    let history = api.history(games.games[0].id).await;
    assert_eq!(
        history.body.lines().count() as u32,
        players[0].table.hands_scored,
        "every hand is stored"
    );
}
