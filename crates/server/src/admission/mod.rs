//! Admission of WebSocket upgrades: the server's cap on connections, each
//! client address's cap, and the place a connection holds until it closes.
//!
//! When the server is full, an upgrade takes the place of a connection
//! that has not said `hello` yet rather than be refused (`strangers.rs`
//! says which one). A connection is safe from that once it is welcomed.

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use tokio_util::sync::WaitForCancellationFuture;

use crate::listener::AddressPlace;
use crate::{AppState, Shared, api};

mod strangers;

pub use strangers::Strangers;
use strangers::{Evicted, Stranger};

impl AppState {
    /// Counts a new connection from `address`, unless the server is
    /// stopping or the address holds as many as it may. When the server is
    /// full, a connection that has not said `hello` is told to close and
    /// this one takes its place; it is refused only when every connection
    /// has said `hello`. Without an address (a router served by something
    /// other than this crate's listener), only the server's cap applies.
    pub(crate) fn admit(&self, address: Option<IpAddr>) -> Result<ConnectionSlot, Refusal> {
        let admitted = self.try_admit(address);
        if let Err(refusal) = admitted {
            self.metrics().refused(refusal.label());
        }
        admitted
    }

    fn try_admit(&self, address: Option<IpAddr>) -> Result<ConnectionSlot, Refusal> {
        if self.is_shutting_down() {
            return Err(Refusal::ShuttingDown);
        }
        let shared = &self.shared;
        // The address's place first: giving it back when the server turns
        // out to be full can only refuse the same address meanwhile, where
        // giving back a place under the server's cap could refuse anyone.
        let place = match address {
            Some(address) => Some(
                shared
                    .connections_per_address
                    .take(address)
                    .ok_or(Refusal::PerAddress)?,
            ),
            None => None,
        };
        let max = shared.config.max_connections;
        let counted = shared
            .connections
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .is_ok();
        if !counted {
            // The connection told to close does not give its place back
            // when it ends (see `ConnectionSlot`'s drop): this one has it.
            if !shared.strangers.evict() {
                return Err(Refusal::Full);
            }
            self.metrics().connections_evicted.inc();
        }
        Ok(ConnectionSlot {
            shared: shared.clone(),
            _place: place,
            stranger: shared.strangers.enter(address),
        })
    }
}

/// Why a WebSocket upgrade was refused.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Refusal {
    ShuttingDown,
    Full,
    PerAddress,
}

impl Refusal {
    /// The `reason` label of the refusal's counter in `/metrics`.
    fn label(self) -> &'static str {
        match self {
            Refusal::ShuttingDown => "shutting_down",
            Refusal::Full => "full",
            Refusal::PerAddress => "per_address",
        }
    }

    /// The answer: `503` with the HTTP API's error body.
    pub(crate) fn answer(self) -> Response {
        let (code, message) = match self {
            Refusal::ShuttingDown => ("shutting_down", "the server is stopping"),
            Refusal::Full => (
                "server_full",
                "the server holds as many connections as it may; try again later",
            ),
            Refusal::PerAddress => (
                "too_many_connections",
                "your address holds as many connections as the server allows one address; \
                 close one to open another",
            ),
        };
        api::ApiError::new(StatusCode::SERVICE_UNAVAILABLE, code, message).into_response()
    }
}

/// One counted connection, held by its task until it ends; dropping it
/// frees the place, and the address's.
#[derive(Debug)]
pub(crate) struct ConnectionSlot {
    shared: Arc<Shared>,
    _place: Option<AddressPlace>,
    /// Its place among the connections that have not said `hello`.
    stranger: Stranger,
}

impl ConnectionSlot {
    /// The connection's player is known: it can no longer be closed to
    /// make room. False when it was told to close already, in which case
    /// it must not be welcomed.
    pub(crate) fn welcome(&self) -> bool {
        self.stranger.leave() == Evicted(false)
    }

    /// Completes when the connection is to close to make room for another
    /// (never, once it is welcomed).
    pub(crate) fn evicted(&self) -> WaitForCancellationFuture<'_> {
        self.stranger.evicted()
    }
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        // A connection closed to make room gave its place to the one that
        // asked for it, which is counted in its stead.
        if self.stranger.leave() == Evicted(false) {
            self.shared.connections.fetch_sub(1, Ordering::AcqRel);
        }
    }
}
