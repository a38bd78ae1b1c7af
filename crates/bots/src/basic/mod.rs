//! The basic bot: plain, sound partnership Spades from hand-written rules.
//!
//! Bids count sure and likely tricks; nil is bid with hands that hold no
//! card likely to be forced to win; play follows the habits of a good
//! partner (second hand low, third hand high, win cheaply, cover a
//! partner's nil, attack an opponent's, duck once the contract is made).
//! It has no randomness: the same view always gives the same action.

use spades_engine::{Action, Bid, BidChoices, Bidding, Card, CardSet, Deck, Legal, Rank, Seat, Suit, View};

use crate::Player;
use crate::knowledge::Knowledge;

mod play;

pub use play::choose_play;

/// The basic bot. It keeps no state between decisions: everything comes
/// from the view, so it can take over any seat at any point.
#[derive(Clone, Copy, Debug, Default)]
pub struct BasicBot;

impl Player for BasicBot {
    fn act(&mut self, view: &View<'_>) -> Option<Action> {
        decide(&Knowledge::new(view)?, view.legal())
    }
}

/// The basic bot's action for a seat that knows `k` and may do `legal`;
/// `None` when there is nothing for it to do.
pub fn decide(k: &Knowledge, legal: Legal) -> Option<Action> {
    let action = match legal {
        Legal::Wait | Legal::Look => return None,
        Legal::BlindOrLook(choices) => {
            let lowest_blind = choices.without(BidChoices::NIL).nth(0);
            if choices.has_nil() && wants_blind_nil(k) {
                Action::Bid(Bid::BlindNil)
            } else if let Some(tricks) = lowest_blind.filter(|&tricks| wants_team_blind(k, tricks)) {
                Action::Bid(Bid::Blind(tricks))
            } else {
                Action::LookAtHand
            }
        }
        Legal::Bid(choices) => Action::Bid(fit_bid(k, choose_bid(k), choices)?),
        Legal::Pass { count } => Action::Pass(choose_pass(k, count)),
        Legal::Play(cards) => Action::Play(choose_play(k, cards)?),
    };
    Some(action)
}

// Bidding.

/// How far the bidding estimate is rounded: below one half, so that a hand
/// bids a little under its expected tricks and contracts are made.
pub const BID_ROUNDING: f32 = 0.3;

/// The most nil danger (see [`nil_danger`]) and the most expected tricks
/// with which the first partner to bid in suicide takes the nil himself.
const SUICIDE_NIL_DANGER: u32 = 4;
const SUICIDE_NIL_ESTIMATE: f32 = 3.0;

/// The tricks a hand may be expected to take on its own, with the trumps
/// of `deck` (whose top trumps may be jokers or a raised two).
pub fn estimate_tricks(hand: CardSet, deck: Deck) -> f32 {
    let spades = hand.in_suit(Suit::Spades);
    let length = spades.len() as f32;
    let has = |cards: CardSet, rank: Rank| cards.iter().any(|card| card.rank() == rank);

    let mut honors = 0.0;
    let mut honor_cards = 0.0;
    // The four highest trumps of the pack: the ace down to the jack in the
    // standard pack, the jokers and the raised two above the ace in others.
    let top_trumps = deck.cards().in_suit(Suit::Spades).iter_desc();
    for (card, (sure, min_length)) in top_trumps.zip([(1.0, 1.0), (1.0, 2.0), (0.9, 3.0), (0.5, 4.0)]) {
        if spades.contains(card) {
            honor_cards += 1.0;
            // An honor without enough small spades under it can be caught.
            honors += if length >= min_length { sure } else { sure * 0.35 };
        }
    }
    // Spades beyond the third win once the others have run out.
    let long = (length - 3.0).max(0.0);
    // Spades left over for trumping the side suits the hand is short in.
    let mut spare = (length - honor_cards - long).max(0.0);

    let mut side = 0.0;
    for suit in [Suit::Clubs, Suit::Diamonds, Suit::Hearts] {
        let cards = hand.in_suit(suit);
        let count = cards.len();
        let (ace, king, queen) = (
            has(cards, Rank::Ace),
            has(cards, Rank::King),
            has(cards, Rank::Queen),
        );
        if ace {
            side += match count {
                0..=5 => 1.0,
                6 => 0.6,
                _ => 0.3,
            };
        }
        if king {
            side += match count {
                1 => 0.15,
                2..=4 if ace => 0.9,
                2..=4 => 0.7,
                5 => 0.45,
                _ => 0.2,
            };
        }
        if queen && (3..=4).contains(&count) {
            side += if ace || king { 0.5 } else { 0.25 };
        }
        let shortness: f32 = match count {
            0 => 1.0,
            1 if !ace => 0.6,
            2 => 0.25,
            _ => 0.0,
        };
        let ruffs = shortness.min(spare);
        spare -= ruffs;
        side += ruffs;
    }
    honors + long + side
}

