/*
 * distribute.c — st_distribute_table (commands.h), behind the SQL function
 * singletable.distribute_table() (functions/sql_ddl.c) and the JSON API's
 * CreateTable with singletable.dynamodb_distribute: hands an
 * item-collection table to Citus, distributed by its partition key, with
 * the segment index parallel scans read. What the other layers need to know
 * of a distributed table is catalog/distribute.c.
 */
#include "postgres.h"
#include "access/genam.h"
#include "access/table.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_type_d.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "nodes/primnodes.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/typcache.h"
#include "catalog/distribute.h"
#include "utils/errors.h"
#include "catalog/indexes.h"
#include "catalog/registry.h"
#include "catalog/statements.h"
#include "commands/commands.h"

/*
 * Whether SQL can call the hash function of tab's partition key type on the
 * column, as a segment index's expression must: hashtext (S) and
 * hash_numeric (N) take their type, but bytea's hashvarlena takes internal
 * and no SQL function computes it. A table with a B partition key has no
 * segment index, and its segments fall back to statistics (scan.c).
 */
static bool
segment_index_possible(StTable *tab)
{
	Oid		   *argtypes;
	int			nargs;

	get_func_signature(st_key_hash_proc(tab->pk_type), &argtypes, &nargs);
	return nargs == 1 && argtypes[0] == st_key_type_oid(tab->pk_type);
}

/*
 * The name distribute_table gives the segment index of tab,
 * <table>_segments cut to NAMEDATALEN - 1 bytes at a character boundary
 * (as create_gsi names its indexes), refused when a relation has it:
 * checked before the table is distributed, so that the failure leaves it
 * as it was.
 */
static char *
segment_index_name(StTable *tab)
{
	char	   *name = psprintf("%s_segments", tab->relname);

	if (strlen(name) >= NAMEDATALEN)
		name[pg_mbcliplen(name, strlen(name), NAMEDATALEN - 1)] = '\0';
	if (OidIsValid(get_relname_relid(name, get_rel_namespace(tab->relid))))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_TABLE),
				 errmsg("relation \"%s\" for the scan segment index of table \"%s\" already exists",
						name, tab->relname),
				 errhint("distribute_table creates the index \"%s\" on (hash of the partition key, keys); rename the relation that has its name.",
						 name)));
	return name;
}

/* CREATE INDEX of the segment index of tab, named name: (hash of the partition key, keys). */
static char *
segment_index_sql(StTable *tab, const char *name)
{
	StringInfoData sql;

	initStringInfo(&sql);
	appendStringInfo(&sql, "CREATE INDEX %s ON %s ((%s), %s", quote_identifier(name), tab->qualname,
					 st_key_hash_sql(tab), quote_identifier(tab->pk_name));
	if (tab->sk_name)
		appendStringInfo(&sql, ", %s", quote_identifier(tab->sk_name));
	appendStringInfoChar(&sql, ')');
	return sql.data;
}

/*
 * The name of a distributed item table whose partition key has type t, to
 * colocate with, or NULL when there is none (the first one).
 */
