//! Playing: a seat's action applied to the game, the engine's events
//! turned into protocol messages, the turn, and the game's end.

use crate::Text;
use spades_engine::{Action, BySeat, Event, Seat, SeatSet, Team, Viewer};
use spades_protocol::event::EventKind;
use spades_protocol::history::HandLine;
use spades_protocol::ws::{ErrorCode, MessageId, ServerMessage};
use spades_store::{FinishedGame, Write};
use std::time::Duration;
use time::OffsetDateTime;

use tokio::time::Instant;

use crate::render;

use super::resume::count_hand;
use super::{Applied, Refusal, Room, TableNote};

impl Room {
    pub(super) fn act(&mut self, player: &str, id: MessageId, action: Action) {
        let seat = match self.member_seat(player) {
            Ok(Some(seat)) => seat,
            Ok(None) => {
                let refusal = Refusal::new(ErrorCode::NotSeated, "spectators cannot play");
                return self.refuse(player, Some(id), refusal);
            }
            Err(refusal) => return self.refuse(player, Some(id), refusal),
        };
        let applied = Applied::Action(action);
        if let Some(seq) = self
            .members
            .get(player)
            .and_then(|member| member.already_done(&id, &applied))
        {
            return self.reply(
                player,
                &ServerMessage::Ack {
                    id,
                    seq: Some(seq),
                    duplicate: true,
                },
            );
        }
        if !self.playing() {
            let refusal = match self.stage.table() {
                Some(_) => Refusal::new(
                    ErrorCode::GameOver,
                    "the game is over; a seated player can start the next one",
                ),
                None => Refusal::new(ErrorCode::NoGame, "no game is being played"),
            };
            return self.refuse(player, Some(id), refusal);
        }
        match self.apply(seat, action, Some(&id)) {
            Ok(()) => {
                let seq = self.log.seq();
                if let Some(member) = self.members.get_mut(player) {
                    member.remember(&id, &applied, seq);
                }
                self.ack(player, id);
            }
            Err(error) => {
                let refusal = Refusal::new(ErrorCode::from_rule_error(&error), error.to_string());
                self.refuse(player, Some(id), refusal);
            }
        }
    }

    /// Applies one action to the game and sends its events. `request` is
    /// the id of the player's message that asked for it, stored with it so
    /// that a retry is recognised even after a restart.
    pub(super) fn apply(
        &mut self,
        seat: Seat,
        action: Action,
        request: Option<&MessageId>,
    ) -> Result<(), spades_engine::RuleError> {
        let table = self.stage.table_mut().expect("only called while playing");
        let events = table.game.apply(seat, action)?;
        let write = self.pending.len();
        self.pending.push(Write::Action {
            game: table.id,
            index: table.actions,
            seat: seat.index() as u8,
            action: action.to_string(),
            request_id: request.map(|id| serde_json::to_string(id).unwrap_or_default()),
            room_seq: 0,
        });
        table.actions += 1;
        self.context.metrics.actions.inc();
        for event in events {
            self.announce_and_record(event);
        }
        // The action's own write comes before those of its events (a hand
        // record, the end of the game), and the event number it is
        // answered with is known only now.
        let after = self.log.seq();
        if let Some(Write::Action { room_seq, .. }) = self.pending.get_mut(write) {
            *room_seq = after;
        }
        self.schedule_turn(Some(seat));
        Ok(())
    }

