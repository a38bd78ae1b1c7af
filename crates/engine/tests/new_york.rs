//! The `new-york` preset as the rule book gives New York City's game: its
//! pack (the jokers, the two of spades and the two of diamonds above the
//! ace; the twos of clubs and hearts out) and its team bids of 4 to 10.
//! The pack's cards are written as strings here, as players name them.

mod common;

use common::*;
use proptest::prelude::*;
use spades_engine::{
    Action, Bid, BidChoices, BySeat, ByTeam, CardSet, Deal, Deck, Event, Game, Legal, Phase, Preset,
    RuleError, RuleSet, Seat, SpadesLead,
};

/// The trumps of New York City's pack from the highest, by their strings.
const TOP_TRUMPS: [&str; 5] = ["BJ", "LJ", "2S", "2D", "AS"];

/// The strength of a card string within the suit it follows in New York
/// City's pack, and that suit's letter: the two of diamonds and the
/// jokers follow as spades, and the top trumps rank as [`TOP_TRUMPS`].
fn rule_book_rank(text: &str) -> (char, usize) {
    if let Some(place) = TOP_TRUMPS.iter().position(|&top| top == text) {
        return ('S', 100 - place);
    }
    let rank = "23456789TJQKA".find(&text[..1]).expect("a rank");
    (text.chars().nth(1).expect("a suit"), rank)
}

/// The seat that wins a trick of four card strings led by `leader`, by the
/// rule book: the highest trump, else the highest card of the suit led.
fn rule_book_winner(leader: Seat, cards: &[String]) -> Seat {
    let ranked: Vec<(char, usize)> = cards.iter().map(|text| rule_book_rank(text)).collect();
    let led = ranked[0].0;
    let best = (0..ranked.len())
        .max_by_key(|&i| {
            let (suit, rank) = ranked[i];
            (suit == 'S', suit == led, rank)
        })
        .expect("a full trick");
    leader.plus(best as u8)
}

/// A New York game at the start of its second hand (the first is played
/// without bids), from four written hands, with seat 3 dealing.
fn second_hand(hands: [&str; 4], score: [i32; 2]) -> Game {
    let deal = Deal {
        dealer: seat(3),
        hands: BySeat(hands.map(cards)),
        score: ByTeam::from(score),
        bags: ByTeam::from([0, 0]),
        hand_number: 1,
    };
    Game::from_deal(Preset::NewYork.rules(), 7, deal).expect("the written hands are New York's pack")
}

/// New York City's 52 cards dealt as four hands.
const CITY: [&str; 4] = [
    "LJ 2S 2D AS KS AH KH QH AD KD AC KC QC",
    "BJ QS JS TS JH TH 9H QD JD TD JC TC 9C",
    "9S 8S 7S 8H 7H 6H 5H 9D 8D 7D 6D 8C 7C",
    "6S 5S 4S 3S 4H 3H 5D 4D 3D 6C 5C 4C 3C",
];

fn bid_choices(game: &Game, seat_index: u8) -> BidChoices {
    match game.legal(seat(seat_index)) {
        Legal::Bid(choices) => choices,
        other => panic!("seat {seat_index} is not to bid: {other:?}"),
    }
}

#[test]
fn the_preset_plays_the_rule_books_pack_and_team_bids() {
    let rules = Preset::NewYork.rules();
    assert_eq!(rules.deck, Deck::NewYorkCity);
    assert_eq!((rules.min_team_bid, rules.max_team_bid), (4, Some(10)));
    let pack: Vec<String> = rules.pack().iter_desc().map(|card| card.to_string()).collect();
    assert_eq!(pack.len(), 52);
    assert_eq!(pack[..5], TOP_TRUMPS.map(String::from));
    for out in ["2C", "2H"] {
        assert!(!pack.contains(&out.to_string()), "{out} is out");
    }
    assert_eq!(pack.iter().filter(|&text| text == "2D").count(), 1);
    // Sixteen trumps: the twelve spades from the three up, the raised two
    // of spades, the two of diamonds and the jokers.
    assert_eq!(rules.pack().in_suit(spades_engine::Suit::Spades).len(), 16);
}

