//! The game journal: every write a table makes goes through one task (on
//! SQLite, one thread) that stores them in batches, so that many tables'
//! actions share a transaction.
//!
//! A room hands over its writes and waits for the answer before it sends
//! the events they caused, so an action that players have seen is stored.
//! When the database fails, the journal holds the writes in memory, in
//! order, answers `Held` so that play goes on, marks the server degraded,
//! and retries until the database is back; then everything held is written
//! before anything newer.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use spades_store::{Backend, Store, StoreError, Write};

use crate::metrics::JournalMetrics;
use tokio::sync::{mpsc, oneshot};

/// How often held writes are retried.
const RETRY_EVERY: Duration = Duration::from_millis(500);

/// The most writes stored in one transaction.
const MAX_BATCH: usize = 4096;

/// A batch that takes longer than this to store is reported in the log:
/// every room in it held back its players' events for that long.
const SLOW_BATCH: Duration = Duration::from_millis(200);

/// Slow batches are reported at most this often, so that a disk that
/// stays slow does not flood the log as well.
const SLOW_REPORT_EVERY: Duration = Duration::from_secs(60);

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
    metrics: JournalMetrics,
}

impl Journal {
    /// Starts the journal. It ends at [`Journal::stop`] or when every
    /// handle is dropped; writes it still holds for a database that is down
    /// are lost then, which the server reports.
    pub fn spawn(store: Store) -> (Journal, tokio::task::JoinHandle<()>) {
        let (requests, receiver) = mpsc::unbounded_channel();
        let degraded = Arc::new(AtomicBool::new(false));
        let metrics = JournalMetrics::default();
        let backend = store.backend();
        let own_thread = backend == Backend::Sqlite;
        let journal = run(store, receiver, degraded.clone(), metrics.clone(), own_thread);
        let task = match backend {
            // On SQLite the journal writes on a thread of its own (see
            // `JournalWriter`), which spares each batch a trip to another
            // thread and back; rooms wake that thread directly.
            Backend::Sqlite => {
                let runtime = tokio::runtime::Handle::current();
                tokio::task::spawn_blocking(move || runtime.block_on(journal))
            }
            // Postgres is reached through sockets that the runtime's
            // workers poll: there the journal is best off as their task.
            Backend::Postgres => tokio::spawn(journal),
        };
        (
            Journal {
                requests,
                degraded,
                metrics,
            },
            task,
        )
    }

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
        self.metrics.record_wait(started.elapsed());
        durability
    }

    /// Ends the journal once it has stored what it was given before. Later
    /// commits are answered `Held` and never stored.
    pub fn stop(&self) {
        let _ = self.requests.send(Request::Stop);
    }

    pub fn metrics(&self) -> &JournalMetrics {
        &self.metrics
    }

    /// True while writes are being held because the database failed.
    pub fn is_degraded(&self) -> bool {
        self.degraded.load(Ordering::Relaxed)
    }
}

/// A retry of held writes, running while new commits keep arriving: it
/// answers how many of the oldest held commits it tried, how many writes
/// they held, and how it went.
type Attempt =
    std::pin::Pin<Box<dyn std::future::Future<Output = (usize, usize, Result<(), StoreError>)> + Send>>;

/// Held writes are kept by commit, so that a commit whose room has a new
/// owner by the time the database is back can be left out whole.
fn retry_held(store: &Store, held: &VecDeque<Vec<Write>>) -> Attempt {
    let store = store.clone();
    let mut take = 0;
    let mut count = 0;
    for commit in held {
        if take > 0 && count + commit.len() > MAX_BATCH {
            break;
        }
        take += 1;
        count += commit.len();
    }
    let chunk: Vec<Write> = held.iter().take(take).flatten().cloned().collect();
    Box::pin(async move { (take, count, store.write(&chunk).await) })
}

/// The room whose fence opens a commit's writes, if they have one.
fn fenced_room(writes: &[Write]) -> Option<&str> {
    match writes.first() {
        Some(Write::Fence { room, .. }) => Some(room),
        _ => None,
    }
}

