-- key_prefixes and collections (issue 25, part 6): what a table holds per literal key
-- prefix and its largest item collections, equal to a hand-written GROUP BY.
SET client_min_messages = warning;

-- 100,000 items written straight into the table in the stored form (as put_item stores
-- them: the key attributes are in the item too): the posting app, ElectroDB-style keys,
-- a key without a delimiter that is not a constant, and the other delimiters
SELECT singletable.create_table('inv');
INSERT INTO inv (pk, sk, item)
SELECT k.pk, k.sk, jsonb_build_object('pk', k.pk, 'sk', k.sk, 'body', repeat('x', k.i % 97), 'n', k.i)
FROM (SELECT 'USER#' || u AS pk, 'PROFILE' AS sk, u AS i FROM generate_series(1, 5000) u
      UNION ALL SELECT 'USER#' || u, 'POST#' || lpad(p::text, 4, '0'), u * p
        FROM generate_series(1, 5000) u, generate_series(1, 10) p WHERE p <= u % 13
      UNION ALL SELECT 'POST#' || lpad(p::text, 4, '0'), 'METRICS#2026-06-23T09:' || lpad(m::text, 2, '0') || 'Z', p + m
        FROM generate_series(1, 700) p, generate_series(1, 40) m
      UNION ALL SELECT '$app#userid_' || u, '$user_1', u FROM generate_series(1, 3000) u
      UNION ALL SELECT 'org:' || o, 'member|' || m, o * m FROM generate_series(1, 100) o, generate_series(1, 30) m
      UNION ALL SELECT 'u_' || u, 'metrics', u FROM generate_series(1, 1000) u
      UNION ALL SELECT 'TENANT#t' || (e % 50), 'EVENT#' || e, e * 7 FROM generate_series(1, 31164) e) k;
SELECT count(*) FROM inv;

-- the groups, and the same figures from a hand-written GROUP BY (its prefix rule written
-- with regular expressions, its sizes by the validating item_size): zero rows either way
CREATE TEMP VIEW hand AS
WITH r AS (
  SELECT pk, singletable.item_size(item) AS s,
         CASE WHEN pk ~ '[#:|]' THEN substring(pk FROM '^[^#:|]*[#:|]')
              WHEN pk ~ '^([A-Z][A-Z0-9_]{0,31}|\$[A-Za-z0-9_]{1,31})$' THEN pk END AS pkp,
         CASE WHEN sk ~ '[#:|]' THEN substring(sk FROM '^[^#:|]*[#:|]')
              WHEN sk ~ '^([A-Z][A-Z0-9_]{0,31}|\$[A-Za-z0-9_]{1,31})$' THEN sk END AS skp
  FROM inv),
c AS (SELECT pkp, skp, pk, count(*) AS n, sum(s) AS b, max(s) AS mx FROM r GROUP BY pkp, skp, pk)
SELECT NULL::text AS entity, pkp AS pk_prefix, skp AS sk_prefix, sum(n)::int8 AS items,
       count(*) AS partitions, sum(b)::int8 AS bytes, round(sum(b) / sum(n), 1) AS avg_item_bytes,
       max(mx)::int8 AS max_item_bytes, max(n) AS largest_collection_items,
       max(b)::int8 AS largest_collection_bytes
FROM c GROUP BY pkp, skp;

SELECT entity, pk_prefix, sk_prefix, items, partitions, bytes, avg_item_bytes, max_item_bytes,
       largest_collection_items, largest_collection_bytes, rows_read, sampled
FROM singletable.key_prefixes('inv');
(SELECT entity, pk_prefix, sk_prefix, items, partitions, bytes, avg_item_bytes, max_item_bytes,
        largest_collection_items, largest_collection_bytes FROM singletable.key_prefixes('inv')
 EXCEPT SELECT * FROM hand)
UNION ALL
(SELECT * FROM hand
 EXCEPT SELECT entity, pk_prefix, sk_prefix, items, partitions, bytes, avg_item_bytes, max_item_bytes,
        largest_collection_items, largest_collection_bytes FROM singletable.key_prefixes('inv'));

