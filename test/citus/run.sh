#!/usr/bin/env bash
# test/citus/run.sh: singletable on a three-node Citus cluster (the distributed suite).
#
# Builds Citus from the vendored source (test/citus/build.sh, cached between runs), starts a
# coordinator and two workers (test/citus/cluster.sh), and runs the posting app of
# test/demo/posting_app.sql against two copies of the same data on the coordinator:
# "posting", distributed by its partition key, and "posting_local", a plain table. Most
# checks run the same statement on both and compare the output: every access pattern,
# conditional writes and return values, the scheduler GSI across shards with its pages,
# scans of the table and the GSI with their segments, indexes created before and after
# distribution (on every shard), transactions. Then
# which shards each single-key call touched (Citus's log of the commands it sends), the
# plans (router vs multi-shard), atomic counters under concurrency (pgbench), and the
# server logs (no crash).
#
# Everything here is plain SQL through the coordinator, as an application would run it; the
# one place that says how a table is distributed is distribute_sql (singletable's
# distribute_table when the installed extension has it, else Citus's create_distributed_table).
#
# Prints one TAP line per check ("ok N - ..." / "not ok N - ...", details as "# ..." lines,
# a final "1..N"), which test/run.sh's pg_regress parser counts; exits non-zero when a
# check failed. A failed statement is reported with its error, the lines that every
# node's server log got meanwhile, and gdb backtraces of crashed backends. Run as root
# (build.sh installs packages and Citus); the singletable extension must be installed
# (make install). ST_KEEP=1 leaves the cluster running at exit. CITUS_SHARD_COUNT (default
# 32, Citus's default) sets the shard count of the distributed tables;
# CITUS_DISTRIBUTE_WITH=citus distributes them with Citus's create_distributed_table even
# when singletable has distribute_table.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
T_START=$(date +%s)

