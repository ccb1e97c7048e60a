/*
 * tables.c — DDL of item-collection tables (commands.h): st_create_table,
 * st_drop_table and st_describe_table, behind the SQL functions of those
 * names (functions/sql_ddl.c) and the JSON API's CreateTable, DeleteTable
 * and DescribeTable.
 *
 * create_table runs CREATE TABLE with the caller's rights (the caller owns
 * the table), then writes the registry row as the registry's owner: callers
 * need no write access to singletable.tables. Every registry change
 * invalidates the table's relcache entry, which every backend's cache
 * listens to (registry.c). drop_table and describe_table check ownership or
 * SELECT before the lock (st_table_open); DROP names the table as the
 * catalog knows it under the lock, never by cached text, so a renamed
 * schema cannot make it drop another table.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "nodes/makefuncs.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "pgstat.h"
#include "utils/inval.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "catalog/distribute.h"
#include "format/jsonpush.h"
#include "catalog/indexes.h"
#include "catalog/entities.h"
#include "catalog/registry.h"
#include "commands/commands.h"
#include "commands/commands_internal.h"

/*
 * A sparse index's share of the items is measured on at most this many
 * items (ANALYZE's default sample is 30,000 rows as well).
 */
#define ST_COUNT_SAMPLE_ITEMS 30000

/* Validates a key attribute name given to create_table (NULL: not given). */
static const char *
check_key_name(const char *s, const char *param)
{
	int			len;

	if (s == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", param)));
	len = strlen(s);
	if (len < 1 || len > 255)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be 1 to 255 bytes long, not %d", param, len)));
	if (strcmp(s, ST_ITEM_COLUMN) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s cannot be named \"%s\"", param, ST_ITEM_COLUMN),
				 errdetail("The column \"%s\" holds the whole item.", ST_ITEM_COLUMN)));
	return s;
}

/*
 * Refuses to create a temporary table, named in pg_temp or created there
 * because pg_temp comes first in search_path: the registry row would outlive
 * it (the sql_drop event trigger does not fire for the drop at session end),
 * and pg_dump would export it as a bare OID. Checked before anything is
 * created (finding the creation schema may create this session's temporary
 * schema, which the error rolls back). Unlogged tables are not made here;
 * one turned unlogged later by ALTER TABLE is an ordinary permanent table as
 * far as the registry is concerned.
 */
static void
refuse_temporary(RangeVar *rv, text *name)
{
	bool		temp = rv->relpersistence == RELPERSISTENCE_TEMP ||
		isAnyTempNamespace(RangeVarGetCreationNamespace(rv));

	if (temp)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" would be a temporary table, which singletable does not support",
						text_to_cstring(name)),
				 errdetail("The registry singletable.tables keeps one row per table, which would outlive a temporary table."),
				 errhint("Name the table in a permanent schema.")));
}

/*
 * Creates, with the caller's rights, a table whose key attributes are real
 * columns under a btree primary key (S as text COLLATE "C", N numeric, B
 * bytea) and whose items live in one jsonb column, then registers it
 * (singletable.create_table(table_name, partition_key, sort_key,
 * partition_key_type, sort_key_type) -> regclass).
 */
