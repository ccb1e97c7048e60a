#!/usr/bin/env bash
# test/server/hot_keys.sh: singletable.hot_keys finds the hot key of a skewed pgbench run.
#
# On a server of its own with shared_preload_libraries = 'singletable' (the sketches in
# shared memory, every session's accesses together) and singletable.hot_keys_tables = 3:
#   (a) a table of 10,000 items; pgbench, 4 clients x TX transactions, each transaction
#       10 get_item calls: one of the hot key HOT, nine of random keys k1..k10000 (which
#       never name HOT). hot_keys must report HOT first among the reads, its count within
#       the sketch's bound (count - error <= 4 x TX <= count) and within 2% of it, its share
#       of the reads near 10%; the reads must all be counted (the shares of a key come from
#       the total), and no write may be reported;
#   (b) the same with put_item: HOT first among the writes, as above, the reads unchanged;
#   (c) tables: two more tables fill the three slots and one more table takes the slot of
#       the least used one, never the busy table of (a) and (b);
#   (d) windows: with singletable.hot_keys_window = 1 s (reload), the keys are gone
#       after two windows without accesses;
#   (e) reset_stats(table) empties the table's hot keys, reset_stats() all of them;
#   (f) the sketch's guarantees on a skewed stream with many more keys than counters: for
#       every key reported count - error <= true count <= count, and every key with more
#       than 1/hot_keys_max of the accesses is reported.
#
# Prints TAP lines; test/run.sh runs it (suite hot_keys), run alone it does the same (the
# extension must be installed: make install). ST_KEEP=1 keeps the server for inspection.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# always a server of its own: the suite needs the library preloaded
unset ST_DIR
# shellcheck source=test/lib.sh
source "$HERE/../lib.sh"
st_start_server "shared_preload_libraries = 'singletable'" "singletable.ttl_enabled = off" \
    "singletable.hot_keys_tables = 3" >/dev/null 2>&1 \
    || { echo "Bail out! could not start a server with the library preloaded"; exit 1; }
# shellcheck source=test/tap.sh
source "$HERE/../tap.sh"

DB=singletable_hot_keys
CLIENTS=4
JOBS=2
TX=${HOT_KEYS_TX:-500}      # transactions per client, 10 calls each
HOT=$((CLIENTS * TX))       # calls of the hot key per run: one per transaction

if [[ ! -x $PGBIN/pgbench ]]; then
    not_ok "pgbench is installed in $PGBIN"
    bail "no pgbench"
fi

# bench DESC NAME: runs the pgbench script $WORK/NAME.sql, CLIENTS x TX transactions;
# ok when pgbench reports every transaction processed.
bench() {
    local desc=$1 name=$2 total=$((CLIENTS * TX)) log="$WORK/$2.log"
    if "$PGBIN/pgbench" -n -f "$WORK/$name.sql" -c "$CLIENTS" -j "$JOBS" -t "$TX" "$DB" \
            >"$log" 2>&1 &&
        grep -q "^number of transactions actually processed: $total/$total\$" "$log"; then
        ok "$desc"
    else
        not_ok "$desc"
        diag <"$log"
    fi
}

# check_hot DESC ACCESS: the first key of that access kind is HOT, with HOT calls within
# its bounds and within 2% of its count, and its share between 9% and 11%.
check_hot() {
    local desc=$1 access=$2
    expect "$DB" "$desc" "HOT|t|t|t" "
SELECT partition_key,
       count - error <= $HOT AND $HOT <= count,
       abs(count - $HOT) <= 0.02 * $HOT,
       share BETWEEN 0.09 AND 0.11
  FROM singletable.hot_keys('t') WHERE access = '$access'
 ORDER BY count DESC LIMIT 1;"
}

if out=$(q postgres 2>&1 <<<"SET client_min_messages = warning;
DROP DATABASE IF EXISTS $DB;
CREATE DATABASE $DB;") && out=$(q "$DB" 2>&1 <<'EOF'
SET client_min_messages = warning;
CREATE EXTENSION singletable;
SELECT singletable.create_table('t', sort_key => NULL);
SELECT singletable.create_table('u1', sort_key => NULL);
SELECT singletable.create_table('u2', sort_key => NULL);
SELECT singletable.create_table('u3', sort_key => NULL);
SELECT count(singletable.put_item('t', jsonb_build_object('pk', 'k' || i, 'v', i)) IS NULL)
  FROM generate_series(1, 10000) i;
SELECT singletable.put_item('t', '{"pk": "HOT", "v": 0}');
EOF
); then
    ok "setup: a table of 10,001 items"
else
    not_ok "setup: a table of 10,001 items"
    diag "$out"
    bail "no setup"
fi

expect "$DB" "the setup's puts were recorded as writes, and reset_stats('t') discards them" $'10001\n0' "
SELECT (SELECT sum(count) FROM singletable.hot_keys('t') WHERE access = 'write');
SELECT singletable.reset_stats('t') \\g /dev/null
SELECT count(*) FROM singletable.hot_keys('t');"