N=0
FAILURES=0
ok() {
    N=$((N + 1))
    echo "ok $N - $1"
}
not_ok() {
    N=$((N + 1))
    FAILURES=$((FAILURES + 1))
    echo "not ok $N - $1"
}
diag() {
    if (($# > 0)); then
        printf '%s\n' "$@" | sed 's/^/# /'
    else
        sed 's/^/# /'
    fi
}
bail() {
    echo "1..$N"
    echo "Bail out! $1"
    exit 1
}

#
# Citus and the cluster
#
t0=$(date +%s)
if bash "$HERE/build.sh" >&2; then
    ok "Citus built from the vendored source and installed ($(($(date +%s) - t0)) s)"
else
    not_ok "Citus built from the vendored source and installed"
    bail "no Citus"
fi

# shellcheck source=test/citus/cluster.sh
source "$HERE/cluster.sh"
# the cluster where this run says, not where cluster.sh would put it by default: a
# directory of our own and ports from 55440 (CITUS_PORT_BASE, CITUS_PARENT_DIR override)
CL_PARENT_DIR=${CITUS_PARENT_DIR:-$(mktemp -d /tmp/st-citus-run.XXXXXX)}
CL_PORT_BASE=${CITUS_PORT_BASE:-55440}
chmod 755 "$CL_PARENT_DIR"
t0=$(date +%s)
# singletable preloaded on every node for its TTL workers (each node sweeps its own shards,
# see "TTL on every node" below), which stay off until then: the checks before sweep with
# ttl_sweep() themselves
if cl_start "shared_preload_libraries = 'citus,singletable'" "singletable.ttl_enabled = off"; then
    ok "a coordinator and two workers started, citus and singletable created on each ($(($(date +%s) - t0)) s)"
else
    not_ok "a coordinator and two workers started, citus and singletable created on each"
    bail "no cluster"
fi
# cl_stop removes CL_DIR at exit; then the directory made here, when it is empty
trap 'cl_stop; [[ -n ${CITUS_PARENT_DIR:-} ]] || rmdir "$CL_PARENT_DIR" 2>/dev/null' EXIT
if [[ $CL_DIR == "$CL_PARENT_DIR"/singletable_citus.* ]] && ((CL_PORT[coord] >= CL_PORT_BASE &&
    CL_PORT[worker1] >= CL_PORT_BASE && CL_PORT[worker2] >= CL_PORT_BASE)) &&
    [[ $(cl_sql coord "SELECT string_agg(nodename || ':' || nodeport, ' ' ORDER BY nodeport) FROM pg_dist_node") == \
       "${CL_HOST[coord]}:${CL_PORT[coord]} ${CL_HOST[worker1]}:${CL_PORT[worker1]} ${CL_HOST[worker2]}:${CL_PORT[worker2]}" ]]; then
    ok "the cluster runs in CL_PARENT_DIR ($CL_PARENT_DIR) on ports from CL_PORT_BASE ($CL_PORT_BASE), as Citus's metadata says"
else
    not_ok "the cluster runs in CL_PARENT_DIR on ports from CL_PORT_BASE"
    diag "CL_DIR=$CL_DIR ports ${CL_PORT[*]}" "$(cl_sql coord "SELECT nodename, nodeport FROM pg_dist_node" 2>&1)"
fi
WORK=$CL_DIR/work
mkdir -p "$WORK"
SHARDS=${CITUS_SHARD_COUNT:-32}

#
# Helpers
#
declare -A LOGMARK=()
CRASHED=0

# Remembers where every node's server log ends, for log_excerpt.
mark_logs() {
    local node
    for node in "${CL_NODES[@]}"; do
        LOGMARK[$node]=$(stat -c %s "$(cl_log "$node")" 2>/dev/null || echo 0)
    done
}

# The lines every node's log got since mark_logs (errors, warnings and crashes, with the
# lines that follow them: DETAIL, CONTEXT, STATEMENT), at most 40 a node.
log_excerpt() {
    local node
    for node in "${CL_NODES[@]}"; do
        tail -c +"$((${LOGMARK[$node]:-0} + 1))" "$(cl_log "$node")" 2>/dev/null |
            grep -E -A4 'ERROR|FATAL|PANIC|WARNING|TRAP|terminated by signal|was terminated|server process' |
            head -n 40 | sed "s|^|$node log: |"
    done
}

# After a failure: the log excerpt, backtraces, and (after a crash, which restarts every
# session of the node) a wait until the coordinator accepts connections again.
failure_details() {
    local i excerpt
    excerpt=$(log_excerpt)
    [[ -n $excerpt ]] && diag "server logs meanwhile:" "$excerpt"
    if grep -q 'terminated by signal' <<<"$excerpt"; then
        CRASHED=$((CRASHED + 1))
        diag "a backend CRASHED (see above); core files:"
        cl_backtraces | diag
        for ((i = 0; i < 60; i++)); do
            cl_sql coord "SELECT 1" >/dev/null 2>&1 && break
            sleep 0.5
        done
    fi
}

# q: runs the SQL on stdin on the coordinator, unaligned, no headers; stops at the first
# error. psql's messages (errors, notices) go to stderr.
q() {
    cl_psql coord -q -A -t -v ON_ERROR_STOP=1 -f -
}

# run SQL: runs SQL on the coordinator; sets OUT (stdout and stderr) and returns its status.
run() {
    mark_logs
    OUT=$(q <<<"$1" 2>&1)
}

# fail DESC SQL: a failed check, with the statement (its first 25 lines), its output and
# the server logs.
fail() {
    not_ok "$1"
    diag "statement:" "$(head -n 25 <<<"$2")" "output:" "$OUT"
    failure_details
}

# expect DESC EXPECTED SQL: ok when SQL succeeds with output EXPECTED.
expect() {
    local desc=$1 expected=$2 sql=$3
    if ! run "$sql"; then
        fail "$desc" "$sql"
    elif [[ $OUT != "$expected" ]]; then
        not_ok "$desc"
        diag "statement:" "$sql" "expected:" "$expected" "got:" "$OUT"
    else
        ok "$desc"
    fi
}

# expect_match DESC ERE SQL: ok when SQL succeeds and its output matches every extended
# regular expression of the newline-separated list ERE (each somewhere in the output).
expect_match() {
    local desc=$1 patterns=$2 sql=$3 p missing=()
    if ! run "$sql"; then
        fail "$desc" "$sql"
        return
    fi
    while IFS= read -r p; do
        [[ -n $p ]] && ! grep -Eq -- "$p" <<<"$OUT" && missing+=("$p")
    done <<<"$patterns"
    if ((${#missing[@]} > 0)); then
        not_ok "$desc"
        diag "statement:" "$sql" "no match for:" "${missing[@]}" "output:" "$OUT"
    else
        ok "$desc"
    fi
}

# same DESC SQL [PATTERN]: SQL is a template in which @T@ stands for the table; runs it on
# posting_local, then on the distributed posting. ok when both succeed with the same,
# non-empty output, where the table's own name is read as @T@ (error messages name it).
# With PATTERN, an extended regular expression, the (local) output must match it too:
# it says what the check is about, so that a check of two empty results cannot pass.
same() {
    local desc=$1 sql=$2 pattern=${3:-} loc dist
    if ! run "${sql//@T@/posting_local}"; then
        fail "$desc (on the local table: the test itself is wrong)" "${sql//@T@/posting_local}"
        return
    fi
    loc=${OUT//posting_local/@T@}
    if ! run "${sql//@T@/posting}"; then
        fail "$desc" "${sql//@T@/posting}"
        return
    fi
    dist=${OUT//posting/@T@}
    if [[ -z $loc ]] || { [[ -n $pattern ]] && ! grep -Eq -- "$pattern" <<<"$loc"; }; then
        not_ok "$desc"
        diag "unexpected output on the local table (the test itself is wrong):" "$loc"
        return
    fi
    if [[ $loc != "$dist" ]]; then
        not_ok "$desc"
        diag "statement:" "$sql" "output differs (< local table, > distributed table):"
        diff <(echo "$loc") <(echo "$dist") | head -n 60 | diag
        failure_details
        return
    fi
    ok "$desc"
}

# same_error DESC SQL SQLSTATE: like same, for a statement that must fail with SQLSTATE on
# both tables with the same message (ERROR, DETAIL, HINT lines).
same_error() {
    local desc=$1 sql=$2 state=$3 t out loc='' dist=''
    for t in posting_local posting; do
        mark_logs
        if out=$(cl_psql coord -q -A -t -v ON_ERROR_STOP=1 -v VERBOSITY=verbose \
                -c "${sql//@T@/$t}" 2>&1); then
            not_ok "$desc"
            diag "on $t, it did not fail:" "${sql//@T@/$t}" "output:" "$out"
            return
        fi
        out=$(grep -E '^(ERROR|DETAIL|HINT):' <<<"$out" | sed -e 's/ERROR:  \([0-9A-Z]\{5\}\): /ERROR:  \1 /')
        out=${out//$t/@T@}
        if [[ $t == posting_local ]]; then loc=$out; else dist=$out; fi
    done
    if [[ $loc != "ERROR:  $state "* ]]; then
        not_ok "$desc"
        diag "on the local table, not SQLSTATE $state (the test itself is wrong):" "$loc"
    elif [[ $loc != "$dist" ]]; then
        not_ok "$desc"
        diag "statement:" "$sql" "errors differ (< local table, > distributed table):"
        diff <(echo "$loc") <(echo "$dist") | diag
        failure_details
    else
        ok "$desc"
    fi
}

# routed DESC SQL: runs SQL (one or more singletable calls on key USER#u_1001 of posting)
# with Citus logging every command it sends to a worker (citus.log_remote_commands) and
# refusing any multi-shard statement (citus.multi_task_query_log_level = error). ok when
# it succeeds and the commands name exactly one shard of posting, on one node.
routed() {
    local desc=$1 sql=$2 shards nodes
    if ! run "SET citus.log_remote_commands = on;
              SET citus.multi_task_query_log_level = error;
              $sql"; then
        fail "$desc" "$sql"
        return
    fi
    # (psql -f prefixes each message with "psql:<stdin>:LINE: ")
    shards=$(grep -E 'NOTICE:  issuing ' <<<"$OUT" | grep -oE '\bposting_[0-9]+\b' | sort -u)
    nodes=$(grep -oE 'on server [^ ]+' <<<"$OUT" | sort -u)
    if [[ $(wc -l <<<"$shards") == 1 && -n $shards && $(wc -l <<<"$nodes") == 1 ]]; then
        ok "$desc (shard $shards)"
    else
        not_ok "$desc"
        diag "statement:" "$sql" "shards named:" "${shards:-(none)}" "nodes:" "${nodes:-(none)}" \
            "commands sent:" "$(grep -E 'NOTICE:  issuing |DETAIL:  on server' <<<"$OUT")"
    fi
}

# explained SQL: SQL (EXPLAIN statements) in a transaction with sequential scans off on
# every node (see "Plans" below).
explained() {
    echo "BEGIN;
          SET LOCAL citus.propagate_set_commands = 'local';
          SET LOCAL enable_seqscan = off;
          $1
          COMMIT;"
}

#
# The cluster
#
expect "the coordinator knows two active workers, named by their socket directories" \
    "${CL_HOST[worker1]}|${CL_PORT[worker1]}
${CL_HOST[worker2]}|${CL_PORT[worker2]}" \
    "SELECT node_name, node_port FROM citus_get_active_worker_nodes() ORDER BY 1"

expect "citus 13.2 and the same singletable version are installed on all three nodes" \
    "$(for node in "${CL_NODES[@]}"; do echo "citus 13.2|singletable $(cl_sql coord "SELECT extversion FROM pg_extension WHERE extname = 'singletable'")"; done)" \
    "SELECT 'citus ' || substr(e.c, 1, 4) || '|singletable ' || e.s
       FROM (SELECT (SELECT extversion FROM pg_extension WHERE extname = 'citus') c,
                    (SELECT extversion FROM pg_extension WHERE extname = 'singletable') s) e
     UNION ALL
     SELECT 'citus ' || substr(c.result, 1, 4) || '|singletable ' || s.result
       FROM run_command_on_workers(\$\$SELECT extversion FROM pg_extension WHERE extname = 'citus'\$\$) c
       JOIN run_command_on_workers(\$\$SELECT extversion FROM pg_extension WHERE extname = 'singletable'\$\$) s
         USING (nodename, nodeport)"

#
# The tables: the posting app's table, with its scheduler GSI created before distribution
#
# singletable.distribute_table when the extension has it, else Citus directly (by the
# partition key column, colocated by Citus's default with tables of the same key type):
# the one place that says how a table is distributed.
# CITUS_DISTRIBUTE_WITH=citus forces create_distributed_table even when distribute_table exists.
if [[ ${CITUS_DISTRIBUTE_WITH:-auto} != citus &&
      $(cl_sql coord "SELECT to_regprocedure('singletable.distribute_table(text,integer)') IS NOT NULL") == t ]]; then
    HAS_DISTRIBUTE=1
    diag "distributing with singletable.distribute_table"
else
    HAS_DISTRIBUTE=0
    diag "distributing with create_distributed_table (singletable has no distribute_table)"
fi
# distribute_sql TABLE [SHARD_COUNT]: the statement that distributes TABLE (with SHARD_COUNT
# shards; without, colocated with the tables already distributed). create_distributed_table
# is followed by the segment index that distribute_table creates (README, Scan), by hand as
# the README says, so that parallel scans split the table by shards either way.
distribute_sql() {
    if ((HAS_DISTRIBUTE)); then
        echo "SELECT singletable.distribute_table('$1'${2:+, $2});"
    else
        echo "SELECT create_distributed_table('$1', 'pk'${2:+, shard_count => $2});
              CREATE INDEX $1_segments ON $1 ((pg_catalog.hashtext(pk)), pk, sk);"
    fi
}

expect "create_table and create_gsi, then distribution by the partition key" \
    "posting_local
posting_local_gsi1_gsi
posting
posting_gsi1_gsi

posting|h|pk|$SHARDS|2" \
    "SET client_min_messages = warning;
     SELECT singletable.create_table('posting_local');
     SELECT singletable.create_gsi('posting_local', 'gsi1', 'gsi1pk', 'gsi1sk');
     SELECT singletable.create_table('posting');
     SELECT singletable.create_gsi('posting', 'gsi1', 'gsi1pk', 'gsi1sk');
     $(distribute_sql posting "$SHARDS")
     SELECT logicalrelid, partmethod, column_to_column_name(logicalrelid, partkey),
            (SELECT count(*) FROM pg_dist_shard s WHERE s.logicalrelid = p.logicalrelid),
            (SELECT count(DISTINCT nodename) FROM citus_shards c WHERE c.table_name = p.logicalrelid)
       FROM pg_dist_partition p WHERE logicalrelid = 'posting'::regclass"

# shard_indexes PATTERN: the number of indexes on the workers' shards of posting whose name
# matches PATTERN followed by _<shard id> (a shard's copy of a coordinator's index).
shard_indexes_sql() {
    echo "SELECT sum(result::int) FROM run_command_on_workers(\$\$
            SELECT count(*) FROM pg_catalog.pg_indexes
             WHERE indexname ~ '^$1_[0-9]+\$' AND tablename ~ '^posting_[0-9]+\$'\$\$)"
}
expect "the GSI created before distribution exists on every shard (as do the primary key and the scan segment index)" \
    "$SHARDS|$SHARDS|$SHARDS" \
    "SELECT ($(shard_indexes_sql posting_gsi1_gsi)), ($(shard_indexes_sql posting_pkey)), ($(shard_indexes_sql posting_segments))"

# The posting app's items (test/demo/posting_app.sql), and more: 300 users with a profile,
# a draft and an approved post each (so that the scheduler's GSI partition spans every
# shard, publishAt values interleaving the users), and a 20-item collection.
{
    grep -E "^SELECT singletable\.put_item\('posting_app', '.*'\);$" "$TOP/test/demo/posting_app.sql" |
        sed "s/'posting_app'/'@T@'/"
    cat <<'EOF'
SELECT count(singletable.put_item('@T@', item))
  FROM generate_series(1, 300) AS u(n),
       LATERAL (VALUES
         (jsonb_build_object('pk', 'USER#u_' || (900000 + n), 'sk', 'PROFILE', 'name', 'User ' || n, 'plan', 'free')),
         (jsonb_build_object('pk', 'USER#u_' || (900000 + n), 'sk', 'POST#p_' || (900000 + n) || '_1', 'title', 'Hello', 'status', 'draft')),
         (jsonb_build_object('pk', 'USER#u_' || (900000 + n), 'sk', 'POST#p_' || (900000 + n) || '_2', 'title', 'Post ' || n,
                             'status', 'approved', 'gsi1pk', 'STATUS#approved',
                             'gsi1sk', to_char(timestamptz '2026-07-01 00:00Z' + (n % 37) * interval '1 hour',
                                               'YYYY-MM-DD"T"HH24:MI:SS"Z"')))
       ) AS v(item);
SELECT count(singletable.put_item('@T@', jsonb_build_object('pk', 'POST#p_2001', 'sk', 'COMMENT#' || lpad(n::text, 3, '0'), 'n', n)))
  FROM generate_series(1, 25) n;
ANALYZE @T@;
EOF
} >"$WORK/load.sql"
LOAD_SQL=$(cat "$WORK/load.sql")
ITEMS=$(($(grep -c "^SELECT singletable.put_item" "$WORK/load.sql") + 900 + 25))
same "put_item of the posting app's $ITEMS items (the demo's, 300 users, a 30-item collection)" \
    "$LOAD_SQL
     SELECT count(*), count(DISTINCT pk), sum(length(item::text)) FROM @T@" "^$ITEMS\|"

expect "the items are spread over both workers' shards" \
    "2" \
    "SELECT count(DISTINCT c.nodename)
       FROM (SELECT DISTINCT get_shard_id_for_distribution_column('posting', pk) AS shardid FROM posting) s
       JOIN citus_shards c USING (shardid)"

# get_item and a Query read a local table's primary key directly (src/ops/direct.c), but
# run their statement on a Citus table, which Citus routes to its shards: the
# coordinator's table is an empty shell the direct path would read.
expect_match "get_item and query run their statements on the distributed table, read the local table directly" \
    'get_item of table "posting" runs its statement: it is a Citus table
query of table "posting" runs its statement: it is a Citus table
get_item of table "posting_local" reads its primary key directly
query of table "posting_local" reads its primary key directly
^t$
^t$' \
    "SET client_min_messages = debug1;
     SELECT singletable.get_item('posting', 'USER#u_1001', 'PROFILE') IS NOT NULL;
     SELECT count(*) > 0 FROM singletable.query('posting', 'USER#u_1001');
     SELECT singletable.get_item('posting_local', 'USER#u_1001', 'PROFILE') IS NOT NULL;
     SELECT count(*) > 0 FROM singletable.query('posting_local', 'USER#u_1001');"

#
# Reads of one item collection
#
same "get_item by the full key, absent keys, with a projection" \
    "SELECT singletable.get_item('@T@', 'USER#u_1001', 'PROFILE');
     SELECT singletable.get_item('@T@', 'USER#u_1002', 'INTEG#X#ben_builds');
     SELECT singletable.get_item('@T@', 'POST#p_2001', 'METRICS#2026-06-24T09:12Z');
     SELECT singletable.get_item('@T@', 'USER#u_900123', 'POST#p_900123_2');
     SELECT coalesce(singletable.get_item('@T@', 'USER#u_4242', 'PROFILE')::text, 'absent');
     SELECT coalesce(singletable.get_item('@T@', 'USER#u_1001', 'NOPE')::text, 'absent');
     SELECT singletable.get_item('@T@', 'USER#u_1001', 'PROFILE', projection => '#n, email', names => '{\"#n\": \"name\"}')" \
    'Aiko Tanaka'

same "query: a whole collection and begins_with ranges (posts, library, X integrations, folders)" \
    "SELECT * FROM singletable.query('@T@', 'USER#u_1001');
     SELECT sk FROM singletable.query('@T@', 'USER#u_1001', 'begins_with', 'POST#');
     SELECT sk FROM singletable.query('@T@', 'USER#u_1001', 'begins_with', 'LIBRARY#');
     SELECT sk FROM singletable.query('@T@', 'USER#u_1001', 'begins_with', 'INTEG#X#');
     SELECT sk FROM singletable.query('@T@', 'USER#u_1002', 'begins_with', 'SOURCE#FOLDER#');
     SELECT * FROM singletable.query('@T@', 'USER#u_1001', '=', 'PROFILE');
     SELECT count(*) FROM singletable.query('@T@', 'USER#u_4242')" 'INTEG#X#aiko_news'

same "query: between, comparisons, backwards" \
    "SELECT sk FROM singletable.query('@T@', 'POST#p_2001', 'between', 'METRICS#2026-06-23', 'METRICS#2026-06-23~');
     SELECT sk FROM singletable.query('@T@', 'POST#p_2001', '>', 'COMMENT#015');
     SELECT sk FROM singletable.query('@T@', 'POST#p_2001', '<=', 'COMMENT#003', forward => false);
     SELECT sk FROM singletable.query('@T@', 'USER#u_1001', 'begins_with', 'POST#', forward => false)" \
    'METRICS#2026-06-23T15:12Z'

same "query: key_condition, filter and projection" \
    "SELECT sk, item FROM singletable.query('@T@', key_condition => 'pk = :u AND begins_with(sk, :p)',
            filter => '#s = :a', projection => 'title, publishAt',
            names => '{\"#s\": \"status\"}', vals => '{\":u\": \"USER#u_1001\", \":p\": \"POST#\", \":a\": \"approved\"}');
     SELECT sk FROM singletable.query('@T@', key_condition => 'pk = :p AND sk BETWEEN :a AND :b',
            vals => '{\":p\": \"POST#p_2001\", \":a\": \"COMMENT#005\", \":b\": \"COMMENT#008\"}')" \
    'begins_with is a range scan'

# pages_sql TABLE-TEMPLATE... is built in the shell: each page continues after the last key
# of the one before, until a page comes back short.
same "query pages through a collection with max_items and exclusive_start_sk" \
    "SELECT sk FROM singletable.query('@T@', 'POST#p_2001', 'begins_with', 'COMMENT#', max_items => 7);
     SELECT sk FROM singletable.query('@T@', 'POST#p_2001', 'begins_with', 'COMMENT#', max_items => 7,
                                      exclusive_start_sk => 'COMMENT#007');
     SELECT sk FROM singletable.query('@T@', 'POST#p_2001', 'begins_with', 'COMMENT#', max_items => 7,
                                      exclusive_start_sk => 'COMMENT#014');
     SELECT sk FROM singletable.query('@T@', 'POST#p_2001', max_items => 2, forward => false,
                                      exclusive_start_key => '{\"pk\": \"POST#p_2001\", \"sk\": \"METRICS#2026-06-24T09:12Z\"}')" \
    'COMMENT#020'

same "capacity, pages and estimates: get_item, query (strongly and eventually consistent), query_page of 1 KB pages, estimate_query" \
    "SELECT singletable.get_item('@T@', 'USER#u_1001', 'PROFILE') IS NOT NULL;
     SELECT singletable.last_consumed_capacity();
     SELECT count(*) FROM singletable.query('@T@', 'POST#p_2001');
     SELECT singletable.last_consumed_capacity();
     SELECT count(*) FROM singletable.query('@T@', 'POST#p_2001', consistent_read => false);
     SELECT singletable.last_consumed_capacity() -> 'CapacityUnits';
     SELECT p - 'Items' FROM singletable.query_page('@T@', 'POST#p_2001', max_items => 5) p;
     SELECT singletable.last_evaluated_key();
     SELECT items, bytes, pages, read_capacity_units, source FROM singletable.estimate_query('@T@', 'POST#p_2001')" \
    '"CapacityUnits"'

#
# The scheduler's GSI: one partition of the index spans every shard
#
same "GSI query: approved posts of all users in publishAt order (all 300+ across the shards)" \
    "SELECT count(*), count(DISTINCT pk) FROM singletable.query('@T@', 'STATUS#approved', index_name => 'gsi1');
     SELECT item->>'gsi1sk', pk, sk FROM singletable.query('@T@', 'STATUS#approved', index_name => 'gsi1')" \
    '^30[0-9]\|'

same "GSI query: key conditions, backwards, max_items, a filter (last_evaluated_key), the overloaded ROLE# partitions" \
    "SELECT item->>'gsi1sk', pk, sk FROM singletable.query('@T@', 'STATUS#approved', '<=', '2026-06-26T00:00:00Z',
                                                          max_items => 2, index_name => 'gsi1');
     SELECT item->>'gsi1sk', pk, sk FROM singletable.query('@T@', 'STATUS#approved', 'between', '2026-07-01T03:00:00Z',
                                                          '2026-07-01T04:00:00Z', forward => false, index_name => 'gsi1');
     SELECT item->>'gsi1sk', pk, sk FROM singletable.query('@T@', 'STATUS#approved', 'begins_with', '2026-07-01T1',
                                                          max_items => 25, index_name => 'gsi1');
     SELECT pk, sk, item FROM singletable.query('@T@', 'STATUS#approved', '>=', '2026-07-01T20', max_items => 9,
                                                filter => 'begins_with(title, :p)', vals => '{\":p\": \"Post 2\"}',
                                                projection => 'title', index_name => 'gsi1');
     SELECT pk, sk, item->>'role' FROM singletable.query('@T@', 'ROLE#admin', index_name => 'gsi1');
     SELECT pk, sk FROM singletable.query('@T@', 'ROLE#editor', index_name => 'gsi1', projection => 'KEYS_ONLY')" \
    'TEAM#t_01'

# The GSI's pages: each continues after the index and table keys of the last row of the one
# before (exclusive_start_key, DynamoDB's LastEvaluatedKey), until a page comes back short.
# Prints every page's rows, then the number of pages; $1 the table, $2 max_items, $3 forward.
gsi_pages() {
    local t=$1 max=$2 fwd=$3 esk=NULL page rows=0 pages=0 last
    while ((pages < 1000)); do
        page=$(q <<<"SELECT jsonb_build_object('pk', pk, 'sk', sk, 'at', item->'gsi1sk')
                       FROM singletable.query('$t', 'STATUS#approved', index_name => 'gsi1',
                                              max_items => $max, forward => $fwd, exclusive_start_key => $esk)") ||
            { echo "page $((pages + 1)) failed: $page"; return 1; }
        pages=$((pages + 1))
        [[ -n $page ]] && echo "$page"
        rows=$(grep -c . <<<"$page")
        ((rows < max)) && break
        last=$(tail -n 1 <<<"$page")
        esk="jsonb_build_object('gsi1pk', 'STATUS#approved', 'gsi1sk', '${last//\'/\'\'}'::jsonb->'at',
                                'pk', '${last//\'/\'\'}'::jsonb->'pk', 'sk', '${last//\'/\'\'}'::jsonb->'sk')"
    done
    echo "$pages pages"
}
for args in "7 true" "10 false"; do
    read -r max fwd <<<"$args"
    mark_logs
    loc=$(gsi_pages posting_local "$max" "$fwd" 2>&1)
    dist=$(gsi_pages posting "$max" "$fwd" 2>&1)
    whole=$(q <<<"SELECT jsonb_build_object('pk', pk, 'sk', sk, 'at', item->'gsi1sk')
                    FROM singletable.query('posting', 'STATUS#approved', index_name => 'gsi1', forward => $fwd)" 2>&1)
    desc="GSI pages of $max (forward => $fwd) across the shards: the same pages as on the local table, together the whole partition in order"
    if [[ $loc == "$dist" && $(sed '$d' <<<"$dist") == "$whole" && $(tail -n 1 <<<"$dist") == *" pages" ]]; then
        ok "$desc ($(tail -n 1 <<<"$dist"))"
    else
        not_ok "$desc"
        diag "pages (< local table, > distributed table):"
        diff <(echo "$loc") <(echo "$dist") | head -n 30 | diag
        diag "the whole partition in one query differs from the pages (< pages, > whole):"
        diff <(sed '$d' <<<"$dist") <(echo "$whole") | head -n 30 | diag
        OUT=$dist
        failure_details
    fi
done

#
# Scan: the whole table or GSI, read from every shard and merged in btree order
#
same "scan: every item in key order, a filter that reads keys (last_evaluated_key), a projection, a start key" \
    "SELECT count(*), count(DISTINCT (pk, sk)) FROM singletable.scan('@T@');
     SELECT pk, sk FROM singletable.scan('@T@');
     SELECT pk, sk, item FROM singletable.scan('@T@', filter => 'begins_with(sk, :p)', vals => '{\":p\": \"COMMENT#\"}',
                                               projection => 'n', max_items => 40);
     SELECT pk, sk FROM singletable.scan('@T@', max_items => 5,
                                         exclusive_start_key => '{\"pk\": \"USER#u_1001\", \"sk\": \"POST#\"}')" \
    "^$ITEMS\\|$ITEMS\$"
same "scan of the GSI: every entry in index order, and a page after a start key" \
    "SELECT item->>'gsi1pk', item->>'gsi1sk', pk, sk FROM singletable.scan('@T@', index_name => 'gsi1');
     SELECT pk, sk FROM singletable.scan('@T@', index_name => 'gsi1', max_items => 5,
            exclusive_start_key => '{\"gsi1pk\": \"STATUS#approved\", \"gsi1sk\": \"2026-07-01T05\", \"pk\": \"A\", \"sk\": \"A\"}')" \
    'STATUS#approved'
# Parallel scans: on the local table segments are ranges of the leading key column, on the
# distributed one ranges of the partition key's hash (README, Scan), so their rows differ;
# on both, the segments of N = 1, 4, 7 are disjoint and together the whole scan.
# segments_complete_sql INDEX: for N = 1, 4 and 7, the rows of the N segments of a scan of
# @T@ (or of its index INDEX, a quoted name or NULL), and whether they are the rows of the
# scan without segments, each once.
segments_complete_sql() {
    echo "SELECT string_agg(format('N = %s: %s rows, %s', v.n, c.rows, CASE WHEN c.ok THEN 'each once' ELSE 'WRONG' END),
                        ', ' ORDER BY v.n)
            FROM (VALUES (1), (4), (7)) v(n)
           CROSS JOIN LATERAL (
                 WITH segs AS (SELECT s.pk, s.sk FROM generate_series(0, v.n - 1) seg,
                                      singletable.scan('@T@', index_name => $1, segment => seg, total_segments => v.n) s),
                      whole AS (SELECT pk, sk FROM singletable.scan('@T@', index_name => $1))
                 SELECT count(*) AS rows,
                        count(*) = count(DISTINCT (pk, sk)) AND count(*) = (SELECT count(*) FROM whole)
                        AND NOT EXISTS (SELECT * FROM whole EXCEPT SELECT * FROM segs) AS ok
                   FROM segs) c"
}
same "scan segments of the table (N = 1, 4, 7): disjoint, together the whole scan" \
    "$(segments_complete_sql NULL)" \
    "^N = 1: $ITEMS rows, each once, N = 4: $ITEMS rows, each once, N = 7: $ITEMS rows, each once\$"
same "scan segments of the GSI (N = 1, 4, 7): disjoint, together the whole scan" \
    "$(segments_complete_sql "'gsi1'")" \
    "^N = 1: ([0-9]+) rows, each once, N = 4: \\1 rows, each once, N = 7: \\1 rows, each once\$"

# segment_spread DESC TABLE INDEX N TOLERANCE: segment s of N of a scan of TABLE (or its
# index INDEX, a quoted name or NULL) on the distributed table: every row once, the rows
# together those of the scan without segments, each segment's rows within TOLERANCE percent
# of 1/N of them (none: not checked), and from the shards of the hash range s/N .. (s+1)/N
# of the shards in hash order: floor(s*S/N) .. ceil((s+1)*S/N) - 1, exactly those when N
# divides S (every shard then in exactly one segment). The shard of each row is Citus's
# (get_shard_id_for_distribution_column), numbered by hash order from 0.
segment_spread() {
    local desc=$1 t=$2 index=$3 n=$4 tol=$5 sql lines summary bad
    sql="WITH shards AS (SELECT shardid, (row_number() OVER (ORDER BY shardminvalue::int) - 1)::int AS k
                           FROM pg_dist_shard WHERE logicalrelid = '$t'::regclass),
              r AS (SELECT seg, s.pk, s.sk, sh.k
                      FROM generate_series(0, $n - 1) seg
                     CROSS JOIN LATERAL singletable.scan('$t', index_name => $index, segment => seg, total_segments => $n) s
                      JOIN shards sh ON sh.shardid = get_shard_id_for_distribution_column('$t', s.pk)),
              per AS (SELECT g.seg, count(r.pk) AS rows, min(r.k) AS lo, max(r.k) AS hi
                        FROM generate_series(0, $n - 1) g(seg) LEFT JOIN r USING (seg) GROUP BY g.seg)
         SELECT 'segment', seg, rows, coalesce(lo, -1), coalesce(hi, -1),
                floor(seg * S.n::numeric / $n), ceil((seg + 1) * S.n::numeric / $n) - 1
           FROM per, (SELECT count(*) AS n FROM shards) S
         UNION ALL
         SELECT 'total', (SELECT count(*) FROM r), (SELECT count(DISTINCT (pk, sk)) FROM r),
                (SELECT count(*) FROM singletable.scan('$t', index_name => $index)),
                (SELECT count(*) FROM shards), NULL, NULL
         ORDER BY 1, 2;"
    if ! run "$sql"; then
        fail "$desc" "$sql"
        return
    fi
    lines=$(grep '^segment|' <<<"$OUT")
    summary=$(grep '^total|' <<<"$OUT")
    bad=$(awk -F'|' -v n="$n" -v tol="$tol" -v summary="$summary" '
        BEGIN { split(summary, t, "|"); total = t[2]; s = t[5]
                if (t[2] != t[3] || t[2] != t[4]) print "rows " t[2] ", distinct " t[3] ", scan without segments " t[4] }
        { if (tol != "" && ($3 < total / n * (1 - tol / 100) || $3 > total / n * (1 + tol / 100)))
              print "segment " $2 ": " $3 " rows, not within " tol "% of " total / n
          if ($3 > 0 && ($4 < $6 || $5 > $7)) print "segment " $2 ": shards " $4 "-" $5 ", not within " $6 "-" $7
          # (exactly: unless the shards are too sparse for each to hold a row of the segment)
          if (s % n == 0 && total / s >= 20 && ($4 != $6 || $5 != $7))
              print "segment " $2 ": shards " $4 "-" $5 ", not exactly " $6 "-" $7 }' <<<"$lines")
    if [[ -z $summary || -n $bad ]]; then
        not_ok "$desc"
        diag "${bad:-no result}" "segment|rows|first shard|last shard|expected first|expected last:" "$lines"
    else
        # (for many segments the range of their rows, and the most shards one of them read)
        ok "$desc ($(cut -d'|' -f2 <<<"$summary") rows; per segment: $(awk -F'|' -v n="$n" '
            n <= 8 { printf "%s%s (shards %s-%s)", (NR > 1 ? ", " : ""), $3, $4, $5 }
            n > 8 { if (NR == 1 || $3 < lo) lo = $3; if (NR == 1 || $3 > hi) hi = $3
                    if (NR == 1 || $5 - $4 + 1 > w) w = $5 - $4 + 1 }
            END { if (n > 8) printf "%s to %s rows, each from at most %s shards", lo, hi, w }' <<<"$lines"))"
    fi
}
# posting holds a few large item collections (the demo's users and posts, up to 30 items,
# all of a collection's items in one segment) among 300 small ones: its segments are within
# 50% of 1/N (measured: +38% at most, for N = 7). "spread" holds 6,000 collections of 2 items, and its GSI one entry of each: within
# 10% of 1/N for N = 4 and 7 (the binomial spread of 6,000 collections over 7 segments has a
# standard deviation of 3.2%), 25% for N = 40 (300 items a segment).
{
    echo "SET client_min_messages = warning;
          SELECT singletable.create_table('spread');
          SELECT singletable.create_gsi('spread', 'bygroup', 'grp', 'n', sort_key_type => 'N');
          $(distribute_sql spread)
          SELECT count(singletable.put_item('spread', jsonb_build_object('pk', 'C#' || n, 'sk', s, 'n', n)
                                            || CASE WHEN s = 'A' THEN jsonb_build_object('grp', 'G#' || n % 10) ELSE '{}' END))
            FROM generate_series(1, 6000) n, (VALUES ('A'), ('B')) v(s);
          ANALYZE spread;
          SELECT count(*) FROM spread;"
} >"$WORK/spread.sql"
expect_match "a second distributed table, spread: 6,000 collections of 2 items over the same $SHARDS shards" \
    "^12000\$" "$(cat "$WORK/spread.sql")"
for n in 1 4 7; do
    segment_spread "scan segments of distributed posting, N = $n: each item once, each segment its hash range's shards, within 50% of 1/N" \
        posting NULL "$n" 50
    segment_spread "scan segments of posting's GSI, N = $n: each entry once, each segment its shards' entries" \
        posting "'gsi1'" "$n" ""
    segment_spread "scan segments of spread, N = $n: each item once, each segment its shards, within 10% of 1/N" \
        spread NULL "$n" 10
    segment_spread "scan segments of spread's GSI, N = $n: each entry once, each segment its shards, within 10% of 1/N" \
        spread "'bygroup'" "$n" 10
done
segment_spread "more segments than shards (N = 40 > $SHARDS): each within one shard or across the border of two, within 25% of 1/N" \
    spread NULL 40 25
segment_spread "more segments than shards on posting's GSI (N = 40): each entry once" \
    posting "'gsi1'" 40 ""

# Which shards a segment reads: Citus sends its statement to every shard (it prunes shards by
# partition key values only, not by their hash), and on every shard outside the segment the
# segment index finds no row. EXPLAIN ANALYZE with every task shown: the shards whose segment
# index returned rows are the segment's, those of hash range 1/4 .. 2/4 (with 32 shards, the
# 8 shards 8-15 in hash order).
run "$(explained "SET LOCAL citus.explain_all_tasks = on;
                  SELECT * FROM singletable.explain_scan('posting', segment => 1, total_segments => 4, with_analyze => true);")"
explain_out=$OUT
read_shards=$(grep -oE 'posting_segments_[0-9]+[^(]*\(actual rows=[1-9]' <<<"$explain_out" |
              grep -oE 'posting_segments_[0-9]+' | sed 's/_segments//' | sort -u | tr '\n' ' ')
probed=$(grep -cE 'posting_segments_[0-9]+[^(]*\(actual rows=0 ' <<<"$explain_out")
tasks=$(grep -oE 'Task Count: [0-9]+' <<<"$explain_out")
expected_shards=$(cl_sql coord "SELECT string_agg('posting_' || shardid, ' ' ORDER BY 'posting_' || shardid) || ' '
                                  FROM (SELECT shardid, row_number() OVER (ORDER BY shardminvalue::int) - 1 AS k
                                          FROM pg_dist_shard WHERE logicalrelid = 'posting'::regclass) s
                                 WHERE k BETWEEN floor($SHARDS / 4.0) AND ceil($SHARDS * 2 / 4.0) - 1")
nexpected=$(wc -w <<<"$expected_shards")
if [[ $read_shards == "$expected_shards" && $tasks == "Task Count: $SHARDS" && $probed == $((SHARDS - nexpected)) ]]; then
    ok "EXPLAIN ANALYZE of segment 1 of 4: $tasks, rows read from its $nexpected shards only ($read_shards), an empty index probe on the $probed others"
else
    not_ok "EXPLAIN ANALYZE of segment 1 of 4: rows read from its shards only"
    diag "shards that returned rows: ${read_shards:-(none)}" "the segment's shards: $expected_shards" \
        "$tasks; empty probes: $probed" "plan:" "$(head -n 60 <<<"$explain_out")"
fi
expect_match "explain_scan of a segment: the segment index's range of the partition key's hash, after the start key" \
    "Task Count: $SHARDS
Index Scan using posting_segments_[0-9]+ on posting_[0-9]+
Index Cond: .*hashtext\\(pk\\) (>=|<) '?-?[0-9]+'?(::integer)?\\) AND
Index Cond: .*\\(ROW\\(hashtext\\(pk\\), pk, sk\\) > ROW\\('?-?[0-9]+'?(::integer)?, 'USER#u_900001'::text, 'PROFILE'::text\\)\\)" \
    "$(explained "SELECT * FROM singletable.explain_scan('posting', segment => (SELECT seg FROM generate_series(0, 6) seg,
                                                       singletable.scan('posting', segment => seg, total_segments => 7) s
                                                     WHERE s.pk = 'USER#u_900001' AND s.sk = 'PROFILE'),
                                             total_segments => 7, max_items => 5,
                                             exclusive_start_key => '{\"pk\": \"USER#u_900001\", \"sk\": \"PROFILE\"}');")"

# segment_pages TABLE INDEX N SEG MAX: pages of MAX rows through segment SEG of N, each after
# the keys of the last row of the one before (the index's and the table's for an index),
# until a page comes back short. Prints every page's rows, then the number of pages.
segment_pages() {
    local t=$1 index=$2 n=$3 seg=$4 max=$5 esk=NULL page rows pages=0 last
    while ((pages < 1000)); do
        page=$(q <<<"SELECT CASE WHEN $index IS NULL THEN jsonb_build_object('pk', pk, 'sk', sk)
                                 ELSE jsonb_build_object('pk', pk, 'sk', sk, 'gsi1pk', item->'gsi1pk', 'gsi1sk', item->'gsi1sk') END
                       FROM singletable.scan('$t', index_name => $index, segment => $seg, total_segments => $n,
                                             max_items => $max, exclusive_start_key => $esk)") ||
            { echo "page $((pages + 1)) failed: $page"; return 1; }
        pages=$((pages + 1))
        [[ -n $page ]] && echo "$page"
        rows=$(grep -c . <<<"$page")
        ((rows < max)) && break
        last=$(tail -n 1 <<<"$page")
        esk="'${last//\'/\'\'}'::jsonb"
    done
    echo "$pages pages"
}
for args in "NULL 7 3 9" "'gsi1' 4 2 11"; do
    read -r index n seg max <<<"$args"
    mark_logs
    pages=$(segment_pages posting "$index" "$n" "$seg" "$max" 2>&1)
    whole=$(q <<<"SELECT CASE WHEN $index IS NULL THEN jsonb_build_object('pk', pk, 'sk', sk)
                              ELSE jsonb_build_object('pk', pk, 'sk', sk, 'gsi1pk', item->'gsi1pk', 'gsi1sk', item->'gsi1sk') END
                    FROM singletable.scan('posting', index_name => $index, segment => $seg, total_segments => $n)" 2>&1)
    desc="pages of $max through segment $seg of $n (index $index) of the distributed table: start keys continue within the segment, together the segment in order"
    if [[ $(sed '$d' <<<"$pages") == "$whole" && -n $whole && $(tail -n 1 <<<"$pages") == *" pages" ]]; then
        ok "$desc ($(grep -c . <<<"$whole") rows, $(tail -n 1 <<<"$pages"))"
    else
        not_ok "$desc"
        diag "pages (<) and the segment read whole (>):"
        diff <(sed '$d' <<<"$pages") <(echo "$whole") | head -n 30 | diag
        OUT=$pages
        failure_details
    fi
done
expect_match "a start key of another segment is refused, as DynamoDB refuses it" \
    "lies outside segment 0 of 4
Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment
shards of \"posting\"" \
    "\\set ON_ERROR_STOP 0
     \\set VERBOSITY default
     SELECT singletable.scan('posting', segment => 0, total_segments => 4,
            exclusive_start_key => jsonb_build_object('pk', s.pk, 'sk', s.sk))
       FROM singletable.scan('posting', segment => 3, total_segments => 4, max_items => 1) s;"

# A table distributed with Citus's create_distributed_table has no segment index until one is
# created: its segments come from the coordinator's statistics, which it has none of (segment 0
# reads everything); with the index (README, Scan) they split by shards.
expect_match "without a segment index, segment 0 reads everything; CREATE INDEX of it splits the segments by shards" \
    "^before\\|0\\|40\$
^before\\|1\\|0\$
has no segment index on the hash of \"pk\"
^after\\|40\\|40\\|t\$" \
    "SET client_min_messages = warning;
     \\o /dev/null
     SELECT singletable.create_table('posting_tmp4');
     SELECT create_distributed_table('posting_tmp4', 'pk');
     SELECT singletable.put_item('posting_tmp4', jsonb_build_object('pk', 'K#' || n, 'sk', 'S')) FROM generate_series(1, 40) n;
     \\o
     SELECT 'before', seg, count(s.*) FROM generate_series(0, 1) seg
       LEFT JOIN LATERAL singletable.scan('posting_tmp4', segment => seg, total_segments => 2) s ON true GROUP BY seg ORDER BY seg;
     SELECT * FROM singletable.explain_scan('posting_tmp4', segment => 1, total_segments => 2);
     CREATE INDEX ON posting_tmp4 ((pg_catalog.hashtext(pk)), pk, sk);
     SELECT 'after', count(*), count(DISTINCT s.pk), bool_and(c > 0)
       FROM (SELECT seg, s.pk, count(*) OVER (PARTITION BY seg) c FROM generate_series(0, 1) seg,
                    singletable.scan('posting_tmp4', segment => seg, total_segments => 2) s) s;
     \\o /dev/null
     SELECT singletable.drop_table('posting_tmp4');"
cl_sql coord "SELECT singletable.drop_table('spread')" >/dev/null
expect_match "a scan is one multi-shard statement, also under plan_cache_mode = force_generic_plan (a one-shot plan)" \
    "^$ITEMS\$" \
    "SET plan_cache_mode = force_generic_plan;
     SELECT count(*) FROM generate_series(0, 3) seg, singletable.scan('posting', segment => seg, total_segments => 4);"

#
# Writes, with conditions and return values (each run on both tables, outputs compared)
#
same "put_item: new item, replacement with ALL_OLD, conditions that hold" \
    "SELECT coalesce(singletable.put_item('@T@', '{\"pk\": \"USER#u_1004\", \"sk\": \"PROFILE\", \"name\": \"Dana\"}',
                                          condition => 'attribute_not_exists(pk)')::text, 'null');
     SELECT singletable.put_item('@T@', '{\"pk\": \"USER#u_1004\", \"sk\": \"PROFILE\", \"name\": \"Dana\", \"plan\": \"pro\"}',
                                 condition => '#n = :n', names => '{\"#n\": \"name\"}', vals => '{\":n\": \"Dana\"}',
                                 return_values => 'ALL_OLD');
     SELECT singletable.get_item('@T@', 'USER#u_1004', 'PROFILE')" '"plan": "pro"'

same "write capacity: an unconditional put replacing a larger item costs the larger (read first on a distributed table), update, delete, the scheduler GSI charged" \
    "SELECT singletable.put_item('@T@', jsonb_build_object('pk', 'USER#u_1005', 'sk', 'PROFILE', 'bio', repeat('b', 3000)));
     SELECT singletable.last_consumed_capacity();
     SELECT singletable.put_item('@T@', '{\"pk\": \"USER#u_1005\", \"sk\": \"PROFILE\"}');
     SELECT singletable.last_consumed_capacity() -> 'CapacityUnits';
     SELECT singletable.put_item('@T@', '{\"pk\": \"USER#u_1005\", \"sk\": \"POST#x\", \"gsi1pk\": \"STATUS#approved\", \"gsi1sk\": \"2026-01-01T00:00:00Z\"}');
     SELECT singletable.last_consumed_capacity();
     SELECT singletable.update_item('@T@', 'USER#u_1005', 'POST#x', 'SET gsi1sk = :t', vals => '{\":t\": \"2026-01-02T00:00:00Z\"}', return_values => 'NONE');
     SELECT singletable.last_consumed_capacity();
     SELECT singletable.delete_item('@T@', 'USER#u_1005', 'POST#x');
     SELECT singletable.last_consumed_capacity();
     SELECT singletable.delete_item('@T@', 'USER#u_1005', 'PROFILE')" \
    'GlobalSecondaryIndexes'

expect_match "create_size_index refuses a distributed table; estimate_query reads its items" \
    "feature_not_supported|0A000|is distributed" \
    "\\set VERBOSITY verbose
     \\set ON_ERROR_STOP off
     SELECT singletable.create_size_index('posting');"

same_error "put_item: attribute_not_exists on an existing item fails with 23S01" \
    "SELECT singletable.put_item('@T@', '{\"pk\": \"USER#u_1001\", \"sk\": \"PROFILE\"}', condition => 'attribute_not_exists(pk)')" \
    23S01

same "put_item: return_values_on_condition_check_failure => ALL_OLD keeps the current item for the session" \
    "DO \$\$ BEGIN
       PERFORM singletable.put_item('@T@', '{\"pk\": \"USER#u_1002\", \"sk\": \"PROFILE\"}',
                                    condition => 'attribute_not_exists(pk)',
                                    return_values_on_condition_check_failure => 'ALL_OLD');
     EXCEPTION WHEN SQLSTATE '23S01' THEN
       RAISE NOTICE 'already there: %', singletable.condition_check_failure_item()->>'name';
     END \$\$;" 'already there: Ben Okafor'

same "delete_item: conditions, ALL_OLD, an absent item" \
    "SELECT singletable.delete_item('@T@', 'USER#u_1004', 'PROFILE', condition => '#p = :p', names => '{\"#p\": \"plan\"}',
                                    vals => '{\":p\": \"pro\"}', return_values => 'ALL_OLD');
     SELECT coalesce(singletable.get_item('@T@', 'USER#u_1004', 'PROFILE')::text, 'gone');
     SELECT coalesce(singletable.delete_item('@T@', 'USER#u_1004', 'PROFILE', return_values => 'ALL_OLD')::text, 'absent')" \
    'gone'

same_error "delete_item: a condition that fails raises 23S01 and deletes nothing" \
    "SELECT singletable.delete_item('@T@', 'USER#u_1001', 'PROFILE', condition => '#p = :p', names => '{\"#p\": \"plan\"}',
                                    vals => '{\":p\": \"free\"}')" \
    23S01

same "update_item: approve a draft only if it is still a draft (UPDATED_NEW), then the GSI has it" \
    "SELECT singletable.update_item('@T@', 'USER#u_1001', 'POST#p_2002',
              'SET #s = :approved, publishAt = :at, gsi1pk = :queue, gsi1sk = :at', condition => '#s = :draft',
              names => '{\"#s\": \"status\"}',
              vals => '{\":approved\": \"approved\", \":draft\": \"draft\", \":at\": \"2026-06-28T09:00:00Z\", \":queue\": \"STATUS#approved\"}',
              return_values => 'UPDATED_NEW');
     SELECT pk, sk FROM singletable.query('@T@', 'STATUS#approved', 'between', '2026-06-28', '2026-06-29', index_name => 'gsi1')" \
    'POST#p_2002'

same_error "update_item: the same approval again fails with 23S01" \
    "SELECT singletable.update_item('@T@', 'USER#u_1001', 'POST#p_2002', 'SET #s = :approved', condition => '#s = :draft',
              names => '{\"#s\": \"status\"}', vals => '{\":approved\": \"approved\", \":draft\": \"draft\"}')" \
    23S01