Oid
st_create_table(const StCreateTableRequest *req)
{
	text	   *name = req->table_name;
	RangeVar   *rv = st_name_to_rangevar(name);
	const char *pk_name = check_key_name(req->partition_key, "partition_key");
	const char *sk_name = req->sort_key == NULL ? NULL : check_key_name(req->sort_key, "sort_key");
	StKeyType	pk_type,
				sk_type = ST_KEY_S;
	StringInfoData sql;
	Oid			relid;
	Oid			nspid;
	AclResult	aclresult;
	const char *qualname;

	if (req->partition_key_type == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("partition_key_type must not be NULL")));
	pk_type = st_key_type_from_text(req->partition_key_type, "partition_key_type");
	if (sk_name)
	{
		if (req->sort_key_type == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("sort_key_type must not be NULL when sort_key is given")));
		sk_type = st_key_type_from_text(req->sort_key_type, "sort_key_type");
		if (strcmp(pk_name, sk_name) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("partition_key and sort_key must be different attributes, both are \"%s\"",
							pk_name)));
	}
	if (GetDatabaseEncoding() != PG_UTF8)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("singletable needs a UTF8 database, this one is %s",
						GetDatabaseEncodingName()),
				 errdetail("S keys sort by the bytes of their UTF-8 encoding.")));

	/* clear errors for the common mistakes before running any DDL */
	refuse_temporary(rv, name);
	if (rv->schemaname)
		(void) LookupExplicitNamespace(rv->schemaname, false);

	/*
	 * Two create_table calls of one name at once: the second must get
	 * duplicate_table, not the unique violation of pg_type that CREATE TABLE
	 * raises when both got past the check below. A self-conflicting lock on
	 * the schema (which plain CREATE TABLE, holding ACCESS SHARE on it, does
	 * not conflict with) orders them; the second sees the first's table once
	 * it has the lock. Only for a role that may create there.
	 */
	nspid = RangeVarGetCreationNamespace(rv);
	aclresult = pg_namespace_aclcheck(nspid, GetUserId(), ACL_CREATE);
	if (aclresult != ACLCHECK_OK)
		aclcheck_error(aclresult, OBJECT_SCHEMA, get_namespace_name(nspid));
	LockDatabaseObject(NamespaceRelationId, nspid, 0, ShareUpdateExclusiveLock);
	if (OidIsValid(RangeVarGetRelid(rv, NoLock, true)))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_TABLE),
				 errmsg("table \"%s\" already exists", text_to_cstring(name))));
	qualname = rv->schemaname ? quote_qualified_identifier(rv->schemaname, rv->relname)
		: quote_identifier(rv->relname);

	initStringInfo(&sql);
	appendStringInfo(&sql, "CREATE TABLE %s (%s %s NOT NULL", qualname,
					 quote_identifier(pk_name), st_key_sql_type(pk_type));
	if (sk_name)
		appendStringInfo(&sql, ", %s %s NOT NULL", quote_identifier(sk_name), st_key_sql_type(sk_type));
	appendStringInfo(&sql, ", " ST_ITEM_COLUMN " pg_catalog.jsonb NOT NULL, PRIMARY KEY (%s",
					 quote_identifier(pk_name));
	if (sk_name)
		appendStringInfo(&sql, ", %s", quote_identifier(sk_name));
	appendStringInfoString(&sql, "))");

	SPI_connect();
	if (SPI_execute(sql.data, false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "CREATE TABLE failed");
	relid = RangeVarGetRelid(rv, NoLock, false);

	/*
	 * The registry row is written as the registry's owner: callers need not
	 * (and should not) have write access to singletable.tables. The caller
	 * has just created the table with their own rights, so they own it.
	 */
	{
		Oid			argtypes[6] = {OIDOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID};
		char		pkt[2] = {(char) pk_type, 0};
		char		skt[2] = {(char) sk_type, 0};
		Datum		values[6];
		char		nulls[6] = {' ', ' ', ' ', sk_name ? ' ' : 'n', sk_name ? ' ' : 'n', req->dynamodb_name ? ' ' : 'n'};

		values[0] = ObjectIdGetDatum(relid);
		values[1] = CStringGetTextDatum(pk_name);
		values[2] = CStringGetTextDatum(pkt);
		values[3] = sk_name ? CStringGetTextDatum(sk_name) : (Datum) 0;
		values[4] = sk_name ? CStringGetTextDatum(skt) : (Datum) 0;
		values[5] = req->dynamodb_name ? CStringGetTextDatum(req->dynamodb_name) : (Datum) 0;
		/* dynamodb_name only when given: a 0.1.0 registry (not yet updated) has no such column */
		st_registry_execute_as_owner("tables", req->dynamodb_name ?
									 "INSERT INTO " ST_REGISTRY
									 " (table_name, partition_key, partition_key_type, sort_key, sort_key_type, dynamodb_name)"
									 " VALUES ($1::pg_catalog.regclass, $2, $3, $4, $5, $6)" :
									 "INSERT INTO " ST_REGISTRY
									 " (table_name, partition_key, partition_key_type, sort_key, sort_key_type)"
									 " VALUES ($1::pg_catalog.regclass, $2, $3, $4, $5)",
									 req->dynamodb_name ? 6 : 5, argtypes, values, nulls);
	}

	/*
	 * Every backend's cache of this table (a stale entry is possible only if
	 * the OID was reused) must see the registry row: the relcache
	 * invalidation reaches them all at commit, and this backend at once.
	 */
	CacheInvalidateRelcacheByRelid(relid);
	SPI_finish();
	return relid;
}

