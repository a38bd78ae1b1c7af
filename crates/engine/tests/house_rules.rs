//! The house rules beyond the rule book, one test (or a few) per rule
//! field, on written deals. The property tests play every preset at random;
//! these pin each rule to a case worked out by hand.

mod common;

use common::*;
use spades_engine::score::{Streaks, TeamHandScore, game_winner, score_team};
use spades_engine::{
    Action, Bid, BidChoices, Bidding, ByTeam, Event, Game, Leading, Legal, Preset, RuleError, RuleSet,
    SpadesLead, Team,
};

/// MIXED with seat 3 dealing, so that seat 0 bids and leads first. Spades
/// held: seat 0 three, seat 1 four, seat 2 three, seat 3 three.
fn mixed(rules: RuleSet) -> Game {
    game_with(rules, 3, MIXED, [0, 0])
}

fn choices(game: &Game, seat_index: u8) -> BidChoices {
    match game.legal(seat(seat_index)) {
        Legal::Bid(choices) => choices,
        other => panic!("seat {seat_index} may not bid: {other:?}"),
    }
}

fn refused_bid(game: &mut Game, seat_index: u8, tricks: u8) -> RuleError {
    game.apply(seat(seat_index), Action::Bid(Bid::new(tricks).unwrap()))
        .expect_err("the bid should be refused")
}

fn team_score(rules: &RuleSet, bids: [Bid; 2], tricks: [u8; 2]) -> TeamHandScore {
    score_team(rules, bids.into_iter().zip(tricks), 0, 0)
}

mod bidding {
    use super::*;

    #[test]
    fn board_makes_the_second_partner_bring_the_team_to_the_minimum() {
        let mut game = mixed(Preset::Board4.rules());
        // The first of each team bids freely.
        assert_eq!(choices(&game, 0), BidChoices::ALL);
        bid(&mut game, 0, 1);
        bid(&mut game, 1, 0);
        // Seat 2's partner bid 1: he must bid at least 3, and not nil.
        assert_eq!(choices(&game, 2), BidChoices::tricks(3, 13));
        assert_eq!(
            refused_bid(&mut game, 2, 2),
            RuleError::BidNotAllowed {
                choices: BidChoices::tricks(3, 13)
            }
        );
        bid(&mut game, 2, 3);
        // Seat 3's partner bid nil: he must bid 4 or more.
        assert_eq!(choices(&game, 3), BidChoices::tricks(4, 13));
        assert!(matches!(
            refused_bid(&mut game, 3, 0),
            RuleError::BidNotAllowed { .. }
        ));
        bid(&mut game, 3, 4);
    }

    #[test]
    fn suicide_has_one_partner_bid_nil_and_the_other_at_least_four() {
        let mut game = mixed(Preset::Suicide.rules());
        let nil_or_four_up = BidChoices::NIL.union(BidChoices::tricks(4, 13));
        assert_eq!(choices(&game, 0), nil_or_four_up);
        assert!(matches!(
            refused_bid(&mut game, 0, 3),
            RuleError::BidNotAllowed { .. }
        ));
        bid(&mut game, 0, 0);
        assert_eq!(choices(&game, 1), nil_or_four_up);
        bid(&mut game, 1, 5);
        // Partner of a nil bids 4 or more; partner of a number bids nil.
        assert_eq!(choices(&game, 2), BidChoices::tricks(4, 13));
        bid(&mut game, 2, 4);
        assert_eq!(choices(&game, 3), BidChoices::NIL);
        assert!(matches!(
            refused_bid(&mut game, 3, 4),
            RuleError::BidNotAllowed { .. }
        ));
        bid(&mut game, 3, 0);
        assert_eq!(game.phase(), spades_engine::Phase::Playing);
    }

