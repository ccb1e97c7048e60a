#!/usr/bin/env bash
# test/viewer/run.sh: the viewer (viewer/, served by singletable-gateway --viewer) in headless
# Chromium. Starts a throwaway server (test/lib.sh), loads test/viewer/posting.sql (the
# posting app, the billing tenant, a role that row-level security denies app's rows), starts
# two gateways with a credentials file, one with --viewer and one without, and runs
# test/viewer/viewer.test.js (puppeteer-core, installed by `npm ci` from the pinned
# package-lock.json, driving Debian's /usr/bin/chromium). TAP lines, one per check; the
# screenshots go to docs/img/viewer-*.png (VIEWER_SCREENSHOTS=DIR elsewhere).
#   PG_CONFIG=$(/work/devtools/stage.sh NAME) make install && test/viewer/run.sh
set -uo pipefail
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

GATEWAY=${GATEWAY:-$PGBIN/singletable-gateway}
VIEWER_DIR=${VIEWER_DIR:-$("$PG_CONFIG" --sharedir)/singletable/viewer}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
here=$TOP/test/viewer
fail() { echo "not ok 1 - viewer: $1"; exit 1; }
[[ -x $GATEWAY ]] || fail "no $GATEWAY: build and install it first (make && make install)"
[[ -f $VIEWER_DIR/index.html ]] || fail "no $VIEWER_DIR/index.html: make install puts the viewer there"
[[ -x $CHROMIUM ]] || fail "no $CHROMIUM (apt-get install chromium; test/lib.sh's ST_PKG_TEST has it)"
command -v node >/dev/null && command -v npm >/dev/null || fail "node and npm are needed (apt-get install nodejs npm)"
if [[ ! -e $here/node_modules/.package-lock.json || $here/package-lock.json -nt $here/node_modules/.package-lock.json ]]; then
    (cd "$here" && npm ci --no-audit --no-fund >&2) || fail "npm ci in test/viewer failed"
fi

# DynamoDB Streams' settings (wal_level = logical, the library preloaded: the stream worker),
# which also make hot_keys count the reads and writes of every backend (the gateway's
# connections), which the inventory's charts show
mapfile -t stream_conf < <(st_stream_conf)
st_start_server "${stream_conf[@]}" || exit 1
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -f "$here/posting.sql" >/dev/null || fail "loading test/viewer/posting.sql failed"

# The keys: the admin's runs as the gateway's login user (postgres), the other as viewer_denied.
creds=$ST_DIR/viewer-credentials
printf '%s\n' "AKIDVIEWERADMIN viewer-admin-secret -" "AKIDVIEWERDENIED viewer-denied-secret viewer_denied" >"$creds"
chmod 600 "$creds"

gateway_pids=()
stop_gateways() {
    local pid
    for pid in "${gateway_pids[@]}"; do
        kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    done
    st_stop_server
}
trap stop_gateways EXIT

# start_gateway LOG [OPTION...]: starts a gateway on a free port, sets gateway_port (not in
# a command substitution: the gateway would hold its pipe open)
start_gateway() {
    local log=$1 port="" i
    shift
    "$GATEWAY" --listen 127.0.0.1:0 --pool 2 --credentials "$creds" "$@" >"$log" 2>&1 </dev/null &
    gateway_pids+=($!)
    for ((i = 0; i < 100; i++)); do
        port=$(sed -n 's/.*listening on 127\.0\.0\.1 port \([0-9]*\).*/\1/p' "$log" | head -1)
        [[ -n $port ]] && break
        sleep 0.1
    done
    [[ -n $port ]] || { cat "$log" >&2; return 1; }
    gateway_port=$port
}
start_gateway "$ST_DIR/gateway-viewer.log" --viewer "$VIEWER_DIR" || fail "the gateway with --viewer did not start"
viewer_port=$gateway_port
# --viewer with a directory that is missing, or has no index.html: the gateway does not start
startup_checks=()
"$GATEWAY" --listen 127.0.0.1:0 --credentials "$creds" --viewer "$ST_DIR/no-such-dir" >"$ST_DIR/gw-missing.log" 2>&1 </dev/null
startup_checks+=("$?:$(grep -c 'no-such-dir' "$ST_DIR/gw-missing.log")")
mkdir -p "$ST_DIR/empty-viewer"
"$GATEWAY" --listen 127.0.0.1:0 --credentials "$creds" --viewer "$ST_DIR/empty-viewer" >"$ST_DIR/gw-empty.log" 2>&1 </dev/null
startup_checks+=("$?:$(grep -c 'no index.html' "$ST_DIR/gw-empty.log")")
start_gateway "$ST_DIR/gateway-plain.log" || fail "the gateway without --viewer did not start"
plain_port=$gateway_port

VIEWER_URL=http://127.0.0.1:$viewer_port PLAIN_URL=http://127.0.0.1:$plain_port CHROMIUM=$CHROMIUM \
    VIEWER_SCREENSHOTS=${VIEWER_SCREENSHOTS:-$TOP/docs/img} NODE_PATH=$here/node_modules \
    node "$here/viewer.test.js"
rc=$?
if [[ ${startup_checks[0]} == 2:1 && ${startup_checks[1]} == 2:1 ]]; then
    echo "ok 1 - startup: --viewer with a missing directory, or one without index.html, stops the gateway (status 2, one line)"
else
    echo "not ok 1 - startup: --viewer DIR unusable: ${startup_checks[*]} (want 2:1 2:1)"
    rc=1
fi
# No error line of the gateways may carry an item's content
if grep -q 'alert(1)\|aiko@example' "$ST_DIR"/gateway-*.log "$ST_DIR/server.log"; then
    echo "not ok 1 - logs: a log line carries item content"
    rc=1
else
    echo "ok 1 - logs: no line of the gateways' or the server's log carries item content"
fi
exit $rc
