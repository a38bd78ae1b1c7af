-- The journal's log of actions, on SQLite only.
--
-- `game_actions` is clustered by game, so a commit holding one action of
-- each of many games rewrites one of its pages per game, and SQLite writes
-- every changed page whole to its write-ahead log. The journal appends
-- the actions of such commits here instead, where `seq` only grows and
-- every commit extends the last page. It copies a game's rows into
-- `game_actions` once its hand is recorded or once they grow old, a few
-- at a time, and later deletes copied rows from the head of the log. A
-- game's actions are the union of both tables, and the store reads them
-- so.
CREATE TABLE action_log (
    seq     INTEGER PRIMARY KEY,
    game_id BLOB NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    idx     INTEGER NOT NULL CHECK (idx >= 0),
    seat    INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    action  TEXT NOT NULL
) STRICT;
