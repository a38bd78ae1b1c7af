//! A stage's tables: their room codes, and each table opened through the
//! lobby with its players told where to sit.

use spades_engine::{RuleSet, Seat};
use spades_protocol::ws::{BotLevel, ServerMessage};
use spades_room::Text;
use spades_store::{NewTable, StoredTable, TableLink, Tournament};

use super::{Manager, duplicate};
use crate::{TournamentTable, new_code};
use spades_room::PlayerRef;

impl Manager {
    /// Opens one table and tells its players where to go. False when it was
    /// not opened now (it is open already, or no game can start).
    pub(super) async fn open_table(&self, tournament: &Tournament, stage: u32, table: &StoredTable) -> bool {
        let id = tournament.summary.id;
        let Ok(rules) = serde_json::from_value::<RuleSet>(tournament.rules.clone()) else {
            tracing::error!(tournament = %id, "stored tournament rules are not valid");
            return false;
        };
        let mut players = Vec::with_capacity(4);
        for (seat, entry) in table.seats.iter().enumerate() {
            let Some(entrant) = tournament.entrant(*entry) else {
                tracing::error!(tournament = %id, entry, "a table seats an unknown entry");
                return false;
            };
            players.push(if entrant.bot {
                PlayerRef::bot(BotLevel::Basic, seat as u8)
            } else {
                PlayerRef::new(entrant.account_id, &entrant.name)
            });
        }
        let Ok(players) = <[PlayerRef; 4]>::try_from(players) else {
            return false;
        };
        let word = if tournament.summary.format == "knockout" {
            "stage"
        } else {
            "round"
        };
        let name = format!(
            "{}: {word} {}, table {}",
            tournament.summary.name,
            stage + 1,
            table.table + 1
        );
        let link = TableLink {
            tournament: id,
            stage,
            table: table.table,
        };
        let opened = self
            .open_tournament_table(TournamentTable {
                code: table.room.as_str().into(),
                name: name.chars().take(60).collect(),
                rules,
                link,
                players: players.clone(),
                deal_seed: duplicate::is_duplicate(&tournament.summary.format)
                    .then(|| duplicate::deal_seed(tournament.seed, stage)),
            })
            .await;
        if opened {
            for (seat, player) in Seat::ALL.into_iter().zip(&players) {
                if player.bot.is_some() {
                    continue;
                }
                let message = ServerMessage::TournamentTable {
                    tournament: id.to_string(),
                    stage,
                    table: table.table,
                    room: table.room.clone(),
                    seat,
                };
                self.notify(&player.id, Text::from(message.to_json())).await;
            }
        }
        opened
    }
}

/// Tables of a new stage, each with a fresh private room code.
pub(super) fn new_tables(seats: Vec<[u32; 4]>) -> Vec<NewTable> {
    seats
        .into_iter()
        .enumerate()
        .map(|(table, seats)| NewTable {
            table: table as u32,
            seats,
            room: new_code(true),
        })
        .collect()
}
