//! The sockets that have not sent a request yet, oldest first: those the
//! listener closes when it needs a place for a client that waits.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio_util::sync::{CancellationToken, WaitForCancellationFuture};

/// The sockets that have not sent a request's headers yet, oldest first:
/// those the listener closes to make room.
#[derive(Debug, Default)]
pub(super) struct UnheardSockets {
    state: Mutex<UnheardState>,
}

#[derive(Debug, Default)]
struct UnheardState {
    next: u64,
    /// Each socket's token, cancelled to have its serving task close it,
    /// by the order they were accepted in.
    sockets: BTreeMap<u64, CancellationToken>,
}

impl UnheardSockets {
    fn state(&self) -> MutexGuard<'_, UnheardState> {
        // Each change is one insert or remove (see `PerAddress`'s `held_map`).
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Puts a socket just accepted at the end of the list.
    pub(super) fn enter(self: &Arc<Self>) -> Unheard {
        let evict = CancellationToken::new();
        let mut state = self.state();
        let id = state.next;
        state.next += 1;
        state.sockets.insert(id, evict.clone());
        Unheard {
            list: self.clone(),
            id,
            evict,
            heard: AtomicBool::new(false),
        }
    }

    /// Tells the oldest socket that has sent nothing to close; false when
    /// every socket has sent a request.
    pub(super) fn evict_oldest(&self) -> bool {
        let oldest = self.state().sockets.pop_first();
        oldest.map(|(_, evict)| evict.cancel()).is_some()
    }
}

/// A socket's place on the list of those that have sent no request. It
/// leaves the list at its first request, or when it closes.
#[derive(Debug)]
pub(super) struct Unheard {
    list: Arc<UnheardSockets>,
    id: u64,
    evict: CancellationToken,
    /// Set at the first request, so that later ones need not take the
    /// list's lock.
    heard: AtomicBool,
}

impl Unheard {
    /// Takes the socket off the list: it has sent a request.
    pub(super) fn heard(&self) {
        if !self.heard.swap(true, Ordering::Relaxed) {
            self.list.state().sockets.remove(&self.id);
        }
    }

    /// Completes when the listener wants this socket closed to make room.
    /// Once the socket is off the list, that never happens.
    pub(super) fn evicted(&self) -> WaitForCancellationFuture<'_> {
        self.evict.cancelled()
    }
}

impl Drop for Unheard {
    fn drop(&mut self) {
        self.heard();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_socket_that_sent_nothing_is_told_to_close_first() {
        let list = Arc::new(UnheardSockets::default());
        let oldest = list.enter();
        let served = list.enter();
        let newer = list.enter();
        served.heard();

        assert!(list.evict_oldest());
        assert!(oldest.evict.is_cancelled() && !newer.evict.is_cancelled());
        // The socket that sent a request is off the list, so the newer one
        // is next.
        assert!(list.evict_oldest());
        assert!(newer.evict.is_cancelled() && !served.evict.is_cancelled());
        assert!(!list.evict_oldest(), "every socket left has sent a request");
    }

    #[test]
    fn a_socket_that_closes_leaves_the_list() {
        let list = Arc::new(UnheardSockets::default());
        drop(list.enter());
        assert!(!list.evict_oldest());
    }
}
