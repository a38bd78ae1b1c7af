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
use spades_client::table::Move;
use spades_client::{Client, ClientError, TableState};
use spades_protocol::event::EventKind;
use spades_protocol::ws::{BotLevel, ClientMessage, RulesSpec, ServerMessage};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::stats::percentile;
use readings::{
    MachineTimes, ProcessStats, Readings, StoreMetrics, bucket_bound, listening_pid, port_of, report_servers,
};

mod floor;
mod fuzz;
mod readings;
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
    /// spaced; measuring begins once the last one has started.
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
    errors: AtomicU64,
    /// The clients' frames and bytes while measuring, sent and received.
    frames_sent: AtomicU64,
    bytes_sent: AtomicU64,
    frames_received: AtomicU64,
    bytes_received: AtomicU64,
    /// When each action slower than [`SLOW`] was sent, and its latency.
    slow: std::sync::Mutex<Vec<(Instant, u32)>>,
}

/// Files the load generator keeps open besides its clients' sockets: the
/// runtime's, standard streams, and the connections that read the
/// server's metrics.
const OWN_FILES: u64 = 16;

/// When a table starts and how long its players think.
#[derive(Clone, Copy, Debug)]
struct Pace {
    think_ms: u64,
    spread: f64,
    start_at: tokio::time::Instant,
}

impl Pace {
    /// One think time, uniform between think × (1 − spread) and
    /// think × (1 + spread), to the microsecond.
    fn think(&self, rng: &mut spades_engine::GameRng) -> Duration {
        let mean = self.think_ms as f64 * 1000.0;
        let low = mean * (1.0 - self.spread);
        let width = (2.0 * mean * self.spread) as u32;
        let offset = if width == 0 { 0 } else { rng.below(width + 1) };
        Duration::from_micros((low as u64).saturating_add(u64::from(offset)))
    }
}

/// What a client knows about its last action until the server confirms it.
struct Pending {
    sent: Instant,
    mv: Move,
    step: Step,
}

/// The kinds of action whose latencies are also reported apart. The play
/// that ends a hand does the most: the server stores the hand's record
/// with it and deals the next hand before confirming it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Step {
    /// A bid, a look at one's cards or a choice of cards to pass.
    Bid,
    Play,
    LastPlay,
}

impl Step {
    const ALL: [Step; 3] = [Step::Bid, Step::Play, Step::LastPlay];

