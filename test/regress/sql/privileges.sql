-- privileges.sql: a call checks the caller's rights and that the table is an
-- item-collection table before it locks the table; temporary tables are
-- refused; a name resolves to the table it names now, also after a schema
-- rename in the same session (the per-backend cache and its kept plans).
-- The waiting itself (no lock queued by a refused call) is checked by
-- test/server/lock_privileges.sh, invalidation across backends by test/server/cache.sh.

-- setup
SET client_min_messages = warning;
CREATE ROLE regress_st_priv_owner;
CREATE ROLE regress_st_priv_nobody;
CREATE ROLE regress_st_priv_reader;
CREATE SCHEMA priv AUTHORIZATION regress_st_priv_owner;
GRANT USAGE ON SCHEMA priv TO regress_st_priv_nobody, regress_st_priv_reader;
SET ROLE regress_st_priv_owner;
SELECT singletable.create_table('priv.items');
SELECT singletable.put_item('priv.items', '{"pk": "a", "sk": "1", "v": 1}');
CREATE TABLE priv.plain (id int);
GRANT SELECT ON priv.items TO regress_st_priv_reader;
RESET ROLE;
RESET client_min_messages;

-- tests

-- invalid input: a role without any right on the table is refused by every function
SET ROLE regress_st_priv_nobody;
SELECT singletable.get_item('priv.items', 'a', '1');
SELECT singletable.put_item('priv.items', '{"pk": "b", "sk": "1"}');
SELECT singletable.delete_item('priv.items', 'a', '1');
SELECT singletable.update_item('priv.items', 'a', '1', 'SET v = :v', vals => '{":v": 2}');
SELECT * FROM singletable.query('priv.items', 'a');
SELECT * FROM singletable.explain_query('priv.items', 'a');
SELECT singletable.describe_table('priv.items');
SELECT singletable.drop_table('priv.items');
RESET ROLE;

-- invalid input: a role with SELECT only reads, and is refused every write and the drop
SET ROLE regress_st_priv_reader;
SELECT singletable.get_item('priv.items', 'a', '1');
SELECT count(*) FROM singletable.query('priv.items', 'a');
SELECT singletable.describe_table('priv.items') ->> 'TableName' AS described;
SELECT singletable.put_item('priv.items', '{"pk": "b", "sk": "1"}');
SELECT singletable.put_item('priv.items', '{"pk": "b", "sk": "1"}', return_values => 'ALL_OLD');
SELECT singletable.delete_item('priv.items', 'a', '1');
SELECT singletable.update_item('priv.items', 'a', '1', 'SET v = :v', vals => '{":v": 2}');
SELECT singletable.drop_table('priv.items');
RESET ROLE;

-- invalid input: without SELECT no write works, as each reads the key columns
-- (ON CONFLICT, WHERE), and the refusal comes before any statement runs
GRANT INSERT, UPDATE, DELETE ON priv.items TO regress_st_priv_nobody;
SET ROLE regress_st_priv_nobody;
SELECT singletable.put_item('priv.items', '{"pk": "b", "sk": "1"}');
SELECT singletable.put_item('priv.items', '{"pk": "b", "sk": "1"}', 'attribute_not_exists(pk)');
SELECT singletable.delete_item('priv.items', 'a', '1');
SELECT singletable.update_item('priv.items', 'a', '1', 'SET v = :v', vals => '{":v": 2}');
RESET ROLE;
REVOKE INSERT, UPDATE, DELETE ON priv.items FROM regress_st_priv_nobody;
-- DELETE with SELECT deletes; a conditional delete locks the item first, which needs UPDATE
GRANT SELECT, DELETE ON priv.items TO regress_st_priv_nobody;
SET ROLE regress_st_priv_nobody;
SELECT singletable.delete_item('priv.items', 'nothing', '1');
SELECT singletable.delete_item('priv.items', 'nothing', '1', 'attribute_exists(pk)');
SELECT singletable.put_item('priv.items', '{"pk": "b", "sk": "1"}');
RESET ROLE;
REVOKE SELECT, DELETE ON priv.items FROM regress_st_priv_nobody;

