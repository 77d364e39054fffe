-- Engine analysis for moderators (issue 15): a moderator asks for a user's recent rated games to
-- be analysed; a background worker of any instance claims the job, analyses the games on the
-- bot's search slots and stores the figures. docs/moderation.md says how to read them.

CREATE TABLE analysis_jobs (
    id            bigserial   PRIMARY KEY,
    -- Whose games.
    target_id     uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- The moderator who asked.
    requested_by  uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at    timestamptz NOT NULL DEFAULT now(),
    state         text        NOT NULL DEFAULT 'queued'
                              CHECK (state IN ('queued', 'running', 'done', 'failed')),
    -- The progress: the user's games to analyse, and those analysed.
    games_total   integer     NOT NULL DEFAULT 0 CHECK (games_total >= 0),
    games_done    integer     NOT NULL DEFAULT 0 CHECK (games_done >= 0 AND games_done <= games_total),
    -- The figures (per game, and the reference figures of the bot levels), written as they come.
    result        jsonb,
    error         text,
    -- The running worker's claim: a fresh token per claim, renewed until `claimed_until`; a job
    -- whose claim ran out (its server was killed) is claimed again.
    claim         uuid,
    claimed_until timestamptz,
    finished_at   timestamptz
);

-- At most one job queued or running per user.
CREATE UNIQUE INDEX analysis_jobs_one_pending ON analysis_jobs (target_id) WHERE state IN ('queued', 'running');
CREATE INDEX analysis_jobs_target_idx ON analysis_jobs (target_id, id DESC);
CREATE INDEX analysis_jobs_pending_idx ON analysis_jobs (id) WHERE state IN ('queued', 'running');

-- The figures of the bot levels in games they play against each other, computed once per
-- variant, level and set-up: `nodes` per analysed position, `play_nodes` per move, `games` games
-- of at most `plies` bot moves each.
CREATE TABLE analysis_references (
    variant     text             NOT NULL,
    level       smallint         NOT NULL CHECK (level BETWEEN 1 AND 8),
    nodes       bigint           NOT NULL CHECK (nodes > 0),
    play_nodes  bigint           NOT NULL CHECK (play_nodes > 0),
    games       integer          NOT NULL CHECK (games > 0),
    plies       integer          NOT NULL CHECK (plies > 0),
    moves       integer          NOT NULL,
    top_matches integer          NOT NULL,
    -- The actions the average loss is over.
    losses      integer          NOT NULL,
    avg_loss_cp double precision NOT NULL,
    computed_at timestamptz      NOT NULL DEFAULT now(),
    PRIMARY KEY (variant, level, nodes, play_nodes, games, plies)
);
