//! The floor: what it costs to move the run's frames over loopback with no
//! game, no JSON, no WebSocket and no store behind them.
//!
//! After the measured run, the load test opens as many tables again, four
//! plain TCP connections each, to a "floor server" on a thread of its own.
//! That thread does only the server's input and output: for every frame a
//! client sent during the run it reads one request of the run's mean size,
//! and it makes as many socket writes of the run's mean size per hand as the
//! server made (counted by `perf` when it can, otherwise one write per
//! connection per request). The clients keep the run's pace: at think 0
//! they send as soon as they have read, so the floor is the cost of the
//! run's traffic at its most gathered; with a think time they wait as the
//! run's clients did, so that the floor pays what a paced request costs
//! on its own (its own wake-ups and writes, with nothing to share them).
//!
//! The thread runs on the cores the server may use, and only its own CPU
//! time is counted, so the server's CPU per hand divided by the floor's says
//! how far the server is from what the kernel and an event loop cost anyway.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::Context;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::player::think_time;

/// The traffic of one hand, as the run saw it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape {
    /// Frames the clients sent per hand, and their mean size on the wire.
    pub requests: f64,
    pub request_bytes: f64,
    /// The server's socket writes per hand, and the mean bytes of each.
    pub writes: f64,
    pub write_bytes: f64,
}

impl Shape {
    /// The writes of the `action`th request (counted from 0): a whole
    /// number each time, adding up to `writes` per `requests` over a hand.
    fn writes_after(&self, action: u64) -> u64 {
        let per_request = self.writes / self.requests;
        let upto = |n: u64| (n as f64 * per_request).floor() as u64;
        upto(action + 1) - upto(action)
    }

    /// The seat of a table that the `index`th write after the `action`th
    /// request goes to: the writes go round the table from the seat after
    /// the one that acted, as turns do.
    fn seat_of_write(action: u64, index: u64) -> usize {
        ((action + 1 + index) % 4) as usize
    }

    fn request_len(&self) -> usize {
        (self.request_bytes.round() as usize).max(1)
    }

    fn write_len(&self) -> usize {
        (self.write_bytes.round() as usize).max(1)
    }
}

/// How the floor's clients space their requests: each waits a think time
/// drawn as the run's clients draw theirs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pace {
    pub think: Duration,
    pub spread: f64,
}

impl Pace {
    /// No wait: each request is sent as soon as the last was answered.
    pub const AT_ONCE: Pace = Pace {
        think: Duration::ZERO,
        spread: 0.0,
    };
}

/// The most tables the floor opens: each is four connections at both ends
/// in this one process, beside the run's own files.
const MOST_TABLES: usize = 2000;

/// How the floor plays after a run of `tables` tables at `think_ms` with
/// `spread`, and on how many tables: at think 0, on at most 200 (past a few
/// hundred the cost per hand no longer changes, and the sockets are better
/// spared); with a think time, at the run's pace on as many tables as the
/// run up to [`MOST_TABLES`], their think time shortened in proportion
/// when there are fewer, so that the floor's requests come as often as
/// the run's did.
pub fn plan(think_ms: u64, spread: f64, tables: usize) -> (Pace, usize) {
    if think_ms == 0 {
        return (Pace::AT_ONCE, tables.min(200));
    }
    let floor_tables = tables.clamp(1, MOST_TABLES);
    let think = Duration::from_millis(think_ms).mul_f64(floor_tables as f64 / tables.max(1) as f64);
    (Pace { think, spread }, floor_tables)
}

/// What the floor cost.
#[derive(Clone, Copy, Debug)]
pub struct Floor {
    pub hands: f64,
    pub user_seconds: f64,
    pub system_seconds: f64,
}

impl Floor {
    pub fn cpu_per_hand(&self) -> f64 {
        (self.user_seconds + self.system_seconds) / self.hands
    }
}

