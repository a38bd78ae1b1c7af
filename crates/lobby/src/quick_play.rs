//! The lobby's side of quick play: it keeps the queue (see `matchmaking`)
//! and the connections of the players in it, opens a room for every table
//! the queue makes, and tells each player where he sits.

use std::sync::Arc;

use spades_engine::{Preset, Seat};
use spades_protocol::ws::{BotLevel, ErrorCode, MessageId, RoomStatus, ServerMessage, UnqueueReason};
use spades_room::Text;

use super::Lobby;
use crate::matchmaking;
use spades_room::PlayerRef;
use spades_room::outbox::{ConnectionId, Outbox};

impl Lobby {
    /// Puts a player in the queue, unless he is playing a game already, and
    /// sends him the `queued` reply; a connection he queued on before is
    /// told it was replaced.
    pub(super) fn enqueue(
        &mut self,
        entry: matchmaking::Entry,
        id: MessageId,
        outbox: Outbox,
    ) -> Result<(), (ErrorCode, &'static str)> {
        let playing = self
            .seated
            .get(&entry.player.id)
            .and_then(|code| self.rooms.get(code))
            .is_some_and(|room| room.summary.status == RoomStatus::Playing);
        if playing {
            return Err((ErrorCode::GameInProgress, "you are playing a game already"));
        }
        let player = entry.player.id.clone();
        let (rules, partner) = (entry.preset, entry.partner.clone());
        let waiting_for_partner = self.queue.join(entry);
        let queued = ServerMessage::Queued {
            id,
            rules,
            partner,
            waiting_for_partner,
            max_wait_ms: self.config.queue.max_wait.as_millis() as u64,
        };
        outbox.send(Text::from(queued.to_json()));
        if let Some(old) = self.queued.insert(player, outbox.clone())
            && old.id() != outbox.id()
        {
            let notice = ServerMessage::Unqueued {
                reason: UnqueueReason::Replaced,
            };
            old.send(Text::from(notice.to_json()));
        }
        Ok(())
    }

    /// Takes a player out of the queue (only if he queued on `connection`,
    /// when given); his partner leaves with him and is told why.
    pub(super) fn dequeue(&mut self, player: &str, connection: Option<ConnectionId>) -> bool {
        let on_that_connection = self
            .queued
            .get(player)
            .is_some_and(|outbox| connection.is_none_or(|connection| outbox.id() == connection));
        if !on_that_connection {
            return false;
        }
        let Some(left) = self.queue.leave(player) else {
            return false;
        };
        self.queued.remove(player);
        if let Some(partner) = left.partner
            && let Some(outbox) = self.queued.remove(&partner.player.id)
        {
            outbox.send(Text::from(
                ServerMessage::Unqueued {
                    reason: UnqueueReason::PartnerLeft,
                }
                .to_json(),
            ));
        }
        true
    }

    /// Opens a room for every table the queue can make now and tells its
    /// players where to go. Nothing is matched while no game could start.
    pub(super) fn make_tables(&mut self) {
        if self.lifecycle.is_draining() || self.journal.is_degraded() {
            return;
        }
        let policy = self.config.policy.clone();
        let apart = move |one, other| policy.apart(one, other);
        for table in self.queue.make_matches(tokio::time::Instant::now(), &apart) {
            if self.rooms.len() >= self.config.max_rooms {
                // Put them back to wait for room; they keep their place.
                for entry in table.seats.into_iter().flatten() {
                    self.queue.join(entry);
                }
                return;
            }
            self.open_table(table);
        }
    }

