//! The server's own account of its slow moments, read from its `/metrics`
//! once a second while the load test measures.
//!
//! A confirmation can come late because the server's runtime was held
//! (`spades_runtime_stalls_total`), because its room waited for the store
//! (`spades_journal_commit_wait_seconds`), or because the load generator
//! read it late (its own lateness, in `mod.rs`). Set beside the slow
//! seconds, these figures say which.

use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::readings::{StoreMetrics, metric_value, metrics_text};

/// A room's wait for the store longer than this counts as a long one: the
/// bound of the commit-wait histogram's bucket just above 50 ms.
const LONG_WAIT: f64 = 0.0512;

/// What the server had counted at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Counts {
    stalls: f64,
    stalled_seconds: f64,
    /// Rooms' waits for the store, in all and of at most [`LONG_WAIT`].
    waits: f64,
    short_waits: f64,
}

impl Counts {
    fn parse(text: &str) -> Option<Counts> {
        let store = StoreMetrics::parse(text)?;
        // The buckets' bounds are printed as computed, so the one wanted is
        // found by its value rather than its text.
        let short = store
            .bounds
            .iter()
            .position(|bound| (bound - LONG_WAIT).abs() < 1e-9)?;
        Some(Counts {
            stalls: metric_value(text, "spades_runtime_stalls_total")?,
            stalled_seconds: metric_value(text, "spades_runtime_stalled_seconds_total")?,
            waits: *store.buckets.last()? as f64,
            short_waits: store.buckets[short] as f64,
        })
    }

    fn long_waits(&self) -> f64 {
        self.waits - self.short_waits
    }
}

/// One second of the run in which the server counted something slow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct SlowSecond {
    pub(super) second: u64,
    /// Times the runtime woke its watch timer 50 ms or more late, and how
    /// late in all.
    pub(super) stalls: u64,
    pub(super) stalled: Duration,
    /// Rooms that waited over 51.2 ms for the store.
    pub(super) long_waits: u64,
}

/// What the watch saw over the run: the slow seconds, or `None` when the
/// server's `/metrics` did not answer with these figures (an older server).
pub(super) type Watched = Option<Vec<SlowSecond>>;

/// Reads the server's counts at the start and then once a second for
/// `duration`, and returns the seconds in which they grew.
pub(super) async fn watch(
    server: String,
    started: Instant,
    duration: Duration,
    stop: CancellationToken,
) -> Watched {
    let mut last = Counts::parse(&metrics_text(&server).await?)?;
    let mut slow = Vec::new();
    let seconds = duration.as_secs();
    for second in 0..seconds {
        let due = started + Duration::from_secs(second + 1);
        tokio::select! {
            () = stop.cancelled() => break,
            () = tokio::time::sleep_until(due.into()) => {}
        }
        let Some(now) = metrics_text(&server).await.as_deref().and_then(Counts::parse) else {
            continue;
        };
        if let Some(found) = compare(second, &last, &now) {
            slow.push(found);
        }
        last = now;
    }
    Some(slow)
}

/// The second's slow moments, from the counts at its start and end.
fn compare(second: u64, before: &Counts, after: &Counts) -> Option<SlowSecond> {
    let stalls = (after.stalls - before.stalls).max(0.0) as u64;
    let long_waits = (after.long_waits() - before.long_waits()).max(0.0) as u64;
    (stalls > 0 || long_waits > 0).then(|| SlowSecond {
        second,
        stalls,
        stalled: Duration::from_secs_f64((after.stalled_seconds - before.stalled_seconds).max(0.0)),
        long_waits,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "\
# TYPE spades_runtime_stalls counter
spades_runtime_stalls_total 3
spades_runtime_stalled_seconds_total 0.25
spades_journal_writes_total 400
spades_journal_transactions_total 100
spades_journal_commit_wait_seconds_sum 1.5
spades_journal_commit_wait_seconds_bucket{le=\"0.0256\"} 90
spades_journal_commit_wait_seconds_bucket{le=\"0.05120000000000001\"} 95
spades_journal_commit_wait_seconds_bucket{le=\"0.1024\"} 99
spades_journal_commit_wait_seconds_bucket{le=\"+Inf\"} 100
";

    #[test]
    fn the_counts_are_read_from_the_metrics_text() {
        let counts = Counts::parse(TEXT).expect("every figure is there");
        assert_eq!(
            counts,
            Counts {
                stalls: 3.0,
                stalled_seconds: 0.25,
                waits: 100.0,
                short_waits: 95.0,
            }
        );
        assert_eq!(counts.long_waits(), 5.0);
        assert_eq!(Counts::parse("spades_runtime_stalls_total 3\n"), None);
    }

    #[test]
    fn a_second_is_slow_when_either_count_grew() {
        let before = Counts {
            stalls: 1.0,
            stalled_seconds: 0.06,
            waits: 100.0,
            short_waits: 100.0,
        };
        let quiet = Counts {
            waits: 150.0,
            short_waits: 150.0,
            ..before
        };
        assert_eq!(compare(4, &before, &quiet), None);
        let stalled = Counts {
            stalls: 3.0,
            stalled_seconds: 0.31,
            waits: 180.0,
            short_waits: 170.0,
        };
        let slow = compare(7, &before, &stalled).expect("both grew");
        assert_eq!((slow.second, slow.stalls, slow.long_waits), (7, 2, 10));
        assert!((slow.stalled.as_secs_f64() - 0.25).abs() < 1e-9);
    }
}
