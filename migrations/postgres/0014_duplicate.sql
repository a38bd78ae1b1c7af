-- Duplicate tournaments: every table of a round plays the same deals, by
-- fixed partnerships (`duplicate_pairs`) or with partners drawn anew each
-- round (`duplicate_individual`). Like a Swiss tournament they have a
-- number of rounds.
ALTER TABLE tournaments DROP CONSTRAINT tournaments_format_check;
ALTER TABLE tournaments DROP CONSTRAINT tournaments_check;
ALTER TABLE tournaments ADD CONSTRAINT tournaments_format_check
    CHECK (format IN ('knockout', 'swiss', 'duplicate_pairs', 'duplicate_individual'));
ALTER TABLE tournaments ADD CONSTRAINT tournaments_rounds_given
    CHECK ((format = 'knockout') = (rounds IS NULL));

-- A game's seed stays secret while another game dealt from it is played:
-- this finds those games.
CREATE INDEX games_playing_seed ON games (seed) WHERE status = 'playing';
