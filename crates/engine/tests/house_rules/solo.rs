//! Solo games, where every player bids, plays and scores alone. Without
//! partners the scores, the winner and blind nil eligibility are all counted
//! per player, which these cases check.

use super::*;
use spades_engine::score::score_hand;
use spades_engine::{BySeat, Deal, Seat, SetupError};

fn solo() -> RuleSet {
    Preset::Solo.rules()
}

/// A solo game from written hands, seat 3 dealing, with four scores.
fn solo_game(hands: [&str; 4], score: [i32; 4]) -> Game {
    let deal = Deal {
        dealer: seat(3),
        hands: BySeat(hands.map(cards)),
        score: ByTeam::from(score),
        bags: ByTeam::from([0; 4]),
        hand_number: 0,
    };
    Game::from_deal(solo(), 5, deal).expect("a solo deal")
}

fn team(index: u8) -> Team {
    Team::new(index).unwrap()
}

#[test]
fn each_player_bids_plays_and_scores_alone() {
    let mut game = solo_game(SUIT_EACH, [0; 4]);
    assert_eq!(game.score().as_slice(), [0, 0, 0, 0]);
    // Nobody has a partner: every seat bids freely and nobody passes.
    bid_round(
        &mut game,
        [Bid::Tricks(1), Bid::Tricks(1), Bid::Nil, Bid::Tricks(12)],
    );
    assert_eq!(game.phase(), spades_engine::Phase::Playing);
    // Seat 0 leads clubs; nobody else holds one, so seat 3 trumps
    // every trick.
    let mut rng = spades_engine::GameRng::new(1);
    while game.hand_number() == 0 {
        let seat = game.to_act().first().unwrap();
        let action = random_action(&game, seat, &mut rng).unwrap();
        game.apply(seat, action).unwrap();
    }
    let record = game.last_hand().unwrap();
    assert!(record.passes.is_empty());
    assert_eq!(record.tricks_won.0, [0, 0, 0, 13]);
    // Seat 0 and seat 1 are set alone, seat 2 makes his nil alone, and
    // seat 3 makes 12 with one bag.
    assert_eq!(record.hand_score.as_slice(), [-10, -10, 100, 121]);
    assert_eq!(game.score().as_slice(), [-10, -10, 100, 121]);
    assert_eq!(game.bags().as_slice(), [0, 0, 0, 1]);
}

#[test]
fn the_best_score_wins_and_a_tie_at_the_top_plays_on() {
    let rules = solo();
    let streaks = Streaks::new(rules.seating());
    let over = ByTeam::from([510, 120, 530, -40]);
    assert_eq!(game_winner(&rules, &over, 9, &streaks), Some(team(2)));
    let tied = ByTeam::from([530, 120, 530, -40]);
    assert_eq!(game_winner(&rules, &tied, 9, &streaks), None);
    let short = ByTeam::from([490, 120, 300, -40]);
    assert_eq!(game_winner(&rules, &short, 9, &streaks), None);
    // Falling to the loss threshold ends the game for everyone: the
    // best score at that moment wins.
    let fallen = ByTeam::from([200, 120, 300, -500]);
    assert_eq!(game_winner(&rules, &fallen, 9, &streaks), Some(team(2)));
}

#[test]
fn a_player_set_too_often_is_out_and_the_best_of_the_rest_wins() {
    let rules = RuleSet {
        sets_to_lose: Some(2),
        ..solo()
    };
    let set = |set: bool| TeamHandScore {
        contract: 3,
        set,
        ..TeamHandScore::default()
    };
    let hand = ByTeam::from([set(true), set(false), set(false), set(false)]);
    let twice = Streaks::new(rules.seating())
        .after(&rules, &hand)
        .after(&rules, &hand);
    // Seat 0 leads on points but is out after two sets in a row.
    let score = ByTeam::from([250, 40, 90, 60]);
    assert_eq!(game_winner(&rules, &score, 2, &twice), Some(team(2)));
}

#[test]
fn blind_nil_is_offered_to_a_player_far_behind_the_leader() {
    // Seat 2 trails seat 0 by 100; the others are within it.
    let game = solo_game(MIXED, [150, 120, 50, 90]);
    let offered: Vec<bool> = Seat::ALL.iter().map(|&s| game.is_blind_nil_offered(s)).collect();
    assert_eq!(offered, [false, false, true, false]);
}

#[test]
fn the_scores_of_a_hand_have_one_entry_per_player() {
    let rules = solo();
    let bids = BySeat([Bid::Tricks(3), Bid::Nil, Bid::Tricks(4), Bid::Tricks(5)]);
    let tricks = BySeat([4, 1, 3, 5]);
    let zero = ByTeam::filled(rules.seating(), 0);
    let scores = score_hand(&rules, &bids, &tricks, &zero, &zero);
    let changes: Vec<i32> = scores.as_slice().iter().map(|s| s.change).collect();
    assert_eq!(changes, [31, -99, -40, 50]);
}

#[test]
fn rules_that_need_a_partner_are_refused() {
    let cases = [
        (
            RuleSet {
                nil_pass: 1,
                ..solo()
            },
            "nil_pass",
        ),
        (
            RuleSet {
                blind_nil_pass: 2,
                ..solo()
            },
            "blind_nil_pass",
        ),
        (
            RuleSet {
                nil_after_partner: true,
                ..solo()
            },
            "nil_after_partner",
        ),
        (
            RuleSet {
                bidding: Bidding::Suicide,
                ..solo()
            },
            "bidding",
        ),
        (
            RuleSet {
                min_team_bid: 4,
                ..solo()
            },
            "min_team_bid",
        ),
    ];
    for (rules, field) in cases {
        let error = rules.validate().expect_err(field);
        assert_eq!(error.field, field, "{error}");
        assert!(error.reason.contains("partner"), "{error}");
    }
    // Whiz, mirror and the other packs need nobody.
    for rules in [
        RuleSet {
            bidding: Bidding::Whiz,
            ..solo()
        },
        RuleSet {
            bidding: Bidding::Mirror,
            blind_nil: false,
            ..solo()
        },
        RuleSet {
            deck: spades_engine::Deck::Jokers,
            ..solo()
        },
    ] {
        assert_eq!(rules.validate(), Ok(()), "{rules:?}");
    }
}

#[test]
fn a_start_with_the_wrong_number_of_scores_is_refused() {
    let deal = Deal {
        dealer: seat(3),
        hands: BySeat(SUIT_EACH.map(cards)),
        score: ByTeam::from([0, 0]),
        bags: ByTeam::from([0, 0]),
        hand_number: 0,
    };
    assert_eq!(
        Game::from_deal(solo(), 5, deal).unwrap_err(),
        SetupError::TeamCount
    );
    let four = Deal {
        score: ByTeam::from([0; 4]),
        bags: ByTeam::from([0; 4]),
        ..deal
    };
    assert_eq!(
        Game::from_deal(RuleSet::CLASSIC, 5, four).unwrap_err(),
        SetupError::TeamCount
    );
}

#[test]
fn random_solo_games_end_with_four_scores_and_no_exchange() {
    for seed in 0..40 {
        let mut game = Game::new(solo(), seed).unwrap();
        play_randomly(&mut game, seed);
        let winner = game.winner().expect("a winner");
        let score = game.score();
        assert_eq!(score.len(), 4);
        assert_eq!(
            score[winner],
            *score.as_slice().iter().max().unwrap(),
            "seed {seed}"
        );
        assert!(game.passes().is_empty());
    }
}
