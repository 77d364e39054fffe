-- BOT accounts (issue 18, lichess's BOT API): an account that upgraded itself to a bot, which
-- from then on plays only through `/api/bot/...` and is shown with the title BOT. The upgrade is
-- one way, and only for an account that has played no game. `bot_seen_at` is when its event
-- stream last showed it online (`GET /api/bot/online`).
ALTER TABLE users ADD COLUMN bot boolean NOT NULL DEFAULT false;
ALTER TABLE users ADD COLUMN bot_seen_at timestamptz;
CREATE INDEX users_bot_seen_at ON users (bot_seen_at) WHERE bot;
