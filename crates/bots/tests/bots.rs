//! The bots' behaviour: legal in every game, and sound in the textbook
//! positions of partnership Spades.

use proptest::prelude::*;
use spades_bots::knowledge::Knowledge;
use spades_bots::sample::{sample_hands, sample_plausible};
use spades_bots::{AnyPlayer, BasicBot, Budget, Kind, Player, StrongBot, play_out};
use spades_engine::{
    Action, Bid, BidChoices, CardSet, Game, GameRng, Legal, Phase, Preset, RuleSet, Seat, Suit, Viewer,
};

// The engine's own test helpers: cards and games written as text.
#[path = "../../engine/tests/common/mod.rs"]
mod common;

use common::{card, cards, game_with, seat};

fn act(game: &mut Game, seat_index: u8, action: Action) {
    game.apply(seat(seat_index), action)
        .unwrap_or_else(|error| panic!("seat {seat_index} {action}: {error}"));
}

/// Bids in order from the dealer's left.
fn bids(game: &mut Game, bids: [Bid; 4]) {
    let first = game.dealer().next();
    for (i, bid) in bids.into_iter().enumerate() {
        act(game, first.plus(i as u8).index() as u8, Action::Bid(bid));
    }
}

fn play(game: &mut Game, seat_index: u8, text: &str) {
    act(game, seat_index, Action::Play(card(text)));
}

fn basic_choice(game: &Game, seat_index: u8) -> Action {
    BasicBot
        .act(&game.view(Viewer::Seat(seat(seat_index))))
        .expect("the bot is expected to act")
}

fn strong(samples: u32, seed: u64) -> StrongBot {
    StrongBot::new(seed, Budget { samples, time: None })
}

const NO_BLIND: RuleSet = RuleSet {
    blind_nil: false,
    ..RuleSet::CLASSIC
};

/// Seat 0 holds a hand fit for nil; the others are ordinary. Seat 2 (his
/// partner) holds the high hearts and diamonds.
const NIL_DEAL: [&str; 4] = [
    "2S 3S 5H 2H 3H 4D 2D 3D 2C 3C 4C 5C 6C",
    "AS KS QS 4H 6H 7H 5D 6D 7D 7C 8C 9C TC",
    "4S 5S 6S AH 9H 8H AD KD QD JD AC KC QC",
    "7S 8S 9S TS JS TH JH QH KH TD 9D 8D JC",
];

mod nil_play {
    use super::*;

    #[test]
    fn overtakes_the_nil_bidder_when_he_is_winning() {
        // Seat 0 leads (the dealer is seat 3) and bid nil.
        let mut game = game_with(NO_BLIND, 3, NIL_DEAL, [0, 0]);
        bids(
            &mut game,
            [Bid::Nil, Bid::Tricks(4), Bid::Tricks(5), Bid::Tricks(3)],
        );
        play(&mut game, 0, "5H");
        play(&mut game, 1, "4H");
        // Seat 2 holds AH 9H 8H: any of them overtakes, and he must.
        let Action::Play(choice) = basic_choice(&game, 2) else {
            panic!("a play")
        };
        assert_eq!(choice.suit(), Suit::Hearts);
        assert!(
            choice.rank() > card("5H").rank(),
            "played {choice}, under his partner"
        );
    }

    #[test]
    fn plays_high_when_the_nil_bidder_plays_after_him() {
        // Seat 1 leads (the dealer is seat 0); seat 2 plays second and his
        // nil partner, seat 0, plays last.
        let mut game = game_with(NO_BLIND, 0, NIL_DEAL, [0, 0]);
        bids(
            &mut game,
            [Bid::Tricks(4), Bid::Tricks(5), Bid::Tricks(3), Bid::Nil],
        );
        play(&mut game, 1, "5D");
        assert_eq!(basic_choice(&game, 2), Action::Play(card("AD")));
    }

    #[test]
    fn leads_a_top_card_for_the_nil_bidder() {
        // Seat 2 won the first trick and leads the second.
        let mut game = game_with(NO_BLIND, 3, NIL_DEAL, [0, 0]);
        bids(
            &mut game,
            [Bid::Nil, Bid::Tricks(4), Bid::Tricks(5), Bid::Tricks(3)],
        );
        play(&mut game, 0, "2C");
        play(&mut game, 1, "7C");
        play(&mut game, 2, "AC");
        play(&mut game, 3, "JC");
        let Action::Play(lead) = basic_choice(&game, 2) else {
            panic!("a play")
        };
        assert!(
            [card("AH"), card("AD"), card("KC")].contains(&lead),
            "led {lead}, not a top card"
        );
    }

