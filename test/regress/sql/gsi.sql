-- gsi: global secondary indexes (sparse, overloaded), their writes, queries and plans
-- setup
SET client_min_messages = warning;
SELECT singletable.create_table('gsi_posts');
-- 60 users with 5 posts each: every third post approved (gsi1pk, numeric gsi1sk), the rest drafts
SELECT count(*) FROM (
  SELECT singletable.put_item('gsi_posts',
           jsonb_build_object('pk', 'USER#' || u, 'sk', 'POST#' || p, 'title', 't' || u || '-' || p)
           || CASE WHEN (u * 5 + p) % 3 = 0
                   THEN jsonb_build_object('gsi1pk', 'STATUS#approved', 'gsi1sk', 1700000000 + ((u * 7 + p * 13) % 40))
                   ELSE '{}' END)
    FROM generate_series(1, 60) u, generate_series(1, 5) p) s;
-- the same index, overloaded: members with a role
SELECT count(*) FROM (
  SELECT singletable.put_item('gsi_posts',
           jsonb_build_object('pk', 'ORG#1', 'sk', 'MEMBER#' || m, 'gsi1pk', 'ROLE#' || CASE WHEN m % 4 = 0 THEN 'admin' ELSE 'user' END,
                              'gsi1sk', m, 'seniority', m))
    FROM generate_series(1, 12) m) s;
ANALYZE gsi_posts;

-- tests
-- create_gsi returns the btree index
SELECT singletable.create_gsi('gsi_posts', 'gsi1', 'gsi1pk', 'gsi1sk', sort_key_type => 'N');
\d gsi_posts_gsi1_gsi
SELECT table_name, index_name, partition_key, partition_key_type, sort_key, sort_key_type, projection,
       non_key_attributes, pg_index
  FROM singletable.indexes ORDER BY 1, 2;
