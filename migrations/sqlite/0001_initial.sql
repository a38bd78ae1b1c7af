-- The same schema as the Postgres one, in SQLite's types: uuids are 16-byte
-- blobs, times are RFC 3339 text, JSON is text.
CREATE TABLE accounts (
    id                BLOB PRIMARY KEY CHECK (length(id) = 16),
    name              TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 24),
    password_hash     TEXT,
    registered        INTEGER NOT NULL DEFAULT 0 CHECK (registered IN (0, 1)),
    is_admin          INTEGER NOT NULL DEFAULT 0 CHECK (is_admin IN (0, 1)),
    can_organize      INTEGER NOT NULL DEFAULT 0 CHECK (can_organize IN (0, 1)),
    created_at        TEXT NOT NULL,
    rating            REAL NOT NULL DEFAULT 1500,
    rating_deviation  REAL NOT NULL DEFAULT 350 CHECK (rating_deviation > 0),
    rating_volatility REAL NOT NULL DEFAULT 0.06 CHECK (rating_volatility > 0),
    games_played      INTEGER NOT NULL DEFAULT 0 CHECK (games_played >= 0),
    games_won         INTEGER NOT NULL DEFAULT 0 CHECK (games_won >= 0),
    games_abandoned   INTEGER NOT NULL DEFAULT 0 CHECK (games_abandoned >= 0),
    bids_made         INTEGER NOT NULL DEFAULT 0 CHECK (bids_made >= 0),
    bids_total        INTEGER NOT NULL DEFAULT 0 CHECK (bids_total >= bids_made),
    nils_made         INTEGER NOT NULL DEFAULT 0 CHECK (nils_made >= 0),
    nils_tried        INTEGER NOT NULL DEFAULT 0 CHECK (nils_tried >= nils_made),
    CHECK (registered = (password_hash IS NOT NULL))
) STRICT;

CREATE UNIQUE INDEX accounts_registered_name ON accounts (lower(name)) WHERE registered;
CREATE INDEX accounts_leaderboard ON accounts (rating DESC, id) WHERE registered;

CREATE TABLE sessions (
    token_hash BLOB PRIMARY KEY CHECK (length(token_hash) = 32),
    account_id BLOB NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    revoked_at TEXT
) STRICT;
CREATE INDEX sessions_account ON sessions (account_id);

CREATE TABLE games (
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
    winner      INTEGER CHECK (winner IN (0, 1)),
    score0      INTEGER,
    score1      INTEGER,
    CHECK ((status = 'playing') = (finished_at IS NULL))
) STRICT;
CREATE INDEX games_unfinished ON games (started_at) WHERE status = 'playing';

CREATE TABLE game_players (
    game_id    BLOB NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat       INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    account_id BLOB NOT NULL REFERENCES accounts (id),
    abandoned  INTEGER NOT NULL DEFAULT 0 CHECK (abandoned IN (0, 1)),
    PRIMARY KEY (game_id, seat)
) STRICT;
CREATE INDEX game_players_account ON game_players (account_id);

CREATE TABLE game_actions (
    game_id BLOB NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    idx     INTEGER NOT NULL CHECK (idx >= 0),
    seat    INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    action  TEXT NOT NULL,
    PRIMARY KEY (game_id, idx)
) STRICT, WITHOUT ROWID;

CREATE TABLE hands (
    game_id BLOB NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    hand    INTEGER NOT NULL CHECK (hand >= 0),
    record  TEXT NOT NULL CHECK (json_valid(record)),
    PRIMARY KEY (game_id, hand)
) STRICT;