    /// Opens the room of a table the queue made, with bots in its empty
    /// seats, on the least loaded node of the cluster (this one when alone),
    /// and sends each player `matched` with his seat once it is open.
    fn open_table(&mut self, table: matchmaking::Match) {
        let code = self.unused_code(true);
        let level = bots_for(&table);
        let players: Vec<PlayerRef> = table
            .seats
            .iter()
            .enumerate()
            .map(|(i, seat)| match seat {
                Some(entry) => entry.player.clone(),
                None => PlayerRef::bot(level, i as u8),
            })
            .collect();
        let seats: Vec<spades_protocol::ws::PlayerInfo> = players.iter().map(PlayerRef::info).collect();
        let mut told = Vec::new();
        for (seat, player) in Seat::ALL.into_iter().zip(&players) {
            if let Some(outbox) = self.queued.remove(&player.id) {
                let matched = ServerMessage::Matched {
                    room: code.to_string(),
                    seat,
                    rules: table.preset,
                    seats: seats.clone(),
                };
                told.push((outbox, matched));
            }
        }
        let opened = Table {
            code,
            name: format!("Quick play ({})", table.preset.name()),
            preset: table.preset,
            players,
            told,
        };
        let here = match &self.me {
            Some(me) => self.network.place_table(opened, me),
            None => Some(opened),
        };
        if let Some(opened) = here {
            self.open_table_here(opened);
        }
    }

    /// Opens a quick-play table's room on this node and sends its players
    /// `matched`; false if a room has its code already.
    pub(super) fn open_table_here(&mut self, table: Table) -> bool {
        if self.rooms.contains_key(&table.code) {
            return false;
        }
        let Table {
            code,
            name,
            preset,
            players,
            told,
        } = table;
        self.open_matched(code.clone(), name, preset.rules(), players, None);
        tell(told);
        tracing::info!(room = %code, preset = preset.name(), "quick-play table opened");
        true
    }
}

/// A table made by the queue, with what each of its players is told.
#[derive(Debug)]
pub struct Table {
    pub code: Arc<str>,
    pub name: String,
    pub preset: Preset,
    pub players: Vec<PlayerRef>,
    /// Each queued player's connection and the `matched` message for him.
    pub told: Vec<(Outbox, ServerMessage)>,
}

/// Sends each player of a table his `matched`.
pub fn tell(told: Vec<(Outbox, ServerMessage)>) {
    for (outbox, matched) in told {
        outbox.send(Text::from(matched.to_json()));
    }
}

/// The level of the bots that fill a quick-play table: near the players'
/// ratings, so that a newcomer (rated 1500, or below after some losses)
/// partners the basic bot or the beginner, and a strong player a bot that
/// can keep up with him. The bands follow the levels' results against the
/// basic bot (README, "Bots").
pub fn bots_for(table: &matchmaking::Match) -> BotLevel {
    let ratings: Vec<f64> = table.seats.iter().flatten().map(|entry| entry.rating).collect();
    let mean = ratings.iter().sum::<f64>() / ratings.len().max(1) as f64;
    match mean {
        _ if ratings.is_empty() => BotLevel::Basic,
        r if r < 1400.0 => BotLevel::Beginner,
        r if r < 1650.0 => BotLevel::Basic,
        r if r < 1800.0 => BotLevel::Strong,
        _ => BotLevel::Expert,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(ratings: &[f64]) -> matchmaking::Match {
        let seats = (0..4)
            .map(|i| {
                ratings.get(i).map(|&rating| matchmaking::Entry {
                    player: PlayerRef::new(uuid::Uuid::from_u128(i as u128 + 1), "Ann"),
                    rating,
                    preset: spades_engine::Preset::Classic,
                    partner: None,
                    partner_account: None,
                    since: tokio::time::Instant::now(),
                })
            })
            .collect();
        matchmaking::Match {
            preset: spades_engine::Preset::Classic,
            seats,
        }
    }

    #[test]
    fn bots_come_near_the_players_ratings() {
        assert_eq!(bots_for(&table(&[1320.0])), BotLevel::Beginner);
        assert_eq!(bots_for(&table(&[1500.0, 1540.0])), BotLevel::Basic);
        assert_eq!(bots_for(&table(&[1700.0, 1760.0, 1720.0])), BotLevel::Strong);
        assert_eq!(bots_for(&table(&[1950.0])), BotLevel::Expert);
        assert_eq!(bots_for(&table(&[])), BotLevel::Basic);
    }
}