-- collections: the top 5 by items and by bytes, and the same from a hand-written GROUP BY
SELECT * FROM singletable.collections('inv', top => 5);
CREATE TEMP VIEW hand_coll AS
WITH c AS (SELECT pk, count(*) AS n, sum(singletable.item_size(item))::int8 AS b FROM inv GROUP BY pk)
(SELECT 'items'::text, (row_number() OVER (ORDER BY n DESC, b DESC, pk))::int4, pk, n, b
 FROM c ORDER BY n DESC, b DESC, pk LIMIT 50)
UNION ALL
(SELECT 'bytes', (row_number() OVER (ORDER BY b DESC, n DESC, pk))::int4, pk, n, b
 FROM c ORDER BY b DESC, n DESC, pk LIMIT 50);
(SELECT rank_by, rank, partition_key, items, bytes FROM singletable.collections('inv', top => 50)
 EXCEPT SELECT * FROM hand_coll)
UNION ALL
(SELECT * FROM hand_coll
 EXCEPT SELECT rank_by, rank, partition_key, items, bytes FROM singletable.collections('inv', top => 50));

-- a sample says so; a 100 % sample reads every row
SELECT DISTINCT rows_read, sampled FROM singletable.key_prefixes('inv', 100);
SELECT DISTINCT rows_read, sampled FROM singletable.collections('inv', top => 3, sample_percent => 100);
SELECT bool_and(sampled), min(rows_read) = max(rows_read) AS one_count,
       min(rows_read) < 100000 AS fewer_rows
FROM singletable.key_prefixes('inv', 5);
SELECT bool_and(sampled), bool_and(rows_read < 100000) FROM singletable.collections('inv', top => 3, sample_percent => 5);

-- over_threshold: a threshold given, DynamoDB's 10 GB with a local secondary index, else none
SELECT rank_by, rank, partition_key, bytes, over_threshold
FROM singletable.collections('inv', top => 2, threshold_bytes => 2000);
SELECT singletable.create_lsi('inv', 'by_n', 'n', 'N');
SELECT DISTINCT over_threshold FROM singletable.collections('inv', top => 2);

-- a partition-key-only table, number and binary keys: no prefix
SELECT singletable.create_table('inv_n', 'id', NULL, 'N');
SELECT singletable.put_item('inv_n', '{"id": 12, "a": "x"}');
SELECT singletable.put_item('inv_n', '{"id": 13}');
SELECT * FROM singletable.key_prefixes('inv_n');
SELECT * FROM singletable.collections('inv_n');
SELECT singletable.create_table('inv_b', 'pk', 'sk', 'B', 'S');
SELECT singletable.put_item('inv_b', '{"pk": "AAEC", "sk": "A#1", "v": {"B": "AAAA"}}');
SELECT * FROM singletable.key_prefixes('inv_b');
SELECT rank_by, partition_key, items, bytes FROM singletable.collections('inv_b', top => 1);

-- with entities: the items of an entity are grouped under its name (and its templates'
-- type tags), the others under their literal prefixes, as a hand-written GROUP BY over
-- entity_of says; collections of one entity count only its items
SELECT singletable.define_entity('inv', 'UserProfile', pk => 'USER#{userId:int}', sk => 'PROFILE');
SELECT singletable.define_entity('inv', 'Post', pk => 'USER#{userId:int}', sk => 'POST#{postId:int(4)}');
SELECT singletable.define_entity('inv', 'Event', pk => 'TENANT#{tenantId}', sk => 'EVENT#{eventId:int}');
CREATE TEMP VIEW hand_e AS
WITH r AS (
  SELECT pk, singletable.entity_of('inv', pk, sk) AS e, singletable.item_size(item) AS s,
         CASE WHEN pk ~ '[#:|]' THEN substring(pk FROM '^[^#:|]*[#:|]')
              WHEN pk ~ '^([A-Z][A-Z0-9_]{0,31}|\$[A-Za-z0-9_]{1,31})$' THEN pk END AS pkp,
         CASE WHEN sk ~ '[#:|]' THEN substring(sk FROM '^[^#:|]*[#:|]')
              WHEN sk ~ '^([A-Z][A-Z0-9_]{0,31}|\$[A-Za-z0-9_]{1,31})$' THEN sk END AS skp
  FROM inv),
