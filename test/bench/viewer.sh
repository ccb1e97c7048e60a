#!/usr/bin/env bash
# test/bench/viewer.sh: the viewer's first view of a 1,000,000-item table (issue 30): the time
# from the start of the navigation to /viewer/#table=big (signed in) to its collections list
# rendered, in headless Chromium (test/viewer/first_view.js), through singletable-gateway
# --viewer. Not part of CI (CI checks the viewer's correctness: test/viewer/run.sh).
#
#   test/bench/viewer.sh [ITEMS]      (default 1000000: 90 % in 10,000 user collections of a
#                                      profile and 89 posts, 10 % metrics in 10,000 POST# collections)
#
# Loads the items with INSERT ... SELECT generate_series (as test/bench/peel_off.sh), registers
# the entities, VACUUM ANALYZEs, then prints one line per run and the median. Starts its own
# server with test/lib.sh (PG_CONFIG honoured); needs the installed gateway and viewer files,
# /usr/bin/chromium and test/viewer/node_modules (npm ci in test/viewer).
# Environment: BENCH_RUNS (5).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../lib.sh"
ITEMS=${1:-1000000}
((ITEMS >= 1000 && ITEMS % 1000 == 0)) || { echo "ITEMS must be a multiple of 1000" >&2; exit 1; }
GATEWAY=${GATEWAY:-$PGBIN/singletable-gateway}
VIEWER_DIR=${VIEWER_DIR:-$("$PG_CONFIG" --sharedir)/singletable/viewer}
viewer_js=$TOP/test/viewer
[[ -d $viewer_js/node_modules/puppeteer-core ]] || (cd "$viewer_js" && npm ci --no-audit --no-fund >&2) || exit 1

st_start_server "shared_preload_libraries = 'singletable'" || exit 1
USERS=$((ITEMS * 9 / 10 / 90))
POSTS=$((ITEMS / 10 / 10))
st_log "loading $ITEMS items"
start=$(date +%s.%N)
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 <<SQL || exit 1
SET client_min_messages = warning;
CREATE EXTENSION singletable;
SELECT singletable.create_table('big');
SELECT singletable.define_entity('big', 'User', pk => 'USER#{userId}', sk => 'PROFILE');
SELECT singletable.define_entity('big', 'Post', pk => 'USER#{userId}', sk => 'POST#{postId:int(4)}');
SELECT singletable.define_entity('big', 'Metrics', pk => 'POST#{postId}', sk => 'METRICS#{capturedAt:timestamp}');
INSERT INTO big (pk, sk, item)
SELECT 'USER#u' || lpad(u::text, 6, '0'), 'PROFILE',
       jsonb_build_object('pk', 'USER#u' || lpad(u::text, 6, '0'), 'sk', 'PROFILE', 'name', 'user ' || u)
  FROM generate_series(1, $USERS) u;
INSERT INTO big (pk, sk, item)
SELECT 'USER#u' || lpad(u::text, 6, '0'), 'POST#' || lpad(p::text, 4, '0'),
       jsonb_build_object('pk', 'USER#u' || lpad(u::text, 6, '0'), 'sk', 'POST#' || lpad(p::text, 4, '0'),
                          'title', 'post ' || p || ' of user ' || u, 'status', 'draft')
  FROM generate_series(1, $USERS) u, generate_series(1, 89) p;
INSERT INTO big (pk, sk, item)
SELECT 'POST#p' || lpad(p::text, 6, '0'), 'METRICS#2026-06-23T' || lpad(h::text, 2, '0') || ':00:00Z',
       jsonb_build_object('pk', 'POST#p' || lpad(p::text, 6, '0'), 'sk', 'METRICS#2026-06-23T' || lpad(h::text, 2, '0') || ':00:00Z', 'views', h * 10)
  FROM generate_series(1, $POSTS) p, generate_series(0, 9) h;
VACUUM ANALYZE big;
SQL
count=$("$PGBIN/psql" -X -At -c "SELECT count(*) FROM big")
st_log "loaded $count items in $(echo "$(date +%s.%N) - $start" | bc) s"

creds=$ST_DIR/credentials
echo "AKIDBENCHVIEWER bench-viewer-secret -" >"$creds"
chmod 600 "$creds"
"$GATEWAY" --listen 127.0.0.1:0 --pool 2 --credentials "$creds" --viewer "$VIEWER_DIR" >"$ST_DIR/gateway.log" 2>&1 </dev/null &
gw=$!
trap 'kill $gw 2>/dev/null; wait $gw 2>/dev/null; st_stop_server' EXIT
for ((i = 0; i < 100; i++)); do
    port=$(sed -n 's/.*listening on 127\.0\.0\.1 port \([0-9]*\).*/\1/p' "$ST_DIR/gateway.log" | head -1)
    [[ -n $port ]] && break
    sleep 0.1
done
[[ -n ${port:-} ]] || { cat "$ST_DIR/gateway.log" >&2; exit 1; }
echo "# the first view of big ($count items): navigation start to the collections list rendered"
VIEWER_URL=http://127.0.0.1:$port CHROMIUM=${CHROMIUM:-/usr/bin/chromium} \
    node "$viewer_js/first_view.js" big AKIDBENCHVIEWER bench-viewer-secret "${BENCH_RUNS:-5}"
