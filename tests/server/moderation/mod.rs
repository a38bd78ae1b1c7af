//! Moderation and the operators' tools, end to end: roles, sanctions that
//! keep a player out on every door, reports, blocks, a private room's
//! owner removing a player, the chat word list, notices, maintenance, the
//! audit log, and the care of one's own account.

mod accounts;
mod operations;
mod protection;
mod ratings;
mod roles;
mod sanctions;

use reqwest::Method;
use serde_json::{Value, json};
use spades_protocol::http::Session;
use spades_server::Config;

pub(crate) use crate::support::api::PASSWORD;
use crate::support::*;

/// A server with an administrator (made one by `spades admin`) and a
/// moderator (made one by the administrator), and their tokens.
pub(crate) struct Site {
    pub(crate) server: TestServer,
    pub(crate) admin: Session,
    pub(crate) moderator: Session,
}

impl Site {
    pub(crate) async fn start(config: Config) -> Site {
        let server = TestServer::start(config).await;
        let api = server.api();
        let admin = api.account("Ada").await;
        server.make_admin("Ada");
        let moderator = api.account("Mo").await;
        let role = json!({"role": "moderator", "reason": "trusted regular"});
        let path = format!("/api/players/{}/role", moderator.player.id);
        api.post(&path, Some(role), Some(&admin.token)).await.expect(204);
        Site {
            server,
            admin,
            moderator,
        }
    }

    pub(crate) fn api(&self) -> Api {
        self.server.api()
    }

    /// `POST /api/players/{id}/sanctions` by `token`.
    pub(crate) async fn sanction(&self, token: &str, player: &str, body: Value) -> HttpAnswer {
        let path = format!("/api/players/{player}/sanctions");
        self.api().post(&path, Some(body), Some(token)).await
    }

    /// Any request by `token`.
    pub(crate) async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        token: &str,
    ) -> HttpAnswer {
        self.api().send(method, path, body, Some(token)).await
    }
}
