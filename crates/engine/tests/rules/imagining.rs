//! Imagined positions, which bots use to look ahead. A bot must never learn the
//! real hidden cards through them, so these cases check what is kept, what is
//! replaced by the guess, and which guesses are refused.

use super::*;
use spades_engine::{BySeat, ImagineError, Viewer};

/// The MIXED deal, bid and led to the middle of the second trick.
fn position(hands: [&str; 4]) -> Game {
    let mut game = game_with(RuleSet::CLASSIC, 3, hands, [0, 0]);
    bid_round(
        &mut game,
        [Bid::Tricks(7), Bid::Tricks(3), Bid::Tricks(1), Bid::Tricks(2)],
    );
    play(&mut game, 0, "AC");
    play(&mut game, 1, "7C");
    play(&mut game, 2, "5C");
    play(&mut game, 3, "2C");
    play(&mut game, 0, "KC");
    play(&mut game, 1, "8C");
    game
}

#[test]
fn an_imagined_game_keeps_what_is_public_and_uses_the_guess() {
    let game = position(MIXED);
    let view = game.view(Viewer::Seat(seat(2)));
    // Seat 2's guess swaps a diamond of seat 1 with one of seat 3.
    let mut guess = BySeat::from_fn(|s| game.hand(s));
    guess[seat(1)] = (guess[seat(1)] - cards("QD")) | cards("2D");
    guess[seat(3)] = (guess[seat(3)] - cards("2D")) | cards("QD");
    let imagined = view.imagine(guess, 5).unwrap();
    assert_eq!(imagined.hand(seat(1)), guess[seat(1)]);
    assert_eq!(imagined.hand(seat(3)), guess[seat(3)]);
    assert_eq!(imagined.bids(), game.bids());
    assert_eq!(imagined.current_trick(), game.current_trick());
    assert_eq!(imagined.tricks(), game.tricks());
    assert_eq!(imagined.to_act(), game.to_act());
    // The imagined game plays on under the same rules.
    let mut imagined = imagined;
    assert_eq!(
        imagined.apply(seat(2), Action::Play(card("9D"))),
        Err(spades_engine::RuleError::MustFollowSuit {
            suit: spades_engine::Suit::Clubs
        })
    );
    play(&mut imagined, 2, "6C");
}

#[test]
fn an_imagined_game_holds_nothing_of_the_real_hidden_cards() {
    // Two deals that differ only in cards nobody has seen (a diamond
    // of seat 1 and one of seat 3), played identically so far.
    let mut other = MIXED;
    other[1] = "QS JS TS 9S JH TH 9H 2D JD TD 9C 8C 7C";
    other[3] = "5S 4S 3S 4H 3H 2H 5D 4D 3D QD 4C 3C 2C";
    let first = position(MIXED);
    let second = position(other);
    assert_ne!(first, second);
    let guess = BySeat::from_fn(|s| first.hand(s));
    let from_first = first.view(Viewer::Seat(seat(2))).imagine(guess, 5).unwrap();
    let from_second = second.view(Viewer::Seat(seat(2))).imagine(guess, 5).unwrap();
    assert_eq!(from_first, from_second, "the real hidden hands leave no trace");
    // Nor do the real game's future deals: they come from the new seed.
    let reseeded = first.view(Viewer::Seat(seat(2))).imagine(guess, 6).unwrap();
    assert_ne!(from_first, reseeded);
}

#[test]
fn a_guess_must_fit_the_position() {
    let game = position(MIXED);
    let view = game.view(Viewer::Seat(seat(2)));
    let real = BySeat::from_fn(|s| game.hand(s));

    let mut own_changed = real;
    own_changed[seat(2)] = (real[seat(2)] - cards("9D")) | cards("QD");
    own_changed[seat(1)] = (real[seat(1)] - cards("QD")) | cards("9D");
    assert_eq!(view.imagine(own_changed, 1), Err(ImagineError::OwnHandChanged));

    let mut resized = real;
    resized[seat(1)] = real[seat(1)] - cards("QD");
    resized[seat(3)] = real[seat(3)] | cards("QD");
    assert_eq!(
        view.imagine(resized, 1),
        Err(ImagineError::HandSize { seat: seat(1) })
    );

    let mut played_card = real;
    played_card[seat(1)] = (real[seat(1)] - cards("QD")) | cards("AC");
    assert_eq!(view.imagine(played_card, 1), Err(ImagineError::NotTheUnseenCards));

    assert_eq!(
        game.view(Viewer::Spectator).imagine(real, 1),
        Err(ImagineError::Spectator)
    );
    let bidding = game_with(RuleSet::CLASSIC, 3, MIXED, [0, 0]);
    let real = BySeat::from_fn(|s| bidding.hand(s));
    assert_eq!(
        bidding.view(Viewer::Seat(seat(0))).imagine(real, 1),
        Err(ImagineError::NotPlaying)
    );
}
