#!/usr/bin/env bash
# test/bench/citus/nodes.sh: what "every node serves" (issue 31) buys on a Citus cluster of a
# coordinator and two workers (test/citus/cluster.sh), in one run on this machine:
#
#   1. GetItem and PutItem throughput through gateways on one node (a singletable-gateway
#      on the coordinator) against gateways on every node (one per node, the same total
#      number of client connections spread over them), wrk over keep-alive connections
#      (nodes.lua; unsigned requests: the gateways run without --credentials), rounds
#      alternating A and B; the gateways have the same number of database connections in
#      all (BENCH_POOL: the coordinator's gateway all of them for A, a third each for B), so
#      that both batch as many requests per round trip;
#   2. the TTL sweep rate with one node sweeping (the coordinator's singletable.ttl_sweep(),
#      which routes its deletes to every shard: how the cluster swept before) against every
#      node's TTL worker sweeping its own shards, on the same expired items.
#
# On this 2-core machine the three nodes, the gateways and wrk share two cores, so the
# ratios show what the design removes (the coordinator's hop and its CPU on every call),
# not what more machines would add; see docs/citus.md for the model of a larger cluster.
#
#   test/bench/citus/nodes.sh            (as root; about 4 minutes)
#   BENCH_ROUNDS (3), BENCH_SECONDS (10), BENCH_CONNS (12), BENCH_POOL (6), BENCH_KEYS (20000),
#   BENCH_TTL_ITEMS (60000), BENCH_PORT_BASE (57440)
# Prints a Markdown report; not part of CI.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../../.." && pwd)
ROUNDS=${BENCH_ROUNDS:-3}
SECONDS_RUN=${BENCH_SECONDS:-10}
CONNS=${BENCH_CONNS:-12}
POOL=${BENCH_POOL:-6}
KEYS=${BENCH_KEYS:-20000}
TTL_ITEMS=${BENCH_TTL_ITEMS:-60000}
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }

# shellcheck source=test/citus/cluster.sh
source "$TOP/test/citus/cluster.sh"
CL_PARENT_DIR=$(mktemp -d /tmp/st-bench-nodes.XXXXXX)
chmod 755 "$CL_PARENT_DIR"
CL_PORT_BASE=${BENCH_PORT_BASE:-57440}
bash "$TOP/test/citus/build.sh" >&2
GW_BIN=${GATEWAY:-$PGBIN/singletable-gateway}
[[ -x $GW_BIN ]] || { echo "no $GW_BIN: make install with the gateway's libraries" >&2; exit 1; }
GW_PIDS=()
cleanup() {
    ((${#GW_PIDS[@]} == 0)) || kill "${GW_PIDS[@]}" 2>/dev/null || true
    cl_stop
    rmdir "$CL_PARENT_DIR" 2>/dev/null || true
}
cl_start "shared_preload_libraries = 'citus,singletable'" "singletable.ttl_enabled = off" \
    "max_connections = 200" >&2
trap cleanup EXIT   # after cl_start, which sets its own (cl_stop)

st_log "loading $KEYS items into bench_nodes (32 shards)"
cl_sql coord "SET client_min_messages = warning;
              SELECT singletable.create_table('bench_nodes');
              SELECT singletable.distribute_table('bench_nodes', 32);
              SELECT count(singletable.put_item('bench_nodes', jsonb_build_object('pk', 'K#' || i, 'sk', 'S', 'v', i,
                     'pad', repeat('x', 100))) IS NULL) FROM generate_series(1, $KEYS) i;" >/dev/null
cl_sql coord "VACUUM ANALYZE bench_nodes" >/dev/null

# gateways: "one" on the coordinator with POOL connections; "coord", "worker1", "worker2"
# with POOL / 3 each
declare -A GW_URL=()
port=$((CL_PORT_BASE + 100))
for gw in one coord worker1 worker2; do
    node=${gw/one/coord}
    port=$(cl_free_port "$port")
    "$GW_BIN" --listen "127.0.0.1:$port" --pool "$( [[ $gw == one ]] && echo "$POOL" || echo $(((POOL + 2) / 3)) )" \
        --log-level warning --dsn "host=${CL_HOST[$node]} port=${CL_PORT[$node]} dbname=postgres user=postgres" \
        >"$CL_DIR/gateway.$gw.log" 2>&1 &
    GW_PIDS+=($!)
    GW_URL[$gw]=http://127.0.0.1:$port
    for ((i = 0; i < 50; i++)); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
        sleep 0.1
    done
    port=$((port + 1))
done

# wrk_run URL CONNS OP SECONDS: prints "requests seconds errors"
wrk_run() {
    local out
    out=$(wrk -t 1 -c "$2" -d "${4}s" --timeout 10s -s "$HERE/nodes.lua" "$1/" -- "$3" bench_nodes "$KEYS" 2>&1)
    sed -n 's/^WRKJSON //p' <<<"$out" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["requests"], r["duration_us"] / 1e6, r["errors"] + r["status"])'
}

# CPU: clock ticks of a node (its postmaster, with the children it reaped, and its live
# children: backends, Citus's connections, background workers) and of the gateways
TICK_US=$((1000000 / $(getconf CLK_TCK)))
proc_ticks() {   # proc_ticks WITH_CHILDREN PID...: utime+stime (+cutime+cstime) summed
    local with=$1 p
    shift
    for p in "$@"; do
        [[ -r /proc/$p/stat ]] && sed 's/^.*) //' "/proc/$p/stat"
    done | awk -v w="$with" '{ t += $12 + $13 + (w ? $14 + $15 : 0) } END { print t + 0 }'
}
node_ticks() {
    local pm
    pm=$(head -n 1 "$CL_DIR/$1/data/postmaster.pid")
    echo $(($(proc_ticks 1 "$pm") + $(proc_ticks 0 $(pgrep -P "$pm" | tr '\n' ' '))))
}
cpu_now() {      # "coordinator workers gateways" ticks
    echo "$(node_ticks coord) $(($(node_ticks worker1) + $(node_ticks worker2))) $(proc_ticks 0 "${GW_PIDS[@]}")"
}

# one_node OP / every_node OP: all CONNS connections to the coordinator's gateway, or spread
# over the three; each prints "requests/s µs-per-request: coordinator workers gateways"
# (server CPU per request) and fails on any error
report_run() {   # report_run REQUESTS SECONDS CPU_BEFORE CPU_AFTER
    read -r c0 w0 g0 <<<"$3"
    read -r c1 w1 g1 <<<"$4"
    awk -v r="$1" -v s="$2" -v t="$TICK_US" -v c=$((c1 - c0)) -v w=$((w1 - w0)) -v g=$((g1 - g0)) \
        'BEGIN { printf "%.0f %.1f %.1f %.1f\n", r / s, c * t / r, w * t / r, g * t / r }'
}
one_node() {
    local r s e before
    before=$(cpu_now)
    read -r r s e < <(wrk_run "${GW_URL[one]}" "$CONNS" "$1" "$SECONDS_RUN")
    ((e == 0)) || { echo "one node, $1: $e errors" >&2; exit 1; }
    report_run "$r" "$s" "$before" "$(cpu_now)"
}
every_node() {
    local node i=0 per=$((CONNS / 3)) files=() total=0 secs=0 r s e before after
    before=$(cpu_now)
    for node in coord worker1 worker2; do
        wrk_run "${GW_URL[$node]}" "$((per + (i < CONNS % 3 ? 1 : 0)))" "$1" "$SECONDS_RUN" >"$CL_DIR/wrk.$node" &
        files+=("$CL_DIR/wrk.$node")
        i=$((i + 1))
    done
    wait
    after=$(cpu_now)
    for f in "${files[@]}"; do
        read -r r s e <"$f"
        ((e == 0)) || { echo "every node, $1: $e errors" >&2; exit 1; }
        total=$((total + r))
        secs=$(awk -v a="$secs" -v b="$s" 'BEGIN { print (b > a) ? b : a }')
    done
    report_run "$total" "$secs" "$before" "$after"
}

declare -A A_RES=() B_RES=() A_CPU=() B_CPU=()
for op in get put; do
    for gw in one coord worker1 worker2; do wrk_run "${GW_URL[$gw]}" 4 "$op" 2 >/dev/null; done   # warm-up
    for ((round = 1; round <= ROUNDS; round++)); do
        if ((round % 2)); then
            a=$(one_node "$op"); b=$(every_node "$op")
        else
            b=$(every_node "$op"); a=$(one_node "$op")
        fi
        read -r ar ac aw ag <<<"$a"
        read -r br bc bw bg <<<"$b"
        A_RES[$op]+="$ar " B_RES[$op]+="$br "
        A_CPU[$op]+="$ac/$aw/$ag " B_CPU[$op]+="$bc/$bw/$bg "
        st_log "$op round $round: one node $ar/s (CPU µs/request coordinator/workers/gateways $ac/$aw/$ag), every node $br/s ($bc/$bw/$bg)"
    done
done

# The TTL sweep: the same expired items (TTL_ITEMS over 200 collections) swept by the
# coordinator's ttl_sweep() (A) and by both workers' TTL workers (B)
ttl_load() {
    cl_sql coord "SET client_min_messages = warning;
                  SELECT count(singletable.put_item('bench_ttl', jsonb_build_object('pk', 'C#' || (i % 200), 'sk', 'S#' || i,
                         'exp', extract(epoch FROM now())::bigint - 60)) IS NULL) FROM generate_series(1, $TTL_ITEMS) i;" >/dev/null
    cl_sql coord "VACUUM ANALYZE bench_ttl" >/dev/null
}
cl_sql coord "SET client_min_messages = warning;
              SELECT singletable.create_table('bench_ttl');
              SELECT singletable.distribute_table('bench_ttl');
              SELECT singletable.enable_ttl('bench_ttl', 'exp');" >/dev/null
ttl_load
t0=$(date +%s.%N)
cl_sql coord "SELECT singletable.ttl_sweep('bench_ttl')" >/dev/null
t1=$(date +%s.%N)
TTL_A=$(awk -v n="$TTL_ITEMS" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", n / (b - a) }')
ttl_load
for node in worker1 worker2; do
    cl_sql "$node" "ALTER SYSTEM SET singletable.ttl_enabled = on" >/dev/null
    cl_sql "$node" "ALTER SYSTEM SET singletable.ttl_interval = 1" >/dev/null
done
t0=$(date +%s.%N)
for node in worker1 worker2; do cl_sql "$node" "SELECT pg_reload_conf()" >/dev/null; done
while [[ $(cl_sql coord "SELECT count(*) FROM bench_ttl") != 0 ]]; do sleep 0.05; done
t1=$(date +%s.%N)
TTL_B=$(awk -v n="$TTL_ITEMS" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", n / (b - a) }')
TTL_SPLIT="$(cl_sql worker1 "SELECT deleted_total FROM singletable.ttl_status() WHERE table_name::text = 'bench_ttl'") / $(cl_sql worker2 "SELECT deleted_total FROM singletable.ttl_status() WHERE table_name::text = 'bench_ttl'")"

median() { printf '%s\n' $1 | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "## Every node serves: gateways and TTL on one node vs every node"
echo
echo "\`test/bench/citus/nodes.sh\` at $(git -C "$TOP" rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores;"
echo "a coordinator and two workers (32 shards), $KEYS items; $CONNS connections, one request in flight each;"
echo "gateways with $POOL database connections in all (one node: $POOL; every node: $(((POOL + 2) / 3)) each);"
echo "$ROUNDS alternating rounds of ${SECONDS_RUN} s; ratios are medians of the per-round ratios."
echo
echo "| operation | one node (coordinator's gateway), req/s | every node (a gateway each), req/s | every ÷ one |"
echo "|---|---|---|---|"
for op in get put; do
    ratios=$(paste -d' ' <(printf '%s\n' ${A_RES[$op]}) <(printf '%s\n' ${B_RES[$op]}) | awk '{ printf "%.3f ", $2 / $1 }')
    echo "| $([[ $op == get ]] && echo GetItem || echo PutItem) | ${A_RES[$op]} | ${B_RES[$op]} | **$(median "$ratios")** ($ratios) |"
done
echo
echo "Server CPU per request, µs (coordinator / both workers / the gateways; per round):"
echo
echo "| operation | one node | every node | total, every ÷ one |"
echo "|---|---|---|---|"
for op in get put; do
    ratios=$(paste -d' ' <(printf '%s\n' ${A_CPU[$op]}) <(printf '%s\n' ${B_CPU[$op]}) |
        awk '{ split($1, a, "/"); split($2, b, "/"); printf "%.3f ", (b[1] + b[2] + b[3]) / (a[1] + a[2] + a[3]) }')
    echo "| $([[ $op == get ]] && echo GetItem || echo PutItem) | ${A_CPU[$op]} | ${B_CPU[$op]} | **$(median "$ratios")** ($ratios) |"
done
echo
echo "| TTL sweep of $TTL_ITEMS expired items (200 collections) | items/s |"
echo "|---|---|"
echo "| one node: the coordinator's \`ttl_sweep()\`, routed to every shard | $TTL_A |"
echo "| every node: each worker's TTL worker on its own shards (deleted: $TTL_SPLIT) | $TTL_B |"
echo "| every ÷ one | **$(awk -v a="$TTL_A" -v b="$TTL_B" 'BEGIN { printf "%.2f", b / a }')** |"
