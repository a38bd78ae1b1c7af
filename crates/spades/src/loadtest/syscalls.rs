//! The server's system calls during the measured run, counted by `perf`
//! when it is installed and allowed to trace the server.
//!
//! `perf stat -p PID -- sleep SECONDS` counts the calls the process makes
//! while `sleep` runs, so it is started as the measuring begins and read
//! when it ends by itself.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The calls counted: those of the sockets, of the event loop and of the
/// store, then every call.
const CALLS: [&str; 8] = [
    "sendto",
    "recvfrom",
    "writev",
    "epoll_wait",
    "futex",
    "pwrite64",
    "fcntl",
    "fdatasync",
];
const ALL: &str = "raw_syscalls:sys_enter";

/// A `perf stat` counting one process's calls.
pub struct Counting(Child);

/// The counts, by call, and the total.
#[derive(Debug, Default, PartialEq)]
pub struct Counts {
    pub by_call: Vec<(&'static str, u64)>,
    pub all: u64,
}

/// What a count found: the calls, and the hands that ended and the
/// actions confirmed while it ran.
#[derive(Debug, Default, PartialEq)]
pub struct Counted {
    pub counts: Counts,
    pub hands: u64,
    pub actions: u64,
}

impl Counted {
    /// `count` calls of this count per hand: divided by the hands that
    /// ended, or, when none did (a paced run's count is often shorter than
    /// a hand), by the actions confirmed and then scaled to a hand by
    /// `actions_per_hand`, the run's own ratio.
    pub fn per_hand(&self, count: u64, actions_per_hand: f64) -> Option<f64> {
        if self.hands > 0 {
            Some(count as f64 / self.hands as f64)
        } else if self.actions > 0 && actions_per_hand > 0.0 {
            Some(count as f64 / self.actions as f64 * actions_per_hand)
        } else {
            None
        }
    }
}

impl Counting {
    /// Starts counting the calls of `pid` for `duration`; `None` when
    /// `perf` cannot be run.
    pub fn start(pid: u32, duration: Duration) -> Option<Counting> {
        let mut events: Vec<String> = CALLS
            .iter()
            .map(|call| format!("syscalls:sys_enter_{call}"))
            .collect();
        events.push(ALL.into());
        Command::new("perf")
            .args([
                "stat",
                "-x",
                ",",
                "-e",
                &events.join(","),
                "-p",
                &pid.to_string(),
                "--",
            ])
            .arg("sleep")
            .arg(format!("{:.3}", duration.as_secs_f64()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .ok()
            .map(Counting)
    }

    /// Waits for the count to end, and reads it; an explanation when
    /// `perf` could not count.
    pub fn finish(self) -> Result<Counts, String> {
        let output = self.0.wait_with_output().map_err(|error| error.to_string())?;
        let text = String::from_utf8_lossy(&output.stderr);
        parse(&text).ok_or_else(|| {
            let first = text.lines().next().unwrap_or("no output").trim().to_owned();
            format!("perf could not count ({first})")
        })
    }
}

/// Reads `perf stat -x,` output: a count, a unit, then the event's name.
fn parse(text: &str) -> Option<Counts> {
    let mut counts = Counts::default();
    for line in text.lines() {
        let mut fields = line.split(',');
        let (Some(count), Some(_unit), Some(event)) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        let Ok(count) = count.parse::<u64>() else { continue };
        if event == ALL {
            counts.all = count;
        } else if let Some(call) = CALLS
            .iter()
            .find(|call| event.strip_prefix("syscalls:sys_enter_") == Some(**call))
        {
            counts.by_call.push((call, count));
        }
    }
    (counts.all > 0).then_some(counts)
}

impl Counts {
    /// Each call's count divided by `per`, with `decimals` places, as
    /// `sendto 3.20, recvfrom 0.80, …`.
    pub fn each_per(&self, per: f64, decimals: usize) -> String {
        let each: Vec<String> = self
            .by_call
            .iter()
            .map(|(call, count)| format!("{call} {:.*}", decimals, *count as f64 / per))
            .collect();
        each.join(", ")
    }

    pub fn of(&self, call: &str) -> u64 {
        self.by_call
            .iter()
            .find(|(name, _)| *name == call)
            .map_or(0, |(_, count)| *count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_perf_stat_output() {
        let text = "131,,syscalls:sys_enter_sendto,1000,100.00,,\n\
                    57,,syscalls:sys_enter_recvfrom,1000,100.00,,\n\
                    <not counted>,,syscalls:sys_enter_writev,0,0.00,,\n\
                    400,,raw_syscalls:sys_enter,1000,100.00,,\n";
        let counts = parse(text).unwrap();
        assert_eq!(counts.all, 400);
        assert_eq!(counts.of("sendto"), 131);
        assert_eq!(counts.of("recvfrom"), 57);
        assert_eq!(counts.of("writev"), 0);
        assert_eq!(parse("Error: no permission\n"), None);
    }

    #[test]
    fn counts_per_hand_or_per_action_when_no_hand_ended() {
        let counts = Counts {
            by_call: vec![("sendto", 300)],
            all: 900,
        };
        let after_hands = Counted {
            counts,
            hands: 3,
            actions: 150,
        };
        assert_eq!(after_hands.per_hand(900, 56.0), Some(300.0));
        // A paced count: 150 actions and no hand ended. At 56 actions a
        // hand, 6 calls an action are 336 a hand.
        let paced = Counted {
            hands: 0,
            ..after_hands
        };
        assert_eq!(paced.per_hand(900, 56.0), Some(336.0));
        // Without the run's ratio, or without an action, there is no figure.
        assert_eq!(paced.per_hand(900, 0.0), None);
        let idle = Counted { actions: 0, ..paced };
        assert_eq!(idle.per_hand(900, 56.0), None);
    }
}
