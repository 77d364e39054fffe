-- Live games (issue 5). Status ids are lichess's: 10 created, 20 started, 25 aborted, 30 mate,
-- 31 resign, 32 stalemate, 33 timeout, 34 draw, 35 outoftime, 37 no_start, 60 variant_end.
CREATE TABLE games (
    id              text        PRIMARY KEY CHECK (id ~ '^[0-9A-Za-z]{8}$'),
    variant         text        NOT NULL,
    -- Random variants: the seed, a 32-byte salt and hex SHA-256(seed big-endian || salt).
    seed            bigint,
    salt            bytea       CHECK (salt IS NULL OR octet_length(salt) = 32),
    commitment      text,
    -- Centiseconds; both NULL for an unlimited game.
    clock_limit     integer     CHECK (clock_limit IS NULL OR clock_limit > 0),
    clock_increment integer     CHECK (clock_increment IS NULL OR clock_increment >= 0),
    rated           boolean     NOT NULL,
    status          smallint    NOT NULL DEFAULT 10,
    winner          text        CHECK (winner IN ('white', 'black')),
    reason          text,
    -- Room version: bumped by every stored event; the check of concurrent writers.
    version         integer     NOT NULL DEFAULT 1,
    -- Actions played, and turns completed (an equip does not end a turn).
    plies           integer     NOT NULL DEFAULT 0,
    turns           integer     NOT NULL DEFAULT 0,
    -- Remaining centiseconds as of turn_at, the moment the current turn began.
    white_clock     integer,
    black_clock     integer,
    turn_at         timestamptz,
    draw_offer      text        CHECK (draw_offer IN ('white', 'black')),
    takeback_offer  text        CHECK (takeback_offer IN ('white', 'black')),
    rematch_offer   text        CHECK (rematch_offer IN ('white', 'black')),
    rematch_id      text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    started_at      timestamptz,
    finished_at     timestamptz,
    CHECK ((clock_limit IS NULL) = (clock_increment IS NULL)),
    CHECK (NOT rated OR clock_limit IS NOT NULL)
);

-- Live games, for the sweeper.
CREATE INDEX games_live_idx ON games (status) WHERE status IN (10, 20);

CREATE TABLE game_players (
    game_id       text        NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    color         text        NOT NULL CHECK (color IN ('white', 'black')),
    -- The 4-character secret of the seat.
    player_id     text        NOT NULL CHECK (player_id ~ '^[0-9A-Za-z]{4}$'),
    user_id       uuid        REFERENCES users (id),
    guest_id      text,
    rating_before integer,
    rating_after  integer,
    provisional   boolean     NOT NULL DEFAULT false,
    -- Lag compensation left to this player in this game, centiseconds.
    lag_quota     integer     NOT NULL,
    -- Last sign of life of this seat's socket (any instance).
    last_seen     timestamptz,
    PRIMARY KEY (game_id, color),
    CHECK ((user_id IS NULL) <> (guest_id IS NULL))
);

CREATE INDEX game_players_user_idx ON game_players (user_id) WHERE user_id IS NOT NULL;

-- One row per action: the record a game replays from.
CREATE TABLE game_actions (
    game_id     text        NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq         integer     NOT NULL CHECK (seq > 0),
    action      text        NOT NULL,
    color       text        NOT NULL CHECK (color IN ('white', 'black')),
    white_clock integer,
    black_clock integer,
    played_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, seq)
);

-- The room's versioned events, for clients that reconnect.
CREATE TABLE game_events (
    game_id text        NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    v       integer     NOT NULL,
    t       text        NOT NULL,
    d       jsonb       NOT NULL,
    at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (game_id, v)
);

CREATE TABLE game_chat (
    id      bigserial   PRIMARY KEY,
    game_id text        NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    room    text        NOT NULL CHECK (room IN ('player', 'spectator')),
    author  text        NOT NULL,
    user_id uuid        REFERENCES users (id),
    color   text        CHECK (color IN ('white', 'black')),
    text    text        NOT NULL CHECK (char_length(text) BETWEEN 1 AND 140),
    at      timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX game_chat_game_idx ON game_chat (game_id, room, id);

-- Elo per account and variant (rule book, Ratings).
CREATE TABLE user_ratings (
    user_id uuid    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    variant text    NOT NULL,
    rating  integer NOT NULL,
    games   integer NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, variant)
);

-- The last moment any instance was alive: at start-up the gap is downtime, charged to nobody.
CREATE TABLE server_heartbeat (
    id smallint    PRIMARY KEY CHECK (id = 1),
    at timestamptz NOT NULL
);