    #[test]
    fn whiz_bids_the_spades_held_or_nil() {
        let mut game = mixed(Preset::Whiz.rules());
        assert_eq!(choices(&game, 0), BidChoices::NIL.union(BidChoices::tricks(3, 3)));
        assert!(matches!(
            refused_bid(&mut game, 0, 4),
            RuleError::BidNotAllowed { .. }
        ));
        bid(&mut game, 0, 3);
        assert_eq!(choices(&game, 1), BidChoices::NIL.union(BidChoices::tricks(4, 4)));
        bid(&mut game, 1, 0);
    }

    #[test]
    fn whiz_leaves_only_nil_to_a_player_without_spades() {
        let game = game_with(Preset::Whiz.rules(), 3, SUIT_EACH, [0, 0]);
        assert_eq!(choices(&game, 0), BidChoices::NIL);
    }

    #[test]
    fn mirror_bids_exactly_the_spades_held() {
        let mut game = mixed(Preset::Mirror.rules());
        assert_eq!(choices(&game, 0), BidChoices::tricks(3, 3));
        assert!(matches!(
            refused_bid(&mut game, 0, 0),
            RuleError::BidNotAllowed { .. }
        ));
        bid(&mut game, 0, 3);
        assert_eq!(choices(&game, 1), BidChoices::tricks(4, 4));
        // Seat 3 of SUIT_EACH holds all thirteen spades, the others none.
        let game = game_with(Preset::Mirror.rules(), 3, SUIT_EACH, [0, 0]);
        assert_eq!(choices(&game, 0), BidChoices::NIL);
    }

    #[test]
    fn no_nil_refuses_nil() {
        let mut game = mixed(Preset::NoNil.rules());
        assert_eq!(choices(&game, 0), BidChoices::tricks(1, 13));
        assert_eq!(
            refused_bid(&mut game, 0, 0),
            RuleError::BidNotAllowed {
                choices: BidChoices::tricks(1, 13)
            }
        );
    }

    #[test]
    fn nil_after_partner_waits_for_the_partners_number() {
        let rules = RuleSet {
            nil_after_partner: true,
            blind_nil: false,
            ..RuleSet::CLASSIC
        };
        let mut game = mixed(rules);
        assert!(!choices(&game, 0).has_nil());
        bid(&mut game, 0, 2);
        assert!(!choices(&game, 1).has_nil());
        bid(&mut game, 1, 3);
        assert!(choices(&game, 2).has_nil(), "his partner bid a number");
        bid(&mut game, 2, 0);
        assert!(choices(&game, 3).has_nil());
    }

    #[test]
    fn blind_nil_closed_by_the_bids_before_shows_the_cards() {
        // Team 0 trails by 200, so seats 0 and 2 are offered blind nil.
        let mut game = game_with(Preset::Suicide.rules(), 3, MIXED, [-200, 0]);
        assert_eq!(game.legal(seat(0)), Legal::BlindOrLook(BidChoices::NIL));
        assert!(game.is_hand_hidden(seat(2)));
        ok(&mut game, 0, Action::Bid(Bid::BlindNil));
        // In suicide seat 2 must now bid 4 or more: blind nil is gone, and
        // he is shown his cards as his turn comes.
        let events = bid(&mut game, 1, 4);
        assert!(
            events.contains(&Event::LookedAtHand { seat: seat(2) }),
            "{events:?}"
        );
        assert!(!game.is_hand_hidden(seat(2)));
        assert_eq!(choices(&game, 2), BidChoices::tricks(4, 13));
        assert_eq!(
            game.check(seat(2), Action::Bid(Bid::BlindNil)),
            Err(RuleError::BlindNilNotAllowed)
        );
    }
}

mod leading {
    use super::*;

    fn bid_ones(game: &mut Game) {
        bid_round(game, [Bid::Tricks(1); 4]);
    }

    #[test]
    fn the_dealers_left_leads_by_default() {
        let mut game = mixed(RuleSet::CLASSIC);
        bid_ones(&mut game);
        assert_eq!(game.to_act().first(), Some(seat(0)));
    }

