//! The game journal: every write a table makes goes through one task (on
//! SQLite, one thread) that stores them in batches, so that many tables'
//! actions share a transaction.
//!
//! A room hands over its writes and waits for the answer before it sends
//! the events they caused, so an action that players have seen is stored.
//! When the database fails, the journal holds the writes in memory, in
//! order, answers `Held` so that play goes on, marks itself degraded, and
//! retries until the database is back; then everything held is written
//! before anything newer.
//!
//! The store starts its journal ([`Store::start_journal`]) and chooses
//! where it runs and how it closes, so that the server that uses it knows
//! nothing of the backend behind it.

mod batch;
mod slow;
mod writer;

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot};

use crate::{Backend, Store, StoreError, Write};
use batch::{Attempt, Batch, fenced_room, retry_held};
use slow::SlowBatches;
pub use writer::JournalWriter;

/// How often held writes are retried.
const RETRY_EVERY: Duration = Duration::from_millis(500);

/// On Postgres, how long the journal waits for more commits before it
/// gathers a batch, when the batch before gathered several: a group commit.
///
/// A transaction costs Postgres about half a millisecond of CPU whatever
/// it holds (its log flush, the round trip, the statement's set-up), which
/// at a human pace, with one action per commit, was most of what a hand
/// cost it. Waiting only once commits come faster than they are stored
/// leaves a lone action's confirmation as fast as before. Measured at
/// 3,000 tables (think 500, Postgres on the server's core), a third as
/// many transactions, Postgres's CPU per hand down from 4.1 to 2.4 ms and
/// the server's from 5.1 to 4.3 ms, for a median confirmation 1.7 ms
/// later (3.8 against 2.2 ms) and a lower p99. SQLite commits cost little
/// and keep the journal on a thread of its own, which must not sleep.
const GATHER_WAIT: Duration = Duration::from_millis(1);

/// The most writes stored in one transaction.
const MAX_BATCH: usize = 4096;

/// A batch that takes longer than this to store is reported in the log:
/// every room in it held back its players' events for that long.
const SLOW_BATCH: Duration = Duration::from_millis(200);

/// A batch that takes longer than this is a pause its players may notice;
/// each is logged at the debug level.
const PAUSE: Duration = Duration::from_millis(50);

/// Slow batches are reported at most this often, so that a disk that
/// stays slow does not flood the log as well.
const SLOW_REPORT_EVERY: Duration = Duration::from_secs(60);

/// How long closing waits for the journal, then for the store.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

/// What became of a room's writes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Durability {
    Stored,
    /// The database is unavailable: the writes wait in memory.
    Held,
    /// The room was opened again since its writes were made, on this node
    /// or another, under a newer epoch (see [`Write::Fence`]): they were not
    /// stored, and the room that made them must stop at once.
    Fenced,
}

/// What the journal reports as it works, for the server's metrics. The
/// store has no metrics of its own: whoever starts the journal counts.
pub trait JournalObserver: Send + Sync + std::fmt::Debug + 'static {
    /// One transaction stored `writes` writes.
    fn batch_stored(&self, writes: usize);
    /// A room waited this long for its writes to be stored or held.
    fn commit_waited(&self, wait: Duration);
}

/// An observer that counts nothing.
impl JournalObserver for () {
    fn batch_stored(&self, _: usize) {}
    fn commit_waited(&self, _: Duration) {}
}

struct Commit {
    writes: Vec<Write>,
    done: oneshot::Sender<Durability>,
}

/// What rooms and the server ask of the journal.
enum Request {
    Commit(Commit),
    /// Store what came before, then end: the server is stopping.
    Stop,
}

/// The journal's address. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Journal {
    requests: mpsc::UnboundedSender<Request>,
    degraded: Arc<AtomicBool>,
    observer: Arc<dyn JournalObserver>,
}

/// The running journal, to close with the store once the server is done
/// with both.
#[derive(Debug)]
pub struct JournalTask {
    journal: Journal,
    task: tokio::task::JoinHandle<()>,
    store: Store,
}

