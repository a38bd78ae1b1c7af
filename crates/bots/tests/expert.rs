//! The expert bot in the positions players complain about: each is set up
//! with `Game::from_position` (or, for a bid, `Game::from_deal`) so that a
//! good player's choice is clear, and the expert must make it. Last, a
//! check that it never peeks: its choice does not change when the hidden
//! cards are dealt differently among the other hands.

use proptest::prelude::*;
use spades_bots::knowledge::{Knowledge, beats};
use spades_bots::sample::sample_hands;
use spades_bots::{Budget, ExpertBot, Kind, Player, play_out};
use spades_engine::{
    Action, Bid, BySeat, ByTeam, Card, CardSet, Deal, Game, GameRng, Legal, PassOrder, Phase, Position,
    Preset, RuleSet, Seat, TrickCards, TrickRecord, Viewer,
};

fn seat(index: u8) -> Seat {
    Seat::new(index).expect("a seat from 0 to 3")
}

fn card(text: &str) -> Card {
    text.parse().expect("a card")
}

fn cards(text: &str) -> Vec<Card> {
    text.split_whitespace().map(card).collect()
}

fn expert() -> ExpertBot {
    ExpertBot::new(
        7,
        Budget {
            samples: 80,
            time: None,
        },
    )
}

/// A moment in the first hand's play, as the seat `me` sees it: its own
/// cards, the bids, the finished tricks (each written from its leader) and
/// the cards on the table. The other seats get the cards left, in order:
/// the expert cannot tell, which is the point.
struct Spot {
    rules: RuleSet,
    dealer: u8,
    score: [i32; 2],
    bags: [i32; 2],
    me: u8,
    hand: &'static str,
    bids: [Bid; 4],
    tricks: &'static [&'static str],
    trick: &'static str,
}

impl Spot {
    fn game(&self) -> Game {
        let seating = self.rules.seating();
        let mut leader = seating.next(seat(self.dealer));
        let mut played = BySeat::<CardSet>::default();
        let mut records = Vec::new();
        for text in self.tricks {
            let trick = cards(text);
            let led = trick[0].suit();
            let (mut winner, mut best) = (leader, trick[0]);
            for (i, &card) in trick.iter().enumerate() {
                let player = seating.plus(leader, i as u8);
                played[player].insert(card);
                if beats(card, best, led) {
                    (winner, best) = (player, card);
                }
            }
            records.push(TrickRecord {
                leader,
                cards: TrickCards::from_slice(&trick).expect("a whole trick"),
                winner,
            });
            leader = winner;
        }
        let on_table = cards(self.trick);
        for (i, &card) in on_table.iter().enumerate() {
            played[seating.plus(leader, i as u8)].insert(card);
        }
        let mine: CardSet = cards(self.hand).into_iter().collect();
        let all_played = Seat::ALL.iter().fold(CardSet::EMPTY, |all, &s| all | played[s]);
        let mut left = (self.rules.pack() - mine - all_played).iter();
        let hands = BySeat::from_fn(|s| {
            if s == seat(self.me) {
                return mine;
            }
            let room = usize::from(self.rules.hand_size()) - played[s].len() as usize;
            left.by_ref().take(room).collect()
        });
        let position = Position {
            hand_number: 1,
            dealer: seat(self.dealer),
            score: ByTeam::from(self.score),
            bags: ByTeam::from(self.bags),
            bids: BySeat(self.bids),
            hands,
            tricks: &records,
            trick: &on_table,
            passes: &[],
        };
        Game::from_position(self.rules, 5, &position).expect("a consistent position")
    }

    fn choice(&self) -> Card {
        let game = self.game();
        match expert().act(&game.view(Viewer::Seat(seat(self.me)))) {
            Some(Action::Play(card)) => card,
            other => panic!("expected a card, got {other:?}"),
        }
    }
}

const NUMBERS: [Bid; 4] = [Bid::Tricks(3), Bid::Tricks(4), Bid::Tricks(3), Bid::Tricks(3)];

