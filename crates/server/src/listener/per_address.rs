//! Client addresses and the places each holds under a per-address cap.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex, MutexGuard};

/// The part of a client's address that per-address caps count by: an IPv4
/// address, or the /64 prefix of an IPv6 one, since an IPv6 host (a home
/// network behind its router, a rented server) is usually given a whole
/// /64 and may use any address in it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) struct AddressKey(IpAddr);

impl AddressKey {
    pub(crate) fn of(address: IpAddr) -> AddressKey {
        // A dual-stack listener sees IPv4 clients as IPv4-mapped IPv6
        // addresses, which all share one /64: they count as the IPv4
        // addresses they are.
        match address.to_canonical() {
            IpAddr::V6(v6) => {
                let prefix = u128::from(v6) & !u128::from(u64::MAX);
                AddressKey(IpAddr::V6(Ipv6Addr::from(prefix)))
            }
            v4 => AddressKey(v4),
        }
    }
}

/// How many places (sockets, connections) each client address holds, with
/// a cap on each.
///
/// An address is forgotten when it holds nothing, so the map is never
/// larger than the number of places held.
#[derive(Debug)]
pub struct PerAddress {
    cap: usize,
    held: Mutex<HashMap<AddressKey, usize>>,
}

impl PerAddress {
    /// Allows `cap` places per address; `usize::MAX` is no cap.
    pub fn new(cap: usize) -> Arc<PerAddress> {
        Arc::new(PerAddress {
            cap,
            held: Mutex::default(),
        })
    }

    fn held_map(&self) -> MutexGuard<'_, HashMap<AddressKey, usize>> {
        // Each change is one insert or remove, so a panic elsewhere while
        // the lock was held cannot have left a count half updated.
        self.held.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A place for `address`, unless its key holds `cap` already.
    pub fn take(self: &Arc<Self>, address: IpAddr) -> Option<AddressPlace> {
        let key = AddressKey::of(address);
        let mut held = self.held_map();
        let count = held.get(&key).copied().unwrap_or(0);
        if count >= self.cap {
            return None;
        }
        held.insert(key, count + 1);
        Some(AddressPlace {
            counts: self.clone(),
            key,
        })
    }

    /// The places held by `address`'s key.
    #[cfg(test)]
    fn held(&self, address: IpAddr) -> usize {
        let key = AddressKey::of(address);
        self.held_map().get(&key).copied().unwrap_or(0)
    }
}

/// One place held by a client address; dropping it gives the place back.
#[derive(Debug)]
pub struct AddressPlace {
    counts: Arc<PerAddress>,
    key: AddressKey,
}

impl Drop for AddressPlace {
    fn drop(&mut self) {
        let mut held = self.counts.held_map();
        if let Some(count) = held.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCAL: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);
    const OTHER: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 2));

    #[test]
    fn ipv6_addresses_count_by_their_64_bit_prefix() {
        let address = |text: &str| text.parse::<IpAddr>().unwrap();
        let key = |text: &str| AddressKey::of(address(text));
        assert_eq!(key("2001:db8:1:2::1"), key("2001:db8:1:2:ffff:ffff:ffff:ffff"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("2001:db8:1:2:abcd::7"), AddressKey(address("2001:db8:1:2::")));
        // IPv4 clients of a dual-stack socket keep their own addresses
        // rather than share the mapped range's prefix.
        assert_eq!(key("::ffff:192.0.2.7"), key("192.0.2.7"));
        assert_ne!(key("::ffff:192.0.2.7"), key("::ffff:192.0.2.8"));
        assert_ne!(key("192.0.2.7"), key("192.0.2.8"));
    }

    #[test]
    fn each_address_holds_at_most_its_cap_and_gets_places_back() {
        let counts = PerAddress::new(2);
        let first = counts.take(LOCAL).expect("a first place");
        let _second = counts.take(LOCAL).expect("a second place");
        assert!(counts.take(LOCAL).is_none(), "a third place past the cap of 2");
        let elsewhere = counts.take(OTHER).expect("another address has its own places");
        assert_eq!((counts.held(LOCAL), counts.held(OTHER)), (2, 1));

        drop(first);
        assert_eq!(counts.held(LOCAL), 1);
        let _again = counts.take(LOCAL).expect("the place given back is free again");
        drop(elsewhere);
        assert_eq!(counts.held(OTHER), 0);
        assert!(
            !counts.held_map().contains_key(&AddressKey::of(OTHER)),
            "an address that holds nothing is forgotten"
        );
    }

    #[test]
    fn one_ipv6_host_shares_one_cap_across_its_prefix() {
        let counts = PerAddress::new(2);
        let address = |text: &str| text.parse::<IpAddr>().unwrap();
        let _a = counts.take(address("2001:db8:0:1::1")).unwrap();
        let _b = counts.take(address("2001:db8:0:1::2")).unwrap();
        assert!(
            counts.take(address("2001:db8:0:1:8000::3")).is_none(),
            "a third address of the same /64 got a place past the cap"
        );
        assert!(
            counts.take(address("2001:db8:0:2::1")).is_some(),
            "the next /64 is another client"
        );
    }
}
