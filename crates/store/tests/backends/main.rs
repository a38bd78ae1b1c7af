//! One suite of storage tests, run against both backends: SQLite always (a
//! fresh file per test), Postgres at `DATABASE_URL` (a fresh database per
//! test). With `CI=true` a missing Postgres fails the suite instead of
//! skipping it.

use std::time::Duration;

use spades_engine::Seating;
use spades_store::{
    FinishedGame, JournalWriter, LeaseFence, NewGame, NewTable, NewTournament, PlayerStats, Registration,
    Step, Store, StoreError, TableLink, Write,
};
use time::OffsetDateTime;
use uuid::Uuid;

mod accounts_and_games;
mod friends;
mod journal;
mod moderation;
mod openings;
mod sqlite_journal;
mod support;
mod tournaments;

use accounts_and_games::*;
use friends::*;
use journal::*;
use moderation::*;
use openings::*;
use support::*;
use tournaments::*;

macro_rules! suite {
    ($backend:ident, $open:expr) => {
        mod $backend {
            use super::*;

            macro_rules! case {
                ($name:ident) => {
                    #[tokio::test]
                    async fn $name() {
                        let Some(test) = $open else { return };
                        super::$name(&test.store).await;
                        test.finish().await;
                    }
                };
            }

            case!(accounts_are_unique_by_registered_name);
            case!(sessions_expire_and_are_revoked);
            case!(games_are_journaled_resumed_and_finished);
            case!(games_with_a_guest_are_not_rated_and_abandoners_lose);
            case!(solo_games_store_four_scores_and_any_winner);
            case!(a_failing_batch_stores_nothing);
            case!(the_journal_writer_stores_batches_whole);
            case!(bots_have_accounts_and_their_games_are_not_rated);
            case!(tournaments_keep_their_bracket);
            case!(rooms_number_their_events_above_every_earlier_opening);
            case!(writes_of_an_earlier_opening_are_refused);
            case!(an_opening_fences_batches_in_flight);
            case!(writes_under_a_lease_taken_since_are_refused);
            case!(roles_and_sanctions_are_audited);
            case!(sanctions_end_by_themselves_or_when_lifted);
            case!(a_reset_link_works_once_and_not_after_it_expires);
            case!(a_deleted_account_keeps_its_games_under_an_anonymous_name);
            case!(blocks_and_reports_are_kept);
            case!(rated_games_count_less_when_repeated_and_not_at_all_when_casual);
            case!(abandoned_rated_games_are_listed_for_the_pause);
            case!(friends_ask_accept_and_part);

            #[tokio::test]
            async fn the_audit_log_refuses_changes_and_removals() {
                let Some(test) = $open else { return };
                super::the_audit_log_refuses_changes_and_removals(&test.store, &test.url).await;
                test.finish().await;
            }
        }
    };
}

suite!(sqlite, Some(TestStore::sqlite().await));
suite!(postgres, TestStore::postgres().await);

#[test]
fn database_names_are_replaced_in_addresses() {
    assert_eq!(
        replace_database("postgres://postgres@127.0.0.1:5432/test", "x"),
        "postgres://postgres@127.0.0.1:5432/x"
    );
    assert_eq!(
        replace_database("postgres://h/test?sslmode=disable", "x"),
        "postgres://h/x?sslmode=disable"
    );
}
