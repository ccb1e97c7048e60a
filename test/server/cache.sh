#!/usr/bin/env bash
# test/server/cache.sh: the per-backend cache of item tables, seen from long-lived sessions.
#
# 1. Invalidation across backends: session A uses s.t (entry cached, statements kept);
#    another session renames schema s to s_old and creates a new s.t, then drops and
#    recreates a table A used with other key types. A's calls naming s_old.t must touch
#    only the old table, its drop_table('s_old.t') must leave the new s.t intact, and the
#    recreated table must be used with its new key types.
# 2. Memory: one backend runs create_table, put_item, get_item, query, drop_table 2,000
#    times, one transaction per cycle; its memory (pg_backend_memory_contexts) is read
#    after 200 and after 2,000 cycles. Two sums: every context but CacheMemoryContext
#    itself (the cache entries, their kept plans, everything else of the backend), which
#    may grow by at most 512 kB (0.3 kB a cycle), and CacheMemoryContext's own chunks,
#    up to 8 MB (4.4 kB a cycle). Before stale entries were freed the backend grew by
#    about 59 kB a cycle, 100 MB here. The second bound is PostgreSQL's, not ours: its
#    catalog caches keep entries about each dropped table (measured 1.1 kB a cycle for
#    the same cycle in plain SQL without the extension, 1.8 kB with the extension's
#    sql_drop event trigger firing on each drop). No "singletable table" memory context
#    may be left for the dropped tables.
# 3. Both again on a server started with shared_preload_libraries = 'singletable' (the
#    library's _PG_init then runs in the postmaster), unless ST_CACHE_PRELOADED is set,
#    which marks that inner run.
#
# Prints TAP lines; test/run.sh runs it against its server, run alone it starts one.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ -n ${ST_CACHE_PRELOADED:-} ]]; then
    # the inner run: a server of its own, with the library preloaded
    unset ST_DIR
    # shellcheck source=test/lib.sh
    source "$HERE/../lib.sh"
    st_start_server "shared_preload_libraries = 'singletable'" >/dev/null 2>&1 \
        || { echo "Bail out! could not start a server with the library preloaded"; exit 1; }
fi
# shellcheck source=test/tap.sh
source "$HERE/../tap.sh"
# shellcheck source=test/server/session.sh
source "$HERE/session.sh"
trap 'session_stop_all; tap_cleanup' EXIT

DB=singletable_cache
CYCLES_FIRST=200
CYCLES_TOTAL=2000
MAX_GROWTH=$((512 * 1024))          # all contexts but CacheMemoryContext
MAX_GROWTH_CATCACHE=$((8 * 1024 * 1024))  # CacheMemoryContext's own chunks

