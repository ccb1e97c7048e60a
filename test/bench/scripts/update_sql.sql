-- update: the hand-written equivalent: the same condition (DynamoDB's <> is true for a
-- missing attribute, hence IS DISTINCT FROM), the same ADD (a missing counter counts from 0),
-- returning the new item
\set c 10000000 + random(0, @NCOLL@ - 1)
\set j random(100, 199)
UPDATE @TABLE@ SET item = jsonb_set(item, '{qty}', to_jsonb(coalesce((item->>'qty')::numeric, 0) + 1))
 WHERE pk = 'USER#' || :c::text
   AND sk = CASE WHEN :j::int < 130 THEN 'ORDER#' ELSE 'POST#' END || :j::text
   AND (item->'status') IS DISTINCT FROM '"cancelled"'::jsonb
RETURNING item;
