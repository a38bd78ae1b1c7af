-- Accounts: registered players (with a password) and guests (without).
CREATE TABLE accounts (
    id                uuid PRIMARY KEY,
    name              text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 24),
    password_hash     text,
    registered        boolean NOT NULL DEFAULT false,
    is_admin          boolean NOT NULL DEFAULT false,
    can_organize      boolean NOT NULL DEFAULT false,
    created_at        timestamptz NOT NULL,
    rating            double precision NOT NULL DEFAULT 1500,
    rating_deviation  double precision NOT NULL DEFAULT 350 CHECK (rating_deviation > 0),
    rating_volatility double precision NOT NULL DEFAULT 0.06 CHECK (rating_volatility > 0),
    games_played      integer NOT NULL DEFAULT 0 CHECK (games_played >= 0),
    games_won         integer NOT NULL DEFAULT 0 CHECK (games_won >= 0),
    games_abandoned   integer NOT NULL DEFAULT 0 CHECK (games_abandoned >= 0),
    bids_made         integer NOT NULL DEFAULT 0 CHECK (bids_made >= 0),
    bids_total        integer NOT NULL DEFAULT 0 CHECK (bids_total >= bids_made),
    nils_made         integer NOT NULL DEFAULT 0 CHECK (nils_made >= 0),
    nils_tried        integer NOT NULL DEFAULT 0 CHECK (nils_tried >= nils_made),
    CHECK (registered = (password_hash IS NOT NULL))
);

-- Registered names are unique whatever their case; guests' names are not.
CREATE UNIQUE INDEX accounts_registered_name ON accounts (lower(name)) WHERE registered;
CREATE INDEX accounts_leaderboard ON accounts (rating DESC, id) WHERE registered;

-- Sessions: only a hash of each token is kept.
CREATE TABLE sessions (
    token_hash bytea PRIMARY KEY CHECK (octet_length(token_hash) = 32),
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz
);
CREATE INDEX sessions_account ON sessions (account_id);

-- Games, with everything needed to replay them.
CREATE TABLE games (
    id          uuid PRIMARY KEY,
    room        text NOT NULL,
    room_name   text NOT NULL,
    private     boolean NOT NULL,
    owner_id    uuid NOT NULL REFERENCES accounts (id),
    number      integer NOT NULL CHECK (number >= 0),
    rules       jsonb NOT NULL,
    seed        bigint NOT NULL,
    status      text NOT NULL CHECK (status IN ('playing', 'finished', 'abandoned')),
    started_at  timestamptz NOT NULL,
    finished_at timestamptz,
    winner      smallint CHECK (winner IN (0, 1)),
    score0      integer,
    score1      integer,
    CHECK ((status = 'playing') = (finished_at IS NULL))
);
CREATE INDEX games_unfinished ON games (started_at) WHERE status = 'playing';

CREATE TABLE game_players (
    game_id    uuid NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat       smallint NOT NULL CHECK (seat BETWEEN 0 AND 3),
    account_id uuid NOT NULL REFERENCES accounts (id),
    abandoned  boolean NOT NULL DEFAULT false,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX game_players_account ON game_players (account_id);

-- Every action a table accepted, in order: with the rules and the seed, the game.
CREATE TABLE game_actions (
    game_id uuid NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    idx     integer NOT NULL CHECK (idx >= 0),
    seat    smallint NOT NULL CHECK (seat BETWEEN 0 AND 3),
    action  text NOT NULL,
    PRIMARY KEY (game_id, idx)
);

-- Each finished hand's record, in the hand-history format.
CREATE TABLE hands (
    game_id uuid NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    hand    integer NOT NULL CHECK (hand >= 0),
    record  jsonb NOT NULL,
    PRIMARY KEY (game_id, hand)
);
