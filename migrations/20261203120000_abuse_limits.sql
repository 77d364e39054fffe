-- Abuse limits (issue 16): the address a seek came from, so that a guest (who can always be a
-- new guest) is capped per address too (src/lobby/http.rs, `MAX_SEEKS_PER_ADDRESS`); and an
-- index for the chat flood limit, which counts an author's recent lines over every socket and
-- instance (src/game/round/chat.rs).
ALTER TABLE seeks ADD COLUMN ip text;
CREATE INDEX seeks_ip ON seeks (ip);
CREATE INDEX game_chat_user_at ON game_chat (user_id, at) WHERE user_id IS NOT NULL;
