#!/usr/bin/env bash
# test/server/upgrade.sh: the upgrade path. Every released version installs with today's
# library, updates to the default version with ALTER EXTENSION singletable UPDATE, keeps
# its items readable and writable, and ends up with exactly the objects of a fresh
# install of the default version.
#
#   * released install scripts never change: sql/singletable--0.1.0.sql has the checksum
#     it was released with (RELEASED below; add each new release there);
#   * the library exports every C symbol that any install or upgrade script names, so that
#     an installation not yet updated keeps working after the library is replaced;
#   * in database OLD: CREATE EXTENSION singletable VERSION '0.1.0', item tables of every
#     key type with items (schema app), ALTER EXTENSION singletable UPDATE; then the same
#     get_item/query results as before, and put/update/delete, create_table and
#     drop_table work;
#   * database NEW: CREATE EXTENSION singletable (the default version);
#   * the two extensions are compared, and must be identical, twice: (1) a catalog
#     listing (CATALOG_SQL) of every member object, function definitions and properties
#     (volatility, strictness, security, proconfig, prosrc, probin, ...), comments,
#     privileges (also initial privileges and the schema's), tables with columns,
#     constraints and indexes, types, event triggers, and everything that depends on a
#     member; (2) pg_dump --binary-upgrade --schema-only, which writes out every member
#     object one by one (OIDs and other per-database numbers masked). (2) knows every kind
#     of object pg_dump knows; (1) says precisely what differs.
# A new object added to sql/singletable--X.sql but not to the upgrade script (or the
# other way round), or added with another definition, fails the comparison.
#
# Prints one TAP line per check ("ok N - ..." / "not ok N - ...", details as "# ..." lines)
# and exits non-zero when a check failed. test/run.sh runs it against its test server;
# run by hand without ST_DIR set, it starts a throwaway server itself (the extension must
# be installed: make install). ST_KEEP=1 keeps the databases for inspection.
set -uo pipefail

# shellcheck source=test/tap.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
TOP=${TOP:-$(cd "$TAP_HERE/.." && pwd)}
OLD=singletable_upgrade_old
NEW=singletable_upgrade_new
FROM_VERSION=0.1.0

# Released install scripts and their md5 at release. They must never change: an
# installation of that version was made from exactly this text.
declare -A RELEASED=(
    [0.1.0]=e8efe9c507be7768f06b70fb34bc4b63
)

DEFAULT_VERSION=$(sed -n "s/^default_version[[:space:]]*=[[:space:]]*'\([^']*\)'.*/\1/p" "$TOP/singletable.control")

#
# Released scripts and exported symbols
#
for v in "${!RELEASED[@]}"; do
    f="$TOP/sql/singletable--$v.sql"
    sum=$(md5sum "$f" 2>/dev/null | cut -d' ' -f1)
    if [[ $sum == "${RELEASED[$v]}" ]]; then
        ok "the released install script of $v is unchanged"
    else
        not_ok "the released install script of $v is unchanged"
        diag "md5 of $f is '$sum', released as ${RELEASED[$v]}: add an upgrade script instead"
    fi
done

LIB="$("${PG_CONFIG:-pg_config}" --pkglibdir)/singletable.so"
missing_symbols=$(
    sed -n "s/.*'MODULE_PATHNAME', *'\([A-Za-z0-9_]*\)'.*/\1/p" "$TOP"/sql/singletable--*.sql | sort -u |
        comm -23 - <(nm -D --defined-only "$LIB" | awk '{print $3}' | sort -u)
)
if [[ -f $LIB && -z $missing_symbols ]]; then
    ok "the library exports every C symbol that an install or upgrade script names"
else
    not_ok "the library exports every C symbol that an install or upgrade script names"
    diag "library $LIB; missing symbols:" "$missing_symbols"
fi

#
# OLD: the released version, with items, updated
#
if ! out=$(q postgres 2>&1 <<EOF
SET client_min_messages = warning;
DROP DATABASE IF EXISTS $OLD;
DROP DATABASE IF EXISTS $NEW;
CREATE DATABASE $OLD;
CREATE DATABASE $NEW;
EOF
); then
    not_ok "create the databases"
    diag "$out"
    bail "no databases"
fi

expect "$OLD" "CREATE EXTENSION singletable VERSION '$FROM_VERSION' with the current library" \
    "$FROM_VERSION" \
    "CREATE EXTENSION singletable VERSION '$FROM_VERSION';
     SELECT extversion FROM pg_extension WHERE extname = 'singletable'"

