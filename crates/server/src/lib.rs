//! The gateway: an axum server with health endpoints, the HTTP API and the
//! WebSocket, the lobby actor, one actor task per room, and the journal
//! that stores every game.
//!
//! [`app`] builds the router from an [`AppState`]; [`Server`] opens the
//! store, resumes unfinished games, binds the router to an address and runs
//! it until it is shut down. Tests start a `Server` on port 0 and talk to it
//! like any client.

mod admission;
mod api;
mod config;
mod connection;
mod identity;
mod lateness;
mod listener;
mod metrics;
mod moderation;
mod reviews;
mod sessions;
mod web;

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use spades_protocol::schema;
use spades_store::Store;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use api::{PASSWORD_LENGTH, RESET_LINK_LIFE, hash_password};
pub use config::{Config, PasswordCost};
pub use identity::{new_secret, token_hash};
pub use listener::TrustedProxies;
use listener::{CappedListener, PerAddress, SocketCaps, SocketsClosed};
use metrics::{JournalMetrics, Metrics, Readings};
use spades_lobby::Online;
use spades_lobby::tournament::{self, TournamentHandle};
use spades_lobby::{self as lobby, LobbyHandle};
pub use spades_room::BotDelay;
use spades_room::lifecycle::Lifecycle;
use spades_store::{Journal, JournalTask};

/// What every request handler and connection shares.
#[derive(Clone, Debug)]
pub struct AppState {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    config: Arc<Config>,
    store: Store,
    journal: Journal,
    lifecycle: Arc<Lifecycle>,
    online: Arc<Online>,
    known_sessions: sessions::KnownSessions,
    lobby: LobbyHandle,
    tournaments: TournamentHandle,
    /// Mutes, masked words and maintenance, which the rooms enforce.
    policy: Arc<spades_room::Policy>,
    login_limiter: api::LoginLimiter,
    passwords: api::Passwords,
    /// Games waiting for the expert's review.
    reviews: reviews::Reviews,
    /// The web client's files.
    web: Arc<web::Assets>,
    connections: AtomicUsize,
    /// WebSocket connections held by each client address.
    connections_per_address: Arc<PerAddress>,
    /// WebSocket connections that have not said `hello` yet.
    strangers: Arc<admission::Strangers>,
    /// Sockets the listener closed without serving them.
    sockets_closed: Arc<SocketsClosed>,
    metrics: Arc<Metrics>,
    /// The cluster this server is a node of, if any.
    cluster: Option<spades_cluster::Cluster>,
    network: Arc<dyn lobby::Network>,
    next_connection: AtomicU64,
    /// Cancelled to close every connection.
    shutdown: CancellationToken,
    tracker: TaskTracker,
}

impl AppState {
    /// Builds the state and starts the lobby. Must be called inside a Tokio
    /// runtime.
    pub fn new(
        config: Config,
        store: Store,
        journal: Journal,
        journal_metrics: &JournalMetrics,
        cluster: Option<spades_cluster::Cluster>,
    ) -> AppState {
        // The one place that chooses the routes: a cluster's, or this
        // server's alone.
        let network: Arc<dyn lobby::Network> = match &cluster {
            Some(cluster) => Arc::new(cluster.clone()),
            None => Arc::new(lobby::Alone),
        };
        let config = Arc::new(config);
        let lifecycle = Arc::new(Lifecycle::default());
        let login_limiter = api::LoginLimiter::new(
            config.login_failures_per_account,
            config.login_failures_per_address,
            config.login_window,
        );
        let passwords = api::Passwords::start(config.password_cost);
        let reviews = reviews::Reviews::start(store.clone());
        let web = Arc::new(web::Assets::load());
        let (files, plain, gzipped) = web.sizes();
        tracing::debug!(files, plain, gzipped, "the web client's files are ready");
        let online = Arc::new(Online::default());
        let sockets_closed = Arc::new(SocketsClosed::default());
        let metrics = Arc::new(Metrics::new(journal_metrics, sockets_closed.clone()));
        let (table_notes, table_rx) = tokio::sync::mpsc::unbounded_channel();
        let policy = Arc::new(spades_room::Policy::with_words(
            config.chat_words.iter().map(String::as_str),
        ));
        let lobby = lobby::spawn(
            config.lobby(policy.clone()),
            store.clone(),
            journal.clone(),
            lifecycle.clone(),
            table_notes,
            metrics.room.clone(),
            network.clone(),
        );
        let tournaments = tournament::spawn(
            store.clone(),
            lobby.clone(),
            online.clone(),
            lifecycle.clone(),
            table_rx,
            metrics.tournaments.clone(),
            network.clone(),
        );
        AppState {
            shared: Arc::new(Shared {
                lobby,
                tournaments,
                policy,
                connections_per_address: PerAddress::new(config.max_connections_per_address),
                strangers: Arc::default(),
                config,
                store,
                journal,
                lifecycle,
                online,
                known_sessions: sessions::KnownSessions::default(),
                login_limiter,
                passwords,
                reviews,
                web,
                connections: AtomicUsize::new(0),
                metrics,
                sockets_closed,
                cluster,
                network,
                next_connection: AtomicU64::new(1),
                shutdown: CancellationToken::new(),
                tracker: TaskTracker::new(),
            }),
        }
    }

