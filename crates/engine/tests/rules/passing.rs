//! The card exchanges that follow a nil or a blind nil bid. Cards move between
//! hands here, so these cases check that nothing is lost, duplicated or shown
//! before both partners have chosen.

use super::*;

/// Dealer 3, team 0 trailing by 100: seat 0 bids blind nil, seat 2
/// looks and bids 4, seats 1 and 3 bid 3.
fn after_blind_nil(rules: RuleSet) -> Game {
    let mut game = game_with(rules, 3, MIXED, [0, 100]);
    ok(&mut game, 0, Action::Bid(Bid::BlindNil));
    bid(&mut game, 1, 3);
    ok(&mut game, 2, Action::LookAtHand);
    bid(&mut game, 2, 4);
    let events = bid(&mut game, 3, 3);
    assert_eq!(events.last(), Some(&Event::PassingStarted));
    game
}

#[test]
fn blind_nil_exchange_is_two_cards_nil_bidder_first() {
    let mut game = after_blind_nil(RuleSet::CLASSIC);
    assert_eq!(game.phase(), Phase::Passing);
    assert_eq!(game.legal(seat(0)), Legal::Pass { count: 2 });
    assert_eq!(
        game.legal(seat(2)),
        Legal::Wait,
        "the partner waits for the cards"
    );
    assert_eq!(
        game.apply(seat(2), Action::Pass(cards("6C 5C"))),
        Err(RuleError::NotYourTurn { turn: None })
    );

    let events = ok(&mut game, 0, Action::Pass(cards("AS KS")));
    assert_eq!(
        events,
        [Event::CardsPassed {
            from: seat(0),
            to: seat(2),
            cards: cards("AS KS")
        }]
    );
    assert_eq!(game.hand(seat(0)).len(), 11);
    assert_eq!(game.hand(seat(2)).len(), 15);
    assert_eq!(game.legal(seat(2)), Legal::Pass { count: 2 });
    // The receiver sees the cards he got; an opponent sees no pass at all.
    let partner_view: Vec<PassRecord> = game.view(Viewer::Seat(seat(2))).passes().copied().collect();
    assert_eq!(
        partner_view,
        [PassRecord {
            from: seat(0),
            to: seat(2),
            cards: cards("AS KS")
        }]
    );
    assert_eq!(game.view(Viewer::Seat(seat(1))).passes().count(), 0);
    assert_eq!(game.view(Viewer::Spectator).passes().count(), 0);

    let events = ok(&mut game, 2, Action::Pass(cards("6C 5C")));
    assert_eq!(
        events,
        [
            Event::CardsPassed {
                from: seat(2),
                to: seat(0),
                cards: cards("6C 5C")
            },
            Event::PlayStarted { leader: seat(0) },
        ]
    );
    assert_eq!(
        game.hand(seat(0)),
        (cards(MIXED[0]) - cards("AS KS")) | cards("6C 5C")
    );
    assert_eq!(game.hand(seat(2)).len(), 13);
    assert_eq!(game.phase(), Phase::Playing);
}

#[test]
fn simultaneous_exchange_moves_cards_only_when_both_have_chosen() {
    let rules = RuleSet {
        pass_order: PassOrder::Simultaneous,
        ..RuleSet::CLASSIC
    };
    let mut game = after_blind_nil(rules);
    assert_eq!(game.legal(seat(0)), Legal::Pass { count: 2 });
    assert_eq!(game.legal(seat(2)), Legal::Pass { count: 2 });

    let events = ok(&mut game, 2, Action::Pass(cards("6C 5C")));
    assert_eq!(events, [Event::PassChosen { seat: seat(2) }]);
    assert_eq!(game.hand(seat(2)), cards(MIXED[2]), "nothing moves yet");
    assert_eq!(game.view(Viewer::Seat(seat(2))).pass_chosen(), cards("6C 5C"));
    assert_eq!(game.view(Viewer::Seat(seat(0))).pass_chosen(), CardSet::EMPTY);
    assert_eq!(game.view(Viewer::Seat(seat(0))).passes().count(), 0);
    assert_eq!(
        game.apply(seat(2), Action::Pass(cards("8S 7S"))),
        Err(RuleError::NothingToPass)
    );

    let events = ok(&mut game, 0, Action::Pass(cards("AS KS")));
    assert_eq!(
        events,
        [
            Event::PassChosen { seat: seat(0) },
            Event::CardsPassed {
                from: seat(2),
                to: seat(0),
                cards: cards("6C 5C")
            },
            Event::CardsPassed {
                from: seat(0),
                to: seat(2),
                cards: cards("AS KS")
            },
            Event::PlayStarted { leader: seat(0) },
        ]
    );
    assert_eq!(
        game.hand(seat(0)),
        (cards(MIXED[0]) - cards("AS KS")) | cards("6C 5C")
    );
    assert_eq!(
        game.hand(seat(2)),
        (cards(MIXED[2]) - cards("6C 5C")) | cards("AS KS")
    );
}

