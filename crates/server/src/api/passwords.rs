//! Password hashing with Argon2id, on a few threads of its own that the
//! game never waits for.
//!
//! A hash takes tens of milliseconds of CPU and 19 MiB of memory on
//! purpose. Given one blocking thread per request, as Tokio's blocking pool
//! would, a hundred logins at once ran a hundred hashes side by side: the
//! kernel shared the cores evenly between them and the runtime's few
//! workers, so every table of the server waited over a second for its turn
//! to run, and the process grew by nearly 2 GiB. Here a fixed number of
//! threads hash one password each at a time, the requests beyond them wait
//! in a short queue, and a request that finds the queue full is refused at
//! once with `503 busy`. The threads run at the lowest priority, so that a
//! flood of logins takes from the players only the time they leave.
//!
//! The queue has two lanes. Strangers can keep the ordinary one full, and
//! then every login that joins it is refused; so the logins at an account
//! from an address that has logged into it before wait in a lane of their
//! own, which the threads empty first.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::{Algorithm, Argon2, Params, Version};
use axum::http::StatusCode;

use super::error::{ApiError, ApiResult};
use crate::config::PasswordCost;

/// Passwords waiting for a hashing thread, per thread, before requests are
/// refused: at about 50 ms a hash, a wait of about a second and a half.
const WAITING_PER_THREAD: usize = 32;

/// Logins of known owners waiting, per thread, in their own lane (see
/// [`Lane::Known`]).
const KNOWN_WAITING_PER_THREAD: usize = 8;

/// Seconds a refused request is told to wait before trying again.
const RETRY_AFTER_SECONDS: u64 = 2;

type Job = Box<dyn FnOnce() + Send>;

/// Which queue a password waits in. The hashing threads take every job of
/// the known lane before any of the other, so that a crowd of strangers
/// filling the queue with guesses and registrations cannot keep an owner
/// out of his account by making every one of his logins `busy`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Lane {
    /// A login at an account from an address that has logged into it
    /// before (see `LoginLimiter::is_known`).
    Known,
    /// Everything else: registrations, claims, and logins from addresses
    /// the account has not been seen at.
    Other,
}

/// Hashes and checks passwords at the server's cost, on its own threads.
/// The threads end once this is dropped.
#[derive(Debug)]
pub struct Passwords {
    cost: PasswordCost,
    queue: Arc<Queue>,
}

/// The jobs waiting for a hashing thread, a lane each, and the bell that
/// wakes a thread when one arrives.
#[derive(Debug)]
struct Queue {
    lanes: Mutex<Lanes>,
    arrived: Condvar,
    /// How many jobs each lane holds at most.
    known_capacity: usize,
    other_capacity: usize,
}

#[derive(Default)]
struct Lanes {
    known: VecDeque<Job>,
    other: VecDeque<Job>,
    /// Set when the `Passwords` is dropped: the threads end.
    closed: bool,
}

impl std::fmt::Debug for Lanes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lanes")
            .field("known", &self.known.len())
            .field("other", &self.other.len())
            .field("closed", &self.closed)
            .finish()
    }
}

impl Queue {
    fn lanes(&self) -> MutexGuard<'_, Lanes> {
        // A job runs outside the lock, so a panic cannot leave the lanes
        // half changed.
        self.lanes.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Queues `job` in `lane`, or gives it back when the lane is full or
    /// the queue closed.
    fn push(&self, lane: Lane, job: Job) -> Result<(), Job> {
        let mut lanes = self.lanes();
        if lanes.closed {
            return Err(job);
        }
        let (jobs, capacity) = match lane {
            Lane::Known => (&mut lanes.known, self.known_capacity),
            Lane::Other => (&mut lanes.other, self.other_capacity),
        };
        if jobs.len() >= capacity {
            return Err(job);
        }
        jobs.push_back(job);
        drop(lanes);
        self.arrived.notify_one();
        Ok(())
    }