if out=$(q postgres 2>&1 <<<"SET client_min_messages = warning;
DROP DATABASE IF EXISTS $DB;
CREATE DATABASE $DB;") && out=$(q "$DB" 2>&1 <<<"SET client_min_messages = warning;
CREATE EXTENSION singletable;
CREATE SCHEMA s;
SELECT singletable.create_table('s.t');
SELECT singletable.create_table('rec');"); then
    ok "setup: a database with item tables s.t and rec"
else
    not_ok "setup: a database with item tables s.t and rec"
    diag "$out"
    bail "no setup"
fi

# a_expect DESC EXPECTED SQL: runs SQL in session A; ok when its output is EXPECTED.
a_expect() {
    local desc=$1 expected=$2 sql=$3 out
    if out=$(session_run A "$sql") && [[ $out == "$expected" ]]; then
        ok "$desc"
    else
        not_ok "$desc"
        diag "expected:" "$expected" "got:" "$out"
    fi
}

#
# 1. Invalidation across backends
#
session_start A "$DB"
a_expect "session A caches s.t and rec with every statement shape" \
    "t|t
t|2|1|t" \
    "SELECT singletable.put_item('s.t', '{\"pk\": \"old\", \"sk\": \"1\"}') IS NULL,
            singletable.put_item('s.t', '{\"pk\": \"old\", \"sk\": \"2\"}', 'attribute_not_exists(pk)') IS NULL;
     SELECT singletable.get_item('s.t', 'old', '1') IS NOT NULL,
            (SELECT count(*) FROM singletable.query('s.t', 'old')),
            (SELECT count(*) FROM singletable.query('s.t', 'old', '>', '1')),
            singletable.put_item('rec', '{\"pk\": \"x\", \"sk\": \"y\"}') IS NULL;"

expect "$DB" "another session renames schema s to s_old and creates a new s.t" "s.t" \
    "ALTER SCHEMA s RENAME TO s_old;
     CREATE SCHEMA s;
     SELECT singletable.create_table('s.t');"

a_expect "session A's calls naming s_old.t reach the old table" \
    "t
t
{\"pk\": \"old\", \"sk\": \"2\"}
{\"pk\": \"old\", \"sk\": \"1\"}
1
old|3
new|0" \
    "SELECT singletable.put_item('s_old.t', '{\"pk\": \"old\", \"sk\": \"3\"}') IS NULL;
     SELECT singletable.put_item('s_old.t', '{\"pk\": \"old\", \"sk\": \"4\"}', 'attribute_not_exists(pk)') IS NULL;
     SELECT singletable.delete_item('s_old.t', 'old', '2', return_values => 'ALL_OLD');
     SELECT singletable.get_item('s_old.t', 'old', '1');
     SELECT count(*) FROM singletable.query('s_old.t', 'old', '>', '3');
     SELECT 'old', count(*) FROM s_old.t;
     SELECT 'new', count(*) FROM s.t;"

a_expect "session A's drop_table('s_old.t') drops the old table and leaves s.t intact" \
    "
t|t" \
    "SELECT singletable.drop_table('s_old.t');
     SELECT to_regclass('s_old.t') IS NULL, to_regclass('s.t') IS NOT NULL;"

expect "$DB" "another session drops rec and creates it again with N keys" "
rec" \
    "SELECT singletable.drop_table('rec');
     SELECT singletable.create_table('rec', partition_key => 'id', partition_key_type => 'N',
                                     sort_key => 'n', sort_key_type => 'N');"

a_expect "session A uses the recreated rec with its new key types" \
    "t
{\"n\": 2, \"id\": 1}
rec|id|N|n|N" \
    "SELECT singletable.put_item('rec', '{\"id\": 1, \"n\": 2}') IS NULL;
     SELECT singletable.get_item('rec', '1', '2');
     SELECT d->>'TableName', d#>>'{KeySchema,0,AttributeName}', d#>>'{AttributeDefinitions,0,AttributeType}',
            d#>>'{KeySchema,1,AttributeName}', d#>>'{AttributeDefinitions,1,AttributeType}'
       FROM singletable.describe_table('rec') d;"
session_stop A

#
# 2. Memory over create/use/drop cycles in one backend
#
CYCLE_PROC="CREATE PROCEDURE pg_temp.cycles(n int) LANGUAGE plpgsql AS \$\$
BEGIN
    FOR i IN 1..n LOOP
        PERFORM singletable.create_table('mem_t');
        PERFORM singletable.put_item('mem_t', jsonb_build_object('pk', 'p', 'sk', i::text, 'v', repeat('x', 100)));
        PERFORM singletable.get_item('mem_t', 'p', i::text);
        PERFORM count(*) FROM singletable.query('mem_t', 'p');
        PERFORM singletable.drop_table('mem_t');
        COMMIT;
    END LOOP;
END \$\$;"
MEM_SQL="SELECT sum(total_bytes) FILTER (WHERE name <> 'CacheMemoryContext'),
                sum(total_bytes) FILTER (WHERE name = 'CacheMemoryContext')
           FROM pg_backend_memory_contexts;"
ENTRIES_SQL="SELECT count(*) FROM pg_backend_memory_contexts WHERE name = 'singletable table';"

session_start M "$DB"
if ! out=$(session_run M "SET client_min_messages = warning; $CYCLE_PROC CALL pg_temp.cycles(20);"); then
    not_ok "memory: the cycle procedure runs"
    diag "$out"
else
    ok "memory: the cycle procedure runs"
    m1=$(session_run M "CALL pg_temp.cycles($((CYCLES_FIRST - 20))); $MEM_SQL")
    m2=$(session_run M "CALL pg_temp.cycles($((CYCLES_TOTAL - CYCLES_FIRST))); $MEM_SQL" 600)
    entries=$(session_run M "$ENTRIES_SQL")
    IFS='|' read -r c1 o1 <<<"$m1"
    IFS='|' read -r c2 o2 <<<"$m2"
    diag "after $CYCLES_FIRST cycles: $c1 bytes in contexts, $o1 in CacheMemoryContext itself" \
        "after $CYCLES_TOTAL cycles: $c2 bytes in contexts, $o2 in CacheMemoryContext itself"
    if [[ $c1$c2 =~ ^[0-9]+$ ]] && ((c2 - c1 <= MAX_GROWTH)); then
        ok "memory: cycles $CYCLES_FIRST to $CYCLES_TOTAL grow the backend's memory contexts by at most $MAX_GROWTH bytes"
    else
        not_ok "memory: cycles $CYCLES_FIRST to $CYCLES_TOTAL grow the backend's memory contexts by at most $MAX_GROWTH bytes"
        diag "grew by $((${c2:-0} - ${c1:-0})) bytes"
    fi
    if [[ $o1$o2 =~ ^[0-9]+$ ]] && ((o2 - o1 <= MAX_GROWTH_CATCACHE)); then
        ok "memory: cycles $CYCLES_FIRST to $CYCLES_TOTAL grow CacheMemoryContext itself by at most $MAX_GROWTH_CATCACHE bytes"
    else
        not_ok "memory: cycles $CYCLES_FIRST to $CYCLES_TOTAL grow CacheMemoryContext itself by at most $MAX_GROWTH_CATCACHE bytes"
        diag "grew by $((${o2:-0} - ${o1:-0})) bytes"
    fi
    if [[ $entries == 0 ]]; then
        ok "memory: no cache entry of a dropped table is left"
    else
        not_ok "memory: no cache entry of a dropped table is left"
        diag "'singletable table' contexts: $entries"
    fi
fi
session_stop M

#
# 3. The same with the library preloaded
#
if [[ -z ${ST_CACHE_PRELOADED:-} ]]; then
    inner=$(ST_CACHE_PRELOADED=1 bash "$HERE/cache.sh" 2>&1)
    while IFS= read -r line; do
        case $line in
            "ok "*) ok "preloaded: ${line#ok * - }" ;;
            "not ok "*) not_ok "preloaded: ${line#not ok * - }" ;;
            "Bail out!"*) not_ok "preloaded: $line" ;;
            "#"*) echo "$line" ;;
        esac
    done <<<"$inner"
fi

echo "1..$N"
if ((FAILURES == 0)) && [[ ${ST_KEEP:-0} != 1 ]]; then
    q postgres >/dev/null 2>&1 <<<"DROP DATABASE $DB;"
fi
if ((FAILURES > 0)); then
    diag "$FAILURES of $N checks failed"
    exit 1
fi
exit 0