SELECT jsonb_pretty(singletable.describe_table('gsi_posts') -> 'GlobalSecondaryIndexes' #- '{0,IndexSizeBytes}' #- '{0,ItemCount}');

-- the scheduler: approved posts by publish time, across all users; drafts never appear
SELECT count(*) AS approved,
       count(*) FILTER (WHERE NOT item ? 'gsi1pk') AS drafts,
       bool_and(pk LIKE 'USER#%') AS only_posts
  FROM singletable.query('gsi_posts', 'STATUS#approved', index_name => 'gsi1');
SELECT (SELECT array_agg(ARRAY[pk, sk] ORDER BY o) FROM singletable.query('gsi_posts', 'STATUS#approved', index_name => 'gsi1') WITH ORDINALITY q(pk, sk, item, o))
     = (SELECT array_agg(ARRAY[pk, sk] ORDER BY (item->>'gsi1sk')::numeric, pk COLLATE "C", sk COLLATE "C")
          FROM gsi_posts WHERE item ? 'gsi1pk' AND item->>'gsi1pk' = 'STATUS#approved') AS in_index_order;
SELECT pk, sk, item->'gsi1sk' AS publish_at
  FROM singletable.query('gsi_posts', 'STATUS#approved', '<=', '1700000001', index_name => 'gsi1');
SELECT pk, sk, item->'gsi1sk' AS publish_at
  FROM singletable.query('gsi_posts', 'STATUS#approved', 'between', '1700000038', '1700000039', forward => false, index_name => 'gsi1');
SELECT pk, sk FROM singletable.query('gsi_posts', 'STATUS#approved', '=', '1700000005', max_items => 2, index_name => 'gsi1');
-- the overloaded entity
SELECT pk, sk, item->'gsi1sk' AS m FROM singletable.query('gsi_posts', 'ROLE#admin', index_name => 'gsi1');
SELECT pk, sk FROM singletable.query('gsi_posts', 'ROLE#user', '>', '9', index_name => 'gsi1');
-- with filter and projection
SELECT pk, sk, item FROM singletable.query('gsi_posts', 'ROLE#user', filter => 'seniority > :v', vals => '{":v": 9}',
                                           projection => 'sk, gsi1sk', index_name => 'gsi1');
-- a page cut by max_items under a filter may hold no item; it ends at the LastEvaluatedKey
-- (index keys and table keys)
SELECT pk, sk, item FROM singletable.query('gsi_posts', 'ROLE#user', filter => 'seniority > :v', vals => '{":v": 5}',
                                           max_items => 3, index_name => 'gsi1');
SELECT singletable.last_evaluated_key();

-- approving a draft makes it appear, REMOVE gsi1pk makes it disappear, in the same transaction
BEGIN;
SELECT singletable.update_item('gsi_posts', 'USER#1', 'POST#1', 'SET gsi1pk = :s, gsi1sk = :t',
                               vals => '{":s": "STATUS#approved", ":t": 1}');
SELECT pk, sk FROM singletable.query('gsi_posts', 'STATUS#approved', '<', '1700000000', index_name => 'gsi1');
SELECT singletable.update_item('gsi_posts', 'USER#1', 'POST#1', 'REMOVE gsi1pk');
SELECT pk, sk FROM singletable.query('gsi_posts', 'STATUS#approved', '<', '1700000000', index_name => 'gsi1');
SELECT singletable.put_item('gsi_posts', '{"pk": "USER#1", "sk": "POST#1", "gsi1pk": "STATUS#approved", "gsi1sk": 2}');
SELECT pk, sk FROM singletable.query('gsi_posts', 'STATUS#approved', '<', '1700000000', index_name => 'gsi1');
ROLLBACK;

-- pagination over duplicate index sort keys, 3 items a page, both directions: nothing lost or repeated
CREATE TEMP TABLE pages (dir bool, page int, pk text, sk text, item jsonb);
DO $$
DECLARE
  dir bool;
  start jsonb;
  n int;
  page int;
  r record;
BEGIN
  FOREACH dir IN ARRAY ARRAY[true, false] LOOP
    start := NULL;
    page := 0;
    LOOP
      n := 0;
      page := page + 1;
      FOR r IN SELECT * FROM singletable.query('gsi_posts', 'STATUS#approved', 'between', '1700000010', '1700000020',
                                               forward => dir, max_items => 3, exclusive_start_key => start,
                                               index_name => 'gsi1') LOOP
        n := n + 1;
        INSERT INTO pages VALUES (dir, page, r.pk, r.sk, r.item);
        start := jsonb_build_object('pk', r.pk, 'sk', r.sk, 'gsi1pk', r.item->'gsi1pk', 'gsi1sk', r.item->'gsi1sk');
      END LOOP;
      EXIT WHEN n < 3;
    END LOOP;
  END LOOP;
END $$;
SELECT dir, count(*) AS items, count(DISTINCT (pk, sk)) AS distinct_items, max(page) AS pages,
       count(DISTINCT item->'gsi1sk') < count(*) AS has_duplicate_sort_keys
  FROM pages GROUP BY dir ORDER BY dir;
SELECT (SELECT count(*) FROM singletable.query('gsi_posts', 'STATUS#approved', 'between', '1700000010', '1700000020', index_name => 'gsi1'))
       AS expected;
SELECT (SELECT array_agg(ARRAY[pk, sk] ORDER BY page, ctid) FROM pages WHERE dir)
     = (SELECT array_agg(ARRAY[pk, sk] ORDER BY o) FROM singletable.query('gsi_posts', 'STATUS#approved', 'between', '1700000010', '1700000020', index_name => 'gsi1') WITH ORDINALITY q(pk, sk, item, o))
       AS forward_pages_in_order,
       (SELECT array_agg(ARRAY[pk, sk] ORDER BY page, ctid) FROM pages WHERE NOT dir)
     = (SELECT array_agg(ARRAY[pk, sk] ORDER BY o) FROM singletable.query('gsi_posts', 'STATUS#approved', 'between', '1700000010', '1700000020', forward => false, index_name => 'gsi1') WITH ORDINALITY q(pk, sk, item, o))
       AS backward_pages_in_order;

-- the billing app: open invoices across tenants by ISO-8601 due date (S sort key)
SELECT singletable.create_table('gsi_billing');
SELECT count(*) FROM (
  SELECT singletable.put_item('gsi_billing',
           jsonb_build_object('pk', 'TENANT#' || t, 'sk', 'INVOICE#' || i, 'amount', t * 100 + i)
           || CASE WHEN i % 2 = 0 THEN jsonb_build_object('status', 'STATUS#open', 'due', format('2026-%s-%sT00:00:00Z', lpad((1 + (t + i) % 12)::text, 2, '0'), lpad((1 + (t * i) % 28)::text, 2, '0')))
                   ELSE jsonb_build_object('status', 'STATUS#paid') END)
    FROM generate_series(1, 4) t, generate_series(1, 4) i) s;
-- many more items that are in no index, so that the planner sees a real table
SELECT count(*) FROM (
  SELECT singletable.put_item('gsi_billing', jsonb_build_object('pk', 'TENANT#' || (i % 50), 'sk', 'NOTE#' || i))
    FROM generate_series(1, 3000) i) s;
SELECT singletable.create_gsi('gsi_billing', 'open-by-due', 'status', 'due');
ANALYZE gsi_billing;
SELECT * FROM singletable.explain_query('gsi_billing', 'STATUS#open', 'begins_with', '2026-0', forward => false, index_name => 'open-by-due');
-- plain SQL on the index: begins_with is an index range, for constants and in a generic plan
EXPLAIN (COSTS OFF)
SELECT pk, sk FROM gsi_billing
 WHERE jsonb_typeof(item -> 'status') = 'string' AND jsonb_typeof(item -> 'due') = 'string'
   AND (item ->> 'status') COLLATE "C" = 'STATUS#open'
   AND singletable.begins_with((item ->> 'due') COLLATE "C", '2026-03');
SET plan_cache_mode = force_generic_plan;
PREPARE due(text, text) AS
SELECT pk, sk FROM gsi_billing
 WHERE jsonb_typeof(item -> 'status') = 'string' AND jsonb_typeof(item -> 'due') = 'string'
   AND (item ->> 'status') COLLATE "C" = $1 AND singletable.begins_with((item ->> 'due') COLLATE "C", $2);
EXPLAIN (COSTS OFF) EXECUTE due('STATUS#open', '2026-03');
EXECUTE due('STATUS#open', '2026-0');
RESET plan_cache_mode;
SELECT pk, sk, item->>'due' AS due FROM singletable.query('gsi_billing', 'STATUS#open', index_name => 'open-by-due');
SELECT pk, sk, item->>'due' AS due FROM singletable.query('gsi_billing', 'STATUS#open', 'begins_with', '2026-0', forward => false, index_name => 'open-by-due');
SELECT pk, sk, item->>'due' AS due FROM singletable.query('gsi_billing', 'STATUS#open', '>=', '2026-06', max_items => 2, index_name => 'open-by-due');

-- KEYS_ONLY and INCLUDE projections: base keys, index keys (and the listed attributes)
SELECT singletable.create_gsi('gsi_billing', 'keys', 'status', 'due', projection => 'KEYS_ONLY');
SELECT singletable.create_gsi('gsi_billing', 'incl', 'status', 'due', projection => 'INCLUDE', non_key_attributes => ARRAY['amount']);
SELECT item FROM singletable.query('gsi_billing', 'STATUS#open', max_items => 2, index_name => 'keys');
SELECT item FROM singletable.query('gsi_billing', 'STATUS#open', max_items => 2, index_name => 'incl');
-- a partition-key-only index, on a table whose sort key comes into the start key
SELECT singletable.create_gsi('gsi_billing', 'by-status', 'status');
SELECT pk, sk FROM singletable.query('gsi_billing', 'STATUS#paid', max_items => 3, index_name => 'by-status');
SELECT pk, sk FROM singletable.query('gsi_billing', 'STATUS#paid', max_items => 3, index_name => 'by-status',
                                     exclusive_start_key => '{"status": "STATUS#paid", "pk": "TENANT#1", "sk": "INVOICE#3"}');
SELECT g->'IndexName' AS name, g->'KeySchema' AS key_schema, g->'Projection' AS projection, g->'IndexStatus' AS status,
       (g->>'ItemCount')::int >= 0 AND (g->>'IndexSizeBytes')::int > 0 AS sized
  FROM jsonb_array_elements(singletable.describe_table('gsi_billing')->'GlobalSecondaryIndexes') g;

-- B and N index keys, on a table with an N partition key and no sort key
SELECT singletable.create_table('gsi_bin', partition_key => 'id', sort_key => NULL, partition_key_type => 'N');
SELECT singletable.create_gsi('gsi_bin', 'by-hash', 'h', 'n', partition_key_type => 'B', sort_key_type => 'N');
SELECT count(*) FROM (
  SELECT singletable.put_item('gsi_bin', jsonb_build_object('id', i, 'h', jsonb_build_object('$B', encode(CASE WHEN i % 2 = 0 THEN '\x00ff'::bytea ELSE '\xff00'::bytea END, 'base64')), 'n', (i % 3) - 1))
    FROM generate_series(1, 9) i) s;
SELECT pk, sk, item FROM singletable.query('gsi_bin', 'AP8=', '>=', '0', index_name => 'by-hash');
SELECT pk FROM singletable.query('gsi_bin', 'AP8=', max_items => 2, index_name => 'by-hash',
                                 exclusive_start_key => '{"h": {"$B": "AP8="}, "n": -1, "id": 6}');
SELECT singletable.put_item('gsi_bin', '{"id": 100, "h": "AP8="}');
SELECT singletable.put_item('gsi_bin', '{"id": 100, "h": {"$B": ""}}');
SELECT * FROM singletable.explain_query('gsi_bin', 'AP8=', '=', '1', index_name => 'by-hash');
SELECT singletable.drop_table('gsi_bin');

-- plans: an Index Scan on the GSI with the whole key condition as Index Cond
SELECT * FROM singletable.explain_query('gsi_posts', 'STATUS#approved', 'between', '1', '2', index_name => 'gsi1');
SET plan_cache_mode = force_generic_plan;
SELECT * FROM singletable.explain_query('gsi_posts', 'STATUS#approved', '>=', '1', index_name => 'gsi1');
-- a continued page: the row comparison stays in the index range
SELECT pk, sk FROM singletable.query('gsi_posts', 'STATUS#approved', max_items => 1, index_name => 'gsi1',
       exclusive_start_key => '{"gsi1pk": "STATUS#approved", "gsi1sk": 1700000003, "pk": "USER#1", "sk": "POST#1"}');
RESET plan_cache_mode;
-- plain SQL, constants: the WHERE clause documented in README
EXPLAIN (COSTS OFF)
SELECT pk, sk, item FROM gsi_posts
 WHERE jsonb_typeof(item -> 'gsi1pk') = 'string' AND jsonb_typeof(item -> 'gsi1sk') = 'number'
   AND (item ->> 'gsi1pk') COLLATE "C" = 'STATUS#approved'
   AND (item -> 'gsi1sk')::numeric BETWEEN 1700000001 AND 1700000009
 ORDER BY (item -> 'gsi1sk')::numeric, pk, sk;
-- plain SQL, generic plan of a prepared statement
SET plan_cache_mode = force_generic_plan;
PREPARE sched(text, numeric) AS
SELECT pk, sk FROM gsi_posts
 WHERE jsonb_typeof(item -> 'gsi1pk') = 'string' AND jsonb_typeof(item -> 'gsi1sk') = 'number'
   AND (item ->> 'gsi1pk') COLLATE "C" = $1 AND (item -> 'gsi1sk')::numeric <= $2
 ORDER BY (item -> 'gsi1sk')::numeric, pk, sk;
EXPLAIN (COSTS OFF) EXECUTE sched('STATUS#approved', 1700000001);
EXECUTE sched('STATUS#approved', 1700000001);
-- the next page, after a start key: a row comparison on the index's trailing columns, still one range
PREPARE next_page(text, numeric, text, text) AS
SELECT pk, sk FROM gsi_posts
 WHERE jsonb_typeof(item -> 'gsi1pk') = 'string' AND jsonb_typeof(item -> 'gsi1sk') = 'number'
   AND (item ->> 'gsi1pk') COLLATE "C" = $1
   AND ((item -> 'gsi1sk')::numeric, pk, sk) > ($2, $3, $4)
 ORDER BY (item -> 'gsi1sk')::numeric, pk, sk LIMIT 2;
EXPLAIN (COSTS OFF) EXECUTE next_page('STATUS#approved', 1700000001, 'USER#6', 'POST#3');
EXECUTE next_page('STATUS#approved', 1700000001, 'USER#6', 'POST#3');
RESET plan_cache_mode;

-- index_sql: the plain-SQL statement that reaches the index, as the user writes it
\pset format unaligned
SELECT singletable.index_sql('gsi_posts', 'gsi1');
\pset format aligned
SELECT 'EXPLAIN (COSTS OFF) ' || replace(singletable.index_sql('gsi_posts', 'gsi1'), '$1', quote_literal('STATUS#approved')) \gexec
SELECT 'EXPLAIN (COSTS OFF) ' || replace(singletable.index_sql('gsi_posts', 'gsi1'), '$1', quote_literal('STATUS#approved')) || ' LIMIT 3' \gexec
SELECT singletable.index_sql('gsi_posts', 'nope');
SELECT singletable.index_sql('gsi_posts', NULL);

-- errors: wrong-typed, empty or oversized index keys are refused and nothing is written
SELECT singletable.put_item('gsi_posts', '{"pk": "USER#1", "sk": "POST#9", "gsi1pk": 5}');
SELECT singletable.put_item('gsi_posts', '{"pk": "USER#1", "sk": "POST#9", "gsi1pk": "STATUS#approved", "gsi1sk": "soon"}');
SELECT singletable.put_item('gsi_posts', '{"pk": "USER#1", "sk": "POST#9", "gsi1pk": ""}');
SELECT singletable.put_item('gsi_posts', jsonb_build_object('pk', 'USER#1', 'sk', 'POST#9', 'gsi1pk', repeat('x', 2049)));
SELECT singletable.put_item('gsi_billing', jsonb_build_object('pk', 'T', 'sk', 'I', 'status', 'S', 'due', repeat('x', 1025)));
SELECT singletable.update_item('gsi_posts', 'USER#1', 'POST#2', 'SET gsi1sk = :v', vals => '{":v": "tomorrow"}');
SELECT singletable.update_item('gsi_posts', 'USER#1', 'POST#2', 'SET gsi1pk = :v', vals => '{":v": ""}');
SELECT singletable.update_item('gsi_posts', 'USER#1', 'POST#2', 'SET gsi1pk = :v', vals => jsonb_build_object(':v', repeat('y', 2049)));
-- index keys and table keys together must fit one btree entry (PostgreSQL's limit, not DynamoDB's)
SELECT singletable.put_item('gsi_posts', jsonb_build_object('pk', repeat('p', 1000), 'sk', repeat('s', 1000),
                                                            'gsi1pk', repeat('g', 700), 'gsi1sk', 1));
SELECT singletable.put_item('gsi_posts', jsonb_build_object('pk', repeat('p', 1000), 'sk', repeat('s', 1000),
                                                            'gsi1pk', repeat('g', 600), 'gsi1sk', 1)) IS NULL AS fits;
SELECT singletable.delete_item('gsi_posts', repeat('p', 1000), repeat('s', 1000)) IS NULL;
SELECT count(*) FROM gsi_posts WHERE sk = 'POST#9' OR pk = repeat('p', 1000) OR item->>'gsi1sk' = 'tomorrow' OR item->>'gsi1pk' IN ('', repeat('y', 2049));
-- an absent index key is fine (sparse)
SELECT singletable.put_item('gsi_posts', '{"pk": "USER#1", "sk": "POST#9", "gsi1sk": 3}');
SELECT count(*) FROM singletable.query('gsi_posts', 'STATUS#approved', '=', '3', index_name => 'gsi1');
-- create_gsi on items that cannot be in the index: refused with their count and the query
-- that lists them (never their keys: errors reach the server log), nothing left behind
SELECT singletable.put_item('gsi_posts', '{"pk": "USER#2", "sk": "POST#9", "gsi2pk": 1}');
SELECT singletable.put_item('gsi_posts', '{"pk": "USER#3", "sk": "POST#9", "gsi2pk": "ok", "gsi2sk": ""}');
SELECT singletable.create_gsi('gsi_posts', 'gsi2', 'gsi2pk', 'gsi2sk');
SELECT singletable.create_gsi('gsi_posts', 'gsi2', 'gsi2pk', 'gsi2sk', partition_key_type => 'N');
-- the HINT's query lists exactly those items
CREATE FUNCTION pg_temp.hint_listing(create_sql text) RETURNS TABLE (pk text, sk text)
LANGUAGE plpgsql AS $$
DECLARE
  hint text;
BEGIN
  EXECUTE create_sql;
EXCEPTION WHEN datatype_mismatch THEN
  GET STACKED DIAGNOSTICS hint = PG_EXCEPTION_HINT;
  RETURN QUERY EXECUTE substring(hint from 'SELECT .*') || ' ORDER BY 1, 2';
END $$;
SELECT * FROM pg_temp.hint_listing($q$SELECT singletable.create_gsi('gsi_posts', 'gsi2', 'gsi2pk', 'gsi2sk')$q$);
SELECT * FROM pg_temp.hint_listing($q$SELECT singletable.create_gsi('gsi_posts', 'gsi2', 'gsi2pk', 'gsi2sk', partition_key_type => 'N')$q$);
-- and for a B key (an empty binary value)
SELECT singletable.put_item('gsi_posts', '{"pk": "USER#4", "sk": "POST#9", "gsi3b": {"$B": ""}}');
SELECT singletable.create_gsi('gsi_posts', 'gsi3', 'gsi3b', partition_key_type => 'B');
SELECT * FROM pg_temp.hint_listing($q$SELECT singletable.create_gsi('gsi_posts', 'gsi3', 'gsi3b', partition_key_type => 'B')$q$);
SELECT singletable.delete_item('gsi_posts', 'USER#4', 'POST#9');
SELECT count(*) FROM singletable.indexes WHERE index_name = 'gsi2';
SELECT count(*) FROM pg_class WHERE relname = 'gsi_posts_gsi2_gsi';
-- bad arguments
SELECT singletable.create_gsi('gsi_posts', 'gsi1', 'a');
SELECT singletable.create_gsi('gsi_posts', 'g', 'a');
SELECT singletable.create_gsi('gsi_posts', 'bad name', 'a');
SELECT singletable.create_gsi('gsi_posts', NULL, 'a');
SELECT singletable.create_gsi('gsi_posts', 'gsi3', NULL);
SELECT singletable.create_gsi('gsi_posts', 'gsi3', 'a', 'a');
SELECT singletable.create_gsi('gsi_posts', 'gsi3', 'a', partition_key_type => 'X');
SELECT singletable.create_gsi('gsi_posts', 'gsi3', 'a', projection => 'SOME');
SELECT singletable.create_gsi('gsi_posts', 'gsi3', 'a', projection => 'INCLUDE');
SELECT singletable.create_gsi('gsi_posts', 'gsi3', 'a', non_key_attributes => ARRAY['x']);
SELECT singletable.create_gsi('no_such_table', 'gsi3', 'a');
SELECT singletable.drop_gsi('gsi_posts', 'gsi3');
-- query errors
SELECT * FROM singletable.query('gsi_posts', 'STATUS#approved', index_name => 'nope');
SELECT * FROM singletable.query('gsi_posts', 'STATUS#approved', '=', 'soon', index_name => 'gsi1');
SELECT * FROM singletable.query('gsi_posts', 'STATUS#approved', 'begins_with', '17', index_name => 'gsi1');
SELECT * FROM singletable.query('gsi_posts', 'STATUS#approved', exclusive_start_sk => 'POST#1', index_name => 'gsi1');
-- a filter on an index may not use the index's key attributes (the table's keys it may)
SELECT * FROM singletable.query('gsi_posts', 'ROLE#user', filter => 'gsi1sk > :v', vals => '{":v": 1}', index_name => 'gsi1');
SELECT count(*) FROM singletable.query('gsi_posts', 'ROLE#user', filter => 'sk > :v', vals => '{":v": "MEMBER#5"}', index_name => 'gsi1');
SELECT * FROM singletable.query('gsi_posts', 'STATUS#approved', index_name => 'gsi1',
                                exclusive_start_key => '{"gsi1pk": "STATUS#approved", "pk": "USER#1", "sk": "POST#1"}');
