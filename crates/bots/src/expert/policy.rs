//! The expert's habits: the basic bot's play with the blunders players
//! complain about taken out. It is the policy the expert's look-ahead
//! finishes every hand with, and the set of cards it compares.

use spades_engine::{Action, Card, CardSet, Legal, Seat, Suit};

use crate::basic;
use crate::knowledge::{Knowledge, beats};

/// The action of the expert's habits: the basic bot's bids and passes, and
/// its card chosen among the [`sensible`] ones.
pub fn decide(k: &Knowledge, legal: Legal) -> Option<Action> {
    match legal {
        Legal::Play(cards) if cards.len() > 1 => basic::choose_play(k, sensible(k, cards)).map(Action::Play),
        _ => basic::decide(k, legal),
    }
}

/// The legal cards that are not a blunder a good player never makes, or
/// all of them when every card is one:
///
/// - beating a partner whose card will win the trick anyway (he is last
///   but one, or holds the top card of a plain suit nobody after can trump),
///   unless he bid nil and must be covered;
/// - staying under a partner on nil who is winning, when a card can beat him;
/// - beating an opponent on nil who is winning the trick;
/// - taking a trick nobody needs once both contracts are made (or the
///   opponents' is lost), while a bag costs points.
pub fn sensible(k: &Knowledge, legal: CardSet) -> CardSet {
    let (Some((winner, winning)), Some(led)) = (k.trick.winner(), k.trick.led()) else {
        return legal;
    };
    let over: CardSet = legal.iter().filter(|&card| beats(card, winning, led)).collect();
    let under = legal - over;
    let keep = |cards: CardSet| if cards.is_empty() { legal } else { cards };
    let partner_nil = k.partner().is_some_and(|partner| k.nil_alive(partner));
    if k.is_partner(winner) {
        if partner_nil {
            return keep(over);
        }
        if partner_wins_anyway(k, winning, led) {
            return keep(under);
        }
    }
    if k.is_opponent(winner) && k.nil_alive(winner) && !partner_nil {
        return keep(under);
    }
    if bags_only(k) {
        return keep(under);
    }
    legal
}

/// Whether the partner's `winning` card will take the trick if this seat
/// stays under it: nobody after can beat it, or it is the top card of a
/// plain suit led and the player after is not known to lack that suit.
fn partner_wins_anyway(k: &Knowledge, winning: Card, led: Suit) -> bool {
    if k.trick.still_to_play().next().is_none() || k.wins_for_sure(winning) {
        return true;
    }
    let plain_top = !winning.is_spade() && winning.suit() == led && k.is_top(winning);
    plain_top
        && k.trick
            .still_to_play()
            .all(|seat: Seat| !k.void[seat].contains(led))
}

/// Whether every trick this seat's team takes from now on is only a bag:
/// its contract is made, the opponents' is made or beyond saving (so there
/// is no setting them), nobody's nil is alive, and bags cost points.
pub fn bags_only(k: &Knowledge) -> bool {
    if k.rules.bag_penalty <= 0 || k.rules.bag_limit <= 0 || k.is_unbid_hand() {
        return false;
    }
    let left = k.tricks_left();
    let ours_made = k.need(k.team()) == 0 && k.contract(k.team()) > 0;
    let theirs_settled = k.opponents().all(|team| {
        let need = k.need(team);
        need == 0 || need > left
    });
    let nil_alive = k.rules.seating().seats().any(|seat| k.nil_alive(seat));
    ours_made && theirs_settled && !nil_alive
}
