//! `spades simulate`: plays games between built-in players on the engine
//! alone, writes their hand histories, and reports how each team did and
//! how long each kind of bot took to decide.

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use spades_bots::{AnyPlayer, Budget, Kind, Player, play_out};
use spades_engine::{Action, Game, GameRng, HandRecord, Preset, RuleSet, Seating, Team, View};
use spades_protocol::history::HandLine;
use spades_protocol::ws::RulesSpec;

use crate::stats::{format_duration, percentile};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// How many games to play.
    #[arg(long, default_value_t = 1)]
    games: u64,
    /// The seed every deal and every player's choice comes from.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The rules: a preset's name, or a JSON object as `create_room` takes
    /// it (a `preset` and any fields that change it).
    #[arg(long, default_value = "classic", value_parser = parse_rules)]
    rules: RuleSet,
    /// The player in each seat, seat 0 first, separated by commas:
    /// random, beginner, bot (the basic bot), strong or expert. Three-player
    /// rules take three (or four, the fourth unused); by default random
    /// players.
    #[arg(long, value_delimiter = ',')]
    players: Vec<Kind>,
    /// Deals the look-ahead bots (strong and expert) try for each decision;
    /// by default 40 for the strong bot and 120 for the expert.
    #[arg(long)]
    samples: Option<u32>,
    /// Threads to play games on; 0 uses one per CPU core. The output is the
    /// same whatever the number.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Write the hand histories to this file instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
}

pub fn parse_rules(text: &str) -> Result<RuleSet, String> {
    if text.trim_start().starts_with('{') {
        let spec: RulesSpec =
            serde_json::from_str(text).map_err(|error| format!("not a rules object: {error}"))?;
        return spec
            .resolve()
            .map_err(|error| format!("impossible rules: {error}"));
    }
    Preset::from_name(text).map(Preset::rules).ok_or_else(|| {
        let names: Vec<&str> = Preset::ALL.iter().map(|preset| preset.name()).collect();
        format!(
            "unknown rules {text:?}: use one of {}, or a JSON rules object",
            names.join(", ")
        )
    })
}

/// The seeds of a run: game `g` is seeded with the `g`th output of a
/// generator seeded with `--seed`, and the player in seat `s` with that game
/// seed plus `s + 1`. Seeds go through SplitMix64 before use, so close
/// numbers give unrelated streams.
fn game_seeds(seed: u64) -> impl Iterator<Item = u64> {
    let mut master = GameRng::new(seed);
    std::iter::repeat_with(move || master.next_u64())
}

/// Games handed out to the threads at a time; their output is written in
/// game order once the whole batch is done.
const BATCH: usize = 64;

pub fn run(args: Args) -> anyhow::Result<()> {
    let seats = args.rules.seating().seat_count();
    let players = if args.players.is_empty() {
        vec![Kind::Random; seats]
    } else {
        args.players
    };
    // Three-player rules leave the last seat empty, and the engine never
    // asks it to act: a fourth player named there, or the first player's
    // copy when there is none, only fills the array.
    if players.len() != seats && players.len() != 4 {
        bail!(
            "--players needs {seats} players for these rules, one per seat, not {}",
            players.len()
        );
    }
    let kinds: [Kind; 4] = std::array::from_fn(|seat| players.get(seat).copied().unwrap_or(players[0]));
    let budget = args.samples.map(|samples| Budget {
        samples: samples.max(1),
        time: None,
    });
    let threads = match args.threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    };
    let rules = args.rules;

    let sink: Box<dyn Write> = match &args.out {
        Some(path) => {
            Box::new(File::create(path).with_context(|| format!("cannot create {}", path.display()))?)
        }
        None => Box::new(io::stdout().lock()),
    };
    let mut out = BufWriter::with_capacity(1 << 16, sink);
    let progress = io::stderr().is_terminal();

    let started = Instant::now();
    let mut last_report = started;
    let mut tally = Tally::default();
    let seeds: Vec<u64> = game_seeds(args.seed).take(args.games as usize).collect();
    for (batch_index, batch) in seeds.chunks(BATCH).enumerate() {
        let first = (batch_index * BATCH) as u64;
        let results = play_batch(first, batch, rules, kinds, budget, threads)?;
        for result in results {
            tally.add(&result);
            if let Err(error) = out.write_all(&result.lines) {
                return finish_early(error);
            }
        }
        if progress && last_report.elapsed() > Duration::from_millis(250) {
            last_report = Instant::now();
            eprint!("\r{} of {} games, {} hands", tally.games, args.games, tally.hands);
        }
    }
    if let Err(error) = out.flush() {
        return finish_early(error);
    }

    let seconds = started.elapsed().as_secs_f64();
    if progress {
        eprint!("\r\x1b[K");
    }
    eprintln!(
        "simulated {} games, {} hands in {seconds:.2} s: {:.0} hands/s",
        args.games,
        tally.hands,
        tally.hands as f64 / seconds.max(1e-9)
    );
    tally.report(&kinds, rules.seating());
    Ok(())
}