impl Store {
    /// Starts the store's journal. It ends at [`JournalTask::close`] or when
    /// every handle is dropped; writes it still holds for a database that
    /// is down are lost then. A store has one journal at a time (see
    /// [`Store::journal_writer`]).
    pub fn start_journal(&self, observer: Arc<dyn JournalObserver>) -> (Journal, JournalTask) {
        let (requests, receiver) = mpsc::unbounded_channel();
        let degraded = Arc::new(AtomicBool::new(false));
        let journal = Journal {
            requests,
            degraded: degraded.clone(),
            observer: observer.clone(),
        };
        let own_thread = self.backend() == Backend::Sqlite;
        let company = if own_thread { Duration::ZERO } else { GATHER_WAIT };
        let run = run(self.clone(), receiver, degraded, observer, own_thread, company);
        let task = if own_thread {
            // On SQLite the journal writes on a thread of its own (see
            // `JournalWriter`), which spares each batch a trip to another
            // thread and back; rooms wake that thread directly.
            let runtime = tokio::runtime::Handle::current();
            tokio::task::spawn_blocking(move || runtime.block_on(run))
        } else {
            // Postgres is reached through sockets that the runtime's
            // workers poll: there the journal is best off as their task.
            tokio::spawn(run)
        };
        let task = JournalTask {
            journal: journal.clone(),
            task,
            store: self.clone(),
        };
        (journal, task)
    }
}

impl JournalTask {
    /// Stores what the journal was given, ends it, then closes the store.
    /// The order matters on SQLite: the journal's own connection must close
    /// before the store's, for the last one closed to fold the log into the
    /// database and remove it, rather than leave it to the next start.
    pub async fn close(self) {
        self.journal.stop();
        if tokio::time::timeout(CLOSE_WAIT, self.task).await.is_err() {
            tracing::warn!("the journal did not stop within 2 s; stopping anyway");
        }
        if tokio::time::timeout(CLOSE_WAIT, self.store.close())
            .await
            .is_err()
        {
            tracing::warn!("the store did not close within 2 s; stopping anyway");
        }
    }
}

impl Journal {
    /// Stores the writes (or holds them if the database is down) and says
    /// which.
    pub async fn commit(&self, writes: Vec<Write>) -> Durability {
        let started = std::time::Instant::now();
        let (done, answer) = oneshot::channel();
        if self
            .requests
            .send(Request::Commit(Commit { writes, done }))
            .is_err()
        {
            return Durability::Held;
        }
        let durability = answer.await.unwrap_or(Durability::Held);
        self.observer.commit_waited(started.elapsed());
        durability
    }

    /// Waits until everything committed before is stored (or held): the
    /// journal answers in order, so an empty commit comes back after them.
    pub async fn flush(&self) {
        self.commit(Vec::new()).await;
    }

    /// Ends the journal once it has stored what it was given before. Later
    /// commits are answered `Held` and never stored.
    fn stop(&self) {
        let _ = self.requests.send(Request::Stop);
    }

    /// True while writes are being held because the database failed.
    pub fn is_degraded(&self) -> bool {
        self.degraded.load(Ordering::Relaxed)
    }
}

