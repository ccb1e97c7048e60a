#!/usr/bin/env bash
# test/bench/citus_describe.sh: what DescribeTable of a distributed table costs, and what its
# figures cost when read one connection per shard (issue 31).
#
#   test/bench/citus_describe.sh [ROUNDS]      (default 5; as root, like test/citus/run.sh)
#
# Starts the three-node Citus cluster of test/citus/cluster.sh (Citus and singletable
# installed in $PG_CONFIG's PostgreSQL: test/citus/build.sh and make install), distributes a
# 32-shard table of 3,000 items with one GSI, then, in alternating order each round, times
# in one psql session: A = singletable.dynamodb('DescribeTable') (its figures from one
# statement per node, run_command_on_all_nodes) and B = a bare
# run_command_on_shards('SELECT 1') on the same table, which is what reading them per
# shard (as describe_table did before) costs at the least. Prints each round's ms and the
# median ratio A / B. Not part of CI. Environment: CL_PORT_BASE (57440).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROUNDS=${1:-5}
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config} CL_PORT_BASE=${CL_PORT_BASE:-57440}
# shellcheck source=test/citus/cluster.sh
source "$HERE/../citus/cluster.sh"
cl_start >/dev/null 2>&1 || exit 1
cl_sql coord "SET client_min_messages = warning;
  SELECT singletable.create_table('bench_describe');
  SELECT singletable.distribute_table('bench_describe', 32);
  SELECT count(singletable.put_item('bench_describe', jsonb_strip_nulls(jsonb_build_object('pk', 'P' || (i % 97),
           'sk', 'S' || i, 'g', CASE WHEN i % 2 = 0 THEN 'G' || (i % 3) END)))) FROM generate_series(1, 3000) i;
  SELECT singletable.create_gsi('bench_describe', 'byg', 'g');" >/dev/null || exit 1
cl_sql coord "VACUUM ANALYZE bench_describe" || exit 1
# ms of one statement, timed inside the server (clock_timestamp around it)
timed() {
    cl_sql coord "DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); BEGIN PERFORM $1;
                  RAISE NOTICE 'ms=%', round(extract(epoch FROM clock_timestamp() - t0) * 1000, 1); END \$\$" 2>&1 |
        sed -n 's/.*ms=//p'
}
A_SQL="singletable.dynamodb('DescribeTable', '{\"TableName\": \"bench_describe\"}')"
B_SQL="(SELECT count(*) FROM run_command_on_shards('bench_describe', 'SELECT 1'))"
timed "$A_SQL" >/dev/null; timed "$B_SQL" >/dev/null   # warm-up
RATIOS=()
for ((r = 1; r <= ROUNDS; r++)); do
    if ((r % 2)); then a=$(timed "$A_SQL"); b=$(timed "$B_SQL"); else b=$(timed "$B_SQL"); a=$(timed "$A_SQL"); fi
    ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')
    RATIOS+=("$ratio")
    echo "round $r: DescribeTable $a ms, run_command_on_shards $b ms, ratio $ratio"
done
printf '%s\n' "${RATIOS[@]}" | sort -n | awk '{ v[NR] = $1 } END { printf "median DescribeTable / run_command_on_shards: %.3f× (%d rounds, 32 shards, 2 workers)\n", v[int((NR + 1) / 2)], NR }'
cl_sql coord "SELECT singletable.dynamodb('DescribeTable', '{\"TableName\": \"bench_describe\"}')->'Table'->'ItemCount'" |
    sed 's/^/ItemCount as described: /'
