#!/usr/bin/env bash
# test/server/concurrency.sh: concurrent writers with pgbench, checked for exact results.
#
# The isolation specs (test/isolation/specs/) fix one interleaving at a time; here several pgbench
# clients really run at once against the same items:
#   (a) atomic counter: 4 clients x 250 transactions of update_item 'ADD n :one' on one
#       item that does not exist at the start, so the first increments race to create it
#       (INSERT ... ON CONFLICT DO NOTHING, then read again); n must end at exactly 1000;
#   (b) optimistic locking: 4 clients x 100 transactions, each a DO block that reads v and
#       updates on the condition that v is still what it read ('v = :seen'), retrying on
#       a failed condition (SQLSTATE 23S01); each success is logged in the same
#       transaction, and v must end equal to the number of logged successes (= 400);
#   (c) create-only puts: 4 clients x 200 put_item with 'attribute_not_exists(pk)' on
#       random overlapping keys (each client draws from just ahead of its own position, so
#       that the clients try the same new keys at about the same time), each success or 23S01 failure logged; the number of
#       successes must equal the number of items, and every item must be the one its
#       single successful put wrote;
#   (d) ClientRequestTokens: 4 clients x 150 TransactWriteItems (ADD n :one) each with a
#       token of its own, replayed at once (the replay returns the first response and
#       writes nothing: every n is 1; never TransactionInProgress once the first call has
#       ended), then the token with another request (IdempotentParameterMismatch, 22S01).
#
# Prints one TAP line per check ("ok N - ..." / "not ok N - ...", details as "# ..." lines)
# and exits non-zero when a check failed. test/run.sh runs it against its test server
# (PGHOST, PGPORT, PGUSER from test/lib.sh's st_start_server); run by hand without ST_DIR
# set, it starts a throwaway server itself (the extension must be installed: make install).
# ST_KEEP=1 keeps the database (and a server it started) for inspection.
set -uo pipefail

# shellcheck source=test/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
DB=singletable_concurrency
CLIENTS=4
JOBS=2
COUNTER_TX=250      # (a) transactions per client
OPTIMISTIC_TX=100   # (b) transactions per client
CREATE_TX=200       # (c) transactions per client
TOKEN_TX=150        # (d) transactions per client

# bench DESC NAME TX [PGBENCH_OPTION...]: runs the pgbench script $WORK/NAME.sql with
# CLIENTS clients x TX transactions each; ok when pgbench succeeds and reports every
# transaction processed.
bench() {
    local desc=$1 name=$2 tx=$3
    shift 3
    local total=$((CLIENTS * tx)) log="$WORK/$name.log"
    if "$PGBIN/pgbench" -n -f "$WORK/$name.sql" -c "$CLIENTS" -j "$JOBS" -t "$tx" "$@" "$DB" \
            >"$log" 2>&1 &&
        grep -q "^number of transactions actually processed: $total/$total\$" "$log"; then
        ok "$desc"
    else
        not_ok "$desc"
        diag <"$log"
    fi
}

if [[ ! -x $PGBIN/pgbench ]]; then
    not_ok "pgbench is installed in $PGBIN"
    bail "no pgbench"
fi

#
# The database
#
if ! out=$(q postgres 2>&1 <<EOF
SET client_min_messages = warning;
DROP DATABASE IF EXISTS $DB;
CREATE DATABASE $DB;
EOF
); then
    not_ok "create the test database"
    diag "$out"
    bail "no test database"
fi