c AS (SELECT e, pkp, skp, pk, count(*) AS n, sum(s) AS b, max(s) AS mx FROM r GROUP BY e, pkp, skp, pk)
SELECT e AS entity, pkp AS pk_prefix, skp AS sk_prefix, sum(n)::int8 AS items,
       count(*) AS partitions, sum(b)::int8 AS bytes, round(sum(b) / sum(n), 1) AS avg_item_bytes,
       max(mx)::int8 AS max_item_bytes, max(n) AS largest_collection_items,
       max(b)::int8 AS largest_collection_bytes
FROM c GROUP BY e, pkp, skp;
SELECT entity, pk_prefix, sk_prefix, items, partitions, bytes, rows_read FROM singletable.key_prefixes('inv');
(SELECT entity, pk_prefix, sk_prefix, items, partitions, bytes, avg_item_bytes, max_item_bytes,
        largest_collection_items, largest_collection_bytes FROM singletable.key_prefixes('inv')
 EXCEPT SELECT * FROM hand_e)
UNION ALL
(SELECT * FROM hand_e
 EXCEPT SELECT entity, pk_prefix, sk_prefix, items, partitions, bytes, avg_item_bytes, max_item_bytes,
        largest_collection_items, largest_collection_bytes FROM singletable.key_prefixes('inv'));
SELECT * FROM singletable.collections('inv', entity => 'Post', top => 3);
CREATE TEMP VIEW hand_post AS
WITH c AS (SELECT pk, count(*) AS n, sum(singletable.item_size(item))::int8 AS b FROM inv
           WHERE singletable.entity_of('inv', pk, sk) = 'Post' GROUP BY pk)
(SELECT 'items'::text, (row_number() OVER (ORDER BY n DESC, b DESC, pk))::int4, pk, n, b
 FROM c ORDER BY n DESC, b DESC, pk LIMIT 20)
UNION ALL
(SELECT 'bytes', (row_number() OVER (ORDER BY b DESC, n DESC, pk))::int4, pk, n, b
 FROM c ORDER BY b DESC, n DESC, pk LIMIT 20);
(SELECT rank_by, rank, partition_key, items, bytes FROM singletable.collections('inv', 'Post', 20)
 EXCEPT SELECT * FROM hand_post)
UNION ALL
(SELECT * FROM hand_post
 EXCEPT SELECT rank_by, rank, partition_key, items, bytes FROM singletable.collections('inv', 'Post', 20));
SELECT DISTINCT rows_read FROM singletable.collections('inv', 'Event', 2);

-- errors: arguments checked before the table is opened, the table's name in each
SELECT * FROM singletable.key_prefixes('inv', 0);
SELECT * FROM singletable.key_prefixes('inv', 100.5);
SELECT * FROM singletable.key_prefixes('inv', 'NaN');
SELECT * FROM singletable.collections('inv', top => 0);
SELECT * FROM singletable.collections('inv', top => 1001);
SELECT * FROM singletable.collections('inv', top => NULL);
SELECT * FROM singletable.collections('inv', threshold_bytes => 0);
SELECT * FROM singletable.collections('inv', sample_percent => -1);
SELECT * FROM singletable.collections('inv', entity => 'Nope');
SELECT * FROM singletable.key_prefixes('no_such_table');
SELECT * FROM singletable.collections('no_such_table');
SELECT * FROM singletable.key_prefixes(NULL);
CREATE TABLE inv_plain (pk text);
SELECT * FROM singletable.key_prefixes('inv_plain');

-- the caller needs SELECT on the table
CREATE ROLE regress_st_inv_reader;
SET ROLE regress_st_inv_reader;
SELECT * FROM singletable.key_prefixes('inv');
SELECT * FROM singletable.collections('inv');
RESET ROLE;
GRANT SELECT ON inv TO regress_st_inv_reader;
SET ROLE regress_st_inv_reader;
SELECT count(*) FROM singletable.key_prefixes('inv');
RESET ROLE;
REVOKE SELECT ON inv FROM regress_st_inv_reader;
DROP ROLE regress_st_inv_reader;

-- the prefix rule itself
SELECT k, singletable._key_prefix(k) FROM (VALUES ('USER#42'), ('user#42'), ('org:acme'), ('a|b'),
  ('PROFILE'), ('METRICS'), ('$user_1'), ('$app#userid_1'), ('u_3001'), ('profile'), ('2026-06-23'),
  ('#x'), (''), ('ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFG')) v(k);

DROP VIEW hand, hand_coll, hand_e, hand_post;
DROP TABLE inv, inv_n, inv_b, inv_plain;
