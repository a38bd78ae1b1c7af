//! The three-player game: three seats each on his own, seat 3 left empty,
//! 17 cards each (18 with the jokers) and tricks of three cards.

mod common;

use common::*;
use spades_engine::score::contract_value;
use spades_engine::{
    Action, Bid, BidChoices, BySeat, ByTeam, CardSet, Deal, Deck, Event, Game, Leading, Legal, Phase, Preset,
    RuleError, RuleSet, Seating, Team,
};

/// Solo's rules played by three.
fn three() -> RuleSet {
    RuleSet {
        players: 3,
        ..Preset::Solo.rules()
    }
}

/// A written deal for three: seat 0 every club and five diamonds, seat 1
/// the other diamonds and nine hearts, seat 2 the last hearts and every
/// spade. Seat 2 deals, so seat 0 bids and leads first.
fn written(rules: RuleSet) -> Game {
    let deal = Deal {
        dealer: seat(2),
        hands: BySeat([
            cards("AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C AD KD QD JD TD"),
            cards("9D 8D 7D 6D 5D 4D 3D 2D AH KH QH JH TH 9H 8H 7H 6H"),
            cards("5H 4H 3H 2H AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"),
            CardSet::EMPTY,
        ]),
        score: ByTeam::from_slice(&[0, 0, 0]).unwrap(),
        bags: ByTeam::from_slice(&[0, 0, 0]).unwrap(),
        hand_number: 0,
    };
    Game::from_deal(rules, 5, deal).expect("the written hands are the pack for three")
}

#[test]
fn three_players_hold_seventeen_cards_each_and_the_fourth_seat_none() {
    for seed in 0..20 {
        let game = Game::new(three(), seed).unwrap();
        assert_eq!(game.seating(), Seating::Three);
        assert_eq!(game.hand_size(), 17);
        assert!(
            game.dealer().index() < 3,
            "seed {seed}: the dealer is one of the three"
        );
        let dealt = game.dealt();
        for played in 0..3 {
            assert_eq!(dealt[seat(played)].len(), 17);
        }
        assert!(dealt[seat(3)].is_empty());
        let all = dealt.0.iter().fold(CardSet::EMPTY, |all, &hand| all | hand);
        assert_eq!(all.len(), 51);
        assert!(!all.contains(card("2C")), "the two of clubs is out");
        // The player after the dealer among the three bids first.
        let first = seat((game.dealer().index() as u8 + 1) % 3);
        assert_eq!(game.to_act().first(), Some(first));
        assert_eq!(game.score().len(), 3);
    }
}

#[test]
fn with_the_jokers_three_players_hold_eighteen_cards() {
    let rules = RuleSet {
        deck: Deck::Jokers,
        ..three()
    };
    let game = Game::new(rules, 3).unwrap();
    assert_eq!(game.hand_size(), 18);
    let all = game
        .dealt()
        .0
        .iter()
        .fold(CardSet::EMPTY, |all, &hand| all | hand);
    assert_eq!(all.len(), 54);
    for name in ["BJ", "LJ", "2S", "2C", "2H"] {
        assert!(all.contains(rules.deck.card(card(name))), "{name} is dealt");
    }
}

#[test]
fn bids_go_round_the_three_and_reach_the_size_of_a_hand() {
    let mut game = written(three());
    assert_eq!(
        game.legal(seat(0)),
        Legal::Bid(BidChoices::NIL.union(BidChoices::tricks(1, 17)))
    );
    assert_eq!(
        game.apply(seat(0), Action::Bid(Bid::Tricks(18))),
        Err(RuleError::InvalidBid { tricks: 18, most: 17 })
    );
    bid(&mut game, 0, 6);
    bid(&mut game, 1, 4);
    // Nobody sits in seat 3, so the third bid ends the bidding.
    assert_eq!(
        game.apply(seat(3), Action::Bid(Bid::Tricks(3))),
        Err(RuleError::NotYourTurn { turn: Some(seat(2)) })
    );
    let events = bid(&mut game, 2, 17);
    assert_eq!(events.last(), Some(&Event::PlayStarted { leader: seat(0) }));
    assert_eq!(game.phase(), Phase::Playing);
    assert_eq!(game.bids()[seat(3)], None);
}

