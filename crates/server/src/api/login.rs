//! Failed logins: the limiter that slows down guessing without letting
//! anyone lock an owner out of his account.

use spades_lobby::SharedAttempt;
use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::error::ApiResult;
use super::passwords::{Lane, Passwords};
use crate::identity;

/// How long an address stays known to an account after a login from it
/// succeeded.
const KNOWN_FOR: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// The most pairs of account and address remembered as known; past it the
/// pairs whose last success is oldest are forgotten first.
const MAX_KNOWN: usize = 100_000;

/// Login attempts, counted until they are `window` old or succeed. Each
/// counts twice: for the pair of the account name and the client's address,
/// and for the address alone. A request is refused only for attempts from
/// its own address: a count for a name across addresses would be one that
/// strangers could fill to lock the owner out.
///
/// An address that has logged into an account before is known to it (for
/// `KNOWN_FOR` since its last success): its logins at that name are refused
/// only for the pair's own failures, never for the address's failures at
/// other names (someone else behind the same address, or a guesser there),
/// and they are checked in the hashing threads' known lane, ahead of
/// everyone else's.
///
/// An attempt is counted when it arrives, so that a burst cannot pass the
/// check before any of it has failed, and it is taken back if its password
/// could not be checked (the hashing queue was full, the store was away):
/// a request refused without a verdict is not a failure.
///
/// An IPv6 address counts by its /64 network, since a single host is
/// commonly given a whole /64 and could otherwise change address between
/// guesses.
#[derive(Debug)]
pub struct LoginLimiter {
    counts: Mutex<Counts>,
    per_name: usize,
    per_address: usize,
    window: Duration,
    /// The hash that the password sent for an unknown name is checked
    /// against (see `login`), made with the server's cost on first use.
    decoy: tokio::sync::OnceCell<String>,
}

#[derive(Debug, Default)]
struct Counts {
    attempts: HashMap<LoginKey, VecDeque<Instant>>,
    /// The pairs of name and address (always `LoginKey::Name`) that logged
    /// in, with the time of the last success.
    known: HashMap<LoginKey, Instant>,
}

/// What attempts are counted for.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum LoginKey {
    /// An account name from an address. The name is kept as the SHA-256 of
    /// its lowercase form, so that a key's size does not depend on what a
    /// client sends.
    Name([u8; 32], Option<IpAddr>),
    Address(Option<IpAddr>),
}

/// A counted attempt, which `LoginLimiter::succeeded` forgives and
/// `LoginLimiter::withdraw` takes back.
#[derive(Debug)]
pub(super) struct Attempt {
    name: LoginKey,
    address: LoginKey,
    at: Instant,
    known: bool,
}

impl Attempt {
    /// The attempt's outcome as other nodes hear of it.
    pub(super) fn shared(&self, succeeded: bool) -> Option<SharedAttempt> {
        let LoginKey::Name(name, address) = self.name else {
            return None;
        };
        Some(SharedAttempt {
            name,
            address,
            succeeded,
        })
    }

    /// The hashing threads' lane its password is checked in: the known
    /// lane when the address has logged into the name before.
    pub(super) fn lane(&self) -> Lane {
        if self.known { Lane::Known } else { Lane::Other }
    }
}

impl Counts {
    /// The times of `key`'s attempts, those older than `window` dropped.
    fn recent(&mut self, key: LoginKey, now: Instant, window: Duration) -> Option<&VecDeque<Instant>> {
        let times = self.attempts.get_mut(&key)?;
        while times.front().is_some_and(|&at| now.duration_since(at) >= window) {
            times.pop_front();
        }
        Some(times)
    }

    /// Whether `pair` logged in within `KNOWN_FOR` of `now`.
    fn is_known(&self, pair: LoginKey, now: Instant) -> bool {
        self.known
            .get(&pair)
            .is_some_and(|&at| now.duration_since(at) < KNOWN_FOR)
    }

    /// Makes `pair` known as of `now`, forgetting the pairs least recently
    /// seen when there are too many.
    fn remember(&mut self, pair: LoginKey, now: Instant) {
        self.known.insert(pair, now);
        if self.known.len() > MAX_KNOWN {
            self.known.retain(|_, &mut at| now.duration_since(at) < KNOWN_FOR);
        }
        if self.known.len() > MAX_KNOWN {
            // Rare, and only after as many successful logins: a sort of
            // the times is cheap enough then.
            let mut times: Vec<Instant> = self.known.values().copied().collect();
            times.sort_unstable();
            let cut = times[times.len() - MAX_KNOWN / 2];
            self.known.retain(|_, &mut at| at >= cut);
        }
    }

