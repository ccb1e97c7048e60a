-- direct_read.sql: get_item, transact_get and a Query of a table read the
-- primary key index directly (src/ops/direct.c). Every request here runs
-- through both paths, direct (singletable.direct_reads = on) and the kept
-- statement (off), and the two answers must be the same jsonb: items,
-- Count, ScannedCount, LastEvaluatedKey, ConsumedCapacity. Which path ran
-- is shown by its DEBUG1 line. The statement stays the path where the
-- direct one could not be exact: row-level security, inheritance
-- children, no usable primary key (a Citus table: test/citus/run.sh), and
-- a Query of a secondary index.

-- setup
SET client_min_messages = warning;
SELECT singletable.create_table('dr_s', 'pk', 'sk') IS NOT NULL AS created;
SELECT singletable.create_table('dr_n', 'pk', 'sk', 'N', 'N') IS NOT NULL AS created;
SELECT singletable.create_table('dr_b', 'pk', 'sk', 'B', 'B') IS NOT NULL AS created;
SELECT singletable.create_table('dr_p', 'pk', NULL) IS NOT NULL AS created;
SELECT singletable.enable_ttl('dr_s', 'exp') IS NOT NULL AS ttl;
-- 40 A# items and 10 B# items in U#1, some with a status and a count
SELECT count(singletable.put_item('dr_s', jsonb_build_object('pk', 'U#1', 'sk', 'A#' || lpad(i::text, 3, '0'),
        'n', i, 'status', CASE WHEN i % 3 = 0 THEN 'done' ELSE 'open' END, 'tags', jsonb_build_array('x', i))))
  FROM generate_series(1, 40) i;
SELECT count(singletable.put_item('dr_s', jsonb_build_object('pk', 'U#1', 'sk', 'B#' || i, 'n', i)))
  FROM generate_series(1, 10) i;
-- 15 items of about 150 KB: a 1 MB page holds 6 of them (stored TOASTed)
SELECT count(singletable.put_item('dr_s', jsonb_build_object('pk', 'BIG', 'sk', 'I#' || lpad(i::text, 2, '0'),
        'blob', (SELECT string_agg(md5(i::text || '.' || j::text), '') FROM generate_series(1, 4700) j))))
  FROM generate_series(1, 15) i;
-- TTL: 3 expired items (an hour ago), 2 live ones
SELECT count(singletable.put_item('dr_s', jsonb_build_object('pk', 'TTL', 'sk', 'T#' || i,
        'exp', CASE WHEN i <= 3 THEN extract(epoch FROM now())::int8 - 3600 ELSE 4000000000 END)))
  FROM generate_series(1, 5) i;
-- sort keys beginning with U+10FFFF: a prefix without a successor
SELECT count(singletable.put_item('dr_s', jsonb_build_object('pk', 'MAX', 'sk', chr(1114111) || i::text)))
  FROM generate_series(1, 3) i;
SELECT count(singletable.put_item('dr_s', jsonb_build_object('pk', 'MAX', 'sk', 'a' || i::text)))
  FROM generate_series(1, 2) i;
SELECT count(singletable.put_item('dr_n', jsonb_build_object('pk', 7, 'sk', i * 1.5, 'v', i)))
  FROM generate_series(-5, 20) i;
SELECT count(singletable.put_item('dr_b', jsonb_build_object('pk', 'AAEC', 'sk', encode(decode(lpad(to_hex(i), 4, '0'), 'hex'), 'base64'), 'v', i)))
  FROM generate_series(250, 270) i;
SELECT count(singletable.put_item('dr_p', jsonb_build_object('pk', 'K' || i, 'v', i)))
  FROM generate_series(1, 5) i;

-- one request through both paths: whether the answers are the same jsonb, and the direct one
CREATE FUNCTION dr_both(op text, req jsonb, OUT same bool, OUT response jsonb)
LANGUAGE plpgsql AS $$
DECLARE
    off_response jsonb;
BEGIN
    PERFORM set_config('singletable.direct_reads', 'on', true);
    response := singletable.dynamodb(op, req);
    PERFORM set_config('singletable.direct_reads', 'off', true);
    off_response := singletable.dynamodb(op, req);
    PERFORM set_config('singletable.direct_reads', 'on', true);
    same := response::text = off_response::text;
