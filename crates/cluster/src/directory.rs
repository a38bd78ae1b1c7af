//! The cluster's registry: which node owns each open room (and how a
//! public room looks in the lobby), where each player holds a seat, and
//! the takeover of the rooms of a node that died or left.
//!
//! A node writes only its own rooms' entries, in order, through one task.
//! It reads every node's through a watch on the rooms bucket, kept in
//! memory as the directory, and passes the other nodes' public rooms to its
//! lobby. Ownership changes hands only by a compare-and-set on the room's
//! entry, so two nodes that try to take a dead node's room over cannot
//! both get it.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::kv;
use serde::{Deserialize, Serialize};
use spades_protocol::ws::RoomSummary;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{Cluster, Parts, lock};
use spades_lobby::RegistryNote;
use spades_room::LobbyNote;

/// A room's entry in the rooms bucket.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct RoomEntry {
    /// The node that owns the room.
    pub(super) node: Arc<str>,
    /// How the lobby shows the room; `None` for a private room.
    pub(super) summary: Option<RoomSummary>,
    /// Whether a game is being played in it, private or not, so that any
    /// node can tell a player who sits there that he is busy. Entries of
    /// nodes that predate the field read as not playing.
    #[serde(default)]
    pub(super) playing: bool,
}

pub(super) type Registry = RegistryNote;

/// How often a node looks for rooms whose owner is gone.
const TAKEOVER_INTERVAL: Duration = Duration::from_secs(1);

/// How often a node writes its rooms' and seats' entries again. The rooms
/// and seats buckets forget an entry not written for [`super::ENTRY_LIFE`],
/// which is what clears the markers that closed rooms and given-up seats
/// leave behind.
const REFRESH: Duration = Duration::from_secs(30);

impl Cluster {
    /// Hands a change of this node's rooms or seats to the registry's
    /// writer; it never waits.
    pub fn note(&self, note: RegistryNote) {
        let _ = self.inner.registry.send(note);
    }

    /// Whether a room of any node has `code`, as far as this node knows.
    pub fn is_code_taken(&self, code: &str) -> bool {
        lock(&self.inner.directory).contains_key(code)
    }

    /// The node that owns the room `code`, and whether it is alive.
    pub async fn locate(&self, code: &str) -> Option<(Arc<str>, bool)> {
        let owner = self.room_entry(code).await?.node;
        let alive = self.is_alive(&owner);
        Some((owner, alive))
    }

    /// The room where `player` holds a seat, if it is open on a live node.
    pub async fn seated_room(&self, player: &str) -> Option<String> {
        self.seat_entry(player)
            .await
            .and_then(|(code, entry)| self.is_alive(&entry.node).then_some(code))
    }

    /// The room where `player` is playing a game, on any live node, as far
    /// as the registry knows: quick play refuses him while he is.
    pub async fn playing_room(&self, player: &str) -> Option<String> {
        self.seat_entry(player)
            .await
            .and_then(|(code, entry)| (entry.playing && self.is_alive(&entry.node)).then_some(code))
    }

    /// The room where `player` holds a seat, with its entry.
    async fn seat_entry(&self, player: &str) -> Option<(String, RoomEntry)> {
        let code = self.inner.seats.get(player).await.ok()??;
        let code = String::from_utf8(code.to_vec()).ok()?;
        let entry = self.room_entry(&code).await?;
        Some((code, entry))
    }

    /// A room's entry, from the directory, or from the bucket when the
    /// directory has not heard of the room yet (it may have opened a
    /// moment ago).
    async fn room_entry(&self, code: &str) -> Option<RoomEntry> {
        let known = lock(&self.inner.directory).get(code).cloned();
        match known {
            Some(entry) => Some(entry),
            None => {
                let value = self.inner.rooms.get(code).await.ok()??;
                serde_json::from_slice(&value).ok()
            }
        }
    }

    /// Applies this node's registry notes to the buckets, in order, and
    /// writes this node's entries again every [`REFRESH`], so that they
    /// outlive the buckets' expiry while this node lives.
    pub(super) async fn write_registry(self, mut notes: mpsc::UnboundedReceiver<Registry>) {
        let mut refresh = tokio::time::interval(REFRESH);
        refresh.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        refresh.reset();
        loop {
            let note = tokio::select! {
                note = notes.recv() => match note {
                    Some(note) => note,
                    None => return,
                },
                _ = refresh.tick() => {
                    self.refresh().await;
                    continue;
                }
            };
            let written = match note {
                RegistryNote::Room {
                    code,
                    summary,
                    playing,
                } => self.write_room(&code, summary, playing).await,
                RegistryNote::Closed { code } => {
                    lock(&self.inner.directory).remove(&code);
                    self.remove_own_entry(&code).await
                }
                RegistryNote::Seated { player, code } => {
                    lock(&self.inner.my_seats).insert(player.clone(), code.clone());
                    self.inner
                        .seats
                        .put(&*player, code.as_bytes().to_vec().into())
                        .await
                        .map(drop)
                        .map_err(|e| e.to_string())
                }
                RegistryNote::Unseated { player, code } => {
                    let mine = {
                        let mut seats = lock(&self.inner.my_seats);
                        let mine = seats.get(&player) == Some(&code);
                        if mine {
                            seats.remove(&player);
                        }
                        mine
                    };
                    // Only the seat this node gave: the player may have sat
                    // at another node's table since.
                    if mine {
                        self.inner.seats.delete(&*player).await.map_err(|e| e.to_string())
                    } else {
                        Ok(())
                    }
                }
            };
            if let Err(error) = written {
                tracing::warn!(%error, "cannot update the cluster's registry");
            }
        }
    }

