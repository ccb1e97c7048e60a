-- query_scan.sql: singletable.query alone in FROM runs as a custom scan that
-- streams its rows (src/functions/query_scan.c) instead of a Function Scan
-- that materializes them. Every call here runs both ways (singletable.query_scan
-- on and off) and must give the same rows in the same order; an outer LIMIT
-- stops the streamed read, which then counts only what it read and leaves the
-- last item read as its LastEvaluatedKey. Where the Query cannot be streamed
-- (a secondary index, row-level security, direct_reads off) the scan runs the
-- function's own read.

-- setup
SET client_min_messages = warning;
SELECT singletable.create_table('qs_s', 'pk', 'sk') IS NOT NULL AS created;
SELECT singletable.create_table('qs_n', 'pk', 'sk', 'N', 'N') IS NOT NULL AS created;
SELECT singletable.create_table('qs_p', 'pk', NULL) IS NOT NULL AS created;
SELECT singletable.enable_ttl('qs_s', 'exp') IS NOT NULL AS ttl;
SELECT singletable.create_gsi('qs_s', 'by_status', 'status', 'n', sort_key_type => 'N') IS NOT NULL AS gsi;
SELECT count(coalesce(singletable.put_item('qs_s', jsonb_build_object('pk', 'U#1', 'sk', 'A#' || lpad(i::text, 3, '0'),
        'n', i, 'status', CASE WHEN i % 3 = 0 THEN 'done' ELSE 'open' END)), '{}'))
  FROM generate_series(1, 40) i;
SELECT count(coalesce(singletable.put_item('qs_s', jsonb_build_object('pk', 'U#2', 'sk', 'A#' || i, 'n', i)), '{}'))
  FROM generate_series(1, 5) i;
-- TTL: 3 expired items (an hour ago), 2 live ones
SELECT count(coalesce(singletable.put_item('qs_s', jsonb_build_object('pk', 'TTL', 'sk', 'T#' || i,
        'exp', CASE WHEN i <= 3 THEN extract(epoch FROM now())::int8 - 3600 ELSE 4000000000 END)), '{}'))
  FROM generate_series(1, 5) i;
-- items stored compressed inline (a long repetitive string): they pass as values, not as stored
SELECT count(coalesce(singletable.put_item('qs_s', jsonb_build_object('pk', 'Z', 'sk', 'Z#' || i, 'blob', repeat('ab', 2000))), '{}'))
  FROM generate_series(1, 3) i;
SELECT count(coalesce(singletable.put_item('qs_n', jsonb_build_object('pk', 7, 'sk', i * 1.5, 'v', i)), '{}'))
  FROM generate_series(-5, 20) i;
SELECT count(coalesce(singletable.put_item('qs_p', jsonb_build_object('pk', 'K' || i, 'v', i)), '{}'))
  FROM generate_series(1, 5) i;
RESET client_min_messages;

