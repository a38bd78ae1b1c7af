//! What the journal records: [`Store::write`] stores a batch of
//! [`Write`]s in one transaction, a step for each kind of write.
//!
//! Each step is written once and compiled for both backends by
//! `recording!`, as [`on_pool!`] does for the store's other queries: the
//! functions take the backend's own connection, so that one transaction
//! runs through all of them. The game's outcome reaches this file already
//! computed ([`FinishedGame::player_results`]): the steps only store it.

use sqlx::PgPool;
use sqlx::types::Json;
use uuid::Uuid;

use crate::fence::{CheckFences, fences, refuse_stale};
use crate::games::RatingRow;
use crate::{FinishedGame, NewGame, Pool, Result, Store, StoreError, Write};

impl Store {
    /// Applies a batch of journal writes in one transaction: either all of
    /// them are stored or none is.
    pub async fn write(&self, writes: &[Write]) -> Result<()> {
        let fences = fences(writes);
        let actions_only = writes
            .iter()
            .all(|write| matches!(write, Write::Action { .. } | Write::Fence { .. }));
        if actions_only && !writes.is_empty() {
            // Most batches are a few actions: one statement, which is atomic
            // on its own, saves the round trips of a transaction.
            let rows = action_rows(writes);
            if let Pool::Postgres(pool) = &self.journal {
                return insert_actions_fenced(pool, &fences, &rows).await;
            }
            if fences.is_empty() {
                on_pool!(@ &self.journal, pool => InsertActions::insert_actions(pool, &rows).await?);
                return Ok(());
            }
        }
        match &self.journal {
            Pool::Postgres(pool) => postgres::write(pool, writes, &fences).await,
            Pool::Sqlite(pool) => sqlite::write(pool, writes, &fences).await,
        }
    }
}

/// One action row of a journal batch, ready to bind.
pub(crate) struct ActionRow<'a> {
    pub(crate) game: Uuid,
    pub(crate) index: i32,
    pub(crate) seat: i16,
    pub(crate) action: &'a str,
    pub(crate) request_id: Option<&'a str>,
    pub(crate) room_seq: i64,
}

/// How each backend stores a batch of actions inside a transaction. The
/// actions are most of what the journal writes, so this is the one place
/// where the backends run different SQL.
pub(crate) trait InsertActions: sqlx::Database {
    async fn insert_actions<'e, E>(executor: E, rows: &[ActionRow<'_>]) -> Result<()>
    where
        E: sqlx::Executor<'e, Database = Self>;
}

impl InsertActions for sqlx::Postgres {
    /// One statement for the whole batch, whatever its size: the columns go
    /// as arrays, so the statement text never changes and stays prepared.
    async fn insert_actions<'e, E>(executor: E, rows: &[ActionRow<'_>]) -> Result<()>
    where
        E: sqlx::Executor<'e, Database = Self>,
    {
        let games: Vec<Uuid> = rows.iter().map(|row| row.game).collect();
        let indexes: Vec<i32> = rows.iter().map(|row| row.index).collect();
        let seats: Vec<i16> = rows.iter().map(|row| row.seat).collect();
        let actions: Vec<&str> = rows.iter().map(|row| row.action).collect();
        let requests: Vec<Option<&str>> = rows.iter().map(|row| row.request_id).collect();
        let room_seqs: Vec<i64> = rows.iter().map(|row| row.room_seq).collect();
        sqlx::query(
            "INSERT INTO game_actions (game_id, idx, seat, action, request_id, room_seq) \
             SELECT * FROM UNNEST($1::uuid[], $2::integer[], $3::smallint[], $4::text[], $5::text[], \
             $6::bigint[]) ON CONFLICT (game_id, idx) DO NOTHING",
        )
        .bind(games)
        .bind(indexes)
        .bind(seats)
        .bind(actions)
        .bind(requests)
        .bind(room_seqs)
        .execute(executor)
        .await?;
        Ok(())
    }
}

impl InsertActions for sqlx::Sqlite {
    /// SQLite runs each statement on the connection's own thread, so every
    /// statement costs two thread wake-ups: the batch goes as one JSON
    /// array that SQLite unpacks itself, in one fixed statement.
    async fn insert_actions<'e, E>(executor: E, rows: &[ActionRow<'_>]) -> Result<()>
    where
        E: sqlx::Executor<'e, Database = Self>,
    {
        type Row<'a> = (String, i32, i16, &'a str, Option<&'a str>, i64);
        let batch: Vec<Row<'_>> = rows
            .iter()
            .map(|row| {
                let game = row.game.simple().to_string();
                (
                    game,
                    row.index,
                    row.seat,
                    row.action,
                    row.request_id,
                    row.room_seq,
                )
            })
            .collect();
        let batch = serde_json::to_string(&batch).map_err(|error| StoreError::Corrupt(error.to_string()))?;
        sqlx::query(
            "INSERT INTO game_actions (game_id, idx, seat, action, request_id, room_seq) \
             SELECT unhex(value ->> 0), value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5 \
             FROM json_each($1) WHERE true ON CONFLICT (game_id, idx) DO NOTHING",
        )
        .bind(batch)
        .execute(executor)
        .await?;
        Ok(())
    }
}

