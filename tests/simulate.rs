//! Runs `spades simulate` and checks every hand of its log against the rule
//! book with a checker written here from scratch: it reads the JSON as plain
//! values and card strings and shares no code with the engine, so a mistake
//! in the engine cannot hide itself.

use std::collections::HashSet;
use std::process::Command;

use serde_json::Value;

const RANKS: &str = "23456789TJQKA";

/// The rules of a preset, as the checker needs them.
struct Rules {
    target: i64,
    mercy: i64,
    max_hands: Option<u64>,
}

const CLASSIC: Rules = Rules {
    target: 500,
    mercy: -500,
    max_hands: None,
};
const TOURNAMENT: Rules = Rules {
    target: 300,
    mercy: -300,
    max_hands: Some(7),
};

fn suit(card: &str) -> char {
    card.chars().nth(1).unwrap()
}

fn rank(card: &str) -> usize {
    RANKS.find(card.chars().next().unwrap()).unwrap()
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

/// The state the checker carries from one line to the next.
struct Checker<'r> {
    rules: &'r Rules,
    game: i64,
    next_hand: i64,
    dealer: Option<usize>,
    score: [i64; 2],
    bags: [i64; 2],
    games_finished: i64,
    blind_nils: usize,
    passes: usize,
    bag_penalties: usize,
}

