-- Sessions in PostgreSQL (src/session_store.rs): a Redis outage or restart logs nobody out, and
-- a session ended on the server is ended for every copy of its cookie. The key itself is never
-- stored, only its SHA-256.
CREATE TABLE sessions (
    key_hash bytea PRIMARY KEY,
    sid uuid NOT NULL UNIQUE,
    user_id uuid REFERENCES users (id) ON DELETE CASCADE,
    state jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    ip text,
    user_agent text
);
CREATE INDEX sessions_user ON sessions (user_id) WHERE user_id IS NOT NULL;
CREATE INDEX sessions_expiry ON sessions (expires_at);

-- Every sign-up and log-in, with its address and browser: the moderators' search by address or
-- session (src/moderation/lookup.rs). Kept when the session ends.
CREATE TABLE auth_events (
    id bigserial PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind text NOT NULL CHECK (kind IN ('signup', 'login', 'password')),
    sid uuid NOT NULL,
    ip text NOT NULL,
    user_agent text NOT NULL,
    at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auth_events_ip ON auth_events (ip, at DESC);
CREATE INDEX auth_events_sid ON auth_events (sid);
CREATE INDEX auth_events_user ON auth_events (user_id, at DESC);
