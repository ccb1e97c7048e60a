#!/usr/bin/env bash
# test/bench/dynamodb_callgrind.sh: CPU instructions of one singletable.dynamodb('GetItem')
# and ('Query') call against the native get_item / query of the same item(s), counted by
# valgrind's callgrind (repeatable to a fraction of a percent, unlike throughput on a shared
# machine), and where they go.
#
#   test/bench/dynamodb_callgrind.sh [CALLS]     (default 400 calls of each script)
#   DDB_CG_REF=<rev> test/bench/dynamodb_callgrind.sh   the extension of commit <rev> instead
#
# Builds and installs the extension (PG_CONFIG honoured: pass your stage's), starts a throwaway
# server with test/lib.sh, loads the benchmark's data generator (sql/setup.sql) with 100
# collections of 100 items into table "pairs", stops the server, then runs each of
#   get_ext     singletable.get_item('pairs', pk, sk)            (scripts/get_ext.sql)
#   get_ddb     singletable.dynamodb('GetItem', ...)  same keys  (scripts/get_ddb.sql)
#   query_ext   SELECT * FROM singletable.query(..., 'begins_with', 'ORDER#'), 30 items
#                                                                (scripts/query_ext.sql)
#   query_ddb   singletable.dynamodb('Query', ...)    same slice (scripts/query_ddb.sql)
#   empty       SELECT 1 (what a statement costs anyway)
# CALLS times (the same scripts as the throughput bench, prepared) in one backend in
# single-user mode (postgres --single) under callgrind, the results printed to /dev/null as
# a client would be sent them. Prints instructions per call (minus the empty statement's), the
# ratio D/N of each pair, and with DDB_CG_TOP=N (default 25) the top N functions of each
# dynamodb script by inclusive instructions. Output files: test/bench/out/callgrind/.
# Not part of CI.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../lib.sh"
CALLS=${1:-400}
NTOP=${DDB_CG_TOP:-25}
OUTDIR=$HERE/out/callgrind
mkdir -p "$OUTDIR"
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }

SRC=$TOP
if [[ -n ${DDB_CG_REF:-} ]]; then
    # the extension of another commit (git archive), measured with this script and its scripts
    SRC=$(mktemp -d /tmp/dynamodb_callgrind.XXXXXX)
    git -C "$TOP" archive "$DDB_CG_REF" | tar -x -C "$SRC"
fi
if [[ ${DDB_CG_NOBUILD:-0} != 1 ]]; then
    # from clean: objects built with other flags (check.sh: assertions) would be kept
    make -C "$SRC" clean PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1
    make -C "$SRC" -j2 PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1 || { echo "build failed" >&2; exit 1; }
    make -C "$SRC" install PG_CONFIG="$PG_CONFIG" >/dev/null || { echo "install failed" >&2; exit 1; }
fi
st_start_server "shared_buffers = 256MB" "singletable.ttl_enabled = off" >/dev/null || { echo "server failed" >&2; exit 1; }
psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }
psql -c "CREATE EXTENSION singletable" >/dev/null
psql -f "$HERE/sql/setup.sql" >/dev/null
psql -c "SELECT singletable.create_table('pairs')" -c "INSERT INTO pairs SELECT * FROM bench_rows(100)" \
     -c "VACUUM ANALYZE pairs" >/dev/null
st_as_owner "$PGBIN/pg_ctl" -D "$ST_DIR/data" -m fast -w stop >/dev/null

# One statement per line (single-user mode ends a statement at a newline): the pgbench
# script prepared (its \set lines dropped, :c and :j its parameters $1 and $2), then executed
# CALLS times with the keys the script would draw (a fixed sequence here), as pgbench
# -M prepared does.
statements() {
    local kind=$1 i c j
    if [[ $kind == empty ]]; then
        echo "PREPARE s(int, int) AS SELECT 1"
    else
        echo "PREPARE s(int, int) AS $(sed -e '/^--/d' -e '/^\\set/d' -e 's/@TABLE@/pairs/g' -e 's/@NCOLL@/100/g' \
            -e 's/\([^:]\):c/\1$1/g' -e 's/\([^:]\):j/\1$2/g' "$HERE/scripts/$kind.sql" | tr '\n' ' ')"
    fi
    for ((i = 0; i < CALLS; i++)); do
        c=$((10000000 + (i * 37) % 100)) j=$((100 + (i * 53) % 100))
        echo "EXECUTE s($c, $j)"
    done
}

# Instructions of executing the statements (PortalRun: pgbench -M prepared parses and plans
# once; so does this count) of a backend that runs the first n
# statements of a kind. A call's figure is (run of CALLS - run of 20) / (CALLS - 20): loading
# the library and the first calls' cache fills cancel out.
declare -A IR
run() {
    local kind=$1 n=$2 f="$ST_DIR/$1.$2"
    statements "$kind" | head -n "$n" >"$f.sql"
    st_as_owner valgrind --tool=callgrind --toggle-collect=PortalRun --callgrind-out-file="$f.out" \
        "$PGBIN/postgres" --single -D "$ST_DIR/data" -c shared_buffers=256MB postgres \
        <"$f.sql" >/dev/null 2>"$f.log"
    cp "$f.out" "$f.sql" "$f.log" "$OUTDIR/"
    awk '/^summary:/ { print $2 }' "$f.out"
}
for kind in empty get_ext get_ddb query_ext query_ddb; do
    st_log "callgrind: $kind"
    small=$(run "$kind" 20)
    full=$(run "$kind" "$CALLS")
    IR[$kind]=$(((full - small) / (CALLS - 20)))
done
per() { echo $((IR[$1] - IR[empty])); }
printf '%-10s %12s\n' kind "instr/call" empty "${IR[empty]}"
echo "(the others: minus the empty statement's)"
for kind in get_ext get_ddb query_ext query_ddb; do
    printf '%-10s %12d\n' "$kind" "$(per "$kind")"
done
# D/N of instructions is N/D of the throughput a CPU-bound backend would have
awk -v gd="$(per get_ddb)" -v ge="$(per get_ext)" -v qd="$(per query_ddb)" -v qe="$(per query_ext)" \
    'BEGIN { printf "GetItem: dynamodb/native instructions %.3f (throughput ratio if CPU-bound %.2f)\n", gd / ge, ge / gd;
             printf "Query:   dynamodb/native instructions %.3f (throughput ratio if CPU-bound %.2f)\n", qd / qe, qe / qd }'
if ((NTOP > 0)); then
    for kind in get_ext get_ddb query_ext query_ddb; do
        echo "--- $kind: top $NTOP functions by inclusive instructions (whole run of $CALLS statements)"
        callgrind_annotate --inclusive=yes "$OUTDIR/$kind.$CALLS.out" 2>/dev/null |
            grep -E '^ *[0-9,]+ ' | head -n "$NTOP"
    done
fi