same "update_item: ADD counters, ALL_OLD / UPDATED_OLD / ALL_NEW / NONE, REMOVE leaves the GSI, an absent item is created" \
    "SELECT singletable.update_item('@T@', 'USER#u_1001', 'ANALYTICS#p_2001', 'ADD #v :one',
              names => '{\"#v\": \"views\"}', vals => '{\":one\": 1}', return_values => 'UPDATED_NEW');
     SELECT singletable.update_item('@T@', 'USER#u_1001', 'ANALYTICS#p_2001', 'ADD #v :n SET likes = likes + :one',
              names => '{\"#v\": \"views\"}', vals => '{\":one\": 1, \":n\": 41}', return_values => 'UPDATED_OLD');
     SELECT singletable.update_item('@T@', 'USER#u_1001', 'ANALYTICS#p_2001', 'SET reposts = reposts - :one',
              vals => '{\":one\": 1}', return_values => 'ALL_OLD');
     SELECT singletable.update_item('@T@', 'USER#u_1001', 'ANALYTICS#p_2001', 'REMOVE updatedAt');
     SELECT coalesce(singletable.update_item('@T@', 'USER#u_1001', 'POST#p_2002', 'REMOVE gsi1pk, gsi1sk, publishAt SET #s = :d',
              names => '{\"#s\": \"status\"}', vals => '{\":d\": \"draft\"}', return_values => 'NONE')::text, 'null');
     SELECT count(*) FROM singletable.query('@T@', 'STATUS#approved', 'between', '2026-06-28', '2026-06-29', index_name => 'gsi1');
     SELECT singletable.update_item('@T@', 'USER#u_1005', 'PROFILE', 'SET #n = :n ADD logins :one',
              names => '{\"#n\": \"name\"}', vals => '{\":n\": \"Eve\", \":one\": 1}')" \
    '"views": 42'

same "a transaction of updates and GSI queries sees its own writes; ROLLBACK undoes them" \
    "BEGIN;
     SELECT singletable.update_item('@T@', 'USER#u_1002', 'POST#p_2102',
              'SET #s = :approved, publishAt = :at, gsi1pk = :queue, gsi1sk = :at',
              names => '{\"#s\": \"status\"}',
              vals => '{\":approved\": \"approved\", \":at\": \"2026-06-24T12:00:00Z\", \":queue\": \"STATUS#approved\"}',
              return_values => 'UPDATED_NEW');
     SELECT item->>'gsi1sk', pk, sk FROM singletable.query('@T@', 'STATUS#approved', '<', '2026-06-25', index_name => 'gsi1');
     SELECT singletable.put_item('@T@', '{\"pk\": \"USER#u_900007\", \"sk\": \"PROFILE\", \"name\": \"Rolled back\"}', return_values => 'ALL_OLD');
     ROLLBACK;
     SELECT item->>'gsi1sk', pk, sk FROM singletable.query('@T@', 'STATUS#approved', '<', '2026-06-25', index_name => 'gsi1');
     SELECT singletable.get_item('@T@', 'USER#u_900007', 'PROFILE')->>'name'" 'POST#p_2102'

same "a transaction writing collections on both workers commits atomically (two-phase commit)" \
    "BEGIN;
     SELECT count(singletable.put_item('@T@', jsonb_build_object('pk', 'USER#u_' || (900000 + n), 'sk', 'TX#1', 'n', n)))
       FROM generate_series(1, 40) n;
     COMMIT;
     SELECT count(*) FROM @T@ WHERE sk = 'TX#1';
     BEGIN;
     SELECT count(singletable.delete_item('@T@', 'USER#u_' || (900000 + n), 'TX#1')) FROM generate_series(1, 40) n;
     ROLLBACK;
     SELECT count(*) FROM @T@ WHERE sk = 'TX#1'" '^40$'

run "SET citus.log_remote_commands = on;
     BEGIN;
     SELECT count(singletable.put_item('posting', jsonb_build_object('pk', 'USER#u_' || (900000 + n), 'sk', 'TX#2')) IS NULL)
       FROM generate_series(1, 40) n;
     COMMIT;"
prepared=$(grep -E 'NOTICE:  issuing PREPARE TRANSACTION' -A1 <<<"$OUT" | grep -oE 'on server [^ ]+' | sort -u | wc -l)
committed=$(grep -E 'NOTICE:  issuing COMMIT PREPARED' -A1 <<<"$OUT" | grep -oE 'on server [^ ]+' | sort -u | wc -l)
if ((prepared == 2 && committed == 2)); then
    ok "that transaction's COMMIT is PREPARE TRANSACTION, then COMMIT PREPARED, on each worker"
