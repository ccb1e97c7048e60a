-- batch write: the 25 put_item calls in one statement (one round trip, one transaction, in
-- key order): the same 25 items as batch_write_ext
\set n random(1, 1000)
SELECT count(singletable.put_item('@TABLE@', u.item)) FROM batch_reqs r, unnest(r.items) AS u(item) WHERE r.id = :n;
