-- batch get: the hand-written SELECT of the same 100 items, a join of the keys with the table
\set n random(1, 1000)
SELECT t.item FROM batch_reqs r, unnest(r.gpks, r.gsks) AS u(pk, sk) JOIN @TABLE@ t ON t.pk = u.pk AND t.sk = u.sk
 WHERE r.id = :n;
