//! The blunders players complain about in a partner, counted as a player
//! would see them: each rate is the times the blunder was made over the
//! times the player had the chance to make it (or, for the good habits,
//! to keep them).

use spades_bots::expert::policy;
use spades_bots::knowledge::{Knowledge, beats};
use spades_engine::{Card, CardSet, Game, Seat, Suit};

/// How often something happened out of the times it could have.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Rate {
    pub times: u64,
    pub chances: u64,
}

impl Rate {
    fn count(&mut self, happened: bool) {
        self.times += u64::from(happened);
        self.chances += 1;
    }

    pub fn add(&mut self, other: Rate) {
        self.times += other.times;
        self.chances += other.chances;
    }

    /// The rate in percent; `None` without a chance.
    pub fn percent(self) -> Option<f64> {
        (self.chances > 0).then(|| 100.0 * self.times as f64 / self.chances as f64)
    }
}

/// One player's record of blunders and good habits.
#[derive(Clone, Copy, Default, Debug)]
pub struct Habits {
    /// Third to play and void in the suit led, with the partner winning
    /// with the best card left of that suit: trumped it.
    pub trumped_partner: Rate,
    /// Last to play with the partner winning (and not on nil): beat him.
    pub overtook_partner: Rate,
    /// Both contracts made, no nil alive, a card that ducks in hand: took
    /// the trick all the same.
    pub needless_bag: Rate,
    /// The partner on nil winning the trick, a card that beats him in
    /// hand: played one.
    pub covered_nil: Rate,
    /// An opponent on nil winning the trick, a card under him in hand:
    /// stayed under.
    pub stayed_under_nil: Rate,
}

impl Habits {
    pub fn add(&mut self, other: &Habits) {
        self.trumped_partner.add(other.trumped_partner);
        self.overtook_partner.add(other.overtook_partner);
        self.needless_bag.add(other.needless_bag);
        self.covered_nil.add(other.covered_nil);
        self.stayed_under_nil.add(other.stayed_under_nil);
    }
}

/// A card that may turn out to be a needless bag once its trick is done.
#[derive(Clone, Copy, Debug)]
pub struct Pending {
    seat: Seat,
    hand: u32,
    trick: usize,
}

/// Notes what a play tells about the player's habits. `k` is what the
/// player knew when it chose `card` from `legal`. Returns the play when
/// whether it was a needless bag is known only at the end of the trick.
pub fn note_play(k: &Knowledge, legal: CardSet, card: Card, habits: &mut Habits) -> Option<Pending> {
    let (Some((winner, winning)), Some(led)) = (k.trick.winner(), k.trick.led()) else {
        return None;
    };
    let over: CardSet = legal.iter().filter(|&other| beats(other, winning, led)).collect();
    let under = legal - over;
    let beat = over.contains(card);
    let partner_nil = k.partner().is_some_and(|partner| k.nil_alive(partner));
    if k.is_partner(winner) && !partner_nil {
        let void = legal.in_suit(led).is_empty();
        let best = !winning.is_spade() && winning.suit() == led && k.is_top(winning);
        let could_discard = !(legal - CardSet::suit(Suit::Spades)).is_empty();
        if k.trick.len() == 2 && void && best && could_discard {
            habits.trumped_partner.count(card.is_spade());
        }
        if k.trick.still_to_play().next().is_none() && !under.is_empty() {
            habits.overtook_partner.count(beat);
        }
    }
    if k.is_partner(winner) && partner_nil && !over.is_empty() {
        habits.covered_nil.count(beat);
    }
    if k.is_opponent(winner) && k.nil_alive(winner) && !under.is_empty() {
        habits.stayed_under_nil.count(!beat);
    }
    if both_contracts_made(k) && !under.is_empty() {
        if !beat {
            habits.needless_bag.count(false);
            return None;
        }
        return Some(Pending {
            seat: k.seat,
            hand: k.hand_number,
            trick: usize::from(k.tricks_done),
        });
    }
    None
}

/// Both partnerships' contracts made, no nil alive, and bags costing
/// points: every trick from now on is only a bag for whoever takes it.
fn both_contracts_made(k: &Knowledge) -> bool {
    policy::bags_only(k) && k.opponents().all(|team| k.need(team) == 0)
}

/// Settles a pending play once its trick is done: a needless bag if the
/// player took the trick. Returns the play again while its trick goes on.
pub fn settle(pending: Pending, game: &Game, habits: &mut Habits) -> Option<Pending> {
    let winner = if game.hand_number() == pending.hand {
        game.tricks().get(pending.trick).map(|trick| trick.winner)
    } else {
        game.last_hand()
            .and_then(|record| record.tricks.get(pending.trick))
            .map(|trick| trick.winner)
    };
    match winner {
        Some(winner) => {
            habits.needless_bag.count(winner == pending.seat);
            None
        }
        None => Some(pending),
    }
}
