//! One test (or more) for every rule of the rule book, grouped and named as
//! the rule book names them.

#[path = "../common/mod.rs"]
mod common;

use common::*;
use spades_engine::{
    Action, Bid, BidChoices, CardSet, Event, Game, Legal, PassOrder, PassRecord, Phase, RuleError, RuleSet,
    Seat, Suit, Team, Viewer,
};

fn no_blind_nil() -> RuleSet {
    RuleSet {
        blind_nil: false,
        ..RuleSet::CLASSIC
    }
}

mod seats_teams_dealing;

mod bidding;

mod passing;

mod play;

mod scoring;

/// Plays the lowest legal card for whoever is to play until the hand ends.
fn play_hand_lowest(game: &mut Game) -> Vec<Event> {
    let hand = game.hand_number();
    let mut events = Vec::new();
    while game.hand_number() == hand && !game.is_over() {
        let seat = game.to_act().first().unwrap();
        let card = game.legal_plays(seat).lowest().unwrap();
        events.extend(game.apply(seat, Action::Play(card)).unwrap());
    }
    events
}

mod end_of_game;

/// Imagined positions, which bots look ahead on.
mod imagining;

/// Positions written out in full.
mod positions;
