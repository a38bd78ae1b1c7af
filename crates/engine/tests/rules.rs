//! One test (or more) for every rule of the rule book, grouped and named as
//! the rule book names them.

mod common;

use common::*;
use spades_engine::{
    Action, Bid, BidChoices, CardSet, Event, Game, Legal, PassOrder, PassRecord, Phase, RuleError, RuleSet,
    Seat, Suit, Team, Viewer,
};

fn no_blind_nil() -> RuleSet {
    RuleSet {
        blind_nil: false,
        ..RuleSet::CLASSIC
    }
}

mod seats_teams_dealing {
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
}

mod bidding {
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
        let score = spades_engine::score::score_team(
            &rules,
            [Bid::Nil, Bid::Tricks(3)].into_iter().zip([0, 3]),
            0,
            0,
        );
        assert_eq!(score.contract, 3);
        let score =
            spades_engine::score::score_team(&rules, [Bid::BlindNil, Bid::Nil].into_iter().zip([0, 0]), 0, 0);
        assert_eq!(score.contract, 0);
    }
}

mod passing {
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
}

mod play {
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
}

mod scoring {
    use super::*;
    use spades_engine::score::score_team;

    const R: RuleSet = RuleSet::CLASSIC;

    #[test]
    fn a_made_contract_scores_ten_a_trick_bid_and_one_a_bag() {
        let s = score_team(&R, [Bid::Tricks(3), Bid::Tricks(2)].into_iter().zip([4, 3]), 0, 0);
        assert_eq!(
            (s.contract_points, s.bags_taken, s.change, s.score, s.bags),
            (50, 2, 52, 52, 2)
        );
    }

    #[test]
    fn a_set_contract_loses_ten_a_trick_bid_and_takes_no_bags() {
        let s = score_team(
            &R,
            [Bid::Tricks(4), Bid::Tricks(3)].into_iter().zip([2, 4]),
            100,
            3,
        );
        assert_eq!(
            (s.contract_points, s.bags_taken, s.change, s.score, s.bags),
            (-70, 0, -70, 30, 3)
        );
    }

    #[test]
    fn a_contract_of_zero_scores_nothing_by_itself() {
        let s = score_team(&R, [Bid::Nil, Bid::Nil].into_iter().zip([0, 0]), 0, 0);
        assert_eq!((s.contract_points, s.nil_points, s.change), (0, 200, 200));
    }

    #[test]
    fn nil_is_worth_100_and_blind_nil_200_either_way() {
        assert_eq!(
            score_team(&R, [Bid::Nil, Bid::Tricks(3)].into_iter().zip([0, 3]), 0, 0).nil_points,
            100
        );
        assert_eq!(
            score_team(&R, [Bid::Nil, Bid::Tricks(3)].into_iter().zip([1, 3]), 0, 0).nil_points,
            -100
        );
        assert_eq!(
            score_team(&R, [Bid::BlindNil, Bid::Tricks(3)].into_iter().zip([0, 3]), 0, 0).nil_points,
            200
        );
        assert_eq!(
            score_team(&R, [Bid::BlindNil, Bid::Tricks(3)].into_iter().zip([2, 3]), 0, 0).nil_points,
            -200
        );
        let house = RuleSet {
            nil_value: 50,
            blind_nil_value: 100,
            ..R
        };
        assert_eq!(
            score_team(&house, [Bid::Nil, Bid::BlindNil].into_iter().zip([0, 1]), 0, 0).nil_points,
            50 - 100
        );
    }

    #[test]
    fn a_nil_bidders_tricks_never_help_the_contract_but_are_bags() {
        // The partner bid 4 and took 3; the nil bidder's 2 tricks do not
        // make the contract, and each is a bag worth a point.
        let s = score_team(&R, [Bid::Nil, Bid::Tricks(4)].into_iter().zip([2, 3]), 0, 0);
        assert_eq!(s.counted_tricks, 3);
        assert_eq!(s.contract_points, -40);
        assert_eq!(s.nil_points, -100);
        assert_eq!(s.bags_taken, 2);
        assert_eq!(s.change, -40 - 100 + 2);
    }

    #[test]
    fn each_time_bags_reach_ten_the_team_loses_100_and_ten_come_off() {
        let s = score_team(&R, [Bid::Tricks(1), Bid::Tricks(1)].into_iter().zip([6, 7]), 0, 9);
        assert_eq!(s.bags_taken, 11);
        assert_eq!(s.bag_penalty, 200, "9 + 11 = 20 bags: the limit is reached twice");
        assert_eq!(s.bags, 0);
        assert_eq!(s.change, 20 + 11 - 200);
        let house = RuleSet {
            bag_limit: 5,
            bag_penalty: 50,
            ..R
        };
        let s = score_team(
            &house,
            [Bid::Tricks(2), Bid::Tricks(2)].into_iter().zip([3, 3]),
            0,
            3,
        );
        assert_eq!((s.bag_penalty, s.bags), (50, 0));
    }