    /// The next job, the known lane's first; `None` once closed.
    fn next(&self) -> Option<Job> {
        let mut lanes = self.lanes();
        loop {
            if lanes.closed {
                return None;
            }
            if let Some(job) = lanes.known.pop_front().or_else(|| lanes.other.pop_front()) {
                return Some(job);
            }
            lanes = self
                .arrived
                .wait(lanes)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }
}

impl Passwords {
    /// Starts the hashing threads: half the cores this process may run on,
    /// and at least one, so that hashing never takes every core from the
    /// game.
    pub fn start(cost: PasswordCost) -> Passwords {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let threads = (cores / 2).max(1);
        let queue = Arc::new(Queue {
            lanes: Mutex::default(),
            arrived: Condvar::new(),
            known_capacity: threads * KNOWN_WAITING_PER_THREAD,
            other_capacity: threads * WAITING_PER_THREAD,
        });
        let mut started = 0;
        for n in 0..threads {
            let queue = queue.clone();
            match std::thread::Builder::new()
                .name(format!("passwords-{n}"))
                .spawn(move || work(&queue))
            {
                Ok(_) => started += 1,
                Err(error) => tracing::error!(%error, "cannot start a password-hashing thread"),
            }
        }
        if started == 0 {
            // With no thread at all, every request is refused as busy
            // rather than left waiting.
            queue.lanes().closed = true;
        }
        Passwords { cost, queue }
    }

    /// Hashes a new password.
    pub(super) async fn hash(&self, password: String) -> ApiResult<String> {
        let cost = self.cost;
        self.run(Lane::Other, move || {
            hasher(cost)
                .hash_password(password.as_bytes())
                .map(|hash| hash.to_string())
        })
        .await?
        .map_err(|_| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", "hashing failed"))
    }

    /// Whether `password` is the one `hash` was made from, checked in
    /// `lane`'s turn. A hash that cannot be read matches nothing.
    pub(super) async fn verify(&self, lane: Lane, hash: String, password: String) -> ApiResult<bool> {
        self.run(lane, move || {
            PasswordHash::new(&hash)
                .map(|parsed| {
                    Argon2::default()
                        .verify_password(password.as_bytes(), &parsed)
                        .is_ok()
                })
                .unwrap_or(false)
        })
        .await
    }

    /// Runs `job` on a hashing thread, or refuses it when its lane is full.
    async fn run<T: Send + 'static>(
        &self,
        lane: Lane,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> ApiResult<T> {
        let (answer, answered) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            // The request may have gone meanwhile; its answer is not needed.
            let _ = answer.send(job());
        });
        if self.queue.push(lane, job).is_err() {
            return Err(busy());
        }
        answered.await.map_err(|_| busy())
    }
}

impl Drop for Passwords {
    fn drop(&mut self) {
        let mut lanes = self.queue.lanes();
        lanes.closed = true;
        let left = (std::mem::take(&mut lanes.known), std::mem::take(&mut lanes.other));
        drop(lanes);
        self.queue.arrived.notify_all();
        // The jobs left are dropped, and with them their answers: their
        // requests are refused as busy.
        drop(left);
    }
}

/// Takes jobs one at a time until the queue closes, at the lowest
/// priority the system gives (on Linux, a niceness of 19), so that a core
/// shared with the game's threads runs the game first and hashes in what
/// time is left.
fn work(queue: &Queue) {
    if let Err(error) = thread_priority::set_current_thread_priority(thread_priority::ThreadPriority::Min) {
        tracing::warn!(?error, "cannot lower the priority of a password-hashing thread");
    }
    while let Some(job) = queue.next() {
        job();
    }
}

fn busy() -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "busy",
        "the server is checking too many passwords at once; try again in a moment",
    )
    .retry_after(std::time::Duration::from_secs(RETRY_AFTER_SECONDS))
}

/// Hashes a password at `cost` on the calling thread: for the operator's
/// command line (`spades admin password`), which has no server's threads.
pub fn hash_password(cost: PasswordCost, password: &str) -> Option<String> {
    hasher(cost)
        .hash_password(password.as_bytes())
        .map(|hash| hash.to_string())
        .ok()
}

