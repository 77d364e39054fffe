-- Lobby seeks (issue 6): open offers on the home page, each held by one lobby socket, which
-- renews it while connected; a seek whose holder is gone expires.
CREATE TABLE seeks (
    id              text        PRIMARY KEY CHECK (id ~ '^[0-9A-Za-z]{8}$'),
    user_id         uuid        REFERENCES users (id) ON DELETE CASCADE,
    guest_id        text,
    name            text        NOT NULL,
    -- The creator's rating in the variant (registered players).
    rating          integer,
    provisional     boolean     NOT NULL DEFAULT false,
    variant         text        NOT NULL,
    -- Centiseconds; both NULL for an unlimited (casual) seek.
    clock_limit     integer     CHECK (clock_limit IS NULL OR clock_limit > 0),
    clock_increment integer     CHECK (clock_increment IS NULL OR clock_increment >= 0),
    rated           boolean     NOT NULL,
    color           text        NOT NULL CHECK (color IN ('white', 'black', 'random')),
    rating_min      integer,
    rating_max      integer,
    -- The lobby socket holding the seek.
    conn            text        NOT NULL,
    expires_at      timestamptz NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    CHECK ((user_id IS NULL) <> (guest_id IS NULL)),
    CHECK ((clock_limit IS NULL) = (clock_increment IS NULL)),
    CHECK (NOT rated OR (clock_limit IS NOT NULL AND user_id IS NOT NULL))
);

CREATE INDEX seeks_conn_idx ON seeks (conn);
CREATE INDEX seeks_user_idx ON seeks (user_id) WHERE user_id IS NOT NULL;
CREATE INDEX seeks_guest_idx ON seeks (guest_id) WHERE guest_id IS NOT NULL;