impl<'r> Checker<'r> {
    fn new(rules: &'r Rules) -> Checker<'r> {
        Checker {
            rules,
            game: 0,
            next_hand: 0,
            dealer: None,
            score: [0, 0],
            bags: [0, 0],
            games_finished: 0,
            blind_nils: 0,
            passes: 0,
            bag_penalties: 0,
        }
    }

    fn check(&mut self, line: &Value) {
        assert_eq!(int(&line["game"]), self.game, "games are numbered in order");
        assert_eq!(int(&line["hand"]), self.next_hand, "hands are numbered in order");
        let dealer = seat_of(&line["dealer"]);
        if let Some(previous) = self.dealer {
            assert_eq!(dealer, (previous + 1) % 4, "the deal passes clockwise");
        }

        // The deal: 13 cards each from one pack.
        let mut hands: Vec<Vec<String>> = line["hands"].as_array().unwrap().iter().map(cards_of).collect();
        assert_eq!(hands.len(), 4);
        let mut seen = HashSet::new();
        for hand in &hands {
            assert_eq!(hand.len(), 13);
            for card in hand {
                assert_eq!(card.len(), 2);
                assert!(
                    RANKS.contains(&card[..1]) && "CDHS".contains(&card[1..]),
                    "{card}"
                );
                assert!(seen.insert(card.clone()), "{card} dealt twice");
            }
        }
        assert_eq!(seen.len(), 52);

        // Bids: from the dealer's left, 0 to 13, blind only at 0 and only
        // when the team trails by 100 at the start of the hand.
        let mut bids = [(0i64, false); 4];
        let bid_list = line["bids"].as_array().unwrap();
        assert_eq!(bid_list.len(), 4);
        for (i, entry) in bid_list.iter().enumerate() {
            let seat = seat_of(&entry["seat"]);
            assert_eq!(seat, (dealer + 1 + i) % 4, "bidding order");
            let bid = int(&entry["bid"]);
            let blind = entry["blind"].as_bool().unwrap();
            assert!((0..=13).contains(&bid));
            if blind {
                assert_eq!(bid, 0, "blind bids are blind nils");
                let team = seat % 2;
                assert!(
                    self.score[1 - team] - self.score[team] >= 100,
                    "blind nil without the deficit"
                );
                self.blind_nils += 1;
            }
            bids[seat] = (bid, blind);
        }

        // Exchanges after nil bids: blind nil passes 2, in turn (nil bidder
        // first); ordinary nil passes none; two nils pass once, together,
        // the larger count.
        let passes = line["passes"].as_array().unwrap();
        let before_passes = hands.clone();
        for team in 0..2 {
            let (a, b) = (team, team + 2);
            let count = |seat: usize| match bids[seat] {
                (0, true) => Some(2),
                (0, false) => Some(0),
                _ => None,
            };
            let mine: Vec<&Value> = passes
                .iter()
                .filter(|pass| seat_of(&pass["from"]) % 2 == team)
                .collect();
            let expected: Vec<(usize, usize)> = match (count(a), count(b)) {
                (Some(x), Some(y)) if x.max(y) > 0 => vec![(a, x.max(y)), (b, x.max(y))],
                (Some(x), None) if x > 0 => vec![(a, x), (b, x)],
                (None, Some(y)) if y > 0 => vec![(b, y), (a, y)],
                _ => vec![],
            };
            let simultaneous = count(a).is_some() && count(b).is_some();
            assert_eq!(mine.len(), expected.len(), "number of passes of team {team}");
            let mut froms: Vec<usize> = mine.iter().map(|pass| seat_of(&pass["from"])).collect();
            if simultaneous {
                froms.sort_unstable();
            }
            let expected_froms: Vec<usize> = expected.iter().map(|&(seat, _)| seat).collect();
            assert_eq!(froms, expected_froms, "who passes, in which order");
            for pass in &mine {
                let from = seat_of(&pass["from"]);
                assert_eq!(seat_of(&pass["to"]), (from + 2) % 4);
                let given = cards_of(&pass["cards"]);
                let want = expected.iter().find(|&&(seat, _)| seat == from).unwrap().1;
                assert_eq!(given.len(), want, "pass size");
                assert_eq!(given.iter().collect::<HashSet<_>>().len(), given.len());
                // In a simultaneous exchange both choose from the hands
                // they were dealt; in turn, the partner may return cards he
                // was just given.
                let source = if simultaneous {
                    &before_passes[from]
                } else {
                    &hands[from]
                };
                for card in &given {
                    assert!(source.contains(card), "{from} passes {card} he does not hold");
                }
                hands[from].retain(|card| !given.contains(card));
                hands[(from + 2) % 4].extend(given);
                self.passes += 1;
            }
        }
        assert!(hands.iter().all(|hand| hand.len() == 13));

        // Play: thirteen tricks, follow suit, spades not led before broken
        // unless the leader has only spades, the highest spade or else the
        // highest card of the suit led wins, and the winner leads.
        let tricks = line["tricks"].as_array().unwrap();
        assert_eq!(tricks.len(), 13);
        let mut leader = (dealer + 1) % 4;
        let mut broken = false;
        let mut won = [0i64; 4];
        for trick in tricks {
            assert_eq!(seat_of(&trick["leader"]), leader);
            let cards = cards_of(&trick["cards"]);
            assert_eq!(cards.len(), 4);
            let led = suit(&cards[0]);
            for (i, card) in cards.iter().enumerate() {
                let player = (leader + i) % 4;
                let hand = &hands[player];
                assert!(hand.contains(card), "{player} plays {card} he does not hold");
                if i == 0 && suit(card) == 'S' {
                    assert!(
                        broken || hand.iter().all(|c| suit(c) == 'S'),
                        "spade led before broken"
                    );
                }
                if i > 0 && suit(card) != led {
                    assert!(
                        hand.iter().all(|c| suit(c) != led),
                        "{player} did not follow {led}"
                    );
                }
                hands[player].retain(|c| c != card);
            }
            let best = (0..4)
                .max_by_key(|&i| {
                    let card = &cards[i];
                    let class = if suit(card) == 'S' {
                        2
                    } else if suit(card) == led {
                        1
                    } else {
                        0
                    };
                    (class, rank(card))
                })
                .unwrap();
            let winner = (leader + best) % 4;
            assert_eq!(seat_of(&trick["winner"]), winner, "winner of {cards:?}");
            won[winner] += 1;
            broken |= cards.iter().any(|c| suit(c) == 'S');
            leader = winner;
        }
        let tricks_won: Vec<i64> = line["tricks_won"].as_array().unwrap().iter().map(int).collect();
        assert_eq!(tricks_won, won);

        // Scoring, with the running totals carried from the last line.
        for team in 0..2 {
            let mut change = 0;
            let mut contract = 0;
            let mut counted = 0;
            let mut bags = 0;
            for seat in [team, team + 2] {
                match bids[seat] {
                    (0, blind) => {
                        let value = if blind { 200 } else { 100 };
                        change += if won[seat] == 0 { value } else { -value };
                        bags += won[seat];
                    }
                    (bid, _) => {
                        contract += bid;
                        counted += won[seat];
                    }
                }
            }
            if contract > 0 && counted >= contract {
                change += 10 * contract;
                bags += counted - contract;
            } else if contract > 0 {
                change -= 10 * contract;
            }
            change += bags;
            let mut total_bags = self.bags[team] + bags;
            while total_bags >= 10 {
                total_bags -= 10;
                change -= 100;
                self.bag_penalties += 1;
            }
            assert_eq!(
                int(&line["hand_score"][team]),
                change,
                "hand score of team {team}"
            );
            self.score[team] += change;
            self.bags[team] = total_bags;
            assert_eq!(
                int(&line["score"][team]),
                self.score[team],
                "score of team {team}"
            );
            assert_eq!(int(&line["bags"][team]), self.bags[team], "bags of team {team}");
        }

        // The end of the game.
        let hands_played = self.next_hand as u64 + 1;
        let over = self.score.iter().any(|&s| s >= self.rules.target)
            || self.score.iter().any(|&s| s <= self.rules.mercy)
            || self.rules.max_hands.is_some_and(|limit| hands_played >= limit);
        let expected_winner = match (over, self.score[0].cmp(&self.score[1])) {
            (true, std::cmp::Ordering::Greater) => Some(0),
            (true, std::cmp::Ordering::Less) => Some(1),
            _ => None,
        };
        let winner = line["winner"].as_u64().map(|team| team as i64);
        assert_eq!(winner, expected_winner, "winner after scores {:?}", self.score);

        if winner.is_some() {
            self.games_finished += 1;
            self.game += 1;
            self.next_hand = 0;
            self.dealer = None;
            self.score = [0, 0];
            self.bags = [0, 0];
        } else {
            self.next_hand += 1;
            self.dealer = Some(dealer);
        }
    }
}

fn simulate(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_spades"))
        .arg("simulate")
        .args(args)
        .output()
        .expect("the spades binary runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary = String::from_utf8_lossy(&output.stderr);
    assert!(summary.contains("hands/s"), "a summary line on stderr: {summary}");
    String::from_utf8(output.stdout).expect("the log is UTF-8")
}

fn check_log<'r>(log: &str, rules: &'r Rules, games: i64) -> Checker<'r> {
    let mut checker = Checker::new(rules);
    for (number, text) in log.lines().enumerate() {
        let line: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("line {number}: {e}"));
        checker.check(&line);
    }
    assert_eq!(checker.games_finished, games, "every game ends with a winner");
    assert_eq!(checker.next_hand, 0, "the log ends with a finished game");
    checker
}

