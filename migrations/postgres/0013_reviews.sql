-- A player's game reviewed by the strongest bot: its marks as the API gives
-- them, kept so that a review is worked out once.
CREATE TABLE game_reviews (
    game_id    uuid NOT NULL REFERENCES games (id),
    seat       smallint NOT NULL CHECK (seat BETWEEN 0 AND 3),
    created_at timestamptz NOT NULL,
    review     jsonb NOT NULL,
    PRIMARY KEY (game_id, seat)
);