fn hasher(cost: PasswordCost) -> Argon2<'static> {
    // The parameters are checked once when the server's settings are read
    // (`Config::validate`), so they are valid here.
    let params = Params::new(cost.memory_kib, cost.iterations, 1, None).unwrap_or_default();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use super::*;

    /// The lowest cost Argon2 takes, so that the tests run fast.
    const CHEAP: PasswordCost = PasswordCost {
        memory_kib: 8,
        iterations: 1,
    };

    #[tokio::test]
    async fn a_hashed_password_verifies_and_another_does_not() {
        let passwords = Passwords::start(CHEAP);
        let hash = passwords.hash("correct horse".into()).await.unwrap();
        assert!(hash.starts_with("$argon2id$"), "{hash}");
        for lane in [Lane::Known, Lane::Other] {
            let verify = |hash: &str, password: &str| passwords.verify(lane, hash.into(), password.into());
            assert!(verify(&hash, "correct horse").await.unwrap());
            assert!(!verify(&hash, "wrong horse").await.unwrap());
            assert!(!verify("not a hash", "x").await.unwrap());
        }
    }

    /// Occupies every hashing thread until the returned sender is dropped.
    fn hold_every_thread(passwords: &Passwords) -> mpsc::Sender<()> {
        let (release, held) = mpsc::channel::<()>();
        let held = Arc::new(Mutex::new(held));
        let (started, starting) = mpsc::channel::<()>();
        let threads = (std::thread::available_parallelism().map_or(1, usize::from) / 2).max(1);
        for _ in 0..threads {
            let (held, started) = (held.clone(), started.clone());
            let job: Job = Box::new(move || {
                started.send(()).unwrap();
                let _ = held.lock().unwrap().recv();
            });
            passwords.queue.push(Lane::Known, job).map_err(|_| ()).unwrap();
        }
        for _ in 0..threads {
            starting.recv().unwrap();
        }
        release
    }

    #[tokio::test]
    async fn a_full_lane_refuses_as_busy_and_the_known_lane_keeps_its_places() {
        let passwords = Passwords::start(CHEAP);
        let release = hold_every_thread(&passwords);
        let queue = &passwords.queue;
        for _ in 0..queue.other_capacity {
            let job: Job = Box::new(|| {});
            queue.push(Lane::Other, job).map_err(|_| ()).unwrap();
        }
        let refused = passwords.hash("one too many".into()).await.unwrap_err();
        assert_eq!(refused.code, "busy");
        assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
        // An owner's login still finds a place while strangers fill theirs.
        let (known, knowing) = tokio::sync::oneshot::channel::<()>();
        let job: Job = Box::new(move || {
            let _ = known.send(());
        });
        assert!(
            queue.push(Lane::Known, job).is_ok(),
            "the known lane was full too"
        );
        drop(release);
        knowing.await.unwrap();
        // Once the threads have worked through the other lane, hashing
        // works again.
        let mut hash = passwords.hash("afterwards".into()).await;
        for _ in 0..1000 {
            if hash.is_ok() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
            hash = passwords.hash("afterwards".into()).await;
        }
        let hash = hash.unwrap();
        assert!(
            passwords
                .verify(Lane::Other, hash, "afterwards".into())
                .await
                .unwrap()
        );
    }

    #[tokio::test]
    async fn the_known_lane_is_served_first() {
        let passwords = Passwords::start(CHEAP);
        let release = hold_every_thread(&passwords);
        let (order, ran) = mpsc::channel::<Lane>();
        for lane in [Lane::Other, Lane::Other, Lane::Known, Lane::Other, Lane::Known] {
            let order = order.clone();
            let job: Job = Box::new(move || order.send(lane).unwrap());
            passwords.queue.push(lane, job).map_err(|_| ()).unwrap();
        }
        drop(release);
        let ran: Vec<Lane> = (0..5).map(|_| ran.recv().unwrap()).collect();
        // With several threads the jobs may finish in another order than
        // they started, but both known jobs start before any other; with
        // one thread the order is exact.
        let threads = (std::thread::available_parallelism().map_or(1, usize::from) / 2).max(1);
        if threads == 1 {
            assert_eq!(ran[..2], [Lane::Known, Lane::Known], "{ran:?}");
        } else {
            assert_eq!(ran.iter().filter(|&&lane| lane == Lane::Known).count(), 2);
        }
    }

    #[tokio::test]
    async fn dropping_the_passwords_refuses_what_waits() {
        let passwords = Passwords::start(CHEAP);
        let release = hold_every_thread(&passwords);
        let queue = passwords.queue.clone();
        let (answer, answered) = tokio::sync::oneshot::channel::<()>();
        let job: Job = Box::new(move || {
            let _ = answer.send(());
        });
        queue.push(Lane::Other, job).map_err(|_| ()).unwrap();
        drop(passwords);
        assert!(answered.await.is_err(), "a job waiting at the drop still ran");
        let job: Job = Box::new(|| {});
        assert!(queue.push(Lane::Other, job).is_err(), "a closed queue took a job");
        drop(release);
    }
}
