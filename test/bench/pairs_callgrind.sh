#!/usr/bin/env bash
# test/bench/pairs_callgrind.sh: CPU instructions of one get_item and one 30-item query
# against the hand-written SQL of the same item(s) (the get and query30 pairs of run.sh),
# counted by valgrind's callgrind (repeatable to a fraction of a percent, unlike throughput
# on a shared machine), and where they go. The same method as dynamodb_callgrind.sh.
#
#   test/bench/pairs_callgrind.sh [CALLS]     (default 400 calls of each script)
#   DDB_CG_REF=<rev> test/bench/pairs_callgrind.sh   the extension of commit <rev> instead
#   DDB_CG_SETTINGS="singletable.track_capacity = off" test/bench/pairs_callgrind.sh
#                                    one more server setting (what a feature's work costs)
#
# Builds and installs the extension (PG_CONFIG honoured: pass your stage's), starts a throwaway
# server with test/lib.sh, loads the benchmark's data generator (sql/setup.sql) with 100
# collections of 100 items into table "pairs", stops the server, then runs each of
#   get_ext     singletable.get_item('pairs', pk, sk)            (scripts/get_ext.sql)
#   get_sql     SELECT item FROM pairs WHERE pk = ... AND sk = ... (scripts/get_sql.sql)
#   query_ext   SELECT * FROM singletable.query(..., 'begins_with', 'ORDER#'), 30 items
#                                                                (scripts/query_ext.sql)
#   query_sql   SELECT pk, sk, item ... ORDER BY sk, same slice  (scripts/query_sql.sql)
#   empty       SELECT 1 (what a statement costs anyway)
# as pgbench runs them in the throughput bench (-M prepared, one client, a fixed random seed),
# against a server whose postmaster runs under callgrind (every backend is counted, each in its
# own file); the backend of pgbench's connection is the file with the most instructions. All of
# that backend's work counts, as in a real session: the protocol, binding and executing the
# prepared statement, and sending each result row to the client (printtup; an earlier version
# counted single-user mode's debugtup, which prints every column with printf and so charged
# the native Query's 30 rows of 3 columns far more than a client is ever sent). Prints
# instructions per call (minus the empty statement's), the ratio ext/sql of each pair, and with
# DDB_CG_TOP=N (default 25) the top N functions of each script by inclusive instructions.
# Output files: test/bench/out/callgrind/. Not part of CI.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../lib.sh"
CALLS=${1:-400}
NTOP=${DDB_CG_TOP:-25}
OUTDIR=$HERE/out/pairs_callgrind
mkdir -p "$OUTDIR"
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }

SRC=$TOP
if [[ -n ${DDB_CG_REF:-} ]]; then
    # the extension of another commit (git archive), measured with this script and its scripts
    SRC=$(mktemp -d /tmp/pairs_callgrind.XXXXXX)
    git -C "$TOP" archive "$DDB_CG_REF" | tar -x -C "$SRC"
fi
if [[ ${DDB_CG_NOBUILD:-0} != 1 ]]; then
    # from clean: objects built with other flags (check.sh: assertions) would be kept
    make -C "$SRC" clean PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1
    make -C "$SRC" -j2 PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1 || { echo "build failed" >&2; exit 1; }
    make -C "$SRC" install PG_CONFIG="$PG_CONFIG" >/dev/null || { echo "install failed" >&2; exit 1; }
fi
psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }
st_start_server "shared_buffers = 256MB" "singletable.ttl_enabled = off" "autovacuum = off" \
    ${DDB_CG_SETTINGS:+"$DDB_CG_SETTINGS"} >/dev/null ||
    { echo "server failed" >&2; exit 1; }
psql -c "CREATE EXTENSION singletable" >/dev/null
psql -f "$HERE/sql/setup.sql" >/dev/null
psql -c "SELECT singletable.create_table('pairs')" -c "INSERT INTO pairs SELECT * FROM bench_rows(100)" \
     -c "VACUUM ANALYZE pairs" >/dev/null
st_as_owner "$PGBIN/pg_ctl" -D "$ST_DIR/data" -m fast -w stop >/dev/null

