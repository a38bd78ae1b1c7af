//! Acting on what moderators and administrators decide, on this node and,
//! through the cluster, on every other: a suspended player's connection
//! closes wherever it is, a mute silences him in every room, a notice
//! reaches every connected player.
//!
//! The store is the record: a sanction is stored (with its audit line)
//! before it is acted on, and every node reads the mutes and the
//! maintenance in force when it starts. What is acted on here is only what
//! must happen at once; a token of a suspended player is refused by the
//! store's answer at his next request whichever node he tries.

use std::collections::{HashMap, HashSet};

use spades_lobby::ModerationEvent;
use spades_protocol::ws::{NoticeKind, ServerMessage};
use spades_room::{Maintenance, Mute, Policy, Text, maintenance_words, until_words};
use spades_store::{SanctionKind, Store, StoreError};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::AppState;

/// The `notice` a sanctioned player is sent, in words for him.
pub(crate) fn sanction_notice(
    kind: SanctionKind,
    reason: &str,
    until: Option<OffsetDateTime>,
) -> ServerMessage {
    let (kind, message) = match kind {
        SanctionKind::Warn => (NoticeKind::Warning, format!("A moderator warns you: {reason}")),
        SanctionKind::Mute => (
            NoticeKind::Muted,
            format!("A moderator muted you {}: {reason}", until_words(until)),
        ),
        SanctionKind::Suspend => (
            NoticeKind::Suspended,
            format!("You are suspended {}: {reason}", until_words(until)),
        ),
        SanctionKind::Ban => (
            NoticeKind::Banned,
            format!("You are banned {}: {reason}", until_words(until)),
        ),
    };
    ServerMessage::Notice {
        kind,
        message,
        until: until.and_then(rfc3339),
    }
}

pub(crate) fn rfc3339(time: OffsetDateTime) -> Option<String> {
    time.format(&time::format_description::well_known::Rfc3339).ok()
}

/// Until when quick play is paused for a player who abandoned games at
/// rated tables lately (see `spades_lobby::pause`), if it is.
pub(crate) async fn quick_play_pause(
    store: &Store,
    account: Uuid,
) -> Result<Option<OffsetDateTime>, StoreError> {
    let now = OffsetDateTime::now_utc();
    let abandoned = store
        .abandoned_rated_since(account, now - spades_lobby::pause::PAUSE_WINDOW)
        .await?;
    Ok(spades_lobby::pause::paused_until(&abandoned, now))
}

/// How often a node reads the mutes, blocks and maintenance in force
/// again: a change made through another node reaches it at once over the
/// cluster, but one made with `spades admin` only through the store.
pub(crate) const POLICY_REFRESH: std::time::Duration = std::time::Duration::from_secs(10);

/// Fills the node's policy from the store: the mutes, the blocks and the
/// maintenance in force.
pub(crate) async fn load_policy(store: &Store, policy: &Policy) -> Result<(), StoreError> {
    let now = OffsetDateTime::now_utc();
    let mut mutes = HashMap::new();
    for sanction in store.all_sanctions_in_force(now).await? {
        if sanction.kind == SanctionKind::Mute {
            let mute = Mute {
                until: sanction.ends_at,
                reason: sanction.reason,
            };
            mutes.insert(sanction.account, mute);
        }
    }
    let mut blocks: HashMap<Uuid, HashSet<Uuid>> = HashMap::new();
    for (blocker, blocked) in store.all_blocks().await? {
        blocks.entry(blocker).or_default().insert(blocked);
    }
    policy.replace(mutes, blocks);
    let maintenance = store.maintenance().await?;
    policy.set_maintenance(maintenance.map(|(until, message)| Maintenance { until, message }));
    Ok(())
}

/// Reads the policy again every [`POLICY_REFRESH`] until `stop`.
pub(crate) async fn refresh_policy(state: AppState, stop: tokio_util::sync::CancellationToken) {
    let mut ticks = tokio::time::interval(POLICY_REFRESH);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ticks.tick().await;
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = ticks.tick() => {
                if let Err(error) = load_policy(state.store(), state.policy()).await {
                    tracing::warn!(%error, "cannot read the mutes, blocks and maintenance in force again");
                }
            }
        }
    }
}

