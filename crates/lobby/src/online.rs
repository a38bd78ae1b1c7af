//! Which players are connected to this node, and on which connection.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use spades_room::PlayerRef;
use spades_room::Text;
use spades_room::outbox::{CloseReason, ConnectionId, Outbox};

/// Which connection each player is on, and the session it said hello
/// with. Its lock is held only for a map operation, never across an await.
#[derive(Default, Debug)]
pub struct Online {
    connections: Mutex<HashMap<Arc<str>, (Outbox, SessionHash)>>,
}

/// The SHA-256 of a session token: what the server keeps of it.
pub type SessionHash = [u8; 32];

impl Online {
    fn connections(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, (Outbox, SessionHash)>> {
        // Each operation is one insert or remove, so a panic elsewhere while
        // the lock was held cannot have left the map half updated.
        self.connections
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records the player's new connection, opened with `session`, and
    /// closes the old one, if any, which it returns.
    pub fn connect(&self, player: &PlayerRef, outbox: Outbox, session: SessionHash) -> Option<Outbox> {
        let (previous, _) = self.connections().insert(player.id.clone(), (outbox, session))?;
        previous.close(CloseReason::Replaced);
        Some(previous)
    }

    /// Closes the player's connection because he said hello on another
    /// node of the cluster.
    pub fn replaced_elsewhere(&self, player: &str) {
        if let Some((outbox, _)) = self.connections().remove(player) {
            outbox.close(CloseReason::Replaced);
        }
    }

    /// Forgets the connection, unless the player has already moved to a newer one.
    pub fn disconnect(&self, player: &PlayerRef, connection: ConnectionId) {
        let mut connections = self.connections();
        if connections
            .get(&player.id)
            .is_some_and(|(outbox, _)| outbox.id() == connection)
        {
            connections.remove(&player.id);
        }
    }

    /// Closes the connection opened with a session that has ended (the
    /// player logged out), if there is one.
    pub fn end_session(&self, session: &SessionHash) {
        let connections = self.connections();
        for (outbox, _) in connections.values().filter(|(_, hash)| hash == session) {
            outbox.close(CloseReason::SessionEnded);
        }
    }

    /// Closes the player's connection, whose sessions have all ended.
    pub fn end_sessions_of(&self, player: &str) {
        if let Some((outbox, _)) = self.connections().get(player) {
            outbox.close(CloseReason::SessionEnded);
        }
    }

    /// Closes the player's connection, if he has one here, with `farewell`
    /// as its last message: he was suspended or banned.
    pub fn close_sanctioned(&self, player: &str, farewell: Text) {
        if let Some((outbox, _)) = self.connections().remove(player) {
            outbox.close_with(CloseReason::Sanctioned, farewell);
        }
    }

    /// Sends a message to every connection of this node; how many took it.
    pub fn broadcast(&self, message: &Text) -> usize {
        let outboxes: Vec<Outbox> = self
            .connections()
            .values()
            .map(|(outbox, _)| outbox.clone())
            .collect();
        outboxes
            .into_iter()
            .filter(|outbox| outbox.send(message.clone()))
            .count()
    }

    /// Sends a message to the player's connection, if he has one.
    pub fn send(&self, player: &str, message: Text) -> bool {
        let outbox = self.connections().get(player).map(|(outbox, _)| outbox.clone());
        outbox.is_some_and(|outbox| outbox.send(message))
    }

    /// Whether the player has a connection on this node.
    pub fn is_connected(&self, player: &str) -> bool {
        self.connections().contains_key(player)
    }

    #[cfg(test)]
    pub fn count(&self) -> usize {
        self.connections().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    #[test]
    fn a_new_connection_replaces_the_old() {
        let online = Online::default();
        let player = PlayerRef::new(Uuid::new_v4(), "Ann");
        let shutdown = tokio_util::sync::CancellationToken::new();
        let (first, _first_rx) = spades_room::outbox::outbox(1, 4, shutdown.clone());
        let (second, _second_rx) = spades_room::outbox::outbox(2, 4, shutdown);
        online.connect(&player, first.clone(), [1; 32]);
        online.connect(&player, second.clone(), [2; 32]);
        assert!(first.is_closed());
        assert!(!second.is_closed());
        online.disconnect(&player, 1);
        assert_eq!(online.count(), 1, "the old connection does not remove the new");
        online.disconnect(&player, 2);
        assert_eq!(online.count(), 0);
    }

    #[test]
    fn an_ended_session_closes_its_connection_only() {
        let online = Online::default();
        let shutdown = tokio_util::sync::CancellationToken::new();
        let (ann, bob) = (
            PlayerRef::new(Uuid::new_v4(), "Ann"),
            PlayerRef::new(Uuid::new_v4(), "Bob"),
        );
        let (ann_outbox, _ann_rx) = spades_room::outbox::outbox(1, 4, shutdown.clone());
        let (bob_outbox, _bob_rx) = spades_room::outbox::outbox(2, 4, shutdown);
        online.connect(&ann, ann_outbox.clone(), [1; 32]);
        online.connect(&bob, bob_outbox.clone(), [2; 32]);
        online.end_session(&[3; 32]);
        assert!(!ann_outbox.is_closed() && !bob_outbox.is_closed());
        online.end_session(&[1; 32]);
        assert!(ann_outbox.is_closed(), "Ann logged out");
        assert!(!bob_outbox.is_closed());
        online.end_sessions_of(&bob.id);
        assert!(bob_outbox.is_closed());
    }
}