/// The action writes of a batch, in order, as rows to bind.
pub(crate) fn action_rows(writes: &[Write]) -> Vec<ActionRow<'_>> {
    writes.iter().filter_map(Write::action_row).collect()
}

impl Write {
    /// An action write as the row both backends and the journal's SQLite
    /// connection bind, so that every path stores an action's columns
    /// with the same types; `None` for any other write.
    pub(crate) fn action_row(&self) -> Option<ActionRow<'_>> {
        match self {
            Write::Action {
                game,
                index,
                seat,
                action,
                request_id,
                room_seq,
            } => Some(ActionRow {
                game: *game,
                index: *index as i32,
                seat: i16::from(*seat),
                action,
                request_id: request_id.as_deref(),
                room_seq: *room_seq as i64,
            }),
            _ => None,
        }
    }
}

/// Stores a batch of actions alone on Postgres in one statement, fenced:
/// the common batch, which would otherwise pay a transaction's round trips.
/// The rooms' rows are locked by the statement's first part, and its
/// insert stores nothing unless every fence holds.
pub(crate) async fn insert_actions_fenced(
    pool: &PgPool,
    fences: &[(&str, i64)],
    rows: &[ActionRow<'_>],
) -> Result<()> {
    if fences.is_empty() {
        return InsertActions::insert_actions(pool, rows).await;
    }
    let (rooms, epochs): (Vec<&str>, Vec<i64>) = fences.iter().copied().unzip();
    let live: Vec<(String, i64)> = sqlx::query_as(
        "WITH live AS ( \
             SELECT r.code, r.epoch FROM rooms r \
             JOIN UNNEST($7::text[], $8::bigint[]) AS f(code, epoch) ON r.code = f.code AND r.epoch = f.epoch \
             FOR SHARE OF r \
         ), stored AS ( \
             INSERT INTO game_actions (game_id, idx, seat, action, request_id, room_seq) \
             SELECT * FROM UNNEST($1::uuid[], $2::integer[], $3::smallint[], $4::text[], $5::text[], $6::bigint[]) \
             WHERE (SELECT count(*) FROM live) = cardinality($7::text[]) \
             ON CONFLICT (game_id, idx) DO NOTHING \
         ) \
         SELECT code, epoch FROM live",
    )
    .bind(rows.iter().map(|row| row.game).collect::<Vec<_>>())
    .bind(rows.iter().map(|row| row.index).collect::<Vec<_>>())
    .bind(rows.iter().map(|row| row.seat).collect::<Vec<_>>())
    .bind(rows.iter().map(|row| row.action).collect::<Vec<_>>())
    .bind(rows.iter().map(|row| row.request_id).collect::<Vec<_>>())
    .bind(rows.iter().map(|row| row.room_seq).collect::<Vec<_>>())
    .bind(rooms)
    .bind(epochs)
    .fetch_all(pool)
    .await?;
    refuse_stale(fences, &live)
}

/// The steps of a batch for one backend, `$db`.
macro_rules! recording {
    ($db:ty) => {
        type Connection = <$db as sqlx::Database>::Connection;

        /// The whole batch in one transaction. The fences come first: their
        /// rows stay locked until the commit, so no room can be opened again
        /// while its batch is stored. New games come next, so that the
        /// actions and hands of a game that starts in this batch find their
        /// parent row; then every action in one statement; then the rest in
        /// order.
        pub(super) async fn write(pool: &sqlx::Pool<$db>, writes: &[Write], fences: &[(&str, i64)]) -> Result<()> {
            let mut tx = pool.begin().await?;
            CheckFences::check_fences(&mut *tx, fences).await?;
            for write in writes {
                if let Write::Started(game) = write {
                    start_game(&mut tx, game).await?;
                }
            }
            let actions = action_rows(writes);
            if !actions.is_empty() {
                InsertActions::insert_actions(&mut *tx, &actions).await?;
            }
            for write in writes {
                match write {
                    // Stored or checked above.
                    Write::Fence { .. } | Write::Started(_) | Write::Action { .. } => {}
                    Write::RoomSeq { room, seq } => mark_room_seq(&mut tx, room, *seq).await?,
                    Write::Hand { game, hand, record } => store_hand(&mut tx, *game, *hand, record).await?,
                    Write::Finished(end) => finish_game(&mut tx, end).await?,
                }
            }
            tx.commit().await?;
            Ok(())
        }

        /// A game's row, its players, and the tournament table it is played
        /// for.
        async fn start_game(tx: &mut Connection, game: &NewGame) -> Result<()> {
            sqlx::query(
                "INSERT INTO games (id, room, room_name, private, owner_id, number, rules, seed, status, started_at, rated, speed, \
                 same_deals_as) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'playing', $9, $10, $11, $12) ON CONFLICT (id) DO NOTHING",
            )
            .bind(game.id)
            .bind(&game.room)
            .bind(&game.room_name)
            .bind(game.private)
            .bind(game.owner)
            .bind(game.number as i32)
            .bind(Json(&game.rules))
            .bind(game.seed as i64)
            .bind(game.started_at)
            .bind(game.rated)
            .bind(&game.speed)
            .bind(game.same_deals_as)
            .execute(&mut *tx)
            .await?;
            for (seat, player) in game.players.iter().enumerate() {
                sqlx::query(
                    "INSERT INTO game_players (game_id, seat, account_id) VALUES ($1, $2, $3) \
                     ON CONFLICT (game_id, seat) DO NOTHING",
                )
                .bind(game.id)
                .bind(seat as i16)
                .bind(player)
                .execute(&mut *tx)
                .await?;
            }
            if let Some(link) = &game.tournament {
                sqlx::query(
                    "UPDATE tournament_tables SET game_id = $1, status = 'playing' \
                     WHERE tournament_id = $2 AND stage = $3 AND table_no = $4 AND status = 'pending'",
                )
                .bind(game.id)
                .bind(link.tournament)
                .bind(link.stage as i32)
                .bind(link.table as i32)
                .execute(&mut *tx)
                .await?;
            }
            Ok(())
        }

        /// The room's mark above its event numbers (see [`Store::open_room`]).
        async fn mark_room_seq(tx: &mut Connection, room: &str, seq: u64) -> Result<()> {
            sqlx::query("UPDATE rooms SET seq = $1 WHERE code = $2 AND seq < $1")
                .bind(seq as i64)
                .bind(room)
                .execute(&mut *tx)
                .await?;
            Ok(())
        }

        /// A finished hand's record.
        async fn store_hand(tx: &mut Connection, game: Uuid, hand: u32, record: &serde_json::Value) -> Result<()> {
            sqlx::query(
                "INSERT INTO hands (game_id, hand, record) VALUES ($1, $2, $3) \
                 ON CONFLICT (game_id, hand) DO NOTHING",
            )
            .bind(game)
            .bind(hand as i32)
            .bind(Json(record))
            .execute(&mut *tx)
            .await?;
            Ok(())
        }

        /// The end of a game: its result, its tournament table's, and each
        /// player's account. A game already finished (a retry of a batch
        /// that was stored) is left as it is.
        async fn finish_game(tx: &mut Connection, end: &FinishedGame) -> Result<()> {
            let status = if end.winner.is_some() { "finished" } else { "abandoned" };
            let updated = sqlx::query(
                "UPDATE games SET status = $1, finished_at = $2, winner = $3, score0 = $4, score1 = $5, \
                 score2 = $6, score3 = $7 WHERE id = $8 AND status = 'playing'",
            )
            .bind(status)
            .bind(end.finished_at)
            .bind(end.winner.map(i16::from))
            .bind(end.score.first().copied())
            .bind(end.score.get(1).copied())
            .bind(end.score.get(2).copied())
            .bind(end.score.get(3).copied())
            .bind(end.id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if updated == 0 {
                return Ok(());
            }
            if let (Some(_), Some(winner)) = (&end.tournament, end.winner) {
                sqlx::query(
                    "UPDATE tournament_tables SET status = 'finished', winner = $1, score0 = $2, \
                     score1 = $3 WHERE game_id = $4",
                )
                .bind(i16::from(winner))
                .bind(end.score.first().copied())
                .bind(end.score.get(1).copied())
                .bind(end.id)
                .execute(&mut *tx)
                .await?;
            }
            credit_players(tx, end).await
        }

        /// How much the game moves the ratings (see `rating_weight`), or
        /// `None` when it moves them not at all: its table was casual, it
        /// had other than four players, one of them was not registered (a
        /// guest, a bot), or one of them blocks another.
        async fn rating_weight_of(
            tx: &mut Connection,
            end: &FinishedGame,
            players: &[(i16, Uuid)],
            rows: &[(usize, RatingRow)],
        ) -> Result<Option<f64>> {
            let rated: bool = sqlx::query_scalar("SELECT rated FROM games WHERE id = $1")
                .bind(end.id)
                .fetch_one(&mut *tx)
                .await?;
            if !rated || end.voided || players.len() != 4 || !rows.iter().all(|(_, row)| row.registered) {
                return Ok(None);
            }
            let ids: Vec<Uuid> = players.iter().map(|(_, account)| *account).collect();
            let blocks: i64 = sqlx::query_scalar(
                "SELECT count(*) FROM blocks WHERE account_id IN ($1, $2, $3, $4) \
                 AND blocked_id IN ($1, $2, $3, $4)",
            )
            .bind(ids[0])
            .bind(ids[1])
            .bind(ids[2])
            .bind(ids[3])
            .fetch_one(&mut *tx)
            .await?;
            if blocks > 0 {
                return Ok(None);
            }
            let since = end.finished_at - time::Duration::days(crate::games::REPEAT_WINDOW_DAYS);
            let earlier: i64 = sqlx::query_scalar(
                "SELECT count(*) FROM game_players p0 JOIN games g ON g.id = p0.game_id \
                 WHERE p0.account_id = $1 AND g.id <> $5 AND g.rated AND g.status = 'finished' \
                 AND g.rating_weight IS NOT NULL AND g.finished_at > $6 \
                 AND (SELECT count(*) FROM game_players p WHERE p.game_id = g.id \
                      AND p.account_id IN ($2, $3, $4)) = 3",
            )
            .bind(ids[0])
            .bind(ids[1])
            .bind(ids[2])
            .bind(ids[3])
            .bind(end.id)
            .bind(since)
            .fetch_one(&mut *tx)
            .await?;
            Ok(Some(crate::games::rating_weight(u32::try_from(earlier).unwrap_or(u32::MAX))))
        }

        /// Each player's counts and rating after a finished game.
        async fn credit_players(tx: &mut Connection, end: &FinishedGame) -> Result<()> {
            let players: Vec<(i16, Uuid)> =
                sqlx::query_as("SELECT seat, account_id FROM game_players WHERE game_id = $1 ORDER BY seat")
                    .bind(end.id)
                    .fetch_all(&mut *tx)
                    .await?;
            let mut rows = Vec::with_capacity(4);
            for (seat, account) in &players {
                let row: RatingRow = sqlx::query_as(
                    "SELECT registered, rating, rating_deviation, rating_volatility FROM accounts WHERE id = $1",
                )
                .bind(account)
                .fetch_one(&mut *tx)
                .await?;
                rows.push((*seat as usize, row));
            }
            let weight = rating_weight_of(tx, end, &players, &rows).await?;
            sqlx::query("UPDATE games SET rating_weight = $1 WHERE id = $2")
                .bind(weight)
                .bind(end.id)
                .execute(&mut *tx)
                .await?;
            let results = end.player_results(&rows, weight);
            for ((_, account), result) in players.iter().zip(&results) {
                let (stats, new) = (result.stats, result.rating);
                sqlx::query(
                    "UPDATE accounts SET games_played = games_played + 1, games_won = games_won + $1, \
                     games_abandoned = games_abandoned + $2, bids_made = bids_made + $3, \
                     bids_total = bids_total + $4, nils_made = nils_made + $5, nils_tried = nils_tried + $6, \
                     rating = $7, rating_deviation = $8, rating_volatility = $9 WHERE id = $10",
                )
                .bind(i32::from(result.won))
                .bind(i32::from(result.abandoned))
                .bind(stats.bids_made as i32)
                .bind(stats.bids_total as i32)
                .bind(stats.nils_made as i32)
                .bind(stats.nils_tried as i32)
                .bind(new.rating)
                .bind(new.deviation)
                .bind(new.volatility)
                .bind(account)
                .execute(&mut *tx)
                .await?;
                sqlx::query("UPDATE game_players SET abandoned = $1 WHERE game_id = $2 AND seat = $3")
                    .bind(result.abandoned)
                    .bind(end.id)
                    .bind(result.seat as i16)
                    .execute(&mut *tx)
                    .await?;
            }
            Ok(())
        }
    };
}

mod postgres {
    use super::*;
    recording!(sqlx::Postgres);
}

mod sqlite {
    use super::*;
    recording!(sqlx::Sqlite);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_action_write_has_an_action_row() {
        let game = Uuid::from_u128(7);
        let action = Write::Action {
            game,
            index: 12,
            seat: 3,
            action: "play AS".into(),
            request_id: Some("\"r1\"".into()),
            room_seq: 40,
        };
        let row = action.action_row().expect("an action has a row");
        assert_eq!(
            (
                row.game,
                row.index,
                row.seat,
                row.action,
                row.request_id,
                row.room_seq
            ),
            (game, 12, 3, "play AS", Some("\"r1\""), 40)
        );
        let mark = Write::RoomSeq {
            room: "ABCDEF".into(),
            seq: 40,
        };
        assert!(mark.action_row().is_none());
        assert_eq!(action_rows(&[mark, action.clone(), action]).len(), 2);
    }
}
