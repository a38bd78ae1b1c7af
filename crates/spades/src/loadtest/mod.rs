//! `spades loadtest`: runs many tables of four WebSocket clients against a
//! server and reports throughput, latency, errors and the server's cost.
//!
//! Each table is a private room; its four clients play plain legal moves
//! after a think time, and the first client starts a new game whenever one
//! ends, so every table plays for the whole run.
//!
//! To look like people rather than a metronome, each think time is drawn
//! at random around `--think` (`--think-spread`), and the tables start
//! their first games spread over `--stagger` seconds. Without both, every
//! table would end its hands in the same instant, and the latency figures
//! would measure those synchronised bursts rather than the server.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use player::{Pace, Step, play, seat_table};
use readings::{
    MachineTimes, NamedProcesses, ProcessStats, Readings, StoreMetrics, listening_pid, port_of,
    report_servers,
};
use report::{
    Latencies, cost_per_hand, report_calls, report_database, report_floor, report_fuzz, report_latencies,
    report_machine, report_server_watch, report_slow, report_store,
};

mod floor;
mod fuzz;
mod player;
mod readings;
mod report;
mod server_watch;
mod syscalls;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The server's WebSocket address; several (repeated, or separated by
    /// commas) for the nodes of a cluster, over which the clients are
    /// spread (see `--layout`). The server's CPU, memory, system calls and
    /// store are read from the first.
    #[arg(long, default_value = "ws://127.0.0.1:8080/ws", value_delimiter = ',')]
    server: Vec<String>,
    /// How a table's clients are spread over several servers: `together`
    /// puts a table's four clients on one server (tables take the servers
    /// in turn), `apart` puts seat s of table t on server t + s, so that
    /// partners are on different servers and most players are on another
    /// node than their table's. Latencies are then reported apart for the
    /// clients on their table's node and for the others.
    #[arg(long, value_enum, default_value_t = Layout::Together)]
    layout: Layout,
    /// Tables to run, four clients each.
    #[arg(long, default_value_t = 10)]
    tables: usize,
    /// Seconds to measure, after every table is seated and playing.
    #[arg(long, default_value_t = 30.0)]
    duration: f64,
    /// Milliseconds each client waits before acting; 0 acts as soon as the
    /// server asks.
    #[arg(long, default_value_t = 500)]
    think: u64,
    /// How far think times stray from `--think`: each is drawn uniformly
    /// between think × (1 − spread) and think × (1 + spread). 0 makes every
    /// think time exactly `--think`.
    #[arg(long, default_value_t = 0.5)]
    think_spread: f64,
    /// Seconds over which the tables start their first games, evenly
    /// spaced; measuring begins once the last one has started and the
    /// load generator keeps time again (see `until_punctual`).
    #[arg(long, default_value_t = 2.0)]
    stagger: f64,
    /// The servers' process ids, in the order of `--server`, for their CPU
    /// time and memory. Found from each server's listening port when it
    /// runs on this machine. With several servers, each one's figures are
    /// reported and then their sum; the system calls and the floor are
    /// measured on the first.
    #[arg(long, value_delimiter = ',')]
    server_pid: Vec<u32>,
    /// Tables being set up at once during the ramp-up.
    #[arg(long, default_value_t = 50)]
    ramp: usize,
    /// Misbehaving clients to run beside the tables (see `loadtest/fuzz.rs`):
    /// each sends messages of every kind, good and bad, as a new guest on a
    /// new connection every 40 messages.
    #[arg(long, default_value_t = 0)]
    fuzz: u64,
    /// Messages a second sent by each misbehaving client.
    #[arg(long, default_value_t = 20.0)]
    fuzz_rate: f64,
    /// Seconds to measure the floor after the run (see `loadtest/floor.rs`):
    /// the cost of the run's frames over loopback with no game behind
    /// them, to which the server's CPU per hand is compared. 0 skips it.
    #[arg(long, default_value_t = 5.0)]
    floor: f64,
    /// Seconds to count the server's system calls with `perf` after the
    /// measured run, while the tables play on (tracing them slows the
    /// server, so it is kept out of the measured run). 0 skips it.
    #[arg(long, default_value_t = 3.0)]
    syscalls: f64,
    /// Seat a server bot of this level (beginner, basic, strong or expert)
    /// in the last seat of every table instead of a client, so that a
    /// quarter of the seats are bots thinking on the server.
    #[arg(long, value_parser = crate::serve::bot_level)]
    bot: Option<spades_protocol::ws::BotLevel>,
    /// The name of the database's processes on this machine (`postgres`):
    /// their CPU time over the measured run is reported per hand, alone
    /// and with the first server's.
    #[arg(long)]
    database_process: Option<String>,
    /// Local addresses to connect from, taken in turn by the clients (for
    /// example `127.0.0.1,127.0.0.2`): each source address has its own
    /// range of ephemeral ports towards the server, and its own count
    /// against the server's limits per address.
    #[arg(long = "source", value_delimiter = ',')]
    sources: Vec<std::net::IpAddr>,
}

