#!/usr/bin/env bash
# test/bench/run.sh: the benchmark suite of singletable (issue #4). As root on Debian 12:
#
#   make bench                      # = test/bench/run.sh: the full run, about 40 minutes
#   BENCH_QUICK=1 test/bench/run.sh # development run: fewer/shorter rounds, sizes up to 10^6
#   BENCH_REF=HEAD make bench       # benchmark a commit (git archive) instead of the work tree
#   BENCH_ONLY=wide test/bench/run.sh  # only the wide-item measurement (6.), about 2 minutes
#   BENCH_ONLY=gsi test/bench/run.sh   # only the secondary-index measurement (7.), about 5 minutes
#   BENCH_ONLY=ttl test/bench/run.sh   # only the TTL measurement (8.), about 10 minutes
#   BENCH_ONLY=capacity test/bench/run.sh  # only what capacity tracking costs (9.), about 9 minutes
#   BENCH_ONLY=dynamodb test/bench/run.sh  # only the JSON API vs the native functions (10.), about 6 minutes
#   BENCH_ONLY=batch test/bench/run.sh     # only batch_get/batch_write against their alternatives (11.)
#   BENCH_ONLY=hot_keys test/bench/run.sh  # only what recording hot keys costs (get and put), about 6 minutes
#   BENCH_ONLY=pairs test/bench/run.sh     # only the pairs (1.), BENCH_PAIRS of them ("get query30": default all)
#
# It builds the extension from a copy of the sources, installs it into a private copy of the
# PostgreSQL 15 installation (so that neither the system's installation nor a concurrent
# `make install` is touched or can change the extension under a run), starts its own
# throwaway server (test/lib.sh) with the settings listed in SETTINGS below, loads the data
# with set-based SQL (test/bench/sql/setup.sql), and measures with pgbench custom scripts
# (test/bench/scripts/):
#   1. pairs: extension vs hand-written SQL (get, put, 30-item query), A and B alternating
#      over several rounds, 2 clients, -M prepared, fixed duration, fixed random seed;
#   2. the 30-item begins_with slice of a 100,000-item collection with the prefix a bind
#      parameter: singletable.begins_with vs starts_with vs the constant-prefix range, under
#      plan_cache_mode=auto and force_generic_plan;
#   3. latency (p50/p99 from pgbench's per-transaction log) of get and query at 10^5, 10^6
#      and 10^7 items;
#   4. backend memory over 1,000,000 extension calls in one session, disk bytes per item;
#   5. perf profiles of A and B of each pair (where the time goes);
#   6. wide items: put_item of an item of 4,000 and of 40,000 attributes, time per attribute
#      (test/bench/sql/wide_put.sql): conversion must stay linear in the attribute count;
#   7. global secondary indexes (test/bench/sql/gsi.sql, scripts/gsi_put.sql): the size of a
#      sparse index (1% of the items) against a full index over the same columns; put_item of
#      items without index keys on a table with two GSIs vs the same table without (A and B
#      alternating as in 1.); buffers of the scheduler query (10 vs 100 items, two table sizes).
#   8. TTL (test/bench/sql/ttl.sql; the server restarted with shared_preload_libraries =
#      'singletable'): 1,000,000 live items and 100,000 expired ones; the background workers'
#      sweep rate and singletable.ttl_sweep()'s; buffers of the sweep's batch statement
#      (EXPLAIN ANALYZE) with 100,000 and 10,000 expired items; get_item without (A) and during
#      (B) the workers' sweep, A and B alternating as in 1.
# Output: test/bench/results/results.csv, test/bench/results/latency.png and the generated
# test/bench/REPORT.md (BENCH_QUICK=1 writes them under test/bench/out/quick/ instead, so a
# development run never overwrites the committed report). Raw pgbench output and logs go to
# test/bench/out/ (ignored by git). Never part of test/run.sh or CI.
#
# Environment (all optional):
#   BENCH_QUICK=1        quick mode (see the defaults below)
#   BENCH_REF=<rev>      build the extension from this git revision instead of the work tree
#   BENCH_ROUNDS, BENCH_SECONDS           rounds and seconds per pgbench run (pairs, prefix)
#   BENCH_LAT_ROUNDS, BENCH_LAT_SECONDS   the same for the latency-vs-size runs
#   BENCH_SIZES="100000 1000000 10000000" table sizes (multiples of 100 items)
#   BENCH_PAIR_ITEMS     items in the table of the pair comparisons
#   BENCH_MEM_CALLS      extension calls of the memory test
#   BENCH_CLIENTS        clients of the pair comparisons (2)
#   BENCH_SEED           pgbench --random-seed (the same for every run, so A and B see the
#                        same key sequence)
#   BENCH_PROFILE=all|missed|none   perf profiles of every pair (default), of the pairs that
#                        missed their target, or none
#   BENCH_KEEP=1         leave the server running and the work directory in place
#   BENCH_ONLY=wide      run only the wide-item measurement and print its figures; results go to
#                        test/bench/out/wide/results.csv, the committed report is not touched
#   BENCH_WIDE_ROUNDS    rounds of the wide-item measurement (7; 3 in quick mode)
#   BENCH_ONLY=gsi       run only the secondary-index measurement and print its figures; results
#                        go to test/bench/out/gsi/results.csv, the committed report is not touched
#   BENCH_GSI_ITEMS      items of the secondary-index tables (1000000; 100000 in quick mode; a
#                        multiple of 1000: the small table of the query test has a tenth of them)
#   BENCH_GSI_ROUNDS, BENCH_GSI_SECONDS   rounds and seconds per run of the GSI write test
#                        (default BENCH_ROUNDS, BENCH_SECONDS)
#   BENCH_ONLY=ttl       run only the TTL measurement and print its figures; results go to
#                        test/bench/out/ttl/results.csv, the committed report is not touched
#   BENCH_TTL_ITEMS      live items of the TTL table (1000000; 100000 in quick mode; a multiple of 100)
#   BENCH_TTL_EXPIRED    expired items (100000; 10000 in quick mode): a multiple of 10 per collection
#                        of 100 live items, at most 990 per collection
#   BENCH_TTL_ROUNDS, BENCH_TTL_SECONDS   rounds and seconds per run of the get-during-sweep test
#                        (default BENCH_ROUNDS, BENCH_SECONDS)
#   BENCH_TTL_SWEEP_EXPIRED  expired items swept during each run of that test (3 x BENCH_TTL_EXPIRED;
#                        10 x in quick mode)
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$BENCH/../lib.sh"  # TOP, PG_CONFIG, st_install_deps, st_build_install, st_start_server
REPO=$TOP
SYS_PG_CONFIG=$PG_CONFIG
START_TIME=$(date +%s)
START_DATE=$(date -u '+%Y-%m-%d %H:%M UTC')

die() {
    echo "run.sh: $*" >&2
    exit 1
}
log() { st_log "$*"; }

# ---------------------------------------------------------------------------------------
# Parameters
# ---------------------------------------------------------------------------------------
QUICK=${BENCH_QUICK:-0}
if [[ $QUICK == 1 ]]; then
    ROUNDS=${BENCH_ROUNDS:-2}
    SECS=${BENCH_SECONDS:-3}
    LAT_ROUNDS=${BENCH_LAT_ROUNDS:-1}
    LAT_SECS=${BENCH_LAT_SECONDS:-3}
    SIZES=${BENCH_SIZES:-"100000 1000000"}
    PAIR_ITEMS=${BENCH_PAIR_ITEMS:-100000}
    MEM_CALLS=${BENCH_MEM_CALLS:-200000}
    PROF_SECS=3
    RESULTS_DIR=$BENCH/out/quick
    REPORT=$BENCH/out/quick/REPORT.md
    REPORT_LINKBASE=../..   # REPORT.md's links to test/bench/ files
    RESULTS_LINK=.          # ... and to the results directory
else
    ROUNDS=${BENCH_ROUNDS:-8}
    SECS=${BENCH_SECONDS:-10}
    LAT_ROUNDS=${BENCH_LAT_ROUNDS:-3}
    LAT_SECS=${BENCH_LAT_SECONDS:-10}
    SIZES=${BENCH_SIZES:-"100000 1000000 10000000"}
    PAIR_ITEMS=${BENCH_PAIR_ITEMS:-1000000}
    MEM_CALLS=${BENCH_MEM_CALLS:-1000000}
    PROF_SECS=5
    RESULTS_DIR=$BENCH/results
    REPORT=$BENCH/REPORT.md
    REPORT_LINKBASE=.
    RESULTS_LINK=results
fi
ONLY=${BENCH_ONLY:-}
[[ -z $ONLY || $ONLY == wide || $ONLY == gsi || $ONLY == ttl || $ONLY == capacity || $ONLY == dynamodb ||
   $ONLY == batch || $ONLY == hot_keys || $ONLY == pairs ]] ||
    die "BENCH_ONLY must be empty, wide, gsi, ttl, capacity, dynamodb, batch, hot_keys or pairs, not $ONLY"
PAIRS_ONLY=${BENCH_PAIRS:-}   # BENCH_ONLY=pairs: the names of the pairs to run (empty: all)
if [[ $QUICK == 1 ]]; then WIDE_ROUNDS=${BENCH_WIDE_ROUNDS:-3}; else WIDE_ROUNDS=${BENCH_WIDE_ROUNDS:-7}; fi
if [[ $QUICK == 1 ]]; then GSI_ITEMS=${BENCH_GSI_ITEMS:-100000}; else GSI_ITEMS=${BENCH_GSI_ITEMS:-1000000}; fi
GSI_ROUNDS=${BENCH_GSI_ROUNDS:-$ROUNDS}
if [[ $QUICK == 1 ]]; then
    TTL_ITEMS=${BENCH_TTL_ITEMS:-100000}
    TTL_EXPIRED=${BENCH_TTL_EXPIRED:-10000}
    TTL_ON_AFTER=1      # B: seconds from the start of pgbench to switching the sweep on
else
    TTL_ITEMS=${BENCH_TTL_ITEMS:-1000000}
    TTL_EXPIRED=${BENCH_TTL_EXPIRED:-100000}
    TTL_ON_AFTER=2
fi
TTL_ROUNDS=${BENCH_TTL_ROUNDS:-$ROUNDS}
# expired items the workers sweep in each B run of the get-during-sweep test: three times the
# backlog of the other TTL tests, so that under the get load the sweep lasts most of a 10 s run
# (at the default batch size; 100,000 would be swept in about 3 s); in quick mode ten times, so
# that the window is not a fraction of a second
if [[ $QUICK == 1 ]]; then TTL_SWEEP_X=10; else TTL_SWEEP_X=3; fi
TTL_SWEEP_EXPIRED=${BENCH_TTL_SWEEP_EXPIRED:-$((TTL_SWEEP_X * TTL_EXPIRED))}
TTL_SECS=${BENCH_TTL_SECONDS:-$SECS}
TTL_BATCH=1000          # singletable.ttl_batch_size's default, which the sweeps use
GSI_SECS=${BENCH_GSI_SECONDS:-$SECS}
if [[ -n $ONLY ]]; then
    RESULTS_DIR=$BENCH/out/$ONLY
fi
CLIENTS=${BENCH_CLIENTS:-2}
SEED=${BENCH_SEED:-20240501}
PROFILE=${BENCH_PROFILE:-all}
TARGET_RATIO=0.9      # extension >= 0.9x hand-written; begins_with generic >= 0.9x constant
TARGET_P50_GROWTH=1.3 # p50 at the largest size within 1.3x of the smallest
TARGET_WIDE_RATIO=2   # per attribute, a 40,000-attribute put within 2x of a 4,000-attribute one
TARGET_GSI_SIZE=2     # a sparse index holding 1% of the items: at most 2x 1% of the full index's size
TARGET_GSI_WRITE=0.95 # put_item without index keys, two GSIs >= 0.95x no GSI (tps ratio)
TARGET_TTL_GET=0.9    # get_item during the background sweep >= 0.9x without a sweep (tps, medians)
TARGET_TTL_BUF=1.5    # sweep reads per expired item with 10x the expired items within 1.5x (proportional)
GSI_CUTOFF=1731536000 # the scheduler's "due by": after the last publish time of sql/gsi.sql
MEM_FLAT_KB=1024      # "flat": RssAnon and memory contexts grow less than 1 MiB over the calls
WIDE_PK='BIG#0'       # the 100,000-item collection of the prefix test

for n in $SIZES $PAIR_ITEMS; do
    ((n >= 100 && n % 100 == 0)) || die "table sizes must be multiples of 100 items, not $n"
done
((MEM_CALLS % 10000 == 0)) || die "BENCH_MEM_CALLS must be a multiple of 10000"
((GSI_ITEMS >= 1000 && GSI_ITEMS % 1000 == 0)) || die "BENCH_GSI_ITEMS must be a multiple of 1000, not $GSI_ITEMS"
((TTL_ITEMS >= 100 && TTL_ITEMS % 100 == 0)) || die "BENCH_TTL_ITEMS must be a multiple of 100, not $TTL_ITEMS"
TTL_NCOLL=$((TTL_ITEMS / 100))
TTL_PER=$((TTL_EXPIRED / TTL_NCOLL)) # expired items per collection
((TTL_PER * TTL_NCOLL == TTL_EXPIRED && TTL_PER % 10 == 0 && TTL_PER >= 10 && TTL_PER <= 990)) ||
    die "BENCH_TTL_EXPIRED must be 10 to 990 per collection of 100 live items and a multiple of 10 per collection, not $TTL_EXPIRED"
TTL_SWEEP_PER=$((TTL_SWEEP_EXPIRED / TTL_NCOLL))
((TTL_SWEEP_PER * TTL_NCOLL == TTL_SWEEP_EXPIRED && TTL_SWEEP_PER >= 1 && TTL_SWEEP_PER <= 990)) ||
    die "BENCH_TTL_SWEEP_EXPIRED must be 1 to 990 per collection of 100 live items, not $TTL_SWEEP_EXPIRED"

# Server settings: "setting|why" (test/lib.sh adds fsync = off and the socket/port lines).
SETTINGS=(
    "shared_buffers = '6GB'|large enough for every table and index of the run (measured below), so that the size comparison measures the in-memory cost of a larger table (index depth, CPU cache and TLB misses), not disk reads; all relations are loaded into it with pg_prewarm before measuring"
    "synchronous_commit = off|a commit does not wait for its WAL flush, so that WAL flush latency does not dominate the write comparison (put_item vs INSERT … ON CONFLICT)"
    "fsync = off|set by test/lib.sh for every throwaway server: nothing is flushed to the device, so checkpoints and WAL writes add no device latency (the data is deleted at exit)"
    "autovacuum = off|no background vacuum during a timed run; the runner runs VACUUM ANALYZE after loading, and VACUUM + CHECKPOINT before every run that writes (A and B alike)"
    "max_wal_size = '16GB'|with checkpoint_timeout = 1h: no checkpoint triggered by WAL volume in the middle of a run (the runner checkpoints before each write run instead)"
    "checkpoint_timeout = '1h'|see max_wal_size"
    "jit = off|no plan here reaches jit_above_cost; this only makes sure that no timing includes JIT compilation"
)

# The pair comparisons: "name|extension script|hand-written script|required function|prep|label".
# prep "write" = VACUUM + CHECKPOINT before each run (the pair writes).
PAIRS=(
    "get|get_ext|get_sql||read|get_item vs SELECT item … WHERE pk = \$1 AND sk = \$2"
    "put|put_ext|put_sql||write|put_item vs INSERT … ON CONFLICT (pk, sk) DO UPDATE SET item = EXCLUDED.item"
    "query30|query_ext|query_sql||read|query(…, 'begins_with', 'ORDER#'), 30 items, vs WHERE pk = \$1 AND sk >= 'ORDER#' AND sk < 'ORDER\$' ORDER BY sk"
    "update|update_ext|update_sql|singletable.update_item|write|update_item('ADD #q :one', condition => '#s <> :cancelled') vs UPDATE … SET item = jsonb_set(item, '{qty}', …) WHERE pk = \$1 AND sk = \$2 AND item->'status' IS DISTINCT FROM … RETURNING item"
    # TODO(issue #4) hooks: pairs for features that have not landed yet. To enable one, write
    # its two scripts in scripts/ (@TABLE@ and @NCOLL@ are substituted) and uncomment it; a pair
    # whose required function does not exist in the installed extension is skipped and listed
    # as such in the report.
    # "gsi|gsi_ext|gsi_sql|singletable.create_gsi|read|query on a GSI vs the same statement in plain SQL on the same partial index"
    # "ttl|ttl_ext|get_sql|singletable.update_time_to_live|read|get_item on a table with TTL enabled (expired items filtered) vs the plain get"
)
TODO_FEATURES="a query on a GSI vs the same statement in plain SQL (its scripts are not written; GSIs have their own section below: size, write cost, buffers of the scheduler query), get_item on a TTL table (expired items filtered) vs the plain get (its script is not written; TTL has its own section below: sweep rate, reads of the sweep, get_item during the sweep)"

# The prefix test: "name|script|plan_cache_mode|label". The first one is the baseline.
PREFIX_VARIANTS=(
    "const|prefix_const|auto|constant prefix: sk >= 'ORDER#' AND sk < 'ORDER\$'"
    "bw_auto|prefix_bw|auto|singletable.begins_with(sk, \$2), plan_cache_mode = auto"
    "bw_generic|prefix_bw|force_generic_plan|singletable.begins_with(sk, \$2), force_generic_plan"
    "sw_auto|prefix_sw|auto|starts_with(sk, \$2), plan_cache_mode = auto"
    "sw_generic|prefix_sw|force_generic_plan|starts_with(sk, \$2), force_generic_plan"
    "query_auto|prefix_query|auto|singletable.query(t, \$1, 'begins_with', \$2), auto"
    "query_generic|prefix_query|force_generic_plan|singletable.query(t, \$1, 'begins_with', \$2), force_generic_plan"
)
LAT_SCRIPTS="get_ext get_sql query_ext query_sql"

# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------
# size label: 100000 -> 1e5 (powers of ten), else the number
label() {
    local n=$1 k=$((${#1} - 1))
    if [[ $n == 1$(printf '%0*d' "$k" 0) ]]; then echo "1e$k"; else echo "$n"; fi
}

# "min median max" of the numbers given as arguments
mmm() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
        END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              printf "%.6g %.6g %.6g\n", v[1], m, v[NR] }'
}

# "n p50 p99 mean" of the numbers (one per line) in file $1; nearest-rank percentiles
percentiles() {
    sort -n "$1" | awk '{ v[NR] = $1; s += $1 }
        END { i = int(NR * 0.50); if (i < NR * 0.50) i++
              k = int(NR * 0.99); if (k < NR * 0.99) k++
              printf "%d %d %d %.1f\n", NR, v[i], v[k], s / NR }'
}

# arithmetic on decimals: calc 'expression'
calc() { awk "BEGIN { printf \"%.6g\n\", $1 }"; }
tsum() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f\n", a + b }'; } # epoch seconds + seconds (calc would round)
fmt2() { awk -v x="$1" 'BEGIN { printf "%.2f", x }'; }
fmt0() { awk -v x="$1" 'BEGIN { printf "%.0f", x }'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
mark() { if ge "$1" "$2"; then echo "met"; else echo "**missed**"; fi }     # target: $1 >= $2
mark_le() { if ge "$2" "$1"; then echo "met"; else echo "**missed**"; fi }  # target: $1 <= $2
bytes_h() { awk -v b="$1" 'BEGIN { if (b >= 1073741824) printf "%.2f GB", b / 1073741824; else printf "%.0f MB", b / 1048576 }'; }

# results.csv: section,name,variant,round,metric,value
res() {
    local IFS=,
    echo "$*" >>"$RES"
}
csv_get() { # section name variant round metric -> value
    awk -F, -v a="$1" -v b="$2" -v c="$3" -v d="$4" -v e="$5" \
        '$1 == a && $2 == b && $3 == c && $4 == d && $5 == e { print $6; exit }' "$RES"
}

PSQL=()
sql() { "${PSQL[@]}" -At -c "$1"; }
sql_file() { "${PSQL[@]}" -q -f "$1"; }

# instantiates script $1 (name without .sql) for table $2 with $3 collections; prints its path
script_for() {
    local name=$1 table=$2 ncoll=$3 out="$OUT/scripts/$1.$2.sql"
    [[ -f $BENCH/scripts/$name.sql ]] || die "missing script scripts/$name.sql"
    sed -e "s/@TABLE@/$table/g" -e "s/@NCOLL@/$ncoll/g" "$BENCH/scripts/$name.sql" >"$out"
    echo "$out"
}

# Other work on the machine (this is a shared 2-core machine: e.g. a test suite running at the
# same time) would distort a run. Before each run we wait (at most 20 s) until the machine is
# idle, and we measure the CPU that other processes used during the run ("foreign" CPU: busy
# time of the machine minus our server's and pgbench's), recorded per run in results.csv.
CLK_TCK=$(getconf CLK_TCK)
NCPU=$(nproc)
# "busy steal" ticks of the whole machine (/proc/stat)
cpu_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $9 }' /proc/stat; }
# CPU ticks of our server: the postmaster (with its reaped children) and its live children
server_ticks() {
    local pm
    pm=$(head -1 "$ST_DIR/data/postmaster.pid")
    cat /proc/[0-9]*/stat 2>/dev/null | awk -v pm="$pm" '{
        pid = $1; line = $0; sub(/^[0-9]+ \(.*\) /, "", line); split(line, f, " ")
        if (pid == pm) t += f[12] + f[13] + f[14] + f[15]; else if (f[2] == pm) t += f[12] + f[13]
    } END { print t + 0 }'
}
# ticks of the finished children of this shell, from the output of `times` in file $1
children_ticks() {
    awk -v hz="$CLK_TCK" 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); s += a[1] * 60 + a[2] }
                                   printf "%d\n", s * hz }' "$1"
}
wait_quiet() {
    local b0 b1 waited=0 total
    # at most 20 s per run, and at most 5 minutes in all (persistent load: stop waiting)
    total=$(awk -F, '$5 == "waited_s" { s += $6 } END { print s + 0 }' "$RES")
    ((total < 300)) || { echo 0; return; }
    while ((waited < 20)); do
        read -r b0 _ < <(cpu_ticks)
        sleep 1
        read -r b1 _ < <(cpu_ticks)
        # idle enough: less than 10% of one core busy during that second
        (((b1 - b0) * 10 < CLK_TCK)) && break
        waited=$((waited + 1))
    done
    echo "$waited"
}

# pgbench_run TAG SCRIPT CLIENTS SECONDS PLAN_CACHE_MODE [pgbench args...]: one pgbench run;
# prints its tps (excluding connection time). Fails on any failed transaction.
pgbench_run() {
    local tag=$1 script=$2 clients=$3 secs=$4 pcm=$5
    shift 5
    local out="$OUT/pgbench/$tag.log" waited b0 st0 b1 st1 s0 s1 p0 p1 t0 t1 foreign ntx
    waited=$(wait_quiet)
    times >"$OUT/pgbench/$tag.times0"
    read -r b0 st0 < <(cpu_ticks)
    s0=$(server_ticks)
    t0=$(date +%s.%N)
    if ! PGOPTIONS="-c plan_cache_mode=$pcm ${RUN_PGOPTIONS:-}" "${RUN_PREFIX[@]}" "$PGBIN/pgbench" -n -M prepared -c "$clients" -j 1 \
            -T "$secs" --random-seed="$SEED" -f "$script" "$@" >"$out" 2>&1; then
        cat "$out" >&2
        die "pgbench run $tag failed"
    fi
    times >"$OUT/pgbench/$tag.times1"
    sleep 0.2 # the postmaster reaps the run's backends (their CPU time moves to its cutime)
    t1=$(date +%s.%N)
    read -r b1 st1 < <(cpu_ticks)
    s1=$(server_ticks)
    p0=$(children_ticks "$OUT/pgbench/$tag.times0")
    p1=$(children_ticks "$OUT/pgbench/$tag.times1")
    foreign=$(calc "((($b1 - $b0) - ($s1 - $s0) - ($p1 - $p0)) / $CLK_TCK) / (($t1 - $t0) * $NCPU)")
    res cpu "$tag" all all waited_s "$waited"
    res cpu "$tag" all all foreign_cpu_share "$foreign"
    res cpu "$tag" all all steal_share "$(calc "(($st1 - $st0) / $CLK_TCK) / (($t1 - $t0) * $NCPU)")"
    res cpu "$tag" all all server_cpu_s "$(calc "($s1 - $s0) / $CLK_TCK")"
    res cpu "$tag" all all pgbench_cpu_s "$(calc "($p1 - $p0) / $CLK_TCK")"
    if grep -q '^number of failed transactions: [1-9]' "$out"; then
        cat "$out" >&2
        die "pgbench run $tag had failed transactions"
    fi
    ntx=$(awk -F': ' '/^number of transactions actually processed/ { print $2 + 0; exit }' "$out")
    res cpu "$tag" all all transactions "$ntx"
    res cpu "$tag" all all server_cpu_us_per_txn "$(calc "($s1 - $s0) / $CLK_TCK / $ntx * 1000000")"
    awk '/^tps = / { print $3; exit }' "$out"
}

RUN_PREFIX=() # command prefix of pgbench (taskset during the latency runs)

# before a run: "write" pairs get VACUUM + CHECKPOINT so that every write run starts alike
prep_run() {
    local prep=$1 table=$2
    if [[ $prep == write ]]; then
        sql "VACUUM $table" >/dev/null
        sql "CHECKPOINT" >/dev/null
    fi
}

