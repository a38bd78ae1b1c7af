-- The beginner and expert bots join the basic and strong ones (0002): one
-- account per level, never registered, so never rated or ranked.
INSERT INTO accounts (id, name, created_at) VALUES
    ('00000000-0000-4000-8000-00000000b003', 'Beginner bot', now()),
    ('00000000-0000-4000-8000-00000000b004', 'Expert bot', now());
