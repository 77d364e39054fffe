-- Moderation (issue 15): engine and booster marks are sanctions like the chat's, and an engine
-- mark's rating refund records each (game, opponent) it paid back, so nothing is refunded twice.
-- docs/moderation.md describes them.

ALTER TABLE sanctions DROP CONSTRAINT sanctions_kind_check;
ALTER TABLE sanctions ADD CONSTRAINT sanctions_kind_check
    CHECK (kind IN ('chat_timeout', 'shadow_mute', 'engine_mark', 'booster_mark'));

CREATE TABLE rating_refunds (
    game_id text        NOT NULL REFERENCES games (id),
    -- The opponent given the points back.
    user_id uuid        NOT NULL REFERENCES users (id),
    variant text        NOT NULL,
    points  integer     NOT NULL CHECK (points > 0),
    -- The engine mark that paid it.
    log_id  bigint      NOT NULL REFERENCES mod_log (id),
    at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, user_id)
);

-- A closed account is a sanction too: in force until reopened (lifted).
ALTER TABLE sanctions DROP CONSTRAINT sanctions_kind_check;
ALTER TABLE sanctions ADD CONSTRAINT sanctions_kind_check
    CHECK (kind IN ('chat_timeout', 'shadow_mute', 'engine_mark', 'booster_mark', 'account_closed'));
