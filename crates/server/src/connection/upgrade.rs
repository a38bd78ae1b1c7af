//! The WebSocket's door: the upgrade, admitted against the server's caps,
//! and the connection's task, whose log lines name its client.

use std::net::SocketAddr;

use axum::extract::rejection::ExtensionRejection;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::{ConnectInfo, State, WebSocketUpgrade};
use axum::response::{IntoResponse, Response};
use spades_protocol::ws::HARD_FRAME_LIMIT;

use crate::{AppState, api};

/// Bytes the WebSocket layer reads at a time for a connection. Small, because
/// client messages are small and this buffer is allocated per connection
/// (a larger frame grows it as needed).
const READ_BUFFER: usize = 512;

/// Bytes of outgoing frames gathered before a write. Frames queued together
/// are written with one system call at the next flush; the buffer keeps its
/// size once grown, so it is kept small.
const WRITE_BUFFER: usize = 4 * 1024;

/// Answers `GET /ws`: a WebSocket upgrade, if the server admits it.
pub(crate) async fn upgrade(
    State(state): State<AppState>,
    peer: Result<ConnectInfo<SocketAddr>, ExtensionRejection>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let upgrade = match upgrade {
        Ok(upgrade) => upgrade,
        Err(rejection) => {
            return api::ApiError::new(
                rejection.status(),
                "not_a_websocket",
                "this address takes WebSocket connections only (see protocol.md)",
            )
            .into_response();
        }
    };
    let address = peer.ok().map(|ConnectInfo(address)| address.ip());
    let slot = match state.admit(address) {
        Ok(slot) => slot,
        Err(refusal) => return refusal.answer(),
    };
    let tracker = state.tracker().clone();
    // Every line the connection logs names its client: behind a trusted
    // proxy, the real one the listener read from the forwarding headers.
    let client = address.map_or_else(|| "unknown".to_string(), |address| address.to_string());
    let span = tracing::info_span!("connection", %client);
    upgrade
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(WRITE_BUFFER)
        .max_message_size(HARD_FRAME_LIMIT)
        .max_frame_size(HARD_FRAME_LIMIT)
        .on_upgrade(move |socket| {
            // The connection holds its place until it ends.
            tracker.track_future(tracing::Instrument::instrument(
                super::serve(socket, state, slot),
                span,
            ))
        })
}