/// Plays one batch of games on `threads` threads and returns their results
/// in game order.
fn play_batch(
    first: u64,
    seeds: &[u64],
    rules: spades_engine::RuleSet,
    kinds: [Kind; 4],
    budget: Option<Budget>,
    threads: usize,
) -> anyhow::Result<Vec<GameResult>> {
    let next = AtomicUsize::new(0);
    let work = || -> anyhow::Result<Vec<(usize, GameResult)>> {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(&seed) = seeds.get(i) else {
                return Ok(done);
            };
            done.push((i, play_game(first + i as u64, seed, rules, kinds, budget)?));
        }
    };
    let mut results: Vec<(usize, GameResult)> = if threads <= 1 {
        work()?
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads).map(|_| scope.spawn(work)).collect();
            let mut all = Vec::with_capacity(seeds.len());
            for handle in handles {
                all.extend(handle.join().expect("a simulation thread panicked")?);
            }
            anyhow::Ok(all)
        })?
    };
    results.sort_by_key(|(i, _)| *i);
    Ok(results.into_iter().map(|(_, result)| result).collect())
}

/// Everything one game leaves behind.
#[derive(Default)]
struct GameResult {
    /// Its hand histories, one JSON object per line.
    lines: Vec<u8>,
    hands: u64,
    winner: Option<Team>,
    /// Per team (two, or four in solo): contracts made and bid (a team of
    /// two nil bidders bids none).
    contracts: [(u32, u32); 4],
    /// Per team: nils made and bid.
    nils: [(u32, u32); 4],
    /// Per team: blind nils made and bid.
    blind_nils: [(u32, u32); 4],
    /// Decision times in nanoseconds, per seat.
    decisions: [Vec<u32>; 4],
}

fn play_game(
    index: u64,
    seed: u64,
    rules: spades_engine::RuleSet,
    kinds: [Kind; 4],
    budget: Option<Budget>,
) -> anyhow::Result<GameResult> {
    let mut game = Game::new(rules, seed).context("the preset rules are valid")?;
    let mut players: [Timed; 4] = std::array::from_fn(|seat| Timed {
        player: kinds[seat].player(
            seed.wrapping_add(seat as u64 + 1),
            budget.unwrap_or(kinds[seat].budget()),
        ),
        // Random play is timed by the benchmarks; timing it here would
        // only slow the bulk simulations down.
        times: (kinds[seat] != Kind::Random).then(Vec::new),
    });
    let mut result = GameResult {
        lines: Vec::new(),
        hands: 0,
        winner: None,
        contracts: [(0, 0); 4],
        nils: [(0, 0); 4],
        blind_nils: [(0, 0); 4],
        decisions: Default::default(),
    };
    let mut write_error = None;
    play_out(&mut game, &mut players, |record| {
        result.hands += 1;
        count_hand(record, rules.seating(), &mut result);
        let line = HandLine::new(index, &rules, record);
        if let Err(error) = serde_json::to_writer(&mut result.lines, &line) {
            write_error = Some(error);
        }
        result.lines.push(b'\n');
    });
    if let Some(error) = write_error {
        return Err(error).context("cannot encode a hand history");
    }
    result.winner = game.winner();
    result.decisions = players.map(|player| player.times.unwrap_or_default());
    Ok(result)
}

fn count_hand(record: &HandRecord, seating: Seating, result: &mut GameResult) {
    // A hand played without bids (the first under `unbid_first_hand`) has
    // neither contracts nor nils to count.
    if record.bids.is_empty() {
        return;
    }
    for team in seating.teams() {
        let t = team.index();
        let mut bids = Vec::with_capacity(2);
        let mut counted = 0u8;
        for seat in seating.seats_of(team).iter() {
            let bid = record
                .bids
                .iter()
                .find(|bid| bid.seat == seat)
                .expect("every seat bids");
            let taken = record.tricks_won[seat];
            match (bid.bid, bid.blind) {
                (0, blind) => {
                    let tally = if blind {
                        &mut result.blind_nils[t]
                    } else {
                        &mut result.nils[t]
                    };
                    tally.0 += u32::from(taken == 0);
                    tally.1 += 1;
                }
                (_, _) => counted += taken,
            }
            bids.extend(bid.to_bid());
        }
        // A team blind bid is held by both partners but is one contract.
        let contract = spades_engine::score::team_contract(bids);
        if contract > 0 {
            result.contracts[t].0 += u32::from(counted >= contract);
            result.contracts[t].1 += 1;
        }
    }
}

/// A player whose decisions are timed.
struct Timed {
    player: AnyPlayer,
    times: Option<Vec<u32>>,
}