/// Runs `tables` tables of the given shape for `duration` after a short
/// warm-up, with the floor server's thread on the cores `server_pid` may
/// use (or wherever this process runs when it is not given).
pub async fn measure(
    shape: Shape,
    pace: Pace,
    tables: usize,
    duration: Duration,
    server_pid: Option<u32>,
) -> anyhow::Result<Floor> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").context("cannot open the floor's port")?;
    listener.set_nonblocking(true)?;
    let address = listener.local_addr()?;
    let core = server_pid.and_then(first_core_of);
    let (done, result) = tokio::sync::oneshot::channel();
    let thread = std::thread::Builder::new()
        .name("floor".into())
        .spawn(move || {
            if let Some(core) = core {
                core_affinity::set_for_current(core_affinity::CoreId { id: core });
            }
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
            let outcome = runtime
                .map_err(anyhow::Error::from)
                .and_then(|runtime| runtime.block_on(serve(listener, shape, pace, duration)));
            let _ = done.send(outcome);
        })
        .context("cannot start the floor's thread")?;

    let mut drivers = Vec::with_capacity(tables);
    // Tables connect one after another, so that the server can take every
    // four connections it accepts as one table.
    for table in 0..tables {
        let mut seats = Vec::with_capacity(4);
        for _ in 0..4 {
            let stream = TcpStream::connect(address).await?;
            stream.set_nodelay(true)?;
            seats.push(stream);
        }
        drivers.push(tokio::spawn(drive(seats, shape, pace, table as u64)));
    }
    let floor = result.await.context("the floor's thread stopped")??;
    let _ = thread.join();
    for driver in drivers {
        driver.abort();
    }
    Ok(floor)
}

/// The floor server: takes connections four at a time as tables, serves
/// them, and times itself once they have warmed up.
async fn serve(
    listener: std::net::TcpListener,
    shape: Shape,
    pace: Pace,
    duration: Duration,
) -> anyhow::Result<Floor> {
    let listener = TcpListener::from_std(listener)?;
    let requests = Arc::new(AtomicU64::new(0));
    let served = requests.clone();
    tokio::spawn(async move {
        let mut table = Vec::with_capacity(4);
        while let Ok((stream, _)) = listener.accept().await {
            let _ = stream.set_nodelay(true);
            table.push(stream);
            if table.len() == 4 {
                let seats = std::mem::replace(&mut table, Vec::with_capacity(4));
                tokio::spawn(serve_table(seats, shape, served.clone()));
            }
        }
    });
    // Paced tables start in step; a few think times spread them out as
    // the run's tables were.
    let warm_up = Duration::from_millis(500).max(pace.think * 4);
    tokio::time::sleep(warm_up).await;
    let (user_before, system_before) = thread_cpu()?;
    let before = requests_now(&requests);
    tokio::time::sleep(duration).await;
    let (user_after, system_after) = thread_cpu()?;
    let served = requests_now(&requests) - before;
    anyhow::ensure!(served > 0, "the floor's tables exchanged nothing");
    Ok(Floor {
        hands: served as f64 / shape.requests,
        user_seconds: user_after - user_before,
        system_seconds: system_after - system_before,
    })
}

fn requests_now(requests: &AtomicU64) -> u64 {
    requests.load(Ordering::Relaxed)
}

