#!/usr/bin/env bash
# test/bench/limit_vs_max_items.sh: what an outer LIMIT costs a query, against max_items.
#
#   test/bench/limit_vs_max_items.sh [ITEMS]     (default 1000000 items in one collection)
#
# PostgreSQL reads a set-returning function in FROM to its end (FunctionScan materializes
# its result), so as a Function Scan `SELECT * FROM singletable.query(t, pk) LIMIT 10`
# reads the whole collection, while `singletable.query(t, pk, max_items => 10)` reads 10
# items. A call alone in FROM is a custom scan that streams its rows (query_scan.c), which
# the LIMIT stops. This script loads one collection of ITEMS items (about 100 bytes each),
# then, rotating A, B and C over 5 rounds in one session, runs
#   A  SELECT * FROM singletable.query('big', 'P') LIMIT 10          (the streaming scan)
#   B  SELECT * FROM singletable.query('big', 'P', max_items => 10)
#   C  A with singletable.query_scan = off                          (a Function Scan)
# and prints the median time of each, their ratios, and EXPLAIN (ANALYZE, BUFFERS) of each
# (temp file blocks show a materialized result). Not part of CI. Starts its own server
# with test/lib.sh (PG_CONFIG honoured; the extension must build).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../lib.sh"
ITEMS=${1:-1000000}

st_build_install >/dev/null || { echo "build failed" >&2; exit 1; }
st_start_server >/dev/null || { echo "server failed" >&2; exit 1; }
psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }

psql -c "CREATE EXTENSION singletable" -c "SELECT singletable.create_table('big')" >/dev/null
st_log "loading $ITEMS items into one collection"
psql -c "INSERT INTO big (pk, sk, item)
         SELECT 'P', 'S#' || lpad(i::text, 8, '0'),
                jsonb_build_object('pk', 'P', 'sk', 'S#' || lpad(i::text, 8, '0'),
                                   'n', i, 'title', 'an item of the big collection')
           FROM generate_series(1, $ITEMS) i" -c "VACUUM ANALYZE big" >/dev/null

psql -A -t <<'SQL'
CREATE TEMP TABLE t (round int, side text, ms float8);
DO $$
DECLARE t0 timestamptz; n int;
BEGIN
  FOR r IN 1..5 LOOP
    t0 := clock_timestamp();
    SELECT count(*) INTO n FROM (SELECT * FROM singletable.query('big', 'P') LIMIT 10) s;
    INSERT INTO t VALUES (r, 'A', extract(epoch FROM clock_timestamp() - t0) * 1000);
    t0 := clock_timestamp();
    SELECT count(*) INTO n FROM singletable.query('big', 'P', max_items => 10);
    INSERT INTO t VALUES (r, 'B', extract(epoch FROM clock_timestamp() - t0) * 1000);
    PERFORM set_config('singletable.query_scan', 'off', true);
    t0 := clock_timestamp();
    SELECT count(*) INTO n FROM (SELECT * FROM singletable.query('big', 'P') LIMIT 10) s;
    INSERT INTO t VALUES (r, 'C', extract(epoch FROM clock_timestamp() - t0) * 1000);
    PERFORM set_config('singletable.query_scan', 'on', true);
  END LOOP;
END $$;
SELECT format('A  LIMIT 10, streamed:      median %s ms', round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 3)) FROM t WHERE side = 'A';
SELECT format('B  max_items => 10:         median %s ms', round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 3)) FROM t WHERE side = 'B';
SELECT format('C  LIMIT 10, Function Scan: median %s ms', round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 3)) FROM t WHERE side = 'C';
CREATE TEMP VIEW m AS SELECT side, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms FROM t GROUP BY side;
SELECT format('A / B = %s, C / A = %s',
              round(((SELECT ms FROM m WHERE side = 'A') / (SELECT ms FROM m WHERE side = 'B'))::numeric, 2),
              round(((SELECT ms FROM m WHERE side = 'C') / (SELECT ms FROM m WHERE side = 'A'))::numeric, 0));
SQL
echo "--- A: EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM singletable.query('big', 'P') LIMIT 10 (streamed)"
psql -A -t -c "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, SUMMARY OFF) SELECT * FROM singletable.query('big', 'P') LIMIT 10"
echo "--- B: EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM singletable.query('big', 'P', max_items => 10)"
psql -A -t -c "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, SUMMARY OFF) SELECT * FROM singletable.query('big', 'P', max_items => 10)"
echo "--- C: the same as A with singletable.query_scan = off (a Function Scan)"
psql -A -t -c "SET singletable.query_scan = off" -c "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, SUMMARY OFF) SELECT * FROM singletable.query('big', 'P') LIMIT 10"
