//! Seating a tournament stage: who partners whom and who meets whom.
//!
//! A seating is a list of entries read four at a time: each four is a
//! table, in seat order, so seats 0 and 2 are one partnership and seats 1
//! and 3 the other. A seating is found by local search: start from a
//! natural order (a random draw for a knockout, the standings for a Swiss
//! round) and keep every swap of two entries that does not make it worse.
//! Everything is drawn from a seed, so the same stage is seated the same
//! way every time it is computed.

use std::collections::HashMap;

use spades_engine::GameRng;

/// What a seating must avoid: a partnership played before costs this much,
/// for each time it was played.
const REPEAT_COST: u64 = 10_000;

/// Two bots partnering each other: they would spoil a table for the people
/// there and, in a knockout, could carry a bot pair through the bracket.
const BOT_PAIR_COST: u64 = 1_000;

/// Swaps tried per entry; enough to settle a seating of a thousand entries.
const TRIES_PER_ENTRY: usize = 400;

/// An entry to seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seatable {
    pub entry: u32,
    pub bot: bool,
}

/// The partnerships already played.
#[derive(Clone, Debug, Default)]
pub struct History {
    partners: HashMap<(u32, u32), u32>,
}

impl History {
    fn key(a: u32, b: u32) -> (u32, u32) {
        (a.min(b), a.max(b))
    }

    /// Records the two partnerships of a table.
    pub fn add_table(&mut self, seats: [u32; 4]) {
        for (a, b) in [(seats[0], seats[2]), (seats[1], seats[3])] {
            *self.partners.entry(History::key(a, b)).or_default() += 1;
        }
    }

    pub fn times_partnered(&self, a: u32, b: u32) -> u32 {
        self.partners.get(&History::key(a, b)).copied().unwrap_or(0)
    }
}

/// The tables of a knockout stage: a random draw into partnerships, with
/// nobody partnering someone he partnered before and no two bots together,
/// whenever that can be avoided. `players.len()` must be a multiple of 4.
pub fn knockout_stage(players: &[Seatable], history: &History, seed: u64) -> Vec<[u32; 4]> {
    let mut rng = GameRng::new(seed);
    let mut order = players.to_vec();
    rng.shuffle(&mut order);
    let cost = |table: &[Seatable]| partnership_cost(table, history);
    improve(&mut order, &mut rng, cost);
    tables(&order)
}

/// The tables of a Swiss round: `ranked` holds the entries in standings
/// order, best first. Neighbours in the standings meet, the best of each
/// four partnering the fourth and the second the third, and repeated
/// partnerships are avoided before anything else.
pub fn swiss_round(ranked: &[Seatable], history: &History, seed: u64) -> Vec<[u32; 4]> {
    let mut rng = GameRng::new(seed);
    // Entry numbers are small and dense: a table is faster than a map here,
    // where it is read for every swap tried.
    let size = ranked.iter().map(|p| p.entry as usize + 1).max().unwrap_or(0);
    let mut rank = vec![0usize; size];
    for (i, p) in ranked.iter().enumerate() {
        rank[p.entry as usize] = i;
    }
    let mut order: Vec<Seatable> = Vec::with_capacity(ranked.len());
    for four in ranked.chunks(4) {
        // Seats 0 and 2 are partners: first with fourth, second with third.
        match four {
            [a, b, c, d] => order.extend([*a, *b, *d, *c]),
            rest => order.extend_from_slice(rest),
        }
    }
    let cost = |table: &[Seatable]| {
        let ranks = table.iter().map(|p| rank[p.entry as usize]);
        let spread = ranks.clone().max().unwrap_or(0) - ranks.min().unwrap_or(0);
        // Partnerships of even strength: the rank sums of the two pairs
        // should be as close as possible.
        let pair = |a: usize, b: usize| rank[table[a].entry as usize] + rank[table[b].entry as usize];
        let balance = pair(0, 2).abs_diff(pair(1, 3));
        partnership_cost(table, history) + spread as u64 + balance as u64
    };
    improve(&mut order, &mut rng, cost);
    tables(&order)
}

/// How much a table's partnerships are to be avoided.
fn partnership_cost(table: &[Seatable], history: &History) -> u64 {
    let mut cost = 0;
    for (a, b) in [(table[0], table[2]), (table[1], table[3])] {
        cost += REPEAT_COST * u64::from(history.times_partnered(a.entry, b.entry));
        if a.bot && b.bot {
            cost += BOT_PAIR_COST;
        }
    }
    cost
}

/// Fresh starts the search may make when it ends with a partnership played
/// before: a swap search can stall where one exchange would not do.
const RESTARTS: usize = 8;