/// The journal's loop: gathers the commits that wait into one batch,
/// stores it, and retries held writes while the database is away. After a
/// batch of several commits it waits `company` for more before it gathers
/// the next (see [`GATHER_WAIT`]).
async fn run(
    store: Store,
    mut requests: mpsc::UnboundedReceiver<Request>,
    degraded: Arc<AtomicBool>,
    observer: Arc<dyn JournalObserver>,
    own_thread: bool,
    company: Duration,
) {
    let mut state = Running {
        writer: store.journal_writer(),
        store,
        degraded,
        observer,
        slow: SlowBatches::default(),
        held: VecDeque::new(),
    };
    let mut attempt: Option<Attempt> = None;
    // Whether the last batch gathered more than one commit.
    let mut busy = false;
    let mut retry = tokio::time::interval(RETRY_EVERY);
    retry.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            request = requests.recv() => {
                let Some(Request::Commit(first)) = request else { break };
                if own_thread {
                    // A room's commit wakes this thread at once, and on a
                    // busy core it would then store that commit alone while
                    // the runtime's worker waits with more. Yielding lets
                    // the worker run first if it shares this core, so that
                    // the batch gathers what it has meanwhile; on an idle
                    // core it returns at once.
                    std::thread::yield_now();
                }
                if busy && !company.is_zero() {
                    tokio::time::sleep(company).await;
                }
                let (batch, stopping) = gather(first, &mut requests);
                busy = batch.commits.len() > 1;
                state.store_batch(batch).await;
                if stopping {
                    break;
                }
                // The rooms have their answers: work that no player waits
                // for is done now, a step at a time while no write waits.
                while state.held.is_empty() && requests.is_empty() && state.tidy() {}
            }
            outcome = async { attempt.as_mut().expect("guarded by the condition").await }, if attempt.is_some() => {
                attempt = state.retried(outcome);
            }
            _ = retry.tick(), if !state.held.is_empty() && attempt.is_none() => {
                attempt = Some(retry_held(&state.store, &state.held));
            }
        }
    }
}

/// The first commit and those waiting behind it, up to a batch's worth;
/// and whether a stop came among them.
fn gather(first: Commit, requests: &mut mpsc::UnboundedReceiver<Request>) -> (Batch, bool) {
    let mut count = first.writes.len();
    let mut commits = vec![first];
    while count < MAX_BATCH {
        match requests.try_recv() {
            Ok(Request::Commit(commit)) => {
                count += commit.writes.len();
                commits.push(commit);
            }
            Ok(Request::Stop) => return (Batch::new(commits, count), true),
            Err(_) => break,
        }
    }
    (Batch::new(commits, count), false)
}

/// What the journal's loop keeps between batches.
struct Running {
    store: Store,
    writer: JournalWriter,
    degraded: Arc<AtomicBool>,
    observer: Arc<dyn JournalObserver>,
    slow: SlowBatches,
    /// Commits held while the database is away, oldest first.
    held: VecDeque<Vec<Write>>,
}

impl Running {
    /// Stores a batch, or holds it behind older held writes, and answers
    /// every commit in it.
    async fn store_batch(&mut self, mut batch: Batch) {
        let durability = if self.held.is_empty() {
            self.write(&mut batch).await
        } else {
            // Newer writes wait behind the held ones to keep their order.
            Some(Durability::Held)
        };
        let (parts, answers) = batch.into_parts();
        let Some(durability) = durability else {
            return self.write_each(parts, answers).await;
        };
        if durability == Durability::Held {
            self.held.extend(parts);
        }
        for answer in answers {
            let _ = answer.send(durability);
        }
    }

    /// Writes the commits of a batch that the database refused as a whole
    /// one by one, so that only a commit whose own data is refused is lost,
    /// rather than every room's that shared its transaction.
    async fn write_each(&mut self, parts: Vec<Vec<Write>>, answers: Vec<oneshot::Sender<Durability>>) {
        for (writes, answer) in parts.into_iter().zip(answers) {
            let durability = if !self.held.is_empty() {
                Durability::Held
            } else {
                match self.writer.write(&writes).await {
                    Ok(()) => {
                        self.observer.batch_stored(writes.len());
                        Durability::Stored
                    }
                    Err(StoreError::Fenced(_)) => Durability::Fenced,
                    Err(error) if error.is_transient() => {
                        tracing::error!(%error, "cannot store game writes; holding them and retrying");
                        self.degraded.store(true, Ordering::Relaxed);
                        Durability::Held
                    }
                    Err(error) => {
                        tracing::error!(%error, writes = writes.len(), "the database refused a room's game writes");
                        Durability::Stored
                    }
                }
            };
            if durability == Durability::Held {
                self.held.push_back(writes);
            }
            let _ = answer.send(durability);
        }
    }

