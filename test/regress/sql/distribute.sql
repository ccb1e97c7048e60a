-- distribute: distribute_table without Citus (the distributed suite is test/citus/)
-- setup
SET client_min_messages = warning;
SELECT singletable.create_table('dist_t');

-- tests
-- invalid input: Citus is not installed here
SELECT singletable.distribute_table('dist_t');
SELECT singletable.distribute_table('dist_t', 8);
-- invalid input: the shard count, checked first
SELECT singletable.distribute_table('dist_t', 0);
SELECT singletable.distribute_table('dist_t', 64001);
-- describe_table of a table that is not distributed has no TableDistribution
SELECT singletable.describe_table('dist_t') ? 'TableDistribution' AS distributed;
-- the cluster registry without Citus: no group, a sync changes nothing, the registries'
-- triggers let DDL through
SELECT singletable.citus_group() IS NULL AS no_citus;
SELECT singletable.cluster_registry_sync('dist_t');
SELECT singletable.cluster_registry_sync();
SELECT singletable.create_gsi('dist_t', 'byG', 'g') IS NOT NULL AS gsi;
SELECT count(*) FROM singletable.cluster_registry;
-- invalid input: a table that does not exist, NULL
SELECT singletable.cluster_registry_sync('no_such_table');
SELECT singletable.cluster_registry_sync(NULL);
-- cluster_registry_sync and cluster_registry_forget are the registry owner's only
CREATE ROLE dist_nobody;
SET ROLE dist_nobody;
SELECT singletable.cluster_registry_sync('dist_t');
SELECT singletable.cluster_registry_forget('dist_t');
RESET ROLE;
DROP ROLE dist_nobody;
SELECT count(*) FROM singletable.indexes WHERE table_name = 'dist_t'::regclass;

-- cleanup
SELECT singletable.drop_table('dist_t');