/// A batch being stored: every commit's writes in order, and where each
/// commit's writes lie among them with the room waiting for its answer.
struct Batch {
    writes: Vec<Write>,
    commits: Vec<(std::ops::Range<usize>, oneshot::Sender<Durability>)>,
}

impl Batch {
    fn new(commits: Vec<Commit>, count: usize) -> Batch {
        let mut writes = Vec::with_capacity(count);
        let mut ranges = Vec::with_capacity(commits.len());
        for commit in commits {
            let start = writes.len();
            writes.extend(commit.writes);
            ranges.push((start..writes.len(), commit.done));
        }
        Batch {
            writes,
            commits: ranges,
        }
    }

    /// Answers `Fenced` to the commits of the rooms the store refused and
    /// takes their writes out, keeping the others for another try.
    fn drop_fenced(&mut self, rooms: &[String]) {
        let mut writes = std::mem::take(&mut self.writes).into_iter();
        let mut kept = Vec::new();
        let mut commits = Vec::with_capacity(self.commits.len());
        for (range, done) in std::mem::take(&mut self.commits) {
            let part: Vec<Write> = writes.by_ref().take(range.len()).collect();
            if fenced_room(&part).is_some_and(|room| rooms.iter().any(|r| r == room)) {
                let _ = done.send(Durability::Fenced);
            } else {
                let start = kept.len();
                kept.extend(part);
                commits.push((start..kept.len(), done));
            }
        }
        self.writes = kept;
        self.commits = commits;
    }

    /// Each commit's writes, for holding while the database is down.
    fn into_parts(self) -> (Vec<Vec<Write>>, Vec<oneshot::Sender<Durability>>) {
        let mut writes = self.writes.into_iter();
        self.commits
            .into_iter()
            .map(|(range, done)| (writes.by_ref().take(range.len()).collect(), done))
            .unzip()
    }
}

