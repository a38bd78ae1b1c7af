//! Quick play: `queue`, with its partner and rating, on this node or at the
//! node that keeps the cluster's queue, and `leave_queue`.

use spades_engine::Preset;
use spades_protocol::ws::{ErrorCode, MessageId};

use super::Session;
use super::command::QueueCommand;
use crate::identity;
use spades_room::PlayerRef;

impl Session {
    /// The quick-play queue's family of commands.
    pub(super) async fn queue_command(&mut self, id: MessageId, player: PlayerRef, command: QueueCommand) {
        match command {
            QueueCommand::Join { rules, partner } => self.queue(id, player, rules, partner).await,
            QueueCommand::Leave => self.leave_queue(id, &player).await,
        }
    }

    /// Why a `queue` is refused before anything is looked up, or the
    /// partner's name, tidied.
    fn check_queue(
        &self,
        player: &PlayerRef,
        rules: Preset,
        partner: Option<String>,
    ) -> Result<Option<String>, (ErrorCode, String)> {
        if let Some(maintenance) = self.state.policy().maintenance() {
            return Err((
                ErrorCode::Maintenance,
                spades_room::maintenance_words(&maintenance),
            ));
        }
        if partner.is_some() && !rules.rules().partners {
            let message = "this preset is played without partners: queue alone";
            return Err((ErrorCode::BadPartner, message.into()));
        }
        match partner {
            None => Ok(None),
            Some(name) => match identity::clean_name(&name) {
                Some(name) if !name.eq_ignore_ascii_case(&player.name) => Ok(Some(name)),
                _ => Err((
                    ErrorCode::BadPartner,
                    "name another player as your partner".into(),
                )),
            },
        }
    }

    async fn queue(&mut self, id: MessageId, player: PlayerRef, rules: Preset, partner: Option<String>) {
        let partner = match self.check_queue(&player, rules, partner) {
            Ok(partner) => partner,
            Err((code, message)) => return self.send_error(Some(id), code, message),
        };
        // A player whose record cannot be read now is not kept waiting for it.
        if let Ok(Some(until)) = crate::moderation::quick_play_pause(self.state.store(), player.account).await
        {
            let message = format!(
                "you left games at rated tables lately: quick play is paused for you {}",
                spades_room::until_words(Some(until))
            );
            return self.send_error(Some(id), ErrorCode::QuickPlayPaused, message);
        }
        // A player whose rating cannot be read now is matched as a newcomer.
        let rating = match self.state.store().profile(player.account).await {
            Ok(Some(profile)) => profile.rating,
            _ => spades_store::Rating::default().rating,
        };
        // A partner named as a registered player is that account: a guest
        // who takes the same name cannot take his place. When the store
        // cannot be read now, any player of that name fits, as for a guest.
        let partner_account = match &partner {
            Some(name) => match self.state.store().registered_account(name).await {
                Ok(account) => account.map(|account| account.id),
                Err(_) => None,
            },
            None => None,
        };
        // Naming a partner is an invitation, which a block refuses either
        // way.
        if let Some(partner) = partner_account
            && self.state.policy().apart(player.account, partner)
        {
            return self.send_error(
                Some(id),
                ErrorCode::Blocked,
                "one of you blocks the other: you cannot queue as partners",
            );
        }
        let entry = spades_lobby::matchmaking::Entry {
            player,
            rating,
            preset: rules,
            partner,
            partner_account,
            since: tokio::time::Instant::now(),
        };
        // One node keeps the queue for every node: this one, or another.
        match self.state.network().queue_node(&entry.player.id).await {
            Ok(None) => {}
            Ok(Some(node)) => {
                let network = self.state.network();
                match network
                    .queue_at(&node, entry, id.clone(), self.outbox.clone())
                    .await
                {
                    Ok(()) => {
                        self.queued = true;
                        self.queue_node = Some(node);
                    }
                    Err((code, message)) => self.send_error(Some(id), code, message),
                }
                return;
            }
            Err((code, message)) => return self.send_error(Some(id), code, message),
        }
        self.queue_node = None;
        match self
            .state
            .lobby()
            .queue(entry, id.clone(), self.outbox.clone())
            .await
        {
            Ok(Ok(())) => self.queued = true,
            Ok(Err((code, message))) => self.send_error(Some(id), code, message),
            Err(_) => self.shutting_down(id),
        }
    }

    async fn leave_queue(&mut self, id: MessageId, player: &PlayerRef) {
        let left = match &self.queue_node {
            Some(node) => Ok(self.state.network().leave_queue_at(node, player).await),
            None => self.state.lobby().leave_queue(player.id.clone()).await,
        };
        match left {
            Ok(true) => self.ack(id),
            Ok(false) => self.send_error(Some(id), ErrorCode::NotQueued, "you are not in the queue"),
            Err(_) => self.shutting_down(id),
        }
    }
}
