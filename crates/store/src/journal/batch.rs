//! A batch of commits on its way to the store, and the retries of held
//! writes while the database is away.

use std::collections::VecDeque;

use tokio::sync::oneshot;

use super::{Commit, Durability, MAX_BATCH};
use crate::{Store, StoreError, Write};

/// A retry of held writes, running while new commits keep arriving: it
/// answers how many of the oldest held commits it tried, how many writes
/// they held, and how it went.
pub(super) type Attempt =
    std::pin::Pin<Box<dyn std::future::Future<Output = (usize, usize, Result<(), StoreError>)> + Send>>;

/// Held writes are kept by commit, so that a commit whose room has a new
/// owner by the time the database is back can be left out whole.
pub(super) fn retry_held(store: &Store, held: &VecDeque<Vec<Write>>) -> Attempt {
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
pub(super) fn fenced_room(writes: &[Write]) -> Option<&str> {
    match writes.first() {
        Some(Write::Fence { room, .. }) => Some(room),
        _ => None,
    }
}

/// A batch being stored: every commit's writes in order, and where each
/// commit's writes lie among them with the room waiting for its answer.
pub(super) struct Batch {
    pub(super) writes: Vec<Write>,
    pub(super) commits: Vec<(std::ops::Range<usize>, oneshot::Sender<Durability>)>,
}

impl Batch {
    pub(super) fn new(commits: Vec<Commit>, count: usize) -> Batch {
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
    pub(super) fn drop_fenced(&mut self, rooms: &[String]) {
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
    pub(super) fn into_parts(self) -> (Vec<Vec<Write>>, Vec<oneshot::Sender<Durability>>) {
        let mut writes = self.writes.into_iter();
        self.commits
            .into_iter()
            .map(|(range, done)| (writes.by_ref().take(range.len()).collect(), done))
            .unzip()
    }
}