# 6. Wide items: put_item of one item of 4,000 and of 40,000 attributes (sql/wide_put.sql),
# both forms, WIDE_ROUNDS rounds alternating the sizes; the same number of attributes per
# measurement (160 puts of 4,000, 16 of 40,000). The figure is the backend's CPU time (not
# elapsed time, which other work on a shared machine inflates at random; both are recorded),
# so no wait for an idle machine. Sets WIDE_US[form.n] (median CPU µs per attribute) and
# WIDE_RATIO[form] (40,000 over 4,000 per attribute).
declare -A WIDE_US WIDE_RATIO
wide_measure() {
    local form n reps r wall cpu
    log "wide items: put_item of 4,000 and 40,000 attributes, $WIDE_ROUNDS rounds"
    sql_file "$BENCH/sql/wide_put.sql" >/dev/null
    declare -A samples
    for ((r = 1; r <= WIDE_ROUNDS; r++)); do
        for form in stored rewrite; do
            for n in 4000 40000; do
                reps=$((640000 / n))
                prep_run write wide_put
                read -r wall cpu <<<"$(sql "SELECT bench_wide_put($n, '$form', $reps)")"
                res wide put_item "$form.$n" "$r" elapsed_us_per_attribute "$(calc "$wall * 1000000 / $n")"
                res wide put_item "$form.$n" "$r" cpu_us_per_attribute "$(calc "$cpu * 1000000 / $n")"
                samples[$form.$n]+=" $(calc "$cpu * 1000000 / $n")"
            done
        done
    done
    for form in stored rewrite; do
        for n in 4000 40000; do
            # shellcheck disable=SC2086  # the samples are words
            read -r _ WIDE_US[$form.$n] _ <<<"$(mmm ${samples[$form.$n]})"
            res wide put_item "$form.$n" all median_cpu_us_per_attribute "${WIDE_US[$form.$n]}"
        done
        WIDE_RATIO[$form]=$(calc "${WIDE_US[$form.40000]} / ${WIDE_US[$form.4000]}")
        res wide put_item "$form" all ratio_40000_over_4000 "${WIDE_RATIO[$form]}"
    done
}

# The report's lines of the wide-item measurement.
wide_report() {
    echo "## Wide items"
    echo
    echo "put_item of one item with 4,000 and with 40,000 top-level attributes (\`a1\`..\`an\`, numbers),"
    echo "[sql/wide_put.sql]($REPORT_LINKBASE/sql/wide_put.sql): 160 puts of the 4,000-attribute item and 16 of the"
    echo "40,000-attribute one per measurement, one session, items prebuilt and stored uncompressed;"
    echo "backend CPU time (/proc/self/stat), median of $WIDE_ROUNDS rounds. *stored*: canonical numbers, the item is stored as given after"
    echo "conversion; *rewrite*: numbers written \`1.0\`, converted and written back to jsonb."
    echo "Target: per attribute, 40,000 within ${TARGET_WIDE_RATIO}x of 4,000 (linear conversion)."
    echo
    echo "| form | CPU µs/attribute at 4,000 | CPU µs/attribute at 40,000 | ratio | target |"
    echo "|---|---|---|---|---|"
    for form in stored rewrite; do
        echo "| $form | $(fmt2 "${WIDE_US[$form.4000]}") | $(fmt2 "${WIDE_US[$form.40000]}") | $(fmt2 "${WIDE_RATIO[$form]}") | $(if ge "$TARGET_WIDE_RATIO" "${WIDE_RATIO[$form]}"; then echo met; else echo "**missed**"; fi) |"
    done
    echo
}

