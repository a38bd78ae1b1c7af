-- Roles, sanctions, the audit log, reset links, blocks and reports, as in
-- the Postgres migration `0008_moderation`.
ALTER TABLE accounts ADD COLUMN is_moderator INTEGER NOT NULL DEFAULT 0 CHECK (is_moderator IN (0, 1));
ALTER TABLE accounts ADD COLUMN deleted_at TEXT;

CREATE TABLE sanctions (
    id          BLOB PRIMARY KEY CHECK (length(id) = 16),
    account_id  BLOB NOT NULL REFERENCES accounts (id),
    kind        TEXT NOT NULL CHECK (kind IN ('warn', 'mute', 'suspend', 'ban')),
    reason      TEXT NOT NULL,
    issued_by   BLOB REFERENCES accounts (id),
    created_at  TEXT NOT NULL,
    ends_at     TEXT,
    lifted_at   TEXT,
    lifted_by   BLOB REFERENCES accounts (id)
) STRICT;
CREATE INDEX sanctions_account ON sanctions (account_id, created_at);

CREATE TABLE audit_log (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    at          TEXT NOT NULL,
    actor_id    BLOB,
    actor_name  TEXT NOT NULL,
    action      TEXT NOT NULL,
    target_id   BLOB,
    target_name TEXT,
    reason      TEXT NOT NULL DEFAULT '',
    detail      TEXT NOT NULL DEFAULT '',
    client      TEXT
) STRICT;
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only');
END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only');
END;

CREATE TABLE reset_links (
    token_hash BLOB PRIMARY KEY CHECK (length(token_hash) = 32),
    account_id BLOB NOT NULL REFERENCES accounts (id),
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at    TEXT
) STRICT;
CREATE INDEX reset_links_account ON reset_links (account_id);

CREATE TABLE blocks (
    account_id BLOB NOT NULL REFERENCES accounts (id),
    blocked_id BLOB NOT NULL REFERENCES accounts (id),
    created_at TEXT NOT NULL,
    PRIMARY KEY (account_id, blocked_id),
    CHECK (account_id <> blocked_id)
) STRICT;
CREATE INDEX blocks_blocked ON blocks (blocked_id);

CREATE TABLE reports (
    id          BLOB PRIMARY KEY CHECK (length(id) = 16),
    reporter_id BLOB NOT NULL REFERENCES accounts (id),
    target_id   BLOB NOT NULL REFERENCES accounts (id),
    reason      TEXT NOT NULL,
    room        TEXT,
    game_id     BLOB,
    context     TEXT NOT NULL CHECK (json_valid(context)),
    created_at  TEXT NOT NULL,
    resolved_at TEXT,
    resolved_by BLOB REFERENCES accounts (id),
    resolution  TEXT
) STRICT;
CREATE INDEX reports_open ON reports (created_at) WHERE resolved_at IS NULL;
CREATE INDEX reports_target ON reports (target_id, created_at);

CREATE TABLE maintenance (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    until      TEXT,
    message    TEXT NOT NULL,
    started_at TEXT NOT NULL
) STRICT;