#[test]
fn does_not_trump_the_partners_sure_winner() {
    // Seat 0 leads the ace of hearts; seat 2, third to play, has no heart.
    let spot = Spot {
        rules: RuleSet::CLASSIC,
        dealer: 3,
        score: [120, 150],
        bags: [2, 3],
        me: 2,
        hand: "4S 7S JS 3D 8D QD KD 2C 5C 9C JC KC QC",
        bids: NUMBERS,
        tricks: &[],
        trick: "AH 6H",
    };
    let choice = spot.choice();
    assert!(!choice.is_spade(), "trumped the partner's ace with {choice}");
}

#[test]
fn does_not_overtake_a_winning_partner_when_last() {
    // Seat 1 is winning with the king of diamonds; seat 3 plays last.
    let spot = Spot {
        rules: RuleSet::CLASSIC,
        dealer: 3,
        score: [200, 180],
        bags: [1, 4],
        me: 3,
        hand: "5S 9S QS AD 3D 4H 8H TH 2C 6C 7C 8C 9H",
        bids: NUMBERS,
        tricks: &[],
        trick: "4D KD 6D",
    };
    assert_eq!(spot.choice(), card("3D"));
}

#[test]
fn ducks_a_needless_bag_near_the_limit() {
    // Seat 0 has taken eight tricks (its team bid six) and its team holds
    // nine bags; the opponents, who bid seven, have one trick with four to
    // go, so they cannot be set any further. Seat 1 leads the eight of
    // clubs and seat 0, last, can take it with the nine or duck with the two.
    let spot = Spot {
        rules: RuleSet::CLASSIC,
        dealer: 3,
        score: [310, 280],
        bags: [9, 2],
        me: 0,
        hand: "2C 9C 4H 6H",
        bids: NUMBERS,
        tricks: &[
            "AS 2S 3S 4S",
            "KS 5S 6S 7S",
            "QS 8S 9S TS",
            "AD 2D 3D 4D",
            "KD 5D 6D 7D",
            "QD 8D 9D TD",
            "AH 2H 3H 5H",
            "JS 7H 8H 9H",
            "TH KH JD AC",
        ],
        trick: "8C 3C 5C",
    };
    let game = spot.game();
    let k = Knowledge::new(&game.view(Viewer::Seat(seat(0)))).expect("a seat");
    assert_eq!(k.need(k.team()), 0, "the position should have the contract made");
    assert_eq!(spot.choice(), card("2C"));
}

#[test]
fn covers_the_partners_nil() {
    // Seat 0 bid nil and is winning with the nine of hearts; his partner,
    // seat 2, must take the trick over.
    let spot = Spot {
        rules: RuleSet::CLASSIC,
        dealer: 3,
        score: [100, 100],
        bags: [0, 0],
        me: 2,
        hand: "AS 8S AH 3H 7D 8D 9D KC QC 9C 5C 4C 3C",
        bids: [Bid::Nil, Bid::Tricks(4), Bid::Tricks(5), Bid::Tricks(3)],
        tricks: &[],
        trick: "9H 4H",
    };
    assert_eq!(spot.choice(), card("AH"));
}

#[test]
fn stays_under_an_opponents_nil() {
    // Seat 1 bid nil and is winning with the queen of hearts; seat 2 can
    // stay under him with the two.
    let spot = Spot {
        rules: RuleSet::CLASSIC,
        dealer: 3,
        score: [100, 100],
        bags: [0, 0],
        me: 2,
        hand: "AS 8S KH 2H 7D 8D 9D KC QC 9C 5C 4C 3C",
        bids: [Bid::Tricks(4), Bid::Nil, Bid::Tricks(4), Bid::Tricks(4)],
        tricks: &[],
        trick: "3H QH",
    };
    assert_eq!(spot.choice(), card("2H"));
}

/// A game in the bidding of its first hand, seat 0 to bid first.
fn bidding(hand: &str, score: [i32; 2], rules: RuleSet) -> Game {
    let mine: CardSet = cards(hand).into_iter().collect();
    let mut rest = (rules.pack() - mine).iter();
    let hands = BySeat::from_fn(|s| {
        if s == seat(0) {
            mine
        } else {
            rest.by_ref().take(13).collect()
        }
    });
    let deal = Deal {
        dealer: seat(3),
        hands,
        score: ByTeam::from(score),
        bags: ByTeam::from([0, 0]),
        hand_number: 4,
    };
    Game::from_deal(rules, 11, deal).expect("a whole pack")
}