/// Local search from `order`, started again from random orders while the
/// result still repeats a partnership; the cheapest seating found is kept.
fn improve(order: &mut [Seatable], rng: &mut GameRng, cost: impl Fn(&[Seatable]) -> u64) {
    let total = |order: &[Seatable]| order.chunks_exact(4).map(&cost).sum::<u64>();
    search(order, rng, &cost);
    let mut best = total(order);
    let mut attempt = order.to_vec();
    for _ in 0..RESTARTS {
        if best < REPEAT_COST {
            break;
        }
        rng.shuffle(&mut attempt);
        search(&mut attempt, rng, &cost);
        let found = total(&attempt);
        if found < best {
            best = found;
            order.copy_from_slice(&attempt);
        }
    }
}

/// Local search over swaps of two entries; a swap is kept when the tables
/// it touches cost no more than before.
fn search(order: &mut [Seatable], rng: &mut GameRng, cost: &impl Fn(&[Seatable]) -> u64) {
    let n = order.len();
    if n < 8 {
        // One table: only the partnerships within it can change.
        if n == 4 {
            best_of_one_table(order, cost);
        }
        return;
    }
    for _ in 0..TRIES_PER_ENTRY * n {
        let i = rng.below(n as u32) as usize;
        let j = rng.below(n as u32) as usize;
        let (ti, tj) = (i / 4, j / 4);
        if i == j {
            continue;
        }
        let before = cost(&order[4 * ti..4 * ti + 4])
            + if ti == tj {
                0
            } else {
                cost(&order[4 * tj..4 * tj + 4])
            };
        order.swap(i, j);
        let after = cost(&order[4 * ti..4 * ti + 4])
            + if ti == tj {
                0
            } else {
                cost(&order[4 * tj..4 * tj + 4])
            };
        if after > before {
            order.swap(i, j);
        }
    }
}

/// The three ways four players can form two partnerships, best kept.
fn best_of_one_table(order: &mut [Seatable], cost: &impl Fn(&[Seatable]) -> u64) {
    let [a, b, c, d] = [order[0], order[1], order[2], order[3]];
    let options = [[a, b, c, d], [a, c, b, d], [a, b, d, c]];
    if let Some(best) = options.iter().min_by_key(|option| cost(&option[..])) {
        order.copy_from_slice(best);
    }
}

fn tables(order: &[Seatable]) -> Vec<[u32; 4]> {
    order
        .chunks_exact(4)
        .map(|four| [four[0].entry, four[1].entry, four[2].entry, four[3].entry])
        .collect()
}

/// The smallest knockout bracket (4 × 2^k entries) that holds `entries`.
pub fn bracket_size(entries: usize) -> usize {
    let mut size = 4;
    while size < entries {
        size *= 2;
    }
    size
}

#[cfg(test)]
mod tests {
    use super::*;

    fn people(n: u32) -> Vec<Seatable> {
        (0..n).map(|entry| Seatable { entry, bot: false }).collect()
    }

    fn partners(tables: &[[u32; 4]]) -> Vec<(u32, u32)> {
        let mut pairs = Vec::new();
        for t in tables {
            pairs.push((t[0].min(t[2]), t[0].max(t[2])));
            pairs.push((t[1].min(t[3]), t[1].max(t[3])));
        }
        pairs
    }