/*
 * Drops an item-collection table with the caller's rights; the sql_drop
 * event trigger removes its registry row, and the drop invalidates the
 * dropped relation's cache entries.
 */
void
st_drop_table(text *table_name)
{
	StTable    *tab;
	char	   *nsp;
	char	   *rel;
	char	   *sql;

	SPI_connect();
	tab = st_table_open(table_name, AccessExclusiveLock, ST_ACL_OWNER);

	/* the name the catalog gives the locked table now, not the cached text */
	nsp = get_namespace_name(get_rel_namespace(tab->relid));
	rel = get_rel_name(tab->relid);
	if (nsp == NULL || rel == NULL)
		elog(ERROR, "cache lookup failed for relation %u", tab->relid);
	/* the entity views made from the registry go with the table, as its indexes do */
	st_entity_views_drop_all(tab);
	sql = psprintf("DROP TABLE %s", quote_qualified_identifier(nsp, rel));
	if (SPI_execute(sql, false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "DROP TABLE failed");
	SPI_finish();
}

/* pg_class.reltuples of a relation (-1: never vacuumed or analysed). */
static float4
rel_reltuples(Oid relid)
{
	HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	float4		reltuples;

	if (!HeapTupleIsValid(tp))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	reltuples = ((Form_pg_class) GETSTRUCT(tp))->reltuples;
	ReleaseSysCache(tp);
	return reltuples;
}

/*
 * The items in a table now. On a table analysed or vacuumed with items: the
 * cumulative statistics' live tuples, which every session reports at most
 * seconds after its commits (reltuples when the statistics hold no entry,
 * after a crash or pg_stat_reset). On a table never analysed, or empty when
 * last analysed, the statistics may not have heard of the latest writes
 * yet: the items are counted, up to ST_COUNT_SAMPLE_ITEMS (the work stays
 * bounded); beyond, the statistics' count, of which the bound is a floor.
 */
static int64
table_item_count(StTable *tab, float4 reltuples)
{
	PgStat_StatTabEntry *e = pgstat_fetch_stat_tabentry(tab->relid);
	int64		live = e != NULL ? Max(e->n_live_tuples, 0) : -1;
	int64		counted;
	bool		isnull;

	/* a distributed table's figures are its shards' (st_distributed_table_size) */
	if (reltuples > 0 || st_citus_table(tab->relid))
		return live >= 0 ? live : Max((int64) reltuples, 0);
	if (SPI_execute(psprintf("SELECT pg_catalog.count(*) FROM (SELECT FROM %s LIMIT %d) s",
							 tab->qualname, ST_COUNT_SAMPLE_ITEMS + 1), true, 1) != SPI_OK_SELECT)
		elog(ERROR, "counting the items of table \"%s\" failed", tab->relname);
	counted = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	if (counted <= ST_COUNT_SAMPLE_ITEMS)
		return counted;
	return Max(live, counted);
}

/*
 * The items in a secondary index now, for a table of `items` items. An index
 * without predicate holds every item. A sparse one holds the share of the
 * items that its predicate admits: as of the last VACUUM or ANALYZE (which
 * set both relations' reltuples), or, on a table never analysed, measured
 * now: exactly up to ST_COUNT_SAMPLE_ITEMS items, else on a sample of the
 * table's pages of about that many items, so that the work stays bounded.
 */
static int64
index_item_count(StTable *tab, StIndex *idx, int64 items, float4 table_reltuples)
{
	float4		index_reltuples;
	Oid			argtypes[1] = {FLOAT8OID};
	Datum		args[1];
	bool		isnull;
	double		matched,
				sampled;

	if (items <= 0 || !idx->active || !OidIsValid(idx->indexrelid))
		return 0;
	if (idx->predicate == NULL)
		return items;
	index_reltuples = rel_reltuples(idx->indexrelid);
	if (table_reltuples > 0 && index_reltuples >= 0)
		return (int64) rint((double) items * Min(1.0, index_reltuples / table_reltuples));

	if (items <= ST_COUNT_SAMPLE_ITEMS)
	{
		if (SPI_execute(psprintf("SELECT pg_catalog.count(*) FROM %s WHERE %s",
								 tab->qualname, idx->predicate), true, 1) != SPI_OK_SELECT)
			elog(ERROR, "counting the items of index \"%s\" failed", idx->name);
		return DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	}
	args[0] = Float8GetDatum(100.0 * ST_COUNT_SAMPLE_ITEMS / (double) items);
	if (SPI_execute_with_args(psprintf("SELECT pg_catalog.count(*) FILTER (WHERE %s)::pg_catalog.float8,"
									   " pg_catalog.count(*)::pg_catalog.float8"
									   " FROM %s TABLESAMPLE SYSTEM ($1)",
									   idx->predicate, tab->qualname),
							  1, argtypes, args, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "sampling the items of index \"%s\" failed", idx->name);
	matched = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	sampled = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	return sampled > 0 ? (int64) rint((double) items * matched / sampled) : 0;
}

/*
 * The ItemCount of each index of tab, as a jsonb object {index name: count}
 * for describe_table's index query.
 */
static Datum
index_item_counts(StTable *tab, int64 items, float4 table_reltuples)
{
	JsonbParseState *st = NULL;
	JsonbValue *obj;

	(void) pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < tab->n_indexes; i++)
		st_push_int(&st, tab->indexes[i].name,
					index_item_count(tab, &tab->indexes[i], items, table_reltuples));
	obj = pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	return JsonbPGetDatum(JsonbValueToJsonb(obj));
}

/*
 * A number of a distributed index's figures ([entries, bytes], see
 * st_distributed_table_size) in figures, 0 when the index has none.
 */
static double
distributed_index_figure(Jsonb *figures, const char *pg_index_name, int n)
{
	JsonbValue	v;
	JsonbValue *num;

	if (pg_index_name == NULL ||
		!getKeyJsonValueFromContainer(&figures->root, pg_index_name, strlen(pg_index_name), &v) ||
		v.type != jbvBinary)
		return 0;
	num = getIthJsonbValueFromContainer(v.val.binary.data, n);
	if (num == NULL || num->type != jbvNumeric)
		return 0;
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(num->val.numeric)));
}

