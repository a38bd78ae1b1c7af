//! What moderators and operators decide that the rooms must enforce while
//! they run: who is muted, which words chat masks, and whether the server
//! is in maintenance.
//!
//! One `Policy` is shared by the lobby and every room of a server. The
//! server fills it from the store when it starts and changes it when a
//! moderator acts, here or on another node of the cluster; the rooms only
//! read it, under a lock held for one lookup.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};

use time::OffsetDateTime;
use uuid::Uuid;

/// A mute in force: until when (never ending, if `None`) and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Mute {
    pub until: Option<OffsetDateTime>,
    pub reason: String,
}

/// Maintenance announced by an administrator: no new rooms, games or
/// queueing until it is over.
#[derive(Clone, Debug, PartialEq)]
pub struct Maintenance {
    /// When the operator expects it to end, as told to the players.
    pub until: Option<OffsetDateTime>,
    pub message: String,
}

/// When a sanction or a maintenance ends, in words for people:
/// "until 2026-11-28 16:30 UTC", or "until it is lifted".
pub fn until_words(until: Option<OffsetDateTime>) -> String {
    match until {
        Some(until) => {
            let until = until.to_offset(time::UtcOffset::UTC);
            format!(
                "until {}-{:02}-{:02} {:02}:{:02} UTC",
                until.year(),
                u8::from(until.month()),
                until.day(),
                until.hour(),
                until.minute()
            )
        }
        None => "until it is lifted".to_string(),
    }
}

/// What a player is told when maintenance refuses him something.
pub fn maintenance_words(maintenance: &Maintenance) -> String {
    let until = match maintenance.until {
        Some(until) => until_words(Some(until)),
        None => "until the operators end it".to_string(),
    };
    format!(
        "the server is in maintenance {until}: no new rooms, games or queueing. {}",
        maintenance.message
    )
    .trim_end()
    .to_string()
}

/// See the module's documentation.
#[derive(Debug, Default)]
pub struct Policy {
    mutes: Mutex<HashMap<Uuid, Mute>>,
    /// Whom each player blocks: chat hides their lines from him, and
    /// quick play never seats them together.
    blocks: Mutex<HashMap<Uuid, HashSet<Uuid>>>,
    /// Masked words, lower case, longest first, so that a word that holds
    /// a shorter one is masked whole.
    words: Vec<String>,
    maintenance: Mutex<Option<Maintenance>>,
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Each use is one map or slot operation: a panic elsewhere cannot have
    // left the value half changed.
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Policy {
    /// A policy that masks `words` (blank lines and `#` comments are
    /// ignored; case does not matter).
    pub fn with_words<'a>(words: impl IntoIterator<Item = &'a str>) -> Policy {
        let mut words: Vec<String> = words
            .into_iter()
            .map(str::trim)
            .filter(|word| !word.is_empty() && !word.starts_with('#'))
            .map(str::to_lowercase)
            .collect();
        words.sort_by_key(|word| std::cmp::Reverse(word.chars().count()));
        words.dedup();
        Policy {
            words,
            ..Policy::default()
        }
    }

    /// Replaces every mute and block with those given: what the store
    /// holds, read again now and then so that a change made away from this
    /// server (the operator's command line) reaches it too.
    pub fn replace(&self, mutes: HashMap<Uuid, Mute>, blocks: HashMap<Uuid, HashSet<Uuid>>) {
        *locked(&self.mutes) = mutes;
        *locked(&self.blocks) = blocks;
    }

    /// Mutes a player, replacing any mute he had.
    pub fn mute(&self, account: Uuid, mute: Mute) {
        locked(&self.mutes).insert(account, mute);
    }

    /// Ends a player's mute.
    pub fn unmute(&self, account: Uuid) {
        locked(&self.mutes).remove(&account);
    }

    /// The player's mute, if one is in force at `now`. A mute whose time is
    /// up is forgotten here.
    pub fn muted(&self, account: Uuid, now: OffsetDateTime) -> Option<Mute> {
        let mut mutes = locked(&self.mutes);
        let mute = mutes.get(&account)?;
        if mute.until.is_some_and(|until| until <= now) {
            mutes.remove(&account);
            return None;
        }
        Some(mute.clone())
    }

