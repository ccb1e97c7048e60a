#!/usr/bin/env bash
# test/server/dump_restore.sh: pg_dump / restore of a database that uses singletable.
#
# Creates a database with item tables of every key shape (S/S, N/N, B/B, partition key
# only), one in another schema, one renamed and one moved by ALTER TABLE after items were
# written, and one dropped by plain SQL; dumps it with pg_dump (plain SQL) and restores the
# dump with psql into a fresh database. Then checks that the registry singletable.tables,
# the tables' key columns, describe_table, get_item and query are the same in both
# databases (entity views too: their rows, triggers and index range), and that put_item,
# delete_item, create_table, drop_table and writes through an entity view work in the
# restored one.
#
# Prints one TAP line per check ("ok N - ..." / "not ok N - ...", details as "# ..." lines)
# and exits non-zero when a check failed. test/run.sh runs it against its test server
# (PGHOST, PGPORT, PGUSER from test/lib.sh's st_start_server); run by hand without ST_DIR
# set, it starts a throwaway server itself (the extension must be installed: make install).
# ST_KEEP=1 keeps the two databases (and a server it started) for inspection.
set -uo pipefail

# shellcheck source=test/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
SRC=singletable_dump_src
DST=singletable_dump_dst

# same DESC SQL [PATTERN]: runs SQL in the source and in the restored database. ok when it
# succeeds in both with the same, non-empty output, of which every line of the source's
# matches the extended regular expression PATTERN (when given).
same() {
    local desc=$1 sql=$2 pattern=${3:-} src dst
    if ! src=$(q "$SRC" <<<"$sql" 2>&1); then
        not_ok "$desc"
        diag "failed in the source database:" "$src"
        return
    fi
    if ! dst=$(q "$DST" <<<"$sql" 2>&1); then
        not_ok "$desc"
        diag "failed in the restored database:" "$dst"
        return
    fi
    if [[ -z $src ]]; then
        not_ok "$desc"
        diag "no output in the source database (the test itself is wrong):" "$sql"
        return
    fi
    if [[ -n $pattern ]] && grep -Evq -- "$pattern" <<<"$src"; then
        not_ok "$desc"
        diag "unexpected output in the source database (the test itself is wrong):" \
            "$(grep -Ev -- "$pattern" <<<"$src")"
        return
    fi
    if [[ $src != "$dst" ]]; then
        not_ok "$desc"
        diag "output differs (< source, > restored):"
        diff <(echo "$src") <(echo "$dst") | diag
        return
    fi
    ok "$desc"
}

#
# The source database
#
if ! out=$(q postgres 2>&1 <<EOF
SET client_min_messages = warning;
DROP DATABASE IF EXISTS $SRC;
DROP DATABASE IF EXISTS $DST;
CREATE DATABASE $SRC;
EOF
); then
    not_ok "create the source database"
    diag "$out"
    bail "no source database"
fi