else
    not_ok "that transaction's COMMIT is PREPARE TRANSACTION, then COMMIT PREPARED, on each worker"
    diag "workers prepared: $prepared, committed prepared: $committed; commands:" \
        "$(grep -E 'issuing (BEGIN|PREPARE|COMMIT)|on server' <<<"$OUT" | head -n 20)"
fi

#
# Secondary indexes created after distribution: on every shard, checked against every item
#
same "create_gsi after distribution, on a table with items: queries on it" \
    "SELECT singletable.put_item('@T@', '{\"pk\": \"TEAM#t_01\", \"sk\": \"PROFILE\", \"gsi2pk\": \"PLAN#team\", \"gsi2sk\": 3}');
     SELECT count(singletable.update_item('@T@', 'USER#u_' || (900000 + n), 'PROFILE', 'SET gsi2pk = :p, gsi2sk = :n',
                                          vals => jsonb_build_object(':p', 'PLAN#free', ':n', n % 7)))
       FROM generate_series(1, 60) n;
     SELECT singletable.create_gsi('@T@', 'gsi2', 'gsi2pk', 'gsi2sk', sort_key_type => 'N');
     SELECT item->'gsi2sk', pk FROM singletable.query('@T@', 'PLAN#free', '>=', '5', index_name => 'gsi2');
     SELECT pk FROM singletable.query('@T@', 'PLAN#team', index_name => 'gsi2')" 'TEAM#t_01'

expect "the GSI created after distribution (CREATE INDEX through SPI) exists on every shard" \
    "$SHARDS" "$(shard_indexes_sql posting_gsi2_gsi)"

same_error "create_gsi after distribution refuses items already on the shards with a wrong key type" \
    "SELECT singletable.create_gsi('@T@', 'gsi3', 'gsi2sk')" 42804

same "create_lsi after distribution: a query on it" \
    "SELECT singletable.create_lsi('@T@', 'by_title', 'title');
     SELECT item->>'title', sk FROM singletable.query('@T@', 'USER#u_1001', 'begins_with', 'D', index_name => 'by_title');
     SELECT sk FROM singletable.query('@T@', 'USER#u_1002', forward => false, index_name => 'by_title')" 'POST#p_2102'

expect "the LSI exists on every shard" "$SHARDS" "$(shard_indexes_sql posting_by_title_lsi)"

# create_gsi(concurrently => true): a background worker runs CREATE INDEX CONCURRENTLY,
# which Citus propagates to the shards; it waits for every older transaction, so the
# registry is polled from the shell, each look its own transaction (at most 60 s).
wait_index() {
    local t=$1 index=$2 i status
    for ((i = 0; i < 240; i++)); do
        status=$(cl_sql coord "SELECT status FROM singletable.indexes
                                WHERE table_name = '$t'::regclass AND index_name = '$index'" 2>&1)
        [[ $status != CREATING ]] && break
        sleep 0.25
    done
}
for t in posting_local posting; do
    t0=$(date +%s%N)
    cl_sql coord "SELECT singletable.create_gsi('$t', 'gsi_plan', 'plan', concurrently => true)" >/dev/null 2>&1
    wait_index "$t" gsi_plan
    diag "create_gsi(concurrently => true) on $t: built in $((($(date +%s%N) - t0) / 1000000)) ms"
done
same "create_gsi(concurrently => true) after distribution becomes ACTIVE; queries on it" \
    "SELECT status, coalesce(build_error, '') FROM singletable.indexes WHERE table_name = '@T@'::regclass AND index_name = 'gsi_plan';
     SELECT count(*) FROM singletable.query('@T@', 'free', index_name => 'gsi_plan');
     SELECT pk FROM singletable.query('@T@', 'pro', index_name => 'gsi_plan')" '^ACTIVE\|'

expect "the concurrently built GSI exists, valid, on every shard" "$SHARDS" \
    "SELECT sum(result::int) FROM run_command_on_workers(\$\$
       SELECT count(*) FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
        WHERE c.relname ~ '^posting_gsi_plan_gsi_[0-9]+\$' AND i.indisvalid\$\$)"

same "drop_gsi after distribution" \
    "SELECT singletable.drop_gsi('@T@', 'gsi_plan');
     SELECT count(*) FROM singletable.indexes WHERE table_name = '@T@'::regclass AND index_name = 'gsi_plan'" '^0$'
expect "drop_gsi removes the index from every shard" "0" "$(shard_indexes_sql posting_gsi_plan_gsi)"

if ((HAS_DISTRIBUTE)); then
    expect_match "describe_table says the table is distributed" \
        "\"Distributed\": true
\"ShardCount\": $SHARDS
\"DistributionColumn\": \"pk\"" \
        "SELECT singletable.describe_table('posting')"
else
    ok "describe_table says the table is distributed # SKIP singletable has no distribute_table"
fi

# What describe_table says of the size of a distributed table: the shards' items and bytes
# (Citus's citus_total_relation_size), as it says the local table's, not those of the
# coordinator's shell table, which holds no item.
expect "describe_table's ItemCount and TableSizeBytes count the shards, not the coordinator's empty shell table" \
    "ok" \
    "ANALYZE posting_local; ANALYZE posting;
     SELECT CASE WHEN (d->>'ItemCount')::bigint = (SELECT count(*) FROM posting)
                  AND (d->>'TableSizeBytes')::bigint >= citus_total_relation_size('posting') THEN 'ok'
                 ELSE format('ItemCount %s (the local copy: %s; count(*): %s), TableSizeBytes %s '
                             '(citus_total_relation_size of the shards: %s; the shell table: %s)',
                             d->'ItemCount', l->'ItemCount', (SELECT count(*) FROM posting), d->'TableSizeBytes',
                             citus_total_relation_size('posting'), pg_total_relation_size('posting')) END
       FROM (SELECT singletable.describe_table('posting') d, singletable.describe_table('posting_local') l) x"

# UpdateTable creating a GSI on a distributed table: it builds the index on every shard
# and then describes the table, which once read citus_total_relation_size and failed
# ("citus size functions cannot be called in transaction blocks which contain multi-shard
# data modifications"), creating nothing.
UPD_GSI='{"TableName": "@T@", "AttributeDefinitions": [{"AttributeName": "plan", "AttributeType": "S"}],
          "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "gsi_upd", "Projection": {"ProjectionType": "ALL"},
                                                      "KeySchema": [{"AttributeName": "plan", "KeyType": "HASH"}]}}]}'
same "UpdateTable creates a GSI on a distributed table, answering as on the local table; Query on it" \
    "SELECT g->>'IndexName', g->>'IndexStatus'
       FROM jsonb_array_elements(singletable.dynamodb('UpdateTable', '$UPD_GSI')->'TableDescription'->'GlobalSecondaryIndexes') g
      ORDER BY 1;
     SELECT singletable.dynamodb('Query', '{\"TableName\": \"@T@\", \"IndexName\": \"gsi_upd\", \"Select\": \"COUNT\",
              \"KeyConditionExpression\": \"#p = :p\", \"ExpressionAttributeNames\": {\"#p\": \"plan\"},
              \"ExpressionAttributeValues\": {\":p\": {\"S\": \"pro\"}}}')" '^gsi_upd\|'
expect "the GSI UpdateTable created exists, valid, on every shard" "$SHARDS" \
    "SELECT sum(result::int) FROM run_command_on_workers(\$\$
       SELECT count(*) FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
        WHERE c.relname ~ '^posting_gsi_upd_gsi_[0-9]+\$' AND i.indisvalid\$\$)"

# describe_table's figures of a distributed table's indexes: ItemCount and IndexSizeBytes
# are the shards' (their copies of the index), not those of the coordinator's empty shell
# index (0 entries, 8192 bytes). ItemCount is an estimate, as DynamoDB's is (the shards'
# index reltuples after VACUUM, which counts entries not yet removable): within 2 %.
expect "describe_table's GSI ItemCount on a distributed table is its shards' entries (a sparse index's too)" "ok" \
    "VACUUM ANALYZE posting;
     SELECT CASE WHEN abs(n.gsi1 - c.gsi1) <= greatest(2, c.gsi1 / 50) AND abs(n.gsi_upd - c.gsi_upd) <= greatest(2, c.gsi_upd / 50)
                  AND n.gsi1 > 0 AND n.gsi_upd > 0 THEN 'ok'
                 ELSE format('ItemCount gsi1 %s, gsi_upd %s; count(*): %s, %s', n.gsi1, n.gsi_upd, c.gsi1, c.gsi_upd) END
       FROM (SELECT count(*) FILTER (WHERE jsonb_typeof(item->'gsi1pk') = 'string' AND jsonb_typeof(item->'gsi1sk') = 'string') AS gsi1,
                    count(*) FILTER (WHERE jsonb_typeof(item->'plan') = 'string') AS gsi_upd FROM posting) c,
            (SELECT max((g->>'ItemCount')::bigint) FILTER (WHERE g->>'IndexName' = 'gsi1') AS gsi1,
                    max((g->>'ItemCount')::bigint) FILTER (WHERE g->>'IndexName' = 'gsi_upd') AS gsi_upd
               FROM jsonb_array_elements(singletable.describe_table('posting')->'GlobalSecondaryIndexes') g) n"
expect "describe_table's GSI IndexSizeBytes on a distributed table is the sum of its shards' copies" "ok" \
    "SELECT CASE WHEN (g->>'IndexSizeBytes')::bigint = s.bytes AND s.bytes > 8192 THEN 'ok'
                 ELSE format('IndexSizeBytes %s, the shards'' copies: %s', g->'IndexSizeBytes', s.bytes) END
       FROM jsonb_array_elements(singletable.describe_table('posting')->'GlobalSecondaryIndexes') g,
            (SELECT sum(result::bigint) AS bytes FROM run_command_on_workers(\$\$
               SELECT coalesce(sum(pg_catalog.pg_relation_size(c.oid)), 0) FROM pg_catalog.pg_class c
                WHERE c.relname ~ '^posting_gsi1_gsi_[0-9]+\$'\$\$)) s
      WHERE g->>'IndexName' = 'gsi1'"

# One index created or dropped at a time: while create_gsi(concurrently => true) builds an
# index (held up here by a writer's open transaction on a shard), drop_gsi of another index
# and UpdateTable deleting one are refused at once (LimitExceededException). They used to
# wait for the table's lock, reach the workers, and meet the shards' builds in a deadlock
# that marked the new index FAILED.
cl_psql coord -q -c "BEGIN" -c "SELECT singletable.put_item('posting', '{\"pk\": \"USER#busy\", \"sk\": \"x\"}')" \
    -c "SELECT pg_sleep(4)" -c "ROLLBACK" >/dev/null 2>&1 &
BUSY_PID=$!
sleep 0.5
cl_sql coord "SELECT singletable.create_gsi('posting', 'gsi_busy', 'plan', concurrently => true)" >/dev/null 2>&1
t0=$(date +%s%N)
expect_match "drop_gsi of another index while a GSI is built on a distributed table: refused at once (55S04)" \
    "55S04 index \"gsi_busy\" of table \"posting\" is being built
LimitExceededException" \
    "\\set VERBOSITY verbose
     \\set ON_ERROR_STOP 0
     DO \$\$ BEGIN PERFORM singletable.drop_gsi('posting', 'gsi_upd');
        EXCEPTION WHEN OTHERS THEN RAISE NOTICE '% %', SQLSTATE, SQLERRM; END \$\$;
     SELECT singletable.dynamodb('UpdateTable', '{\"TableName\": \"posting\", \"GlobalSecondaryIndexUpdates\": [{\"Delete\": {\"IndexName\": \"gsi_upd\"}}]}');" 
diag "refused in $((($(date +%s%N) - t0) / 1000000)) ms"
wait "$BUSY_PID"
wait_index posting gsi_busy
expect "the GSI built meanwhile ends ACTIVE; the other index is still there; then both are dropped" \
    "ACTIVE|
gsi1
gsi_busy
gsi_upd
0" \
    "SELECT status, coalesce(build_error, '') FROM singletable.indexes WHERE table_name = 'posting'::regclass AND index_name = 'gsi_busy';
     SELECT index_name FROM singletable.indexes WHERE table_name = 'posting'::regclass AND index_name IN ('gsi1', 'gsi_busy', 'gsi_upd') ORDER BY 1;
     \\o /dev/null
     SELECT singletable.drop_gsi('posting', 'gsi_busy'), singletable.drop_gsi('posting', 'gsi_upd'),
            singletable.drop_gsi('posting_local', 'gsi_upd');
     \\o
     SELECT count(*) FROM singletable.indexes WHERE index_name IN ('gsi_busy', 'gsi_upd')"

#
# A table distributed while it holds items, and while another session has used it
#
# A second session on the coordinator: psql reading its statements from a fifo. s2 SQL
# sends SQL and waits (30 s at most) for its output, which it puts in OUT.
mkfifo "$WORK/s2.in"
cl_psql coord -q -A -t <"$WORK/s2.in" >"$WORK/s2.out" 2>&1 &
S2_PID=$!
exec 4>"$WORK/s2.in"
S2_N=0
s2() {
    local i before
    S2_N=$((S2_N + 1))
    if ! kill -0 "$S2_PID" 2>/dev/null; then
        OUT="the second session's psql has exited: $(cat "$WORK/s2.out")"
        return 1
    fi
    before=$(wc -l <"$WORK/s2.out")
    # (no SIGPIPE for this script should psql exit meanwhile: the wait below times out)
    (trap '' PIPE; printf '%s\n\\echo S2-DONE-%s\n' "$1" "$S2_N" >&4)
    for ((i = 0; i < 300; i++)); do
        grep -qx "S2-DONE-$S2_N" "$WORK/s2.out" && break
        sleep 0.1
    done
    OUT=$(tail -n +"$((before + 1))" "$WORK/s2.out" | grep -vx "S2-DONE-$S2_N")
}
mark_logs
s2 "SELECT singletable.create_table('posting_late');
          SELECT singletable.create_gsi('posting_late', 'gsi1', 'gsi1pk', 'gsi1sk');
          SELECT count(singletable.put_item('posting_late', jsonb_build_object('pk', 'USER#' || n, 'sk', 'POST#1',
                                            'gsi1pk', 'STATUS#approved', 'gsi1sk', 'T' || n)) IS NULL)
            FROM generate_series(10, 49) n;
          SELECT singletable.get_item('posting_late', 'USER#10', 'POST#1')->>'gsi1sk';
          SELECT count(*) FROM singletable.query('posting_late', 'STATUS#approved', index_name => 'gsi1');
          SELECT singletable.update_item('posting_late', 'USER#11', 'POST#1', 'ADD n :one', vals => '{\":one\": 1}')->'n';"
if [[ $OUT == $'posting_late\nposting_late_gsi1_gsi\n40\nT10\n40\n1' ]]; then
    ok "a second session creates a table, writes and reads it (its statements planned and kept)"
else
    fail "a second session creates a table, writes and reads it (its statements planned and kept)" "(session 2)"
fi
expect "the table is distributed while it holds items; queries and writes in this session reach the shards" \
    "1
40
40
2
t" \
    "SET client_min_messages = warning;
     \\o /dev/null
     $(distribute_sql posting_late)
     \\o
     SELECT count(*) FROM pg_dist_partition WHERE logicalrelid = 'posting_late'::regclass;
     SELECT count(*) FROM posting_late;
     SELECT count(*) FROM singletable.query('posting_late', 'STATUS#approved', index_name => 'gsi1');
     SELECT singletable.update_item('posting_late', 'USER#11', 'POST#1', 'ADD n :one', vals => '{\":one\": 1}')->'n';
     SELECT singletable.put_item('posting_late', '{\"pk\": \"USER#50\", \"sk\": \"POST#1\", \"gsi1pk\": \"STATUS#approved\", \"gsi1sk\": \"T50\"}') IS NULL;"
mark_logs
s2 "SELECT singletable.get_item('posting_late', 'USER#50', 'POST#1')->>'gsi1sk';
          SELECT count(*) FROM singletable.query('posting_late', 'STATUS#approved', index_name => 'gsi1');
          SELECT singletable.update_item('posting_late', 'USER#11', 'POST#1', 'ADD n :one', vals => '{\":one\": 1}')->'n';
          SELECT count(*) FROM singletable.query('posting_late', 'USER#12');
          SELECT singletable.delete_item('posting_late', 'USER#12', 'POST#1', return_values => 'ALL_OLD')->>'pk';
          SELECT count(*) FROM posting_late;"
if [[ $OUT == $'T50\n41\n3\n1\nUSER#12\n40' ]]; then
    ok "the session that used the table before its distribution reads and writes the shards after it (its kept plans replanned)"
else
    fail "the session that used the table before its distribution reads and writes the shards after it (its kept plans replanned)" \
        "(session 2: get_item, GSI query, update_item, query, delete_item, count)"
fi
exec 4>&-
if ((HAS_DISTRIBUTE)); then
    expect "distribute_table leaves no copy of the items in the coordinator's shell table (Citus keeps it unless truncated)" \
        "0" \
        "SELECT pg_relation_size('posting_late')"
else
    ok "distribute_table leaves no copy of the items in the coordinator's shell table # SKIP singletable has no distribute_table"
fi

#
# Routing: which shards each single-key call touched
#
routed "get_item touches one shard" \
    "SELECT singletable.get_item('posting', 'USER#u_1001', 'PROFILE');"
routed "put_item (INSERT ... ON CONFLICT) touches one shard" \
    "SELECT singletable.put_item('posting', '{\"pk\": \"USER#u_1001\", \"sk\": \"NOTE#1\", \"v\": 1}');"
routed "conditional put_item (SELECT ... FOR UPDATE, then INSERT ... ON CONFLICT DO NOTHING) touches one shard" \
    "SELECT singletable.put_item('posting', '{\"pk\": \"USER#u_1001\", \"sk\": \"NOTE#2\"}', condition => 'attribute_not_exists(pk)');"
routed "update_item with a condition touches one shard" \
    "SELECT singletable.update_item('posting', 'USER#u_1001', 'NOTE#1', 'ADD v :one', condition => 'v >= :one',
                                    vals => '{\":one\": 1}');"
routed "delete_item with ALL_OLD touches one shard" \
    "SELECT singletable.delete_item('posting', 'USER#u_1001', 'NOTE#2', return_values => 'ALL_OLD');"
routed "query with begins_with, max_items and a start key touches one shard" \
    "SELECT * FROM singletable.query('posting', 'USER#u_1001', 'begins_with', 'POST#', max_items => 1,
                                     exclusive_start_sk => 'POST#p_2001');"
routed "query on an LSI touches one shard" \
    "SELECT * FROM singletable.query('posting', 'USER#u_1001', index_name => 'by_title');"
routed "a transaction of get_item, update_item and query on one collection touches one shard" \
    "BEGIN; SELECT singletable.get_item('posting', 'USER#u_1001', 'NOTE#1');
     SELECT singletable.update_item('posting', 'USER#u_1001', 'NOTE#1', 'SET w = :w', vals => '{\":w\": 2}');
     SELECT count(*) FROM singletable.query('posting', 'USER#u_1001'); COMMIT;"
