-- A game played again on the deals of an earlier one, as in the Postgres
-- migration 0012.
ALTER TABLE games ADD COLUMN same_deals_as BLOB REFERENCES games (id);
CREATE INDEX games_same_deals_as ON games (same_deals_as) WHERE same_deals_as IS NOT NULL;
