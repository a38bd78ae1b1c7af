//! Guessing the hidden hands: deals of the cards a bot has not seen that
//! agree with everything it knows (each seat's number of cards, the suits
//! it has shown it lacks, and the cards the bot passed to its partner).

use spades_engine::{Bid, Bidding, BySeat, Card, CardSet, GameRng, Seat, Suit};

use crate::basic::{BID_ROUNDING, estimate_tricks, nil_danger};
use crate::knowledge::Knowledge;

/// Deals the unseen cards to the other three seats at random, consistently
/// with `k`. The bot's own hand is in the result as it is. In the
/// three-player game the empty seat is one of the three, with no room, so
/// it is dealt nothing.
pub fn sample_hands(k: &Knowledge, rng: &mut GameRng) -> BySeat<CardSet> {
    let me = k.seat;
    let others = [me.plus(1), me.plus(2), me.plus(3)];
    let mut base = BySeat::<CardSet>::default();
    base[me] = k.hand;
    let mut known = CardSet::EMPTY;
    for seat in others {
        base[seat] = k.known[seat] & k.unseen;
        known |= base[seat];
    }
    let free = k.unseen - known;
    let room: BySeat<u32> =
        BySeat::from_fn(|seat| u32::from(k.hand_sizes[seat]).saturating_sub(base[seat].len()));
    let allowed: BySeat<CardSet> = BySeat::from_fn(|seat| k.possible(seat) & free);

    let mut cards: Vec<Card> = free.iter().collect();
    for _ in 0..32 {
        if let Some(hands) = try_deal(&mut cards, base, room, &allowed, &others, rng) {
            return hands;
        }
    }
    // Random dealing keeps running into dead ends only when the constraints
    // are tight; then a search over how many cards of each suit each seat
    // gets always finds a deal, since the real one exists.
    by_suit_counts(free, base, room, &allowed, &others, rng)
        .unwrap_or_else(|| fill_ignoring_voids(free, base, room, &others))
}

/// One attempt at a random deal: the most constrained cards first, each to
/// a seat that may hold it, chosen in proportion to the room it has left.
fn try_deal(
    cards: &mut [Card],
    mut hands: BySeat<CardSet>,
    mut room: BySeat<u32>,
    allowed: &BySeat<CardSet>,
    others: &[Seat; 3],
    rng: &mut GameRng,
) -> Option<BySeat<CardSet>> {
    rng.shuffle(cards);
    let options = |card: &Card| {
        others
            .iter()
            .filter(|&&seat| allowed[seat].contains(*card))
            .count()
    };
    cards.sort_by_key(options);
    for &card in cards.iter() {
        let total: u32 = others
            .iter()
            .filter(|&&seat| allowed[seat].contains(card))
            .map(|&seat| room[seat])
            .sum();
        if total == 0 {
            return None;
        }
        let mut pick = rng.below(total);
        for &seat in others {
            if !allowed[seat].contains(card) {
                continue;
            }
            if pick < room[seat] {
                hands[seat].insert(card);
                room[seat] -= 1;
                break;
            }
            pick -= room[seat];
        }
    }
    Some(hands)
}

/// A deal found by searching how many cards of each suit each seat takes.
fn by_suit_counts(
    free: CardSet,
    mut hands: BySeat<CardSet>,
    room: BySeat<u32>,
    allowed: &BySeat<CardSet>,
    others: &[Seat; 3],
    rng: &mut GameRng,
) -> Option<BySeat<CardSet>> {
    let mut counts = [[0u32; 3]; 4];
    let mut left = [room[others[0]], room[others[1]], room[others[2]]];
    if !split(0, free, allowed, others, &mut left, &mut counts) {
        return None;
    }
    for suit in Suit::ALL {
        let mut cards: Vec<Card> = free.in_suit(suit).iter().collect();
        rng.shuffle(&mut cards);
        let mut next = cards.into_iter();
        for (i, &seat) in others.iter().enumerate() {
            for card in next.by_ref().take(counts[suit.index()][i] as usize) {
                hands[seat].insert(card);
            }
        }
    }
    Some(hands)
}

