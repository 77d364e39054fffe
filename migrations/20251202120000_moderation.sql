-- Moderation (issue 15): the moderator role, the append-only mod log, reports, blocks and
-- sanctions. docs/moderation.md describes them.

ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ADD CONSTRAINT users_role_check CHECK (role IN ('user', 'moderator', 'admin'));

-- Every moderation action, once. Rows are only ever inserted: the triggers below refuse an
-- UPDATE, a DELETE or a TRUNCATE.
CREATE TABLE mod_log (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- NULL: the operator's command line.
    moderator_id uuid        REFERENCES users (id),
    target_id    uuid        REFERENCES users (id),
    action       text        NOT NULL,
    reason       text        NOT NULL CHECK (char_length(btrim(reason)) BETWEEN 1 AND 2000),
    details      jsonb       NOT NULL DEFAULT '{}'::jsonb,
    at           timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX mod_log_target_idx ON mod_log (target_id, id);
CREATE INDEX mod_log_at_idx ON mod_log (id DESC);

CREATE FUNCTION mod_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the mod log is append-only: % refused', TG_OP USING ERRCODE = 'restrict_violation';
END
$$;

CREATE TRIGGER mod_log_no_update_or_delete BEFORE UPDATE OR DELETE ON mod_log
    FOR EACH ROW EXECUTE FUNCTION mod_log_refuse_change();
CREATE TRIGGER mod_log_no_truncate BEFORE TRUNCATE ON mod_log
    FOR EACH STATEMENT EXECUTE FUNCTION mod_log_refuse_change();

-- A player's report of another. At most one open report per reporter and target: a new one
-- adds a note to it.
CREATE TABLE reports (
    id             uuid        PRIMARY KEY,
    reporter_id    uuid        NOT NULL REFERENCES users (id),
    target_id      uuid        NOT NULL REFERENCES users (id),
    reason         text        NOT NULL CHECK (reason IN ('cheat', 'boost', 'stall', 'comm', 'username', 'other')),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    closed_at      timestamptz,
    closed_by      uuid        REFERENCES users (id),
    -- The mod-log row of the action that closed it.
    closed_log_id  bigint      REFERENCES mod_log (id),
    CHECK (reporter_id <> target_id),
    CHECK ((closed_at IS NULL) = (closed_log_id IS NULL))
);

CREATE UNIQUE INDEX reports_one_open_idx ON reports (reporter_id, target_id) WHERE closed_at IS NULL;
CREATE INDEX reports_open_idx ON reports (reason, created_at) WHERE closed_at IS NULL;
CREATE INDEX reports_target_idx ON reports (target_id, created_at);

-- What the reporter wrote, each time (the first report and every addition).
CREATE TABLE report_notes (
    id        bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    report_id uuid        NOT NULL REFERENCES reports (id),
    reason    text        NOT NULL CHECK (reason IN ('cheat', 'boost', 'stall', 'comm', 'username', 'other')),
    text      text        NOT NULL CHECK (char_length(text) BETWEEN 1 AND 2000),
    game_id   text        REFERENCES games (id) ON DELETE SET NULL,
    at        timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX report_notes_report_idx ON report_notes (report_id, id);

-- A player's own blocks.
CREATE TABLE blocks (
    blocker_id uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    blocked_id uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (blocker_id, blocked_id),
    CHECK (blocker_id <> blocked_id)
);

CREATE INDEX blocks_blocked_idx ON blocks (blocked_id);

-- Sanctions in force or lifted: chat timeouts (with an end) and shadow-mutes (until lifted).
CREATE TABLE sanctions (
    id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id    uuid        NOT NULL REFERENCES users (id),
    kind       text        NOT NULL CHECK (kind IN ('chat_timeout', 'shadow_mute')),
    created_at timestamptz NOT NULL DEFAULT now(),
    -- NULL: until lifted.
    until      timestamptz,
    lifted_at  timestamptz,
    log_id     bigint      NOT NULL REFERENCES mod_log (id),
    CHECK (kind <> 'chat_timeout' OR until IS NOT NULL)
);

CREATE INDEX sanctions_user_idx ON sanctions (user_id, kind) WHERE lifted_at IS NULL;

-- A shadow-muted player's line: delivered live to themself and other shadow-muted players only,
-- never in anyone's chat history.
ALTER TABLE game_chat ADD COLUMN shadow boolean NOT NULL DEFAULT false;
