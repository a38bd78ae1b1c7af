//! `spades serve`: runs the server until it is told to stop.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{Context, bail};
use spades_server::{Config, Server, TrustedProxies};

use crate::scheduling::{self, Scheduling};

/// Server settings. Every flag can also be set by the environment variable
/// named in its help.
#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    #[command(flatten)]
    pub database: DatabaseArgs,
    /// Address and port to listen on.
    #[arg(long, env = "SPADES_BIND", default_value = "127.0.0.1:8080")]
    bind: SocketAddr,
    /// Seconds a player has for each action before the server acts for him.
    #[arg(long, env = "SPADES_TURN_TIME", default_value_t = 30.0, value_parser = seconds)]
    turn_time: f64,
    /// Seconds a disconnected player's seat is held before the server plays
    /// for him on every turn.
    #[arg(long, env = "SPADES_SEAT_HOLD", default_value_t = 60.0, value_parser = seconds)]
    seat_hold: f64,
    /// Seconds between checks that each client is still there: a client
    /// not heard from since the last check is pinged, and one still silent
    /// at the next is disconnected. HTTP clients get two intervals to send
    /// each request's headers.
    #[arg(long, env = "SPADES_KEEPALIVE", default_value_t = 15.0, value_parser = seconds)]
    keepalive: f64,
    /// Seconds a new WebSocket connection has to say hello before it is
    /// closed.
    #[arg(long, env = "SPADES_HELLO_TIMEOUT", default_value_t = 10.0, value_parser = seconds)]
    hello_timeout: f64,
    /// Most WebSocket connections open at once.
    #[arg(long, env = "SPADES_MAX_CONNECTIONS", default_value_t = 25_000)]
    max_connections: usize,
    /// Most WebSocket connections one client address (an IPv6 client's /64)
    /// may hold at once; the next are refused with 503. 0 is no limit.
    #[arg(long, env = "SPADES_MAX_CONNECTIONS_PER_ADDRESS", default_value_t = 64)]
    max_connections_per_address: usize,
    /// Most sockets, WebSocket or HTTP, one client address (an IPv6
    /// client's /64) may hold at once; the next are closed as soon as they
    /// are accepted. Must be above --max-connections-per-address. 0 is no
    /// limit.
    #[arg(long, env = "SPADES_MAX_SOCKETS_PER_ADDRESS", default_value_t = 128)]
    max_sockets_per_address: usize,
    /// Most rooms open at once.
    #[arg(long, env = "SPADES_MAX_ROOMS", default_value_t = 20_000)]
    max_rooms: usize,
    /// Messages queued for a connection before it is dropped as too slow.
    #[arg(long, env = "SPADES_OUTBOX", default_value_t = 256)]
    outbox: usize,
    /// Messages a connection may send per second on average.
    #[arg(long, env = "SPADES_MESSAGE_RATE", default_value_t = 100)]
    message_rate: u32,
    /// Messages a connection may send at once above the average.
    #[arg(long, env = "SPADES_MESSAGE_BURST", default_value_t = 200)]
    message_burst: u32,
    /// Chat messages a player may send per chat window, in all rooms and
    /// on all his connections together.
    #[arg(long, env = "SPADES_CHAT_LIMIT", default_value_t = 5)]
    chat_limit: u32,
    /// Length of the chat window, in seconds.
    #[arg(long, env = "SPADES_CHAT_WINDOW", default_value_t = 10.0, value_parser = seconds)]
    chat_window: f64,
    /// Events a room keeps for reconnecting clients.
    #[arg(long, env = "SPADES_RESYNC_WINDOW", default_value_t = 128)]
    resync_window: usize,
    /// Days a login or guest session stays valid.
    #[arg(long, env = "SPADES_SESSION_DAYS", default_value_t = 30.0, value_parser = seconds)]
    session_days: f64,
    /// Memory, in KiB, for hashing each password with Argon2id.
    #[arg(long, env = "SPADES_PASSWORD_MEMORY", default_value_t = 19 * 1024)]
    password_memory: u32,
    /// Argon2id iterations for each password.
    #[arg(long, env = "SPADES_PASSWORD_ITERATIONS", default_value_t = 2)]
    password_iterations: u32,
    /// Failed logins at one account name from one client address in 15
    /// minutes, after which that address may not try that name until the
    /// oldest is 15 minutes old. Failures from other addresses never count,
    /// so nobody elsewhere can lock the owner out. An IPv6 address counts by
    /// its /64 network.
    #[arg(long, env = "SPADES_LOGIN_FAILURES", default_value_t = 5)]
    login_failures: usize,
    /// Failed logins from one client address, at any names, in 15 minutes,
    /// after which that address may not log in until the oldest is 15
    /// minutes old. An IPv6 address counts by its /64 network.
    #[arg(long, env = "SPADES_LOGIN_FAILURES_PER_ADDRESS", default_value_t = 20)]
    login_failures_per_address: usize,
    /// Milliseconds bots wait before each action at a table of normal
    /// speed, as MIN-MAX (each action's wait falls between the two) or one
    /// number; 0 makes them act at once. Fast tables halve it, slow ones
    /// add half.
    #[arg(long, env = "SPADES_BOT_DELAY_MS", default_value = "600-1200", value_parser = millisecond_range)]
    bot_delay_ms: (u64, u64),
    /// Milliseconds a bot waits on top of that before it leads a trick,
    /// so that the last one stays in view (twice this before the first
    /// bid of a hand).
    #[arg(long, env = "SPADES_TRICK_PAUSE_MS", default_value_t = 800)]
    trick_pause_ms: u64,
    /// Milliseconds a strong or expert bot may think about one decision.
    #[arg(long, env = "SPADES_BOT_TIME_MS", default_value_t = 250)]
    bot_time_ms: u64,
    /// The level of the bots in rooms whose creator chose none and at
    /// tournament tables: beginner, basic, strong or expert.
    #[arg(long, env = "SPADES_BOT_LEVEL", default_value = "basic", value_parser = bot_level)]
    bot_level: spades_protocol::ws::BotLevel,
    /// How many strong or expert bots may think at once in the whole
    /// server; past it the basic bot (or the expert's habits) decides at
    /// once. 0 is one per core.
    #[arg(long, env = "SPADES_STRONG_BOTS", default_value_t = 0)]
    strong_bots: usize,
    /// Seconds a quick-play player waits for others before the table is
    /// filled with bots.
    #[arg(long, env = "SPADES_QUEUE_MAX_WAIT", default_value_t = 20.0, value_parser = seconds)]
    queue_max_wait: f64,
    /// The rating gap quick play accepts between players at first.
    #[arg(long, env = "SPADES_QUEUE_RATING_GAP", default_value_t = 100.0)]
    queue_rating_gap: f64,
    /// Rating points the accepted gap widens by for each second waited.
    #[arg(long, env = "SPADES_QUEUE_GAP_GROWTH", default_value_t = 25.0)]
    queue_gap_growth: f64,
    /// A file of words that chat masks with asterisks, one word or phrase
    /// a line, in any case; blank lines and lines starting with '#' are
    /// skipped. [default: no word is masked]
    #[arg(long, env = "SPADES_CHAT_WORD_LIST")]
    chat_word_list: Option<std::path::PathBuf>,
    /// Threads that run connections and tables; 0 uses one per CPU core.
    /// The journal (on SQLite) and the strong bots have threads of their
    /// own beside them.
    #[arg(long, env = "SPADES_THREADS", default_value_t = 0)]
    threads: usize,
    /// How the kernel schedules the server's threads (Linux only): `batch`
    /// (SCHED_BATCH) keeps a thread that wakes from preempting the one that
    /// runs, so that on a busy core each finishes what it holds; `normal`
    /// leaves the policy the server was started with.
    #[arg(long, env = "SPADES_SCHEDULING", value_enum, default_value_t = Scheduling::Batch)]
    scheduling: Scheduling,
    /// Deal games from seeds derived from this number instead of random
    /// ones, so that a session can be repeated (testing only). [default:
    /// random seeds]
    #[arg(long, env = "SPADES_SEED")]
    seed: Option<u64>,
    /// A NATS server with JetStream (nats://HOST:PORT) through which this
    /// server joins the others that share its Postgres --database, as one
    /// service. [default: runs alone]
    #[arg(long = "nats", env = "SPADES_NATS_URL")]
    nats_url: Option<String>,
    /// This node's name in a cluster: letters, digits, '-' and '_'.
    /// [default: a fresh name at each start]
    #[arg(long, env = "SPADES_NODE")]
    node: Option<String>,
    /// The reverse proxies in front of the server, as addresses and CIDR
    /// ranges separated by commas (127.0.0.1,10.0.0.0/8). On a connection
    /// from one of them, the client's address is read from Forwarded or
    /// X-Forwarded-For, and every per-address limit counts that address.
    /// [default: none; the headers are ignored]
    #[arg(long, env = "SPADES_TRUSTED_PROXIES", default_value = "", value_parser = TrustedProxies::parse)]
    trusted_proxies: TrustedProxies,
}

fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() && value >= 0.0 => Ok(value),
        _ => Err(format!("{text:?} is not a number of seconds")),
    }
}

/// A bot level by its protocol name.
pub fn bot_level(text: &str) -> Result<spades_protocol::ws::BotLevel, String> {
    use spades_protocol::ws::BotLevel;
    BotLevel::from_name(text).ok_or_else(|| {
        let names: Vec<&str> = BotLevel::ALL.iter().map(|level| level.name()).collect();
        format!("unknown bot level {text:?}: use one of {}", names.join(", "))
    })
}

/// A span of milliseconds, `MIN-MAX` or one number for both.
fn millisecond_range(text: &str) -> Result<(u64, u64), String> {
    let number = |part: &str| {
        part.trim()
            .parse::<u64>()
            .map_err(|_| format!("{text:?} is not MIN-MAX in milliseconds, such as 600-1200"))
    };
    let (min, max) = match text.split_once('-') {
        Some((min, max)) => (number(min)?, number(max)?),
        None => (number(text)?, number(text)?),
    };
    if min > max {
        return Err(format!("{text:?}: the shortest wait is longer than the longest"));
    }
    Ok((min, max))
}

/// A cap given on the command line, where 0 stands for none.
fn no_limit_at_zero(cap: usize) -> usize {
    if cap == 0 { usize::MAX } else { cap }
}

