//! The room's members: who is in, their connections, their retried
//! requests and their chat.

use std::collections::VecDeque;

use crate::Text;
use spades_engine::{Action, Seat, SeatSet, Viewer};
use spades_protocol::event::EventKind;
use spades_protocol::ws::{ErrorCode, MAX_CHAT_CHARS, MessageId, QuickPhrase, RoomState, ServerMessage};
use time::OffsetDateTime;
use tokio::time::Instant;

use crate::PlayerRef;
use crate::outbox::{Batch, ConnectionId, Outbox};
use crate::render;
use crate::until_words;

use super::{Refusal, Room};

/// Someone in the room: a seated player (connected or not) or a spectator.
#[derive(Debug)]
pub(super) struct Member {
    pub(super) player: PlayerRef,
    pub(super) outbox: Option<Outbox>,
    pub(super) seat: Option<Seat>,
    /// The last game actions applied for this member, as a hash of the id
    /// and the action, with the event after it: a retry (the same id with
    /// the same action) is answered without being applied twice.
    pub(super) recent: VecDeque<(u64, u64)>,
    /// The same for his last chat messages, kept apart so that chatting
    /// never pushes an action out of the memory protocol.md promises.
    pub(super) recent_chat: VecDeque<(u64, u64)>,
    /// Messages for this member from the request being handled, sent as
    /// one batch when it is done.
    pub(super) batch: Vec<Text>,
    /// Whether that batch must be written at once.
    pub(super) urgent: bool,
    /// A quick-play player who has not come in yet: his first arrival is
    /// not a return.
    pub(super) fresh: bool,
}

/// A 64-bit digest of a request and its id. Two different requests would
/// have to collide among a member's last few for a retry to be mistaken.
pub(super) fn retry_key(id: &MessageId, request: &Applied) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    id.hash(&mut hasher);
    request.hash(&mut hasher);
    hasher.finish()
}

/// What a player says at the table: his own words, or a set phrase.
#[derive(Debug)]
pub(super) enum Said {
    Text(String),
    Quick(QuickPhrase),
}

/// A request whose retry must not be applied again.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(super) enum Applied {
    Action(Action),
    Chat(String),
}

/// How many action ids, and how many chat ids, a member's duplicate check
/// remembers.
pub(super) const RECENT_IDS: usize = 16;

impl Member {
    pub(super) fn new(player: PlayerRef, outbox: Option<Outbox>) -> Member {
        Member {
            player,
            outbox,
            seat: None,
            recent: VecDeque::new(),
            recent_chat: VecDeque::new(),
            batch: Vec::new(),
            urgent: false,
            fresh: false,
        }
    }

    pub(super) fn is_bot(&self) -> bool {
        self.player.bot.is_some()
    }

    pub(super) fn already_done(&self, id: &MessageId, request: &Applied) -> Option<u64> {
        let key = retry_key(id, request);
        let memory = match request {
            Applied::Action(_) => &self.recent,
            Applied::Chat(_) => &self.recent_chat,
        };
        memory.iter().find(|(seen, _)| *seen == key).map(|&(_, seq)| seq)
    }

    pub(super) fn remember(&mut self, id: &MessageId, request: &Applied, seq: u64) {
        let key = retry_key(id, request);
        let memory = match request {
            Applied::Action(_) => &mut self.recent,
            Applied::Chat(_) => &mut self.recent_chat,
        };
        if memory.len() == RECENT_IDS {
            memory.pop_front();
        }
        memory.push_back((key, seq));
    }

    /// Queues a reply: it goes out, at once, when the request is done.
    pub(super) fn send(&mut self, message: &ServerMessage) {
        if self.outbox.is_some() {
            self.batch.push(Text::from(message.to_json()));
            self.urgent = true;
        }
    }

    /// Sends what was queued for this member while handling one request.
    pub(super) fn flush(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        let messages = std::mem::take(&mut self.batch);
        if let Some(outbox) = &self.outbox {
            outbox.send_batch(Batch {
                messages,
                urgent: self.urgent,
            });
        }
        self.urgent = false;
    }
}

