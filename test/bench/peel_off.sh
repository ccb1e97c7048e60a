#!/usr/bin/env bash
# test/bench/peel_off.sh: singletable.peel_off on a 1,000,000-item table while a get_item
# workload runs (issue 29, item 4).
#
#   test/bench/peel_off.sh [ITEMS]      (default 1000000)
#
# Loads ITEMS items of the posting app's shapes: 90 % posts (USER#<n> / POST#<nnnn>, 10 a
# user) and 10 % metrics (POST#<n> / METRICS#<timestamp>, 10 a post), both registered as
# entities, and VACUUM ANALYZEs. Then, in the same run: pgbench get_item of random posts
# (-M prepared, BENCH_CLIENTS clients) for BENCH_SECONDS seconds before the move; then
# CALL singletable.peel_off('app', 'Metrics', 'app_metrics', batch_size, pause) in the
# background while the same pgbench runs in BENCH_SECONDS-second cells until the move
# ends (a cell counts when the move ran all through it; the cell it ended in, which holds
# the cutover, is shown apart); then pgbench again after it; the move reversed by hand,
# the same for the next pause.
# Reports tps before, during (each cell and their mean) and after, the ratio during /
# before, the move's copy rate (items per second), its whole time and how long its
# cutover took (deleting the entity's items from the old table under the lock); writes
# its section of test/bench/REPORT.md. Last, what the log triggers cost put_item of the
# entity (triggers disabled against enabled, cells alternating). Not part of CI. Starts its own server with
# test/lib.sh (PG_CONFIG honoured).
# Environment: BENCH_SECONDS (5), BENCH_CLIENTS (2), BENCH_BATCH (1000),
# BENCH_PAUSES ("0.2 0.05 0": a move for each pause between batches, in seconds), BENCH_BUILD (1).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
source "$HERE/../lib.sh"
ITEMS=${1:-1000000}
((ITEMS >= 1000 && ITEMS % 100 == 0)) || { echo "ITEMS must be a multiple of 100, at least 1000" >&2; exit 1; }
SECTION="## peel_off: moving 10 % of a 1,000,000-item table under a get_item workload (issue 29, item 4)"
SECONDS_PER=${BENCH_SECONDS:-5}
CLIENTS=${BENCH_CLIENTS:-2}
BATCH=${BENCH_BATCH:-1000}
PAUSES=${BENCH_PAUSES:-0.2 0.05 0}
OUT=$HERE/out/peel_off
mkdir -p "$OUT"

if [[ ${BENCH_BUILD:-1} == 1 ]]; then
    st_log "building"
    st_build_install >"$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log" >&2; exit 1; }
fi
st_start_server "shared_buffers = '256MB'" "synchronous_commit = off" >/dev/null || { echo "server failed" >&2; exit 1; }
trap st_stop_server EXIT
export PATH="$PGBIN:$PATH"
psql() { command psql -X -q -v ON_ERROR_STOP=1 "$@"; }

POSTS=$((ITEMS * 9 / 10))
METRICS=$((ITEMS - POSTS))
st_log "loading $POSTS posts and $METRICS metrics"
psql <<SQL || exit 1
CREATE EXTENSION singletable;
SET client_min_messages = warning;
SELECT singletable.create_table('app');
SELECT singletable.define_entity('app', 'Post', pk => 'USER#{userId:int(7)}', sk => 'POST#{postId:int(4)}');
SELECT singletable.define_entity('app', 'Metrics', pk => 'POST#{postId:int(7)}', sk => 'METRICS#{capturedAt:timestamp}');
INSERT INTO app (pk, sk, item)
SELECT 'USER#' || lpad(u::text, 7, '0'), 'POST#' || lpad(p::text, 4, '0'),
       jsonb_build_object('pk', 'USER#' || lpad(u::text, 7, '0'), 'sk', 'POST#' || lpad(p::text, 4, '0'),
                          'title', 'a post of the posting app', 'status', 'draft', 'body', repeat('x', 100))
  FROM generate_series(1, $POSTS / 10) u, generate_series(1, 10) p;