    #[test]
    fn an_opponent_stays_under_the_nil_bidder() {
        // Seat 1 plays after the nil bidder and can stay under his card.
        let mut game = game_with(NO_BLIND, 3, NIL_DEAL, [0, 0]);
        bids(
            &mut game,
            [Bid::Nil, Bid::Tricks(4), Bid::Tricks(5), Bid::Tricks(3)],
        );
        play(&mut game, 0, "5H");
        assert_eq!(basic_choice(&game, 1), Action::Play(card("4H")));
    }
}

mod passing {
    use super::*;

    const TWO_CARDS_AFTER_NIL: RuleSet = RuleSet {
        nil_pass: 2,
        blind_nil: false,
        ..RuleSet::CLASSIC
    };

    const DEAL: [&str; 4] = [
        "AS 2S 3S KH 2H 3H 4D 5D 6D 2C 3C 4C 5C",
        "KS QS 4H 6H 7H 8H 7D 8D 9D 6C 7C 8C 9C",
        "4S 5S 6S AH 9H 5H AD KD QD JD AC KC QC",
        "7S 8S 9S TS JS TH JH QH 2D TD 3D TC JC",
    ];

    #[test]
    fn the_nil_bidder_sheds_his_dangerous_cards_and_his_partner_sends_low_ones() {
        let mut game = game_with(TWO_CARDS_AFTER_NIL, 3, DEAL, [0, 0]);
        bids(
            &mut game,
            [Bid::Nil, Bid::Tricks(3), Bid::Tricks(5), Bid::Tricks(4)],
        );
        assert_eq!(game.phase(), Phase::Passing);
        // The nil bidder gives first: his ace of spades and his king of hearts.
        let given = basic_choice(&game, 0);
        assert_eq!(given, Action::Pass(cards("AS KH")));
        act(&mut game, 0, given);
        // His partner sends back his two lowest cards.
        assert_eq!(basic_choice(&game, 2), Action::Pass(cards("4S 5H")));
    }
}

mod bidding {
    use super::*;

    #[test]
    fn a_strong_hand_bids_its_tricks_and_a_weak_one_bids_nil() {
        let deal = [
            "AS KS QS JS 5S AH KH AD KD 2C 3C 4C 5C",
            "2S 3S 4H 2H 3H 5H 2D 3D 4D 6C 7C 8C 9C",
            "6S 7S 8S QH JH TH 9H QD JD TD TC JC QC",
            "9S TS 4S 6H 7H 8H 5D 6D 7D 8D AC KC 9D",
        ];
        let mut game = game_with(NO_BLIND, 3, deal, [0, 0]);
        let Action::Bid(Bid::Tricks(tricks)) = basic_choice(&game, 0) else {
            panic!("a number bid for the strong hand")
        };
        assert!((7..=9).contains(&tricks), "bid {tricks}");
        act(&mut game, 0, Action::Bid(Bid::Tricks(tricks)));
        assert_eq!(basic_choice(&game, 1), Action::Bid(Bid::Nil));
    }

    #[test]
    fn in_suicide_the_weaker_first_partner_takes_the_nil() {
        let deal = [
            "AS KS QS JS 5S AH KH AD KD 2C 3C 4C 5C",
            "2S 3S 4H 2H 3H 5H 2D 3D 4D 6C 7C 8C 9C",
            "6S 7S 8S QH JH TH 9H QD JD TD TC JC QC",
            "9S TS 4S 6H 7H 8H 5D 6D 7D 8D AC KC 9D",
        ];
        let rules = RuleSet {
            blind_nil: false,
            ..Preset::Suicide.rules()
        };
        let mut game = game_with(rules, 3, deal, [0, 0]);
        // The strong hand bids its tricks and leaves the nil to its partner.
        let Action::Bid(Bid::Tricks(tricks)) = basic_choice(&game, 0) else {
            panic!("a number bid for the strong hand")
        };
        assert!(tricks >= 4, "bid {tricks}");
        act(&mut game, 0, Action::Bid(Bid::Tricks(tricks)));
        // The weak hand, first of its team, takes the nil itself.
        assert_eq!(basic_choice(&game, 1), Action::Bid(Bid::Nil));
        act(&mut game, 1, Action::Bid(Bid::Nil));
        // The partners are then held to the other half of the rule.
        assert_eq!(basic_choice(&game, 2), Action::Bid(Bid::Nil));
        act(&mut game, 2, Action::Bid(Bid::Nil));
        assert!(matches!(basic_choice(&game, 3), Action::Bid(Bid::Tricks(4..))));
    }

