-- The challenger's colour is drawn when a challenge is made, as lichess does, so that both sides
-- see `finalColor` before answering. Challenges made before this keep NULL and draw at acceptance.
ALTER TABLE challenges ADD COLUMN final_color text CHECK (final_color IN ('white', 'black'));