expect_match "a GSI query is one multi-shard statement (refused under citus.multi_task_query_log_level = error)" \
    "multi-task query about to be executed" \
    "SET citus.multi_task_query_log_level = error;
     DO \$\$ BEGIN
       PERFORM * FROM singletable.query('posting', 'STATUS#approved', index_name => 'gsi1', max_items => 3);
     EXCEPTION WHEN OTHERS THEN RAISE NOTICE '%', SQLERRM;
     END \$\$;"

#
# Plans: router plans for one collection, multi-shard plans with pushed-down ORDER BY and
# LIMIT for a GSI partition. The shards hold some 30 rows each, which the workers' planner
# would rather read whole: SET LOCAL enable_seqscan = off, which Citus sends to the workers
# in the transaction (citus.propagate_set_commands = local), shows which index serves
# (explained, above).
#
expect_match "EXPLAIN of get_item's SELECT (pk = ... AND sk = ...): a router plan, an Index Scan of one shard's primary key" \
    "Custom Scan \\(Citus Adaptive\\)
Task Count: 1
Index Scan using posting_pkey_[0-9]+ on posting_[0-9]+
Index Cond: \\(\\(pk = 'USER#u_1001'::text\\) AND \\(sk = 'PROFILE'::text\\)\\)" \
    "$(explained "EXPLAIN (COSTS OFF) SELECT item FROM posting WHERE pk = 'USER#u_1001' AND sk = 'PROFILE';")"

expect_match "EXPLAIN of plain SQL with singletable.begins_with: a router plan, a range of the shard's primary key" \
    "Task Count: 1
Index Cond: \\(\\(pk = 'USER#u_1001'::text\\) AND \\(sk >= 'POST#'::text\\) AND \\(sk < 'POST\\$'::text\\)\\)" \
    "$(explained "EXPLAIN (COSTS OFF) SELECT sk, item FROM posting WHERE pk = 'USER#u_1001' AND singletable.begins_with(sk, 'POST#');")"

expect_match "EXPLAIN of the same with bind parameters in a generic plan: still one task" \
    "Task Count: 1
posting_pkey_[0-9]+" \
    "$(explained "SET LOCAL plan_cache_mode = force_generic_plan;
     PREPARE posts(text, text) AS SELECT sk, item FROM posting WHERE pk = \$1 AND singletable.begins_with(sk, \$2);
     EXPLAIN (COSTS OFF) EXECUTE posts('USER#u_1001', 'POST#');")"

expect_match "explain_query of a begins_with query: a router plan" \
    "Custom Scan \\(Citus Adaptive\\)
Task Count: 1
Index Scan using posting_pkey_[0-9]+
sk >= 'POST#'::text" \
    "$(explained "SELECT * FROM singletable.explain_query('posting', 'USER#u_1001', 'begins_with', 'POST#');")"

expect_match "explain_query of a GSI query: one task per shard, each a Limit over the shard's GSI, merged by a Sort" \
    "Limit
Sort
Sort Key: remote_scan\\..*COLLATE \"C\"
Task Count: $SHARDS
->  Limit
Index Scan using posting_gsi1_gsi_[0-9]+ on posting_[0-9]+
Index Cond: .*gsi1pk.*= 'STATUS#approved'::text.*gsi1sk.*<= '2026-06-26T00:00:00Z'::text" \
    "$(explained "SELECT * FROM singletable.explain_query('posting', 'STATUS#approved', '<=', '2026-06-26T00:00:00Z',
                                             max_items => 2, index_name => 'gsi1');")"

expect_match "explain_scan: one task per shard, each a Limit over a range of the shard's primary key, merged by a Sort" \
    "Limit
Sort
Task Count: $SHARDS
->  Limit
Index Scan using posting_pkey_[0-9]+ on posting_[0-9]+
Index Cond: \\(ROW\\(pk, sk\\) > ROW\\('USER#u_1001'::text, 'POST#'::text\\)\\)" \
    "$(explained "SELECT * FROM singletable.explain_scan('posting', max_items => 5,
                                             exclusive_start_key => '{\"pk\": \"USER#u_1001\", \"sk\": \"POST#\"}');")"

expect_match "EXPLAIN of index_sql's statement for the GSI: one task per shard over the shard's GSI" \
    "Task Count: $SHARDS
Index Scan using posting_gsi1_gsi_[0-9]+" \
    "SELECT singletable.index_sql('posting', 'gsi1') AS sql \\gset
     $(explained "PREPARE gsi(text) AS :sql;
     EXPLAIN (COSTS OFF) EXECUTE gsi('STATUS#approved');")"

# The extension plans its statements once per table and keeps them (SPI_keepplan); the
# session's plan_cache_mode chooses custom or generic plans for them, as for any
# prepared statement.
same "GSI query under plan_cache_mode = force_generic_plan (as a driver's prepared statements may set)" \
    "SET plan_cache_mode = force_generic_plan;
     SELECT pk, sk FROM singletable.query('@T@', 'STATUS#approved', '<', '2026-06-25', index_name => 'gsi1');" \
    'POST#p_2101'
same "get_item, update_item and a base-table query under plan_cache_mode = force_generic_plan" \
    "SET plan_cache_mode = force_generic_plan;
     SELECT singletable.get_item('@T@', 'USER#u_1003', 'PROFILE')->>'name';
     SELECT singletable.update_item('@T@', 'USER#u_1003', 'PROFILE', 'ADD logins :one', vals => '{\":one\": 1}');
     SELECT sk FROM singletable.query('@T@', 'USER#u_1003', 'begins_with', 'INTEG#')" 'Chen Wei'

#
# Atomic counters under concurrency: 4 pgbench clients, each transaction one update_item
#
cat >"$WORK/counter.sql" <<'EOF'
SELECT singletable.update_item('posting', 'USER#u_1001', 'ANALYTICS#p_2001', 'ADD clicks :one, #c.#k :one',
                               names => '{"#c": "byClient", "#k": "all"}', vals => '{":one": 1}', return_values => 'NONE');
EOF
cat >"$WORK/new_counters.sql" <<'EOF'
\set k random(1, 12)
SELECT singletable.update_item('posting', 'COUNTER#' || :k, 'TOTAL', 'ADD n :one', vals => '{":one": 1}', return_values => 'NONE');
EOF
run "SELECT singletable.update_item('posting', 'USER#u_1001', 'ANALYTICS#p_2001', 'SET clicks = :z, byClient = :m',
                                   vals => '{\":z\": 0, \":m\": {\"all\": 0}}')"
CLIENTS=4 PER_CLIENT=150
for script in counter new_counters; do
    mark_logs
    t0=$(date +%s%N)
    if OUT=$("$PGBIN/pgbench" -n -c "$CLIENTS" -j "$CLIENTS" -t "$PER_CLIENT" -f "$WORK/$script.sql" \
            -h "${CL_HOST[coord]}" -p "${CL_PORT[coord]}" -U postgres postgres 2>&1); then
        diag "pgbench $script.sql: $(grep -E '^tps' <<<"$OUT" | head -n 1) ($((($(date +%s%N) - t0) / 1000000)) ms)"
        PGBENCH_OK=1
    else
        PGBENCH_OK=0
    fi
    if [[ $script == counter ]]; then
        sql="SELECT item->'clicks', item->'byClient'->'all' FROM posting WHERE pk = 'USER#u_1001' AND sk = 'ANALYTICS#p_2001'"
        want="$((CLIENTS * PER_CLIENT))|$((CLIENTS * PER_CLIENT))"
        desc="ADD counter under $CLIENTS concurrent clients: $((CLIENTS * PER_CLIENT)) increments of one item, none lost"
    else
        sql="SELECT sum((item->>'n')::int) FROM posting WHERE pk LIKE 'COUNTER#%'"
        want=$((CLIENTS * PER_CLIENT))
        desc="ADD counters created by concurrent update_item of absent items (INSERT ... ON CONFLICT races): none lost"
    fi
    if ((PGBENCH_OK == 0)); then
        not_ok "$desc"
        diag "pgbench failed:" "$OUT"
        failure_details
    else
        expect "$desc" "$want" "$sql"
    fi
done

# The cost of distribution, measured (diagnostics, not checks): one client, get_item and the
# 30-item query on the distributed table through the coordinator and on the local table.
# sql_get is the same read in plain SQL: the part of the distributed cost that is Citus's
# routing (planning, deparsing, one round trip to the worker), not the extension's.
for what in get_item sql_get query30; do
    for t in posting_local posting; do
        case $what in
            get_item) echo "SELECT singletable.get_item('$t', 'USER#u_1001', 'PROFILE');" ;;
            sql_get) echo "SELECT item FROM $t WHERE pk = 'USER#u_1001' AND sk = 'PROFILE';" ;;
            *) echo "SELECT count(*) FROM singletable.query('$t', 'POST#p_2001');" ;;
        esac >"$WORK/$what-$t.sql"
        tps=$("$PGBIN/pgbench" -n -c 1 -t 2000 -f "$WORK/$what-$t.sql" -h "${CL_HOST[coord]}" -p "${CL_PORT[coord]}" \
                -U postgres postgres 2>&1 | sed -n 's/^tps = \([0-9.]*\) .*/\1/p')
        declare "TPS_${what}_$t=${tps:-0}"
    done
    l=TPS_${what}_posting_local d=TPS_${what}_posting
    diag "pgbench $what, 1 client, 2000 calls: local table ${!l} tps, distributed ${!d} tps$(awk -v l="${!l}" -v d="${!d}" \
            'BEGIN { if (d > 0) printf ", %.1fx the time per call", l / d }')"
done

#
# TTL on the distributed table: hidden reads, a sweep routed per collection (Citus does not
# lock rows in multi-shard statements), the GSI kept consistent, the backlog from the shards
#
same "TTL: expired metrics are hidden from query and get_item, include_expired shows them, ttl_sweep deletes them" \
    "SET client_min_messages = warning;
     \\o /dev/null
     SELECT singletable.enable_ttl('@T@', 'expiresAt');
     SELECT singletable.put_item('@T@', jsonb_build_object('pk', 'POST#ttl' || (i % 7), 'sk', 'METRICS#' || lpad(i::text, 4, '0'),
              'expiresAt', extract(epoch FROM now())::bigint + CASE WHEN i % 3 = 0 THEN 3600 ELSE -3600 END,
              'gsi1pk', 'METRICS#ttl', 'gsi1sk', lpad(i::text, 4, '0')))
       FROM generate_series(1, 60) i;
     \\o
     SELECT (SELECT count(*) FROM singletable.query('@T@', 'POST#ttl1')),
            (SELECT count(*) FROM singletable.query('@T@', 'POST#ttl1', include_expired => true)),
            (SELECT count(*) FROM singletable.query('@T@', 'METRICS#ttl', index_name => 'gsi1')),
            singletable.get_item('@T@', 'POST#ttl1', 'METRICS#0001') IS NULL,
            singletable.get_item('@T@', 'POST#ttl1', 'METRICS#0001', include_expired => true) IS NOT NULL;
     SELECT backlog FROM singletable.ttl_status WHERE table_name = '@T@'::regclass;
     SELECT singletable.ttl_sweep('@T@', max_items => 15);
     SELECT singletable.ttl_sweep('@T@');
     SELECT backlog FROM singletable.ttl_status WHERE table_name = '@T@'::regclass;
     SELECT (SELECT count(*) FROM singletable.query('@T@', 'METRICS#ttl', index_name => 'gsi1', include_expired => true)),
            (SELECT count(*) FROM @T@ WHERE pk LIKE 'POST#ttl%');
     \\o /dev/null
     SELECT singletable.disable_ttl('@T@');
     DELETE FROM @T@ WHERE pk LIKE 'POST#ttl%';" \
    '^[0-9]+\|[0-9]+\|20\|t\|t'

expect "TTL: a sweep of the distributed table skips an item another transaction has locked" \
    "1|1" \
    "SET client_min_messages = warning;
     \\o /dev/null
     SELECT singletable.enable_ttl('posting', 'expiresAt');
     SELECT singletable.put_item('posting', jsonb_build_object('pk', 'POST#lock', 'sk', 'METRICS#' || i,
              'expiresAt', extract(epoch FROM now())::bigint - 60)) FROM generate_series(1, 2) i;
     \\o
     BEGIN;
     SELECT 1 AS locked FROM posting WHERE pk = 'POST#lock' AND sk = 'METRICS#1' FOR UPDATE \\gset
     \\! $(declare -p CL_HOST CL_PORT >/dev/null 2>&1; printf '%q' "$PGBIN/psql") -X -q -A -t -h ${CL_HOST[coord]} -p ${CL_PORT[coord]} -U postgres postgres -c \"SET lock_timeout = '5s'\" -c \"SELECT singletable.ttl_sweep('posting')\" > $WORK/ttl_locked.out 2>&1
     COMMIT;
     \\o /dev/null
     \\o
     SELECT pg_catalog.pg_read_file('$WORK/ttl_locked.out')::int, (SELECT count(*) FROM posting WHERE pk = 'POST#lock');
     \\o /dev/null
     SELECT singletable.ttl_sweep('posting');
     SELECT singletable.disable_ttl('posting');"

#
# What a distributed table refuses, with errors that name the reason
#
expect_match "a singletable call that Citus pushes down to a shard (in a query over the distributed table) fails and says why" \
    "cannot execute a distributed query from a query on a shard
Avoid nesting of distributed queries" \
    "\\set ON_ERROR_STOP 0
     SELECT singletable.get_item('posting', pk, sk) FROM posting WHERE pk = 'USER#u_1001' LIMIT 1;
     SELECT singletable.get_item('posting', pk, sk) IS NOT NULL FROM posting LIMIT 1;"

expect_match "distribute_table refuses a table that is already distributed, and a shard_count against the colocation group" \
    "already distributed
colocated with" \
    "\\set ON_ERROR_STOP 0
     SELECT singletable.distribute_table('posting');
     SELECT singletable.create_table('posting_tmp3');
     SELECT singletable.distribute_table('posting_tmp3', 7);
     SELECT singletable.drop_table('posting_tmp3');" 

#
# drop_table and DROP TABLE of distributed tables: shards and registry rows go
#
expect "drop_table and DROP TABLE of distributed tables remove their shards and registry rows" \
    "t
0|0|0" \
    "SET client_min_messages = warning;
     \\o /dev/null
     SELECT singletable.create_table('posting_tmp1'); $(distribute_sql posting_tmp1)
     SELECT singletable.create_table('posting_tmp2'); $(distribute_sql posting_tmp2)
     SELECT singletable.put_item('posting_tmp1', '{\"pk\": \"a\", \"sk\": \"b\"}');
     SELECT singletable.put_item('posting_tmp2', '{\"pk\": \"a\", \"sk\": \"b\"}');
     \\o
     SELECT (SELECT colocationid FROM pg_dist_partition WHERE logicalrelid = 'posting_tmp1'::regclass)
          = (SELECT colocationid FROM pg_dist_partition WHERE logicalrelid = 'posting'::regclass);
     \\o /dev/null
     SELECT singletable.drop_table('posting_tmp1');
     DROP TABLE posting_tmp2;
     \\o
     SELECT (SELECT count(*) FROM pg_dist_partition WHERE logicalrelid::text LIKE 'posting_tmp%'),
            (SELECT count(*) FROM singletable.tables WHERE table_name::text LIKE 'posting_tmp%'),
            (SELECT sum(result::int) FROM run_command_on_workers(
                \$\$SELECT count(*) FROM pg_class WHERE relname ~ '^posting_tmp[12]_[0-9]+\$'\$\$));"

#
# Transactions (transact_write, transact_get) and their ClientRequestTokens on the
# distributed table: 40 collections spread over both workers in one transaction
#
# tx_adds(table, sk, d, n): n Update actions, ADD d to n of (USER#u_900001.., sk);
# tx_check(table, condition): a ConditionCheck on USER#u_1001's profile
expect "transactions: the helpers that build transact_write actions" "" \
    "CREATE FUNCTION tx_adds(t text, sk text, d int, n int) RETURNS jsonb LANGUAGE sql AS \$\$
       SELECT jsonb_agg(jsonb_build_object('Update', jsonb_build_object('TableName', t,
                'Key', jsonb_build_object('pk', 'USER#u_' || (900000 + i), 'sk', sk),
                'UpdateExpression', 'ADD n :d', 'ExpressionAttributeValues', jsonb_build_object(':d', d))) ORDER BY i)
         FROM generate_series(1, n) i
     \$\$;
     CREATE FUNCTION tx_check(t text, cond text) RETURNS jsonb LANGUAGE sql AS \$\$
       SELECT jsonb_build_array(jsonb_build_object('ConditionCheck', jsonb_build_object('TableName', t,
                'Key', jsonb_build_object('pk', 'USER#u_1001', 'sk', 'PROFILE'), 'ConditionExpression', cond)))
     \$\$;"

same "transact_write: 40 updates on collections of both workers and a ConditionCheck, all applied, the same capacity" \
    "SELECT singletable.transact_write(tx_adds('@T@', 'TXW#1', 1, 40) || tx_check('@T@', 'attribute_exists(pk)'));
     SELECT count(*), sum((item->>'n')::int) FROM @T@ WHERE sk = 'TXW#1'" '^40\|40$'

same_error "transact_write: the same with a failing ConditionCheck last is cancelled with 23S02, the same reasons" \
    "SELECT singletable.transact_write(tx_adds('@T@', 'TXW#1', 1, 40) || tx_check('@T@', 'attribute_not_exists(pk)'))" \
    23S02

same "... and wrote nothing on either worker; cancellation_reasons() names the failed action" \
    "SELECT count(*), sum((item->>'n')::int) FROM @T@ WHERE sk = 'TXW#1';
     DO \$\$ BEGIN
       PERFORM singletable.transact_write(tx_adds('@T@', 'TXW#1', 1, 40) || tx_check('@T@', 'attribute_not_exists(pk)'));
     EXCEPTION WHEN SQLSTATE '23S02' THEN
       RAISE NOTICE 'reason 41: %', singletable.cancellation_reasons() -> 40 ->> 'Code';
     END \$\$;" '^40\|40$'

same "transact_write, then an error in the same transaction: the writes on both workers roll back" \
    "\\set ON_ERROR_STOP off
     BEGIN;
     SELECT singletable.transact_write(tx_adds('@T@', 'TXW#1', 1, 40)) IS NOT NULL;
     SELECT 1 / 0;
     ROLLBACK;
     \\set ON_ERROR_STOP on
     SELECT count(*), sum((item->>'n')::int) FROM @T@ WHERE sk = 'TXW#1'" '^40\|40$'

run "SET citus.log_remote_commands = on;
     SELECT singletable.transact_write(tx_adds('posting', 'TXW#1', 1, 40)) IS NOT NULL;"
prepared=$(grep -E 'NOTICE:  issuing PREPARE TRANSACTION' -A1 <<<"$OUT" | grep -oE 'on server [^ ]+' | sort -u | wc -l)
committed=$(grep -E 'NOTICE:  issuing COMMIT PREPARED' -A1 <<<"$OUT" | grep -oE 'on server [^ ]+' | sort -u | wc -l)
if ((prepared == 2 && committed == 2)); then
    ok "a transact_write on both workers commits with PREPARE TRANSACTION, then COMMIT PREPARED, on each"
else
    not_ok "a transact_write on both workers commits with PREPARE TRANSACTION, then COMMIT PREPARED, on each"
    diag "workers prepared: $prepared, committed prepared: $committed; commands:" \
        "$(grep -E 'issuing (BEGIN|PREPARE|COMMIT)|on server' <<<"$OUT" | head -n 20)"
