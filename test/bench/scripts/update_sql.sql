-- update (TODO hook, not run yet): the hand-written UPDATE of the same attribute, returning the new item
\set c 10000000 + random(0, @NCOLL@ - 1)
\set j random(100, 199)
\set v random(0, 99999)
UPDATE @TABLE@ SET item = jsonb_set(item, '{total}', to_jsonb(:v::int))
 WHERE pk = 'USER#' || :c::text
   AND sk = CASE WHEN :j::int < 130 THEN 'ORDER#' ELSE 'POST#' END || :j::text
RETURNING item;
