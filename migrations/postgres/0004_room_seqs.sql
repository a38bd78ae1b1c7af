-- What a room has numbered, so that its event numbers (`seq`) never go
-- back when it is opened again: after a restart, or later on another node.
--
-- `seq` is the highest number the room may have given an event so far.
-- The server raises it, a block at a time, before it sends any event with
-- a higher number; a room that opens again starts above it.
CREATE TABLE rooms (
    code text PRIMARY KEY,
    seq  bigint NOT NULL CHECK (seq >= 0)
);

-- Each action's request: the id the player gave it (as its JSON, so that
-- the number 7 and the string "7" differ) and the room's last event after
-- it. A player who sends the same request again after a restart is told
-- it was applied, rather than having it refused or applied twice. Actions
-- the server made for a player have no request.
ALTER TABLE game_actions ADD COLUMN request_id text;
ALTER TABLE game_actions ADD COLUMN room_seq bigint;
