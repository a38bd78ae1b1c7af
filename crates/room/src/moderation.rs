//! What a room does for its players' protection: the owner of a private
//! room removes a player, anyone reports a player with the room's own
//! context, and chat lines are hidden from those who block their sender.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::json;
use spades_engine::Seat;
use spades_protocol::event::{EventKind, RoomEvent};
use spades_protocol::ws::{ErrorCode, MessageId, PlayerInfo, ServerMessage};
use spades_store::{NewReport, OPEN_REPORTS_PER_REPORTER};
use tokio::time::Instant;
use uuid::Uuid;

use super::{Refusal, Room};
use crate::Text;

/// Chat lines a room keeps for the reports made in it.
const CHAT_LINES_KEPT: usize = 20;

/// The longest reason a report takes, in characters.
const MAX_REASON: usize = 500;

/// The room's last chat lines, oldest first: who said what.
#[derive(Debug, Default)]
pub(super) struct ChatLines(VecDeque<(PlayerInfo, String)>);

impl ChatLines {
    pub(super) fn note(&mut self, from: PlayerInfo, text: &str) {
        if self.0.len() == CHAT_LINES_KEPT {
            self.0.pop_front();
        }
        self.0.push_back((from, text.to_string()));
    }

    fn as_json(&self) -> serde_json::Value {
        self.0
            .iter()
            .map(|(from, text)| json!({"from": from.id, "name": from.name, "text": text}))
            .collect()
    }
}

fn removed_refusal() -> Refusal {
    Refusal::new(ErrorCode::Removed, "the room's owner removed you from this room")
}

impl Room {
    /// Refuses a request of a player the owner removed.
    pub(super) fn refuse_removed(&self, player: &str) -> Result<(), Refusal> {
        if self.removed.contains_key(player) {
            Err(removed_refusal())
        } else {
            Ok(())
        }
    }

    /// Answers a command of a removed player: through the connection he
    /// was removed on, since he is no longer among those the room writes
    /// to.
    pub(super) fn answer_removed(&self, player: &str, id: MessageId) {
        if let Some(Some(outbox)) = self.removed.get(player) {
            let refusal = removed_refusal();
            self.context.metrics.error_sent(refusal.0);
            let message = ServerMessage::Error {
                id: Some(id),
                code: refusal.0,
                message: refusal.1,
            };
            outbox.send(Text::from(message.to_json()));
        }
    }

    /// The owner of a private room removes a player: he is out of the
    /// room for good; during a game the server plays his seat, between
    /// games the seat is freed.
    pub(super) fn remove_player(&mut self, owner: &str, target: &str) -> Result<(), Refusal> {
        self.member_seat(owner)?;
        if self.settings.tournament.is_some() {
            return Err(Refusal::new(
                ErrorCode::TournamentTable,
                "the tournament seats its tables",
            ));
        }
        if *self.settings.owner.id != *owner {
            return Err(Refusal::new(
                ErrorCode::NotOwner,
                "only the room's owner can remove a player",
            ));
        }
        if !self.settings.private {
            return Err(Refusal::new(
                ErrorCode::NotOwner,
                "players can be removed only from a private room",
            ));
        }
        if owner == target {
            return Err(Refusal::new(ErrorCode::BadMessage, "to go, leave the room"));
        }
        let Some(member) = self.members.get_mut(target) else {
            return Err(Refusal::new(
                ErrorCode::NotInRoom,
                "that player is not in this room",
            ));
        };
        if member.is_bot() {
            return Err(Refusal::new(
                ErrorCode::BadMessage,
                "a bot leaves with `remove_bot`",
            ));
        }
        let (key, seat, info) = (member.player.id.clone(), member.seat, member.player.info());
        let outbox = member.outbox.take();
        self.removed.insert(key.clone(), outbox.clone());
        if let Some(outbox) = outbox {
            // He is told at once, apart from the room's batch: he is no
            // longer among those the room writes to.
            let mut messages = std::mem::take(&mut member.batch);
            let refusal = removed_refusal();
            let notice = ServerMessage::Error {
                id: None,
                code: refusal.0,
                message: refusal.1,
            };
            messages.push(Text::from(notice.to_json()));
            outbox.send_batch(crate::outbox::Batch {
                messages,
                urgent: true,
            });
        }
        // The others learn why before they see the seat change.
        self.emit(spades_engine::SeatSet::EMPTY, |_| EventKind::PlayerRemoved {
            seat,
            player: info.clone(),
        });
        match seat {
            Some(seat) if self.playing() => {
                if let Some(table) = self.stage.table_mut() {
                    table.seat_away(seat, Instant::now());
                }
            }
            Some(seat) => self.free_seat(seat),
            None => {
                self.members.remove(&key);
                self.spectators_changed();
            }
        }
        if let Some(seat) = seat.filter(|_| self.playing()) {
            // As when a player leaves a game: the server plays his seat.
            self.emit(spades_engine::SeatSet::EMPTY, |_| EventKind::PlayerAway {
                seat,
                hold_ms: 0,
            });
        }
        Ok(())
    }

