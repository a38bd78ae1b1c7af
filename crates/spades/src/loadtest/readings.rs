//! What the load test reads of the servers and the machine: each server's
//! CPU time and memory from `/proc`, the whole machine's busy and stolen
//! time, which process listens on the server's port, and the store's
//! counters from the server's `/metrics`.

use std::fs;

/// The server's CPU time and memory, from `/proc`.
#[derive(Clone, Copy, Debug)]
pub(super) struct ProcessStats {
    pub(super) cpu_seconds: f64,
    pub(super) user_seconds: f64,
    pub(super) system_seconds: f64,
    pub(super) resident_kib: u64,
    pub(super) peak_kib: u64,
}

/// Linux reports process times in ticks of 1/100 s (`USER_HZ`).
const TICKS_PER_SECOND: f64 = 100.0;

impl ProcessStats {
    pub(super) fn read(pid: u32) -> Option<ProcessStats> {
        let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name is in parentheses and may hold spaces; fields
        // are counted from after it. utime and stime are fields 14 and 15.
        let after_name = &stat[stat.rfind(')')? + 2..];
        let fields: Vec<&str> = after_name.split_whitespace().collect();
        let user: u64 = fields.get(11)?.parse().ok()?;
        let system: u64 = fields.get(12)?.parse().ok()?;
        let ticks = user + system;
        let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let kib = |key: &str| {
            status
                .lines()
                .find(|line| line.starts_with(key))
                .and_then(|line| line.split_whitespace().nth(1))
                .and_then(|value| value.parse().ok())
        };
        Some(ProcessStats {
            cpu_seconds: ticks as f64 / TICKS_PER_SECOND,
            user_seconds: user as f64 / TICKS_PER_SECOND,
            system_seconds: system as f64 / TICKS_PER_SECOND,
            resident_kib: kib("VmRSS:")?,
            peak_kib: kib("VmHWM:")?,
        })
    }
}

/// The CPU seconds used so far by each process whose name is `name`, by
/// process id: a database such as Postgres runs a process for each
/// connection, and the server's cost includes theirs.
#[derive(Clone, Debug, Default)]
pub(super) struct NamedProcesses(std::collections::HashMap<u32, f64>);

impl NamedProcesses {
    pub(super) fn take(name: &str) -> NamedProcesses {
        let mut found = std::collections::HashMap::new();
        for pid in process_ids() {
            let named =
                fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|comm| comm.trim_end() == name);
            if let Some(stats) = ProcessStats::read(pid).filter(|_| named) {
                found.insert(pid, stats.cpu_seconds);
            }
        }
        NamedProcesses(found)
    }

    /// The CPU seconds the processes used from `before` to this reading:
    /// a process that started meanwhile counts whole, and one that ended
    /// meanwhile is missed (Postgres keeps its pool's processes).
    pub(super) fn used_since(&self, before: &NamedProcesses) -> Option<f64> {
        if self.0.is_empty() {
            return None;
        }
        let used = self
            .0
            .iter()
            .map(|(pid, cpu)| cpu - before.0.get(pid).copied().unwrap_or(0.0))
            .filter(|used| *used > 0.0)
            .sum();
        Some(used)
    }
}

/// One reading of every server's [`ProcessStats`], in the order of
/// `--server`; `None` where a server's process is unknown or gone.
pub(super) struct Readings(Vec<Option<ProcessStats>>);

impl Readings {
    pub(super) fn take(pids: &[Option<u32>]) -> Readings {
        Readings(pids.iter().map(|pid| pid.and_then(ProcessStats::read)).collect())
    }
}

/// Prints each server's CPU time and memory over the measured run (from
/// `after_setup` to `at_end`; memory against `before_setup`), and their sum
/// when there are several. Returns the servers' CPU seconds in all, when
/// every server could be read.
pub(super) fn report_servers(
    pids: &[Option<u32>],
    [before_setup, after_setup, at_end]: [&Readings; 3],
    connections: usize,
    per_hand: &dyn Fn(f64) -> String,
) -> Option<f64> {
    // Each server holds its share of the clients.
    let share = connections as f64 / pids.len().max(1) as f64;
    let mut sum = Some((0.0, 0.0, 0.0, 0u64));
    for (i, pid) in pids.iter().enumerate() {
        let found = (pid, before_setup.0[i], after_setup.0[i], at_end.0[i]);
        let (Some(pid), Some(before), Some(after), Some(end)) = found else {
            println!(
                "server {}: not found on this machine (give --server-pid for its CPU and memory)",
                i + 1
            );
            sum = None;
            continue;
        };
        let cpu = end.cpu_seconds - after.cpu_seconds;
        let user = end.user_seconds - after.user_seconds;
        let system = end.system_seconds - after.system_seconds;
        let grown = |stats: ProcessStats| stats.resident_kib.saturating_sub(before.resident_kib);
        println!(
            "server pid {pid}: CPU {cpu:.2} s ({}; user {}, system {}), resident {:.1} MiB (peak {:.1} MiB), \
             {:.1} KiB per connection once seated, {:.1} KiB at the end",
            per_hand(cpu),
            per_hand(user),
            per_hand(system),
            end.resident_kib as f64 / 1024.0,
            end.peak_kib as f64 / 1024.0,
            grown(after) as f64 / share,
            grown(end) as f64 / share,
        );
        sum = sum.map(|(c, u, s, kib)| (c + cpu, u + user, s + system, kib + grown(end)));
    }
    let (cpu, user, system, grown) = sum?;
    if pids.len() > 1 {
        println!(
            "servers in all: CPU {cpu:.2} s ({}; user {}, system {}), {:.1} KiB per connection at the end",
            per_hand(cpu),
            per_hand(user),
            per_hand(system),
            grown as f64 / connections as f64,
        );
    }
    Some(cpu)
}

