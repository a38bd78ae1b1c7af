-- no-transaction
-- Duplicate tournaments, as in the Postgres migration 0014.
--
-- SQLite cannot change a CHECK constraint, so the table is rebuilt with
-- foreign keys off, as in 0006: dropping the old table with them on would
-- delete every entry and table of every tournament.
PRAGMA foreign_keys = OFF;
BEGIN;
CREATE TABLE tournaments_duplicate (
    id           BLOB PRIMARY KEY CHECK (length(id) = 16),
    name         TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
    format       TEXT NOT NULL
                 CHECK (format IN ('knockout', 'swiss', 'duplicate_pairs', 'duplicate_individual')),
    status       TEXT NOT NULL CHECK (status IN ('open', 'running', 'finished', 'cancelled')),
    organizer_id BLOB NOT NULL REFERENCES accounts (id),
    created_at   TEXT NOT NULL,
    starts_at    TEXT,
    started_at   TEXT,
    finished_at  TEXT,
    max_players  INTEGER NOT NULL CHECK (max_players BETWEEN 4 AND 1024),
    rounds       INTEGER CHECK (rounds BETWEEN 1 AND 30),
    rules        TEXT NOT NULL CHECK (json_valid(rules)),
    seed         INTEGER NOT NULL,
    CHECK ((format = 'knockout') = (rounds IS NULL)),
    CHECK ((status = 'open') = (started_at IS NULL) OR status = 'cancelled')
) STRICT;
INSERT INTO tournaments_duplicate (id, name, format, status, organizer_id, created_at, starts_at,
                                   started_at, finished_at, max_players, rounds, rules, seed)
    SELECT id, name, format, status, organizer_id, created_at, starts_at,
           started_at, finished_at, max_players, rounds, rules, seed
    FROM tournaments;
DROP TABLE tournaments;
ALTER TABLE tournaments_duplicate RENAME TO tournaments;
CREATE INDEX tournaments_by_status ON tournaments (status, created_at DESC);
CREATE INDEX games_playing_seed ON games (seed) WHERE status = 'playing';
COMMIT;
PRAGMA foreign_keys = ON;
