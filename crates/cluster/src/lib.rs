//! Several servers as one service: the nodes of a cluster share a Postgres
//! store and a NATS server with JetStream, through which they know each
//! other, find each other's rooms and pass a player's requests and a
//! room's messages between the node of the connection and the room's.
//!
//! What lives where (ARCHITECTURE.md has the overview; this list is the
//! reference):
//! - bucket `spades_nodes`: each node's heartbeat and load, written every
//!   [`HEARTBEAT`]; a node not heard from for [`NODE_TIMEOUT`] is dead;
//! - bucket `spades_rooms`: each open room's owner (the node whose task
//!   runs it) and, for a public room, its lobby summary;
//! - bucket `spades_seats`: the room where each player holds a seat;
//! - subject `spades.node.<node>.rooms`: requests for the rooms of a node,
//!   from connections on other nodes (`owner.rs`);
//! - subject `spades.node.<node>.out.<connection>`: a room's messages for
//!   a connection of another node (`relay.rs`);
//! - bucket `spades_leases`: which node keeps the quick-play queue, and
//!   which runs the tournaments;
//! - subjects `spades.node.<node>.open_tournament`, `spades.notice.<player>`
//!   and `spades.tournament.<id>`: a tournament table to open on a node, a
//!   message for a player wherever he is connected, and a tournament that
//!   changed, for its watchers on every node (`tournaments.rs`);
//! - subjects `spades.node.<node>.queue`, `.queued.<connection>` and
//!   `.open`: the queue's requests, its messages for a connection of
//!   another node, and the tables it opens there (`queue.rs`);
//! - subject `spades.hello.<player>`: a player said hello somewhere, so
//!   that his connection on any other node is replaced;
//! - subject `spades.login.<node>`: a login attempt counted or forgiven on
//!   that node, so that the login limits hold across nodes;
//! - subject `spades.moderation.<node>`: a sanction, a lifted sanction,
//!   ended sessions, a notice or maintenance decided on that node, which
//!   every node acts on (`logins.rs`).
//!
//! The rest of the server never asks whether it is in a cluster: the
//! lobby reaches rooms, the queue and the tournaments through
//! `spades_lobby::Network`, which `network.rs` implements here, and only
//! the server's assembly (`spades_server`'s `lib.rs`) chooses this crate
//! or a server alone.
//!
//! This file holds the node's handle, joining and the heartbeat;
//! `directory.rs` the rooms' and seats' registry and the takeover of a dead
//! node's rooms; `wire.rs` what travels between nodes.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_nats::jetstream::{self, kv};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use spades_lobby::tournament::TournamentHandle;
use spades_lobby::{LobbyHandle, ModerationEvent, Online, SharedAttempt};
use spades_room::lifecycle::Lifecycle;
use spades_room::outbox::{ConnectionId, Outbox};
use spades_store::Store;

mod directory;
mod logins;
mod network;
mod owner;
mod presence;
mod queue;
mod relay;
mod tournaments;
mod wire;

pub use relay::RemoteRoom;

/// How often a node writes its heartbeat.
pub const HEARTBEAT: Duration = Duration::from_secs(1);

/// How long a node may go unheard before the others take it for dead and
/// take its rooms over. A few heartbeats, so that one late write is not a
/// death.
pub const NODE_TIMEOUT: Duration = Duration::from_secs(3);

/// How long the rooms and seats buckets keep an entry that is not written
/// again: live entries are written every 30 seconds, and the markers that
/// closed rooms leave behind go after this.
pub const ENTRY_LIFE: Duration = Duration::from_secs(120);

/// How long a node goes on without writing its heartbeat before it stops
/// itself: less than [`NODE_TIMEOUT`], so that it has stopped playing its
/// rooms before another node takes them over.
pub const FENCE: Duration = Duration::from_secs(2);

/// The exit status of a node that stopped because it lost the cluster.
pub const LOST_CLUSTER_EXIT: i32 = 75;

const NODES_BUCKET: &str = "spades_nodes";
const ROOMS_BUCKET: &str = "spades_rooms";
const SEATS_BUCKET: &str = "spades_seats";
const LEASES_BUCKET: &str = "spades_leases";