INSERT INTO app (pk, sk, item)
SELECT 'POST#' || lpad(p::text, 7, '0'), 'METRICS#2026-06-23T' || lpad(h::text, 2, '0') || ':12Z',
       jsonb_build_object('pk', 'POST#' || lpad(p::text, 7, '0'), 'sk', 'METRICS#2026-06-23T' || lpad(h::text, 2, '0') || ':12Z',
                          'views', p * h, 'likes', h)
  FROM generate_series(1, $METRICS / 10) p, generate_series(0, 9) h;
VACUUM ANALYZE app;
SQL
printf '%s\n' "\\set u random(1, $((POSTS / 10)))" "\\set p random(1, 10)" \
    "SELECT singletable.get_item('app', 'USER#' || lpad(:u::text, 7, '0'), 'POST#' || lpad(:p::text, 4, '0'));" \
    >"$OUT/get.sql"
tps() {  # pgbench's tps, without the connection start-up
    pgbench -n -M prepared -c "$CLIENTS" -j "$CLIENTS" -T "$SECONDS_PER" -f "$OUT/get.sql" 2>&1 |
        sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p' | awk '{printf "%.0f\n", $1}'
}

st_log "warm-up"
tps >/dev/null
: >"$OUT/rows.md"
n=0
for PAUSE in $PAUSES; do
    n=$((n + 1))
    before=$(tps)
    st_log "pause $PAUSE: before: $before tps; the move starts"
    start=$(date +%s.%N)
    psql -c "CALL singletable.peel_off('app', 'Metrics', 'app_metrics', batch_size => $BATCH, pause => $PAUSE)" \
        >"$OUT/move.log" 2>&1 &
    move=$!
    during=()
    last='—'
    while kill -0 "$move" 2>/dev/null; do
        t=$(tps)
        if kill -0 "$move" 2>/dev/null; then
            during+=("$t")
            st_log "during: $t tps"
        else
            last=$t
            st_log "(a cell the move ended in: $t tps)"
        fi
    done
    wait "$move" || { cat "$OUT/move.log" >&2; exit 1; }
    elapsed=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
    after=$(tps)
    st_log "after: $after tps"
    IFS='|' read -r copied rate cutover left moved < <(psql -At -c "
        SELECT p.items_copied, p.copy_items_per_second, round(p.cutover_seconds::numeric, 2),
               (SELECT count(*) FROM app WHERE sk LIKE 'METRICS#%'), (SELECT count(*) FROM app_metrics)
          FROM singletable.peel_off_progress p")
    if ((${#during[@]} > 0)); then
        mean=$(printf '%s\n' "${during[@]}" | awk '{s += $1} END {printf "%.0f", s / NR}')
        ratio=$(awk -v d="$mean" -v b="$before" 'BEGIN {printf "%.2f×", d / b}')
        cells=$(printf '%s, ' "${during[@]}" | sed 's/, $//')
    else
        mean='—' ratio='— (the move was shorter than a cell)' cells='none'
    fi
    echo "| $BATCH, $PAUSE s | $before | $mean ($cells) | $last | $after | **$ratio** | $rate | $elapsed s | $cutover s | $moved / $left |" >>"$OUT/rows.md"
    # the reverse by hand of docs/entities.md, for the next configuration
    psql <<SQL || exit 1
SET client_min_messages = warning;
BEGIN;
LOCK TABLE app_metrics IN SHARE ROW EXCLUSIVE MODE;
SELECT format('DROP TRIGGER %I ON app', tgname) FROM pg_trigger WHERE tgrelid = 'app'::regclass AND tgname LIKE 'peel_off_%_refuse' \gexec
INSERT INTO app (pk, sk, item) SELECT pk, sk, item FROM app_metrics;
DELETE FROM singletable.peel_offs WHERE table_name = 'app'::regclass;
COMMIT;
SELECT singletable.drop_table('app_metrics');
VACUUM ANALYZE app;
SQL
done

# What the log triggers cost a writer of the entity: put_item of Metrics items (a fresh
# table, keys random among 100,000 per client) with a move begun (its three triggers
# enabled) against the same with them disabled, cells alternating, in the same run
st_log "the log triggers' cost to put_item"
psql <<SQL || exit 1
SET client_min_messages = warning;
SELECT singletable.create_table('w');
SELECT singletable.define_entity('w', 'Metrics', pk => 'POST#{postId:int(7)}', sk => 'METRICS#{capturedAt:timestamp}');
SELECT singletable.peel_off_begin('w', 'Metrics', 'w_metrics');
SQL
printf '%s\n' "\\set n random(1, 100000)" \
    "SELECT singletable.put_item('w', jsonb_build_object('pk', 'POST#' || lpad((:client_id::int * 100000 + :n::int)::text, 7, '0'), 'sk', 'METRICS#2026-06-23T09:12Z', 'views', :n::int, 'likes', 1));" \
    >"$OUT/put.sql"
puts() {
    pgbench -n -M prepared -c "$CLIENTS" -j "$CLIENTS" -T "$SECONDS_PER" -f "$OUT/put.sql" 2>&1 |
        sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p' | awk '{printf "%.0f\n", $1}'
}
puts >/dev/null
: >"$OUT/puts.txt"
for r in 1 2 3; do
    psql -c "ALTER TABLE w DISABLE TRIGGER USER"
    off=$(puts)
    psql -c "ALTER TABLE w ENABLE TRIGGER USER"
    on=$(puts)
    echo "$r $off $on" | tee -a "$OUT/puts.txt" >&2
done
logged=$(psql -At -c "SELECT count(*) FROM singletable.peel_off_log")
putrows=$(awk '{printf "| %s | %s | %s | %.2f× |\n", $1, $2, $3, $3 / $2}' "$OUT/puts.txt")
putmedian=$(awk '{print $3 / $2}' "$OUT/puts.txt" | sort -n | awk '{a[NR] = $1} END {printf "%.2f", a[int((NR + 1) / 2)]}')

REPORT=$TOP/test/bench/REPORT.md
{
    echo "$SECTION"
    echo
    echo "Generated by \`test/bench/peel_off.sh\` on $(date -u '+%Y-%m-%d %H:%M') UTC, built from"
    echo "$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo 'the work tree')$(git -C "$TOP" diff --quiet HEAD -- src sql 2>/dev/null || echo ' with uncommitted changes'). Rerun: \`test/bench/peel_off.sh\` (as root)."
    echo "$(nproc) cores shared by pgbench, PostgreSQL (synchronous_commit = off) and the move."
    echo
    echo "$ITEMS items: $POSTS posts (\`USER#…/POST#…\`) and $METRICS metrics (\`POST#…/METRICS#…\`, the"
    echo "entity moved). Foreground: get_item of random posts, $CLIENTS pgbench clients (-M prepared),"
    echo "$SECONDS_PER s cells. The move: \`CALL singletable.peel_off('app', 'Metrics', 'app_metrics',"
    echo "batch_size => …, pause => …)\`, once per configuration, in this order."
    echo
    echo "| batch, pause | before (tps) | during (tps: mean, cells) | the cell the move ended in (its cutover) | after (tps) | during / before | copy rate (items/s, pauses included) | move in all | cutover | items new / old |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    cat "$OUT/rows.md"
    echo
    echo "Target: during / before ≥ 0.8×. The cutover replays the rest of the log, deletes the"
    echo "$METRICS items from the old table and swaps the triggers under SHARE ROW EXCLUSIVE: writes"
    echo "of the old table (every entity's) wait that long, reads do not. Between configurations the"
    echo "move is reversed by hand as docs/entities.md shows, and the table vacuumed."
    echo
    echo "What the log triggers cost a writer of the entity: put_item of Metrics items (keys random"
    echo "among 100,000 per client, $CLIENTS clients, $SECONDS_PER s cells alternating) on a table with a move"
    echo "begun, its triggers disabled (\`ALTER TABLE … DISABLE TRIGGER USER\`) against enabled:"
    echo
    echo "| round | without the triggers (puts/s) | with them (puts/s) | ratio |"
    echo "|---|---|---|---|"
    echo "$putrows"
    echo
    echo "Median ratio: ${putmedian}× ($logged keys logged). Writes of other entities and reads do"
    echo "not call the triggers (their \`WHEN\` clause is false)."
} >"$OUT/section.md"
# replace this section of the report, or append it
awk -v sec="$SECTION" -v file="$OUT/section.md" '
    $0 == sec { while ((getline l < file) > 0) print l; skip = 1; done = 1; next }
    skip && /^## / { skip = 0; print ""; }
    !skip { print }
    END { if (!done) { print ""; while ((getline l < file) > 0) print l } }' "$REPORT" >"$OUT/report.md" &&
    cp "$OUT/report.md" "$REPORT"
cat "$OUT/section.md"
