//! The server's settings. The binary fills them from flags and the
//! environment; tests build them directly.

use std::sync::Arc;
use std::time::Duration;

use spades_lobby::{LobbyConfig, matchmaking};
use spades_room::{BotDelay, Policy, RoomConfig};

use crate::listener::TrustedProxies;

/// Everything the server can be tuned by.
#[derive(Clone, Debug)]
pub struct Config {
    /// How long a player has for each action before the server acts for him.
    pub turn_time: Duration,
    /// How long a disconnected player's seat is held before the server plays
    /// for him at once on every turn.
    pub seat_hold: Duration,
    /// How long bots (and the server, for absent players) wait before each
    /// action at a table of normal speed, so that people can follow their
    /// play.
    pub bot_delay: BotDelay,
    /// The level of the bots in rooms whose creator chose none and at
    /// tournament tables.
    pub default_bots: spades_protocol::ws::BotLevel,
    /// How often the server checks that it heard from each client: one it
    /// did not hear from since the last check gets a WebSocket ping, and
    /// one still silent at the next check is taken for gone and
    /// disconnected (its seat is then held as for any disconnected player).
    /// An HTTP client gets two intervals to send each request's headers.
    pub keepalive: Duration,
    /// How long a new WebSocket connection has to say `hello` before it is
    /// closed (status 4003).
    pub hello_timeout: Duration,
    /// Connections beyond this are refused at the upgrade with 503
    /// (`server_full`), once none is left that has not said `hello`: while
    /// one is, it is closed (status 4005) and the new connection takes its
    /// place.
    pub max_connections: usize,
    /// WebSocket connections one client address may hold at once; beyond
    /// this the upgrade is refused with 503 (`too_many_connections`), so
    /// that one client cannot take every place under `max_connections`.
    /// IPv6 clients count by their /64 prefix, which one host usually holds
    /// whole. The default leaves room for a household or an office behind
    /// one NAT address. `usize::MAX` is no limit.
    pub max_connections_per_address: usize,
    /// Sockets open at once, WebSocket or plain HTTP: past this the server
    /// stops accepting, and clients wait in the kernel's queue until a
    /// socket closes. The binary sets it from the open-file limit, so that
    /// clients cannot take the files the store needs.
    pub max_sockets: usize,
    /// Sockets one client address (an IPv6 client's /64) may hold at once,
    /// WebSocket or plain HTTP; a socket past this is closed as soon as it
    /// is accepted, so that one client cannot take every place under
    /// `max_sockets`. Above `max_connections_per_address`, so that a client
    /// at that cap still gets its refusal and its HTTP answers.
    /// `usize::MAX` is no limit.
    pub max_sockets_per_address: usize,
    /// Messages queued for one connection before it counts as too slow and
    /// is disconnected.
    pub outbox_capacity: usize,
    /// Messages a connection may send per second, on average.
    pub message_rate: u32,
    /// Messages a connection may send in a burst above the average.
    pub message_burst: u32,
    /// Chat messages a player may send per `chat_window`, counted across
    /// every room of the server and every connection he uses.
    pub chat_limit: u32,
    pub chat_window: Duration,
    /// Events a room keeps for clients that reconnect; a client further
    /// behind gets a snapshot instead.
    pub resync_window: usize,
    /// Rooms open at once; creating more is refused with `server_busy`.
    pub max_rooms: usize,
    /// Where the store is: `postgres://...` or `sqlite:PATH`.
    pub database_url: String,
    /// How long a session token stays valid.
    pub session_lifetime: Duration,
    /// The cost of hashing passwords.
    pub password_cost: PasswordCost,
    /// Failed logins allowed for one account name from one client address
    /// within `login_window`. Failures from other addresses do not count,
    /// so that nobody can lock the owner out.
    pub login_failures_per_account: usize,
    /// Failed logins allowed per client address, whatever the names,
    /// within `login_window`.
    pub login_failures_per_address: usize,
    pub login_window: Duration,
    /// Deal every game from seeds derived from this one instead of fresh
    /// random seeds, so that a session can be repeated (for tests and
    /// examples). The `n`th game started in the process (from 0) is dealt
    /// from seed `seed + n`.
    pub seed: Option<u64>,
    /// The longest a strong bot thinks about one card.
    pub bot_time: Duration,
    /// How many strong bots may think at once in the whole server; past
    /// it the basic bot plays the card. `None` is one per core.
    pub strong_bots_at_once: Option<usize>,
    /// How long a quick-play player waits for others before his table is
    /// filled with bots.
    pub queue_max_wait: Duration,
    /// The rating gap quick play accepts between players at first.
    pub queue_rating_gap: f64,
    /// How much that gap widens for every second a player waits.
    pub queue_gap_growth: f64,
    /// Words chat masks with asterisks, in any case, wherever they stand
    /// in a message (the operator's word list, one word a line).
    pub chat_words: Vec<String>,
    /// The NATS server (with JetStream) through which this server joins a
    /// cluster of servers sharing one Postgres store; `None` runs alone.
    pub nats_url: Option<String>,
    /// This node's name in the cluster: letters, digits, `-` and `_`.
    /// `None` picks a fresh one at each start.
    pub node: Option<String>,
    /// The reverse proxies in front of the server: on a socket from one of
    /// them, the client's address is read from `Forwarded` or
    /// `X-Forwarded-For`, and every per-address limit counts that address;
    /// the proxy's own sockets count under no address's cap.
    pub trusted_proxies: TrustedProxies,
}