# (a) reads: one call in ten of the hot key
{
    echo "SELECT singletable.get_item('t', 'HOT');"
    for i in 1 2 3 4 5 6 7 8 9; do
        echo "\\set r$i random(1, 10000)"
        echo "SELECT singletable.get_item('t', 'k' || :r$i);"
    done
} >"$WORK/get.sql"
bench "(a) pgbench: $CLIENTS clients x $TX transactions of 10 get_item, one of the hot key" get
check_hot "(a) hot_keys reports the hot key first among the reads, its count within the bounds and near 10%" read
{
    echo "the top reads (access|key|count|error|share) after $HOT calls of HOT in $((10 * HOT)):"
    q "$DB" <<<"SELECT access, partition_key, count, error, round(share::numeric, 4)
  FROM singletable.hot_keys('t') ORDER BY count DESC LIMIT 3;" 2>&1
} | diag
expect "$DB" "(a) every read was counted, no write; the scope is shared" "$((10 * HOT))|0|shared" "
SELECT (SELECT round(max(count) / max(share)) FROM singletable.hot_keys('t') WHERE access = 'read'),
       (SELECT count(*) FROM singletable.hot_keys('t') WHERE access = 'write'),
       (SELECT DISTINCT scope FROM singletable.hot_keys('t'));"
expect "$DB" "(a) at most hot_keys_max keys per access kind, each within its bounds" "t" "
SELECT count(*) <= current_setting('singletable.hot_keys_max')::int AND bool_and(error >= 0 AND count > error)
  FROM singletable.hot_keys('t') WHERE access = 'read';"

# (b) writes: the same with put_item
{
    echo "SELECT singletable.put_item('t', '{\"pk\": \"HOT\", \"v\": 1}');"
    for i in 1 2 3 4 5 6 7 8 9; do
        echo "\\set r$i random(1, 10000)"
        echo "SELECT singletable.put_item('t', jsonb_build_object('pk', 'k' || :r$i, 'v', 1));"
    done
} >"$WORK/put.sql"
bench "(b) pgbench: $CLIENTS clients x $TX transactions of 10 put_item, one of the hot key" put
check_hot "(b) hot_keys reports the hot key first among the writes, its count within the bounds and near 10%" write
check_hot "(b) the reads are still reported as before" read

# (c) tables: t holds one slot; u1 and u2 fill the other two, u3 takes the least used one
if out=$(q "$DB" 2>&1 <<<"SELECT count(singletable.get_item('u1', 'a') IS NULL) FROM generate_series(1, 1);
SELECT count(singletable.get_item('u2', 'a') IS NULL) FROM generate_series(1, 5);
SELECT count(singletable.get_item('u3', 'a') IS NULL) FROM generate_series(1, 1);"); then
    expect "$DB" "(c) a fourth table takes the slot of the least used one (u1), never the busy table t" "0|5|1|t" "
SELECT (SELECT count(*) FROM singletable.hot_keys('u1')),
       (SELECT sum(count) FROM singletable.hot_keys('u2')),
       (SELECT sum(count) FROM singletable.hot_keys('u3')),
       (SELECT count(*) > 0 FROM singletable.hot_keys('t'));"
else
    not_ok "(c) reads of three more tables"
    diag "$out"
fi

# (d) windows: one second each (a reload; every new session reads it)
if out=$(q "$DB" 2>&1 <<<"ALTER SYSTEM SET singletable.hot_keys_window = 1; SELECT pg_reload_conf();"); then
    sleep 2.5
    expect "$DB" "(d) hot_keys_window = 1 s: after two windows without accesses the table reports nothing" "0" "
SELECT count(*) FROM singletable.hot_keys('t');"
    expect "$DB" "(d) the next access opens a new window" "read|HOT|1|0|1" "
SELECT count(singletable.get_item('t', 'HOT') IS NULL) FROM generate_series(1, 1) \\g /dev/null
SELECT access, partition_key, count, error, share FROM singletable.hot_keys('t');"
    q "$DB" <<<"ALTER SYSTEM RESET singletable.hot_keys_window; SELECT pg_reload_conf();" >/dev/null 2>&1
else
    not_ok "(d) set singletable.hot_keys_window"
    diag "$out"
fi

# (e) reset
bench "(e) pgbench again: $CLIENTS clients x $TX transactions of 10 get_item" get
expect "$DB" "(e) reset_stats('t') empties t's hot keys, reset_stats() all" $'t\n0\nt\n0' "
SELECT count(*) > 0 FROM singletable.hot_keys('t');
SELECT singletable.reset_stats('t') \\g /dev/null
SELECT count(*) FROM singletable.hot_keys('t');
SELECT count(singletable.get_item('t', 'HOT') IS NULL) > 0 FROM generate_series(1, 1);
SELECT singletable.reset_stats() \\g /dev/null
SELECT count(*) FROM singletable.hot_keys('t');"

# (f) the sketch's guarantees on a skewed stream with far more keys than counters: key i of
# 1..3000 read about 3000/i times (26,000 reads), in random order, in one statement
expect "$DB" "(f) Zipf-like reads of 3,000 keys: every key reported within its bounds, every key over total/hot_keys_max reported" "t|t|t" "
SELECT singletable.reset_stats() \\g /dev/null
CREATE TEMP TABLE acc AS
  SELECT 'z' || i AS key FROM generate_series(1, 3000) i, generate_series(1, 3000 / i) r ORDER BY random();
SELECT count(singletable.get_item('u3', key) IS NULL) FROM acc \\g /dev/null
WITH truth AS (SELECT key, count(*) AS n FROM acc GROUP BY key),
     total AS (SELECT count(*) AS n FROM acc),
     hot AS (SELECT * FROM singletable.hot_keys('u3') WHERE access = 'read')
SELECT (SELECT count(*) = current_setting('singletable.hot_keys_max')::int FROM hot),
       (SELECT bool_and(h.count - h.error <= t.n AND t.n <= h.count) FROM hot h JOIN truth t ON t.key = h.partition_key),
       (SELECT bool_and(t.key IN (SELECT partition_key FROM hot)) FROM truth t, total
         WHERE t.n > total.n / current_setting('singletable.hot_keys_max')::int);"

echo "1..$N"
((FAILURES == 0))
