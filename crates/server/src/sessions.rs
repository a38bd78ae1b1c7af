//! Sessions the server has seen, so that a player it knows can come back
//! while the store is unreachable.
//!
//! The store is the authority on sessions, and it is always asked first.
//! Only when it cannot answer (it is down, or too busy) does `hello` fall
//! back on what the server saw itself: a session it issued or resolved,
//! until the session's expiry, and not after it was ended here (a logout
//! or a claim, which the server forgets at once). Games go on while the
//! store is down; without this, a player whose connection dropped then
//! could not get back to his own table.

use std::collections::HashMap;
use std::sync::Mutex;

use time::OffsetDateTime;
use uuid::Uuid;

use spades_lobby::SessionHash;
use spades_room::PlayerRef;

/// How many sessions are remembered at most. Past it, expired ones are
/// forgotten first, then any: a forgotten session only loses the fallback.
const CAPACITY: usize = 200_000;

#[derive(Debug)]
struct Known {
    player: PlayerRef,
    expires_at: OffsetDateTime,
}

/// The sessions this server has seen. Its lock is held only for a map
/// operation.
#[derive(Debug, Default)]
pub struct KnownSessions {
    sessions: Mutex<HashMap<SessionHash, Known>>,
}

impl KnownSessions {
    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<SessionHash, Known>> {
        // One insert, lookup or removal at a time: a panic elsewhere cannot
        // have left the map half changed.
        self.sessions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Notes a live session, issued or resolved by the store.
    pub fn remember(&self, session: SessionHash, player: &PlayerRef, expires_at: OffsetDateTime) {
        let mut sessions = self.sessions();
        if sessions.len() >= CAPACITY && !sessions.contains_key(&session) {
            let now = OffsetDateTime::now_utc();
            sessions.retain(|_, known| known.expires_at > now);
            if sessions.len() >= CAPACITY
                && let Some(any) = sessions.keys().next().copied()
            {
                sessions.remove(&any);
            }
        }
        sessions.insert(
            session,
            Known {
                player: player.clone(),
                expires_at,
            },
        );
    }

    /// The player of a session seen before, if it has not expired.
    pub fn recall(&self, session: &SessionHash, now: OffsetDateTime) -> Option<PlayerRef> {
        let sessions = self.sessions();
        let known = sessions.get(session)?;
        (known.expires_at > now).then(|| known.player.clone())
    }

    /// Forgets a session that has ended, or that the store no longer knows.
    pub fn forget(&self, session: &SessionHash) {
        self.sessions().remove(session);
    }

    /// Forgets every session of an account.
    pub fn forget_account(&self, account: Uuid) {
        self.sessions().retain(|_, known| known.player.account != account);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_recalled_until_it_expires_or_ends() {
        let known = KnownSessions::default();
        let now = OffsetDateTime::now_utc();
        let ann = PlayerRef::new(Uuid::new_v4(), "Ann");
        let bob = PlayerRef::new(Uuid::new_v4(), "Bob");
        known.remember([1; 32], &ann, now + time::Duration::hours(1));
        known.remember([2; 32], &ann, now + time::Duration::hours(1));
        known.remember([3; 32], &bob, now - time::Duration::seconds(1));
        assert_eq!(known.recall(&[1; 32], now), Some(ann.clone()));
        assert_eq!(known.recall(&[3; 32], now), None, "expired");
        assert_eq!(known.recall(&[4; 32], now), None, "never seen");
        assert_eq!(known.recall(&[1; 32], now + time::Duration::hours(2)), None);
        known.forget(&[1; 32]);
        assert_eq!(known.recall(&[1; 32], now), None, "logged out");
        assert_eq!(known.recall(&[2; 32], now), Some(ann.clone()));
        known.forget_account(ann.account);
        assert_eq!(
            known.recall(&[2; 32], now),
            None,
            "every session of the account ended"
        );
    }
}
