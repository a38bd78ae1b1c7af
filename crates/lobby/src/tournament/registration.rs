//! Entries: players and bots register and withdraw while a tournament is
//! open, and a tournament that starts when full starts with its last entry.

use spades_store::{Registration, Tournament};
use time::OffsetDateTime;
use uuid::Uuid;

use super::{Manager, Refusal};

impl Manager {
    /// NotFound when the tournament does not exist, else `refusal`.
    pub(super) async fn missing_or(&self, tournament: Uuid, refusal: Refusal) -> Refusal {
        match self.store.tournament(tournament).await {
            Ok(None) => Refusal::NotFound,
            _ => refusal,
        }
    }

    pub(super) async fn open_tournament(&self, id: Uuid) -> Result<Tournament, Refusal> {
        let tournament = self.store.tournament(id).await?.ok_or(Refusal::NotFound)?;
        if tournament.summary.status != "open" {
            return Err(Refusal::NotOpen);
        }
        Ok(tournament)
    }

    pub(super) async fn register(&self, id: Uuid, account: Uuid) -> Result<u32, Refusal> {
        let tournament = self.open_tournament(id).await?;
        if tournament.entrants.len() >= tournament.summary.max_players as usize {
            return Err(Refusal::Full);
        }
        match self
            .store
            .register_player(id, account, OffsetDateTime::now_utc())
            .await?
        {
            Registration::Done { entry } => Ok(entry),
            Registration::AlreadyRegistered => Err(Refusal::AlreadyRegistered),
        }
    }

    pub(super) async fn unregister(&self, id: Uuid, account: Uuid) -> Result<(), Refusal> {
        self.open_tournament(id).await?;
        if self.store.unregister_player(id, account).await? {
            Ok(())
        } else {
            Err(Refusal::NotRegistered)
        }
    }

    pub(super) async fn add_bots(&self, id: Uuid, count: u32) -> Result<(), Refusal> {
        let tournament = self.open_tournament(id).await?;
        let room = tournament.summary.max_players as usize
            - tournament
                .entrants
                .len()
                .min(tournament.summary.max_players as usize);
        if count as usize > room {
            return Err(Refusal::Full);
        }
        self.store
            .register_bots(id, count, OffsetDateTime::now_utc(), None)
            .await?;
        Ok(())
    }

    /// A tournament that starts when full starts as its last place is
    /// taken; watchers see the new list either way.
    pub(super) async fn after_registration(&mut self, id: Uuid) {
        if let Ok(Some(tournament)) = self.store.tournament(id).await
            && tournament.summary.status == "open"
            && tournament.summary.starts_at.is_none()
            && tournament.entrants.len() >= tournament.summary.max_players as usize
        {
            let runner = self.runner().await;
            if let Err(refusal) = self.start(id, runner.as_ref()).await {
                tracing::warn!(tournament = %id, ?refusal, "a full tournament could not start");
            }
            return;
        }
        self.show(id).await;
    }
}