if out=$(q "$OLD" 2>&1 <<'EOF'
SET client_min_messages = warning;
CREATE SCHEMA app;
SELECT singletable.create_table('app.s');
SELECT count(*) FROM (
  SELECT singletable.put_item('app.s', '{"pk": "USER#1", "sk": "PROFILE", "name": "Ada", "tags": {"$SS": ["a", "b"]}}')
  UNION ALL SELECT singletable.put_item('app.s', '{"pk": "USER#1", "sk": "POST#1", "n": 1}')
  UNION ALL SELECT singletable.put_item('app.s', '{"pk": "USER#1", "sk": "POST#2", "n": 2}')
  UNION ALL SELECT singletable.put_item('app.s', '{"pk": "é😀", "sk": "\udbff\udfff", "x": 1}')) s;
SELECT singletable.create_table('app.n', partition_key_type => 'N', sort_key_type => 'N');
SELECT count(*) FROM (
  SELECT singletable.put_item('app.n', jsonb_build_object('pk', 1, 'sk', v, 'v', v))
    FROM unnest(ARRAY[-1.5, 0, 10, 1e3]) v) s;
SELECT singletable.create_table('app.b', partition_key_type => 'B', sort_key_type => 'B');
SELECT singletable.put_item('app.b', '{"pk": "AQI=", "sk": "/w==", "v": {"$B": "AAE="}}');
SELECT singletable.create_table('app.p', sort_key => NULL);
SELECT singletable.put_item('app.p', '{"pk": "only"}');
SELECT singletable.update_item('app.s', 'USER#1', 'POST#1', 'ADD n :one', vals => '{":one": 1}');
SELECT singletable.create_table('app.gone');
EOF
); then
    ok "$FROM_VERSION: create_table, put_item and update_item"
else
    not_ok "$FROM_VERSION: create_table, put_item and update_item"
    diag "$out"
fi

READ_SQL="SELECT table_name::text, partition_key, partition_key_type, sort_key, sort_key_type
            FROM singletable.tables ORDER BY 1;
SELECT singletable.get_item('app.s', 'USER#1', 'PROFILE');
SELECT singletable.get_item('app.n', '1', '1000');
SELECT singletable.get_item('app.b', 'AQI=', '/w==');
SELECT singletable.get_item('app.p', 'only');
SELECT * FROM singletable.query('app.s', 'USER#1', 'begins_with', 'POST#', forward => false);
SELECT * FROM singletable.query('app.s', 'é😀', 'begins_with', E'\\U0010ffff');
SELECT * FROM singletable.query('app.n', '1', 'between', '-2', '10');
SELECT * FROM singletable.query('app.s', 'USER#1', filter => 'n > :z', projection => 'sk, n', vals => '{\":z\": 1}');
SET plan_cache_mode = force_generic_plan;
PREPARE bw(text, text) AS SELECT sk FROM app.s WHERE pk = \$1 AND singletable.begins_with(sk, \$2) ORDER BY sk;
EXECUTE bw('USER#1', 'POST#');
EXECUTE bw('USER#1', '');"
before=$(q "$OLD" <<<"$READ_SQL" 2>&1)

expect "$OLD" "ALTER EXTENSION singletable UPDATE goes from $FROM_VERSION to $DEFAULT_VERSION" \
    "$DEFAULT_VERSION" \
    "ALTER EXTENSION singletable UPDATE;
     SELECT extversion FROM pg_extension WHERE extname = 'singletable'"

expect "$OLD" "after the update: the registry, get_item, query and begins_with read the same" \
    "$before" "$READ_SQL"

