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