#[test]
fn every_deal_is_the_pack_once_each() {
    let rules = Preset::NewYork.rules();
    for seed in 0..200 {
        let mut game = Game::new(rules, seed).unwrap();
        play_randomly(&mut game, seed);
        let record = game.last_hand().expect("a hand was played");
        let mut seen: Vec<String> = Vec::new();
        for &seat in &Seat::ALL {
            assert_eq!(record.hands[seat].len(), 13, "seed {seed}");
            seen.extend(record.hands[seat].iter().map(|card| card.to_string()));
        }
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 52, "seed {seed}: a card dealt twice");
        assert!(seen.contains(&"2D".to_string()) && !seen.contains(&"2C".to_string()));
    }
}

/// The top trumps spread over the four seats.
const SPREAD: [&str; 4] = [
    "2D QS 9S AH KH QH KD QD 5D AC KC QC JC",
    "2S KS 8S JH TH 9H AD JD TD TC 9C 8C 7C",
    "LJ AS 7S 6S 8H 7H 6H 5H 9D 8D 6C 5C 4C",
    "BJ JS TS 5S 4S 3S 4H 3H 7D 6D 4D 3D 3C",
];

/// A New York game in its first hand, played without bids, from written
/// hands with seat 3 dealing, so that seat 0 leads; spades may be led at
/// once.
fn first_hand(hands: [&str; 4]) -> Game {
    let rules = RuleSet {
        spades_lead: SpadesLead::AnyTime,
        ..Preset::NewYork.rules()
    };
    let deal = Deal {
        dealer: seat(3),
        hands: BySeat(hands.map(cards)),
        score: ByTeam::from([0, 0]),
        bags: ByTeam::from([0, 0]),
        hand_number: 0,
    };
    let game = Game::from_deal(rules, 3, deal).expect("the written hands are New York's pack");
    assert_eq!(game.phase(), Phase::Playing);
    game
}

#[test]
fn the_two_of_diamonds_is_a_trump_between_the_two_of_spades_and_the_ace() {
    let mut game = first_hand(SPREAD);
    play(&mut game, 0, "QD");
    play(&mut game, 1, "AD");
    play(&mut game, 2, "9D");
    play(&mut game, 3, "7D");
    // To a diamond led, seat 0 follows with his diamonds: the two of
    // diamonds is not one of them.
    play(&mut game, 1, "JD");
    play(&mut game, 2, "8D");
    play(&mut game, 3, "6D");
    assert_eq!(game.legal_plays(seat(0)), cards("KD 5D"));
    play(&mut game, 0, "KD");
    assert_eq!(game.tricks()[1].winner, seat(0));
    // Led, the two of diamonds asks for trumps, and it beats the ace.
    let mut other = game.clone();
    play(&mut game, 0, "2D");
    assert_eq!(
        game.legal_plays(seat(1)),
        Deck::NewYorkCity.set(cards("2S KS 8S"))
    );
    play(&mut game, 1, "KS");
    play(&mut game, 2, "AS");
    let won = play(&mut game, 3, "5S");
    assert!(won.contains(&Event::TrickWon {
        trick: 2,
        winner: seat(0)
    }));
    // The two of spades beats it.
    play(&mut other, 0, "2D");
    play(&mut other, 1, "2S");
    play(&mut other, 2, "AS");
    play(&mut other, 3, "3S");
    assert_eq!(other.tricks()[2].winner, seat(1));
    // The record names the card as players do.
    let names: Vec<String> = game.tricks()[2]
        .cards
        .iter()
        .map(|card| card.to_string())
        .collect();
    assert_eq!(names, ["2D", "KS", "AS", "5S"]);
}