    #[test]
    fn the_dealer_leads_when_the_rule_says_so() {
        let mut game = mixed(RuleSet {
            leading: Leading::Dealer,
            ..RuleSet::CLASSIC
        });
        bid_ones(&mut game);
        assert_eq!(game.to_act().first(), Some(seat(3)));
    }

    #[test]
    fn the_holder_of_the_two_of_clubs_leads_it() {
        let mut game = mixed(Preset::TwoOfClubs.rules());
        bid_ones(&mut game);
        // Seat 3 holds the two of clubs, and it is his only lead.
        assert_eq!(game.to_act().first(), Some(seat(3)));
        assert_eq!(game.legal_plays(seat(3)), cards("2C"));
        assert_eq!(
            game.apply(seat(3), Action::Play(card("4C"))),
            Err(RuleError::MustLead { card: card("2C") })
        );
        play(&mut game, 3, "2C");
        // The second trick is led freely by the winner.
        play(&mut game, 0, "AC");
        play(&mut game, 1, "7C");
        play(&mut game, 2, "5C");
        assert_eq!(game.to_act().first(), Some(seat(0)));
        assert!(game.legal_plays(seat(0)).len() > 1);
    }

    #[test]
    fn spades_may_be_led_at_any_time_when_the_rule_says_so() {
        let mut game = mixed(RuleSet {
            spades_lead: SpadesLead::AnyTime,
            ..RuleSet::CLASSIC
        });
        bid_ones(&mut game);
        assert!(game.legal_plays(seat(0)).contains(card("AS")));
        play(&mut game, 0, "AS");
    }

    #[test]
    fn new_yorks_spades_open_from_the_fourth_trick() {
        let mut game = mixed(RuleSet {
            spades_lead: SpadesLead::FromFourthTrick,
            ..RuleSet::CLASSIC
        });
        bid_ones(&mut game);
        // Three tricks of clubs and hearts, no spade played.
        for (leader, trick) in [
            (0, ["AC", "9C", "6C", "4C"]),
            (0, ["KC", "8C", "5C", "3C"]),
            (0, ["AH", "JH", "8H", "4H"]),
        ] {
            assert!(!game.legal_plays(seat(leader)).contains(card("AS")));
            for (i, text) in trick.iter().enumerate() {
                play(&mut game, (leader + i as u8) % 4, text);
            }
        }
        assert!(!game.spades_broken());
        assert!(
            game.legal_plays(seat(0)).contains(card("AS")),
            "the fourth trick may open with a spade"
        );
    }
}

mod scoring {
    use super::*;

    #[test]
    fn ten_for_two_hundred_and_the_moon() {
        let rules = Preset::TenForTwoHundred.rules();
        let made = team_score(&rules, [Bid::Tricks(6), Bid::Tricks(4)], [7, 4]);
        assert_eq!(
            (made.contract_points, made.bag_points, made.change),
            (200, 1, 201)
        );
        let set = team_score(&rules, [Bid::Tricks(6), Bid::Tricks(4)], [5, 4]);
        assert_eq!((set.contract_points, set.change, set.set), (-200, -200, true));
        let moon = team_score(&rules, [Bid::Tricks(7), Bid::Tricks(6)], [7, 6]);
        assert_eq!(moon.change, 500);
        let moon_alone = RuleSet {
            moon: true,
            ..RuleSet::CLASSIC
        };
        assert_eq!(
            team_score(&moon_alone, [Bid::Tricks(7), Bid::Tricks(6)], [7, 6]).change,
            200
        );
        assert_eq!(
            team_score(&moon_alone, [Bid::Tricks(7), Bid::Tricks(6)], [7, 5]).change,
            -200
        );
        // Without the rules, 10 and 13 are worth ten a trick.
        assert_eq!(
            team_score(&RuleSet::CLASSIC, [Bid::Tricks(6), Bid::Tricks(4)], [6, 4]).change,
            100
        );
    }