fi
q <<<"SELECT singletable.transact_write(tx_adds('posting_local', 'TXW#1', 1, 40))" >/dev/null 2>&1

same "transact_get: 40 items of both workers and a missing one, from one snapshot, the same capacity" \
    "SELECT singletable.transact_get((SELECT jsonb_agg(jsonb_build_object('Get', jsonb_build_object('TableName', '@T@',
               'Key', jsonb_build_object('pk', 'USER#u_' || (900000 + i), 'sk', 'TXW#1'), 'ProjectionExpression', 'n'))
               ORDER BY i) FROM generate_series(0, 40) i))" '"Responses": \[\{\}, \{"Item": \{"n": 2\}\}'

same "ClientRequestToken: the token's row is stored on the coordinator, a replay returns the first response and writes nothing" \
    "SELECT singletable.transact_write(tx_adds('@T@', 'TXW#2', 1, 40), 'citus-@T@');
     SELECT singletable.transact_write(tx_adds('@T@', 'TXW#2', 1, 40), 'citus-@T@');
     SELECT count(*), sum((item->>'n')::int) FROM @T@ WHERE sk = 'TXW#2';
     SELECT count(*) FROM singletable.client_request_tokens WHERE token = 'citus-@T@'" '^40\|40$'

same_error "ClientRequestToken: the token with another request fails with 22S01" \
    "SELECT singletable.transact_write(tx_adds('@T@', 'TXW#2', 2, 40), 'citus-@T@')" \
    22S01

expect "transactions: the helpers go, and the tokens" "" \
    "DROP FUNCTION tx_adds(text, text, int, int), tx_check(text, text);
     DELETE FROM singletable.client_request_tokens WHERE token LIKE 'citus-%';"
# singletable.dynamodb: CreateTable distributes by the partition key when
# singletable.dynamodb_distribute is on (and not when off); the item operations and a
# Query answer on the distributed table as on a local one
#
expect "dynamodb CreateTable with dynamodb_distribute = on distributes the table by its partition key; off leaves it local" \
"t|pk|f
{\"Item\": {\"n\": {\"N\": \"2\"}, \"pk\": {\"S\": \"u1\"}, \"sk\": {\"S\": \"b\"}}}
{\"Count\": 2, \"Items\": [{\"sk\": {\"S\": \"a\"}}, {\"sk\": {\"S\": \"b\"}}], \"ScannedCount\": 2}
{\"Count\": 1, \"Items\": [{\"pk\": {\"S\": \"u1\"}, \"sk\": {\"S\": \"b\"}}], \"ScannedCount\": 1}
0|0" \
    "SET client_min_messages = warning;
     \\o /dev/null
     SET singletable.dynamodb_distribute = on;
     SELECT singletable.dynamodb('CreateTable', '{\"TableName\": \"ddb_dist\", \"BillingMode\": \"PAY_PER_REQUEST\",
       \"AttributeDefinitions\": [{\"AttributeName\": \"pk\", \"AttributeType\": \"S\"}, {\"AttributeName\": \"sk\", \"AttributeType\": \"S\"},
                                {\"AttributeName\": \"g\", \"AttributeType\": \"S\"}],
       \"KeySchema\": [{\"AttributeName\": \"pk\", \"KeyType\": \"HASH\"}, {\"AttributeName\": \"sk\", \"KeyType\": \"RANGE\"}],
       \"GlobalSecondaryIndexes\": [{\"IndexName\": \"byG\", \"KeySchema\": [{\"AttributeName\": \"g\", \"KeyType\": \"HASH\"}],
                                   \"Projection\": {\"ProjectionType\": \"KEYS_ONLY\"}}]}');
     SET singletable.dynamodb_distribute = off;
     SELECT singletable.dynamodb('CreateTable', '{\"TableName\": \"ddb_local\", \"BillingMode\": \"PAY_PER_REQUEST\",
       \"AttributeDefinitions\": [{\"AttributeName\": \"pk\", \"AttributeType\": \"S\"}],
       \"KeySchema\": [{\"AttributeName\": \"pk\", \"KeyType\": \"HASH\"}]}');
     SELECT singletable.dynamodb('PutItem', '{\"TableName\": \"ddb_dist\", \"Item\": {\"pk\": {\"S\": \"u1\"}, \"sk\": {\"S\": \"a\"}}}');
     SELECT singletable.dynamodb('PutItem', '{\"TableName\": \"ddb_dist\", \"Item\": {\"pk\": {\"S\": \"u1\"}, \"sk\": {\"S\": \"b\"}, \"g\": {\"S\": \"x\"}}}');
     SELECT singletable.dynamodb('UpdateItem', '{\"TableName\": \"ddb_dist\", \"Key\": {\"pk\": {\"S\": \"u1\"}, \"sk\": {\"S\": \"b\"}},
       \"UpdateExpression\": \"ADD n :two\", \"ExpressionAttributeValues\": {\":two\": {\"N\": \"2\"}}}');
     \\o
     SELECT EXISTS (SELECT FROM pg_dist_partition WHERE logicalrelid = 'public.ddb_dist'::regclass),
            (SELECT column_to_column_name(logicalrelid, partkey) FROM pg_dist_partition
              WHERE logicalrelid = 'public.ddb_dist'::regclass),
            EXISTS (SELECT FROM pg_dist_partition WHERE logicalrelid = 'public.ddb_local'::regclass);
     SELECT singletable.dynamodb('GetItem', '{\"TableName\": \"ddb_dist\", \"Key\": {\"pk\": {\"S\": \"u1\"}, \"sk\": {\"S\": \"b\"}},
       \"ProjectionExpression\": \"pk, sk, n\"}');
     SELECT singletable.dynamodb('Query', '{\"TableName\": \"ddb_dist\", \"KeyConditionExpression\": \"pk = :u\",
       \"ExpressionAttributeValues\": {\":u\": {\"S\": \"u1\"}}, \"ProjectionExpression\": \"sk\"}');
     SELECT singletable.dynamodb('Query', '{\"TableName\": \"ddb_dist\", \"IndexName\": \"byG\", \"KeyConditionExpression\": \"g = :g\",
       \"ExpressionAttributeValues\": {\":g\": {\"S\": \"x\"}}, \"ProjectionExpression\": \"pk, sk\"}');
     \\o /dev/null
     SELECT singletable.dynamodb('DeleteTable', '{\"TableName\": \"ddb_dist\"}');
     SELECT singletable.dynamodb('DeleteTable', '{\"TableName\": \"ddb_local\"}');
     \\o
     SELECT (SELECT count(*) FROM pg_dist_partition WHERE logicalrelid::text LIKE 'ddb\\_%'),
            (SELECT count(*) FROM singletable.dynamodb_tables);"
# singletable.distribute_new_tables (issue 31, item 5): create_table and CreateTable
# distribute each new table by its partition key; off, they stay local
expect "distribute_new_tables = on: create_table and CreateTable distribute the new table by its partition key, writes and reads reach the shards; off leaves them local" \
"t|pk|t|pk|f
$SHARDS
1" \
    "SET client_min_messages = warning;
     \\o /dev/null
     SET singletable.distribute_new_tables = on;
     SELECT singletable.create_table('dnt_sql');
     SELECT singletable.dynamodb('CreateTable', '{\"TableName\": \"dnt_api\", \"BillingMode\": \"PAY_PER_REQUEST\",
       \"AttributeDefinitions\": [{\"AttributeName\": \"pk\", \"AttributeType\": \"S\"}],
       \"KeySchema\": [{\"AttributeName\": \"pk\", \"KeyType\": \"HASH\"}]}');
     SET singletable.distribute_new_tables = off;
     SELECT singletable.create_table('dnt_off');
     SELECT singletable.put_item('dnt_sql', '{\"pk\": \"a\", \"sk\": \"b\"}');
     \\o
     SELECT EXISTS (SELECT FROM pg_dist_partition WHERE logicalrelid = 'public.dnt_sql'::regclass),
            (SELECT column_to_column_name(logicalrelid, partkey) FROM pg_dist_partition WHERE logicalrelid = 'public.dnt_sql'::regclass),
            EXISTS (SELECT FROM pg_dist_partition WHERE logicalrelid = 'public.dnt_api'::regclass),
            (SELECT column_to_column_name(logicalrelid, partkey) FROM pg_dist_partition WHERE logicalrelid = 'public.dnt_api'::regclass),
            EXISTS (SELECT FROM pg_dist_partition WHERE logicalrelid = 'public.dnt_off'::regclass);
     SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'public.dnt_sql'::regclass;
     SELECT count(*) FROM singletable.query('dnt_sql', 'a');
     \\o /dev/null
     SELECT singletable.drop_table('dnt_sql'), singletable.drop_table('dnt_off');
     SELECT singletable.dynamodb('DeleteTable', '{\"TableName\": \"dnt_api\"}');"
# Batches (batch_get, batch_write): one multi-shard statement per table and kind, over
# items on every shard; the same items, order, capacity and errors as on a local table
#
# batch_keys FIRST LAST: the keys of the profiles of users FIRST..LAST as a JSON array
batch_keys() {
    echo "(SELECT jsonb_agg(jsonb_build_object('pk', 'USER#u_' || (900000 + n), 'sk', 'PROFILE') ORDER BY n DESC)
             FROM generate_series($1, $2) n)"
}
same "batch_get: 100 keys over every shard (60 profiles, 40 absent), in request order, a projection, capacity" \
    "SELECT singletable.batch_get(jsonb_build_object('@T@', jsonb_build_object(
              'Keys', $(batch_keys 241 340), 'ProjectionExpression', 'pk, #n, #p',
              'ExpressionAttributeNames', jsonb_build_object('#n', 'name', '#p', 'plan'))));
     SELECT singletable.last_consumed_capacity();
     SELECT r -> 'ConsumedCapacity', jsonb_array_length(r -> 'Responses' -> '@T@')
       FROM singletable.batch_get(jsonb_build_object('@T@', jsonb_build_object(
              'Keys', $(batch_keys 1 100), 'ConsistentRead', false))) r" \
    '"CapacityUnits": 50\}\]\|100$'

routed "batch_get and batch_write of keys of one collection send their statements to its shard only" \
    "SELECT singletable.batch_get(jsonb_build_object('posting', jsonb_build_object('Keys', jsonb_build_array(
              jsonb_build_object('pk', 'USER#u_1001', 'sk', 'PROFILE'), jsonb_build_object('pk', 'USER#u_1001', 'sk', 'NOPE')))));
     SELECT singletable.batch_write(jsonb_build_object('posting', jsonb_build_array(
              jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object('pk', 'USER#u_1001', 'sk', 'BATCH#r'))),
              jsonb_build_object('DeleteRequest', jsonb_build_object('Key', jsonb_build_object('pk', 'USER#u_1001', 'sk', 'BATCH#none'))))));
     SELECT singletable.batch_write(jsonb_build_object('posting', jsonb_build_array(
              jsonb_build_object('DeleteRequest', jsonb_build_object('Key', jsonb_build_object('pk', 'USER#u_1001', 'sk', 'BATCH#r'))))));"

same "batch_write: 25 puts (new and replacing, with GSI keys) and deletes over the shards, each charged on its own; the GSI, get_item and batch_get see them" \
    "SELECT singletable.batch_write(jsonb_build_object('@T@',
              (SELECT jsonb_agg(CASE WHEN n % 5 = 0
                                     THEN jsonb_build_object('DeleteRequest', jsonb_build_object('Key',
                                            jsonb_build_object('pk', 'USER#u_' || (900000 + n), 'sk', 'POST#p_' || (900000 + n) || '_1')))
                                     ELSE jsonb_build_object('PutRequest', jsonb_build_object('Item',
                                            jsonb_build_object('pk', 'USER#u_' || (900000 + n), 'sk', CASE WHEN n % 2 = 0 THEN 'PROFILE' ELSE 'BATCH#1' END,
                                                               'name', 'Batch ' || n, 'bio', repeat('b', n * 100),
                                                               'gsi1pk', 'BATCH#gsi', 'gsi1sk', lpad(n::text, 3, '0')))) END ORDER BY n)
                 FROM generate_series(1, 25) n)));
     SELECT sk, item ->> 'name' FROM singletable.query('@T@', 'BATCH#gsi', index_name => 'gsi1');
     SELECT singletable.get_item('@T@', 'USER#u_900005', 'POST#p_900005_1') IS NULL, singletable.get_item('@T@', 'USER#u_900004', 'PROFILE') ->> 'name';
     SELECT singletable.batch_get(jsonb_build_object('@T@', jsonb_build_object('Keys', $(batch_keys 1 25), 'ProjectionExpression', 'sk, #n',
              'ExpressionAttributeNames', jsonb_build_object('#n', 'name')))) -> 'Responses'" \
    'GlobalSecondaryIndexes.*"UnprocessedItems": \{\}'

same "batch_write is all-or-nothing: one invalid item (an empty GSI key) and nothing of the batch is written" \
    "DO \$\$ BEGIN
       PERFORM singletable.batch_write(jsonb_build_object('@T@', jsonb_build_array(
         jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object('pk', 'USER#u_900031', 'sk', 'BATCH#2'))),
         jsonb_build_object('DeleteRequest', jsonb_build_object('Key', jsonb_build_object('pk', 'USER#u_900032', 'sk', 'PROFILE'))),
         jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object('pk', 'USER#u_900033', 'sk', 'BATCH#2', 'gsi1pk', ''))))));
     EXCEPTION WHEN invalid_parameter_value THEN
       RAISE NOTICE 'rejected: %', SQLERRM;
     END \$\$;
     SELECT count(*) FILTER (WHERE sk = 'BATCH#2'), count(*) FILTER (WHERE pk = 'USER#u_900032' AND sk = 'PROFILE')
       FROM @T@ WHERE pk IN ('USER#u_900031', 'USER#u_900032', 'USER#u_900033')" \
    'rejected: .*gsi1pk.*cannot be an empty string'

same_error "batch_write: the same key twice in one batch (a put and a delete) is refused" \
    "SELECT singletable.batch_write(jsonb_build_object('@T@', jsonb_build_array(
       jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object('pk', 'USER#u_900040', 'sk', 'PROFILE'))),
       jsonb_build_object('DeleteRequest', jsonb_build_object('Key', jsonb_build_object('pk', 'USER#u_900040', 'sk', 'PROFILE'))))))" \
    22023

#
# Every node serves (issue 31): the registry rows of a distributed table reach every node
# through singletable.cluster_registry (a reference table, written in the coordinator's
# transaction; its trigger fills each node's own registries), so that every call issued on a
# worker answers as on the coordinator, Citus routing its statements from there. Two
# distributed tables with the same history: nodes_c, called on the coordinator, and nodes_w,
# called on a worker; every output must be the same, the table's name read as @T@.
#
# on NODE SQL: runs SQL on NODE; sets OUT (stdout and stderr) and returns its status.
on() {
    mark_logs
    OUT=$(cl_psql "$1" -q -A -t -v ON_ERROR_STOP=1 -f - <<<"$2" 2>&1)
}

# same_node DESC NODE SQL [PATTERN]: SQL is a template in which @T@ stands for the table;
# runs it on the coordinator on nodes_c, then on NODE on nodes_w. ok when both succeed with
# the same, non-empty output (each table's name read as @T@), which matches PATTERN if given.
same_node() {
    local desc=$1 node=$2 sql=$3 pattern=${4:-} ref got
    if ! on coord "${sql//@T@/nodes_c}"; then
        fail "$desc (on the coordinator: the test itself is wrong)" "${sql//@T@/nodes_c}"
        return
    fi
    ref=${OUT//nodes_c/@T@}
    if ! on "$node" "${sql//@T@/nodes_w}"; then
        fail "$desc (on $node)" "${sql//@T@/nodes_w}"
        return
    fi
    got=${OUT//nodes_w/@T@}
    if [[ -z $ref ]] || { [[ -n $pattern ]] && ! grep -Eq -- "$pattern" <<<"$ref"; }; then
        not_ok "$desc"
        diag "unexpected output on the coordinator (the test itself is wrong):" "$ref"
    elif [[ $ref != "$got" ]]; then
        not_ok "$desc"
        diag "statement:" "$sql" "output differs (< coordinator, > $node):"
        diff <(echo "$ref") <(echo "$got") | head -n 60 | diag
        failure_details
    else
        ok "$desc (on $node)"
    fi
}

# The registry rows of the nodes_* tables on NODE, as text (created_at included: the rows
# are copies, not re-created).
node_registry() {
    cl_sql "$1" "SELECT string_agg(r, E'\n' ORDER BY r) FROM (
                   SELECT 'tables ' || (to_jsonb(t) - 'table_name')::text || ' ' || t.table_name::text AS r
                     FROM singletable.tables t WHERE t.table_name::text LIKE 'nodes\_%'
                   UNION ALL
                   SELECT 'indexes ' || (to_jsonb(i) - 'table_name')::text || ' ' || i.table_name::text
                     FROM singletable.indexes i WHERE i.table_name::text LIKE 'nodes\_%'
                   UNION ALL
                   SELECT 'ttl ' || (to_jsonb(x) - 'table_name')::text || ' ' || x.table_name::text
                     FROM singletable.ttl x WHERE x.table_name::text LIKE 'nodes\_%'
                   UNION ALL
                   SELECT 'entities ' || (to_jsonb(e) - 'table_name')::text || ' ' || e.table_name::text
                     FROM singletable.entities e WHERE e.table_name::text LIKE 'nodes\_%'
                   UNION ALL
                   SELECT 'dynamodb_tables ' || (to_jsonb(d) - 'table_name')::text || ' ' || d.table_name::text
                     FROM singletable.dynamodb_tables d WHERE d.table_name::text LIKE 'nodes\_%') s"
}

# registries_agree DESC: ok when both workers' registry rows of the nodes_* tables are the
# coordinator's (and there are some).
registries_agree() {
    local ref w1 w2
    ref=$(node_registry coord 2>&1) w1=$(node_registry worker1 2>&1) w2=$(node_registry worker2 2>&1)
    if [[ -n $ref && $ref == "$w1" && $ref == "$w2" ]]; then
        ok "$1"
    else
        not_ok "$1"
        diag "coordinator:" "$ref" "differences on worker1 (<  coordinator, > worker1):" "$(diff <(echo "$ref") <(echo "$w1"))" \
            "differences on worker2:" "$(diff <(echo "$ref") <(echo "$w2"))"
    fi
}

expect "two distributed tables with a GSI; their registry rows are in singletable.cluster_registry, now a reference table" \
    "nodes_c|t|gsi1
nodes_w|t|gsi1
t" \
    "SET client_min_messages = warning;
     \\o /dev/null
     SELECT singletable.create_table('nodes_c'), singletable.create_table('nodes_w');
     SELECT singletable.create_gsi('nodes_c', 'gsi1', 'gsi1pk', 'gsi1sk'), singletable.create_gsi('nodes_w', 'gsi1', 'gsi1pk', 'gsi1sk');
     $(distribute_sql nodes_c) $(distribute_sql nodes_w)
     $( ((HAS_DISTRIBUTE)) || echo "SELECT singletable.cluster_registry_sync('nodes_c'), singletable.cluster_registry_sync('nodes_w');")
     \\o
     SELECT table_name, registry -> 'tables' ->> 'partition_key' = 'pk', registry -> 'indexes' -> 0 ->> 'index_name'
       FROM singletable.cluster_registry WHERE table_name LIKE 'nodes\\_%' ORDER BY 1;
     SELECT partmethod = 'n' AND repmodel = 't' FROM pg_dist_partition WHERE logicalrelid = 'singletable.cluster_registry'::regclass"
registries_agree "every node's registries hold the distributed tables' rows, as the coordinator's"

same_node "put_item with a condition and update_item (ADD, a condition, ALL_NEW) on a worker: as on the coordinator" worker1 \
    "SELECT count(singletable.put_item('@T@', jsonb_build_object('pk', 'USER#n' || i, 'sk', 'POST#' || lpad(j::text, 3, '0'),
              'n', i * j, 'gsi1pk', 'FEED#' || (i % 3), 'gsi1sk', lpad((i * 100 + j)::text, 6, '0')),
              condition => 'attribute_not_exists(pk)') IS NULL)
       FROM generate_series(1, 40) i, generate_series(1, 5) j;
     SELECT count(*) FROM @T@;
     SELECT singletable.update_item('@T@', 'USER#n7', 'POST#002', 'ADD #n :one SET #s = :s',
              condition => '#n = :fourteen', names => '{\"#n\": \"n\", \"#s\": \"status\"}',
              vals => '{\":one\": 1, \":fourteen\": 14, \":s\": \"seen\"}', return_values => 'ALL_NEW')" \
    '"n": 15'

