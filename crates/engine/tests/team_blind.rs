//! A team's blind bid, and the New York preset that plays it: one test per
//! part of the rule, on written deals.

mod common;

use common::*;
use spades_engine::score::score_team;
use spades_engine::{
    Action, Bid, BidChoices, Card, Deck, Event, Game, Legal, Phase, Preset, RuleError, RuleSet, Suit,
};

/// Team blind bids from 6, offered at 100 behind, and no blind nil, so
/// that only the team's blind bid keeps cards hidden.
fn blind_six() -> RuleSet {
    RuleSet {
        team_blind: 6,
        blind_nil: false,
        ..RuleSet::CLASSIC
    }
}

/// MIXED with seat 3 dealing (seat 0 bids first) and team 0 (seats 0 and
/// 2) at `behind` points below team 1.
fn trailing(rules: RuleSet, behind: i32) -> Game {
    game_with(rules, 3, MIXED, [0, behind])
}

fn blind_choices(game: &Game, seat_index: u8) -> BidChoices {
    match game.legal(seat(seat_index)) {
        Legal::BlindOrLook(choices) => choices,
        other => panic!("seat {seat_index} is not offered a blind bid: {other:?}"),
    }
}

#[test]
fn a_team_far_enough_behind_bids_blind_for_both_partners() {
    let mut game = trailing(blind_six(), 100);
    // Both partners of the trailing team have their cards hidden; the
    // other team sees its cards.
    assert!(game.is_hand_hidden(seat(0)) && game.is_hand_hidden(seat(2)));
    assert!(!game.is_hand_hidden(seat(1)) && !game.is_hand_hidden(seat(3)));
    assert_eq!(game.view(spades_engine::Viewer::Seat(seat(0))).hand(), None);
    assert_eq!(blind_choices(&game, 0), BidChoices::tricks(6, 13));
    assert_eq!(game.legal(seat(2)), Legal::Look);

    let events = ok(&mut game, 0, Action::Bid(Bid::Blind(7)));
    assert_eq!(
        events,
        [
            Event::BidMade {
                seat: seat(0),
                bid: Bid::Blind(7)
            },
            Event::BidMade {
                seat: seat(2),
                bid: Bid::Blind(7)
            },
        ]
    );
    // Both now see their cards, and the partner's turn is passed over.
    assert!(!game.is_hand_hidden(seat(0)) && !game.is_hand_hidden(seat(2)));
    assert_eq!(game.bids()[seat(2)], Some(Bid::Blind(7)));
    ok(&mut game, 1, Action::Bid(Bid::Tricks(3)));
    assert_eq!(game.to_act().first(), Some(seat(3)));
    let events = ok(&mut game, 3, Action::Bid(Bid::Tricks(2)));
    assert_eq!(game.phase(), Phase::Playing, "{events:?}");
    let record_bids: Vec<_> = (1..=4u8).map(|n| game.bids()[seat(3).plus(n)]).collect();
    assert_eq!(
        record_bids,
        [
            Some(Bid::Blind(7)),
            Some(Bid::Tricks(3)),
            Some(Bid::Blind(7)),
            Some(Bid::Tricks(2))
        ]
    );
}

#[test]
fn a_team_not_far_enough_behind_sees_its_cards_and_cannot_bid_blind() {
    let game = trailing(blind_six(), 90);
    assert!(!game.is_hand_hidden(seat(0)) && !game.is_hand_hidden(seat(2)));
    assert_eq!(
        game.check(seat(0), Action::Bid(Bid::Blind(6))),
        Err(RuleError::BlindBidNotAllowed {
            lowest: 6,
            highest: 13
        })
    );
    // The leading team is never offered it.
    let mut game = game_with(blind_six(), 0, MIXED, [0, 200]);
    assert!(!game.is_hand_hidden(seat(1)));
    assert_eq!(
        game.apply(seat(1), Action::Bid(Bid::Blind(6))),
        Err(RuleError::BlindBidNotAllowed {
            lowest: 6,
            highest: 13
        })
    );
}

#[test]
fn a_blind_bid_below_the_lowest_is_refused_and_the_turn_stays() {
    let mut game = trailing(blind_six(), 100);
    assert_eq!(
        game.apply(seat(0), Action::Bid(Bid::Blind(5))),
        Err(RuleError::BlindBidNotAllowed {
            lowest: 6,
            highest: 13
        })
    );
    assert_eq!(
        game.apply(seat(0), Action::Bid(Bid::Blind(14))),
        Err(RuleError::InvalidBid { tricks: 14, most: 13 })
    );
    assert_eq!(
        game.apply(seat(0), Action::Bid(Bid::Tricks(3))),
        Err(RuleError::MustLookAtHand)
    );
    assert_eq!(blind_choices(&game, 0), BidChoices::tricks(6, 13));
}

#[test]
fn a_partner_who_looks_first_closes_the_blind_bid_and_shows_the_bidder_his_cards() {
    let mut game = trailing(blind_six(), 100);
    // Seat 2 looks while seat 0 is to bid: the team may no longer bid
    // blind, and with no blind nil seat 0 is shown his cards at once.
    let events = ok(&mut game, 2, Action::LookAtHand);
    assert_eq!(
        events,
        [
            Event::LookedAtHand { seat: seat(2) },
            Event::LookedAtHand { seat: seat(0) },
        ]
    );
    assert!(matches!(game.legal(seat(0)), Legal::Bid(_)));
    assert_eq!(
        game.check(seat(0), Action::Bid(Bid::Blind(6))),
        Err(RuleError::BlindBidNotAllowed {
            lowest: 6,
            highest: 13
        })
    );
}

