//! The house rule that plays the first hand without bids. The hand skips the
//! auction entirely and is scored by tricks alone, a path no other rule takes.

use super::*;
use spades_engine::{Phase, Seat};

#[test]
fn the_first_hand_is_played_without_bids_for_ten_points_a_trick() {
    let rules = RuleSet {
        unbid_first_hand: true,
        leading: Leading::TwoOfClubs,
        ..RuleSet::CLASSIC
    };
    let mut game = mixed(rules);
    // No bidding: the holder of the two of clubs (seat 3) leads at once.
    assert_eq!(game.phase(), Phase::Playing);
    assert!(game.is_unbid_hand());
    assert_eq!(game.to_act().first(), Some(seat(3)));
    assert!(matches!(
        game.apply(seat(0), Action::Bid(Bid::Tricks(3))),
        Err(RuleError::WrongPhase { .. })
    ));
    // Everyone plays his lowest legal card to the end of the hand.
    let mut events = Vec::new();
    while game.hand_number() == 0 {
        let seat = game.to_act().first().unwrap();
        let card = game.legal_plays(seat).lowest().unwrap();
        events.extend(game.apply(seat, Action::Play(card)).unwrap().iter().cloned());
    }
    let record = game.last_hand().unwrap();
    assert!(record.bids.is_empty());
    let won = |team: Team| -> u8 { team.seats().iter().map(|&s| record.tricks_won[s]).sum() };
    for team in Team::ALL {
        assert_eq!(record.hand_score[team], 10 * i32::from(won(team)));
        assert_eq!(record.bags[team], 0);
    }
    assert_eq!(won(Team::ALL[0]) + won(Team::ALL[1]), 13);
    // The second hand is bid as usual.
    assert_eq!(game.phase(), Phase::Bidding);
    assert!(!game.is_unbid_hand());
    let started = events
        .iter()
        .position(|event| matches!(event, Event::HandStarted { .. }))
        .unwrap();
    assert!(
        !events[started..]
            .iter()
            .any(|event| matches!(event, Event::PlayStarted { .. }))
    );
    let bidder: Seat = game.to_act().first().unwrap();
    assert!(matches!(game.legal(bidder), Legal::Bid(_)));
}
