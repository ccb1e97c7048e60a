#!/usr/bin/env bash
# test/server/log_privacy.sh: no item content reaches the server log.
#
# Errors are written to the server log (log_min_error_statement = error logs the
# statement too), so an error must never carry an item. This suite makes writes fail in
# every way that involves an existing item — a failed condition with and without
# return_values_on_condition_check_failure => 'ALL_OLD' on put, update and delete, and a
# user's CHECK constraint on the item table failing a put or update — with
# items holding a unique marker in an attribute value, and transact_writes cancelled by a
# failed condition that asked for the item (ALL_OLD) or failing that CHECK, and create_gsi
# refused (at once and in a concurrent build) by items whose key holds the marker, then
# checks that the marker is in the table and the failure item can be read back in the
# session, but appears nowhere in the server log. Also the entity checks (entity_check,
# prefix_check) on items and queries whose keys and attributes hold the marker, as WARNINGs
# (which the server logs) and as errors. The statements themselves name only keys
# and placeholders: the marker is written by a statement that succeeds.
#
# Prints TAP lines; needs the server log file: $ST_DIR/server.log (test/lib.sh).
set -uo pipefail

# shellcheck source=test/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
DB=singletable_log_privacy
LOG=$ST_DIR/server.log
MARKER="secret-$(date +%s)-$$-PII"

"$PGBIN/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null \
    || bail "could not create database $DB"
q "$DB" <<SQL >/dev/null || bail "setup failed"
CREATE EXTENSION singletable;
SELECT singletable.create_table('people');
SELECT singletable.put_item('people', jsonb_build_object('pk', 'USER#1', 'sk', 'PROFILE', 'ssn', '$MARKER'));
-- the marker in a key: create_gsi over handle (S) refuses this item, whose handle is a number
SELECT singletable.put_item('people', jsonb_build_object('pk', 'USER#$MARKER', 'sk', 'PROFILE', 'handle', 1));
SQL

if [[ ! -r $LOG ]]; then
    bail "server log $LOG is not readable"
fi
before=$(wc -c <"$LOG")

