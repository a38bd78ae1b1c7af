//! What the server counts for its operators, served at `/metrics` in the
//! OpenMetrics text format, which Prometheus reads.
//!
//! Each server has its own registry rather than a process-wide one, so that
//! servers started side by side in one process (as the tests do) count
//! apart. Counters and histograms are updated where things happen; values
//! that the server keeps anyway (connections, the store's pool, sockets
//! the listener closed) are read when `/metrics` is asked for.
//!
//! Updates are single atomic operations. Those on a path taken for every
//! message (frames in and out) are added up per batch by the caller, not
//! one by one.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Registry, Unit};
use spades_protocol::ws::ErrorCode;
use spades_room::RoomMetrics;

use crate::lateness::LatenessMetrics;
use crate::listener::SocketsClosed;

use spades_room::metrics::Label;

/// The journal's figures, which its task updates.
#[derive(Clone, Debug)]
pub struct JournalMetrics {
    /// Writes stored, and the transactions that stored them.
    pub writes: Counter,
    pub transactions: Counter,
    /// How long a room waited for its writes to be stored.
    pub commit_wait: Histogram,
    /// How many writes each transaction stored.
    pub batch: Histogram,
}

impl Default for JournalMetrics {
    fn default() -> JournalMetrics {
        JournalMetrics {
            writes: Counter::default(),
            transactions: Counter::default(),
            commit_wait: Histogram::new(exponential_buckets(50e-6, 2.0, 16)),
            batch: Histogram::new(exponential_buckets(1.0, 2.0, 12)),
        }
    }
}

impl spades_store::JournalObserver for JournalMetrics {
    fn commit_waited(&self, wait: Duration) {
        self.commit_wait.observe(wait.as_secs_f64());
    }

    fn batch_stored(&self, writes: usize) {
        self.writes.inc_by(writes as u64);
        self.transactions.inc();
        self.batch.observe(writes as f64);
    }
}

/// Everything `/metrics` shows.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    /// WebSocket upgrades refused, by `reason`.
    pub refused: Family<Label, Counter>,
    /// Connections that had not said `hello`, closed to make room for an
    /// upgrade that found the server full.
    pub connections_evicted: Counter,
    /// The rooms' figures, the errors sent among them.
    pub room: Arc<RoomMetrics>,
    /// Text frames read from clients and messages written to them.
    pub messages_in: Counter,
    pub messages_out: Counter,
    /// Tournaments being played, as the runner last counted them (it
    /// looks every second).
    pub tournaments: Gauge,
    /// The runtime's stalls (see `lateness.rs`).
    pub lateness: LatenessMetrics,
    /// Read at each scrape.
    connections: Gauge,
    connections_max: Gauge,
    degraded: Gauge,
    pool_size: Gauge,
    pool_idle: Gauge,
}

/// What the server keeps anyway and `/metrics` reads at each scrape.
#[derive(Clone, Copy, Debug)]
pub struct Readings {
    pub connections: usize,
    pub connections_max: usize,
    pub degraded: bool,
    pub pool_size: u32,
    pub pool_idle: usize,
}

impl Metrics {
    pub fn new(journal: &JournalMetrics, sockets_closed: Arc<SocketsClosed>) -> Metrics {
        let mut metrics = Metrics {
            registry: Registry::with_prefix("spades"),
            refused: Family::default(),
            connections_evicted: Counter::default(),
            room: Arc::new(RoomMetrics::default()),
            messages_in: Counter::default(),
            messages_out: Counter::default(),
            tournaments: Gauge::default(),
            lateness: LatenessMetrics::default(),
            connections: Gauge::default(),
            connections_max: Gauge::default(),
            degraded: Gauge::default(),
            pool_size: Gauge::default(),
            pool_idle: Gauge::default(),
        };
        // Every reason is shown from the start, at zero, so that a
        // dashboard's rate has a series before the first one (the rooms'
        // figures do the same for the error codes).
        for reason in ["full", "per_address", "shutting_down"] {
            drop(metrics.refused.get_or_create(&[("reason", reason)]));
        }
        metrics.register_connections(sockets_closed);
        metrics.room.register(&mut metrics.registry);
        metrics.register_messages();
        metrics.register_tournaments();
        metrics.register_store(journal);
        metrics.register_runtime();
        metrics
    }

    /// The connections: open, refused, evicted and closed.
    fn register_connections(&mut self, sockets_closed: Arc<SocketsClosed>) {
        let r = &mut self.registry;
        r.register(
            "connections",
            "WebSocket connections open",
            self.connections.clone(),
        );
        r.register(
            "connections_max",
            "WebSocket connections the server admits at most",
            self.connections_max.clone(),
        );
        r.register(
            "connections_refused",
            "WebSocket upgrades refused, by reason (full, per_address, shutting_down)",
            self.refused.clone(),
        );
        r.register(
            "connections_evicted",
            "WebSocket connections closed before their hello to make room for an upgrade",
            self.connections_evicted.clone(),
        );
        r.register_collector(Box::new(ClosedSockets(sockets_closed)));
        r.register(
            "degraded",
            "1 while the store is unavailable and game writes are held",
            self.degraded.clone(),
        );
    }

    /// What clients sent and were sent.
    fn register_messages(&mut self) {
        let r = &mut self.registry;
        r.register(
            "messages_in",
            "Text frames read from clients",
            self.messages_in.clone(),
        );
        r.register(
            "messages_out",
            "Messages written to clients",
            self.messages_out.clone(),
        );
    }

