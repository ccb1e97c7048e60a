-- test/bench/explain_begins_with.sql: EXPLAIN (ANALYZE, BUFFERS) of a begins_with
-- query that matches 10 items of a 100,000-item collection, with a constant
-- prefix, with a bind parameter in a generic plan, through singletable.query,
-- and PostgreSQL's starts_with under the same generic plan for comparison.
-- Run against any server with the extension available:
--   psql -X -f test/bench/explain_begins_with.sql
\set ON_ERROR_STOP on
\pset pager off
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS singletable;
SELECT singletable.drop_table(t::text) FROM singletable.tables t WHERE t.table_name::text = 'bench_bw';
SELECT singletable.create_table('bench_bw');
INSERT INTO bench_bw (pk, sk, item)
SELECT 'USER#big', s, jsonb_build_object('pk', 'USER#big', 'sk', s, 'payload', repeat('x', 100))
  FROM (SELECT 'POST#' || lpad((i / 10)::text, 5, '0') || '#' || (i % 10) AS s FROM generate_series(420, 429) i
        UNION ALL
        SELECT 'LIKE#' || lpad(i::text, 6, '0') FROM generate_series(1, 99990) i) x;
VACUUM ANALYZE bench_bw;
\echo '== constant prefix'
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF)
  SELECT item FROM bench_bw WHERE pk = 'USER#big' AND singletable.begins_with(sk, 'POST#00042');
\echo '== bind parameter, generic plan'
SET plan_cache_mode = force_generic_plan;
PREPARE bw(text, text) AS SELECT item FROM bench_bw WHERE pk = $1 AND singletable.begins_with(sk, $2);
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) EXECUTE bw('USER#big', 'POST#00042');
\echo '== PostgreSQL starts_with, same generic plan'
PREPARE sw(text, text) AS SELECT item FROM bench_bw WHERE pk = $1 AND starts_with(sk, $2);
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) EXECUTE sw('USER#big', 'POST#00042');
\echo '== singletable.query (the plan it runs, executed)'
SELECT * FROM singletable.explain_query('bench_bw', 'USER#big', 'begins_with', 'POST#00042', with_analyze => true);
RESET plan_cache_mode;
SELECT singletable.drop_table('bench_bw');
