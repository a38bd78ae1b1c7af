//! Who sits where, which seats are partners and how the cards are dealt.
//! Everything else in the rule book builds on these, so a change here should
//! fail loudly and first, and the pinned deal guards the replays that depend on
//! a seed giving the same cards.

use super::*;

#[test]
fn partners_sit_opposite_and_form_teams() {
    assert_eq!(seat(0).partner(), seat(2));
    assert_eq!(seat(1).partner(), seat(3));
    assert_eq!(seat(0).team(), Team::ALL[0]);
    assert_eq!(seat(2).team(), Team::ALL[0]);
    assert_eq!(seat(1).team(), Team::ALL[1]);
    assert_eq!(seat(3).team(), Team::ALL[1]);
    assert_eq!(seat(3).next(), seat(0), "play goes clockwise, 3 then 0");
}

#[test]
fn the_first_dealer_is_drawn_from_the_seed() {
    let mut dealers = [0u32; 4];
    for seed in 0..200 {
        let game = Game::new(RuleSet::CLASSIC, seed).unwrap();
        assert_eq!(game.dealer(), Game::new(RuleSet::CLASSIC, seed).unwrap().dealer());
        dealers[game.dealer().index()] += 1;
    }
    assert!(
        dealers.iter().all(|&n| n > 20),
        "every seat deals first sometimes: {dealers:?}"
    );
}

#[test]
fn the_deal_passes_clockwise_every_hand() {
    let mut game = Game::new(RuleSet::CLASSIC, 5).unwrap();
    let mut rng = spades_engine::GameRng::new(1);
    let mut dealer = game.dealer();
    let mut hands_seen = 0;
    while let Some(seat) = game.to_act().first() {
        let action = random_action(&game, seat, &mut rng).unwrap();
        for event in game.apply(seat, action).unwrap() {
            if let Event::HandStarted { dealer: next, .. } = event {
                assert_eq!(next, dealer.next());
                dealer = next;
                hands_seen += 1;
            }
        }
    }
    assert!(hands_seen >= 1);
}

#[test]
fn every_player_gets_thirteen_cards_of_one_pack() {
    for seed in 0..50 {
        let game = Game::new(RuleSet::CLASSIC, seed).unwrap();
        let mut all = CardSet::EMPTY;
        for seat in Seat::ALL {
            assert_eq!(game.hand(seat).len(), 13);
            assert!((all & game.hand(seat)).is_empty());
            all |= game.hand(seat);
        }
        assert_eq!(all, CardSet::STANDARD_DECK);
    }
}

#[test]
fn a_seed_gives_the_same_deal_and_another_seed_another() {
    let a = Game::new(RuleSet::CLASSIC, 11).unwrap();
    let b = Game::new(RuleSet::CLASSIC, 11).unwrap();
    let c = Game::new(RuleSet::CLASSIC, 12).unwrap();
    assert_eq!(a.dealt(), b.dealt());
    assert_ne!(a.dealt(), c.dealt());
}

/// The deal of seed 1, computed by a separate implementation of the
/// generator described in the engine's `rng` module, so that the
/// documented procedure and the code cannot drift apart.
#[test]
fn the_deal_of_seed_1_is_pinned() {
    let game = Game::new(RuleSet::CLASSIC, 1).unwrap();
    assert_eq!(game.dealer(), seat(3));
    let expected = [
        "7S 4S 7H 3H 2H 8D 3D AC KC JC 9C 6C 3C",
        "JS 9S 6H KD QD JD 9D 5D 4D QC 8C 5C 2C",
        "KS QS 8S 6S KH QH 9H 8H 4H TD 6D 7C 4C",
        "AS TS 5S 3S 2S AH JH TH 5H AD 7D 2D TC",
    ];
    for (seat_index, hand) in expected.iter().enumerate() {
        assert_eq!(game.hand(seat(seat_index as u8)).to_string(), *hand);
    }
}
