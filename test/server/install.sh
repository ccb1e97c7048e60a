#!/usr/bin/env bash
# test/server/install.sh: CREATE EXTENSION singletable in fresh databases.
#
# The install script refuses a pre-existing schema "singletable" that could hold objects
# capturing other roles' calls (SQLSTATE 42P06, naming the schema and its owner):
#   * one created by a non-superuser role;
#   * one owned by a superuser that grants CREATE (or a grant option) to another role;
#   * one owned by a superuser that already holds an object (a planted put_item);
# and accepts one owned by a superuser that is empty and grants nothing but USAGE, as
# DROP EXTENSION leaves it behind. (A schema created by pg_dump's CREATE SCHEMA is
# covered by test/server/dump_restore.sh.)
# In a database that is not UTF8, prefix_upper_bound(text) is an error (0A000), as its
# bound is defined in UTF-8 byte order.
#
# Prints one TAP line per check ("ok N - ..." / "not ok N - ...", details as "# ..." lines)
# and exits non-zero when a check failed. test/run.sh runs it against its test server;
# run by hand without ST_DIR set, it starts a throwaway server itself (the extension must
# be installed: make install). ST_KEEP=1 keeps the databases and the role for inspection.
set -uo pipefail

# shellcheck source=test/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
DB=singletable_install
ASCII_DB=singletable_install_ascii
ROLE=singletable_install_mallory

if ! out=$(q postgres 2>&1 <<EOF
SET client_min_messages = warning;
DROP DATABASE IF EXISTS $DB;
DROP DATABASE IF EXISTS $ASCII_DB;
DROP ROLE IF EXISTS $ROLE;
CREATE ROLE $ROLE;
CREATE DATABASE $DB;
GRANT CREATE ON DATABASE $DB TO $ROLE;
CREATE DATABASE $ASCII_DB ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
EOF
); then
    not_ok "create the databases and the role"
    diag "$out"
    bail "no databases"
fi

# pg_temp.outcome(SQL): "ok", or the error's "SQLSTATE: message / hint";
# pg_temp.detail(SQL): "ok", or the error's "SQLSTATE: detail".
OUTCOME_FN=$(cat <<'EOF'
CREATE FUNCTION pg_temp.outcome(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    st text; msg text; hint text;
BEGIN
    EXECUTE stmt;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
    RETURN st || ': ' || msg || coalesce(' / ' || nullif(hint, ''), '');
END $$;
CREATE FUNCTION pg_temp.detail(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    st text; detail text;
BEGIN
    EXECUTE stmt;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, detail = PG_EXCEPTION_DETAIL;
    RETURN st || ': ' || detail;
END $$;
EOF
)

HINT='Drop or rename the existing schema "singletable", or make it an empty schema owned by a superuser that grants no privilege other than USAGE to other roles; then run CREATE EXTENSION singletable again.'

# outcome DESC EXPECTED SETUP: runs the SQL SETUP, then CREATE EXTENSION singletable in
# database DB; ok when its outcome (see pg_temp.outcome) is EXPECTED.
outcome() {
    local desc=$1 expected=$2 setup=$3
    expect "$DB" "$desc" "$expected" "$OUTCOME_FN
$setup
SELECT pg_temp.outcome('CREATE EXTENSION singletable');"
}

outcome "a schema singletable created by a non-superuser is refused, naming its owner" \
    "42P06: existing schema \"singletable\" is owned by role \"$ROLE\", which is not a superuser / $HINT" \
    "SET ROLE $ROLE; CREATE SCHEMA singletable; RESET ROLE;"

outcome "a superuser's schema singletable that grants CREATE to another role is refused" \
    "42P06: existing schema \"singletable\" of role \"postgres\" grants privileges to other roles / $HINT" \
    "ALTER SCHEMA singletable OWNER TO postgres; GRANT CREATE ON SCHEMA singletable TO $ROLE;"

outcome "a superuser's schema singletable that grants USAGE with grant option is refused" \
    "42P06: existing schema \"singletable\" of role \"postgres\" grants privileges to other roles / $HINT" \
    "REVOKE CREATE ON SCHEMA singletable FROM $ROLE;
     GRANT USAGE ON SCHEMA singletable TO $ROLE WITH GRANT OPTION;"

outcome "a superuser's schema singletable with a planted function is refused" \
    "42P06: existing schema \"singletable\" of role \"postgres\" is not empty / $HINT" \
    "REVOKE ALL ON SCHEMA singletable FROM $ROLE CASCADE;
     CREATE FUNCTION singletable.put_item(table_name text, item jsonb) RETURNS jsonb
         LANGUAGE sql AS 'SELECT NULL::jsonb';"

expect "$DB" "the refusals say which objects the schema holds and what it grants" \
    "42P06: It contains function put_item(text,jsonb).
42P06: Granted: CREATE to $ROLE. Other roles may have USAGE and nothing else: with CREATE they could create objects in it that capture the calls of other roles." \
    "$OUTCOME_FN
SELECT pg_temp.detail('CREATE EXTENSION singletable');
DROP FUNCTION singletable.put_item(text, jsonb);
GRANT CREATE ON SCHEMA singletable TO $ROLE;
SELECT pg_temp.detail('CREATE EXTENSION singletable');
REVOKE CREATE ON SCHEMA singletable FROM $ROLE;"

outcome "an empty superuser's schema singletable granting USAGE to PUBLIC is accepted" \
    "ok" \
    "GRANT USAGE ON SCHEMA singletable TO PUBLIC;"

expect "$DB" "DROP EXTENSION leaves the schema behind, and CREATE EXTENSION accepts it again" \
    "{postgres=UC/postgres,=U/postgres}
ok
0.2.0" \
    "$OUTCOME_FN
DROP EXTENSION singletable;
SELECT nspacl FROM pg_catalog.pg_namespace WHERE nspname = 'singletable';
SELECT pg_temp.outcome('CREATE EXTENSION singletable');
SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'singletable';"

expect "$ASCII_DB" "in a SQL_ASCII database, prefix_upper_bound(text) is an error; bytea works" \
    "0A000: singletable.prefix_upper_bound(text) requires a UTF8 database, not SQL_ASCII
\\x0103" \
    "$OUTCOME_FN
CREATE EXTENSION singletable;
SELECT pg_temp.outcome('SELECT singletable.prefix_upper_bound(''a''::text)');
SELECT singletable.prefix_upper_bound('\\x0102'::bytea);"

#
# Done
#
echo "1..$N"
if ((FAILURES == 0)) && [[ ${ST_KEEP:-0} != 1 ]]; then
    q postgres >/dev/null 2>&1 <<<"DROP DATABASE $DB; DROP DATABASE $ASCII_DB; DROP ROLE $ROLE;"
else
    diag "the databases $DB and $ASCII_DB and the role $ROLE were kept for inspection"
fi
if ((FAILURES > 0)); then
    diag "$FAILURES of $N checks failed"
    exit 1
fi
exit 0