-- the plan: a custom scan, the call shown as a Function Scan shows it
EXPLAIN (COSTS OFF) SELECT * FROM singletable.query('qs_s', 'U#1', 'begins_with', 'A#0');
EXPLAIN (VERBOSE, COSTS OFF) SELECT sk FROM singletable.query('qs_s', 'U#1', max_items => 3) WHERE sk > 'A#001';
-- an outer LIMIT sits on it; the planner costs its first row as free
EXPLAIN (COSTS OFF) SELECT * FROM singletable.query('qs_s', 'U#1') LIMIT 2;
-- where it is not used: the setting off, LATERAL, a whole-row reference, ORDINALITY,
-- UPDATE ... FROM and FOR UPDATE
SET singletable.query_scan = off;
EXPLAIN (COSTS OFF) SELECT * FROM singletable.query('qs_s', 'U#1');
RESET singletable.query_scan;
EXPLAIN (COSTS OFF) SELECT q.sk FROM (VALUES ('U#1'), ('U#2')) v(p), LATERAL singletable.query('qs_s', v.p) q;
EXPLAIN (COSTS OFF) SELECT r FROM singletable.query('qs_s', 'U#2') AS r;
EXPLAIN (COSTS OFF) SELECT * FROM singletable.query('qs_s', 'U#2') WITH ORDINALITY;
CREATE TABLE qs_target (sk text PRIMARY KEY, seen int DEFAULT 0);
INSERT INTO qs_target SELECT 'A#' || i FROM generate_series(1, 5) i;
EXPLAIN (COSTS OFF) UPDATE qs_target t SET seen = seen + 1 FROM singletable.query('qs_s', 'U#2') q WHERE q.sk = t.sk;
EXPLAIN (COSTS OFF) SELECT * FROM qs_target t, singletable.query('qs_s', 'U#2') q WHERE q.sk = t.sk FOR UPDATE OF t;
UPDATE qs_target t SET seen = seen + 1 FROM singletable.query('qs_s', 'U#2') q WHERE q.sk = t.sk;
SELECT sum(seen) AS updated FROM qs_target;
-- INSERT ... SELECT streams (nothing re-checks its rows)
CREATE TABLE qs_copy (pk text, sk text, item jsonb);
EXPLAIN (COSTS OFF) INSERT INTO qs_copy SELECT * FROM singletable.query('qs_s', 'U#1') LIMIT 5;
INSERT INTO qs_copy SELECT * FROM singletable.query('qs_s', 'U#1') LIMIT 5;
SELECT string_agg(sk, ',' ORDER BY sk) AS copied FROM qs_copy;
WITH c AS (INSERT INTO qs_copy SELECT * FROM singletable.query('qs_s', 'U#2') RETURNING sk)
SELECT count(*) AS copied FROM c;

-- the same rows both ways: one call, run with the scan and as a Function Scan
CREATE FUNCTION qs_both(call text, OUT same bool, OUT n int) LANGUAGE plpgsql AS $$
DECLARE
    a text;
    b text;
BEGIN
    PERFORM set_config('singletable.query_scan', 'on', true);
    EXECUTE format('SELECT string_agg(format(''%%s|%%s|%%s'', pk, sk, item), E''\n''), count(*) FROM %s', call) INTO a, n;
    PERFORM set_config('singletable.query_scan', 'off', true);
    EXECUTE format('SELECT string_agg(format(''%%s|%%s|%%s'', pk, sk, item), E''\n'') FROM %s', call) INTO b;
    PERFORM set_config('singletable.query_scan', 'on', true);
    same := a IS NOT DISTINCT FROM b;
END $$;
CREATE TABLE qs_cases (name text PRIMARY KEY, call text);
INSERT INTO qs_cases VALUES
 ('all', $$singletable.query('qs_s', 'U#1')$$),
 ('begins', $$singletable.query('qs_s', 'U#1', 'begins_with', 'A#01')$$),
 ('between', $$singletable.query('qs_s', 'U#1', 'between', 'A#005', 'A#012')$$),
 ('lt_back', $$singletable.query('qs_s', 'U#1', '<', 'A#010', forward => false)$$),
 ('max_items', $$singletable.query('qs_s', 'U#1', max_items => 7)$$),
 ('start', $$singletable.query('qs_s', 'U#1', exclusive_start_sk => 'A#030')$$),
 ('start_back', $$singletable.query('qs_s', 'U#1', forward => false, exclusive_start_sk => 'A#030', max_items => 4)$$),
 ('filter', $$singletable.query('qs_s', 'U#1', filter => '#s = :v', names => '{"#s": "status"}', vals => '{":v": "done"}')$$),
 ('filter_max', $$singletable.query('qs_s', 'U#1', filter => 'n > :v', vals => '{":v": 35}', max_items => 38)$$),
 ('projection', $$singletable.query('qs_s', 'U#1', 'begins_with', 'A#00', projection => 'sk, n')$$),
 ('key_condition', $$singletable.query('qs_s', key_condition => 'pk = :p AND sk >= :s', vals => '{":p": "U#2", ":s": "A#3"}')$$),
 ('ttl', $$singletable.query('qs_s', 'TTL')$$),
 ('ttl_included', $$singletable.query('qs_s', 'TTL', include_expired => true)$$),
 ('compressed', $$singletable.query('qs_s', 'Z')$$),
 ('n_keys', $$singletable.query('qs_n', '7', '>=', '3')$$),
 ('n_keys_back', $$singletable.query('qs_n', '7.00', forward => false, max_items => 5)$$),
 ('no_sort_key', $$singletable.query('qs_p', 'K3')$$),
 ('missing', $$singletable.query('qs_s', 'NOPE')$$),
 ('gsi', $$singletable.query('qs_s', 'done', index_name => 'by_status')$$),
 ('gsi_range', $$singletable.query('qs_s', 'open', '>', '30', index_name => 'by_status', forward => false)$$);
