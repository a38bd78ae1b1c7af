-- A game played again on the deals of an earlier one ("play these deals
-- again") names that game, so that the two can be shown side by side.
ALTER TABLE games ADD COLUMN same_deals_as UUID REFERENCES games (id);
CREATE INDEX games_same_deals_as ON games (same_deals_as) WHERE same_deals_as IS NOT NULL;