    #[test]
    fn bags_can_cost_a_point_each_with_no_penalty() {
        let rules = Preset::MinusBags.rules();
        let s = score_team(
            &rules,
            [Bid::Tricks(3), Bid::Tricks(2)].into_iter().zip([5, 4]),
            0,
            8,
        );
        assert_eq!(
            (s.contract_points, s.bags_taken, s.bag_points, s.bag_penalty),
            (50, 4, -4, 0)
        );
        assert_eq!(s.change, 46);
    }

    #[test]
    fn five_bags_cost_fifty() {
        let rules = Preset::Bags5.rules();
        let s = score_team(
            &rules,
            [Bid::Tricks(3), Bid::Tricks(2)].into_iter().zip([4, 3]),
            0,
            3,
        );
        assert_eq!((s.bags_taken, s.bag_penalty, s.bags), (2, 50, 0));
        assert_eq!(s.change, 50 + 2 - 50);
    }

    #[test]
    fn nil_is_worth_fifty_and_blind_nil_a_hundred_in_nil_50() {
        let rules = Preset::Nil50.rules();
        assert_eq!(
            team_score(&rules, [Bid::Nil, Bid::Tricks(3)], [0, 3]).nil_points,
            50
        );
        assert_eq!(
            team_score(&rules, [Bid::BlindNil, Bid::Tricks(3)], [1, 3]).nil_points,
            -100
        );
    }

    #[test]
    fn too_many_overtricks_set_a_contract_below_ten() {
        let rules = RuleSet {
            max_overtricks: Some(2),
            ..RuleSet::CLASSIC
        };
        assert_eq!(
            team_score(&rules, [Bid::Tricks(3), Bid::Tricks(2)], [4, 3]).change,
            52
        );
        let set = team_score(&rules, [Bid::Tricks(3), Bid::Tricks(2)], [5, 3]);
        assert_eq!((set.set, set.contract_points, set.bags_taken), (true, -50, 0));
        // A contract of 10 is not limited.
        assert!(!team_score(&rules, [Bid::Tricks(6), Bid::Tricks(4)], [7, 6]).set);
    }

    #[test]
    fn taking_twice_the_contract_sets_it_under_set_at_double() {
        let rules = RuleSet {
            set_at_double: true,
            ..RuleSet::CLASSIC
        };
        assert!(!team_score(&rules, [Bid::Tricks(2), Bid::Tricks(2)], [4, 3]).set);
        let set = team_score(&rules, [Bid::Tricks(2), Bid::Tricks(2)], [4, 4]);
        assert_eq!((set.set, set.change), (true, -40));
    }
}

mod end_of_game {
    use super::*;

    fn streaks(rules: &RuleSet, hands: &[[TeamHandScore; 2]]) -> Streaks {
        hands.iter().fold(Streaks::default(), |streaks, scores| {
            streaks.after(rules, &ByTeam::from(*scores))
        })
    }

    fn hand(set: [bool; 2]) -> [TeamHandScore; 2] {
        set.map(|set| TeamHandScore {
            contract: 4,
            set,
            ..TeamHandScore::default()
        })
    }

    #[test]
    fn two_sets_in_a_row_lose_the_game() {
        let rules = RuleSet {
            sets_to_lose: Some(2),
            ..RuleSet::CLASSIC
        };
        let once = streaks(&rules, &[hand([true, false])]);
        assert_eq!(game_winner(&rules, &ByTeam::from([0, 0]), 1, &once), None);
        let twice = streaks(&rules, &[hand([true, false]), hand([true, false])]);
        assert_eq!(
            game_winner(&rules, &ByTeam::from([300, 0]), 2, &twice),
            Some(Team::ALL[1])
        );
        // A made contract in between starts the count again.
        let broken = streaks(
            &rules,
            &[hand([true, false]), hand([false, false]), hand([true, false])],
        );
        assert_eq!(game_winner(&rules, &ByTeam::from([0, 0]), 3, &broken), None);
        // Both teams out together: the higher score wins.
        let both = streaks(&rules, &[hand([true, true]), hand([true, true])]);
        assert_eq!(
            game_winner(&rules, &ByTeam::from([-80, -40]), 2, &both),
            Some(Team::ALL[1])
        );
        // Off by default.
        assert_eq!(
            game_winner(&RuleSet::CLASSIC, &ByTeam::from([0, 0]), 2, &twice),
            None
        );
    }