# 7. Global secondary indexes. Three tables of the rows of sql/gsi.sql (setup.sql's rows, 1% of
# the items carrying the keys of gsi1 and, in gsi_on and gsi_off, another 1% those of gsi2),
# each loaded with one set-based INSERT like the other tables, then create_gsi (which checks
# the items and builds the index):
#   gsi_on     GSI_ITEMS items, GSIs gsi1 (S, N: the scheduler's index) and gsi2 (S, S)
#   gsi_off    the same rows, no GSI
#   gsi_small  GSI_ITEMS / 10 items, gsi1
# (1) size of each GSI of gsi_on against a full index over the same columns (built from
# pg_get_indexdef without its WHERE, measured, dropped); (2) the scheduler query on gsi1
# (gsi1pk = STATUS#approved, gsi1sk <= GSI_CUTOFF, 10 and 100 items) on gsi_on and gsi_small:
# EXPLAIN (ANALYZE, BUFFERS) of each GSI_VARIANTS statement, after two unmeasured executions in
# the same session; (3) put_item of items without index keys (scripts/gsi_put.sql), gsi_off (A)
# vs gsi_on (B), GSI_ROUNDS rounds alternating as the pairs do, each run after VACUUM +
# CHECKPOINT. Sets the GSI_* variables that gsi_report prints.
declare -A GSI_SIZE GSI_DEF GSI_BUF GSI_STMT GSI_PUT
GSI_VARIANTS=(
    "ext|singletable.query(…, max_items => n)"
    "sql|its statement as plain SQL, LIMIT n"
    "ext_limit|singletable.query(…) LIMIT n, no max_items"
)
GSI_TABLES="gsi_on gsi_off gsi_small"
# the statement of GSI_VARIANTS entry $1 on table $2 for $3 items
gsi_stmt() {
    local v=$1 t=$2 n=$3
    case $v in
        ext) echo "SELECT * FROM singletable.query('$t', 'STATUS#approved', '<=', '$GSI_CUTOFF', index_name => 'gsi1', max_items => $n)" ;;
        sql) echo "SELECT pk, sk, item FROM $t
 WHERE jsonb_typeof(item -> 'gsi1pk') = 'string' AND jsonb_typeof(item -> 'gsi1sk') = 'number'
   AND (item ->> 'gsi1pk') COLLATE \"C\" = 'STATUS#approved' AND (item -> 'gsi1sk')::numeric <= $GSI_CUTOFF
 ORDER BY (item -> 'gsi1sk')::numeric, pk, sk LIMIT $n" ;;
        ext_limit) echo "SELECT * FROM singletable.query('$t', 'STATUS#approved', '<=', '$GSI_CUTOFF', index_name => 'gsi1') LIMIT $n" ;;
    esac
}
# "shared_hit shared_read rows ms temp_written" of the top plan node of the EXPLAIN (ANALYZE,
# BUFFERS) output in file $1 (planning buffers, listed after the plan, are not counted). A
# Buffers line is "Buffers: shared hit=1 read=2 dirtied=3, temp read=4 written=5".
explain_buffers() {
    awk 'NR == 1 && match($0, /rows=[0-9]+/) { rows = substr($0, RSTART + 5, RLENGTH - 5) }
         /^Planning/ { planning = 1 }
         !planning && !seen && /Buffers:/ {
             seen = 1
             np = split($0, part, ",")
             for (i = 1; i <= np; i++) {
                 sub(/^ *(Buffers: *)?/, "", part[i])
                 nw = split(part[i], w, " ")
                 for (k = 2; k <= nw; k++) { split(w[k], kv, "="); val[w[1] "." kv[1]] = kv[2] }
             }
         }
         /^Execution Time:/ { ms = $3 }
         END { printf "%d %d %d %s %d\n", val["shared.hit"], val["shared.read"], rows, ms, val["temp.written"] }' "$1"
}
gsi_stats() { # TABLE -> "inserts updates hot_updates" so far
    sql "SELECT n_tup_ins, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = '$1'" | tr '|' ' '
}
gsi_measure() {
    local ncoll=$((GSI_ITEMS / 100)) t idx rel full def fulldef pb fb pe fe pkb n v f hit rd rows ms tw
    local r ta tb ratio sa sb i0 u0 h0 i1 u1 h1 mn md mx side
    local -a ratios atps btps
    log "gsi: loading gsi_on (GSIs gsi1, gsi2) and gsi_off (none), $GSI_ITEMS items each, gsi_small (gsi1), $((GSI_ITEMS / 10))"
    mkdir -p "$OUT/gsi"
    sql_file "$BENCH/sql/gsi.sql" >/dev/null
    for t in $GSI_TABLES; do sql "SELECT singletable.create_table('$t')" >/dev/null; done
    sql "INSERT INTO gsi_on SELECT * FROM bench_gsi_rows($ncoll, true)" >/dev/null
    sql "INSERT INTO gsi_off SELECT * FROM bench_gsi_rows($ncoll, true)" >/dev/null
    sql "INSERT INTO gsi_small SELECT * FROM bench_gsi_rows($((ncoll / 10)), false)" >/dev/null
    for t in gsi_on gsi_small; do
        sql "SELECT singletable.create_gsi('$t', 'gsi1', 'gsi1pk', 'gsi1sk', sort_key_type => 'N')" >/dev/null
    done
    sql "SELECT singletable.create_gsi('gsi_on', 'gsi2', 'gsi2pk', 'gsi2sk')" >/dev/null
    for t in $GSI_TABLES; do sql "VACUUM ANALYZE $t" >/dev/null; done
    [[ $(sql "SELECT count(*) FROM gsi_on") == "$GSI_ITEMS" ]] || die "gsi_on: wrong item count"
    [[ $(sql "SELECT count(*) FROM singletable.query('gsi_on', 'STATUS#approved', index_name => 'gsi1')") == "$ncoll" ]] ||
        die "gsi_on: gsi1 does not return one approved post per collection"

    # (1) sizes: each GSI against a full index over the same columns
    pkb=$(sql "SELECT pg_relation_size(indexrelid) FROM pg_index WHERE indrelid = 'gsi_on'::regclass AND indisprimary")
    GSI_SIZE[pkey]=$pkb
    res gsi size pkey all bytes "$pkb"
    for idx in gsi1 gsi2; do
        rel=gsi_on_${idx}_gsi full=gsi_on_${idx}_full
        def=$(sql "SELECT pg_get_indexdef('$rel'::regclass)")
        fulldef=$(sed -e "s/^CREATE INDEX $rel /CREATE INDEX $full /" -e 's/ WHERE .*$//' <<<"$def")
        [[ $fulldef == "CREATE INDEX $full "* && $fulldef != *" WHERE "* ]] || die "unexpected definition of $rel: $def"
        GSI_DEF[$idx]=$def
        GSI_DEF[$idx.full]=$fulldef
        sql "$fulldef" >/dev/null
        # entries: the items that satisfy the GSI's predicate (reltuples is only an estimate)
        IFS='|' read -r pb fb pe fe <<<"$(sql "SELECT pg_relation_size('$rel'), pg_relation_size('$full'),
            (SELECT count(*) FROM gsi_on WHERE ${def#* WHERE }), (SELECT count(*) FROM gsi_on)")"
        sql "DROP INDEX $full" >/dev/null
        ((pe == ncoll && fe == GSI_ITEMS)) || die "$rel: $pe entries (expected $ncoll), full index $fe (expected $GSI_ITEMS)"
        GSI_SIZE[$idx]="$pb $fb $pe $fe"
        res gsi size "$idx" partial bytes "$pb"
        res gsi size "$idx" full bytes "$fb"
        res gsi size "$idx" partial entries "$pe"
        res gsi size "$idx" full entries "$fe"
        res gsi size "$idx" partial/full ratio "$(calc "$pb / $fb")"
        res gsi size "$idx" partial/full ratio_over_share "$(calc "($pb / $fb) / ($pe / $fe)")"
        log "gsi size $idx: partial $pb bytes ($pe entries), full $fb bytes ($fe entries), ratio $(calc "$pb / $fb")"
    done

    GSI_SIZE[tables]=$(sql "SELECT sum(pg_total_relation_size(t)) FROM unnest('{${GSI_TABLES// /,}}'::regclass[]) t")
    res gsi size tables all total_bytes "${GSI_SIZE[tables]}"
    log "gsi: CHECKPOINT and pg_prewarm"
    sql "CHECKPOINT" >/dev/null
    for t in $GSI_TABLES; do
        sql "SELECT pg_prewarm('$t'), (SELECT sum(pg_prewarm(indexrelid)) FROM pg_index WHERE indrelid = '$t'::regclass)" >/dev/null
    done

    # (2) the scheduler query
    for t in gsi_on gsi_small; do
        for n in 10 100; do
            for v in "${GSI_VARIANTS[@]}"; do
                v=${v%%|*}
                GSI_STMT[$t.$n.$v]=$(gsi_stmt "$v" "$t" "$n")
                f=$OUT/gsi/explain.$t.$n.$v.txt
                "${PSQL[@]}" -qAt >"$f" <<EOF
\\o /dev/null
${GSI_STMT[$t.$n.$v]};
${GSI_STMT[$t.$n.$v]};
\\o
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${GSI_STMT[$t.$n.$v]};
EOF
                read -r hit rd rows ms tw <<<"$(explain_buffers "$f")"
                GSI_BUF[$t.$n.$v]="$hit $rd $rows $ms $tw"
                res gsi query "$t.$n" "$v" all shared_hit "$hit"
                res gsi query "$t.$n" "$v" all shared_read "$rd"
                res gsi query "$t.$n" "$v" all temp_written "$tw"
                res gsi query "$t.$n" "$v" all rows "$rows"
                res gsi query "$t.$n" "$v" all execution_ms "$ms"
                log "gsi query $t, $n items, $v: shared hit $hit read $rd, temp written $tw, $rows rows, $ms ms"
            done
            [[ ${GSI_BUF[$t.$n.sql]} =~ ^[0-9]+\ [0-9]+\ $n\  ]] || die "gsi query on $t: the plain SQL did not return $n rows"
            grep -q "Index Scan using ${t}_gsi1_gsi on $t" "$OUT/gsi/explain.$t.$n.sql.txt" ||
                die "gsi query on $t: the plain SQL does not use ${t}_gsi1_gsi (see $OUT/gsi/explain.$t.$n.sql.txt)"
            "${PSQL[@]}" -qAt >"$OUT/gsi/explain_query.$t.$n.txt" <<EOF
SELECT * FROM singletable.explain_query('$t', 'STATUS#approved', '<=', '$GSI_CUTOFF', max_items => $n,
                                        with_analyze => true, index_name => 'gsi1');
EOF
        done
    done

    # (3) write cost: put_item of items without index keys, no GSI (A) vs two GSIs (B)
    sa=$(script_for gsi_put gsi_off "$ncoll")
    sb=$(script_for gsi_put gsi_on "$ncoll")
    for t in gsi_off gsi_on; do GSI_PUT[$t.stats0]=$(gsi_stats "$t"); done
    GSI_PUT[sizes0]=$(sql "SELECT pg_relation_size('gsi_on_gsi1_gsi'), pg_relation_size('gsi_on_gsi2_gsi')" | tr '|' ' ')
    for ((r = 1; r <= GSI_ROUNDS; r++)); do
        # A first in odd rounds, B first in even ones; both read the same keys (-D r: new keys per round)
        if ((r % 2)); then
            prep_run write gsi_off
            ta=$(pgbench_run "gsi.put.A.$r" "$sa" "$CLIENTS" "$GSI_SECS" auto -D "r=$r")
            prep_run write gsi_on
            tb=$(pgbench_run "gsi.put.B.$r" "$sb" "$CLIENTS" "$GSI_SECS" auto -D "r=$r")
        else
            prep_run write gsi_on
            tb=$(pgbench_run "gsi.put.B.$r" "$sb" "$CLIENTS" "$GSI_SECS" auto -D "r=$r")
            prep_run write gsi_off
            ta=$(pgbench_run "gsi.put.A.$r" "$sa" "$CLIENTS" "$GSI_SECS" auto -D "r=$r")
        fi
        ratio=$(calc "$tb / $ta")
        log "gsi put round $r/$GSI_ROUNDS: A (no GSI) $(fmt0 "$ta") tps, B (two GSIs) $(fmt0 "$tb") tps, B/A $(fmt2 "$ratio")"
        res gsi put A "$r" tps "$ta"
        res gsi put B "$r" tps "$tb"
        res gsi put B/A "$r" ratio "$ratio"
        ratios+=("$ratio") atps+=("$ta") btps+=("$tb")
    done
    GSI_PUT[ratio]=$(mmm "${ratios[@]}")
    GSI_PUT[A]=$(mmm "${atps[@]}")
    GSI_PUT[B]=$(mmm "${btps[@]}")
    read -r mn md mx <<<"${GSI_PUT[ratio]}"
    res gsi put B/A all ratio_min "$mn"
    res gsi put B/A all ratio_median "$md"
    res gsi put B/A all ratio_max "$mx"
    for side in A B; do
        # shellcheck disable=SC2046  # the values are words
        GSI_PUT[$side.cpu]=$(mmm $(awk -F, -v n="gsi.put.$side." '$1 == "cpu" && index($2, n) == 1 && $5 == "server_cpu_us_per_txn" { print $6 }' "$RES"))
        res gsi put "$side" all median_tps "$(echo "${GSI_PUT[$side]}" | awk '{ print $2 }')"
        res gsi put "$side" all median_server_cpu_us_per_txn "$(echo "${GSI_PUT[$side.cpu]}" | awk '{ print $2 }')"
    done
    res gsi put B/A all median_tps_ratio "$(calc "$(echo "${GSI_PUT[B]}" | awk '{ print $2 }') / $(echo "${GSI_PUT[A]}" | awk '{ print $2 }')")"
    res gsi put B/A all median_server_cpu_ratio "$(calc "$(echo "${GSI_PUT[B.cpu]}" | awk '{ print $2 }') / $(echo "${GSI_PUT[A.cpu]}" | awk '{ print $2 }')")"
    sleep 1 # the last run's backends report their statistics as they exit
    for t in gsi_off gsi_on; do
        read -r i0 u0 h0 <<<"${GSI_PUT[$t.stats0]}"
        read -r i1 u1 h1 <<<"$(gsi_stats "$t")"
        GSI_PUT[$t.writes]="$((i1 - i0)) $((u1 - u0)) $((h1 - h0))"
        res gsi put "$t" all inserts $((i1 - i0))
        res gsi put "$t" all updates $((u1 - u0))
        res gsi put "$t" all hot_updates $((h1 - h0))
    done
    GSI_PUT[sizes1]=$(sql "SELECT pg_relation_size('gsi_on_gsi1_gsi'), pg_relation_size('gsi_on_gsi2_gsi')" | tr '|' ' ')
    res gsi put gsi_on all gsi1_bytes_after "${GSI_PUT[sizes1]%% *}"
    res gsi put gsi_on all gsi2_bytes_after "${GSI_PUT[sizes1]##* }"
}

# The report's lines of the secondary-index measurement.
gsi_report() {
    local idx pb fb pe fe t n v hit rd rows ms tw row mn md mx i u h
    echo "## Secondary indexes"
    echo
    echo "Tables of the rows of [sql/gsi.sql]($REPORT_LINKBASE/sql/gsi.sql) — setup.sql's collections of 100 items, where in"
    echo "every collection the item \`POST#199\` is an approved post (\`gsi1pk\` = \`STATUS#approved\`,"
    echo "\`gsi1sk\` = its publish time, a number spread over a year in an order unrelated to the table"
    echo "keys) and the item \`POST#198\` carries the keys of a second index (\`gsi2pk\`, \`gsi2sk\`, strings):"
    echo "1% of the items in each index. Each table is loaded with one set-based \`INSERT … SELECT\` (as"
    echo "the other tables), then \`singletable.create_gsi\` checks the items and builds the index; then"
    echo "VACUUM ANALYZE, CHECKPOINT and pg_prewarm of the tables and all their indexes ($(bytes_h "${GSI_SIZE[tables]}") in all, in"
    echo "shared_buffers)."
    echo
    echo "* \`gsi_on\`: $GSI_ITEMS items, GSIs \`gsi1\` (S partition key, N sort key) and \`gsi2\` (S, S);"
    echo "* \`gsi_off\`: the same rows, no GSI;"
    echo "* \`gsi_small\`: $((GSI_ITEMS / 10)) items, \`gsi1\` only (the rows without \`gsi2\`'s keys)."
    echo
    echo "### Size of a sparse index"
    echo
    echo "Each GSI of \`gsi_on\` (a partial btree index) against a full index over the same expressions and"
    echo "columns, built for the comparison from \`pg_get_indexdef\` without its WHERE clause (so that it"
    echo "has an entry, mostly NULLs, for every item), measured with \`pg_relation_size\` and dropped."
    echo "Target: the GSI within ${TARGET_GSI_SIZE}× of its share of the items times the full index's size."
    echo
    echo "| index | entries (GSI / full) | GSI | full index | GSI ÷ full | (GSI ÷ full) ÷ share of the items in the GSI | target |"
    echo "|---|---|---|---|---|---|---|"
    for idx in gsi1 gsi2; do
        read -r pb fb pe fe <<<"${GSI_SIZE[$idx]}"
        echo "| \`$idx\` | $pe / $fe | $(fmt0 "$(calc "$pb / 1024")") kB | $(fmt0 "$(calc "$fb / 1024")") kB | $(awk -v a="$pb" -v b="$fb" 'BEGIN { printf "%.4f", a / b }') | **$(fmt2 "$(calc "($pb / $fb) / ($pe / $fe)")")×** | $(mark_le "$(calc "($pb / $fb) / ($pe / $fe)")" "$TARGET_GSI_SIZE") |"
    done
    echo
    echo "For scale: the primary key index of \`gsi_on\` takes $(fmt0 "$(calc "${GSI_SIZE[pkey]} / 1024")") kB. A GSI entry is larger than"
    echo "an entry of the full index, whose key columns are NULL for 99% of the items (a NULL takes"
    echo "no space but the null bitmap): that, and the fuller pages of a larger index, is what the"
    echo "factor above 1 measures. Definitions:"
    echo
    echo '```'
    for idx in gsi1 gsi2; do
        echo "${GSI_DEF[$idx]};"
        echo "${GSI_DEF[$idx.full]};  -- the full index"
    done
    echo '```'
    echo
    echo "### The scheduler query: buffers per item returned"
    echo
    echo "Approved posts due by a time, in publish order: \`gsi1pk = STATUS#approved\`, \`gsi1sk <= $GSI_CUTOFF\`"
    echo "(after every publish time, so that only the item count stops the scan), 10 and 100 items."
    echo "\`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)\` of each statement after two unmeasured executions in the"
    echo "same session; the figure is the top plan node's \`shared hit + read\` (the planning's buffers,"
    echo "listed separately, are not counted; everything is in shared_buffers, so read is 0). For"
    echo "\`singletable.query\` the Function Scan's buffers include those of the statement the function runs"
    echo "through SPI — and of its planning, as the statement is planned inside the call."
    echo "\`singletable.explain_query(…, with_analyze => true)\` shows the plan of that statement but has no"
    echo "BUFFERS option, so the statement is also measured written as plain SQL (README, \"Reaching an"
    echo "index from plain SQL\": the same predicate, conditions, ORDER BY and LIMIT)."
    echo
    echo "| table (items, approved) | items returned | \`query(…, max_items => n)\` | plain SQL \`LIMIT n\` | \`query(…) LIMIT n\` (no max_items) |"
    echo "|---|---|---|---|---|"
    for t in gsi_on gsi_small; do
        for n in 10 100; do
            if [[ $t == gsi_on ]]; then row="| \`$t\` ($GSI_ITEMS, $((GSI_ITEMS / 100)))"; else row="| \`$t\` ($((GSI_ITEMS / 10)), $((GSI_ITEMS / 1000)))"; fi
            row+=" | $n"
            for v in ext sql ext_limit; do
                read -r hit rd rows ms tw <<<"${GSI_BUF[$t.$n.$v]}"
                row+=" | $((hit + rd)) buffers, $rows rows, $ms ms"
                ((tw == 0)) || row+=" (and $tw temp blocks written)"
            done
            echo "$row |"
        done
    done
    echo
    echo "Buffers per item returned (\`query\` with max_items, plain SQL): 10 items $(gsi_per_item gsi_on 10 ext) / $(gsi_per_item gsi_on 10 sql),"
    echo "100 items $(gsi_per_item gsi_on 100 ext) / $(gsi_per_item gsi_on 100 sql) on \`gsi_on\`; the same on the table of a tenth of the"
    echo "size: $(gsi_per_item gsi_small 10 ext) / $(gsi_per_item gsi_small 10 sql) and $(gsi_per_item gsi_small 100 ext) / $(gsi_per_item gsi_small 100 sql). Each approved post is in another"
    echo "collection, so each item returned is one heap page; the index pages add the descent and a"
    echo "leaf page per few hundred entries. Without max_items, an outer LIMIT does not stop the"
    echo "function (its result is materialized before LIMIT sees a row): it reads every approved post"
    echo "of the table, in proportion to the partition, not to the items returned."
    echo
    echo "<details><summary>Plans (EXPLAIN (ANALYZE, BUFFERS, COSTS OFF); explain_query)</summary>"
    echo
    for t in gsi_on gsi_small; do
        for n in 10 100; do
            for v in "${GSI_VARIANTS[@]}"; do
                echo "#### $t, $n items: ${v#*|}"
                echo
                echo '```'
                echo "${GSI_STMT[$t.$n.${v%%|*}]};"
                cat "$OUT/gsi/explain.$t.$n.${v%%|*}.txt"
                echo '```'
                echo
            done
            echo "#### $t, $n items: singletable.explain_query(…, with_analyze => true, index_name => 'gsi1')"
            echo
            echo '```'
            cat "$OUT/gsi/explain_query.$t.$n.txt"
            echo '```'
            echo
        done
    done
    echo "</details>"
    echo
    echo "### Write cost of two GSIs"
    echo
    echo "put_item of items that carry no index key attribute ([scripts/gsi_put.sql]($REPORT_LINKBASE/scripts/gsi_put.sql)),"
    echo "A on \`gsi_off\` (no GSI), B on \`gsi_on\` (two GSIs), same rows: half of the puts insert a new item"
    echo "(a random existing collection, a sort key \`DRAFT#<round>#<random>\` new in every round), half"
    echo "overwrite a random existing item that is in no index. pgbench \`-M prepared\`, $CLIENTS clients,"
    echo "\`--random-seed=$SEED\` (A and B put the same keys), $GSI_SECS s per run, $GSI_ROUNDS rounds, A first in odd"
    echo "rounds and B first in even ones, VACUUM and CHECKPOINT before every run."
    echo
    echo "| side | tps min / median / max | server CPU µs/txn, median | inserts | updates | of which HOT |"
    echo "|---|---|---|---|---|---|"
    for v in "A|gsi_off|no GSI" "B|gsi_on|two GSIs"; do
        IFS='|' read -r n t row <<<"$v"
        read -r mn md mx <<<"${GSI_PUT[$n]}"
        read -r i u h <<<"${GSI_PUT[$t.writes]}"
        echo "| $n: \`$t\`, $row | $(fmt0 "$mn") / **$(fmt0 "$md")** / $(fmt0 "$mx") | $(fmt2 "$(echo "${GSI_PUT[$n.cpu]}" | awk '{ print $2 }')") | $i | $u | $h ($(awk -v h="$h" -v u="$u" 'BEGIN { printf "%.0f", u ? 100 * h / u : 0 }')%) |"
    done
    read -r mn md mx <<<"${GSI_PUT[ratio]}"
    echo
    echo "B/A per round: min $(fmt2 "$mn"), **median $(fmt2 "$md")**, max $(fmt2 "$mx"); target ≥ $TARGET_GSI_WRITE: $(mark "$md" "$TARGET_GSI_WRITE")"
    echo "(judged, as for the pairs, on the median of the rounds' ratios, in which A and B ran back to"
    echo "back; the ratio of the two sides' median tps is $(fmt2 "$(calc "$(echo "${GSI_PUT[B]}" | awk '{ print $2 }') / $(echo "${GSI_PUT[A]}" | awk '{ print $2 }')")")). Server CPU per put, B ÷ A:"
    echo "$(fmt2 "$(calc "$(echo "${GSI_PUT[B.cpu]}" | awk '{ print $2 }') / $(echo "${GSI_PUT[A.cpu]}" | awk '{ print $2 }')")") (medians), the steadier figure when other processes compete for the CPU."
    read -r mn md mx <<<"$(awk -F, '$1 == "cpu" && index($2, "gsi.put.") == 1 && $5 == "foreign_cpu_share" { print ($6 < 0 ? 0 : $6 * 100) }' "$RES" |
        sort -g | awk '{ v[NR] = $1 } END { printf "%.1f %.1f %s\n", v[1], v[int((NR + 1) / 2)], v[NR] }')"
    echo "Other load: processes other than the server and pgbench used a median $md%, at most $(fmt0 "$mx")%, of"
    echo "the machine's CPU during these runs (each run waits for an idle machine first, up to 20 s)."
    echo "The GSIs stayed as they were: \`gsi1\` $(fmt0 "$(calc "${GSI_PUT[sizes0]%% *} / 1024")") → $(fmt0 "$(calc "${GSI_PUT[sizes1]%% *} / 1024")") kB,"
    echo "\`gsi2\` $(fmt0 "$(calc "${GSI_PUT[sizes0]##* } / 1024")") → $(fmt0 "$(calc "${GSI_PUT[sizes1]##* } / 1024")") kB over the puts. An item without index keys gets no"
    echo "entry in a partial index, but on PostgreSQL 15 an index whose expressions or predicate read"
    echo "\`item\` makes every update that changes \`item\` a non-HOT update (a new entry in the primary"
    echo "key index too), and the executor evaluates each GSI's predicate for every new row version;"
    echo "the HOT column shows what \`gsi_off\` saves (a HOT update needs room on the row's page: the"
    echo "VACUUM before each run makes some)."
    echo
}
# buffers per item returned of GSI_BUF entry TABLE N VARIANT
gsi_per_item() {
    local hit rd rows
    read -r hit rd rows _ <<<"${GSI_BUF[$1.$2.$3]}"
    awk -v b="$((hit + rd))" -v r="$rows" 'BEGIN { printf "%.2f", r ? b / r : 0 }'
}


# 8. TTL (issue #11): the sweep of expired items. One table, ttl_items (sql/ttl.sql): TTL_ITEMS
# live items in collections of 100 (half with an expiresAt in the future, half without) and
# TTL_EXPIRED expired ones (TTL_PER per collection, among the live ones in the heap), loaded
# with one set-based INSERT; enable_ttl builds the TTL index. The server is first restarted with
# TTL_SETTINGS (shared_preload_libraries = 'singletable,auto_explain', ttl_interval 1 s); the
# workers sweep only while measured (singletable.ttl_enabled switched with ALTER SYSTEM +
# pg_reload_conf()).
#   (1) reads: EXPLAIN (ANALYZE, BUFFERS) of the sweep's batch statement, the text that
#       st_ttl_sweep_batch (src/ops/ttl.c) builds (TTL_STMT, PREPAREd; its parameters: now, now
#       minus five years, the limit), each in a transaction rolled back: one batch (LIMIT
#       ttl_batch_size) and the whole backlog as one statement, with TTL_EXPIRED expired items as
#       loaded, with half of them swept (dead index entries not vacuumed yet), and after VACUUM
#       with a tenth and with all of them re-inserted; auto_explain shows that the sweep runs
#       exactly that statement;
#   (2) singletable.ttl_sweep('ttl_items') from a session (one transaction), timed, with the
#       buffers it read, in two halves around the half-swept EXPLAIN;
#   (3) the background sweep of TTL_EXPIRED / 10 and of TTL_EXPIRED expired items re-inserted
#       after VACUUM: workers on; the time from the reload until the end of the worker's sweep
#       that deleted the last ones (its LOG line, ttl_log_sweeps = on), and the buffers the sweep
#       read (pg_statio_user_tables); then (3b) the same sweep once more with every batch's plan
#       and buffers logged (auto_explain);
#   (4) get_item of live items (scripts/get_ext.sql) without a sweep (A, workers off), while the
#       workers sweep TTL_SWEEP_EXPIRED re-inserted expired items (B, workers switched on
#       TTL_ON_AFTER s after pgbench starts), and, as a control, without a sweep but with a backend
#       busy in a CPU loop from TTL_ON_AFTER s on (C); TTL_ROUNDS rounds, A B C and C B A in turn,
#       VACUUM + CHECKPOINT before each run; throughput over the sweep's window (from the
#       per-transaction log), and in A and C over the same offsets of their runs.
TTL_SETTINGS=(
    "shared_preload_libraries = 'singletable,auto_explain'|the background sweep: the launcher and its per-database workers; auto_explain to log each batch's plan in one traced sweep"
    "singletable.ttl_interval = 1|a worker every second, each sweeping for at most one second (default 10 s)"
    "singletable.ttl_log_sweeps = on|a LOG line for each worker's sweep that deleted items: the end of the sweep is read from the server log"
    "singletable.ttl_enabled = off|no background sweep except while measured: the runner switches it with ALTER SYSTEM and pg_reload_conf()"
    "log_timezone = 'UTC'|the runner reads the log's times back"
    "auto_explain.log_min_duration = -1|auto_explain logs nothing except in the traced sweep (switched to 0 with ALTER SYSTEM and reload)"
    "auto_explain.log_nested_statements = on|there: the batch statements, which the workers run through SPI"
    "auto_explain.log_analyze = on|there: actual rows and (log_buffers = on) buffers of each batch, without timing (log_timing = off)"
    "auto_explain.log_buffers = on|see log_analyze"
    "auto_explain.log_timing = off|see log_analyze"
)
TTL_TABLE=ttl_items
TTL_ATTR=expiresAt
TTL_MAX_AGE=157788000 # ST_TTL_MAX_AGE_SECONDS (src/ops/ttl.h): five years of 365.25 days
# The expiry expression and the TTL index's predicate as st_ttl_expiry_expr/st_ttl_expiry_test
# (src/ops/ttl.c) write them (the index is built on exactly these), and the batch statement of
# st_ttl_sweep_batch: $1 now, $2 now minus five years, $3 the batch size.
TTL_EXPR="(CASE WHEN pg_catalog.jsonb_typeof(item OPERATOR(pg_catalog.->) '$TTL_ATTR') OPERATOR(pg_catalog.=) 'number' THEN (item OPERATOR(pg_catalog.->) '$TTL_ATTR')::pg_catalog.numeric END)"
TTL_TEST="pg_catalog.jsonb_typeof(item OPERATOR(pg_catalog.->) '$TTL_ATTR') OPERATOR(pg_catalog.=) 'number'"
TTL_STMT="DELETE FROM public.$TTL_TABLE WHERE ctid OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT ctid FROM public.$TTL_TABLE WHERE $TTL_TEST AND $TTL_EXPR OPERATOR(pg_catalog.<) \$1 AND $TTL_EXPR OPERATOR(pg_catalog.>=) \$2 ORDER BY $TTL_EXPR LIMIT \$3 FOR UPDATE SKIP LOCKED)) RETURNING $TTL_EXPR"
declare -A TTL TTL_BUF TTL_PLAN
TTL_STATES="full half tenth again" # the states of (1), in the order measured

ttl_backlog() { sql "SELECT backlog FROM singletable.ttl_status WHERE table_name = '$TTL_TABLE'::regclass"; }
# switches the background sweep on or off; prints the server's clock (epoch s) at the reload
ttl_workers() {
    sql "ALTER SYSTEM SET singletable.ttl_enabled = $1" >/dev/null
    sql "SELECT extract(epoch FROM clock_timestamp()) FROM pg_reload_conf()"
}
# the workers' sweeps of the table logged in [T0, T1): "sweeps items first_end last_end" (epoch s)
ttl_logged_sweeps() {
    TZ=UTC awk -v t0="$1" -v t1="${2:-99999999999}" -v tbl="$TTL_TABLE" '
        index($0, "LOG:  singletable: swept ") && index($0, "expired items of table \"") && index($0, "." tbl "\"") {
            split($1, d, "-"); split($2, hms, ":")
            t = mktime(d[1] " " d[2] " " d[3] " " hms[1] " " hms[2] " 0") + hms[3]
            if (t < t0 || t >= t1) next
            match($0, /swept [0-9]+/); n += substr($0, RSTART + 6, RLENGTH - 6); k++
            if (k == 1) first = t
            last = t
        }
        END { printf "%d %d %.3f %.3f\n", k, n, first, last }' "$ST_DIR/server.log"
}
# waits (at most $3 s, default 20) until the sweeps logged since T0 add up to N items (without
# reading the table, which would add to the sweep's reads); prints ttl_logged_sweeps
ttl_wait_logged() {
    local t0=$1 n=$2 i line
    for ((i = 0; i < ${3:-20} * 5; i++)); do
        line=$(ttl_logged_sweeps "$t0")
        [[ $(awk '{ print $2 }' <<<"$line") == "$n" ]] && { echo "$line"; return 0; }
        sleep 0.2
    done
    die "ttl: the workers logged $(awk '{ print $2 }' <<<"$line") swept items since $t0, expected $n"
}
# "n_tup_del heap_buffers index_buffers" of the table so far (buffers: hit + read, all its indexes)
ttl_statio() {
    sql "SELECT s.n_tup_del, io.heap_blks_hit + io.heap_blks_read, io.idx_blks_hit + io.idx_blks_read
           FROM pg_stat_user_tables s JOIN pg_statio_user_tables io USING (relid)
          WHERE s.relid = '$TTL_TABLE'::regclass" | tr '|' ' '
}
# ttl_statio once it has stopped changing (the sessions before have exited and flushed theirs)
ttl_statio_settled() {
    local a b i
    a=$(ttl_statio)
    for ((i = 0; i < 25; i++)); do
        sleep 0.2
        b=$(ttl_statio)
        [[ $a == "$b" ]] && break
        a=$b
    done
    echo "$a"
}
# waits (at most 10 s) until the deletes counted since BASE (a ttl_statio line) reach N, i.e.
# until the sweeping backends have flushed their statistics (at exit); prints "heap_buffers
# index_buffers" since BASE
ttl_statio_since() {
    local d0 h0 i0 d h i k
    read -r d0 h0 i0 <<<"$1"
    for ((k = 0; k < 50; k++)); do
        read -r d h i <<<"$(ttl_statio)"
        ((d - d0 >= $2)) && { echo "$((h - h0)) $((i - i0))"; return 0; }
        sleep 0.2
    done
    die "ttl: the statistics count $((d - d0)) deletes, expected $2"
}
# (3): the workers sweep the table's N expired items (state TAG); sets TTL[worker.TAG] to
# "items seconds sweeps first_end_s heap_buffers index_buffers"
ttl_worker_sweep() {
    local tag=$1 n=$2 base t0 k items first last bufs i
    log "ttl: the background sweep of $n expired items ($tag)"
    base=$(ttl_statio_settled)
    t0=$(ttl_workers on)
    read -r k items first last <<<"$(ttl_wait_logged "$t0" "$n" 600)"
    ttl_workers off >/dev/null
    # until the last worker has exited (so its statistics are flushed)
    for ((i = 0; i < 50; i++)); do
        [[ $(sql "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'singletable ttl worker'") == 0 ]] && break
        sleep 0.2
    done
    bufs=$(ttl_statio_since "$base" "$n")
    [[ $(ttl_backlog) == 0 ]] || die "ttl: backlog $(ttl_backlog) after the workers' sweep"
    TTL[worker.$tag]="$items $(calc "$last - $t0") $k $(calc "$first - $t0") $bufs"
    res ttl worker_sweep "$tag" all items "$items"
    res ttl worker_sweep "$tag" all seconds "$(calc "$last - $t0")"
    res ttl worker_sweep "$tag" all worker_sweeps "$k"
    res ttl worker_sweep "$tag" all items_per_second "$(calc "$items / ($last - $t0)")"
    res ttl worker_sweep "$tag" all heap_buffers "${bufs% *}"
    res ttl worker_sweep "$tag" all index_buffers "${bufs#* }"
    log "ttl: the workers swept $items items in $(fmt2 "$(calc "$last - $t0")") s ($k sweeps): $(fmt0 "$(calc "$items / ($last - $t0)")") items/s; buffers heap + index $bufs"
}
# (3b): the batches of a workers' sweep of N expired items, each batch's plan logged by
# auto_explain (preloaded; log_analyze with buffers, no timing); writes $OUT/ttl/trace.txt
# ("batch pid buffers rows plan" per batch) and sets TTL[trace], TTL[trace.deciles]
ttl_traced_sweep() {
    local n=$1 t0
    log "ttl: a traced background sweep of $n expired items (auto_explain of every batch)"
    sql "ALTER SYSTEM SET auto_explain.log_min_duration = 0" >/dev/null
    t0=$(ttl_workers on) # its reload applies both settings
    ttl_wait_logged "$t0" "$n" 600 >/dev/null
    sql "ALTER SYSTEM SET auto_explain.log_min_duration = -1" >/dev/null
    ttl_workers off >/dev/null
    TZ=UTC awk -v t0="$t0" -v tbl="public.$TTL_TABLE" '
        / LOG:  duration: .* plan:$/ {
            split($1, d, "-"); split($2, hms, ":")
            t = mktime(d[1] " " d[2] " " d[3] " " hms[1] " " hms[2] " 0") + hms[3]
            pid = $4; inq = 0; next
        }
        / LOG: / { inq = 0 }
        index($0, "Query Text: DELETE FROM " tbl " ") { if (t >= t0) { inq = 1; k++; bpid[k] = pid; buf[k] = -1 }; next }
        inq && /Buffers:/ && buf[k] < 0 {
            h = 0; r = 0
            if (match($0, /hit=[0-9]+/)) h = substr($0, RSTART + 4, RLENGTH - 4)
            if (match($0, /read=[0-9]+/)) r = substr($0, RSTART + 5, RLENGTH - 5)
            buf[k] = h + r
        }
        inq && /LockRows/ && match($0, /actual rows=[0-9]+/) { rows[k] = substr($0, RSTART + 12, RLENGTH - 12) }
        inq && plan[k] == "" && /Bitmap Heap Scan on/ { plan[k] = "bitmap" }
        inq && plan[k] == "" && /Index Scan using/ { plan[k] = "index" }
        END { for (i = 1; i <= k; i++) print i, bpid[i], buf[i], rows[i] + 0, plan[i] }' "$ST_DIR/server.log" >"$OUT/ttl/trace.txt"
    # batches that deleted something (the last, empty one of each worker's sweep is left out)
    TTL[trace]=$(awk '$4 > 0 { n++; s += $3; d += $4; if (!($2 in p)) { p[$2] = 1; np++ }
                               if ($5 == "index") ni++; else nb++; if ($3 > mx) mx = $3; if (n == 1) first = $3; last = $3 }
                      END { printf "%d %d %d %d %d %d %d %d %d\n", n, np, ni, nb, s, d, first, mx, last }' "$OUT/ttl/trace.txt")
    TTL[trace.deciles]=$(awk '$4 > 0 { n++; b[n] = $3; r[n] = $4 }
        END { for (q = 0; q < 10; q++) { lo = int(q * n / 10) + 1; hi = int((q + 1) * n / 10); s = 0; c = 0
                                          for (i = lo; i <= hi; i++) { s += b[i]; c += r[i] }
                                          printf "%s%.2f", (q ? " " : ""), (c ? s / c : 0) } print "" }' "$OUT/ttl/trace.txt")
    read -r n _ _ _ _ items _ _ _ <<<"${TTL[trace]}"
    ((items == $1)) || die "ttl: the traced sweep's plans count $items deleted items, expected $1 (see $OUT/ttl/trace.txt)"
    res ttl traced_sweep all all batches "$n"
    res ttl traced_sweep all all summary "\"${TTL[trace]}\""
    log "ttl: traced sweep: $n batches (batches pids index bitmap buffers items first max last: ${TTL[trace]}); buffers per item by tenth of the sweep: ${TTL[trace.deciles]}"
}
# inserts PER expired items (METRICS#<FIRST> ..) into each collection; prints the seconds it took
ttl_insert_expired() {
    local first=$1 per=$2 t0 t1
    t0=$(date +%s.%N)
    sql "INSERT INTO $TTL_TABLE SELECT * FROM bench_ttl_expired_rows($TTL_NCOLL, $first, $per, $(date +%s))" >/dev/null
    t1=$(date +%s.%N)
    calc "$t1 - $t0"
}
# (1): EXPLAIN (ANALYZE, BUFFERS) of the batch statement with LIMIT $2, state $1 ("full", "half",
# "tenth", "again"), variant $3 ("batch" or "all"), rolled back. No unmeasured execution first:
# everything is in shared_buffers already, and the measured statement is to see the table as a
# sweep would, not after a rolled-back run of itself
ttl_explain() {
    local state=$1 limit=$2 v=$3 f=$OUT/ttl/explain.$1.$3.txt now hit rd rows ms tw scan est
    now=$(date +%s)
    "${PSQL[@]}" -qAt >"$f" <<EOF
PREPARE sweep(pg_catalog.numeric, pg_catalog.numeric, pg_catalog.int8) AS $TTL_STMT;
BEGIN;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE sweep($now, $((now - TTL_MAX_AGE)), $limit);
ROLLBACK;
EOF
    # the planner's estimate of the rows of the expiry range (the same custom plan, with costs)
    "${PSQL[@]}" -qAt >"$f.costs" <<EOF
PREPARE sweep(pg_catalog.numeric, pg_catalog.numeric, pg_catalog.int8) AS $TTL_STMT;
EXPLAIN EXECUTE sweep($now, $((now - TTL_MAX_AGE)), $limit);
EOF
    est=$(awk '/(Index Scan|Bitmap Heap Scan|Seq Scan)/ && match($0, /rows=[0-9]+/) { print substr($0, RSTART + 5, RLENGTH - 5); exit }' "$f.costs")
    read -r hit rd _ ms tw <<<"$(explain_buffers "$f")"
    rows=$(awk '/LockRows/ && match($0, /rows=[0-9]+/) { print substr($0, RSTART + 5, RLENGTH - 5); exit }' "$f")
    scan=$(grep -oE '(Index Scan|Index Only Scan|Bitmap Index Scan|Seq Scan)( using [a-z_]+)? on [a-z_]+' "$f" | head -1)
    [[ $scan == *"${TTL_TABLE}_ttl"* ]] || die "ttl: the sweep statement does not use ${TTL_TABLE}_ttl (see $f)"
    [[ $scan == Bitmap* ]] && scan="Bitmap Heap Scan on $TTL_TABLE ← $scan"
    TTL_BUF[$state.$v]="$hit $rd ${rows:-0} $ms $tw ${est:-0}"
    TTL_PLAN[$state.$v]=$scan
    res ttl explain "$state" "$v" estimated_rows "${est:-0}"
    res ttl explain "$state" "$v" shared_hit "$hit"
    res ttl explain "$state" "$v" shared_read "$rd"
    res ttl explain "$state" "$v" rows "${rows:-0}"
    res ttl explain "$state" "$v" execution_ms "$ms"
    log "ttl reads ($state, $v, LIMIT $limit): shared hit $hit read $rd, $rows rows (estimated $est), $ms ms, $scan"
}
# (2): singletable.ttl_sweep from a session, at most $1 items (0: all); prints "items seconds"
ttl_session_sweep() {
    local arg=""
    (($1 > 0)) && arg=", max_items => $1"
    sql "SELECT n, extract(epoch FROM clock_timestamp() - statement_timestamp())
           FROM singletable.ttl_sweep('$TTL_TABLE'$arg) AS n" | tr '|' ' '
}
# (4): transactions per second of the pgbench log files PREFIX.* completed in [W0, W1)
ttl_window_tps() {
    cat "$1".* | awk -v a="$2" -v b="$3" '{ t = $5 + $6 / 1000000; if (t >= a && t < b) n++ }
                                           END { printf "%.1f\n", n / (b - a) }'
}
# end of the last transaction in the pgbench log files PREFIX.*
ttl_log_end() { cat "$1".* | awk '{ t = $5 + $6 / 1000000; if (t > m) m = t } END { printf "%.6f\n", m }'; }

ttl_measure() {
    local now s hit rd rows ms tw n secs n1 s1 n2 s2 b1 b2 base t0 t1 r side ta tb
    local mark on start wa0 wa1 wb0 wb1 wc0 wc1 bend off len ratio sweeps items first last over script ne nl tc
    local -a ratios cratios atps btps ctps awin bwin cwin
    st_restart_server "${TTL_SETTINGS[@]%%|*}" || die "restarting the server with the TTL settings failed"
    mkdir -p "$OUT/ttl"
    [[ $(sql "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'singletable ttl launcher'") == 1 ]] ||
        die "ttl: no singletable ttl launcher after the restart with shared_preload_libraries"
    sql_file "$BENCH/sql/ttl.sql" >/dev/null
    now=$(date +%s)
    TTL[now]=$now
    log "ttl: loading $TTL_TABLE: $TTL_ITEMS live items and $TTL_EXPIRED expired ($TTL_PER per collection)"
    t0=$(date +%s.%N)
    sql "SELECT singletable.create_table('$TTL_TABLE')" >/dev/null
    sql "INSERT INTO $TTL_TABLE SELECT * FROM bench_ttl_rows($TTL_NCOLL, $TTL_PER, $now)" >/dev/null
    t1=$(date +%s.%N)
    sql "SELECT singletable.enable_ttl('$TTL_TABLE', '$TTL_ATTR')" >/dev/null
    TTL[index_s]=$(calc "$(date +%s.%N) - $t1")
    TTL[load_s]=$(calc "$t1 - $t0")
    res ttl load "$TTL_TABLE" all seconds "${TTL[load_s]}"
    res ttl load "$TTL_TABLE" all enable_ttl_seconds "${TTL[index_s]}"
    sql "VACUUM ANALYZE $TTL_TABLE" >/dev/null
    IFS='|' read -r n nl ne <<<"$(sql "SELECT count(*),
        count(*) FILTER (WHERE $TTL_EXPR >= $now), count(*) FILTER (WHERE $TTL_EXPR < $now) FROM $TTL_TABLE")"
    ((n == TTL_ITEMS + TTL_EXPIRED && ne == TTL_EXPIRED && nl == TTL_ITEMS / 2)) ||
        die "ttl: $n items, $ne expired, $nl live with an expiry (expected $((TTL_ITEMS + TTL_EXPIRED)), $TTL_EXPIRED, $((TTL_ITEMS / 2)))"
    [[ $(ttl_backlog) == "$TTL_EXPIRED" ]] || die "ttl: ttl_status shows a backlog of $(ttl_backlog), expected $TTL_EXPIRED"
    IFS='|' read -r 'TTL[heap_pages]' 'TTL[heap_bytes]' 'TTL[pkey_bytes]' 'TTL[index_bytes]' 'TTL[index_entries]' <<<"$(sql "SELECT
        pg_relation_size('$TTL_TABLE') / 8192, pg_relation_size('$TTL_TABLE'), pg_relation_size('${TTL_TABLE}_pkey'),
        pg_relation_size('${TTL_TABLE}_ttl'), (SELECT count(*) FROM $TTL_TABLE WHERE $TTL_TEST)")"
    TTL[index_def]=$(sql "SELECT pg_get_indexdef('${TTL_TABLE}_ttl'::regclass)")
    for s in heap_pages heap_bytes pkey_bytes index_bytes index_entries; do res ttl size "$TTL_TABLE" all "$s" "${TTL[$s]}"; done
    sql "CHECKPOINT" >/dev/null
    sql "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null
    sql "SELECT pg_prewarm('$TTL_TABLE'), pg_prewarm('${TTL_TABLE}_pkey'), pg_prewarm('${TTL_TABLE}_ttl')" >/dev/null

    # (1) and (2), as loaded: the batch statement; the session's sweep of the first half; the
    # batch statement with the other half left (and the first half's dead index entries); the
    # session's sweep of the rest
    ttl_explain full "$TTL_BATCH" batch
    ttl_explain full "$TTL_EXPIRED" all
    sql "VACUUM $TTL_TABLE" >/dev/null # as before the EXPLAINs (their rolled-back deletes are on the rows)
    log "ttl: singletable.ttl_sweep('$TTL_TABLE', max_items => $((TTL_EXPIRED / 2))) from a session"
    base=$(ttl_statio_settled)
    read -r n1 s1 <<<"$(ttl_session_sweep $((TTL_EXPIRED / 2)))"
    b1=$(ttl_statio_since "$base" "$n1")
    ttl_explain half "$TTL_BATCH" batch
    log "ttl: singletable.ttl_sweep('$TTL_TABLE') from a session: the rest"
    base=$(ttl_statio_settled)
    read -r n2 s2 <<<"$(ttl_session_sweep 0)"
    b2=$(ttl_statio_since "$base" "$n2")
    ((n1 + n2 == TTL_EXPIRED)) || die "ttl: the session's sweeps deleted $n1 + $n2 items, expected $TTL_EXPIRED"
    [[ $(ttl_backlog) == 0 ]] || die "ttl: backlog $(ttl_backlog) after the session's sweep"
    TTL[session.first]="$n1 $s1 $b1"
    TTL[session.rest]="$n2 $s2 $b2"
    TTL[session]="$((n1 + n2)) $(calc "$s1 + $s2")"
    for s in first rest; do
        read -r n secs hit rd <<<"${TTL[session.$s]}"
        res ttl session_sweep "$s" all items "$n"
        res ttl session_sweep "$s" all seconds "$secs"
        res ttl session_sweep "$s" all heap_buffers "$hit"
        res ttl session_sweep "$s" all index_buffers "$rd"
    done
    res ttl session_sweep all all items_per_second "$(calc "($n1 + $n2) / ($s1 + $s2)")"
    log "ttl: the session's sweep: $((n1 + n2)) items in $(fmt2 "$(calc "$s1 + $s2")") s ($(fmt0 "$(calc "($n1 + $n2) / ($s1 + $s2)")") items/s); buffers heap + index: first half $b1, rest $b2"

    # (1) and (3) with a tenth of the expired items (re-inserted after VACUUM), with the check
    # that the sweep runs TTL_STMT (auto_explain of its nested statements, rolled back)
    sql "VACUUM $TTL_TABLE" >/dev/null
    ttl_insert_expired 0 $((TTL_PER / 10)) >/dev/null
    sql "ANALYZE $TTL_TABLE" >/dev/null
    [[ $(ttl_backlog) == $((TTL_EXPIRED / 10)) ]] || die "ttl: backlog $(ttl_backlog), expected $((TTL_EXPIRED / 10))"
    ttl_explain tenth "$TTL_BATCH" batch
    ttl_explain tenth "$((TTL_EXPIRED / 10))" all
    "${PSQL[@]}" -qAt >"$OUT/ttl/auto_explain.out" 2>"$OUT/ttl/auto_explain.log" <<EOF
BEGIN;
LOAD 'auto_explain';
SET auto_explain.log_min_duration = 0;
SET auto_explain.log_nested_statements = on;
SET auto_explain.log_analyze = on;
SET auto_explain.log_buffers = on;
SET auto_explain.log_timing = off;
SET client_min_messages = log;
SELECT singletable.ttl_sweep('$TTL_TABLE', max_items => $TTL_BATCH);
ROLLBACK;
EOF
    # the statement text as logged: from "Query Text: DELETE" to the line before the plan
    awk '/^Query Text: DELETE/ { q = 1; sub(/^Query Text: /, "") } q && /^(Delete on|LOG:)/ { exit } q { printf "%s%s", sep, $0; sep = "\n" }' \
        "$OUT/ttl/auto_explain.log" >"$OUT/ttl/sweep_statement.txt"
    [[ $(cat "$OUT/ttl/sweep_statement.txt") == "$TTL_STMT" ]] ||
        die "ttl: the sweep does not run the statement measured here: compare $OUT/ttl/sweep_statement.txt with TTL_STMT in run.sh (src/ops/ttl.c changed?)"
    awk '/^Query Text: DELETE/ { q = 1 } q && /^LOG:/ { exit } q' "$OUT/ttl/auto_explain.log" >"$OUT/ttl/auto_explain.plan.txt"
    sql "VACUUM $TTL_TABLE" >/dev/null
    ttl_worker_sweep tenth $((TTL_EXPIRED / 10))

    # (1) and (3) with all the expired items re-inserted after VACUUM
    sql "VACUUM $TTL_TABLE" >/dev/null
    ttl_insert_expired 0 "$TTL_PER" >/dev/null
    sql "VACUUM ANALYZE $TTL_TABLE" >/dev/null
    sql "CHECKPOINT" >/dev/null
    [[ $(ttl_backlog) == "$TTL_EXPIRED" ]] || die "ttl: backlog $(ttl_backlog), expected $TTL_EXPIRED"
    TTL[reltuples]=$(sql "SELECT reltuples::bigint FROM pg_class WHERE oid = '$TTL_TABLE'::regclass")
    ttl_explain again "$TTL_BATCH" batch
    ttl_explain again "$TTL_EXPIRED" all
    sql "VACUUM $TTL_TABLE" >/dev/null
    ttl_worker_sweep again "$TTL_EXPIRED"
    TTL[worker]="${TTL[worker.again]}"
    # (3b) the same sweep again, traced
    sql "VACUUM $TTL_TABLE" >/dev/null
    ttl_insert_expired 0 "$TTL_PER" >/dev/null
    sql "VACUUM $TTL_TABLE" >/dev/null
    sql "CHECKPOINT" >/dev/null
    ttl_traced_sweep "$TTL_EXPIRED"
    read -r _ _ _ _ hit rd <<<"${TTL[worker.again]}"
    read -r _ _ _ _ n s <<<"${TTL[worker.tenth]}"
    TTL[buf_ratio]=$(calc "(($hit + $rd) / $TTL_EXPIRED) / (($n + $s) / ($TTL_EXPIRED / 10))")
    res ttl worker_sweep again/tenth all buffers_per_item_ratio "${TTL[buf_ratio]}"
    sql "VACUUM $TTL_TABLE" >/dev/null

    # (4) get_item of live items without (A) and during (B) the background sweep
    script=$(script_for get_ext "$TTL_TABLE" "$TTL_NCOLL")
    cat >"$OUT/ttl/with_sweep.sh" <<'EOF'
#!/usr/bin/env bash
# run.sh's prefix of a pgbench run of the TTL test: records when it starts and, with TTL_ON_AFTER
# set, switches the background sweep on that many seconds later (and shows the workers); with
# TTL_BURN_AFTER set, starts a backend busy with a CPU loop that long after and for TTL_BURN_SECS
date +%s.%N >"$TTL_MARK.start"
if [[ -n ${TTL_ON_AFTER:-} ]]; then
    (sleep "$TTL_ON_AFTER"
     "$PGBIN/psql" -X -At -c "ALTER SYSTEM SET singletable.ttl_enabled = on" >/dev/null
     "$PGBIN/psql" -X -At -c "SELECT extract(epoch FROM clock_timestamp()) FROM pg_reload_conf()" >"$TTL_MARK.on.tmp"
     mv "$TTL_MARK.on.tmp" "$TTL_MARK.on"
     sleep 0.3
     "$PGBIN/psql" -X -At -c "SELECT backend_type, state, query FROM pg_stat_activity WHERE backend_type LIKE 'singletable%'" \
         >"$TTL_MARK.activity") </dev/null >/dev/null 2>&1 &
fi
if [[ -n ${TTL_BURN_AFTER:-} ]]; then
    (sleep "$TTL_BURN_AFTER"
     date +%s.%N >"$TTL_MARK.on"
     "$PGBIN/psql" -X -At -c "SET statement_timeout = '${TTL_BURN_SECS}s'" \
         -c 'DO $$ BEGIN LOOP PERFORM 1; END LOOP; END $$') </dev/null >/dev/null 2>&1 &
fi
exec "$@"
EOF
    chmod 755 "$OUT/ttl/with_sweep.sh"
    log "ttl: get_item during the sweep, $TTL_ROUNDS rounds of $TTL_SECS s, the sweep of $TTL_SWEEP_EXPIRED items starting after ${TTL_ON_AFTER} s"
    for ((r = 1; r <= TTL_ROUNDS; r++)); do
        TTL[insert.$r]=$(ttl_insert_expired 0 "$TTL_SWEEP_PER")
        res ttl get_during_sweep all "$r" insert_expired_seconds "${TTL[insert.$r]}"
        # ttl_status counts the backlog up to 100,000
        [[ $(ttl_backlog) == $((TTL_SWEEP_EXPIRED < 100000 ? TTL_SWEEP_EXPIRED : 100000)) ]] ||
            die "ttl: backlog $(ttl_backlog), expected $TTL_SWEEP_EXPIRED (counted up to 100000)"
        # A and C alternate first and last, B runs between them
        for side in $(if ((r % 2)); then echo A B C; else echo C B A; fi); do
            mark=$OUT/ttl/get.$side.$r
            rm -f "$mark".*
            prep_run write "$TTL_TABLE"
            case $side in
                A)
                    RUN_PREFIX=(env -u TTL_ON_AFTER -u TTL_BURN_AFTER TTL_MARK="$mark" PGBIN="$PGBIN" "$OUT/ttl/with_sweep.sh")
                    ta=$(pgbench_run "ttl.get.A.$r" "$script" "$CLIENTS" "$TTL_SECS" auto --log --log-prefix="$mark.txlog")
                    ;;
                C)
                    RUN_PREFIX=(env -u TTL_ON_AFTER TTL_BURN_AFTER="$TTL_ON_AFTER" TTL_BURN_SECS=$((TTL_SECS - TTL_ON_AFTER))
                                TTL_MARK="$mark" PGBIN="$PGBIN" "$OUT/ttl/with_sweep.sh")
                    tc=$(pgbench_run "ttl.get.C.$r" "$script" "$CLIENTS" "$TTL_SECS" auto --log --log-prefix="$mark.txlog")
                    [[ -s $mark.on ]] || die "ttl: the busy backend was not started during run $r"
                    sleep 0.5 # its statement_timeout ends it with the run
                    ;;
                B)
                    RUN_PREFIX=(env -u TTL_BURN_AFTER TTL_MARK="$mark" TTL_ON_AFTER="$TTL_ON_AFTER" PGBIN="$PGBIN" "$OUT/ttl/with_sweep.sh")
                    tb=$(pgbench_run "ttl.get.B.$r" "$script" "$CLIENTS" "$TTL_SECS" auto --log --log-prefix="$mark.txlog")
                    [[ -s $mark.on ]] || die "ttl: the sweep was not switched on during run $r"
                    on=$(cat "$mark.on")
                    read -r sweeps items first last <<<"$(ttl_wait_logged "$on" "$TTL_SWEEP_EXPIRED" 600)"
                    ttl_workers off >/dev/null
                    bend=$(ttl_log_end "$mark.txlog")
                    # the window: from switching on to the end of the sweep, or of the run if sooner
                    wb0=$on wb1=$last over=0
                    if ge "$last" "$bend"; then wb1=$bend over=1; fi
                    TTL[sweep.$r]="$items $(calc "$last - $on") $sweeps $over"
                    res ttl get_during_sweep B "$r" sweep_items "$items"
                    res ttl get_during_sweep B "$r" sweep_seconds "$(calc "$last - $on")"
                    res ttl get_during_sweep B "$r" sweep_outlasted_run "$over"
                    ;;
            esac
            RUN_PREFIX=()
        done
        # A's and C's windows: the same offsets from the start of their runs as B's
        start=$(cat "$OUT/ttl/get.B.$r.start")
        off=$(calc "$wb0 - $start") len=$(calc "$wb1 - $wb0")
        wa0=$(tsum "$(cat "$OUT/ttl/get.A.$r.start")" "$off") wa1=$(tsum "$wa0" "$len")
        wc0=$(tsum "$(cat "$OUT/ttl/get.C.$r.start")" "$off") wc1=$(tsum "$wc0" "$len")
        awin+=("$(ttl_window_tps "$OUT/ttl/get.A.$r.txlog" "$wa0" "$wa1")")
        bwin+=("$(ttl_window_tps "$OUT/ttl/get.B.$r.txlog" "$wb0" "$wb1")")
        cwin+=("$(ttl_window_tps "$OUT/ttl/get.C.$r.txlog" "$wc0" "$wc1")")
        ratio=$(calc "${bwin[-1]} / ${awin[-1]}")
        ratios+=("$ratio") atps+=("$ta") btps+=("$tb") ctps+=("$tc")
        cratios+=("$(calc "${bwin[-1]} / ${cwin[-1]}")")
        res ttl get_during_sweep A "$r" window_tps "${awin[-1]}"
        res ttl get_during_sweep B "$r" window_tps "${bwin[-1]}"
        res ttl get_during_sweep C "$r" window_tps "${cwin[-1]}"
        res ttl get_during_sweep A "$r" run_tps "$ta"
        res ttl get_during_sweep B "$r" run_tps "$tb"
        res ttl get_during_sweep C "$r" run_tps "$tc"
        res ttl get_during_sweep B/A "$r" window_ratio "$ratio"
        res ttl get_during_sweep B/C "$r" window_ratio "${cratios[-1]}"
        res ttl get_during_sweep all "$r" window_seconds "$len"
        log "ttl get round $r/$TTL_ROUNDS: window $(fmt2 "$len") s from $(fmt2 "$off") s: A (no sweep) $(fmt0 "${awin[-1]}") tps, B (sweep) $(fmt0 "${bwin[-1]}") tps, C (busy loop) $(fmt0 "${cwin[-1]}") tps; B/A $(fmt2 "$ratio"), B/C $(fmt2 "${cratios[-1]}"); whole runs $(fmt0 "$ta") / $(fmt0 "$tb") / $(fmt0 "$tc") tps"
        [[ -f $OUT/ttl/get.B.$r.activity ]] && cp "$OUT/ttl/get.B.$r.activity" "$OUT/ttl/activity.txt"
        rm -f "$OUT/ttl/get.A.$r.txlog".* "$OUT/ttl/get.B.$r.txlog".* "$OUT/ttl/get.C.$r.txlog".*
    done
    TTL[ratio]=$(mmm "${ratios[@]}")
    TTL[cratio]=$(mmm "${cratios[@]}")
    TTL[A]=$(mmm "${awin[@]}")
    TTL[B]=$(mmm "${bwin[@]}")
    TTL[C]=$(mmm "${cwin[@]}")
    TTL[A.run]=$(mmm "${atps[@]}")
    TTL[B.run]=$(mmm "${btps[@]}")
    TTL[C.run]=$(mmm "${ctps[@]}")
    TTL[median_ratio]=$(calc "$(awk '{ print $2 }' <<<"${TTL[B]}") / $(awk '{ print $2 }' <<<"${TTL[A]}")")
    TTL[median_cratio]=$(calc "$(awk '{ print $2 }' <<<"${TTL[B]}") / $(awk '{ print $2 }' <<<"${TTL[C]}")")
    read -r _ n _ <<<"${TTL[ratio]}"
    res ttl get_during_sweep B/A all ratio_of_medians "${TTL[median_ratio]}"
    res ttl get_during_sweep B/A all median_of_ratios "$n"
    res ttl get_during_sweep B/C all ratio_of_medians "${TTL[median_cratio]}"
    for side in A B C; do
        res ttl get_during_sweep "$side" all median_window_tps "$(awk '{ print $2 }' <<<"${TTL[$side]}")"
        # shellcheck disable=SC2046  # the values are words
        TTL[$side.cpu]=$(mmm $(awk -F, -v n="ttl.get.$side." '$1 == "cpu" && index($2, n) == 1 && $5 == "server_cpu_us_per_txn" { print $6 }' "$RES"))
    done
    log "ttl get: median A $(fmt0 "$(awk '{ print $2 }' <<<"${TTL[A]}")") tps, median B $(fmt0 "$(awk '{ print $2 }' <<<"${TTL[B]}")") tps, median C $(fmt0 "$(awk '{ print $2 }' <<<"${TTL[C]}")") tps; B/A $(fmt2 "${TTL[median_ratio]}") (median of the rounds' ratios $(fmt2 "$n")), B/C $(fmt2 "${TTL[median_cratio]}")"
}