    #[test]
    fn a_stage_seats_everyone_once() {
        let tables = knockout_stage(&people(16), &History::default(), 7);
        assert_eq!(tables.len(), 4);
        let mut seen: Vec<u32> = tables.iter().flatten().copied().collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..16).collect::<Vec<_>>());
    }

    #[test]
    fn the_same_seed_seats_the_same_way() {
        let players = people(32);
        let history = History::default();
        assert_eq!(
            knockout_stage(&players, &history, 3),
            knockout_stage(&players, &history, 3)
        );
        assert_ne!(
            knockout_stage(&players, &history, 3),
            knockout_stage(&players, &history, 4)
        );
    }

    #[test]
    fn winners_are_given_new_partners() {
        // Eight players who went through as four pairs must all be re-mixed.
        let mut history = History::default();
        history.add_table([0, 1, 2, 3]);
        history.add_table([4, 5, 6, 7]);
        history.add_table([8, 9, 10, 11]);
        history.add_table([12, 13, 14, 15]);
        let winners: Vec<Seatable> = [0, 2, 5, 7, 8, 10, 13, 15]
            .into_iter()
            .map(|entry| Seatable { entry, bot: false })
            .collect();
        for seed in 0..50 {
            let tables = knockout_stage(&winners, &history, seed);
            for (a, b) in partners(&tables) {
                assert_eq!(
                    history.times_partnered(a, b),
                    0,
                    "seed {seed}: {a} and {b} partnered again"
                );
            }
        }
        // The final four come from two pairs: both new partnerships cross.
        let mut history = History::default();
        history.add_table([0, 1, 2, 3]);
        let tables = knockout_stage(&people(4), &history, 1);
        for (a, b) in partners(&tables) {
            assert_eq!(history.times_partnered(a, b), 0);
        }
    }

    #[test]
    fn bots_partner_people() {
        let mut players = people(6);
        players.extend([6, 7].map(|entry| Seatable { entry, bot: true }));
        for seed in 0..50 {
            let tables = knockout_stage(&players, &History::default(), seed);
            for (a, b) in partners(&tables) {
                assert!(a < 6 || b < 6, "seed {seed}: two bots partnered");
            }
        }
    }

    #[test]
    fn swiss_rounds_keep_neighbours_together_and_avoid_repeats() {
        let players = people(8);
        let tables = swiss_round(&players, &History::default(), 1);
        // With no history, standings decide: the top four play together.
        let mut top: Vec<u32> = tables[0].to_vec();
        top.sort_unstable();
        assert_eq!(top, vec![0, 1, 2, 3]);
        let mut pairs = partners(&tables[..1]);
        pairs.sort_unstable();
        assert_eq!(
            pairs,
            vec![(0, 3), (1, 2)],
            "first with fourth, second with third"
        );

        // Over seven rounds of eight players, nobody needs a partner twice.
        let mut history = History::default();
        for round in 0..7 {
            let tables = swiss_round(&players, &history, round);
            for table in &tables {
                history.add_table(*table);
            }
        }
        for a in 0..8 {
            for b in a + 1..8 {
                assert!(history.times_partnered(a, b) <= 1, "{a} and {b} partnered twice");
            }
        }
    }

    #[test]
    fn whole_knockouts_never_repeat_a_partnership() {
        // Brackets of 16 and 64 played out with winners drawn at random:
        // nobody partners anyone twice whatever the results, except in a
        // final whose every new pairing was played before.
        for (size, seeds) in [(16, 40), (64, 10)] {
            for seed in 0..seeds {
                let mut rng = GameRng::new(seed);
                let mut history = History::default();
                let mut players = people(size);
                let mut stage = 0;
                while players.len() >= 4 {
                    let tables = knockout_stage(&players, &history, seed * 100 + stage);
                    let repeats = partners(&tables)
                        .into_iter()
                        .filter(|&(a, b)| history.times_partnered(a, b) > 0)
                        .count();
                    let unavoidable = players.len() == 4 && {
                        let [a, b, c, d] = [0, 1, 2, 3].map(|i| players[i].entry);
                        [[(a, b), (c, d)], [(a, c), (b, d)], [(a, d), (b, c)]]
                            .iter()
                            .all(|pairs| pairs.iter().any(|&(x, y)| history.times_partnered(x, y) > 0))
                    };
                    assert!(
                        repeats == 0 || unavoidable,
                        "size {size}, seed {seed}, stage {stage}"
                    );
                    players.clear();
                    for table in &tables {
                        history.add_table(*table);
                        let team = rng.below(2) as usize;
                        players.extend(
                            [table[team], table[team + 2]].map(|entry| Seatable { entry, bot: false }),
                        );
                    }
                    if tables.len() == 1 {
                        break;
                    }
                    stage += 1;
                }
            }
        }
    }

    #[test]
    fn early_swiss_rounds_never_repeat_a_partnership() {
        // In its first four rounds every player of eight still has four
        // partners he has not had, so no repeat is ever needed.
        for seed in 0..30 {
            let mut rng = GameRng::new(seed);
            let mut history = History::default();
            let mut ranked = people(8);
            for round in 0..4 {
                let tables = swiss_round(&ranked, &history, seed * 10 + round);
                for (a, b) in partners(&tables) {
                    assert_eq!(history.times_partnered(a, b), 0, "seed {seed}, round {round}");
                }
                for table in &tables {
                    history.add_table(*table);
                }
                rng.shuffle(&mut ranked);
            }
        }
    }

    #[test]
    fn brackets_are_four_times_a_power_of_two() {
        assert_eq!(bracket_size(4), 4);
        assert_eq!(bracket_size(5), 8);
        assert_eq!(bracket_size(6), 8);
        assert_eq!(bracket_size(16), 16);
        assert_eq!(bracket_size(17), 32);
        assert_eq!(bracket_size(64), 64);
    }
}
