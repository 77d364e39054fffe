-- Lichess's `users` of an open challenge (issue 18): only these two accounts may take its seats,
-- the first White and the second Black.
ALTER TABLE challenges ADD COLUMN open_white uuid REFERENCES users (id) ON DELETE CASCADE,
                       ADD COLUMN open_black uuid REFERENCES users (id) ON DELETE CASCADE,
                       ADD CONSTRAINT challenges_open_users CHECK ((open_white IS NULL) = (open_black IS NULL));