if out=$(q "$SRC" 2>&1 <<'EOF'
SET client_min_messages = warning;
CREATE EXTENSION singletable;
CREATE SCHEMA app;

-- S/S, the defaults
SELECT singletable.create_table('dr_s');
SELECT count(*) FROM (
  SELECT singletable.put_item('dr_s', '{"pk": "USER#1", "sk": "PROFILE", "name": "Ada", "tags": ["a", "b"], "active": true, "nick": null, "addr": {"city": "Tokyo"}}')
  UNION ALL SELECT singletable.put_item('dr_s', '{"pk": "USER#1", "sk": "ORDER#1", "total": 12.50}')
  UNION ALL SELECT singletable.put_item('dr_s', '{"pk": "USER#1", "sk": "ORDER#2", "total": 1e3}')
  UNION ALL SELECT singletable.put_item('dr_s', '{"pk": "USER#2", "sk": "PROFILE", "name": "Bob"}')
  UNION ALL SELECT singletable.put_item('dr_s', '{"pk": "é😀", "sk": "Ω", "unicode": "ÿ"}')) s;
-- a sparse global secondary index on it: its registry row, btree index and queries are restored
SELECT singletable.create_gsi('dr_s', 'by-name', 'name', 'pk', projection => 'INCLUDE',
                              non_key_attributes => ARRAY['tags']);
-- a local secondary index and a multi-attribute GSI
SELECT singletable.create_lsi('dr_s', 'by-total', 'total', 'N');
SELECT singletable.create_gsi('dr_s', 'by-name-active', 'name,active2', 'sk', partition_key_type => 'S,N');
SELECT singletable.put_item('dr_s', '{"pk": "USER#3", "sk": "PROFILE", "name": "Cy", "active2": 1}');
-- a TTL setting: its registry row and partial index are restored
SELECT singletable.enable_ttl('dr_s', 'exp');
SELECT singletable.put_item('dr_s', '{"pk": "USER#4", "sk": "SESSION", "exp": 1000000000}');
SELECT singletable.put_item('dr_s', '{"pk": "USER#4", "sk": "SESSION2", "exp": 4000000000}');
-- entities: their registry rows are restored, and entity_of reads them
SELECT singletable.define_entity('dr_s', 'User', pk => 'USER#{userId}', sk => 'PROFILE', attributes => '{"name": "S"}');
SELECT singletable.define_entity('dr_s', 'Session', pk => 'USER#{userId}', sk => 'SESSION{n}');
-- entity views: the views, their INSTEAD OF triggers and their registry row are restored
SELECT count(*) FROM singletable.create_entity_views('dr_s');
-- a transact_write with a ClientRequestToken: its row (role by name) is dumped and restored
SELECT singletable.transact_write('[{"Update": {"TableName": "dr_s", "Key": {"pk": "USER#2", "sk": "PROFILE"},
  "UpdateExpression": "ADD visits :one", "ExpressionAttributeValues": {":one": 1}}}]', 'dump-token') IS NOT NULL;
-- describe_table's index ItemCount is the estimate: the same in both databases once analyzed.
-- ANALYZE sets the live-row count that ItemCount reads; this session's writes not yet
-- reported to the cumulative statistics would be added on top of it afterwards (PostgreSQL
-- reports them within a second), so they are reported first.
SELECT pg_stat_force_next_flush();
ANALYZE dr_s;

-- N/N, with key attributes of its own
SELECT singletable.create_table('dr_n', partition_key => 'acct', sort_key => 'seq',
                                partition_key_type => 'N', sort_key_type => 'N');
SELECT count(*) FROM (
  SELECT singletable.put_item('dr_n', jsonb_build_object('acct', 1, 'seq', v::numeric, 'v', v))
    FROM unnest(ARRAY['-1.5', '0', '10', '1e3', '0.001']) v
  UNION ALL SELECT singletable.put_item('dr_n', '{"acct": 2.50, "seq": 1, "big": 99999999999999999999999999999999999999}')) s;

-- B/B
SELECT singletable.create_table('dr_b', partition_key_type => 'B', sort_key_type => 'B');
SELECT count(*) FROM (
  SELECT singletable.put_item('dr_b', jsonb_build_object('pk', 'AQI=', 'sk', v, 'v', v))
    FROM unnest(ARRAY['AA==', '/w==', 'gA==', 'AAA=']) v
  UNION ALL SELECT singletable.put_item('dr_b', '{"pk": "/w==", "sk": "AQ=="}')) s;

-- partition key only
SELECT singletable.create_table('dr_pk', sort_key => NULL);
SELECT count(*) FROM (
  SELECT singletable.put_item('dr_pk', '{"pk": "only", "v": 1}')
  UNION ALL SELECT singletable.put_item('dr_pk', '{"pk": "two", "v": [1, 2]}')) s;

