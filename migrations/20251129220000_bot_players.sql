-- Bot players (issue 7): a seat is held by an account, a guest, or a bot of a level 1 to 8.
-- Bot games are casual, so a bot seat never has a rating change.
ALTER TABLE game_players ADD COLUMN bot_level smallint CHECK (bot_level BETWEEN 1 AND 8);
ALTER TABLE game_players DROP CONSTRAINT game_players_check;
ALTER TABLE game_players ADD CONSTRAINT game_players_one_player
    CHECK (num_nonnulls(user_id, guest_id, bot_level) = 1);
