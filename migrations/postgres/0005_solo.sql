-- Games without partners: four teams of one, so the winner may be any of
-- teams 0 to 3 and there are four final scores. Games with partners keep
-- score2 and score3 null.
ALTER TABLE games DROP CONSTRAINT games_winner_check;
ALTER TABLE games ADD CONSTRAINT games_winner_check CHECK (winner BETWEEN 0 AND 3);
ALTER TABLE games ADD COLUMN score2 integer;
ALTER TABLE games ADD COLUMN score3 integer;
