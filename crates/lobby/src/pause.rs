//! Quick play's pause for players who abandon games at rated tables: the
//! more they abandoned lately, the longer they wait before queueing again.

use time::{Duration, OffsetDateTime};

/// How far back abandoned games count.
pub const PAUSE_WINDOW: Duration = Duration::hours(24);

/// The pause after the first abandoned game of the window; each further
/// one triples it.
const FIRST_PAUSE: Duration = Duration::minutes(5);

/// The longest pause.
const LONGEST_PAUSE: Duration = Duration::hours(24);

/// Until when a player may not queue, given when each game at a rated
/// table that he abandoned within [`PAUSE_WINDOW`] ended (oldest first):
/// 5 minutes after the end of the latest for one such game, 15 for two,
/// 45 for three, and so on, three times longer for each, at most a day.
/// `None` once the pause is over, or if he abandoned none.
pub fn paused_until(abandoned: &[OffsetDateTime], now: OffsetDateTime) -> Option<OffsetDateTime> {
    let recent: Vec<OffsetDateTime> = abandoned
        .iter()
        .copied()
        .filter(|&end| end > now - PAUSE_WINDOW)
        .collect();
    let latest = *recent.iter().max()?;
    let mut pause = FIRST_PAUSE;
    for _ in 1..recent.len() {
        pause = (pause * 3_i32).min(LONGEST_PAUSE);
    }
    let until = latest + pause;
    (until > now).then_some(until)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_abandoned_game_triples_the_pause_up_to_a_day() {
        let now = OffsetDateTime::UNIX_EPOCH + Duration::days(10);
        let ago = |minutes: i64| now - Duration::minutes(minutes);
        assert_eq!(paused_until(&[], now), None);
        assert_eq!(paused_until(&[ago(1)], now), Some(ago(1) + Duration::minutes(5)));
        assert_eq!(paused_until(&[ago(6)], now), None, "five minutes are over");
        assert_eq!(
            paused_until(&[ago(100), ago(10)], now),
            Some(ago(10) + Duration::minutes(15))
        );
        assert_eq!(
            paused_until(&[ago(300), ago(200), ago(10)], now),
            Some(ago(10) + Duration::minutes(45))
        );
        let many: Vec<OffsetDateTime> = (0..12).map(|i| ago(60 + i)).collect();
        assert_eq!(paused_until(&many, now), Some(ago(60) + Duration::hours(24)));
        assert_eq!(
            paused_until(&[now - Duration::hours(25)], now),
            None,
            "older than the window"
        );
    }
}