same_node "get_item with a projection, delete_item returning the old item, a failed condition (23514) on a worker" worker2 \
    "SELECT singletable.get_item('@T@', 'USER#n7', 'POST#002', projection => 'n, #s', names => '{\"#s\": \"status\"}');
     SELECT singletable.delete_item('@T@', 'USER#n7', 'POST#005', return_values => 'ALL_OLD') ->> 'n';
     SELECT singletable.get_item('@T@', 'USER#n7', 'POST#005') IS NULL;
     \\set ON_ERROR_STOP 0
     SELECT singletable.put_item('@T@', '{\"pk\": \"USER#n7\", \"sk\": \"POST#001\"}', condition => 'attribute_not_exists(pk)');" \
    '"status": "seen"'

same_node "query: a collection, begins_with, between, reverse with a limit, a filter, on a worker" worker1 \
    "SELECT sk, item -> 'n' FROM singletable.query('@T@', 'USER#n12');
     SELECT sk FROM singletable.query('@T@', 'USER#n12', 'begins_with', 'POST#00', forward => false, max_items => 2);
     SELECT sk FROM singletable.query('@T@', 'USER#n12', 'between', 'POST#002', 'POST#004');
     SELECT sk FROM singletable.query('@T@', 'USER#n12', filter => 'n > :v', vals => '{\":v\": 40}');" \
    'POST#005'

same_node "query on the GSI across every shard, with pages, on a worker" worker2 \
    "SELECT count(*), min(item ->> 'gsi1sk'), max(item ->> 'gsi1sk') FROM singletable.query('@T@', 'FEED#1', index_name => 'gsi1');
     SELECT item ->> 'gsi1sk' FROM singletable.query('@T@', 'FEED#2', index_name => 'gsi1', max_items => 3, forward => false);" \
    '^69\|'

same_node "scan: the table, a filter, and two parallel segments that together read it once, on a worker" worker1 \
    "SELECT count(*) FROM singletable.scan('@T@');
     SELECT count(*) FROM singletable.scan('@T@', filter => 'n >= :v', vals => '{\":v\": 100}');
     SELECT (SELECT count(*) FROM singletable.scan('@T@', segment => 0, total_segments => 2))
          + (SELECT count(*) FROM singletable.scan('@T@', segment => 1, total_segments => 2));" \
    '^199$'

same_node "batch_write and batch_get over the shards, on a worker" worker2 \
    "SELECT singletable.batch_write(jsonb_build_object('@T@', (SELECT jsonb_agg(jsonb_build_object('PutRequest',
              jsonb_build_object('Item', jsonb_build_object('pk', 'BATCH#' || i, 'sk', 'X', 'i', i)))) FROM generate_series(1, 20) i)));
     SELECT singletable.batch_get(jsonb_build_object('@T@', jsonb_build_object('Keys',
              (SELECT jsonb_agg(jsonb_build_object('pk', 'BATCH#' || i, 'sk', 'X')) FROM generate_series(15, 25) i))));" \
    '"UnprocessedKeys": \{\}'

same_node "transact_write (put, update, condition check across shards), a cancelled one with its reasons, transact_get, on a worker" worker1 \
    "SELECT singletable.transact_write(jsonb_build_array(
              jsonb_build_object('Put', jsonb_build_object('TableName', '@T@', 'Item', jsonb_build_object('pk', 'TX#1', 'sk', 'A'))),
              jsonb_build_object('Update', jsonb_build_object('TableName', '@T@', 'Key', jsonb_build_object('pk', 'USER#n1', 'sk', 'POST#001'),
                  'UpdateExpression', 'SET tx = :t', 'ExpressionAttributeValues', jsonb_build_object(':t', 1))),
              jsonb_build_object('ConditionCheck', jsonb_build_object('TableName', '@T@', 'Key', jsonb_build_object('pk', 'USER#n2', 'sk', 'POST#001'),
                  'ConditionExpression', 'attribute_exists(pk)'))));
     \\set ON_ERROR_STOP 0
     SELECT singletable.transact_write(jsonb_build_array(
              jsonb_build_object('Put', jsonb_build_object('TableName', '@T@', 'Item', jsonb_build_object('pk', 'TX#2', 'sk', 'A'))),
              jsonb_build_object('ConditionCheck', jsonb_build_object('TableName', '@T@', 'Key', jsonb_build_object('pk', 'USER#n2', 'sk', 'NONE'),
                  'ConditionExpression', 'attribute_exists(pk)'))));
     \\set ON_ERROR_STOP 1
     SELECT singletable.cancellation_reasons();
     SELECT singletable.transact_get(jsonb_build_array(
              jsonb_build_object('Get', jsonb_build_object('TableName', '@T@', 'Key', jsonb_build_object('pk', 'TX#1', 'sk', 'A'))),
              jsonb_build_object('Get', jsonb_build_object('TableName', '@T@', 'Key', jsonb_build_object('pk', 'TX#2', 'sk', 'A'))),
              jsonb_build_object('Get', jsonb_build_object('TableName', '@T@', 'Key', jsonb_build_object('pk', 'USER#n1', 'sk', 'POST#001')))));" \
    'ConditionalCheckFailed'

