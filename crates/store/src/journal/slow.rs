//! Reports of slow batches, at most one a minute.

use std::time::{Duration, Instant};

use super::writer::BatchTimes;
use super::{SLOW_BATCH, SLOW_REPORT_EVERY};

/// Counts the batches that were slow to store between two reports.
#[derive(Debug, Default)]
pub(super) struct SlowBatches {
    last_report: Option<Instant>,
    /// Slow batches not reported yet, and the slowest of them.
    count: u32,
    slowest: Duration,
}

/// What a report of slow batches says.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct SlowReport {
    took: Duration,
    /// Slow batches since the last report, this one included.
    count: u32,
    slowest: Duration,
}

impl SlowBatches {
    /// Notes that a batch took `took` to store; answers a report to log
    /// when it was slow and none was logged in the last minute.
    pub(super) fn record(&mut self, took: Duration, now: Instant) -> Option<SlowReport> {
        if took < SLOW_BATCH {
            return None;
        }
        self.count += 1;
        self.slowest = self.slowest.max(took);
        if self
            .last_report
            .is_some_and(|at| now.duration_since(at) < SLOW_REPORT_EVERY)
        {
            return None;
        }
        self.last_report = Some(now);
        let report = SlowReport {
            took,
            count: self.count,
            slowest: self.slowest,
        };
        self.count = 0;
        self.slowest = Duration::ZERO;
        Some(report)
    }
}

impl SlowReport {
    /// Logs the report of a batch of `writes` writes, with where it spent
    /// its time when the writer knows (see [`BatchTimes`]).
    pub(super) fn log(&self, writes: usize, times: Option<BatchTimes>) {
        let micros = |part: fn(&BatchTimes) -> Duration| times.map(|times| part(&times).as_micros() as u64);
        tracing::warn!(
            took_ms = self.took.as_millis() as u64,
            writes,
            lock_wait_us = micros(|times| times.lock),
            rows_us = micros(|times| times.rows),
            commit_us = micros(|times| times.commit),
            slow_batches = self.count,
            slowest_ms = self.slowest.as_millis() as u64,
            "storing game writes was slow, and the tables that made them waited for it; \
             slow_batches counts those since the last such warning"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn a_batch_stored_quickly_is_not_reported() {
        let mut slow = SlowBatches::default();
        assert_eq!(slow.record(SLOW_BATCH - MS, Instant::now()), None);
        assert_eq!(slow.count, 0);
    }

    #[test]
    fn slow_batches_are_reported_at_once_then_at_most_once_a_minute() {
        let mut slow = SlowBatches::default();
        let start = Instant::now();
        let first = slow.record(300 * MS, start);
        assert_eq!(
            first,
            Some(SlowReport {
                took: 300 * MS,
                count: 1,
                slowest: 300 * MS
            }),
            "the first slow batch is reported at once"
        );
        // Within the minute, slow batches are only counted.
        assert_eq!(slow.record(900 * MS, start + Duration::from_secs(10)), None);
        assert_eq!(slow.record(250 * MS, start + Duration::from_secs(59)), None);
        assert_eq!(
            slow.record(10 * MS, start + Duration::from_secs(61)),
            None,
            "a quick batch reports nothing"
        );
        // The next slow one after it reports them all, with the slowest.
        let later = slow.record(400 * MS, start + Duration::from_secs(62));
        assert_eq!(
            later,
            Some(SlowReport {
                took: 400 * MS,
                count: 3,
                slowest: 900 * MS
            })
        );
        // And the count starts again.
        let again = slow.record(200 * MS, start + Duration::from_secs(123));
        assert_eq!(again.map(|report| report.count), Some(1));
    }
}
