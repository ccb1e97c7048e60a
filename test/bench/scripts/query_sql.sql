-- query: the hand-written SQL for the same slice, prefix as a constant range
\set c 10000000 + random(0, @NCOLL@ - 1)
SELECT pk, sk, item FROM @TABLE@
 WHERE pk = 'USER#' || :c::text AND sk >= 'ORDER#' AND sk < 'ORDER$'
 ORDER BY sk;
