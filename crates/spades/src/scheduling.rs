//! How the kernel schedules the server's threads.
//!
//! The server's threads wake one another for every action: a runtime worker
//! hands the action to the journal's thread, the journal answers, and the
//! worker sends the confirmations. Under Linux's default policy a thread
//! that is woken usually preempts the one running, so on a busy core the
//! journal is cut off mid-transaction each time a socket becomes readable,
//! and every action costs several extra thread switches. Under
//! `SCHED_BATCH` a woken thread waits until the running one blocks or its
//! time slice ends: each thread finishes what it holds, and the worker
//! reads more sockets per wake-up (at 50 tables on one core, 13 waits for
//! events per hand instead of 22 to 34). Measured there, playing without
//! pause, that took a fifth off the server's CPU per hand and lowered its
//! latency too; see the README.
//!
//! The policy is set on the main thread before the runtime starts, and
//! every thread started afterwards (the runtime's, the journal's, the
//! store's) inherits it.

/// The policy for the server's threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Scheduling {
    /// `SCHED_BATCH` on Linux: no thread of the server preempts a running
    /// one when it wakes.
    Batch,
    /// The system's default policy, as the server was started with.
    Normal,
}

/// Applies `scheduling` to the calling thread, and so to every thread it
/// starts afterwards. Elsewhere than on Linux it does nothing.
pub fn apply(scheduling: Scheduling) -> Result<(), String> {
    match scheduling {
        Scheduling::Normal => Ok(()),
        #[cfg(target_os = "linux")]
        Scheduling::Batch => linux::batch(),
        #[cfg(not(target_os = "linux"))]
        Scheduling::Batch => Ok(()),
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use thread_priority::unix::{
        NormalThreadSchedulePolicy, ThreadSchedulePolicy, set_thread_priority_and_policy, thread_native_id,
    };
    use thread_priority::{ThreadPriority, ThreadPriorityValue};

    pub(super) const BATCH: ThreadSchedulePolicy =
        ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Batch);

    /// Switches the calling thread to `SCHED_BATCH`, keeping its niceness:
    /// the crate sets a niceness along with the policy, so the one in force
    /// is read first and passed back.
    pub(super) fn batch() -> Result<(), String> {
        let niceness = current_niceness().unwrap_or(0);
        let priority = priority_for(niceness)
            .ok_or_else(|| format!("no priority value gives the niceness {niceness}"))?;
        set_thread_priority_and_policy(thread_native_id(), priority, BATCH)
            .map_err(|error| format!("{error:?}"))
    }

    /// The crate's priority value that it turns into `niceness` under
    /// `SCHED_BATCH` (it maps its 0 to 99 onto the nice levels 19 to -20).
    pub(super) fn priority_for(niceness: i32) -> Option<ThreadPriority> {
        (0..=99u8)
            .filter_map(|value| ThreadPriorityValue::try_from(value).ok())
            .map(ThreadPriority::Crossplatform)
            .find(|priority| priority.to_posix(BATCH).ok() == Some(niceness))
    }

    /// The calling thread's niceness, the 19th field of its `stat` file.
    fn current_niceness() -> Option<i32> {
        stat_field(19)
    }

    /// Field `number` (counted from 1, as `proc(5)` does) of the calling
    /// thread's `stat` file.
    fn stat_field(number: usize) -> Option<i32> {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
        // The command name, in parentheses, may hold spaces: count the
        // fields after it, where the state is the third.
        let after_name = &stat[stat.rfind(')')? + 1..];
        after_name.split_whitespace().nth(number - 3)?.parse().ok()
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn every_nice_level_has_a_priority_value() {
            for niceness in -20..=19 {
                let priority = priority_for(niceness).expect("a value for every level");
                assert_eq!(priority.to_posix(BATCH).ok(), Some(niceness));
            }
        }

        #[test]
        fn batch_switches_the_thread_and_keeps_its_niceness() {
            // On a thread of its own, so that no other test runs under the
            // policy.
            std::thread::spawn(|| {
                let before = current_niceness().expect("the niceness is readable");
                assert_eq!(stat_field(41), Some(0), "the thread starts under SCHED_OTHER");
                batch().expect("SCHED_BATCH needs no privilege");
                assert_eq!(stat_field(41), Some(3), "SCHED_BATCH is policy 3");
                assert_eq!(current_niceness(), Some(before));
            })
            .join()
            .expect("the thread's checks pass");
        }
    }
}
