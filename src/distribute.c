/*
 * distribute.c — item-collection tables on Citus: distribute_table, and
 * what describe_table says about a distributed table.
 *
 * A table is distributed by its partition key column with Citus's own
 * create_distributed_table, so each item collection lives in one shard and
 * every single-key statement the extension runs (its WHERE clause names the
 * partition key) is routed to that shard. All item tables whose partition
 * keys have the same type are colocated with the first one distributed:
 * collections with the same key value land on the same node, so that a
 * transaction writing the same key in two tables stays on one node.
 *
 * The extension never reads Citus's catalogs by name unless Citus is
 * installed in the database (get_extension_oid); its functions are called
 * qualified (pg_catalog, where Citus creates them), with the table as a
 * parameter. Ownership is checked before any lock, as for every DDL.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "distribute.h"
#include "errors.h"
#include "registry.h"

PG_FUNCTION_INFO_V1(singletable_distribute_table);

/* Whether Citus is installed in this database. */
bool
st_citus_installed(void)
{
	return OidIsValid(get_extension_oid("citus", true));
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

/* Whether relid is a Citus table (distributed, reference or local); false without Citus. Needs SPI. */
bool
st_citus_table(Oid relid)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};

	if (!st_citus_installed())
		return false;
	if (SPI_execute_with_args("SELECT 1 FROM pg_catalog.pg_dist_partition"
							  " WHERE logicalrelid OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
							  1, argtypes, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "reading Citus's metadata failed");
	return SPI_processed > 0;
}

/*
 * singletable.distribute_table(table_name, shard_count) -> void:
 * create_distributed_table by the partition key column, colocated with the
 * other item tables of the same partition key type.
 */
Datum
singletable_distribute_table(PG_FUNCTION_ARGS)
{
	StTable    *tab;
	char	   *colocate;
	Oid			argtypes[4] = {OIDOID, TEXTOID, TEXTOID, INT4OID};
	Datum		values[4];
	char		nulls[4] = {' ', ' ', ' ', ' '};
	int			rc;

	if (!PG_ARGISNULL(1) && (PG_GETARG_INT32(1) < 1 || PG_GETARG_INT32(1) > 64000))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("shard_count must be between 1 and 64000, not %d", PG_GETARG_INT32(1))));
	if (!st_citus_installed())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot distribute a table: the citus extension is not installed in this database"),
				 errhint("Install Citus, add it to shared_preload_libraries and run CREATE EXTENSION citus; see README, \"Scaling out with Citus\".")));
	SPI_connect();
	tab = st_table_open(PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0), AccessShareLock, ST_ACL_OWNER);
	if (st_citus_table(tab->relid))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
				 errmsg("table \"%s\" is already distributed", tab->relname)));
	colocate = colocation_target(tab);
	if (colocate && !PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("shard_count cannot be given for table \"%s\": it is colocated with \"%s\", which has its shard count",
						tab->relname, colocate),
				 errhint("Leave shard_count out; every singletable table with the same partition key type shares one colocation group.")));
	values[0] = ObjectIdGetDatum(tab->relid);
	values[1] = CStringGetTextDatum(tab->pk_name);
	values[2] = CStringGetTextDatum(colocate ? colocate : "default");
	values[3] = PG_ARGISNULL(1) ? (Datum) 0 : Int32GetDatum(PG_GETARG_INT32(1));
	nulls[3] = PG_ARGISNULL(1) ? 'n' : ' ';
	rc = SPI_execute_with_args(PG_ARGISNULL(1)
							   ? "SELECT pg_catalog.create_distributed_table($1::pg_catalog.regclass, $2, colocate_with => $3)"
							   : "SELECT pg_catalog.create_distributed_table($1::pg_catalog.regclass, $2, colocate_with => $3, shard_count => $4)",
							   PG_ARGISNULL(1) ? 3 : 4, argtypes, values, nulls, false, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "create_distributed_table failed: %s", SPI_result_code_string(rc));
	/* the items were copied to the shards; the coordinator's copy would only take disk */
	if (SPI_execute_with_args("SELECT pg_catalog.truncate_local_data_after_distributing_table($1::pg_catalog.regclass)",
							  1, argtypes, values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "truncating the local data of table \"%s\" failed", tab->relname);
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * describe_table's ItemCount and TableSizeBytes of a distributed table, from
 * its shards (the coordinator's table is an empty shell): the sum of the
 * shards' row estimates, and citus_total_relation_size. Sets *items and
 * *bytes; needs SPI.
 */
void
st_distributed_table_size(StTable *tab, int64 *items, int64 *bytes)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(tab->relid)};
	bool		isnull;

	if (SPI_execute_with_args("SELECT COALESCE(pg_catalog.sum(GREATEST(r.result::pg_catalog.float8, 0)), 0)::pg_catalog.int8,"
							  " pg_catalog.citus_total_relation_size($1::pg_catalog.regclass)"
							  " FROM pg_catalog.run_command_on_shards($1::pg_catalog.regclass,"
							  "  'SELECT reltuples FROM pg_catalog.pg_class WHERE oid OPERATOR(pg_catalog.=) ''%s''::pg_catalog.regclass') r"
							  " WHERE r.success",
							  1, argtypes, values, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "reading the size of distributed table \"%s\" failed", tab->relname);
	*items = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	*bytes = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
}

/*
 * The distribution of a table as describe_table shows it, or NULL when the
 * table is not a Citus table (or Citus is not installed). Needs SPI.
 */
Datum
st_table_distribution(StTable *tab)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(tab->relid)};
	bool		isnull;
	Datum		d;

	if (!st_citus_installed())
		return (Datum) 0;
	if (SPI_execute_with_args("SELECT pg_catalog.jsonb_build_object('Distributed', true,"
							  " 'DistributionColumn', pg_catalog.column_to_column_name(p.logicalrelid, p.partkey),"
							  " 'ShardCount', (SELECT pg_catalog.count(*) FROM pg_catalog.pg_dist_shard s"
							  "                 WHERE s.logicalrelid OPERATOR(pg_catalog.=) p.logicalrelid),"
							  " 'ColocationId', p.colocationid)"
							  " FROM pg_catalog.pg_dist_partition p"
							  " WHERE p.logicalrelid OPERATOR(pg_catalog.=) $1::pg_catalog.regclass"
							  " AND p.partmethod OPERATOR(pg_catalog.=) 'h'",
							  1, argtypes, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "reading Citus's metadata failed");
	if (SPI_processed != 1)
		return (Datum) 0;
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? (Datum) 0 : d;
}
