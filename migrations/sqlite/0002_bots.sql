-- The server's bots, as in the Postgres migration of the same number.
INSERT INTO accounts (id, name, created_at) VALUES
    (X'0000000000004000800000000000b001', 'Basic bot', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    (X'0000000000004000800000000000b002', 'Strong bot', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