    /// The tournaments.
    fn register_tournaments(&mut self) {
        let r = &mut self.registry;
        r.register(
            "tournaments_running",
            "Tournaments being played",
            self.tournaments.clone(),
        );
    }

    /// The runtime's stalls.
    fn register_runtime(&mut self) {
        let r = &mut self.registry;
        r.register(
            "runtime_stalls",
            "Times the server's runtime woke a timer 50 ms or more late: every table waited",
            self.lateness.stalls.clone(),
        );
        r.register_with_unit(
            "runtime_stalled",
            "How late the runtime woke its timer at those times, in all",
            Unit::Seconds,
            self.lateness.stalled_seconds.clone(),
        );
    }

    /// The journal and the store's pool.
    fn register_store(&mut self, journal: &JournalMetrics) {
        let r = &mut self.registry;
        r.register("journal_writes", "Game writes stored", journal.writes.clone());
        r.register(
            "journal_transactions",
            "Transactions that stored game writes",
            journal.transactions.clone(),
        );
        r.register_with_unit(
            "journal_commit_wait",
            "How long a room waited for its writes to be stored",
            Unit::Seconds,
            journal.commit_wait.clone(),
        );
        r.register(
            "journal_batch_writes",
            "Game writes stored per transaction",
            journal.batch.clone(),
        );
        r.register(
            "store_pool_connections",
            "Connections the store's pool holds",
            self.pool_size.clone(),
        );
        r.register(
            "store_pool_idle",
            "Connections of the store's pool not in use",
            self.pool_idle.clone(),
        );
    }

    /// Counts an error message sent to a client.
    pub fn error_sent(&self, code: ErrorCode) {
        self.room.error_sent(code);
    }

    /// Counts a refused WebSocket upgrade.
    pub fn refused(&self, reason: &'static str) {
        self.refused.get_or_create(&[("reason", reason)]).inc();
    }

    /// The text of `/metrics`, with the readings taken now.
    pub fn encode(&self, readings: Readings) -> String {
        self.connections.set(readings.connections as i64);
        self.connections_max.set(readings.connections_max as i64);
        self.degraded.set(i64::from(readings.degraded));
        self.pool_size.set(i64::from(readings.pool_size));
        self.pool_idle.set(readings.pool_idle as i64);
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry)
            .expect("writing to a String cannot fail");
        text
    }
}

/// The sockets the listener closed unserved, read from its counters.
#[derive(Debug)]
struct ClosedSockets(Arc<SocketsClosed>);

impl Collector for ClosedSockets {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let counter = ConstCounter::new(0u64);
        let mut family = encoder.encode_descriptor(
            "sockets_closed",
            "Sockets closed without being served, by reason (per_address, evicted)",
            None,
            counter.metric_type(),
        )?;
        for (reason, count) in [("per_address", &self.0.per_address), ("evicted", &self.0.evicted)] {
            let labels = [("reason", reason)];
            ConstCounter::new(count.load(Ordering::Relaxed)).encode(family.encode_family(&labels)?)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str, name: &str) -> Option<f64> {
        text.lines()
            .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
    }

    #[test]
    fn the_text_names_every_figure_with_its_value() {
        let journal = JournalMetrics::default();
        let closed = Arc::new(SocketsClosed::default());
        closed.evicted.fetch_add(3, Ordering::Relaxed);
        let metrics = Metrics::new(&journal, closed);
        spades_store::JournalObserver::batch_stored(&journal, 4);
        spades_store::JournalObserver::commit_waited(&journal, Duration::from_micros(300));
        metrics.error_sent(ErrorCode::NotYourTurn);
        metrics.error_sent(ErrorCode::NotYourTurn);
        metrics.refused("full");
        metrics.room.rooms.inc();
        metrics.room.actions.inc_by(7);
        metrics.room.action_time.observe(0.002);
        metrics.lateness.stalls.inc();
        metrics.lateness.stalled_seconds.inc_by(0.064);
        let text = metrics.encode(Readings {
            connections: 5,
            connections_max: 100,
            degraded: true,
            pool_size: 3,
            pool_idle: 2,
        });
        println!("{text}");
        for (name, expected) in [
            ("spades_connections", 5.0),
            ("spades_connections_max", 100.0),
            ("spades_degraded", 1.0),
            ("spades_store_pool_connections", 3.0),
            ("spades_store_pool_idle", 2.0),
            ("spades_rooms", 1.0),
            ("spades_games", 0.0),
            ("spades_actions_total", 7.0),
            ("spades_action_seconds_count", 1.0),
            ("spades_action_seconds_sum", 0.002),
            ("spades_errors_total{code=\"not_your_turn\"}", 2.0),
            ("spades_connections_refused_total{reason=\"full\"}", 1.0),
            ("spades_sockets_closed_total{reason=\"evicted\"}", 3.0),
            ("spades_sockets_closed_total{reason=\"per_address\"}", 0.0),
            ("spades_journal_writes_total", 4.0),
            ("spades_journal_transactions_total", 1.0),
            ("spades_journal_batch_writes_count", 1.0),
            ("spades_journal_batch_writes_sum", 4.0),
            ("spades_journal_commit_wait_seconds_count", 1.0),
            ("spades_runtime_stalls_total", 1.0),
            ("spades_runtime_stalled_seconds_total", 0.064),
        ] {
            assert_eq!(value(&text, name), Some(expected), "{name} in\n{text}");
        }
        assert!(text.ends_with("# EOF\n"), "an OpenMetrics document ends so");
    }
}