-- another schema, a name that needs quoting, a sort key name with a space
SELECT singletable.create_table('app."Orders"', partition_key => 'tenant', sort_key => 'order id',
                                sort_key_type => 'N');
SELECT count(*) FROM (
  SELECT singletable.put_item('app."Orders"', jsonb_build_object('tenant', 'acme', 'order id', i, 'qty', i * 2))
    FROM generate_series(1, 3) i
  UNION ALL SELECT singletable.put_item('app."Orders"', '{"tenant": "acme", "order id": 10}')) s;

-- renamed by ALTER TABLE, with items written before and after the rename
SELECT singletable.create_table('dr_before');
SELECT count(*) FROM (
  SELECT singletable.put_item('dr_before', '{"pk": "P", "sk": "a", "v": 1}')
  UNION ALL SELECT singletable.put_item('dr_before', '{"pk": "P", "sk": "b", "v": 1}')) s;
ALTER TABLE dr_before RENAME TO dr_renamed;
SELECT count(*) FROM (
  SELECT singletable.put_item('dr_renamed', '{"pk": "P", "sk": "a", "v": 2}')
  UNION ALL SELECT singletable.put_item('dr_renamed', '{"pk": "P", "sk": "c", "v": 2}')) s;

-- moved to another schema by ALTER TABLE
SELECT singletable.create_table('dr_moved', sort_key_type => 'N');
SELECT singletable.put_item('dr_moved', '{"pk": "M", "sk": 1}');
ALTER TABLE dr_moved SET SCHEMA app;
SELECT singletable.put_item('app.dr_moved', '{"pk": "M", "sk": 2}');

-- dropped by plain SQL: its registry row goes with it, so nothing dangles in the dump
SELECT singletable.create_table('dr_gone');
SELECT singletable.put_item('dr_gone', '{"pk": "G", "sk": "G"}');
DROP TABLE dr_gone;
EOF
); then
    ok "source database: CREATE EXTENSION, create_table and put_item"
else
    not_ok "source database: CREATE EXTENSION, create_table and put_item"
    diag "$out"
    bail "no source database"
fi

TABLES='app."Orders"
app.dr_moved
dr_b
dr_n
dr_pk
dr_renamed
dr_s'
REGISTRY_SQL="SELECT table_name::text FROM singletable.tables ORDER BY 1"
if out=$(q "$SRC" <<<"$REGISTRY_SQL" 2>&1) && [[ $out == "$TABLES" ]]; then
    ok "source database: the registry lists the 7 tables under their current names"
else
    not_ok "source database: the registry lists the 7 tables under their current names"
    diag "expected:" "$TABLES" "got:" "$out"
fi

# prefix_upper_bound's results stored in a text column, those without successor (about
# 700 KB each) included: text an SQL function returns must dump and restore.
BOUNDS_SQL="SELECT p, octet_length(u), md5(u), octet_length(convert_to(u, 'UTF8')) = octet_length(u)
              FROM public.bounds ORDER BY p COLLATE \"C\""
if out=$(q "$SRC" 2>&1 <<'EOF'
CREATE TABLE public.bounds (p text PRIMARY KEY, u text NOT NULL);
INSERT INTO public.bounds
SELECT p, singletable.prefix_upper_bound(p)
  FROM unnest(ARRAY['', 'a', 'POST#', E'a\u007f', E'a\u07ff', E'a\uffff', E'a\ud7ff', 'é', '日本', '😀',
                    E'a\U0010ffff', E'\U0010ffff', E'\U0010ffff\U0010ffff']) p;
EOF
); then
    ok "source database: a table of prefix_upper_bound results"
else
    not_ok "source database: a table of prefix_upper_bound results"
    diag "$out"
fi

#
# Dump and restore
#
if out=$("$PGBIN/pg_dump" -d "$SRC" -f "$WORK/dump.sql" 2>&1); then
    ok "pg_dump of the source database"