# buffers (hit + read) per item deleted of TTL_BUF entry STATE.VARIANT
ttl_per_item() {
    local hit rd rows
    read -r hit rd rows _ <<<"${TTL_BUF[$1.$2]}"
    awk -v b="$((hit + rd))" -v r="$rows" 'BEGIN { printf "%.2f", r ? b / r : 0 }'
}
# a state of the table in (1) and (3), for the report
ttl_state_label() {
    case $1 in
        full) echo "as loaded" ;;
        half) echo "as loaded, half of the expired items swept (dead index entries not vacuumed)" ;;
        tenth) echo "after VACUUM, a tenth re-inserted" ;;
        again) echo "after VACUUM, all re-inserted" ;;
    esac
}
# The report's lines of the TTL measurement.
ttl_report() {
    local s v hit rd rows ms tw row n secs k first mn md mx r items over label
    echo "## TTL: sweeping expired items"
    echo
    echo "Table \`$TTL_TABLE\` ([sql/ttl.sql]($REPORT_LINKBASE/sql/ttl.sql)): setup.sql's collections of 100 items, $TTL_ITEMS live"
    echo "items, of which the half with an even sort-key number carry \`$TTL_ATTR\` in the future (1 day to 1 year"
    echo "ahead) and the others none, plus $TTL_PER expired items per collection (\`METRICS#000\`…), $TTL_EXPIRED in"
    echo "all, \`$TTL_ATTR\` 1 minute to 7 days in the past in an order unrelated to the keys; live and"
    echo "expired items loaded together with one set-based \`INSERT … SELECT\` in primary-key order (so the"
    echo "expired items lie among the live ones in the heap: about $(fmt0 "$(calc "${TTL[heap_pages]} / $TTL_NCOLL")") heap pages per collection),"
    echo "then \`singletable.enable_ttl('$TTL_TABLE', '$TTL_ATTR')\` ($(fmt2 "${TTL[index_s]}") s) and VACUUM ANALYZE. Heap $(bytes_h "${TTL[heap_bytes]}") (${TTL[heap_pages]} pages),"
    echo "primary key $(bytes_h "${TTL[pkey_bytes]}"), TTL index $(bytes_h "${TTL[index_bytes]}") with ${TTL[index_entries]} entries (every item with a numeric"
    echo "\`$TTL_ATTR\`: the live ones with a future expiry too):"
    echo
    echo '```'
    echo "${TTL[index_def]};"
    echo '```'
    echo
    echo "For this section the server is restarted with these settings added (the workers sweep only"
    echo "while measured):"
    echo
    echo "| setting | why |"
    echo "|---|---|"
    for s in "${TTL_SETTINGS[@]}"; do echo "| \`${s%%|*}\` | ${s#*|} |"; done
    echo
    echo "### Sweep rate, and what a whole sweep reads"
    echo
    echo "| sweep | state of the table | expired items | seconds | items/s | heap buffers | index buffers | buffers per item |"
    echo "|---|---|---|---|---|---|---|---|"
    for s in again tenth; do
        read -r n secs k first hit rd <<<"${TTL[worker.$s]}"
        echo "| background workers (worker sweeps: $k) | $(ttl_state_label "$s") | $n | $(fmt2 "$secs") | **$(fmt0 "$(calc "$n / $secs")")** | $hit | $rd | $(fmt2 "$(calc "($hit + $rd) / $n")") |"
    done
    for s in first rest; do
        read -r n secs hit rd <<<"${TTL[session.$s]}"
        if [[ $s == first ]]; then
            label="\`ttl_sweep('$TTL_TABLE', max_items => $n)\` from a session"
        else
            label="then \`ttl_sweep('$TTL_TABLE')\`: the rest (over the first half's dead entries)"
        fi
        echo "| $label | $(ttl_state_label full) | $n | $(fmt2 "$secs") | **$(fmt0 "$(calc "$n / $secs")")** | $hit | $rd | $(fmt2 "$(calc "($hit + $rd) / $n")") |"
    done
    read -r n secs <<<"${TTL[session]}"
    echo
    read -r _ _ _ first _ <<<"${TTL[worker.again]}"
    echo "* Background workers: the expired items are inserted and the table vacuumed with the workers off;"
    echo "  the time runs from \`ALTER SYSTEM SET singletable.ttl_enabled = on\` + \`pg_reload_conf()\` to the"
    echo "  end of the worker's sweep that deleted the last of them (its log line, \`ttl_log_sweeps\`; the"
    echo "  first worker's sweep ended $(fmt2 "$first") s after the reload). Each worker sweeps for at most"
    echo "  \`ttl_interval\` (1 s) in transactions of \`ttl_batch_size\` ($TTL_BATCH) deletes and exits, and the launcher"
    echo "  starts the next one. No other load on the server."
    echo "* The session's \`ttl_sweep\`: all its batches in the caller's one transaction (the statement's time,"
    echo "  server clock), $n items in $(fmt2 "$secs") s in all, $(fmt0 "$(calc "$n / $secs")") items/s, on the table as loaded (after VACUUM)."
    echo "* Buffers: the table's \`pg_statio_user_tables\` counters (heap and all its indexes, hit + read,"
    echo "  counted as EXPLAIN counts them) before and after the sweep, once the sweeping backends have"
    echo "  exited and flushed their statistics (checked: \`n_tup_del\` grew by the items swept); nothing"
    echo "  else reads the table meanwhile (the runner waits for the workers' log lines, not on"
    echo "  \`ttl_status\`, whose backlog count reads the table). For the workers this includes any empty"
    echo "  sweep that started before they were switched off."
    read -r _ _ _ _ hit rd <<<"${TTL[worker.again]}"
    n=$(calc "($hit + $rd) / $TTL_EXPIRED")
    read -r _ _ _ _ hit rd <<<"${TTL[worker.tenth]}"
    k=$(calc "($hit + $rd) / ($TTL_EXPIRED / 10)")
    echo
    echo "**The workers' reads per expired item, $TTL_EXPIRED against $((TTL_EXPIRED / 10)) expired items: $(fmt2 "$n") against $(fmt2 "$k") buffers,"
    echo "ratio $(fmt2 "$(calc "$n / $k")")** (target ≤ $TARGET_TTL_BUF, i.e. a sweep's reads grow with the expired items, not faster: $(mark_le "$(calc "$n / $k")" "$TARGET_TTL_BUF"))."
    echo
    echo "### The batches of a workers' sweep"
    echo
    read -r n k ni nb s items first mx last <<<"${TTL[trace]}"
    echo "The sweep of the row \"background workers, $(ttl_state_label again)\" once more (the items"
    echo "re-inserted, VACUUM), with \`auto_explain\` logging every batch's plan (\`log_analyze\` with buffers,"
    echo "no timing; [its settings](#ttl-sweeping-expired-items) above): $n batches that deleted items, run by $k worker processes;"
    echo "plans: $ni index scans, $nb bitmap scans; buffers of a batch (top plan node, hit + read): first $first,"
    echo "largest $mx, last $last; $s in all, $(fmt2 "$(calc "$s / $items")") per item. Buffers per item deleted, by tenth of the sweep"
    echo "(batches in order):"
    echo
    echo "| tenth of the sweep | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    echo "| buffers per item | ${TTL[trace.deciles]// / | } |"
    echo
    echo "Per batch: test/bench/out/raw/ttl/trace.txt (not committed; batch, worker pid, buffers,"
    echo "items, plan). A batch that reads more than the first ones re-reads what earlier batches deleted:"
    echo "entries of swept items stay in the TTL index until VACUUM, and each later batch visits the heap"
    echo "tuples of those it does not skip."
    echo
    echo "### Reads of the batch statement (EXPLAIN)"
    echo
    echo "The batch statement, exactly as \`st_ttl_sweep_batch\` ([src/ops/ttl.c]($REPORT_LINKBASE/../../src/ops/ttl.c)) builds it for this"
    echo "table (\`\$1\` now, \`\$2\` now minus five years, \`\$3\` the limit; the expiry expression and the"
    echo "\`jsonb_typeof\` predicate are the TTL index's own, so that the planner can use it), \`PREPARE\`d and"
    echo "run as \`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE\` in a transaction rolled back (one batch, then"
    echo "the whole backlog; everything is in shared_buffers, so no unmeasured execution first; the table is"
    echo "vacuumed after the EXPLAINs, before the sweeps above):"
    echo
    echo '```'
    echo "$TTL_STMT"
    echo '```'
    echo
    echo "That the sweep runs this very statement is checked on each run: \`auto_explain\`"
    echo "(\`log_nested_statements\`) logs the statement text of \`ttl_sweep\`'s batch, which must equal it."
    echo "Figures: the top plan node's \`shared hit + read\` (planning not counted; everything is in"
    echo "shared_buffers). *One batch*: LIMIT $TTL_BATCH (\`ttl_batch_size\`); *whole backlog*: LIMIT = the expired"
    echo "items, in one statement. *Estimate*: the planner's row estimate for the expiry range (\`EXPLAIN\`"
    echo "with costs of the same custom plan), which decides between an index scan (read in expiry order,"
    echo "stopping after the limit) and a bitmap scan (which first reads every index entry of the range)."
    echo "For scale: a scan of the table reads ${TTL[heap_pages]} heap pages."
    echo
    echo "| state of the table | expired items | estimate | one batch: buffers, items, ms | per item | plan of the batch | whole backlog: buffers, items, ms | per item |"
    echo "|---|---|---|---|---|---|---|---|"
    for s in $TTL_STATES; do
        case $s in
            full | again) n=$TTL_EXPIRED ;;
            half) n=$((TTL_EXPIRED / 2)) ;;
            tenth) n=$((TTL_EXPIRED / 10)) ;;
        esac
        read -r hit rd rows ms tw est <<<"${TTL_BUF[$s.batch]}"
        row="| $(ttl_state_label "$s") | $n | $est | $((hit + rd)), $rows, $ms | $(ttl_per_item "$s" batch) | ${TTL_PLAN[$s.batch]}"
        if [[ -n ${TTL_BUF[$s.all]:-} ]]; then
            read -r hit rd rows ms tw est <<<"${TTL_BUF[$s.all]}"
            row+=" | $((hit + rd)), $rows, $ms | $(ttl_per_item "$s" all) |"
        else
            row+=" | – | – |"
        fi
        echo "$row"
    done
    echo
    echo "One batch, $TTL_EXPIRED against $((TTL_EXPIRED / 10)) expired items (both after VACUUM and re-insertion):"
    echo "$(ttl_per_item again batch) against $(ttl_per_item tenth batch) buffers per item deleted; the whole backlog in one statement:"
    echo "$(ttl_per_item again all) against $(ttl_per_item tenth all)."
    echo
    echo "* With an index scan an item costs four buffers: its heap page through the index entry (read in"
    echo "  expiry order, so each in another page), the same page again to lock it (\`LockRows\`), to find it"
    echo "  by ctid (\`Tid Scan\`) and to delete it; the TTL index's leaf pages hold hundreds of entries each."
    echo "  Nothing reads the live items, with or without an expiry."
    echo "* A bitmap scan first reads *every* index entry of the expiry range (\`Bitmap Index Scan\` rows = the"
    echo "  whole backlog), for each batch, and then visits heap pages in physical order, passing, until"
    echo "  VACUUM, the pages of the items already swept (their entries are still in the index)."
    echo "* Until VACUUM, the entries of swept items stay in the index. An index scan visits their heap"
    echo "  tuples again and marks the entries dead (to be skipped from then on) once the deletion is visible"
    echo "  to every transaction: a worker's next batch passes the previous batch's entries once; the"
    echo "  session's \`ttl_sweep\`, one transaction, passes all its earlier batches' entries in every batch."
    echo "  The half-swept row is the batch statement after half of the backlog was swept that way."
    echo "* The planner's estimate does not follow the backlog: it is the same in every state, about the"
    echo "  table's rows (${TTL[reltuples]}) × 0.005 × 0.005, PostgreSQL's default selectivities of a range and of an"
    echo "  equality (the \`jsonb_typeof\` predicate): the statistics ANALYZE keeps for a partial index's"
    echo "  expression are not used for estimates. Between an index and a bitmap scan of an estimated few"
    echo "  dozen rows, the table's size and layout decide, not the backlog, and LIMIT does not favour the"
    echo "  index scan when the estimate is below the limit."
    echo
    echo "<details><summary>Plans (EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE sweep(now, now − 5 years, limit); auto_explain of one batch of ttl_sweep)</summary>"
    echo
    for s in $TTL_STATES; do
        for v in batch all; do
            [[ -f $OUT/ttl/explain.$s.$v.txt ]] || continue
            echo "#### $(ttl_state_label "$s"): $(if [[ $v == batch ]]; then echo "one batch"; else echo "whole backlog"; fi)"
            echo
            echo '```'
            cat "$OUT/ttl/explain.$s.$v.txt"
            echo '```'
            echo
        done
    done
    echo "#### auto_explain of \`singletable.ttl_sweep('$TTL_TABLE', max_items => $TTL_BATCH)\` ($(ttl_state_label tenth); rolled back)"
    echo
    echo '```'
    cat "$OUT/ttl/auto_explain.plan.txt"
    echo '```'
    echo "</details>"
    echo
    echo "### get_item during the background sweep"
    echo
    echo "get_item of random live items ([scripts/get_ext.sql]($REPORT_LINKBASE/scripts/get_ext.sql) on \`$TTL_TABLE\`), pgbench \`-M prepared\`,"
    echo "$CLIENTS clients, \`--random-seed=$SEED\` (every run gets the same keys), $TTL_SECS s per run, $TTL_ROUNDS rounds of A, B and C:"
    echo "A, B, C in odd rounds and C, B, A in even ones. Before each round $TTL_SWEEP_EXPIRED expired items are inserted ($TTL_SWEEP_PER per"
    echo "collection, \`METRICS#000\`…, one set-based INSERT: the same rows every round, after the previous round's"
    echo "sweep deleted them); before each run VACUUM and CHECKPOINT. **The sweep is made to last by its"
    echo "size**: $TTL_SWEEP_EXPIRED expired items, $(awk -v a="$TTL_SWEEP_EXPIRED" -v b="$TTL_EXPIRED" 'BEGIN { printf "%g", a / b }')× the $TTL_EXPIRED of the other tests (at the rate measured"
    echo "above without other load, $(fmt2 "$(calc "$TTL_SWEEP_EXPIRED / $(awk '{ print $1 / $2 }' <<<"${TTL[worker]}")")") s of sweeping), at the default \`ttl_batch_size\` ($TTL_BATCH) and"
    echo "\`ttl_interval\` = 1 s as above; nothing else is changed."
    echo
    echo "* A: no sweep (\`ttl_enabled = off\`: the expired items wait)."
    echo "* B: $TTL_ON_AFTER s after pgbench starts, the runner switches the workers on (\`ALTER SYSTEM\`, reload), and"
    echo "  they sweep the $TTL_SWEEP_EXPIRED items while the gets run; the workers are switched off once the"
    echo "  backlog is 0."
    echo "* C, a control: no sweep, but $TTL_ON_AFTER s after pgbench starts one more backend runs a CPU loop"
    echo "  (\`DO \$\$ BEGIN LOOP PERFORM 1; END LOOP; END \$\$\` until the end of the run, \`statement_timeout\`):"
    echo "  as busy as the sweeping worker, without reading or writing the table. On this VM a busy vCPU"
    echo "  makes pgbench's ping-pong with its backends faster, not slower (the idle vCPUs halt between"
    echo "  messages otherwise, see the latency section of the full report), so B/A mixes that gain with"
    echo "  what the sweep costs the gets; B/C compares the sweep with an equally busy machine."
    echo "* The figure is the throughput **during the sweep**: the transactions completed (pgbench's"
    echo "  per-transaction log, \`--log\`) between the reload and the end of the worker's sweep that"
    echo "  deleted the last expired item (or the end of the run, if sooner), per second; for A and C, over"
    echo "  the same offsets from the start of their runs. Whole-run tps are shown too."
    echo
    echo "| round | sweep window s (items swept, worker sweeps) | A tps (no sweep) | B tps (during the sweep) | C tps (busy loop) | B/A | B/C | whole run A / B / C tps |"
    echo "|---|---|---|---|---|---|---|---|"
    for ((r = 1; r <= TTL_ROUNDS; r++)); do
        read -r items secs k over <<<"${TTL[sweep.$r]}"
        echo "| $r | $(fmt2 "$(csv_get ttl get_during_sweep all "$r" window_seconds)") ($items in $(fmt2 "$secs") s, $k)$( ((over)) && echo "; the sweep outlasted the run") | $(fmt0 "$(csv_get ttl get_during_sweep A "$r" window_tps)") | $(fmt0 "$(csv_get ttl get_during_sweep B "$r" window_tps)") | $(fmt0 "$(csv_get ttl get_during_sweep C "$r" window_tps)") | $(fmt2 "$(csv_get ttl get_during_sweep B/A "$r" window_ratio)") | $(fmt2 "$(csv_get ttl get_during_sweep B/C "$r" window_ratio)") | $(fmt0 "$(csv_get ttl get_during_sweep A "$r" run_tps)") / $(fmt0 "$(csv_get ttl get_during_sweep B "$r" run_tps)") / $(fmt0 "$(csv_get ttl get_during_sweep C "$r" run_tps)") |"
    done
    echo
    for side in A B C; do
        read -r mn md mx <<<"${TTL[$side]}"
        echo "* $side: median **$(fmt0 "$md")** tps during the window (min $(fmt0 "$mn"), max $(fmt0 "$mx"))"
    done
    read -r mn md mx <<<"${TTL[ratio]}"
    echo
    echo "**B/A = $(fmt2 "${TTL[median_ratio]}")** (ratio of the medians; target ≥ $TARGET_TTL_GET: $(mark "${TTL[median_ratio]}" "$TARGET_TTL_GET")). Per round B/A: min $(fmt2 "$mn"),"
    read -r mn md mx <<<"${TTL[cratio]}"
    echo "median $(fmt2 "$(awk '{ print $2 }' <<<"${TTL[ratio]}")"), max $(fmt2 "$(awk '{ print $3 }' <<<"${TTL[ratio]}")"). **B/C = $(fmt2 "${TTL[median_cratio]}")** (ratio of the medians; per round min $(fmt2 "$mn"), median $(fmt2 "$md"), max $(fmt2 "$mx"))."
    echo "Server CPU per get (whole runs; the worker's and the loop's CPU included in B and C): A $(fmt2 "$(awk '{ print $2 }' <<<"${TTL[A.cpu]}")"),"
    echo "B $(fmt2 "$(awk '{ print $2 }' <<<"${TTL[B.cpu]}")"), C $(fmt2 "$(awk '{ print $2 }' <<<"${TTL[C.cpu]}")") µs (medians). Sweep rate under this load: $(fmt0 "$(awk -F, '$1 == "ttl" && $2 == "get_during_sweep" && $3 == "B" && $5 == "sweep_items" { n += $6 } $1 == "ttl" && $2 == "get_during_sweep" && $3 == "B" && $5 == "sweep_seconds" { s += $6 } END { print (s ? n / s : 0) }' "$RES")") items/s"
    echo "(all B rounds). While it sweeps, a worker runs batch after batch with no pause (there is no"
    echo "cost-based delay as autovacuum has): on this $(nproc)-core machine it takes a CPU for the whole sweep."
    read -r mn md mx <<<"$(awk -F, '$1 == "cpu" && index($2, "ttl.get.") == 1 && $5 == "foreign_cpu_share" { print ($6 < 0 ? 0 : $6 * 100) }' "$RES" |
        sort -g | awk '{ v[NR] = $1 } END { printf "%.1f %.1f %s\n", v[1], v[int((NR + 1) / 2)], v[NR] }')"
    echo "Other load: processes other than the server and pgbench used a median $md%, at most $(fmt0 "$mx")%, of"
    echo "the machine's CPU during these runs (whole runs; each run waits for an idle machine first, up to 20 s)."
    if [[ -s $OUT/ttl/activity.txt ]]; then
        echo "The workers as pg_stat_activity shows them 0.3 s after switching them on, in the last B run (backend_type, state, query):"
        echo
        echo '```'
        cat "$OUT/ttl/activity.txt"
        echo '```'
    fi
    echo
}