impl Args {
    /// The clients at each table: four, or three beside a server bot.
    fn clients_per_table(&self) -> usize {
        if self.bot.is_some() { 3 } else { 4 }
    }
}

/// How a table's clients are spread over several servers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Layout {
    Together,
    Apart,
}

impl Layout {
    /// The server (by index among `count`) of seat `seat` of table `table`.
    fn server(self, table: usize, seat: usize, count: usize) -> usize {
        match self {
            Layout::Together => table % count,
            Layout::Apart => (table + seat) % count,
        }
    }
}

/// Confirmations slower than this are listed with the moment their action
/// was sent, so that a pause of the whole server (every table slow at the
/// same moment) shows as such.
const SLOW: Duration = Duration::from_millis(200);

/// Counters shared by every client of the run.
#[derive(Default)]
struct Totals {
    measuring: AtomicBool,
    /// Cancelled when the clients must stop. Waiting on it costs nothing,
    /// where a timeout on every read to look at a flag would put a timer in
    /// the runtime's wheel for every message of every client.
    stop: CancellationToken,
    hands: AtomicU64,
    /// Hands scored whether measuring or not.
    all_hands: AtomicU64,
    actions: AtomicU64,
    /// Actions confirmed whether measuring or not.
    all_actions: AtomicU64,
    errors: AtomicU64,
    /// The clients' frames and bytes while measuring, sent and received.
    frames_sent: AtomicU64,
    bytes_sent: AtomicU64,
    frames_received: AtomicU64,
    bytes_received: AtomicU64,
    /// When each action slower than [`SLOW`] was sent, and its latency.
    slow: std::sync::Mutex<Vec<(Instant, u32)>>,
    /// When the load generator's own runtime woke a timer more than
    /// [`LATE`] late, and how late (see [`watch_own_lateness`]).
    late: std::sync::Mutex<Vec<(Instant, u32)>>,
}

/// How often the load generator checks that its own runtime keeps time,
/// and the lateness it reports.
const LATE_TICK: Duration = Duration::from_millis(10);
const LATE: Duration = Duration::from_millis(50);

/// Notes each moment, while measuring, that a timer of the load
/// generator's own runtime fired more than [`LATE`] after it was due. Its
/// clients read their confirmations on that runtime, so a confirmation
/// that arrived meanwhile waited on this side: slow seconds that match
/// such moments measured the load generator (or the machine under it), not
/// the server.
async fn watch_own_lateness(totals: Arc<Totals>) {
    loop {
        let (due, late) = tokio::select! {
            () = totals.stop.cancelled() => return,
            tick = one_tick() => tick,
        };
        if late > LATE && totals.measuring.load(Ordering::Relaxed) {
            let micros = late.as_micros().min(u128::from(u32::MAX)) as u32;
            totals
                .late
                .lock()
                .expect("no task panics holding it")
                .push((due.into_std(), micros));
        }
    }
}

/// Measures for the run's duration while the tables play and the server's
/// `/metrics` is read once a second; returns when measuring began, how
/// long it lasted in seconds, and what the server counted.
async fn measure(server: &str, args: &Args, totals: &Totals) -> (Instant, f64, server_watch::Watched) {
    let duration = Duration::from_secs_f64(args.duration);
    let started = Instant::now();
    totals.measuring.store(true, Ordering::SeqCst);
    let watch = server_watch::watch(server.to_string(), started, duration, totals.stop.clone());
    let watch = tokio::spawn(watch);
    tokio::time::sleep(duration).await;
    totals.measuring.store(false, Ordering::SeqCst);
    let elapsed = started.elapsed().as_secs_f64();
    (started, elapsed, watch.await.ok().flatten())
}