    /// Notes that `blocker` blocks `blocked`.
    pub fn block(&self, blocker: Uuid, blocked: Uuid) {
        locked(&self.blocks).entry(blocker).or_default().insert(blocked);
    }

    pub fn unblock(&self, blocker: Uuid, blocked: Uuid) {
        let mut blocks = locked(&self.blocks);
        if let Some(set) = blocks.get_mut(&blocker) {
            set.remove(&blocked);
            if set.is_empty() {
                blocks.remove(&blocker);
            }
        }
    }

    /// Whether `blocker` blocks `blocked`.
    pub fn blocks(&self, blocker: Uuid, blocked: Uuid) -> bool {
        locked(&self.blocks)
            .get(&blocker)
            .is_some_and(|set| set.contains(&blocked))
    }

    /// Whether either of two players blocks the other.
    pub fn apart(&self, one: Uuid, other: Uuid) -> bool {
        self.blocks(one, other) || self.blocks(other, one)
    }

    pub fn set_maintenance(&self, maintenance: Option<Maintenance>) {
        *locked(&self.maintenance) = maintenance;
    }

    /// The maintenance in force, if any.
    pub fn maintenance(&self) -> Option<Maintenance> {
        locked(&self.maintenance).clone()
    }

    /// The chat text with every listed word masked by asterisks, one per
    /// character, wherever it stands in the text and in any case.
    pub fn mask(&self, text: &str) -> String {
        if self.words.is_empty() {
            return text.to_string();
        }
        let lower: Vec<char> = text.chars().flat_map(char::to_lowercase).collect();
        let mut chars: Vec<char> = text.chars().collect();
        // Lower-casing can change the number of characters (a few letters
        // become two); such text is compared as it is instead.
        let folded = if lower.len() == chars.len() {
            lower
        } else {
            chars.clone()
        };
        for word in &self.words {
            let word: Vec<char> = word.chars().collect();
            let mut start = 0;
            while start + word.len() <= folded.len() {
                if folded[start..start + word.len()] == word[..] {
                    chars[start..start + word.len()].fill('*');
                    start += word.len();
                } else {
                    start += 1;
                }
            }
        }
        chars.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_words_are_masked_in_any_case() {
        let policy = Policy::with_words(["darn", "# a comment", "", "heck"]);
        assert_eq!(policy.mask("Darn it, what the HECK"), "**** it, what the ****");
        assert_eq!(policy.mask("darndarn"), "********");
        assert_eq!(policy.mask("nothing here"), "nothing here");
        assert_eq!(Policy::default().mask("darn"), "darn");
    }

    #[test]
    fn blocks_go_one_way_and_apart_sees_both() {
        let policy = Policy::default();
        let (ann, bob) = (Uuid::new_v4(), Uuid::new_v4());
        policy.block(ann, bob);
        assert!(policy.blocks(ann, bob) && !policy.blocks(bob, ann));
        assert!(policy.apart(bob, ann));
        policy.unblock(ann, bob);
        assert!(!policy.apart(ann, bob));
    }

    #[test]
    fn a_mute_ends_by_itself() {
        let policy = Policy::default();
        let (ann, now) = (Uuid::new_v4(), OffsetDateTime::now_utc());
        let mute = Mute {
            until: Some(now + time::Duration::minutes(5)),
            reason: "spam".into(),
        };
        policy.mute(ann, mute.clone());
        assert_eq!(policy.muted(ann, now), Some(mute));
        assert_eq!(policy.muted(ann, now + time::Duration::minutes(6)), None);
        assert_eq!(policy.muted(ann, now), None, "forgotten once over");
        policy.mute(
            ann,
            Mute {
                until: None,
                reason: "abuse".into(),
            },
        );
        policy.unmute(ann);
        assert_eq!(policy.muted(ann, now), None);
    }
}