#[test]
fn bids_nil_with_a_hand_that_should() {
    let no_blind = RuleSet {
        blind_nil: false,
        ..RuleSet::CLASSIC
    };
    let game = bidding("2S 3S 2H 3H 4H 6H 2D 3D 5D 7D 2C 4C 6C", [150, 160], no_blind);
    assert_eq!(
        expert().act(&game.view(Viewer::Seat(seat(0)))),
        Some(Action::Bid(Bid::Nil))
    );
}

#[test]
fn bids_blind_nil_far_behind_late_in_the_game() {
    let game = bidding(
        "AS KS 2H 3H 4H 6H 2D 3D 5D 7D 2C 4C 6C",
        [90, 430],
        RuleSet::CLASSIC,
    );
    assert_eq!(game.phase(), Phase::Bidding);
    assert_eq!(
        expert().act(&game.view(Viewer::Seat(seat(0)))),
        Some(Action::Bid(Bid::BlindNil))
    );
}

/// A game dealt from `seed` under `preset`, in the bidding of its fifth
/// hand with each team's score (seat 0 deals, seat 1 bids first), and the
/// seat to bid first.
fn fifth_hand_bidding(preset: Preset, seed: u64, score: &[i32]) -> (Game, Seat) {
    let rules = preset.rules();
    let seating = rules.seating();
    let dealt = *Game::new(rules, seed).expect("a preset's rules").dealt();
    let deal = Deal {
        dealer: seat(0),
        hands: dealt,
        score: ByTeam::from_fn(seating, |team| score[team.index()]),
        bags: ByTeam::filled(seating, 0),
        hand_number: 4,
    };
    let game = Game::from_deal(rules, seed, deal).expect("a whole pack");
    let first = game.first_to_act().expect("someone bids first");
    (game, first)
}

#[test]
fn does_not_bid_blind_nil_without_a_partner() {
    // Far behind late in a solo game, where the basic bot bids blind nil;
    // with nobody to cover it, the expert looks at its cards first.
    let (game, first) = fifth_hand_bidding(Preset::Solo, 3, &[420, 90, 430, 410]);
    let view = game.view(Viewer::Seat(first));
    assert_eq!(
        Kind::Basic.player(1, Budget::REPEATABLE).act(&view),
        Some(Action::Bid(Bid::BlindNil))
    );
    assert_eq!(expert().act(&view), Some(Action::LookAtHand));
}

#[test]
fn bids_no_more_than_its_habit() {
    // The expert may bid under the basic bot's bid, never over it: its
    // guesses make a higher bid look safer than it is, with or without
    // partners. Every seat's bid is checked, each after the expert's bids
    // before it, so a partner's bid is among the things it weighs.
    for preset in [Preset::Classic, Preset::Jokers, Preset::ThreePlayer, Preset::Solo] {
        for seed in 0..6 {
            let (mut game, _) = fifth_hand_bidding(preset, seed, &[0, 0, 0, 0]);
            while game.phase() == Phase::Bidding {
                let seat = game.first_to_act().expect("somebody bids");
                if matches!(game.legal(seat), Legal::Look | Legal::BlindOrLook(_)) {
                    game.apply(seat, Action::LookAtHand).expect("looking is allowed");
                }
                let view = game.view(Viewer::Seat(seat));
                let basic = Kind::Basic.player(1, Budget::REPEATABLE).act(&view);
                let expert = expert().act(&view);
                let tricks = |action: Option<Action>| match action {
                    Some(Action::Bid(Bid::Tricks(n))) => n,
                    Some(Action::Bid(_)) => 0,
                    other => panic!("a bid, not {other:?}"),
                };
                assert!(
                    tricks(expert) <= tricks(basic),
                    "{preset:?}, seed {seed}, {seat:?}: the expert bid {expert:?} over the habit's {basic:?}"
                );
                game.apply(seat, expert.expect("a bid"))
                    .expect("the expert's bid is legal");
            }
        }
    }
}

