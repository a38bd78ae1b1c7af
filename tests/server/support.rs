//! Starting a real server on a free port and driving it with real WebSocket
//! clients. Every message any test client receives goes through
//! `check_privacy`, so every test also checks that nobody is sent cards he
//! may not see.

use std::net::SocketAddr;
use std::time::Duration;

use spades_client::{Client, ClientError, TableState, table::Move};
use spades_engine::Seat;
use spades_protocol::event::{EventKind, RoomEvent};
use spades_protocol::ws::{BotLevel, ClientMessage, MessageId, RulesSpec, ServerMessage};
use spades_server::{Config, PasswordCost, Server};

// The API client lives beside this file; it is declared here so that
// every test binary that includes the support module gets it too.
#[path = "admin_cli.rs"]
pub mod admin_cli;
#[path = "api.rs"]
pub mod api;
#[path = "seating.rs"]
pub mod seating;
pub use admin_cli::{admin_cli, admin_cli_with_input};
pub use api::{Api, HttpAnswer, http};
pub use seating::{alone_with_bots, four_in_a_game, four_players, seat_four, seat_four_at};

pub struct TestServer {
    pub server: Server,
    pub url: String,
}

/// A new, empty SQLite database file.
pub fn fresh_database() -> String {
    let path = std::env::temp_dir().join(format!("spades-test-{}.db", uuid_like()));
    format!("sqlite:{}", path.display())
}

fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    format!(
        "{}-{nanos}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// How long a test may take to play a whole game before it counts as
/// stuck. A game takes a few seconds alone, but the suite runs its tests
/// side by side on two cores of a machine that may be shared: this bounds
/// a hang, not the server's speed.
pub const GAME_DEADLINE: Duration = Duration::from_secs(180);

/// Password hashing cheap enough for tests in a debug build.
pub const CHEAP_PASSWORDS: PasswordCost = PasswordCost {
    memory_kib: 256,
    iterations: 1,
};

impl TestServer {
    /// Starts a server on a free port. Unless the settings name a database,
    /// it gets a fresh SQLite file; passwords are hashed cheaply, and bots
    /// act at once (see [`TestServer::start_paced`]).
    pub async fn start(config: Config) -> TestServer {
        TestServer::start_paced(Config {
            bot_delay: spades_server::BotDelay::NONE,
            ..config
        })
        .await
    }

    /// Starts a server whose bots keep the pace `config` gives them.
    pub async fn start_paced(config: Config) -> TestServer {
        let database_url = if config.database_url == Config::default().database_url {
            fresh_database()
        } else {
            config.database_url.clone()
        };
        let config = Config {
            database_url,
            password_cost: CHEAP_PASSWORDS,
            ..config
        };
        let address: SocketAddr = "127.0.0.1:0".parse().unwrap();
        let server = Server::start(config, address).await.expect("the server starts");
        let url = format!("ws://{}/ws", server.local_addr());
        TestServer { server, url }
    }

    pub fn address(&self) -> SocketAddr {
        self.server.local_addr()
    }

    /// A client of the server's HTTP API.
    pub fn api(&self) -> Api {
        Api::new(self.address())
    }

    /// Runs `spades admin ARGS` on the server's database, as an operator
    /// with shell access would, and returns what it printed.
    pub fn admin(&self, args: &[&str]) -> String {
        admin_cli(&self.server.state().config().database_url, args)
    }

    /// Makes the registered account `name` an administrator with
    /// `spades admin role`.
    pub fn make_admin(&self, name: &str) {
        self.admin(&["role", name, "admin"]);
    }
}

/// Fails the test if `message`, received by a client sitting in `seat` (or
/// a spectator), shows cards that are not his to see.
pub fn check_privacy(seat: Option<Seat>, message: &ServerMessage) {
    let mine = |other: Seat| seat == Some(other);
    match message {
        ServerMessage::Event(RoomEvent {
            kind: EventKind::HandStarted { cards, .. },
            ..
        }) => {
            assert!(
                cards.is_none() || seat.is_some(),
                "a spectator was dealt cards: {message:?}"
            );
        }
        ServerMessage::Event(RoomEvent {
            kind: EventKind::HandRevealed {
                seat: owner, cards, ..
            },
            ..
        }) => {
            assert!(
                cards.is_none() || mine(*owner),
                "{seat:?} saw {owner}'s revealed hand"
            );
        }
        ServerMessage::Event(RoomEvent {
            kind: EventKind::CardsPassed { from, to, cards, .. },
            ..
        }) => {
            assert!(
                cards.is_none() || mine(*from) || mine(*to),
                "{seat:?} saw a pass between {from} and {to}"
            );
        }
        ServerMessage::Turn { turn, .. } => {
            let acting = seat.is_some_and(|seat| turn.seats.contains(&seat));
            assert!(
                acting || (turn.legal.is_none() && turn.pass_count.is_none()),
                "{seat:?} got another's legal moves"
            );
        }
        ServerMessage::Snapshot { state, .. } => {
            // A client entering a room learns his seat from the snapshot.
            let seat = seat.or(state.your_seat);
            let mine = |other: Seat| seat == Some(other);
            if let Some(game) = &state.game {
                assert_eq!(game.seat, state.your_seat);
                assert!(
                    game.cards.is_none() || game.seat.is_some(),
                    "a spectator's snapshot has cards"
                );
                for pass in &game.passes {
                    assert!(
                        mine(pass.from) || mine(pass.to),
                        "{seat:?} saw a pass in a snapshot"
                    );
                }
                assert!(game.pass_chosen.is_none() || seat.is_some());
                if let Some(turn) = &game.turn {
                    let acting = seat.is_some_and(|seat| turn.seats.contains(&seat));
                    assert!(acting || turn.legal.is_none());
                }
            }
        }
        _ => {}
    }
}

/// A test client: a connection, what its seat knows, and everything it has
/// received.
pub struct Player {
    pub client: Client,
    pub table: TableState,
    pub name: String,
    pub token: String,
    pub id: String,
    pub received: Vec<ServerMessage>,
    /// Blind nil when offered, rather than looking.
    pub blind_nil: bool,
    /// The turn message this player last acted on.
    pub acted_on: u64,
    /// Room events that arrived out of sequence.
    pub gaps: u32,
}

impl Player {
    pub async fn connect(url: &str, name: &str) -> Player {
        let mut client = Client::connect(url).await.expect("connects");
        let welcome = client.hello(name).await.expect("welcome");
        let ServerMessage::Welcome { token, player, .. } = welcome else {
            panic!("expected a welcome, got {welcome:?}");
        };
        let table = TableState {
            me: Some(player.id.clone()),
            ..TableState::default()
        };
        Player {
            client,
            table,
            name: name.to_string(),
            token,
            id: player.id,
            received: Vec::new(),
            blind_nil: false,
            acted_on: 0,
            gaps: 0,
        }
    }

    /// Connects a guest who watches the lobby's live room list.
    pub async fn lobby_watcher(url: &str, name: &str) -> Player {
        let mut watcher = Player::connect(url, name).await;
        watcher
            .request(|id| ClientMessage::WatchLobby { id })
            .await
            .expect("watch_lobby is answered");
        watcher
    }

    /// Receives until the lobby says that room `code` closed.
    pub async fn wait_for_room_closed(&mut self, code: &str) {
        self.wait_for(
            Duration::from_secs(5),
            |m| matches!(m, ServerMessage::LobbyRoomClosed { room } if room == code),
        )
        .await;
    }

    /// Connects as the account behind `token`.
    pub async fn sign_in(url: &str, name: &str, token: &str) -> Player {
        let mut client = Client::connect(url).await.expect("connects");
        let welcome = client.hello_again(token).await.expect("welcome");
        let ServerMessage::Welcome { player, .. } = welcome else {
            panic!("expected a welcome, got {welcome:?}");
        };
        Player {
            client,
            table: TableState {
                me: Some(player.id.clone()),
                ..TableState::default()
            },
            name: name.to_string(),
            token: token.to_string(),
            id: player.id,
            received: Vec::new(),
            blind_nil: false,
            acted_on: 0,
            gaps: 0,
        }
    }

    /// Forgets the table it was at, to sit at another.
    pub fn clear_table(&mut self) {
        self.table = TableState {
            me: Some(self.id.clone()),
            ..TableState::default()
        };
        self.acted_on = 0;
    }

    /// Records and checks one message.
    pub fn note(&mut self, message: ServerMessage) -> ServerMessage {
        check_privacy(self.table.seat, &message);
        if !self.table.apply(&message) {
            self.gaps += 1;
        }
        self.received.push(message.clone());
        message
    }

    /// Receives everything already waiting, without blocking.
    pub async fn pump(&mut self) -> usize {
        let mut count = 0;
        while let Some(message) = self
            .client
            .try_recv(Duration::ZERO)
            .await
            .expect("connection open")
        {
            self.note(message);
            count += 1;
        }
        count
    }

    /// Receives until a message matches, failing after `within`.
    pub async fn wait_for(
        &mut self,
        within: Duration,
        what: impl Fn(&ServerMessage) -> bool,
    ) -> ServerMessage {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let message = self
                .client
                .try_recv(left)
                .await
                .expect("connection open")
                .unwrap_or_else(|| panic!("{}: nothing matching within {within:?}", self.name));
            let message = self.note(message);
            if what(&message) {
                return message;
            }
        }
    }

    /// Receives until the player's state satisfies `done`, failing after `within`.
    pub async fn until(&mut self, within: Duration, done: impl Fn(&Player) -> bool) {
        let deadline = tokio::time::Instant::now() + within;
        while !done(self) {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.client.try_recv(left).await.expect("connection open") {
                Some(message) => {
                    self.note(message);
                }
                None => panic!("{}: condition not met within {within:?}", self.name),
            }
        }
    }

    /// Sends a request and returns its reply; other messages are recorded.
    pub async fn request(
        &mut self,
        make: impl FnOnce(MessageId) -> ClientMessage,
    ) -> Result<ServerMessage, ClientError> {
        let result = self.client.request(make).await;
        // Events that arrived before the reply were kept by the client;
        // they come first.
        for message in self.client.take_pending() {
            self.note(message);
        }
        let reply = result?;
        Ok(self.note(reply))
    }

    /// Asks for a new public room with the default rules, which may be
    /// refused.
    pub async fn try_create_room(&mut self) -> Result<ServerMessage, ClientError> {
        self.request(|id| ClientMessage::CreateRoom {
            speed: Default::default(),
            id,
            name: None,
            rules: RulesSpec::default(),
            private: false,
            bots: Some(BotLevel::Basic),
            rated: false,
        })
        .await
    }

    pub async fn create_room(&mut self, rules: RulesSpec, private: bool) -> String {
        let reply = self
            .request(|id| ClientMessage::CreateRoom {
                speed: Default::default(),
                id,
                name: None,
                rules,
                private,
                bots: Some(BotLevel::Basic),
                rated: false,
            })
            .await
            .expect("room created");
        match reply {
            ServerMessage::Snapshot { state, .. } => state.room,
            other => panic!("expected a snapshot, got {other:?}"),
        }
    }

    pub async fn join_room(&mut self, code: &str) {
        let room = code.to_string();
        let reply = self
            .request(|id| ClientMessage::JoinRoom { id, room })
            .await
            .expect("joined");
        assert!(matches!(reply, ServerMessage::Snapshot { .. }), "{reply:?}");
    }

    pub async fn sit(&mut self, seat: u8) {
        self.try_sit(seat).await.expect("seated");
    }

    /// Asks for a seat, for a test that expects a refusal.
    pub async fn try_sit(&mut self, seat: u8) -> Result<ServerMessage, ClientError> {
        let seat = Seat::new(seat);
        self.request(|id| ClientMessage::Sit { id, seat }).await
    }

    /// Plays `card` (as `"2C"`), for a test that expects a refusal.
    pub async fn try_play(&mut self, card: &str) -> Result<ServerMessage, ClientError> {
        let card = card.parse().expect("a card");
        self.request(|id| ClientMessage::Play { id, card }).await
    }

    /// Fails the test unless the connection still answers a ping.
    pub async fn still_answers(&mut self) {
        let pong = self.request(|id| ClientMessage::Ping { id }).await.unwrap();
        assert!(matches!(pong, ServerMessage::Pong { .. }), "{pong:?}");
    }

    pub async fn start_game(&mut self) {
        self.request(|id| ClientMessage::StartGame { id })
            .await
            .expect("started");
    }

    /// Acts if the last turn message asks this seat to and it has not acted
    /// on it yet. Returns whether it acted.
    pub async fn act_if_due(&mut self) -> bool {
        if !self.table.should_act() {
            return false;
        }
        let Some(mv) = self.table.decide(self.blind_nil) else {
            return false;
        };
        self.acted_on = self.table.turn_seq;
        self.table.acted();
        let id = self.client.next_id();
        self.client.send(&mv.message(id)).await.expect("sent");
        true
    }

    /// Sends a move and waits for its reply.
    pub async fn play_move(&mut self, mv: Move) -> Result<ServerMessage, ClientError> {
        self.request(|id| mv.message(id)).await
    }
}

