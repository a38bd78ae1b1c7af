//! A client's message read once into what it asks and of whom: the
//! connection itself, the lobby, the room it is in, the quick-play queue
//! or the tournaments. Each family is then handled by one small function
//! in its own file, and a room's commands travel on as they are.

use spades_engine::{Action, Bid, Preset};
use spades_protocol::friends::InviteTo;
use spades_protocol::ws::{BotLevel, ClientMessage, ErrorCode, MessageId, RulesSpec, TableSpeed};

use spades_room::RoomCommand;

/// What a client's message asks.
#[derive(Debug, PartialEq)]
pub(super) enum Command {
    /// Who the player is: the first message of every connection.
    Hello {
        version: u32,
        name: Option<String>,
        token: Option<String>,
    },
    Ping,
    Lobby(LobbyCommand),
    Room(RoomCommand),
    Queue(QueueCommand),
    Tournament(TournamentCommand),
    /// Invite a friend to this room or to quick play.
    Invite {
        player: String,
        to: InviteTo,
        rules: Preset,
    },
}

/// A room a player asks to open, as he asked for it.
#[derive(Debug, PartialEq)]
pub(super) struct NewRoomRequest {
    pub(super) name: Option<String>,
    pub(super) rules: RulesSpec,
    pub(super) private: bool,
    /// `None` for the server's default.
    pub(super) bots: Option<BotLevel>,
    pub(super) rated: bool,
    pub(super) speed: TableSpeed,
}

/// The lobby: its list of rooms, and going into and out of a room.
#[derive(Debug, PartialEq)]
pub(super) enum LobbyCommand {
    ListRooms,
    Watch,
    Unwatch,
    CreateRoom(NewRoomRequest),
    /// Enter a room, or come back to it with the events missed since
    /// `last_seq`.
    Enter {
        room: String,
        last_seq: Option<u64>,
    },
    LeaveRoom,
}

/// The quick-play queue.
#[derive(Debug, PartialEq)]
pub(super) enum QueueCommand {
    Join { rules: Preset, partner: Option<String> },
    Leave,
}

/// Following a tournament's news.
#[derive(Debug, PartialEq)]
pub(super) enum TournamentCommand {
    Watch { tournament: String },
    Unwatch { tournament: String },
}

/// A command the message names but cannot make: the error code and the
/// sentence to answer with.
pub(super) type Unmade = (ErrorCode, String);

