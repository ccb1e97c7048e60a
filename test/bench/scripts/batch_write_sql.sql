-- batch write: the hand-written multi-row upsert of the same 25 items (in key order, as two
-- writers of overlapping keys must lock, and as batch_write writes)
\set n random(1, 1000)
INSERT INTO @TABLE@ (pk, sk, item)
SELECT u.pk, u.sk, u.item FROM batch_reqs r, unnest(r.pks, r.sks, r.items) AS u(pk, sk, item) WHERE r.id = :n
ON CONFLICT (pk, sk) DO UPDATE SET item = EXCLUDED.item;