-- invalid input: tables that are not item tables, system catalogs included
SET ROLE regress_st_priv_nobody;
SELECT singletable.drop_table('pg_catalog.pg_database');
SELECT singletable.drop_table('pg_catalog.pg_class');
SELECT singletable.put_item('pg_catalog.pg_database', '{"pk": "x", "sk": "y"}');
SELECT singletable.delete_item('pg_catalog.pg_authid', 'x', 'y');
SELECT singletable.get_item('pg_catalog.pg_database', 'x', 'y');
SELECT singletable.describe_table('pg_catalog.pg_database');
SELECT singletable.get_item('priv.plain', 'x', 'y');
SELECT singletable.drop_table('priv.plain');
SELECT singletable.get_item('pg_catalog.pg_class_oid_index', 'x');
SELECT singletable.get_item('information_schema.tables', 'x');
SELECT singletable.get_item('singletable.tables', 'x');
RESET ROLE;
-- as superuser, the same names are refused as not item tables
SELECT singletable.get_item('pg_catalog.pg_database', 'x', 'y');
SELECT singletable.drop_table('priv.plain');
SELECT singletable.get_item('information_schema.tables', 'x');
SELECT to_regclass('priv.plain') IS NOT NULL AS plain_still_there;
-- a table the registry does not hold, even with every privilege
CREATE TABLE priv.lookalike (pk text COLLATE "C", sk text COLLATE "C", item jsonb, PRIMARY KEY (pk, sk));
SELECT singletable.get_item('priv.lookalike', 'x', 'y');

-- the owner, and a member of the owning role, may drop
SET ROLE regress_st_priv_owner;
SELECT singletable.create_table('priv.droppable');
RESET ROLE;
GRANT regress_st_priv_owner TO regress_st_priv_reader;
SET ROLE regress_st_priv_reader;
SELECT singletable.drop_table('priv.droppable');
RESET ROLE;
REVOKE regress_st_priv_owner FROM regress_st_priv_reader;
SELECT to_regclass('priv.droppable') IS NULL AS dropped;

-- invalid input: temporary tables are refused, and nothing is created or registered
SELECT count(*) AS registered_before FROM singletable.tables \gset
SELECT singletable.create_table('pg_temp.tmp_items');
SET search_path = pg_temp, public;
SELECT singletable.create_table('tmp_items');
RESET search_path;
CREATE TEMP TABLE tmp_existing (id int);
SELECT singletable.create_table('pg_temp.tmp_items2');
SET search_path = pg_temp, public;
SELECT singletable.create_table('tmp_items3');
RESET search_path;
-- by the temporary schema's own name (pg_temp_N, N varies)
DO $$
BEGIN
    PERFORM singletable.create_table(pg_my_temp_schema()::regnamespace::text || '.tmp_items4');
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'refused: %', regexp_replace(SQLERRM, 'pg_temp_[0-9]+', 'pg_temp_N');
END $$;
SELECT count(*) = :registered_before AS nothing_registered FROM singletable.tables;
SELECT to_regclass('pg_temp.tmp_items') IS NULL AND to_regclass('pg_temp.tmp_items2') IS NULL
       AND to_regclass('pg_temp.tmp_items3') IS NULL AS nothing_created;
-- an unqualified name goes to the first permanent schema of search_path
SELECT singletable.create_table('tmp_items5') AS created_in_public;
SELECT singletable.drop_table('public.tmp_items5');

