//! Each family of commands reaches its handler: a connection served over
//! channels, in front of a real server on a fresh SQLite file, is sent one
//! message of each family and answers as that family's handler does.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::ws::Message;
use futures_util::{Sink, Stream};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::{Config, Server};

/// A client's end of a socket: what the test sends comes out of the
/// stream, and what the connection writes goes into the channel.
struct Channels {
    incoming: mpsc::UnboundedReceiver<Result<Message, axum::Error>>,
    outgoing: mpsc::UnboundedSender<String>,
}

impl Stream for Channels {
    type Item = Result<Message, axum::Error>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.incoming.poll_recv(cx)
    }
}

impl Sink<Message> for Channels {
    type Error = ();
    fn poll_ready(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), ()>> {
        Poll::Ready(Ok(()))
    }
    fn start_send(self: Pin<&mut Self>, message: Message) -> Result<(), ()> {
        if let Message::Text(text) = message {
            let _ = self.outgoing.send(text.as_str().to_owned());
        }
        Ok(())
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), ()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), ()>> {
        Poll::Ready(Ok(()))
    }
}

/// The test's side of one served connection.
struct Client {
    send: mpsc::UnboundedSender<Result<Message, axum::Error>>,
    receive: mpsc::UnboundedReceiver<String>,
}

impl Client {
    /// Sends `message` and answers the reply with its `id`, skipping what
    /// comes unasked (events, lobby news).
    async fn ask(&mut self, message: Value) -> Value {
        let id = message["id"].clone();
        let text = Message::Text(message.to_string().into());
        self.send.send(Ok(text)).expect("the connection reads");
        loop {
            let reply = tokio::time::timeout(Duration::from_secs(10), self.receive.recv())
                .await
                .expect("an answer in time")
                .expect("the connection is open");
            let reply: Value = serde_json::from_str(&reply).expect("JSON");
            if reply["id"] == id {
                return reply;
            }
        }
    }
}

/// A server on a fresh SQLite file, and a connection to it served over
/// channels.
async fn connect() -> (Server, Client) {
    let file = std::env::temp_dir().join(format!("spades-dispatch-{}.db", uuid::Uuid::new_v4()));
    let config = Config {
        database_url: format!("sqlite:{}", file.display()),
        ..Config::default()
    };
    let server = Server::start(config, "127.0.0.1:0".parse().expect("an address"))
        .await
        .expect("the server starts");
    let state = server.state().clone();
    let slot = state
        .admit(None)
        .unwrap_or_else(|_| panic!("a place for the connection"));
    let (send, incoming) = mpsc::unbounded_channel();
    let (outgoing, receive) = mpsc::unbounded_channel();
    tokio::spawn(super::serve(Channels { incoming, outgoing }, state, slot));
    (server, Client { send, receive })
}

fn error_code(reply: &Value) -> &str {
    assert_eq!(reply["type"], "error", "{reply}");
    reply["code"].as_str().expect("a code")
}

#[tokio::test]
async fn each_family_of_commands_is_answered_by_its_own_handler() {
    let (_server, mut client) = connect().await;
    use serde_json::json;

    // The connection's own: nothing before hello, then hello once.
    let early = client.ask(json!({"type": "ping", "id": 1})).await;
    assert_eq!(error_code(&early), "hello_first");
    let welcome = client
        .ask(json!({"type": "hello", "id": 2, "version": 1, "name": "Ann"}))
        .await;
    assert_eq!(welcome["type"], "welcome", "{welcome}");
    let again = client
        .ask(json!({"type": "hello", "id": 3, "version": 1, "name": "Ann"}))
        .await;
    assert_eq!(error_code(&again), "already_hello");
    assert_eq!(client.ask(json!({"type": "ping", "id": 4})).await["type"], "pong");

    // A room's command needs a room; a bid no rule allows is refused as it
    // is read, before any room is asked.
    let outside = client.ask(json!({"type": "sit", "id": 5})).await;
    assert_eq!(error_code(&outside), "not_in_room");
    let bid = client
        .ask(json!({"type": "bid", "id": 6, "bid": 99, "blind": false}))
        .await;
    assert_eq!(error_code(&bid), "invalid_bid");

    // The lobby's: the list, then a room of one's own, where the room's
    // commands now reach the room.
    assert_eq!(
        client.ask(json!({"type": "list_rooms", "id": 7})).await["type"],
        "rooms"
    );
    let created = client.ask(json!({"type": "create_room", "id": 8})).await;
    assert_eq!(created["type"], "snapshot", "{created}");
    let sat = client.ask(json!({"type": "sit", "id": 9, "seat": 0})).await;
    assert_eq!(sat["type"], "ack", "{sat}");
    let start = client.ask(json!({"type": "start_game", "id": 10})).await;
    assert_eq!(error_code(&start), "not_enough_players");

    // The queue's and the tournaments'.
    let unqueued = client.ask(json!({"type": "leave_queue", "id": 11})).await;
    assert_eq!(error_code(&unqueued), "not_queued");
    let watch = client
        .ask(json!({"type": "watch_tournament", "id": 12, "tournament": "none"}))
        .await;
    assert_eq!(error_code(&watch), "tournament_not_found");
    let left = client.ask(json!({"type": "leave_room", "id": 13})).await;
    assert_eq!(left["type"], "ack", "{left}");
}
