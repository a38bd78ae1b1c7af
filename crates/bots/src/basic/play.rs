//! How the basic bot plays its cards: leading, following and discarding,
//! keeping its own nil, covering its partner's and attacking an opponent's.

use spades_engine::{Card, CardSet, Seat, Suit};

use crate::knowledge::{Knowledge, beats};

/// The card to play from `legal`.
pub fn choose_play(k: &Knowledge, legal: CardSet) -> Option<Card> {
    if legal.len() <= 1 {
        return legal.lowest();
    }
    if k.nil_alive(k.seat) {
        return Some(play_nil(k, legal));
    }
    if k.partner().is_some_and(|partner| k.nil_alive(partner))
        && let Some(card) = cover_nil(k, legal)
    {
        return Some(card);
    }
    let target = Seat::ALL
        .into_iter()
        .find(|&seat| k.is_opponent(seat) && k.nil_alive(seat));
    if let Some(target) = target
        && worth_attacking(k)
        && let Some(card) = attack_nil(k, legal, target)
    {
        return Some(card);
    }
    Some(play_normal(k, legal))
}

/// The lowest card, keeping spades on a tie: what to throw away.
fn low(cards: CardSet) -> Card {
    cards
        .iter()
        .min_by_key(|card| (card.order(), card.is_spade()))
        .expect("a card to choose from")
}

/// The highest card, giving up a plain card before a spade on a tie.
fn high(cards: CardSet) -> Card {
    cards
        .iter()
        .max_by_key(|card| (card.order(), !card.is_spade()))
        .expect("a card to choose from")
}

/// The legal cards that beat the trick's winning card (all, on a lead).
fn winners(k: &Knowledge, legal: CardSet) -> CardSet {
    match (k.trick.winner(), k.trick.led()) {
        (Some((_, winning)), Some(led)) => legal.iter().filter(|&card| beats(card, winning, led)).collect(),
        _ => legal,
    }
}

/// The cheapest card that wins the trick so far: a card of the suit led
/// before a trump, and the lowest of either.
fn cheapest(cards: CardSet) -> Card {
    cards
        .iter()
        .min_by_key(|card| (card.is_spade(), card.order()))
        .expect("a card to choose from")
}

/// How likely a card is to win a trick later, for a player who wants to
/// lose them: high ranks, and spades most of all.
fn danger(card: Card) -> usize {
    usize::from(card.order()) + if card.is_spade() { 8 } else { 0 }
}

/// A lead meant to lose: the card with the most unseen cards above it,
/// from a plain suit when possible.
fn losing_lead(k: &Knowledge, legal: CardSet) -> Card {
    legal
        .iter()
        .max_by_key(|&card| {
            (
                !card.is_spade(),
                k.unseen_above(card),
                std::cmp::Reverse(card.order()),
            )
        })
        .expect("a card to choose from")
}

/// Plays of a nil bidder who has taken no trick.
fn play_nil(k: &Knowledge, legal: CardSet) -> Card {
    if k.trick.winner().is_none() {
        return losing_lead(k, legal);
    }
    let losers = legal - winners(k, legal);
    if !losers.is_empty() {
        // Safe this trick: get rid of the card most likely to win later.
        return losers
            .iter()
            .max_by_key(|&card| danger(card))
            .expect("checked non-empty");
    }
    if k.trick.len() == 3 {
        // The nil is lost whatever is played: keep the low cards.
        high(legal)
    } else {
        // Someone after may still take the trick over.
        low(legal)
    }
}

/// Plays that protect a partner's nil, or `None` when this trick needs no
/// protecting.
fn cover_nil(k: &Knowledge, legal: CardSet) -> Option<Card> {
    let partner = k.partner()?;
    let Some((winner, winning)) = k.trick.winner() else {
        return Some(cover_lead(k, legal, partner));
    };
    let led = k.trick.led()?;
    let partner_played = k.trick.has_played(partner);
    if partner_played {
        if winner != partner {
            return None;
        }
        // The partner is winning: take the trick from him if at all possible.
        let over = winners(k, legal);
        return (!over.is_empty()).then(|| cheapest(over));
    }
    // The partner plays after: leave him as high a card to duck under as
    // possible. A trump on a plain suit is above anything he can follow with.
    if winning.is_spade() && led != Suit::Spades || k.wins_for_sure(winning) && winner != k.seat {
        return None;
    }
    let follows = legal.in_suit(led);
    if !follows.is_empty() {
        return Some(high(follows));
    }
    let trumps = winners(k, legal).in_suit(Suit::Spades);
    (!trumps.is_empty()).then(|| high(trumps))
}

/// A lead while the partner is on nil: a card his cards cannot get over.
fn cover_lead(k: &Knowledge, legal: CardSet, partner: Seat) -> Card {
    // A suit he lacks lets him throw away his dangerous cards.
    let his_voids = legal
        .iter()
        .filter(|card| k.void[partner].contains(card.suit()) && !card.is_spade())
        .collect::<CardSet>();
    if !his_voids.is_empty() {
        return high(his_voids);
    }
    // Otherwise the top card of a suit, plain suits first.
    legal
        .iter()
        .max_by_key(|&card| (k.is_top(card), !card.is_spade(), card.order()))
        .expect("a card to choose from")
}

/// Whether the team can afford to play against an opponent's nil: not when
/// its own contract needs nearly every trick left.
fn worth_attacking(k: &Knowledge) -> bool {
    let need = k.need(k.team());
    need + 2 < k.tricks_left()
}