#[test]
fn a_player_without_diamonds_but_the_two_may_trump_a_diamond_lead_with_it() {
    let mut game = first_hand([
        "KD AS KS AH KH QH AD LJ 2S AC KC QC JC",
        "2D QS JS TS JH TH 9H BJ TC 9C 8C 7C 6C",
        "9S 8S 7S 8H 7H 6H 5H 9D 8D 7D 6D QD JD",
        "6S 5S 4S 3S 4H 3H 5D 4D 3D TD 5C 4C 3C",
    ]);
    play(&mut game, 0, "KD");
    // Seat 1's only card with a diamond's name is the trump two: he has no
    // diamond to follow with, so he may play anything, and the two takes
    // the trick.
    assert_eq!(game.legal_plays(seat(1)), game.hand(seat(1)));
    play(&mut game, 1, "2D");
    play(&mut game, 2, "QD");
    play(&mut game, 3, "TD");
    assert_eq!(game.tricks()[0].winner, seat(1));
    assert!(game.spades_broken(), "the trump two of diamonds breaks spades");
}

#[test]
fn a_team_bids_4_to_10_and_the_first_partner_leaves_the_second_a_bid() {
    let mut game = second_hand(CITY, [0, 0]);
    // No nil: the first partner of each team bids 1 to 9, since his
    // partner must still bid at least one trick within the ten.
    assert_eq!(bid_choices(&game, 0), BidChoices::tricks(1, 9));
    assert_eq!(
        game.check(seat(0), Action::Bid(Bid::Tricks(10))),
        Err(RuleError::BidNotAllowed {
            choices: BidChoices::tricks(1, 9)
        })
    );
    bid(&mut game, 0, 6);
    bid(&mut game, 1, 1);
    // After 6, the partner brings the team to 7 to 10.
    assert_eq!(bid_choices(&game, 2), BidChoices::tricks(1, 4));
    bid(&mut game, 2, 4);
    // After 1, at least 3 (board) and at most 9.
    assert_eq!(bid_choices(&game, 3), BidChoices::tricks(3, 9));
    assert!(game.check(seat(3), Action::Bid(Bid::Tricks(10))).is_err());
    bid(&mut game, 3, 9);
    assert_eq!(game.phase(), Phase::Playing);
}

#[test]
fn a_team_blind_bid_goes_up_to_10() {
    // Team 0 is 100 behind: both partners' cards are hidden for the blind bid.
    let mut game = second_hand(CITY, [0, 100]);
    assert_eq!(game.legal(seat(0)), Legal::BlindOrLook(BidChoices::tricks(6, 10)));
    assert_eq!(
        game.check(seat(0), Action::Bid(Bid::Blind(11))),
        Err(RuleError::BlindBidNotAllowed {
            lowest: 6,
            highest: 10
        })
    );
    ok(&mut game, 0, Action::Bid(Bid::Blind(10)));
    assert_eq!(game.bids()[seat(2)], Some(Bid::Blind(10)));
}

#[test]
fn with_nil_the_first_partner_may_bid_the_whole_maximum() {
    let rules = RuleSet {
        max_team_bid: Some(10),
        ..RuleSet::CLASSIC
    };
    let mut game = game_with(rules, 3, MIXED, [0, 0]);
    assert_eq!(
        bid_choices(&game, 0),
        BidChoices::tricks(1, 10).union(BidChoices::NIL)
    );
    bid(&mut game, 0, 10);
    bid(&mut game, 1, 3);
    // His partner is left nil alone.
    assert_eq!(bid_choices(&game, 2), BidChoices::NIL);
    bid(&mut game, 2, 0);
    // After his partner's 3, seat 3 bids up to 7, or nil.
    assert_eq!(
        bid_choices(&game, 3),
        BidChoices::tricks(1, 7).union(BidChoices::NIL)
    );
}