expect "$OLD" "after the update: put_item, update_item, delete_item, create_table and drop_table work" \
    "t
{\"n\": 3, \"sk\": \"POST#1\"}
{\"n\": 2, \"pk\": \"USER#1\", \"sk\": \"POST#2\"}
t|t
0" \
    "SELECT singletable.put_item('app.s', '{\"pk\": \"USER#2\", \"sk\": \"PROFILE\"}') IS NULL;
     SELECT singletable.update_item('app.s', 'USER#1', 'POST#1', 'ADD n :one', vals => '{\":one\": 1}',
                                    return_values => 'UPDATED_NEW') || '{\"sk\": \"POST#1\"}';
     SELECT singletable.delete_item('app.s', 'USER#1', 'POST#2', return_values => 'ALL_OLD');
     SELECT singletable.create_table('app.fresh')::text = 'app.fresh',
            singletable.get_item('app.s', 'USER#2', 'PROFILE') = '{\"pk\": \"USER#2\", \"sk\": \"PROFILE\"}';
     DO \$\$ BEGIN PERFORM singletable.drop_table('app.fresh'); END \$\$;
     DROP TABLE app.gone;
     SELECT count(*) FROM singletable.tables WHERE table_name::text IN ('app.fresh', 'app.gone')"

#
# NEW: a fresh install of the default version
#
expect "$NEW" "CREATE EXTENSION singletable installs $DEFAULT_VERSION" \
    "$DEFAULT_VERSION" \
    "CREATE EXTENSION singletable;
     SELECT extversion FROM pg_extension WHERE extname = 'singletable'"

#
# The updated and the fresh extension are the same
#
# One line per property; objects by their description, never by OID.
CATALOG_SQL=$(cat <<'EOF'
CREATE TEMP VIEW member AS
SELECT d.classid, d.objid, d.objsubid
  FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid
 WHERE d.refclassid = 'pg_catalog.pg_extension'::regclass AND e.extname = 'singletable'
   AND d.deptype = 'e';
-- what hangs off the members without being a member: constraints, indexes, defaults, ...
CREATE TEMP VIEW dependent AS
SELECT DISTINCT d.classid, d.objid, d.objsubid
  FROM pg_catalog.pg_depend d JOIN member m
    ON m.classid = d.refclassid AND m.objid = d.refobjid
 WHERE d.deptype <> 'e' AND (d.classid, d.objid) NOT IN (SELECT classid, objid FROM member);

SELECT 'extension', extname, extversion, extrelocatable, extnamespace::regnamespace, extowner::regrole,
       extconfig::regclass[], extcondition
  FROM pg_catalog.pg_extension WHERE extname = 'singletable';
SELECT 'schema', n.nspname, n.nspowner::regrole, n.nspacl
  FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_extension e ON e.extnamespace = n.oid
 WHERE e.extname = 'singletable';

SELECT 'member', pg_catalog.pg_describe_object(classid, objid, objsubid) FROM member ORDER BY 2;
SELECT 'dependent',
       pg_catalog.regexp_replace(pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid),
                                 'pg_toast_[0-9]+', 'pg_toast_<oid>'),
       d.deptype,
       pg_catalog.pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid)
  FROM pg_catalog.pg_depend d JOIN dependent x USING (classid, objid, objsubid)
 ORDER BY 2, 3, 4;

SELECT 'function', p.oid::regprocedure, p.proowner::regrole, l.lanname, p.prokind, p.provolatile,
       p.proisstrict, p.prosecdef, p.proleakproof, p.proparallel, p.procost, p.prorows,
       p.proretset, p.prorettype::regtype, p.proargnames, p.proargmodes,
       pg_catalog.pg_get_function_arguments(p.oid), p.prosupport::regprocedure, p.proconfig,
       p.prosrc, p.probin, p.proacl
  FROM pg_catalog.pg_proc p JOIN member m ON m.classid = 'pg_catalog.pg_proc'::regclass AND m.objid = p.oid
  JOIN pg_catalog.pg_language l ON l.oid = p.prolang
 ORDER BY p.oid::regprocedure::text;  -- expressions: ORDER BY 2::text would sort by the constant '2'
SELECT 'functiondef', p.oid::regprocedure, pg_catalog.pg_get_functiondef(p.oid)
  FROM pg_catalog.pg_proc p JOIN member m ON m.classid = 'pg_catalog.pg_proc'::regclass AND m.objid = p.oid
 WHERE p.prokind IN ('f', 'p', 'w')
 ORDER BY p.oid::regprocedure::text;  -- expressions: ORDER BY 2::text would sort by the constant '2'

SELECT 'relation', c.oid::regclass, c.relkind, c.relpersistence, c.relowner::regrole, c.relacl,
       c.reloptions, c.relrowsecurity, c.relforcerowsecurity, c.relreplident,
       CASE WHEN c.relkind IN ('v', 'm') THEN pg_catalog.pg_get_viewdef(c.oid) END
  FROM pg_catalog.pg_class c JOIN member m ON m.classid = 'pg_catalog.pg_class'::regclass AND m.objid = c.oid
 ORDER BY c.oid::regclass::text;  -- expressions: ORDER BY 2::text would sort by the constant '2'
-- columns of member relations and of composite types' relations
SELECT 'column', a.attrelid::regclass, a.attnum, a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod),
       a.attnotnull, a.attcollation::regcollation, a.attidentity, a.attgenerated, a.attacl,
       pg_catalog.pg_get_expr(ad.adbin, ad.adrelid)
  FROM pg_catalog.pg_attribute a
  LEFT JOIN pg_catalog.pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
 WHERE a.attnum > 0 AND NOT a.attisdropped
   AND a.attrelid IN (SELECT objid FROM member WHERE classid = 'pg_catalog.pg_class'::regclass
                      UNION ALL
                      SELECT t.typrelid FROM pg_catalog.pg_type t
                        JOIN member m ON m.classid = 'pg_catalog.pg_type'::regclass AND m.objid = t.oid)
 ORDER BY a.attrelid::regclass::text, 3;  -- expressions: ORDER BY 2::text would sort by the constant '2'