/// Cards of a hand likely to be forced to win a trick: a plain suit is safe
/// when its lowest card is at most a six, its second at most a nine and its
/// third at most a queen; spades must be lower still, and a nil bidder can
/// hardly hold the top three or four of them.
pub fn nil_danger(hand: CardSet) -> u32 {
    let mut danger = 0;
    for suit in Suit::ALL {
        let cards = hand.in_suit(suit);
        let (base, step) = if suit == Suit::Spades { (3, 2) } else { (4, 3) };
        for (i, card) in cards.iter().enumerate() {
            let rank = usize::from(card.order());
            let limit = base + step * i;
            let top_spade = suit == Suit::Spades && rank >= Rank::Queen.index();
            if rank > limit || top_spade {
                danger += 1;
            }
        }
        if suit == Suit::Spades && cards.len() >= 4 {
            danger += cards.len() - 3;
        }
    }
    danger
}

/// The bid for the knowledge's seat.
pub fn choose_bid(k: &Knowledge) -> Bid {
    let seat = k.seat;
    let partner_bid = k.partner().and_then(|partner| k.bids[partner]);
    let estimate = estimate_tricks(k.hand, k.rules.deck);
    let partner_nil = partner_bid.is_some_and(Bid::is_nil);

    // A nil needs a hand with nothing likely to win, and a partner who has
    // not bid nil himself; a card or two beyond that can go in the exchange.
    let allowance = u32::from(k.rules.nil_pass);
    if !partner_nil && estimate < 2.0 && nil_danger(k.hand) <= allowance {
        return Bid::Nil;
    }

    let mut tricks = (estimate + BID_ROUNDING).floor().max(1.0) as u8;
    if partner_nil {
        // Covering a nil means winning tricks with cards that would
        // otherwise be spared: count one more when the hand is strong.
        if estimate >= 3.0 {
            tricks += 1;
        }
    }
    // The last bidder keeps the table's total at the number of tricks or
    // under: more than that and somebody must be set.
    let others: u8 = Seat::ALL
        .into_iter()
        .filter(|&other| other != seat)
        .filter_map(|other| match k.bids[other] {
            // Both opponents hold their team's one blind bid: count it once.
            Some(Bid::Blind(n)) => (other < other.partner()).then_some(n),
            bid => bid.map(Bid::contract),
        })
        .sum();
    let bids_made = Seat::ALL.iter().filter(|&&other| k.bids[other].is_some()).count();
    let (players, all) = (k.rules.seating().seat_count(), k.rules.hand_size());
    if bids_made == players - 1 && others + tricks > all {
        tricks = all.saturating_sub(others).max(1);
    }
    Bid::Tricks(tricks.clamp(1, all))
}

/// The bid the table's rules allow (board, suicide, whiz, mirror, no nil)
/// nearest to the one the hand wants. Nil stays a choice only for a hand
/// that could keep it; otherwise the nearest number is bid.
pub fn fit_bid(k: &Knowledge, wanted: Bid, choices: BidChoices) -> Option<Bid> {
    if choices.contains(wanted) {
        return Some(wanted);
    }
    let numbers = choices.without(BidChoices::NIL);
    if k.rules.bidding == Bidding::Suicide && choices.has_nil() && !numbers.is_empty() {
        return Some(suicide_first_bid(k, numbers));
    }
    let nil_safe = nil_danger(k.hand) <= u32::from(k.rules.nil_pass) + 1;
    let target = match wanted {
        Bid::Tricks(n) | Bid::Blind(n) => n,
        Bid::Nil | Bid::BlindNil => (estimate_tricks(k.hand, k.rules.deck) + BID_ROUNDING)
            .floor()
            .max(1.0) as u8,
    };
    let pool = if choices.has_nil() && (nil_safe || numbers.is_empty()) {
        choices
    } else {
        numbers
    };
    Bid::new(pool.nearest(target)?).ok()
}