    pub fn config(&self) -> &Config {
        &self.shared.config
    }

    fn store(&self) -> &Store {
        &self.shared.store
    }

    fn known_sessions(&self) -> &sessions::KnownSessions {
        &self.shared.known_sessions
    }

    fn metrics(&self) -> &Metrics {
        &self.shared.metrics
    }

    fn cluster(&self) -> Option<&spades_cluster::Cluster> {
        self.shared.cluster.as_ref()
    }

    /// Where what a player reaches runs (see `spades_lobby::Network`).
    fn network(&self) -> &dyn lobby::Network {
        &*self.shared.network
    }

    fn online(&self) -> &Online {
        &self.shared.online
    }

    fn lobby(&self) -> &LobbyHandle {
        &self.shared.lobby
    }

    fn tournaments(&self) -> &TournamentHandle {
        &self.shared.tournaments
    }

    fn login_limiter(&self) -> &api::LoginLimiter {
        &self.shared.login_limiter
    }

    fn web_assets(&self) -> Arc<web::Assets> {
        self.shared.web.clone()
    }

    fn passwords(&self) -> &api::Passwords {
        &self.shared.passwords
    }

    fn reviews(&self) -> &reviews::Reviews {
        &self.shared.reviews
    }

    fn next_connection_id(&self) -> u64 {
        self.shared.next_connection.fetch_add(1, Ordering::Relaxed)
    }

    fn shutdown_token(&self) -> CancellationToken {
        self.shared.shutdown.clone()
    }

    /// The tasks the server waits for when it stops: its connections.
    fn tracker(&self) -> &TaskTracker {
        &self.shared.tracker
    }

    /// Open WebSocket connections.
    pub fn connections(&self) -> usize {
        self.shared.connections.load(Ordering::Relaxed)
    }

    pub fn is_shutting_down(&self) -> bool {
        self.shared.lifecycle.is_draining()
    }

    /// True while the store is failing and writes are held in memory.
    pub fn is_degraded(&self) -> bool {
        self.shared.journal.is_degraded()
    }
}

/// The HTTP routes: `/healthz`, `/readyz`, the API under `/api`, the
/// WebSocket at `/ws`, and the web client at `/` (see `web.rs`).
///
/// A request gets `Config::http_timeout` to be answered, its body included,
/// so that a client that stops sending half way does not hold its socket
/// and its handler for good. The WebSocket's handler answers at once; the
/// connection it hands over is not a request and has no such limit.
pub fn app(state: AppState) -> Router {
    let timeout = state.config().http_timeout();
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .route("/api/schema/client-messages.json", get(client_schema))
        .route("/api/schema/server-messages.json", get(server_schema))
        .route("/api/openapi.json", get(api::openapi::document))
        .route("/ws", get(connection::upgrade))
        .merge(api::routes())
        .merge(api::tournament_routes())
        .merge(web::routes(state.web_assets()))
        // Unknown paths and methods are answered like the API's other
        // errors, in JSON, rather than with axum's empty bodies.
        .fallback(api::no_route)
        .method_not_allowed_fallback(api::wrong_method)
        .layer(axum::middleware::from_fn_with_state(timeout, answer_in_time))
        .with_state(state)
}

