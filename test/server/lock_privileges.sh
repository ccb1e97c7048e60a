#!/usr/bin/env bash
# test/server/lock_privileges.sh: a call by a role without rights fails at once, without
# queueing a lock on the table it names.
#
# Session A holds locks in an open transaction: SHARE on an item table, ACCESS EXCLUSIVE
# on another, SHARE on pg_catalog.pg_database. Session B, a role with no rights on them,
# calls drop_table, put_item, delete_item, update_item, get_item, query,
# describe_table, transact_write and transact_get on them, and a role that may only read
# one of the SHARE-locked tables calls dynamodb()'s five writes on it (PutItem, UpdateItem,
# DeleteItem, BatchWriteItem, TransactWriteItems), with lock_timeout unset and
# statement_timeout = 5s. Each call
# must fail with SQLSTATE 42501 (insufficient privilege) well before the timeout, B must
# never be seen waiting for a lock (pg_locks, polled while B runs), and a session C must
# meanwhile connect and read what A's locks allow. Before these checks existed, B queued
# behind A (ACCESS EXCLUSIVE for drop_table), and C, and for pg_database every new
# connection, queued behind B until B's statement timed out. A last check shows that a
# role with the rights does wait for A, so that the checks are not vacuous.
#
# Prints TAP lines; test/run.sh runs it against its server, run alone it starts one.
set -uo pipefail

# shellcheck source=test/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
# shellcheck source=test/server/session.sh
source "$(dirname "${BASH_SOURCE[0]}")/session.sh"
trap 'session_stop_all; tap_cleanup' EXIT

DB=singletable_locks
NOBODY=regress_st_lock_nobody
READER=regress_st_lock_reader

SETUP_CLUSTER="SET client_min_messages = warning;
DROP DATABASE IF EXISTS $DB;
DROP ROLE IF EXISTS $NOBODY;
DROP ROLE IF EXISTS $READER;
CREATE DATABASE $DB;
CREATE ROLE $NOBODY LOGIN;
CREATE ROLE $READER LOGIN;"
SETUP_DB="SET client_min_messages = warning;
CREATE EXTENSION singletable;
SELECT singletable.create_table('lk');
SELECT singletable.create_table('lk_excl');
SELECT singletable.create_table('lk_ddb');
SELECT singletable.put_item('lk', '{\"pk\": \"a\", \"sk\": \"1\"}');
GRANT USAGE ON SCHEMA singletable TO $READER;
GRANT SELECT ON lk_ddb TO $READER;"
if out=$(q postgres <<<"$SETUP_CLUSTER" 2>&1) && out=$(q "$DB" <<<"$SETUP_DB" 2>&1); then
    ok "setup: a database with two item tables and a role without rights"
else
    not_ok "setup: a database with two item tables and a role without rights"
    diag "$out"
    bail "no setup"
fi

