//! What the node running the tournaments asks of the others: to open a
//! table, to pass a message to a player connected there, and to show a
//! changed tournament to its watchers there.

use serde::{Deserialize, Serialize};
use spades_engine::RuleSet;
use spades_protocol::ws::BotLevel;
use spades_room::Text;
use spades_store::TableLink;
use uuid::Uuid;

use super::{Cluster, Parts, wire};
use spades_lobby::TournamentTable;
use spades_room::PlayerRef;

/// A tournament table as it travels to the node that opens it.
#[derive(Debug, Serialize, Deserialize)]
struct OpenTournamentTable {
    code: String,
    name: String,
    rules: RuleSet,
    tournament: Uuid,
    stage: u32,
    table: u32,
    /// Each seat's account and name; `None` for a bot.
    seats: Vec<Option<(Uuid, String)>>,
    /// A duplicate round's seed; absent from a node that does not know
    /// duplicate tournaments, and for a fresh deal.
    #[serde(default)]
    deal_seed: Option<u64>,
}

impl Cluster {
    /// Asks `node` to open a tournament table; says whether it did.
    pub async fn open_tournament_table_on(&self, node: &str, table: TournamentTable) -> bool {
        let open = OpenTournamentTable {
            code: table.code.to_string(),
            name: table.name,
            rules: table.rules,
            tournament: table.link.tournament,
            stage: table.link.stage,
            table: table.link.table,
            seats: table
                .players
                .iter()
                .map(|player| {
                    player
                        .bot
                        .is_none()
                        .then(|| (player.account, player.name.to_string()))
                })
                .collect(),
            deal_seed: table.deal_seed,
        };
        let Ok(body) = serde_json::to_vec(&open) else {
            return false;
        };
        let asked = self
            .inner
            .client
            .request(format!("spades.node.{node}.open_tournament"), body.into());
        match tokio::time::timeout(super::queue::ASK_WAIT, asked).await {
            Ok(Ok(answer)) => answer.payload.as_ref() == b"true",
            _ => false,
        }
    }

    /// Opens the tournament tables the node running the tournaments asks
    /// this node to: claims the code first, so that no other node can
    /// have it, and registers the room before answering.
    pub(super) async fn serve_tournament_tables(self, mut requests: async_nats::Subscriber, parts: Parts) {
        while let Some(message) = super::next_message(&mut requests, &parts.stop).await {
            let opened = match serde_json::from_slice::<OpenTournamentTable>(&message.payload) {
                Ok(open) => self.open_here(open, &parts).await,
                Err(_) => false,
            };
            if let Some(reply) = message.reply {
                let answer: &[u8] = if opened { b"true" } else { b"false" };
                let _ = self.inner.client.publish(reply, answer.to_vec().into()).await;
            }
        }
    }

    async fn open_here(&self, open: OpenTournamentTable, parts: &Parts) -> bool {
        let players: Vec<PlayerRef> = open
            .seats
            .iter()
            .enumerate()
            .map(|(seat, person)| match person {
                Some((account, name)) => wire::player(*account, name),
                None => PlayerRef::bot(BotLevel::Basic, seat as u8),
            })
            .collect();
        let Ok(players) = <[PlayerRef; 4]>::try_from(players) else {
            return false;
        };
        if !self.claim(&open.code, None).await {
            return false;
        }
        let table = TournamentTable {
            code: open.code.as_str().into(),
            name: open.name,
            rules: open.rules,
            link: TableLink {
                tournament: open.tournament,
                stage: open.stage,
                table: open.table,
            },
            players,
            deal_seed: open.deal_seed,
        };
        let opened = parts.lobby.open_tournament_table(table).await.unwrap_or(false);
        opened && self.write_room(&open.code, None, false).await.is_ok()
    }

    /// Sends a message to a player's connection, on whichever node holds
    /// it.
    pub async fn notify(&self, player: &str, message: Text) {
        let subject = format!("spades.notice.{player}");
        let body = message.as_str().as_bytes().to_vec();
        if let Err(error) = self.inner.client.publish(subject, body.into()).await {
            tracing::warn!(%error, "cannot pass a message to a player's node");
        }
    }

    /// Passes the messages for players connected to this node.
    pub(super) async fn deliver_notices(self, mut notices: async_nats::Subscriber, parts: Parts) {
        while let Some(message) = super::next_message(&mut notices, &parts.stop).await {
            let Some(player) = message.subject.rsplit('.').next() else {
                continue;
            };
            if let Ok(text) = std::str::from_utf8(&message.payload) {
                parts.online.send(player, Text::from(text.to_string()));
            }
        }
    }

    /// Tells the other nodes that a tournament changed, for their watchers.
    pub async fn tournament_changed(&self, tournament: Uuid) {
        let subject = format!("spades.tournament.{tournament}");
        let body = self.inner.node.as_bytes().to_vec();
        let _ = self.inner.client.publish(subject, body.into()).await;
    }

    /// Shows the tournaments changed on other nodes to this node's watchers.
    pub(super) async fn follow_tournaments(self, mut changes: async_nats::Subscriber, parts: Parts) {
        while let Some(message) = super::next_message(&mut changes, &parts.stop).await {
            if message.payload.as_ref() == self.inner.node.as_bytes() {
                continue;
            }
            let id = message
                .subject
                .rsplit('.')
                .next()
                .and_then(|id| id.parse::<Uuid>().ok());
            if let Some(id) = id {
                parts.tournaments.changed_elsewhere(id).await;
            }
        }
    }
}