#[test]
fn ten_thousand_classic_games_follow_the_rules() {
    let log = simulate(&["--games", "10000", "--seed", "1"]);
    let checker = check_log(&log, &CLASSIC, 10_000);
    // The random players are biased so that the rare rules do happen.
    assert!(checker.blind_nils > 100, "blind nils: {}", checker.blind_nils);
    assert!(checker.passes > 200, "passes: {}", checker.passes);
    assert!(
        checker.bag_penalties > 10,
        "bag penalties: {}",
        checker.bag_penalties
    );
}

#[test]
fn ten_thousand_tournament_games_follow_the_rules() {
    let log = simulate(&["--games", "10000", "--seed", "1", "--rules", "tournament"]);
    check_log(&log, &TOURNAMENT, 10_000);
}

#[test]
fn a_seed_replays_the_same_log_and_another_seed_differs() {
    let a = simulate(&["--games", "20", "--seed", "5"]);
    let b = simulate(&["--games", "20", "--seed", "5"]);
    let c = simulate(&["--games", "20", "--seed", "6"]);
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn a_file_output_equals_standard_output() {
    let path = std::env::temp_dir().join(format!("spades-simulate-{}.jsonl", std::process::id()));
    let printed = simulate(&["--games", "5", "--seed", "9"]);
    let written = simulate(&["--games", "5", "--seed", "9", "--out", path.to_str().unwrap()]);
    assert!(written.is_empty());
    let file = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).ok();
    assert_eq!(file, printed);
}

#[test]
fn bad_arguments_are_refused_with_a_message() {
    for args in [
        &["--players", "random,random"][..],
        &["--players", "random,random,random,wizard"],
        &["--rules", "bridge"],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_spades"))
            .arg("simulate")
            .args(args)
            .output()
            .unwrap();
        assert!(!output.status.success(), "{args:?} accepted");
        assert!(!output.stderr.is_empty());
    }
}