    /// Writes every entry of this node again. A room's entry is written
    /// only while it still names this node, by a compare-and-set: a node
    /// that took the room over meanwhile keeps it.
    async fn refresh(&self) {
        let rooms: Vec<(Arc<str>, RoomEntry)> = lock(&self.inner.directory)
            .iter()
            .filter(|(_, entry)| entry.node == self.inner.node)
            .map(|(code, entry)| (code.clone(), entry.clone()))
            .collect();
        for (code, entry) in rooms {
            let current = match self.inner.rooms.entry(&*code).await {
                Ok(current) => current,
                Err(error) => {
                    tracing::warn!(%error, "cannot refresh the cluster's registry");
                    return;
                }
            };
            let Some(current) = current.filter(|current| self.names_me(current)) else {
                continue;
            };
            let body = serde_json::to_vec(&entry).unwrap_or_default();
            if let Err(error) = self
                .inner
                .rooms
                .update(&*code, body.into(), current.revision)
                .await
            {
                tracing::warn!(%error, room = %code, "cannot refresh the cluster's registry");
            }
        }
        let seats: Vec<(Arc<str>, Arc<str>)> = lock(&self.inner.my_seats)
            .iter()
            .map(|(player, code)| (player.clone(), code.clone()))
            .collect();
        for (player, code) in seats {
            if self
                .inner
                .seats
                .put(&*player, code.as_bytes().to_vec().into())
                .await
                .is_err()
            {
                return;
            }
        }
    }

    /// Whether a room's entry in the bucket names this node as its owner.
    fn names_me(&self, entry: &kv::Entry) -> bool {
        entry.operation == kv::Operation::Put
            && serde_json::from_slice::<RoomEntry>(&entry.value)
                .is_ok_and(|room| room.node == self.inner.node)
    }

    /// Removes the entry of a room of this node that closed, unless another
    /// node owns the room now (it took it over from this one).
    async fn remove_own_entry(&self, code: &str) -> Result<(), String> {
        match self.inner.rooms.entry(code).await {
            Ok(Some(current)) if self.names_me(&current) => self
                .inner
                .rooms
                .delete_expect_revision(code, Some(current.revision))
                .await
                .map_err(|e| e.to_string()),
            Ok(_) => Ok(()),
            Err(error) => Err(error.to_string()),
        }
    }

    /// Writes a room's entry. A new code is created, so that two nodes
    /// never open rooms under one code; a room this node owns already (it
    /// changed, or this node took it over) is overwritten.
    pub(super) async fn write_room(
        &self,
        code: &str,
        summary: Option<RoomSummary>,
        playing: bool,
    ) -> Result<(), String> {
        let entry = RoomEntry {
            node: self.inner.node.clone(),
            summary,
            playing,
        };
        let body = serde_json::to_vec(&entry).unwrap_or_default();
        let owned = lock(&self.inner.directory)
            .get(code)
            .is_some_and(|known| known.node == self.inner.node);
        if !owned {
            if self.inner.rooms.create(code, body.clone().into()).await.is_ok() {
                self.remember(code, entry);
                return Ok(());
            }
            // The code has an entry: a room of a node that is gone, or of
            // a live one, which keeps it.
            match self.inner.rooms.entry(code).await {
                Ok(Some(current)) => {
                    let current: Option<RoomEntry> = serde_json::from_slice(&current.value).ok();
                    if let Some(current) = current
                        && current.node != self.inner.node
                        && self.is_alive(&current.node)
                    {
                        return Err(format!("room {code} is open on node {} too", current.node));
                    }
                }
                Ok(None) => {}
                Err(error) => return Err(error.to_string()),
            }
        }
        self.inner
            .rooms
            .put(code, body.into())
            .await
            .map_err(|e| e.to_string())?;
        self.remember(code, entry);
        Ok(())
    }

    fn remember(&self, code: &str, entry: RoomEntry) {
        lock(&self.inner.directory).insert(code.into(), entry);
    }

