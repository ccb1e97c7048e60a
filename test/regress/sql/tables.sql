-- tables: create_table, describe_table, drop_table and the registry
-- setup
SET client_min_messages = warning;
CREATE SCHEMA app;

-- tests
-- default keys: pk S, sk S; the result is a regclass in the first schema of search_path
SELECT singletable.create_table('t_default');
\d t_default

-- qualified name, custom key names and types
SELECT singletable.create_table('app.orders', partition_key => 'tenant', sort_key => 'seq',
                                partition_key_type => 'S', sort_key_type => 'N');
\d app.orders

-- partition-key-only table with a B key
SELECT singletable.create_table('blobs', partition_key => 'id', sort_key => NULL,
                                partition_key_type => 'B');
\d blobs

-- mixed-case and quoted names are kept exactly
SELECT singletable.create_table('"Mixed Case"', partition_key => 'PK', sort_key => 'Sort Key');
\d "Mixed Case"

SELECT table_name, partition_key, partition_key_type, sort_key, sort_key_type
  FROM singletable.tables ORDER BY table_name::text;

-- the registry is dumped with the extension's configuration
SELECT extconfig::regclass[] FROM pg_extension WHERE extname = 'singletable';

-- describe_table follows DynamoDB's DescribeTable shape
SELECT singletable.describe_table('app.orders') - 'TableSizeBytes';
SELECT (singletable.describe_table('t_default') ->> 'TableSizeBytes')::bigint > 0 AS has_size;
SELECT singletable.describe_table('blobs') -> 'KeySchema';

-- ItemCount is current without ANALYZE: PostgreSQL's cumulative statistics count the live
-- items at each commit (pg_stat_force_next_flush makes this session report them at once,
-- instead of within a second)
SELECT count(*) FROM (
  SELECT singletable.put_item('t_default', jsonb_build_object('pk', 'P', 'sk', 'S' || i))
    FROM generate_series(1, 50) i) s;
SELECT pg_stat_force_next_flush();
SELECT singletable.describe_table('t_default') -> 'ItemCount' AS item_count;
DELETE FROM t_default WHERE sk < 'S2';
SELECT pg_stat_force_next_flush();
SELECT singletable.describe_table('t_default') -> 'ItemCount' AS item_count;
ANALYZE t_default;
SELECT singletable.describe_table('t_default') -> 'ItemCount' AS item_count;
-- a table never analysed is counted (up to 30,000 items): right after its writes, before
-- any session has reported them to the cumulative statistics
SELECT singletable.create_table('t_fresh');
SELECT count(*) FROM (
  SELECT singletable.put_item('t_fresh', jsonb_build_object('pk', 'P', 'sk', 'S' || i))
    FROM generate_series(1, 11) i) s;
SELECT singletable.describe_table('t_fresh') -> 'ItemCount' AS item_count;
SELECT singletable.drop_table('t_fresh');
-- and each index's: a sparse GSI and an LSI hold the items with their key attributes,
-- counted on a table never analysed, then scaled by the share ANALYZE measured
SELECT singletable.create_table('t_counted');
ALTER TABLE t_counted SET (autovacuum_enabled = off);
SELECT singletable.create_gsi('t_counted', 'by-status', 'status', 'due');
SELECT singletable.create_lsi('t_counted', 'by-due', 'due');
SELECT count(*) FROM (
  SELECT singletable.put_item('t_counted', jsonb_build_object('pk', 'P' || i % 7, 'sk', 'S' || i)
           || CASE WHEN i % 3 = 0 THEN jsonb_build_object('status', 'open', 'due', 'D' || i) ELSE '{}' END
           || CASE WHEN i % 5 = 0 THEN jsonb_build_object('due', 'D' || i) ELSE '{}' END)
    FROM generate_series(1, 300) i) s;
SELECT pg_stat_force_next_flush();
SELECT (SELECT reltuples FROM pg_class WHERE oid = 't_counted'::regclass) AS reltuples,
       d -> 'ItemCount' AS items,
       d #> '{GlobalSecondaryIndexes,0,ItemCount}' AS gsi_items,
       d #> '{LocalSecondaryIndexes,0,ItemCount}' AS lsi_items
  FROM singletable.describe_table('t_counted') d;
ANALYZE t_counted;
SELECT count(*) FROM (
  SELECT singletable.put_item('t_counted', jsonb_build_object('pk', 'Q', 'sk', 'S' || i, 'status', 'open', 'due', 'D' || i))
    FROM generate_series(1, 100) i) s;