else
    not_ok "pg_dump of the source database"
    diag "$out"
    bail "no dump"
fi

if ! out=$(q postgres 2>&1 <<<"CREATE DATABASE $DST TEMPLATE template0"); then
    not_ok "restore the dump into a fresh database with psql"
    diag "$out"
    bail "no database to restore into"
fi
# Any message on stderr (an error, a warning, a notice) is a failure of the restore.
if "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$DST" -f "$WORK/dump.sql" \
        >"$WORK/restore.out" 2>"$WORK/restore.err" && [[ ! -s $WORK/restore.err ]]; then
    ok "restore the dump into a fresh database with psql"
else
    not_ok "restore the dump into a fresh database with psql"
    diag <"$WORK/restore.err"
    bail "restore failed"
fi

# The extension's schema: pg_dump creates it before CREATE EXTENSION, which then finds it
# existing; the install script's check accepts it (owned by a superuser, no privileges
# granted yet - they come at the end of the dump - and empty), or the restore above failed.
if grep -qx 'CREATE SCHEMA singletable;' "$WORK/dump.sql" &&
        grep -q '^CREATE EXTENSION IF NOT EXISTS singletable WITH SCHEMA singletable;' "$WORK/dump.sql"; then
    ok "the dump creates schema singletable itself, and CREATE EXTENSION accepts it on restore"
else
    not_ok "the dump creates schema singletable itself, and CREATE EXTENSION accepts it on restore"
    diag "$(grep -n -i -E 'schema singletable|extension' "$WORK/dump.sql")"
fi

same "prefix_upper_bound results stored in a table are restored, and are valid UTF-8" \
    "$BOUNDS_SQL" '\|t$'

same "schema singletable has the same owner and privileges" \
    "SELECT nspowner::regrole, nspacl FROM pg_catalog.pg_namespace WHERE nspname = 'singletable'"

# pg_restore of a custom-format dump: it also runs CREATE SCHEMA before CREATE EXTENSION,
# and restores privileges last.
DST2=singletable_dump_dst2
if out=$(q postgres 2>&1 <<<"DROP DATABASE IF EXISTS $DST2; CREATE DATABASE $DST2 TEMPLATE template0") &&
        out=$("$PGBIN/pg_dump" -Fc -d "$SRC" -f "$WORK/dump.custom" 2>&1) &&
        out=$("$PGBIN/pg_restore" --exit-on-error -d "$DST2" "$WORK/dump.custom" 2>&1) &&
        [[ -z $out ]]; then
    ok "pg_restore of a custom-format dump into a fresh database"
else
    not_ok "pg_restore of a custom-format dump into a fresh database"
    diag "$out"
fi
expect "$DST2" "pg_restore: the registry, the items and the stored bounds are there" \
    "$(q "$SRC" <<<"$REGISTRY_SQL; SELECT * FROM singletable.query('dr_s', 'USER#1'); $BOUNDS_SQL" 2>&1)" \
    "$REGISTRY_SQL; SELECT * FROM singletable.query('dr_s', 'USER#1'); $BOUNDS_SQL"
if ((FAILURES == 0)) && [[ ${ST_KEEP:-0} != 1 ]]; then
    q postgres >/dev/null 2>&1 <<<"DROP DATABASE $DST2"
fi

#
# The restored database has the same tables and items
#
same "singletable.tables has the same rows (by table name)" \
    "SELECT table_name::text, partition_key, partition_key_type, sort_key, sort_key_type, created_at
       FROM singletable.tables ORDER BY 1"

same "the item tables have the same columns, collations and primary keys" \
    "SELECT c.oid::regclass::text, a.attnum, a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod),
            a.attcollation::regcollation, a.attnotnull,
            (SELECT pg_catalog.pg_get_constraintdef(k.oid) FROM pg_catalog.pg_constraint k
              WHERE k.conrelid = c.oid AND k.contype = 'p')
       FROM singletable.tables t JOIN pg_catalog.pg_class c ON c.oid = t.table_name
       JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY 1, 2"