-- a schema renamed mid-session: the old names reach only the old table
CREATE SCHEMA ren;
SELECT singletable.create_table('ren.t');
SELECT singletable.put_item('ren.t', '{"pk": "old", "sk": "1", "v": "old"}');
SELECT singletable.put_item('ren.t', '{"pk": "old", "sk": "2", "v": "old"}', 'attribute_not_exists(pk)');
SELECT singletable.put_item('ren.t', '{"pk": "old", "sk": "3", "v": "old"}', return_values => 'ALL_OLD');
SELECT singletable.get_item('ren.t', 'old', '1');
SELECT singletable.update_item('ren.t', 'old', '1', 'SET w = :w', vals => '{":w": 1}');
SELECT singletable.delete_item('ren.t', 'old', '9');
SELECT singletable.delete_item('ren.t', 'old', '9', 'attribute_exists(pk)');
SELECT count(*) FROM singletable.query('ren.t', 'old');
SELECT count(*) FROM singletable.query('ren.t', 'old', '>', '1');
-- every statement shape above is now prepared and kept; rename and recreate
ALTER SCHEMA ren RENAME TO ren_old;
CREATE SCHEMA ren;
SELECT singletable.create_table('ren.t');
SELECT singletable.put_item('ren_old.t', '{"pk": "old", "sk": "4", "v": "old"}');
SELECT singletable.put_item('ren_old.t', '{"pk": "old", "sk": "5", "v": "old"}', 'attribute_not_exists(pk)');
SELECT singletable.put_item('ren_old.t', '{"pk": "old", "sk": "3", "v": "old2"}', return_values => 'ALL_OLD');
SELECT singletable.get_item('ren_old.t', 'old', '1');
SELECT singletable.update_item('ren_old.t', 'old', '1', 'SET w = :w', vals => '{":w": 2}');
SELECT singletable.delete_item('ren_old.t', 'old', '2', return_values => 'ALL_OLD');
SELECT singletable.delete_item('ren_old.t', 'old', '5', 'attribute_exists(pk)', return_values => 'ALL_OLD');
SELECT sk, item FROM singletable.query('ren_old.t', 'old');
SELECT count(*) FROM singletable.query('ren_old.t', 'old', '>', '1');
SELECT count(*) AS new_table_untouched FROM ren.t;
SELECT singletable.describe_table('ren_old.t') ->> 'Schema' AS schema;
SELECT singletable.drop_table('ren_old.t');
SELECT to_regclass('ren_old.t') IS NULL AS old_dropped, to_regclass('ren.t') IS NOT NULL AS new_intact;
-- the new table works under its name, and a rename back is followed as well
SELECT singletable.put_item('ren.t', '{"pk": "new", "sk": "1"}');
ALTER SCHEMA ren RENAME TO ren2;
SELECT singletable.get_item('ren2.t', 'new', '1');
SELECT singletable.get_item('ren.t', 'new', '1');

-- the same in one transaction: the cache is rebuilt within it
BEGIN;
SELECT singletable.put_item('ren2.t', '{"pk": "tx", "sk": "1"}');
ALTER SCHEMA ren2 RENAME TO ren3;
CREATE SCHEMA ren2;
SELECT singletable.create_table('ren2.t');
SELECT singletable.put_item('ren3.t', '{"pk": "tx", "sk": "2"}');
SELECT singletable.drop_table('ren3.t');
SELECT count(*) AS new_table_untouched FROM ren2.t;
COMMIT;
SELECT to_regclass('ren3.t') IS NULL AS old_dropped, to_regclass('ren2.t') IS NOT NULL AS new_intact;

-- a dropped and recreated table under the same name: a new OID, a new entry
SELECT singletable.create_table('recreated', sort_key => NULL);
SELECT singletable.put_item('recreated', '{"pk": "a"}');
SELECT singletable.drop_table('recreated');
SELECT singletable.create_table('recreated', partition_key => 'id', partition_key_type => 'N', sort_key => NULL);
SELECT singletable.put_item('recreated', '{"id": 1}');
SELECT singletable.get_item('recreated', '1');
SELECT singletable.drop_table('recreated');

-- cleanup
SET client_min_messages = warning;
DROP SCHEMA priv, ren_old, ren2, ren3 CASCADE;
DROP ROLE regress_st_priv_owner, regress_st_priv_nobody, regress_st_priv_reader;