/// Depth-first search over the suits for counts that fit every seat.
fn split(
    suit_index: usize,
    free: CardSet,
    allowed: &BySeat<CardSet>,
    others: &[Seat; 3],
    left: &mut [u32; 3],
    counts: &mut [[u32; 3]; 4],
) -> bool {
    let Some(suit) = Suit::from_index(suit_index) else {
        return left.iter().all(|&room| room == 0);
    };
    let total = free.in_suit(suit).len();
    let can = |i: usize| total == 0 || !allowed[others[i]].in_suit(suit).is_empty();
    for a in 0..=total.min(left[0]) {
        if a > 0 && !can(0) {
            break;
        }
        for b in 0..=(total - a).min(left[1]) {
            if b > 0 && !can(1) {
                break;
            }
            let c = total - a - b;
            if c > left[2] || c > 0 && !can(2) {
                continue;
            }
            let take = [a, b, c];
            for i in 0..3 {
                left[i] -= take[i];
            }
            counts[suit_index] = take;
            if split(suit_index + 1, free, allowed, others, left, counts) {
                return true;
            }
            for i in 0..3 {
                left[i] += take[i];
            }
        }
    }
    false
}

/// The last resort, should the knowledge ever contradict itself: fill each
/// seat to its size.
fn fill_ignoring_voids(
    free: CardSet,
    mut hands: BySeat<CardSet>,
    room: BySeat<u32>,
    others: &[Seat; 3],
) -> BySeat<CardSet> {
    let mut cards = free.iter();
    for &seat in others {
        for card in cards.by_ref().take(room[seat] as usize) {
            hands[seat].insert(card);
        }
    }
    hands
}

/// How far, in tricks, a player's bid may stray from what his cards are
/// worth by the basic bot's count before the deal becomes unlikely.
const BID_SPREAD: f64 = 1.0;

/// Like [`sample_hands`], but deals that agree with how the others bid are
/// preferred: each random deal is kept with a probability given by
/// [`plausibility`], and after `tries` refusals the most plausible one seen
/// is taken.
pub fn sample_plausible(k: &Knowledge, rng: &mut GameRng, tries: u32) -> BySeat<CardSet> {
    let mut best = (f64::MIN, None);
    for _ in 0..tries.max(1) {
        let hands = sample_hands(k, rng);
        let weight = plausibility(k, &hands);
        let draw = f64::from(rng.below(1 << 24)) / f64::from(1u32 << 24);
        if draw < weight {
            return hands;
        }
        if weight > best.0 {
            best = (weight, Some(hands));
        }
    }
    best.1.unwrap_or_else(|| sample_hands(k, rng))
}

/// How well a deal agrees with the other players' bids, from 0 to 1: a
/// number bid near what the cards are worth, a nil with few cards likely to
/// win. Blind nils say nothing about the cards. Where the rules make a
/// number bid the count of the bidder's spades (whiz and mirror), a deal
/// that gives him another count is all but ruled out.
pub fn plausibility(k: &Knowledge, hands: &BySeat<CardSet>) -> f64 {
    let mut weight = 1.0;
    let counts_spades = matches!(k.rules.bidding, Bidding::Whiz | Bidding::Mirror);
    for seat in [k.seat.plus(1), k.seat.plus(2), k.seat.plus(3)] {
        let Some(bid) = k.bids[seat] else {
            continue;
        };
        let dealt = k.dealt(seat, hands[seat]);
        weight *= match bid {
            Bid::Tricks(tricks) if counts_spades => {
                if dealt.in_suit(Suit::Spades).len() == u32::from(tricks) {
                    1.0
                } else {
                    1e-6
                }
            }
            Bid::BlindNil | Bid::Blind(_) => 1.0,
            Bid::Nil => (-0.6 * f64::from(nil_danger(dealt))).exp(),
            Bid::Tricks(tricks) => {
                let worth = f64::from(estimate_tricks(dealt, k.rules.deck) + BID_ROUNDING) - 0.5;
                let off = (worth - f64::from(tricks)) / BID_SPREAD;
                (-0.5 * off * off).exp()
            }
        };
    }
    weight
}