/// Plays that try to make an opponent's nil take a trick, or `None` when
/// there is nothing to gain this trick.
fn attack_nil(k: &Knowledge, legal: CardSet, target: Seat) -> Option<Card> {
    let Some((winner, _)) = k.trick.winner() else {
        // Lead low in a suit he still holds, to make him play under it.
        let holds = legal
            .iter()
            .filter(|card| !k.void[target].contains(card.suit()))
            .collect::<CardSet>();
        let plain = holds - CardSet::suit(Suit::Spades);
        let choice = if plain.is_empty() { holds } else { plain };
        return (!choice.is_empty()).then(|| low(choice));
    };
    let target_played = k.trick.has_played(target);
    if target_played {
        if winner != target {
            return None;
        }
        // He is winning it: stay under him, throwing the highest card that does.
        let under = legal - winners(k, legal);
        return (!under.is_empty()).then(|| {
            under
                .iter()
                .max_by_key(|&card| (!card.is_spade(), card.order()))
                .expect("checked non-empty")
        });
    }
    // He plays after: keep the trick low so that he may have to win it.
    let plain = legal - CardSet::suit(Suit::Spades);
    Some(low(if plain.is_empty() { legal } else { plain }))
}

/// Ordinary play: win the tricks the team needs, or try to set opponents
/// who are close to failing; otherwise stay out of tricks, since every
/// overtrick is a bag.
fn play_normal(k: &Knowledge, legal: CardSet) -> Card {
    let need = k.need(k.team());
    let left = k.tricks_left();
    // The opponents are set when they take fewer than their need, that is
    // when this team takes more than `left - their_need` of what remains.
    // In solo a trick kept from one player goes to another, so nobody
    // plays to set.
    let setting = k.rules.partners
        && k.opponents().any(|team| {
            let their_need = k.need(team);
            their_need > 0 && left.saturating_sub(their_need) <= 2 + need
        });
    let want = need > 0 || setting;
    match k.trick.winner() {
        None => lead(k, legal, want),
        Some((winner, winning)) => follow(k, legal, want, winner, winning),
    }
}

fn lead(k: &Knowledge, legal: CardSet, want: bool) -> Card {
    if !want {
        return losing_lead(k, legal);
    }
    // Cash a sure trick, plain suits before trumps.
    let sure: CardSet = legal.iter().filter(|&card| k.wins_for_sure(card)).collect();
    if !sure.is_empty() {
        return sure
            .iter()
            .min_by_key(|card| (card.is_spade(), card.order()))
            .expect("checked non-empty");
    }
    if let Some(partner) = k.partner() {
        let opponents = [k.seat.next(), k.seat.plus(3)];
        // A suit the partner lacks and the opponents still hold lets him trump.
        let ruff = legal
            .iter()
            .filter(|card| {
                !card.is_spade()
                    && k.void[partner].contains(card.suit())
                    && !k.void[partner].contains(Suit::Spades)
                    && opponents
                        .iter()
                        .all(|&opponent| !k.void[opponent].contains(card.suit()))
            })
            .collect::<CardSet>();
        if !ruff.is_empty() {
            return low(ruff);
        }
    }
    // Otherwise lead low from the longest plain suit, to set up its tricks.
    let plain = legal - CardSet::suit(Suit::Spades);
    if plain.is_empty() {
        return low(legal);
    }
    let longest = Suit::ALL
        .into_iter()
        .filter(|&suit| suit != Suit::Spades)
        .max_by_key(|&suit| plain.in_suit(suit).len())
        .expect("three plain suits");
    low(plain.in_suit(longest))
}

fn follow(k: &Knowledge, legal: CardSet, want: bool, winner: Seat, winning: Card) -> Card {
    let over = winners(k, legal);
    let last = k.trick.len() == 3;
    if !want {
        let under = legal - over;
        if !under.is_empty() {
            // Losing this trick: throw the card most likely to win a later one.
            return under.iter().max_by_key(|&card| danger(card)).expect("checked");
        }
        return if last { high(legal) } else { low(legal) };
    }
    if k.is_partner(winner) && (last || k.wins_for_sure(winning)) {
        return discard(k, legal);
    }
    if over.is_empty() {
        return discard(k, legal);
    }
    if last {
        return cheapest(over);
    }
    let sure: CardSet = over.iter().filter(|&card| k.wins_for_sure(card)).collect();
    if !sure.is_empty() {
        return cheapest(sure);
    }
    if k.trick.len() == 1 {
        // Second hand low: the partner still plays after.
        return discard(k, legal);
    }
    // Third hand high: make the last player pay for the trick.
    let led = k.trick.led().expect("a trick with a winner was led");
    let follows = over.in_suit(led);
    if !follows.is_empty() {
        high(follows)
    } else {
        cheapest(over)
    }
}

/// The card to give up on a trick the team will not win: the lowest card
/// of the suit led, or a low plain card from the shortest plain suit when
/// the suit cannot be followed, so that trumps stay for later.
fn discard(k: &Knowledge, legal: CardSet) -> Card {
    let led = k.trick.led();
    if let Some(led) = led
        && !legal.in_suit(led).is_empty()
    {
        return low(legal.in_suit(led));
    }
    let plain = legal - CardSet::suit(Suit::Spades);
    if plain.is_empty() {
        return low(legal);
    }
    let shortest = Suit::ALL
        .into_iter()
        .filter(|&suit| !plain.in_suit(suit).is_empty())
        .min_by_key(|&suit| (plain.in_suit(suit).len(), low(plain.in_suit(suit)).order()))
        .expect("checked non-empty");
    low(plain.in_suit(shortest))
}
