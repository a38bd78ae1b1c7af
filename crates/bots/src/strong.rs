//! The strong bot: it plays each card by looking ahead.
//!
//! For a decision in play it deals the cards it has not seen in many ways
//! that agree with what it knows and with how the others bid
//! ([`sample_plausible`]), plays each of its
//! candidate cards in every such deal, finishes the hand with the basic
//! bot in all four seats, and keeps the card whose hands ended best for its
//! team on average. Bids and passes are the basic bot's.

use std::time::{Duration, Instant};

use spades_engine::{Action, Card, CardSet, Game, GameRng, Legal, Team, View, Viewer};

use crate::Player;
use crate::basic;
use crate::knowledge::Knowledge;
use crate::sample::sample_plausible;

/// How much work the strong bot may put into one decision.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Budget {
    /// Deals to look ahead on.
    pub samples: u32,
    /// Stop sampling once this much time has gone, if set. A bot bounded by
    /// time alone is not repeatable, so simulations leave this unset.
    pub time: Option<Duration>,
}

impl Budget {
    /// What `simulate` and the tests use: a fixed number of deals, so that
    /// a seed replays.
    pub const REPEATABLE: Budget = Budget {
        samples: 40,
        time: None,
    };

    /// What the server uses at a table: as many deals, but never more than
    /// a quarter of a second, whatever the machine's load.
    pub const SERVER: Budget = Budget {
        samples: 40,
        time: Some(Duration::from_millis(250)),
    };
}

/// Random deals tried for each one looked ahead on, keeping those that fit
/// the bids (see [`sample_plausible`]).
const PLAUSIBLE_TRIES: u32 = 20;

/// The strong bot, with its own generator for its guesses.
#[derive(Clone, Debug)]
pub struct StrongBot {
    rng: GameRng,
    budget: Budget,
}

impl StrongBot {
    pub fn new(seed: u64, budget: Budget) -> StrongBot {
        StrongBot {
            rng: GameRng::new(seed),
            budget,
        }
    }

    /// The strong bot's action for a seat that knows `k` and may do
    /// `legal`: the basic bot's, except for a card to play.
    pub fn decide(&mut self, k: &Knowledge, legal: Legal) -> Option<Action> {
        match legal {
            Legal::Play(cards) if cards.len() > 1 => self.play(k, cards).map(Action::Play),
            _ => basic::decide(k, legal),
        }
    }

    fn play(&mut self, k: &Knowledge, legal: CardSet) -> Option<Card> {
        let candidates = distinct_plays(k, legal);
        let fallback = basic::choose_play(k, legal)?;
        // A hand without bids cannot be written out as a position (which
        // names the bids), so there is nothing to sample: the basic bot's
        // card it is.
        if candidates.len() <= 1 || k.is_unbid_hand() {
            return Some(fallback);
        }
        let team = k.team();
        let totals = look_ahead(k, &mut self.rng, self.budget, &candidates, |ahead| {
            f64::from(finish_hand(ahead, team))
        });
        // A guess disagrees with what was seen: a bug in the sampler. The
        // basic bot's card is still a sound play.
        let Some(totals) = totals else {
            return Some(fallback);
        };
        // The best average; among equals, the card the basic bot would play
        // (its plan), or else the lowest.
        let best = totals.iter().copied().fold(f64::MIN, f64::max);
        let tied: Vec<Card> = candidates
            .iter()
            .zip(&totals)
            .filter(|&(_, &total)| total == best)
            .map(|(&card, _)| card)
            .collect();
        let basic_equivalent = tied
            .iter()
            .copied()
            .find(|&card| card == fallback || same_run(k, card, fallback));
        basic_equivalent.or_else(|| tied.first().copied())
    }
}

impl Player for StrongBot {
    fn act(&mut self, view: &View<'_>) -> Option<Action> {
        self.decide(&Knowledge::new(view)?, view.legal())
    }
}

/// Plays out the rest of the hand with the basic bot in every seat and
/// returns how much better the team did than its opponents on the hand:
/// against the other partnership, or in solo against the other three
/// players' average (scaled by three, to stay in whole points).
fn finish_hand(game: &mut Game, team: Team) -> i32 {
    let hand = game.hand_number();
    while game.hand_number() == hand && !game.is_over() {
        let Some(seat) = game.to_act().first() else {
            break;
        };
        let view = game.view(Viewer::Seat(seat));
        let Some(action) = Knowledge::new(&view).and_then(|k| basic::decide(&k, view.legal())) else {
            break;
        };
        if game.apply(seat, action).is_err() {
            break;
        }
    }
    // Runs for every sample of every candidate card, so it allocates nothing.
    game.last_hand_scores().map_or(0, |scores| {
        let (count, sum) = scores
            .iter()
            .filter(|&(other, _)| other != team)
            .fold((0, 0), |(count, sum), (_, score)| (count + 1, sum + score.change));
        scores[team].change * count - sum
    })
}

/// Plays each of `cards` on up to `budget` guesses at the hidden hands
/// (fewer if its time runs out) and sums what `judge` makes of each game
/// after the card; `None` if a guess or a card is refused, which would be a
/// bug in the sampler.
pub(crate) fn look_ahead(
    k: &Knowledge,
    rng: &mut GameRng,
    budget: Budget,
    cards: &[Card],
    mut judge: impl FnMut(&mut Game) -> f64,
) -> Option<Vec<f64>> {
    let started = Instant::now();
    let mut totals = vec![0f64; cards.len()];
    for sample in 0..budget.samples {
        if sample > 0 && budget.time.is_some_and(|limit| started.elapsed() >= limit) {
            break;
        }
        let hands = sample_plausible(k, rng, PLAUSIBLE_TRIES);
        let position = k.position(hands);
        let game = position.and_then(|position| Game::from_position(k.rules, rng.next_u64(), &position).ok());
        let Some(game) = game else {
            debug_assert!(false, "a sampled position was refused");
            return None;
        };
        for (total, &card) in totals.iter_mut().zip(cards) {
            let mut ahead = game.clone();
            ahead.apply(k.seat, Action::Play(card)).ok()?;
            *total += judge(&mut ahead);
        }
    }
    Some(totals)
}

/// Whether two cards of one suit have no unseen card between them, so that
/// playing either comes to the same thing.
pub(crate) fn same_run(k: &Knowledge, a: Card, b: Card) -> bool {
    if a.suit() != b.suit() {
        return false;
    }
    let (low, high) = if a.order() < b.order() { (a, b) } else { (b, a) };
    !k.unseen
        .in_suit(a.suit())
        .iter()
        .any(|card| card.order() > low.order() && card.order() < high.order())
}

/// The legal cards worth comparing: of several cards in a row of one suit
/// (no unseen card between them), only the lowest.
pub(crate) fn distinct_plays(k: &Knowledge, legal: CardSet) -> Vec<Card> {
    let mut plays: Vec<Card> = Vec::with_capacity(legal.len() as usize);
    for card in legal.iter() {
        if plays.last().is_some_and(|&previous| same_run(k, previous, card)) {
            continue;
        }
        plays.push(card);
    }
    plays
}
