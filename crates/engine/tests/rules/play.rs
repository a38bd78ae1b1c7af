//! Following suit, trumping, breaking spades and winning tricks. These are the
//! rules a player meets on every card, so each is pinned on a small written
//! deal.

use super::*;

/// MIXED dealt by seat 3, everyone bids 3: seat 0 leads.
fn ready() -> Game {
    let mut game = game_with(no_blind_nil(), 3, MIXED, [0, 0]);
    bid_round(&mut game, [Bid::Tricks(3); 4]);
    game
}

#[test]
fn the_dealers_left_leads_the_first_trick_and_not_a_spade() {
    let mut game = ready();
    assert_eq!(game.to_act().first(), Some(seat(0)));
    assert_eq!(
        game.legal_plays(seat(0)),
        cards(MIXED[0]) - CardSet::suit(Suit::Spades)
    );
    assert_eq!(
        game.apply(seat(0), Action::Play(card("AS"))),
        Err(RuleError::SpadesNotBroken)
    );
    assert_eq!(
        game.apply(seat(1), Action::Play(card("9C"))),
        Err(RuleError::NotYourTurn { turn: Some(seat(0)) })
    );
    assert_eq!(
        game.apply(seat(0), Action::Play(card("QS"))),
        Err(RuleError::CardNotInHand { card: card("QS") })
    );
    play(&mut game, 0, "AC");
}

#[test]
fn a_player_must_follow_the_suit_led_if_he_can() {
    let mut game = ready();
    play(&mut game, 0, "AC");
    assert_eq!(game.legal_plays(seat(1)), cards("9C 8C 7C"));
    assert_eq!(
        game.apply(seat(1), Action::Play(card("QS"))),
        Err(RuleError::MustFollowSuit { suit: Suit::Clubs })
    );
    assert_eq!(
        game.apply(seat(1), Action::Play(card("QD"))),
        Err(RuleError::MustFollowSuit { suit: Suit::Clubs })
    );
    play(&mut game, 1, "7C");
}

#[test]
fn the_highest_card_of_the_suit_led_wins_without_trumps_and_the_winner_leads() {
    let mut game = ready();
    play(&mut game, 0, "KC");
    play(&mut game, 1, "9C");
    play(&mut game, 2, "6C");
    let events = play(&mut game, 3, "4C");
    assert_eq!(
        events.last(),
        Some(&Event::TrickWon {
            trick: 0,
            winner: seat(0)
        })
    );
    // Seat 0 leads again; seat 2 has one club left, then none.
    play(&mut game, 0, "QC");
    play(&mut game, 1, "8C");
    play(&mut game, 2, "5C");
    play(&mut game, 3, "3C");
    play(&mut game, 0, "JC");
    play(&mut game, 1, "7C");
    assert_eq!(
        game.legal_plays(seat(2)),
        cards(MIXED[2]) - cards("6C 5C"),
        "void: anything goes"
    );
    play(&mut game, 2, "8H");
    let events = play(&mut game, 3, "2C");
    assert_eq!(
        events.last(),
        Some(&Event::TrickWon {
            trick: 2,
            winner: seat(0)
        }),
        "a higher card of another suit does not win"
    );
    assert_eq!(game.to_act().first(), Some(seat(0)));
}

#[test]
fn a_void_player_may_trump_the_highest_spade_wins_and_spades_are_then_broken() {
    let mut game = ready();
    for (seat_index, text) in [(0, "AC"), (1, "7C"), (2, "5C"), (3, "2C")] {
        play(&mut game, seat_index, text);
    }
    for (seat_index, text) in [(0, "KC"), (1, "8C"), (2, "6C"), (3, "3C")] {
        play(&mut game, seat_index, text);
    }
    assert!(!game.spades_broken());
    play(&mut game, 0, "QC");
    play(&mut game, 1, "9C");
    play(&mut game, 2, "6S");
    let events = play(&mut game, 3, "4C");
    assert_eq!(
        events.last(),
        Some(&Event::TrickWon {
            trick: 2,
            winner: seat(2)
        })
    );
    assert!(game.spades_broken());
    // The winner leads, and may now lead a spade.
    assert!(game.legal_plays(seat(2)).contains(card("8S")));
    play(&mut game, 2, "8S");
    play(&mut game, 3, "5S");
    play(&mut game, 0, "2S");
    let events = play(&mut game, 1, "9S");
    assert_eq!(
        events.last(),
        Some(&Event::TrickWon {
            trick: 3,
            winner: seat(1)
        })
    );
}

#[test]
fn a_leader_with_nothing_but_spades_may_lead_one_before_they_are_broken() {
    // Dealer 2: seat 3, who holds all the spades, leads.
    let mut game = game_with(no_blind_nil(), 2, SUIT_EACH, [0, 0]);
    bid_round(
        &mut game,
        [Bid::Tricks(13), Bid::Tricks(1), Bid::Tricks(1), Bid::Tricks(1)],
    );
    assert_eq!(game.to_act().first(), Some(seat(3)));
    assert!(!game.spades_broken());
    assert_eq!(
        game.legal_plays(seat(3)),
        CardSet::suit(Suit::Spades) & CardSet::STANDARD_DECK
    );
    play(&mut game, 3, "2S");
    // Nobody else has a spade, so each may play anything.
    assert_eq!(
        game.legal_plays(seat(0)),
        CardSet::suit(Suit::Clubs) & CardSet::STANDARD_DECK
    );
}

#[test]
fn thirteen_tricks_make_a_hand() {
    let mut game = ready();
    let mut tricks = 0;
    let mut rng = spades_engine::GameRng::new(3);
    loop {
        let seat = game.to_act().first().unwrap();
        let action = random_action(&game, seat, &mut rng).unwrap();
        let events = game.apply(seat, action).unwrap();
        tricks += events
            .iter()
            .filter(|e| matches!(e, Event::TrickWon { .. }))
            .count();
        if events.iter().any(|e| matches!(e, Event::HandEnded { hand: 0 })) {
            break;
        }
        assert!(tricks < 13);
    }
    assert_eq!(tricks, 13);
    let record = game.last_hand().unwrap();
    assert_eq!(record.tricks_won.0.iter().map(|&t| u32::from(t)).sum::<u32>(), 13);
}
