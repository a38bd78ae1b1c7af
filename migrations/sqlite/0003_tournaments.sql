-- Tournaments, as in the Postgres migration of the same number, in
-- SQLite's types.
CREATE TABLE tournaments (
    id           BLOB PRIMARY KEY CHECK (length(id) = 16),
    name         TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
    format       TEXT NOT NULL CHECK (format IN ('knockout', 'swiss')),
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
    CHECK ((format = 'swiss') = (rounds IS NOT NULL)),
    CHECK ((status = 'open') = (started_at IS NULL) OR status = 'cancelled')
) STRICT;
CREATE INDEX tournaments_by_status ON tournaments (status, created_at DESC);

CREATE TABLE tournament_players (
    tournament_id BLOB NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    entry         INTEGER NOT NULL CHECK (entry >= 0),
    account_id    BLOB NOT NULL REFERENCES accounts (id),
    bot           INTEGER NOT NULL DEFAULT 0 CHECK (bot IN (0, 1)),
    registered_at TEXT NOT NULL,
    points        INTEGER NOT NULL DEFAULT 0,
    score_diff    INTEGER NOT NULL DEFAULT 0,
    place         INTEGER CHECK (place >= 1),
    PRIMARY KEY (tournament_id, entry)
) STRICT;
CREATE UNIQUE INDEX tournament_players_person ON tournament_players (tournament_id, account_id) WHERE NOT bot;
CREATE INDEX tournament_players_account ON tournament_players (account_id);

CREATE TABLE tournament_tables (
    tournament_id BLOB NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    stage         INTEGER NOT NULL CHECK (stage >= 0),
    table_no      INTEGER NOT NULL CHECK (table_no >= 0),
    seat0         INTEGER NOT NULL,
    seat1         INTEGER NOT NULL,
    seat2         INTEGER NOT NULL,
    seat3         INTEGER NOT NULL,
    room          TEXT NOT NULL,
    game_id       BLOB REFERENCES games (id),
    status        TEXT NOT NULL CHECK (status IN ('pending', 'playing', 'finished')),
    winner        INTEGER CHECK (winner IN (0, 1)),
    score0        INTEGER,
    score1        INTEGER,
    PRIMARY KEY (tournament_id, stage, table_no),
    CHECK ((status = 'finished') = (winner IS NOT NULL)),
    CHECK (status = 'pending' OR game_id IS NOT NULL)
) STRICT;
CREATE UNIQUE INDEX tournament_tables_game ON tournament_tables (game_id) WHERE game_id IS NOT NULL;