SELECT pg_stat_force_next_flush();
SELECT d -> 'ItemCount' AS items,
       d #> '{GlobalSecondaryIndexes,0,ItemCount}' AS gsi_items,
       d #> '{LocalSecondaryIndexes,0,ItemCount}' AS lsi_items
  FROM singletable.describe_table('t_counted') d;
SELECT singletable.drop_table('t_counted');

-- renaming by plain SQL keeps the table registered (the registry stores the OID)
ALTER TABLE app.orders RENAME TO orders2;
SELECT singletable.put_item('app.orders2', '{"tenant": "acme", "seq": 1}');
SELECT table_name FROM singletable.tables WHERE partition_key = 'tenant';

-- dropping by plain SQL removes the registry row
DROP TABLE app.orders2;
SELECT count(*) FROM singletable.tables WHERE partition_key = 'tenant';

-- drop_table drops the table and its registry row
SELECT singletable.drop_table('blobs');
SELECT to_regclass('blobs') IS NULL AS dropped,
       count(*) AS registry_rows FROM singletable.tables WHERE partition_key = 'id';

-- a table dropped and recreated under the same name keeps working in this session,
-- even with other key types (the cached description is invalidated)
SELECT singletable.put_item('t_default', '{"pk": "a", "sk": "b", "v": 1}');
SELECT singletable.get_item('t_default', 'a', 'b');
SELECT singletable.drop_table('t_default');
SELECT singletable.create_table('t_default', sort_key_type => 'N');
SELECT singletable.put_item('t_default', '{"pk": "a", "sk": 10, "v": 2}');
SELECT singletable.get_item('t_default', 'a', '10');
SELECT * FROM singletable.query('t_default', 'a');
DROP TABLE t_default;
SELECT singletable.create_table('t_default', sort_key => NULL);
SELECT singletable.put_item('t_default', '{"pk": "a", "v": 3}');
SELECT singletable.get_item('t_default', 'a');

-- a table created by create_table belongs to the caller
CREATE ROLE regress_st_owner;
GRANT USAGE, CREATE ON SCHEMA app TO regress_st_owner;
SET ROLE regress_st_owner;
SELECT singletable.create_table('app.owned');
SELECT singletable.put_item('app.owned', '{"pk": "x", "sk": "y"}');
RESET ROLE;
SELECT relowner::regrole FROM pg_class WHERE oid = 'app.owned'::regclass;
-- another role cannot write to it: PostgreSQL's privileges apply
CREATE ROLE regress_st_other;
GRANT USAGE ON SCHEMA app TO regress_st_other;
SET ROLE regress_st_other;
SELECT singletable.put_item('app.owned', '{"pk": "x", "sk": "z"}');
SELECT singletable.drop_table('app.owned');
RESET ROLE;
-- nor can it write the registry directly
SET ROLE regress_st_other;
DELETE FROM singletable.tables;
RESET ROLE;

-- invalid input: errors name the argument, and nothing is created
SELECT singletable.create_table(NULL);
SELECT singletable.create_table('bad1', partition_key => NULL);
SELECT singletable.create_table('bad1', partition_key => '');
SELECT singletable.create_table('bad1', partition_key => repeat('k', 256));
SELECT singletable.create_table('bad1', partition_key => 'item');
SELECT singletable.create_table('bad1', sort_key => 'item');
SELECT singletable.create_table('bad1', partition_key => 'k', sort_key => 'k');
SELECT singletable.create_table('bad1', partition_key_type => 'X');
SELECT singletable.create_table('bad1', partition_key_type => 's');
SELECT singletable.create_table('bad1', partition_key_type => 'BOOL');
SELECT singletable.create_table('bad1', partition_key_type => NULL);
SELECT singletable.create_table('bad1', sort_key_type => 'M');
SELECT singletable.create_table('bad1', sort_key_type => NULL);
SELECT singletable.create_table('no_such_schema.t');
SELECT singletable.create_table('a.b.c.d');
SELECT singletable.create_table('app.owned');
SELECT to_regclass('bad1') IS NULL AS nothing_created;

SELECT singletable.describe_table('no_such_table');
SELECT singletable.describe_table(NULL);
SELECT singletable.describe_table('pg_catalog.pg_class');
SELECT singletable.drop_table('no_such_table');
CREATE TABLE plain_table (pk text);
SELECT singletable.drop_table('plain_table');
SELECT to_regclass('plain_table') IS NOT NULL AS still_there;

-- cleanup
DROP TABLE app.owned, plain_table, t_default, "Mixed Case";
DROP SCHEMA app;
DROP ROLE regress_st_owner;
DROP ROLE regress_st_other;
SELECT count(*) FROM singletable.tables;