# ---------------------------------------------------------------------------------------
# Build, private installation, server
# ---------------------------------------------------------------------------------------
((EUID == 0)) || die "run as root (it installs packages and starts the server as user postgres)"
(st_install_deps) || die "installing dependencies failed"
if ! command -v gnuplot >/dev/null 2>&1; then
    log "installing gnuplot-nox (for the latency plot)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gnuplot-nox >/dev/null 2>&1 ||
        { apt-get update >/dev/null 2>&1 &&
          DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gnuplot-nox >/dev/null; } ||
        log "gnuplot-nox could not be installed: no plot"
fi
PERF_OK=0
if command -v perf >/dev/null 2>&1 && perf record -e cpu-clock -o /dev/null true >/dev/null 2>&1; then
    PERF_OK=1
fi

WORK=$(mktemp -d /tmp/singletable-bench.XXXXXX)
chmod 755 "$WORK"
bench_cleanup() {
    st_stop_server
    if [[ ${BENCH_KEEP:-0} == 1 ]]; then
        echo "work directory kept: $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap bench_cleanup EXIT

OUT=$BENCH/out/raw
rm -rf "$OUT"
mkdir -p "$OUT/pgbench" "$OUT/lat" "$OUT/scripts" "$OUT/perf" "$RESULTS_DIR"
RES=$RESULTS_DIR/results.csv
echo "section,name,variant,round,metric,value" >"$RES"

# The sources: a commit (BENCH_REF) or the work tree (tracked and untracked, not ignored files).
mkdir -p "$WORK/src"
if [[ -n ${BENCH_REF:-} ]]; then
    SRC_DESC="git archive of $(git -C "$REPO" rev-parse --short "$BENCH_REF") ($BENCH_REF: $(git -C "$REPO" log -1 --format=%s "$BENCH_REF"))"
    git -C "$REPO" archive "$BENCH_REF" | tar -x -C "$WORK/src"
elif git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
    dirty=""
    [[ -n $(git -C "$REPO" status --porcelain -- . ':!test/bench') ]] && dirty=" with uncommitted changes"
    SRC_DESC="work tree at $(git -C "$REPO" rev-parse --short HEAD)$dirty"
    (cd "$REPO" && git ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' f; do [[ -e $f ]] && printf '%s\0' "$f"; done |
        tar --null -T - -c) | tar -x -C "$WORK/src"
else
    SRC_DESC="work tree (not a git repository)"
    cp -a "$REPO/." "$WORK/src/"
fi

# A private copy of the PostgreSQL installation: PostgreSQL finds its lib/ and share/ relative
# to its binaries, so `make install DESTDIR=$STAGE` puts the extension into this copy only.
STAGE=$WORK/pg
SYS_BINDIR=$("$SYS_PG_CONFIG" --bindir)
SYS_PKGLIBDIR=$("$SYS_PG_CONFIG" --pkglibdir)
SYS_SHAREDIR=$("$SYS_PG_CONFIG" --sharedir)
for d in "$(dirname "$SYS_BINDIR")" "$SYS_PKGLIBDIR" "$SYS_SHAREDIR"; do
    if [[ ! -d $STAGE$d ]]; then
        mkdir -p "$STAGE$(dirname "$d")"
        cp -a "$d" "$STAGE$d"
    fi
done
rm -f "$STAGE$SYS_PKGLIBDIR/singletable.so" "$STAGE$SYS_SHAREDIR"/extension/singletable[.-]*
rm -rf "$STAGE$SYS_PKGLIBDIR/bitcode/singletable" "$STAGE$SYS_PKGLIBDIR/bitcode/singletable.index.bc"
PG_CONFIG=$STAGE$SYS_BINDIR/pg_config
[[ $("$PG_CONFIG" --pkglibdir) == "$STAGE$SYS_PKGLIBDIR" ]] ||
    die "the copied PostgreSQL installation is not relocatable ($PG_CONFIG --pkglibdir = $("$PG_CONFIG" --pkglibdir))"

log "building the extension ($SRC_DESC) into $STAGE"
# shellcheck disable=SC2119  # no extra compiler flags
(TOP=$WORK/src PG_CONFIG=$SYS_PG_CONFIG DESTDIR=$STAGE && export DESTDIR && st_build_install) \
    >"$OUT/build.log" 2>&1 || { cat "$OUT/build.log" >&2; die "build failed"; }
[[ -f $STAGE$SYS_PKGLIBDIR/singletable.so ]] || die "the build installed no singletable.so"

server_lines=()
for s in "${SETTINGS[@]}"; do server_lines+=("${s%%|*}"); done
st_start_server "${server_lines[@]}" || die "starting the server failed"
trap bench_cleanup EXIT   # st_start_server set its own; ours stops the server too
PSQL=("$PGBIN/psql" -X -v ON_ERROR_STOP=1)

if [[ $ONLY == wide ]]; then
    sql "CREATE EXTENSION singletable" >/dev/null
    wide_measure
    wide_report | tee "$RESULTS_DIR/wide.md"
    log "results: $RES"
    echo "bench: done in $(($(date +%s) - START_TIME)) s"
    exit 0
fi
if [[ $ONLY == gsi ]]; then
    sql "CREATE EXTENSION singletable" >/dev/null
    sql "CREATE EXTENSION pg_prewarm" >/dev/null
    sql_file "$BENCH/sql/setup.sql" >/dev/null
    gsi_measure
    gsi_report | tee "$RESULTS_DIR/gsi.md"
    log "results: $RES"
    echo "bench: done in $(($(date +%s) - START_TIME)) s"
    exit 0
fi
if [[ $ONLY == ttl ]]; then
    sql "CREATE EXTENSION singletable" >/dev/null
    sql_file "$BENCH/sql/setup.sql" >/dev/null
    ttl_measure
    ttl_report | tee "$RESULTS_DIR/ttl.md"
    log "results: $RES"
    echo "bench: done in $(($(date +%s) - START_TIME)) s"
    exit 0
fi

# 9. What capacity tracking costs: the get, put and 30-item query pairs' extension scripts with
# singletable.track_capacity = on (A: every call sizes what it reads and writes, keeps the
# session's last ConsumedCapacity and counts into table_stats, here in shared memory: the
# server preloads the library) and off (C: nothing of that), and the hand-written SQL (B), on
# the pairs table (PAIR_ITEMS items), ROUNDS rounds with the order of A, C, B rotating. Sets
# CAP_TPS[name.variant] (median tps) and CAP_RATIO[name.A/C|A/B|C/B] (median of the rounds).
declare -A CAP_TPS CAP_RATIO
TARGET_CAP_RATIO=0.95   # with tracking >= 0.95x without (tps, median of the rounds)
capacity_measure() {
    local name a b prep plabel r i v t order tag sa sb ncoll=$((PAIR_ITEMS / 100))
    declare -A samples ratios
    log "capacity: loading pairs ($PAIR_ITEMS items)"
    sql "SELECT singletable.create_table('pairs')" >/dev/null
    sql "INSERT INTO pairs SELECT * FROM bench_rows($ncoll)" >/dev/null
    sql "VACUUM ANALYZE pairs" >/dev/null
    sql "SELECT pg_prewarm('pairs'), pg_prewarm('pairs_pkey')" >/dev/null
    for p in "${PAIRS[@]}"; do
        IFS='|' read -r name a b _ prep plabel <<<"$p"
        [[ $name == get || $name == put || $name == query30 ]] || continue
        sa=$(script_for "$a" pairs "$ncoll")
        sb=$(script_for "$b" pairs "$ncoll")
        for ((r = 1; r <= ROUNDS; r++)); do
            order=("A C B" "C B A" "B A C")
            declare -A tps=()
            for v in ${order[$(((r - 1) % 3))]}; do
                prep_run "$prep" pairs
                tag="capacity.$name.$v.$r"
                case $v in
                    A) t=$(RUN_PGOPTIONS="-c singletable.track_capacity=on" pgbench_run "$tag" "$sa" "$CLIENTS" "$SECS" auto) ;;
                    C) t=$(RUN_PGOPTIONS="-c singletable.track_capacity=off" pgbench_run "$tag" "$sa" "$CLIENTS" "$SECS" auto) ;;
                    B) t=$(pgbench_run "$tag" "$sb" "$CLIENTS" "$SECS" auto) ;;
                esac
                tps[$v]=$t
                samples[$name.$v]+=" $t"
                res capacity "$name" "$v" "$r" tps "$t"
            done
            for i in A/C A/B C/B; do
                t=$(calc "${tps[${i%/*}]} / ${tps[${i#*/}]}")
                ratios[$name.$i]+=" $t"
                res capacity "$name" "$i" "$r" ratio "$t"
            done
            log "capacity $name round $r/$ROUNDS: on $(fmt0 "${tps[A]}"), off $(fmt0 "${tps[C]}"), sql $(fmt0 "${tps[B]}") tps"
        done
        for v in A B C; do
            # shellcheck disable=SC2086
            read -r _ CAP_TPS[$name.$v] _ <<<"$(mmm ${samples[$name.$v]})"
        done
        for i in A/C A/B C/B; do
            # shellcheck disable=SC2086
            read -r _ CAP_RATIO[$name.$i] _ <<<"$(mmm ${ratios[$name.$i]})"
            res capacity "$name" "$i" all ratio_median "${CAP_RATIO[$name.$i]}"
        done
    done
}
capacity_report() {
    echo "## Capacity tracking"
    echo
    echo "The pairs' extension scripts with \`singletable.track_capacity\` on (A: sizes, ConsumedCapacity,"
    echo "table_stats in shared memory) and off (C), and the hand-written SQL (B); $PAIR_ITEMS items, $CLIENTS clients,"
    echo "$ROUNDS rounds of $SECS s, the order of A, C and B rotating; medians. Target: A/C >= $TARGET_CAP_RATIO."
    echo
    echo "| pair | A on (tps) | C off (tps) | B SQL (tps) | A/C | A/B | C/B | target |"
    echo "|---|---|---|---|---|---|---|---|"
    for name in get put query30; do
        echo "| $name | $(fmt0 "${CAP_TPS[$name.A]}") | $(fmt0 "${CAP_TPS[$name.C]}") | $(fmt0 "${CAP_TPS[$name.B]}") | $(fmt2 "${CAP_RATIO[$name.A/C]}") | $(fmt2 "${CAP_RATIO[$name.A/B]}") | $(fmt2 "${CAP_RATIO[$name.C/B]}") | $(mark "${CAP_RATIO[$name.A/C]}" "$TARGET_CAP_RATIO") |"
    done
    echo
}
if [[ $ONLY == capacity ]]; then
    st_restart_server "shared_preload_libraries = 'singletable'" "singletable.ttl_enabled = off" ||
        die "restarting the server with the library preloaded failed"
    sql "CREATE EXTENSION singletable" >/dev/null
    sql "CREATE EXTENSION pg_prewarm" >/dev/null
    sql_file "$BENCH/sql/setup.sql" >/dev/null
    capacity_measure
    capacity_report | tee "$RESULTS_DIR/capacity.md"
    log "results: $RES"
    echo "bench: done in $(($(date +%s) - START_TIME)) s"
    exit 0
fi
# 10. Batches: batch_write of 25 puts (A) against the hand-written multi-row upsert of the
# same items (B), 25 put_item statements, each its own transaction (C), and the 25 put_item
# calls in one statement (D); batch_get of 100 keys against the hand-written join of the keys
# with the table (B), 100 get_item statements (C) and the 100 calls in one statement (D).
# Every variant takes the same items from the same row of batch_reqs (sql/batch.sql: 1,000
# prebuilt requests whose keys are spread over the pairs table, PAIR_ITEMS items), ROUNDS
# rounds of SECS s with the order rotating, CLIENTS clients. One pgbench transaction is one
# script: 25 (100) items in every variant, so tps ratios are ratios of items per second. Sets
# BATCH_TPS[kind.variant] (median tps), BATCH_RATIO[kind.A/x] (median of the rounds) and
# BATCH_CPU[kind.variant] (median server + pgbench CPU per transaction, µs: on a machine that
# others use too, what each variant costs rather than what it got).
declare -A BATCH_TPS BATCH_RATIO BATCH_CPU
TARGET_BATCH_SQL=0.8    # batch_write >= 0.8x the hand-written multi-row upsert
TARGET_BATCH_CALLS=5    # batch_write >= 5x the 25 single put_item statements
# script_repeat NAME TABLE NCOLL N: script NAME with every line that holds @I@ repeated for
# I = 0..N-1 (one statement per key); prints its path
script_repeat() {
    local src out
    src=$(script_for "$1" "$2" "$3")
    out="${src%.sql}.x$4.sql"
    awk -v n="$4" '/@I@/ { for (i = 0; i < n; i++) { l = $0; gsub(/@I@/, i, l); print l }; next } { print }' "$src" >"$out"
    echo "$out"
}
batch_measure() {
    local kind r v t order tag prep ncoll=$((PAIR_ITEMS / 100)) n
    declare -A scripts samples ratios tps
    log "batch: loading pairs ($PAIR_ITEMS items)"
    sql "SELECT singletable.create_table('pairs')" >/dev/null
    sql "INSERT INTO pairs SELECT * FROM bench_rows($ncoll)" >/dev/null
    sql "VACUUM ANALYZE pairs" >/dev/null
    sql "SELECT pg_prewarm('pairs'), pg_prewarm('pairs_pkey')" >/dev/null
    sql_file "$BENCH/sql/batch.sql" >/dev/null
    sql "SELECT bench_batch_requests('pairs', $ncoll)" >/dev/null
    sql "VACUUM ANALYZE batch_reqs" >/dev/null
    scripts[write.A]=$(script_for batch_write_ext pairs "$ncoll")
    scripts[write.B]=$(script_for batch_write_sql pairs "$ncoll")
    scripts[write.C]=$(script_repeat batch_put_one pairs "$ncoll" 25)
    scripts[write.D]=$(script_for batch_put_calls pairs "$ncoll")
    scripts[read.A]=$(script_for batch_get_ext pairs "$ncoll")
    scripts[read.B]=$(script_for batch_get_sql pairs "$ncoll")
    scripts[read.C]=$(script_repeat batch_get_one pairs "$ncoll" 100)
    scripts[read.D]=$(script_for batch_get_calls pairs "$ncoll")
    # the requests name existing items, 25 and 100 distinct keys each
    n=$(sql "SELECT count(*) FROM batch_reqs r
              WHERE jsonb_array_length(singletable.batch_get(r.get_req) -> 'Responses' -> 'pairs') = 100
                AND (SELECT count(*) FROM pairs p JOIN unnest(r.pks, r.sks) u(pk, sk) ON p.pk = u.pk AND p.sk = u.sk) = 25")
    [[ $n == 1000 ]] || die "batch: only $n of the 1000 requests name 100 (25) existing items"
    for kind in write read; do
        prep=read
        [[ $kind == write ]] && prep=write
        for ((r = 1; r <= ROUNDS; r++)); do
            order=("A B C D" "B C D A" "C D A B" "D A B C")
            tps=()
            for v in ${order[$(((r - 1) % 4))]}; do
                prep_run "$prep" pairs
                tag="batch.$kind.$v.$r"
                t=$(pgbench_run "$tag" "${scripts[$kind.$v]}" "$CLIENTS" "$SECS" auto)
                tps[$v]=$t
                samples[$kind.$v]+=" $t"
                res batch "$kind" "$v" "$r" tps "$t"
            done
            for v in B C D; do
                t=$(calc "${tps[A]} / ${tps[$v]}")
                ratios[$kind.A/$v]+=" $t"
                res batch "$kind" "A/$v" "$r" ratio "$t"
            done
            log "batch $kind round $r/$ROUNDS: batch $(fmt0 "${tps[A]}"), sql $(fmt0 "${tps[B]}"), statements $(fmt0 "${tps[C]}"), calls $(fmt0 "${tps[D]}") tps"
        done
        for v in A B C D; do
            # shellcheck disable=SC2086
            read -r _ BATCH_TPS[$kind.$v] _ <<<"$(mmm ${samples[$kind.$v]})"
            # shellcheck disable=SC2046
            read -r _ BATCH_CPU[$kind.$v] _ <<<"$(mmm $(for ((r = 1; r <= ROUNDS; r++)); do
                calc "$(csv_get cpu "batch.$kind.$v.$r" all all server_cpu_us_per_txn) + $(csv_get cpu "batch.$kind.$v.$r" all all pgbench_cpu_s) / $(csv_get cpu "batch.$kind.$v.$r" all all transactions) * 1000000"
            done))"
            res batch "$kind" "$v" all cpu_us_per_txn_median "${BATCH_CPU[$kind.$v]}"
        done
        for v in B C D; do
            # shellcheck disable=SC2086
            read -r _ BATCH_RATIO[$kind.A/$v] _ <<<"$(mmm ${ratios[$kind.A/$v]})"
            res batch "$kind" "A/$v" all ratio_median "${BATCH_RATIO[$kind.A/$v]}"
        done
    done
}
batch_report() {
    local kind n t
    echo "## Batches"
    echo
    echo "batch_write of 25 puts and batch_get of 100 keys (A) against the hand-written statement of the"
    echo "same items (B: a multi-row \`INSERT … SELECT … ON CONFLICT (pk, sk) DO UPDATE\`; a join of the keys"
    echo "with the table), one single-item call per statement and transaction (C: 25 \`put_item\`, 100"
    echo "\`get_item\` statements) and the single-item calls in one statement (D: one round trip). Every"
    echo "variant takes the same items from one of 1,000 prebuilt requests (\`test/bench/sql/batch.sql\`;"
    echo "keys spread over $PAIR_ITEMS items); $CLIENTS clients, $ROUNDS rounds of $SECS s, the order rotating;"
    echo "medians. A pgbench transaction is one script (25 or 100 items), so the ratios are ratios of items"
    echo "per second. CPU is the server's and pgbench's per transaction (what a variant costs, whatever"
    echo "else the machine runs). Targets: write A/B >= $TARGET_BATCH_SQL, write A/C >= $TARGET_BATCH_CALLS."
    echo
    echo "| kind | items | A batch (tps) | B SQL (tps) | C statements (tps) | D calls (tps) | A/B | A/C | A/D | CPU µs A / B / C / D | CPU A/B | CPU A/C | targets |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for kind in write read; do
        n=25
        [[ $kind == read ]] && n=100
        if [[ $kind == write ]]; then
            t="A/B $(mark "${BATCH_RATIO[write.A/B]}" "$TARGET_BATCH_SQL"), A/C $(mark "${BATCH_RATIO[write.A/C]}" "$TARGET_BATCH_CALLS")"
        else
            t="—"
        fi
        echo "| $kind | $n | $(fmt0 "${BATCH_TPS[$kind.A]}") | $(fmt0 "${BATCH_TPS[$kind.B]}") | $(fmt0 "${BATCH_TPS[$kind.C]}") | $(fmt0 "${BATCH_TPS[$kind.D]}") | $(fmt2 "${BATCH_RATIO[$kind.A/B]}") | $(fmt2 "${BATCH_RATIO[$kind.A/C]}") | $(fmt2 "${BATCH_RATIO[$kind.A/D]}") | $(fmt0 "${BATCH_CPU[$kind.A]}") / $(fmt0 "${BATCH_CPU[$kind.B]}") / $(fmt0 "${BATCH_CPU[$kind.C]}") / $(fmt0 "${BATCH_CPU[$kind.D]}") | $(fmt2 "$(calc "${BATCH_CPU[$kind.B]} / ${BATCH_CPU[$kind.A]}")") | $(fmt2 "$(calc "${BATCH_CPU[$kind.C]} / ${BATCH_CPU[$kind.A]}")") | $t |"
    done
    echo
    echo "Foreign CPU (other processes on the machine) during the runs, median share of all cores: $(fmt2 "$(mmm $(awk -F, '$5 == "foreign_cpu_share" && $2 ~ /^batch\./ { print $6 }' "$RES") | awk '{ print $2 }')")."
    echo
}
if [[ $ONLY == batch ]]; then
    sql "CREATE EXTENSION singletable" >/dev/null
    sql "CREATE EXTENSION pg_prewarm" >/dev/null
    sql_file "$BENCH/sql/setup.sql" >/dev/null
    batch_measure
    batch_report | tee "$RESULTS_DIR/batch.md"
    log "results: $RES"
    echo "bench: done in $(($(date +%s) - START_TIME)) s"
    exit 0
