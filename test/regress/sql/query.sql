-- query: key conditions, order, pagination, and their plans
-- setup
SET client_min_messages = warning;
SELECT singletable.create_table('q_s');
SELECT singletable.create_table('q_n', sort_key_type => 'N');
SELECT singletable.create_table('q_b', sort_key_type => 'B');
SELECT singletable.create_table('q_pk', sort_key => NULL);
SELECT count(*) FROM (
  SELECT singletable.put_item('q_s', jsonb_build_object('pk', 'C', 'sk', s, 'n', i))
    FROM unnest(ARRAY['A#1', 'A#2', 'A#3', 'B#1', 'B#2', 'BB#1', 'C', 'a#1']) WITH ORDINALITY AS u(s, i)
  UNION ALL
  SELECT singletable.put_item('q_s', jsonb_build_object('pk', 'OTHER', 'sk', 'A#9'))
  UNION ALL
  SELECT singletable.put_item('q_n', jsonb_build_object('pk', 'N', 'sk', v))
    FROM unnest(ARRAY[-5, -1.5, 0, 1, 2.5, 10, 100]) v
  UNION ALL
  SELECT singletable.put_item('q_b', jsonb_build_object('pk', 'B', 'sk', encode(v, 'base64')))
    FROM unnest(ARRAY['\x00'::bytea, '\x01', '\x0102', '\x01ff', '\x02', '\xff', '\xff00', '\xffff']) v
  UNION ALL
  SELECT singletable.put_item('q_pk', '{"pk": "one", "v": 1}')) s;
-- other collections around them, so that the planner sees real tables
SELECT count(*) FROM (
  SELECT singletable.put_item(t, jsonb_build_object('pk', 'FILL#' || (i % 200), 'sk',
           CASE t WHEN 'q_s' THEN to_jsonb('A#' || i) WHEN 'q_n' THEN to_jsonb(i) ELSE to_jsonb(encode(int4send(i), 'base64')) END))
    FROM generate_series(1, 3000) i, unnest(ARRAY['q_s', 'q_n', 'q_b']) t
  UNION ALL
  SELECT singletable.put_item('q_pk', jsonb_build_object('pk', 'FILL#' || i)) FROM generate_series(1, 3000) i) s;
ANALYZE q_s, q_n, q_b, q_pk;

-- tests
-- the whole collection, in sort-key order (bytes: uppercase before lowercase)
SELECT pk, sk, item->'n' AS n FROM singletable.query('q_s', 'C');
-- and backwards
SELECT sk FROM singletable.query('q_s', 'C', forward => false);
-- every operator
SELECT sk FROM singletable.query('q_s', 'C', '=', 'B#1');
SELECT sk FROM singletable.query('q_s', 'C', '<', 'B#1');
SELECT sk FROM singletable.query('q_s', 'C', '<=', 'B#1');
SELECT sk FROM singletable.query('q_s', 'C', '>', 'B#1');
SELECT sk FROM singletable.query('q_s', 'C', '>=', 'B#1');
SELECT sk FROM singletable.query('q_s', 'C', 'between', 'A#2', 'B#2');
SELECT sk FROM singletable.query('q_s', 'C', 'BETWEEN', 'B#1', 'B#1');
SELECT sk FROM singletable.query('q_s', 'C', 'begins_with', 'A#');
SELECT sk FROM singletable.query('q_s', 'C', 'begins_with', 'B');
SELECT sk FROM singletable.query('q_s', 'C', 'begins_with', 'B#');
SELECT sk FROM singletable.query('q_s', 'C', 'begins_with', 'C');
SELECT sk FROM singletable.query('q_s', 'C', 'begins_with', 'Z');
SELECT sk FROM singletable.query('q_s', 'C', 'begins_with', 'A#', forward => false);
-- no such collection
SELECT count(*) FROM singletable.query('q_s', 'NOBODY');

-- N sort keys: numeric order and canonical text
SELECT sk FROM singletable.query('q_n', 'N');
SELECT sk FROM singletable.query('q_n', 'N', 'between', '-1.50', '1e1');
SELECT sk FROM singletable.query('q_n', 'N', '>', '2.5', forward => false);
SELECT sk FROM singletable.query('q_n', 'N', '=', '1.0');

-- B sort keys: unsigned byte order, base64 text, begins_with on bytes
SELECT sk, encode(decode(sk, 'base64'), 'hex') AS hex FROM singletable.query('q_b', 'B');
SELECT encode(decode(sk, 'base64'), 'hex') AS hex FROM singletable.query('q_b', 'B', 'begins_with', 'AQ==');
SELECT encode(decode(sk, 'base64'), 'hex') AS hex FROM singletable.query('q_b', 'B', 'begins_with', '/w==');
SELECT encode(decode(sk, 'base64'), 'hex') AS hex FROM singletable.query('q_b', 'B', 'begins_with', '//8=');