#[test]
fn an_ordinary_nil_has_no_exchange_by_default() {
    let mut game = game_with(no_blind_nil(), 3, MIXED, [0, 0]);
    bid(&mut game, 0, 3);
    bid(&mut game, 1, 0);
    bid(&mut game, 2, 3);
    let events = bid(&mut game, 3, 3);
    assert_eq!(events.last(), Some(&Event::PlayStarted { leader: seat(0) }));
}

#[test]
fn an_ordinary_nil_exchanges_nil_pass_cards_when_the_house_says_so() {
    let rules = RuleSet {
        nil_pass: 1,
        ..no_blind_nil()
    };
    let mut game = game_with(rules, 3, MIXED, [0, 0]);
    bid(&mut game, 0, 3);
    bid(&mut game, 1, 0);
    bid(&mut game, 2, 3);
    bid(&mut game, 3, 3);
    assert_eq!(game.legal(seat(1)), Legal::Pass { count: 1 });
    assert_eq!(game.legal(seat(0)), Legal::Wait);
    ok(&mut game, 1, Action::Pass(cards("QS")));
    ok(&mut game, 3, Action::Pass(cards("2C")));
    assert_eq!(game.phase(), Phase::Playing);
    assert_eq!(game.passes().len(), 2);
}

#[test]
fn when_both_partners_bid_nil_they_exchange_once_at_once_with_the_larger_count() {
    let rules = RuleSet {
        nil_pass: 1,
        ..RuleSet::CLASSIC
    };
    let mut game = game_with(rules, 3, MIXED, [0, 100]);
    ok(&mut game, 0, Action::Bid(Bid::BlindNil));
    bid(&mut game, 1, 3);
    ok(&mut game, 2, Action::LookAtHand);
    bid(&mut game, 2, 0);
    bid(&mut game, 3, 3);
    assert_eq!(game.legal(seat(0)), Legal::Pass { count: 2 });
    assert_eq!(
        game.legal(seat(2)),
        Legal::Pass { count: 2 },
        "simultaneous, two cards"
    );
    ok(&mut game, 0, Action::Pass(cards("2S AC")));
    ok(&mut game, 2, Action::Pass(cards("5C 6C")));
    assert_eq!(game.passes().len(), 2);
    assert_eq!(game.phase(), Phase::Playing);
}

#[test]
fn a_wrong_pass_is_refused_and_changes_nothing() {
    let mut game = after_blind_nil(RuleSet::CLASSIC);
    let before = game.clone();
    let refusals = [
        (0, "AS", RuleError::WrongPassCount { expected: 2, got: 1 }),
        (0, "AS KS AH", RuleError::WrongPassCount { expected: 2, got: 3 }),
        (0, "", RuleError::WrongPassCount { expected: 2, got: 0 }),
        (0, "AS QS", RuleError::CardNotInHand { card: card("QS") }),
        (1, "QS JS", RuleError::NothingToPass),
    ];
    for (seat_index, given, error) in refusals {
        assert_eq!(
            game.apply(seat(seat_index), Action::Pass(cards(given))),
            Err(error)
        );
        assert_eq!(game, before);
    }
    assert_eq!(
        game.apply(seat(0), Action::Play(card("AS"))),
        Err(RuleError::WrongPhase {
            phase: Phase::Passing
        })
    );
    assert_eq!(game, before);
}
