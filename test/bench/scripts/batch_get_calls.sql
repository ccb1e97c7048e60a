-- batch get: the 100 get_item calls in one statement (one round trip): the same 100 items as
-- batch_get_ext
\set n random(1, 1000)
SELECT singletable.get_item('@TABLE@', u.pk, u.sk) FROM batch_reqs r, unnest(r.gpks, r.gsks) AS u(pk, sk) WHERE r.id = :n;