/// The whole machine's CPU time, from the first line of `/proc/stat`, in
/// ticks summed over its cores.
///
/// On a virtual machine, "steal" is time the host gave to something else
/// while this machine had work to run; a run with much of it measured the
/// host's load as much as the server.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct MachineTimes {
    pub(super) total: u64,
    pub(super) idle: u64,
    pub(super) steal: u64,
}

impl MachineTimes {
    pub(super) fn read() -> Option<MachineTimes> {
        MachineTimes::parse(&fs::read_to_string("/proc/stat").ok()?)
    }

    fn parse(stat: &str) -> Option<MachineTimes> {
        // cpu user nice system idle iowait irq softirq steal [guest ...];
        // guest time is already counted in user time.
        let line = stat.lines().next()?;
        let mut fields = line.split_whitespace();
        if fields.next()? != "cpu" {
            return None;
        }
        let ticks: Vec<u64> = fields.take(8).map(str::parse).collect::<Result<_, _>>().ok()?;
        let [_, _, _, idle, iowait, _, _, steal] = ticks[..] else {
            return None;
        };
        Some(MachineTimes {
            total: ticks.iter().sum(),
            idle: idle + iowait,
            steal,
        })
    }

    /// The shares of the time since `earlier` that were busy (steal
    /// included) and stolen.
    pub(super) fn since(&self, earlier: &MachineTimes) -> (f64, f64) {
        let total = self.total.saturating_sub(earlier.total).max(1) as f64;
        let idle = self.idle.saturating_sub(earlier.idle) as f64;
        let steal = self.steal.saturating_sub(earlier.steal) as f64;
        (1.0 - idle / total, steal / total)
    }
}

/// The port of a `ws://host:port/...` address.
pub(super) fn port_of(url: &str) -> Option<u16> {
    let rest = url.split("://").nth(1)?;
    let authority = rest.split('/').next()?;
    authority.rsplit(':').next()?.parse().ok()
}

/// The process that listens on a TCP port of this machine: the socket's
/// inode from `/proc/net/tcp`, then the process holding it.
pub(super) fn listening_pid(port: u16) -> Option<u32> {
    const LISTEN: &str = "0A";
    let mut inodes = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = fs::read_to_string(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let local_port = fields
                .get(1)
                .and_then(|a| a.rsplit(':').next())
                .and_then(|p| u16::from_str_radix(p, 16).ok());
            if local_port == Some(port) && fields.get(3) == Some(&LISTEN) {
                inodes.extend(fields.get(9).map(|inode| format!("socket:[{inode}]")));
            }
        }
    }
    for pid in process_ids() {
        let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if let Ok(target) = fs::read_link(fd.path())
                && inodes.iter().any(|inode| target.to_str() == Some(inode))
            {
                return Some(pid);
            }
        }
    }
    None
}

/// The id of every process of this machine, from the numbered entries of
/// `/proc` (none if it cannot be read).
fn process_ids() -> impl Iterator<Item = u32> {
    fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
}

/// The store's counters from the server's `/metrics`.
#[derive(Clone, Debug)]
pub(super) struct StoreMetrics {
    pub(super) writes: u64,
    pub(super) transactions: u64,
    /// Upper bounds of the commit-wait buckets, in seconds, and their
    /// cumulative counts.
    pub(super) bounds: Vec<f64>,
    pub(super) buckets: Vec<u64>,
    pub(super) wait_sum: f64,
}

impl StoreMetrics {
    pub(super) async fn fetch(ws_url: &str) -> Option<StoreMetrics> {
        StoreMetrics::parse(&metrics_text(ws_url).await?)
    }

    pub(super) fn parse(text: &str) -> Option<StoreMetrics> {
        let mut bounds = Vec::new();
        let mut buckets = Vec::new();
        for line in text
            .lines()
            .filter(|line| line.starts_with("spades_journal_commit_wait_seconds_bucket"))
        {
            let bound = line.split('"').nth(1)?;
            bounds.push(if bound == "+Inf" {
                f64::INFINITY
            } else {
                bound.parse().ok()?
            });
            buckets.push(line.rsplit(' ').next()?.parse().ok()?);
        }
        Some(StoreMetrics {
            writes: metric_value(text, "spades_journal_writes_total")? as u64,
            transactions: metric_value(text, "spades_journal_transactions_total")? as u64,
            bounds,
            buckets,
            wait_sum: metric_value(text, "spades_journal_commit_wait_seconds_sum")?,
        })
    }
}