/// One table of the floor server: reads each request from the seat whose
/// turn it is, and makes that request's writes.
async fn serve_table(mut seats: Vec<TcpStream>, shape: Shape, requests: Arc<AtomicU64>) -> io::Result<()> {
    let mut request = vec![0; shape.request_len()];
    let answer = vec![b'x'; shape.write_len()];
    for action in 0.. {
        seats[(action % 4) as usize].read_exact(&mut request).await?;
        for index in 0..shape.writes_after(action) {
            seats[Shape::seat_of_write(action, index)]
                .write_all(&answer)
                .await?;
        }
        requests.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

/// One table of floor clients: each in turn waits its think time, sends a
/// request, then every seat reads what the server writes to it.
async fn drive(mut seats: Vec<TcpStream>, shape: Shape, pace: Pace, seed: u64) -> io::Result<()> {
    let request = vec![b'r'; shape.request_len()];
    let mut buffer = vec![0; shape.write_len() * 8];
    let mut draws = spades_engine::GameRng::new(seed);
    for action in 0.. {
        if !pace.think.is_zero() {
            tokio::time::sleep(think_time(pace.think, pace.spread, &mut draws)).await;
        }
        seats[(action % 4) as usize].write_all(&request).await?;
        let mut expected = [0usize; 4];
        for index in 0..shape.writes_after(action) {
            expected[Shape::seat_of_write(action, index)] += shape.write_len();
        }
        for (seat, mut left) in expected.into_iter().enumerate() {
            while left > 0 {
                let wanted = left.min(buffer.len());
                let read = seats[seat].read(&mut buffer[..wanted]).await?;
                if read == 0 {
                    return Ok(());
                }
                left -= read;
            }
        }
    }
    Ok(())
}

/// This thread's CPU time so far, user and system, in seconds, from
/// `/proc/thread-self/stat` (in ticks of 1/100 s, fine enough over a
/// floor of a few seconds).
fn thread_cpu() -> anyhow::Result<(f64, f64)> {
    let stat =
        std::fs::read_to_string("/proc/thread-self/stat").context("cannot read this thread's times")?;
    // The fields after the command name, which is in parentheses: utime
    // and stime are the 14th and 15th of the line.
    let after_name = stat.rfind(')').map(|end| &stat[end + 2..]).unwrap_or_default();
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks = |index: usize| -> anyhow::Result<f64> {
        let value: u64 = fields
            .get(index)
            .and_then(|field| field.parse().ok())
            .context("this thread's times cannot be read")?;
        Ok(value as f64 / 100.0)
    };
    Ok((ticks(11)?, ticks(12)?))
}

/// The first core a process may run on, from its `Cpus_allowed_list`
/// ("0", "0-1" or "1,3").
fn first_core_of(pid: u32) -> Option<usize> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let list = status
        .lines()
        .find_map(|line| line.strip_prefix("Cpus_allowed_list:"))?;
    list.trim().split([',', '-']).next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_add_up_over_a_hand() {
        let shape = Shape {
            requests: 56.0,
            request_bytes: 47.0,
            writes: 131.0,
            write_bytes: 430.0,
        };
        let total: u64 = (0..56).map(|action| shape.writes_after(action)).sum();
        assert_eq!(total, 131);
        // Every seat is written to.
        let mut seats = [0; 4];
        for action in 0..56 {
            for index in 0..shape.writes_after(action) {
                seats[Shape::seat_of_write(action, index)] += 1;
            }
        }
        assert!(seats.iter().all(|&writes| writes > 20), "{seats:?}");
    }

    #[test]
    fn a_paced_floor_sends_as_often_as_the_run() {
        assert_eq!(plan(0, 0.5, 50), (Pace::AT_ONCE, 50));
        assert_eq!(plan(0, 0.5, 4000), (Pace::AT_ONCE, 200));
        let paced = |think_ms: u64| Pace {
            think: Duration::from_millis(think_ms),
            spread: 0.5,
        };
        assert_eq!(plan(500, 0.5, 1000), (paced(500), 1000));
        // Half the tables, each twice as fast.
        assert_eq!(plan(500, 0.5, 4000), (paced(250), 2000));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_paced_floor_waits_between_requests() {
        let shape = Shape {
            requests: 56.0,
            request_bytes: 47.0,
            writes: 131.0,
            write_bytes: 430.0,
        };
        let pace = Pace {
            think: Duration::from_millis(20),
            spread: 0.5,
        };
        // Each table makes one request per think time at most: over about
        // 0.3 s, some 15 each, against hundreds at once.
        let floor = measure(shape, pace, 2, Duration::from_millis(300), None)
            .await
            .unwrap();
        let requests = floor.hands * shape.requests;
        assert!(
            (10.0..=60.0).contains(&requests),
            "{requests} requests: {floor:?}"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_floor_serves_its_tables_and_times_its_thread() {
        let shape = Shape {
            requests: 56.0,
            request_bytes: 47.0,
            writes: 131.0,
            write_bytes: 430.0,
        };
        let floor = measure(shape, Pace::AT_ONCE, 2, Duration::from_millis(300), None)
            .await
            .unwrap();
        // A hand is 56 requests; the floor's times are in ticks of 10 ms,
        // too coarse to check over so short a run.
        assert!(floor.hands > 1.0, "{floor:?}");
    }

    #[test]
    fn reads_the_cores_of_a_process_and_the_times_of_a_thread() {
        assert!(first_core_of(std::process::id()).is_some());
        let (user, system) = thread_cpu().unwrap();
        assert!(user >= 0.0 && system >= 0.0);
    }
}
