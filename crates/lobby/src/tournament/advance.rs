//! A running tournament brought up to date: the tables of its stage
//! opened, and once the stage is over, the next stage seated or the places
//! given, from the standings.

use std::collections::HashMap;

use spades_engine::{Seat, Seating};
use spades_store::{Stage, Step, StoreError, Tournament};
use time::OffsetDateTime;
use uuid::Uuid;

use super::Manager;
use super::duplicate;
use super::pairing::{self, History, Seatable};
use super::runner::Runner;
use super::tables::new_tables;

/// The seed of a stage's draw, from the tournament's.
pub(super) fn stage_seed(seed: u64, stage: u32) -> u64 {
    seed ^ u64::from(stage)
        .wrapping_add(1)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Partnerships played in every stage so far.
fn history(tournament: &Tournament) -> History {
    let mut history = History::default();
    for stage in &tournament.stages {
        for table in &stage.tables {
            history.add_table(table.seats);
        }
    }
    history
}

/// Each entry's points and score difference over every finished table.
fn standings(tournament: &Tournament) -> HashMap<u32, (i32, i32)> {
    let mut standings: HashMap<u32, (i32, i32)> = tournament
        .entrants
        .iter()
        .map(|entrant| (entrant.entry as u32, (0, 0)))
        .collect();
    for table in tournament.stages.iter().flat_map(|stage| &stage.tables) {
        let (Some(winner), Some(score)) = (table.winner, table.score) else {
            continue;
        };
        for (seat, entry) in Seat::ALL.into_iter().zip(&table.seats) {
            let team = Seating::Partners.team_of(seat).index();
            let standing = standings.entry(*entry).or_default();
            standing.0 += i32::from(team == usize::from(winner));
            standing.1 += score[team] - score[1 - team];
        }
    }
    standings
}

/// Entries best first: points, then score difference, then entry number.
fn ranked(standings: &HashMap<u32, (i32, i32)>) -> Vec<u32> {
    let mut entries: Vec<u32> = standings.keys().copied().collect();
    entries.sort_by_key(|entry| {
        let (points, diff) = standings[entry];
        (std::cmp::Reverse(points), std::cmp::Reverse(diff), *entry)
    });
    entries
}

impl Manager {
    /// Brings a running tournament up to date with the store: opens the
    /// tables of its current stage that are not open yet, and when the
    /// whole stage is finished, seats the next one or ends the tournament.
    /// Watchers are sent the new view if anything changed (or `changed`).
    pub(super) async fn carry_on(&mut self, id: Uuid, mut changed: bool) {
        // In a cluster, only the node that runs the tournaments acts; the
        // others show what changed, and leave the rest to its next look.
        let Some(runner) = self.runner().await else {
            if changed {
                self.show(id).await;
            }
            return;
        };
        loop {
            let tournament = match self.store.tournament(id).await {
                Ok(Some(tournament)) => tournament,
                Ok(None) => return,
                Err(error) => {
                    tracing::warn!(tournament = %id, %error, "cannot read a tournament; trying again later");
                    return;
                }
            };
            if tournament.summary.status != "running" {
                break;
            }
            let Some(stage) = tournament.last_stage() else {
                break;
            };
            for table in stage.tables.iter().filter(|table| table.status == "pending") {
                changed |= self.open_table(&tournament, stage.stage, table).await;
            }
            if !stage.tables.iter().all(|table| table.status == "finished") {
                break;
            }
            match self.advance(&tournament, &runner).await {
                Ok(true) => changed = true,
                Ok(false) => break,
                Err(error) => {
                    self.write_failed(&error);
                    tracing::warn!(tournament = %id, %error, "cannot advance a tournament; trying again later");
                    break;
                }
            }
        }
        if changed {
            self.show(id).await;
        }
    }

    /// Writes what follows a finished stage: the next stage's tables, or
    /// the end and the places.
    async fn advance(&self, tournament: &Tournament, runner: &Runner) -> Result<bool, StoreError> {
        let Some(stage) = tournament.last_stage() else {
            return Ok(false);
        };
        let id = tournament.summary.id;
        let format = tournament.summary.format.as_str();
        let step = if format == "knockout" {
            knockout_step(tournament, stage)
        } else if duplicate::is_duplicate(format) {
            let standings = self.matchpoints(tournament).await?;
            rounds_step(tournament, stage.stage + 1, &standings, |_| {
                duplicate_round(tournament, stage.stage + 1)
            })
        } else {
            let standings = standings(tournament);
            rounds_step(tournament, stage.stage + 1, &standings, |ranked| {
                pairing::swiss_round(
                    &seatable(tournament, ranked),
                    &history(tournament),
                    stage_seed(tournament.seed, stage.stage + 1),
                )
            })
        };
        let done = self
            .store
            .tournament_step(id, &step, OffsetDateTime::now_utc(), runner.fence())
            .await?;
        if done && step.status == Some("finished") {
            tracing::info!(tournament = %id, "tournament finished");
        }
        Ok(done)
    }

    /// Each entry's matchpoints and tie-break over every finished round of
    /// a duplicate tournament, from the hands stored for its tables.
    async fn matchpoints(&self, tournament: &Tournament) -> Result<HashMap<u32, (i32, i32)>, StoreError> {
        let mut standings: HashMap<u32, (i32, i32)> = tournament
            .entrants
            .iter()
            .map(|entrant| (entrant.entry as u32, (0, 0)))
            .collect();
        for stage in &tournament.stages {
            let mut tables = Vec::with_capacity(stage.tables.len());
            for table in &stage.tables {
                let boards = match (table.game, table.status.as_str()) {
                    (Some(game), "finished") => duplicate::boards_of(&self.store.hands(game).await?),
                    _ => Vec::new(),
                };
                tables.push(duplicate::TableBoards {
                    seats: table.seats,
                    boards,
                });
            }
            for (entry, (points, above)) in duplicate::matchpoints(&tables) {
                let standing = standings.entry(entry).or_default();
                standing.0 += points;
                standing.1 += above;
            }
        }
        Ok(standings)
    }
}

/// The tables of round `round` of a duplicate tournament, by its movement.
pub(super) fn duplicate_round(tournament: &Tournament, round: u32) -> Vec<[u32; 4]> {
    let everyone: Vec<u32> = tournament.entrants.iter().map(|e| e.entry as u32).collect();
    let players = seatable(tournament, &everyone);
    if tournament.summary.format == duplicate::PAIRS {
        let pairs = duplicate::fixed_pairs(&players, stage_seed(tournament.seed, 0));
        duplicate::pairs_round(&pairs, round)
    } else {
        pairing::knockout_stage(&players, &history(tournament), stage_seed(tournament.seed, round))
    }
}

/// After a knockout stage: the winning partnerships go on to the next
/// stage, or the last one's win the tournament; the losers take the place
/// after every pair that went further.
fn knockout_step(tournament: &Tournament, stage: &Stage) -> Step {
    let mut winners = Vec::new();
    let mut places = Vec::new();
    let losers_place = stage.tables.len() as u32 + 1;
    for table in &stage.tables {
        let winner = usize::from(table.winner.unwrap_or(0));
        for (seat, entry) in Seat::ALL.into_iter().zip(&table.seats) {
            if Seating::Partners.team_of(seat).index() == winner {
                winners.push(*entry);
            } else {
                places.push((*entry, losers_place));
            }
        }
    }
    if stage.tables.len() == 1 {
        places.extend(winners.iter().map(|entry| (*entry, 1)));
        return Step {
            status: Some("finished"),
            places,
            ..Step::default()
        };
    }
    let next = stage.stage + 1;
    let seats = pairing::knockout_stage(
        &seatable(tournament, &winners),
        &history(tournament),
        stage_seed(tournament.seed, next),
    );
    Step {
        stage: next,
        tables: new_tables(seats),
        places,
        ..Step::default()
    }
}

/// After a round of a Swiss or duplicate tournament: the next round's
/// tables (`seat` seats them from the entries ranked by `standings`), or,
/// after the last round, the places (equal standings share a place).
fn rounds_step(
    tournament: &Tournament,
    next: u32,
    standings: &HashMap<u32, (i32, i32)>,
    seat: impl FnOnce(&[u32]) -> Vec<[u32; 4]>,
) -> Step {
    let ranked = ranked(standings);
    let table: Vec<(u32, i32, i32)> = ranked
        .iter()
        .map(|entry| (*entry, standings[entry].0, standings[entry].1))
        .collect();
    let rounds = tournament.summary.rounds.unwrap_or(1).max(1) as u32;
    if next < rounds {
        let seats = seat(&ranked);
        return Step {
            stage: next,
            tables: new_tables(seats),
            standings: table,
            ..Step::default()
        };
    }
    let mut places = Vec::with_capacity(ranked.len());
    for (i, entry) in ranked.iter().enumerate() {
        let place = match i.checked_sub(1) {
            Some(before) if standings[&ranked[before]] == standings[entry] => {
                places.last().map_or(1, |(_, place)| *place)
            }
            _ => i as u32 + 1,
        };
        places.push((*entry, place));
    }
    Step {
        status: Some("finished"),
        standings: table,
        places,
        ..Step::default()
    }
}

/// The entries to seat, each marked as a bot or not.
fn seatable(tournament: &Tournament, entries: &[u32]) -> Vec<Seatable> {
    entries
        .iter()
        .map(|entry| Seatable {
            entry: *entry,
            bot: tournament.entrant(*entry).is_some_and(|e| e.bot),
        })
        .collect()
}
