-- The table's speed, players' pictures and friends.
--
-- A game keeps the speed its room was opened with, so that a room resumed
-- after a restart plays at the same pace. A player may choose a picture
-- (`avatar`, one of the set every client draws) and hide from his friends
-- the table he sits at (`hide_table`).
ALTER TABLE games ADD COLUMN speed text NOT NULL DEFAULT 'normal'
    CHECK (speed IN ('fast', 'normal', 'slow'));
ALTER TABLE accounts ADD COLUMN avatar text;
ALTER TABLE accounts ADD COLUMN hide_table boolean NOT NULL DEFAULT false;

-- A friendship is asked by one player (`account_id`) of another
-- (`friend_id`) and holds once accepted. One row stands for the pair: a
-- request the other way while one waits accepts it instead.
CREATE TABLE friends (
    account_id  uuid NOT NULL REFERENCES accounts (id),
    friend_id   uuid NOT NULL REFERENCES accounts (id),
    created_at  timestamptz NOT NULL,
    accepted_at timestamptz,
    PRIMARY KEY (account_id, friend_id),
    CHECK (account_id <> friend_id)
);
CREATE INDEX friends_friend ON friends (friend_id);