session_start A "$DB"
if out=$(session_run A "SET application_name = 'st_lock_a';
BEGIN;
LOCK TABLE lk IN SHARE MODE;
LOCK TABLE lk_ddb IN SHARE MODE;
LOCK TABLE lk_excl IN ACCESS EXCLUSIVE MODE;
LOCK TABLE pg_catalog.pg_database IN SHARE MODE;
SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid() AND granted
   AND relation IN ('lk'::regclass, 'lk_ddb'::regclass, 'lk_excl'::regclass, 'pg_catalog.pg_database'::regclass);") \
        && [[ $out == 4 ]]; then
    ok "session A holds SHARE on lk and lk_ddb, ACCESS EXCLUSIVE on lk_excl, SHARE on pg_database"
else
    not_ok "session A holds SHARE on lk and lk_ddb, ACCESS EXCLUSIVE on lk_excl, SHARE on pg_database"
    diag "$out"
    bail "no locks held"
fi

# Session C: a new connection that reads what A's locks allow; prints "t" and "1".
session_c() {
    PGOPTIONS="-c statement_timeout=3s" q "$DB" 2>&1 \
        <<<"SELECT count(*) > 0 FROM pg_catalog.pg_database; SELECT count(*) FROM lk;"
}

# refused DESC SQL [ROLE]: runs SQL as the role without rights (or ROLE) in the background
# (session B) and polls pg_locks while it runs. ok when it failed with 42501 in under 4 s,
# was never seen waiting for a lock, and session C could connect and read meanwhile.
refused() {
    local desc=$1 sql=$2 role=${3:-$NOBODY} b_pid start elapsed waited=0 c_ok=0 c_out='' b_out locks
    start=$(date +%s%N)
    PGOPTIONS="-c statement_timeout=5s -c lock_timeout=0" PGAPPNAME=st_lock_b \
        "$PGBIN/psql" -X -q -A -t -U "$role" -d "$DB" -v VERBOSITY=verbose -c "$sql" \
        >"$WORK/b.out" 2>&1 &
    b_pid=$!
    while kill -0 "$b_pid" 2>/dev/null; do
        locks=$(q "$DB" 2>&1 <<<"SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
                                  WHERE a.application_name = 'st_lock_b' AND NOT l.granted")
        [[ $locks == 0 ]] || waited=1
        if ((c_ok == 0)); then
            c_out=$(session_c)
            [[ $c_out == $'t\n1' ]] && c_ok=1
        fi
    done
    wait "$b_pid"
    elapsed=$((($(date +%s%N) - start) / 1000000))
    b_out=$(cat "$WORK/b.out")
    if ((c_ok == 0)); then
        c_out=$(session_c)
        [[ $c_out == $'t\n1' ]] && c_ok=1
    fi
    if [[ $b_out == *"ERROR:  42501:"* ]] && ((elapsed < 4000 && waited == 0 && c_ok == 1)); then
        ok "$desc"
    else
        not_ok "$desc"
        diag "session B (${elapsed} ms, seen waiting for a lock: $waited):" "$b_out" \
            "session C: $c_out"
    fi
}

refused "drop_table of an item table under SHARE: denied at once" \
    "SELECT singletable.drop_table('lk')"
refused "drop_table of pg_catalog.pg_database under SHARE: denied at once" \
    "SELECT singletable.drop_table('pg_catalog.pg_database')"
refused "put_item on an item table under SHARE: denied at once" \
    "SELECT singletable.put_item('lk', '{\"pk\": \"b\", \"sk\": \"1\"}')"
refused "put_item on pg_catalog.pg_database under SHARE: denied at once" \
    "SELECT singletable.put_item('pg_catalog.pg_database', '{\"pk\": \"b\", \"sk\": \"1\"}')"
refused "delete_item on an item table under SHARE: denied at once" \
    "SELECT singletable.delete_item('lk', 'a', '1')"
refused "update_item on an item table under SHARE: denied at once" \
    "SELECT singletable.update_item('lk', 'a', '1', 'SET v = :v', vals => '{\":v\": 1}')"
refused "get_item on an item table under ACCESS EXCLUSIVE: denied at once" \
    "SELECT singletable.get_item('lk_excl', 'a', '1')"
refused "query on an item table under ACCESS EXCLUSIVE: denied at once" \
    "SELECT * FROM singletable.query('lk_excl', 'a')"
refused "describe_table on an item table under ACCESS EXCLUSIVE: denied at once" \
    "SELECT singletable.describe_table('lk_excl')"
refused "drop_table of an item table under ACCESS EXCLUSIVE: denied at once" \
    "SELECT singletable.drop_table('lk_excl')"
refused "transact_write on an item table under SHARE: denied at once" \
    "SELECT singletable.transact_write('[{\"Put\": {\"TableName\": \"lk\", \"Item\": {\"pk\": \"b\", \"sk\": \"1\"}}}]')"
refused "transact_get on an item table under ACCESS EXCLUSIVE: denied at once" \
    "SELECT singletable.transact_get('[{\"Get\": {\"TableName\": \"lk_excl\", \"Key\": {\"pk\": \"a\", \"sk\": \"1\"}}}]')"
# a role that may read lk_ddb but not write it: dynamodb()'s writes check the write rights
# before any lock beyond the ACCESS SHARE its SELECT allows
refused "dynamodb PutItem by a reader under SHARE: denied at once" \
    "SELECT singletable.dynamodb('PutItem', '{\"TableName\": \"lk_ddb\", \"Item\": {\"pk\": {\"S\": \"b\"}, \"sk\": {\"S\": \"1\"}}}')" "$READER"
refused "dynamodb UpdateItem by a reader under SHARE: denied at once" \
    "SELECT singletable.dynamodb('UpdateItem', '{\"TableName\": \"lk_ddb\", \"Key\": {\"pk\": {\"S\": \"a\"}, \"sk\": {\"S\": \"1\"}}}')" "$READER"
refused "dynamodb DeleteItem by a reader under SHARE: denied at once" \
    "SELECT singletable.dynamodb('DeleteItem', '{\"TableName\": \"lk_ddb\", \"Key\": {\"pk\": {\"S\": \"a\"}, \"sk\": {\"S\": \"1\"}}}')" "$READER"
refused "dynamodb BatchWriteItem by a reader under SHARE: denied at once" \
    "SELECT singletable.dynamodb('BatchWriteItem', '{\"RequestItems\": {\"lk_ddb\": [{\"PutRequest\": {\"Item\": {\"pk\": {\"S\": \"b\"}, \"sk\": {\"S\": \"1\"}}}}]}}')" "$READER"
refused "dynamodb TransactWriteItems by a reader under SHARE: denied at once" \
    "SELECT singletable.dynamodb('TransactWriteItems', '{\"TransactItems\": [{\"Put\": {\"TableName\": \"lk_ddb\", \"Item\": {\"pk\": {\"S\": \"b\"}, \"sk\": {\"S\": \"1\"}}}}]}')" "$READER"

# With the rights the same call waits for A: the checks above are not vacuous.
if out=$(PGOPTIONS="-c lock_timeout=200ms" q "$DB" 2>&1 <<<"SELECT singletable.get_item('lk_excl', 'a', '1')"); then
    not_ok "the owner's get_item on lk_excl waits for A's lock"
    diag "it did not wait:" "$out"
elif [[ $out == *"lock timeout"* ]]; then
    ok "the owner's get_item on lk_excl waits for A's lock"
else
    not_ok "the owner's get_item on lk_excl waits for A's lock"
    diag "$out"
fi

session_run A "ROLLBACK;" >/dev/null
session_stop A

echo "1..$N"
if ((FAILURES == 0)) && [[ ${ST_KEEP:-0} != 1 ]]; then
    q postgres >/dev/null 2>&1 <<<"DROP DATABASE $DB; DROP ROLE $NOBODY; DROP ROLE $READER;"
fi
if ((FAILURES > 0)); then
    diag "$FAILURES of $N checks failed"
    exit 1
fi
exit 0
