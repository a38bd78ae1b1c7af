//! Login attempts and moderation shared between nodes: each node
//! publishes what its login limiter counted or forgave, and counts the
//! others', so that the login limits hold across the cluster; and each
//! publishes what its moderators did that every node must act on (a
//! suspension closes the player's connection wherever it is).

use spades_lobby::{ModerationEvent, SharedAttempt};

use super::{Cluster, Parts, next_message};

impl Cluster {
    /// Tells the other nodes of a login attempt counted or forgiven here.
    pub async fn share_login(&self, attempt: &SharedAttempt) {
        let body = serde_json::to_vec(attempt).unwrap_or_default();
        let subject = format!("spades.login.{}", self.inner.node);
        if let Err(error) = self.inner.client.publish(subject, body.into()).await {
            tracing::warn!(%error, "cannot tell the cluster of a login attempt");
        }
    }

    /// Counts the login attempts of the other nodes in this node's limiter.
    pub(super) async fn hear_logins(self, mut logins: async_nats::Subscriber, parts: Parts) {
        let own = format!("spades.login.{}", self.inner.node);
        while let Some(message) = next_message(&mut logins, &parts.stop).await {
            if message.subject.as_str() == own {
                continue;
            }
            match serde_json::from_slice::<SharedAttempt>(&message.payload) {
                Ok(attempt) => (parts.login_heard)(&attempt),
                Err(error) => tracing::warn!(%error, "a login attempt from another node does not read"),
            }
        }
    }
}

impl Cluster {
    /// Tells the other nodes of a moderator's or administrator's action
    /// that this node has already acted on.
    pub async fn share_moderation(&self, event: &ModerationEvent) {
        let body = serde_json::to_vec(event).unwrap_or_default();
        let subject = format!("spades.moderation.{}", self.inner.node);
        if let Err(error) = self.inner.client.publish(subject, body.into()).await {
            tracing::warn!(%error, "cannot tell the cluster of a moderation action");
        }
    }

    /// Acts on the other nodes' moderation actions.
    pub(super) async fn hear_moderation(self, mut events: async_nats::Subscriber, parts: Parts) {
        let own = format!("spades.moderation.{}", self.inner.node);
        while let Some(message) = next_message(&mut events, &parts.stop).await {
            if message.subject.as_str() == own {
                continue;
            }
            match serde_json::from_slice::<ModerationEvent>(&message.payload) {
                Ok(event) => (parts.moderation_heard)(&event),
                Err(error) => tracing::warn!(%error, "a moderation action from another node does not read"),
            }
        }
    }
}
