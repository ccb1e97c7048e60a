/*
 * guc.c — every setting of singletable (singletable.*).
 *
 * The TTL settings: ttl_enabled, ttl_interval and ttl_log_sweeps are read
 * by the background workers and change on reload (PGC_SIGHUP);
 * ttl_batch_size also bounds a session's own ttl_sweep, so a session may set
 * it (PGC_USERSET).
 *
 * dynamodb_schema and dynamodb_distribute are read by each call of
 * singletable.dynamodb (PGC_USERSET): the schema its table names live in,
 * and whether its CreateTable distributes the new table with Citus.
 *
 * entity_check and prefix_check (PGC_USERSET, off | warning | error) are
 * the write guard (ops/entity_check.c) and the typo guard
 * (catalog/entity_suggest.c) on tables with entities.
 *
 * Design notes: the section on guc.c in README.md of this folder.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/guc.h"

#include "ops/capacity.h"
#include "api/dynamodb.h"
#include "commands/commands.h"
#include "catalog/entity_suggest.h"
#include "ops/direct.h"
#include "functions/query_scan.h"
#include "ops/entity_check.h"
#include "guc.h"
#include "ops/hot_keys.h"
#include "ops/stats.h"
#include "ops/ttl.h"
#include "ops/streams.h"

/* The levels of entity_check and prefix_check */
static const struct config_enum_entry check_levels[] = {
	{"off", ST_CHECK_OFF, false},
	{"warning", ST_CHECK_WARNING, false},
	{"error", ST_CHECK_ERROR, false},
	{NULL, 0, false}
};