SELECT * FROM singletable.query('gsi_posts', 'STATUS#approved', index_name => 'gsi1',
                                exclusive_start_key => '{"gsi1pk": "STATUS#approved", "gsi1sk": "x", "pk": "USER#1", "sk": "POST#1"}');
SELECT * FROM singletable.query('gsi_posts', 'STATUS#approved', index_name => 'gsi1',
                                exclusive_start_key => '{"gsi1pk": "ROLE#admin", "gsi1sk": 1, "pk": "USER#1", "sk": "POST#1"}');
SELECT * FROM singletable.query('gsi_posts', 'STATUS#approved', '>', '1700000010', index_name => 'gsi1',
                                exclusive_start_key => '{"gsi1pk": "STATUS#approved", "gsi1sk": 1, "pk": "USER#1", "sk": "POST#1"}');
SELECT * FROM singletable.query('gsi_posts', 'STATUS#approved', index_name => 'gsi1',
                                exclusive_start_key => '{"gsi1pk": "STATUS#approved", "gsi1sk": 1, "pk": "USER#1", "other": "POST#1"}');
-- only the owner creates or drops an index
CREATE ROLE gsi_reader;
GRANT SELECT ON gsi_posts TO gsi_reader;
SET ROLE gsi_reader;
SELECT singletable.create_gsi('gsi_posts', 'gsi9', 'a');
SELECT singletable.drop_gsi('gsi_posts', 'gsi1');
SELECT count(*) FROM singletable.query('gsi_posts', 'ROLE#admin', index_name => 'gsi1');
RESET ROLE;

-- drop_gsi, DROP INDEX and DROP TABLE remove registry rows
SELECT singletable.drop_gsi('gsi_billing', 'keys');
DROP INDEX gsi_billing_incl_gsi;
SELECT index_name FROM singletable.indexes WHERE table_name = 'gsi_billing'::regclass ORDER BY 1;
SELECT * FROM singletable.query('gsi_billing', 'STATUS#open', index_name => 'incl');
SELECT singletable.drop_table('gsi_billing');
SELECT count(*) FROM singletable.indexes WHERE index_name IN ('open-by-due', 'by-status');

-- cleanup
DROP OWNED BY gsi_reader;
DROP ROLE gsi_reader;
SELECT singletable.drop_table('gsi_posts');
