//! Who a connection is: players, their session tokens, and which
//! connection each player is on now.
//!
//! Accounts and sessions live in the store. A token is random; the store
//! keeps only its SHA-256, so a copy of the database does not let anyone in.
//! Guest tokens start with `g_` and account tokens with `a_`; both are
//! presented the same way, in `hello` or as an HTTP bearer token.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sha2::{Digest, Sha256};
use spades_protocol::ws::{BotLevel, MAX_NAME_CHARS, PlayerInfo};
use spades_store::{Account, Store, StoreError};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::outbox::{CloseReason, ConnectionId, Outbox};

/// A player, cheap to clone and to compare by id.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct PlayerRef {
    pub account: Uuid,
    /// The account id as text, as the protocol shows it.
    pub id: Arc<str>,
    pub name: Arc<str>,
    /// The level of a bot; `None` for a person.
    pub bot: Option<BotLevel>,
}

impl PlayerRef {
    pub fn new(account: Uuid, name: &str) -> PlayerRef {
        match bot_level(account) {
            // A stored bot seat comes back as that bot.
            Some(level) => PlayerRef::bot(level, 0),
            None => PlayerRef {
                account,
                id: account.to_string().into(),
                name: name.into(),
                bot: None,
            },
        }
    }

    /// A bot of `level`; `number` tells the bots of one room apart.
    pub fn bot(level: BotLevel, number: u8) -> PlayerRef {
        let (account, name) = match level {
            BotLevel::Basic => (spades_store::BASIC_BOT_ACCOUNT, "Basic bot"),
            BotLevel::Strong => (spades_store::STRONG_BOT_ACCOUNT, "Strong bot"),
        };
        PlayerRef {
            account,
            id: format!("bot-{number}").into(),
            name: name.into(),
            bot: Some(level),
        }
    }

    /// The same bot, told apart from the room's others by `number`.
    pub fn renumbered(&self, number: u8) -> PlayerRef {
        match self.bot {
            Some(level) => PlayerRef::bot(level, number),
            None => self.clone(),
        }
    }

    pub fn info(&self) -> PlayerInfo {
        PlayerInfo {
            id: self.id.to_string(),
            name: self.name.to_string(),
            bot: self.bot.is_some(),
        }
    }
}

/// The level of the bot whose account this is, if it is a bot's.
pub fn bot_level(account: Uuid) -> Option<BotLevel> {
    match account {
        spades_store::BASIC_BOT_ACCOUNT => Some(BotLevel::Basic),
        spades_store::STRONG_BOT_ACCOUNT => Some(BotLevel::Strong),
        _ => None,
    }
}

impl From<&Account> for PlayerRef {
    fn from(account: &Account) -> PlayerRef {
        PlayerRef::new(account.id, &account.name)
    }
}

/// Checks and tidies a display name: 1 to 24 characters after trimming,
/// with no control characters.
pub fn clean_name(name: &str) -> Option<String> {
    clean_text(name, MAX_NAME_CHARS)
}

/// Checks and tidies a name shown to others: 1 to `max` characters after
/// trimming, with no control characters.
pub fn clean_text(text: &str, max: usize) -> Option<String> {
    let text = text.trim();
    let length = text.chars().count();
    let printable = text.chars().all(|c| !c.is_control());
    (printable && (1..=max).contains(&length)).then(|| text.to_string())
}

/// The kind of session a token opens.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TokenKind {
    Guest,
    Account,
}

impl TokenKind {
    fn prefix(self) -> &'static str {
        match self {
            TokenKind::Guest => "g_",
            TokenKind::Account => "a_",
        }
    }
}

/// A fresh random token: the prefix and 244 random bits in hexadecimal.
fn new_token(kind: TokenKind) -> String {
    format!(
        "{}{}{}",
        kind.prefix(),
        Uuid::new_v4().simple(),
        Uuid::new_v4().simple()
    )
}

