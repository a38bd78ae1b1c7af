//! A watch on the server's own runtime: a timer that should fire every
//! [`TICK`] and notes how late it did.
//!
//! Every table, connection and timer of the server runs on the same few
//! runtime threads, so when one of them is held (a long piece of work that
//! never yields, a blocking call, a core taken by something else) every
//! player waits at once. A room's confirmation that came late can have
//! waited on the store, on the runtime or on the client; this watch tells
//! the runtime's share apart, in `/metrics` and in the log, which is how an
//! operator (or the load test) learns that a slow moment was a pause of the
//! whole server.

use std::sync::atomic::AtomicU64;
use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use tokio_util::sync::CancellationToken;

/// How often the watch's timer is due. Twenty wake-ups a second cost
/// nothing noticeable, even on an idle server.
const TICK: Duration = Duration::from_millis(50);

/// A tick this late or later is a stall: players notice a pause of this
/// length, and a busy runtime's normal delays stay well under it.
pub const STALL: Duration = Duration::from_millis(50);

/// A stall this long is also logged as a warning, at most once a minute
/// (see [`REPORT_EVERY`]); shorter ones are logged at the debug level.
const REPORT: Duration = Duration::from_millis(200);
const REPORT_EVERY: Duration = Duration::from_secs(60);

/// What the watch counts, for `/metrics`.
#[derive(Clone, Debug, Default)]
pub struct LatenessMetrics {
    /// Ticks that came [`STALL`] or more late.
    pub stalls: Counter,
    /// How late those ticks came, in all, in seconds.
    pub stalled_seconds: Counter<f64, AtomicU64>,
}

/// Watches the runtime until `stop` is cancelled.
pub async fn watch(metrics: LatenessMetrics, stop: CancellationToken) {
    let mut last_warning: Option<tokio::time::Instant> = None;
    loop {
        let due = tokio::time::Instant::now() + TICK;
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep_until(due) => {}
        }
        let late = due.elapsed();
        if late < STALL {
            continue;
        }
        metrics.stalls.inc();
        metrics.stalled_seconds.inc_by(late.as_secs_f64());
        let late_ms = late.as_millis() as u64;
        let now = tokio::time::Instant::now();
        if late >= REPORT && last_warning.is_none_or(|at| now - at >= REPORT_EVERY) {
            last_warning = Some(now);
            tracing::warn!(
                late_ms,
                "the server's runtime woke its watch timer late: every table waited as long"
            );
        } else {
            tracing::debug!(late_ms, "the server's runtime woke its watch timer late");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A runtime whose only thread is blocked for longer than a stall
    /// counts a stall once it wakes, with about how long it was held.
    #[tokio::test(flavor = "current_thread")]
    async fn a_blocked_runtime_counts_as_a_stall() {
        let metrics = LatenessMetrics::default();
        let stop = CancellationToken::new();
        let watcher = tokio::spawn(watch(metrics.clone(), stop.clone()));
        // Let the watch start its first tick, then hold the only thread.
        tokio::time::sleep(Duration::from_millis(10)).await;
        std::thread::sleep(Duration::from_millis(200));
        tokio::time::sleep(Duration::from_millis(10)).await;
        // The tick that was due while the thread was held woke about 150 ms
        // late. (A busy test machine may delay another tick too, so the
        // count is not checked to be exactly one.)
        assert!(metrics.stalls.get() >= 1);
        let stalled = metrics.stalled_seconds.get();
        assert!(stalled >= 0.1, "{stalled}");
        stop.cancel();
        watcher.await.unwrap();
    }
}