impl Config {
    /// The name of this node, which clients are told of where several
    /// serve one site (the server names itself when it joins them, if
    /// `node` is unset); `None` when it runs alone.
    pub fn node_name(&self) -> Option<&str> {
        self.nats_url.as_ref().and(self.node.as_deref())
    }
}

impl Default for Config {
    fn default() -> Config {
        Config {
            turn_time: Duration::from_secs(30),
            seat_hold: Duration::from_secs(60),
            bot_delay: BotDelay::HUMAN,
            keepalive: Duration::from_secs(15),
            hello_timeout: Duration::from_secs(10),
            max_connections: 25_000,
            max_connections_per_address: 64,
            max_sockets: usize::MAX,
            max_sockets_per_address: 128,
            outbox_capacity: 256,
            message_rate: 100,
            message_burst: 200,
            chat_limit: 5,
            chat_window: Duration::from_secs(10),
            resync_window: 128,
            max_rooms: 20_000,
            database_url: "sqlite:spades.db".into(),
            session_lifetime: Duration::from_secs(30 * 24 * 3600),
            password_cost: PasswordCost::default(),
            login_failures_per_account: 5,
            login_failures_per_address: 20,
            login_window: Duration::from_secs(15 * 60),
            seed: None,
            bot_time: Duration::from_millis(250),
            default_bots: spades_protocol::ws::BotLevel::Basic,
            strong_bots_at_once: None,
            queue_max_wait: Duration::from_secs(20),
            queue_rating_gap: 100.0,
            queue_gap_growth: 25.0,
            chat_words: Vec::new(),
            nats_url: None,
            node: None,
            trusted_proxies: TrustedProxies::default(),
        }
    }
}

impl Config {
    /// The part of these settings that the lobby reads.
    pub fn lobby(&self, policy: Arc<Policy>) -> LobbyConfig {
        LobbyConfig {
            max_rooms: self.max_rooms,
            queue: matchmaking::Rules {
                max_wait: self.queue_max_wait,
                gap: self.queue_rating_gap,
                growth: self.queue_gap_growth,
            },
            room: Arc::new(self.room()),
            policy,
        }
    }

    /// The part of these settings that the rooms read.
    pub fn room(&self) -> RoomConfig {
        RoomConfig {
            turn_time: self.turn_time,
            seat_hold: self.seat_hold,
            bot_delay: self.bot_delay,
            resync_window: self.resync_window,
            bot_time: self.bot_time,
            default_bots: self.default_bots,
            strong_bots_at_once: self.strong_bots_at_once,
            chat_limit: self.chat_limit,
            chat_window: self.chat_window,
            seed: self.seed,
            node: self.node_name().map(str::to_string),
        }
    }

    /// The time an HTTP client has to send a request's headers, and then
    /// to have it answered: two keepalive intervals, since a client that
    /// sends nothing for that long is taken for gone, over HTTP as over a
    /// WebSocket.
    pub fn http_timeout(&self) -> Duration {
        self.keepalive.saturating_mul(2)
    }