    /// Writes a batch: stored, held for a database that is away, or
    /// stored without the commits of rooms that were opened again. `None`
    /// when the database refused the data of a batch of several commits,
    /// which are then written one by one.
    async fn write(&mut self, batch: &mut Batch) -> Option<Durability> {
        let began = Instant::now();
        loop {
            match self.writer.write(&batch.writes).await {
                Ok(()) => {
                    self.observer.batch_stored(batch.writes.len());
                    let now = Instant::now();
                    let took = now - began;
                    if took >= PAUSE {
                        // Every such batch, for whoever looks into pauses:
                        // the warning below comes at most once a minute.
                        tracing::debug!(
                            took_us = took.as_micros() as u64,
                            writes = batch.writes.len(),
                            times = ?self.writer.last_times(),
                            "a batch of game writes held its tables"
                        );
                    }
                    if let Some(report) = self.slow.record(took, now) {
                        report.log(batch.writes.len(), self.writer.last_times());
                    }
                    return Some(Durability::Stored);
                }
                // Rare: a room that lost its ownership. Its commits are
                // refused; the rest of the batch is stored at once without
                // them.
                Err(StoreError::Fenced(rooms)) => {
                    tracing::warn!(?rooms, "refused writes of rooms that were opened again elsewhere");
                    batch.drop_fenced(&rooms);
                    if batch.commits.is_empty() {
                        return Some(Durability::Stored);
                    }
                }
                Err(error) if error.is_transient() => {
                    tracing::error!(%error, "cannot store game writes; holding them and retrying");
                    self.degraded.store(true, Ordering::Relaxed);
                    return Some(Durability::Held);
                }
                Err(_) if batch.commits.len() > 1 => return None,
                Err(error) => {
                    tracing::error!(%error, writes = batch.writes.len(), "the database refused a room's game writes");
                    return Some(Durability::Stored);
                }
            }
        }
    }

    /// One step of tidying the writer's log; false when there is nothing
    /// left to do or it failed (the next batch tries again).
    fn tidy(&mut self) -> bool {
        let began = Instant::now();
        let result = self.writer.tidy();
        let took = began.elapsed();
        if took >= PAUSE {
            // Commits that came meanwhile waited for it, as for a batch.
            tracing::debug!(
                took_us = took.as_micros() as u64,
                "a step of tidying the journal's log held its tables"
            );
        }
        match result {
            Ok(more) => more,
            Err(error) => {
                tracing::warn!(%error, "cannot tidy the journal's log; the next batch will");
                false
            }
        }
    }

    /// Takes in the outcome of a retry of held writes and answers the next
    /// retry to run at once, if any.
    fn retried(
        &mut self,
        (tried, writes, result): (usize, usize, Result<(), StoreError>),
    ) -> Option<Attempt> {
        match result {
            Ok(()) => {
                self.held.drain(..tried);
                self.observer.batch_stored(writes);
                if self.held.is_empty() {
                    tracing::info!("the database is back; every held write is stored");
                    self.degraded.store(false, Ordering::Relaxed);
                    None
                } else {
                    Some(retry_held(&self.store, &self.held))
                }
            }
            Err(StoreError::Fenced(rooms)) => {
                // Their players were told of these writes while the
                // database was down; the rooms' new owners replay what was
                // stored before, and these are lost.
                tracing::error!(?rooms, "held writes of rooms opened again elsewhere are dropped");
                let mut index = 0;
                self.held.retain(|commit| {
                    index += 1;
                    index > tried || !fenced_room(commit).is_some_and(|room| rooms.iter().any(|r| r == room))
                });
                Some(retry_held(&self.store, &self.held))
            }
            Err(error) if error.is_transient() => {
                tracing::debug!(%error, "the database is still unavailable");
                None
            }
            Err(error) => {
                tracing::error!(%error, writes, "the database refused held game writes");
                self.held.drain(..tried);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests;