/// Where the store is.
#[derive(clap::Args, Debug, Clone)]
pub struct DatabaseArgs {
    /// The database: postgres://USER@HOST/NAME, or sqlite:PATH for an
    /// embedded file (created if missing).
    #[arg(long = "database", env = "DATABASE_URL", default_value = "sqlite:spades.db")]
    pub url: String,
}

impl Args {
    fn config(&self) -> Config {
        Config {
            database_url: self.database.url.clone(),
            session_lifetime: Duration::from_secs_f64(self.session_days * 24.0 * 3600.0),
            password_cost: spades_server::PasswordCost {
                memory_kib: self.password_memory,
                iterations: self.password_iterations,
            },
            login_failures_per_account: self.login_failures,
            login_failures_per_address: self.login_failures_per_address,
            login_window: Duration::from_secs(15 * 60),
            turn_time: Duration::from_secs_f64(self.turn_time),
            seat_hold: Duration::from_secs_f64(self.seat_hold),
            bot_delay: spades_server::BotDelay {
                min: Duration::from_millis(self.bot_delay_ms.0),
                max: Duration::from_millis(self.bot_delay_ms.1),
                trick_pause: Duration::from_millis(self.trick_pause_ms),
            },
            keepalive: Duration::from_secs_f64(self.keepalive),
            hello_timeout: Duration::from_secs_f64(self.hello_timeout),
            max_connections: self.max_connections,
            max_connections_per_address: no_limit_at_zero(self.max_connections_per_address),
            // Set from the open-file limit when the server starts.
            max_sockets: usize::MAX,
            max_sockets_per_address: no_limit_at_zero(self.max_sockets_per_address),
            max_rooms: self.max_rooms,
            outbox_capacity: self.outbox.max(1),
            message_rate: self.message_rate,
            message_burst: self.message_burst.max(1),
            chat_limit: self.chat_limit,
            chat_window: Duration::from_secs_f64(self.chat_window),
            resync_window: self.resync_window.max(1),
            seed: self.seed,
            bot_time: Duration::from_millis(self.bot_time_ms),
            default_bots: self.bot_level,
            strong_bots_at_once: (self.strong_bots > 0).then_some(self.strong_bots),
            queue_max_wait: Duration::from_secs_f64(self.queue_max_wait),
            queue_rating_gap: self.queue_rating_gap.max(0.0),
            queue_gap_growth: self.queue_gap_growth.max(0.0),
            chat_words: Vec::new(),
            nats_url: self.nats_url.clone(),
            node: self.node.clone(),
            trusted_proxies: self.trusted_proxies.clone(),
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    // Before any thread starts, so that all of them inherit it.
    if let Err(error) = scheduling::apply(args.scheduling) {
        tracing::warn!(%error, scheduling = ?args.scheduling, "cannot set the threads' scheduling policy; keeping the default");
    }
    // Even with one worker, the multi-threaded runtime: measured on two
    // cores, it confirms actions sooner than the single-threaded one, and
    // the journal and the strong bots have threads of their own anyway.
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if args.threads > 0 {
        runtime.worker_threads(args.threads);
    }
    let runtime = runtime
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let mut config = args.config();
    if let Some(path) = &args.chat_word_list {
        let words = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the chat word list {}", path.display()))?;
        config.chat_words = words.lines().map(str::to_string).collect();
    }
    if let Some(limit) = crate::limits::raise_open_files() {
        let budget = crate::limits::SocketBudget::under(limit);
        if budget.connections == 0 {
            bail!(
                "the open-file limit of {limit} is too low to serve: the server needs more than {} files \
                 of its own (raise it with `ulimit -n`)",
                crate::limits::SERVER_FILES + crate::limits::HTTP_SOCKETS
            );
        }
        tracing::info!(open_files = limit, "open-file limit");
        config.max_sockets = budget.sockets;
        if config.max_connections > budget.connections {
            // Admitting more than fit would not fail cleanly: the listener
            // would stop accepting, and clients would wait.
            tracing::warn!(
                open_files = limit,
                max_connections = budget.connections,
                configured = config.max_connections,
                "the open-file limit leaves room for fewer connections than --max-connections; \
                 serving at most that many (raise it with `ulimit -n` for more)"
            );
            config.max_connections = budget.connections;
        }
    }
    runtime.block_on(async {
        let server = Server::start(config, args.bind)
            .await
            .with_context(|| format!("cannot start on {}", args.bind))?;
        tracing::info!(address = %server.local_addr(), "serving: WebSocket at /ws");
        server.run_until(stop_signal()).await?;
        tracing::info!("stopped");
        Ok(())
    })
}

/// Completes on SIGTERM or Ctrl-C.
async fn stop_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}

/// `spades migrate`: applies the store's migrations and exits.
pub fn migrate(args: DatabaseArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let store = spades_store::Store::open(&args.url)
            .await
            .with_context(|| format!("cannot open {}", args.url))?;
        store.migrate().await.context("migrations failed")?;
        tracing::info!(database = ?store.backend(), "the database is up to date");
        store.close().await;
        Ok(())
    })
}