/// Sleeps for [`LATE_TICK`]; returns when the timer was due and how late
/// the runtime woke this task after it.
async fn one_tick() -> (tokio::time::Instant, Duration) {
    let due = tokio::time::Instant::now() + LATE_TICK;
    tokio::time::sleep_until(due).await;
    (due, due.elapsed())
}

/// Files the load generator keeps open besides its clients' sockets: the
/// runtime's, standard streams, and the connections that read the
/// server's metrics.
const OWN_FILES: u64 = 16;

pub fn run(args: Args) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(run_async(args))
}

async fn run_async(args: Args) -> anyhow::Result<()> {
    check_args(&args)?;
    let first_server = args.server.first().context("give a --server")?.clone();
    let pids = server_pids(&args);
    let pid = pids.first().copied().flatten();
    let before_setup = Readings::take(&pids);

    let totals = Arc::new(Totals::default());
    let players = seat_tables(&args, &totals).await?;
    let fuzz_totals = start_fuzzers(&args, &first_server, &totals);
    tokio::spawn(watch_own_lateness(totals.clone()));

    let after_setup = Readings::take(&pids);
    let database_before = args.database_process.as_deref().map(NamedProcesses::take);
    let own_before = ProcessStats::read(std::process::id());
    let machine_before = MachineTimes::read();
    let metrics_before = StoreMetrics::fetch(&first_server).await;
    let (started, elapsed, watched) = measure(&first_server, &args, &totals).await;
    let at_end = Readings::take(&pids);
    let database_at_end = args.database_process.as_deref().map(NamedProcesses::take);
    let own_at_end = ProcessStats::read(std::process::id());
    let machine_at_end = MachineTimes::read();
    let metrics_after = StoreMetrics::fetch(&first_server).await;
    let calls = match pid {
        Some(pid) if args.syscalls > 0.0 => Some(count_calls(pid, args.syscalls, &totals).await),
        _ => None,
    };
    totals.stop.cancel();

    let latencies = collect_latencies(players).await;
    let hands = totals.hands.load(Ordering::SeqCst);
    let connections = args.tables * args.clients_per_table();
    report_latencies(&args, &totals, latencies, hands, elapsed, connections);
    report_slow(&totals, started);
    report_server_watch(watched.as_deref());
    if args.fuzz > 0 {
        report_fuzz(args.fuzz, &fuzz_totals);
    }
    if let (Some(before), Some(after)) = (metrics_before, metrics_after) {
        report_store(&before, &after, elapsed);
    }
    let actions = totals.actions.load(Ordering::SeqCst);
    let per_hand = |cpu: f64| cost_per_hand(cpu, hands, actions);
    let server_cpu = report_servers(
        &pids,
        [&before_setup, &after_setup, &at_end],
        connections,
        &per_hand,
    );
    if let (Some(before), Some(end), Some(name)) =
        (&database_before, &database_at_end, &args.database_process)
    {
        report_database(name, end.used_since(before), server_cpu, &per_hand);
    }
    let actions_per_hand = if hands > 0 {
        actions as f64 / hands as f64
    } else {
        0.0
    };
    let calls = report_calls(calls, &pids, actions_per_hand);
    if args.floor > 0.0 && hands > 0 {
        report_floor(&args, &totals, calls.as_ref(), server_cpu, pid).await?;
    }
    if let (Some(before), Some(end)) = (own_before, own_at_end) {
        let cpu = end.cpu_seconds - before.cpu_seconds;
        println!("load generator: CPU {cpu:.2} s ({})", per_hand(cpu));
    }
    if let (Some(before), Some(end)) = (machine_before, machine_at_end) {
        report_machine(&before, &end);
    }
    Ok(())
}