SELECT 'constraint', k.conrelid::regclass, k.contypid::regtype, k.conname, k.contype,
       pg_catalog.pg_get_constraintdef(k.oid), k.condeferrable, k.condeferred, k.convalidated
  FROM pg_catalog.pg_constraint k
 WHERE k.conrelid IN (SELECT objid FROM member WHERE classid = 'pg_catalog.pg_class'::regclass)
    OR k.contypid IN (SELECT objid FROM member WHERE classid = 'pg_catalog.pg_type'::regclass)
 ORDER BY k.conrelid::regclass::text, k.contypid::regtype::text, 4;  -- expressions: ORDER BY 2::text would sort by the constant '2'
SELECT 'index', i.indrelid::regclass, pg_catalog.pg_get_indexdef(i.indexrelid)
  FROM pg_catalog.pg_index i
 WHERE i.indrelid IN (SELECT objid FROM member WHERE classid = 'pg_catalog.pg_class'::regclass)
 ORDER BY i.indrelid::regclass::text, 3;  -- expressions: ORDER BY 2::text would sort by the constant '2'
SELECT 'trigger', t.tgrelid::regclass, pg_catalog.pg_get_triggerdef(t.oid), t.tgenabled
  FROM pg_catalog.pg_trigger t
 WHERE t.tgrelid IN (SELECT objid FROM member WHERE classid = 'pg_catalog.pg_class'::regclass)
 ORDER BY t.tgrelid::regclass::text, 3;  -- expressions: ORDER BY 2::text would sort by the constant '2'
SELECT 'policy', p.polrelid::regclass, p.polname, p.polcmd, p.polpermissive, p.polroles::regrole[],
       pg_catalog.pg_get_expr(p.polqual, p.polrelid), pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid)
  FROM pg_catalog.pg_policy p
 WHERE p.polrelid IN (SELECT objid FROM member WHERE classid = 'pg_catalog.pg_class'::regclass)
 ORDER BY p.polrelid::regclass::text, 3;  -- expressions: ORDER BY 2::text would sort by the constant '2'

SELECT 'type', t.oid::regtype, t.typtype, t.typowner::regrole, t.typacl, t.typbasetype::regtype,
       t.typnotnull, t.typdefault, t.typcollation::regcollation,
       (SELECT pg_catalog.array_agg(en.enumlabel ORDER BY en.enumsortorder)
          FROM pg_catalog.pg_enum en WHERE en.enumtypid = t.oid)
  FROM pg_catalog.pg_type t JOIN member m ON m.classid = 'pg_catalog.pg_type'::regclass AND m.objid = t.oid
 ORDER BY t.oid::regtype::text;  -- expressions: ORDER BY 2::text would sort by the constant '2'
SELECT 'operator', o.oid::regoperator, o.oprowner::regrole, o.oprkind, o.oprresult::regtype,
       o.oprcode::regprocedure, o.oprcom::regoperator, o.oprnegate::regoperator,
       o.oprrest::regprocedure, o.oprjoin::regprocedure, o.oprcanmerge, o.oprcanhash
  FROM pg_catalog.pg_operator o JOIN member m ON m.classid = 'pg_catalog.pg_operator'::regclass AND m.objid = o.oid
 ORDER BY o.oid::regoperator::text;  -- expressions: ORDER BY 2::text would sort by the constant '2'
