//! Helpers shared by the engine's test files.

#![allow(dead_code)]

use spades_engine::{
    Action, Bid, BySeat, ByTeam, Card, CardSet, Deal, Event, Game, GameRng, Legal, RuleSet, Seat,
};

pub fn seat(index: u8) -> Seat {
    Seat::new(index).expect("a seat from 0 to 3")
}

pub fn card(text: &str) -> Card {
    text.parse().expect("a card string")
}

/// A set from space-separated card strings, such as `"AS KS 2H"`.
pub fn cards(text: &str) -> CardSet {
    text.split_whitespace().map(card).collect()
}

/// A game starting from four written hands (seat 0 first) with the given
/// dealer and scores.
pub fn game_with(rules: RuleSet, dealer: u8, hands: [&str; 4], score: [i32; 2]) -> Game {
    let deal = Deal {
        dealer: seat(dealer),
        hands: BySeat(hands.map(cards)),
        score: ByTeam::from(score),
        bags: ByTeam::from([0, 0]),
        hand_number: 0,
    };
    Game::from_deal(rules, 99, deal).expect("the written hands are one pack")
}

/// One suit to each seat: seat 0 clubs, 1 diamonds, 2 hearts, 3 spades.
pub const SUIT_EACH: [&str; 4] = [
    "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C",
    "AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
    "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H",
    "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S",
];

/// A mixed deal used by the play tests.
///
/// - seat 0: AS KS 2S, AH KH QH, AD KD, AC KC QC JC TC
/// - seat 1: QS JS TS 9S, JH TH 9H, QD JD TD, 9C 8C 7C
/// - seat 2: 8S 7S 6S, 8H 7H 6H 5H, 9D 8D 7D 6D, 6C 5C
/// - seat 3: 5S 4S 3S, 4H 3H 2H, 5D 4D 3D 2D, 4C 3C 2C
pub const MIXED: [&str; 4] = [
    "AS KS 2S AH KH QH AD KD AC KC QC JC TC",
    "QS JS TS 9S JH TH 9H QD JD TD 9C 8C 7C",
    "8S 7S 6S 8H 7H 6H 5H 9D 8D 7D 6D 6C 5C",
    "5S 4S 3S 4H 3H 2H 5D 4D 3D 2D 4C 3C 2C",
];

/// Applies an action that the test expects to be accepted.
pub fn ok(game: &mut Game, seat_index: u8, action: Action) -> Vec<Event> {
    game.apply(seat(seat_index), action)
        .unwrap_or_else(|error| panic!("seat {seat_index} {action} refused: {error}"))
        .to_vec()
}

pub fn bid(game: &mut Game, seat_index: u8, tricks: u8) -> Vec<Event> {
    ok(
        game,
        seat_index,
        Action::Bid(Bid::new(tricks).expect("a valid bid")),
    )
}

pub fn play(game: &mut Game, seat_index: u8, text: &str) -> Vec<Event> {
    ok(game, seat_index, Action::Play(card(text)))
}

/// Bids for the four seats in bidding order, starting left of the dealer.
pub fn bid_round(game: &mut Game, bids: [Bid; 4]) {
    let first = game.dealer().next();
    for (i, bid) in bids.into_iter().enumerate() {
        let seat = first.plus(i as u8);
        game.apply(seat, Action::Bid(bid))
            .unwrap_or_else(|error| panic!("{seat} bid {bid} refused: {error}"));
    }
}

/// A uniformly random legal action for a seat, biased toward nil and blind
/// nil so that random games meet every rule. Independent of the bots crate
/// so that the engine's tests stand alone.
pub fn random_action(game: &Game, seat: Seat, rng: &mut GameRng) -> Option<Action> {
    let action = match game.legal(seat) {
        Legal::Wait | Legal::Look => return None,
        Legal::BlindOrLook(choices) => {
            // Half the time one of the blind bids offered, else a look.
            match choices.nth(rng.below(2 * choices.len().max(1))) {
                Some(tricks) => Action::Bid(Bid::from_parts(tricks, true).ok()?),
                None => Action::LookAtHand,
            }
        }
        Legal::Bid(choices) => {
            // Mostly modest numbers, as players bid; any allowed bid when
            // the rules narrow the choice.
            let wanted = if rng.chance(1, 6) {
                0
            } else {
                1 + rng.below(6) as u8
            };
            let bid = if choices.contains(Bid::new(wanted).ok()?) {
                wanted
            } else {
                let allowed: Vec<u8> = choices.numbers().collect();
                *allowed.get(rng.below(allowed.len() as u32) as usize)?
            };
            Action::Bid(Bid::new(bid).ok()?)
        }
        Legal::Pass { count } => {
            let mut hand = game.hand(seat);
            let mut given = CardSet::EMPTY;
            for _ in 0..count {
                let card = hand.nth(rng.below(hand.len()))?;
                hand.remove(card);
                given.insert(card);
            }
            Action::Pass(given)
        }
        Legal::Play(plays) => Action::Play(plays.nth(rng.below(plays.len()))?),
    };
    Some(action)
}

/// Plays a game to the end with random actions, returning every accepted
/// action in order.
pub fn play_randomly(game: &mut Game, seed: u64) -> Vec<(Seat, Action)> {
    let mut rng = GameRng::new(seed ^ 0x5EED);
    let mut actions = Vec::new();
    while let Some(seat) = game.to_act().first() {
        let action = random_action(game, seat, &mut rng).expect("a seat to act can act");
        game.apply(seat, action)
            .unwrap_or_else(|error| panic!("{seat} {action} refused: {error}"));
        actions.push((seat, action));
    }
    actions
}
