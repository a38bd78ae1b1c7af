//! Duplicate tournaments: every table of a round plays the same deals (the
//! round's boards, one per hand), and each partnership is scored against
//! the others that held the same cards, board by board, so that the luck
//! of the cards cancels out.
//!
//! Two movements:
//! - **Pairs** (`duplicate_pairs`): partnerships are drawn once at the
//!   start and kept. With `t` tables, the first `t` pairs sit North–South
//!   at tables 0 to `t - 1` all tournament long, and the East–West pairs
//!   move up one table each round (a Mitchell movement), so that each
//!   meets every North–South pair once in `t` rounds.
//! - **Individual** (`duplicate_individual`): partnerships are drawn anew
//!   each round, avoiding repeats, as for a knockout stage.
//!
//! Scoring is by matchpoints: on each board, a partnership gets 2 for each
//! other partnership that held the same cards (the same seats at another
//! table of the round) and scored fewer points on that board, and 1 for
//! each that scored the same. Each player earns his partnership's
//! matchpoints. The tie-break is the sum, over boards and over those
//! others, of the points scored above them.
//!
//! Everything here is plain data, so that a test can check the scoring
//! from the stored hands on its own terms.

use std::collections::HashMap;

use sha2::{Digest, Sha256};

use super::pairing::{self, History, Seatable};

/// The stored formats of duplicate tournaments.
pub const PAIRS: &str = "duplicate_pairs";
pub const INDIVIDUAL: &str = "duplicate_individual";

pub fn is_duplicate(format: &str) -> bool {
    format == PAIRS || format == INDIVIDUAL
}

/// The seed every table of round `round` deals from. It is drawn from the
/// tournament's secret seed through SHA-256, so that the seed of a round,
/// published once the round is over, tells nothing of the next one.
pub fn deal_seed(tournament_seed: u64, round: u32) -> u64 {
    let digest = Sha256::digest(format!("spades-duplicate-round:{tournament_seed}:{round}"));
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(bytes)
}

/// The fixed partnerships of a pairs tournament, drawn once from `seed`
/// (the first stage's), each a bot with a person where that can be.
pub fn fixed_pairs(players: &[Seatable], seed: u64) -> Vec<[u32; 2]> {
    pairing::knockout_stage(players, &History::default(), seed)
        .into_iter()
        .flat_map(|table| [[table[0], table[2]], [table[1], table[3]]])
        .collect()
}

/// The tables of round `round` of a pairs tournament: table `t` seats the
/// North–South pair `t` in seats 0 and 2 and the East–West pair
/// `tables + (t + round) mod tables` in seats 1 and 3.
pub fn pairs_round(pairs: &[[u32; 2]], round: u32) -> Vec<[u32; 4]> {
    let tables = pairs.len() / 2;
    (0..tables)
        .map(|t| {
            let north_south = pairs[t];
            let east_west = pairs[tables + (t + round as usize) % tables];
            [north_south[0], east_west[0], north_south[1], east_west[1]]
        })
        .collect()
}

/// One table's round: its seats, and each board's points for team 0
/// (seats 0 and 2) and team 1, by hand number; `None` for a board it did
/// not play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableBoards {
    pub seats: [u32; 4],
    pub boards: Vec<Option<[i32; 2]>>,
}

/// Each entry's matchpoints and tie-break over the tables of one round.
pub fn matchpoints(tables: &[TableBoards]) -> HashMap<u32, (i32, i32)> {
    let mut totals: HashMap<u32, (i32, i32)> = HashMap::new();
    let boards = tables.iter().map(|table| table.boards.len()).max().unwrap_or(0);
    for (index, table) in tables.iter().enumerate() {
        for team in 0..2 {
            let (mut points, mut above) = (0, 0);
            for board in 0..boards {
                let Some(mine) = table.boards.get(board).copied().flatten() else {
                    continue;
                };
                for (other, theirs) in tables.iter().enumerate() {
                    let Some(theirs) = theirs.boards.get(board).copied().flatten() else {
                        continue;
                    };
                    if other == index {
                        continue;
                    }
                    points += match mine[team].cmp(&theirs[team]) {
                        std::cmp::Ordering::Greater => 2,
                        std::cmp::Ordering::Equal => 1,
                        std::cmp::Ordering::Less => 0,
                    };
                    above += mine[team] - theirs[team];
                }
            }
            for seat in [team, team + 2] {
                let total = totals.entry(table.seats[seat]).or_default();
                total.0 += points;
                total.1 += above;
            }
        }
    }
    totals
}

