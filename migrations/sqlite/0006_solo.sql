-- no-transaction
-- Games without partners: four teams of one, so the winner may be any of
-- teams 0 to 3 and there are four final scores. Games with partners keep
-- score2 and score3 null.
--
-- SQLite cannot change a CHECK constraint, so the table is rebuilt. Foreign
-- keys are turned off for the rebuild: dropping the old table with them on
-- would delete every row that refers to a game (players, hands, actions).
-- The pragma has no effect inside a transaction, hence `no-transaction`
-- and the explicit one below.
PRAGMA foreign_keys = OFF;
BEGIN;
CREATE TABLE games_solo (
    id          BLOB PRIMARY KEY CHECK (length(id) = 16),
    room        TEXT NOT NULL,
    room_name   TEXT NOT NULL,
    private     INTEGER NOT NULL CHECK (private IN (0, 1)),
    owner_id    BLOB NOT NULL REFERENCES accounts (id),
    number      INTEGER NOT NULL CHECK (number >= 0),
    rules       TEXT NOT NULL CHECK (json_valid(rules)),
    seed        INTEGER NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('playing', 'finished', 'abandoned')),
    started_at  TEXT NOT NULL,
    finished_at TEXT,
    winner      INTEGER CHECK (winner BETWEEN 0 AND 3),
    score0      INTEGER,
    score1      INTEGER,
    score2      INTEGER,
    score3      INTEGER,
    CHECK ((status = 'playing') = (finished_at IS NULL))
) STRICT;
INSERT INTO games_solo (id, room, room_name, private, owner_id, number, rules, seed, status,
                        started_at, finished_at, winner, score0, score1)
    SELECT id, room, room_name, private, owner_id, number, rules, seed, status,
           started_at, finished_at, winner, score0, score1
    FROM games;
DROP TABLE games;
ALTER TABLE games_solo RENAME TO games;
CREATE INDEX games_unfinished ON games (started_at) WHERE status = 'playing';
COMMIT;
PRAGMA foreign_keys = ON;
