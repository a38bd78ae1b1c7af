//! What the room tells: its summary for the lobby, what each viewer
//! sees, and events numbered, logged and sent to every member.

use std::sync::Arc;

use crate::Text;
use spades_engine::{Seat, SeatSet};
use spades_protocol::event::{EventKind, RoomEvent};
use spades_protocol::ws::{RoomStatus, RoomSummary, SeatInfo};
use spades_store::Write;

use crate::event_log::Sent;

use super::{LobbyNote, Member, Room, SEQ_RESERVE, Stage};

impl Room {
    /// A room with nobody but bots in it and no game under way closes.
    pub(super) fn is_empty(&self) -> bool {
        self.members.values().all(Member::is_bot) && self.stage.playing().is_none()
    }

    pub(super) fn status(&self) -> RoomStatus {
        match &self.stage {
            Stage::Waiting => RoomStatus::Waiting,
            Stage::Playing(_) => RoomStatus::Playing,
            Stage::Finished(_) => RoomStatus::Finished,
        }
    }

    pub(super) fn playing(&self) -> bool {
        self.stage.playing().is_some()
    }

    /// The seats of this room's game: four, or three in a three-player
    /// room, whose seat 3 stays empty.
    pub(super) fn seat_list(&self) -> impl Iterator<Item = Seat> + use<> {
        self.settings.rules.seating().seats()
    }

    pub(super) fn seated(&self) -> impl Iterator<Item = (Seat, Arc<str>)> + '_ {
        self.seat_list()
            .filter_map(|seat| self.seats[seat].clone().map(|player| (seat, player)))
    }

    pub(super) fn spectators(&self) -> u32 {
        self.members
            .values()
            .filter(|member| member.seat.is_none())
            .count() as u32
    }

    pub(super) fn seat_infos(&self) -> Vec<Option<SeatInfo>> {
        self.seat_list()
            .map(|seat| {
                let member = self.members.get(self.seats[seat].as_ref()?)?;
                Some(SeatInfo {
                    seat,
                    player: member.player.info(),
                    // A bot is always there.
                    connected: member.outbox.is_some() || member.is_bot(),
                    away: self.stage.table().is_some_and(|table| table.is_away(seat)),
                })
            })
            .collect()
    }

    pub(super) fn summary(&self) -> RoomSummary {
        RoomSummary {
            room: self.settings.code.to_string(),
            name: self.settings.name.clone(),
            rules: self.settings.rules.name().to_string(),
            private: self.settings.private,
            rated: self.settings.rated,
            speed: self.settings.speed,
            status: self.status(),
            seats: self
                .seat_list()
                .map(|seat| {
                    let player = self.seats[seat].as_ref()?;
                    self.members.get(player).map(|member| member.player.info())
                })
                .collect(),
            spectators: self.spectators(),
        }
    }

    /// Numbers an event, logs it and sends it to every member: `make(None)`
    /// is the public version and `make(Some(seat))` the version for a
    /// seat, which is sent only when `private` holds that seat.
    pub(super) fn emit(&mut self, private: SeatSet, make: impl Fn(Option<Seat>) -> EventKind) {
        let seq = self.log.next_seq();
        if seq > self.reserved {
            // Stored with the request's other writes, before its messages go.
            self.reserved = seq - 1 + SEQ_RESERVE;
            self.pending.push(Write::RoomSeq {
                room: self.code(),
                seq: self.reserved,
            });
        }
        // The code is shared, not copied: this runs for every event.
        let room = self.settings.code.clone();
        let json = |kind: &EventKind| Text::from(RoomEvent::json(&room, seq, kind));
        let public_kind = make(None);
        let public = json(&public_kind);
        let versions: Vec<(Seat, EventKind, Text)> = private
            .iter()
            .map(|seat| {
                let kind = make(Some(seat));
                let text = json(&kind);
                (seat, kind, text)
            })
            .collect();
        for member in self.members.values_mut() {
            if member.outbox.is_some() {
                let text = member
                    .seat
                    .and_then(|seat| versions.iter().find(|(own, ..)| *own == seat))
                    .map_or(&public, |(.., text)| text);
                member.batch.push(text.clone());
            }
        }
        let kept: Vec<(SeatSet, Sent<'_>)> = versions
            .iter()
            .map(|(seat, kind, text)| {
                let text = text.as_str();
                (SeatSet::single(*seat), Sent { kind, text })
            })
            .collect();
        self.log.push(
            Sent {
                kind: &public_kind,
                text: public.as_str(),
            },
            &kept,
        );
    }

    /// Tells the lobby how the room looks now.
    pub(super) fn announce(&self) {
        let _ = self.context.lobby.send(LobbyNote::Changed {
            summary: Box::new(self.summary()),
        });
    }

    pub(super) fn code(&self) -> String {
        self.settings.code.to_string()
    }

    /// Sends a `seats` event, which also tells every spectators' coming
    /// and going held back until now.
    pub(super) fn emit_seats(&mut self) {
        self.spectator_news.told(tokio::time::Instant::now());
        let (seats, spectators, owner) = (self.seat_infos(), self.spectators(), self.settings.owner.info());
        self.emit(SeatSet::EMPTY, |_| EventKind::Seats {
            seats: seats.clone().into_boxed_slice(),
            spectators,
            owner: owner.clone(),
        });
        self.announce();
    }
}
