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

-- cleanup
SELECT singletable.drop_table('dist_t');