/* Defines the settings; then no other singletable.* name may be used. */
void
st_guc_init(void)
{
	DefineCustomBoolVariable("singletable.ttl_enabled",
							 "Whether the background workers sweep expired items.",
							 "Without shared_preload_libraries = 'singletable' there are no workers; use singletable.ttl_sweep().",
							 &st_ttl_enabled, true, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("singletable.ttl_interval",
							"Seconds between the sweeps of a database's TTL tables.",
							NULL,
							&st_ttl_interval, 10, 1, 86400, PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomIntVariable("singletable.ttl_batch_size",
							"Expired items deleted per transaction of a sweep.",
							NULL,
							&st_ttl_batch_size, 1000, 1, 100000, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("singletable.ttl_log_sweeps",
							 "Log a line at LOG level for each sweep that deleted items (else at DEBUG1).",
							 NULL,
							 &st_ttl_log_sweeps, false, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("singletable.stream_retention",
							"How long stream records are kept.",
							"The stream worker deletes older records, and shards closed before that.",
							&st_stream_retention, 86400, 1, INT_MAX, PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomIntVariable("singletable.stream_shard_lifetime",
							"Age at which a stream's open shard is closed and succeeded by a child shard.",
							NULL,
							&st_stream_shard_lifetime, 14400, 1, INT_MAX, PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomBoolVariable("singletable.track_capacity",
							 "Compute the consumed capacity of every operation and count it in singletable.table_stats.",
							 "Off: last_consumed_capacity() is NULL, table_stats counts nothing; pages are still cut at 1 MB.",
							 &st_track_capacity, true, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("singletable.dynamodb_schema",
							   "The schema of the tables singletable.dynamodb() names (DynamoDB's table names).",
							   "CreateTable creates its tables there; any item-collection table there answers the other operations.",
							   &st_dynamodb_schema, "public", PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("singletable.dynamodb_distribute",
							 "Whether CreateTable of singletable.dynamodb() distributes the new table with Citus, by its partition key.",
							 "Only when the citus extension is installed in the database; otherwise the table stays local.",
							 &st_dynamodb_distribute, false, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("singletable.distribute_new_tables",
							 "Whether create_table and CreateTable distribute each new table with Citus, by its partition key.",
							 "Only when the citus extension is installed in the database; otherwise the table stays local. Set it for a database or role (ALTER DATABASE ... SET) so that every client's tables are distributed.",
							 &st_distribute_new_tables, false, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("singletable.dynamodb_create_delay",
							"How long a table made by CreateTable of singletable.dynamodb() stays CREATING.",
							"Meanwhile DescribeTable says CREATING, item operations get ResourceNotFoundException and DeleteTable/UpdateTable ResourceInUseException, as in DynamoDB; 0: ACTIVE at once. For test suites that wait for a table.",
							&st_dynamodb_create_delay, 0, 0, 3600 * 1000, PGC_USERSET, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable("singletable.stream_iterator_lifetime",
							"Seconds a DynamoDB Streams shard iterator stays valid.",
							"DynamoDB's is 15 minutes; GetRecords with an older one is ExpiredIteratorException.",
							&st_stream_iterator_lifetime, 900, 1, 86400, PGC_SUSET, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomEnumVariable("singletable.entity_check",
							 "What a write does whose item does not fit the entities of its table: off, warning or error.",
							 "Checks puts, updates, batch and transaction writes on tables with entities (define_entity): keys, field types, declared attributes, index key templates.",
							 &st_entity_check, ST_CHECK_WARNING, check_levels, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("singletable.prefix_check",
							 "What a Query does whose partition key or begins_with prefix can find no entity's items: off, warning or error.",
							 "The typo guard on tables with entities: query, query_page, explain_query, dynamodb('Query'), and plain SQL begins_with with a constant prefix at plan time.",
							 &st_prefix_check, ST_CHECK_WARNING, check_levels, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("singletable.direct_reads",
							 "Whether get_item, transact_get and a Query of a table read its primary key index directly.",
							 "Off: they run their kept SQL statement, as they always do on a table with row-level security, a Citus table, a partitioned table or one with inheritance children, and as a Query of a secondary index does.",
							 &st_direct_reads, true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("singletable.query_scan",
							 "Whether a call of singletable.query alone in FROM is planned as a scan that streams its rows.",
							 "Off: it is a Function Scan, which reads every row into a tuplestore before the query sees the first, so an outer LIMIT cannot stop the read.",
							 &st_query_scan, true, PGC_USERSET, 0, NULL, NULL, NULL);
	if (process_shared_preload_libraries_in_progress)
		DefineCustomIntVariable("singletable.stats_max",
								"Entries of singletable.table_stats kept in shared memory (of every database).",
								"One entry per table or index and operation; when full, the least used are evicted.",
								&st_stats_max, ST_STATS_MAX_DEFAULT, 100, 1000000, PGC_POSTMASTER, 0,
								NULL, NULL, NULL);
	DefineCustomBoolVariable("singletable.track_hot_keys",
							 "Record the partition key of every item read or written, for singletable.hot_keys().",
							 NULL,
							 &st_track_hot_keys, true, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("singletable.hot_keys_window",
							"Length of one window of singletable.hot_keys(), which reports the current and the previous window.",
							NULL,
							&st_hot_keys_window, 60, 1, 86400, PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);
	if (process_shared_preload_libraries_in_progress)
	{
		DefineCustomIntVariable("singletable.hot_keys_max",
								"Partition keys tracked per table and access kind (read, write) by singletable.hot_keys().",
								"Also the most keys it reports per access kind.",
								&st_hot_keys_max, ST_HOT_KEYS_MAX_DEFAULT, 10, 1000, PGC_POSTMASTER, 0,
								NULL, NULL, NULL);
		DefineCustomIntVariable("singletable.hot_keys_tables",
								"Tables whose hot keys are tracked in shared memory (of every database).",
								"When full, the table with the fewest accesses in its windows makes way.",
								&st_hot_keys_tables, ST_HOT_KEYS_TABLES_DEFAULT, 1, 10000, PGC_POSTMASTER, 0,
								NULL, NULL, NULL);
	}
	MarkGUCPrefixReserved("singletable");
}