END $$;

CREATE TABLE dr_cases (name text PRIMARY KEY, op text, req jsonb);
INSERT INTO dr_cases VALUES
 ('g_hit', 'GetItem', '{"TableName": "dr_s", "Key": {"pk": {"S": "U#1"}, "sk": {"S": "A#007"}}, "ReturnConsumedCapacity": "TOTAL"}'),
 ('g_miss', 'GetItem', '{"TableName": "dr_s", "Key": {"pk": {"S": "U#1"}, "sk": {"S": "A#999"}}, "ReturnConsumedCapacity": "TOTAL"}'),
 ('g_proj', 'GetItem', '{"TableName": "dr_s", "Key": {"pk": {"S": "U#1"}, "sk": {"S": "A#003"}}, "ProjectionExpression": "#s, tags[1]", "ExpressionAttributeNames": {"#s": "status"}}'),
 ('g_big', 'GetItem', '{"TableName": "dr_s", "Key": {"pk": {"S": "BIG"}, "sk": {"S": "I#04"}}, "ReturnConsumedCapacity": "TOTAL", "ConsistentRead": true}'),
 ('g_ttl_expired', 'GetItem', '{"TableName": "dr_s", "Key": {"pk": {"S": "TTL"}, "sk": {"S": "T#1"}}}'),
 ('g_ttl_live', 'GetItem', '{"TableName": "dr_s", "Key": {"pk": {"S": "TTL"}, "sk": {"S": "T#5"}}}'),
 ('g_n', 'GetItem', '{"TableName": "dr_n", "Key": {"pk": {"N": "7.0"}, "sk": {"N": "4.50"}}}'),
 ('g_b', 'GetItem', '{"TableName": "dr_b", "Key": {"pk": {"B": "AAEC"}, "sk": {"B": "AQA="}}}'),
 ('g_p', 'GetItem', '{"TableName": "dr_p", "Key": {"pk": {"S": "K3"}}}'),
 ('g_p_miss', 'GetItem', '{"TableName": "dr_p", "Key": {"pk": {"S": "K9"}}}'),
 ('q_all', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "U#1"}}, "ReturnConsumedCapacity": "TOTAL"}'),
 ('q_eq', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p AND sk = :s", "ExpressionAttributeValues": {":p": {"S": "U#1"}, ":s": {"S": "A#010"}}}'),
 ('q_lt', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p AND sk < :s", "ExpressionAttributeValues": {":p": {"S": "U#1"}, ":s": {"S": "A#005"}}}'),
 ('q_le', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p AND sk <= :s", "ExpressionAttributeValues": {":p": {"S": "U#1"}, ":s": {"S": "A#005"}}}'),
 ('q_gt', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p AND sk > :s", "ExpressionAttributeValues": {":p": {"S": "U#1"}, ":s": {"S": "B#5"}}}'),
 ('q_ge', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p AND sk >= :s", "ExpressionAttributeValues": {":p": {"S": "U#1"}, ":s": {"S": "B#5"}}}'),
 ('q_between', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p AND sk BETWEEN :a AND :b", "ExpressionAttributeValues": {":p": {"S": "U#1"}, ":a": {"S": "A#010"}, ":b": {"S": "A#020"}}}'),
 ('q_begins', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p AND begins_with(sk, :s)", "ExpressionAttributeValues": {":p": {"S": "U#1"}, ":s": {"S": "B#"}}}'),
 ('q_begins_back', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p AND begins_with(sk, :s)", "ExpressionAttributeValues": {":p": {"S": "U#1"}, ":s": {"S": "A#0"}}, "ScanIndexForward": false, "Limit": 12}'),
 ('q_begins_nosucc', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p AND begins_with(sk, :s)", "ExpressionAttributeValues": {":p": {"S": "MAX"}, ":s": {"S": "\udbff\udfff"}}}'),
 ('q_limit', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "U#1"}}, "Limit": 7}'),
 ('q_start', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "U#1"}}, "Limit": 7, "ExclusiveStartKey": {"pk": {"S": "U#1"}, "sk": {"S": "A#007"}}}'),
 ('q_start_back', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p AND sk BETWEEN :a AND :b", "ExpressionAttributeValues": {":p": {"S": "U#1"}, ":a": {"S": "A#010"}, ":b": {"S": "A#030"}}, "ScanIndexForward": false, "ExclusiveStartKey": {"pk": {"S": "U#1"}, "sk": {"S": "A#025"}}}'),
 ('q_filter', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p AND begins_with(sk, :a)", "FilterExpression": "#s = :d AND n > :n", "ExpressionAttributeNames": {"#s": "status"}, "ExpressionAttributeValues": {":p": {"S": "U#1"}, ":a": {"S": "A#"}, ":d": {"S": "done"}, ":n": {"N": "10"}}, "Limit": 20, "ReturnConsumedCapacity": "TOTAL"}'),
 ('q_proj', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p AND sk > :a", "ProjectionExpression": "n, tags[0]", "ExpressionAttributeValues": {":p": {"S": "U#1"}, ":a": {"S": "A#035"}}}'),
 ('q_count', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p", "Select": "COUNT", "ExpressionAttributeValues": {":p": {"S": "U#1"}}}'),
 ('q_big_page1', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "BIG"}}, "ReturnConsumedCapacity": "TOTAL"}'),
 ('q_big_page2', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "BIG"}}, "ExclusiveStartKey": {"pk": {"S": "BIG"}, "sk": {"S": "I#06"}}, "ReturnConsumedCapacity": "TOTAL"}'),
 ('q_big_back', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "BIG"}}, "ScanIndexForward": false, "Select": "COUNT"}'),
 ('q_ttl', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "TTL"}}}'),
 ('q_missing', 'Query', '{"TableName": "dr_s", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "NOPE"}}}'),
 ('q_n_between', 'Query', '{"TableName": "dr_n", "KeyConditionExpression": "pk = :p AND sk BETWEEN :a AND :b", "ExpressionAttributeValues": {":p": {"N": "7"}, ":a": {"N": "-3"}, ":b": {"N": "6"}}}'),
 ('q_n_lt_back', 'Query', '{"TableName": "dr_n", "KeyConditionExpression": "pk = :p AND sk < :a", "ExpressionAttributeValues": {":p": {"N": "7"}, ":a": {"N": "0"}}, "ScanIndexForward": false}'),
 ('q_b_begins', 'Query', '{"TableName": "dr_b", "KeyConditionExpression": "pk = :p AND begins_with(sk, :a)", "ExpressionAttributeValues": {":p": {"B": "AAEC"}, ":a": {"B": "AQ=="}}}'),
 ('q_b_gt', 'Query', '{"TableName": "dr_b", "KeyConditionExpression": "pk = :p AND sk > :a", "ExpressionAttributeValues": {":p": {"B": "AAEC"}, ":a": {"B": "AQg="}}, "Limit": 3}'),
 ('q_p', 'Query', '{"TableName": "dr_p", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "K2"}}}'),
 ('t_get', 'TransactGetItems', '{"TransactItems": [{"Get": {"TableName": "dr_s", "Key": {"pk": {"S": "U#1"}, "sk": {"S": "A#001"}}}}, {"Get": {"TableName": "dr_n", "Key": {"pk": {"N": "7"}, "sk": {"N": "3"}}}}, {"Get": {"TableName": "dr_s", "Key": {"pk": {"S": "TTL"}, "sk": {"S": "T#2"}}}}, {"Get": {"TableName": "dr_p", "Key": {"pk": {"S": "K9"}}}}], "ReturnConsumedCapacity": "TOTAL"}');
RESET client_min_messages;

-- tests

-- every request answers the same through both paths
SELECT c.name, r.same, r.response->'Count' AS count, r.response->'ScannedCount' AS scanned,
       r.response->'LastEvaluatedKey' AS last_key,
       coalesce(r.response->'Item', r.response->'Responses') IS NOT NULL AS has_items,
       r.response->'ConsumedCapacity'->'CapacityUnits' AS units
  FROM dr_cases c, LATERAL dr_both(c.op, c.req) r
 ORDER BY c.name;

-- the items of a few, in full
SELECT (dr_both(op, req)).response FROM dr_cases WHERE name IN ('g_proj', 'q_begins_back', 'q_proj', 'q_ttl', 'q_n_lt_back', 'q_b_gt', 'q_begins_nosucc') ORDER BY name;

-- the SQL functions: query, query_page, estimate_query and get_item, both paths
CREATE FUNCTION dr_sql(OUT name text, OUT result text) RETURNS SETOF record
LANGUAGE sql AS $$
SELECT 'query', string_agg(q::text, ',' ORDER BY ord) FROM singletable.query('dr_s', 'U#1', 'begins_with', 'A#', forward => false, max_items => 9) WITH ORDINALITY q(pk, sk, item, ord)
UNION ALL
SELECT 'query_page', string_agg(q::text, ',') FROM singletable.query_page('dr_s', 'BIG') q
UNION ALL
SELECT 'estimate_query', string_agg(e::text, ',') FROM singletable.estimate_query('dr_s', 'U#1', '>', 'A#030') e
UNION ALL
SELECT 'get_item', singletable.get_item('dr_n', '7', '-7.5')::text
UNION ALL
SELECT 'last_consumed_capacity', singletable.last_consumed_capacity()::text
$$;
CREATE TEMP TABLE dr_on AS SELECT * FROM dr_sql();
SET singletable.direct_reads = off;
CREATE TEMP TABLE dr_off AS SELECT * FROM dr_sql();
RESET singletable.direct_reads;
SELECT name, dr_on.result = dr_off.result AS same, length(dr_on.result) > 0 AS non_empty
  FROM dr_on JOIN dr_off USING (name) ORDER BY name;

-- singletable.query hands the tuplestore a row of the table as it is (direct.c, tuple_passes)
-- when that row is exactly the row (pk, sk, item) the function returns; every other row is
-- formed from its values. Both paths, on every kind of table and row, must give the same rows
-- and the same capacity: a table of S keys (the copied rows), with a filter and with a
-- projection; items stored compressed inline and TOASTed; N keys, no sort key; a column
-- added (old rows lack it) and then dropped; and a partition key of a non-deterministic
-- collation, where the index's equality matches other bytes than the query's and the rows
-- must carry the query's partition key.
SET client_min_messages = warning;
SELECT count(singletable.put_item('dr_s', jsonb_build_object('pk', 'CMP', 'sk', 'C#' || i, 'blob', repeat('ab', 2000 + i))))
  FROM generate_series(1, 3) i;
SELECT singletable.create_table('dr_wide', 'pk', 'sk') IS NOT NULL AS created;
SELECT count(singletable.put_item('dr_wide', jsonb_build_object('pk', 'W', 'sk', 'S#' || i, 'v', i))) FROM generate_series(1, 2) i;
ALTER TABLE dr_wide ADD COLUMN note text DEFAULT 'added';
SELECT singletable.put_item('dr_wide', '{"pk": "W", "sk": "S#3", "v": 3}') IS NULL AS put;
SELECT singletable.create_table('dr_ci', 'pk', 'sk') IS NOT NULL AS created;
SELECT count(singletable.put_item('dr_ci', jsonb_build_object('pk', 'U#1', 'sk', 'S#' || i, 'v', i))) FROM generate_series(1, 3) i;
CREATE COLLATION dr_nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
ALTER TABLE dr_ci ALTER COLUMN pk TYPE text COLLATE dr_nocase;
RESET client_min_messages;
-- the rows of a query (and its capacity) as text
CREATE FUNCTION dr_rows(t text, p text, op text DEFAULT NULL, v text DEFAULT NULL, f text DEFAULT NULL,
                        proj text DEFAULT NULL, vals jsonb DEFAULT NULL) RETURNS text
LANGUAGE sql AS $$
SELECT coalesce(string_agg(q::text, ',' ORDER BY ord), '') || ' ' || singletable.last_consumed_capacity()::text
  FROM singletable.query(t, p, op, v, filter => f, projection => proj, vals => vals) WITH ORDINALITY q(pk, sk, item, ord)
$$;
CREATE TEMP TABLE dr_row_cases (name text, t text, p text, op text, v text, f text, proj text, vals jsonb);
INSERT INTO dr_row_cases VALUES
 ('s_keys', 'dr_s', 'U#1', 'begins_with', 'A#', NULL, NULL, NULL),
 ('s_filter', 'dr_s', 'U#1', NULL, NULL, 'n > :n', NULL, '{":n": 25}'),
 ('s_projection', 'dr_s', 'U#1', '<', 'A#010', NULL, 'n, tags', NULL),
 ('compressed', 'dr_s', 'CMP', NULL, NULL, NULL, NULL, NULL),
 ('toasted', 'dr_s', 'BIG', '<', 'I#04', NULL, NULL, NULL),
 ('n_keys', 'dr_n', '7', '>', '10', NULL, NULL, NULL),
 ('no_sort_key', 'dr_p', 'K2', NULL, NULL, NULL, NULL, NULL),
 ('added_column', 'dr_wide', 'W', NULL, NULL, NULL, NULL, NULL),
 ('nocase_pk', 'dr_ci', 'u#1', NULL, NULL, NULL, NULL, NULL);
CREATE TEMP TABLE dr_rows_on AS SELECT name, dr_rows(t, p, op, v, f, proj, vals) AS rows FROM dr_row_cases;
SET singletable.direct_reads = off;
CREATE TEMP TABLE dr_rows_off AS SELECT name, dr_rows(t, p, op, v, f, proj, vals) AS rows FROM dr_row_cases;
RESET singletable.direct_reads;
SELECT name, dr_rows_on.rows = dr_rows_off.rows AS same, length(dr_rows_on.rows) AS length
  FROM dr_rows_on JOIN dr_rows_off USING (name) ORDER BY name;
-- the partition key is the query's, not the stored one the collation matched
SELECT pk, sk FROM singletable.query('dr_ci', 'u#1');
ALTER TABLE dr_wide DROP COLUMN note;
SELECT dr_rows('dr_wide', 'W') = (SELECT rows FROM dr_rows_off WHERE name = 'added_column') AS dropped_column_same;

-- which path ran: the DEBUG1 line of each read
SET client_min_messages = debug1;
SELECT singletable.get_item('dr_s', 'U#1', 'A#001')->>'n' AS n;
SELECT count(*) FROM singletable.query('dr_s', 'U#1', 'begins_with', 'B#');
SELECT singletable.transact_get('[{"Get": {"TableName": "dr_p", "Key": {"pk": "K1"}}}]')->'Responses' AS responses;
SET singletable.direct_reads = off;
SELECT singletable.get_item('dr_s', 'U#1', 'A#001')->>'n' AS n;
SELECT count(*) FROM singletable.query('dr_s', 'U#1', 'begins_with', 'B#');
RESET singletable.direct_reads;
RESET client_min_messages;

-- privileges: checked as the statement checks them, with its message
SET client_min_messages = warning;
CREATE ROLE regress_st_dr_nobody;
CREATE ROLE regress_st_dr_columns;
CREATE ROLE regress_st_dr_reader;
GRANT SELECT (pk, sk) ON dr_s TO regress_st_dr_columns;
GRANT SELECT ON dr_s TO regress_st_dr_reader;
RESET client_min_messages;
SET ROLE regress_st_dr_nobody;
SELECT singletable.get_item('dr_s', 'U#1', 'A#001');
SELECT count(*) FROM singletable.query('dr_s', 'U#1');
SET singletable.direct_reads = off;
SELECT singletable.get_item('dr_s', 'U#1', 'A#001');
SELECT count(*) FROM singletable.query('dr_s', 'U#1');
RESET singletable.direct_reads;
RESET ROLE;
-- column privileges on the keys only: the item is not theirs to read
SET ROLE regress_st_dr_columns;
SELECT singletable.get_item('dr_s', 'U#1', 'A#001');
SELECT count(*) FROM singletable.query('dr_s', 'U#1');
SET singletable.direct_reads = off;
SELECT singletable.get_item('dr_s', 'U#1', 'A#001');
RESET singletable.direct_reads;
RESET ROLE;
SET ROLE regress_st_dr_reader;
SELECT singletable.get_item('dr_s', 'U#1', 'A#001')->>'n' AS n;
SELECT count(*) FROM singletable.query('dr_s', 'U#1');
RESET ROLE;

-- fallback: row-level security enabled, the policies apply (the owner is exempt, and reads through the statement too)
SET client_min_messages = warning;
SELECT singletable.create_table('dr_rls', 'pk', 'sk') IS NOT NULL AS created;
SELECT count(*) FROM unnest(ARRAY['a', 'hidden', 'z']) s, LATERAL singletable.put_item('dr_rls', jsonb_build_object('pk', 'P', 'sk', s));
ALTER TABLE dr_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY dr_rls_visible ON dr_rls FOR SELECT USING (sk <> 'hidden');
GRANT SELECT ON dr_rls TO regress_st_dr_reader;
RESET client_min_messages;
SET ROLE regress_st_dr_reader;
SET client_min_messages = debug1;
SELECT sk FROM singletable.query('dr_rls', 'P');
SELECT singletable.get_item('dr_rls', 'P', 'hidden');
SELECT singletable.get_item('dr_rls', 'P', 'z')->>'sk' AS sk;
RESET client_min_messages;
RESET ROLE;
SET client_min_messages = debug1;
SELECT sk FROM singletable.query('dr_rls', 'P');
RESET client_min_messages;
ALTER TABLE dr_rls DISABLE ROW LEVEL SECURITY;
SET client_min_messages = debug1;
SELECT sk FROM singletable.query('dr_rls', 'P');
RESET client_min_messages;

-- fallback: a table with inheritance children, whose rows a statement on it reads too
CREATE TABLE dr_child () INHERITS (dr_p);
INSERT INTO dr_child VALUES ('K9', '{"pk": "K9", "v": "child"}');
SET client_min_messages = debug1;
SELECT singletable.get_item('dr_p', 'K9');
SELECT pk FROM singletable.query('dr_p', 'K9');
SELECT singletable.get_item('dr_p', 'K1')->>'v' AS v;
RESET client_min_messages;
DROP TABLE dr_child;

-- fallback: no primary key (the statement scans the table)
SELECT singletable.create_table('dr_nopk', 'pk', 'sk') IS NOT NULL AS created;
SELECT singletable.put_item('dr_nopk', '{"pk": "P", "sk": "1"}') IS NULL AS put;
ALTER TABLE dr_nopk DROP CONSTRAINT dr_nopk_pkey;
SET client_min_messages = debug1;
SELECT singletable.get_item('dr_nopk', 'P', '1');
RESET client_min_messages;

-- a Query of a secondary index runs its statement
SELECT singletable.create_gsi('dr_s', 'by_status', 'status', 'sk') IS NOT NULL AS gsi;
SET client_min_messages = debug1;
SELECT count(*) FROM singletable.query('dr_s', 'done', index_name => 'by_status');
RESET client_min_messages;

-- SERIALIZABLE: the index and heap access methods take the predicate locks
-- themselves (a page of the primary key, the tuple read; a range: the pages
-- of both); test/isolation/specs/direct_read_ssi.spec shows the conflicts
-- they detect
CREATE FUNCTION dr_siread() RETURNS TABLE (locktype text, relation regclass, page bool, tuple bool)
LANGUAGE sql AS $$
SELECT locktype, relation::regclass, page IS NOT NULL, tuple IS NOT NULL FROM pg_locks
 WHERE mode = 'SIReadLock' AND pid = pg_backend_pid() ORDER BY locktype, relation::regclass::text
$$;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT singletable.get_item('dr_s', 'U#1', 'A#002')->>'n' AS n;
SELECT count(*) FROM singletable.query('dr_n', '7', '<', '0');
SELECT * FROM dr_siread();
COMMIT;

-- cleanup
SET client_min_messages = warning;
DROP FUNCTION dr_both(text, jsonb);
DROP FUNCTION dr_sql();
DROP FUNCTION dr_rows(text, text, text, text, text, text, jsonb);
DROP FUNCTION dr_siread();
DROP TABLE dr_cases;
SELECT singletable.drop_table(t) FROM unnest(ARRAY['dr_s', 'dr_n', 'dr_b', 'dr_p', 'dr_rls', 'dr_nopk', 'dr_wide', 'dr_ci']) t;
DROP COLLATION dr_nocase;
DROP ROLE regress_st_dr_nobody;
DROP ROLE regress_st_dr_columns;
DROP ROLE regress_st_dr_reader;