SELECT name, (qs_both(call)).* FROM qs_cases ORDER BY name;

-- which path a read took (EXPLAIN ANALYZE), and the DEBUG1 line of the one that ran
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM singletable.query('qs_s', 'U#2');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM singletable.query('qs_s', 'done', index_name => 'by_status');
SET singletable.direct_reads = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM singletable.query('qs_s', 'U#2');
RESET singletable.direct_reads;
SET client_min_messages = debug1;
SELECT count(*) FROM singletable.query('qs_s', 'U#2');
SELECT count(*) FROM singletable.query('qs_s', 'done', index_name => 'by_status');
RESET client_min_messages;
-- row-level security: the statement (its policies), for the owner too when forced
CREATE ROLE qs_reader;
GRANT USAGE ON SCHEMA singletable TO qs_reader;
GRANT SELECT ON qs_s TO qs_reader;
ALTER TABLE qs_s ENABLE ROW LEVEL SECURITY;
CREATE POLICY qs_odd ON qs_s FOR SELECT TO qs_reader USING ((item->>'n')::int % 2 = 1);
SET ROLE qs_reader;
SELECT count(*) AS odd_only FROM singletable.query('qs_s', 'U#1');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM singletable.query('qs_s', 'U#2');
RESET ROLE;
SELECT count(*) AS owner_all FROM singletable.query('qs_s', 'U#1');
ALTER TABLE qs_s DISABLE ROW LEVEL SECURITY;
-- without SELECT: the function's error
REVOKE SELECT ON qs_s FROM qs_reader;
SET ROLE qs_reader;
SELECT * FROM singletable.query('qs_s', 'U#1') LIMIT 1;
RESET ROLE;

-- an outer LIMIT stops the read: it reads, counts and charges what it returned
SELECT singletable.reset_stats();
SELECT sk FROM singletable.query('qs_s', 'U#1') LIMIT 3;
SELECT singletable.last_evaluated_key();
SELECT items_read, items_returned FROM singletable.table_stats WHERE table_name = 'qs_s'::regclass AND index_name IS NULL AND operation = 'Query';
-- read to its end: no LastEvaluatedKey
SELECT count(*) FROM singletable.query('qs_s', 'U#2');
SELECT singletable.last_evaluated_key();
-- cut by max_items: its key, as before
SELECT sk FROM singletable.query('qs_s', 'U#2', max_items => 2);
SELECT singletable.last_evaluated_key();
-- stopped by LIMIT after a filter skipped items: the last item read is the last returned
SELECT sk FROM singletable.query('qs_s', 'U#1', filter => '#s = :v', names => '{"#s": "status"}', vals => '{":v": "done"}') LIMIT 2;
SELECT singletable.last_evaluated_key();
-- which pages on: the next read starts after it, and together they read every item once
SELECT string_agg(sk, ',') AS next FROM singletable.query('qs_s', 'U#1', filter => '#s = :v', names => '{"#s": "status"}',
  vals => '{":v": "done"}', exclusive_start_sk => singletable.last_evaluated_key()->>'sk');
SELECT singletable.reset_stats();
SELECT sk FROM singletable.query('qs_s', 'U#1', forward => false) LIMIT 1;
SELECT singletable.last_evaluated_key();
SELECT items_read FROM singletable.table_stats WHERE table_name = 'qs_s'::regclass AND index_name IS NULL AND operation = 'Query';
-- a projection: the key comes from the item read, not the projected row
SELECT * FROM singletable.query('qs_s', 'U#1', projection => 'n') LIMIT 1;
SELECT singletable.last_evaluated_key();
-- N keys: the key in its type
SELECT sk FROM singletable.query('qs_n', '7') LIMIT 2;
SELECT singletable.last_evaluated_key();