    /// The step of `mv`, made at the table `state` describes.
    fn of(mv: Move, state: &TableState) -> Step {
        let seats = state.rules.map_or(4, |rules| rules.seating().seat_count());
        match mv {
            Move::Play(_) if state.cards.len() == 1 && state.trick.len() + 1 == seats => Step::LastPlay,
            Move::Play(_) => Step::Play,
            Move::Bid { .. } | Move::Look | Move::Pass(_) => Step::Bid,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Step::Bid => "bids, looks and passes",
            Step::Play => "plays but a hand's last",
            Step::LastPlay => "a hand's last play",
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(run_async(args))
}

async fn run_async(args: Args) -> anyhow::Result<()> {
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
    let sockets = args.tables as u64 * 4;
    if let Some(limit) = crate::limits::raise_open_files()
        && sockets + OWN_FILES > limit
    {
        bail!(
            "{} tables need {sockets} sockets, but this process may open only {limit} files; \
             raise the limit with `ulimit -n` or run fewer tables",
            args.tables
        );
    }
    let first_server = args.server.first().context("give a --server")?.clone();
    let pids: Vec<Option<u32>> = if args.server_pid.is_empty() {
        args.server
            .iter()
            .map(|url| port_of(url).and_then(listening_pid))
            .collect()
    } else {
        args.server_pid.iter().copied().map(Some).collect()
    };
    let pid = pids.first().copied().flatten();
    let before_setup = Readings::take(&pids);

    // Ramp up: seat every table, a few at a time.
    let totals = Arc::new(Totals::default());
    let ramp = Arc::new(Semaphore::new(args.ramp.max(1)));
    let setup_started = Instant::now();
    let stagger = Duration::from_secs_f64(args.stagger);
    let mut setups = Vec::with_capacity(args.tables);
    for table in 0..args.tables {
        let (urls, ramp, totals) = (args.server.clone(), ramp.clone(), totals.clone());
        let layout = args.layout;
        let pace = Pace {
            think_ms: args.think,
            spread: args.think_spread,
            start_at: (setup_started + stagger.mul_f64(table as f64 / args.tables as f64)).into(),
        };
        setups.push(tokio::spawn(async move {
            let _permit = ramp.acquire_owned().await.expect("the semaphore stays open");
            seat_table(&urls, layout, table).await.map(|clients| {
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
    eprintln!(
        "{} tables ({} connections) seated in {:.1} s; measuring for {} s",
        args.tables,
        players.len(),
        setup_started.elapsed().as_secs_f64(),
        args.duration
    );

    let fuzz_totals = Arc::new(fuzz::FuzzTotals::default());
    for index in 0..args.fuzz {
        tokio::spawn(fuzz::fuzz(
            first_server.clone(),
            index,
            args.fuzz_rate,
            fuzz_totals.clone(),
            totals.stop.child_token(),
        ));
    }

    let after_setup = Readings::take(&pids);
    let own_before = ProcessStats::read(std::process::id());
    let machine_before = MachineTimes::read();
    let metrics_before = StoreMetrics::fetch(&first_server).await;
    let duration = Duration::from_secs_f64(args.duration);
    let started = Instant::now();
    totals.measuring.store(true, Ordering::SeqCst);
    tokio::time::sleep(duration).await;
    totals.measuring.store(false, Ordering::SeqCst);
    let elapsed = started.elapsed().as_secs_f64();
    let at_end = Readings::take(&pids);
    let own_at_end = ProcessStats::read(std::process::id());
    let machine_at_end = MachineTimes::read();
    let metrics_after = StoreMetrics::fetch(&first_server).await;
    let calls = match pid {
        Some(pid) if args.syscalls > 0.0 => Some(count_calls(pid, args.syscalls, &totals).await),
        _ => None,
    };
    totals.stop.cancel();

    let mut latencies: Vec<u32> = Vec::new();
    // Apart by whether the client is on its table's node, or reaches it
    // through another.
    let mut by_route: [Vec<u32>; 2] = Default::default();
    let mut by_step: [Vec<u32>; 3] = Default::default();
    for (player, forwarded) in players {
        if let Ok(samples) = player.await {
            for (step, micros) in samples {
                by_route[usize::from(forwarded)].push(micros);
                by_step[step as usize].push(micros);
                latencies.push(micros);
            }
        }
    }
    latencies.sort_unstable();

    let hands = totals.hands.load(Ordering::SeqCst);
    let connections = args.tables * 4;
    println!(
        "tables {} ({connections} connections), think {} ms ± {:.0}%, started over {} s, measured {elapsed:.1} s",
        args.tables,
        args.think,
        100.0 * args.think_spread,
        args.stagger
    );
    println!("hands {hands} ({:.1} per second)", hands as f64 / elapsed);
    println!(
        "actions {}: action to confirming event p50 {} p99 {} max {}",
        totals.actions.load(Ordering::SeqCst),
        millis(percentile(&latencies, 0.50)),
        millis(percentile(&latencies, 0.99)),
        millis(latencies.last().copied()),
    );
    for (samples, step) in by_step.iter_mut().zip(Step::ALL) {
        report_part(step.describe(), samples);
    }
    if args.server.len() > 1 {
        println!("servers {}, layout {:?}", args.server.len(), args.layout);
        for (samples, route) in by_route
            .iter_mut()
            .zip(["on their table's node", "through another node"])
        {
            report_part(&format!("clients {route}"), samples);
        }
    }
    println!("errors {}", totals.errors.load(Ordering::SeqCst));
    report_slow(&totals, started);
    if args.fuzz > 0 {
        println!(
            "fuzzing clients {}: {} connections, {} messages sent, {} received, {} connections lost or refused",
            args.fuzz,
            fuzz_totals.connections.load(Ordering::SeqCst),
            fuzz_totals.sent.load(Ordering::SeqCst),
            fuzz_totals.received.load(Ordering::SeqCst),
            fuzz_totals.dropped.load(Ordering::SeqCst),
        );
    }
    if let (Some(before), Some(after)) = (metrics_before, metrics_after) {
        let writes = after.writes - before.writes;
        let transactions = after.transactions - before.transactions;
        let waits: Vec<u64> = after
            .buckets
            .iter()
            .zip(&before.buckets)
            .map(|(a, b)| a - b)
            .collect();
        let count = waits.last().copied().unwrap_or(0);
        let mean = if count > 0 {
            (after.wait_sum - before.wait_sum) / count as f64 * 1000.0
        } else {
            0.0
        };
        println!(
            "store: {:.0} writes/s in {:.0} transactions/s; wait for a durable write p50 <= {} p99 <= {} (mean {mean:.3} ms)",
            writes as f64 / elapsed,
            transactions as f64 / elapsed,
            bucket_bound(&after.bounds, &waits, 0.50),
            bucket_bound(&after.bounds, &waits, 0.99),
        );
    }
    let actions = totals.actions.load(Ordering::SeqCst);
    // At a human pace a short run may see no whole hand, but many actions.
    let per_hand = |cpu: f64| {
        let mut parts = Vec::new();
        if hands > 0 {
            parts.push(format!("{:.3} ms per hand", 1000.0 * cpu / hands as f64));
        }
        if actions > 0 {
            parts.push(format!("{:.1} µs per action", 1e6 * cpu / actions as f64));
        }
        if parts.is_empty() {
            "no actions".into()
        } else {
            parts.join(", ")
        }
    };
    let server_cpu = report_servers(
        &pids,
        [&before_setup, &after_setup, &at_end],
        connections,
        &per_hand,
    );
    let calls = match calls {
        Some(Ok((counts, hands))) if hands > 0 => {
            let per_hand = |count: u64| count as f64 / hands as f64;
            let by_call: Vec<String> = counts
                .by_call
                .iter()
                .map(|(call, count)| format!("{call} {:.1}", per_hand(*count)))
                .collect();
            println!(
                "server system calls per hand (perf, {hands} hands after the run{}): {:.1} in all; {}",
                if pids.len() > 1 { ", first server" } else { "" },
                per_hand(counts.all),
                by_call.join(", ")
            );
            Some((counts, hands))
        }
        Some(Ok(_)) => {
            println!("server system calls: no hand ended while perf counted");
            None
        }
        Some(Err(why)) => {
            println!("server system calls: not counted: {why}");
            None
        }
        None => None,
    };
    if args.floor > 0.0 && hands > 0 {
        report_floor(&args, &totals, calls.as_ref(), server_cpu, pid).await?;
    }
    if let (Some(before), Some(end)) = (own_before, own_at_end) {
        let cpu = end.cpu_seconds - before.cpu_seconds;
        println!("load generator: CPU {cpu:.2} s ({})", per_hand(cpu));
    }
    if let (Some(before), Some(end)) = (machine_before, machine_at_end) {
        let (busy, stolen) = end.since(&before);
        println!(
            "machine: {:.0}% busy, {:.1}% of its time taken by the host (steal)",
            100.0 * busy,
            100.0 * stolen
        );
    }
    Ok(())
}

/// Connects four clients, seats them at a new private room and starts a game.
async fn seat_table(
    urls: &[String],
    layout: Layout,
    table: usize,
) -> anyhow::Result<Vec<(Client, TableState, bool)>> {
    let mut clients = Vec::with_capacity(4);
    // The room opens on the node of seat 0, whose client creates it.
    let owner = layout.server(table, 0, urls.len());
    for seat in 0..4 {
        let server = layout.server(table, seat, urls.len());
        let mut client = connect(&urls[server]).await?;
        client.timeout = Duration::from_secs(60);
        let welcome = client.hello(&format!("t{table}s{seat}")).await?;
        let ServerMessage::Welcome { player, .. } = welcome else {
            bail!("expected a welcome, got {welcome:?}");
        };
        let state = TableState {
            me: Some(player.id),
            ..TableState::default()
        };
        clients.push((client, state, server != owner));
    }
    let created = clients[0]
        .0
        .request(|id| ClientMessage::CreateRoom {
            id,
            name: None,
            rules: RulesSpec::default(),
            private: true,
            bots: BotLevel::Basic,
        })
        .await?;
    let ServerMessage::Snapshot { state, .. } = created else {
        bail!("expected a snapshot, got {created:?}");
    };
    let code = state.room;
    for (seat, (client, _, _)) in clients.iter_mut().enumerate() {
        if seat > 0 {
            join(client, &code).await?;
        }
        let seat = spades_engine::Seat::new(seat as u8);
        client.request(|id| ClientMessage::Sit { id, seat }).await?;
    }
    // What arrived while waiting for the replies tells each client its seat.
    // The first client starts the game when the table's turn comes.
    for (client, state, _) in &mut clients {
        for message in client.take_pending() {
            state.apply(&message);
        }
    }
    Ok(clients)
}

/// Enters a room. On a cluster the room may have opened on another node a
/// moment ago, before every node knows of it: a join refused with
/// `room_not_found` is tried again for a little while.
async fn join(client: &mut Client, code: &str) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let room = code.to_string();
        match client.request(|id| ClientMessage::JoinRoom { id, room }).await {
            Ok(_) => return Ok(()),
            Err(ClientError::Refused {
                code: spades_protocol::ws::ErrorCode::RoomNotFound,
                ..
            }) if Instant::now() < deadline => tokio::time::sleep(Duration::from_millis(20)).await,
            Err(error) => return Err(error.into()),
        }
    }
}

/// Connects one client, and says what to change when the server turns it
/// away.
async fn connect(url: &str) -> anyhow::Result<Client> {
    use tokio_tungstenite::tungstenite::Error;
    match Client::connect(url).await {
        Ok(client) => Ok(client),
        Err(ClientError::WebSocket(Error::Http(response))) if response.status() == 503 => {
            bail!("{}", refusal(response.body().as_deref()))
        }
        Err(error) => Err(error).context("cannot connect"),
    }
}

/// What a `503` refusal of the upgrade means for the run, from its body (the
/// HTTP API's `{"error": code, "message": text}`).
fn refusal(body: Option<&[u8]>) -> String {
    let code = body
        .and_then(|body| serde_json::from_slice::<serde_json::Value>(body).ok())
        .and_then(|body| body["error"].as_str().map(str::to_owned));
    match code.as_deref() {
        Some("too_many_connections") => "the server refused a connection because this address holds as many \
             as it allows one address (too_many_connections); every client of the load test comes from \
             one address, so start the server with `--max-connections-per-address 0 \
             --max-sockets-per-address 0` (no limit per address)"
            .into(),
        Some("server_full") => "the server refused a connection because it is full (server_full); \
             raise its --max-connections and its open-file limit, or run fewer tables"
            .into(),
        _ => {
            let body = body.map(String::from_utf8_lossy).unwrap_or_default();
            format!(
                "the server refused a connection with 503 ({}); if it limits connections per address, \
                 start it with `--max-connections-per-address 0 --max-sockets-per-address 0`",
                body.trim()
            )
        }
    }
}

/// Plays until the run stops; returns this client's latency samples in
/// microseconds, each with the kind of action it measured.
async fn play(
    mut client: Client,
    mut state: TableState,
    pace: Pace,
    seed: u64,
    totals: Arc<Totals>,
) -> Vec<(Step, u32)> {
    let mut samples = Vec::new();
    let mut acted_on = 0;
    let mut pending: Option<Pending> = None;
    let first = state.seat.is_some_and(|seat| seat.index() == 0);
    let mut rng = spades_engine::GameRng::new(seed);
    let mut counted = client.traffic();
    let stop = totals.stop.child_token();
    let stopped = stop.cancelled();
    tokio::pin!(stopped);
    if first {
        tokio::select! {
            () = &mut stopped => return samples,
            () = tokio::time::sleep_until(pace.start_at) => {}
        }
        let id = client.next_id();
        if client.send(&ClientMessage::StartGame { id }).await.is_err() {
            totals.errors.fetch_add(1, Ordering::Relaxed);
            return samples;
        }
    }
    loop {
        if state.my_turn() && acted_on < state.turn_seq {
            let Some(mv) = state.decide(false) else { break };
            acted_on = state.turn_seq;
            let think = pace.think(&mut rng);
            if !think.is_zero() {
                tokio::select! {
                    () = &mut stopped => break,
                    () = tokio::time::sleep(think) => {}
                }
            }
            let id = client.next_id();
            pending = Some(Pending {
                sent: Instant::now(),
                mv,
                step: Step::of(mv, &state),
            });
            if client.send(&mv.message(id)).await.is_err() {
                totals.errors.fetch_add(1, Ordering::Relaxed);
                break;
            }
        }
        let message = tokio::select! {
            biased;
            () = &mut stopped => break,
            message = client.next_message() => match message {
                Ok(message) => message,
                Err(_) => {
                    totals.errors.fetch_add(1, Ordering::Relaxed);
                    break;
                }
            },
        };
        state.apply(&message);
        let measuring = totals.measuring.load(Ordering::Relaxed);
        let traffic = client.traffic();
        if measuring {
            totals.count_traffic(traffic - counted);
        }
        counted = traffic;
        if let Some((sent, step)) = pending
            .as_ref()
            .filter(|p| confirms(&message, p.mv, &state))
            .map(|p| (p.sent, p.step))
        {
            if measuring {
                let latency = sent.elapsed();
                let micros = latency.as_micros().min(u128::from(u32::MAX)) as u32;
                samples.push((step, micros));
                if latency >= SLOW {
                    totals
                        .slow
                        .lock()
                        .expect("no client panics holding it")
                        .push((sent, micros));
                }
                totals.actions.fetch_add(1, Ordering::Relaxed);
            }
            pending = None;
        }
        if let ServerMessage::Error { code, message, .. } = &message {
            report_error(&totals, *code, message);
        }
        match message.event() {
            Some(EventKind::HandScored { .. }) if first => {
                if measuring {
                    totals.hands.fetch_add(1, Ordering::Relaxed);
                }
                totals.all_hands.fetch_add(1, Ordering::Relaxed);
            }
            Some(EventKind::GameOver { .. }) if first => {
                let id = client.next_id();
                if client.send(&ClientMessage::StartGame { id }).await.is_err() {
                    break;
                }
            }
            _ => {}
        }
    }
    client.close().await;
    samples
}

/// Counts the server's system calls with `perf` for `seconds` while the
/// tables play on, and the hands that ended meanwhile.
async fn count_calls(pid: u32, seconds: f64, totals: &Totals) -> Result<(syscalls::Counts, u64), String> {
    let hands_before = totals.all_hands.load(Ordering::SeqCst);
    let counting = syscalls::Counting::start(pid, Duration::from_secs_f64(seconds))
        .ok_or_else(|| "perf cannot be run (is it installed?)".to_owned())?;
    let counts = tokio::task::spawn_blocking(move || counting.finish())
        .await
        .map_err(|error| error.to_string())??;
    Ok((counts, totals.all_hands.load(Ordering::SeqCst) - hands_before))
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

/// Measures the floor of the run's traffic and compares the server's CPU
/// per hand with it. The server's writes are those `perf` counted, or,
/// without it, one per connection for each frame a client sent.
async fn report_floor(
    args: &Args,
    totals: &Totals,
    calls: Option<&(syscalls::Counts, u64)>,
    server_cpu: Option<f64>,
    pid: Option<u32>,
) -> anyhow::Result<()> {
    let hands = totals.hands.load(Ordering::SeqCst) as f64;
    let load = |counter: &AtomicU64| counter.load(Ordering::SeqCst) as f64;
    let requests = load(&totals.frames_sent) / hands;
    let bytes_received = load(&totals.bytes_received) / hands;
    let writes = calls.map(|(counts, hands)| (counts.of("sendto") + counts.of("writev"), *hands));
    let (writes, counted) = match writes {
        Some((writes, calls_hands)) if writes > 0 => (writes as f64 / calls_hands as f64, "as perf counted"),
        _ => (4.0 * requests, "one per connection per request"),
    };
    let shape = floor::Shape {
        requests,
        request_bytes: load(&totals.bytes_sent) / hands / requests,
        writes,
        write_bytes: bytes_received / writes,
    };
    println!(
        "traffic per hand: {requests:.1} frames of {:.0} bytes from the clients, {:.1} frames ({:.0} bytes) \
         to them in {writes:.1} writes of {:.0} bytes ({counted})",
        shape.request_bytes,
        load(&totals.frames_received) / hands,
        bytes_received,
        shape.write_bytes,
    );
    // Past a few hundred tables at think 0 the floor's cost per hand no
    // longer changes, and the sockets are better spared.
    let tables = args.tables.min(200);
    let floor = floor::measure(shape, tables, Duration::from_secs_f64(args.floor), pid).await?;
    let per_hand = floor.cpu_per_hand();
    print!(
        "floor: {:.3} ms CPU per hand (user {:.3}, system {:.3}) over {:.0} hands of that traffic at think 0",
        1000.0 * per_hand,
        1000.0 * floor.user_seconds / floor.hands,
        1000.0 * floor.system_seconds / floor.hands,
        floor.hands
    );
    match server_cpu {
        Some(cpu) => println!("; the server spent {:.2} times the floor", cpu / hands / per_hand),
        None => println!(),
    }
    Ok(())
}

/// Says how many confirmations were slower than [`SLOW`], and groups them
/// by the second in which their action was sent: many tables slow in the
/// same second is a pause of the whole server, one table slow now and then
/// is not.
fn report_slow(totals: &Totals, started: Instant) {
    let slow = totals.slow.lock().expect("no client panics holding it");
    println!(
        "confirmations slower than {} ms: {}",
        SLOW.as_millis(),
        slow.len()
    );
    let mut seconds: std::collections::BTreeMap<u64, (usize, u32)> = Default::default();
    for (sent, micros) in slow.iter() {
        let second = sent.saturating_duration_since(started).as_secs();
        let entry = seconds.entry(second).or_default();
        entry.0 += 1;
        entry.1 = entry.1.max(*micros);
    }
    let mut worst: Vec<_> = seconds.into_iter().collect();
    worst.sort_by_key(|(_, (count, _))| std::cmp::Reverse(*count));
    for (second, (count, max)) in worst.into_iter().take(5) {
        println!(
            "  second {second}: {count} slow confirmations, the slowest {}",
            millis(Some(max))
        );
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

/// Whether `message` is the event that shows this seat's move applied.
fn confirms(message: &ServerMessage, mv: Move, state: &TableState) -> bool {
    let me = state.seat;
    match (message.event(), mv) {
        (Some(EventKind::BidMade { seat, .. }), Move::Bid { .. }) => Some(*seat) == me,
        (Some(EventKind::HandRevealed { seat, .. }), Move::Look) => Some(*seat) == me,
        (Some(EventKind::CardsPassed { from, .. }), Move::Pass(_)) => Some(*from) == me,
        (Some(EventKind::PassChosen { seat, .. }), Move::Pass(_)) => Some(*seat) == me,
        (Some(EventKind::CardPlayed { seat, .. }), Move::Play(_)) => Some(*seat) == me,
        _ => false,
    }
}

/// Prints the count, p50 and p99 of one part of the run's latency samples.
fn report_part(label: &str, samples: &mut [u32]) {
    samples.sort_unstable();
    println!(
        "  {label}: {} actions, p50 {} p99 {}",
        samples.len(),
        millis(percentile(samples, 0.50)),
        millis(percentile(samples, 0.99)),
    );
}

fn millis(micros: Option<u32>) -> String {
    micros.map_or("-".into(), |us| format!("{:.3} ms", f64::from(us) / 1000.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn think_times_spread_evenly_around_the_mean() {
        let pace = |spread| Pace {
            think_ms: 500,
            spread,
            start_at: tokio::time::Instant::now(),
        };
        let mut rng = spades_engine::GameRng::new(7);
        let spread = pace(0.5);
        let times: Vec<u128> = (0..10_000).map(|_| spread.think(&mut rng).as_micros()).collect();
        assert!(times.iter().all(|&t| (250_000..=750_000).contains(&t)));
        let mean = times.iter().sum::<u128>() / times.len() as u128;
        assert!((490_000..=510_000).contains(&mean), "mean {mean} µs");
        // Both halves of the range are used.
        assert!(times.iter().any(|&t| t < 300_000) && times.iter().any(|&t| t > 700_000));
        let exact = pace(0.0);
        assert_eq!(exact.think(&mut rng), Duration::from_millis(500));
        let none = Pace {
            think_ms: 0,
            ..spread
        };
        assert_eq!(none.think(&mut rng), Duration::ZERO);
    }

    #[test]
    fn a_refusal_names_the_setting_to_change() {
        let per_address = refusal(Some(
            br#"{"error":"too_many_connections","message":"your address holds as many"}"#,
        ));
        assert!(
            per_address.contains("--max-connections-per-address 0"),
            "{per_address}"
        );
        let full = refusal(Some(br#"{"error":"server_full","message":"full"}"#));
        assert!(
            full.contains("--max-connections") && !full.contains("per-address"),
            "{full}"
        );
        // An answer without a body (or from an older server) still points
        // at the likeliest cause.
        let unknown = refusal(None);
        assert!(unknown.contains("--max-connections-per-address 0"), "{unknown}");
    }
}