#[test]
fn a_maximum_that_leaves_a_player_no_bid_is_refused_by_name() {
    let classic = RuleSet::CLASSIC;
    let cases = [
        (
            RuleSet {
                max_team_bid: Some(0),
                ..classic
            },
            "max_team_bid",
        ),
        (
            RuleSet {
                max_team_bid: Some(14),
                ..classic
            },
            "max_team_bid",
        ),
        (
            RuleSet {
                max_team_bid: Some(3),
                min_team_bid: 4,
                ..classic
            },
            "max_team_bid",
        ),
        (
            RuleSet {
                max_team_bid: Some(1),
                nil: false,
                blind_nil: false,
                ..classic
            },
            "max_team_bid",
        ),
        (
            RuleSet {
                max_team_bid: Some(3),
                bidding: spades_engine::Bidding::Suicide,
                ..classic
            },
            "max_team_bid",
        ),
        (
            RuleSet {
                max_team_bid: Some(10),
                bidding: spades_engine::Bidding::Whiz,
                ..classic
            },
            "max_team_bid",
        ),
        (
            RuleSet {
                max_team_bid: Some(5),
                team_blind: 6,
                ..classic
            },
            "team_blind",
        ),
    ];
    for (rules, field) in cases {
        assert_eq!(
            rules.validate().map_err(|error| error.field),
            Err(field),
            "{rules:?}"
        );
    }
    // Three players hold 17 cards: a maximum up to 17 is a hand.
    let three = RuleSet {
        max_team_bid: Some(17),
        ..Preset::ThreePlayer.rules()
    };
    assert_eq!(three.validate(), Ok(()));
}

#[test]
fn the_old_new_york_pack_is_kept_for_the_games_dealt_from_it() {
    let rules = RuleSet {
        deck: Deck::NewYork,
        ..Preset::NewYork.rules()
    };
    let pack: Vec<String> = rules.pack().iter_desc().map(|card| card.to_string()).collect();
    assert_eq!(pack[..4], ["BJ", "LJ", "2S", "AS"]);
    assert!(pack.contains(&"2C".to_string()) && !pack.contains(&"2D".to_string()));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whole New York games of random legal actions: every hand deals
    /// the 52 cards once each, every trick goes to the card the rule book
    /// ranks highest, and no team's bids add up to more than 10.
    #[test]
    fn new_york_games_deal_rank_and_cap_as_the_rule_book_says(seed in any::<u64>()) {
        let mut game = Game::new(Preset::NewYork.rules(), seed).unwrap();
        let mut rng = spades_engine::GameRng::new(seed ^ 0xC17);
        let mut hands = 0;
        while let Some(seat) = game.to_act().first() {
            let action = random_action(&game, seat, &mut rng).unwrap();
            let events = game.apply(seat, action).unwrap();
            if !events.iter().any(|event| matches!(event, Event::HandEnded { .. })) {
                continue;
            }
            hands += 1;
            let record = game.last_hand().unwrap();
            let mut dealt = CardSet::EMPTY;
            for seat in Seat::ALL {
                prop_assert!((dealt & record.hands[seat]).is_empty(), "a card dealt twice");
                prop_assert_eq!(record.hands[seat].len(), 13);
                dealt |= record.hands[seat];
            }
            prop_assert_eq!(dealt, Deck::NewYorkCity.cards());
            for trick in &record.tricks {
                let names: Vec<String> = trick.cards.iter().map(|card| card.to_string()).collect();
                prop_assert_eq!(trick.winner, rule_book_winner(trick.leader, &names), "{:?}", names);
            }
            for team in [[0, 2], [1, 3]] {
                let bids: Vec<Bid> = record
                    .bids
                    .iter()
                    .filter(|bid| team.contains(&bid.seat.index()))
                    .map(|bid| bid.to_bid().unwrap())
                    .collect();
                let contract: u8 = match bids.first() {
                    Some(Bid::Blind(n)) => *n,
                    _ => bids.iter().map(|bid| bid.contract()).sum(),
                };
                prop_assert!(contract <= 10, "a team contract of {}", contract);
                prop_assert!(record.hand == 0 || contract >= 4, "a team contract of {}", contract);
            }
        }
        prop_assert!(hands > 0);
    }
}