-- rescans: a correlated subquery and the inner side of a join read again each time
SELECT v.p, (SELECT count(*) FROM singletable.query('qs_s', v.p)) AS n
  FROM (VALUES ('U#1'), ('U#2'), ('NOPE')) v(p);
SELECT v.p, (SELECT max(sk) FROM singletable.query('qs_s', v.p, max_items => 3)) AS third
  FROM (VALUES ('U#1'), ('U#2')) v(p);
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
EXPLAIN (COSTS OFF) SELECT v.n, q.sk FROM (VALUES (1), (2)) v(n) JOIN singletable.query('qs_s', 'U#2') q
  ON (q.item->>'n')::int = v.n;
SELECT v.n, q.sk FROM (VALUES (1), (2)) v(n) JOIN singletable.query('qs_s', 'U#2') q
  ON (q.item->>'n')::int = v.n ORDER BY v.n;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- cursors: rows as they are fetched; a SCROLL cursor gets a Material node and goes backward
BEGIN;
DECLARE qs_c CURSOR FOR SELECT sk FROM singletable.query('qs_s', 'U#2');
FETCH 2 FROM qs_c;
FETCH 2 FROM qs_c;
CLOSE qs_c;
SELECT singletable.last_evaluated_key();
EXPLAIN (COSTS OFF) DECLARE qs_sc SCROLL CURSOR FOR SELECT sk FROM singletable.query('qs_s', 'U#2');
DECLARE qs_sc SCROLL CURSOR FOR SELECT sk FROM singletable.query('qs_s', 'U#2');
FETCH 3 FROM qs_sc;
FETCH BACKWARD 2 FROM qs_sc;
COMMIT;

-- a prepared call: its generic plan streams too, and a table dropped and made again is read by name
PREPARE qs_p(text, int) AS SELECT item->>'v' AS v FROM singletable.query('qs_p', $1, max_items => $2);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE qs_p('K1', 1);
EXECUTE qs_p('K2', 1);
SELECT singletable.drop_table('qs_p');
SELECT singletable.create_table('qs_p', 'pk', NULL) IS NOT NULL AS created;
SELECT singletable.put_item('qs_p', '{"pk": "K2", "v": "again"}');
EXECUTE qs_p('K2', 1);
RESET plan_cache_mode;
DEALLOCATE qs_p;

-- a table name is read as SQL reads it: a plain lower-case name as it is, any other form
-- (upper case folded, spaces trimmed, a schema, quotes) parsed; all of these are qs_s
SELECT n, (SELECT count(*) FROM singletable.query(n, 'U#2')) AS items
  FROM unnest(ARRAY['qs_s', 'QS_S', ' qs_s ', 'public.qs_s', '"qs_s"', 'public."qs_s"']) n;
SELECT count(*) FROM singletable.query('"QS_S"', 'U#2');
SELECT count(*) FROM singletable.query(repeat('q', 64), 'U#2');
SELECT count(*) FROM singletable.query('', 'U#2');

-- errors are the function's, with nothing read
SELECT * FROM singletable.query('qs_nope', 'U#1');
SELECT * FROM singletable.query('qs_s', 'U#1', max_items => 0);
SELECT * FROM singletable.query('qs_s', 'U#1', 'like', 'A');
SELECT * FROM singletable.query(NULL, 'U#1');
SELECT * FROM singletable.query('qs_s', 'U#1', filter => 'nope(') LIMIT 1;
-- an error while rows stream (a division by zero in the outer query) ends the statement cleanly
SELECT 1 / ((item->>'n')::int - 3) FROM singletable.query('qs_s', 'U#1');
SELECT count(*) AS after_error FROM singletable.query('qs_s', 'U#1');

-- cleanup
DROP FUNCTION qs_both(text);
DROP TABLE qs_cases, qs_target, qs_copy;
SELECT singletable.drop_table('qs_s');
SELECT singletable.drop_table('qs_n');
SELECT singletable.drop_table('qs_p');
REVOKE USAGE ON SCHEMA singletable FROM qs_reader;
DROP ROLE qs_reader;
