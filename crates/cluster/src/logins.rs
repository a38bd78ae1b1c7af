//! Login attempts shared between nodes, so that the login limits hold
//! across the cluster: each node publishes what its limiter counted or
//! forgave, and counts the others'.

use spades_lobby::SharedAttempt;

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
