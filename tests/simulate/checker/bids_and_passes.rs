//! The checks of the auction and of the exchanges that follow it. Bidding has
//! the most house rules of any phase, so its checks are kept together here,
//! each written straight from the rule book rather than from the engine.

use super::*;

impl Checker {
    /// Checks the bids against the bidding rules and returns each seat's
    /// bid (tricks, blind), or nothing for a hand played without bids.
    pub(super) fn check_bids(
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
    pub(super) fn check_passes(
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
}
