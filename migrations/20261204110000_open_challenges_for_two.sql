-- Lichess's open challenge (issue 18): made by one account for two others, who take White and
-- Black by its links. The first to take a seat becomes its challenger (`challenger_id`, `color`),
-- and `for_two` is cleared: from there it is an open challenge like the site's own.
ALTER TABLE challenges ADD COLUMN for_two boolean NOT NULL DEFAULT false;