    #[test]
    fn a_boston_wins_the_game() {
        let rules = RuleSet {
            boston_wins: true,
            ..RuleSet::CLASSIC
        };
        let boston = team_score(&rules, [Bid::Tricks(6), Bid::Tricks(4)], [7, 6]);
        let other = TeamHandScore::default();
        let after = Streaks::default().after(&rules, &ByTeam::from([other, boston]));
        assert_eq!(after.boston, Some(Team::ALL[1]));
        assert_eq!(
            game_winner(&rules, &ByTeam::from([400, -100]), 1, &after),
            Some(Team::ALL[1])
        );
        // Thirteen tricks on a contract below 10 is no Boston.
        let small = team_score(&rules, [Bid::Tricks(3), Bid::Tricks(4)], [7, 6]);
        assert_eq!(
            Streaks::default()
                .after(&rules, &ByTeam::from([other, small]))
                .boston,
            None
        );
    }
}

mod rule_sets {
    use super::*;

    #[test]
    fn impossible_combinations_are_refused_with_the_reason() {
        let cases = [
            (
                RuleSet {
                    bidding: Bidding::Whiz,
                    min_team_bid: 4,
                    ..RuleSet::CLASSIC
                },
                "min_team_bid",
            ),
            (
                RuleSet {
                    bidding: Bidding::Suicide,
                    nil: false,
                    blind_nil: false,
                    ..RuleSet::CLASSIC
                },
                "nil",
            ),
            (
                RuleSet {
                    bidding: Bidding::Mirror,
                    ..RuleSet::CLASSIC
                },
                "blind_nil",
            ),
            (
                RuleSet {
                    nil: false,
                    ..RuleSet::CLASSIC
                },
                "blind_nil",
            ),
            (
                RuleSet {
                    min_team_bid: 14,
                    ..RuleSet::CLASSIC
                },
                "min_team_bid",
            ),
            (
                RuleSet {
                    bag_value: 2,
                    ..RuleSet::CLASSIC
                },
                "bag_value",
            ),
            (
                RuleSet {
                    sets_to_lose: Some(0),
                    ..RuleSet::CLASSIC
                },
                "sets_to_lose",
            ),
        ];
        for (rules, field) in cases {
            let error = rules.validate().expect_err(field);
            assert_eq!(error.field, field, "{error}");
            assert!(
                error.to_string().len() > field.len() + 10,
                "a reason for people: {error}"
            );
        }
    }
}

mod packs {
    use super::*;
    use spades_engine::{Card, CardSet, Deck, Seat, Suit};

    /// A deal of the joker pack, worked out by hand (seat 3 deals, so seat
    /// 0 bids and leads first):
    ///
    /// - seat 0: the big joker, 3S and eleven hearts;
    /// - seat 1: the little joker, 4S, AH and ten clubs;
    /// - seat 2: 2S, AS, KC, AC and nine diamonds;
    /// - seat 3: nine spades from KS down and four diamonds.
    const JOKER_DEAL: [&str; 4] = [
        "BJ 3S 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
        "LJ 4S AH 3C 4C 5C 6C 7C 8C 9C TC JC QC",
        "2S AS KC AC 2D 3D 4D 5D 6D 7D 8D 9D TD",
        "KS QS JS TS 9S 8S 7S 6S 5S JD QD KD AD",
    ];