pub fn token_hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Opens a session for an account and returns its token.
pub async fn open_session(
    store: &Store,
    account: Uuid,
    kind: TokenKind,
    lifetime: Duration,
) -> Result<String, StoreError> {
    let token = new_token(kind);
    let now = OffsetDateTime::now_utc();
    store
        .create_session(&token_hash(&token), account, now, now + lifetime)
        .await?;
    Ok(token)
}

/// The account a token belongs to, if the session is live.
pub async fn resolve(store: &Store, token: &str) -> Result<Option<Account>, StoreError> {
    if token.len() > 128 {
        return Ok(None);
    }
    store
        .session_account(&token_hash(token), OffsetDateTime::now_utc())
        .await
}

/// Creates a guest account and its session.
pub async fn new_guest(
    store: &Store,
    name: &str,
    lifetime: Duration,
) -> Result<(PlayerRef, String), StoreError> {
    let id = Uuid::new_v4();
    store
        .create_account(id, name, None, OffsetDateTime::now_utc())
        .await?;
    let token = open_session(store, id, TokenKind::Guest, lifetime).await?;
    Ok((PlayerRef::new(id, name), token))
}

/// Which connection each player is on. Its lock is held only for a map
/// operation, never across an await.
#[derive(Default, Debug)]
pub struct Online {
    connections: Mutex<HashMap<Arc<str>, Outbox>>,
}

impl Online {
    fn connections(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, Outbox>> {
        // Each operation is one insert or remove, so a panic elsewhere while
        // the lock was held cannot have left the map half updated.
        self.connections
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records the player's new connection and closes the old one, if any,
    /// which it returns.
    pub fn connect(&self, player: &PlayerRef, outbox: Outbox) -> Option<Outbox> {
        let previous = self.connections().insert(player.id.clone(), outbox)?;
        previous.close(CloseReason::Replaced);
        Some(previous)
    }

    /// Forgets the connection, unless the player has already moved to a newer one.
    pub fn disconnect(&self, player: &PlayerRef, connection: ConnectionId) {
        let mut connections = self.connections();
        if connections
            .get(&player.id)
            .is_some_and(|outbox| outbox.id() == connection)
        {
            connections.remove(&player.id);
        }
    }

    /// Sends a message to the player's connection, if he has one.
    pub fn send(&self, player: &str, message: axum::extract::ws::Utf8Bytes) -> bool {
        let outbox = self.connections().get(player).cloned();
        outbox.is_some_and(|outbox| outbox.send(message))
    }

    #[cfg(test)]
    pub fn count(&self) -> usize {
        self.connections().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_trimmed_and_bounded() {
        assert_eq!(clean_name("  Ann "), Some("Ann".to_string()));
        assert_eq!(clean_name(""), None);
        assert_eq!(clean_name("   "), None);
        assert_eq!(clean_name(&"x".repeat(25)), None);
        assert_eq!(clean_name("a\u{7}b"), None);
        assert!(clean_name(&"é".repeat(24)).is_some());
    }

    #[test]
    fn tokens_are_distinct_and_typed() {
        let guest = new_token(TokenKind::Guest);
        let account = new_token(TokenKind::Account);
        assert!(guest.starts_with("g_") && account.starts_with("a_"));
        assert_eq!(guest.len(), 2 + 64);
        assert_ne!(token_hash(&guest), token_hash(&account));
    }

    #[test]
    fn a_new_connection_replaces_the_old() {
        let online = Online::default();
        let player = PlayerRef::new(Uuid::new_v4(), "Ann");
        let shutdown = tokio_util::sync::CancellationToken::new();
        let (first, _first_rx) = crate::outbox::outbox(1, 4, shutdown.clone());
        let (second, _second_rx) = crate::outbox::outbox(2, 4, shutdown);
        online.connect(&player, first.clone());
        online.connect(&player, second.clone());
        assert!(first.is_closed());
        assert!(!second.is_closed());
        online.disconnect(&player, 1);
        assert_eq!(online.count(), 1, "the old connection does not remove the new");
        online.disconnect(&player, 2);
        assert_eq!(online.count(), 0);
    }
}
