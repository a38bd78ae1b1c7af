//! The house rules beyond the rule book, one test (or a few) per rule
//! field, on written deals. The property tests play every preset at random;
//! these pin each rule to a case worked out by hand.

#[path = "../common/mod.rs"]
mod common;

use common::*;
use spades_engine::score::{Streaks, TeamHandScore, game_winner, score_team};
use spades_engine::{
    Action, Bid, BidChoices, Bidding, ByTeam, Event, Game, Leading, Legal, Preset, RuleError, RuleSet,
    SpadesLead, Team,
};

/// MIXED with seat 3 dealing, so that seat 0 bids and leads first. Spades
/// held: seat 0 three, seat 1 four, seat 2 three, seat 3 three.
fn mixed(rules: RuleSet) -> Game {
    game_with(rules, 3, MIXED, [0, 0])
}

fn choices(game: &Game, seat_index: u8) -> BidChoices {
    match game.legal(seat(seat_index)) {
        Legal::Bid(choices) => choices,
        other => panic!("seat {seat_index} may not bid: {other:?}"),
    }
}

fn refused_bid(game: &mut Game, seat_index: u8, tricks: u8) -> RuleError {
    game.apply(seat(seat_index), Action::Bid(Bid::new(tricks).unwrap()))
        .expect_err("the bid should be refused")
}

fn team_score(rules: &RuleSet, bids: [Bid; 2], tricks: [u8; 2]) -> TeamHandScore {
    score_team(rules, bids.into_iter().zip(tricks), 0, 0)
}

mod bidding;

mod leading;

mod scoring;

mod end_of_game;

mod rule_sets;

mod packs;

mod unbid_first_hand;

mod solo;
