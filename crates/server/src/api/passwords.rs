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

use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};

use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::{Algorithm, Argon2, Params, Version};
use axum::http::StatusCode;

use super::error::{ApiError, ApiResult};
use crate::config::PasswordCost;

/// Passwords waiting for a hashing thread, per thread, before requests are
/// refused: at about 50 ms a hash, a wait of about a second and a half.
const WAITING_PER_THREAD: usize = 32;

/// Seconds a refused request is told to wait before trying again.
const RETRY_AFTER_SECONDS: u64 = 2;

type Job = Box<dyn FnOnce() + Send>;

/// Hashes and checks passwords at the server's cost, on its own threads.
/// The threads end once the last clone of the queue is dropped.
#[derive(Debug)]
pub struct Passwords {
    cost: PasswordCost,
    queue: SyncSender<Job>,
}

impl Passwords {
    /// Starts the hashing threads: half the cores this process may run on,
    /// and at least one, so that hashing never takes every core from the
    /// game.
    pub fn start(cost: PasswordCost) -> Passwords {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let threads = (cores / 2).max(1);
        let (queue, jobs) = sync_channel::<Job>(threads * WAITING_PER_THREAD);
        let jobs = Arc::new(Mutex::new(jobs));
        for n in 0..threads {
            let jobs = jobs.clone();
            let started = std::thread::Builder::new()
                .name(format!("passwords-{n}"))
                .spawn(move || work(&jobs));
            if let Err(error) = started {
                // With no thread at all, every request is refused as busy
                // (the jobs' answers are dropped with the queue's receiver)
                // rather than left waiting.
                tracing::error!(%error, "cannot start a password-hashing thread");
            }
        }
        Passwords { cost, queue }
    }

    /// Hashes a new password.
    pub(super) async fn hash(&self, password: String) -> ApiResult<String> {
        let cost = self.cost;
        self.run(move || {
            hasher(cost)
                .hash_password(password.as_bytes())
                .map(|hash| hash.to_string())
        })
        .await?
        .map_err(|_| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", "hashing failed"))
    }

    /// Whether `password` is the one `hash` was made from. A hash that
    /// cannot be read matches nothing.
    pub(super) async fn verify(&self, hash: String, password: String) -> ApiResult<bool> {
        self.run(move || {
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

    /// Runs `job` on a hashing thread, or refuses it when too many wait.
    async fn run<T: Send + 'static>(&self, job: impl FnOnce() -> T + Send + 'static) -> ApiResult<T> {
        let (answer, answered) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            // The request may have gone meanwhile; its answer is not needed.
            let _ = answer.send(job());
        });
        match self.queue.try_send(job) {
            Ok(()) => {}
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => return Err(busy()),
        }
        answered.await.map_err(|_| busy())
    }
}

/// Takes jobs one at a time until the queue closes, at the lowest
/// priority the system gives (on Linux, a niceness of 19), so that a core
/// shared with the game's threads runs the game first and hashes in what
/// time is left.
fn work(jobs: &Mutex<Receiver<Job>>) {
    if let Err(error) = thread_priority::set_current_thread_priority(thread_priority::ThreadPriority::Min) {
        tracing::warn!(?error, "cannot lower the priority of a password-hashing thread");
    }
    loop {
        // The lock is held only while waiting for the next job, so that the
        // threads take turns at the queue and each job runs unlocked.
        let job = match jobs.lock() {
            Ok(receiver) => receiver.recv(),
            Err(poisoned) => poisoned.into_inner().recv(),
        };
        match job {
            Ok(job) => job(),
            Err(_) => return,
        }
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

fn hasher(cost: PasswordCost) -> Argon2<'static> {
    // The parameters are checked once when the server's settings are read
    // (`Config::validate`), so they are valid here.
    let params = Params::new(cost.memory_kib, cost.iterations, 1, None).unwrap_or_default();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

#[cfg(test)]
mod tests {
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
        assert!(
            passwords
                .verify(hash.clone(), "correct horse".into())
                .await
                .unwrap()
        );
        assert!(!passwords.verify(hash, "wrong horse".into()).await.unwrap());
        assert!(!passwords.verify("not a hash".into(), "x".into()).await.unwrap());
    }

    #[tokio::test]
    async fn requests_beyond_the_queue_are_refused_as_busy() {
        let passwords = Passwords::start(CHEAP);
        // Hold every hashing thread, then fill the queue behind them.
        let (release, held) = std::sync::mpsc::channel::<()>();
        let held = Arc::new(Mutex::new(held));
        let threads = passwords.queue.clone();
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let count = (cores / 2).max(1);
        let (started, starting) = std::sync::mpsc::channel::<()>();
        for _ in 0..count {
            let (held, started) = (held.clone(), started.clone());
            threads
                .try_send(Box::new(move || {
                    started.send(()).unwrap();
                    let _ = held.lock().unwrap().recv();
                }))
                .unwrap();
        }
        for _ in 0..count {
            starting.recv().unwrap();
        }
        for _ in 0..count * WAITING_PER_THREAD {
            let job: Job = Box::new(|| {});
            threads.try_send(job).unwrap();
        }
        let refused = passwords.hash("one too many".into()).await.unwrap_err();
        assert_eq!(refused.code, "busy");
        assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
        // Once the threads are free and have emptied the queue (one job
        // that signals when it runs, queued behind the others, shows it),
        // hashing works again.
        for _ in 0..count {
            release.send(()).unwrap();
        }
        let (drained, draining) = tokio::sync::oneshot::channel::<()>();
        let mut marker: Job = Box::new(move || {
            let _ = drained.send(());
        });
        loop {
            match threads.try_send(marker) {
                Ok(()) => break,
                Err(TrySendError::Full(back)) => marker = back,
                Err(TrySendError::Disconnected(_)) => panic!("the hashing threads are gone"),
            }
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
        draining.await.unwrap();
        let hash = passwords.hash("afterwards".into()).await.unwrap();
        assert!(passwords.verify(hash, "afterwards".into()).await.unwrap());
    }
}