# the same server, its postmaster (and so every backend it forks) under callgrind
CG=$ST_DIR/callgrind
mkdir -p "$CG"
chown postgres: "$CG" 2>/dev/null || true
st_as_owner valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$CG/cg.%p" \
    "$PGBIN/postgres" -D "$ST_DIR/data" >"$CG/server.log" 2>&1 &
for ((i = 0; i < 120; i++)); do "$PGBIN/pg_isready" -q && break; sleep 1; done
"$PGBIN/pg_isready" -q || { echo "server under callgrind did not start" >&2; cat "$CG/server.log" >&2; exit 1; }

for kind in get_ext get_sql query_ext query_sql; do
    sed -e 's/@TABLE@/pairs/g' -e 's/@NCOLL@/100/g' "$HERE/scripts/$kind.sql" >"$CG/$kind.sql"
done
echo 'SELECT 1;' >"$CG/empty.sql"

# Instructions of the backend of one pgbench connection that runs n transactions of a kind
# (pgbench -M prepared parses and plans once, as in the throughput bench). A call's figure is
# (run of CALLS - run of 20) / (CALLS - 20): the connection's start, loading the library and
# the first calls' cache fills cancel out.
declare -A IR
run() {
    local kind=$1 n=$2 before f best=0 bestf= ir
    before=$(ls "$CG"/cg.* 2>/dev/null | sort)
    "$PGBIN/pgbench" -n -M prepared -c 1 -t "$n" --random-seed=20240501 -f "$CG/$kind.sql" \
        >"$CG/$kind.$n.pgbench" 2>&1 || { cat "$CG/$kind.$n.pgbench" >&2; exit 1; }
    # a backend writes its file when it exits, after pgbench has gone (pgbench's own first
    # connection is a backend too): wait until every new file is complete and none has
    # appeared for two seconds
    local seen= now complete
    for ((i = 0; i < 60; i++)); do
        sleep 1
        now=$(comm -13 <(echo "$before") <(ls "$CG"/cg.* | sort))
        complete=1
        for f in $now; do grep -q '^summary:' "$f" || complete=0; done
        if [[ -n $now && $now == "$seen" && $complete == 1 ]] && ((i >= 2)); then break; fi
        seen=$now
    done
    for f in $now; do
        ir=$(awk '/^summary:/ { print $2 }' "$f")
        if [[ -n $ir ]] && ((ir > best)); then best=$ir bestf=$f; fi
    done
    ((best > 0)) || { echo "no callgrind output of the $kind backend" >&2; exit 1; }
    cp "$bestf" "$OUTDIR/$kind.$n.out"
    echo "$best"
}
for kind in empty get_ext get_sql query_ext query_sql; do
    st_log "callgrind: $kind"
    small=$(run "$kind" 20)
    full=$(run "$kind" "$CALLS")
    IR[$kind]=$(((full - small) / (CALLS - 20)))
done
per() { echo $((IR[$1] - IR[empty])); }
printf '%-10s %12s\n' kind "instr/call" empty "${IR[empty]}"
echo "(the others: minus the empty statement's)"
for kind in get_ext get_sql query_ext query_sql; do
    printf '%-10s %12d\n' "$kind" "$(per "$kind")"
done
# ext/sql of instructions is sql/ext of the throughput a CPU-bound backend would have
awk -v gs="$(per get_sql)" -v ge="$(per get_ext)" -v qs="$(per query_sql)" -v qe="$(per query_ext)" \
    'BEGIN { printf "get:     ext/sql instructions %.3f (throughput ratio if CPU-bound %.2f)\n", ge / gs, gs / ge;
             printf "query30: ext/sql instructions %.3f (throughput ratio if CPU-bound %.2f)\n", qe / qs, qs / qe }'
if ((NTOP > 0)); then
    for kind in get_ext get_sql query_ext query_sql; do
        echo "--- $kind: top $NTOP functions by inclusive instructions (whole run of $CALLS statements)"
        # awk reads to the end (head would stop callgrind_annotate with SIGPIPE, which
        # pipefail and set -e turn into the script's exit after the first list)
        callgrind_annotate --inclusive=yes "$OUTDIR/$kind.$CALLS.out" 2>/dev/null |
            grep -E '^ *[0-9,]+ ' | awk -v n="$NTOP" 'NR <= n'
    done
fi