/*
 * The ItemCount of each index of distributed table tab (items items) and
 * its size, {index name: bytes} into *sizes, from the figures of the
 * index's copies on the shards (st_distributed_table_size): an index
 * without predicate holds every item, a sparse one its shards' entries
 * (their reltuples, set when each was built and by VACUUM and ANALYZE since).
 */
static Datum
distributed_index_figures(StTable *tab, int64 items, Jsonb *figures, Datum *sizes)
{
	JsonbParseState *cst = NULL;
	JsonbParseState *sst = NULL;
	JsonbValue *counts;
	JsonbValue *bytes;

	(void) pushJsonbValue(&cst, WJB_BEGIN_OBJECT, NULL);
	(void) pushJsonbValue(&sst, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < tab->n_indexes; i++)
	{
		StIndex    *idx = &tab->indexes[i];
		double		tuples = distributed_index_figure(figures, idx->pg_index_name, 0);

		st_push_int(&cst, idx->name, !idx->active || items <= 0 ? 0 :
					idx->predicate == NULL ? items : Min(items, (int64) rint(Max(tuples, 0))));
		st_push_int(&sst, idx->name, (int64) distributed_index_figure(figures, idx->pg_index_name, 1));
	}
	counts = pushJsonbValue(&cst, WJB_END_OBJECT, NULL);
	bytes = pushJsonbValue(&sst, WJB_END_OBJECT, NULL);
	*sizes = JsonbPGetDatum(JsonbValueToJsonb(bytes));
	return JsonbPGetDatum(JsonbValueToJsonb(counts));
}

