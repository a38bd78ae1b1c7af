-- Moderation and account care: roles, sanctions, the audit log, one-time
-- password reset links, blocks and reports.

-- A moderator may sanction players and resolve reports; an administrator
-- (`is_admin`) may also grant and take the moderator role. A deleted
-- account keeps its row, under an anonymous name and without a password,
-- so that the games it played still read.
ALTER TABLE accounts ADD COLUMN is_moderator boolean NOT NULL DEFAULT false;
ALTER TABLE accounts ADD COLUMN deleted_at timestamptz;

-- Warnings, mutes, suspensions and bans. One with no `ends_at` lasts until
-- it is lifted; a warning ends when it is made.
CREATE TABLE sanctions (
    id          uuid PRIMARY KEY,
    account_id  uuid NOT NULL REFERENCES accounts (id),
    kind        text NOT NULL CHECK (kind IN ('warn', 'mute', 'suspend', 'ban')),
    reason      text NOT NULL,
    issued_by   uuid REFERENCES accounts (id),
    created_at  timestamptz NOT NULL,
    ends_at     timestamptz,
    lifted_at   timestamptz,
    lifted_by   uuid REFERENCES accounts (id)
);
CREATE INDEX sanctions_account ON sanctions (account_id, created_at);

-- What moderators and administrators did. Rows are only ever added: the
-- triggers below refuse every change and removal, whoever asks.
CREATE TABLE audit_log (
    seq         bigserial PRIMARY KEY,
    at          timestamptz NOT NULL,
    actor_id    uuid,
    actor_name  text NOT NULL,
    action      text NOT NULL,
    target_id   uuid,
    target_name text,
    reason      text NOT NULL DEFAULT '',
    detail      text NOT NULL DEFAULT '',
    -- The address the request came from (the real client's, behind a
    -- trusted proxy); none for the command line.
    client      text
);
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is append-only';
END;
$$;
CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();

-- One-time links that set a new password: only the token's hash is kept.
CREATE TABLE reset_links (
    token_hash bytea PRIMARY KEY CHECK (octet_length(token_hash) = 32),
    account_id uuid NOT NULL REFERENCES accounts (id),
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX reset_links_account ON reset_links (account_id);

-- Whom each player blocks.
CREATE TABLE blocks (
    account_id uuid NOT NULL REFERENCES accounts (id),
    blocked_id uuid NOT NULL REFERENCES accounts (id),
    created_at timestamptz NOT NULL,
    PRIMARY KEY (account_id, blocked_id),
    CHECK (account_id <> blocked_id)
);
CREATE INDEX blocks_blocked ON blocks (blocked_id);

-- Reports of one player by another, with the context the server gathered
-- when the report was made (the room, the game and the last chat lines).
CREATE TABLE reports (
    id          uuid PRIMARY KEY,
    reporter_id uuid NOT NULL REFERENCES accounts (id),
    target_id   uuid NOT NULL REFERENCES accounts (id),
    reason      text NOT NULL,
    room        text,
    game_id     uuid,
    context     jsonb NOT NULL,
    created_at  timestamptz NOT NULL,
    resolved_at timestamptz,
    resolved_by uuid REFERENCES accounts (id),
    resolution  text
);
CREATE INDEX reports_open ON reports (created_at) WHERE resolved_at IS NULL;
CREATE INDEX reports_target ON reports (target_id, created_at);

-- Maintenance announced by an administrator: at most one row, present
-- while it lasts.
CREATE TABLE maintenance (
    id         integer PRIMARY KEY CHECK (id = 1),
    until      timestamptz,
    message    text NOT NULL,
    started_at timestamptz NOT NULL
);
