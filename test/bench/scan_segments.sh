#!/usr/bin/env bash
# test/bench/scan_segments.sh: how evenly parallel-scan segments split a table and a GSI.
#
#   test/bench/scan_segments.sh [ITEMS]     (default 1000000 items, 100 per collection)
#
# Loads ITEMS items (collections USER#<n> of 100 items, a GSI holding every item with 16
# partitions), ANALYZEs, then for N = 1, 4 and 7 runs every segment 0..N-1 of
# singletable.explain_scan(..., with_analyze => true) over the table and over the GSI and
# prints the rows each segment's index scan read (EXPLAIN ANALYZE "actual rows"), their
# sum (which must be ITEMS: the segments are complete, and disjoint since they are
# ranges), and the largest segment against ITEMS / N. Also prints the EXPLAIN ANALYZE of
# segment 1 of 4. Not part of CI. Starts its own server with test/lib.sh (PG_CONFIG
# honoured; the extension must build; it is installed into that PostgreSQL).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../lib.sh"
ITEMS=${1:-1000000}
((ITEMS >= 100 && ITEMS % 100 == 0)) || { echo "ITEMS must be a multiple of 100" >&2; exit 1; }

st_build_install >/dev/null || { echo "build failed" >&2; exit 1; }
st_start_server >/dev/null || { echo "server failed" >&2; exit 1; }
psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }

psql -c "CREATE EXTENSION singletable" -c "SELECT singletable.create_table('seg')" >/dev/null
st_log "loading $ITEMS items"
psql -c "INSERT INTO seg (pk, sk, item)
         SELECT 'USER#' || lpad(c::text, 7, '0'), 'ITEM#' || lpad(i::text, 3, '0'),
                jsonb_build_object('pk', 'USER#' || lpad(c::text, 7, '0'), 'sk', 'ITEM#' || lpad(i::text, 3, '0'),
                                   'g', 'G#' || (c % 16), 'n', c * 100 + i, 'title', 'an item of a collection')
           FROM generate_series(1, $ITEMS / 100) c, generate_series(1, 100) i" >/dev/null
psql -c "SELECT singletable.create_gsi('seg', 'byg', 'g', 'n', sort_key_type => 'N')" -c "VACUUM ANALYZE seg" >/dev/null

psql -A -t <<SQL
CREATE TEMP TABLE r (target text, n int, segment int, rows bigint);
DO \$\$
DECLARE line text; got bigint; n int;
BEGIN
  FOR target IN 1..2 LOOP
    FOREACH n IN ARRAY ARRAY[1, 4, 7] LOOP
      FOR s IN 0..n - 1 LOOP
        got := NULL;
        FOR line IN SELECT * FROM singletable.explain_scan('seg', index_name => CASE target WHEN 2 THEN 'byg' END,
                                                           segment => s, total_segments => n, with_analyze => true) LOOP
          IF got IS NULL AND line ~ 'Scan.*actual.*rows=' THEN
            got := substring(line FROM 'rows=([0-9]+)')::bigint;
          END IF;
        END LOOP;
        INSERT INTO r VALUES (CASE target WHEN 1 THEN 'table' ELSE 'gsi byg' END, n, s, coalesce(got, 0));
      END LOOP;
    END LOOP;
  END LOOP;
END \$\$;
SELECT format('%-8s N = %s: rows read per segment %s; sum %s (items $ITEMS); largest / (items / N) = %s',
              target, n, string_agg(rows::text, ' / ' ORDER BY segment), sum(rows),
              round(max(rows) / ($ITEMS::numeric / n), 3))
  FROM r GROUP BY target, n ORDER BY target DESC, n;
SQL
echo "--- EXPLAIN ANALYZE of segment 1 of 4 (table)"
psql -A -t -c "SELECT * FROM singletable.explain_scan('seg', segment => 1, total_segments => 4, with_analyze => true)"