impl Player for Timed {
    fn act(&mut self, view: &View<'_>) -> Option<Action> {
        let Some(times) = &mut self.times else {
            return self.player.act(view);
        };
        let started = Instant::now();
        let action = self.player.act(view);
        times.push(started.elapsed().as_nanos().min(u128::from(u32::MAX)) as u32);
        action
    }
}

/// The whole run's figures.
#[derive(Default)]
struct Tally {
    games: u64,
    hands: u64,
    wins: [u64; 4],
    contracts: [(u64, u64); 4],
    nils: [(u64, u64); 4],
    blind_nils: [(u64, u64); 4],
    decisions: [Vec<u32>; 4],
}

impl Tally {
    fn add(&mut self, result: &GameResult) {
        self.games += 1;
        self.hands += result.hands;
        if let Some(winner) = result.winner {
            self.wins[winner.index()] += 1;
        }
        for t in 0..4 {
            for (total, part) in [
                (&mut self.contracts[t], result.contracts[t]),
                (&mut self.nils[t], result.nils[t]),
                (&mut self.blind_nils[t], result.blind_nils[t]),
            ] {
                total.0 += u64::from(part.0);
                total.1 += u64::from(part.1);
            }
        }
        for (all, game) in self.decisions.iter_mut().zip(&result.decisions) {
            all.extend_from_slice(game);
        }
    }

    fn report(&mut self, kinds: &[Kind; 4], seating: Seating) {
        let share = |(part, whole): (u64, u64)| {
            if whole == 0 {
                format!("{part} of {whole}")
            } else {
                format!("{part} of {whole} ({:.1}%)", 100.0 * part as f64 / whole as f64)
            }
        };
        for team in seating.teams() {
            let t = team.index();
            let members: Vec<String> = seating
                .seats_of(team)
                .iter()
                .map(|seat| kinds[seat.index()].to_string())
                .collect();
            eprintln!(
                "team {t} ({}): won {}; contracts made {}; nils made {}; blind nils made {}",
                members.join(", "),
                share((self.wins[t], self.games)),
                share(self.contracts[t]),
                share(self.nils[t]),
                share(self.blind_nils[t]),
            );
        }
        let mut timed: Vec<Kind> = kinds
            .iter()
            .copied()
            .filter(|&kind| kind != Kind::Random)
            .collect();
        timed.dedup();
        timed.sort_by_key(|kind| kind.name());
        timed.dedup();
        for kind in timed {
            let mut times: Vec<u32> = Vec::new();
            for (seat, &seat_kind) in kinds.iter().enumerate() {
                if seat_kind == kind {
                    times.extend_from_slice(&self.decisions[seat]);
                }
            }
            times.sort_unstable();
            let show = |fraction| {
                percentile(&times, fraction).map_or("-".to_string(), |nanos| {
                    format_duration(Duration::from_nanos(u64::from(nanos)))
                })
            };
            eprintln!(
                "{kind}: {} decisions, p50 {}, p99 {}, max {}",
                times.len(),
                show(0.50),
                show(0.99),
                show(1.0)
            );
        }
    }
}

/// A closed pipe (as with `| head`) ends the run quietly; other write
/// errors are reported.
fn finish_early(error: io::Error) -> anyhow::Result<()> {
    if error.kind() == io::ErrorKind::BrokenPipe {
        Ok(())
    } else {
        Err(error).context("cannot write the hand histories")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spades_engine::{Bid, Legal, Seat};

    /// A team blind bid is one contract of its number, though both partners
    /// hold it: made whenever the team takes that many tricks.
    #[test]
    fn a_team_blind_bid_counts_as_one_contract() {
        let rules = RuleSet {
            team_blind: 7,
            team_blind_min_deficit: 0,
            blind_nil: false,
            ..RuleSet::CLASSIC
        };
        let mut made = 0;
        for seed in 0..40 {
            let mut game = Game::new(rules, seed).unwrap();
            let first = game.dealer().next();
            game.apply(first, Action::Bid(Bid::Blind(7))).unwrap();
            while game.hand_number() == 0 {
                let seat: Seat = game.to_act().first().expect("a seat to act");
                let action = match game.legal(seat) {
                    Legal::BlindOrLook(_) => Action::LookAtHand,
                    Legal::Bid(choices) => Action::Bid(Bid::new(choices.nearest(3).unwrap()).unwrap()),
                    Legal::Play(cards) => Action::Play(cards.highest().unwrap()),
                    other => panic!("{other:?}"),
                };
                game.apply(seat, action).unwrap();
            }
            let record = game.last_hand().unwrap();
            let mut result = GameResult::default();
            count_hand(record, rules.seating(), &mut result);
            let team = rules.seating().team_of(first).index();
            let taken = record.tricks_won[first] + record.tricks_won[first.partner()];
            assert_eq!(result.contracts[team], (u32::from(taken >= 7), 1), "seed {seed}");
            made += usize::from(taken >= 7);
        }
        assert!(made > 0, "no blind 7 was made");
    }
}
