//! What a room is tuned by: the part of the server's settings that the
//! tables read, handed to each room whole.

use std::time::Duration;

/// The settings every room of a server shares.
#[derive(Clone, Debug)]
pub struct RoomConfig {
    /// How long a player has for each action before the server acts for him.
    pub turn_time: Duration,
    /// How long a disconnected player's seat is held before the server plays
    /// for him at once on every turn.
    pub seat_hold: Duration,
    /// Events a room keeps for clients that reconnect; a client further
    /// behind gets a snapshot instead.
    pub resync_window: usize,
    /// The longest a strong bot thinks about one card.
    pub bot_time: Duration,
    /// How many strong bots may think at once in the whole server; past
    /// it the basic bot plays the card. `None` is one per core.
    pub strong_bots_at_once: Option<usize>,
    /// Chat messages a player may send per `chat_window`, counted across
    /// every room of the server and every connection he uses.
    pub chat_limit: u32,
    pub chat_window: Duration,
    /// Deal every game from seeds derived from this one instead of fresh
    /// random seeds: the `n`th game started in the process (from 0) is
    /// dealt from seed `seed + n`.
    pub seed: Option<u64>,
    /// The name of the node the room runs on, which clients are told of
    /// where several nodes serve one site; `None` when the server runs
    /// alone.
    pub node: Option<String>,
}
