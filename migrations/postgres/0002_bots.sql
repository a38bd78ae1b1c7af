-- The server's bots: one account per level, so that the seats they play in
-- stored games refer to an account like any other. They are never
-- registered, so they have no place on the leaderboard and the games they
-- play in are not rated. The ids are fixed; the server knows them.
INSERT INTO accounts (id, name, created_at) VALUES
    ('00000000-0000-4000-8000-00000000b001', 'Basic bot', now()),
    ('00000000-0000-4000-8000-00000000b002', 'Strong bot', now());