    fn jokers(rules: RuleSet) -> Game {
        let game = game_with(rules, 3, JOKER_DEAL, [0, 0]);
        assert_eq!(game.hand(seat(2)).len(), 13);
        game
    }

    fn ones(game: &mut Game) {
        bid_round(game, [Bid::Tricks(1); 4]);
    }

    fn trick_winner(events: &[Event]) -> Seat {
        events
            .iter()
            .find_map(|event| match event {
                Event::TrickWon { winner, .. } => Some(*winner),
                _ => None,
            })
            .expect("the trick is complete")
    }

    #[test]
    fn jokers_follow_as_spades_and_rank_above_the_raised_two_and_the_ace() {
        let mut game = jokers(RuleSet {
            spades_lead: SpadesLead::AnyTime,
            ..Preset::Jokers.rules()
        });
        ones(&mut game);
        play(&mut game, 0, "3S");
        // The little joker is a spade: seat 1 must follow with it or 4S.
        assert_eq!(game.legal_plays(seat(1)), cards("LJ 4S"));
        play(&mut game, 1, "4S");
        // "2S" names the raised two, which beats the king.
        play(&mut game, 2, "2S");
        let won = play(&mut game, 3, "KS");
        assert_eq!(trick_winner(&won), seat(2));

        play(&mut game, 2, "AS");
        play(&mut game, 3, "QS");
        play(&mut game, 0, "BJ");
        let won = play(&mut game, 1, "LJ");
        assert_eq!(trick_winner(&won), seat(0), "the big joker beats the little one");
    }

    #[test]
    fn a_joker_trumps_a_plain_suit_it_cannot_follow() {
        let mut game = jokers(RuleSet {
            spades_lead: SpadesLead::AnyTime,
            ..Preset::Jokers.rules()
        });
        ones(&mut game);
        // Seat 0 leads a heart; seat 1 must follow with his only heart.
        play(&mut game, 0, "KH");
        assert_eq!(game.legal_plays(seat(1)), cards("AH"));
        play(&mut game, 1, "AH");
        // Seat 2 has no heart: anything goes, and his raised two trumps.
        assert_eq!(game.legal_plays(seat(2)), game.hand(seat(2)));
        play(&mut game, 2, "2S");
        let won = play(&mut game, 3, "KS");
        assert_eq!(trick_winner(&won), seat(2));
        assert!(game.spades_broken());
        // Seat 2 leads a spade; seat 0 holds the big joker and 3S, both
        // spades, and no other spade.
        play(&mut game, 2, "AS");
        play(&mut game, 3, "5S");
        assert_eq!(game.legal_plays(seat(0)), cards("BJ 3S"));
    }

    #[test]
    fn the_lowest_club_leads_when_the_two_is_out_of_the_pack() {
        let mut game = jokers(RuleSet {
            leading: Leading::TwoOfClubs,
            ..Preset::Jokers.rules()
        });
        ones(&mut game);
        // Seat 1 holds 3C, the lowest club of this pack.
        assert_eq!(game.to_act().first(), Some(seat(1)));
        assert_eq!(game.legal_plays(seat(1)), cards("3C"));
        let refused = game.apply(seat(1), Action::Play(card("QC"))).unwrap_err();
        assert_eq!(refused, RuleError::MustLead { card: card("3C") });
    }

    #[test]
    fn whiz_counts_the_jokers_among_the_spades() {
        let game = jokers(RuleSet {
            bidding: Bidding::Whiz,
            ..Preset::Jokers.rules()
        });
        // Seat 0 holds the big joker and 3S: he bids 2 or nil.
        assert_eq!(choices(&game, 0), BidChoices::from_numbers([0, 2]));
    }