impl Room {
    pub(super) fn state_for(&self, player: &str) -> RoomState {
        let seat = self.members.get(player).and_then(|member| member.seat);
        let viewer = seat.map_or(Viewer::Spectator, Viewer::Seat);
        let now = Instant::now();
        RoomState {
            room: self.settings.code.to_string(),
            name: self.settings.name.clone(),
            private: self.settings.private,
            rated: self.settings.rated,
            rules: self.settings.rules,
            bots: self.settings.bots,
            speed: self.settings.speed,
            turn_seconds: u32::try_from(self.turn_time().as_secs()).unwrap_or(u32::MAX),
            status: self.status(),
            owner: self.settings.owner.info(),
            seats: self.seat_infos(),
            teams: render::teams(self.settings.rules.seating()),
            spectators: self.spectators(),
            your_seat: seat,
            games: self.games,
            game: self.stage.table().map(|table| {
                render::game_view(&table.game, (table.number, table.id), &table.clocks(now), viewer)
            }),
            node: self.context.config.node.clone(),
        }
    }

    // Sending.

    pub(super) fn reply(&mut self, player: &str, message: &ServerMessage) {
        if let Some(member) = self.members.get_mut(player) {
            member.send(message);
        }
    }

    pub(super) fn refuse(&mut self, player: &str, id: Option<MessageId>, refusal: Refusal) {
        self.context.metrics.error_sent(refusal.0);
        self.reply(
            player,
            &ServerMessage::Error {
                id,
                code: refusal.0,
                message: refusal.1,
            },
        );
    }

    pub(super) fn ack(&mut self, player: &str, id: MessageId) {
        self.reply(
            player,
            &ServerMessage::Ack {
                id,
                seq: Some(self.log.seq()),
                duplicate: false,
            },
        );
    }

    /// Enters or re-enters the room. With `last_seq`, the missed events are
    /// sent if the log still has them; otherwise, and on a plain join, a
    /// snapshot is.
    ///
    /// What the join itself causes (a `seats` or `player_back` event) is
    /// emitted first, so that the reply comes after it: a snapshot then
    /// shows the room as of that event, and a catch-up ends with it.
    pub(super) fn join(&mut self, player: PlayerRef, outbox: Outbox, id: MessageId, last_seq: Option<u64>) {
        if let Err(Refusal(code, message)) = self.refuse_removed(&player.id) {
            self.context.metrics.error_sent(code);
            let refusal = ServerMessage::Error {
                id: Some(id),
                code,
                message,
            };
            outbox.send(Text::from(refusal.to_json()));
            return;
        }
        let key = player.id.clone();
        let is_new = !self.members.contains_key(&key);
        let member = self
            .members
            .entry(key.clone())
            .or_insert_with(|| Member::new(player, None));
        let seat = member.seat;
        let was_detached = member.outbox.is_none() && !is_new;
        let first_arrival = std::mem::take(&mut member.fresh);
        let connection = outbox.id();
        if let Some(old) = member.outbox.replace(outbox)
            && old.id() != connection
        {
            old.close(crate::outbox::CloseReason::Replaced);
        }

        if let Some(seat) = seat {
            let mut returned = was_detached && !first_arrival;
            let turn_time = self.turn_time();
            if let Some(table) = self.stage.table_mut() {
                returned |= table.seat_present(seat, Instant::now(), turn_time, first_arrival);
            }
            if returned {
                self.emit(SeatSet::EMPTY, |_| EventKind::PlayerBack { seat });
                self.emit_turn_if_playing();
            } else if first_arrival {
                // The others see him connected; he has the turn in his snapshot.
                self.emit_seats();
            }
        } else if is_new {
            self.spectators_changed();
        }

        // The client's catch-up replaces what the join queued for him: it
        // holds those events (or the state after them) and the turn. It
        // goes as one batch, however long, so that it takes one place in
        // the outbox, and like every message after the request's writes
        // are stored.
        let catch_up = match last_seq.and_then(|seq| self.log.since(seq, seat)) {
            Some(mut messages) => {
                let viewer = seat.map_or(Viewer::Spectator, Viewer::Seat);
                if let Some(turn) = self.turn_message(viewer) {
                    messages.push(Text::from(turn.to_json()));
                }
                let ack = ServerMessage::Ack {
                    id,
                    seq: Some(self.log.seq()),
                    duplicate: false,
                };
                messages.push(Text::from(ack.to_json()));
                messages
            }
            None => {
                let snapshot = ServerMessage::Snapshot {
                    id: Some(id),
                    seq: self.log.seq(),
                    state: Box::new(self.state_for(&key)),
                };
                vec![Text::from(snapshot.to_json())]
            }
        };
        let member = self.members.get_mut(&key).expect("inserted above");
        member.batch = catch_up;
        member.urgent = true;
    }