/// The lease that names the node keeping the quick-play queue.
pub const QUEUE_LEASE: &str = "queue";
/// The lease that names the node running the tournaments.
pub const TOURNAMENTS_LEASE: &str = "tournaments";

/// How long the leases bucket keeps a lease its holder stopped writing; a
/// lease whose holder is gone is taken over sooner, once the holder has
/// missed [`NODE_TIMEOUT`] of heartbeats.
const LEASE_LIFE: Duration = Duration::from_secs(30);

/// Why the node could not join its cluster.
#[derive(Debug, thiserror::Error)]
pub enum JoinError {
    #[error("cannot reach NATS at {url}: {reason}")]
    Connect { url: String, reason: String },
    #[error("NATS JetStream refused the bucket {bucket}: {reason}")]
    Bucket { bucket: &'static str, reason: String },
    #[error("NATS refused a subscription: {0}")]
    Subscribe(String),
}

/// A node's handle on its cluster. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Cluster {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    node: Arc<str>,
    client: async_nats::Client,
    nodes: kv::Store,
    rooms: kv::Store,
    seats: kv::Store,
    leases: kv::Store,
    /// When each node was last heard from, by this node's clock, and the
    /// load it reported then.
    heard: Mutex<HashMap<Arc<str>, (Instant, Load)>>,
    /// Each other node's run, as its heartbeat last named it: a new one
    /// means the node started again, and its earlier run's rooms and
    /// connections are gone.
    incarnations: Mutex<HashMap<Arc<str>, uuid::Uuid>>,
    /// This run of the node, different at every start.
    incarnation: uuid::Uuid,
    /// When this node last wrote its heartbeat.
    renewed: Mutex<Instant>,
    /// Set once the node has resumed the stored games it is to play: until
    /// then, a request for a room it does not have yet may be for one it is
    /// about to open.
    resumed: std::sync::atomic::AtomicBool,
    /// When this node started watching the others: before a full
    /// [`NODE_TIMEOUT`] has passed, it cannot tell a dead node from one it
    /// has not heard yet.
    watching_since: Instant,
    /// Every open room of the cluster, as the rooms bucket says.
    directory: Mutex<HashMap<Arc<str>, directory::RoomEntry>>,
    /// This node's writes to the buckets, applied in order by one task.
    registry: mpsc::UnboundedSender<directory::Registry>,
    registry_rx: Mutex<Option<mpsc::UnboundedReceiver<directory::Registry>>>,
    /// This node's connections that are in a room of another node: where
    /// the room's messages for each go, and which node owns the room.
    relays: Mutex<HashMap<ConnectionId, (Outbox, Arc<str>)>>,
    /// This node's connections queued at another node's quick-play queue.
    queued: Mutex<HashMap<ConnectionId, (Outbox, Arc<str>)>>,
    /// The connections of other nodes queued here.
    queue_served: Mutex<HashMap<owner::ServedKey, Outbox>>,
    /// The seats this node's rooms gave, as written to the seats bucket.
    my_seats: Mutex<HashMap<Arc<str>, Arc<str>>>,
    /// The connections of other nodes in this node's rooms.
    served: Mutex<HashMap<owner::ServedKey, owner::Served>>,
    /// Cancelled once the node has stopped its rooms and left: its
    /// heartbeat and the service of its rooms' requests run until then,
    /// so that no other node takes a room over while it still runs here.
    left: CancellationToken,
    /// Numbers for the connections that rooms of this node see for
    /// players connected elsewhere; above every local connection's number.
    next_remote: AtomicU64,
}

/// What a node reports of itself in its heartbeat.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Load {
    pub connections: usize,
    pub rooms: usize,
}

/// A node's heartbeat: its load, and which run of the node writes it.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Heartbeat {
    #[serde(flatten)]
    load: Load,
    /// Absent from nodes that predate it.
    #[serde(default)]
    incarnation: Option<uuid::Uuid>,
}