    #[test]
    fn blind_nil_only_when_far_behind() {
        let far_behind = game_with(RuleSet::CLASSIC, 3, NIL_DEAL, [-250, 100]);
        assert_eq!(far_behind.legal(seat(0)), Legal::BlindOrLook(BidChoices::NIL));
        assert_eq!(basic_choice(&far_behind, 0), Action::Bid(Bid::BlindNil));

        let a_little_behind = game_with(RuleSet::CLASSIC, 3, NIL_DEAL, [0, 110]);
        assert_eq!(
            a_little_behind.legal(seat(0)),
            Legal::BlindOrLook(BidChoices::NIL)
        );
        assert_eq!(basic_choice(&a_little_behind, 0), Action::LookAtHand);
    }
}

mod guessing_hidden_hands {
    use super::*;

    /// Plays a random game to a random point of a hand's play.
    fn midway(rules: RuleSet, seed: u64, stop: u32) -> Game {
        let mut game = Game::new(rules, seed).unwrap();
        let mut players: [AnyPlayer; 4] =
            std::array::from_fn(|i| Kind::Random.player(seed + i as u64, Budget::REPEATABLE));
        let mut plays = 0;
        while let Some(seat) = game.to_act().first() {
            if game.phase() == Phase::Playing {
                if plays == stop {
                    break;
                }
                plays += 1;
            }
            let action = players[seat.index()].act(&game.view(Viewer::Seat(seat))).unwrap();
            game.apply(seat, action).unwrap();
        }
        game
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn guesses_agree_with_everything_seen(seed in any::<u64>(), stop in 0u32..50, viewer in 0u8..4, three in any::<bool>()) {
            // Half the games are three-player ones, whose viewer is one of
            // seats 0 to 2.
            let rules = if three { Preset::ThreePlayer.rules() } else { RuleSet::CLASSIC };
            let viewer = viewer % rules.seating().seat_count() as u8;
            let game = midway(rules, seed, stop);
            prop_assume!(game.phase() == Phase::Playing);
            let view = game.view(Viewer::Seat(seat(viewer)));
            let k = Knowledge::new(&view).unwrap();
            let mut rng = GameRng::new(seed ^ 1);
            for plausible in [false, true] {
                let hands = if plausible { sample_plausible(&k, &mut rng, 10) } else { sample_hands(&k, &mut rng) };
                prop_assert_eq!(hands[seat(viewer)], game.hand(seat(viewer)));
                let mut all = CardSet::EMPTY;
                for s in Seat::ALL {
                    prop_assert_eq!(hands[s].len(), game.hand(s).len());
                    prop_assert!((all & hands[s]).is_empty());
                    all |= hands[s];
                    // No card of a suit the seat has shown it lacks.
                    for suit in Suit::ALL {
                        if k.void[s].contains(suit) {
                            prop_assert!(hands[s].in_suit(suit).is_empty());
                        }
                    }
                    prop_assert!(k.known[s].is_subset(hands[s]) || s == seat(viewer));
                }
                prop_assert_eq!(all, view.unplayed());
                prop_assert!(view.imagine(hands, 1).is_ok());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every action every bot takes is accepted, and a bot always acts when
    /// the game waits for it, in every preset.
    #[test]
    fn basic_bots_only_make_legal_actions(seed in any::<u64>(), random_seats in 0u8..16, preset in 0..Preset::ALL.len()) {
        let mut game = Game::new(Preset::ALL[preset].rules(), seed).unwrap();
        let mut players: [AnyPlayer; 4] = std::array::from_fn(|i| {
            let kind = if random_seats & (1 << i) != 0 { Kind::Random } else { Kind::Basic };
            kind.player(seed.wrapping_add(i as u64), Budget::REPEATABLE)
        });
        // `play_out` panics on a refused action or a bot that does not act.
        play_out(&mut game, &mut players, |_| {});
        prop_assert!(game.is_over());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    #[test]
    fn strong_bots_only_make_legal_actions(seed in any::<u64>()) {
        // The tournament's rules, a short jokers game whose first hand is
        // played without bids, and a short three-player game with jokers.
        let jokers = RuleSet {
            unbid_first_hand: true,
            max_hands: Some(2),
            ..Preset::Jokers.rules()
        };
        let three = RuleSet {
            max_hands: Some(2),
            deck: spades_engine::Deck::Jokers,
            ..Preset::ThreePlayer.rules()
        };
        for rules in [RuleSet::TOURNAMENT, jokers, three] {
            let mut game = Game::new(rules, seed).unwrap();
            let mut players: [AnyPlayer; 4] = std::array::from_fn(|i| match i {
                0 | 2 => AnyPlayer::Strong(Box::new(strong(2, seed + i as u64))),
                1 => Kind::Random.player(seed, Budget::REPEATABLE),
                _ => Kind::Basic.player(seed, Budget::REPEATABLE),
            });
            play_out(&mut game, &mut players, |_| {});
            prop_assert!(game.is_over());
        }
    }
}

#[test]
fn the_strong_bot_repeats_itself_for_a_seed() {
    let record = |seed: u64| {
        let mut game = Game::new(RuleSet::TOURNAMENT, 11).unwrap();
        let mut players: [StrongBot; 4] = std::array::from_fn(|i| strong(3, seed + i as u64));
        let mut hands = Vec::new();
        play_out(&mut game, &mut players, |record| hands.push(record.clone()));
        hands
    };
    assert_eq!(record(1), record(1));
}

/// Basic bots partnered against random players win nearly every game in
/// every preset; in solo, one basic bot plays against three random
/// players. The contract and nil rates of the bots are printed for whoever
/// reads the test's output.
#[test]
fn bots_beat_random_players_in_every_preset() {
    for preset in Preset::ALL {
        let seating = preset.rules().seating();
        let ours = spades_engine::Team::ALL[0];
        let (mut wins, mut contracts, mut made, mut nils, mut nils_made) = (0, 0, 0, 0, 0);
        for seed in 0..100 {
            let mut game = Game::new(preset.rules(), seed).unwrap();
            let mut players: [AnyPlayer; 4] = std::array::from_fn(|i| {
                let seat = spades_engine::Seat::ALL[i];
                let kind = if seating.team_of(seat) == ours {
                    Kind::Basic
                } else {
                    Kind::Random
                };
                kind.player(seed + i as u64, Budget::REPEATABLE)
            });
            play_out(&mut game, &mut players, |record| {
                let members = seating.seats_of(ours);
                for bid in record.bids.iter().filter(|bid| members.contains(bid.seat)) {
                    if bid.to_bid().is_some_and(Bid::is_nil) {
                        nils += 1;
                        nils_made += u32::from(record.tricks_won[bid.seat] == 0);
                    }
                }
                let bid_of = |seat| record.bids.iter().find(|bid| bid.seat == seat)?.to_bid();
                let contract: u8 = members.iter().filter_map(bid_of).map(Bid::contract).sum();
                if contract > 0 {
                    contracts += 1;
                    let counted: u8 = members
                        .iter()
                        .filter(|&seat| bid_of(seat).is_some_and(|b| !b.is_nil()))
                        .map(|seat| record.tricks_won[seat])
                        .sum();
                    made += u32::from(counted >= contract);
                }
            });
            wins += u32::from(game.winner() == Some(ours));
        }
        eprintln!(
            "{preset}: the bots won {wins} of 100; contracts made {made} of {contracts}; nils made {nils_made} of {nils}"
        );
        // In New York the team maximum keeps random players from bidding
        // themselves out of the game (two sets in a row lose), and sixteen
        // trumps leave more to the cards: over seeds 0 to 399 the bots win
        // 379 games there, where they won 393 with the old pack and no
        // maximum.
        let least = if preset == Preset::NewYork { 90 } else { 95 };
        assert!(wins >= least, "{preset}: the bots won {wins} of 100 games");
    }
}