async fn run(
    store: Store,
    mut requests: mpsc::UnboundedReceiver<Request>,
    degraded: Arc<AtomicBool>,
    metrics: JournalMetrics,
    own_thread: bool,
) {
    let mut writer = store.journal_writer();
    let mut slow = SlowBatches::default();
    let mut held: VecDeque<Vec<Write>> = VecDeque::new();
    let mut attempt: Option<Attempt> = None;
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
                let mut batch = vec![first];
                let mut count = batch[0].writes.len();
                let mut stopping = false;
                while count < MAX_BATCH {
                    match requests.try_recv() {
                        Ok(Request::Commit(commit)) => {
                            count += commit.writes.len();
                            batch.push(commit);
                        }
                        Ok(Request::Stop) => {
                            stopping = true;
                            break;
                        }
                        Err(_) => break,
                    }
                }
                let mut batch = Batch::new(batch, count);
                let durability = if held.is_empty() {
                    let began = Instant::now();
                    loop {
                        match writer.write(&batch.writes).await {
                            Ok(()) => {
                                metrics.record_batch(batch.writes.len());
                                let now = Instant::now();
                                if let Some(report) = slow.record(now - began, now) {
                                    report.log(batch.writes.len());
                                }
                                break Durability::Stored;
                            }
                            // Rare: a room that lost its ownership. Its
                            // commits are refused; the rest of the batch is
                            // stored at once without them.
                            Err(StoreError::Fenced(rooms)) => {
                                tracing::warn!(?rooms, "refused writes of rooms that were opened again elsewhere");
                                batch.drop_fenced(&rooms);
                                if batch.commits.is_empty() {
                                    break Durability::Stored;
                                }
                            }
                            Err(error) if error.is_transient() => {
                                tracing::error!(%error, "cannot store game writes; holding them and retrying");
                                degraded.store(true, Ordering::Relaxed);
                                break Durability::Held;
                            }
                            Err(error) => {
                                tracing::error!(%error, writes = batch.writes.len(), "the database refused game writes");
                                break Durability::Stored;
                            }
                        }
                    }
                } else {
                    // Newer writes wait behind the held ones to keep their order.
                    Durability::Held
                };
                let (parts, answers) = batch.into_parts();
                if durability == Durability::Held {
                    held.extend(parts);
                }
                for answer in answers {
                    let _ = answer.send(durability);
                }
                if stopping {
                    break;
                }
                // The rooms have their answers: work that no player waits
                // for is done now, a step at a time while no write waits.
                while held.is_empty() && requests.is_empty() {
                    match writer.tidy() {
                        Ok(true) => {}
                        Ok(false) => break,
                        Err(error) => {
                            tracing::warn!(%error, "cannot tidy the journal's log; the next batch will");
                            break;
                        }
                    }
                }
            }
            outcome = async { attempt.as_mut().expect("guarded by the condition").await }, if attempt.is_some() => {
                attempt = None;
                let (tried, writes, result) = outcome;
                match result {
                    Ok(()) => {
                        held.drain(..tried);
                        metrics.record_batch(writes);
                        if held.is_empty() {
                            tracing::info!("the database is back; every held write is stored");
                            degraded.store(false, Ordering::Relaxed);
                        } else {
                            attempt = Some(retry_held(&store, &held));
                        }
                    }
                    Err(StoreError::Fenced(rooms)) => {
                        // Their players were told of these writes while the
                        // database was down; the rooms' new owners replay
                        // what was stored before, and these are lost.
                        tracing::error!(?rooms, "held writes of rooms opened again elsewhere are dropped");
                        let mut index = 0;
                        held.retain(|commit| {
                            index += 1;
                            index > tried || !fenced_room(commit).is_some_and(|room| rooms.iter().any(|r| r == room))
                        });
                        attempt = Some(retry_held(&store, &held));
                    }
                    Err(error) if error.is_transient() => {
                        tracing::debug!(%error, "the database is still unavailable");
                    }
                    Err(error) => {
                        tracing::error!(%error, writes, "the database refused held game writes");
                        held.drain(..tried);
                    }
                }
            }
            _ = retry.tick(), if !held.is_empty() && attempt.is_none() => {
                attempt = Some(retry_held(&store, &held));
            }
        }
    }
}

/// Counts the batches that were slow to store between two reports.
#[derive(Debug, Default)]
struct SlowBatches {
    last_report: Option<Instant>,
    /// Slow batches not reported yet, and the slowest of them.
    count: u32,
    slowest: Duration,
}

/// What a report of slow batches says.
#[derive(Debug, PartialEq, Eq)]
struct SlowReport {
    took: Duration,
    /// Slow batches since the last report, this one included.
    count: u32,
    slowest: Duration,
}

