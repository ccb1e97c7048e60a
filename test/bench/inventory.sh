#!/usr/bin/env bash
# test/bench/inventory.sh: the time of key_prefixes, collections and infer_entities on a
# large table, whole and sampled (issue 25, parts 6 and 8).
#
#   test/bench/inventory.sh [ITEMS]     (default 1000000 items)
#
# Loads ITEMS items of the posting app's shapes (USER#/PROFILE, USER#/POST#, POST#/METRICS#,
# POST#/SOURCE#; items of 60 to 160 bytes), VACUUM ANALYZEs, then times each function three
# times (psql's \timing; the median is printed) without a sample and with sample_percent 10
# and 1, and prints rows_read of each; then key_prefixes and collections of one entity
# again with four entities defined (entity_of per row). Not part of CI. Starts its own server with
# test/lib.sh (PG_CONFIG honoured; the extension must build; it is installed into that
# PostgreSQL), with its default settings.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../lib.sh"
ITEMS=${1:-1000000}
((ITEMS >= 1000 && ITEMS % 100 == 0)) || { echo "ITEMS must be a multiple of 100, at least 1000" >&2; exit 1; }

st_build_install >/dev/null || { echo "build failed" >&2; exit 1; }
st_start_server >/dev/null || { echo "server failed" >&2; exit 1; }
psql() { "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }

psql -c "CREATE EXTENSION singletable" -c "SELECT singletable.create_table('inv')" >/dev/null
st_log "loading $ITEMS items"
# per 100 items: 10 users with a profile and 5 posts each, one post with 39 metrics and one source
psql -c "INSERT INTO inv (pk, sk, item)
         SELECT k.pk, k.sk, jsonb_build_object('pk', k.pk, 'sk', k.sk, 'body', repeat('x', (k.n % 100)::int))
         FROM (SELECT 'USER#' || (b * 10 + u) AS pk, 'PROFILE' AS sk, b AS n
                 FROM generate_series(0, $ITEMS / 100 - 1) b, generate_series(0, 9) u
               UNION ALL SELECT 'USER#' || (b * 10 + u), 'POST#' || lpad(p::text, 4, '0'), b + p
                 FROM generate_series(0, $ITEMS / 100 - 1) b, generate_series(0, 9) u, generate_series(1, 5) p
               UNION ALL SELECT 'POST#' || lpad(b::text, 7, '0'), 'METRICS#2026-06-23T' || lpad((m / 60)::text, 2, '0') || ':' || lpad((m % 60)::text, 2, '0') || 'Z', b + m
                 FROM generate_series(0, $ITEMS / 100 - 1) b, generate_series(1, 39) m
               UNION ALL SELECT 'POST#' || lpad(b::text, 7, '0'), 'SOURCE#f_' || b, b
                 FROM generate_series(0, $ITEMS / 100 - 1) b) k" >/dev/null
psql -c "VACUUM ANALYZE inv" >/dev/null
psql -A -t -c "SELECT 'items: ' || count(*) || ', table size: ' || pg_size_pretty(pg_total_relation_size('inv')) FROM inv"

# the median of three timings of query $2, labelled $1
timeit() {
    local label=$1 sql=$2 t times=() i
    for i in 1 2 3; do
        t=$(psql -c '\timing on' -c "$sql" 2>&1 | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)
        times+=("$t")
    done
    printf '%-44s %10s ms (runs: %s)\n' "$label" \
        "$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)" "${times[*]}"
}
for s in NULL 10 1; do
    timeit "key_prefixes, sample_percent $s" "SELECT count(*) FROM singletable.key_prefixes('inv', $s)"
    timeit "collections top 10, sample_percent $s" "SELECT count(*) FROM singletable.collections('inv', NULL, 10, NULL, $s)"
    timeit "infer_entities, sample_percent $s" "SELECT count(*) FROM singletable.infer_entities('inv', $s)"
    psql -A -t -c "SELECT '  rows_read: key_prefixes ' || (SELECT max(rows_read) FROM singletable.key_prefixes('inv', $s))
                        || ', collections ' || (SELECT max(rows_read) FROM singletable.collections('inv', NULL, 10, NULL, $s))"
done
# with the four entities defined: every row's entity (entity_of) is part of the grouping
psql -c "SELECT singletable.define_entity('inv', 'UserProfile', pk => 'USER#{userId:int}', sk => 'PROFILE')" \
     -c "SELECT singletable.define_entity('inv', 'Post', pk => 'USER#{userId:int}', sk => 'POST#{postId:int(4)}')" \
     -c "SELECT singletable.define_entity('inv', 'Metrics', pk => 'POST#{postId:int(7)}', sk => 'METRICS#{capturedAt:timestamp}')" \
     -c "SELECT singletable.define_entity('inv', 'Source', pk => 'POST#{postId:int(7)}', sk => 'SOURCE#{fileId}')" >/dev/null 2>&1
for s in NULL 10; do
    timeit "key_prefixes with 4 entities, sample_percent $s" "SELECT count(*) FROM singletable.key_prefixes('inv', $s)"
    timeit "collections of entity Post, sample_percent $s" "SELECT count(*) FROM singletable.collections('inv', 'Post', 10, NULL, $s)"
done
echo "--- key_prefixes('inv')"
psql -c "SELECT entity, pk_prefix, sk_prefix, items, partitions, bytes, avg_item_bytes, largest_collection_items FROM singletable.key_prefixes('inv')"
echo "--- key_prefixes('inv', 1)"
psql -c "SELECT entity, pk_prefix, sk_prefix, items, partitions, bytes, rows_read, sampled FROM singletable.key_prefixes('inv', 1)"
echo "--- infer_entities('inv', 1)"
psql -c "SELECT entity, pk_template, sk_template, items FROM singletable.infer_entities('inv', 1)" 2>&1