    /// Turns one engine event into the room's events for each viewer, and
    /// does what the event means for the room: at a hand's end it queues
    /// the hand's record for the store and counts each player's bids; at
    /// the game's end it finishes the game: its clocks stop, and its result
    /// and the tournament's note wait for the store.
    pub(super) fn announce_and_record(&mut self, event: Event) {
        let table = self.stage.table().expect("events come from a table");
        let game = &table.game;
        let hand_of = |seat: Seat| game.view(Viewer::Seat(seat)).hand();
        match event {
            Event::LookedAtHand { seat } => {
                let cards = hand_of(seat);
                self.emit(SeatSet::single(seat), |viewer| EventKind::HandRevealed {
                    seat,
                    cards: viewer.and(cards),
                });
            }
            Event::BidMade { seat, bid } => {
                let view = render::bid_view(bid);
                self.emit(SeatSet::EMPTY, |_| EventKind::BidMade {
                    seat,
                    bid: view.bid,
                    blind: view.blind,
                });
                if bid.is_blind() {
                    // A blind bid (blind nil, or the team's blind bid for
                    // each partner) is what shows the bidder his cards.
                    self.announce_and_record(Event::LookedAtHand { seat });
                }
            }
            Event::PassingStarted => self.emit(SeatSet::EMPTY, |_| EventKind::PassingStarted {}),
            Event::PassChosen { seat } => self.emit(SeatSet::EMPTY, |_| EventKind::PassChosen { seat }),
            Event::CardsPassed { from, to, cards } => {
                let both: SeatSet = [from, to].into_iter().collect();
                self.emit(both, |viewer| EventKind::CardsPassed {
                    from,
                    to,
                    count: cards.len() as u8,
                    cards: viewer.map(|_| cards),
                });
            }
            Event::PlayStarted { leader } => self.emit(SeatSet::EMPTY, |_| EventKind::PlayStarted { leader }),
            Event::CardPlayed { seat, card } => {
                self.emit(SeatSet::EMPTY, |_| EventKind::CardPlayed { seat, card })
            }
            Event::TrickWon { trick, winner } => {
                self.emit(SeatSet::EMPTY, |_| EventKind::TrickWon { trick, winner })
            }
            Event::HandEnded { hand } => self.end_hand(hand),
            Event::HandStarted { .. } => self.emit_hand_started(),
            Event::GameEnded { winner } => {
                let (score, game_id) = (game.score(), table.id.to_string());
                self.emit(SeatSet::EMPTY, |_| EventKind::GameOver {
                    game_id: game_id.clone(),
                    winner: Some(winner),
                    score,
                });
                self.finish_game();
            }
        }
    }

    /// A hand is over: its record waits for the store, each player's bids
    /// are counted, and everyone is told the score.
    fn end_hand(&mut self, hand: u32) {
        let table = self.stage.table().expect("events come from a table");
        let game = &table.game;
        let tricks_won = game
            .last_hand()
            .map(|record| record.tricks_won.played(game.seating()).to_vec())
            .unwrap_or_default();
        // The hand's record, in the hand-history format, is stored with the
        // action that ended it.
        let record = game.last_hand().map(|record| {
            let line = HandLine::new(u64::from(table.number), &self.settings.rules, record);
            serde_json::to_value(&line).unwrap_or_default()
        });
        let id = table.id;
        if let Some(record) = record {
            self.pending.push(Write::Hand {
                game: id,
                hand,
                record,
            });
        }
        if let Some(table) = self.stage.table_mut() {
            count_hand(&table.game, &mut table.stats);
            self.context.metrics.hands.inc();
        }
        let game = &self.stage.table().expect("still at the table").game;
        let teams = game.last_hand_scores().map(render::team_scores);
        if let Some(teams) = teams {
            self.emit(SeatSet::EMPTY, |_| EventKind::HandScored {
                hand,
                tricks_won: tricks_won.clone(),
                teams: teams.clone(),
            });
        }
    }

    /// Sends the new deal: each player sees his own cards, unless they are
    /// hidden from him for a blind bid (blind nil or his team's).
    pub(super) fn emit_hand_started(&mut self) {
        let table = self.stage.table().expect("a hand starts at a table");
        let game = &table.game;
        let (hand, dealer) = (game.hand_number(), game.dealer());
        let cards = BySeat::from_fn(|seat| game.view(Viewer::Seat(seat)).hand());
        let offered = BySeat::from_fn(|seat| game.is_blind_offered(seat));
        let all: SeatSet = game.seating().seats().collect();
        self.emit(all, |viewer| EventKind::HandStarted {
            hand,
            dealer,
            cards: viewer.and_then(|seat| cards[seat]),
            blind_nil_offered: viewer.is_some_and(|seat| offered[seat]),
        });
    }

