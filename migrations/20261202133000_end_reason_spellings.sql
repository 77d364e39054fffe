-- One spelling for the reasons a game ends with (issue 14): the platform's reasons take the rule
-- book's hyphenated names, like the engine's (src/game/reason.rs). Finished games and their stored
-- `end` events are rewritten, so old games read back and reconnecting clients see one spelling.
-- `resign`, `agreement`, `abandoned` and the engine's names are unchanged.
CREATE TEMPORARY TABLE end_reason_renames (old text PRIMARY KEY, new text NOT NULL);
INSERT INTO end_reason_renames (old, new) VALUES
    ('abort', 'aborted'),
    ('no_start', 'no-start'),
    ('flag', 'timeout'),
    ('flag_insufficient_material', 'timeout-draw'),
    ('claim_draw', 'abandoned-draw');

UPDATE games g SET reason = r.new
FROM end_reason_renames r
WHERE g.reason = r.old;

UPDATE game_events e SET d = jsonb_set(e.d, '{reason}', to_jsonb(r.new))
FROM end_reason_renames r
WHERE e.t = 'end' AND e.d ->> 'reason' = r.old;

DROP TABLE end_reason_renames;
