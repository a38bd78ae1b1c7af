//! Small helpers for the figures the tools print.

use std::time::Duration;

/// The value below which `fraction` of the sorted samples fall (the
/// nearest-rank percentile); `None` when there are no samples.
pub fn percentile(sorted: &[u32], fraction: f64) -> Option<u32> {
    if sorted.is_empty() {
        return None;
    }
    let index = ((sorted.len() as f64 * fraction).ceil() as usize).clamp(1, sorted.len()) - 1;
    Some(sorted[index])
}

/// A duration in the unit that suits it: µs below a millisecond, ms below
/// a second, seconds above.
pub fn format_duration(duration: Duration) -> String {
    let seconds = duration.as_secs_f64();
    if seconds < 1e-3 {
        format!("{:.2} µs", seconds * 1e6)
    } else if seconds < 1.0 {
        format!("{:.3} ms", seconds * 1e3)
    } else {
        format!("{seconds:.3} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let samples: Vec<u32> = (1..=100).collect();
        assert_eq!(percentile(&samples, 0.5), Some(50));
        assert_eq!(percentile(&samples, 0.99), Some(99));
        assert_eq!(percentile(&samples, 1.0), Some(100));
        assert_eq!(percentile(&[], 0.5), None);
    }

    #[test]
    fn durations_pick_their_unit() {
        assert_eq!(format_duration(Duration::from_nanos(1500)), "1.50 µs");
        assert_eq!(format_duration(Duration::from_micros(2500)), "2.500 ms");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1.500 s");
    }
}