impl AppState {
    pub(crate) fn policy(&self) -> &Policy {
        &self.shared.policy
    }

    /// Acts on a moderation event here and tells the other nodes of it.
    pub(crate) async fn moderate(&self, event: ModerationEvent) {
        self.act_on(&event);
        self.network().share_moderation(&event).await;
    }

    /// Does on this node what a moderation event asks.
    pub(crate) fn act_on(&self, event: &ModerationEvent) {
        match event {
            ModerationEvent::Sanctioned {
                account,
                kind,
                reason,
                until,
            } => {
                let Some(kind) = SanctionKind::parse(kind) else {
                    return tracing::warn!(kind, "a sanction of an unknown kind");
                };
                self.sanctioned(*account, kind, reason, *until);
            }
            ModerationEvent::Lifted { account, kind } => {
                if SanctionKind::parse(kind) == Some(SanctionKind::Mute) {
                    self.policy().unmute(*account);
                    let notice = ServerMessage::Notice {
                        kind: NoticeKind::Unmuted,
                        message: "A moderator lifted your mute: you may chat again.".into(),
                        until: None,
                    };
                    self.online()
                        .send(&account.to_string(), Text::from(notice.to_json()));
                }
            }
            ModerationEvent::SessionsEnded { account } => {
                self.known_sessions().forget_account(*account);
                self.online().end_sessions_of(&account.to_string());
            }
            ModerationEvent::Block { account, blocked, on } => {
                if *on {
                    self.policy().block(*account, *blocked);
                } else {
                    self.policy().unblock(*account, *blocked);
                }
            }
            ModerationEvent::EndRoom { code, reason } => {
                let (lobby, code, reason) = (self.lobby().clone(), code.clone(), reason.clone());
                tokio::spawn(async move {
                    if let Ok(Some(room)) = lobby.find(&code).await
                        && room.is_local()
                    {
                        let _ = room.send(spades_room::RoomRequest::End { reason }).await;
                    }
                });
            }
            ModerationEvent::Notice { message } => {
                let notice = ServerMessage::Notice {
                    kind: NoticeKind::Broadcast,
                    message: message.clone(),
                    until: None,
                };
                self.online().broadcast(&Text::from(notice.to_json()));
            }
            ModerationEvent::Maintenance {
                active,
                until,
                message,
            } => self.maintenance(*active, *until, message),
        }
    }

    fn sanctioned(&self, account: Uuid, kind: SanctionKind, reason: &str, until: Option<OffsetDateTime>) {
        let player = account.to_string();
        let notice = Text::from(sanction_notice(kind, reason, until).to_json());
        match kind {
            SanctionKind::Warn => {
                self.online().send(&player, notice);
            }
            SanctionKind::Mute => {
                let mute = Mute {
                    until,
                    reason: reason.to_string(),
                };
                self.policy().mute(account, mute);
                self.online().send(&player, notice);
            }
            SanctionKind::Suspend | SanctionKind::Ban => {
                // The server no longer vouches for his sessions while the
                // store is away, and his connection closes with the reason.
                self.known_sessions().forget_account(account);
                self.online().close_sanctioned(&player, notice);
            }
        }
    }

    fn maintenance(&self, active: bool, until: Option<OffsetDateTime>, message: &str) {
        let notice = if active {
            let maintenance = Maintenance {
                until,
                message: message.to_string(),
            };
            let words = maintenance_words(&maintenance);
            self.policy().set_maintenance(Some(maintenance));
            ServerMessage::Notice {
                kind: NoticeKind::Maintenance,
                message: words,
                until: until.and_then(rfc3339),
            }
        } else {
            self.policy().set_maintenance(None);
            ServerMessage::Notice {
                kind: NoticeKind::MaintenanceOver,
                message: "The maintenance is over: rooms, games and quick play are open again.".into(),
                until: None,
            }
        };
        self.online().broadcast(&Text::from(notice.to_json()));
    }
}
