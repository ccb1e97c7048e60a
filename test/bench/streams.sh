#!/usr/bin/env bash
# test/bench/streams.sh: the DynamoDB Streams benchmark of issue 27, run by hand, never by CI
# (as root, from the checkout to measure; it builds that checkout; about 4 minutes):
#
#   test/bench/streams.sh
#   BENCH_SECONDS=3 BENCH_ROUNDS=1 BENCH_BUILD=0 test/bench/streams.sh   # smoke run
#
# 1. put_item throughput with a stream (NEW_AND_OLD_IMAGES) against without: pgbench -M prepared,
#    BENCH_CLIENTS (4) clients calling singletable.put_item on a table without a stream, then on
#    one with a stream, alternating for BENCH_ROUNDS (3) rounds of BENCH_SECONDS (10) each; the
#    keys drawn from 100,000 per client, so most puts replace an item (a MODIFY record with both
#    images) once the table fills. The stream worker decodes and stores during the streamed
#    cells, on the same 2 cores: its CPU is part of the price.
# 2. The lag from a PutItem's answer to its record's first appearance through GetRecords
#    (test/bench/streams_lag.py, boto3 through singletable-gateway, one writer), while pgbench
#    writes to another streamed table at half the streamed throughput of step 1, then unthrottled.
#
# The section "## Streams: put_item with and without a stream, and the lag (issue 27)" of
# test/bench/REPORT.md is replaced with the result. Builds into a private copy of PostgreSQL
# (PG_CONFIG when it is not the system one, else /tmp/pgstage-streambench) and starts a
# throwaway server (test/lib.sh) with wal_level = logical and the library preloaded.
# Environment: BENCH_SECONDS (10), BENCH_ROUNDS (3), BENCH_CLIENTS (4), BENCH_BUILD (1).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SYS_PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
if [[ -z ${PG_CONFIG:-} || $PG_CONFIG == "$SYS_PG_CONFIG" ]]; then
    STAGE=${BENCH_STAGE:-/tmp/pgstage-streambench}
    if [[ ! -x $STAGE/usr/lib/postgresql/15/bin/pg_config ]]; then
        mkdir -p "$STAGE/usr/lib/postgresql" "$STAGE/usr/share/postgresql" "$STAGE/usr/include" || exit 1
        cp -a /usr/lib/postgresql/15 "$STAGE/usr/lib/postgresql/" || exit 1
        cp -a /usr/share/postgresql/15 "$STAGE/usr/share/postgresql/" || exit 1
        cp -a /usr/include/postgresql "$STAGE/usr/include/" || exit 1
        chmod -R a+rX "$STAGE"
    fi
    PG_CONFIG=$STAGE/usr/lib/postgresql/15/bin/pg_config
fi
export PG_CONFIG ST_BUILD_GATEWAY=1
# shellcheck source=test/lib.sh
source "$HERE/../lib.sh"
SECTION="## Streams: put_item with and without a stream, and the lag (issue 27)"
SECONDS_PER=${BENCH_SECONDS:-10}
ROUNDS=${BENCH_ROUNDS:-3}
CLIENTS=${BENCH_CLIENTS:-4}
OUT=$HERE/out/streams
mkdir -p "$OUT"
python3 -c 'import boto3' 2>/dev/null || { echo "python3-boto3 is needed (apt-get install python3-boto3)" >&2; exit 1; }

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
mapfile -t conf < <(st_stream_conf)
st_start_server "${conf[@]}" "shared_buffers = '256MB'" "synchronous_commit = off" || exit 1
export PATH="$PGBIN:$PATH"
psql -X -q -v ON_ERROR_STOP=1 <<'SQL' || exit 1
CREATE EXTENSION singletable;
SELECT singletable.create_table('plain');
SELECT singletable.create_table('streamed');
SELECT singletable.enable_stream('streamed', 'NEW_AND_OLD_IMAGES');
SQL
for _ in $(seq 100); do
    [[ $(psql -XAtc "SELECT status FROM singletable.streams WHERE table_name = 'streamed'") == ENABLED ]] && break
    sleep 0.1
done

# the item: about 250 bytes, the key random among 100,000 per client
for t in plain streamed; do
    cat >"$OUT/put_$t.sql" <<EOF
\\set n random(1, 100000)
SELECT singletable.put_item('$t', ('{"pk": "USER#' || :client_id || '", "sk": "POST#' || :n || '", "title": "a post about streams", "body": "' || repeat('x', 160) || '", "v": ' || random() || '}')::jsonb);
EOF
done
tps() {  # table seconds [rate]: pgbench's tps, without the connection start-up
    pgbench -n -M prepared -c "$CLIENTS" -j "$CLIENTS" -T "$2" ${3:+-R "$3"} -f "$OUT/put_$1.sql" 2>&1 |
        sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p'
}
backlog() {  # the stream worker has stored everything committed so far
    local lsn
    lsn=$(psql -XAtc "SELECT pg_current_wal_lsn()")
    for _ in $(seq 600); do
        [[ $(psql -XAtc "SELECT confirmed_flush_lsn >= '$lsn' FROM pg_replication_slots WHERE slot_name LIKE 'singletable_streams_%'") == t ]] && return
        sleep 0.1
    done
}