impl Command {
    /// The message's id, and the command it asks for or why it cannot be
    /// made (a bid that no rule set allows).
    pub(super) fn read(message: ClientMessage) -> (MessageId, Result<Command, Unmade>) {
        let id = message.id().clone();
        let room = |command| Ok(Command::Room(command));
        let act = |action| room(RoomCommand::Act { action });
        let command = match message {
            ClientMessage::Hello {
                version, name, token, ..
            } => Ok(Command::Hello { version, name, token }),
            ClientMessage::Ping { .. } => Ok(Command::Ping),
            ClientMessage::ListRooms { .. } => Ok(Command::Lobby(LobbyCommand::ListRooms)),
            ClientMessage::WatchLobby { .. } => Ok(Command::Lobby(LobbyCommand::Watch)),
            ClientMessage::UnwatchLobby { .. } => Ok(Command::Lobby(LobbyCommand::Unwatch)),
            ClientMessage::CreateRoom {
                name,
                rules,
                private,
                bots,
                rated,
                speed,
                ..
            } => Ok(Command::Lobby(LobbyCommand::CreateRoom(NewRoomRequest {
                name,
                rules,
                private,
                bots,
                rated,
                speed,
            }))),
            ClientMessage::JoinRoom { room, .. } => {
                Ok(Command::Lobby(LobbyCommand::Enter { room, last_seq: None }))
            }
            ClientMessage::Resync { room, last_seq, .. } => Ok(Command::Lobby(LobbyCommand::Enter {
                room,
                last_seq: Some(last_seq),
            })),
            ClientMessage::LeaveRoom { .. } => Ok(Command::Lobby(LobbyCommand::LeaveRoom)),
            ClientMessage::Sit { seat, .. } => room(RoomCommand::Sit { seat }),
            ClientMessage::Stand { .. } => room(RoomCommand::Stand),
            ClientMessage::StartGame { .. } => room(RoomCommand::Start),
            ClientMessage::Rematch { same_deals, .. } => room(RoomCommand::Rematch { same_deals }),
            ClientMessage::AddBot { seat, level, .. } => room(RoomCommand::AddBot { seat, level }),
            ClientMessage::RemoveBot { seat, .. } => room(RoomCommand::RemoveBot { seat }),
            ClientMessage::Chat { text, .. } => room(RoomCommand::Chat { text }),
            ClientMessage::QuickChat { phrase, .. } => room(RoomCommand::QuickChat { phrase }),
            ClientMessage::RemovePlayer { player, .. } => room(RoomCommand::RemovePlayer { player }),
            ClientMessage::Report { player, reason, .. } => room(RoomCommand::Report { player, reason }),
            ClientMessage::Bid { bid, blind, .. } => match Bid::from_parts(bid, blind) {
                Ok(bid) => act(Action::Bid(bid)),
                Err(error) => Err((ErrorCode::InvalidBid, error.to_string())),
            },
            ClientMessage::Look { .. } => act(Action::LookAtHand),
            ClientMessage::PassCards { cards, .. } => act(Action::Pass(cards)),
            ClientMessage::Play { card, .. } => act(Action::Play(card)),
            ClientMessage::Queue { rules, partner, .. } => {
                Ok(Command::Queue(QueueCommand::Join { rules, partner }))
            }
            ClientMessage::LeaveQueue { .. } => Ok(Command::Queue(QueueCommand::Leave)),
            ClientMessage::Invite {
                player, to, rules, ..
            } => Ok(Command::Invite { player, to, rules }),
            ClientMessage::WatchTournament { tournament, .. } => {
                Ok(Command::Tournament(TournamentCommand::Watch { tournament }))
            }
            ClientMessage::UnwatchTournament { tournament, .. } => {
                Ok(Command::Tournament(TournamentCommand::Unwatch { tournament }))
            }
        };
        (id, command)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spades_engine::Seat;

    fn read(json: &str) -> (MessageId, Result<Command, Unmade>) {
        let message = spades_protocol::read::read_client_message(json).expect("a valid message");
        Command::read(message)
    }

    fn command(json: &str) -> Command {
        read(json).1.expect("a command")
    }

    #[test]
    fn the_connection_s_own_messages() {
        assert_eq!(
            command(r#"{"type":"hello","id":1,"version":1,"name":"Ann"}"#),
            Command::Hello {
                version: 1,
                name: Some("Ann".into()),
                token: None
            }
        );
        assert_eq!(command(r#"{"type":"ping","id":"p"}"#), Command::Ping);
    }

    #[test]
    fn the_lobby_s_commands() {
        assert_eq!(
            command(r#"{"type":"join_room","id":2,"room":"ABC123"}"#),
            Command::Lobby(LobbyCommand::Enter {
                room: "ABC123".into(),
                last_seq: None
            })
        );
        assert_eq!(
            command(r#"{"type":"resync","id":3,"room":"ABC123","last_seq":40}"#),
            Command::Lobby(LobbyCommand::Enter {
                room: "ABC123".into(),
                last_seq: Some(40)
            })
        );
        assert_eq!(
            command(r#"{"type":"leave_room","id":4}"#),
            Command::Lobby(LobbyCommand::LeaveRoom)
        );
        assert_eq!(
            command(r#"{"type":"watch_lobby","id":5}"#),
            Command::Lobby(LobbyCommand::Watch)
        );
        assert!(matches!(
            command(r#"{"type":"create_room","id":6,"private":true}"#),
            Command::Lobby(LobbyCommand::CreateRoom(NewRoomRequest { private: true, .. }))
        ));
    }

    #[test]
    fn a_room_s_commands_are_made_once_with_their_id() {
        let (id, made) = read(r#"{"type":"play","id":"c7","card":"QH"}"#);
        assert_eq!(id, MessageId::Text("c7".into()));
        assert_eq!(
            made,
            Ok(Command::Room(RoomCommand::Act {
                action: Action::Play("QH".parse().expect("a card"))
            }))
        );
        assert_eq!(
            command(r#"{"type":"sit","id":8,"seat":2}"#),
            Command::Room(RoomCommand::Sit { seat: Seat::new(2) })
        );
        assert_eq!(
            command(r#"{"type":"look","id":9}"#),
            Command::Room(RoomCommand::Act {
                action: Action::LookAtHand
            })
        );
        assert_eq!(
            command(r#"{"type":"chat","id":10,"text":"gg"}"#),
            Command::Room(RoomCommand::Chat { text: "gg".into() })
        );
    }

    #[test]
    fn a_bid_no_rule_allows_is_refused_as_it_is_read() {
        let (id, made) = read(r#"{"type":"bid","id":11,"bid":99,"blind":false}"#);
        assert_eq!(id, MessageId::Number(11));
        assert_eq!(made.map_err(|(code, _)| code), Err(ErrorCode::InvalidBid));
        assert_eq!(
            command(r#"{"type":"bid","id":12,"bid":0,"blind":true}"#),
            Command::Room(RoomCommand::Act {
                action: Action::Bid(Bid::from_parts(0, true).expect("blind nil"))
            })
        );
    }

    #[test]
    fn the_queue_s_and_the_tournaments_commands() {
        assert_eq!(
            command(r#"{"type":"queue","id":13}"#),
            Command::Queue(QueueCommand::Join {
                rules: Preset::Classic,
                partner: None
            })
        );
        assert_eq!(
            command(r#"{"type":"leave_queue","id":14}"#),
            Command::Queue(QueueCommand::Leave)
        );
        assert_eq!(
            command(r#"{"type":"watch_tournament","id":15,"tournament":"t"}"#),
            Command::Tournament(TournamentCommand::Watch {
                tournament: "t".into()
            })
        );
    }
}
