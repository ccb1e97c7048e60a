-- get: the hand-written SQL for the same item
\set c 10000000 + random(0, @NCOLL@ - 1)
\set j random(100, 199)
SELECT item FROM @TABLE@
 WHERE pk = 'USER#' || :c::text
   AND sk = CASE WHEN :j::int < 130 THEN 'ORDER#' ELSE 'POST#' END || :j::text;
