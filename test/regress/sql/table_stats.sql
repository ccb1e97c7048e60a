-- table_stats: the operation statistics (view singletable.table_stats), reset_stats,
-- stats_info, and who sees which rows. DeleteItem is the operation that counts so far.
-- The file runs with and without shared_preload_libraries = 'singletable': nothing it
-- prints depends on the scope, which is compared with the setting instead. (Sessions
-- sharing the counters, eviction and other databases: test/tap/t/002_table_stats.pl.)

-- setup
SET client_min_messages = warning;
CREATE ROLE regress_st_stats_nobody;
CREATE ROLE regress_st_stats_reader;
CREATE ROLE regress_st_stats_monitor IN ROLE pg_read_all_stats;
CREATE ROLE regress_st_stats_admin;
SELECT singletable.create_table('stats_a');
SELECT singletable.create_table('stats_b', sort_key => NULL);
SELECT count(*) FROM (
  SELECT singletable.put_item('stats_a', jsonb_build_object('pk', 'p', 'sk', i::text))
    FROM generate_series(1, 6) i) s;
SELECT singletable.put_item('stats_b', '{"pk": "x"}');
SELECT singletable.put_item('stats_b', '{"pk": "y"}');
GRANT SELECT ON stats_a TO regress_st_stats_reader;
RESET client_min_messages;

-- tests

-- the views' columns
\d singletable.table_stats
\d singletable.stats_info

-- a full reset: no rows, no evictions, stats_reset is the moment of the reset
SELECT singletable.reset_stats();
SELECT count(*) AS rows_after_reset FROM singletable.table_stats;
SELECT dealloc, stats_reset BETWEEN now() - interval '1 minute' AND clock_timestamp() AS reset_now
  FROM singletable.stats_info;

-- one row per table and operation, counting each call: deleted, returned, absent,
-- conditional, and rolled back (the counters are not transactional: the work was done)
SELECT singletable.delete_item('stats_a', 'p', '1');
SELECT singletable.delete_item('stats_a', 'p', '2', return_values => 'ALL_OLD');
SELECT singletable.delete_item('stats_a', 'p', '1');
SELECT singletable.delete_item('stats_a', 'p', '3', condition => 'attribute_exists(pk)');
BEGIN;
SELECT singletable.delete_item('stats_a', 'p', '4');
ROLLBACK;
SELECT singletable.delete_item('stats_b', 'x');
SELECT table_name, index_name, operation, calls, items_read, items_returned, items_written,
       bytes_read, bytes_written, read_capacity_units, write_capacity_units,
       conditional_check_failures
  FROM singletable.table_stats ORDER BY table_name::text, index_name, operation;
SELECT count(*) AS items_left FROM stats_a;

-- scope: 'shared' exactly when the library is preloaded
SELECT DISTINCT scope = CASE WHEN current_setting('shared_preload_libraries') ~ '\msingletable\M'
                             THEN 'shared' ELSE 'backend' END AS scope_as_configured
  FROM singletable.table_stats;

-- reset_stats(table) discards that table's rows only
SELECT singletable.reset_stats('stats_b');
SELECT table_name, operation, calls FROM singletable.table_stats ORDER BY table_name::text;
SELECT singletable.delete_item('stats_b', 'y');
SELECT table_name, operation, calls FROM singletable.table_stats ORDER BY table_name::text;

-- a role sees the rows of the tables it may SELECT from, or all with pg_read_all_stats
SET ROLE regress_st_stats_nobody;
SELECT table_name, operation, calls FROM singletable.table_stats ORDER BY table_name::text;
RESET ROLE;
SET ROLE regress_st_stats_reader;
SELECT table_name, operation, calls FROM singletable.table_stats ORDER BY table_name::text;
RESET ROLE;
SET ROLE regress_st_stats_monitor;
SELECT table_name, operation, calls FROM singletable.table_stats ORDER BY table_name::text;
RESET ROLE;

-- invalid input: reset_stats is for superusers (EXECUTE revoked from PUBLIC), also for
-- a role that sees every row
SET ROLE regress_st_stats_monitor;
SELECT singletable.reset_stats('stats_a');
SELECT singletable.reset_stats();
RESET ROLE;
-- unless granted
GRANT EXECUTE ON FUNCTION singletable.reset_stats(regclass) TO regress_st_stats_admin;
SET ROLE regress_st_stats_admin;
SELECT singletable.reset_stats('stats_a');
RESET ROLE;
SELECT table_name, operation, calls FROM singletable.table_stats ORDER BY table_name::text;

-- the rows of a dropped table are not shown
SELECT 'stats_b'::regclass::oid AS stats_b_oid \gset
SELECT singletable.drop_table('stats_b');
SELECT count(*) AS rows_of_dropped FROM singletable.table_stats WHERE table_name::oid = :stats_b_oid;
SELECT singletable.delete_item('stats_a', 'p', '5');
SELECT table_name, operation, calls FROM singletable.table_stats ORDER BY table_name::text;

-- cleanup
SET client_min_messages = warning;
SELECT singletable.drop_table('stats_a');
REVOKE EXECUTE ON FUNCTION singletable.reset_stats(regclass) FROM regress_st_stats_admin;
DROP ROLE regress_st_stats_nobody, regress_st_stats_reader, regress_st_stats_monitor,
          regress_st_stats_admin;
