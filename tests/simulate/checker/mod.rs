//! Checks a hand-history log line by line against `docs/rules.md`. It reads
//! the JSON as plain values and card strings and shares no code with the
//! engine, so a mistake in the engine cannot hide itself.

use std::collections::HashSet;

use serde_json::Value;

use crate::rules::{Bidding, Leading, Pack, Rules, SpadesLead};

mod bids_and_passes;
mod play_and_scores;

const RANKS: &str = "23456789TJQKA";
const SUITS: &str = "CDHS";

fn is_joker(card: &str) -> bool {
    card == "BJ" || card == "LJ"
}

/// Whether a card is a spade for following suit and trumping: the spades,
/// the jokers, and the two of diamonds in New York City's pack.
fn is_trump(card: &str, pack: Pack) -> bool {
    is_joker(card) || card.ends_with('S') || (card == "2D" && pack == Pack::NewYorkCity)
}

/// The suit a card belongs to for following suit.
fn suit(card: &str, pack: Pack) -> char {
    if is_trump(card, pack) {
        'S'
    } else {
        card.chars().nth(1).unwrap()
    }
}

/// A card's place within its suit, higher wins: the ranks in order, then,
/// among the trumps, the raised two of diamonds, the raised two of spades
/// and the jokers above the ace.
fn strength(card: &str, pack: Pack) -> usize {
    match card {
        "BJ" => 16,
        "LJ" => 15,
        "2S" if pack != Pack::Standard => 14,
        "2D" if pack == Pack::NewYorkCity => 13,
        _ => RANKS.find(card.chars().next().unwrap()).unwrap(),
    }
}

/// The cards dealt under the rules: the pack, and for three players the
/// pack without the two of clubs, or, in the packs that put the twos of
/// clubs and hearts out for the jokers, every card of the 52 and both
/// jokers.
fn dealt_cards(rules: &Rules) -> HashSet<String> {
    let mut cards = pack_cards(rules.pack);
    if rules.players == 3 {
        if matches!(rules.pack, Pack::Jokers | Pack::NewYorkCity) {
            cards.insert("2C".into());
            cards.insert("2H".into());
        } else {
            cards.remove("2C");
        }
    }
    cards
}

/// The cards of a pack.
fn pack_cards(pack: Pack) -> HashSet<String> {
    let mut cards: HashSet<String> = SUITS
        .chars()
        .flat_map(|suit| RANKS.chars().map(move |rank| format!("{rank}{suit}")))
        .collect();
    let out = match pack {
        Pack::Jokers | Pack::NewYorkCity => ["2C", "2H"],
        Pack::NewYork => ["2D", "2H"],
        Pack::Standard | Pack::DeuceHigh => return cards,
    };
    for card in out {
        cards.remove(card);
    }
    cards.insert("BJ".into());
    cards.insert("LJ".into());
    cards
}

fn lowest_club(rules: &Rules) -> &'static str {
    match (
        matches!(rules.pack, Pack::Jokers | Pack::NewYorkCity),
        rules.players == 3,
    ) {
        (true, false) | (false, true) => "3C",
        _ => "2C",
    }
}

fn cards_of(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|card| card.as_str().unwrap().to_string())
        .collect()
}

fn int(value: &Value) -> i64 {
    value
        .as_i64()
        .unwrap_or_else(|| panic!("{value} is not an integer"))
}

fn seat_of(value: &Value) -> usize {
    let seat = value.as_u64().unwrap() as usize;
    assert!(seat < 4, "seat {seat}");
    seat
}

/// How often the rarer rules came into play over a log, so that a test can
/// tell a rule that was checked from one that never arose.
#[derive(Default, Debug)]
pub struct Seen {
    pub nils: usize,
    pub blind_nils: usize,
    /// Team blind bids, counted once per team.
    pub team_blinds: usize,
    pub team_blinds_made: usize,
    pub passes: usize,
    pub bag_penalties: usize,
    pub sets: usize,
    pub overtrick_sets: usize,
    pub double_sets: usize,
    /// Contracts of exactly 10 under `ten_for_two_hundred`, made or set.
    pub ten_for_two_hundred: usize,
    /// Contracts of every trick under `moon`, made or set.
    pub moons: usize,
    pub bostons: usize,
    pub sets_in_a_row: usize,
    pub unbid_hands: usize,
    pub trumps_led_early: usize,
    pub jokers_played: usize,
    /// The highest team contract bid under a team maximum.
    pub most_team_bid: i64,
    /// Tricks in which the two of diamonds was played as a trump.
    pub trump_diamond_twos: usize,
}