/// Answers a request within `limit`, its body included, or with `408` in
/// the API's error shape: a client that stops sending half way must not
/// hold its socket and its handler for good.
async fn answer_in_time(State(limit): State<Duration>, request: Request, next: Next) -> Response {
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => api::ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            "request_timeout",
            "the request was not sent and answered in time",
        )
        .into_response(),
    }
}

/// The JSON Schema of every message a client may send.
#[utoipa::path(
    get,
    path = "/api/schema/client-messages.json",
    tag = "schemas",
    responses((status = 200, description = "A JSON Schema (draft 2020-12), as in `docs/schema/`",
        body = Object, content_type = "application/schema+json")),
)]
async fn client_schema() -> Response {
    static TEXT: LazyLock<String> = LazyLock::new(|| schema::to_file_text(&schema::client_messages()));
    schema_answer(&TEXT)
}

/// The JSON Schema of every message the server may send.
#[utoipa::path(
    get,
    path = "/api/schema/server-messages.json",
    tag = "schemas",
    responses((status = 200, description = "A JSON Schema (draft 2020-12), as in `docs/schema/`",
        body = Object, content_type = "application/schema+json")),
)]
async fn server_schema() -> Response {
    static TEXT: LazyLock<String> = LazyLock::new(|| schema::to_file_text(&schema::server_messages()));
    schema_answer(&TEXT)
}

fn schema_answer(text: &'static str) -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "application/schema+json")],
        text,
    )
        .into_response()
}

/// The process is up.
#[utoipa::path(
    get,
    path = "/healthz",
    tag = "operations",
    responses((status = 200, description = "`ok`", body = String, content_type = "text/plain")),
)]
async fn healthz() -> &'static str {
    "ok\n"
}

/// The server takes new players and new games: it is not shutting down, has
/// room for more connections, and its store works.
#[utoipa::path(
    get,
    path = "/readyz",
    tag = "operations",
    responses(
        (status = 200, description = "`ready`", body = String, content_type = "text/plain"),
        (status = 503, description = "`shutting down`, `degraded: ...` (the store is away) or `full`",
            body = String, content_type = "text/plain"),
    ),
)]
async fn readyz(State(state): State<AppState>) -> Response {
    if state.is_shutting_down() {
        (StatusCode::SERVICE_UNAVAILABLE, "shutting down\n").into_response()
    } else if state.is_degraded() {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            "degraded: storage unavailable, games go on but none start\n",
        )
            .into_response()
    } else if state.connections() >= state.config().max_connections {
        (StatusCode::SERVICE_UNAVAILABLE, "full\n").into_response()
    } else {
        "ready\n".into_response()
    }
}

/// The server's figures for operators (see `metrics.rs` and the README).
#[utoipa::path(
    get,
    path = "/metrics",
    tag = "operations",
    responses((status = 200, description = "The figures in the OpenMetrics text format", body = String,
        content_type = "application/openmetrics-text; version=1.0.0; charset=utf-8")),
)]
async fn metrics(State(state): State<AppState>) -> Response {
    let pool = state.store().pool_status();
    let text = state.shared.metrics.encode(Readings {
        connections: state.connections(),
        connections_max: state.config().max_connections,
        degraded: state.is_degraded(),
        pool_size: pool.size,
        pool_idle: pool.idle,
    });
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        text,
    )
        .into_response()
}