/// Plays a game between expert and basic bots to a random point.
fn midway(seed: u64, stop: u32) -> Game {
    let mut game = Game::new(RuleSet::CLASSIC, seed).expect("classic rules");
    let mut players = [0, 1, 2, 3].map(|i| Kind::Basic.player(seed + i, Budget::REPEATABLE));
    let mut steps = 0;
    while let Some(s) = game.first_to_act() {
        if steps == stop || game.phase() == Phase::Playing && steps > stop {
            break;
        }
        let action = players[s.index()]
            .act(&game.view(Viewer::Seat(s)))
            .expect("an action");
        game.apply(s, action).expect("a legal action");
        steps += 1;
    }
    game
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// The expert's card is the same whichever way the cards it cannot see
    /// lie among the other hands: it decides from its view alone.
    #[test]
    fn never_peeks(seed in any::<u64>(), stop in 4u32..48) {
        let game = midway(seed, stop);
        let Some(me) = game.first_to_act() else { return Ok(()) };
        if game.phase() != Phase::Playing {
            return Ok(());
        }
        let view = game.view(Viewer::Seat(me));
        let k = Knowledge::new(&view).expect("a seat");
        let first = ExpertBot::new(3, Budget { samples: 12, time: None }).act(&view);
        let mut rng = GameRng::new(seed ^ 1);
        for _ in 0..3 {
            let hands = sample_hands(&k, &mut rng);
            let other = Game::from_position(*game.rules(), 9, &k.position(hands).expect("every seat bid"))
                .expect("the same public record with other hidden hands");
            let again = ExpertBot::new(3, Budget { samples: 12, time: None }).act(&other.view(Viewer::Seat(me)));
            prop_assert_eq!(first, again);
        }
    }
}

#[test]
fn experts_only_make_legal_actions_and_beat_the_basic_bot() {
    // Two games against the basic bot, every action checked by the engine
    // (play_out panics on a refused one).
    let mut won = 0;
    for seed in 0..2u64 {
        let mut game = Game::new(RuleSet::CLASSIC, seed).expect("classic rules");
        let mut players = [0, 1, 2, 3].map(|i| {
            let kind = if i % 2 == 0 { Kind::Expert } else { Kind::Basic };
            kind.player(
                seed * 4 + i,
                Budget {
                    samples: 16,
                    time: None,
                },
            )
        });
        play_out(&mut game, &mut players, |_| {});
        won += usize::from(game.winner() == Some(spades_engine::Team::new(0).expect("team 0")));
    }
    assert!(won >= 1, "the expert lost both games to the basic bot");
}

#[test]
fn experts_act_legally_under_every_preset_and_in_both_exchanges() {
    // Two hands of each preset, and of nil exchanges made one after the
    // other and at once, with experts in seats 0 and 2 (on few guesses, to
    // keep the test quick): the engine refuses any illegal action.
    let exchanges = [PassOrder::Sequential, PassOrder::Simultaneous].map(|pass_order| RuleSet {
        nil_pass: 2,
        pass_order,
        ..RuleSet::CLASSIC
    });
    let rules = Preset::ALL.iter().map(|preset| preset.rules()).chain(exchanges);
    for (n, rules) in rules.enumerate() {
        let mut game = Game::new(rules, n as u64).expect("valid rules");
        let mut players = [0, 1, 2, 3].map(|i| {
            let kind = if i % 2 == 0 { Kind::Expert } else { Kind::Basic };
            kind.player(
                i,
                Budget {
                    samples: 2,
                    time: None,
                },
            )
        });
        while let Some(s) = game.first_to_act() {
            if game.hand_number() >= 2 {
                break;
            }
            let action = players[s.index()]
                .act(&game.view(Viewer::Seat(s)))
                .unwrap_or_else(|| panic!("{rules:?}: {s} chose nothing"));
            if let Err(error) = game.apply(s, action) {
                panic!("{rules:?}: {s} chose {action}, refused: {error}");
            }
        }
    }
}