-- partition-key-only table: the query returns the one item
SELECT * FROM singletable.query('q_pk', 'one');

-- the result is a singletable.item_row: query can also be called in a select list
SELECT singletable.query('q_s', 'C', 'begins_with', 'B#');
SELECT (singletable.query('q_n', 'N', '>', '2')).sk;
SELECT pg_typeof(r) FROM singletable.query('q_pk', 'one') AS r;
-- pagination: max_items and exclusive_start_sk, forwards and backwards
SELECT sk FROM singletable.query('q_s', 'C', max_items => 3);
SELECT sk FROM singletable.query('q_s', 'C', max_items => 3, exclusive_start_sk => 'A#3');
SELECT sk FROM singletable.query('q_s', 'C', max_items => 3, exclusive_start_sk => 'BB#1');
SELECT sk FROM singletable.query('q_s', 'C', max_items => 3, exclusive_start_sk => 'a#1');
SELECT sk FROM singletable.query('q_s', 'C', forward => false, max_items => 3);
SELECT sk FROM singletable.query('q_s', 'C', forward => false, max_items => 3, exclusive_start_sk => 'BB#1');
-- a start key need not be an existing item
SELECT sk FROM singletable.query('q_s', 'C', 'begins_with', 'A#', max_items => 2, exclusive_start_sk => 'A#1x');
-- paging through a whole begins_with range, two at a time
WITH RECURSIVE pages(n, last) AS (
  SELECT 1, (SELECT max(sk) FROM singletable.query('q_s', 'C', 'begins_with', 'B', max_items => 2))
  UNION ALL
  SELECT n + 1, (SELECT max(sk) FROM singletable.query('q_s', 'C', 'begins_with', 'B', max_items => 2,
                                                      exclusive_start_sk => last))
    FROM pages WHERE last IS NOT NULL)
SELECT n, last FROM pages;

-- plans: every key condition is an index range with the whole condition in Index Cond
SET plan_cache_mode = force_custom_plan;
SELECT * FROM singletable.explain_query('q_s', 'C');
SELECT * FROM singletable.explain_query('q_s', 'C', '=', 'B#1');
SELECT * FROM singletable.explain_query('q_s', 'C', '<', 'B#1');
SELECT * FROM singletable.explain_query('q_s', 'C', '>=', 'B#1', forward => false);
SELECT * FROM singletable.explain_query('q_s', 'C', 'between', 'A#2', 'B#2');
SELECT * FROM singletable.explain_query('q_s', 'C', 'begins_with', 'A#');
SELECT * FROM singletable.explain_query('q_s', 'C', 'begins_with', 'A#', max_items => 2, exclusive_start_sk => 'A#1');
SELECT * FROM singletable.explain_query('q_n', 'N', 'between', '-1', '10');
SELECT * FROM singletable.explain_query('q_b', 'B', 'begins_with', '//8=');
SELECT * FROM singletable.explain_query('q_pk', 'one');
RESET plan_cache_mode;
-- the same statements planned generically (as drivers do after five executions)
SET plan_cache_mode = force_generic_plan;
SELECT * FROM singletable.explain_query('q_s', 'C', 'begins_with', 'A#');
SELECT * FROM singletable.explain_query('q_s', 'C', 'between', 'A#2', 'B#2', forward => false);
SELECT * FROM singletable.explain_query('q_s', 'C', '<=', 'B#1', max_items => 1, exclusive_start_sk => 'A#1');
-- with ANALYZE: rows read = rows returned, nothing removed by a filter
SELECT * FROM singletable.explain_query('q_s', 'C', 'begins_with', 'B#', with_analyze => true);
RESET plan_cache_mode;
-- query's own cached plans give the same rows under a generic plan
SET plan_cache_mode = force_generic_plan;
SELECT sk FROM singletable.query('q_s', 'C', 'begins_with', 'B');
RESET plan_cache_mode;

