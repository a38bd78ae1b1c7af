-- Tournaments: what the organiser set, and where the tournament stands.
CREATE TABLE tournaments (
    id           uuid PRIMARY KEY,
    name         text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 60),
    format       text NOT NULL CHECK (format IN ('knockout', 'swiss')),
    status       text NOT NULL CHECK (status IN ('open', 'running', 'finished', 'cancelled')),
    organizer_id uuid NOT NULL REFERENCES accounts (id),
    created_at   timestamptz NOT NULL,
    -- NULL: the tournament starts when it is full (or when started by hand).
    starts_at    timestamptz,
    started_at   timestamptz,
    finished_at  timestamptz,
    max_players  integer NOT NULL CHECK (max_players BETWEEN 4 AND 1024),
    -- Rounds of a Swiss tournament; NULL for a knockout.
    rounds       integer CHECK (rounds BETWEEN 1 AND 30),
    -- The rule set every table plays (the tournament preset and its settings).
    rules        jsonb NOT NULL,
    -- Drives the random draws, so that a pairing made again after a
    -- restart is the same one.
    seed         bigint NOT NULL,
    CHECK ((format = 'swiss') = (rounds IS NOT NULL)),
    CHECK ((status = 'open') = (started_at IS NULL) OR status = 'cancelled')
);
CREATE INDEX tournaments_by_status ON tournaments (status, created_at DESC);

-- Registrations. Each entry has a number within its tournament; bots that
-- complete a field share the bot account, so only people are unique.
CREATE TABLE tournament_players (
    tournament_id uuid NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    entry         integer NOT NULL CHECK (entry >= 0),
    account_id    uuid NOT NULL REFERENCES accounts (id),
    bot           boolean NOT NULL DEFAULT false,
    registered_at timestamptz NOT NULL,
    -- Swiss standings: a point per game won, and the sum of score margins.
    points        integer NOT NULL DEFAULT 0,
    score_diff    integer NOT NULL DEFAULT 0,
    -- The final place: set when a knockout player goes out or the
    -- tournament ends.
    place         integer CHECK (place >= 1),
    PRIMARY KEY (tournament_id, entry)
);
CREATE UNIQUE INDEX tournament_players_person ON tournament_players (tournament_id, account_id) WHERE NOT bot;
CREATE INDEX tournament_players_account ON tournament_players (account_id);

-- Every table of every stage (knockout) or round (Swiss): its seats, as
-- entries, its room and game, and its result.
CREATE TABLE tournament_tables (
    tournament_id uuid NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    stage         integer NOT NULL CHECK (stage >= 0),
    table_no      integer NOT NULL CHECK (table_no >= 0),
    seat0         integer NOT NULL,
    seat1         integer NOT NULL,
    seat2         integer NOT NULL,
    seat3         integer NOT NULL,
    room          text NOT NULL,
    game_id       uuid REFERENCES games (id),
    status        text NOT NULL CHECK (status IN ('pending', 'playing', 'finished')),
    winner        smallint CHECK (winner IN (0, 1)),
    score0        integer,
    score1        integer,
    PRIMARY KEY (tournament_id, stage, table_no),
    CHECK ((status = 'finished') = (winner IS NOT NULL)),
    CHECK (status = 'pending' OR game_id IS NOT NULL)
);
CREATE UNIQUE INDEX tournament_tables_game ON tournament_tables (game_id) WHERE game_id IS NOT NULL;