if out=$(q "$DB" 2>&1 <<'EOF'
SET client_min_messages = warning;
CREATE EXTENSION singletable;
SELECT singletable.create_table('c');
SELECT singletable.create_table('opt');
SELECT singletable.create_table('uniq', sort_key => NULL);
SELECT singletable.put_item('opt', '{"pk": "opt", "sk": "x", "v": 0}');

-- (b) one row per successful conditional update, written in its transaction
CREATE TABLE opt_log (client int NOT NULL, retries int NOT NULL);

-- (c) one row per create-only put: its key, client, attempt and whether it created
CREATE TABLE create_log (k text NOT NULL, client int NOT NULL, attempt uuid NOT NULL,
                         created boolean NOT NULL);

-- (c) a create-only put of key k; true when it created the item, false when the item
-- existed (23S01); any other error propagates. A successful put keeps its new item
-- uncommitted for 2 ms, so that concurrent puts of the key find it in progress and take
-- the insert-race path (their INSERT ... ON CONFLICT DO NOTHING waits, then put_item
-- reads again and checks the condition on the committed item).
CREATE FUNCTION try_create(k int, client int) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    attempt uuid := gen_random_uuid();
    created boolean := true;
BEGIN
    BEGIN
        PERFORM singletable.put_item('uniq',
                    jsonb_build_object('pk', k::text, 'by', client, 'attempt', attempt),
                    condition => 'attribute_not_exists(pk)');
        PERFORM pg_sleep(0.002);
    EXCEPTION WHEN SQLSTATE '23S01' THEN
        created := false;
    END;
    INSERT INTO create_log VALUES (k::text, client, attempt, created);
    RETURN created;
END
$$;
EOF
); then
    ok "test database: CREATE EXTENSION, tables and helpers"
else
    not_ok "test database: CREATE EXTENSION, tables and helpers"
    diag "$out"
    bail "no test database"
fi

#
# (a) atomic counter, created by the first increments
#
cat >"$WORK/counter.sql" <<'EOF'
SELECT singletable.update_item('c', 'ctr', 'x', 'ADD n :one', vals => '{":one": 1}');
EOF
bench "counter: $CLIENTS clients x $COUNTER_TX concurrent ADD increments, no error" counter "$COUNTER_TX"
expect "$DB" "counter: one item with n = $((CLIENTS * COUNTER_TX)) exactly" \
    "1|{\"n\": $((CLIENTS * COUNTER_TX)), \"pk\": \"ctr\", \"sk\": \"x\"}" \
    "SELECT count(*), min(item::text) FROM c WHERE pk = 'ctr'"

#
# (b) optimistic locking: read, conditional update, retry on 23S01
#
cat >"$WORK/optimistic.sql" <<'EOF'
DO $$
DECLARE
    seen numeric;
    retries int := 0;
BEGIN
    LOOP
        seen := (singletable.get_item('opt', 'opt', 'x')->>'v')::numeric;
        BEGIN
            PERFORM singletable.update_item('opt', 'opt', 'x', 'SET v = v + :one', 'v = :seen',
                        vals => jsonb_build_object(':one', 1, ':seen', seen));
            EXIT;
        EXCEPTION WHEN SQLSTATE '23S01' THEN
            retries := retries + 1;
        END;
    END LOOP;
    INSERT INTO opt_log VALUES (:client_id, retries);
END
$$;
EOF
bench "optimistic locking: $CLIENTS clients x $OPTIMISTIC_TX read-then-conditional-update transactions, no error" \
    optimistic "$OPTIMISTIC_TX"
expect "$DB" "optimistic locking: final v = logged successes = $((CLIENTS * OPTIMISTIC_TX))" \
    "$((CLIENTS * OPTIMISTIC_TX))|$((CLIENTS * OPTIMISTIC_TX))" \
    "SELECT singletable.get_item('opt', 'opt', 'x')->>'v', (SELECT count(*) FROM opt_log)"
if out=$(q "$DB" <<<"SELECT coalesce(sum(retries), 0) FROM opt_log" 2>&1); then
    diag "optimistic locking: $out failed conditions were retried"
fi

#
# (c) create-only puts on overlapping keys
#
# Each client walks forward through the keys (i is its own transaction count, variables
# persist across a client's transactions) and draws a key just ahead of it, so that the
# clients, which advance at about the same pace, keep trying the same new keys at the
# same time: creation races rather than puts of long-existing keys.
cat >"$WORK/create.sql" <<'EOF'
\set i :i + 1
\set k :i + random(0, 3)
SELECT try_create(:k, :client_id);
EOF
bench "create-only put: $CLIENTS clients x $CREATE_TX attempts on overlapping keys, no error but 23S01" \
    create "$CREATE_TX" -D i=0
expect "$DB" "create-only put: every attempt logged once" \
    "$((CLIENTS * CREATE_TX))|$((CLIENTS * CREATE_TX))" \
    "SELECT count(*), count(DISTINCT attempt) FROM create_log"
