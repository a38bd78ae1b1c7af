//! The clocks and the bots that stand in: what the room does when a
//! turn's clock runs out, a seat's hold ends, or a bot's decision comes.

use spades_bots::expert::policy;
use spades_bots::knowledge::Knowledge;
use spades_bots::{BasicBot, BeginnerBot, Budget, ExpertBot, Player, StrongBot};
use spades_engine::{Action, Legal, Phase, Seat, SeatSet, Viewer};
use spades_protocol::event::EventKind;
use spades_protocol::ws::{AutoReason, BotLevel};
use tokio::time::Instant;

use super::config::BotDelay;
use super::{Room, Stage, Table};

/// A decision a strong bot made away from the room's task.
#[derive(Debug)]
pub(super) struct Thought {
    pub(super) seat: Seat,
    /// How many actions the game had when the bot started thinking: if it
    /// has more now, the decision is stale.
    pub(super) actions: u32,
    /// Whether it was the player's clock that ran out (rather than the seat
    /// being a bot's or an absent player's).
    pub(super) for_clock: bool,
    pub(super) action: Option<Action>,
}

impl Table {
    /// How long the server waits before it acts for a seat now, at a
    /// table of normal speed: a time that varies from one action to the
    /// next, shorter when there is one card to play, and longer after a
    /// trick or a hand, so that people see what happened.
    pub(super) fn bot_wait(&self, delay: &BotDelay) -> std::time::Duration {
        if delay.max.is_zero() && delay.trick_pause.is_zero() {
            return std::time::Duration::ZERO;
        }
        let game = &self.game;
        let forced = game
            .to_act()
            .iter()
            .any(|seat| matches!(game.legal(seat), Legal::Play(cards) if cards.len() == 1));
        let pauses = match game.phase() {
            Phase::Playing if game.current_trick().1.is_empty() && !game.tricks().is_empty() => 1,
            Phase::Bidding if game.bids().iter().all(|(_, bid)| bid.is_none()) && self.actions > 0 => 2,
            _ => 0,
        };
        // The wait varies with the game and its progress, the way a
        // person's does, and is the same again when a game is replayed.
        let mixed = (self.seed ^ u64::from(self.actions).wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .wrapping_mul(0xBF58_476D_1CE4_E5B9);
        let draw = (mixed >> 40) as f64 / (1u64 << 24) as f64;
        delay.wait(draw, forced, pauses)
    }
}

impl Room {
    // Time.