    /// Follows every node's rooms, and tells the lobby of the other
    /// nodes' public rooms as they open, change and close.
    pub(super) async fn watch_rooms(self, lobby: mpsc::UnboundedSender<LobbyNote>, stop: CancellationToken) {
        super::follow(&self.inner.rooms, "rooms", &stop, |entry| {
            let code: Arc<str> = entry.key.as_str().into();
            let before = match entry.operation {
                kv::Operation::Put => {
                    let Ok(room) = serde_json::from_slice::<RoomEntry>(&entry.value) else {
                        return;
                    };
                    if room.node != self.inner.node {
                        let note = match &room.summary {
                            Some(summary) => LobbyNote::Elsewhere {
                                summary: Box::new(summary.clone()),
                            },
                            None => LobbyNote::GoneElsewhere { code: code.clone() },
                        };
                        let _ = lobby.send(note);
                    }
                    lock(&self.inner.directory).insert(code.clone(), room)
                }
                kv::Operation::Delete | kv::Operation::Purge => lock(&self.inner.directory).remove(&code),
            };
            let closed_elsewhere = entry.operation != kv::Operation::Put
                && before.is_some_and(|room| room.node != self.inner.node);
            if closed_elsewhere {
                let _ = lobby.send(LobbyNote::GoneElsewhere { code });
            }
        })
        .await;
    }

    /// Once a second, looks for nodes that died or left: closes this
    /// node's connections to their rooms, takes their connections out of
    /// this node's rooms, and tries to take each of their rooms over.
    pub(super) async fn take_over(self, parts: Parts) {
        let mut tick = tokio::time::interval(TAKEOVER_INTERVAL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // Nodes already handled as gone, until they come back.
        let mut gone: HashSet<Arc<str>> = HashSet::new();
        // Rooms claimed whose game could not be read yet.
        let mut claimed: HashSet<Arc<str>> = HashSet::new();
        loop {
            tokio::select! {
                () = parts.stop.cancelled() => return,
                _ = tick.tick() => {}
            }
            if !self.view_is_current() {
                // This node cannot tell a dead node from one it has not
                // heard lately because it was paused or cut off itself; its
                // heartbeat stops the process if that is what happened.
                continue;
            }
            let mut nodes: HashSet<Arc<str>> = lock(&self.inner.heard).keys().cloned().collect();
            nodes.extend(
                lock(&self.inner.directory)
                    .values()
                    .map(|entry| entry.node.clone()),
            );
            for node in nodes {
                if self.is_alive(&node) {
                    gone.remove(&node);
                } else if gone.insert(node.clone()) {
                    tracing::warn!(%node, "a node of the cluster is gone; taking its rooms over");
                    self.owner_gone(&node);
                    self.connections_gone(&node);
                    self.queue_gone(&node);
                }
            }
            let orphans: Vec<(Arc<str>, Arc<str>)> = lock(&self.inner.directory)
                .iter()
                .filter(|(_, entry)| gone.contains(&entry.node))
                .map(|(code, entry)| (code.clone(), entry.node.clone()))
                .collect();
            for (code, dead) in orphans {
                if self.claim(&code, Some(&dead)).await {
                    claimed.insert(code);
                }
            }
            for code in claimed.clone() {
                if parts.stop.is_cancelled() {
                    return;
                }
                if self.reopen(&code, &parts).await {
                    claimed.remove(&code);
                }
            }
        }
    }

    /// Makes this node the owner of room `code` if its entry is absent or
    /// still names the node `dead` (with `None`, this node's own name: a
    /// room of its earlier run): a compare-and-set, so that one node alone
    /// wins.
    pub async fn claim(&self, code: &str, dead: Option<&str>) -> bool {
        let entry = RoomEntry {
            node: self.inner.node.clone(),
            summary: None,
            playing: false,
        };
        let body = serde_json::to_vec(&entry).unwrap_or_default();
        // A room left by an earlier run of this node, under its name, is
        // taken like a dead node's.
        let dead = dead.unwrap_or(&self.inner.node);
        let claimed = match self.inner.rooms.entry(code).await {
            Ok(Some(current)) if current.operation == kv::Operation::Put => {
                let owner = serde_json::from_slice::<RoomEntry>(&current.value)
                    .map(|room| room.node)
                    .ok();
                owner.as_deref() == Some(dead)
                    && self
                        .inner
                        .rooms
                        .update(code, body.into(), current.revision)
                        .await
                        .is_ok()
            }
            // No entry: nobody holds the room, or its entry expired or was
            // removed meanwhile.
            Ok(_) => self.inner.rooms.create(code, body.into()).await.is_ok(),
            Err(_) => false,
        };
        if claimed {
            self.remember(code, entry);
        }
        claimed
    }

    /// Opens again, on this node, the game of a room it has just claimed;
    /// a room with no game being played is closed for good, since nothing
    /// of it was stored. Returns false when the store could not be read,
    /// to be tried again at the next look.
    async fn reopen(&self, code: &str, parts: &Parts) -> bool {
        match spades_lobby::resume_room(&parts.store, &parts.lobby, code).await {
            Ok(true) => {
                tracing::info!(room = code, "took over a room of a node that is gone");
                true
            }
            Ok(false) => {
                self.note(RegistryNote::Closed { code: code.into() });
                true
            }
            Err(error) => {
                tracing::warn!(room = code, %error, "cannot read a taken-over room's game; trying again");
                false
            }
        }
    }
}
