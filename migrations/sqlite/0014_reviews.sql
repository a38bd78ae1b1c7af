-- Reviews of players' games, as in the Postgres migration 0013.
CREATE TABLE game_reviews (
    game_id    BLOB NOT NULL REFERENCES games (id),
    seat       INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    created_at TEXT NOT NULL,
    review     TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