/// Refuses settings the run cannot work with, before anything connects.
fn check_args(args: &Args) -> anyhow::Result<()> {
    if args.tables == 0 {
        bail!("--tables must be at least 1");
    }
    if !(0.0..=1.0).contains(&args.think_spread) {
        bail!("--think-spread must be between 0 and 1");
    }
    if !(0.0..=600.0).contains(&args.stagger) {
        bail!("--stagger must be between 0 and 600 seconds");
    }
    if !(0.0..=600.0).contains(&args.floor) || !(0.0..=600.0).contains(&args.syscalls) {
        bail!("--floor and --syscalls must be between 0 and 600 seconds");
    }
    let sockets = (args.tables * args.clients_per_table()) as u64;
    if let Some(limit) = crate::limits::raise_open_files()
        && sockets + OWN_FILES > limit
    {
        bail!(
            "{} tables need {sockets} sockets, but this process may open only {limit} files; \
             raise the limit with `ulimit -n` or run fewer tables",
            args.tables
        );
    }
    Ok(())
}

/// The process id of each server, as given or found from its port.
fn server_pids(args: &Args) -> Vec<Option<u32>> {
    if args.server_pid.is_empty() {
        args.server
            .iter()
            .map(|url| port_of(url).and_then(listening_pid))
            .collect()
    } else {
        args.server_pid.iter().copied().map(Some).collect()
    }
}

/// A client playing at a table: the task that returns its latency samples,
/// and whether it reaches its table through another node.
type PlayerTask = (tokio::task::JoinHandle<Vec<(Step, u32)>>, bool);

/// Ramps up: seats every table, a few at a time, sets its clients playing,
/// and waits until every table has started its first game.
async fn seat_tables(args: &Args, totals: &Arc<Totals>) -> anyhow::Result<Vec<PlayerTask>> {
    let ramp = Arc::new(Semaphore::new(args.ramp.max(1)));
    let setup_started = Instant::now();
    let stagger = Duration::from_secs_f64(args.stagger);
    let mut setups = Vec::with_capacity(args.tables);
    for table in 0..args.tables {
        let (urls, ramp, totals) = (args.server.clone(), ramp.clone(), totals.clone());
        let (layout, bot, sources) = (args.layout, args.bot, args.sources.clone());
        let pace = Pace {
            think_ms: args.think,
            spread: args.think_spread,
            start_at: (setup_started + stagger.mul_f64(table as f64 / args.tables as f64)).into(),
        };
        setups.push(tokio::spawn(async move {
            let _permit = ramp.acquire_owned().await.expect("the semaphore stays open");
            seat_table(&urls, &sources, layout, table, bot)
                .await
                .map(|clients| {
                    clients
                        .into_iter()
                        .enumerate()
                        .map(|(seat, (client, state, forwarded))| {
                            let seed = (table * 4 + seat) as u64;
                            let play = tokio::spawn(play(client, state, pace, seed, totals.clone()));
                            (play, forwarded)
                        })
                        .collect::<Vec<_>>()
                })
        }));
    }
    let mut players = Vec::with_capacity(args.tables * 4);
    for setup in setups {
        players.extend(setup.await.context("a setup task failed")??);
    }
    // Every table has started its first game by the end of the stagger.
    tokio::time::sleep_until((setup_started + stagger).into()).await;
    let seated = setup_started.elapsed();
    let settled = until_punctual().await;
    eprintln!(
        "{} tables ({} connections) seated in {:.1} s, the load generator keeping time {:.1} s later; \
         measuring for {} s",
        args.tables,
        players.len(),
        seated.as_secs_f64(),
        settled.as_secs_f64(),
        args.duration
    );
    Ok(players)
}

/// How long the load generator's timers must fire on time (within
/// [`PUNCTUAL`]) before it starts measuring, and the longest it waits.
const SETTLED_FOR: Duration = Duration::from_secs(1);
const PUNCTUAL: Duration = Duration::from_millis(20);
const SETTLE_AT_MOST: Duration = Duration::from_secs(10);

