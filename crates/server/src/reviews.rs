//! Reviews of finished games by the expert bot, worked out one at a time on
//! a thread of the lowest priority, so that the tables' bots and players
//! always come first, and kept in the store once done.
//!
//! At most [`QUEUE`] reviews wait on a server; asking for more is refused
//! as busy. A review waiting or being worked out is known to this server
//! only: asking another node of a cluster for it queues it there too, and
//! whichever finishes first is kept (they are the same, being repeatable).

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use spades_bots::expert::review::{REVIEW_SAMPLES, review};
use spades_engine::{Action, RuleSet, Seat};
use spades_protocol::review::{GameReview, ReviewMark, ReviewPending};
use spades_store::Store;
use uuid::Uuid;

/// Reviews that may wait on one server, the one being worked out included.
pub const QUEUE: usize = 16;

/// A player's review: the game and his seat.
pub type ReviewKey = (Uuid, u8);

/// What a review is worked out from.
pub struct ReviewJob {
    pub key: ReviewKey,
    /// Who asked: one player has one review waiting at a time.
    pub asker: Uuid,
    pub rules: RuleSet,
    pub seed: u64,
    pub actions: Vec<(Seat, Action)>,
}

#[derive(Default)]
struct State {
    waiting: VecDeque<ReviewJob>,
    working: Option<ReviewKey>,
    /// Reviews whose game could not be replayed: a damaged record.
    failed: HashSet<ReviewKey>,
    closed: bool,
}

struct Shared {
    state: Mutex<State>,
    arrived: Condvar,
}

/// The server's review queue and its worker.
pub struct Reviews {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Reviews {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reviews").finish_non_exhaustive()
    }
}

/// Why a review was not queued.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// [`QUEUE`] reviews wait already.
    Full,
    /// The asker has another review waiting.
    OneAtATime,
}

/// Where a review stands on this server.
#[derive(Debug, PartialEq, Eq)]
pub enum Standing {
    Pending(ReviewPending),
    Failed,
    Unknown,
}