static char *
colocation_target(StTable *tab)
{
	Oid			argtypes[2] = {TEXTOID, OIDOID};
	char		kt[2] = {(char) tab->pk_type, 0};
	Datum		values[2] = {CStringGetTextDatum(kt), ObjectIdGetDatum(tab->relid)};
	char	   *name = NULL;

	if (SPI_execute_with_args("SELECT t.table_name::pg_catalog.text FROM " ST_REGISTRY " t"
							  " JOIN pg_catalog.pg_dist_partition p ON p.logicalrelid OPERATOR(pg_catalog.=) t.table_name"
							  " WHERE t.partition_key_type OPERATOR(pg_catalog.=) $1"
							  " AND t.table_name::pg_catalog.oid OPERATOR(pg_catalog.<>) $2"
							  " AND p.partmethod OPERATOR(pg_catalog.=) 'h'"
							  " ORDER BY p.colocationid, t.table_name::pg_catalog.oid LIMIT 1",
							  2, argtypes, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "reading Citus's distribution of singletable tables failed");
	if (SPI_processed == 1)
		name = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	return name;
}

/* singletable.distribute_new_tables (guc.c) */
bool		st_distribute_new_tables = false;

/*
 * singletable.distribute_table(table_name, shard_count) -> void:
 * create_distributed_table by the partition key column, colocated with the
 * other item tables of the same partition key type, and the segment index
 * that parallel scans read (segment_index_sql), where its key type allows.
 */
void
st_distribute_table(const StDistributeRequest *req)
{
	StTable    *tab;
	char	   *colocate;
	char	   *segment_index;
	Oid			argtypes[4] = {OIDOID, TEXTOID, TEXTOID, INT4OID};
	Datum		values[4];
	char		nulls[4] = {' ', ' ', ' ', ' '};
	int			rc;

	if (req->has_shard_count && (req->shard_count < 1 || req->shard_count > 64000))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("shard_count must be between 1 and 64000, not %d", req->shard_count)));
	if (!st_citus_installed())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot distribute a table: the citus extension is not installed in this database"),
				 errhint("Install Citus, add it to shared_preload_libraries and run CREATE EXTENSION citus; see README, \"Scaling out with Citus\".")));
	SPI_connect();
	tab = st_table_open(req->table_name, AccessShareLock, ST_ACL_OWNER);
	if (st_citus_table(tab->relid))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
				 errmsg("table \"%s\" is already distributed", tab->relname)));
	colocate = colocation_target(tab);
	segment_index = segment_index_possible(tab) ? segment_index_name(tab) : NULL;
	if (colocate && req->has_shard_count)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("shard_count cannot be given for table \"%s\": it is colocated with \"%s\", which has its shard count",
						tab->relname, colocate),
				 errhint("Leave shard_count out; every singletable table with the same partition key type shares one colocation group.")));
	values[0] = ObjectIdGetDatum(tab->relid);
	values[1] = CStringGetTextDatum(tab->pk_name);
	values[2] = CStringGetTextDatum(colocate ? colocate : "default");
	values[3] = req->has_shard_count ? Int32GetDatum(req->shard_count) : (Datum) 0;
	nulls[3] = req->has_shard_count ? ' ' : 'n';
	rc = SPI_execute_with_args(!req->has_shard_count
							   ? "SELECT pg_catalog.create_distributed_table($1::pg_catalog.regclass, $2, colocate_with => $3)"
							   : "SELECT pg_catalog.create_distributed_table($1::pg_catalog.regclass, $2, colocate_with => $3, shard_count => $4)",
							   req->has_shard_count ? 4 : 3, argtypes, values, nulls, false, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "create_distributed_table failed: %s", SPI_result_code_string(rc));
	/* the items were copied to the shards; the coordinator's copy would only take disk */
	if (SPI_execute_with_args("SELECT pg_catalog.truncate_local_data_after_distributing_table($1::pg_catalog.regclass)",
							  1, argtypes, values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "truncating the local data of table \"%s\" failed", tab->relname);

	/*
	 * After the copy, so that every shard builds its index over its rows at
	 * once (Citus runs the CREATE INDEX on each shard) rather than
	 * maintaining it row by row during the copy.
	 */
	if (segment_index &&
		SPI_execute(segment_index_sql(tab, segment_index), false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "creating the scan segment index of table \"%s\" failed", tab->relname);

	/*
	 * Every node's registries get the table's rows (through the reference
	 * table singletable.cluster_registry, in this transaction), so that
	 * every node serves it. As the registry's owner: the function is not
	 * the caller's to run.
	 */
	values[0] = ObjectIdGetDatum(tab->relid);
	st_registry_execute_as_owner("cluster_registry",
								 "SELECT singletable.cluster_registry_sync($1::pg_catalog.regclass)",
								 1, argtypes, values, NULL);
	SPI_finish();
}
