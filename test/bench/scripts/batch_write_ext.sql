-- batch write: singletable.batch_write of 25 puts, each replacing an existing item of its own
-- collection (request :n of batch_reqs, test/bench/sql/batch.sql: the same items as
-- batch_write_sql, batch_put_one and batch_put_calls)
\set n random(1, 1000)
SELECT singletable.batch_write(write_req) FROM batch_reqs WHERE id = :n;