    pub(super) fn leave(&mut self, player: &str) {
        let Some(member) = self.members.get_mut(player) else {
            return;
        };
        member.outbox = None;
        let seat = member.seat;
        match seat {
            Some(seat) if self.playing() => {
                // Leaving a game in progress gives the seat to the server
                // until the player comes back.
                if let Some(table) = self.stage.table_mut() {
                    table.seat_away(seat, Instant::now());
                }
                self.emit(SeatSet::EMPTY, |_| EventKind::PlayerAway { seat, hold_ms: 0 });
            }
            Some(seat) => self.free_seat(seat),
            None => {
                self.members.remove(player);
                self.spectators_changed();
            }
        }
    }

    pub(super) fn detach(&mut self, player: &str, connection: ConnectionId) {
        let Some(member) = self.members.get_mut(player) else {
            return;
        };
        if member
            .outbox
            .as_ref()
            .is_none_or(|outbox| outbox.id() != connection)
        {
            // An older connection of a player who is already back.
            return;
        }
        member.outbox = None;
        match member.seat {
            Some(seat) => {
                let hold = self.context.config.seat_hold;
                if let Some(table) = self.stage.playing_mut() {
                    table.hold_seat(seat, Instant::now() + hold);
                    self.emit(SeatSet::EMPTY, |_| EventKind::PlayerAway {
                        seat,
                        hold_ms: hold.as_millis() as u64,
                    });
                } else {
                    // Between games the seat is simply given up.
                    self.free_seat(seat);
                }
            }
            None => {
                self.members.remove(player);
                self.spectators_changed();
            }
        }
    }

    pub(super) fn chat(&mut self, player: &str, id: MessageId, said: Said) {
        let Some(member) = self.members.get_mut(player) else {
            let refusal = Refusal::new(ErrorCode::NotInRoom, "you are not in this room");
            return self.refuse(player, Some(id), refusal);
        };
        let (text, quick) = match said {
            Said::Text(text) => (text.trim().to_string(), None),
            Said::Quick(phrase) => (phrase.words().to_string(), Some(phrase)),
        };
        let applied = Applied::Chat(text.clone());
        if let Some(seq) = member.already_done(&id, &applied) {
            let message = ServerMessage::Ack {
                id,
                seq: Some(seq),
                duplicate: true,
            };
            return member.send(&message);
        }
        let refusal = if text.is_empty() {
            Some(Refusal::new(
                ErrorCode::BadMessage,
                "a chat message needs some text",
            ))
        } else if text.chars().any(rearranges_text) {
            Some(Refusal::new(
                ErrorCode::BadMessage,
                "chat text may not hold control characters (line breaks included) \
                 or characters that change the direction of the text after them",
            ))
        } else if text.chars().count() > MAX_CHAT_CHARS {
            Some(Refusal::new(
                ErrorCode::ChatTooLong,
                format!("chat messages are at most {MAX_CHAT_CHARS} characters"),
            ))
        } else if let Some(mute) = self
            .context
            .policy
            .muted(member.player.account, OffsetDateTime::now_utc())
        {
            Some(Refusal::new(
                ErrorCode::Muted,
                format!("you are muted {}: {}", until_words(mute.until), mute.reason),
            ))
        } else if self
            .context
            .chat_limits
            .admit(member.player.account, Instant::now())
        {
            None
        } else {
            let (limit, window) = (self.context.config.chat_limit, self.context.config.chat_window);
            Some(Refusal::new(
                ErrorCode::ChatRateLimited,
                format!(
                    "at most {limit} chat messages per {} seconds, in all rooms together",
                    window.as_secs()
                ),
            ))
        };
        if let Some(refusal) = refusal {
            return self.refuse(player, Some(id), refusal);
        }
        let (from, seat, sender) = (member.player.info(), member.seat, member.player.account);
        let text = self.context.policy.mask(&text);
        self.emit(SeatSet::EMPTY, |_| EventKind::ChatMessage {
            from: from.clone(),
            seat,
            text: text.clone(),
            hidden: false,
            quick,
        });
        let seq = self.log.seq();
        self.hide_from_blockers(sender, &from, seat, seq);
        self.chat_lines.note(from, &text);
        if let Some(member) = self.members.get_mut(player) {
            member.remember(&id, &applied, seq);
        }
        self.ack(player, id);
    }
}

/// Characters that chat text may not hold: control characters, which
/// include line breaks, the line and paragraph separators, and the
/// direction embeddings, overrides and isolates, which would reorder what
/// the other players' screens show after them. Other invisible characters
/// stay allowed: the joiners and tags build emoji, and the direction marks
/// are needed in right-to-left writing.
fn rearranges_text(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}