fi

# Hot keys (issue 25): what recording the partition key of every access costs. The get and put
# pairs' extension scripts with singletable.track_hot_keys = on (A: each call hashes its key and
# counts it in its table's Space-Saving sketch in shared memory: the server preloads the
# library) and off (C), on the pairs table (PAIR_ITEMS items; random keys over all of it, so
# the sketch is full and almost every call replaces its least counter, the dearest case),
# ROUNDS rounds with A and C alternating in the same run. Sets HOT_TPS[name.variant] (median
# tps), HOT_RATIO[name] (median of the rounds' A/C) and HOT_CPU[name.variant] (median server +
# pgbench CPU per transaction, µs).
# On a shared 2-core machine the tps of 10 s runs vary by more than the 3% to be measured, so
# first the same in one backend: HOT_CALLS get_item calls of the get script's random keys in
# one statement, on and off alternating over ROUNDS rounds, each timed by the backend's own CPU
# time (utime + stime of /proc/self/stat, read with pg_read_file: 10 ms ticks), which other
# processes on the machine do not inflate. Sets HOT_INPROC[on|off] (median µs per call) and
# HOT_INPROC_RATIO (median of the rounds' off/on).
declare -A HOT_TPS HOT_RATIO HOT_CPU HOT_INPROC
TARGET_HOT_RATIO=0.97   # with hot keys >= 0.97x without (tps, CPU): overhead <= 3%
HOT_CALLS=${BENCH_HOT_CALLS:-300000}
hot_keys_inproc() {
    local ncoll=$1 r v t order
    declare -A samples
    local ratios=""
    sql "CREATE FUNCTION bench_cpu_ticks() RETURNS bigint LANGUAGE sql AS
         \$\$ SELECT split_part(s, ' ', 12)::bigint + split_part(s, ' ', 13)::bigint
              FROM (SELECT split_part(pg_read_file('/proc/self/stat'), ') ', 2) AS s) x \$\$" >/dev/null
    for ((r = 1; r <= ROUNDS; r++)); do
        order=("on off" "off on")
        declare -A us=()
        for v in ${order[$(((r - 1) % 2))]}; do
            # the fields after "(comm) ": utime and stime are the 12th and 13th
            t=$("${PSQL[@]}" -q -At -f - <<<"SET singletable.track_hot_keys = $v;
                     SELECT setseed(0.5);
                     SELECT bench_cpu_ticks() AS t0 \\gset
                     SELECT count(singletable.get_item('pairs', 'USER#' || (10000000 + floor(random() * $ncoll)::int)::text,
                                                   CASE WHEN j < 130 THEN 'ORDER#' ELSE 'POST#' END || j::text))
                       FROM (SELECT 100 + floor(random() * 100)::int AS j FROM generate_series(1, $HOT_CALLS)) g \\g /dev/null
                     SELECT (bench_cpu_ticks() - :t0) * 1000000.0 / $CLK_TCK / $HOT_CALLS;" | tail -1) ||
                die "hot_keys: the in-process run failed"
            us[$v]=$t
            samples[$v]+=" $t"
            res hot_keys inproc "$v" "$r" cpu_us_per_call "$t"
        done
        t=$(calc "${us[off]} / ${us[on]}")
        ratios+=" $t"
        res hot_keys inproc off/on "$r" ratio "$t"
        log "hot_keys in-process round $r/$ROUNDS: on $(fmt2 "${us[on]}"), off $(fmt2 "${us[off]}") µs CPU per get_item, off/on $(fmt2 "$t")"
    done
    for v in on off; do
        # shellcheck disable=SC2086
        read -r _ HOT_INPROC[$v] _ <<<"$(mmm ${samples[$v]})"
    done
    # shellcheck disable=SC2086
    read -r _ HOT_INPROC_RATIO _ <<<"$(mmm $ratios)"
    res hot_keys inproc off/on all ratio_median "$HOT_INPROC_RATIO"
}
hot_keys_measure() {
    local name a prep r v t order tag sa ncoll=$((PAIR_ITEMS / 100))
    declare -A samples ratios tps
    log "hot_keys: loading pairs ($PAIR_ITEMS items)"
    sql "SELECT singletable.create_table('pairs')" >/dev/null
    sql "INSERT INTO pairs SELECT * FROM bench_rows($ncoll)" >/dev/null
    sql "VACUUM ANALYZE pairs" >/dev/null
    sql "SELECT pg_prewarm('pairs'), pg_prewarm('pairs_pkey')" >/dev/null
    hot_keys_inproc "$ncoll"
    [[ ${BENCH_HOT_PAIRS:-1} == 1 ]] || return 0
    for p in "${PAIRS[@]}"; do
        IFS='|' read -r name a _ _ prep _ <<<"$p"
        [[ $name == get || $name == put ]] || continue
        sa=$(script_for "$a" pairs "$ncoll")
        for ((r = 1; r <= ROUNDS; r++)); do
            order=("A C" "C A")
            tps=()
            for v in ${order[$(((r - 1) % 2))]}; do
                prep_run "$prep" pairs
                tag="hot_keys.$name.$v.$r"
                case $v in
                    A) t=$(RUN_PGOPTIONS="-c singletable.track_hot_keys=on" pgbench_run "$tag" "$sa" "$CLIENTS" "$SECS" auto) ;;
                    C) t=$(RUN_PGOPTIONS="-c singletable.track_hot_keys=off" pgbench_run "$tag" "$sa" "$CLIENTS" "$SECS" auto) ;;
                esac
                tps[$v]=$t
                samples[$name.$v]+=" $t"
                res hot_keys "$name" "$v" "$r" tps "$t"
            done
            t=$(calc "${tps[A]} / ${tps[C]}")
            ratios[$name]+=" $t"
            res hot_keys "$name" A/C "$r" ratio "$t"
            log "hot_keys $name round $r/$ROUNDS: on $(fmt0 "${tps[A]}"), off $(fmt0 "${tps[C]}") tps, A/C $(fmt2 "$t")"
        done
        for v in A C; do
            # shellcheck disable=SC2086
            read -r _ HOT_TPS[$name.$v] _ <<<"$(mmm ${samples[$name.$v]})"
            # shellcheck disable=SC2046
            read -r _ HOT_CPU[$name.$v] _ <<<"$(mmm $(for ((r = 1; r <= ROUNDS; r++)); do
                calc "$(csv_get cpu "hot_keys.$name.$v.$r" all all server_cpu_us_per_txn) + $(csv_get cpu "hot_keys.$name.$v.$r" all all pgbench_cpu_s) / $(csv_get cpu "hot_keys.$name.$v.$r" all all transactions) * 1000000"
            done))"
            res hot_keys "$name" "$v" all cpu_us_per_txn_median "${HOT_CPU[$name.$v]}"
        done
        # shellcheck disable=SC2086
        read -r _ HOT_RATIO[$name] _ <<<"$(mmm ${ratios[$name]})"
        res hot_keys "$name" A/C all ratio_median "${HOT_RATIO[$name]}"
        # what the sketch saw (read before the windows of the get runs end)
        [[ $name == get ]] && HOT_TOP=$(sql "SELECT partition_key || ' ' || count || ' ' || error || ' ' || round(share::numeric, 5)
                     FROM singletable.hot_keys('pairs') WHERE access = 'read' ORDER BY count DESC LIMIT 1")
    done
}
hot_keys_report() {
    local name
    echo "## Hot keys"
    echo
    echo "The get and put pairs' extension scripts with \`singletable.track_hot_keys\` on (A: every call"
    echo "counts its partition key in the table's sketch in shared memory) and off (C), in the same run;"
    echo "$PAIR_ITEMS items, random keys over all of them (a full sketch: nearly every call replaces its"
    echo "least counter), $CLIENTS clients, $ROUNDS rounds of $SECS s, A and C alternating; medians. CPU is the"
    echo "server's and pgbench's per transaction. Target: A/C >= $TARGET_HOT_RATIO (overhead <= 3%)."
    echo
    echo "In one backend, $HOT_CALLS \`get_item\` calls of random keys in one statement, its own CPU time,"
    echo "on and off alternating over $ROUNDS rounds (medians): on $(fmt2 "${HOT_INPROC[on]}") µs, off"
    echo "$(fmt2 "${HOT_INPROC[off]}") µs per call, off/on $(fmt2 "$HOT_INPROC_RATIO") ($(mark "$HOT_INPROC_RATIO" "$TARGET_HOT_RATIO"))."
    echo
    echo "| pair | A on (tps) | C off (tps) | A/C | CPU µs A / C | CPU C/A | target |"
    echo "|---|---|---|---|---|---|---|"
    for name in get put; do
        echo "| $name | $(fmt0 "${HOT_TPS[$name.A]}") | $(fmt0 "${HOT_TPS[$name.C]}") | $(fmt2 "${HOT_RATIO[$name]}") | $(fmt0 "${HOT_CPU[$name.A]}") / $(fmt0 "${HOT_CPU[$name.C]}") | $(fmt2 "$(calc "${HOT_CPU[$name.C]} / ${HOT_CPU[$name.A]}")") | $(mark "${HOT_RATIO[$name]}" "$TARGET_HOT_RATIO") |"
    done
    echo
    echo "The hottest read key of the pairs table after the get runs (key, count, error, share): $HOT_TOP"
    echo "(uniform random keys: every count is mostly error)."
    echo
    # shellcheck disable=SC2046
    echo "Foreign CPU (other processes on the machine) during the runs, median share of all cores: $(fmt2 "$(mmm $(awk -F, '$5 == "foreign_cpu_share" && $2 ~ /^hot_keys\./ { print $6 }' "$RES") | awk '{ print $2 }')")."
    echo
}
if [[ $ONLY == hot_keys ]]; then
    st_restart_server "shared_preload_libraries = 'singletable'" "singletable.ttl_enabled = off" ||
        die "restarting the server with the library preloaded failed"
    sql "CREATE EXTENSION singletable" >/dev/null
    sql "CREATE EXTENSION pg_prewarm" >/dev/null
    sql_file "$BENCH/sql/setup.sql" >/dev/null
    hot_keys_measure
    hot_keys_report | tee "$RESULTS_DIR/hot_keys.md"
    log "results: $RES"
    echo "bench: done in $(($(date +%s) - START_TIME)) s"
    exit 0
fi