SELECT 'cast', c.castsource::regtype, c.casttarget::regtype, c.castfunc::regprocedure, c.castcontext, c.castmethod
  FROM pg_catalog.pg_cast c JOIN member m ON m.classid = 'pg_catalog.pg_cast'::regclass AND m.objid = c.oid
 ORDER BY c.castsource::regtype::text, c.casttarget::regtype::text;  -- expressions: ORDER BY 2::text would sort by the constant '2'
SELECT 'event trigger', t.evtname, t.evtevent, t.evtowner::regrole, t.evtfoid::regprocedure, t.evtenabled, t.evttags
  FROM pg_catalog.pg_event_trigger t JOIN member m ON m.classid = 'pg_catalog.pg_event_trigger'::regclass AND m.objid = t.oid
 ORDER BY 2;

SELECT 'comment', pg_catalog.pg_describe_object(d.classoid, d.objoid, d.objsubid), d.description
  FROM pg_catalog.pg_description d
 WHERE (d.classoid, d.objoid) IN (SELECT classid, objid FROM member UNION SELECT classid, objid FROM dependent)
    OR (d.classoid = 'pg_catalog.pg_extension'::regclass
        AND d.objoid = (SELECT oid FROM pg_catalog.pg_extension WHERE extname = 'singletable'))
 ORDER BY 2, 3;
SELECT 'initial privileges', pg_catalog.pg_describe_object(i.classoid, i.objoid, i.objsubid), i.privtype, i.initprivs
  FROM pg_catalog.pg_init_privs i
 WHERE (i.classoid, i.objoid) IN (SELECT classid, objid FROM member)
    OR (i.classoid = 'pg_catalog.pg_namespace'::regclass
        AND i.objoid = (SELECT extnamespace FROM pg_catalog.pg_extension WHERE extname = 'singletable'))
 ORDER BY 2, 3;
EOF
)

# catalog DB: the listing of CATALOG_SQL in database DB.
# shellcheck disable=SC2317  # called through compare
catalog() {
    q "$1" <<<"$CATALOG_SQL"
}

# schema_dump DB: pg_dump --binary-upgrade of the extension's objects in database DB, with
# what differs between any two databases masked: the binary_upgrade_set_next_* calls that
# pass on OIDs and the like, frozen XIDs, OIDs, psql's \restrict key. The items' schema
# app is left out.
# shellcheck disable=SC2317  # called through compare
schema_dump() {
    "$PGBIN/pg_dump" --binary-upgrade --schema-only -N app -d "$1" |
        sed -E -e '/^\\(un)?restrict /d' -e '/relfrozenxid|relminmxid|datfrozenxid|datminmxid/d' \
               -e '/^SELECT pg_catalog\.binary_upgrade_set_next_/d' -e '/^-- For binary upgrade/d' \
               -e "s/'[0-9]+'::pg_catalog\.oid/'<oid>'::pg_catalog.oid/g" \
               -e "s/'\{[0-9,]+\}'/'{<oids>}'/g" -e "s/oid = '[0-9]+'/oid = '<oid>'/g"
}

# compare DESC FN: ok when FN OLD and FN NEW both succeed with the same output.
compare() {
    local desc=$1 fn=$2 a b
    if ! a=$($fn "$OLD" 2>&1) || ! b=$($fn "$NEW" 2>&1); then
        not_ok "$desc"
        diag "failed:" "$a" "$b"
        return
    fi
    if [[ $a != "$b" ]]; then
        not_ok "$desc"
        diag "differs (< updated from $FROM_VERSION, > fresh $DEFAULT_VERSION):"
        diff <(echo "$a") <(echo "$b") | diag
        return
    fi
    ok "$desc"
}

n_members=$(q "$NEW" <<<"SELECT count(*) FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid
                         WHERE d.refclassid = 'pg_catalog.pg_extension'::regclass AND e.extname = 'singletable'
                           AND d.deptype = 'e'" 2>&1)
compare "updated and fresh extension: the same $n_members member objects, definitions, comments, privileges" catalog
compare "updated and fresh extension: the same pg_dump --binary-upgrade of every member object" schema_dump

#
# Done
#
echo "1..$N"
if ((FAILURES == 0)) && [[ ${ST_KEEP:-0} != 1 ]]; then
    q postgres >/dev/null 2>&1 <<<"DROP DATABASE $OLD; DROP DATABASE $NEW;"
else
    diag "the databases $OLD and $NEW were kept for inspection"
fi
if ((FAILURES > 0)); then
    diag "$FAILURES of $N checks failed"
    exit 1
fi
exit 0
