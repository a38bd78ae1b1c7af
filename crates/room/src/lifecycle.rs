//! Whether the server is running, draining or stopping: one flag and one
//! token that the server's actors read, and only `Server::shutdown` sets.

use std::sync::atomic::{AtomicBool, Ordering};

use tokio_util::sync::CancellationToken;

/// What the server is doing as a whole, shared with every room.
#[derive(Debug, Default)]
pub struct Lifecycle {
    /// Set when the server starts to stop: no new room, no new game.
    draining: AtomicBool,
    /// Cancelled when rooms must stop where they are (their games stay
    /// unfinished in the store and resume at the next start).
    stop: CancellationToken,
}

impl Lifecycle {
    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::Relaxed)
    }

    pub fn stopped(&self) -> CancellationToken {
        self.stop.clone()
    }

    /// From now on, no new room and no new game.
    pub fn start_draining(&self) {
        self.draining.store(true, Ordering::Relaxed);
    }

    /// Rooms stop where they are.
    pub fn stop_rooms(&self) {
        self.stop.cancel();
    }
}