# each failing call, run in an EXCEPTION block that returns the failure item
out=$(q "$DB" <<'SQL' 2>&1
CREATE FUNCTION try(sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE sql;
  RETURN 'no error';
EXCEPTION WHEN SQLSTATE '23S01' THEN
  RETURN coalesce(singletable.condition_check_failure_item()->>'ssn', 'no item');
END $$;
SELECT try($q$SELECT singletable.put_item('people', '{"pk": "USER#1", "sk": "PROFILE"}', 'attribute_not_exists(pk)', return_values_on_condition_check_failure => 'ALL_OLD')$q$);
SELECT try($q$SELECT singletable.update_item('people', 'USER#1', 'PROFILE', 'SET a = :v', 'attribute_not_exists(pk)', vals => '{":v": 1}', return_values_on_condition_check_failure => 'ALL_OLD')$q$);
SELECT try($q$SELECT singletable.delete_item('people', 'USER#1', 'PROFILE', 'attribute_not_exists(pk)', return_values_on_condition_check_failure => 'ALL_OLD')$q$);
SELECT try($q$SELECT singletable.delete_item('people', 'USER#1', 'PROFILE', 'attribute_not_exists(pk)')$q$);
SQL
)
expected=$(printf '%s\n%s\n%s\n%s' "$MARKER" "$MARKER" "$MARKER" "no item")
if [[ $out == "$expected" ]]; then
    ok "failed conditions return the current item through condition_check_failure_item()"
else
    not_ok "failed conditions return the current item through condition_check_failure_item()"
    diag "expected:" "$expected" "got:" "$out"
fi

# fails_without_marker WHAT PATTERN SQL...: each SQL, run on its own, must fail with an
# error matching PATTERN whose text (message, DETAIL, HINT, CONTEXT) lacks the marker.
fails_without_marker() {
    local what=$1 pattern=$2 sql
    shift 2
    for sql in "$@"; do
        if "$PGBIN/psql" -X -q -d "$DB" -c "$sql" >/dev/null 2>"$WORK/err"; then
            not_ok "$what raises an error"
        elif grep -q "$pattern" "$WORK/err" && ! grep -q -- "$MARKER" "$WORK/err"; then
            ok "$what: error without item content ($(head -c 50 <<<"$sql")...)"
        else
            not_ok "$what: error without item content"
            diag "client got:" "$(cat "$WORK/err")"
        fi
    done
}

# a cancelled transaction keeps the items of its failed conditions for cancellation_reasons()
TX_CHECK="SELECT singletable.transact_write('[{\"ConditionCheck\": {\"TableName\": \"people\", \"Key\": {\"pk\": \"USER#1\", \"sk\": \"PROFILE\"}, \"ConditionExpression\": \"attribute_not_exists(pk)\", \"ReturnValuesOnConditionCheckFailure\": \"ALL_OLD\"}}, {\"Update\": {\"TableName\": \"people\", \"Key\": {\"pk\": \"USER#2\", \"sk\": \"PROFILE\"}, \"UpdateExpression\": \"SET a = :v\", \"ExpressionAttributeValues\": {\":v\": 1}}}]')"
out=$(q "$DB" <<SQL 2>&1
DO \$\$ BEGIN
  PERFORM ($TX_CHECK);
EXCEPTION WHEN SQLSTATE '23S02' THEN
  RAISE NOTICE '%', singletable.cancellation_reasons() -> 0 -> 'Item' ->> 'ssn';
END \$\$;
SQL
)
if [[ $out == *"NOTICE:  $MARKER"* ]]; then
    ok "a cancelled transaction returns the current item through cancellation_reasons()"
else
    not_ok "a cancelled transaction returns the current item through cancellation_reasons()"
    diag "got:" "$out"
fi

# the same failures, not caught: the errors go to the log with their statements
fails_without_marker "uncaught failed condition" "23S01\\|conditional check failed" \
    "SELECT singletable.put_item('people', '{\"pk\": \"USER#1\", \"sk\": \"PROFILE\"}', 'attribute_not_exists(pk)', return_values_on_condition_check_failure => 'ALL_OLD')" \
    "SELECT singletable.update_item('people', 'USER#1', 'PROFILE', 'SET a = :v', 'attribute_not_exists(pk)', vals => '{\":v\": 1}', return_values_on_condition_check_failure => 'ALL_OLD')" \
    "SELECT singletable.delete_item('people', 'USER#1', 'PROFILE', 'attribute_not_exists(pk)', return_values_on_condition_check_failure => 'ALL_OLD')"
fails_without_marker "uncaught cancelled transaction" "23S02\\|transaction cancelled" "$TX_CHECK"

# fails_with_marker WHAT PATTERN SQL...: each SQL must fail with an error matching PATTERN
# whose DETAIL, sent to this client, holds the marker (singletable.dynamodb's body): the log
# check at the end proves the server log got the body without it.
fails_with_marker() {
    local what=$1 pattern=$2 sql
    shift 2
    for sql in "$@"; do
        if "$PGBIN/psql" -X -q -d "$DB" -c "$sql" >/dev/null 2>"$WORK/err"; then
            not_ok "$what raises an error"
        elif grep -q "$pattern" "$WORK/err" && grep -q -- "DETAIL:.*$MARKER" "$WORK/err"; then
            ok "$what: the client's DETAIL has the item ($(head -c 50 <<<"$sql")...)"
        else
            not_ok "$what: the client's DETAIL has the item"
            diag "client got:" "$(cat "$WORK/err")"
        fi
    done
}

# singletable.dynamodb: the items asked for with ALL_OLD go into the client's body only
fails_with_marker "dynamodb() failed condition / cancelled transaction" \
    "conditional check failed\\|transaction cancelled" \
    "SELECT singletable.dynamodb('PutItem', '{\"TableName\": \"people\", \"Item\": {\"pk\": {\"S\": \"USER#1\"}, \"sk\": {\"S\": \"PROFILE\"}}, \"ConditionExpression\": \"attribute_not_exists(pk)\", \"ReturnValuesOnConditionCheckFailure\": \"ALL_OLD\"}')" \
    "SELECT singletable.dynamodb('TransactWriteItems', '{\"TransactItems\": [{\"ConditionCheck\": {\"TableName\": \"people\", \"Key\": {\"pk\": {\"S\": \"USER#1\"}, \"sk\": {\"S\": \"PROFILE\"}}, \"ConditionExpression\": \"attribute_not_exists(pk)\", \"ReturnValuesOnConditionCheckFailure\": \"ALL_OLD\"}}, {\"Put\": {\"TableName\": \"people\", \"Item\": {\"pk\": {\"S\": \"USER#3\"}, \"sk\": {\"S\": \"PROFILE\"}}}}]}')"

# a CHECK constraint of the user fails: PostgreSQL's DETAIL would be the whole row
q "$DB" <<'SQL' >/dev/null || bail "adding the CHECK constraint failed"
ALTER TABLE people ADD CONSTRAINT no_forbidden CHECK (NOT item ? 'forbidden');
-- the statements below must not name the marker themselves (PostgreSQL logs statements)
CREATE TABLE staging AS SELECT singletable.get_item('people', 'USER#1', 'PROFILE')
    || '{"pk": "USER#2", "forbidden": 1}' AS item;
SQL
fails_without_marker "a write failing a CHECK constraint" "23514\\|violates check constraint" \
    "SELECT singletable.put_item('people', (SELECT item FROM staging))" \
    "SELECT singletable.put_item('people', (SELECT item FROM staging), 'attribute_not_exists(pk)')" \
    "SELECT singletable.update_item('people', 'USER#1', 'PROFILE', 'SET forbidden = :v', vals => '{\":v\": 1}')" \
    "SELECT singletable.transact_write(jsonb_build_array(jsonb_build_object('Put', jsonb_build_object('TableName', 'people', 'Item', (SELECT item FROM staging)))))" \
    "SELECT singletable.transact_write('[{\"Update\": {\"TableName\": \"people\", \"Key\": {\"pk\": \"USER#1\", \"sk\": \"PROFILE\"}, \"UpdateExpression\": \"SET forbidden = :v\", \"ExpressionAttributeValues\": {\":v\": 1}}}]')"

# create_gsi refused by an item whose key holds the marker, in SQL and through
# singletable.dynamodb (which logs the DETAIL its client does not get): the error counts the
# items and gives the query that lists them, without their keys
fails_without_marker "create_gsi refused by existing items" "cannot create index" \
    "SELECT singletable.create_gsi('people', 'by-handle', 'handle')" \
    "SELECT singletable.dynamodb('UpdateTable', '{\"TableName\": \"people\", \"AttributeDefinitions\": [{\"AttributeName\": \"handle\", \"AttributeType\": \"S\"}], \"GlobalSecondaryIndexUpdates\": [{\"Create\": {\"IndexName\": \"by-handle\", \"KeySchema\": [{\"AttributeName\": \"handle\", \"KeyType\": \"HASH\"}], \"Projection\": {\"ProjectionType\": \"KEYS_ONLY\"}}}]}')"
# the same refusal in a concurrent build: the worker logs it and keeps it as BuildError
q "$DB" <<<"SELECT singletable.create_gsi('people', 'by-handle', 'handle', concurrently => true)" >/dev/null ||
    bail "create_gsi concurrently failed to start"
for _ in $(seq 300); do
    status=$(q "$DB" <<<"SELECT status FROM singletable.indexes WHERE index_name = 'by-handle'")
    [[ $status == CREATING ]] || break
    sleep 0.1
done
build_error=$(q "$DB" <<<"SELECT build_error FROM singletable.indexes WHERE index_name = 'by-handle'")
if [[ $status == FAILED && $build_error == *"cannot create index"* && $build_error != *"$MARKER"* ]]; then
    ok "a concurrent build refused by existing items keeps its error without item content"
else
    not_ok "a concurrent build refused by existing items keeps its error without item content"
    diag "status: $status" "build_error: $build_error"
fi
q "$DB" <<<"SELECT singletable.drop_gsi('people', 'by-handle')" >/dev/null || bail "drop_gsi failed"

# the entity checks: the write guard's and the typo guard's WARNINGs (which go to the server
# log) and errors name the table, entity, field and template, never a key or attribute value
q "$DB" <<SQL >/dev/null || bail "setting up the entity checks failed"
SELECT singletable.create_table('tenants');
SELECT singletable.define_entity('tenants', 'User', pk => 'TENANT#{tenantId}', sk => 'USER#{userId:int(4)}',
                                 attributes => '{"email": "S"}');
CREATE TABLE ent_staging (k int PRIMARY KEY, item jsonb);
INSERT INTO ent_staging VALUES
  (1, jsonb_build_object('pk', 'TENANT#$MARKER', 'sk', 'USR#$MARKER', 'email', '$MARKER')),
  (2, jsonb_build_object('pk', 'TENANT#$MARKER', 'sk', 'USER#$MARKER', 'email', '$MARKER')),
  (3, jsonb_build_object('pk', 'TENANT#$MARKER', 'sk', 'USER#0001', 'email', jsonb_build_array('$MARKER'))),
  (4, jsonb_build_object('pk', 'TENANTS#$MARKER', 'sk', 'USER#0001'));
SQL
ENT_WRITES=(
    "SELECT singletable.put_item('tenants', (SELECT item FROM ent_staging WHERE k = 1))"
    "SELECT singletable.put_item('tenants', (SELECT item FROM ent_staging WHERE k = 2))"
    "SELECT singletable.put_item('tenants', (SELECT item FROM ent_staging WHERE k = 3))"
    "SELECT singletable.batch_write(jsonb_build_object('tenants', jsonb_build_array(jsonb_build_object('PutRequest', jsonb_build_object('Item', (SELECT item FROM ent_staging WHERE k = 1))))))"
    "SELECT singletable.transact_write(jsonb_build_array(jsonb_build_object('Put', jsonb_build_object('TableName', 'tenants', 'Item', (SELECT item FROM ent_staging WHERE k = 2)))))"
)
ENT_QUERIES=(
    "SELECT count(*) FROM singletable.query('tenants', (SELECT item->>'pk' FROM ent_staging WHERE k = 4))"
    "SELECT count(*) FROM singletable.query('tenants', (SELECT item->>'pk' FROM ent_staging WHERE k = 1), 'begins_with', 'USERS#')"
)
# warns_without_marker WHAT SQL...: each SQL succeeds with a WARNING that lacks the marker
warns_without_marker() {
    local what=$1 sql
    shift
    for sql in "$@"; do
        if ! "$PGBIN/psql" -X -q -d "$DB" -c "$sql" >/dev/null 2>"$WORK/err"; then
            not_ok "$what succeeds"
            diag "client got:" "$(cat "$WORK/err")"
        elif grep -q "WARNING" "$WORK/err" && ! grep -q -- "$MARKER" "$WORK/err"; then
            ok "$what: warning without item content ($(head -c 50 <<<"$sql")...)"
        else
            not_ok "$what: warning without item content"
            diag "client got:" "$(cat "$WORK/err")"
        fi
    done
}
warns_without_marker "the write guard" "${ENT_WRITES[@]}"
warns_without_marker "the typo guard" "${ENT_QUERIES[@]}"
for sql in "${ENT_WRITES[@]}"; do
    fails_without_marker "the write guard in error mode" "matches no entity\\|has the keys of entity\\|declares" \
        "SET singletable.entity_check = error; $sql"
done
for sql in "${ENT_QUERIES[@]}"; do
    fails_without_marker "the typo guard in error mode" "no entity of table" "SET singletable.prefix_check = error; $sql"
done

# make sure the log has everything written so far
"$PGBIN/psql" -X -q -d "$DB" -c "SELECT pg_catalog.pg_sleep(0)" >/dev/null
logged=$(tail -c +"$((before + 1))" "$LOG")
if grep -q "conditional check failed" <<<"$logged" && grep -q "violates check constraint" <<<"$logged" &&
        grep -q "transaction cancelled" <<<"$logged" && grep -q "cannot create index" <<<"$logged" &&
        grep -q "building index \"by-handle\" failed" <<<"$logged" &&
        grep -q "WARNING:  item for table \"tenants\" matches no entity" <<<"$logged" &&
        grep -q "ERROR:  no entity of table \"tenants\" has a sort key beginning with 'USERS#'" <<<"$logged"; then
    ok "the failed conditions are in the server log"
else
    not_ok "the failed conditions are in the server log"
    diag "the log did not get the errors; the check below would prove nothing"
fi
if grep -q -- "$MARKER" <<<"$logged"; then
    not_ok "no item content in the server log"
    grep -- "$MARKER" <<<"$logged" | head -5 | diag
else
    ok "no item content in the server log"
fi

"$PGBIN/psql" -X -q -d postgres -c "DROP DATABASE $DB" >/dev/null
echo "1..$N"
((FAILURES == 0))