impl Cluster {
    /// Connects to NATS and opens (or creates) the cluster's buckets.
    pub async fn join(url: &str, node: Option<&str>) -> Result<Cluster, JoinError> {
        let node: Arc<str> = match node {
            Some(node) => node.into(),
            None => uuid::Uuid::new_v4().simple().to_string()[..12].into(),
        };
        let client = async_nats::ConnectOptions::new()
            .name(format!("spades node {node}"))
            // Room messages are small and frequent: a larger buffer would
            // only hold more of them back when the server is slow.
            .client_capacity(65_536)
            .connect(url)
            .await
            .map_err(|error| JoinError::Connect {
                url: url.to_string(),
                reason: error.to_string(),
            })?;
        let jetstream = jetstream::new(client.clone());
        let nodes = bucket(&jetstream, NODES_BUCKET, Duration::from_secs(60)).await?;
        let rooms = bucket(&jetstream, ROOMS_BUCKET, ENTRY_LIFE).await?;
        let seats = bucket(&jetstream, SEATS_BUCKET, ENTRY_LIFE).await?;
        let leases = bucket(&jetstream, LEASES_BUCKET, LEASE_LIFE).await?;
        let (registry, registry_rx) = mpsc::unbounded_channel();
        tracing::info!(%node, "joined the cluster");
        Ok(Cluster {
            inner: Arc::new(Inner {
                node,
                client,
                nodes,
                rooms,
                seats,
                leases,
                heard: Mutex::new(HashMap::new()),
                incarnations: Mutex::new(HashMap::new()),
                incarnation: uuid::Uuid::new_v4(),
                renewed: Mutex::new(Instant::now()),
                resumed: std::sync::atomic::AtomicBool::new(false),
                watching_since: Instant::now(),
                directory: Mutex::new(HashMap::new()),
                registry,
                registry_rx: Mutex::new(Some(registry_rx)),
                relays: Mutex::new(HashMap::new()),
                served: Mutex::new(HashMap::new()),
                my_seats: Mutex::new(HashMap::new()),
                queued: Mutex::new(HashMap::new()),
                queue_served: Mutex::new(HashMap::new()),
                next_remote: AtomicU64::new(1 << 62),
                left: CancellationToken::new(),
            }),
        })
    }

    /// This node's name.
    pub fn node(&self) -> &Arc<str> {
        &self.inner.node
    }

    /// A number for the connection through which a room of this node
    /// serves a player connected to another node.
    fn remote_connection_id(&self) -> ConnectionId {
        self.inner.next_remote.fetch_add(1, Ordering::Relaxed)
    }

    /// Whether `node` is alive: this node itself, or one heard from within
    /// [`NODE_TIMEOUT`]. A node not heard from at all counts as alive
    /// until this node has watched for that long.
    pub fn is_alive(&self, node: &str) -> bool {
        if node == &*self.inner.node {
            return true;
        }
        let now = Instant::now();
        match lock(&self.inner.heard).get(node) {
            Some((heard, _)) => now.duration_since(*heard) < NODE_TIMEOUT,
            None => now.duration_since(self.inner.watching_since) < NODE_TIMEOUT,
        }
    }

    /// The live node with the fewest rooms (this one when it ties), where a
    /// new table opens. The choice counts as one room more on that node
    /// until its next heartbeat, so that tables opened in the same moment
    /// spread.
    pub fn least_loaded(&self) -> Arc<str> {
        let mut heard = lock(&self.inner.heard);
        let mine = heard
            .get(&self.inner.node)
            .map_or(usize::MAX, |(_, load)| load.rooms);
        let now = Instant::now();
        let chosen = heard
            .iter()
            .filter(|(_, (at, _))| now.duration_since(*at) < NODE_TIMEOUT)
            .map(|(node, (_, load))| (load.rooms, node))
            .filter(|(rooms, _)| *rooms < mine)
            .min()
            .map_or_else(|| self.inner.node.clone(), |(_, node)| node.clone());
        if let Some((_, load)) = heard.get_mut(&chosen) {
            load.rooms += 1;
        }
        chosen
    }