/// Waits until the load generator's own timers have fired on time for
/// [`SETTLED_FOR`], or for [`SETTLE_AT_MOST`], and says how long it waited.
/// Connecting thousands of clients leaves its runtime behind with work,
/// and a confirmation it read late then would be charged to the server.
async fn until_punctual() -> Duration {
    let began = tokio::time::Instant::now();
    let mut on_time_since = began;
    while began.elapsed() < SETTLE_AT_MOST {
        let (_, late) = one_tick().await;
        let now = tokio::time::Instant::now();
        if late > PUNCTUAL {
            on_time_since = now;
        } else if now - on_time_since >= SETTLED_FOR {
            break;
        }
    }
    began.elapsed()
}

/// Starts the misbehaving clients asked for, which run until the run stops.
fn start_fuzzers(args: &Args, server: &str, totals: &Totals) -> Arc<fuzz::FuzzTotals> {
    let fuzz_totals = Arc::new(fuzz::FuzzTotals::default());
    for index in 0..args.fuzz {
        tokio::spawn(fuzz::fuzz(
            server.to_owned(),
            index,
            args.fuzz_rate,
            fuzz_totals.clone(),
            totals.stop.child_token(),
        ));
    }
    fuzz_totals
}

/// Waits for every client to stop, and gathers its latency samples.
async fn collect_latencies(players: Vec<PlayerTask>) -> Latencies {
    let mut latencies = Latencies::default();
    for (player, forwarded) in players {
        if let Ok(samples) = player.await {
            for (step, micros) in samples {
                latencies.by_route[usize::from(forwarded)].push(micros);
                latencies.by_step[step as usize].push(micros);
                latencies.all.push(micros);
            }
        }
    }
    latencies.all.sort_unstable();
    latencies
}

/// Counts the server's system calls with `perf` for `seconds` while the
/// tables play on, with the hands that ended and the actions confirmed
/// meanwhile.
async fn count_calls(pid: u32, seconds: f64, totals: &Totals) -> Result<syscalls::Counted, String> {
    let hands_before = totals.all_hands.load(Ordering::SeqCst);
    let actions_before = totals.all_actions.load(Ordering::SeqCst);
    let counting = syscalls::Counting::start(pid, Duration::from_secs_f64(seconds))
        .ok_or_else(|| "perf cannot be run (is it installed?)".to_owned())?;
    let counts = tokio::task::spawn_blocking(move || counting.finish())
        .await
        .map_err(|error| error.to_string())??;
    Ok(syscalls::Counted {
        counts,
        hands: totals.all_hands.load(Ordering::SeqCst) - hands_before,
        actions: totals.all_actions.load(Ordering::SeqCst) - actions_before,
    })
}

impl Totals {
    fn count_traffic(&self, traffic: spades_client::Traffic) {
        self.frames_sent.fetch_add(traffic.frames_sent, Ordering::Relaxed);
        self.bytes_sent.fetch_add(traffic.bytes_sent, Ordering::Relaxed);
        self.frames_received
            .fetch_add(traffic.frames_received, Ordering::Relaxed);
        self.bytes_received
            .fetch_add(traffic.bytes_received, Ordering::Relaxed);
    }
}

/// Counts a refusal, and shows the first few so that a run that goes wrong
/// says why.
fn report_error(totals: &Totals, code: spades_protocol::ws::ErrorCode, message: &str) {
    const SHOWN: u64 = 5;
    if totals.errors.fetch_add(1, Ordering::Relaxed) < SHOWN {
        eprintln!("error from the server: {}: {message}", code.name());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A task that holds the load generator's only thread makes its timer
    /// late, and the watcher notes by how much.
    #[tokio::test(flavor = "current_thread")]
    async fn a_stalled_runtime_is_noted_as_late() {
        let totals = Arc::new(Totals::default());
        totals.measuring.store(true, Ordering::SeqCst);
        let watcher = tokio::spawn(watch_own_lateness(totals.clone()));
        tokio::time::sleep(Duration::from_millis(30)).await;

        // Blocks the runtime's thread, as a stalled process would.
        std::thread::sleep(Duration::from_millis(150));
        tokio::time::sleep(Duration::from_millis(30)).await;
        totals.stop.cancel();
        watcher.await.unwrap();
        let late = totals.late.lock().unwrap();
        assert!(late.iter().any(|&(_, micros)| micros >= 100_000), "{late:?}");
    }
}
