-- The table's speed, players' pictures and friends, as in the Postgres
-- migration `0010_friends`.
ALTER TABLE games ADD COLUMN speed TEXT NOT NULL DEFAULT 'normal'
    CHECK (speed IN ('fast', 'normal', 'slow'));
ALTER TABLE accounts ADD COLUMN avatar TEXT;
ALTER TABLE accounts ADD COLUMN hide_table INTEGER NOT NULL DEFAULT 0 CHECK (hide_table IN (0, 1));

CREATE TABLE friends (
    account_id  BLOB NOT NULL REFERENCES accounts (id),
    friend_id   BLOB NOT NULL REFERENCES accounts (id),
    created_at  TEXT NOT NULL,
    accepted_at TEXT,
    PRIMARY KEY (account_id, friend_id),
    CHECK (account_id <> friend_id)
) STRICT;
CREATE INDEX friends_friend ON friends (friend_id);