    /// Starts the node's tasks: the heartbeat, the watches on the other
    /// nodes and the rooms, the registry's writer, and the subscriptions
    /// for requests to this node's rooms, messages for its connections and
    /// players' hellos. They stop when `stop` is cancelled.
    pub async fn start(&self, parts: Parts) -> Result<(), JoinError> {
        let subscribe = |subject: String| {
            let client = self.inner.client.clone();
            async move {
                client
                    .subscribe(subject)
                    .await
                    .map_err(|error| JoinError::Subscribe(error.to_string()))
            }
        };
        let node = &self.inner.node;
        let requests = subscribe(format!("spades.node.{node}.rooms")).await?;
        let outgoing = subscribe(format!("spades.node.{node}.out.*")).await?;
        let queued = subscribe(format!("spades.node.{node}.queued.*")).await?;
        let queue = subscribe(format!("spades.node.{node}.queue")).await?;
        let tables = subscribe(format!("spades.node.{node}.open")).await?;
        let tournament_tables = subscribe(format!("spades.node.{node}.open_tournament")).await?;
        let notices = subscribe("spades.notice.*".to_string()).await?;
        let tournaments = subscribe("spades.tournament.*".to_string()).await?;
        let hellos = subscribe("spades.hello.*".to_string()).await?;
        let logins = subscribe("spades.login.*".to_string()).await?;
        let moderation = subscribe("spades.moderation.*".to_string()).await?;
        let presence = subscribe(presence::SUBJECT.to_string()).await?;
        let registry = lock(&self.inner.registry_rx).take();
        let stop = parts.stop.clone();
        // The fence counts from here: joining may have been a while ago.
        *lock(&self.inner.renewed) = Instant::now();
        tokio::spawn(
            self.clone()
                .heartbeat(parts.load.clone(), self.inner.left.clone()),
        );
        tokio::spawn(self.clone().watch_nodes(stop.clone()));
        tokio::spawn(self.clone().watch_rooms(parts.lobby_notes.clone(), stop.clone()));
        if let Some(registry) = registry {
            tokio::spawn(self.clone().write_registry(registry));
        }
        tokio::spawn(self.clone().serve_rooms(requests, parts.clone()));
        tokio::spawn(self.clone().relay_in(outgoing, stop.clone()));
        tokio::spawn(self.clone().relay_in(queued, stop.clone()));
        tokio::spawn(self.clone().serve_queue(queue, parts.clone()));
        tokio::spawn(self.clone().serve_tables(tables, parts.clone()));
        tokio::spawn(self.clone().keep_leases(parts.clone()));
        tokio::spawn(
            self.clone()
                .serve_tournament_tables(tournament_tables, parts.clone()),
        );
        tokio::spawn(self.clone().deliver_notices(notices, parts.clone()));
        tokio::spawn(self.clone().follow_tournaments(tournaments, parts.clone()));
        tokio::spawn(self.clone().replace_elsewhere(hellos, parts.clone()));
        tokio::spawn(self.clone().hear_logins(logins, parts.clone()));
        tokio::spawn(self.clone().hear_moderation(moderation, parts.clone()));
        tokio::spawn(self.clone().answer_presence(presence, parts.clone()));
        tokio::spawn(self.clone().take_over(parts));
        Ok(())
    }

    /// Writes this node's heartbeat until the node has left (see
    /// [`Cluster::leave`]).
    async fn heartbeat(self, load: Arc<dyn Fn() -> Load + Send + Sync>, stop: CancellationToken) {
        loop {
            // Checked before writing, not only after: a node that was paused
            // (a stopped process, a virtual machine being moved, a long
            // swap) wakes with its memory of the cluster out of date, and
            // the others may have taken its rooms over meanwhile. A write
            // that succeeds now would hide that.
            self.check_renewed();
            let heartbeat = Heartbeat {
                load: load(),
                incarnation: Some(self.inner.incarnation),
            };
            let body = serde_json::to_vec(&heartbeat).unwrap_or_default();
            let put = self.inner.nodes.put(&*self.inner.node, body.into());
            let written_at = Instant::now();
            match tokio::time::timeout(HEARTBEAT, put).await {
                Ok(Ok(_)) => *lock(&self.inner.renewed) = written_at,
                Ok(Err(error)) => tracing::warn!(%error, "cannot write the node's heartbeat"),
                Err(_) => tracing::warn!("the node's heartbeat was not written in time"),
            }
            self.check_renewed();
            // Sooner again after a failure, to write one before the fence.
            let wait = if lock(&self.inner.renewed).elapsed() < HEARTBEAT / 4 {
                HEARTBEAT
            } else {
                HEARTBEAT / 4
            };
            tokio::select! {
                () = stop.cancelled() => break,
                () = tokio::time::sleep(wait) => {}
            }
        }
    }