same_node "the JSON API on a worker: PutItem, UpdateItem, GetItem, Query, Scan, BatchGetItem, TransactGetItems, ExecuteStatement, DescribeTable's schema" worker2 \
    "SELECT singletable.dynamodb('PutItem', '{\"TableName\": \"@T@\", \"Item\": {\"pk\": {\"S\": \"API#1\"}, \"sk\": {\"S\": \"A\"}, \"v\": {\"N\": \"1\"}}}');
     SELECT singletable.dynamodb('UpdateItem', '{\"TableName\": \"@T@\", \"Key\": {\"pk\": {\"S\": \"API#1\"}, \"sk\": {\"S\": \"A\"}},
              \"UpdateExpression\": \"ADD v :one\", \"ExpressionAttributeValues\": {\":one\": {\"N\": \"1\"}}, \"ReturnValues\": \"UPDATED_NEW\"}');
     SELECT singletable.dynamodb('GetItem', '{\"TableName\": \"@T@\", \"Key\": {\"pk\": {\"S\": \"API#1\"}, \"sk\": {\"S\": \"A\"}}, \"ReturnConsumedCapacity\": \"TOTAL\"}');
     SELECT singletable.dynamodb('Query', '{\"TableName\": \"@T@\", \"KeyConditionExpression\": \"pk = :p AND begins_with(sk, :s)\",
              \"ExpressionAttributeValues\": {\":p\": {\"S\": \"USER#n3\"}, \":s\": {\"S\": \"POST#00\"}}, \"Limit\": 2}');
     SELECT singletable.dynamodb('Query', '{\"TableName\": \"@T@\", \"IndexName\": \"gsi1\", \"KeyConditionExpression\": \"gsi1pk = :p\",
              \"ExpressionAttributeValues\": {\":p\": {\"S\": \"FEED#0\"}}, \"Select\": \"COUNT\"}');
     SELECT singletable.dynamodb('Scan', '{\"TableName\": \"@T@\", \"Select\": \"COUNT\"}');
     SELECT singletable.dynamodb('BatchGetItem', '{\"RequestItems\": {\"@T@\": {\"Keys\": [{\"pk\": {\"S\": \"API#1\"}, \"sk\": {\"S\": \"A\"}}]}}}');
     SELECT singletable.dynamodb('TransactGetItems', '{\"TransactItems\": [{\"Get\": {\"TableName\": \"@T@\", \"Key\": {\"pk\": {\"S\": \"API#1\"}, \"sk\": {\"S\": \"A\"}}}}]}');
     SELECT singletable.dynamodb('ExecuteStatement', '{\"Statement\": \"SELECT sk FROM \\\"@T@\\\" WHERE pk = ''USER#n4''\"}');
     SELECT d -> 'Table' -> 'KeySchema', d -> 'Table' -> 'AttributeDefinitions', d -> 'Table' ->> 'TableStatus',
            d -> 'Table' -> 'GlobalSecondaryIndexes' -> 0 ->> 'IndexName', d -> 'Table' -> 'GlobalSecondaryIndexes' -> 0 ->> 'IndexStatus'
       FROM singletable.dynamodb('DescribeTable', '{\"TableName\": \"@T@\"}') d;" \
    '"Count": 65'

# DDL on the coordinator after distribution reaches every node in its transaction
expect "create_gsi, define_entity, enable_ttl and UpdateTable's throughput on the coordinator, after distribution" "" \
    "SET client_min_messages = error;
     \\o /dev/null
     SELECT singletable.create_gsi(t, 'byN', 'nk', 'n', sort_key_type => 'N') FROM unnest(ARRAY['nodes_c', 'nodes_w']) t;
     SELECT singletable.define_entity(t, 'post', pk => 'USER#{user}', sk => 'POST#{post}') FROM unnest(ARRAY['nodes_c', 'nodes_w']) t;
     SELECT singletable.enable_ttl(t, 'expiresAt') FROM unnest(ARRAY['nodes_c', 'nodes_w']) t;
     SELECT singletable.dynamodb('UpdateTable', jsonb_build_object('TableName', t, 'BillingMode', 'PROVISIONED',
              'ProvisionedThroughput', '{\"ReadCapacityUnits\": 7, \"WriteCapacityUnits\": 3}'::jsonb,
              'GlobalSecondaryIndexUpdates', jsonb_build_array(
                 jsonb_build_object('Update', jsonb_build_object('IndexName', 'gsi1', 'ProvisionedThroughput', '{\"ReadCapacityUnits\": 2, \"WriteCapacityUnits\": 2}'::jsonb)),
                 jsonb_build_object('Update', jsonb_build_object('IndexName', 'byN', 'ProvisionedThroughput', '{\"ReadCapacityUnits\": 2, \"WriteCapacityUnits\": 2}'::jsonb)))))
       FROM unnest(ARRAY['nodes_c', 'nodes_w']) t;
     \\o"
registries_agree "after DDL on the coordinator (a GSI, an entity, TTL, provisioned throughput), every node's registries are the coordinator's"

same_node "what that DDL changed, seen on a worker: the new GSI, the entity's key check, TTL hiding an expired item, the throughput" worker1 \
    "SELECT count(singletable.put_item('@T@', jsonb_build_object('pk', 'NK#' || i, 'sk', 'A', 'nk', 'K', 'n', i)) IS NULL) FROM generate_series(1, 3) i;
     SELECT item -> 'n' FROM singletable.query('@T@', 'K', index_name => 'byN', sk_op => '>=', sk_value => '2');
     SELECT singletable.put_item('@T@', jsonb_build_object('pk', 'USER#ttl', 'sk', 'POST#old', 'expiresAt', extract(epoch FROM now())::bigint - 100)) IS NULL;
     SELECT singletable.get_item('@T@', 'USER#ttl', 'POST#old') IS NULL;
     SELECT singletable.dynamodb('DescribeTimeToLive', '{\"TableName\": \"@T@\"}');
     SELECT d -> 'Table' -> 'ProvisionedThroughput' -> 'ReadCapacityUnits', d -> 'Table' -> 'BillingModeSummary' ->> 'BillingMode'
       FROM singletable.dynamodb('DescribeTable', '{\"TableName\": \"@T@\"}') d;
     SELECT entity, pk_template FROM singletable.entities WHERE table_name = '@T@'::regclass;" \
    'ENABLED'

DDL_DESC="DDL of a distributed table on a worker is refused with a clear error (0A000 from singletable, Citus's own for its DDL)"
if on worker1 "\\set ON_ERROR_STOP 0
               \\set VERBOSITY verbose
               SELECT singletable.define_entity('nodes_w', 'user', pk => 'USER#{user}', sk => 'PROFILE');
               SELECT singletable.drop_gsi('nodes_w', 'byN');
               SELECT singletable.create_gsi('nodes_w', 'gsi9', 'a', 'b');
               SELECT singletable.drop_table('nodes_w');" &&
   [[ $(grep -cE 'ERROR:  0A000: DDL of distributed table "(public\.)?nodes_w" runs on the Citus coordinator, not on a worker node' <<<"$OUT") == 2 &&
      $(grep -c 'operation is not allowed on this node' <<<"$OUT") == 2 ]]; then
    ok "$DDL_DESC"
else
    not_ok "$DDL_DESC"
    diag "output:" "$OUT"
fi
registries_agree "after the refused DDL on a worker, every node's registries are still the coordinator's"

# routed NODE DESC SQL, on a worker: the statements of a single-key call name one shard
routed_on() {
    local node=$1 desc=$2 sql=$3 shards
    if ! on "$node" "SET citus.log_remote_commands = on;
                    SET citus.log_local_commands = on;
                    SET citus.multi_task_query_log_level = error;
                    $sql"; then
        fail "$desc" "$sql"
        return
    fi
    shards=$(grep -E 'NOTICE:  (issuing|executing the command locally)' <<<"$OUT" | grep -oE '\bnodes_w_[0-9]+\b' | sort -u)
    if [[ $(wc -l <<<"$shards") == 1 && -n $shards ]]; then
        ok "$desc (shard $shards)"
    else
        not_ok "$desc"
        diag "statement:" "$sql" "shards named:" "${shards:-(none)}" "output:" "$OUT"
    fi
}
routed_on worker2 "get_item, update_item and a Query of one collection issued on a worker go to its shard only" \
    "SELECT singletable.get_item('nodes_w', 'USER#n9', 'POST#001');
     SELECT singletable.update_item('nodes_w', 'USER#n9', 'POST#001', 'SET r = :r', vals => '{\":r\": 1}');
     SELECT count(*) FROM singletable.query('nodes_w', 'USER#n9');"

# atomic counters from every node at once
cl_sql coord "SELECT singletable.put_item('nodes_w', '{\"pk\": \"USER#counter\", \"sk\": \"POST#counter\", \"n\": 0}')" >/dev/null
COUNTER_PIDS=()
for node in coord worker1 worker2; do
    for ((i = 0; i < 40; i++)); do
        echo "SELECT singletable.update_item('nodes_w', 'USER#counter', 'POST#counter', 'ADD n :one', vals => '{\":one\": 1}');"
    done | cl_psql "$node" -q -v ON_ERROR_STOP=1 >/dev/null 2>"$WORK/counter.$node.err" &
    COUNTER_PIDS+=($!)
done
wait "${COUNTER_PIDS[@]}"
expect "atomic counters: 3 x 40 update_item ADD issued on the three nodes at once count 120, none failed" "120|" \
    "SELECT singletable.get_item('nodes_w', 'USER#counter', 'POST#counter') ->> 'n', pg_catalog.pg_read_file('$WORK/counter.coord.err')
            || pg_catalog.pg_read_file('$WORK/counter.worker1.err') || pg_catalog.pg_read_file('$WORK/counter.worker2.err')"

# ClientRequestTokens on every node: singletable.client_request_tokens is distributed by
# token, so a transact_write retried through another node finds the first call's token
TOK_DESC="a ClientRequestToken used through worker1 is found through worker2 and the coordinator: the retries return the first response and write nothing; another request with it is refused (22S01)"
TOK_REQ='[{"Update": {"TableName": "nodes_w", "Key": {"pk": "USER#tok", "sk": "POST#tok"}, "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {":one": 1}}}]'
TOK_OTHER='[{"Update": {"TableName": "nodes_w", "Key": {"pk": "USER#tok", "sk": "POST#tok"}, "UpdateExpression": "ADD n :two", "ExpressionAttributeValues": {":two": 2}}}]'
tok1=$(cl_sql worker1 "SELECT singletable.transact_write('$TOK_REQ', 'nodes-token-1')" 2>&1)
tok2=$(cl_sql worker2 "SELECT singletable.transact_write('$TOK_REQ', 'nodes-token-1')" 2>&1)
tok3=$(cl_sql coord "SELECT singletable.transact_write('$TOK_REQ', 'nodes-token-1')" 2>&1)
tokn=$(cl_sql coord "SELECT singletable.get_item('nodes_w', 'USER#tok', 'POST#tok') ->> 'n'" 2>&1)
tokx=$(cl_psql worker2 -q -A -t -v VERBOSITY=verbose -c "SELECT singletable.transact_write('$TOK_OTHER', 'nodes-token-1')" 2>&1 | grep -oE '^ERROR:  [0-9A-Z]{5}' || true)
tokd=$(cl_sql coord "SELECT partmethod::text || ':' || column_to_column_name(logicalrelid, partkey) FROM pg_dist_partition WHERE logicalrelid = 'singletable.client_request_tokens'::regclass" 2>&1)
if [[ $tok1 == *ConsumedCapacity* && $tok2 == "$tok1" && $tok3 == "$tok1" && $tokn == 1 &&
      $tokx == "ERROR:  22S01" && $tokd == h:token ]]; then
    ok "$TOK_DESC"
else
    not_ok "$TOK_DESC"
    diag "worker1: $tok1" "worker2: $tok2" "coordinator: $tok3" "n: $tokn" "another request: $tokx" "token table: $tokd"
fi

# The same token through two nodes at once: the second call waits for the first's token
# row on its shard, then fails with TransactionInProgress (55S01) and writes nothing; the
# update is applied once
TOKC_DESC="the same ClientRequestToken through worker1 and worker2 at once: the second waits for the first, fails with 55S01, and the update is applied once"
TOKC_REQ='[{"Update": {"TableName": "nodes_w", "Key": {"pk": "USER#tokc", "sk": "POST#tokc"}, "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {":one": 1}}}]'
cl_psql worker1 -q -A -t -v ON_ERROR_STOP=1 -c "BEGIN" \
    -c "SELECT singletable.transact_write('$TOKC_REQ', 'nodes-token-c') IS NOT NULL" \
    -c "SELECT pg_sleep(2)" -c "COMMIT" >"$WORK/tokc.first" 2>&1 &
TOKC_FIRST=$!
sleep 0.7
tokc_t0=$(date +%s%N)
tokc_second=$(cl_psql worker2 -q -A -t -v VERBOSITY=verbose -c "SELECT singletable.transact_write('$TOKC_REQ', 'nodes-token-c')" 2>&1 |
              grep -oE '^ERROR:  [0-9A-Z]{5}' || true)
tokc_ms=$((($(date +%s%N) - tokc_t0) / 1000000))
wait "$TOKC_FIRST"
tokc_first=$(tr '\n' ' ' <"$WORK/tokc.first")
tokc_n=$(cl_sql coord "SELECT singletable.get_item('nodes_w', 'USER#tokc', 'POST#tokc') ->> 'n'" 2>&1)
tokc_retry=$(cl_sql coord "SELECT singletable.transact_write('$TOKC_REQ', 'nodes-token-c') IS NOT NULL,
                                  singletable.get_item('nodes_w', 'USER#tokc', 'POST#tokc') ->> 'n'" 2>&1)
if [[ $tokc_first == "t "* && $tokc_second == "ERROR:  55S01" && $tokc_ms -ge 500 && $tokc_n == 1 && $tokc_retry == "t|1" ]]; then
    ok "$TOKC_DESC (waited $tokc_ms ms)"
else
    not_ok "$TOKC_DESC"
    diag "first: $tokc_first" "second: $tokc_second after $tokc_ms ms" "n: $tokc_n" "a retry after both: $tokc_retry"
fi

expect "drop_table on the coordinator: the table's registry rows leave every node and singletable.cluster_registry" "0|0|0|0" \
    "SET client_min_messages = warning;
     \\o /dev/null
     SELECT singletable.drop_table('nodes_c');
     \\o
     SELECT (SELECT count(*) FROM singletable.cluster_registry WHERE table_name = 'nodes_c'),
            (SELECT count(*) FROM singletable.tables WHERE table_name::text = 'nodes_c'),
            (SELECT result FROM run_command_on_workers(\$\$SELECT count(*) FROM singletable.tables WHERE table_name::text = 'nodes_c'\$\$) WHERE nodeport = ${CL_PORT[worker1]}),
            (SELECT result FROM run_command_on_workers(\$\$SELECT count(*) FROM singletable.cluster_registry WHERE table_name = 'nodes_c'\$\$) WHERE nodeport = ${CL_PORT[worker2]})"

#
# TTL on every node (issue 31): each node's TTL worker sweeps the shards whose placements the
# node holds, from its own metadata, so that the sweep grows with the nodes and goes on while
# the coordinator is down. The workers' TTL workers are switched on with the coordinator
# stopped; they delete every expired item of their shards and no live one.
#
# local_counts NODE: "expired|live" items of ttl_nodes in NODE's own shards (read there,
# shard by shard, without Citus's routing)
local_counts() {
    cl_sql "$1" "SELECT coalesce(sum((xpath('/row/e/text()', x))[1]::text::int), 0) || '|' || coalesce(sum((xpath('/row/l/text()', x))[1]::text::int), 0)
                   FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid),
                        LATERAL query_to_xml(format('SELECT count(*) FILTER (WHERE (item ->> %L)::numeric < extract(epoch FROM now())) AS e,
                                                            count(*) FILTER (WHERE (item ->> %L)::numeric >= extract(epoch FROM now())) AS l FROM %s',
                                                    'exp', 'exp', shard_name(s.logicalrelid, s.shardid)), false, true, '') x
                  WHERE s.logicalrelid = 'ttl_nodes'::regclass AND p.groupid = (SELECT groupid FROM pg_dist_local_group)"
}
TTL_NODES_DESC="TTL on every node: with the coordinator stopped, each worker's TTL worker deletes the expired items of its own shards, none of the live ones"
if ! run "SET client_min_messages = warning;
          \\o /dev/null
          SELECT singletable.create_table('ttl_nodes');
          $(distribute_sql ttl_nodes)
          $( ((HAS_DISTRIBUTE)) || echo "SELECT singletable.cluster_registry_sync('ttl_nodes');")
          SELECT singletable.enable_ttl('ttl_nodes', 'exp');
          SELECT count(singletable.put_item('ttl_nodes', jsonb_build_object('pk', 'T#' || i, 'sk', 'S',
                   'exp', extract(epoch FROM now())::bigint + CASE WHEN i % 3 = 0 THEN 3600 ELSE -60 END)) IS NULL)
            FROM generate_series(1, 600) i;"; then
    fail "$TTL_NODES_DESC" "(setup)"
else
    TTL_BEFORE="$(local_counts worker1) $(local_counts worker2)"
    cl_as_owner "$PGBIN/pg_ctl" -D "$CL_DIR/coord/data" -m fast -w stop >/dev/null 2>&1
    for node in worker1 worker2; do
        cl_sql "$node" "ALTER SYSTEM SET singletable.ttl_enabled = on" >/dev/null
        cl_sql "$node" "ALTER SYSTEM SET singletable.ttl_interval = 1" >/dev/null
        cl_sql "$node" "SELECT pg_reload_conf()" >/dev/null
    done
    for ((i = 0; i < 60; i++)); do
        TTL_AFTER="$(local_counts worker1) $(local_counts worker2)"
        [[ $TTL_AFTER == 0\|*\ 0\|* ]] && break
        sleep 0.5
    done
    TTL_DELETED="$(cl_sql worker1 "SELECT deleted_total FROM singletable.ttl_status() WHERE table_name::text = 'ttl_nodes'") $(cl_sql worker2 "SELECT deleted_total FROM singletable.ttl_status() WHERE table_name::text = 'ttl_nodes'")"
    for node in worker1 worker2; do
        cl_sql "$node" "ALTER SYSTEM RESET singletable.ttl_enabled" >/dev/null
        cl_sql "$node" "ALTER SYSTEM RESET singletable.ttl_interval" >/dev/null
        cl_sql "$node" "SELECT pg_reload_conf()" >/dev/null
    done
    cl_as_owner "$PGBIN/pg_ctl" -D "$CL_DIR/coord/data" -l "$(cl_log coord)" -w -t 60 start >/dev/null 2>&1
    read -r b1 b2 <<<"$TTL_BEFORE"
    read -r a1 a2 <<<"$TTL_AFTER"
    read -r d1 d2 <<<"$TTL_DELETED"
    # before: expired|live on each worker, both with expired items; after: 0|live, live unchanged;
    # each worker's own count of deletions is what its shards held
    if [[ ${b1%|*} -gt 0 && ${b2%|*} -gt 0 && $((${b1%|*} + ${b2%|*})) == 400 &&
          $a1 == "0|${b1#*|}" && $a2 == "0|${b2#*|}" && $d1 == "${b1%|*}" && $d2 == "${b2%|*}" ]]; then
        ok "$TTL_NODES_DESC"
        diag "expired|live before: worker1 $b1, worker2 $b2; after: worker1 $a1, worker2 $a2; deleted by each: $d1, $d2"
    else
        not_ok "$TTL_NODES_DESC"
        diag "expired|live before: worker1 $b1, worker2 $b2; after: worker1 $a1, worker2 $a2; deleted by each: $d1, $d2" \
            "worker logs:" "$(grep -h 'singletable' "$(cl_log worker1)" "$(cl_log worker2)" | tail -n 10)"
    fi
fi
expect "after the workers' sweep, the coordinator (started again) reads the 200 live items of ttl_nodes and no expired one" "200|200" \
    "SELECT count(*), count(*) FILTER (WHERE (item ->> 'exp')::numeric > extract(epoch FROM now())) FROM singletable.scan('ttl_nodes', include_expired => true);
     \\o /dev/null
     SELECT singletable.drop_table('ttl_nodes');"

#
# One gateway per node (issue 31, item 2): singletable-gateway started three times, each
# connected to one node, serving the same distributed table; test/citus/gateways.py drives
# them with boto3 (writes through one gateway read through the others, a counter bumped
# through all at once, a transaction through a worker's).
#
GW_BIN=${GATEWAY:-$PGBIN/singletable-gateway}
# Debian's python3 and python3-boto3, as the gateway suite uses them (never a python3 found
# first on PATH with another boto3)
GW_PYTHON=("${GATEWAY_PYTHON:-/usr/bin/python3}" -I)
if [[ ! -x $GW_BIN ]] || ! "${GW_PYTHON[@]}" -c 'import boto3' 2>/dev/null; then
    not_ok "one gateway per node: $GW_BIN and python3-boto3 are installed"
elif ! run "SET client_min_messages = warning;
            \\o /dev/null
            SELECT singletable.create_table('gw_nodes');
            SELECT singletable.create_gsi('gw_nodes', 'byWho', 'by', 'i', sort_key_type => 'N');
            $(distribute_sql gw_nodes)
            $( ((HAS_DISTRIBUTE)) || echo "SELECT singletable.cluster_registry_sync('gw_nodes');")"; then
    fail "one gateway per node: the table" "(setup)"
else
    GW_PIDS=() GW_URLS=()
    gw_port=$((CL_PORT_BASE + 100))
    for node in coord worker1 worker2; do
        gw_port=$(cl_free_port "$gw_port")
        "$GW_BIN" --listen "127.0.0.1:$gw_port" --pool 2 --log-level warning \
            --dsn "host=${CL_HOST[$node]} port=${CL_PORT[$node]} dbname=postgres user=postgres" \
            >"$WORK/gateway.$node.log" 2>&1 &
        GW_PIDS+=($!)
        GW_URLS+=("http://127.0.0.1:$gw_port")
        for ((i = 0; i < 50; i++)); do
            (exec 3<>"/dev/tcp/127.0.0.1/$gw_port") 2>/dev/null && break
            sleep 0.1
        done
        gw_port=$((gw_port + 1))
    done
    "${GW_PYTHON[@]}" "$HERE/gateways.py" gw_nodes "${GW_URLS[@]}" >"$WORK/gateways.out" 2>&1
    kill "${GW_PIDS[@]}" 2>/dev/null
    wait "${GW_PIDS[@]}" 2>/dev/null
    if ! grep -qE '^(PASS|FAIL) ' "$WORK/gateways.out"; then
        not_ok "one gateway per node: test/citus/gateways.py ran"
        diag "$(tail -n 30 "$WORK/gateways.out")" "gateway logs:" "$(tail -n 5 "$WORK"/gateway.*.log)"
    fi
    while read -r verdict what; do
        case $verdict in
            PASS) ok "one gateway per node: $what" ;;
            FAIL) not_ok "one gateway per node: ${what%%: *}"
                  diag "${what#*: }" "$(tail -n 5 "$WORK"/gateway.*.log)" ;;
        esac
    done <"$WORK/gateways.out"
    cl_sql coord "SELECT singletable.drop_table('gw_nodes')" >/dev/null
fi

#
# A worker added later (citus_add_node): Citus copies singletable.cluster_registry to it
# before the distributed tables' shells exist there, so the trigger has nothing to write
# for; singletable.cluster_registry_sync() on the coordinator writes every table's rows
# again, and the new node serves them.
#
ADD_DESC="a worker added by citus_add_node: before cluster_registry_sync() it says what to run (0A000), after it serves the distributed tables as the coordinator"
if ! cl_add_worker worker3 >"$WORK/worker3.log" 2>&1; then
    not_ok "$ADD_DESC"
    diag "adding worker3 failed:" "$(tail -n 20 "$WORK/worker3.log")"
else
    add_before=$(cl_psql worker3 -q -A -t -v VERBOSITY=verbose -c "SELECT singletable.get_item('posting', 'USER#u_1001', 'PROFILE')" 2>&1 |
                 grep -oE '^(ERROR:  0A000|HINT:  .*cluster_registry_sync\(\).*)' | tr '\n' ' ')
    cl_sql coord "SELECT singletable.cluster_registry_sync()" >/dev/null
    add_coord=$(cl_sql coord "SELECT singletable.get_item('posting', 'USER#u_1001', 'PROFILE'), (SELECT count(*) FROM singletable.query('posting', 'USER#u_1001'))" 2>&1)
    add_new=$(cl_sql worker3 "SELECT singletable.get_item('posting', 'USER#u_1001', 'PROFILE'), (SELECT count(*) FROM singletable.query('posting', 'USER#u_1001'))" 2>&1)
    if [[ $add_before == "ERROR:  0A000 HINT:  "*"cluster_registry_sync()"* && -n $add_coord && $add_new == "$add_coord" ]]; then
        ok "$ADD_DESC"
    else
        not_ok "$ADD_DESC"
        diag "before: $add_before" "coordinator: $add_coord" "worker3: $add_new"
    fi
fi

#
# The server logs: no backend crashed on any node
#
crashes=$(for node in "${CL_NODES[@]}"; do
    grep -E -B2 -A6 'terminated by signal|PANIC|TRAP:' "$(cl_log "$node")" | sed "s|^|$node log: |"
done)
if [[ -z $crashes ]] && ((CRASHED == 0)); then
    ok "no backend crashed on any node"
else
    not_ok "no backend crashed on any node"
    diag "$crashes"
    cl_backtraces | diag
fi

#
# Two-phase commit: a worker killed (kill -9 of its postmaster and every process of it)
# between PREPARE TRANSACTION and COMMIT PREPARED of a cross-worker transaction. The kill
# is forced by a gdb breakpoint on the coordinator backend at Citus's
# CoordinatedRemoteTransactionsCommit, which runs after every worker has prepared and the
# coordinator has committed (recording the transaction in pg_dist_transaction), before
# it sends COMMIT PREPARED. The client's COMMIT succeeds (a WARNING names the worker);
# the worker comes back with the transaction prepared and its write not yet visible;
# Citus's recovery commits it; each of the two ADDs is applied exactly once.
# (After the crash check above: this kill is on purpose.)
#
tpc_key() {   # tpc_key NODE: a partition key of posting whose shard lives on NODE
    cl_sql coord "SELECT k FROM (SELECT 'TPC#' || i AS k FROM generate_series(1, 200) i) s
                   WHERE (SELECT n.nodeport FROM pg_dist_placement pl JOIN pg_dist_node n USING (groupid)
                           WHERE pl.shardid = get_shard_id_for_distribution_column('posting', s.k)) = ${CL_PORT[$1]}
                   ORDER BY k LIMIT 1"
}
TPC_DESC="2PC: worker1 killed -9 between PREPARE and COMMIT PREPARED of a transaction over both workers; Citus's recovery applies it exactly once"
K1=$(tpc_key worker1) K2=$(tpc_key worker2)
W1_DATA=$CL_DIR/worker1/data
if ! command -v gdb >/dev/null 2>&1; then
    not_ok "$TPC_DESC"
    diag "gdb is missing (test/lib.sh installs it)"
elif [[ -z $K1 || -z $K2 ]]; then
    not_ok "$TPC_DESC"
    diag "no key found on each worker ($K1, $K2)"
else
    # Citus's maintenance daemon would recover the transaction on its own, at a moment of
    # its choosing: off for this test, so that what is seen before recovery is fixed
    cl_sql coord "ALTER SYSTEM SET citus.recover_2pc_interval = -1" >/dev/null
    cl_sql coord "SELECT pg_reload_conf()" >/dev/null
    cl_sql coord "SELECT singletable.put_item('posting', jsonb_build_object('pk', '$K1', 'sk', 'TPC', 'n', 0)),
                         singletable.put_item('posting', jsonb_build_object('pk', '$K2', 'sk', 'TPC', 'n', 0))" >/dev/null
    cl_psql coord -X -A -t -c "SET application_name = 'st_2pc'" -c "BEGIN" \
        -c "SELECT singletable.update_item('posting', '$K1', 'TPC', 'ADD n :one', vals => '{\":one\": 1}')->'n'" \
        -c "SELECT singletable.update_item('posting', '$K2', 'TPC', 'ADD n :one', vals => '{\":one\": 1}')->'n'" \
        -c "SELECT pg_sleep(3)" -c "COMMIT" >"$WORK/tpc.out" 2>&1 &
    TPC_PSQL=$!
    for ((i = 0; i < 50; i++)); do
        TPC_BACKEND=$(cl_sql coord "SELECT pid FROM pg_stat_activity WHERE application_name = 'st_2pc'")
        [[ -n $TPC_BACKEND ]] && break
        sleep 0.1
    done
    W1_PM=$(head -n 1 "$W1_DATA/postmaster.pid")
    cat >"$WORK/tpc.gdb" <<EOG
set pagination off
break CoordinatedRemoteTransactionsCommit
commands
silent
shell kill -9 $W1_PM \$(pgrep -P $W1_PM); echo ST-WORKER1-KILLED
continue
end
continue
EOG
    timeout 60 gdb -q -batch -p "$TPC_BACKEND" -x "$WORK/tpc.gdb" >"$WORK/tpc.gdb.out" 2>&1 &
    TPC_GDB=$!
    wait "$TPC_PSQL"
    wait "$TPC_GDB"
    # the postmaster gone (its pid may linger a moment), then started again: crash recovery
    for ((i = 0; i < 100; i++)); do kill -0 "$W1_PM" 2>/dev/null || break; sleep 0.1; done
    for ((i = 0; i < 3; i++)); do
        cl_as_owner "$PGBIN/pg_ctl" -D "$W1_DATA" -l "$CL_DIR/worker1/server.log" -w -t 60 start >/dev/null 2>&1 && break
        sleep 1
    done
    TPC_BEFORE=$(cl_sql worker1 "SELECT count(*) FROM pg_prepared_xacts")
    TPC_SEEN=$(cl_sql coord "SELECT singletable.get_item('posting', '$K1', 'TPC')->'n', singletable.get_item('posting', '$K2', 'TPC')->'n'")
    TPC_RECOVERED=$(cl_sql coord "SELECT recover_prepared_transactions()")
    TPC_AFTER=$(cl_sql worker1 "SELECT count(*) FROM pg_prepared_xacts")
    cl_sql coord "ALTER SYSTEM RESET citus.recover_2pc_interval" >/dev/null
    cl_sql coord "SELECT pg_reload_conf()" >/dev/null
    TPC_FINAL=$(cl_sql coord "SELECT singletable.get_item('posting', '$K1', 'TPC')->'n', singletable.get_item('posting', '$K2', 'TPC')->'n'")
    TPC_GOT="killed: $(grep -c ST-WORKER1-KILLED "$WORK/tpc.gdb.out"); client: $(tr '\n' ' ' <"$WORK/tpc.out" | grep -o 'COMMIT *$' | tr -d ' ');
prepared on worker1 after restart: $TPC_BEFORE; n before recovery: $TPC_SEEN; recovered: $TPC_RECOVERED;
prepared after: $TPC_AFTER; n after: $TPC_FINAL"
    if [[ $TPC_GOT == "killed: 1; client: COMMIT;
prepared on worker1 after restart: 1; n before recovery: 0|1; recovered: 1;
prepared after: 0; n after: 1|1" ]]; then
        ok "$TPC_DESC"
        diag "$TPC_GOT"
    else
        not_ok "$TPC_DESC"
        diag "$TPC_GOT" "client:" "$(cat "$WORK/tpc.out")" "gdb:" "$(grep -v '^\[' "$WORK/tpc.gdb.out" | tail -n 8)"
    fi
fi

echo "1..$N"
diag "the distributed suite took $(($(date +%s) - T_START)) s"
if ((FAILURES > 0)); then
    diag "$FAILURES of $N checks failed"
    exit 1
fi
exit 0