expect "$DB" "create-only put: successes = distinct keys created = items" \
    "t" \
    "SELECT (SELECT count(*) FROM create_log WHERE created)
            = (SELECT count(DISTINCT k) FROM create_log)
        AND (SELECT count(DISTINCT k) FROM create_log) = (SELECT count(*) FROM uniq)"
expect "$DB" "create-only put: each item is the one its single successful put wrote" \
    "0" \
    "SELECT count(*) FROM uniq u
       FULL JOIN (SELECT * FROM create_log WHERE created) l ON l.k = u.pk
      WHERE l.k IS NULL OR u.pk IS NULL
         OR u.item->>'attempt' <> l.attempt::text OR (u.item->>'by')::int <> l.client"
if out=$(q "$DB" <<<"SELECT count(*) FILTER (WHERE created), count(*) FILTER (WHERE NOT created) FROM create_log" 2>&1); then
    diag "create-only put: created|failed with 23S01 = $out"
fi

#
# (d) ClientRequestTokens: each transaction writes through TransactWriteItems with a token
# of its own, then replays it at once; the replay must return the first response (no
# TransactionInProgress once the first call has ended, no second write), and a third call
# with the token and another request must get IdempotentParameterMismatch
#
cat >"$WORK/token.sql" <<'EOF'
\set id :client_id * 1000000 + random(1, 999999)
SELECT singletable.dynamodb('TransactWriteItems', jsonb_build_object('ClientRequestToken', 'tok-' || :id,
  'TransactItems', jsonb_build_array(jsonb_build_object('Update', jsonb_build_object('TableName', 'tok',
    'Key', jsonb_build_object('pk', jsonb_build_object('S', 'k' || :id), 'sk', jsonb_build_object('S', 'x')),
    'UpdateExpression', 'ADD n :one', 'ExpressionAttributeValues', jsonb_build_object(':one', jsonb_build_object('N', '1')))))));
SELECT singletable.dynamodb('TransactWriteItems', jsonb_build_object('ClientRequestToken', 'tok-' || :id,
  'TransactItems', jsonb_build_array(jsonb_build_object('Update', jsonb_build_object('TableName', 'tok',
    'Key', jsonb_build_object('pk', jsonb_build_object('S', 'k' || :id), 'sk', jsonb_build_object('S', 'x')),
    'UpdateExpression', 'ADD n :one', 'ExpressionAttributeValues', jsonb_build_object(':one', jsonb_build_object('N', '1')))))));
SELECT token_mismatch('tok-' || :id);
EOF
q "$DB" >/dev/null <<'SQL' || bail "token setup failed"
SELECT singletable.create_table('tok');
CREATE TABLE token_log (token text, state text);
CREATE FUNCTION token_mismatch(t text) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM singletable.dynamodb('TransactWriteItems', jsonb_build_object('ClientRequestToken', t,
    'TransactItems', jsonb_build_array(jsonb_build_object('Delete', jsonb_build_object('TableName', 'tok',
      'Key', jsonb_build_object('pk', jsonb_build_object('S', 'other'), 'sk', jsonb_build_object('S', 'x')))))));
  INSERT INTO token_log VALUES (t, 'no error');
EXCEPTION WHEN OTHERS THEN
  INSERT INTO token_log VALUES (t, SQLSTATE);
END $fn$;
SQL
bench "tokens: $CLIENTS clients x $TOKEN_TX TransactWriteItems, each replayed at once, no error" token "$TOKEN_TX"
expect "$DB" "tokens: every replay returned the first call's response: each item's n is 1" \
    "0" \
    "SELECT count(*) FROM tok WHERE (item->>'n')::int <> 1"
expect "$DB" "tokens: every reuse with another request was IdempotentParameterMismatch (22S01)" \
    "$((CLIENTS * TOKEN_TX))|22S01" \
    "SELECT count(*), string_agg(DISTINCT state, ',') FROM token_log"

#
# Done
#
echo "1..$N"
if ((FAILURES == 0)) && [[ ${ST_KEEP:-0} != 1 ]]; then
    q postgres >/dev/null 2>&1 <<<"DROP DATABASE $DB"
else
    diag "the database $DB was kept for inspection"
fi
if ((FAILURES > 0)); then
    diag "$FAILURES of $N checks failed"
    exit 1
fi
exit 0
