//! `hello`: who the connection's player is, from a session token or as a
//! new guest, and the `welcome` that tells him where he was seated.

use std::borrow::Cow;

use spades_protocol::ws::{ErrorCode, MessageId, PROTOCOL_VERSION, ServerMessage};
use time::OffsetDateTime;

use super::{REPLACE_WAIT, Session};
use crate::identity;
use spades_room::PlayerRef;
use spades_room::unavailable::Unavailable;

impl Session {
    pub(super) async fn hello(
        &mut self,
        id: MessageId,
        version: u32,
        name: Option<String>,
        token: Option<String>,
    ) {
        if version != PROTOCOL_VERSION {
            let message = format!("this server speaks protocol version {PROTOCOL_VERSION}");
            return self.send_error(Some(id), ErrorCode::UnsupportedVersion, message);
        }
        let found = match (token, name) {
            (Some(token), _) => self.returning(token).await,
            (None, Some(name)) => match identity::clean_name(&name) {
                None => Err((ErrorCode::BadName, identity::NAME_RULES.into())),
                Some(name) => self.new_guest(&name).await,
            },
            (None, None) => Err((ErrorCode::BadMessage, "hello needs a name or a token".into())),
        };
        let (player, token) = match found {
            Ok(found) => found,
            Err((code, message)) => return self.send_error(Some(id), code, message),
        };
        // Past this point the connection is the player's and keeps its
        // place; one already told to close for another's sake closes
        // instead (the serving loop sees it), before it displaces the
        // player's other connection.
        if !self.slot.welcome() {
            return;
        }
        let session = identity::token_hash(&token);
        if let Some(previous) = self.state.online().connect(&player, self.outbox.clone(), session) {
            // The old connection leaves its room before this one can ask
            // to come back in, so that the others always see the player
            // away, then back, in that order. It takes a moment; the
            // bound only matters for a connection stuck in its goodbyes.
            let _ = tokio::time::timeout(REPLACE_WAIT, previous.has_departed()).await;
        }
        let here = self
            .state
            .lobby()
            .seated_room(player.id.clone())
            .await
            .ok()
            .flatten();
        // A hello here replaces the player's connection on any other node,
        // and his seat may be in a room of another node.
        let elsewhere = self.state.network().hello(&player.id, self.outbox.id()).await;
        let room = here.or(elsewhere);
        self.send(&ServerMessage::Welcome {
            id,
            version: PROTOCOL_VERSION,
            player: player.info(),
            token,
            room,
            node: self.state.config().node_name().map(str::to_string),
        });
        self.player = Some(player);
    }

    /// The player behind a session token. While the store cannot answer,
    /// a session this server has seen still lets its player in, so that
    /// he can get back to a table that plays on without the store.
    async fn returning(&self, token: String) -> Result<(PlayerRef, String), (ErrorCode, Cow<'static, str>)> {
        let session = identity::token_hash(&token);
        let known = self.state.known_sessions();
        match identity::resolve_session(self.state.store(), &token).await {
            Ok(Some((account, expires_at))) => {
                match crate::api::moderation::bar(self.state.store(), account.id).await {
                    Ok(None) => {}
                    Ok(Some(sanction)) => {
                        let (_, code, message) = crate::api::moderation::barred(&sanction);
                        let code = if code == "banned" {
                            ErrorCode::Banned
                        } else {
                            ErrorCode::Suspended
                        };
                        return Err((code, message.into()));
                    }
                    Err(error) => tracing::warn!(%error, "cannot read the player's sanctions during hello"),
                }
                let player = PlayerRef::from(&account);
                known.remember(session, &player, expires_at);
                Ok((player, token))
            }
            Ok(None) => {
                known.forget(&session);
                Err((ErrorCode::BadToken, "unknown or expired token".into()))
            }
            Err(error) => match known.recall(&session, OffsetDateTime::now_utc()) {
                Some(player) if error.is_transient() => {
                    tracing::warn!(%error, "storage unavailable during hello; a session seen before lets its player in");
                    Ok((player, token))
                }
                _ => {
                    tracing::error!(%error, "storage error during hello");
                    Err((Unavailable::Store.code(), Unavailable::Store.message().into()))
                }
            },
        }
    }

    /// A new guest and his session, which the server remembers.
    async fn new_guest(&self, name: &str) -> Result<(PlayerRef, String), (ErrorCode, Cow<'static, str>)> {
        let lifetime = self.state.config().session_lifetime;
        match identity::new_guest(self.state.store(), name, lifetime).await {
            Ok((player, token)) => {
                let expires_at = OffsetDateTime::now_utc() + lifetime;
                self.state
                    .known_sessions()
                    .remember(identity::token_hash(&token), &player, expires_at);
                Ok((player, token))
            }
            Err(error) => {
                tracing::error!(%error, "storage error during hello");
                Err((Unavailable::Store.code(), Unavailable::Store.message().into()))
            }
        }
    }
}
