//! The start of a tournament, at its time, when full or when an organiser
//! says so, and its cancellation.

use spades_store::Step;
use time::OffsetDateTime;
use uuid::Uuid;

use super::advance::{duplicate_round, stage_seed};
use super::duplicate;
use super::pairing::{self, History, Seatable};
use super::runner::Runner;
use super::tables::new_tables;
use super::{MIN_ENTRIES, Manager, Refusal};

impl Manager {
    /// Calls a tournament off before it is over.
    pub(super) async fn cancel(&self, id: Uuid) -> Result<(), Refusal> {
        match self
            .store
            .cancel_tournament(id, OffsetDateTime::now_utc(), None)
            .await
        {
            Ok(true) => Ok(()),
            Ok(false) => Err(self.missing_or(id, Refusal::NotOpen).await),
            Err(error) => Err(error.into()),
        }
    }

    /// Starts a tournament whose start time has come.
    pub(super) async fn start_if_due(&mut self, id: Uuid) {
        let due = matches!(self.store.tournament(id).await, Ok(Some(t))
            if t.summary.status == "open" && t.summary.starts_at.is_some_and(|at| at <= OffsetDateTime::now_utc()));
        if due && let Some(runner) = self.runner().await {
            self.start_or_cancel(id, &runner).await;
        }
    }

    /// At its start time a tournament starts, or is cancelled when it has
    /// too few entries.
    async fn start_or_cancel(&mut self, id: Uuid, runner: &Runner) {
        match self.start(id, Some(runner)).await {
            Ok(()) => {}
            Err(Refusal::TooFew) => {
                tracing::info!(tournament = %id, "too few entries at the start time: cancelled");
                let cancelled = self
                    .store
                    .cancel_tournament(id, OffsetDateTime::now_utc(), runner.fence())
                    .await;
                if let Err(error) = &cancelled {
                    self.write_failed(error);
                }
                self.show(id).await;
            }
            Err(refusal) => tracing::warn!(tournament = %id, ?refusal, "a tournament could not start"),
        }
    }

    /// Completes the field with bots, seats the first stage, stores it and
    /// opens its tables. The writes are fenced with `runner`'s holding of
    /// the lease when this node runs the tournaments; an organiser's start
    /// on another node is written unfenced, and like any start it applies
    /// only to a tournament that is still open.
    pub(super) async fn start(&mut self, id: Uuid, runner: Option<&Runner>) -> Result<(), Refusal> {
        let fence = runner.and_then(Runner::fence);
        let mut tournament = self.open_tournament(id).await?;
        let entries = tournament.entrants.len();
        if entries < MIN_ENTRIES {
            return Err(Refusal::TooFew);
        }
        // A knockout bracket holds 4 × 2^k entries and a Swiss round a
        // multiple of four: bots make up the difference.
        // A duplicate round compares tables, so it needs two at least.
        let wanted = match tournament.summary.format.as_str() {
            "knockout" => pairing::bracket_size(entries),
            format if duplicate::is_duplicate(format) => entries.div_ceil(4).max(2) * 4,
            _ => entries.div_ceil(4) * 4,
        };
        if wanted > entries {
            let now = OffsetDateTime::now_utc();
            self.store
                .register_bots(id, (wanted - entries) as u32, now, fence)
                .await
                .map_err(|error| self.refused_write(error))?;
            tournament = self.open_tournament(id).await?;
        }
        let mut players: Vec<Seatable> = tournament
            .entrants
            .iter()
            .map(|entrant| Seatable {
                entry: entrant.entry as u32,
                bot: entrant.bot,
            })
            .collect();
        let seed = stage_seed(tournament.seed, 0);
        let seats = match tournament.summary.format.as_str() {
            "knockout" => pairing::knockout_stage(&players, &History::default(), seed),
            format if duplicate::is_duplicate(format) => duplicate_round(&tournament, 0),
            _ => {
                // Nobody has a standing yet: the first round is a draw.
                spades_engine::GameRng::new(seed).shuffle(&mut players);
                pairing::swiss_round(&players, &History::default(), seed)
            }
        };
        let step = Step {
            status: Some("running"),
            stage: 0,
            tables: new_tables(seats),
            ..Step::default()
        };
        let started = self
            .store
            .tournament_step(id, &step, OffsetDateTime::now_utc(), fence)
            .await
            .map_err(|error| self.refused_write(error))?;
        if !started {
            return Err(Refusal::NotOpen);
        }
        tracing::info!(tournament = %id, entries = wanted.max(entries), "tournament started");
        self.carry_on(id, true).await;
        Ok(())
    }

    /// Once a second: tournaments whose start time has come start, and every
    /// running tournament is brought up to date.
    pub(super) async fn tick(&mut self) {
        let Some(runner) = self.runner().await else {
            return;
        };
        let now = OffsetDateTime::now_utc();
        if let Ok(due) = self.store.due_tournaments(now).await {
            for id in due {
                self.start_or_cancel(id, &runner).await;
            }
        }
        if let Ok(running) = self.store.running_tournaments().await {
            self.running.set(running.len() as i64);
            for id in running {
                self.carry_on(id, false).await;
            }
        }
    }
}
