-- How a game came to be (issue 18): lichess's `source` of a game in the API (`lobby`, `friend`,
-- `ai`, `pool`). Games from before are `friend`, except those against the computer.
ALTER TABLE games ADD COLUMN source text NOT NULL DEFAULT 'friend'
    CHECK (source IN ('lobby', 'friend', 'ai', 'pool'));
UPDATE games SET source = 'ai'
 WHERE EXISTS (SELECT 1 FROM game_players p WHERE p.game_id = games.id AND p.bot_level IS NOT NULL);
ALTER TABLE games ALTER COLUMN source DROP DEFAULT;
