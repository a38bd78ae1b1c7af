//! Positions written out in full rather than played to. Tests and tools set
//! games up this way, so a position that breaks the rules must be refused with
//! a reason instead of producing a game that could not happen.

use super::*;
use spades_engine::{BySeat, ByTeam, Position, PositionError, SeatSet, TrickRecord};

fn trick(leader: u8, cards_text: &str, winner: u8) -> TrickRecord {
    let played: Vec<_> = cards_text.split_whitespace().map(card).collect();
    TrickRecord {
        leader: seat(leader),
        cards: [played[0], played[1], played[2], played[3]].into(),
        winner: seat(winner),
    }
}

/// The MIXED deal after its first trick (seat 0 leads AC and wins it),
/// with seat 0 to lead again.
fn after_one_trick(tricks: &[TrickRecord]) -> Result<Game, PositionError> {
    let mut hands = BySeat(MIXED.map(cards));
    for (i, card_text) in ["AC", "7C", "5C", "2C"].into_iter().enumerate() {
        hands.0[i] -= cards(card_text);
    }
    let position = Position {
        hand_number: 0,
        dealer: seat(3),
        score: ByTeam::from([0, 0]),
        bags: ByTeam::from([0, 0]),
        bids: BySeat([Bid::Tricks(7), Bid::Tricks(3), Bid::Tricks(1), Bid::Tricks(2)]),
        hands,
        tricks,
        trick: &[],
        passes: &[],
    };
    Game::from_position(RuleSet::CLASSIC, 1, &position)
}

#[test]
fn a_consistent_position_is_set_up_in_play() {
    let game = after_one_trick(&[trick(0, "AC 7C 5C 2C", 0)]).unwrap();
    assert_eq!(game.phase(), Phase::Playing);
    assert_eq!(game.to_act(), SeatSet::single(seat(0)));
    assert_eq!(game.tricks_won()[seat(0)], 1);
    assert_eq!(game.dealt()[seat(1)], cards(MIXED[1]));
}

#[test]
fn inconsistent_positions_are_refused_with_the_reason() {
    assert_eq!(
        after_one_trick(&[trick(1, "7C 5C 2C AC", 0)]).unwrap_err(),
        PositionError::WrongLeader { trick: 0 }
    );
    assert_eq!(
        after_one_trick(&[trick(0, "AC 7C 5C 2C", 1)]).unwrap_err(),
        PositionError::WrongWinner { trick: 0 }
    );
    assert_eq!(
        after_one_trick(&[trick(0, "AC 7C 5C AS", 3)]).unwrap_err(),
        PositionError::CardTwice { card: card("AS") }
    );
    assert_eq!(
        after_one_trick(&[]).unwrap_err(),
        PositionError::HandSize { seat: seat(0) }
    );
}