/// The state the checker carries from one line to the next.
pub struct Checker {
    expected: Rules,
    game: i64,
    next_hand: i64,
    dealer: Option<usize>,
    score: Vec<i64>,
    bags: Vec<i64>,
    sets_in_row: Vec<i64>,
    pub games_finished: i64,
    pub seen: Seen,
}

impl Checker {
    /// A checker for a log whose every line must carry `expected`.
    pub fn new(expected: Rules) -> Checker {
        let teams = expected.teams();
        Checker {
            expected,
            game: 0,
            next_hand: 0,
            dealer: None,
            score: vec![0; teams],
            bags: vec![0; teams],
            sets_in_row: vec![0; teams],
            games_finished: 0,
            seen: Seen::default(),
        }
    }

    /// Whether the log ended with a finished game.
    pub fn between_games(&self) -> bool {
        self.next_hand == 0
    }

    pub fn check(&mut self, line: &Value) {
        let rules = Rules::read(&line["rule_set"]);
        assert_eq!(rules, self.expected, "the line's rule set");
        let rules = &self.expected.clone();
        let teams = rules.teams();
        let players = rules.players as usize;
        let size = rules.hand_size();
        assert_eq!(int(&line["game"]), self.game, "games are numbered in order");
        assert_eq!(int(&line["hand"]), self.next_hand, "hands are numbered in order");
        let dealer = seat_of(&line["dealer"]);
        if let Some(previous) = self.dealer {
            assert_eq!(dealer, (previous + 1) % players, "the deal passes clockwise");
        }
        let unbid = rules.unbid_first_hand && self.next_hand == 0;

        // The deal: a hand each (13 cards, 17 or 18 for three players), the
        // whole pack once.
        let dealt: Vec<Vec<String>> = line["hands"].as_array().unwrap().iter().map(cards_of).collect();
        assert_eq!(dealt.len(), players, "a hand per player");
        let mut seen = HashSet::new();
        for hand in &dealt {
            assert_eq!(hand.len(), size);
            for card in hand {
                assert!(seen.insert(card.clone()), "{card} dealt twice");
            }
        }
        assert_eq!(seen, dealt_cards(rules), "the pack");

        let bids = self.check_bids(line, rules, &dealt, dealer, unbid);
        let hands = self.check_passes(line, rules, &dealt, &bids);
        let won = self.check_play(line, rules, hands, dealer);
        let tricks_won: Vec<i64> = line["tricks_won"].as_array().unwrap().iter().map(int).collect();
        assert_eq!(tricks_won, won);

        // Scoring, with the running totals carried from the last line.
        let mut boston = None;
        for team in 0..teams {
            let outcome = self.score_team(rules, team, &bids, &won, unbid);
            if outcome.boston {
                boston = Some(team);
            }
            assert_eq!(
                int(&line["hand_score"][team]),
                outcome.change,
                "hand score of team {team}"
            );
            assert_eq!(
                int(&line["score"][team]),
                self.score[team],
                "score of team {team}"
            );
            assert_eq!(int(&line["bags"][team]), self.bags[team], "bags of team {team}");
        }
        for key in ["hand_score", "score", "bags"] {
            assert_eq!(
                line[key].as_array().unwrap().len(),
                teams,
                "{key} has a value per team"
            );
        }

        let expected_winner = self.winner(rules, boston);
        let winner = line["winner"].as_u64().map(|team| team as usize);
        assert_eq!(winner, expected_winner, "winner after scores {:?}", self.score);
        if winner.is_some() {
            self.games_finished += 1;
            self.game += 1;
            self.next_hand = 0;
            self.dealer = None;
            self.score = vec![0; teams];
            self.bags = vec![0; teams];
            self.sets_in_row = vec![0; teams];
        } else {
            self.next_hand += 1;
            self.dealer = Some(dealer);
        }
    }
}

struct Outcome {
    change: i64,
    boston: bool,
}