/// The text of the server's `/metrics`, asked of the host and port of its
/// WebSocket address.
pub(super) async fn metrics_text(ws_url: &str) -> Option<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let authority = ws_url.split("://").nth(1)?.split('/').next()?;
    let mut stream = tokio::net::TcpStream::connect(authority).await.ok()?;
    let request = format!("GET /metrics HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.ok()?;
    let mut text = String::new();
    stream.read_to_string(&mut text).await.ok()?;
    Some(text)
}

/// The value of the metric (without labels) named `name` in that text.
pub(super) fn metric_value(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find(|line| line.strip_prefix(name).is_some_and(|rest| rest.starts_with(' ')))?
        .rsplit(' ')
        .next()?
        .parse()
        .ok()
}

/// The upper bound of the bucket holding the given fraction of the waits,
/// from cumulative counts.
pub(super) fn bucket_bound(bounds: &[f64], cumulative: &[u64], fraction: f64) -> String {
    let Some(&total) = cumulative.last() else {
        return "-".into();
    };
    if total == 0 {
        return "-".into();
    }
    let wanted = (total as f64 * fraction).ceil() as u64;
    match cumulative
        .iter()
        .position(|&count| count >= wanted)
        .map(|i| bounds[i])
    {
        Some(bound) if bound.is_finite() => format!("{:.3} ms", bound * 1000.0),
        _ => "above the largest bucket".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports() {
        assert_eq!(port_of("ws://127.0.0.1:8080/ws"), Some(8080));
        assert_eq!(port_of("ws://localhost:9/ws"), Some(9));
    }

    #[test]
    fn machine_times_count_steal_and_idle() {
        let before = MachineTimes::parse("cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3\n").unwrap();
        let after = MachineTimes::parse("cpu  300 0 100 1300 100 0 0 200 0 0\n").unwrap();
        assert_eq!(
            after,
            MachineTimes {
                total: 2000,
                idle: 1400,
                steal: 200
            }
        );
        // 1000 ticks passed: 550 idle or waiting, 200 stolen.
        let (busy, stolen) = after.since(&before);
        assert!((busy - 0.45).abs() < 1e-9, "{busy}");
        assert!((stolen - 0.2).abs() < 1e-9, "{stolen}");
        assert_eq!(MachineTimes::parse("intr 1 2 3"), None);
        assert_eq!(MachineTimes::parse("cpu 1 2 3"), None);
        assert!(MachineTimes::read().is_some(), "this machine has /proc/stat");
    }

    fn stats(cpu: f64, resident_kib: u64) -> Option<ProcessStats> {
        Some(ProcessStats {
            cpu_seconds: cpu,
            user_seconds: cpu / 2.0,
            system_seconds: cpu / 2.0,
            resident_kib,
            peak_kib: resident_kib,
        })
    }

    #[test]
    fn the_servers_cpu_is_summed_only_when_every_server_was_read() {
        let per_hand = |cpu: f64| format!("{cpu}");
        let pids = [Some(1), Some(2)];
        let before = Readings(vec![stats(0.0, 1000), stats(0.0, 2000)]);
        let after = Readings(vec![stats(1.0, 1100), stats(2.0, 2100)]);
        let end = Readings(vec![stats(4.0, 1200), stats(3.5, 2200)]);
        let cpu = report_servers(&pids, [&before, &after, &end], 8, &per_hand);
        assert_eq!(cpu, Some(4.5), "3 s on the first server and 1.5 s on the second");
        // A server whose process could not be read leaves the sum unknown.
        let gone = Readings(vec![stats(4.0, 1200), None]);
        assert_eq!(
            report_servers(&pids, [&before, &after, &gone], 8, &per_hand),
            None
        );
    }

    #[test]
    fn a_database_counts_each_process_from_its_first_reading() {
        let taken = |pairs: &[(u32, f64)]| NamedProcesses(pairs.iter().copied().collect());
        let before = taken(&[(10, 1.0), (11, 5.0)]);
        // Process 11 worked 0.5 s, 10 did nothing, 12 started meanwhile
        // and worked 0.25 s.
        let after = taken(&[(10, 1.0), (11, 5.5), (12, 0.25)]);
        assert_eq!(after.used_since(&before), Some(0.75));
        assert_eq!(NamedProcesses::default().used_since(&before), None, "none found");
        // This test's own process is found by its name.
        let name = fs::read_to_string("/proc/self/comm").expect("this process is in /proc");
        let own = NamedProcesses::take(name.trim_end());
        assert!(own.0.contains_key(&std::process::id()), "{:?}", own.0.keys());
    }

    #[test]
    fn reads_its_own_process_stats() {
        let stats = ProcessStats::read(std::process::id()).expect("this process is in /proc");
        assert!(stats.resident_kib > 0 && stats.peak_kib >= stats.resident_kib);
    }
}
