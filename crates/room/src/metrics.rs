//! What the rooms count for the server's `/metrics`: the server registers
//! these figures in its registry beside its own, and the rooms update them
//! where things happen, each update one atomic operation.

use std::sync::Arc;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Registry, Unit};
use spades_protocol::ws::ErrorCode;
use strum::VariantNames;

/// A label set of one label.
pub type Label = [(&'static str, &'static str); 1];

/// The rooms' figures.
#[derive(Debug)]
pub struct RoomMetrics {
    /// Rooms open, and games being played in them.
    pub rooms: Gauge,
    pub games: Gauge,
    /// Hands scored and actions applied (players', clocks' and bots').
    pub hands: Counter,
    pub actions: Counter,
    /// From a player's action read off his socket to its events handed to
    /// every connection of the room, its storing included.
    pub action_time: Histogram,
    /// Error messages sent, by `code`, by the rooms and by the rest of
    /// the server alike.
    pub errors: Family<Label, Counter>,
    /// How long a bot took to choose its action.
    pub bot_thinking: Histogram,
    /// Cards a strong bot would have chosen but the basic bot played,
    /// because as many strong bots as the server allows were thinking.
    pub strong_bot_busy: Counter,
}

impl Default for RoomMetrics {
    fn default() -> RoomMetrics {
        let metrics = RoomMetrics {
            rooms: Gauge::default(),
            games: Gauge::default(),
            hands: Counter::default(),
            actions: Counter::default(),
            action_time: Histogram::new(exponential_buckets(50e-6, 2.0, 16)),
            errors: Family::default(),
            bot_thinking: Histogram::new(exponential_buckets(10e-6, 4.0, 12)),
            strong_bot_busy: Counter::default(),
        };
        // Every error code is shown from the start, at zero, so that a
        // dashboard's rate has a series before the first one.
        for &code in ErrorCode::VARIANTS {
            drop(metrics.errors.get_or_create(&[("code", code)]));
        }
        metrics
    }
}

impl RoomMetrics {
    /// Counts an error message sent to a client.
    pub fn error_sent(&self, code: ErrorCode) {
        self.errors.get_or_create(&[("code", code.name())]).inc();
    }

    /// Adds these figures to the server's registry.
    pub fn register(&self, registry: &mut Registry) {
        let r = registry;
        r.register("rooms", "Rooms open", self.rooms.clone());
        r.register("games", "Games being played", self.games.clone());
        r.register("hands", "Hands scored", self.hands.clone());
        r.register("actions", "Game actions applied", self.actions.clone());
        r.register_with_unit(
            "action",
            "From a player's action read to its events handed to the room's connections",
            Unit::Seconds,
            self.action_time.clone(),
        );
        r.register(
            "errors",
            "Error messages sent to clients, by code",
            self.errors.clone(),
        );
        r.register_with_unit(
            "bot_thinking",
            "How long a bot took to choose an action",
            Unit::Seconds,
            self.bot_thinking.clone(),
        );
        r.register(
            "strong_bot_busy",
            "Cards the basic bot played for a strong bot, every strong bot being busy",
            self.strong_bot_busy.clone(),
        );
    }
}

/// A room counted among the open ones, and its game among those played,
/// until it is dropped, however its task ends.
#[derive(Debug)]
pub(crate) struct Counted {
    metrics: Arc<RoomMetrics>,
    game: bool,
}

impl Counted {
    pub(crate) fn new(metrics: Arc<RoomMetrics>) -> Counted {
        metrics.rooms.inc();
        Counted { metrics, game: false }
    }

    /// Counts the game as played while `playing`.
    pub(crate) fn set_playing(&mut self, playing: bool) {
        if playing != self.game {
            if playing {
                self.metrics.games.inc();
            } else {
                self.metrics.games.dec();
            }
            self.game = playing;
        }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.set_playing(false);
        self.metrics.rooms.dec();
    }
}