/// The error code of a refused request.
pub fn refused(result: Result<ServerMessage, ClientError>) -> spades_protocol::ws::ErrorCode {
    match result {
        Err(ClientError::Refused { code, .. }) => code,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// Lets every player act whenever it is his turn until each of them, and
/// each of the `others` watching the room, has seen `games` more games end,
/// or `within` passes. The watchers are waited for too: on a cluster their
/// events may come through another node, after the players'.
pub async fn play_games(players: &mut [Player], others: &mut [Player], games: u32, within: Duration) {
    let targets: Vec<u32> = players
        .iter()
        .chain(others.iter())
        .map(|p| p.table.games_over + games)
        .collect();
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let mut busy = false;
        for player in players.iter_mut() {
            busy |= player.pump().await > 0;
            busy |= player.act_if_due().await;
        }
        for other in others.iter_mut() {
            busy |= other.pump().await > 0;
        }
        if players
            .iter()
            .chain(others.iter())
            .zip(&targets)
            .all(|(p, &target)| p.table.games_over >= target)
        {
            return;
        }
        if tokio::time::Instant::now() >= deadline {
            for player in players.iter() {
                eprintln!(
                    "{}: seat {:?} seq {} turn {:?} turn_seq {} acted_on {} playing {} cards {}",
                    player.name,
                    player.table.seat,
                    player.table.last_seq,
                    player.table.turn,
                    player.table.turn_seq,
                    player.acted_on,
                    player.table.playing,
                    player.table.cards
                );
                eprintln!(
                    "  last received: {:?}",
                    &player.received[player.received.len().saturating_sub(3)..]
                );
            }
            panic!("the games did not end within {within:?}");
        }
        if !busy {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
}

/// Rules that offer blind nil from the first hand (no deficit needed), on
/// the short tournament game.
pub fn blind_nil_rules() -> RulesSpec {
    RulesSpec {
        preset: Some(spades_engine::Preset::Tournament),
        blind_nil_min_deficit: Some(0),
        ..RulesSpec::default()
    }
}

/// Whether tests that cannot run must fail rather than be skipped: on CI
/// they must.
pub fn required() -> bool {
    std::env::var("CI").is_ok_and(|value| value == "true")
}

/// The repository's root, where `web/` is.
pub fn repository() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `node` with `args` from the repository's root, with `env` added,
/// and says whether it succeeded, with everything it printed.
pub async fn node_tests(args: &[&str], env: &[(&str, std::ffi::OsString)]) -> (bool, String) {
    let mut command = std::process::Command::new("node");
    command.args(args).current_dir(repository());
    for (name, value) in env {
        command.env(name, value);
    }
    let output = tokio::task::spawn_blocking(move || command.output().expect("node runs"))
        .await
        .unwrap();
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), report)
}