    /// The rule book's worked example: a team on 337 points with 7 bags
    /// bids 5 (3 and 2) and takes 7, 8, 9 or 4 tricks.
    #[test]
    fn the_worked_example() {
        let cases = [
            (7, 52, 389, 9),
            (8, 53 - 100, 290, 0),
            (9, 54 - 100, 291, 1),
            (4, -50, 287, 7),
        ];
        for (taken, change, score, bags) in cases {
            let s = score_team(
                &R,
                [Bid::Tricks(3), Bid::Tricks(2)].into_iter().zip([taken - 2, 2]),
                337,
                7,
            );
            assert_eq!(
                (s.change, s.score, s.bags),
                (change, score, bags),
                "taking {taken}"
            );
        }
    }

    #[test]
    fn a_played_hand_is_scored_into_the_running_totals() {
        // One suit each and dealer 3: seat 3 holds every spade and wins all
        // thirteen tricks whatever anyone plays.
        let mut game = game_with(no_blind_nil(), 3, SUIT_EACH, [120, 40]);
        bid_round(&mut game, [Bid::Nil, Bid::Tricks(3), Bid::Nil, Bid::Tricks(4)]);
        play_hand_lowest(&mut game);
        let record = game.last_hand().unwrap();
        assert_eq!(record.tricks_won.0, [0, 0, 0, 13]);
        // Team 0: two nils made. Team 1: 7 bid, 13 taken: 70 + 6 bags.
        assert_eq!(record.hand_score.as_slice(), [200, 76]);
        assert_eq!(record.score.as_slice(), [320, 116]);
        assert_eq!(record.bags.as_slice(), [0, 6]);
        assert_eq!(game.score().as_slice(), [320, 116]);
    }
}

/// Plays the lowest legal card for whoever is to play until the hand ends.
fn play_hand_lowest(game: &mut Game) -> Vec<Event> {
    let hand = game.hand_number();
    let mut events = Vec::new();
    while game.hand_number() == hand && !game.is_over() {
        let seat = game.to_act().first().unwrap();
        let card = game.legal_plays(seat).lowest().unwrap();
        events.extend(game.apply(seat, Action::Play(card)).unwrap());
    }
    events
}

mod end_of_game {
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
}

/// Imagined positions, which bots look ahead on.
mod imagining {
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
}

/// Positions written out in full.
mod positions {
    use super::*;
    use spades_engine::{BySeat, ByTeam, Position, PositionError, SeatSet, TrickRecord};

    fn trick(leader: u8, cards_text: &str, winner: u8) -> TrickRecord {
        let played: Vec<_> = cards_text.split_whitespace().map(card).collect();
        TrickRecord {
            leader: seat(leader),
            cards: [played[0], played[1], played[2], played[3]].into(),
            winner: seat(winner),
        }
    }

    /// The MIXED deal after its first trick (seat 0 leads AC and wins it),
    /// with seat 0 to lead again.
    fn after_one_trick(tricks: &[TrickRecord]) -> Result<Game, PositionError> {
        let mut hands = BySeat(MIXED.map(cards));
        for (i, card_text) in ["AC", "7C", "5C", "2C"].into_iter().enumerate() {
            hands.0[i] -= cards(card_text);
        }
        let position = Position {
            hand_number: 0,
            dealer: seat(3),
            score: ByTeam::from([0, 0]),
            bags: ByTeam::from([0, 0]),
            bids: BySeat([Bid::Tricks(7), Bid::Tricks(3), Bid::Tricks(1), Bid::Tricks(2)]),
            hands,
            tricks,
            trick: &[],
            passes: &[],
        };
        Game::from_position(RuleSet::CLASSIC, 1, &position)
    }

    #[test]
    fn a_consistent_position_is_set_up_in_play() {
        let game = after_one_trick(&[trick(0, "AC 7C 5C 2C", 0)]).unwrap();
        assert_eq!(game.phase(), Phase::Playing);
        assert_eq!(game.to_act(), SeatSet::single(seat(0)));
        assert_eq!(game.tricks_won()[seat(0)], 1);
        assert_eq!(game.dealt()[seat(1)], cards(MIXED[1]));
    }

    #[test]
    fn inconsistent_positions_are_refused_with_the_reason() {
        assert_eq!(
            after_one_trick(&[trick(1, "7C 5C 2C AC", 0)]).unwrap_err(),
            PositionError::WrongLeader { trick: 0 }
        );
        assert_eq!(
            after_one_trick(&[trick(0, "AC 7C 5C 2C", 1)]).unwrap_err(),
            PositionError::WrongWinner { trick: 0 }
        );
        assert_eq!(
            after_one_trick(&[trick(0, "AC 7C 5C AS", 3)]).unwrap_err(),
            PositionError::CardTwice { card: card("AS") }
        );
        assert_eq!(
            after_one_trick(&[]).unwrap_err(),
            PositionError::HandSize { seat: seat(0) }
        );
    }
}
