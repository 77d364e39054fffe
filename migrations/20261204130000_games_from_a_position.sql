-- Games from a position (issue 18, lichess's `fen`): the position text a game and the challenge
-- it comes from start at; NULL is the variant's start.
ALTER TABLE games ADD COLUMN initial_fen text CHECK (char_length(initial_fen) BETWEEN 1 AND 400);
ALTER TABLE challenges ADD COLUMN initial_fen text CHECK (char_length(initial_fen) BETWEEN 1 AND 400);