impl SlowBatches {
    /// Notes that a batch took `took` to store; answers a report to log
    /// when it was slow and none was logged in the last minute.
    fn record(&mut self, took: Duration, now: Instant) -> Option<SlowReport> {
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
    fn log(&self, writes: usize) {
        tracing::warn!(
            took_ms = self.took.as_millis() as u64,
            writes,
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

    /// A migrated SQLite store in a fresh file, and a game in it.
    async fn store_with_game() -> (Store, uuid::Uuid) {
        let path = std::env::temp_dir().join(format!("spades-journal-{}.db", uuid::Uuid::new_v4()));
        let store = Store::open(&format!("sqlite:{}", path.display())).await.unwrap();
        store.migrate().await.unwrap();
        let player = uuid::Uuid::new_v4();
        let now = time::OffsetDateTime::now_utc();
        store.create_account(player, "p", None, now).await.unwrap();
        let game = spades_store::NewGame {
            id: uuid::Uuid::new_v4(),
            room: "ROOM01".into(),
            room_name: "journal".into(),
            private: false,
            owner: player,
            number: 0,
            rules: serde_json::json!({}),
            seed: 7,
            players: vec![player; 4],
            started_at: now,
            tournament: None,
        };
        let id = game.id;
        store.write(&[Write::Started(game)]).await.unwrap();
        (store, id)
    }

    fn action(game: uuid::Uuid, index: u32) -> Write {
        Write::Action {
            game,
            index,
            seat: (index % 4) as u8,
            action: "bid 3".into(),
            request_id: None,
            room_seq: u64::from(index) + 1,
        }
    }

    fn commit(writes: Vec<Write>) -> (Request, oneshot::Receiver<Durability>) {
        let (done, answer) = oneshot::channel();
        (Request::Commit(Commit { writes, done }), answer)
    }

    #[tokio::test]
    async fn a_stop_ends_the_journal_after_what_came_before() {
        let (store, game) = store_with_game().await;
        // Everything is queued before the journal runs, so that the stop
        // comes in the same batch as the commits before it.
        let (requests, receiver) = mpsc::unbounded_channel();
        let (first, first_answer) = commit(vec![action(game, 0)]);
        let (second, second_answer) = commit(vec![action(game, 1)]);
        let (late, late_answer) = commit(vec![action(game, 2)]);
        for request in [first, second, Request::Stop, late] {
            assert!(requests.send(request).is_ok());
        }
        let metrics = JournalMetrics::default();
        // It returns although a sender is still alive.
        let journal = run(store.clone(), receiver, Arc::default(), metrics.clone(), false);
        tokio::time::timeout(Duration::from_secs(5), journal)
            .await
            .expect("the journal returns at the stop");
        assert_eq!(first_answer.await, Ok(Durability::Stored));
        assert_eq!(second_answer.await, Ok(Durability::Stored));
        assert!(
            late_answer.await.is_err(),
            "a commit after the stop is never answered"
        );
        let stored = store.unfinished_games().await.unwrap();
        assert_eq!(stored[0].actions.len(), 2);
        assert_eq!(metrics.writes.get(), 2);
        assert_eq!(metrics.transactions.get(), 1, "one batch");
    }

    #[tokio::test]
    async fn a_room_opened_again_elsewhere_is_refused_and_the_rest_of_its_batch_stored() {
        let (store, game) = store_with_game().await;
        let old = store.open_room("ROOM01", 10).await.unwrap();
        // Another node opens the room again; another room's owner is current.
        store.open_room("ROOM01", 10).await.unwrap();
        let other = store.open_room("ROOM02", 10).await.unwrap();
        let fence = |room: &str, epoch: u64| Write::Fence {
            room: room.into(),
            epoch,
        };
        let (requests, receiver) = mpsc::unbounded_channel();
        let (stale, stale_answer) = commit(vec![fence("ROOM01", old.epoch), action(game, 0)]);
        let (current, current_answer) = commit(vec![fence("ROOM02", other.epoch), action(game, 1)]);
        for request in [stale, current, Request::Stop] {
            assert!(requests.send(request).is_ok());
        }
        let metrics = JournalMetrics::default();
        run(store.clone(), receiver, Arc::default(), metrics.clone(), false).await;
        assert_eq!(stale_answer.await, Ok(Durability::Fenced));
        assert_eq!(current_answer.await, Ok(Durability::Stored));
        let stored = &store.unfinished_games().await.unwrap()[0];
        let seqs: Vec<Option<u64>> = stored.actions.iter().map(|a| a.room_seq).collect();
        assert_eq!(seqs, [Some(2)], "only the current owner's action is stored");
    }

    #[tokio::test]
    async fn a_stopped_journal_ends_its_task() {
        let (store, game) = store_with_game().await;
        let (journal, task) = Journal::spawn(store.clone());
        assert_eq!(journal.commit(vec![action(game, 0)]).await, Durability::Stored);
        journal.stop();
        tokio::time::timeout(Duration::from_secs(5), task)
            .await
            .expect("the journal ends once stopped")
            .unwrap();
        // After the stop nothing is stored, and the room is told so.
        assert_eq!(journal.commit(vec![action(game, 1)]).await, Durability::Held);
        assert_eq!(store.unfinished_games().await.unwrap()[0].actions.len(), 1);
    }
}