-- the planner leaves out a call's trailing arguments that are constants read as left out
-- (NULL, and forward true, include_expired false): the executor sets up fewer expressions
-- on every run (planner/query_support.c, simplify_call)
EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM singletable.query('q_s', 'C', 'begins_with', 'A#');
EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM singletable.query('q_s', 'C', NULL, NULL, NULL, true, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, false, NULL);
EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM singletable.query('q_s', 'C', forward => false);
EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM singletable.query('q_s', 'C', include_expired => true);
EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM singletable.query('q_s', 'C', consistent_read => false);
-- a bind parameter is kept, and every argument before it
PREPARE q_param(int) AS SELECT sk FROM singletable.query('q_s', 'C', max_items => $1);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE q_param(2);
EXECUTE q_param(2);
RESET plan_cache_mode;
DEALLOCATE q_param;
-- the same rows whether the defaults are left out, written out, or not constants (a
-- subquery: nothing is left out)
SELECT a.how, string_agg(sk, ',' ORDER BY ord) AS sks
  FROM (SELECT 'left out' AS how, q.* FROM singletable.query('q_s', 'C', 'begins_with', 'B') WITH ORDINALITY q(pk, sk, item, ord)
        UNION ALL
        SELECT 'written out', q.* FROM singletable.query('q_s', 'C', 'begins_with', 'B', NULL, true, NULL, NULL, NULL,
          NULL, NULL, NULL, NULL, NULL, NULL, false, NULL) WITH ORDINALITY q(pk, sk, item, ord)
        UNION ALL
        SELECT 'subqueries', q.* FROM singletable.query('q_s', 'C', 'begins_with', 'B', (SELECT NULL::text),
          (SELECT true), (SELECT NULL::int), include_expired => (SELECT false)) WITH ORDINALITY q(pk, sk, item, ord)
        UNION ALL
        SELECT 'forward NULL', q.* FROM singletable.query('q_s', 'C', 'begins_with', 'B', forward => NULL) WITH ORDINALITY q(pk, sk, item, ord)
        UNION ALL
        SELECT 'backward', q.* FROM singletable.query('q_s', 'C', 'begins_with', 'B', forward => false) WITH ORDINALITY q(pk, sk, item, ord)
        UNION ALL
        SELECT 'backward, subquery', q.* FROM singletable.query('q_s', 'C', 'begins_with', 'B', forward => (SELECT false)) WITH ORDINALITY q(pk, sk, item, ord)) a
 GROUP BY a.how ORDER BY a.how;

-- invalid input
SELECT * FROM singletable.query(NULL, 'C');
SELECT * FROM singletable.query('q_s', NULL);
SELECT * FROM singletable.query('q_s', '');
SELECT * FROM singletable.query('q_s', repeat('p', 2049));
SELECT * FROM singletable.query('no_such_table', 'C');
SELECT * FROM singletable.query('pg_class', 'C');
SELECT * FROM singletable.query('q_s', 'C', 'like', 'A%');
SELECT * FROM singletable.query('q_s', 'C', '==', 'A');
SELECT * FROM singletable.query('q_s', 'C', 'BEGINS_WITH', 'A');
SELECT * FROM singletable.query('q_s', 'C', '<>', 'A');
SELECT * FROM singletable.query('q_s', 'C', '=', NULL);
SELECT * FROM singletable.query('q_s', 'C', 'begins_with', NULL);
SELECT * FROM singletable.query('q_s', 'C', 'begins_with', '');
SELECT * FROM singletable.query('q_s', 'C', 'begins_with', repeat('x', 1025));
SELECT * FROM singletable.query('q_s', 'C', NULL, 'A');
SELECT * FROM singletable.query('q_s', 'C', NULL, NULL, 'A');
SELECT * FROM singletable.query('q_s', 'C', 'between', 'A');
SELECT * FROM singletable.query('q_s', 'C', 'between', 'B', 'A');
SELECT * FROM singletable.query('q_s', 'C', '=', 'A', 'B');
SELECT * FROM singletable.query('q_n', 'N', 'begins_with', '1');
SELECT * FROM singletable.query('q_n', 'N', 'between', '10', '9.99');
SELECT * FROM singletable.query('q_n', 'N', '=', 'ten');
SELECT * FROM singletable.query('q_b', 'B', '=', 'AQ');
SELECT * FROM singletable.query('q_pk', 'one', '=', 'x');
SELECT * FROM singletable.query('q_pk', 'one', exclusive_start_sk => 'x');
SELECT * FROM singletable.query('q_s', 'C', max_items => 0);
SELECT * FROM singletable.query('q_s', 'C', max_items => -1);
SELECT * FROM singletable.query('q_s', 'C', 'begins_with', 'A#', exclusive_start_sk => 'B#1');
SELECT * FROM singletable.query('q_s', 'C', '=', 'A#1', exclusive_start_sk => 'A#2');
SELECT * FROM singletable.query('q_s', 'C', exclusive_start_sk => '');
SELECT * FROM singletable.query('q_n', 'N', '<', '5', exclusive_start_sk => '5');
SELECT * FROM singletable.explain_query('q_s', 'C', 'like', 'A%');
SELECT * FROM singletable.explain_query('no_such_table', 'C');

-- cleanup
SELECT singletable.drop_table(t) FROM unnest(ARRAY['q_s', 'q_n', 'q_b', 'q_pk']) t;
