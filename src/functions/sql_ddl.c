/*
 * sql_ddl.c — the SQL functions of the DDL: create_table, drop_table,
 * describe_table, create_gsi, create_lsi, drop_gsi, drop_lsi, index_sql,
 * enable_ttl, disable_ttl and distribute_table. Thin wrappers that read
 * their arguments (SQL NULL as a NULL pointer, which commands/ refuses
 * where the argument is required, or a default) into the C functions of
 * commands.h and return their results as SQL values. Nothing here checks
 * an argument or reads a table.
 */
#include "postgres.h"

#include "access/xact.h"
#include "fmgr.h"
#include "utils/snapmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "functions/sql_args.h"
#include "catalog/distribute.h"
#include "commands/commands.h"

PG_FUNCTION_INFO_V1(singletable_create_table);
PG_FUNCTION_INFO_V1(singletable_drop_table);
PG_FUNCTION_INFO_V1(singletable_describe_table);
PG_FUNCTION_INFO_V1(singletable_create_gsi);
PG_FUNCTION_INFO_V1(singletable_create_lsi);
PG_FUNCTION_INFO_V1(singletable_drop_gsi);
PG_FUNCTION_INFO_V1(singletable_drop_lsi);
PG_FUNCTION_INFO_V1(singletable_index_sql);
PG_FUNCTION_INFO_V1(singletable_enable_ttl);
PG_FUNCTION_INFO_V1(singletable_disable_ttl);
PG_FUNCTION_INFO_V1(singletable_distribute_table);


/*
 * singletable.create_table(table_name, partition_key, sort_key,
 *                          partition_key_type, sort_key_type) -> regclass
 */
Datum
singletable_create_table(PG_FUNCTION_ARGS)
{
	StCreateTableRequest req;
	Oid			relid;

	req.table_name = ARG_TEXT(0);
	req.partition_key = ARG_CSTRING(1);
	req.sort_key = ARG_CSTRING(2);
	req.partition_key_type = ARG_CSTRING(3);
	req.sort_key_type = ARG_CSTRING(4);
	req.dynamodb_name = NULL;
	relid = st_create_table(&req);
	if (st_distribute_new_tables && st_citus_installed())
	{
		StDistributeRequest dr = {req.table_name, false, 0};

		/* the registry row just written, visible to distribute_table's reads */
		CommandCounterIncrement();
		PushCopiedSnapshot(GetActiveSnapshot());
		UpdateActiveSnapshotCommandId();
		st_distribute_table(&dr);
		PopActiveSnapshot();
	}
	PG_RETURN_OID(relid);
}

/* singletable.drop_table(table_name) */
Datum
singletable_drop_table(PG_FUNCTION_ARGS)
{
	st_drop_table(ARG_TEXT(0));
	PG_RETURN_VOID();
}

/* singletable.describe_table(table_name) -> jsonb */
Datum
singletable_describe_table(PG_FUNCTION_ARGS)
{
	PG_RETURN_JSONB_P(st_describe_table(ARG_TEXT(0)));
}

/*
 * singletable.create_gsi(table_name, index_name, partition_key, sort_key,
 *   partition_key_type, sort_key_type, projection, non_key_attributes,
 *   concurrently) -> regclass of the PostgreSQL index (NULL when built
 *   concurrently: it does not exist yet)
 */
Datum
singletable_create_gsi(PG_FUNCTION_ARGS)
{
	StCreateGsiRequest req;
	Oid			indexrelid;

	req.table_name = ARG_TEXT(0);
	req.index_name = ARG_CSTRING(1);
	req.partition_key = ARG_CSTRING(2);
	req.sort_key = ARG_CSTRING(3);
	req.partition_key_type = ARG_CSTRING(4);
	req.sort_key_type = ARG_CSTRING(5);
	req.projection = ARG_CSTRING(6);
	req.non_key_attributes = ARG_ARRAY(7);
	/* concurrently: false when absent or NULL */
	req.concurrently = PG_NARGS() > 8 && !PG_ARGISNULL(8) && PG_GETARG_BOOL(8);
	indexrelid = st_create_gsi(&req);
	if (!OidIsValid(indexrelid))
		PG_RETURN_NULL();
	PG_RETURN_OID(indexrelid);
}

/*
 * singletable.create_lsi(table_name, index_name, sort_key, sort_key_type,
 *   projection, non_key_attributes) -> regclass of the PostgreSQL index
 */
Datum
singletable_create_lsi(PG_FUNCTION_ARGS)
{
	StCreateLsiRequest req;

	req.table_name = ARG_TEXT(0);
	req.index_name = ARG_CSTRING(1);
	req.sort_key = ARG_CSTRING(2);
	req.sort_key_type = ARG_CSTRING(3);
	req.projection = ARG_CSTRING(4);
	req.non_key_attributes = ARG_ARRAY(5);
	PG_RETURN_OID(st_create_lsi(&req));
}

/* singletable.drop_gsi(table_name, index_name) */
Datum
singletable_drop_gsi(PG_FUNCTION_ARGS)
{
	st_drop_gsi(ARG_TEXT(0), ARG_CSTRING(1));
	PG_RETURN_VOID();
}

/* singletable.drop_lsi(table_name, index_name) */
Datum
singletable_drop_lsi(PG_FUNCTION_ARGS)
{
	st_drop_lsi(ARG_TEXT(0), ARG_CSTRING(1));
	PG_RETURN_VOID();
}

/* singletable.index_sql(table_name, index_name) -> text */
Datum
singletable_index_sql(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(st_index_sql(ARG_TEXT(0), ARG_CSTRING(1))));
}

/* singletable.enable_ttl(table_name, attribute_name) */
Datum
singletable_enable_ttl(PG_FUNCTION_ARGS)
{
	st_enable_ttl(ARG_TEXT(0), ARG_CSTRING(1));
	PG_RETURN_VOID();
}

/* singletable.disable_ttl(table_name) */
Datum
singletable_disable_ttl(PG_FUNCTION_ARGS)
{
	st_disable_ttl(ARG_TEXT(0));
	PG_RETURN_VOID();
}

/* singletable.distribute_table(table_name, shard_count) */
Datum
singletable_distribute_table(PG_FUNCTION_ARGS)
{
	StDistributeRequest req;

	req.table_name = ARG_TEXT(0);
	req.has_shard_count = !PG_ARGISNULL(1);
	req.shard_count = req.has_shard_count ? PG_GETARG_INT32(1) : 0;
	st_distribute_table(&req);
	PG_RETURN_VOID();
}
