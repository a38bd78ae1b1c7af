//! The lobby's registry of open rooms: opening them (for a player, a
//! quick-play match, a tournament or a stored game), finding and listing
//! them, and keeping the list and who is seated where up to date as rooms
//! report their changes.

use std::sync::Arc;

use spades_engine::RuleSet;
use spades_protocol::ws::{BotLevel, RoomStatus, RoomSummary, ServerMessage, TableSpeed};
use spades_room::Text;
use spades_store::TableLink;
use tokio::time::Instant;

use super::handle::{NewRoom, TournamentTable};
use super::room_code::new_code;
use super::{Lobby, OpenRoom};
use crate::RegistryNote;
use spades_room::PlayerRef;
use spades_room::unavailable::Unavailable;
use spades_room::{self as room, LobbyNote, RoomHandle};

/// The most rooms a `list_rooms` reply holds; waiting rooms come first.
const MAX_LISTED_ROOMS: usize = 200;

/// The public rooms among `summaries` as `list_rooms` shows them: waiting
/// rooms first, each group by code, [`MAX_LISTED_ROOMS`] at most.
fn public_list<'a>(summaries: impl Iterator<Item = &'a RoomSummary>) -> Vec<RoomSummary> {
    let mut rooms: Vec<&RoomSummary> = summaries.filter(|summary| !summary.private).collect();
    rooms.sort_by_key(|summary| (summary.status != RoomStatus::Waiting, summary.room.clone()));
    rooms.into_iter().take(MAX_LISTED_ROOMS).cloned().collect()
}

impl Lobby {
    /// Opens an empty room for the player who asked, unless the server
    /// cannot take another room now.
    pub(super) fn create_room(&mut self, new: NewRoom) -> Result<RoomHandle, Unavailable> {
        if self.lifecycle.is_draining() {
            return Err(Unavailable::ShuttingDown);
        }
        if self.journal.is_degraded() {
            return Err(Unavailable::Store);
        }
        if self.rooms.len() >= self.config.max_rooms {
            return Err(Unavailable::TooManyRooms);
        }
        let settings = room::Settings {
            code: self.unused_code(new.private),
            name: new.name,
            private: new.private,
            rules: new.rules,
            owner: new.owner,
            bots: new.bots,
            tournament: None,
            rated: new.rated,
            speed: new.speed,
            deal_seed: None,
        };
        // Watchers first hear of the room once its creator is in it, when
        // the room itself announces how it looks.
        Ok(self.open_room(settings, room::Opening::Empty))
    }

    pub(super) fn find_room(&self, code: &str) -> Option<RoomHandle> {
        self.rooms.get(code).map(|open| open.handle.clone())
    }

    pub(super) fn list_public_rooms(&self) -> Vec<RoomSummary> {
        let here = self.rooms.values().map(|open| &open.summary);
        public_list(here.chain(self.elsewhere.values()))
    }

    /// The code of the room where `player` holds a seat, if any.
    pub(super) fn seated_room(&self, player: &str) -> Option<String> {
        self.seated.get(player).map(|code| code.to_string())
    }

    /// A fresh code that no open room has.
    pub(super) fn unused_code(&self, private: bool) -> Arc<str> {
        loop {
            let code = new_code(private);
            let elsewhere = self.network.is_code_taken(&code);
            if !self.rooms.contains_key(code.as_str()) && !elsewhere {
                return code.into();
            }
        }
    }

    pub(super) fn open_tournament_table(&mut self, table: TournamentTable) -> bool {
        // While no game can start, the table waits; the tournament tries
        // again on its next round of checks.
        let cannot_start = self.lifecycle.is_draining() || self.journal.is_degraded();
        if cannot_start || self.rooms.contains_key(&table.code) {
            return false;
        }
        self.open_matched(
            table.code,
            table.name,
            table.rules,
            table.players.to_vec(),
            Some((table.link, table.deal_seed)),
        );
        true
    }

    /// Opens a private room whose game starts at once with `players`, the
    /// first person among them as its owner, and records where each person
    /// is seated.
    pub(super) fn open_matched(
        &mut self,
        code: Arc<str>,
        name: String,
        rules: RuleSet,
        players: Vec<PlayerRef>,
        tournament: Option<(TableLink, Option<u64>)>,
    ) {
        let owner = players
            .iter()
            .find(|player| player.bot.is_none())
            .cloned()
            .unwrap_or_else(|| players[0].clone());
        for player in players.iter().filter(|player| player.bot.is_none()) {
            self.seat(player.id.clone(), code.clone());
        }
        let settings = room::Settings {
            code,
            name,
            private: true,
            rules,
            owner,
            bots: BotLevel::Basic,
            tournament: tournament.map(|(link, _)| link),
            // Quick play and tournament tables are rated; they are private
            // only in that the lobby does not list them.
            rated: true,
            speed: TableSpeed::Normal,
            deal_seed: tournament.and_then(|(_, seed)| seed),
        };
        self.open_room(settings, room::Opening::Matched(players));
    }

    /// Reopens the room of a game the server was playing when it stopped,
    /// with its players seated, and shows it to the lobby's watchers.
    pub(super) fn resume_room(&mut self, settings: room::Settings, game: Box<room::Resumed>) {
        let code = settings.code.clone();
        for player in game.players() {
            if player.bot.is_none() {
                self.seat(player.id.clone(), code.clone());
            }
        }
        self.open_room(settings, room::Opening::Resumed(game));
        let summary = self.rooms[&code].summary.clone();
        self.publish(&summary);
    }