/// Each board's points for both teams from a game's stored hand records
/// (`docs/hand-history.md`: `hand` and `hand_score`).
pub fn boards_of(records: &[serde_json::Value]) -> Vec<Option<[i32; 2]>> {
    let mut boards = Vec::new();
    for record in records {
        let hand = record["hand"].as_u64().unwrap_or(u64::MAX) as usize;
        let score = record["hand_score"].as_array().and_then(|score| {
            let team = |i: usize| score.get(i)?.as_i64().and_then(|n| i32::try_from(n).ok());
            Some([team(0)?, team(1)?])
        });
        if hand < 64 {
            if boards.len() <= hand {
                boards.resize(hand + 1, None);
            }
            boards[hand] = score;
        }
    }
    boards
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_east_west_pairs_meet_every_north_south_pair_once() {
        let pairs: Vec<[u32; 2]> = (0..6).map(|p| [2 * p, 2 * p + 1]).collect();
        let mut met = std::collections::HashSet::new();
        for round in 0..3 {
            let tables = pairs_round(&pairs, round);
            assert_eq!(tables.len(), 3);
            for (t, seats) in tables.iter().enumerate() {
                // North–South pairs stay at their table.
                assert_eq!([seats[0], seats[2]], pairs[t]);
                assert!(met.insert((seats[0], seats[1])), "{seats:?} met twice");
            }
        }
        assert_eq!(met.len(), 9);
    }

    #[test]
    fn matchpoints_compare_the_same_cards_at_other_tables() {
        let tables = [
            TableBoards {
                seats: [0, 1, 2, 3],
                boards: vec![Some([60, -40]), Some([-100, 50])],
            },
            TableBoards {
                seats: [4, 5, 6, 7],
                boards: vec![Some([40, 20]), Some([-100, 70])],
            },
            TableBoards {
                seats: [8, 9, 10, 11],
                boards: vec![Some([60, 30]), None],
            },
        ];
        let points = matchpoints(&tables);
        // Board 0, North–South: 60, 40, 60. Board 1: -100, -100. Table 0
        // beats table 1 and ties table 2 on board 0 (2 + 1), and ties
        // table 1 on board 1 (1), by 20 points in all.
        assert_eq!(points[&0], (4, 20));
        assert_eq!(points[&2], points[&0]);
        assert_eq!(points[&4], (1, -40));
        assert_eq!(points[&8], (3, 20));
        // Board 0, East–West: -40, 20, 30. Board 1: 50, 70.
        assert_eq!(points[&1], (0, -150));
        assert_eq!(points[&5], (4, 70));
        assert_eq!(points[&9], (4, 80));
    }

    #[test]
    fn a_rounds_seed_is_fixed_and_tells_nothing_of_the_next() {
        assert_eq!(deal_seed(7, 0), deal_seed(7, 0));
        assert_ne!(deal_seed(7, 0), deal_seed(7, 1));
        assert_ne!(deal_seed(7, 0), deal_seed(8, 0));
    }

    #[test]
    fn boards_are_read_from_the_hand_records() {
        let records = [
            serde_json::json!({"hand": 0, "hand_score": [51, -20]}),
            serde_json::json!({"hand": 2, "hand_score": [0, 100]}),
        ];
        assert_eq!(boards_of(&records), vec![Some([51, -20]), None, Some([0, 100])]);
    }
}
