//! The checks of the tricks, the scores and the end of the game. A log's scores
//! are recomputed here from the bids and tricks alone, so that a wrong total or
//! a wrong winner in the engine shows up as a disagreement.

use super::*;

impl Checker {
    /// Checks the hand's tricks and returns each seat's tricks.
    pub(super) fn check_play(
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
    pub(super) fn score_team(
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
    pub(super) fn winner(&mut self, rules: &Rules, boston: Option<usize>) -> Option<usize> {
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
