//! Who is online on the other nodes, for friends' lists: a node asks every
//! node at once which of some players it has a connection for, and
//! gathers the answers of the live nodes for a short while.

use std::collections::HashSet;
use std::time::Duration;

use futures_util::StreamExt;
use tokio::time::Instant;

use super::{Cluster, NODE_TIMEOUT, Parts, lock};

/// Where nodes ask each other about players.
pub(super) const SUBJECT: &str = "spades.presence";

/// The longest a node waits for the others' answers: a friends' list
/// comes a little late rather than wrong when a node is slow, and a node
/// that does not answer in time counts as having nobody.
const PATIENCE: Duration = Duration::from_millis(500);

impl Cluster {
    /// Which of `players` have a connection on another live node.
    pub async fn online_elsewhere(&self, players: &[String]) -> HashSet<String> {
        let mut online = HashSet::new();
        let others = self.other_live_nodes();
        if players.is_empty() || others == 0 {
            return online;
        }
        let client = &self.inner.client;
        let inbox = client.new_inbox();
        let Ok(mut answers) = client.subscribe(inbox.clone()).await else {
            return online;
        };
        let question = serde_json::to_vec(players).unwrap_or_default();
        if let Err(error) = client.publish_with_reply(SUBJECT, inbox, question.into()).await {
            tracing::warn!(%error, "cannot ask the other nodes who is online");
            return online;
        }
        let deadline = Instant::now() + PATIENCE;
        // Every node answers, this one too; the others' answers are the
        // ones counted.
        let mut heard = 0;
        while heard < others {
            let Ok(Some(answer)) = tokio::time::timeout_at(deadline, answers.next()).await else {
                break;
            };
            let Ok((node, here)) = serde_json::from_slice::<(String, Vec<String>)>(&answer.payload) else {
                continue;
            };
            if node != *self.inner.node {
                heard += 1;
                online.extend(here);
            }
        }
        online
    }

    /// How many nodes besides this one are alive, by their heartbeats.
    fn other_live_nodes(&self) -> usize {
        let now = Instant::now();
        lock(&self.inner.heard)
            .iter()
            .filter(|(node, (heard, _))| {
                **node != self.inner.node && now.duration_since(*heard) < NODE_TIMEOUT
            })
            .count()
    }

    /// Answers the other nodes' questions: which of the players named have
    /// a connection here.
    pub(super) async fn answer_presence(self, mut questions: async_nats::Subscriber, parts: Parts) {
        while let Some(question) = super::next_message(&mut questions, &parts.stop).await {
            let (Some(reply), Ok(players)) = (
                question.reply,
                serde_json::from_slice::<Vec<String>>(&question.payload),
            ) else {
                continue;
            };
            let here: Vec<&String> = players
                .iter()
                .filter(|player| parts.online.is_connected(player))
                .collect();
            let answer = serde_json::to_vec(&(&*self.inner.node, here)).unwrap_or_default();
            let _ = self.inner.client.publish(reply, answer.into()).await;
        }
    }
}