impl Reviews {
    /// Starts the worker; it stores each review in `store` when done. Must
    /// be called inside a Tokio runtime.
    pub fn start(store: Store) -> Reviews {
        let shared = Arc::new(Shared {
            state: Mutex::default(),
            arrived: Condvar::new(),
        });
        let runtime = tokio::runtime::Handle::current();
        let worker = shared.clone();
        std::thread::Builder::new()
            .name("reviews".into())
            .spawn(move || work(&worker, &store, &runtime))
            .expect("the review thread starts");
        Reviews { shared }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.shared
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Where the review of `key` stands on this server.
    pub fn standing(&self, key: ReviewKey) -> Standing {
        let state = self.state();
        if state.failed.contains(&key) {
            return Standing::Failed;
        }
        if state.working == Some(key) {
            return Standing::Pending(ReviewPending {
                status: "working".into(),
                ahead: 0,
            });
        }
        match state.waiting.iter().position(|job| job.key == key) {
            Some(place) => Standing::Pending(ReviewPending {
                status: "queued".into(),
                ahead: (place + usize::from(state.working.is_some())) as u32,
            }),
            None => Standing::Unknown,
        }
    }

    /// Queues a review, unless the queue is full or its asker has another
    /// one waiting.
    pub fn ask(&self, job: ReviewJob) -> Result<ReviewPending, Refused> {
        let mut state = self.state();
        if state.waiting.iter().any(|waiting| waiting.asker == job.asker) {
            return Err(Refused::OneAtATime);
        }
        let busy = state.waiting.len() + usize::from(state.working.is_some());
        if busy >= QUEUE {
            return Err(Refused::Full);
        }
        state.waiting.push_back(job);
        drop(state);
        self.shared.arrived.notify_one();
        Ok(ReviewPending {
            status: "queued".into(),
            ahead: busy as u32,
        })
    }
}

impl Drop for Reviews {
    fn drop(&mut self) {
        self.state().closed = true;
        self.shared.arrived.notify_all();
    }
}

/// Works out the reviews one at a time until the queue closes, at the
/// lowest priority the system gives.
fn work(shared: &Shared, store: &Store, runtime: &tokio::runtime::Handle) {
    if let Err(error) = thread_priority::set_current_thread_priority(thread_priority::ThreadPriority::Min) {
        tracing::warn!(?error, "cannot lower the priority of the review thread");
    }
    loop {
        let job = {
            let mut state = shared
                .state
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            loop {
                if state.closed {
                    return;
                }
                if let Some(job) = state.waiting.pop_front() {
                    state.working = Some(job.key);
                    break job;
                }
                state = shared
                    .arrived
                    .wait(state)
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
            }
        };
        let key = job.key;
        let done = work_out(job);
        let stored = match &done {
            Some(review) => {
                let value = serde_json::to_value(review).expect("a review serializes");
                runtime.block_on(store.save_review(key.0, key.1, &value)).is_ok()
            }
            None => false,
        };
        let mut state = shared
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        state.working = None;
        if done.is_none() {
            state.failed.insert(key);
        } else if !stored {
            tracing::warn!(game = %key.0, "a review could not be stored; it will be worked out again when asked");
        }
    }
}

/// The expert's review of one seat, as the API gives it; `None` when the
/// game's record cannot be replayed.
fn work_out(job: ReviewJob) -> Option<GameReview> {
    let (game_id, seat) = job.key;
    let found = review(
        job.rules,
        job.seed,
        &job.actions,
        Seat::new(seat)?,
        REVIEW_SAMPLES,
    );
    let found = match found {
        Ok(found) => found,
        Err(error) => {
            tracing::error!(game = %game_id, %error, "a stored game could not be replayed for its review");
            return None;
        }
    };
    Some(GameReview {
        game_id,
        seat,
        level: "expert".into(),
        decisions: found.decisions,
        marks: found
            .marks
            .into_iter()
            .map(|mark| ReviewMark {
                hand: mark.hand,
                trick: mark.trick,
                played: mark.played.to_string(),
                better: mark.better.to_string(),
                // Two decimals are all a player reads.
                loss: (mark.loss * 100.0).round() / 100.0,
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A queue whose worker never starts, so that what waits stays.
    fn idle() -> Reviews {
        Reviews {
            shared: Arc::new(Shared {
                state: Mutex::default(),
                arrived: Condvar::new(),
            }),
        }
    }

    fn job(n: u8) -> ReviewJob {
        ReviewJob {
            key: (Uuid::nil(), n),
            asker: Uuid::from_u128(u128::from(n)),
            rules: RuleSet::CLASSIC,
            seed: 1,
            actions: Vec::new(),
        }
    }

    #[test]
    fn the_queue_holds_its_number_and_says_each_place() {
        let reviews = idle();
        for n in 0..QUEUE as u8 {
            let pending = reviews.ask(job(n)).expect("a place");
            assert_eq!(pending.ahead, u32::from(n));
        }
        assert_eq!(reviews.ask(job(200)), Err(Refused::Full), "the queue is full");
        let again = ReviewJob {
            key: (Uuid::from_u128(1), 0),
            ..job(3)
        };
        assert_eq!(
            reviews.ask(again),
            Err(Refused::OneAtATime),
            "one review at a time"
        );
        let third = reviews.standing((Uuid::nil(), 2));
        assert_eq!(
            third,
            Standing::Pending(ReviewPending {
                status: "queued".into(),
                ahead: 2
            })
        );
        assert_eq!(reviews.standing((Uuid::nil(), 200)), Standing::Unknown);
    }

    #[test]
    fn a_review_lists_the_marks_in_the_documented_form() {
        // A game of one hand in which seat 0 plays its cards from the
        // lowest: the expert has something to say about it.
        let mut game = spades_engine::Game::new(RuleSet::CLASSIC, 9).unwrap();
        let mut actions = Vec::new();
        while game.hand_number() == 0 {
            let seat = game.first_to_act().unwrap();
            let action = match game.legal(seat) {
                spades_engine::Legal::Bid(_) => Action::Bid(spades_engine::Bid::Tricks(3)),
                spades_engine::Legal::Play(cards) if seat.index() == 0 => {
                    Action::Play(cards.highest().unwrap())
                }
                spades_engine::Legal::Play(cards) => Action::Play(cards.lowest().unwrap()),
                other => panic!("{other:?}"),
            };
            game.apply(seat, action).unwrap();
            actions.push((seat, action));
        }
        let key = (Uuid::from_u128(7), 0);
        let review = work_out(ReviewJob {
            key,
            asker: Uuid::nil(),
            rules: RuleSet::CLASSIC,
            seed: 9,
            actions,
        })
        .expect("the game replays");
        assert_eq!((review.game_id, review.seat), key);
        assert!(review.decisions > 5);
        for mark in &review.marks {
            assert!(
                mark.played.starts_with("bid ") || mark.played.starts_with("play "),
                "{mark:?}"
            );
            assert!(mark.better.starts_with(&mark.played[..4]), "{mark:?}");
            assert!(mark.loss >= 10.0, "{mark:?}");
        }
    }
}