    /// Stops the process if this node has not written its heartbeat for
    /// [`FENCE`]: the others are about to take its rooms over, or already
    /// have, and it must not go on playing them beside the new owners.
    /// Every action it confirmed is stored, so stopping loses nothing a
    /// player has seen, as after any crash; the store refuses whatever it
    /// would write for a room taken over meanwhile.
    fn check_renewed(&self) {
        let since = lock(&self.inner.renewed).elapsed();
        if since >= FENCE && !self.inner.left.is_cancelled() {
            lost_cluster(&format!("this node has not renewed its heartbeat for {since:?}"));
        }
    }

    /// Whether this node's view of the cluster is up to date: it has heard
    /// its own heartbeat back within [`FENCE`]. The watch delivers entries
    /// in order, so every heartbeat written before that one has been seen
    /// too. A node that was paused or cut off wakes with old times for
    /// everyone and would take the others for dead: it decides nothing on
    /// that view.
    fn view_is_current(&self) -> bool {
        lock(&self.inner.heard)
            .get(&self.inner.node)
            .is_some_and(|(at, _)| at.elapsed() < FENCE)
    }

    /// Notes that the node has resumed the stored games it is to play.
    pub fn resumed(&self) {
        self.inner.resumed.store(true, Ordering::Relaxed);
    }

    /// Says this node is leaving, once its rooms have stopped and what
    /// they stored is written: the others take its rooms over at once,
    /// rather than after [`NODE_TIMEOUT`].
    pub async fn leave(&self) {
        self.inner.left.cancel();
        if let Err(error) = self.inner.nodes.delete(&*self.inner.node).await {
            tracing::warn!(%error, "cannot remove the node's heartbeat");
        }
        let _ = self.inner.client.flush().await;
    }

    /// Follows the other nodes' heartbeats.
    async fn watch_nodes(self, stop: CancellationToken) {
        follow(&self.inner.nodes, "nodes", &stop, |entry| {
            let node: Arc<str> = entry.key.as_str().into();
            match entry.operation {
                kv::Operation::Put => {
                    let heartbeat: Heartbeat = serde_json::from_slice(&entry.value).unwrap_or_default();
                    lock(&self.inner.heard).insert(node.clone(), (Instant::now(), heartbeat.load));
                    if node != self.inner.node
                        && let Some(incarnation) = heartbeat.incarnation
                    {
                        let before = lock(&self.inner.incarnations).insert(node.clone(), incarnation);
                        if before.is_some_and(|before| before != incarnation) {
                            self.restarted(&node);
                        }
                    }
                }
                // A node that left says so: it is dead from now on.
                kv::Operation::Delete | kv::Operation::Purge => {
                    let long_ago = Instant::now().checked_sub(NODE_TIMEOUT);
                    let at = long_ago.unwrap_or(self.inner.watching_since);
                    lock(&self.inner.heard).insert(node, (at, Load::default()));
                }
            }
        })
        .await;
    }

    /// A node started again under the same name, perhaps sooner than the
    /// others could take it for dead: its earlier run's rooms and
    /// connections are gone as if it had died. This node's connections in
    /// its rooms are closed as moved (1012), so that their clients resync
    /// with the rooms it resumes; its connections are taken out of this
    /// node's rooms; and players queued there hear that the queue moved.
    fn restarted(&self, node: &str) {
        tracing::warn!(%node, "a node of the cluster started again; its earlier run's connections are closed");
        self.owner_gone(node);
        self.connections_gone(node);
        self.queue_gone(node);
    }
}

/// Stops the process at once with [`LOST_CLUSTER_EXIT`]: this node can no
/// longer show the others it is alive, or no longer sees the cluster, so
/// rooms it holds may be played elsewhere already.
fn lost_cluster(why: &str) -> ! {
    tracing::error!("{why}; stopping at once, so that its rooms are played by one node only");
    std::process::exit(LOST_CLUSTER_EXIT);
}

