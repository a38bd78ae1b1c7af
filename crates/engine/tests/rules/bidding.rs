//! The order of bidding, the bids a player may make and when blind nil is open
//! to him. A wrong bid refused or a right one lost changes the whole hand, so
//! each rule of the auction has its own case.

use super::*;

#[test]
fn bidding_starts_left_of_the_dealer_and_ends_with_the_dealer() {
    let mut game = game_with(no_blind_nil(), 1, MIXED, [0, 0]);
    assert_eq!(game.legal(seat(2)), Legal::Bid(BidChoices::ALL));
    for other in [0, 1, 3] {
        assert_eq!(game.legal(seat(other)), Legal::Wait);
        assert_eq!(
            game.apply(seat(other), Action::Bid(Bid::Tricks(3))),
            Err(RuleError::NotYourTurn { turn: Some(seat(2)) })
        );
    }
    for seat_index in [2, 3, 0] {
        bid(&mut game, seat_index, 3);
        assert_eq!(game.phase(), Phase::Bidding);
    }
    let events = bid(&mut game, 1, 3);
    assert_eq!(events.last(), Some(&Event::PlayStarted { leader: seat(2) }));
    assert_eq!(game.phase(), Phase::Playing);
}

#[test]
fn one_bid_each_and_no_change_afterwards() {
    let mut game = game_with(no_blind_nil(), 3, MIXED, [0, 0]);
    bid(&mut game, 0, 4);
    assert_eq!(
        game.apply(seat(0), Action::Bid(Bid::Tricks(5))),
        Err(RuleError::NotYourTurn { turn: Some(seat(1)) })
    );
    for seat_index in [1, 2, 3] {
        bid(&mut game, seat_index, 2);
    }
    assert_eq!(
        game.apply(seat(0), Action::Bid(Bid::Tricks(5))),
        Err(RuleError::WrongPhase {
            phase: Phase::Playing
        })
    );
    assert_eq!(game.bids()[seat(0)], Some(Bid::Tricks(4)));
}

#[test]
fn a_bid_is_nil_or_one_to_thirteen() {
    let mut game = game_with(no_blind_nil(), 3, MIXED, [0, 0]);
    for tricks in [0, 14, 200] {
        assert_eq!(
            game.apply(seat(0), Action::Bid(Bid::Tricks(tricks))),
            Err(RuleError::InvalidBid { tricks, most: 13 })
        );
    }
    assert_eq!(Bid::new(0), Ok(Bid::Nil), "zero is nil and nothing else");
    bid(&mut game, 0, 13);
    bid(&mut game, 1, 0);
    assert_eq!(game.bids()[seat(1)], Some(Bid::Nil));
}

#[test]
fn blind_nil_is_offered_only_to_a_team_trailing_by_the_deficit() {
    // Exactly 100 behind qualifies; 99 does not.
    let game = game_with(RuleSet::CLASSIC, 3, MIXED, [0, 100]);
    assert!(game.is_blind_nil_offered(seat(0)) && game.is_blind_nil_offered(seat(2)));
    assert!(!game.is_blind_nil_offered(seat(1)) && !game.is_blind_nil_offered(seat(3)));
    let game = game_with(RuleSet::CLASSIC, 3, MIXED, [0, 99]);
    assert!(Seat::ALL.iter().all(|&s| !game.is_blind_nil_offered(s)));

    let mut game = game_with(RuleSet::CLASSIC, 3, MIXED, [100, 0]);
    assert_eq!(
        game.apply(seat(0), Action::Bid(Bid::BlindNil)),
        Err(RuleError::BlindNilNotAllowed),
        "the leading team may not bid blind nil"
    );
    let deficit_rule = RuleSet {
        blind_nil_min_deficit: 200,
        ..RuleSet::CLASSIC
    };
    let game = game_with(deficit_rule, 3, MIXED, [0, 150]);
    assert!(
        !game.is_blind_nil_offered(seat(0)),
        "the deficit is a rule parameter"
    );
}

#[test]
fn blind_nil_can_be_turned_off() {
    let mut game = game_with(no_blind_nil(), 3, MIXED, [0, 300]);
    assert!(!game.is_blind_nil_offered(seat(0)));
    assert_eq!(game.legal(seat(0)), Legal::Bid(BidChoices::ALL));
    assert_eq!(
        game.apply(seat(0), Action::Bid(Bid::BlindNil)),
        Err(RuleError::BlindNilNotAllowed)
    );
}

#[test]
fn an_eligible_players_cards_stay_hidden_until_he_bids_blind_nil_or_looks() {
    let mut game = game_with(RuleSet::CLASSIC, 3, MIXED, [0, 100]);
    assert_eq!(game.view(Viewer::Seat(seat(0))).hand(), None);
    assert_eq!(game.view(Viewer::Seat(seat(2))).hand(), None);
    assert_eq!(game.legal(seat(0)), Legal::BlindOrLook(BidChoices::NIL));
    assert_eq!(game.legal(seat(2)), Legal::Look, "he may look before his turn");

    let events = ok(&mut game, 0, Action::Bid(Bid::BlindNil));
    assert_eq!(
        events[0],
        Event::BidMade {
            seat: seat(0),
            bid: Bid::BlindNil
        }
    );
    assert_eq!(game.view(Viewer::Seat(seat(0))).hand(), Some(cards(MIXED[0])));

    let events = ok(&mut game, 2, Action::LookAtHand);
    assert_eq!(events, [Event::LookedAtHand { seat: seat(2) }]);
    assert_eq!(game.view(Viewer::Seat(seat(2))).hand(), Some(cards(MIXED[2])));
    assert_eq!(
        game.apply(seat(2), Action::LookAtHand),
        Err(RuleError::HandAlreadyVisible)
    );
    assert_eq!(
        game.apply(seat(1), Action::LookAtHand),
        Err(RuleError::HandAlreadyVisible)
    );
}

#[test]
fn looking_gives_up_blind_nil_and_a_hidden_player_must_look_to_bid_a_number() {
    let mut game = game_with(RuleSet::CLASSIC, 3, MIXED, [0, 100]);
    assert_eq!(
        game.apply(seat(0), Action::Bid(Bid::Tricks(3))),
        Err(RuleError::MustLookAtHand)
    );
    assert_eq!(
        game.apply(seat(0), Action::Bid(Bid::Nil)),
        Err(RuleError::MustLookAtHand)
    );
    ok(&mut game, 0, Action::LookAtHand);
    assert_eq!(game.legal(seat(0)), Legal::Bid(BidChoices::ALL));
    assert_eq!(
        game.apply(seat(0), Action::Bid(Bid::BlindNil)),
        Err(RuleError::BlindNilAfterLooking)
    );
    bid(&mut game, 0, 0);
    assert_eq!(
        game.bids()[seat(0)],
        Some(Bid::Nil),
        "an ordinary nil is still possible"
    );
}

#[test]
fn the_contract_is_the_sum_of_the_partners_non_nil_bids() {
    let rules = RuleSet::CLASSIC;
    let score = spades_engine::score::score_team(
        &rules,
        [Bid::Tricks(4), Bid::Tricks(3)].into_iter().zip([4, 3]),
        0,
        0,
    );
    assert_eq!(score.contract, 7);
    let score =
        spades_engine::score::score_team(&rules, [Bid::Nil, Bid::Tricks(3)].into_iter().zip([0, 3]), 0, 0);
    assert_eq!(score.contract, 3);
    let score =
        spades_engine::score::score_team(&rules, [Bid::BlindNil, Bid::Nil].into_iter().zip([0, 0]), 0, 0);
    assert_eq!(score.contract, 0);
}