    /// When the room next needs to wake: a clock or a hold that ends, or
    /// spectators' news held back.
    pub(super) fn next_wake(&self) -> Option<Instant> {
        let table = self.stage.playing().and_then(|table| table.next_wake());
        match (table, self.spectator_news.due()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    pub(super) fn on_time(&mut self, now: Instant) {
        self.tell_spectators_due(now);
        let Some(table) = self.stage.playing_mut() else {
            return;
        };
        // Held seats whose time is up are played by the server from now on.
        table.end_holds(now);
        if self.abandoned() {
            self.abandon();
            return;
        }
        let due = self
            .stage
            .table()
            .map(|table| table.clocks_out(now))
            .unwrap_or_default();
        for seat in due {
            self.stand_in(seat);
        }
    }

    /// Every seated player is gone for good and nobody is watching: the
    /// game cannot go on for anyone's benefit.
    /// A tournament game is never abandoned: bots play it to the end and
    /// its result counts for the players.
    pub(super) fn abandoned(&self) -> bool {
        let Some(table) = self.stage.table().filter(|_| self.settings.tournament.is_none()) else {
            return false;
        };
        let server_plays = table.played_by_server();
        let all_away = self.seat_list().all(|seat| server_plays.contains(seat));
        all_away && self.members.values().all(|member| member.outbox.is_none())
    }

    pub(super) fn abandon(&mut self) {
        let Some(table) = self.stage.table() else {
            return;
        };
        let (score, game_id) = (table.game.score(), table.id.to_string());
        self.emit(SeatSet::EMPTY, |_| EventKind::GameOver {
            game_id: game_id.clone(),
            winner: None,
            score,
        });
        self.finish_game();
        self.members.clear();
    }

    /// The level of bot that acts for `seat`: the bot's own when one holds
    /// it, the room's for a person.
    fn level_at(&self, seat: Seat) -> BotLevel {
        self.seats[seat]
            .as_ref()
            .and_then(|key| self.members.get(key))
            .and_then(|member| member.player.bot)
            .unwrap_or(self.settings.bots)
    }

    /// Acts for a seat whose clock ran out, whose player is away, or that a
    /// bot holds, with the seat's level of bot (see [`Room::level_at`]).
    pub(super) fn stand_in(&mut self, seat: Seat) {
        let level = self.level_at(seat);
        let Some(table) = self.stage.playing_mut() else {
            return;
        };
        // The strong bot looks ahead only for a card; the expert for a bid
        // too. Anything else is decided at once.
        let choice = match table.game.legal(seat) {
            Legal::Play(cards) => cards.len() > 1,
            Legal::Bid(_) => level == BotLevel::Expert,
            _ => false,
        };
        let place =
            (level.looks_ahead() && choice).then(|| self.context.strong_bots.clone().try_acquire_owned());
        match place {
            Some(Ok(place)) => return self.think_apart(seat, level, place),
            // Every look-ahead bot the server allows is thinking: this one
            // decides at once, below, rather than make the table wait.
            Some(Err(_)) => {
                self.context.metrics.strong_bot_busy.inc();
            }
            None => {}
        }
        // Looking at the cards is not a move; the bot then bids at once.
        for _ in 0..2 {
            let Some(table) = self.stage.playing() else {
                return;
            };
            let started = std::time::Instant::now();
            let view = table.game.view(Viewer::Seat(seat));
            let action = match level {
                BotLevel::Beginner => BeginnerBot::new(table.seed ^ u64::from(table.actions)).act(&view),
                BotLevel::Expert => Knowledge::new(&view).and_then(|k| policy::decide(&k, view.legal())),
                BotLevel::Basic | BotLevel::Strong => BasicBot.act(&view),
            };
            self.context
                .metrics
                .bot_thinking
                .observe(started.elapsed().as_secs_f64());
            let Some(action) = action else {
                return;
            };
            if !self.play_for(seat, action) || action != Action::LookAtHand {
                return;
            }
        }
    }

    /// Lets a look-ahead bot decide for `seat`. It thinks for up to the
    /// server's `bot_time`: too long to hold the room's task (or the
    /// runtime's thread), so it thinks on a blocking thread, holding one of
    /// the server's places for thinking bots, and its decision comes back
    /// as a `Thought`.
    fn think_apart(&mut self, seat: Seat, level: BotLevel, place: tokio::sync::OwnedSemaphorePermit) {
        let bot_time = self.context.config.bot_time;
        let Some(table) = self.stage.playing_mut() else {
            return;
        };
        table.start_thinking(seat);
        let game = table.game.clone();
        let actions = table.actions;
        let for_clock = !table.played_by_server().contains(seat);
        let seed = table.seed ^ u64::from(actions).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ seat.index() as u64;
        let budget = Budget {
            time: Some(bot_time),
            ..if level == BotLevel::Expert {
                ExpertBot::REPEATABLE
            } else {
                Budget::SERVER
            }
        };
        let thoughts = self.thoughts.clone();
        let thinking = self.context.metrics.bot_thinking.clone();
        tokio::task::spawn_blocking(move || {
            // Held until the bot has decided.
            let _place = place;
            let started = std::time::Instant::now();
            let view = game.view(Viewer::Seat(seat));
            let action = if level == BotLevel::Expert {
                ExpertBot::new(seed, budget).act(&view)
            } else {
                StrongBot::new(seed, budget).act(&view)
            };
            thinking.observe(started.elapsed().as_secs_f64());
            let _ = thoughts.send(Thought {
                seat,
                actions,
                for_clock,
                action,
            });
        });
    }

    /// Applies a bot's action for a seat; when the seat is a person's, the
    /// table is told first why the server acted for him.
    pub(super) fn play_for(&mut self, seat: Seat, action: Action) -> bool {
        let Some(table) = self.stage.playing() else {
            return false;
        };
        if !table.is_bot(seat) {
            let reason = if table.is_away(seat) {
                AutoReason::Away
            } else {
                AutoReason::Clock
            };
            self.emit(SeatSet::EMPTY, |_| EventKind::AutoPlayed { seat, reason });
        }
        match self.apply(seat, action, None) {
            Ok(()) => true,
            Err(error) => {
                tracing::error!(room = %self.settings.code, %seat, %action, %error, "a bot's action was refused");
                false
            }
        }
    }

    /// A strong bot's decision, back from its thread. It is played if the
    /// game has not moved on and the seat is still the server's to play:
    /// a player who came back meanwhile plays for himself, unless it was his
    /// clock that ran out.
    pub(super) fn on_thought(&mut self, thought: Thought) {
        let finished = matches!(self.stage, Stage::Finished(_));
        let Some(table) = self.stage.table_mut() else {
            return;
        };
        table.stop_thinking(thought.seat);
        let seat = thought.seat;
        let current = !finished
            && table.actions == thought.actions
            && table.game.to_act().contains(seat)
            && (thought.for_clock || table.played_by_server().contains(seat));
        if current
            && let Some(action) = thought.action
            && self.play_for(seat, action)
        {
            return;
        }
        self.schedule_turn(None);
    }
}