/*
 * A table in the shape of DynamoDB's DescribeTable: key schema, attribute
 * types, the item counts of the table and of each index (table_item_count,
 * index_item_count) and sizes on disk.
 */
Jsonb *
st_describe_table(text *table_name)
{
	StTable    *tab;
	Oid			argtypes[7] = {OIDOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, INT8OID};
	Datum		values[7];
	char		nulls[7] = {' ', ' ', ' ', ' ', ' ', ' ', ' '};
	float4		reltuples;
	int64		items;
	Datum		index_counts = (Datum) 0;
	Datum		index_sizes = (Datum) 0;	/* a distributed table's: {index: bytes} */
	int64		dist_bytes = 0;
	char		pkt[2] = {0, 0},
				skt[2] = {0, 0};
	Datum		result;
	bool		isnull;

	SPI_connect();
	tab = st_table_open(table_name, AccessShareLock, ACL_SELECT);
	pkt[0] = (char) tab->pk_type;
	skt[0] = (char) tab->sk_type;
	values[0] = ObjectIdGetDatum(tab->relid);
	values[1] = CStringGetTextDatum(tab->relname);
	values[2] = CStringGetTextDatum(tab->pk_name);
	values[3] = CStringGetTextDatum(pkt);
	if (tab->sk_name)
	{
		values[4] = CStringGetTextDatum(tab->sk_name);
		values[5] = CStringGetTextDatum(skt);
	}
	else
		nulls[4] = nulls[5] = 'n';
	reltuples = rel_reltuples(tab->relid);
	if (tab->distributed)
	{
		/* the coordinator's table and indexes are empty shells: the figures are the shards' */
		Datum		figures;

		st_distributed_table_size(tab, &items, &dist_bytes, &figures);
		if (tab->n_indexes > 0)
			index_counts = distributed_index_figures(tab, items, DatumGetJsonbP(figures), &index_sizes);
	}
	else
	{
		items = table_item_count(tab, reltuples);
		if (tab->n_indexes > 0)
			index_counts = index_item_counts(tab, items, reltuples);
	}
	values[6] = Int64GetDatum(items);

	if (SPI_execute_with_args(
							  "SELECT pg_catalog.jsonb_build_object("
							  " 'TableName', $2,"
							  " 'TableStatus', 'ACTIVE',"
							  " 'KeySchema', pg_catalog.jsonb_build_array("
							  "    pg_catalog.jsonb_build_object('AttributeName', $3, 'KeyType', 'HASH'))"
							  "  OPERATOR(pg_catalog.||) CASE WHEN $5 IS NULL THEN '[]'::pg_catalog.jsonb ELSE"
							  "    pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object('AttributeName', $5, 'KeyType', 'RANGE')) END,"
							  " 'AttributeDefinitions', pg_catalog.jsonb_build_array("
							  "    pg_catalog.jsonb_build_object('AttributeName', $3, 'AttributeType', $4))"
							  "  OPERATOR(pg_catalog.||) CASE WHEN $5 IS NULL THEN '[]'::pg_catalog.jsonb ELSE"
							  "    pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object('AttributeName', $5, 'AttributeType', $6)) END,"
							  " 'ItemCount', $7,"
							  " 'TableSizeBytes', pg_catalog.pg_total_relation_size(c.oid),"
							  " 'Schema', n.nspname)"
							  " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace"
							  " WHERE c.oid OPERATOR(pg_catalog.=) $1",
							  7, argtypes, values, nulls, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "describing table \"%s\" failed", tab->relname);
	result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (tab->n_indexes > 0)
	{
		/* only an installation with an index registry has indexes to show */
		Oid			gargtypes[4] = {OIDOID, JSONBOID, JSONBOID, JSONBOID};
		Datum		gvalues[4] = {ObjectIdGetDatum(tab->relid), result, index_counts, index_sizes};
		char		gnulls[4] = {' ', ' ', ' ', index_sizes ? ' ' : 'n'};

		/*
		 * Each index in DynamoDB's shape (a multi-attribute key lists its
		 * HASH then its RANGE attributes in order), GSIs and LSIs in their
		 * own arrays (absent when empty), and the index key attributes
		 * added to AttributeDefinitions, each name once.
		 */
		if (SPI_execute_with_args(
								  "WITH i AS ("
								  " SELECT i.index_name, i.index_type, pg_catalog.jsonb_build_object("
								  "  'IndexName', i.index_name,"
								  "  'KeySchema', (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('AttributeName', a.n, 'KeyType', a.k) ORDER BY a.o)"
								  "     FROM (SELECT n, 'HASH' AS k, o FROM pg_catalog.unnest(i.partition_key) WITH ORDINALITY u(n, o)"
								  "           UNION ALL SELECT n, 'RANGE', 10 OPERATOR(pg_catalog.+) o FROM pg_catalog.unnest(i.sort_key) WITH ORDINALITY u(n, o)) a),"
								  "  'Projection', pg_catalog.jsonb_build_object('ProjectionType', i.projection)"
								  "   OPERATOR(pg_catalog.||) CASE WHEN i.non_key_attributes IS NULL THEN '{}'::pg_catalog.jsonb ELSE"
								  "     pg_catalog.jsonb_build_object('NonKeyAttributes', pg_catalog.to_jsonb(i.non_key_attributes)) END,"
								  "  'IndexStatus', i.status,"
								  "  'ItemCount', ($3 OPERATOR(pg_catalog.->) i.index_name),"
								  "  'IndexSizeBytes', COALESCE(($4 OPERATOR(pg_catalog.->>) i.index_name)::pg_catalog.int8,"
								  "                              pg_catalog.pg_relation_size(ic.oid), 0))"
								  "  OPERATOR(pg_catalog.||) CASE WHEN i.index_type OPERATOR(pg_catalog.=) 'GSI'"
								  "   THEN pg_catalog.jsonb_build_object('Backfilling', i.status OPERATOR(pg_catalog.=) 'CREATING') ELSE '{}' END"
								  "  OPERATOR(pg_catalog.||) CASE WHEN i.build_error IS NULL THEN '{}'::pg_catalog.jsonb"
								  "   ELSE pg_catalog.jsonb_build_object('BuildError', i.build_error) END AS d"
								  " FROM singletable.indexes i"
								  " JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) i.table_name::pg_catalog.oid"
								  " LEFT JOIN pg_catalog.pg_class ic ON ic.relname OPERATOR(pg_catalog.=) i.pg_index"
								  "  AND ic.relnamespace OPERATOR(pg_catalog.=) c.relnamespace"
								  " WHERE i.table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass),"
								  " defs AS ("
								  " SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('AttributeName', a.n, 'AttributeType', a.t) ORDER BY a.n COLLATE pg_catalog.\"C\") AS extra"
								  " FROM (SELECT DISTINCT ON (n) n, t FROM singletable.indexes i,"
								  "        LATERAL (SELECT * FROM ROWS FROM (pg_catalog.unnest(i.partition_key), pg_catalog.unnest(i.partition_key_type)) u(n, t)"
								  "                 UNION ALL SELECT * FROM ROWS FROM (pg_catalog.unnest(i.sort_key), pg_catalog.unnest(i.sort_key_type)) u(n, t)) k"
								  "       WHERE i.table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass"
								  "         AND NOT ($2 OPERATOR(pg_catalog.->) 'AttributeDefinitions') OPERATOR(pg_catalog.@>)"
								  "             pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object('AttributeName', k.n))"
								  "       ORDER BY n, t) a)"
								  " SELECT $2 OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('AttributeDefinitions',"
								  "  ($2 OPERATOR(pg_catalog.->) 'AttributeDefinitions') OPERATOR(pg_catalog.||) COALESCE((SELECT extra FROM defs), '[]'))"
								  "  OPERATOR(pg_catalog.||) COALESCE((SELECT pg_catalog.jsonb_build_object('GlobalSecondaryIndexes',"
								  "     pg_catalog.jsonb_agg(d ORDER BY index_name COLLATE pg_catalog.\"C\")) FROM i"
								  "     WHERE index_type OPERATOR(pg_catalog.=) 'GSI' HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0), '{}')"
								  "  OPERATOR(pg_catalog.||) COALESCE((SELECT pg_catalog.jsonb_build_object('LocalSecondaryIndexes',"
								  "     pg_catalog.jsonb_agg(d ORDER BY index_name COLLATE pg_catalog.\"C\")) FROM i"
								  "     WHERE index_type OPERATOR(pg_catalog.=) 'LSI' HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0), '{}')",
								  4, gargtypes, gvalues, gnulls, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "describing the indexes of table \"%s\" failed", tab->relname);
		result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
		if (isnull)
			elog(ERROR, "describing the indexes of table \"%s\" failed", tab->relname);
	}
	if (tab->ttl_attr)
	{
		/* DynamoDB's DescribeTimeToLive shape */
		Oid			targtypes[2] = {JSONBOID, TEXTOID};
		Datum		tvalues[2] = {result, CStringGetTextDatum(tab->ttl_attr)};

		if (SPI_execute_with_args("SELECT $1 OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('TimeToLiveDescription',"
								  " pg_catalog.jsonb_build_object('AttributeName', $2, 'TimeToLiveStatus', 'ENABLED'))",
								  2, targtypes, tvalues, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "describing table \"%s\" failed", tab->relname);
		result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	}
	if (tab->n_entities > 0)
	{
		/* the entities (singletable.entities): not DynamoDB's, which SDKs ignore */
		Oid			eargtypes[2] = {JSONBOID, OIDOID};
		Datum		evalues[2] = {result, ObjectIdGetDatum(tab->relid)};

		if (SPI_execute_with_args("SELECT $1 OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('Entities',"
								  " pg_catalog.jsonb_agg(pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object("
								  "  'Entity', e.entity, 'PartitionKey', e.pk_template, 'SortKey', e.sk_template,"
								  "  'Indexes', e.index_templates, 'Attributes', e.attributes))"
								  "  ORDER BY e.entity COLLATE pg_catalog.\"C\"))"
								  " FROM " ST_ENTITY_REGISTRY " e WHERE e.table_name OPERATOR(pg_catalog.=) $2",
								  2, eargtypes, evalues, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "describing the entities of table \"%s\" failed", tab->relname);
		result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	}
	{
		/* a table distributed with Citus says so */
		Datum		dist = st_table_distribution(tab);

		if (dist != (Datum) 0)
		{
			Oid			dargtypes[4] = {JSONBOID, JSONBOID, INT8OID, INT8OID};
			Datum		dvalues[4] = {result, dist, 0, 0};

			/* read from the shards above (tab->distributed) */
			dvalues[2] = Int64GetDatum(items);
			dvalues[3] = Int64GetDatum(dist_bytes);
			if (SPI_execute_with_args("SELECT $1 OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('TableDistribution', $2,"
									  " 'ItemCount', $3, 'TableSizeBytes', $4)",
									  4, dargtypes, dvalues, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
				elog(ERROR, "describing table \"%s\" failed", tab->relname);
			result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
		}
	}
	/* into the caller's memory context */
	result = SPI_datumTransfer(result, false, -1);
	SPI_finish();
	return DatumGetJsonbP(result);
}