same "singletable.indexes has the same rows" \
    "SELECT table_name::text, index_name, index_type, partition_key, partition_key_type, sort_key, sort_key_type,
            projection, non_key_attributes, pg_index, status, build_error, created_at
       FROM singletable.indexes ORDER BY 1, 2" '^dr_s\|by-(name|total|name-active)\|(GSI|LSI)\|.*\|ACTIVE\|'

same "the secondary index is restored as the same partial btree index" \
    "SELECT pg_catalog.pg_get_indexdef(c.oid) FROM singletable.indexes i
       JOIN pg_catalog.pg_class c ON c.relname = i.pg_index ORDER BY 1" 'WHERE'

same "query by index_name returns the same rows (INCLUDE projection)" \
    "SELECT pk, sk, item FROM singletable.query('dr_s', 'Ada', index_name => 'by-name')" 'USER#1'

same "singletable.ttl has the same rows and the TTL index is the same" \
    "SELECT t.table_name::text, t.attribute_name, t.ttl_index, t.enabled_at, pg_catalog.replace(pg_catalog.pg_get_indexdef(c.oid), E'\n', ' ')
       FROM singletable.ttl t JOIN pg_catalog.pg_class c ON c.relname = t.ttl_index" '^dr_s\|exp\|dr_s_ttl\|'

same "singletable.entities has the same rows, and entity_of tells the same entities" \
    "SELECT e.table_name::text, e.entity, e.pk_template, e.sk_template, e.index_templates, e.attributes, e.created_at,
            singletable.entity_of(e.table_name, 'USER#1', 'PROFILE')
       FROM singletable.entities e ORDER BY 2" '^dr_s\|(User|Session)\|USER#'

same "entity views are restored: their rows, their triggers and singletable.entity_views" \
    "SELECT \"userId\", name, sk FROM dr_s_user ORDER BY 1;
     SELECT n, sk FROM dr_s_session ORDER BY 1;
     SELECT v.table_name::text, v.view_schema, v.created_at IS NOT NULL,
            (SELECT count(*) FROM pg_catalog.pg_trigger t
              WHERE t.tgrelid IN ('dr_s_user'::regclass, 'dr_s_session'::regclass))
       FROM singletable.entity_views v" '^([0-9]\|[A-Za-z]+\|PROFILE|2\|SESSION2|dr_s\|public\|t\|2)$'

same "reads hide the same expired items; include_expired shows them" \
    "SELECT sk, singletable.get_item('dr_s', 'USER#4', sk) IS NULL, singletable.get_item('dr_s', 'USER#4', sk, include_expired => true) IS NULL
       FROM unnest(ARRAY['SESSION', 'SESSION2']) sk" 'SESSION'

same "ttl_status shows the same backlog" \
    "SELECT table_name::text, attribute_name, backlog FROM singletable.ttl_status" '^dr_s\|'

same "query of the LSI returns the same rows" \
    "SELECT pk, sk, item FROM singletable.query('dr_s', 'USER#1', index_name => 'by-total')" 'USER#1'

same "query of the multi-attribute GSI by key_condition returns the same rows" \
    "SELECT pk, sk FROM singletable.query('dr_s', key_condition => '#n = :n AND active2 = :a',
            names => '{\"#n\": \"name\"}', vals => '{\":n\": \"Cy\", \":a\": 1}', index_name => 'by-name-active')" 'USER#3'

same "query by index_name is an Index Scan on the restored index" \
    "SELECT e FROM singletable.explain_query('dr_s', 'Bob', index_name => 'by-name') e
      WHERE e LIKE '%Index%'" 'Index'

same "singletable.client_request_tokens has the same rows (the role by name)" \
    "SELECT role, token, request_hash, response, created_at FROM singletable.client_request_tokens ORDER BY 1, 2" \
    '^[^|]+\|dump-token\|'

