-- batch get: singletable.batch_get of 100 keys, each of its own collection (request :n of
-- batch_reqs: the same items as batch_get_sql, batch_get_one and batch_get_calls)
\set n random(1, 1000)
SELECT singletable.batch_get(get_req) FROM batch_reqs WHERE id = :n;