    /// Removes one attempt made at `at` from `key`'s count.
    fn take_back(&mut self, key: LoginKey, at: Instant) {
        if let Some(times) = self.attempts.get_mut(&key)
            && let Some(index) = times.iter().rposition(|&time| time == at)
        {
            times.remove(index);
        }
    }
}

impl LoginLimiter {
    /// A limit of 0 counts as 1: nobody could ever log in otherwise.
    pub fn new(per_name: usize, per_address: usize, window: Duration) -> LoginLimiter {
        LoginLimiter {
            counts: Mutex::default(),
            per_name: per_name.max(1),
            per_address: per_address.max(1),
            window,
            decoy: tokio::sync::OnceCell::new(),
        }
    }

    fn counts(&self) -> MutexGuard<'_, Counts> {
        // Each change under the lock is whole before the next begins, so a
        // panic elsewhere cannot have left the counts half updated.
        self.counts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The part of a client's address that attempts are counted by.
    fn source(address: Option<IpAddr>) -> Option<IpAddr> {
        address.map(|address| match address.to_canonical() {
            IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from_bits(v6.to_bits() & !u128::from(u64::MAX))),
            v4 => v4,
        })
    }

    fn keys(name: &str, address: Option<IpAddr>) -> (LoginKey, LoginKey) {
        let source = LoginLimiter::source(address);
        let folded = identity::normalize(name).to_lowercase();
        (
            LoginKey::Name(Sha256::digest(folded.as_bytes()).into(), source),
            LoginKey::Address(source),
        )
    }

    /// Counts an attempt to log in as `name` from `address`, or says how long
    /// to wait if a limit is reached. An attempt is counted before its
    /// password is checked, so that many requests sent at once cannot all
    /// pass the check before any of them has failed.
    pub(super) fn attempt(&self, name: &str, address: Option<IpAddr>) -> Result<Attempt, Duration> {
        let (name, address) = LoginLimiter::keys(name, address);
        let mut counts = self.counts();
        let now = Instant::now();
        let known = counts.is_known(name, now);
        // A known address answers for its own failures at the name only.
        let limits: &[(LoginKey, usize)] = if known {
            &[(name, self.per_name)]
        } else {
            &[(name, self.per_name), (address, self.per_address)]
        };
        let mut wait: Option<Duration> = None;
        for &(key, limit) in limits {
            let Some(times) = counts.recent(key, now, self.window) else {
                continue;
            };
            // Times are in order: the attempt that must age out for the
            // count to fall below the limit is the `len - limit`th.
            if let Some(len) = times.len().checked_sub(limit)
                && let Some(&at) = times.get(len)
            {
                let left = self.window.saturating_sub(now.duration_since(at));
                wait = Some(wait.map_or(left, |wait| wait.max(left)));
            }
        }
        if let Some(wait) = wait {
            return Err(wait);
        }
        // Forget keys with nothing recent, so that the map stays small.
        if counts.attempts.len() > 100_000 {
            let window = self.window;
            counts
                .attempts
                .retain(|_, times| times.back().is_some_and(|&at| now.duration_since(at) < window));
        }
        for key in [name, address] {
            counts.attempts.entry(key).or_default().push_back(now);
        }
        Ok(Attempt {
            name,
            address,
            at: now,
            known,
        })
    }

    /// Takes back an attempt whose password was not checked (refused as
    /// `busy`, or the store was away): it is no failure, and the client may
    /// try again as if it had not been made.
    pub(super) fn withdraw(&self, attempt: Attempt) {
        let mut counts = self.counts();
        counts.take_back(attempt.name, attempt.at);
        counts.take_back(attempt.address, attempt.at);
    }

    /// Forgives a successful attempt, and the name's earlier failures from
    /// the same address, which were most likely its owner's typing, and
    /// makes the address known to the name. The address's failures at other
    /// names stand, so that logging in to an account of one's own cannot
    /// reset the count of guesses at others.
    pub(super) fn succeeded(&self, attempt: Attempt) {
        let mut counts = self.counts();
        counts.attempts.remove(&attempt.name);
        counts.take_back(attempt.address, attempt.at);
        counts.remember(attempt.name, Instant::now());
    }

    /// Counts a failure, or forgives as a success does, as told by another
    /// node of the cluster.
    pub fn heard(&self, shared: &SharedAttempt) {
        let name = LoginKey::Name(shared.name, shared.address);
        let address = LoginKey::Address(shared.address);
        let mut counts = self.counts();
        let now = Instant::now();
        if shared.succeeded {
            // The success was never counted here, so nothing of the
            // address's count is taken back.
            counts.attempts.remove(&name);
            counts.remember(name, now);
        } else {
            for key in [name, address] {
                counts.attempts.entry(key).or_default().push_back(now);
            }
        }
    }

    /// A hash of a password nobody has, made at the server's cost (the hash
    /// carries it, so checking against it costs what checking against an
    /// account's costs).
    pub(super) async fn decoy(&self, passwords: &Passwords) -> ApiResult<String> {
        self.decoy
            .get_or_try_init(|| passwords.hash(Uuid::new_v4().to_string()))
            .await
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HERE: Option<IpAddr> = Some(IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 1)));
    const THERE: Option<IpAddr> = Some(IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 1)));

    /// Makes `count` attempts that fail, each of which must be let through.
    fn fail(limiter: &LoginLimiter, name: &str, address: Option<IpAddr>, count: usize) {
        for n in 0..count {
            assert!(
                limiter.attempt(name, address).is_ok(),
                "attempt {n} at {name} from {address:?}"
            );
        }
    }

    #[test]
    fn attempts_heard_from_other_nodes_count_and_are_forgiven_the_same() {
        let here = LoginLimiter::new(3, 5, Duration::from_secs(60));
        let there = LoginLimiter::new(3, 5, Duration::from_secs(60));
        for _ in 0..2 {
            let attempt = here.attempt("Ann", HERE).unwrap();
            there.heard(&attempt.shared(false).unwrap());
        }
        let third = there.attempt("ann", HERE).expect("two failures heard, one left");
        here.heard(&third.shared(false).unwrap());
        assert!(
            here.attempt("Ann", HERE).is_err(),
            "the third, made elsewhere, counts here"
        );
        // A success on one node forgives the name's failures on the other.
        there.succeeded(third);
        let forgiven = LoginLimiter::new(3, 5, Duration::from_secs(60));
        let attempt = forgiven.attempt("Ann", HERE).unwrap();
        here.heard(&attempt.shared(true).unwrap());
        assert!(here.attempt("Ann", HERE).is_ok(), "forgiven");
    }

    #[test]
    fn the_limiter_counts_per_name_and_address_and_per_address() {
        let limiter = LoginLimiter::new(3, 5, Duration::from_secs(60));
        fail(&limiter, "Ann", HERE, 3);
        let wait = limiter
            .attempt("ANN", HERE)
            .expect_err("the name is locked from here in any case");
        assert!(
            wait > Duration::from_secs(59) && wait <= Duration::from_secs(60),
            "{wait:?}"
        );
        assert!(limiter.attempt("Bob", HERE).is_ok(), "another name is not");
        assert!(
            limiter.attempt("Ann", THERE).is_ok(),
            "nor is the name from elsewhere"
        );
        assert!(limiter.attempt("Cy", HERE).is_ok());
        assert!(
            limiter.attempt("Dee", HERE).is_err(),
            "the address is locked after 5"
        );
        assert!(limiter.attempt("Dee", THERE).is_ok());
    }

    #[test]
    fn failures_from_elsewhere_never_lock_the_owner_out() {
        let limiter = LoginLimiter::new(5, 20, Duration::from_secs(60));
        // Guesses from many addresses, each up to its limit.
        for host in 0..=255u8 {
            let address = Some(IpAddr::from([10, 1, 0, host]));
            fail(&limiter, "owner", address, 5);
            assert!(limiter.attempt("owner", address).is_err());
        }
        let attempt = limiter
            .attempt("Owner", HERE)
            .expect("the owner's address is free");
        limiter.succeeded(attempt);
    }

    #[test]
    fn success_forgives_the_names_failures_but_not_the_addresss() {
        let limiter = LoginLimiter::new(3, 5, Duration::from_secs(60));
        fail(&limiter, "ann", HERE, 2);
        let attempt = limiter.attempt("Ann", HERE).expect("a third try");
        limiter.succeeded(attempt);
        // Had the name's two failures stood, the second of these would be
        // refused.
        fail(&limiter, "Ann", HERE, 2);
        // The address still counts the two failures before the success and
        // the two after it, so one more attempt from it is let through.
        assert!(limiter.attempt("Eve", HERE).is_ok());
        assert!(limiter.attempt("Eve", HERE).is_err());
    }

    #[test]
    fn attempts_taken_back_never_count() {
        let limiter = LoginLimiter::new(3, 5, Duration::from_secs(60));
        // Far more than either limit, each refused before its password
        // was checked.
        for _ in 0..50 {
            let attempt = limiter.attempt("Ann", HERE).expect("nothing counted so far");
            limiter.withdraw(attempt);
        }
        fail(&limiter, "Ann", HERE, 3);
        assert!(
            limiter.attempt("Ann", HERE).is_err(),
            "three real failures do count"
        );
    }

    #[test]
    fn a_known_address_answers_for_its_own_failures_at_the_name_only() {
        let limiter = LoginLimiter::new(3, 5, Duration::from_secs(60));
        let first = limiter.attempt("Ann", HERE).unwrap();
        assert_eq!(first.lane(), Lane::Other, "not known before a success");
        limiter.succeeded(first);
        // Someone else behind the same address fills its count.
        fail(&limiter, "Bob", HERE, 3);
        fail(&limiter, "Cy", HERE, 2);
        assert!(limiter.attempt("Dee", HERE).is_err(), "the address is full");
        let again = limiter.attempt("ann", HERE).expect("the owner is not held by it");
        assert_eq!(again.lane(), Lane::Known);
        limiter.withdraw(again);
        // His own mistakes still count against him.
        fail(&limiter, "Ann", HERE, 3);
        assert!(limiter.attempt("Ann", HERE).is_err());
        // The address is known to Ann only.
        assert!(limiter.attempt("Eve", HERE).is_err());
    }

    #[test]
    fn a_success_heard_from_another_node_makes_the_address_known() {
        let here = LoginLimiter::new(3, 5, Duration::from_secs(60));
        let there = LoginLimiter::new(3, 5, Duration::from_secs(60));
        let attempt = there.attempt("Ann", HERE).unwrap();
        here.heard(&attempt.shared(true).unwrap());
        there.succeeded(attempt);
        fail(&here, "Bob", HERE, 3);
        fail(&here, "Cy", HERE, 2);
        assert!(here.attempt("Dee", HERE).is_err(), "the address is full");
        assert_eq!(
            here.attempt("Ann", HERE).expect("known here too").lane(),
            Lane::Known
        );
    }

    #[test]
    fn attempts_age_out() {
        let limiter = LoginLimiter::new(2, 10, Duration::from_millis(100));
        fail(&limiter, "ann", HERE, 2);
        let wait = limiter.attempt("ann", HERE).expect_err("locked");
        std::thread::sleep(wait + Duration::from_millis(5));
        assert!(limiter.attempt("ann", HERE).is_ok());
    }

    #[test]
    fn an_ipv6_host_counts_by_its_network() {
        let limiter = LoginLimiter::new(2, 10, Duration::from_secs(60));
        let host = |last: u16| Some(IpAddr::from([0x2001, 0xdb8, 0, 1, 0, 0, 0, last]));
        fail(&limiter, "ann", host(1), 1);
        fail(&limiter, "ann", host(2), 1);
        assert!(limiter.attempt("ann", host(3)).is_err(), "one /64");
        let next_network = Some(IpAddr::from([0x2001, 0xdb8, 0, 2, 0, 0, 0, 1]));
        assert!(limiter.attempt("ann", next_network).is_ok());
        let mapped = Some(IpAddr::from(
            std::net::Ipv4Addr::new(127, 0, 0, 1).to_ipv6_mapped(),
        ));
        fail(&limiter, "bob", HERE, 2);
        assert!(
            limiter.attempt("bob", mapped).is_err(),
            "a mapped IPv4 address is itself"
        );
    }

    #[test]
    fn names_count_in_their_normal_form() {
        let limiter = LoginLimiter::new(2, 10, Duration::from_secs(60));
        fail(&limiter, "Jos\u{E9}", HERE, 1);
        fail(&limiter, " JOSE\u{301} ", HERE, 1);
        assert!(limiter.attempt("jos\u{E9}", HERE).is_err());
    }
}
