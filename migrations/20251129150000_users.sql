-- Accounts. Names are unique ignoring case; the hash is a PHC string (Argon2id).
CREATE TABLE users (
    id            uuid        PRIMARY KEY,
    username      text        NOT NULL CHECK (username ~ '^[A-Za-z0-9_-]{2,20}$'),
    password_hash text        NOT NULL,
    role          text        NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'admin')),
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX users_username_lower_key ON users (lower(username));
