-- Personal API tokens (issue 6): only the SHA-256 of a token is stored; the token itself is
-- shown once when it is created.
CREATE TABLE api_tokens (
    id           uuid        PRIMARY KEY,
    user_id      uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    description  text        NOT NULL,
    scopes       text[]      NOT NULL,
    -- Hex SHA-256 of the token.
    hash         text        NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);

CREATE INDEX api_tokens_user_idx ON api_tokens (user_id);

-- Challenges (issue 6): an account challenges another (dest_id) or anyone who opens the link
-- (dest_id NULL). Accepting creates the game under the challenge's id.
CREATE TABLE challenges (
    id              text        PRIMARY KEY CHECK (id ~ '^[0-9A-Za-z]{8}$'),
    challenger_id   uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    dest_id         uuid        REFERENCES users (id) ON DELETE CASCADE,
    variant         text        NOT NULL,
    -- Centiseconds; both NULL for an unlimited (casual) challenge.
    clock_limit     integer     CHECK (clock_limit IS NULL OR clock_limit > 0),
    clock_increment integer     CHECK (clock_increment IS NULL OR clock_increment >= 0),
    rated           boolean     NOT NULL,
    color           text        NOT NULL CHECK (color IN ('white', 'black', 'random')),
    status          text        NOT NULL DEFAULT 'created'
                                CHECK (status IN ('created', 'accepted', 'declined', 'canceled')),
    decline_reason  text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    expires_at      timestamptz NOT NULL,
    CHECK ((clock_limit IS NULL) = (clock_increment IS NULL)),
    CHECK (NOT rated OR clock_limit IS NOT NULL),
    CHECK (dest_id IS NULL OR dest_id <> challenger_id)
);

CREATE INDEX challenges_dest_idx ON challenges (dest_id) WHERE status = 'created';
CREATE INDEX challenges_challenger_idx ON challenges (challenger_id) WHERE status = 'created';
