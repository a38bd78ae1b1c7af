-- Rated and casual games, as in the Postgres migration `0009_rated_games`.
-- SQLite cannot change a column's default, so the column keeps `1` as its
-- default for the rows already there and every new game names its own.
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 1 CHECK (rated IN (0, 1));
ALTER TABLE games ADD COLUMN rating_weight REAL;
CREATE INDEX game_players_abandoned ON game_players (account_id) WHERE abandoned;
