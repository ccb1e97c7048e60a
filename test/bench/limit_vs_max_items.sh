#!/usr/bin/env bash
# test/bench/limit_vs_max_items.sh: what an outer LIMIT costs a query, against max_items.
#
#   test/bench/limit_vs_max_items.sh [ITEMS]     (default 1000000 items in one collection)
#
# PostgreSQL reads a set-returning function in FROM to its end (FunctionScan materializes
# its result), so `SELECT * FROM singletable.query(t, pk) LIMIT 10` reads the whole
# collection, while `singletable.query(t, pk, max_items => 10)` reads 10 items. This script
# loads one collection of ITEMS items (about 100 bytes each), then, alternating A and B
# over 5 rounds in one session, runs
#   A  SELECT * FROM singletable.query('big', 'P') LIMIT 10
#   B  SELECT * FROM singletable.query('big', 'P', max_items => 10)
# and prints the median time of each, their ratio, and EXPLAIN (ANALYZE, BUFFERS) of both
# (temp file blocks show the materialized result). Not part of CI. Starts its own server
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
  END LOOP;
END $$;
SELECT format('A  LIMIT 10:        median %s ms', round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 3)) FROM t WHERE side = 'A';
SELECT format('B  max_items => 10: median %s ms', round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 3)) FROM t WHERE side = 'B';
SELECT format('A / B = %s', round((SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FROM t WHERE side = 'A')::numeric
                               / (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FROM t WHERE side = 'B')::numeric, 0));
SQL
echo "--- A: EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM singletable.query('big', 'P') LIMIT 10"
psql -A -t -c "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, SUMMARY OFF) SELECT * FROM singletable.query('big', 'P') LIMIT 10"
echo "--- B: EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM singletable.query('big', 'P', max_items => 10)"
psql -A -t -c "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, SUMMARY OFF) SELECT * FROM singletable.query('big', 'P', max_items => 10)"