# BENCH_ONLY=pairs: the pair comparisons of 1. alone (BENCH_PAIRS: which; default all), on the
# pairs table only, with A and B alternating as in 1.; then, for the read pairs, ROUNDS runs
# of both scripts in one pgbench run (as 10. does: the ratio of B's mean latency to A's,
# which a busy machine disturbs less than separate runs); prints each pair's rounds and the
# medians. For checking one change against the hand-written SQL in minutes (issue 26).
if [[ $ONLY == pairs ]]; then
    sql "CREATE EXTENSION singletable" >/dev/null
    sql "CREATE EXTENSION pg_prewarm" >/dev/null
    sql_file "$BENCH/sql/setup.sql" >/dev/null
    ncoll=$((PAIR_ITEMS / 100))
    log "pairs: loading pairs ($PAIR_ITEMS items)"
    sql "SELECT singletable.create_table('pairs')" >/dev/null
    sql "INSERT INTO pairs SELECT * FROM bench_rows($ncoll)" >/dev/null
    sql "VACUUM ANALYZE pairs" >/dev/null
    sql "SELECT pg_prewarm('pairs'), pg_prewarm('pairs_pkey')" >/dev/null
    echo "| pair | rounds A/B (tps) | median A/B | median A tps | median B tps | one-run rounds B/A (latency) | median |"
    echo "|---|---|---|---|---|---|---|"
    for p in "${PAIRS[@]}"; do
        IFS='|' read -r name a b need prep plabel <<<"$p"
        [[ -z $PAIRS_ONLY || " $PAIRS_ONLY " == *" $name "* ]] || continue
        [[ -z $need || $(sql "SELECT to_regproc('$need') IS NOT NULL") == t ]] || continue
        sa=$(script_for "$a" pairs "$ncoll")
        sb=$(script_for "$b" pairs "$ncoll")
        sql "VACUUM ANALYZE pairs" >/dev/null
        sql "CHECKPOINT" >/dev/null
        ratios=() atps=() btps=()
        for ((r = 1; r <= ROUNDS; r++)); do
            if ((r % 2)); then
                prep_run "$prep" pairs
                ta=$(pgbench_run "pair.$name.A.$r" "$sa" "$CLIENTS" "$SECS" auto)
                prep_run "$prep" pairs
                tb=$(pgbench_run "pair.$name.B.$r" "$sb" "$CLIENTS" "$SECS" auto)
            else
                prep_run "$prep" pairs
                tb=$(pgbench_run "pair.$name.B.$r" "$sb" "$CLIENTS" "$SECS" auto)
                prep_run "$prep" pairs
                ta=$(pgbench_run "pair.$name.A.$r" "$sa" "$CLIENTS" "$SECS" auto)
            fi
            ratio=$(calc "$ta / $tb")
            log "pair $name round $r/$ROUNDS: A $(fmt0 "$ta") tps, B $(fmt0 "$tb") tps, A/B $(fmt2 "$ratio")"
            res pair "$name" A "$r" tps "$ta"
            res pair "$name" B "$r" tps "$tb"
            res pair "$name" A/B "$r" ratio "$ratio"
            ratios+=("$ratio") atps+=("$ta") btps+=("$tb")
        done
        read -r _ md _ <<<"$(mmm "${ratios[@]}")"
        read -r _ ma _ <<<"$(mmm "${atps[@]}")"
        read -r _ mb _ <<<"$(mmm "${btps[@]}")"
        res pair "$name" A/B all ratio_median "$md"
        rr=""
        for x in "${ratios[@]}"; do rr+="$(fmt2 "$x") "; done
        # the same pair in one run, as 10. does: pgbench draws A or B for each transaction,
        # so whatever else the machine does falls on both alike; B's mean latency / A's
        mixed=()
        if [[ $prep == read ]]; then
            for ((r = 1; r <= ROUNDS; r++)); do
                tag="pair.$name.mixed.$r"
                rm -f "$OUT/pgbench/$tag.txlog".*
                # (in a command substitution, as every run of 1.: a process that exits while
                # server_ticks reads /proc must not end the script under errexit)
                ignored=$(pgbench_run "$tag" "$sa" "$CLIENTS" "$SECS" auto -f "$sb" \
                    -l --log-prefix="$OUT/pgbench/$tag.txlog")
                read -r la lb < <(cat "$OUT/pgbench/$tag.txlog".* |
                    awk '{ sum[$4] += $3; n[$4]++ }
                         END { if (n[0] && n[1]) printf "%.4f %.4f\n", sum[0] / n[0] / 1000, sum[1] / n[1] / 1000 }')
                [[ -n $la && -n $lb ]] || die "pairs: no per-script latency in $OUT/pgbench/$tag.txlog.*"
                mixed+=("$(calc "$lb / $la")")
                res pair "$name" mixed "$r" latency_ratio_b_over_a "${mixed[-1]}"
                log "pair $name one-run round $r/$ROUNDS: latency A $la ms, B $lb ms"
            done
        fi
        mr="" mm="-"
        if ((${#mixed[@]})); then
            for x in "${mixed[@]}"; do mr+="$(fmt2 "$x") "; done
            read -r _ mm _ <<<"$(mmm "${mixed[@]}")"
            res pair "$name" mixed all latency_ratio_median "$mm"
            mm=$(fmt2 "$mm")
        fi
        echo "| $name: $plabel | ${rr% } | $(fmt2 "$md") | $(fmt0 "$ma") | $(fmt0 "$mb") | ${mr% } | $mm |"
    done | tee "$RESULTS_DIR/pairs.md"
    log "results: $RES"
    echo "bench: done in $(($(date +%s) - START_TIME)) s"
    exit 0
fi

# 10. The JSON API against the native functions: singletable.dynamodb('GetItem', ...) vs
# singletable.get_item (the pair get's extension script), and ('Query', ...) vs
# singletable.query for the 30-item begins_with slice (query30's), on the pairs table
# (PAIR_ITEMS items), ROUNDS rounds with the order of D (dynamodb) and N (native) alternating.
# The JSON side parses its request, converts keys and values from AttributeValues and returns
# one response document in wire form. Sets DDB_TPS[name.variant] and DDB_RATIO[name] (D/N,
# median of the rounds).
declare -A DDB_TPS DDB_RATIO DDB_MIXED DDB_MIXED_MIN DDB_MIXED_MAX DDB_ROUNDS
TARGET_DDB_RATIO=0.85   # the JSON API >= 0.85x the native function (tps, median of the rounds)
dynamodb_measure() {
    local name n d r v t tag sn sd ld ln ncoll=$((PAIR_ITEMS / 100))
    declare -A samples ratios mixed
    log "dynamodb: loading pairs ($PAIR_ITEMS items)"
    sql "SELECT singletable.create_table('pairs')" >/dev/null
    sql "INSERT INTO pairs SELECT * FROM bench_rows($ncoll)" >/dev/null
    sql "VACUUM ANALYZE pairs" >/dev/null
    sql "SELECT pg_prewarm('pairs'), pg_prewarm('pairs_pkey')" >/dev/null
    for p in "get|get_ext|get_ddb" "query30|query_ext|query_ddb"; do
        IFS='|' read -r name n d <<<"$p"
        sn=$(script_for "$n" pairs "$ncoll")
        sd=$(script_for "$d" pairs "$ncoll")
        for ((r = 1; r <= ROUNDS; r++)); do
            declare -A tps=()
            if ((r % 2)); then order="D N"; else order="N D"; fi
            for v in $order; do
                tag="dynamodb.$name.$v.$r"
                if [[ $v == D ]]; then t=$(pgbench_run "$tag" "$sd" "$CLIENTS" "$SECS" auto)
                else t=$(pgbench_run "$tag" "$sn" "$CLIENTS" "$SECS" auto); fi
                tps[$v]=$t
                samples[$name.$v]+=" $t"
                res dynamodb "$name" "$v" "$r" tps "$t"
            done
            t=$(calc "${tps[D]} / ${tps[N]}")
            ratios[$name]+=" $t"
            res dynamodb "$name" D/N "$r" ratio "$t"
            log "dynamodb $name round $r/$ROUNDS: dynamodb $(fmt0 "${tps[D]}"), native $(fmt0 "${tps[N]}") tps"
        done
        for v in D N; do
            # shellcheck disable=SC2086
            read -r _ DDB_TPS[$name.$v] _ <<<"$(mmm ${samples[$name.$v]})"
        done
        # shellcheck disable=SC2086
        read -r _ DDB_RATIO[$name] _ <<<"$(mmm ${ratios[$name]})"
        res dynamodb "$name" D/N all ratio_median "${DDB_RATIO[$name]}"
        # The same pair in one run: both scripts, pgbench drawing one of them for each
        # transaction, so whatever else the machine does in those seconds falls on both alike
        # (the runs above compare seconds apart, and the machine changes in between). The
        # ratio of the two scripts' average latencies, N/D, is what each one's cost gives.
        # The averages come from pgbench's log of every transaction (-l), in microseconds: the
        # summary prints them rounded to 1 µs, which is 0.5% of a Query's and over 1% of a
        # GetItem's latency. Writing the log costs pgbench the same for either script.
        for ((r = 1; r <= ROUNDS; r++)); do
            tag="dynamodb.$name.mixed.$r"
            rm -f "$OUT/pgbench/$tag.txlog".*
            pgbench_run "$tag" "$sd" "$CLIENTS" "$SECS" auto -f "$sn" \
                -l --log-prefix="$OUT/pgbench/$tag.txlog" >/dev/null
            # a log line: client, transaction, latency (µs), script (0: D, 1: N), epoch s, µs
            read -r ld ln < <(cat "$OUT/pgbench/$tag.txlog".* |
                awk '{ sum[$4] += $3; n[$4]++ }
                     END { if (n[0] && n[1]) printf "%.4f %.4f\n", sum[0] / n[0] / 1000, sum[1] / n[1] / 1000 }')
            [[ -n $ld && -n $ln ]] || die "dynamodb: no per-script latency in $OUT/pgbench/$tag.txlog.*"
            t=$(calc "$ln / $ld")
            mixed[$name]+=" $t"
            res dynamodb "$name" mixed "$r" latency_ratio "$t"
            log "dynamodb $name one-run round $r/$ROUNDS: latency dynamodb $ld ms, native $ln ms"
        done
        # shellcheck disable=SC2086
        read -r DDB_MIXED_MIN[$name] DDB_MIXED[$name] DDB_MIXED_MAX[$name] <<<"$(mmm ${mixed[$name]})"
        DDB_ROUNDS[$name]=${ratios[$name]}
        res dynamodb "$name" mixed all latency_ratio_median "${DDB_MIXED[$name]}"
    done
}
dynamodb_report() {
    echo "## The JSON API: singletable.dynamodb vs the native functions"
    echo
    echo "\`singletable.dynamodb('GetItem', ...)\` vs \`singletable.get_item\` and \`('Query', ...)\` vs \`singletable.query\`"
    echo "(the 30-item begins_with slice); $PAIR_ITEMS items, $CLIENTS clients, $ROUNDS rounds of $SECS s, the order"
    echo "alternating; medians. Target: D/N >= $TARGET_DDB_RATIO."
    echo
    echo "| pair | D dynamodb (tps) | N native (tps) | D/N | rounds | target | D/N in one run (min–max) | target |"
    echo "|---|---|---|---|---|---|---|---|"
    for name in get query30; do
        echo "| $name | $(fmt0 "${DDB_TPS[$name.D]}") | $(fmt0 "${DDB_TPS[$name.N]}") | $(fmt2 "${DDB_RATIO[$name]}") |$(for t in ${DDB_ROUNDS[$name]}; do printf ' %s' "$(fmt2 "$t")"; done) | $(mark "${DDB_RATIO[$name]}" "$TARGET_DDB_RATIO") | $(fmt2 "${DDB_MIXED[$name]}") ($(fmt2 "${DDB_MIXED_MIN[$name]}")–$(fmt2 "${DDB_MIXED_MAX[$name]}")) | $(mark "${DDB_MIXED[$name]}" "$TARGET_DDB_RATIO") |"
    done
    echo
    echo "\"D/N\" is the median of the rounds' tps ratios, D and N run one after the other. \"In one run\":"
    echo "both scripts in the same pgbench run ($ROUNDS runs of $SECS s), pgbench drawing one for each"
    echo "transaction; the figure is N's average latency over D's, median of the runs. It compares the two"
    echo "under the same conditions, so it varies far less from run to run on a shared machine."
    echo
}
if [[ $ONLY == dynamodb ]]; then
    sql "CREATE EXTENSION singletable" >/dev/null
    sql "CREATE EXTENSION pg_prewarm" >/dev/null
    sql_file "$BENCH/sql/setup.sql" >/dev/null
    dynamodb_measure
    dynamodb_report | tee "$RESULTS_DIR/dynamodb.md"
    log "results: $RES"
    echo "bench: done in $(($(date +%s) - START_TIME)) s"
    exit 0
fi

# ---------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------
sql "CREATE EXTENSION singletable" >/dev/null
sql "CREATE EXTENSION pg_prewarm" >/dev/null
sql_file "$BENCH/sql/setup.sql"

# load TABLE ITEMS: create_table + one set-based INSERT in primary-key order
load_table() {
    local table=$1 items=$2 t0 t1
    log "loading $table: $items items"
    t0=$(date +%s.%N)
    sql "SELECT singletable.create_table('$table')" >/dev/null
    sql "INSERT INTO $table SELECT * FROM bench_rows($((items / 100)))" >/dev/null
    t1=$(date +%s.%N)
    res load "$table" "$items" all seconds "$(calc "$t1 - $t0")"
}

TABLES=()
load_table pairs "$PAIR_ITEMS"
TABLES+=(pairs)
log "loading wide: 100,000 items in 1,000 collections + the 100,000-item collection $WIDE_PK"
sql "SELECT singletable.create_table('wide')" >/dev/null
sql "INSERT INTO wide SELECT * FROM bench_rows(1000)" >/dev/null
sql "INSERT INTO wide SELECT * FROM bench_wide_rows('$WIDE_PK')" >/dev/null
TABLES+=(wide)
for n in $SIZES; do
    load_table "size_$(label "$n")" "$n"
    TABLES+=("size_$(label "$n")")
done
log "VACUUM ANALYZE"
for t in "${TABLES[@]}"; do sql "VACUUM ANALYZE $t" >/dev/null; done
[[ $(sql "SELECT count(*) FROM pairs") == "$PAIR_ITEMS" ]] || die "pairs: wrong item count"
for n in $SIZES; do
    [[ $(sql "SELECT count(*) FROM size_$(label "$n")") == "$n" ]] || die "size_$(label "$n"): wrong item count"
done
[[ $(sql "SELECT count(*) FROM wide WHERE pk = '$WIDE_PK'") == 100000 ]] || die "wide: wrong collection size"
[[ $(sql "SELECT count(*) FROM wide WHERE pk = '$WIDE_PK' AND sk LIKE 'ORDER#%'") == 30 ]] || die "wide: wrong slice"

# Disk per item: every size table, and at the largest size up to 10^6 two plain tables with
# the same data: the same rows, and the items without their key attributes (what a
# hand-written schema with key columns would store).
log "disk per item"
disk_row() { # TABLE ITEMS KIND
    local t=$1 items=$2 kind=$3 row
    row=$(sql "SELECT pg_relation_size('$t'), pg_table_size('$t') - pg_relation_size('$t'),
                      pg_indexes_size('$t'), pg_total_relation_size('$t'),
                      (SELECT avg(pg_column_size(item)) FROM (SELECT item FROM $t LIMIT 100000) s)")
    IFS='|' read -r heap other idx total avgitem <<<"$row"
    res disk "$t" "$kind" all items "$items"
    res disk "$t" "$kind" all heap_bytes "$heap"
    res disk "$t" "$kind" all toast_fsm_vm_bytes "$other"
    res disk "$t" "$kind" all index_bytes "$idx"
    res disk "$t" "$kind" all total_bytes "$total"
    res disk "$t" "$kind" all bytes_per_item "$(calc "$total / $items")"
    res disk "$t" "$kind" all avg_item_jsonb_bytes "$(fmt2 "$avgitem")"
}
for n in $SIZES; do disk_row "size_$(label "$n")" "$n" singletable; done
DISK_N=0
for n in $SIZES; do
    if ((n <= 1000000)); then DISK_N=$n; fi
done
if ((DISK_N == 0)); then DISK_N=$(echo "$SIZES" | awk '{ print $1 }'); fi
DISK_T=size_$(label "$DISK_N")
for p in plain_same plain_nokeys; do
    sql "CREATE TABLE $p (pk text COLLATE \"C\" NOT NULL, sk text COLLATE \"C\" NOT NULL,
                          item jsonb NOT NULL, PRIMARY KEY (pk, sk))" >/dev/null
done
sql "INSERT INTO plain_same SELECT * FROM bench_rows($((DISK_N / 100)))" >/dev/null
sql "INSERT INTO plain_nokeys SELECT pk, sk, item - '{pk,sk}'::text[] FROM bench_rows($((DISK_N / 100)))" >/dev/null
sql "VACUUM ANALYZE plain_same" >/dev/null
sql "VACUUM ANALYZE plain_nokeys" >/dev/null
disk_row plain_same "$DISK_N" plain_same_rows
disk_row plain_nokeys "$DISK_N" plain_item_without_keys
sql "DROP TABLE plain_same, plain_nokeys" >/dev/null

# Everything into shared_buffers
log "CHECKPOINT and pg_prewarm"
sql "CHECKPOINT" >/dev/null
for t in "${TABLES[@]}"; do
    sql "SELECT pg_prewarm('$t'), pg_prewarm('${t}_pkey')" >/dev/null
done
SB_BYTES=$(sql "SELECT pg_size_bytes(current_setting('shared_buffers'))")
DATA_BYTES=0
for t in "${TABLES[@]}"; do
    DATA_BYTES=$((DATA_BYTES + $(sql "SELECT pg_total_relation_size('$t')")))
done
res setup all all all shared_buffers_bytes "$SB_BYTES"
res setup all all all data_bytes "$DATA_BYTES"
PG_VERSION=$(sql "SELECT version()")

# Plans of the prefix test, as the prepared statements of pgbench run them (after 5 executions,
# when plan_cache_mode = auto has made its choice), with actual row counts.
log "plans of the prefix test"
PLANS=$OUT/plans.txt
: >"$PLANS"
for v in "${PREFIX_VARIANTS[@]}"; do
    IFS='|' read -r name script pcm label <<<"$v"
    # shellcheck disable=SC2016  # $1/$2 are the statement's parameters
    body=$(grep -v '^--' "$BENCH/scripts/$script.sql" | sed -e "s/@TABLE@/wide/g" -e 's/:p/$1/; s/:x/$2/' | tr -s ' \n' ' ')
    body=${body%;*}
    {
        echo "### $name: $label"
        echo
        echo '```'
        echo "${body# }"
        "${PSQL[@]}" -qAt <<EOF
SET plan_cache_mode = $pcm;
PREPARE q(text, text) AS $body;
EXECUTE q('$WIDE_PK', 'ORDER#') \\g /dev/null
EXECUTE q('$WIDE_PK', 'ORDER#') \\g /dev/null
EXECUTE q('$WIDE_PK', 'ORDER#') \\g /dev/null
EXECUTE q('$WIDE_PK', 'ORDER#') \\g /dev/null
EXECUTE q('$WIDE_PK', 'ORDER#') \\g /dev/null
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE q('$WIDE_PK', 'ORDER#');
EOF
        if [[ $script == prefix_query ]]; then
            echo "-- the statement singletable.query runs inside (singletable.explain_query):"
            "${PSQL[@]}" -qAt <<EOF
SET plan_cache_mode = $pcm;
SELECT * FROM singletable.explain_query('wide', '$WIDE_PK', 'begins_with', 'ORDER#', with_analyze => true);
EOF
        fi
        echo '```'
        echo
    } >>"$PLANS" 2>&1
done

# ---------------------------------------------------------------------------------------
# 1. Pairs: extension (A) vs hand-written SQL (B)
# ---------------------------------------------------------------------------------------
PAIR_NCOLL=$((PAIR_ITEMS / 100))
PAIRS_RUN=()
PAIRS_SKIPPED=()
declare -A PAIR_STATS PAIR_ATPS PAIR_BTPS
for p in "${PAIRS[@]}"; do
    IFS='|' read -r name a b need prep plabel <<<"$p"
    if [[ -n $need && $(sql "SELECT to_regproc('$need') IS NOT NULL") != t ]]; then
        log "pair $name skipped: $need does not exist"
        PAIRS_SKIPPED+=("$name ($need missing)")
        continue
    fi
    sa=$(script_for "$a" pairs "$PAIR_NCOLL")
    sb=$(script_for "$b" pairs "$PAIR_NCOLL")
    # every pair starts on a vacuumed table (an earlier write pair leaves dead row versions)
    sql "VACUUM ANALYZE pairs" >/dev/null
    sql "CHECKPOINT" >/dev/null
    ratios=() atps=() btps=()
    for ((r = 1; r <= ROUNDS; r++)); do
        # A first in odd rounds, B first in even ones: no side always runs second
        if ((r % 2)); then
            prep_run "$prep" pairs
            ta=$(pgbench_run "pair.$name.A.$r" "$sa" "$CLIENTS" "$SECS" auto)
            prep_run "$prep" pairs
            tb=$(pgbench_run "pair.$name.B.$r" "$sb" "$CLIENTS" "$SECS" auto)
        else
            prep_run "$prep" pairs
            tb=$(pgbench_run "pair.$name.B.$r" "$sb" "$CLIENTS" "$SECS" auto)
            prep_run "$prep" pairs
            ta=$(pgbench_run "pair.$name.A.$r" "$sa" "$CLIENTS" "$SECS" auto)
        fi
        ratio=$(calc "$ta / $tb")
        log "pair $name round $r/$ROUNDS: A $(fmt0 "$ta") tps, B $(fmt0 "$tb") tps, A/B $(fmt2 "$ratio")"
        res pair "$name" A "$r" tps "$ta"
        res pair "$name" B "$r" tps "$tb"
        res pair "$name" A/B "$r" ratio "$ratio"
        ratios+=("$ratio") atps+=("$ta") btps+=("$tb")
    done
    PAIR_STATS[$name]=$(mmm "${ratios[@]}")
    PAIR_ATPS[$name]=$(mmm "${atps[@]}")
    PAIR_BTPS[$name]=$(mmm "${btps[@]}")
    read -r mn md mx <<<"${PAIR_STATS[$name]}"
    res pair "$name" A/B all ratio_min "$mn"
    res pair "$name" A/B all ratio_median "$md"
    res pair "$name" A/B all ratio_max "$mx"
    PAIRS_RUN+=("$p")
done

# ---------------------------------------------------------------------------------------
# 2. Prefix as a bind parameter, 30-item slice of a 100,000-item collection
# ---------------------------------------------------------------------------------------
declare -A PREFIX_TPS PREFIX_RATIOS
for v in "${PREFIX_VARIANTS[@]}"; do
    IFS='|' read -r name script pcm label <<<"$v"
    script_for "$script" wide 1000 >/dev/null
done
for ((r = 1; r <= ROUNDS; r++)); do
    base=""
    for v in "${PREFIX_VARIANTS[@]}"; do
        IFS='|' read -r name script pcm label <<<"$v"
        t=$(pgbench_run "prefix.$name.$r" "$OUT/scripts/$script.wide.sql" "$CLIENTS" "$SECS" "$pcm" \
            -D "p=$WIDE_PK" -D "x=ORDER#")
        [[ -z $base ]] && base=$t
        ratio=$(calc "$t / $base")
        log "prefix round $r/$ROUNDS: $name $(fmt0 "$t") tps, vs const $(fmt2 "$ratio")"
        res prefix "$name" "$pcm" "$r" tps "$t"
        res prefix "$name" "$pcm" "$r" ratio_vs_const "$ratio"
        PREFIX_TPS[$name]+="$t "
        PREFIX_RATIOS[$name]+="$ratio "
    done
done
for v in "${PREFIX_VARIANTS[@]}"; do
    IFS='|' read -r name script pcm label <<<"$v"
    # shellcheck disable=SC2086
    read -r mn md mx <<<"$(mmm ${PREFIX_RATIOS[$name]})"
    res prefix "$name" "$pcm" all ratio_vs_const_min "$mn"
    res prefix "$name" "$pcm" all ratio_vs_const_median "$md"
    res prefix "$name" "$pcm" all ratio_vs_const_max "$mx"
done

# ---------------------------------------------------------------------------------------
# 3. Latency vs table size (1 client, per-transaction log)
# ---------------------------------------------------------------------------------------
# The backends (forked by the postmaster, so inheriting its CPU affinity) and pgbench run on
# one CPU: on this VM, an unpinned 1-client ping-pong takes either about 30 or about 90 us per
# call depending on whether the idle vCPUs halt between messages, which would swamp the
# effect of the table size. Pinned, a call costs its CPU path plus two context switches.
PINNED=0
PM_PID=$(head -1 "$ST_DIR/data/postmaster.pid")
if command -v taskset >/dev/null 2>&1 && taskset -a -p -c 0 "$PM_PID" >/dev/null 2>&1; then
    PINNED=1
    RUN_PREFIX=(taskset -c 0)
fi
for ((r = 1; r <= LAT_ROUNDS; r++)); do
    for n in $SIZES; do
        t=size_$(label "$n")
        for s in $LAT_SCRIPTS; do
            sf=$(script_for "$s" "$t" "$((n / 100))")
            rm -f "$OUT/lat/$s.$t.$r".*
            tps=$(pgbench_run "lat.$s.$t.$r" "$sf" 1 "$LAT_SECS" auto --log --log-prefix="$OUT/lat/$s.$t.$r")
            awk '{ print $3 }' "$OUT/lat/$s.$t.$r".* >>"$OUT/lat/$s.$t.us"
            rm -f "$OUT/lat/$s.$t.$r".*
            log "latency round $r/$LAT_ROUNDS: $s on $t: $(fmt0 "$tps") tps"
            res latency "$s" "$n" "$r" tps "$tps"
        done
    done
done
if ((PINNED)); then
    taskset -a -p -c "0-$((NCPU - 1))" "$PM_PID" >/dev/null
    RUN_PREFIX=()
fi
declare -A LAT
for n in $SIZES; do
    t=size_$(label "$n")
    for s in $LAT_SCRIPTS; do
        read -r cnt p50 p99 mean <<<"$(percentiles "$OUT/lat/$s.$t.us")"
        LAT[$s.$n]="$p50 $p99 $mean $cnt"
        res latency "$s" "$n" all transactions "$cnt"
        res latency "$s" "$n" all p50_us "$p50"
        res latency "$s" "$n" all p99_us "$p99"
        res latency "$s" "$n" all mean_us "$mean"
    done
done
gzip -f "$OUT"/lat/*.us

# ---------------------------------------------------------------------------------------
# 4. Memory: one session, MEM_CALLS extension calls (get_item, put_item, query in turn)
# ---------------------------------------------------------------------------------------
log "memory: $MEM_CALLS calls in one session"
MEMSQL=$OUT/memory.sql
memstat() {
    echo "SELECT 'mem', $1, pg_backend_pid(),
       (regexp_match(s, 'VmRSS:\\s+(\\d+)'))[1], (regexp_match(s, 'RssAnon:\\s+(\\d+)'))[1],
       (regexp_match(s, 'RssShmem:\\s+(\\d+)'))[1],
       (SELECT sum(total_bytes) FROM pg_backend_memory_contexts),
       (SELECT sum(used_bytes) FROM pg_backend_memory_contexts)
  FROM pg_read_file('/proc/self/status') AS s;"
}
{
    echo "SELECT 'warmup', bench_mixed_calls('pairs', $PAIR_NCOLL, 1, 10000);"
    memstat 0
    step=$((MEM_CALLS / 10))
    for ((c = 10000; c <= MEM_CALLS; c += 10000)); do
        echo "SELECT 'calls', bench_mixed_calls('pairs', $PAIR_NCOLL, $((1 + c)), 10000);"
        # every 10% of the calls, and at 10,000, 20,000 and 50,000 calls
        if ((c % step == 0 || c == 10000 || c == 20000 || c == 50000)); then memstat "$c"; fi
    done
} >"$MEMSQL"
t0=$(date +%s.%N)
"${PSQL[@]}" -At -F ' ' -f "$MEMSQL" >"$OUT/memory.out"
t1=$(date +%s.%N)
MEM_SECS=$(calc "$t1 - $t0")
made=$(awk '$1 == "calls" { s += $2 } END { print s }' "$OUT/memory.out")
((made == MEM_CALLS)) || die "memory test: $made calls made, expected $MEM_CALLS"
while read -r _ calls pid rss anon shmem ctx ctxused; do
    res memory backend "$calls" all vmrss_kb "$rss"
    res memory backend "$calls" all rssanon_kb "$anon"
    res memory backend "$calls" all rssshmem_kb "$shmem"
    res memory backend "$calls" all contexts_total_bytes "$ctx"
    res memory backend "$calls" all contexts_used_bytes "$ctxused"
done < <(grep '^mem ' "$OUT/memory.out")
res memory backend all all seconds "$MEM_SECS"

# ---------------------------------------------------------------------------------------
# 5. Profiles (perf, cpu-clock sampling of the whole machine during a run of A and of B)
# ---------------------------------------------------------------------------------------
PROF_SYMS="singletable_get_item singletable_put_item singletable_update_item singletable_query SPI_connect SPI_finish
SPI_execute_plan SPI_execute_plan_extended SPI_cursor_open SPI_cursor_fetch st_table_open st_item_prepare st_key_args
RangeVarGetRelidExtended GetCachedPlan PortalStart PortalRun standard_ExecutorStart
standard_ExecutorRun standard_ExecutorEnd ExecInitNode ExecMakeTableFunctionResult
tuplestore_putvalues heap_lock_tuple heap_update heap_insert _bt_doinsert ExecInsertIndexTuples st_parse_update
st_parse_condition st_eval_condition st_apply_update st_item_from_val st_item_attrs
ExecCheckIndexConstraints index_getnext_slot CommitTransactionCommand secure_read secure_write"
# profile_run TAG SCRIPT PCM [pgbench args]: samples the machine for PROF_SECS s in the middle of
# a pgbench run; writes $OUT/perf/TAG.syms ("symbol samples" per symbol on the backends' stacks,
# each sample counted once per symbol) and TAG.meta ("tps backend_samples client_samples").
profile_run() {
    local tag=$1 script=$2 pcm=$3 pid tps s0 s1 ntx
    shift 3
    wait_quiet >/dev/null
    s0=$(server_ticks)
    PGOPTIONS="-c plan_cache_mode=$pcm" "$PGBIN/pgbench" -n -M prepared -c "$CLIENTS" -j 1 \
        -T $((PROF_SECS + 3)) --random-seed="$SEED" -f "$script" "$@" >"$OUT/perf/$tag.pgbench" 2>&1 &
    pid=$!
    sleep 1.5
    perf record -e cpu-clock -F 999 -g -a -o "$OUT/perf/$tag.data" -- sleep "$PROF_SECS" \
        >/dev/null 2>"$OUT/perf/$tag.record.log" || true
    wait "$pid" || die "pgbench for profile $tag failed"
    sleep 0.2
    s1=$(server_ticks)
    ntx=$(awk -F': ' '/^number of transactions actually processed/ { print $2 + 0; exit }' "$OUT/perf/$tag.pgbench")
    # the server's CPU per transaction over the whole run, from /proc (the scale of the profile)
    calc "($s1 - $s0) / $CLK_TCK / $ntx * 1000000" >"$OUT/perf/$tag.server_us"
    tps=$(awk '/^tps = / { print $3; exit }' "$OUT/perf/$tag.pgbench")
    # perf script: a line "comm" per sample, then one line "<tab>address symbol" per frame
    perf script -i "$OUT/perf/$tag.data" -F comm,ip,sym 2>/dev/null | awk -v syms="$PROF_SYMS" -v tps="$tps" \
        -v meta="$OUT/perf/$tag.meta" '
        BEGIN { n = split(syms, a, /[ \n]+/); for (i = 1; i <= n; i++) want[a[i]] = 1 }
        /^[ \t]*$/ { flush(); next }
        /^\t/ { if (comm == "postgres" && ($2 in want)) seen[$2] = 1; next }
        { flush(); comm = $1; insample = 1 }
        function flush() {
            if (!insample) return
            if (comm == "postgres") { backend++; for (s in seen) cnt[s]++ }
            else if (comm == "pgbench") client++
            for (s in seen) delete seen[s]
            insample = 0
        }
        END { flush(); for (s in cnt) print s, cnt[s]; print tps, backend + 0, client + 0 > meta }' \
        >"$OUT/perf/$tag.syms"
    rm -f "$OUT/perf/$tag.data"
}
# us of CPU per transaction for SAMPLES samples of the run TAG (999 Hz, PROF_SECS s window)
# us of CPU per transaction for SAMPLES samples of the profile TAG: their share of the server's
# samples times the server's CPU per transaction measured from /proc in the same run
us_per_txn() { # TAG SAMPLES
    local backend
    read -r _ backend _ <"$OUT/perf/$1.meta"
    calc "$2 / $backend * $(cat "$OUT/perf/$1.server_us")"
}
PROFILED=()
if [[ $PROFILE != none && $PERF_OK == 1 ]]; then
    for p in "${PAIRS_RUN[@]}"; do
        IFS='|' read -r name a b need prep plabel <<<"$p"
        read -r mn md mx <<<"${PAIR_STATS[$name]}"
        if [[ $PROFILE == all ]] || ! ge "$md" "$TARGET_RATIO"; then
            log "profiling pair $name"
            prep_run "$prep" pairs
            profile_run "pair.$name.A" "$OUT/scripts/$a.pairs.sql" auto
            prep_run "$prep" pairs
            profile_run "pair.$name.B" "$OUT/scripts/$b.pairs.sql" auto
            PROFILED+=("pair.$name|$name: A = ${a}, B = ${b}")
        fi
    done
    # shellcheck disable=SC2086
    read -r mn md mx <<<"$(mmm ${PREFIX_RATIOS[bw_generic]})"
    if [[ $PROFILE == all ]] || ! ge "$md" "$TARGET_RATIO"; then
        log "profiling prefix bw_generic vs const"
        profile_run "prefix.A" "$OUT/scripts/prefix_bw.wide.sql" force_generic_plan -D "p=$WIDE_PK" -D "x=ORDER#"
        profile_run "prefix.B" "$OUT/scripts/prefix_const.wide.sql" auto -D "p=$WIDE_PK" -D "x=ORDER#"
        PROFILED+=("prefix|prefix: A = begins_with generic, B = constant prefix")
    fi
fi

# ---------------------------------------------------------------------------------------
# 6. Wide items (wide_measure above), while the server still runs
# ---------------------------------------------------------------------------------------
wide_measure

# ---------------------------------------------------------------------------------------
# 7. Global secondary indexes (gsi_measure above)
# ---------------------------------------------------------------------------------------
gsi_measure

# ---------------------------------------------------------------------------------------
# 8. TTL (ttl_measure above; it restarts the server with shared_preload_libraries)
# ---------------------------------------------------------------------------------------
ttl_measure

st_stop_server

# ---------------------------------------------------------------------------------------
# Plot
# ---------------------------------------------------------------------------------------
PLOT=$RESULTS_DIR/latency.png
rm -f "$PLOT"
if command -v gnuplot >/dev/null 2>&1; then
    {
        for n in $SIZES; do
            line="$n"
            for s in $LAT_SCRIPTS; do
                read -r p50 p99 _ <<<"${LAT[$s.$n]}"
                line+=" $p50 $p99"
            done
            echo "$line"
        done
    } >"$OUT/latency.dat"
    gnuplot <<EOF || log "gnuplot failed: no plot"
set terminal pngcairo size 1100,500 font ",10"
set output '$PLOT'
set multiplot layout 1,2 title "Latency vs table size (pgbench, 1 client, -M prepared; $START_DATE)"
set logscale x
set logscale y
set xlabel 'items in the table'
set ylabel 'latency per call (µs)'
set format x '10^{%L}'
set xrange [*:*]
set grid
set key top left
set title 'get one item'
plot '$OUT/latency.dat' using 1:2 with linespoints lw 2 pt 7 lc 1 title 'get\_item p50', \
     '' using 1:3 with linespoints lw 2 pt 5 lc 1 dt 2 title 'get\_item p99', \
     '' using 1:4 with linespoints lw 1 pt 6 lc 2 title 'SELECT p50', \
     '' using 1:5 with linespoints lw 1 pt 4 lc 2 dt 2 title 'SELECT p99'
set title 'query 30 items (begins\_with)'
plot '$OUT/latency.dat' using 1:6 with linespoints lw 2 pt 7 lc 1 title 'query p50', \
     '' using 1:7 with linespoints lw 2 pt 5 lc 1 dt 2 title 'query p99', \
     '' using 1:8 with linespoints lw 1 pt 6 lc 2 title 'SELECT p50', \
     '' using 1:9 with linespoints lw 1 pt 4 lc 2 dt 2 title 'SELECT p99'
unset multiplot
EOF
fi

# ---------------------------------------------------------------------------------------
# REPORT.md
# ---------------------------------------------------------------------------------------
END_TIME=$(date +%s)
ELAPSED=$((END_TIME - START_TIME))
CMD="test/bench/run.sh"
for v in $(env | grep -oE '^BENCH_[A-Z_]+' | sort); do CMD="$v=${!v} $CMD"; done
CPU_MODEL=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
HYPERVISOR=$(lscpu 2>/dev/null | awk -F': *' '/^Hypervisor vendor/ { print $2 }')
MEM_GIB=$(awk '/^MemTotal/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)
SIZE_FIRST=$(echo "$SIZES" | awk '{ print $1 }')
SIZE_LAST=$(echo "$SIZES" | awk '{ print $NF }')
# Reading of a profile: the measured difference, then how the call is built (the mechanism,
# which holds for every version of src/ so far: the extension's C function runs its
# statement through SPI inside the client's own statement).
explain_profile() {
    local tag=$1 fa ext spi
    fa=$OUT/perf/$tag.A.syms
    ext=$(awk '$1 ~ /^singletable_/ { s += $2 } END { print s + 0 }' "$fa")
    spi=$(awk '$1 ~ /^SPI_(execute_plan|execute_plan_extended|cursor_open|cursor_fetch)$/ { s += $2 } END { print s + 0 }' "$fa")
    if [[ $tag == pair.* ]]; then
        echo "Measured: A uses $(fmt2 "$(calc "$(cat "$OUT/perf/$tag.A.server_us") - $(cat "$OUT/perf/$tag.B.server_us")")") µs more server CPU per"
        echo "transaction than B. The extension's C function takes $(fmt2 "$(us_per_txn "$tag.A" "$ext")") µs of A's transaction, of"
        echo "which $(fmt2 "$(us_per_txn "$tag.A" "$spi")") µs execute its statement through SPI (the rest is its own work:"
        echo "argument and item checks, table lookup, building the result)."
        echo
    fi
    case $tag in
        pair.get) cat <<'EOF'
How it is built: get_item is a function called by the client's statement
`SELECT singletable.get_item(…)`; it resolves the table (`st_table_open`), checks the key
arguments and runs its prepared `SELECT item FROM t WHERE pk = $1 AND sk = $2` through
SPI. That is two executor start/run/end cycles per call (the client's statement and the
inner one) where the hand-written statement has one; the index lookup itself
(`index_getnext_slot`) costs the same on both sides.

EOF
            ;;
        pair.put) cat <<'EOF'
How it is built: put_item is called by the client's statement, validates the item
(`st_item_prepare`: key attributes, DynamoDB's size and number rules) and, with no
condition and return_values NONE (the default, used here), runs one prepared
`INSERT … ON CONFLICT (pk, sk) DO UPDATE` through SPI: the same statement as B, whose
conflict check (`ExecCheckIndexConstraints`) finds the row to update, but executed inside
the client's `SELECT singletable.put_item(…)`, so each call pays a second executor
start/run/end and the function call around it.

EOF
            ;;
        pair.update) cat <<'EOF'
How it is built: update_item parses the update and condition expressions
(`st_parse_update`, `st_parse_condition`), locks and reads the current item through SPI
(`SELECT item … FOR UPDATE`), evaluates the condition on it (`st_eval_condition`), applies
the update in C (`st_apply_update`, decimal arithmetic), checks the new item
(`st_item_from_val`) and writes it with a second SPI statement (`UPDATE … SET item = $3`):
two inner statements where the hand-written UPDATE, which computes the new item with
jsonb_set in SQL, is one statement.

EOF
            ;;
        pair.query30) cat <<'EOF'
How it is built: singletable.query is a set-returning function (a Function Scan,
`ExecMakeTableFunctionResult`, in the client's statement); its statement runs through
SPI inside it and the rows are collected in a tuplestore (`tuplestore_putvalues`), which
the Function Scan then reads back and sends. The hand-written SELECT sends the rows
straight from its index scan; the index scan itself (`index_getnext_slot`) costs the same
on both sides.

EOF
            ;;
        prefix) cat <<'EOF'
Both statements are the same index range scan (see the plans above); with a bind
parameter the upper bound is computed once per execution, by
`singletable.prefix_upper_bound($2)` when the scan starts.

EOF
            ;;
    esac
}

# targets
declare -A TGT_TEXT TGT_STATE
for name in get put query30; do
    if [[ -n ${PAIR_STATS[$name]:-} ]]; then
        read -r mn md mx <<<"${PAIR_STATS[$name]}"
        TGT_STATE[$name]=$(mark "$md" "$TARGET_RATIO")
        TGT_TEXT[$name]="median $(fmt2 "$md") (min $(fmt2 "$mn"), max $(fmt2 "$mx"))"
    fi
done
# shellcheck disable=SC2086
read -r bwmn bwmd bwmx <<<"$(mmm ${PREFIX_RATIOS[bw_generic]})"
read -r g50a _ <<<"${LAT[get_ext.$SIZE_FIRST]}"
read -r g50z _ <<<"${LAT[get_ext.$SIZE_LAST]}"
read -r q50a _ <<<"${LAT[query_ext.$SIZE_FIRST]}"
read -r q50z _ <<<"${LAT[query_ext.$SIZE_LAST]}"
GET_GROWTH=$(calc "$g50z / $g50a")
QUERY_GROWTH=$(calc "$q50z / $q50a")
read -r _ _ _ rss0 anon0 _ ctx0 _ <<<"$(grep '^mem 0 ' "$OUT/memory.out")"
read -r _ _ _ _ anon10 _ ctx10 _ <<<"$(grep "^mem $((MEM_CALLS / 10)) " "$OUT/memory.out")"
read -r _ _ _ rss1 anon1 _ ctx1 _ <<<"$(grep "^mem $MEM_CALLS " "$OUT/memory.out")"
ANON_GROWTH=$((anon1 - anon0))
CTX_GROWTH_KB=$(((ctx1 - ctx0) / 1024))
ANON_STEADY=$((anon1 - anon10))
CTX_STEADY_KB=$(((ctx1 - ctx10) / 1024))
if ((ANON_STEADY < MEM_FLAT_KB && CTX_STEADY_KB < MEM_FLAT_KB)); then MEM_STATE=met; else MEM_STATE="**missed**"; fi

{
    echo "# singletable benchmark report"
    echo
    echo "Generated by \`test/bench/run.sh\` on $START_DATE in $((ELAPSED / 60)) min $((ELAPSED % 60)) s."
    if [[ $QUICK == 1 ]]; then
        echo "**Quick mode** (BENCH_QUICK=1): fewer and shorter runs, smaller tables; not the reference numbers."
    fi
    echo
    echo "Command: \`$CMD\` (or \`make bench\`). Extension built from the $SRC_DESC."
    echo
    echo "## Targets"
    echo
    echo "| target | result | |"
    echo "|---|---|---|"
    echo "| get_item ≥ 0.9× hand-written SELECT (tps ratio) | ${TGT_TEXT[get]:-not run} | ${TGT_STATE[get]:-} |"
    echo "| put_item ≥ 0.9× hand-written INSERT … ON CONFLICT | ${TGT_TEXT[put]:-not run} | ${TGT_STATE[put]:-} |"
    echo "| query (30 items) ≥ 0.9× hand-written SELECT | ${TGT_TEXT[query30]:-not run} | ${TGT_STATE[query30]:-} |"
    echo "| singletable.begins_with, bind parameter, generic plan ≥ 0.9× constant prefix | median $(fmt2 "$bwmd") (min $(fmt2 "$bwmn"), max $(fmt2 "$bwmx")) | $(mark "$bwmd" "$TARGET_RATIO") |"
    echo "| get_item p50 at $(label "$SIZE_LAST") items within 1.3× of $(label "$SIZE_FIRST") | $(fmt2 "$GET_GROWTH")× ($g50a µs → $g50z µs) | $(mark_le "$GET_GROWTH" "$TARGET_P50_GROWTH") |"
    echo "| query p50 at $(label "$SIZE_LAST") items within 1.3× of $(label "$SIZE_FIRST") | $(fmt2 "$QUERY_GROWTH")× ($q50a µs → $q50z µs) | $(mark_le "$QUERY_GROWTH" "$TARGET_P50_GROWTH") |"
    read -r _ gsi_md _ <<<"${GSI_PUT[ratio]}"
    read -r gsi_pb gsi_fb gsi_pe gsi_fe <<<"${GSI_SIZE[gsi1]}"
    gsi_f=$(calc "($gsi_pb / $gsi_fb) / ($gsi_pe / $gsi_fe)")
    echo "| a GSI holding 1% of the items (gsi1) within ${TARGET_GSI_SIZE}× of 1% of a full index's size | $(fmt2 "$gsi_f")× ($(fmt0 "$(calc "$gsi_pb / 1024")") kB against $(fmt0 "$(calc "$gsi_fb / 1024")") kB) | $(mark_le "$gsi_f" "$TARGET_GSI_SIZE") |"
    echo "| put_item (no index keys) on a table with two GSIs ≥ ${TARGET_GSI_WRITE}× the same table without | median $(fmt2 "$gsi_md") | $(mark "$gsi_md" "$TARGET_GSI_WRITE") |"
    echo "| the background sweep's reads per expired item, $TTL_EXPIRED expired against $((TTL_EXPIRED / 10)) (and $TTL_ITEMS live), within ${TARGET_TTL_BUF}× | $(fmt2 "${TTL[buf_ratio]}")× | $(mark_le "${TTL[buf_ratio]}" "$TARGET_TTL_BUF") |"
    echo "| get_item during the background sweep of $TTL_SWEEP_EXPIRED expired items ≥ ${TARGET_TTL_GET}× without a sweep (median tps) | $(fmt2 "${TTL[median_ratio]}") (against a control as busy as the sweep, without it: $(fmt2 "${TTL[median_cratio]}")) | $(mark "${TTL[median_ratio]}" "$TARGET_TTL_GET") |"
    echo "| backend memory flat over $MEM_CALLS calls (after the first 10% of the calls, RssAnon and memory contexts grow < 1 MiB) | after the first 10%: RssAnon $(printf '%+d' "$ANON_STEADY") kB, contexts $(printf '%+d' "$CTX_STEADY_KB") kB; over all calls: RssAnon $(printf '%+d' "$ANON_GROWTH") kB, contexts $(printf '%+d' "$CTX_GROWTH_KB") kB | $MEM_STATE |"
    echo
    echo "Ratios are extension ÷ hand-written throughput (tps) of the same operation, one ratio per"
    echo "round (A and B run back to back, A first in odd rounds and B first in even ones), min/median/max over $ROUNDS rounds; a target is met when"
    echo "the median reaches it. Targets are reported as measured, never tuned to pass."
    echo
    echo "## Machine and server"
    echo
    echo "* CPU: $CPU_MODEL, $(nproc) cores${HYPERVISOR:+ (virtual machine, $HYPERVISOR)}; RAM $MEM_GIB GiB; kernel $(uname -r)"
    echo "* $PG_VERSION; $("$PGBIN/pgbench" --version)"
    echo "* The server runs from a private copy of the installation, started by test/lib.sh"
    echo "  (initdb --locale=C.UTF-8, Unix socket only, data in /tmp)."
    echo "* Data: $(bytes_h "$DATA_BYTES") in all benchmark tables and indexes, shared_buffers $(bytes_h "$SB_BYTES"):"
    if ((DATA_BYTES < SB_BYTES)); then
        echo "  **everything fits in shared_buffers** (and in RAM), and is loaded with pg_prewarm before measuring."
    else
        echo "  the data does **not** fit in shared_buffers (it fits in RAM: the OS page cache holds the rest)."
    fi
    echo
    echo "| setting | why |"
    echo "|---|---|"
    for s in "${SETTINGS[@]}"; do echo "| \`${s%%|*}\` | ${s#*|} |"; done
    echo "| everything else | PostgreSQL 15 defaults (plan_cache_mode = auto unless stated) |"
    echo
    echo "## Method"
    echo
    echo "* Tables are created with \`singletable.create_table\` and filled with one set-based"
    echo "  \`INSERT … SELECT\` each ([sql/setup.sql]($REPORT_LINKBASE/sql/setup.sql)): collections of 100"
    echo "  items, \`pk\` = \`USER#<8 digits>\`, \`sk\` = \`ORDER#100\`…\`ORDER#129\` (the 30-item"
    echo "  begins_with slice) and \`POST#130\`…\`POST#199\`; items of about $(fmt0 "$(csv_get disk "$DISK_T" singletable all avg_item_jsonb_bytes)") bytes of jsonb"
    echo "  repeating their keys. Then VACUUM ANALYZE, CHECKPOINT, pg_prewarm."
    echo "* pgbench custom scripts ([scripts/]($REPORT_LINKBASE/scripts/)), \`-M prepared\` (so \`:var\` are bind"
    echo "  parameters), \`--random-seed=$SEED\` for every run (A and B read the same random keys),"
    echo "  keys uniformly random over the whole table."
    echo "* Pairs: $CLIENTS clients, $SECS s per run, $ROUNDS rounds of A and B on a table of $PAIR_ITEMS items;"
    echo "  each pair starts after VACUUM ANALYZE and CHECKPOINT, and each write run is preceded by"
    echo "  VACUUM and CHECKPOINT."
    echo "* Latency: 1 client (on $(nproc) cores, 2 clients plus pgbench would add CPU queueing to the"
    echo "  latency), $LAT_SECS s per run, $LAT_ROUNDS round(s) over all sizes in turn; p50/p99 are nearest-rank"
    echo "  percentiles of all transactions of pgbench's per-transaction log (\`--log\`): time from"
    echo "  sending the statement to receiving its result, client and Unix socket included."
    if ((PINNED)); then
        echo "  The server's backends and pgbench are pinned to one CPU (\`taskset\`) for these runs: on"
        echo "  this VM an unpinned 1-client ping-pong takes either about 30 or about 90 µs per get"
        echo "  depending on whether the idle vCPUs halt between messages, which would swamp the effect"
        echo "  of the table size; pinned, a call costs its CPU path plus two context switches."
    else
        echo "  (taskset was not available: backends and pgbench were not pinned to one CPU, so the"
        echo "  latencies include the wake-up latency of idle CPUs.)"
    fi
    read -r fmed fmax fn <<<"$(awk -F, '$1 == "cpu" && $5 == "foreign_cpu_share" { print $6 }' "$RES" |
        sort -g | awk '{ v[NR] = $1 } END { printf "%.4f %.4f %d\n", v[int((NR + 1) / 2)], v[NR], NR }')"
    noisy=$(awk -F, '$1 == "cpu" && $5 == "foreign_cpu_share" && $6 > 0.15 { n++; if (n <= 12) { printf "%s%s (%.0f%%)", sep, $2, $6 * 100; sep = ", " } }
                      END { if (n > 12) printf ", and %d more", n - 12 }' "$RES")
    steal=$(awk -F, '$1 == "cpu" && $5 == "steal_share" && $6 > m { m = $6 } END { printf "%.1f", m * 100 }' "$RES")
    echo "* Other load: this is a shared $(nproc)-core machine. Before each run the runner waits (up to"
    echo "  20 s) until the machine is idle, and measures the CPU used during the run by processes"
    echo "  other than the server and pgbench: median $(awk -v x="$fmed" 'BEGIN { printf "%.1f", x * 100 }')%, max $(awk -v x="$fmax" 'BEGIN { printf "%.1f", x * 100 }')% of the machine's CPU over $fn runs"
    echo "  (hypervisor steal at most $steal%; the accounting is exact to about ±10%, so values near"
    echo "  zero or slightly negative mean an idle machine). Runs above 15%: ${noisy:-none}."
    echo
    echo "## Extension vs hand-written SQL"
    echo
    echo "| pair | A (extension) tps, median | B (hand-written) tps, median | A/B min | A/B median | A/B max | server CPU µs/txn A / B, median |"
    echo "|---|---|---|---|---|---|---|"
    for p in "${PAIRS_RUN[@]}"; do
        IFS='|' read -r name a b need prep plabel <<<"$p"
        read -r mn md mx <<<"${PAIR_STATS[$name]}"
        read -r _ amd _ <<<"${PAIR_ATPS[$name]}"
        read -r _ bmd _ <<<"${PAIR_BTPS[$name]}"
        # shellcheck disable=SC2046
        read -r _ acpu _ <<<"$(mmm $(awk -F, -v n="pair.$name.A." '$1 == "cpu" && index($2, n) == 1 && $5 == "server_cpu_us_per_txn" { print $6 }' "$RES"))"
        # shellcheck disable=SC2046
        read -r _ bcpu _ <<<"$(mmm $(awk -F, -v n="pair.$name.B." '$1 == "cpu" && index($2, n) == 1 && $5 == "server_cpu_us_per_txn" { print $6 }' "$RES"))"
        echo "| $name: $plabel | $(fmt0 "$amd") | $(fmt0 "$bmd") | $(fmt2 "$mn") | **$(fmt2 "$md")** | $(fmt2 "$mx") | $(fmt2 "$acpu") / $(fmt2 "$bcpu") |"
    done
    echo
    echo "* Server CPU per transaction: CPU time of the server's processes (backends and background"
    echo "  processes) during the run divided by the transactions; unlike tps it hardly changes when"
    echo "  other processes compete for the CPU."
    echo "* put_item runs with its defaults (no condition, return_values NONE): one"
    echo "  \`INSERT … ON CONFLICT (pk, sk) DO UPDATE\` inside the function; neither side returns the old"
    echo "  item. Every put overwrites an existing item (random existing keys), so both sides do an update."
    echo "* update: both sides check the same condition, add 1 to the same counter and return the"
    echo "  new item. The issue sets no target for this pair: it is measured and reported."
    echo "* The query pair returns the same 30 rows (pk, sk, item) on both sides."
    for s in "${PAIRS_SKIPPED[@]}"; do echo "* Skipped: $s."; done
    echo "* Not run: the TODO hooks of issue #4 (commented-out entries of \`PAIRS\` in run.sh):"
    echo "  $TODO_FEATURES."
    echo
    echo "## Prefix as a bind parameter (30 items inside a 100,000-item collection)"
    echo
    echo "Table \`wide\`: 1,000 collections of 100 items plus the collection \`$WIDE_PK\` of 100,000"
    echo "items, 30 of which start with \`ORDER#\` (in the middle of the collection). \`:p\` and \`:x\`"
    echo "are bind parameters (\`-D p=$WIDE_PK -D x=ORDER#\`); plan_cache_mode is set per run with"
    echo "\`PGOPTIONS\`. $CLIENTS clients, $SECS s per run, $ROUNDS rounds of all variants in turn."
    echo
    echo "| variant | tps min | tps median | tps max | ÷ constant prefix, min / median / max |"
    echo "|---|---|---|---|---|"
    for v in "${PREFIX_VARIANTS[@]}"; do
        IFS='|' read -r name script pcm label <<<"$v"
        # shellcheck disable=SC2086
        read -r tmn tmd tmx <<<"$(mmm ${PREFIX_TPS[$name]})"
        # shellcheck disable=SC2086
        read -r rmn rmd rmx <<<"$(mmm ${PREFIX_RATIOS[$name]})"
        echo "| $label | $(fmt0 "$tmn") | $(fmt0 "$tmd") | $(fmt0 "$tmx") | $(fmt2 "$rmn") / **$(fmt2 "$rmd")** / $(fmt2 "$rmx") |"
    done
    echo
    echo "For comparison, the issue quotes for plain PostgreSQL 15 (1 client, 10 matching items):"
    echo "constant prefix 22,310 tps, starts_with with a bind parameter under auto 10,533 tps, forced"
    echo "generic 54.6 tps. Under \`auto\`, PostgreSQL keeps custom plans (prefix known at plan time,"
    echo "an index range) only while the generic plan looks more expensive; here the generic plan's"
    echo "estimate for \`pk = \$1\` is the average collection (about 200 rows), so after five"
    echo "executions \`auto\` switches to the generic plan, which reads the whole 100,000-item"
    echo "collection through a filter: see the plans below."
    echo
    echo "<details><summary>Plans (EXPLAIN ANALYZE of each prepared statement after 5 executions)</summary>"
    echo
    cat "$PLANS"
    echo "</details>"
    echo
    echo "## Latency vs table size"
    echo
    echo "![latency vs table size]($RESULTS_LINK/latency.png)"
    echo
    echo "| items | table + index | get_item p50 / p99 µs | SELECT item p50 / p99 µs | query 30 p50 / p99 µs | SELECT 30 rows p50 / p99 µs |"
    echo "|---|---|---|---|---|---|"
    for n in $SIZES; do
        t=size_$(label "$n")
        row="| $(label "$n") | $(bytes_h "$(csv_get disk "$t" singletable all total_bytes)")"
        for s in $LAT_SCRIPTS; do
            read -r p50 p99 _ <<<"${LAT[$s.$n]}"
            row+=" | $p50 / $p99"
        done
        echo "$row |"
    done
    row="| $(label "$SIZE_LAST") ÷ $(label "$SIZE_FIRST") |"
    for s in $LAT_SCRIPTS; do
        read -r a50 a99 _ <<<"${LAT[$s.$SIZE_FIRST]}"
        read -r z50 z99 _ <<<"${LAT[$s.$SIZE_LAST]}"
        row+=" | $(fmt2 "$(calc "$z50 / $a50")") / $(fmt2 "$(calc "$z99 / $a99")")"
    done
    echo "$row |"
    echo
    echo "Each cell pools $LAT_ROUNDS × $LAT_SECS s of transactions ($(echo "${LAT[get_ext.$SIZE_FIRST]}" | awk '{ print $4 }') for get_item at $(label "$SIZE_FIRST"))."
    echo
    echo "## Memory"
    echo
    echo "One session (one backend) makes $MEM_CALLS extension calls — get_item, put_item and"
    echo "query (30 items) in turn, keys spread over the \`pairs\` table — in statements of 10,000"
    echo "calls each (\`bench_mixed_calls\` in sql/setup.sql), after 10,000 warm-up calls. The"
    echo "backend reads its own /proc/self/status and pg_backend_memory_contexts between statements."
    echo "RssShmem grows as the backend touches more shared_buffers pages, which is not its own"
    echo "memory; RssAnon (private memory) and the memory contexts are what a leak would grow."
    echo "Duration: $(fmt0 "$MEM_SECS") s."
    echo
    echo "| calls | VmRSS kB | RssAnon kB | RssShmem kB | memory contexts total kB | used kB |"
    echo "|---|---|---|---|---|---|"
    while read -r _ calls pid rss anon shmem ctx ctxused; do
        echo "| $calls | $rss | $anon | $shmem | $((ctx / 1024)) | $((ctxused / 1024)) |"
    done < <(grep '^mem ' "$OUT/memory.out")
    echo
    echo "Growth from 0 to $MEM_CALLS calls: VmRSS $(printf '%+d' $((rss1 - rss0))) kB, RssAnon"
    echo "$(printf '%+d' "$ANON_GROWTH") kB, memory contexts $(printf '%+d' "$CTX_GROWTH_KB") kB; from $((MEM_CALLS / 10)) calls to the"
    echo "end: RssAnon $(printf '%+d' "$ANON_STEADY") kB, memory contexts $(printf '%+d' "$CTX_STEADY_KB") kB. The target is judged on the"
    echo "second figure: a leak grows with the number of calls, while a rise during the first calls"
    echo "(caches filling, the allocator's high-water mark) happens once; both are shown."
    echo
    echo "## Disk per item"
    echo
    echo "| table | items | heap | index | TOAST+FSM+VM | total | bytes/item | avg item (jsonb) |"
    echo "|---|---|---|---|---|---|---|---|"
    disk_line() {
        local t=$1 kind=$2 label=$3
        echo "| $label | $(csv_get disk "$t" "$kind" all items) | $(bytes_h "$(csv_get disk "$t" "$kind" all heap_bytes)") | $(bytes_h "$(csv_get disk "$t" "$kind" all index_bytes)") | $(bytes_h "$(csv_get disk "$t" "$kind" all toast_fsm_vm_bytes)") | $(bytes_h "$(csv_get disk "$t" "$kind" all total_bytes)") | $(fmt0 "$(csv_get disk "$t" "$kind" all bytes_per_item)") | $(fmt0 "$(csv_get disk "$t" "$kind" all avg_item_jsonb_bytes)") |"
    }
    for n in $SIZES; do disk_line "size_$(label "$n")" singletable "singletable, $(label "$n")"; done
    disk_line plain_same plain_same_rows "plain (pk, sk, item) table, same rows, $(label "$DISK_N")"
    disk_line plain_nokeys plain_item_without_keys "plain table, item without pk/sk, $(label "$DISK_N")"
    ext_bpi=$(csv_get disk "$DISK_T" singletable all bytes_per_item)
    same_bpi=$(csv_get disk plain_same plain_same_rows all bytes_per_item)
    nok_bpi=$(csv_get disk plain_nokeys plain_item_without_keys all bytes_per_item)
    echo
    echo "At $(label "$DISK_N") items: singletable ÷ plain table with the same rows = $(fmt2 "$(calc "$ext_bpi / $same_bpi")")"
    echo "(a singletable table *is* a plain (pk, sk, item) table with a primary key: no extra column,"
    echo "index or trigger); ÷ plain table whose items omit the key attributes = $(fmt2 "$(calc "$ext_bpi / $nok_bpi")")"
    echo "(the cost of keeping the keys inside the item as well, as DynamoDB returns them)."
    echo
    echo "## Where the time goes"
    echo
    if ((${#PROFILED[@]} == 0)); then
        if [[ $PERF_OK != 1 ]]; then
            echo "perf is not usable on this machine: no profiles."
        else
            echo "No profile taken (BENCH_PROFILE=$PROFILE and no pair target missed)."
        fi
    else
        echo "Profiles taken for: BENCH_PROFILE=$PROFILE (all = every pair and the prefix test)."
        echo
        echo "perf (cpu-clock sampling at 999 Hz of the whole machine, with call graphs) for $PROF_SECS s"
        echo "in the middle of a $CLIENTS-client run of A and of B. Each row is the CPU time per transaction"
        echo "spent inside that function (inclusive: with everything it calls, kernel included): the share"
        echo "of the server's samples whose stack contains it, times the server's CPU time per"
        echo "transaction measured from /proc over the same run. The PostgreSQL binary has no debug"
        echo "symbols, so only exported functions can be named."
        echo
        for pr in "${PROFILED[@]}"; do
            tag=${pr%%|*}
            read -r atps aback aclient <"$OUT/perf/$tag.A.meta"
            read -r btps bback bclient <"$OUT/perf/$tag.B.meta"
            echo "### ${pr#*|}"
            echo
            echo "| function | A µs/txn | B µs/txn |"
            echo "|---|---|---|"
            echo "| all server CPU (from /proc) | $(fmt2 "$(us_per_txn "$tag.A" "$aback")") | $(fmt2 "$(us_per_txn "$tag.B" "$bback")") |"
            echo "| pgbench client CPU | $(fmt2 "$(us_per_txn "$tag.A" "$aclient")") | $(fmt2 "$(us_per_txn "$tag.B" "$bclient")") |"
            for f in $PROF_SYMS; do
                sa=$(awk -v f="$f" '$1 == f { print $2 }' "$OUT/perf/$tag.A.syms")
                sb=$(awk -v f="$f" '$1 == f { print $2 }' "$OUT/perf/$tag.B.syms")
                [[ -z $sa && -z $sb ]] && continue
                ua=$(us_per_txn "$tag.A" "${sa:-0}")
                ub=$(us_per_txn "$tag.B" "${sb:-0}")
                # leave out what is below 0.3 us on both sides
                ge "$ua" 0.3 || ge "$ub" 0.3 || continue
                echo "| \`$f\` | $(fmt2 "$ua") | $(fmt2 "$ub") |"
            done
            echo
            echo "(throughput during the profile: A $(fmt0 "$atps") tps, B $(fmt0 "$btps") tps)"
            echo
            explain_profile "$tag"
        done
    fi
    echo
    wide_report
    gsi_report
    ttl_report
    echo "## Files"
    echo
    echo "* [run.sh]($REPORT_LINKBASE/run.sh) (the runner), [scripts/]($REPORT_LINKBASE/scripts/) (pgbench scripts;"
    echo "  \`@TABLE@\`/\`@NCOLL@\` are substituted), [sql/setup.sql]($REPORT_LINKBASE/sql/setup.sql) (data generator),"
    echo "  [sql/wide_put.sql]($REPORT_LINKBASE/sql/wide_put.sql), [sql/gsi.sql]($REPORT_LINKBASE/sql/gsi.sql) and [sql/ttl.sql]($REPORT_LINKBASE/sql/ttl.sql) (wide items, secondary indexes, TTL)"
    echo "* [$RESULTS_LINK/results.csv]($RESULTS_LINK/results.csv): every measurement"
    echo "  (section,name,variant,round,metric,value); raw pgbench output in test/bench/out/raw/ (not committed)"
} >"$REPORT"

log "report: $REPORT"
log "results: $RES${PLOT:+, $PLOT}"
echo "bench: done in $((ELAPSED / 60)) min $((ELAPSED % 60)) s"