expect "$DST" "a transact_write with the restored token replays its response and writes nothing" "t
1" \
    "SELECT singletable.transact_write('[{\"Update\": {\"TableName\": \"dr_s\", \"Key\": {\"pk\": \"USER#2\", \"sk\": \"PROFILE\"},
       \"UpdateExpression\": \"ADD visits :one\", \"ExpressionAttributeValues\": {\":one\": 1}}}]', 'dump-token')
       = (SELECT response FROM singletable.client_request_tokens WHERE token = 'dump-token');
     SELECT singletable.get_item('dr_s', 'USER#2', 'PROFILE') ->> 'visits'"

same "describe_table is the same for every table" \
    "SELECT t.table_name::text, singletable.describe_table(t.table_name::text) - 'TableSizeBytes' - 'ItemCount'
       FROM singletable.tables t ORDER BY 1"

# get_item of every item, by key arguments as a client gives them (N as decimal text, B as
# base64); each line of the source's output must show an item, not NULL.
declare -A GET QUERY
GET[dr_s]="SELECT pk, sk, singletable.get_item('dr_s', pk, sk) FROM (VALUES
    ('USER#1', 'PROFILE'), ('USER#1', 'ORDER#1'), ('USER#1', 'ORDER#2'), ('USER#2', 'PROFILE'),
    ('é😀', 'Ω')) v(pk, sk) ORDER BY 1, 2"
GET[dr_n]="SELECT pk, sk, singletable.get_item('dr_n', pk, sk) FROM (VALUES
    ('1', '-1.5'), ('1', '0'), ('1', '10'), ('1', '1000'), ('1', '1e-3'), ('2.5', '1')) v(pk, sk) ORDER BY 1, 2"
GET[dr_b]="SELECT pk, sk, singletable.get_item('dr_b', pk, sk) FROM (VALUES
    ('AQI=', 'AA=='), ('AQI=', '/w=='), ('AQI=', 'gA=='), ('AQI=', 'AAA='), ('/w==', 'AQ==')) v(pk, sk) ORDER BY 1, 2"
GET[dr_pk]="SELECT pk, singletable.get_item('dr_pk', pk) FROM (VALUES ('only'), ('two')) v(pk) ORDER BY 1"
GET[app.\"Orders\"]="SELECT pk, sk, singletable.get_item('app.\"Orders\"', pk, sk) FROM (VALUES
    ('acme', '1'), ('acme', '2'), ('acme', '3'), ('acme', '10')) v(pk, sk) ORDER BY 1, 2"
GET[dr_renamed]="SELECT pk, sk, singletable.get_item('dr_renamed', pk, sk) FROM (VALUES
    ('P', 'a'), ('P', 'b'), ('P', 'c')) v(pk, sk) ORDER BY 1, 2"
GET[app.dr_moved]="SELECT pk, sk, singletable.get_item('app.dr_moved', pk, sk) FROM (VALUES
    ('M', '1'), ('M', '2')) v(pk, sk) ORDER BY 1, 2"

