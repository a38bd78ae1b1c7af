//! End-to-end tests of the server: each starts the real server on a free
//! port and drives it with real WebSocket clients.

mod support;

mod accounts;
mod bad_input;
mod behind_nginx;
mod bots;
mod clock;
mod cluster;
mod durability;
mod flood;
mod frames;
mod friends;
mod keepalive;
mod limits;
mod loadtest;
mod lobby_updates;
mod matchmaking;
mod metrics;
mod moderation;
mod new_york;
mod openapi;
mod pace;
mod play;
mod protocol_doc;
mod proxies;
mod reconnect;
mod reviews;
mod same_deals;
// The policy is read from Linux's `/proc`.
#[cfg(target_os = "linux")]
mod scheduling;
mod sessions;
mod slow_client;
mod spectators;
mod strangers;
mod switching;
mod table_talk;
mod team_blind;
mod three_players;
mod tournaments;
mod verifiable;
mod web;
