-- batch get: one get_item per statement; test/bench/run.sh repeats the line with @I@ for
-- I = 0..99: the same 100 items as batch_get_ext
\set n random(1, 1000)
SELECT singletable.get_item('@TABLE@', gpks[@I@ + 1], gsks[@I@ + 1]) FROM batch_reqs WHERE id = :n;