    /// Checks the settings that could not work.
    pub fn validate(&self) -> Result<(), String> {
        argon2::Params::new(
            self.password_cost.memory_kib,
            self.password_cost.iterations,
            1,
            None,
        )
        .map_err(|error| format!("password hashing cost: {error}"))?;
        if self.session_lifetime.is_zero() {
            return Err("the session lifetime must be above zero".into());
        }
        if self.keepalive.is_zero() || self.keepalive > Duration::from_secs(3600) {
            return Err("the keepalive interval must be above zero and at most an hour".into());
        }
        if self.hello_timeout.is_zero() || self.hello_timeout > Duration::from_secs(3600) {
            return Err("the time to say hello must be above zero and at most an hour".into());
        }
        if self.message_rate == 0 || self.message_burst == 0 {
            return Err(
                "a connection must be allowed at least one message a second, in bursts of one".into(),
            );
        }
        if self.max_sockets == 0 {
            return Err("the server must be allowed at least one socket".into());
        }
        if self.max_connections_per_address == 0 || self.max_sockets_per_address == 0 {
            return Err("each address must be allowed at least one connection and one socket".into());
        }
        if self.nats_url.is_some() && !self.database_url.starts_with("postgres") {
            return Err("a cluster needs a Postgres --database that every node shares; \
                 an SQLite file belongs to one process"
                .into());
        }
        if let Some(node) = &self.node
            && !is_node_name(node)
        {
            return Err(format!(
                "the node name {node:?} must be 1 to 32 letters, digits, '-' or '_'"
            ));
        }
        if self.max_sockets_per_address != usize::MAX
            && self.max_connections_per_address >= self.max_sockets_per_address
        {
            // Otherwise a client at its cap on sockets would have its upgrade
            // cut off at the accept rather than refused with an answer.
            let connections = match self.max_connections_per_address {
                usize::MAX => "no limit".to_string(),
                n => n.to_string(),
            };
            return Err(format!(
                "an address must be allowed fewer connections ({connections}) than sockets ({}), \
                 so that a connection past its cap is refused with an answer",
                self.max_sockets_per_address
            ));
        }
        Ok(())
    }
}

/// Whether `name` can name a node: it becomes part of NATS subjects and
/// bucket keys, so it is kept to letters, digits, `-` and `_`.
fn is_node_name(name: &str) -> bool {
    (1..=32).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_allowed_fewer_connections_than_sockets() {
        let caps = |connections, sockets| Config {
            max_connections_per_address: connections,
            max_sockets_per_address: sockets,
            ..Config::default()
        };
        assert_eq!(Config::default().validate(), Ok(()));
        assert_eq!(caps(usize::MAX, usize::MAX).validate(), Ok(()));
        assert_eq!(caps(64, usize::MAX).validate(), Ok(()));
        // A connection past the cap on sockets would be cut off at the
        // accept, with no answer to say why.
        assert!(caps(128, 128).validate().is_err());
        assert!(caps(usize::MAX, 128).validate().is_err());
        assert!(caps(0, 128).validate().is_err());
        assert!(caps(1, 0).validate().is_err());
    }

    #[test]
    fn a_cluster_needs_postgres_and_a_plain_node_name() {
        let cluster = |database: &str, node: Option<&str>| Config {
            database_url: database.into(),
            nats_url: Some("nats://127.0.0.1:4222".into()),
            node: node.map(str::to_string),
            ..Config::default()
        };
        let refused = cluster("sqlite:spades.db", None).validate().unwrap_err();
        assert!(refused.contains("Postgres"), "{refused}");
        assert_eq!(cluster("postgres://127.0.0.1/spades", None).validate(), Ok(()));
        assert_eq!(
            cluster("postgres://127.0.0.1/spades", Some("node-1")).validate(),
            Ok(())
        );
        assert!(
            cluster("postgres://127.0.0.1/spades", Some("a.b"))
                .validate()
                .is_err()
        );
        assert!(
            cluster("postgres://127.0.0.1/spades", Some(""))
                .validate()
                .is_err()
        );
    }
}

/// The cost of hashing a password with Argon2id.
#[derive(Clone, Copy, Debug)]
pub struct PasswordCost {
    pub memory_kib: u32,
    pub iterations: u32,
}

impl Default for PasswordCost {
    /// The OWASP recommendation for Argon2id: 19 MiB, 2 iterations.
    fn default() -> PasswordCost {
        PasswordCost {
            memory_kib: 19 * 1024,
            iterations: 2,
        }
    }
}
