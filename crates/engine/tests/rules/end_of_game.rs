//! When a game ends and who wins it: the target, the loss threshold, ties at
//! the top and the hand limit. A game that ends too early or never ends is the
//! worst bug a table can meet.

use super::*;
use spades_engine::ByTeam;
use spades_engine::score::{Streaks, game_winner};

/// Plays one SUIT_EACH hand in which team 0 makes two nils (+200) and
/// team 1 bids 7 and takes 13 (+76), from the given scores.
fn hand_from(rules: RuleSet, score: [i32; 2]) -> (Game, Vec<Event>) {
    let mut game = game_with(rules, 3, SUIT_EACH, score);
    bid_round(&mut game, [Bid::Nil, Bid::Tricks(3), Bid::Nil, Bid::Tricks(4)]);
    let events = play_hand_lowest(&mut game);
    (game, events)
}

#[test]
fn reaching_the_target_ends_the_game_and_the_higher_score_wins() {
    let (mut game, events) = hand_from(no_blind_nil(), [350, 0]);
    assert_eq!(game.score().as_slice(), [550, 76]);
    assert_eq!(game.winner(), Some(Team::ALL[0]));
    assert_eq!(events.last(), Some(&Event::GameEnded { winner: Team::ALL[0] }));
    assert_eq!(game.phase(), Phase::GameOver);
    assert_eq!(game.last_hand().unwrap().winner, Some(Team::ALL[0]));
    assert_eq!(
        game.apply(seat(0), Action::Bid(Bid::Tricks(1))),
        Err(RuleError::GameOver)
    );

    let (game, _) = hand_from(no_blind_nil(), [350, 480]);
    assert_eq!(game.score().as_slice(), [550, 556]);
    assert_eq!(game.winner(), Some(Team::ALL[1]), "both reached: the higher wins");
}

#[test]
fn equal_scores_at_the_target_play_another_hand() {
    let (game, events) = hand_from(no_blind_nil(), [300, 424]);
    assert_eq!(game.score().as_slice(), [500, 500]);
    assert_eq!(game.winner(), None);
    assert_eq!(
        events.last(),
        Some(&Event::HandStarted {
            hand: 1,
            dealer: seat(0)
        })
    );
    assert_eq!(game.phase(), Phase::Bidding);
}

#[test]
fn falling_to_the_loss_threshold_loses_at_once() {
    let mut game = game_with(no_blind_nil(), 3, SUIT_EACH, [-480, 0]);
    bid_round(
        &mut game,
        [Bid::Tricks(1), Bid::Tricks(1), Bid::Tricks(1), Bid::Tricks(1)],
    );
    play_hand_lowest(&mut game);
    // Team 1 made 2 with 11 bags: 20 + 11, and the bags cost 100.
    assert_eq!(game.score().as_slice(), [-500, -69]);
    assert_eq!(game.winner(), Some(Team::ALL[1]));
}

#[test]
fn the_end_rules_as_a_function_of_the_scores() {
    let classic = RuleSet::CLASSIC;
    let w = |score: [i32; 2], hands: u32, rules: &RuleSet| {
        game_winner(rules, &ByTeam::from(score), hands, &Streaks::default())
    };
    assert_eq!(w([499, 0], 1, &classic), None);
    assert_eq!(w([500, 0], 1, &classic), Some(Team::ALL[0]));
    assert_eq!(w([510, 520], 1, &classic), Some(Team::ALL[1]));
    assert_eq!(w([510, 510], 1, &classic), None);
    assert_eq!(w([0, -500], 1, &classic), Some(Team::ALL[0]));
    assert_eq!(
        w([-520, -510], 1, &classic),
        Some(Team::ALL[1]),
        "both fell: the higher wins"
    );
    assert_eq!(w([-510, -510], 1, &classic), None);
    assert_eq!(w([200, -499], 40, &classic), None, "no hand limit in classic");

    let no_mercy = RuleSet {
        mercy: None,
        ..classic
    };
    assert_eq!(w([0, -900], 1, &no_mercy), None);

    let tournament = RuleSet::TOURNAMENT;
    assert_eq!(w([120, 80], 6, &tournament), None);
    assert_eq!(w([120, 80], 7, &tournament), Some(Team::ALL[0]));
    assert_eq!(
        w([80, 80], 7, &tournament),
        None,
        "a tie after seven hands plays on"
    );
    assert_eq!(w([80, 90], 8, &tournament), Some(Team::ALL[1]));
    assert_eq!(
        w([300, 90], 3, &tournament),
        Some(Team::ALL[0]),
        "early end at 300"
    );
    assert_eq!(
        w([0, -300], 3, &tournament),
        Some(Team::ALL[0]),
        "early end at -300"
    );
}

#[test]
fn the_hand_limit_ends_the_game_after_the_last_hand() {
    let rules = RuleSet {
        blind_nil: false,
        ..RuleSet::TOURNAMENT
    };
    let mut game = Game::from_deal(
        rules,
        1,
        spades_engine::Deal {
            dealer: seat(3),
            hands: spades_engine::BySeat(SUIT_EACH.map(cards)),
            score: ByTeam::from([0, 0]),
            bags: ByTeam::from([0, 0]),
            hand_number: 6,
        },
    )
    .unwrap();
    bid_round(
        &mut game,
        [Bid::Tricks(1), Bid::Tricks(1), Bid::Tricks(1), Bid::Tricks(1)],
    );
    play_hand_lowest(&mut game);
    assert_eq!(game.last_hand().unwrap().hand, 6);
    assert_eq!(game.score().as_slice(), [-20, -69]);
    assert_eq!(game.winner(), Some(Team::ALL[0]), "the seventh hand is the last");
}
