-- Rated and casual games. A game is rated when its table is (quick play,
-- tournaments, and public rooms whose creator asked for it); only then do
-- the ratings move, by `rating_weight` of the usual change (less when the
-- same four people have met often lately, nothing when the four are not
-- all registered or one blocks another). Games started before this
-- migration keep being rated as they were when they started.
ALTER TABLE games ADD COLUMN rated boolean NOT NULL DEFAULT true;
ALTER TABLE games ALTER COLUMN rated SET DEFAULT false;
ALTER TABLE games ADD COLUMN rating_weight double precision;
CREATE INDEX game_players_abandoned ON game_players (account_id) WHERE abandoned;
