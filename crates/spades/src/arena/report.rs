//! The arena's figures, summed over its deal pairs.

use std::fmt::Write;
use std::time::Duration;

use super::pair::{PairResult, SideRecord};
use super::watch::{Habits, Rate};
use crate::stats::{format_duration, percentile};

/// A mean with the half-width of its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub mean: f64,
    pub margin: f64,
}

impl Estimate {
    /// The mean of `values` and the normal approximation of its interval
    /// (the values are per deal pair, so independent).
    fn of(values: &[f64]) -> Estimate {
        let n = values.len() as f64;
        if values.is_empty() {
            return Estimate {
                mean: 0.0,
                margin: 0.0,
            };
        }
        let mean = values.iter().sum::<f64>() / n;
        let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
        Estimate {
            mean,
            margin: 1.96 * (variance / n).sqrt(),
        }
    }
}

/// One side's figures over the run.
#[derive(Clone, Default, Debug)]
pub struct SideFigures {
    pub contracts: Rate,
    pub nils: Rate,
    pub blind_nils: Rate,
    pub bids: u64,
    pub bags: u64,
    pub team_hands: u64,
    pub habits: Habits,
    pub times: Vec<u32>,
}

impl SideFigures {
    fn add(&mut self, record: &SideRecord) {
        let rate = |(times, chances)| Rate { times, chances };
        self.contracts.add(rate(record.contracts));
        self.nils.add(rate(record.nils));
        self.blind_nils.add(rate(record.blind_nils));
        self.bids += record.bids;
        self.bags += record.bags;
        self.team_hands += record.team_hands;
        self.habits.add(&record.habits);
        self.times.extend_from_slice(&record.times);
    }
}

/// Everything an arena run measured.
#[derive(Clone, Debug)]
pub struct Report {
    pub games: u64,
    pub hands: u64,
    /// The first side's share of the games won, from 0 to 1.
    pub first_wins: Estimate,
    /// The first side's lead in points per hand on the same deals.
    pub points_per_hand: Estimate,
    pub sides: [SideFigures; 2],
}

impl Report {
    pub fn from_pairs(pairs: &[PairResult]) -> Report {
        let wins: Vec<f64> = pairs
            .iter()
            .map(|pair| pair.first_wins / pair.games.max(1) as f64)
            .collect();
        let points: Vec<f64> = pairs.iter().filter_map(|pair| pair.points_per_hand).collect();
        let mut sides: [SideFigures; 2] = Default::default();
        for pair in pairs {
            for (figures, record) in sides.iter_mut().zip(&pair.sides) {
                figures.add(record);
            }
        }
        for side in &mut sides {
            side.times.sort_unstable();
        }
        Report {
            games: pairs.iter().map(|pair| pair.games).sum(),
            hands: pairs.iter().map(|pair| pair.hands).sum(),
            first_wins: Estimate::of(&wins),
            points_per_hand: Estimate::of(&points),
            sides,
        }
    }

    /// The report as people read it, the sides named `names`.
    pub fn render(&self, names: [&str; 2]) -> String {
        let mut out = String::new();
        let wins = self.first_wins;
        let _ = writeln!(
            out,
            "games won by {}: {:.1}% (95% interval {:.1}% to {:.1}%)",
            names[0],
            100.0 * wins.mean,
            100.0 * (wins.mean - wins.margin),
            100.0 * (wins.mean + wins.margin)
        );
        let points = self.points_per_hand;
        let _ = writeln!(
            out,
            "points per hand on the same deals: {} {:+.1} ± {:.1}",
            names[0], points.mean, points.margin
        );
        let _ = writeln!(out, "{:<44}{:>16}{:>16}", "", names[0], names[1]);
        let mut row = |label: &str, cell: &dyn Fn(&SideFigures) -> String| {
            let _ = writeln!(
                out,
                "{label:<44}{:>16}{:>16}",
                cell(&self.sides[0]),
                cell(&self.sides[1])
            );
        };
        row("contracts made", &|side| percent(side.contracts));
        row("nil bid (share of bids)", &|side| {
            share(side.nils.chances, side.bids)
        });
        row("nil made", &|side| percent(side.nils));
        row("blind nil bid (share of bids)", &|side| {
            share(side.blind_nils.chances, side.bids)
        });
        row("blind nil made", &|side| percent(side.blind_nils));
        row("bags per team and hand", &|side| {
            format!("{:.2}", side.bags as f64 / side.team_hands.max(1) as f64)
        });
        row("trumped the partner's best card", &|side| {
            percent(side.habits.trumped_partner)
        });
        row("overtook the winning partner, last", &|side| {
            percent(side.habits.overtook_partner)
        });
        row("needless bag, both contracts made", &|side| {
            percent(side.habits.needless_bag)
        });
        row("covered the partner's nil", &|side| {
            percent(side.habits.covered_nil)
        });
        row("stayed under an opponent's nil", &|side| {
            percent(side.habits.stayed_under_nil)
        });
        row("decision time p50", &|side| time(&side.times, 0.5));
        row("decision time p99", &|side| time(&side.times, 0.99));
        row("decision time max", &|side| time(&side.times, 1.0));
        out
    }
}

fn percent(rate: Rate) -> String {
    rate.percent().map_or_else(
        || "-".to_owned(),
        |value| format!("{value:.1}% of {}", rate.chances),
    )
}

fn share(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "-".to_owned();
    }
    format!("{:.1}%", 100.0 * part as f64 / whole as f64)
}

fn time(sorted: &[u32], fraction: f64) -> String {
    percentile(sorted, fraction).map_or_else(
        || "-".to_owned(),
        |nanos| format_duration(Duration::from_nanos(u64::from(nanos))),
    )
}
