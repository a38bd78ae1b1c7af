//! Quick play: `queue`, with its partner and rating, on this node or at the
//! node that keeps the cluster's queue, and `leave_queue`.

use spades_engine::Preset;
use spades_protocol::ws::{ErrorCode, MessageId};

use super::Session;
use crate::identity::{self, PlayerRef};

impl Session {
    pub(super) async fn queue(
        &mut self,
        id: MessageId,
        player: PlayerRef,
        rules: Preset,
        partner: Option<String>,
    ) {
        if partner.is_some() && !rules.rules().partners {
            return self.send_error(
                Some(id),
                ErrorCode::BadPartner,
                "this preset is played without partners: queue alone",
            );
        }
        let partner = match partner {
            None => None,
            Some(name) => match identity::clean_name(&name) {
                Some(name) if !name.eq_ignore_ascii_case(&player.name) => Some(name),
                _ => {
                    return self.send_error(
                        Some(id),
                        ErrorCode::BadPartner,
                        "name another player as your partner",
                    );
                }
            },
        };
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
        let entry = crate::matchmaking::Entry {
            player,
            rating,
            preset: rules,
            partner,
            partner_account,
            since: tokio::time::Instant::now(),
        };
        // In a cluster, one node keeps the queue for every node.
        if let Some(cluster) = self.state.cluster() {
            // The queue's lobby knows only the seats of its own node's
            // rooms; the registry knows every node's.
            if cluster.playing_room(&entry.player.id).await.is_some() {
                let message = "you are playing a game already";
                return self.send_error(Some(id), ErrorCode::GameInProgress, message);
            }
            let Some(node) = cluster.queue_node().await else {
                let message = "the quick-play queue cannot be reached now; try again";
                return self.send_error(Some(id), ErrorCode::ServerBusy, message);
            };
            if node != *cluster.node() {
                let cluster = cluster.clone();
                match cluster
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

    pub(super) async fn leave_queue(&mut self, id: MessageId, player: &PlayerRef) {
        let left = match (&self.queue_node, self.state.cluster()) {
            (Some(node), Some(cluster)) => Ok(cluster.leave_queue_at(node, player).await),
            _ => self.state.lobby().leave_queue(player.id.clone()).await,
        };
        match left {
            Ok(true) => self.ack(id),
            Ok(false) => self.send_error(Some(id), ErrorCode::NotQueued, "you are not in the queue"),
            Err(_) => self.shutting_down(id),
        }
    }
}