    #[test]
    fn each_pack_deals_its_own_52_cards() {
        for (preset, deck) in [
            (Preset::Classic, Deck::Standard),
            (Preset::Jokers, Deck::Jokers),
            (Preset::DeuceHigh, Deck::DeuceHigh),
            (Preset::NewYork, Deck::NewYorkCity),
        ] {
            for seed in 0..20 {
                let game = Game::new(preset.rules(), seed).unwrap();
                let dealt = Seat::ALL
                    .iter()
                    .fold(CardSet::EMPTY, |all, &s| all | game.hand(s));
                assert_eq!(dealt, deck.cards(), "{preset} seed {seed}");
            }
        }
        let jokers = Deck::Jokers.cards();
        assert!(jokers.contains(Card::BIG_JOKER) && jokers.contains(Card::LITTLE_JOKER));
        assert!(!jokers.contains(card("2C")) && !jokers.contains(card("2H")));
        assert_eq!(jokers.in_suit(Suit::Spades).len(), 15);
    }

    #[test]
    fn with_the_deuce_high_the_two_of_spades_beats_the_ace() {
        let hands = [
            "AS 3S 4S 5S 6S 7S 8S 9S TS JS QS KS 2H",
            "2S AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H",
            "AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
            "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C",
        ];
        let mut game = game_with(
            RuleSet {
                spades_lead: SpadesLead::AnyTime,
                ..Preset::DeuceHigh.rules()
            },
            3,
            hands,
            [0, 0],
        );
        ones(&mut game);
        play(&mut game, 0, "AS");
        play(&mut game, 1, "2S");
        play(&mut game, 2, "AD");
        let won = play(&mut game, 3, "AC");
        assert_eq!(trick_winner(&won), seat(1));
        // The record of the hand names the card as people do.
        assert_eq!(game.tricks()[0].cards[1].to_string(), "2S");
    }
}

mod unbid_first_hand {
    use super::*;
    use spades_engine::{Phase, Seat};

    #[test]
    fn the_first_hand_is_played_without_bids_for_ten_points_a_trick() {
        let rules = RuleSet {
            unbid_first_hand: true,
            leading: Leading::TwoOfClubs,
            ..RuleSet::CLASSIC
        };
        let mut game = mixed(rules);
        // No bidding: the holder of the two of clubs (seat 3) leads at once.
        assert_eq!(game.phase(), Phase::Playing);
        assert!(game.is_unbid_hand());
        assert_eq!(game.to_act().first(), Some(seat(3)));
        assert!(matches!(
            game.apply(seat(0), Action::Bid(Bid::Tricks(3))),
            Err(RuleError::WrongPhase { .. })
        ));
        // Everyone plays his lowest legal card to the end of the hand.
        let mut events = Vec::new();
        while game.hand_number() == 0 {
            let seat = game.to_act().first().unwrap();
            let card = game.legal_plays(seat).lowest().unwrap();
            events.extend(game.apply(seat, Action::Play(card)).unwrap().iter().cloned());
        }
        let record = game.last_hand().unwrap();
        assert!(record.bids.is_empty());
        let won = |team: Team| -> u8 { team.seats().iter().map(|&s| record.tricks_won[s]).sum() };
        for team in Team::ALL {
            assert_eq!(record.hand_score[team], 10 * i32::from(won(team)));
            assert_eq!(record.bags[team], 0);
        }
        assert_eq!(won(Team::ALL[0]) + won(Team::ALL[1]), 13);
        // The second hand is bid as usual.
        assert_eq!(game.phase(), Phase::Bidding);
        assert!(!game.is_unbid_hand());
        let started = events
            .iter()
            .position(|event| matches!(event, Event::HandStarted { .. }))
            .unwrap();
        assert!(
            !events[started..]
                .iter()
                .any(|event| matches!(event, Event::PlayStarted { .. }))
        );
        let bidder: Seat = game.to_act().first().unwrap();
        assert!(matches!(game.legal(bidder), Legal::Bid(_)));
    }
}

mod solo {
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
}
