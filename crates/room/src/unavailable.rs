//! Why the server cannot do something now, whichever actor says so.
//!
//! The lobby, the rooms, the tournament runner and the HTTP API each refuse
//! with their own error type, and each of those types holds an
//! [`Unavailable`] for the refusals they share. It is turned into the
//! protocol's error code here, once (the HTTP status in the server's
//! `api/error.rs`), so that a server that stops never says its store is
//! down, nor a store that is down that too many rooms are open.

use spades_protocol::ws::ErrorCode;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Unavailable {
    /// The server is stopping. An actor that has gone away says this too:
    /// actors stop only when the server does.
    ShuttingDown,
    /// The store cannot be reached now.
    Store,
    /// As many rooms are open as the server allows.
    TooManyRooms,
}

impl Unavailable {
    /// The WebSocket protocol's error code.
    pub fn code(self) -> ErrorCode {
        match self {
            Unavailable::ShuttingDown => ErrorCode::ShuttingDown,
            Unavailable::Store => ErrorCode::StoreUnavailable,
            Unavailable::TooManyRooms => ErrorCode::ServerBusy,
        }
    }

    /// What to tell people.
    pub fn message(self) -> &'static str {
        match self {
            Unavailable::ShuttingDown => "the server is shutting down; try again when it is back",
            Unavailable::Store => "storage is unavailable; try again later",
            Unavailable::TooManyRooms => "too many rooms are open; try again later",
        }
    }

    /// The HTTP API's error code: the protocol's, but for the store, whose
    /// code the API has always called `unavailable`.
    pub fn api_code(self) -> &'static str {
        match self {
            Unavailable::ShuttingDown => "shutting_down",
            Unavailable::Store => "unavailable",
            Unavailable::TooManyRooms => "server_busy",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reason_has_its_own_code_and_words() {
        let all = [
            Unavailable::ShuttingDown,
            Unavailable::Store,
            Unavailable::TooManyRooms,
        ];
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a.code(), b.code());
                assert_ne!(a.api_code(), b.api_code());
                assert_ne!(a.message(), b.message());
            }
        }
        assert_eq!(Unavailable::ShuttingDown.code().name(), "shutting_down");
        assert_eq!(Unavailable::Store.code().name(), "store_unavailable");
    }
}