/// In suicide the first partner of a team to bid chooses who bids nil,
/// and the other is then held to it whatever he holds. So the choice is
/// between this hand and an unknown one: a hand that would keep a nil
/// about as well as an average hand takes the nil, and a stronger one bids
/// its number (at least the 4 the rule asks for), leaving the nil to the
/// partner.
fn suicide_first_bid(k: &Knowledge, numbers: BidChoices) -> Bid {
    let estimate = estimate_tricks(k.hand, k.rules.deck);
    let danger = nil_danger(k.hand);
    if danger <= SUICIDE_NIL_DANGER && estimate < SUICIDE_NIL_ESTIMATE {
        return Bid::Nil;
    }
    let target = (estimate + BID_ROUNDING).floor().max(1.0) as u8;
    numbers
        .nearest(target)
        .and_then(|n| Bid::new(n).ok())
        .unwrap_or(Bid::Nil)
}

/// Blind nil is worth its risk only to a team far behind or about to lose.
pub fn wants_blind_nil(k: &Knowledge) -> bool {
    if k.partner()
        .is_some_and(|partner| k.bids[partner].is_some_and(Bid::is_nil))
    {
        return false;
    }
    let rules = &k.rules;
    let behind = -k.margin();
    let theirs = k.score[k.team()] + behind;
    let last_hands = rules.max_hands.is_some_and(|limit| k.hand_number + 2 >= limit);
    let late = theirs >= rules.target / 2 || last_hands;
    behind >= 300
        || (behind >= 200 && late)
        || (behind >= 100 && (theirs >= rules.target - 100 || last_hands))
}

/// Whether to bid the team's lowest blind bid, `tricks`, unseen. Two
/// unseen hands take six or seven tricks on average, so a blind 6 or 7 is
/// about an even chance: worth its doubled score only to a team that must
/// catch up, on the same grounds as blind nil.
pub fn wants_team_blind(k: &Knowledge, tricks: u8) -> bool {
    let behind = -k.margin();
    let theirs = k.score[k.team()] + behind;
    let rules = &k.rules;
    let last_hands = rules.max_hands.is_some_and(|limit| k.hand_number + 2 >= limit);
    tricks <= 7 && (behind >= 200 || theirs >= rules.target - 150 || last_hands)
}

// Passing.

/// The cards to give a partner in a nil exchange: a nil bidder sheds what
/// could win a trick; his partner sends back the lowest cards he has.
pub fn choose_pass(k: &Knowledge, count: u8) -> CardSet {
    let nil = k.bids[k.seat].is_some_and(Bid::is_nil);
    let mut cards: Vec<Card> = k.hand.iter().collect();
    if nil {
        cards.sort_by_key(|&card| std::cmp::Reverse(pass_danger(k.hand, card)));
    } else {
        cards.sort_by_key(|&card| (card.order(), card.is_spade()));
    }
    cards.into_iter().take(usize::from(count)).collect()
}

/// How badly a nil bidder wants rid of a card: high cards, with few lower
/// cards of their suit beside them; a high spade most of all, since a
/// spade can only be got rid of under a higher one, while a low spade is
/// the nil bidder's safest card.
pub fn pass_danger(hand: CardSet, card: Card) -> i32 {
    let rank = i32::from(card.order());
    let lower = hand
        .in_suit(card.suit())
        .iter()
        .filter(|other| other.order() < card.order())
        .count() as i32;
    let weight = if card.is_spade() { 3 * rank / 2 } else { rank };
    weight - 3 * lower
}