#[test]
fn with_blind_nil_too_a_look_by_the_partner_leaves_only_blind_nil() {
    let rules = RuleSet {
        blind_nil: true,
        ..blind_six()
    };
    let mut game = trailing(rules, 100);
    assert_eq!(
        blind_choices(&game, 0),
        BidChoices::NIL.union(BidChoices::tricks(6, 13))
    );
    ok(&mut game, 2, Action::LookAtHand);
    assert_eq!(blind_choices(&game, 0), BidChoices::NIL);
    // And once the first partner has bid blind nil, the second can no
    // longer bid blind for the team.
    let mut game = trailing(rules, 100);
    ok(&mut game, 0, Action::Bid(Bid::BlindNil));
    ok(&mut game, 1, Action::Bid(Bid::Tricks(3)));
    assert_eq!(blind_choices(&game, 2), BidChoices::NIL);
}

#[test]
fn the_first_partner_who_looks_leaves_the_second_nothing_blind_to_bid() {
    let mut game = trailing(blind_six(), 100);
    ok(&mut game, 0, Action::LookAtHand);
    ok(&mut game, 0, Action::Bid(Bid::Tricks(2)));
    // Seat 2 was kept from his cards for the team's blind bid; his partner
    // has looked, so he sees them when his turn comes.
    let events = ok(&mut game, 1, Action::Bid(Bid::Tricks(3)));
    assert_eq!(events[1], Event::LookedAtHand { seat: seat(2) });
    assert!(matches!(game.legal(seat(2)), Legal::Bid(_)));
}

#[test]
fn a_made_blind_bid_scores_double_with_its_overtricks_as_bags() {
    let rules = blind_six();
    let made = score_team(&rules, [(Bid::Blind(7), 5), (Bid::Blind(7), 3)], 0, 0);
    assert_eq!((made.contract, made.blind, made.set), (7, true, false));
    assert_eq!(
        (made.contract_points, made.bags_taken, made.change),
        (140, 1, 141)
    );
    let set = score_team(&rules, [(Bid::Blind(7), 3), (Bid::Blind(7), 3)], 0, 0);
    assert_eq!((set.contract_points, set.set, set.bags_taken), (-140, true, 0));
}

#[test]
fn new_york_sets_a_failed_blind_bid_singly_and_never_for_overtricks() {
    let rules = Preset::NewYork.rules();
    let set = score_team(&rules, [(Bid::Blind(6), 2), (Bid::Blind(6), 3)], 0, 0);
    assert_eq!((set.contract_points, set.set), (-60, true));
    // Eleven tricks on a blind 6: no limit of two overtricks for a blind bid.
    let made = score_team(&rules, [(Bid::Blind(6), 6), (Bid::Blind(6), 5)], 0, 0);
    assert_eq!((made.contract_points, made.set, made.bags_taken), (120, false, 5));
    // A seen 6 with the same tricks is set for its five overtricks.
    let seen = score_team(&rules, [(Bid::Tricks(3), 6), (Bid::Tricks(3), 5)], 0, 0);
    assert!(seen.set);
    // A blind 10 is worth twice 200 under 10-for-200.
    let ten = score_team(&rules, [(Bid::Blind(10), 6), (Bid::Blind(10), 4)], 0, 0);
    assert_eq!(ten.contract_points, 400);
}

/// The pack many New York groups play, which the `new-york` preset dealt
/// before it took the rule book's: kept for the games dealt from it.
#[test]
fn the_new_york_pack_keeps_the_two_of_clubs_and_puts_out_the_red_twos() {
    let pack = Deck::NewYork.cards();
    assert_eq!(pack.len(), 52);
    assert!(pack.contains(card("2C")));
    assert!(!pack.contains(card("2D")) && !pack.contains(card("2H")));
    let trumps: Vec<String> = pack
        .in_suit(Suit::Spades)
        .iter_desc()
        .take(4)
        .map(|c| c.to_string())
        .collect();
    assert_eq!(trumps, ["BJ", "LJ", "2S", "AS"]);
    assert_eq!(Deck::NewYork.lowest_club(), card("2C"));
    assert!(pack.contains(Card::HIGH_TWO_OF_SPADES));
}

#[test]
fn new_york_is_played_as_its_rules_say() {
    let rules = Preset::NewYork.rules();
    assert_eq!(rules.deck, Deck::NewYorkCity);
    assert_eq!(rules.max_team_bid, Some(10));
    assert!(!rules.nil && !rules.blind_nil);
    assert_eq!(
        (rules.min_team_bid, rules.max_overtricks, rules.sets_to_lose),
        (4, Some(2), Some(2))
    );
    assert!(rules.ten_for_two_hundred && rules.boston_wins && rules.unbid_first_hand);
    assert_eq!((rules.team_blind, rules.team_blind_min_deficit), (6, 100));
    assert!(!rules.team_blind_set_doubled);
    // The first hand has no bids, so nobody's cards are hidden in it.
    for seed in 0..20 {
        let game = Game::new(rules, seed).unwrap();
        assert_eq!(game.phase(), Phase::Playing);
        assert!(spades_engine::Seat::ALL.iter().all(|&s| !game.is_hand_hidden(s)));
    }
}

#[test]
fn team_blind_needs_partners_and_standard_bidding() {
    for (rules, field) in [
        (
            RuleSet {
                team_blind: 6,
                partners: false,
                blind_nil_pass: 0,
                ..RuleSet::CLASSIC
            },
            "team_blind",
        ),
        (
            RuleSet {
                team_blind: 6,
                bidding: spades_engine::Bidding::Suicide,
                ..RuleSet::CLASSIC
            },
            "team_blind",
        ),
        (
            RuleSet {
                team_blind: 3,
                min_team_bid: 4,
                ..RuleSet::CLASSIC
            },
            "team_blind",
        ),
    ] {
        assert_eq!(rules.validate().unwrap_err().field, field, "{rules:?}");
    }
}