st_log "warm-up: both tables filled"
tps plain "$SECONDS_PER" >/dev/null
tps streamed "$SECONDS_PER" >/dev/null
backlog
: >"$OUT/rounds.txt"
for r in $(seq "$ROUNDS"); do
    p=$(tps plain "$SECONDS_PER")
    backlog
    s=$(tps streamed "$SECONDS_PER")
    backlog
    echo "$r $p $s" | tee -a "$OUT/rounds.txt" >&2
done
records=$(psql -XAtc "SELECT count(*) FROM singletable.stream_records")
modify=$(psql -XAtc "SELECT round(100.0 * count(*) FILTER (WHERE event_name = 'MODIFY') / count(*)) FROM singletable.stream_records")

st_log "lag through the gateway"
"$GATEWAY" --listen 127.0.0.1:0 --pool 4 --dsn "host=$PGHOST port=$PGPORT user=postgres dbname=postgres" \
    >"$OUT/gateway.log" 2>&1 &
gw=$!
trap 'kill $gw 2>/dev/null; st_stop_server' EXIT
port=
for _ in $(seq 50); do
    port=$(sed -n 's/.*listening on 127\.0\.0\.1 port \([0-9]*\) .*/\1/p' "$OUT/gateway.log" | head -1)
    [[ -n $port ]] && break
    sleep 0.1
done
[[ -n $port ]] || { cat "$OUT/gateway.log" >&2; exit 1; }
median_s=$(awk '{print $3}' "$OUT/rounds.txt" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
half=$(awk -v t="$median_s" 'BEGIN {printf "%d", t / 2}')
: >"$OUT/lag.txt"
for rate in "$half" ""; do
    tps streamed $((SECONDS_PER + 10)) "$rate" >"$OUT/load.txt" &
    load=$!
    sleep 2
    lag=$(python3 "$HERE/streams_lag.py" "http://127.0.0.1:$port" "$SECONDS_PER" 1 | sed -n 's/^lag from .*: //p')
    wait $load
    echo "${rate:-unthrottled}|$(cat "$OUT/load.txt")|$lag" | tee -a "$OUT/lag.txt" >&2
    backlog
done

REPORT=$TOP/test/bench/REPORT.md
{
    echo "$SECTION"
    echo
    echo "Generated by \`test/bench/streams.sh\` on $(date -u '+%Y-%m-%d %H:%M') UTC, built from"
    echo "$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo 'the work tree')$(git -C "$TOP" diff --quiet HEAD -- src sql gateway 2>/dev/null || echo ' with uncommitted changes'). Rerun: \`test/bench/streams.sh\` (as root)."
    echo "$(nproc) cores shared by pgbench, PostgreSQL (synchronous_commit = off) and the stream worker."
    echo
    echo "put_item, $CLIENTS pgbench clients (-M prepared), $SECONDS_PER s per cell, the cells alternating:"
    echo
    echo "| round | without a stream (puts/s) | with NEW_AND_OLD_IMAGES (puts/s) | ratio |"
    echo "|---|---|---|---|"
    awk '{printf "| %d | %.0f | %.0f | %.2f× |\n", $1, $2, $3, $3 / $2}' "$OUT/rounds.txt"
    echo
    echo "Median ratio: $(awk '{print $3 / $2}' "$OUT/rounds.txt" | sort -n | awk '{a[NR]=$1} END {printf "%.2f×", a[int((NR+1)/2)]}') (target ≥ 0.85×). $records records stored, $modify % of them MODIFY"
    echo "(both images)."
    echo
    echo "Lag from PutItem's answer to the record's first GetRecords (boto3 through the gateway, one"
    echo "writer, GetRecords polled every 10 ms when empty) while pgbench writes to the streamed table:"
    echo
    echo "| pgbench load (puts/s asked) | reached | lag |"
    echo "|---|---|---|"
    awk -F'|' '{printf "| %s | %.0f | %s |\n", $1, $2, $3}' "$OUT/lag.txt"
} >"$OUT/section.md"
cat "$OUT/section.md"
awk -v title="$SECTION" -v file="$OUT/section.md" '
    $0 == title { while ((getline l < file) > 0) print l; skip = 1; done = 1; next }
    skip && /^## / { skip = 0; print ""; }
    !skip { print }
    END { if (!done) { print ""; while ((getline l < file) > 0) print l } }' "$REPORT" >"$REPORT.new" &&
    mv "$REPORT.new" "$REPORT"
st_log "section \"${SECTION#\#\# }\" written to $REPORT"