#[test]
fn a_trick_is_three_cards_and_play_goes_round_the_three() {
    let mut game = written(three());
    for (player, tricks) in [(0, 6), (1, 4), (2, 7)] {
        bid(&mut game, player, tricks);
    }
    play(&mut game, 0, "AC");
    // Seat 1 holds no club and may play anything.
    play(&mut game, 1, "2D");
    let events = play(&mut game, 2, "2S");
    assert_eq!(
        events.last(),
        Some(&Event::TrickWon {
            trick: 0,
            winner: seat(2)
        })
    );
    let trick = game.tricks()[0];
    assert_eq!(&*trick.cards, [card("AC"), card("2D"), card("2S")]);
    assert_eq!(trick.players().collect::<Vec<_>>(), [seat(0), seat(1), seat(2)]);
    assert_eq!(game.tricks_won()[seat(2)], 1);
    // The winner leads; after seat 2 comes seat 0, never seat 3.
    play(&mut game, 2, "5H");
    assert_eq!(game.to_act().first(), Some(seat(0)));
}

#[test]
fn a_hand_of_three_plays_seventeen_tricks_and_scores_each_player() {
    let mut game = written(three());
    for (player, tricks) in [(0, 5), (1, 4), (2, 8)] {
        bid(&mut game, player, tricks);
    }
    let mut rng = spades_engine::GameRng::new(11);
    while game.hand_number() == 0 {
        let seat = game.to_act().first().unwrap();
        let action = random_action(&game, seat, &mut rng).unwrap();
        game.apply(seat, action).unwrap();
    }
    let record = game.last_hand().unwrap();
    assert_eq!(record.tricks.len(), 17);
    assert!(record.tricks.iter().all(|trick| trick.cards.len() == 3));
    assert_eq!(record.bids.len(), 3);
    let won: u8 = record.tricks_won.0.iter().sum();
    assert_eq!(won, 17);
    assert_eq!(record.tricks_won[seat(3)], 0);
    assert_eq!(record.hand_score.len(), 3);
    // Seat 2 holds every spade and the highest hearts are elsewhere: with
    // thirteen trumps he takes at least his eight.
    let scores = game.last_hand_scores().unwrap();
    assert!(!scores[Team::new(2).unwrap()].set);
    // The deal passes to seat 0, the next of the three.
    assert_eq!(game.dealer(), seat(0));
}

#[test]
fn the_lowest_club_in_play_leads_when_the_two_is_out() {
    let rules = RuleSet {
        leading: Leading::TwoOfClubs,
        ..three()
    };
    let mut game = written(rules);
    for (player, tricks) in [(0, 5), (1, 4), (2, 8)] {
        bid(&mut game, player, tricks);
    }
    assert_eq!(game.legal(seat(0)), Legal::Play(CardSet::single(card("3C"))));
}

#[test]
fn a_moon_is_every_trick_of_the_hand() {
    let rules = RuleSet {
        moon: true,
        ..three()
    };
    assert_eq!(contract_value(&rules, 17), 200);
    assert_eq!(contract_value(&rules, 13), 130);
    assert_eq!(
        contract_value(
            &RuleSet {
                moon: true,
                ..RuleSet::CLASSIC
            },
            13
        ),
        200
    );
}

#[test]
fn three_players_never_sit_as_partners() {
    let partners = RuleSet {
        players: 3,
        ..RuleSet::CLASSIC
    };
    assert_eq!(partners.validate().unwrap_err().field, "partners");
    let five = RuleSet {
        players: 5,
        ..three()
    };
    assert_eq!(five.validate().unwrap_err().field, "players");
    assert!(three().validate().is_ok());
}
