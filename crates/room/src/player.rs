//! Who sits at a table: a player or a bot, cheap to clone and to compare.

use std::sync::Arc;

use spades_protocol::ws::{BotLevel, PlayerInfo};
use spades_store::Account;
use uuid::Uuid;

/// A player, cheap to clone and to compare by id.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct PlayerRef {
    pub account: Uuid,
    /// The account id as text, as the protocol shows it.
    pub id: Arc<str>,
    pub name: Arc<str>,
    /// The level of a bot; `None` for a person.
    pub bot: Option<BotLevel>,
    /// The picture he chose, one of `spades_protocol::AVATARS`.
    pub avatar: Option<Arc<str>>,
}

/// The bots' names, by level: each bot of a room has its own, so that
/// people can tell them apart at the table and in the results.
const BEGINNER_NAMES: [&str; 4] = ["Pip", "Sprout", "Button", "Pebble"];
const BASIC_NAMES: [&str; 4] = ["Clover", "Juniper", "Maple", "Rowan"];
const STRONG_NAMES: [&str; 4] = ["Atlas", "Orion", "Vega", "Lyra"];
const EXPERT_NAMES: [&str; 4] = ["Sage", "Onyx", "Raven", "Ember"];

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
                avatar: None,
            },
        }
    }

    /// A bot of `level`; `number` tells the bots of one room apart.
    pub fn bot(level: BotLevel, number: u8) -> PlayerRef {
        let (account, names) = match level {
            BotLevel::Beginner => (spades_store::BEGINNER_BOT_ACCOUNT, BEGINNER_NAMES),
            BotLevel::Basic => (spades_store::BASIC_BOT_ACCOUNT, BASIC_NAMES),
            BotLevel::Strong => (spades_store::STRONG_BOT_ACCOUNT, STRONG_NAMES),
            BotLevel::Expert => (spades_store::EXPERT_BOT_ACCOUNT, EXPERT_NAMES),
        };
        PlayerRef {
            account,
            id: format!("bot-{number}").into(),
            name: names[usize::from(number) % names.len()].into(),
            bot: Some(level),
            avatar: None,
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
            level: self.bot,
            avatar: self.avatar.as_deref().map(str::to_string),
        }
    }
}

/// The level of the bot whose account this is, if it is a bot's.
pub fn bot_level(account: Uuid) -> Option<BotLevel> {
    match account {
        spades_store::BEGINNER_BOT_ACCOUNT => Some(BotLevel::Beginner),
        spades_store::BASIC_BOT_ACCOUNT => Some(BotLevel::Basic),
        spades_store::STRONG_BOT_ACCOUNT => Some(BotLevel::Strong),
        spades_store::EXPERT_BOT_ACCOUNT => Some(BotLevel::Expert),
        _ => None,
    }
}

impl From<&Account> for PlayerRef {
    fn from(account: &Account) -> PlayerRef {
        PlayerRef {
            avatar: account.avatar.as_deref().map(Arc::from),
            ..PlayerRef::new(account.id, &account.name)
        }
    }
}
