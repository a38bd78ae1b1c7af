//! The basic bot: plain, sound partnership Spades from hand-written rules.
//!
//! Bids count sure and likely tricks; nil is bid with hands that hold no
//! card likely to be forced to win; play follows the habits of a good
//! partner (second hand low, third hand high, win cheaply, cover a
//! partner's nil, attack an opponent's, duck once the contract is made).
//! It has no randomness: the same view always gives the same action.

use spades_engine::{Action, Bid, BidChoices, Bidding, Card, CardSet, Deck, Legal, Rank, Seat, Suit, View};

use crate::Player;
use crate::knowledge::{Knowledge, beats};

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
fn pass_danger(hand: CardSet, card: Card) -> i32 {
    let rank = i32::from(card.order());
    let lower = hand
        .in_suit(card.suit())
        .iter()
        .filter(|other| other.order() < card.order())
        .count() as i32;
    let weight = if card.is_spade() { 3 * rank / 2 } else { rank };
    weight - 3 * lower
}

// Play.

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
