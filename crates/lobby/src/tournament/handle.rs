//! The tournament task's address and the requests it takes, and why a
//! request can be refused.

use spades_protocol::http::TournamentView;
use spades_store::StoreError;
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use spades_room::outbox::{ConnectionId, Outbox};
use spades_room::unavailable::Unavailable;

/// Why a tournament request was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    NotFound,
    /// Registration is over: the tournament started, finished or was cancelled.
    NotOpen,
    Full,
    AlreadyRegistered,
    NotRegistered,
    TooFew,
    Unavailable(Unavailable),
}

impl Refusal {
    /// The HTTP API's error code.
    pub fn code(self) -> &'static str {
        match self {
            Refusal::NotFound => "not_found",
            Refusal::NotOpen => "not_open",
            Refusal::Full => "full",
            Refusal::AlreadyRegistered => "already_registered",
            Refusal::NotRegistered => "not_registered",
            Refusal::TooFew => "too_few_players",
            Refusal::Unavailable(unavailable) => unavailable.api_code(),
        }
    }

    pub fn message(self) -> &'static str {
        match self {
            Refusal::NotFound => "no such tournament",
            Refusal::NotOpen => "the tournament is not open for that any more",
            Refusal::Full => "the tournament is full",
            Refusal::AlreadyRegistered => "you are registered already",
            Refusal::NotRegistered => "you are not registered",
            Refusal::TooFew => "a tournament needs at least four entries to start",
            Refusal::Unavailable(unavailable) => unavailable.message(),
        }
    }
}

impl From<StoreError> for Refusal {
    fn from(error: StoreError) -> Refusal {
        tracing::error!(%error, "storage error in a tournament");
        Refusal::Unavailable(Unavailable::Store)
    }
}

pub(super) type Reply<T> = oneshot::Sender<Result<T, Refusal>>;

#[derive(Debug)]
pub(super) enum Request {
    Register {
        tournament: Uuid,
        account: Uuid,
        reply: Reply<u32>,
    },
    Unregister {
        tournament: Uuid,
        account: Uuid,
        reply: Reply<()>,
    },
    AddBots {
        tournament: Uuid,
        count: u32,
        reply: Reply<()>,
    },
    Start {
        tournament: Uuid,
        reply: Reply<()>,
    },
    Cancel {
        tournament: Uuid,
        reply: Reply<()>,
    },
    Created {
        tournament: Uuid,
    },
    Watch {
        tournament: Uuid,
        outbox: Outbox,
        reply: Reply<TournamentView>,
    },
    Unwatch {
        tournament: Uuid,
        connection: ConnectionId,
    },
    /// Another node of the cluster changed the tournament: its watchers
    /// here are sent the new view.
    ChangedElsewhere {
        tournament: Uuid,
    },
}

/// The tournament task's address. Cheap to clone.
#[derive(Clone, Debug)]
pub struct TournamentHandle {
    pub(super) requests: mpsc::Sender<Request>,
}

impl TournamentHandle {
    async fn ask<T>(&self, make: impl FnOnce(Reply<T>) -> Request) -> Result<T, Refusal> {
        let (reply, answer) = oneshot::channel();
        // The runner stops only when the server does.
        let gone = Refusal::Unavailable(Unavailable::ShuttingDown);
        self.requests.send(make(reply)).await.map_err(|_| gone)?;
        answer.await.map_err(|_| gone)?
    }

    pub async fn register(&self, tournament: Uuid, account: Uuid) -> Result<u32, Refusal> {
        self.ask(|reply| Request::Register {
            tournament,
            account,
            reply,
        })
        .await
    }

    pub async fn unregister(&self, tournament: Uuid, account: Uuid) -> Result<(), Refusal> {
        self.ask(|reply| Request::Unregister {
            tournament,
            account,
            reply,
        })
        .await
    }

    pub async fn add_bots(&self, tournament: Uuid, count: u32) -> Result<(), Refusal> {
        self.ask(|reply| Request::AddBots {
            tournament,
            count,
            reply,
        })
        .await
    }

    pub async fn start(&self, tournament: Uuid) -> Result<(), Refusal> {
        self.ask(|reply| Request::Start { tournament, reply }).await
    }

    pub async fn cancel(&self, tournament: Uuid) -> Result<(), Refusal> {
        self.ask(|reply| Request::Cancel { tournament, reply }).await
    }

    /// A tournament was created: it may be due to start already.
    pub async fn created(&self, tournament: Uuid) {
        let _ = self.requests.send(Request::Created { tournament }).await;
    }

    /// Follows a tournament; the answer is its view now.
    pub async fn watch(&self, tournament: Uuid, outbox: Outbox) -> Result<TournamentView, Refusal> {
        self.ask(|reply| Request::Watch {
            tournament,
            outbox,
            reply,
        })
        .await
    }

    pub async fn unwatch(&self, tournament: Uuid, connection: ConnectionId) {
        let _ = self
            .requests
            .send(Request::Unwatch {
                tournament,
                connection,
            })
            .await;
    }

    /// Tells the watchers on this node of a change made on another node.
    pub async fn changed_elsewhere(&self, tournament: Uuid) {
        let _ = self.requests.send(Request::ChangedElsewhere { tournament }).await;
    }
}
