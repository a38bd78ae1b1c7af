//! Checks a hand-history log line by line against `docs/rules.md`. It reads
//! the JSON as plain values and card strings and shares no code with the
//! engine, so a mistake in the engine cannot hide itself.

use std::collections::HashSet;

use serde_json::Value;

use crate::rules::{Bidding, Leading, Pack, Rules, SpadesLead};

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

    /// Checks the bids against the bidding rules and returns each seat's
    /// bid (tricks, blind), or nothing for a hand played without bids.
    fn check_bids(
        &mut self,
        line: &Value,
        rules: &Rules,
        dealt: &[Vec<String>],
        dealer: usize,
        unbid: bool,
    ) -> Option<[(i64, bool); 4]> {
        let list = line["bids"].as_array().unwrap();
        if unbid {
            assert!(list.is_empty(), "the first hand is played without bids");
            self.seen.unbid_hands += 1;
            return None;
        }
        let players = rules.players as usize;
        assert_eq!(list.len(), players);
        // The empty fourth seat of a three-player game counts as a nil
        // that takes nothing: it belongs to no team.
        let mut bids: [Option<(i64, bool)>; 4] = [None; 4];
        if players == 3 {
            bids[3] = Some((0, false));
        }
        for (i, entry) in list.iter().enumerate() {
            let seat = seat_of(&entry["seat"]);
            assert_eq!(seat, (dealer + 1 + i) % players, "bidding order");
            let bid = int(&entry["bid"]);
            let blind = entry["blind"].as_bool().unwrap();
            assert!((0..=rules.hand_size() as i64).contains(&bid), "bid {bid}");
            let partner_bid = rules
                .partner(seat)
                .and_then(|partner| bids[partner])
                .map(|(b, _)| b);
            if bid == 0 {
                assert!(rules.nil, "a nil without nil");
                if rules.nil_after_partner {
                    assert!(
                        partner_bid.is_some_and(|b| b > 0),
                        "nil before the partner's number"
                    );
                }
                self.seen.nils += 1;
            }
            let team = rules.team_of(seat);
            let behind = (0..rules.teams())
                .filter(|&t| t != team)
                .map(|t| self.score[t])
                .max()
                .unwrap()
                - self.score[team];
            let partner_blind = rules.partner(seat).and_then(|partner| bids[partner]);
            if blind && bid > 0 {
                // A team blind bid: the first partner makes it unseen, and
                // the second holds the same bid.
                assert!(rules.team_blind > 0, "a team blind bid without the rule");
                assert!(bid >= rules.team_blind, "blind {bid} under {}", rules.team_blind);
                assert!(
                    behind >= rules.team_blind_min_deficit,
                    "team blind without the deficit"
                );
                match partner_blind {
                    None => self.seen.team_blinds += 1,
                    Some(partner) => assert_eq!(partner, (bid, true), "the partner's blind bid"),
                }
            } else if blind {
                assert!(rules.blind_nil, "blind nil is off");
                assert!(
                    behind >= rules.blind_nil_min_deficit,
                    "blind nil without the deficit"
                );
                self.seen.blind_nils += 1;
            }
            if let Some((_, true)) = partner_blind.filter(|&(b, _)| b > 0) {
                assert_eq!(
                    (bid, blind),
                    partner_blind.unwrap(),
                    "the partner of a blind bid holds it"
                );
            }
            if let Some(partner_bid) = partner_bid.filter(|_| !blind || bid == 0) {
                assert!(partner_bid + bid >= rules.min_team_bid, "under the team minimum");
            }
            let spades = dealt[seat]
                .iter()
                .filter(|card| is_trump(card, rules.pack))
                .count() as i64;
            if blind && bid > 0 {
                assert_eq!(
                    rules.bidding,
                    Bidding::Standard,
                    "a team blind bid outside standard bidding"
                );
                bids[seat] = Some((bid, blind));
                continue;
            }
            match rules.bidding {
                Bidding::Standard => {}
                Bidding::Suicide => match partner_bid {
                    None => assert!(bid == 0 || bid >= 4, "suicide's first bid {bid}"),
                    Some(0) => assert!(bid >= 4, "suicide after a nil: {bid}"),
                    Some(_) => assert_eq!(bid, 0, "suicide after a number"),
                },
                Bidding::Whiz => assert!(bid == spades || bid == 0, "whiz bid {bid} with {spades} spades"),
                Bidding::Mirror => assert_eq!(bid, spades, "mirror bid with {spades} spades"),
            }
            bids[seat] = Some((bid, blind));
        }
        if rules.bidding == Bidding::Suicide {
            for team in 0..2 {
                let nils = [team, team + 2]
                    .iter()
                    .filter(|&&s| bids[s].unwrap().0 == 0)
                    .count();
                assert_eq!(nils, 1, "suicide: one nil per team");
            }
        }
        // A team's bids add up to at most the team maximum: a team blind
        // bid, held by both partners, counts once.
        if let Some(most) = rules.max_team_bid {
            for team in 0..rules.teams() {
                let held: Vec<(i64, bool)> = rules.members(team).iter().map(|&s| bids[s].unwrap()).collect();
                let contract = match held.iter().find(|&&(bid, blind)| blind && bid > 0) {
                    Some(&(bid, _)) => bid,
                    None => held.iter().map(|&(bid, _)| bid).sum(),
                };
                assert!(contract <= most, "team {team} bid {contract}, above {most}");
                self.seen.most_team_bid = self.seen.most_team_bid.max(contract);
            }
        }
        Some(bids.map(Option::unwrap))
    }

    /// Checks the exchanges and returns the hands as play begins.
    fn check_passes(
        &mut self,
        line: &Value,
        rules: &Rules,
        dealt: &[Vec<String>],
        bids: &Option<[(i64, bool); 4]>,
    ) -> Vec<Vec<String>> {
        let passes = line["passes"].as_array().unwrap();
        let mut hands = dealt.to_vec();
        let Some(bids) = bids else {
            assert!(passes.is_empty(), "no exchange without bids");
            return hands;
        };
        if !rules.partners {
            assert!(passes.is_empty(), "no exchange in solo");
            return hands;
        }
        for team in 0..2 {
            let (a, b) = (team, team + 2);
            let count = |seat: usize| match bids[seat] {
                (0, true) => Some(rules.blind_nil_pass),
                (0, false) => Some(rules.nil_pass),
                _ => None,
            };
            let expected: Vec<(usize, usize)> = match (count(a), count(b)) {
                (Some(x), Some(y)) if x.max(y) > 0 => vec![(a, x.max(y)), (b, x.max(y))],
                (Some(x), None) if x > 0 => vec![(a, x), (b, x)],
                (None, Some(y)) if y > 0 => vec![(b, y), (a, y)],
                _ => vec![],
            };
            let simultaneous = rules.simultaneous || (count(a).is_some() && count(b).is_some());
            let mine: Vec<&Value> = passes
                .iter()
                .filter(|pass| seat_of(&pass["from"]) % 2 == team)
                .collect();
            assert_eq!(mine.len(), expected.len(), "number of passes of team {team}");
            let mut froms: Vec<usize> = mine.iter().map(|pass| seat_of(&pass["from"])).collect();
            let mut expected_froms: Vec<usize> = expected.iter().map(|&(seat, _)| seat).collect();
            if simultaneous {
                froms.sort_unstable();
                expected_froms.sort_unstable();
            }
            assert_eq!(froms, expected_froms, "who passes, in which order");
            // Simultaneous passes are chosen from the dealt hands, and the
            // cards move once both have chosen.
            let mut moves = Vec::new();
            for pass in &mine {
                let from = seat_of(&pass["from"]);
                assert_eq!(seat_of(&pass["to"]), (from + 2) % 4);
                let given = cards_of(&pass["cards"]);
                let want = expected.iter().find(|&&(seat, _)| seat == from).unwrap().1;
                assert_eq!(given.len(), want, "pass size");
                assert_eq!(given.iter().collect::<HashSet<_>>().len(), given.len());
                let source = if simultaneous { &dealt[from] } else { &hands[from] };
                for card in &given {
                    assert!(source.contains(card), "{from} passes {card} he does not hold");
                }
                if simultaneous {
                    moves.push((from, given));
                } else {
                    hands[from].retain(|card| !given.contains(card));
                    hands[(from + 2) % 4].extend(given);
                }
                self.seen.passes += 1;
            }
            for (from, given) in moves {
                hands[from].retain(|card| !given.contains(card));
                hands[(from + 2) % 4].extend(given);
            }
        }
        assert!(hands.iter().all(|hand| hand.len() == rules.hand_size()));
        hands
    }

    /// Checks the hand's tricks and returns each seat's tricks.
    fn check_play(
        &mut self,
        line: &Value,
        rules: &Rules,
        mut hands: Vec<Vec<String>>,
        dealer: usize,
    ) -> Vec<i64> {
        let tricks = line["tricks"].as_array().unwrap();
        let players = rules.players as usize;
        assert_eq!(tricks.len(), rules.hand_size());
        let mut leader = match rules.leading {
            Leading::LeftOfDealer => (dealer + 1) % players,
            Leading::Dealer => dealer,
            Leading::TwoOfClubs => (0..players)
                .find(|&seat| hands[seat].iter().any(|c| c == lowest_club(rules)))
                .unwrap(),
        };
        let mut broken = false;
        let mut won = vec![0i64; players];
        for (number, trick) in tricks.iter().enumerate() {
            assert_eq!(seat_of(&trick["leader"]), leader);
            let cards = cards_of(&trick["cards"]);
            assert_eq!(cards.len(), players, "a card from each player");
            if number == 0 && rules.leading == Leading::TwoOfClubs {
                assert_eq!(cards[0], lowest_club(rules), "the lowest club leads");
            }
            let led = suit(&cards[0], rules.pack);
            let restricted = match rules.spades_lead {
                SpadesLead::Broken => true,
                SpadesLead::AnyTime => false,
                SpadesLead::FromFourthTrick => number < 3,
            };
            if led == 'S' && !broken && !hands[leader].iter().all(|c| is_trump(c, rules.pack)) {
                assert!(
                    !restricted,
                    "a spade led before spades were broken, trick {number}"
                );
                self.seen.trumps_led_early += 1;
            }
            for (i, card) in cards.iter().enumerate() {
                let player = (leader + i) % players;
                let hand = &hands[player];
                assert!(hand.contains(card), "{player} plays {card} he does not hold");
                if i > 0 && suit(card, rules.pack) != led {
                    assert!(
                        hand.iter().all(|c| suit(c, rules.pack) != led),
                        "{player} did not follow {led}"
                    );
                }
                if is_joker(card) {
                    self.seen.jokers_played += 1;
                }
                if card == "2D" && is_trump(card, rules.pack) {
                    self.seen.trump_diamond_twos += 1;
                }
                hands[player].retain(|c| c != card);
            }
            let best = (0..players)
                .max_by_key(|&i| {
                    let card = &cards[i];
                    let class = if is_trump(card, rules.pack) {
                        2
                    } else if suit(card, rules.pack) == led {
                        1
                    } else {
                        0
                    };
                    (class, strength(card, rules.pack))
                })
                .unwrap();
            let winner = (leader + best) % players;
            assert_eq!(seat_of(&trick["winner"]), winner, "winner of {cards:?}");
            won[winner] += 1;
            broken |= cards.iter().any(|c| is_trump(c, rules.pack));
            leader = winner;
        }
        won
    }

    /// Scores one team's hand, updates its running score, bags and sets in
    /// a row, and says whether it won a Boston.
    fn score_team(
        &mut self,
        rules: &Rules,
        team: usize,
        bids: &Option<[(i64, bool); 4]>,
        won: &[i64],
        unbid: bool,
    ) -> Outcome {
        let members = rules.members(team);
        let Some(bids) = bids else {
            // A hand without bids: ten points a trick, no bags, no set.
            let tricks: i64 = members.iter().map(|&seat| won[seat]).sum();
            let change = 10 * tricks;
            assert!(unbid);
            self.score[team] += change;
            self.sets_in_row[team] = 0;
            return Outcome {
                change,
                boston: false,
            };
        };
        let mut change = 0;
        let mut contract = 0;
        let mut counted = 0;
        let mut bags = 0;
        let mut blind = false;
        for &seat in &members {
            match bids[seat] {
                // Both partners hold the team's one blind bid.
                (bid, true) if bid > 0 => {
                    blind = true;
                    contract = bid;
                    counted += won[seat];
                }
                (0, blind) => {
                    let value = if blind {
                        rules.blind_nil_value
                    } else {
                        rules.nil_value
                    };
                    change += if won[seat] == 0 { value } else { -value };
                    bags += won[seat];
                }
                (bid, _) => {
                    contract += bid;
                    counted += won[seat];
                }
            }
        }
        let mut boston = false;
        let all = rules.hand_size() as i64;
        if contract > 0 {
            let value = match contract {
                10 if rules.ten_for_two_hundred => 200,
                c if c == all && rules.moon && rules.ten_for_two_hundred => 500,
                c if c == all && rules.moon => 200,
                _ => 10 * contract,
            };
            self.seen.ten_for_two_hundred += usize::from(rules.ten_for_two_hundred && contract == 10);
            self.seen.moons += usize::from(rules.moon && contract == all);
            let over = counted - contract;
            // A blind bid is set only by falling short.
            let too_many = !blind
                && rules
                    .max_overtricks
                    .is_some_and(|limit| contract < 10 && over > limit);
            let doubled = !blind && rules.set_at_double && counted >= 2 * contract;
            if counted >= contract && !too_many && !doubled {
                change += if blind { 2 * value } else { value };
                self.seen.team_blinds_made += usize::from(blind);
                bags += over;
                self.sets_in_row[team] = 0;
                boston = rules.boston_wins && contract >= 10 && counted == all;
                self.seen.bostons += usize::from(boston);
            } else {
                change -= if blind && rules.team_blind_set_doubled {
                    2 * value
                } else {
                    value
                };
                self.sets_in_row[team] += 1;
                self.seen.sets += 1;
                self.seen.overtrick_sets += usize::from(counted >= contract && too_many);
                self.seen.double_sets += usize::from(counted >= contract && doubled && !too_many);
            }
        } else {
            self.sets_in_row[team] = 0;
        }
        change += bags * rules.bag_value;
        let mut total_bags = self.bags[team] + bags;
        while total_bags >= rules.bag_limit {
            total_bags -= rules.bag_limit;
            change -= rules.bag_penalty;
            self.seen.bag_penalties += 1;
        }
        self.score[team] += change;
        self.bags[team] = total_bags;
        Outcome { change, boston }
    }

    /// The winner after a hand, by "End of the game" in `docs/rules.md`.
    fn winner(&mut self, rules: &Rules, boston: Option<usize>) -> Option<usize> {
        if boston.is_some() {
            return boston;
        }
        let teams = rules.teams();
        // The best score among some teams, if one team holds it alone.
        let best = |among: &[usize]| {
            let top = among.iter().map(|&t| self.score[t]).max()?;
            let holders: Vec<usize> = among.iter().copied().filter(|&t| self.score[t] == top).collect();
            (holders.len() == 1).then(|| holders[0])
        };
        let all: Vec<usize> = (0..teams).collect();
        if let Some(limit) = rules.sets_to_lose {
            let out: Vec<usize> = all
                .iter()
                .copied()
                .filter(|&t| self.sets_in_row[t] >= limit)
                .collect();
            if !out.is_empty() {
                self.seen.sets_in_a_row += 1;
                let left: Vec<usize> = all.iter().copied().filter(|t| !out.contains(t)).collect();
                return if left.is_empty() { best(&all) } else { best(&left) };
            }
        }
        let hands_played = self.next_hand + 1;
        let over = self.score.iter().any(|&s| s >= rules.target)
            || rules
                .mercy
                .is_some_and(|mercy| self.score.iter().any(|&s| s <= mercy))
            || rules.max_hands.is_some_and(|limit| hands_played >= limit);
        if over { best(&all) } else { None }
    }
}

struct Outcome {
    change: i64,
    boston: bool,
}
