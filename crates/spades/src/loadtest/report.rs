//! What the load test prints once the run is over: latencies, errors, the
//! store's and the machine's figures, and the floor of the run's cost.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::fuzz::FuzzTotals;
use super::player::Step;
use super::readings::{MachineTimes, StoreMetrics, bucket_bound};
use super::server_watch::SlowSecond;
use super::{Args, LATE, SLOW, Totals, floor, syscalls};
use crate::stats::percentile;

/// The run's latency samples in microseconds: all of them, sorted, and
/// apart by the client's route to its table and by the kind of action.
#[derive(Default)]
pub(super) struct Latencies {
    pub(super) all: Vec<u32>,
    /// Apart by whether the client is on its table's node, or reaches it
    /// through another.
    pub(super) by_route: [Vec<u32>; 2],
    pub(super) by_step: [Vec<u32>; 3],
}

/// Prints what the run was, how many hands and actions it saw, how long
/// the server took to confirm actions, and how many errors it answered.
pub(super) fn report_latencies(
    args: &Args,
    totals: &Totals,
    mut latencies: Latencies,
    hands: u64,
    elapsed: f64,
    connections: usize,
) {
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
        millis(percentile(&latencies.all, 0.50)),
        millis(percentile(&latencies.all, 0.99)),
        millis(latencies.all.last().copied()),
    );
    for (samples, step) in latencies.by_step.iter_mut().zip(Step::ALL) {
        report_part(step.describe(), samples);
    }
    if args.server.len() > 1 {
        println!("servers {}, layout {:?}", args.server.len(), args.layout);
        for (samples, route) in latencies
            .by_route
            .iter_mut()
            .zip(["on their table's node", "through another node"])
        {
            report_part(&format!("clients {route}"), samples);
        }
    }
    println!("errors {}", totals.errors.load(Ordering::SeqCst));
}

/// Prints what the misbehaving clients did.
pub(super) fn report_fuzz(clients: u64, fuzz_totals: &FuzzTotals) {
    println!(
        "fuzzing clients {}: {} connections, {} messages sent, {} received, {} connections lost or refused",
        clients,
        fuzz_totals.connections.load(Ordering::SeqCst),
        fuzz_totals.sent.load(Ordering::SeqCst),
        fuzz_totals.received.load(Ordering::SeqCst),
        fuzz_totals.dropped.load(Ordering::SeqCst),
    );
}

