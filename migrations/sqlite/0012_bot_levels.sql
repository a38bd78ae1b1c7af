-- The beginner and expert bots, as in the Postgres migration 0011.
INSERT INTO accounts (id, name, created_at) VALUES
    (X'0000000000004000800000000000b003', 'Beginner bot', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    (X'0000000000004000800000000000b004', 'Expert bot', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
