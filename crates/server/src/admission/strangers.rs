//! The WebSocket connections that have not said `hello` yet: those the
//! server closes to make room when it is full and a newcomer asks in.
//!
//! A connection that has upgraded but not said who it is costs the server
//! a place under its cap and gives nobody anything. Such connections are
//! already closed after the hello timeout, but a crowd that opens them
//! again as fast as they close would keep the server full, and every
//! player who came meanwhile would be refused `server_full`. So when an
//! upgrade finds the server full, it closes one of them and takes its
//! place. The one closed is the oldest of the address that holds the most
//! of them: a crowd from a few addresses pays for itself, and a player
//! whose `hello` is on its way, usually alone from his address and only a
//! few milliseconds old, is the last to go.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio_util::sync::{CancellationToken, WaitForCancellationFuture};

use crate::listener::AddressKey;

/// The connections that have not said `hello` yet, by client address and
/// age.
#[derive(Debug, Default)]
pub struct Strangers {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Numbers connections in the order they were admitted.
    next: u64,
    /// Each address's connections, oldest first, with the token that
    /// tells each to close. An address is forgotten when it holds none, so
    /// the map is never larger than the connections on it. Connections
    /// without a known address share the key `None`.
    by_address: HashMap<Option<AddressKey>, BTreeMap<u64, CancellationToken>>,
}

impl Strangers {
    fn state(&self) -> MutexGuard<'_, State> {
        // Every change is made whole under the lock before anything can
        // panic, so a poisoned lock holds nothing half done.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Puts a connection just admitted from `address` on the list.
    pub fn enter(self: &Arc<Self>, address: Option<IpAddr>) -> Stranger {
        let key = address.map(AddressKey::of);
        let evict = CancellationToken::new();
        let mut state = self.state();
        let id = state.next;
        state.next += 1;
        state.by_address.entry(key).or_default().insert(id, evict.clone());
        Stranger {
            list: self.clone(),
            key,
            id,
            evict,
        }
    }

    /// Tells one connection that has not said `hello` to close, and takes
    /// it off the list: the oldest of the address that holds the most,
    /// the older oldest among addresses that hold as many. False when
    /// every connection has said `hello`.
    ///
    /// It looks at every address on the list, which happens only when the
    /// server is full and holds a few thousand addresses at the most.
    pub fn evict(&self) -> bool {
        let mut state = self.state();
        let chosen = state
            .by_address
            .iter()
            .filter_map(|(key, held)| {
                let (&oldest, _) = held.first_key_value()?;
                Some(((held.len(), std::cmp::Reverse(oldest)), *key))
            })
            .max_by_key(|&(rank, _)| rank)
            .map(|(_, key)| key);
        let Some(key) = chosen else {
            return false;
        };
        let held = state.by_address.get_mut(&key).expect("chosen from the map");
        let (_, evict) = held.pop_first().expect("only addresses that hold some are kept");
        if held.is_empty() {
            state.by_address.remove(&key);
        }
        // Cancelled under the lock, so that a connection leaving the list
        // learns for certain whether it was told to close (see `leave`).
        evict.cancel();
        true
    }

    /// How many connections are on the list.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.state().by_address.values().map(BTreeMap::len).sum()
    }
}

/// A connection's place on the list of those that have not said `hello`.
#[derive(Debug)]
pub struct Stranger {
    list: Arc<Strangers>,
    key: Option<AddressKey>,
    id: u64,
    /// Cancelled when the connection is to close to make room.
    evict: CancellationToken,
}

impl Stranger {
    /// Takes the connection off the list, if it is still on it. Returns
    /// whether it was told to close to make room: once off the list that
    /// can no longer change.
    pub fn leave(&self) -> Evicted {
        let mut state = self.list.state();
        if let Some(held) = state.by_address.get_mut(&self.key) {
            held.remove(&self.id);
            if held.is_empty() {
                state.by_address.remove(&self.key);
            }
        }
        // `evict` is cancelled only under the lock, and only for a
        // connection taken off the list at the same time.
        Evicted(self.evict.is_cancelled())
    }

    /// Completes when the server wants this connection closed to make
    /// room for another.
    pub fn evicted(&self) -> WaitForCancellationFuture<'_> {
        self.evict.cancelled()
    }
}

impl Drop for Stranger {
    fn drop(&mut self) {
        self.leave();
    }
}

/// Whether a connection was told to close to make room for another, which
/// then took its place under the server's cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Evicted(pub bool);

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;

    fn address(last: u8) -> Option<IpAddr> {
        Some(IpAddr::V4(Ipv4Addr::new(127, 0, 0, last)))
    }

    #[test]
    fn the_oldest_of_the_address_holding_the_most_is_closed_first() {
        let list = Arc::new(Strangers::default());
        let alone = list.enter(address(1));
        let crowd_oldest = list.enter(address(2));
        let crowd_newer = list.enter(address(2));
        let other_crowd = list.enter(address(3));
        let other_crowd_newer = list.enter(address(3));

        // Two addresses hold two each: the one whose oldest is older goes
        // first, though the lone connection is older still.
        assert!(list.evict());
        assert!(crowd_oldest.evict.is_cancelled());
        assert!(!alone.evict.is_cancelled());
        // Now the third address holds the most.
        assert!(list.evict());
        assert!(other_crowd.evict.is_cancelled());
        // One each: the oldest of all.
        assert!(list.evict());
        assert!(alone.evict.is_cancelled());
        assert!(!crowd_newer.evict.is_cancelled() && !other_crowd_newer.evict.is_cancelled());
        assert_eq!(list.len(), 2);
    }

    #[test]
    fn a_connection_that_left_the_list_is_never_closed_for_room() {
        let list = Arc::new(Strangers::default());
        let welcomed = list.enter(address(1));
        let gone = list.enter(address(1));
        assert_eq!(welcomed.leave(), Evicted(false));
        drop(gone);
        assert!(!list.evict(), "nobody is left to close");
        assert!(!welcomed.evict.is_cancelled());
        assert_eq!(list.state().by_address.len(), 0, "empty addresses are forgotten");
    }

    #[test]
    fn a_connection_told_to_close_learns_it_when_it_leaves() {
        let list = Arc::new(Strangers::default());
        let connection = list.enter(None);
        assert!(list.evict());
        assert_eq!(connection.leave(), Evicted(true));
        assert_eq!(connection.leave(), Evicted(true), "it stays told");
    }
}