/// What the cluster's tasks need of the rest of the server.
#[derive(Clone)]
pub struct Parts {
    /// The store the nodes share, from which a dead node's rooms are
    /// read back.
    pub store: Store,
    pub lobby: LobbyHandle,
    pub tournaments: TournamentHandle,
    /// The players connected to this node.
    pub online: Arc<Online>,
    /// Messages queued for a connection before it counts as too slow: the
    /// same for a connection of another node that a room here serves.
    pub outbox_capacity: usize,
    /// The server's life: requests from other nodes are refused once it
    /// drains.
    pub lifecycle: Arc<Lifecycle>,
    /// Counts another node's login attempt in this node's limits.
    pub login_heard: Arc<dyn Fn(&SharedAttempt) + Send + Sync>,
    /// Acts on another node's moderation action here.
    pub moderation_heard: Arc<dyn Fn(&ModerationEvent) + Send + Sync>,
    /// Where the lobby hears of the other nodes' rooms.
    pub lobby_notes: mpsc::UnboundedSender<spades_room::LobbyNote>,
    /// Reads this node's load for its heartbeat.
    pub load: Arc<dyn Fn() -> Load + Send + Sync>,
    pub stop: CancellationToken,
}

impl std::fmt::Debug for Parts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parts").finish_non_exhaustive()
    }
}

/// Opens a bucket, creating it if it does not exist yet. Every node asks
/// for the same settings, so whichever creates it, it is the same bucket.
///
/// The bucket's stream is made here, with the settings a key-value bucket
/// has, rather than by the client's `create_key_value`: that first reads
/// the account's limits, in a form that NATS servers before 2.10 do not
/// send.
async fn bucket(
    jetstream: &jetstream::Context,
    name: &'static str,
    max_age: Duration,
) -> Result<kv::Store, JoinError> {
    let refused = |error: &dyn std::fmt::Display| JoinError::Bucket {
        bucket: name,
        reason: error.to_string(),
    };
    if let Ok(store) = jetstream.get_key_value(name).await {
        return Ok(store);
    }
    let created = jetstream
        .get_or_create_stream(jetstream::stream::Config {
            name: format!("KV_{name}"),
            subjects: vec![format!("$KV.{name}.>")],
            max_messages_per_subject: 1,
            max_age,
            discard: jetstream::stream::DiscardPolicy::New,
            allow_rollup: true,
            deny_delete: true,
            allow_direct: true,
            storage: jetstream::stream::StorageType::File,
            num_replicas: 1,
            ..Default::default()
        })
        .await;
    created.map_err(|error| refused(&error))?;
    jetstream
        .get_key_value(name)
        .await
        .map_err(|error| refused(&error))
}

/// The next message of a subscription; `None` once `stop` is cancelled or
/// the subscription has ended.
async fn next_message(
    subscription: &mut async_nats::Subscriber,
    stop: &CancellationToken,
) -> Option<async_nats::Message> {
    use futures_util::StreamExt;
    tokio::select! {
        () = stop.cancelled() => None,
        message = subscription.next() => message,
    }
}

/// Hands every entry of a bucket to `seen`, its current ones first, then
/// each change as it comes, until `stop`.
async fn follow(bucket: &kv::Store, what: &str, stop: &CancellationToken, mut seen: impl FnMut(kv::Entry)) {
    use futures_util::StreamExt;
    let mut watch = match bucket.watch_with_history(">").await {
        Ok(watch) => watch,
        Err(error) => lost_cluster(&format!("cannot watch the cluster's {what}: {error}")),
    };
    loop {
        let entry = tokio::select! {
            () = stop.cancelled() => return,
            entry = watch.next() => entry,
        };
        let Some(Ok(entry)) = entry else {
            if stop.is_cancelled() {
                return;
            }
            // Without the watch this node's view of the cluster goes stale
            // and it would soon take live nodes for dead.
            lost_cluster(&format!("the watch on the cluster's {what} ended"));
        };
        seen(entry);
    }
}

/// Locks a map of the cluster's state. Each lock is held for one map
/// operation, so a panic elsewhere cannot have left one half changed.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