# query of each item collection, whole and with key conditions, both directions, paged.
# dr_s holds items of no entity (ORDER#..., the Unicode keys) on purpose: no typo check there.
QUERY[dr_s]="SET singletable.prefix_check = off;
SELECT * FROM singletable.query('dr_s', 'USER#1');
SELECT * FROM singletable.query('dr_s', 'USER#1', 'begins_with', 'ORDER#', forward => false);
SELECT * FROM singletable.query('dr_s', 'USER#2');
SELECT * FROM singletable.query('dr_s', 'é😀', '=', 'Ω')"
QUERY[dr_n]="SELECT * FROM singletable.query('dr_n', '1');
SELECT * FROM singletable.query('dr_n', '1', 'between', '-2', '10');
SELECT * FROM singletable.query('dr_n', '1', forward => false, max_items => 2, exclusive_start_sk => '1000');
SELECT * FROM singletable.query('dr_n', '2.50')"
QUERY[dr_b]="SELECT * FROM singletable.query('dr_b', 'AQI=');
SELECT * FROM singletable.query('dr_b', 'AQI=', 'begins_with', 'AA==');
SELECT * FROM singletable.query('dr_b', '/w==', '>', 'AA==')"
QUERY[dr_pk]="SELECT * FROM singletable.query('dr_pk', 'only');
SELECT * FROM singletable.query('dr_pk', 'two')"
QUERY[app.\"Orders\"]="SELECT * FROM singletable.query('app.\"Orders\"', 'acme');
SELECT * FROM singletable.query('app.\"Orders\"', 'acme', '>=', '2', max_items => 2)"
QUERY[dr_renamed]="SELECT * FROM singletable.query('dr_renamed', 'P');
SELECT * FROM singletable.query('dr_renamed', 'P', '<', 'c', forward => false)"
QUERY[app.dr_moved]="SELECT * FROM singletable.query('app.dr_moved', 'M')"

while read -r t; do
    same "get_item returns the same items from $t" "${GET[$t]}" '\|\{.*\}$'
    same "query returns the same items from $t" "${QUERY[$t]}" '\|\{.*\}$'
done <<<"$TABLES"

#
# Writes work in the restored database
#
# pg_temp.check_writes(t, existing key, existing item, new item, new key) runs put_item,
# get_item and delete_item on table t and returns 'ok' or what went wrong (errors included).
# The existing item is what get_item returned in the source database.
CHECK_WRITES_FN=$(cat <<'EOF'
CREATE FUNCTION pg_temp.check_writes(t text, pk text, sk text, existing jsonb,
                                     fresh jsonb, fresh_pk text, fresh_sk text)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r jsonb;
    changed jsonb := existing || '{"changed": true}';
    fresh2 jsonb := fresh || '{"v": 2}';
BEGIN
    r := singletable.put_item(t, changed, return_values => 'ALL_OLD');
    IF r IS DISTINCT FROM existing THEN
        RETURN format('put_item over a restored item returned %s, not %s', r, existing);
    END IF;
    r := singletable.get_item(t, pk, sk);
    IF r IS DISTINCT FROM changed THEN
        RETURN format('get_item after put_item returned %s, not %s', r, changed);
    END IF;
    r := singletable.put_item(t, fresh);
    IF r IS NOT NULL THEN
        RETURN format('put_item of a new item returned %s, not NULL', r);
    END IF;
    r := singletable.get_item(t, fresh_pk, fresh_sk);
    IF r IS DISTINCT FROM fresh THEN
        RETURN format('get_item after put_item of a new item returned %s, not %s', r, fresh);
    END IF;
    r := singletable.put_item(t, fresh2, return_values => 'ALL_OLD');
    IF r IS DISTINCT FROM fresh THEN
        RETURN format('second put_item of the new item returned %s, not %s', r, fresh);
    END IF;
    r := singletable.delete_item(t, fresh_pk, fresh_sk, return_values => 'ALL_OLD');
    IF r IS DISTINCT FROM fresh2 THEN
        RETURN format('delete_item returned %s, not %s', r, fresh2);
    END IF;
    r := singletable.get_item(t, fresh_pk, fresh_sk);
    IF r IS NOT NULL THEN
        RETURN format('get_item after delete_item returned %s, not NULL', r);
    END IF;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN 'error: ' || SQLERRM;
END;
$$;
EOF
)

# check_writes T PK SK NEW_ITEM NEW_PK NEW_SK (SK, NEW_SK: the SQL literal or NULL)
check_writes() {
    local t=$1 pk=$2 sk=$3 fresh=$4 fresh_pk=$5 fresh_sk=$6 existing out
    local tl="'${t//\'/\'\'}'"
    if ! existing=$(q "$SRC" <<<"SELECT singletable.get_item($tl, '$pk', $sk)" 2>&1) || [[ -z $existing ]]; then
        not_ok "put_item, get_item and delete_item work on $t in the restored database"
        diag "could not read the item to overwrite from the source database:" "$existing"
        return
    fi
    expect "$DST" "put_item, get_item and delete_item work on $t in the restored database" "ok" \
        "$CHECK_WRITES_FN
SELECT pg_temp.check_writes($tl, '$pk', $sk, '${existing//\'/\'\'}', '$fresh', '$fresh_pk', $fresh_sk)"
}

check_writes dr_s 'USER#1' "'PROFILE'" '{"pk": "USER#3", "sk": "PROFILE", "name": "Cy"}' 'USER#3' "'PROFILE'"
check_writes dr_n 1 "'1e3'" '{"acct": 3, "seq": -7.25}' 3 "'-7.25'"
check_writes dr_b 'AQI=' "'/w=='" '{"pk": "AAEC", "sk": "Aw=="}' 'AAEC' "'Aw=='"
check_writes dr_pk only NULL '{"pk": "three"}' three NULL
check_writes 'app."Orders"' acme "'10'" '{"tenant": "zeta", "order id": 1}' zeta "'1'"
check_writes dr_renamed P "'a'" '{"pk": "Q", "sk": "a"}' Q "'a'"
check_writes app.dr_moved M "'2'" '{"pk": "M", "sk": 3}' M "'3'"

# a new session: the planner loads the library for the view's index range (the table
# being small and analysed, with enable_seqscan off)
expect "$DST" "a write through a restored entity view, and its read is an index range" \
    "USER#9|PROFILE
Dee|t" \
    "INSERT INTO dr_s_user (\"userId\", name) VALUES ('9', 'Dee') RETURNING pk, sk;
     CREATE FUNCTION pg_temp.plan() RETURNS SETOF text LANGUAGE plpgsql AS
       \$\$ BEGIN RETURN QUERY EXPLAIN (COSTS OFF) SELECT name FROM dr_s_user WHERE \"userId\" = '9'; END \$\$;
     SET enable_seqscan = off;  -- the table is small and analysed
     SELECT (SELECT name FROM dr_s_user WHERE \"userId\" = '9'),
            (SELECT bool_or(p LIKE '%Index Cond:%pk = ''USER#9''%') FROM pg_temp.plan() p)"

expect "$DST" "create_table and put_item of a new table work in the restored database" \
    "app.new_table
t
t|1" \
    "SELECT singletable.create_table('app.new_table', sort_key_type => 'B');
     SELECT singletable.put_item('app.new_table', '{\"pk\": \"x\", \"sk\": \"AQ==\"}') IS NULL;
     SELECT singletable.get_item('app.new_table', 'x', 'AQ==') = '{\"pk\": \"x\", \"sk\": \"AQ==\"}',
            (SELECT count(*) FROM singletable.tables WHERE table_name = 'app.new_table'::regclass)"

expect "$DST" "drop_table and DROP TABLE of restored tables remove their registry rows" \
    "0" \
    "DO \$\$ BEGIN PERFORM singletable.drop_table('dr_pk'); END \$\$;
     DROP TABLE dr_renamed;
     SELECT count(*) FROM singletable.tables WHERE table_name::text IN ('dr_pk', 'dr_renamed')"

#
# Done
#
echo "1..$N"
if ((FAILURES == 0)) && [[ ${ST_KEEP:-0} != 1 ]]; then
    q postgres >/dev/null 2>&1 <<<"DROP DATABASE $SRC; DROP DATABASE $DST;"
else
    diag "the databases $SRC and $DST were kept for inspection"
fi
if ((FAILURES > 0)); then
    diag "$FAILURES of $N checks failed"
    exit 1
fi
exit 0