    /// A moderator ends the room: its game stops, counting for no rating
    /// and as abandoned by no one, everyone in it is told why and sent
    /// away, and the room closes.
    pub(super) fn end(&mut self, reason: &str) {
        if let Some(table) = self.stage.playing() {
            let (score, game_id) = (table.game.score(), table.id.to_string());
            self.voided = true;
            self.emit(spades_engine::SeatSet::EMPTY, |_| EventKind::GameOver {
                game_id: game_id.clone(),
                winner: None,
                score,
            });
            self.finish_game();
        }
        let notice = ServerMessage::Error {
            id: None,
            code: ErrorCode::RoomEnded,
            message: format!("a moderator closed this room: {reason}"),
        };
        let text = Text::from(notice.to_json());
        for member in self.members.values_mut() {
            member.batch.push(text.clone());
            member.urgent = true;
        }
        // The members go once these messages are sent, which is after the
        // game's end is stored, as for every request.
        self.closing = true;
        tracing::info!(room = %self.settings.code, "a moderator ended the room");
    }

    /// A player reports another of the room. The report carries the room,
    /// its game and its last chat lines, which the room adds itself; it is
    /// answered once stored.
    pub(super) fn report(&mut self, reporter: &str, id: MessageId, target: &str, reason: String) {
        let reason = reason.trim().to_string();
        let refusal = if reason.is_empty()
            || reason.chars().count() > MAX_REASON
            || reason.chars().any(char::is_control)
        {
            Some(Refusal::new(
                ErrorCode::BadMessage,
                format!("a report's reason is 1 to {MAX_REASON} characters, without control characters"),
            ))
        } else if reporter == target {
            Some(Refusal::new(
                ErrorCode::BadMessage,
                "a player cannot report himself",
            ))
        } else {
            None
        };
        if let Some(refusal) = refusal {
            return self.refuse(reporter, Some(id), refusal);
        }
        let target_account = self
            .members
            .get(target)
            .filter(|member| !member.is_bot())
            .map(|member| member.player.account)
            .or_else(|| {
                target
                    .parse::<Uuid>()
                    .ok()
                    .filter(|_| self.removed.contains_key(target))
            });
        let (Some(target_account), Some(member)) = (target_account, self.members.get(reporter)) else {
            let refusal = Refusal::new(ErrorCode::NotInRoom, "that player is not in this room");
            return self.refuse(reporter, Some(id), refusal);
        };
        let Some(outbox) = member.outbox.clone() else {
            return;
        };
        let game = self.stage.table().map(|table| table.id);
        let report = NewReport {
            id: Uuid::new_v4(),
            reporter: member.player.account,
            target: target_account,
            reason,
            room: Some(self.settings.code.to_string()),
            game,
            context: json!({
                "from": "table",
                "room_name": self.settings.name,
                "chat": self.chat_lines.as_json(),
            }),
        };
        let store = self.context.store.clone();
        tokio::spawn(async move {
            let answer = match store.open_reports_by(report.reporter).await {
                Ok(open) if open >= OPEN_REPORTS_PER_REPORTER => ServerMessage::Error {
                    id: Some(id),
                    code: ErrorCode::TooManyReports,
                    message: "you have 20 reports the moderators have not resolved yet; wait for them".into(),
                },
                Ok(_) => match store.add_report(&report).await {
                    Ok(()) => ServerMessage::Ack {
                        id,
                        seq: None,
                        duplicate: false,
                    },
                    Err(error) => store_error(id, &error),
                },
                Err(error) => store_error(id, &error),
            };
            outbox.send(Text::from(answer.to_json()));
        });
    }

    /// Hides the chat line just emitted, event `seq`, from the members who
    /// block its sender: they get the same event with no text and
    /// `hidden`, so that their count of events stays whole.
    pub(super) fn hide_from_blockers(
        &mut self,
        sender: Uuid,
        from: &PlayerInfo,
        seat: Option<Seat>,
        seq: u64,
    ) {
        let policy = self.context.policy.clone();
        let room: Arc<str> = self.settings.code.clone();
        let hidden = EventKind::ChatMessage {
            from: from.clone(),
            seat,
            text: String::new(),
            hidden: true,
            quick: None,
        };
        let text = Text::from(RoomEvent::json(&room, seq, &hidden));
        for member in self.members.values_mut() {
            if member.outbox.is_some()
                && policy.blocks(member.player.account, sender)
                && let Some(last) = member.batch.last_mut()
            {
                *last = text.clone();
            }
        }
    }
}

fn store_error(id: MessageId, error: &spades_store::StoreError) -> ServerMessage {
    tracing::warn!(%error, "cannot store a report");
    let unavailable = crate::unavailable::Unavailable::Store;
    ServerMessage::Error {
        id: Some(id),
        code: unavailable.code(),
        message: unavailable.message().into(),
    }
}
