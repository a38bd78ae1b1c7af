-- Rooms' event numbers and the requests behind actions, as in the
-- Postgres migration `0004_room_seqs`, in SQLite's types. The journal's
-- log of actions carries the same two columns until its rows are copied.
CREATE TABLE rooms (
    code TEXT PRIMARY KEY,
    seq  INTEGER NOT NULL CHECK (seq >= 0)
) STRICT;

ALTER TABLE game_actions ADD COLUMN request_id TEXT;
ALTER TABLE game_actions ADD COLUMN room_seq INTEGER;
ALTER TABLE action_log ADD COLUMN request_id TEXT;
ALTER TABLE action_log ADD COLUMN room_seq INTEGER;
