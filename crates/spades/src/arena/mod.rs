//! `spades arena`: plays duplicate deals between two players and reports
//! how much stronger the first is, with confidence intervals, and how it
//! plays: contracts, nils, bags, the blunders players complain about, and
//! how long it takes to decide.
//!
//! Every deal is played twice with the two players' seats swapped (see
//! [`pair`]), so that both hold the same cards once; comparing results
//! deal by deal takes most of the cards' luck out of the figures.

mod pair;
mod report;
mod watch;

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::bail;
use spades_bots::{Budget, Kind};
use spades_engine::{GameRng, RuleSet};

pub use report::Report;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The two players, separated by a comma: the one measured, then its
    /// opponent (random, beginner, bot, strong or expert).
    #[arg(long, value_delimiter = ',', default_value = "expert,bot")]
    players: Vec<Kind>,
    /// Deal pairs to play; each is two games.
    #[arg(long, default_value_t = 100)]
    pairs: u64,
    /// The seed every deal and every player's choice comes from.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The rules: a preset's name, or a JSON object as `create_room` takes it.
    #[arg(long, default_value = "classic", value_parser = crate::simulate::parse_rules)]
    rules: RuleSet,
    /// Threads to play pairs on; 0 uses one per CPU core. The figures are
    /// the same whatever the number, decision times apart.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Deals the look-ahead bots try for each decision (by default 40 for
    /// the strong bot, 120 for the expert).
    #[arg(long)]
    samples: Option<u32>,
    /// Stop each look-ahead decision after this many milliseconds, as the
    /// server does (`--bot-time-ms`). Results then depend on the machine.
    #[arg(long)]
    time_ms: Option<u64>,
}

/// What an arena run plays.
#[derive(Clone, Copy, Debug)]
pub struct Match {
    pub kinds: [Kind; 2],
    pub rules: RuleSet,
    pub pairs: u64,
    pub seed: u64,
    pub samples: Option<u32>,
    pub time: Option<Duration>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let [first, second] = args.players[..] else {
        bail!("--players needs exactly two players, not {}", args.players.len());
    };
    let threads = match args.threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    };
    let played = Match {
        kinds: [first, second],
        rules: args.rules,
        pairs: args.pairs,
        seed: args.seed,
        samples: args.samples,
        time: args.time_ms.map(Duration::from_millis),
    };
    let started = Instant::now();
    let report = play(&played, threads)?;
    let rules_name = spades_engine::Preset::ALL
        .iter()
        .find(|preset| preset.rules() == args.rules)
        .map_or("custom rules", |preset| preset.name());
    println!(
        "arena: {first} against {second} on {rules_name}, {} deal pairs ({} games, {} hands) in {:.1} s on {threads} threads",
        args.pairs,
        report.games,
        report.hands,
        started.elapsed().as_secs_f64()
    );
    print!("{}", report.render([first.name(), second.name()]));
    Ok(())
}

/// Plays every pair of `played` on `threads` threads and sums them up.
pub fn play(played: &Match, threads: usize) -> anyhow::Result<Report> {
    let mut master = GameRng::new(played.seed);
    let seeds: Vec<u64> = (0..played.pairs).map(|_| master.next_u64()).collect();
    let budget = played.kinds.map(|kind| {
        let budget = played.samples.map_or(kind.budget(), |samples| Budget {
            samples: samples.max(1),
            time: None,
        });
        Budget {
            time: played.time,
            ..budget
        }
    });
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::with_capacity(seeds.len()));
    let work = || -> anyhow::Result<()> {
        while let Some(&seed) = seeds.get(next.fetch_add(1, Ordering::Relaxed)) {
            let result = pair::play_pair(played.kinds, budget, played.rules, seed)?;
            results.lock().expect("no thread panics holding it").push(result);
        }
        Ok(())
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.max(1)).map(|_| scope.spawn(work)).collect();
        handles
            .into_iter()
            .try_for_each(|handle| handle.join().expect("an arena thread panicked"))
    })?;
    let results = results.into_inner().expect("no thread panics holding it");
    Ok(Report::from_pairs(&results))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arena(kinds: [Kind; 2], preset: spades_engine::Preset, pairs: u64) -> Report {
        let played = Match {
            kinds,
            rules: preset.rules(),
            pairs,
            seed: 4,
            samples: Some(8),
            time: None,
        };
        play(&played, 2).expect("the arena plays")
    }

    #[test]
    fn a_player_against_itself_breaks_even_deal_by_deal() {
        // The basic bot has no randomness, so the two games of a pair are
        // the same game with the sides' seats swapped: each side wins one,
        // and on every deal one side's lead is the other's.
        let report = arena([Kind::Basic, Kind::Basic], spades_engine::Preset::Classic, 6);
        assert_eq!(report.games, 12);
        assert_eq!(report.first_wins.mean, 0.5);
        assert_eq!(report.first_wins.margin, 0.0);
        assert_eq!(report.points_per_hand.mean, 0.0);
        assert_eq!(report.sides[0].contracts, report.sides[1].contracts);
        assert_eq!(report.sides[0].bags, report.sides[1].bags);
    }

    #[test]
    fn the_basic_bot_beats_random_play_with_a_tight_interval() {
        let report = arena([Kind::Basic, Kind::Random], spades_engine::Preset::Classic, 8);
        assert!(report.first_wins.mean > 0.9, "{report:?}");
        assert!(report.points_per_hand.mean > 100.0, "{report:?}");
        let text = report.render(["bot", "random"]);
        assert!(text.contains("games won by bot"), "{text}");
        assert!(text.contains("decision time p99"), "{text}");
    }

    #[test]
    fn the_expert_plays_every_kind_of_table() {
        // One pair on a partnership variant, solo and three players: every
        // action is checked by the engine, and each side's figures add up.
        for preset in [
            spades_engine::Preset::Suicide,
            spades_engine::Preset::Solo,
            spades_engine::Preset::ThreePlayer,
        ] {
            let report = arena([Kind::Expert, Kind::Strong], preset, 1);
            assert_eq!(report.games, 2, "{preset:?}");
            assert!(
                report.sides.iter().all(|side| !side.times.is_empty()),
                "{preset:?}"
            );
        }
    }
}
