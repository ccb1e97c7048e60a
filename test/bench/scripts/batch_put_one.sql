-- batch write: one put_item per statement, each its own transaction; test/bench/run.sh
-- repeats the line with @I@ for I = 0..24: the same 25 items as batch_write_ext
\set n random(1, 1000)
SELECT singletable.put_item('@TABLE@', items[@I@ + 1]) FROM batch_reqs WHERE id = :n;