    /// Starts a room's task and enters it in the registry.
    fn open_room(&mut self, settings: room::Settings, opening: room::Opening) -> RoomHandle {
        let code = settings.code.clone();
        let (handle, summary) = room::spawn(settings, self.context(), opening);
        self.register(&summary);
        // A room taken over from a node that is gone is this node's now.
        self.elsewhere.remove(&code);
        let open = OpenRoom {
            handle: handle.clone(),
            summary,
        };
        self.rooms.insert(code, open);
        handle
    }

    /// What a new room shares with the rest of the server.
    fn context(&self) -> room::Context {
        room::Context {
            config: self.config.room.clone(),
            store: self.store.clone(),
            lobby: self.notes.clone(),
            journal: self.journal.clone(),
            lifecycle: self.lifecycle.clone(),
            tournaments: self.tournaments.clone(),
            metrics: self.metrics.clone(),
            strong_bots: self.strong_bots.clone(),
            chat_limits: self.chat_limits.clone(),
            policy: self.config.policy.clone(),
        }
    }

    /// Takes in what a room reports of itself.
    pub(super) fn on_note(&mut self, note: LobbyNote) {
        match note {
            LobbyNote::Changed { summary } => {
                self.publish(&summary);
                self.register(&summary);
                if let Some(open) = self.rooms.get_mut(summary.room.as_str()) {
                    open.summary = *summary;
                }
            }
            LobbyNote::Closed { code } => {
                self.updates.forget(&code);
                if let Some(open) = self.rooms.remove(&code)
                    && !open.summary.private
                {
                    self.broadcast(&ServerMessage::LobbyRoomClosed {
                        room: code.to_string(),
                    });
                }
                self.seated.retain(|_, room| *room != code);
                self.network.note(RegistryNote::Closed { code });
            }
            LobbyNote::Seated { player, code } => self.seat(player, code),
            LobbyNote::Unseated { player, code } => {
                if self.seated.get(&player) == Some(&code) {
                    self.seated.remove(&player);
                }
                self.network.note(RegistryNote::Unseated { player, code });
            }
            LobbyNote::Elsewhere { summary } => {
                self.publish(&summary);
                self.elsewhere.insert(summary.room.as_str().into(), *summary);
            }
            LobbyNote::GoneElsewhere { code } => {
                self.updates.forget(&code);
                if self.elsewhere.remove(&code).is_some() {
                    self.broadcast(&ServerMessage::LobbyRoomClosed {
                        room: code.to_string(),
                    });
                }
            }
        }
    }

    /// Records where a player is seated, here and for the other nodes.
    fn seat(&mut self, player: Arc<str>, code: Arc<str>) {
        self.seated.insert(player.clone(), code.clone());
        self.network.note(RegistryNote::Seated { player, code });
    }

    /// Tells the other nodes how one of this node's rooms looks
    /// now (a private room's look stays here).
    fn register(&self, summary: &RoomSummary) {
        self.network.note(RegistryNote::Room {
            code: summary.room.as_str().into(),
            summary: (!summary.private).then(|| summary.clone()),
            playing: summary.status == RoomStatus::Playing,
        });
    }

    /// Shows a public room's new look to the lobby's watchers, at once or
    /// at the end of the room's update window (see `updates.rs`).
    fn publish(&mut self, summary: &RoomSummary) {
        if summary.private {
            return;
        }
        if let Some(room) = self.updates.offer(summary.clone(), Instant::now()) {
            self.broadcast(&ServerMessage::LobbyRoom { room });
        }
    }

    /// Sends the held looks whose window has ended.
    pub(super) fn send_held_updates(&mut self) {
        for room in self.updates.take_due(Instant::now()) {
            self.broadcast(&ServerMessage::LobbyRoom { room });
        }
    }

    /// Sends `message` to every watcher, and forgets those whose outbox is
    /// full or closed.
    fn broadcast(&mut self, message: &ServerMessage) {
        if self.watchers.is_empty() {
            return;
        }
        let text = Text::from(message.to_json());
        self.watchers.retain(|_, outbox| outbox.send_lazy(text.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(room: &str, private: bool, status: RoomStatus) -> RoomSummary {
        RoomSummary {
            room: room.into(),
            name: format!("Room {room}"),
            rules: "standard".into(),
            private,
            rated: false,
            speed: TableSpeed::Normal,
            status,
            seats: vec![None; 4],
            spectators: 0,
        }
    }

    #[test]
    fn the_list_shows_public_rooms_waiting_first_then_by_code() {
        let rooms = [
            summary("DDDDDD", false, RoomStatus::Playing),
            summary("CCCCCC", false, RoomStatus::Waiting),
            summary("BBBBBBBBBB", true, RoomStatus::Waiting),
            summary("AAAAAA", false, RoomStatus::Finished),
            summary("EEEEEE", false, RoomStatus::Waiting),
        ];
        let listed: Vec<String> = public_list(rooms.iter())
            .into_iter()
            .map(|room| room.room)
            .collect();
        assert_eq!(listed, ["CCCCCC", "EEEEEE", "AAAAAA", "DDDDDD"]);
    }

    #[test]
    fn the_list_holds_at_most_its_cap_and_keeps_the_waiting_rooms() {
        let playing = (0..MAX_LISTED_ROOMS).map(|i| summary(&format!("P{i:05}"), false, RoomStatus::Playing));
        let waiting = (0..10).map(|i| summary(&format!("W{i:05}"), false, RoomStatus::Waiting));
        let rooms: Vec<RoomSummary> = playing.chain(waiting).collect();
        let listed = public_list(rooms.iter());
        assert_eq!(listed.len(), MAX_LISTED_ROOMS);
        assert!(listed[..10].iter().all(|room| room.status == RoomStatus::Waiting));
    }
}