    /// Starts the clocks of seats that have just become due to act and tells
    /// everyone whose turn it is. `acted` is the seat that just acted, whose
    /// clock starts afresh if it must act again.
    pub(super) fn schedule_turn(&mut self, acted: Option<Seat>) {
        let turn_time = self.turn_time();
        let delay = self.context.config.bot_delay;
        let speed = self.settings.speed;
        let Some(table) = self.stage.playing_mut() else {
            return;
        };
        // The wait is worked out only when the server is to act: a table
        // of people pays nothing for the bots' pace.
        let server_acts = table
            .game
            .to_act()
            .iter()
            .any(|seat| table.played_by_server().contains(seat));
        let bot_wait = if server_acts {
            speed.bot_wait(table.bot_wait(&delay))
        } else {
            Duration::ZERO
        };
        let changed = table.start_clocks(acted, Instant::now(), turn_time, bot_wait);
        if changed {
            self.emit_turn();
        }
    }

    /// The turn clock of this room's speed.
    pub(super) fn turn_time(&self) -> Duration {
        self.settings.speed.turn_time(self.context.config.turn_time)
    }

    pub(super) fn emit_turn_if_playing(&mut self) {
        if self.playing() {
            self.emit_turn();
        }
    }

    /// The current turn message as `viewer` sees it, while a game is played.
    pub(super) fn turn_message(&self, viewer: Viewer) -> Option<ServerMessage> {
        let table = self.stage.playing()?;
        let clocks = table.clocks(Instant::now());
        Some(ServerMessage::Turn {
            room: self.code(),
            after: self.log.seq(),
            turn: render::turn_view(&table.game, &clocks, viewer)?,
        })
    }

    /// Tells everyone whose turn it is. A turn is not an event: it is not
    /// logged, and a resync ends with the turn as it is then.
    pub(super) fn emit_turn(&mut self) {
        let Some(public) = self.turn_message(Viewer::Spectator) else {
            return;
        };
        let public = Text::from(public.to_json());
        let acting = self
            .stage
            .table()
            .map_or(SeatSet::EMPTY, |table| table.game.to_act());
        let private = BySeat::from_fn(|seat| {
            acting
                .contains(seat)
                .then(|| self.turn_message(Viewer::Seat(seat)))
                .flatten()
                .map(|message| Text::from(message.to_json()))
        });
        for member in self.members.values_mut() {
            if member.outbox.is_none() {
                continue;
            }
            match member.seat.and_then(|seat| private[seat].clone()) {
                Some(mine) => {
                    member.batch.push(mine);
                    // Whoever must act now hears about it at once.
                    member.urgent = true;
                }
                None => member.batch.push(public.clone()),
            }
        }
    }

    /// Ends the game: the stage is finished, the clocks stop, and the
    /// result is queued for the store with the tournament's note after it.
    pub(super) fn finish_game(&mut self) {
        self.stage.finish();
        if let Some(table) = self.stage.table_mut() {
            table.stop_clocks();
            // Players who were gone for good at the end abandoned the game:
            // it is a loss for them whatever their team did.
            self.pending.push(Write::Finished(FinishedGame {
                id: table.id,
                winner: table.game.winner().map(|team: Team| team.index() as u8),
                score: table.game.score().as_slice().to_vec(),
                seating: table.game.rules().seating(),
                // A game a moderator ended was abandoned by no one.
                abandoned: Seat::ALL.map(|seat| !self.voided && table.is_away(seat)),
                stats: table.stats.0,
                finished_at: OffsetDateTime::now_utc(),
                tournament: self.settings.tournament,
                voided: self.voided,
            }));
            self.reported = self.settings.tournament.map(TableNote::Finished);
            tracing::info!(
                room = %self.settings.code,
                game = table.number,
                seed = table.seed,
                actions = table.actions,
                winner = ?table.game.winner(),
                "game over"
            );
        }
        // Seats of players who are gone are given up now that the game is
        // over; bots stay for the next game.
        let gone: Vec<Seat> = self
            .seated()
            .filter(|(_, player)| {
                self.members
                    .get(player)
                    .is_none_or(|member| member.outbox.is_none() && !member.is_bot())
            })
            .map(|(seat, _)| seat)
            .collect();
        for seat in gone {
            self.free_seat(seat);
        }
        self.announce();
    }
}