/// Prints the store's writes and transactions a second over the run, and
/// how long a durable write waited, from its metrics before and after.
pub(super) fn report_store(before: &StoreMetrics, after: &StoreMetrics, elapsed: f64) {
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

/// `cpu` seconds as a cost per hand and per action. At a human pace a
/// short run may see no whole hand, but many actions.
pub(super) fn cost_per_hand(cpu: f64, hands: u64, actions: u64) -> String {
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
}

/// Prints the server's system calls per hand as `perf` counted them, or why
/// they were not; returns the count when there is one to compare with.
/// When no hand ended while `perf` counted (usual at a human pace), the
/// calls are given per action, and per hand at the run's own
/// `actions_per_hand`.
pub(super) fn report_calls(
    calls: Option<Result<syscalls::Counted, String>>,
    pids: &[Option<u32>],
    actions_per_hand: f64,
) -> Option<syscalls::Counted> {
    let counted = match calls? {
        Ok(counted) => counted,
        Err(why) => {
            println!("server system calls: not counted: {why}");
            return None;
        }
    };
    let first = if pids.len() > 1 { ", first server" } else { "" };
    if counted.hands == 0 {
        report_calls_per_action(&counted, actions_per_hand, first);
        return (counted.actions > 0).then_some(counted);
    }
    let hands = counted.hands as f64;
    println!(
        "server system calls per hand (perf, {} hands after the run{first}): {:.1} in all; {}",
        counted.hands,
        counted.counts.all as f64 / hands,
        counted.counts.each_per(hands, 1)
    );
    Some(counted)
}

/// The calls of a count during which no hand ended: per action, and per
/// hand at the run's `actions_per_hand` when the run ended hands.
fn report_calls_per_action(counted: &syscalls::Counted, actions_per_hand: f64, first: &str) {
    if counted.actions == 0 {
        return println!("server system calls: no action was confirmed while perf counted");
    }
    let actions = counted.actions as f64;
    let all = counted.counts.all as f64 / actions;
    let in_a_hand = if actions_per_hand > 0.0 {
        format!(
            "; {:.1} a hand at the run's {actions_per_hand:.1} actions a hand",
            all * actions_per_hand
        )
    } else {
        String::new()
    };
    println!(
        "server system calls per action (perf, {} actions after the run{first}; no hand ended while it counted): \
         {all:.2} in all{in_a_hand}; {}",
        counted.actions,
        counted.counts.each_per(actions, 2)
    );
}

/// Prints how busy the whole machine was over the run, and how much of its
/// time the host took.
pub(super) fn report_machine(before: &MachineTimes, end: &MachineTimes) {
    let (busy, stolen) = end.since(before);
    println!(
        "machine: {:.0}% busy, {:.1}% of its time taken by the host (steal)",
        100.0 * busy,
        100.0 * stolen
    );
}

/// Measures the floor of the run's traffic and compares the server's CPU
/// per hand with it. The server's writes are those `perf` counted, or,
/// without it, one per connection for each frame a client sent.
pub(super) async fn report_floor(
    args: &Args,
    totals: &Totals,
    calls: Option<&syscalls::Counted>,
    server_cpu: Option<f64>,
    pid: Option<u32>,
) -> anyhow::Result<()> {
    let hands = totals.hands.load(Ordering::SeqCst) as f64;
    let load = |counter: &AtomicU64| counter.load(Ordering::SeqCst) as f64;
    let requests = load(&totals.frames_sent) / hands;
    let bytes_received = load(&totals.bytes_received) / hands;
    let actions_per_hand = load(&totals.actions) / hands;
    let writes = calls.and_then(|counted| {
        let writes = counted.counts.of("sendto") + counted.counts.of("writev");
        (writes > 0)
            .then(|| counted.per_hand(writes, actions_per_hand))
            .flatten()
    });
    let (writes, counted) = match writes {
        Some(writes) => (writes, "as perf counted"),
        None => (4.0 * requests, "one per connection per request"),
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
    let (pace, tables) = floor::plan(args.think, args.think_spread, args.tables);
    let floor = floor::measure(shape, pace, tables, Duration::from_secs_f64(args.floor), pid).await?;
    let per_hand = floor.cpu_per_hand();
    print!(
        "floor: {:.3} ms CPU per hand (user {:.3}, system {:.3}) over {:.0} hands of that traffic on {tables} tables \
         at {}",
        1000.0 * per_hand,
        1000.0 * floor.user_seconds / floor.hands,
        1000.0 * floor.system_seconds / floor.hands,
        floor.hands,
        if args.think == 0 {
            "think 0".to_string()
        } else {
            format!(
                "the run's pace ({:.0} ms a think time)",
                pace.think.as_secs_f64() * 1000.0
            )
        }
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
pub(super) fn report_slow(totals: &Totals, started: Instant) {
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
    let late = totals.late.lock().expect("no task panics holding it");
    println!(
        "moments the load generator itself was over {} ms late: {}",
        LATE.as_millis(),
        late.len()
    );
    for (at, micros) in late.iter().take(5) {
        println!(
            "  second {}: {} late",
            at.saturating_duration_since(started).as_secs(),
            millis(Some(*micros))
        );
    }
}

/// Prints the server's own account of its slow moments over the run (see
/// `server_watch.rs`): each second in which its runtime was held or rooms
/// waited long for the store, the first five in order.
pub(super) fn report_server_watch(watched: Option<&[SlowSecond]>) {
    let Some(seconds) = watched else {
        println!("the server's own account of slow moments: not in its /metrics");
        return;
    };
    let stalls: u64 = seconds.iter().map(|s| s.stalls).sum();
    let stalled: Duration = seconds.iter().map(|s| s.stalled).sum();
    let long_waits: u64 = seconds.iter().map(|s| s.long_waits).sum();
    println!(
        "the server's runtime over 50 ms late: {stalls} times ({:.0} ms in all); \
         rooms that waited over 51.2 ms for the store: {long_waits}",
        stalled.as_secs_f64() * 1000.0
    );
    for slow in seconds.iter().take(5) {
        println!(
            "  second {}: runtime late {} times ({:.0} ms), {} long waits for the store",
            slow.second,
            slow.stalls,
            slow.stalled.as_secs_f64() * 1000.0,
            slow.long_waits
        );
    }
}

/// Prints the count, p50 and p99 of one part of the run's latency samples.
pub(super) fn report_part(label: &str, samples: &mut [u32]) {
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

/// Prints the database processes' CPU time over the measured run, alone
/// and with the servers'.
pub(super) fn report_database(
    name: &str,
    used: Option<f64>,
    servers: Option<f64>,
    per_hand: &dyn Fn(f64) -> String,
) {
    let Some(used) = used else {
        return println!("database: no process named {name} on this machine");
    };
    println!(
        "database ({name} processes): CPU {used:.2} s ({})",
        per_hand(used)
    );
    if let Some(servers) = servers {
        let both = servers + used;
        println!(
            "server and database together: CPU {both:.2} s ({})",
            per_hand(both)
        );
    }
}