/// A running server.
#[derive(Debug)]
pub struct Server {
    address: SocketAddr,
    state: AppState,
    serving: tokio::task::JoinHandle<io::Result<()>>,
    journal: JournalTask,
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("invalid settings: {0}")]
    Config(String),
    #[error("store: {0}")]
    Store(#[from] spades_store::StoreError),
    #[error("cannot listen: {0}")]
    Listen(#[from] io::Error),
    #[error("cluster: {0}")]
    Cluster(String),
}

/// What a node's cluster tasks need of the server it is part of.
fn cluster_parts(state: &AppState) -> spades_cluster::Parts {
    let load_state = state.clone();
    let login_state = state.clone();
    let moderation_state = state.clone();
    spades_cluster::Parts {
        store: state.store().clone(),
        lobby: state.lobby().clone(),
        tournaments: state.tournaments().clone(),
        online: state.shared.online.clone(),
        outbox_capacity: state.config().outbox_capacity,
        lifecycle: state.shared.lifecycle.clone(),
        login_heard: Arc::new(move |attempt| login_state.login_limiter().heard(attempt)),
        moderation_heard: Arc::new(move |event| moderation_state.act_on(event)),
        lobby_notes: state.lobby().notes(),
        load: Arc::new(move || spades_cluster::Load {
            connections: load_state.connections(),
            rooms: usize::try_from(load_state.metrics().room.rooms.get()).unwrap_or(0),
        }),
        stop: state.shutdown_token(),
    }
}

impl Server {
    /// Opens and migrates the store, resumes the games that were being
    /// played when the server last stopped, binds `address` (port 0 picks a
    /// free port) and starts serving.
    pub async fn start(mut config: Config, address: SocketAddr) -> Result<Server, StartError> {
        config.validate().map_err(StartError::Config)?;
        let store = Store::open(&config.database_url).await?;
        store.migrate().await?;
        let journal_metrics = JournalMetrics::default();
        let (journal, journal_task) = store.start_journal(Arc::new(journal_metrics.clone()));
        let cluster = match &config.nats_url {
            Some(url) => Some(
                spades_cluster::Cluster::join(url, config.node.as_deref())
                    .await
                    .map_err(|error| StartError::Cluster(error.to_string()))?,
            ),
            None => None,
        };
        if let Some(cluster) = &cluster {
            // Rooms and connections tell clients the node's name, which the
            // cluster picks when none was given.
            config.node = Some(cluster.node().to_string());
        }
        let state = AppState::new(config, store, journal, &journal_metrics, cluster);
        moderation::load_policy(state.store(), state.policy()).await?;
        tokio::spawn(moderation::refresh_policy(state.clone(), state.shutdown_token()));
        tokio::spawn(lateness::watch(
            state.metrics().lateness.clone(),
            state.shutdown_token(),
        ));
        if let Some(cluster) = state.cluster() {
            cluster
                .start(cluster_parts(&state))
                .await
                .map_err(|error| StartError::Cluster(error.to_string()))?;
        }
        let resumed = lobby::resume_games(state.store(), state.lobby(), state.network()).await?;
        if resumed > 0 {
            tracing::info!(games = resumed, "resumed the games that were being played");
        }
        if let Some(cluster) = state.cluster() {
            cluster.resumed();
        }

        let listener = TcpListener::bind(address).await?;
        let address = listener.local_addr()?;
        let shutdown = state.shutdown_token();
        let listener = CappedListener::new(
            listener,
            SocketCaps {
                sockets: state.config().max_sockets,
                per_address: state.config().max_sockets_per_address,
            },
            state.config().http_timeout(),
            state.shared.sockets_closed.clone(),
        )
        .with_proxies(state.config().trusted_proxies.clone());
        let serving = tokio::spawn(listener::serve(
            listener,
            app(state.clone()),
            state.config().http_timeout(),
            shutdown,
        ));
        Ok(Server {
            address,
            state,
            serving,
            journal: journal_task,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.address
    }

    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Serves until `signal` completes, then shuts down.
    pub async fn run_until(self, signal: impl Future<Output = ()>) -> io::Result<()> {
        signal.await;
        self.shutdown().await
    }

    /// Drains and stops: no new game starts, every client is told and
    /// disconnected (status 1001), rooms stop where they are, and the
    /// journal stores what it has before the server returns.
    pub async fn shutdown(self) -> io::Result<()> {
        let shared = &self.state.shared;
        shared.lifecycle.start_draining();
        shared.shutdown.cancel();
        let tracker = &shared.tracker;
        tracker.close();
        if tokio::time::timeout(Duration::from_secs(5), tracker.wait())
            .await
            .is_err()
        {
            tracing::warn!(
                open = tracker.len(),
                "connections still open after 5 s; stopping anyway"
            );
        }
        shared.lifecycle.stop_rooms();
        // Everything the rooms gave the journal before stopping is stored.
        shared.journal.flush().await;
        // Only then may the other nodes of a cluster take the rooms over,
        // from what is stored.
        if let Some(cluster) = &shared.cluster {
            cluster.leave().await;
        }
        if shared.journal.is_degraded() {
            tracing::error!("stopping while the store is unavailable: held game writes are lost");
        }
        self.journal.close().await;
        let serving = self.serving.await;
        match serving {
            Ok(result) => result,
            Err(error) => Err(io::Error::other(error)),
        }
    }
}
