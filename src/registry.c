/*
 * registry.c — item-collection tables: create/drop/describe, the registry
 * singletable.tables, and the per-backend cache that makes a call cheap.
 *
 * A call resolves the table name to an OID (namespace search, locking the
 * table), then finds the cached StTable for that OID: key names and types read
 * once from the registry, and the SPI plans of its statements, prepared on
 * first use and kept (SPI_keepplan). A relcache invalidation of the table
 * (DROP, ALTER, RENAME, a new CREATE under the same name has another OID)
 * marks the entry stale; it is rebuilt on the next call.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

#include "registry.h"

PG_FUNCTION_INFO_V1(singletable_create_table);
PG_FUNCTION_INFO_V1(singletable_drop_table);
PG_FUNCTION_INFO_V1(singletable_describe_table);

#define ITEM_COLUMN "item"
#define REGISTRY "singletable.tables"

static HTAB *table_cache = NULL;

/* Relcache callback: marks the cached description of relid (or all) stale. */
static void
invalidate_table(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS status;
	StTable    *tab;

	if (table_cache == NULL)
		return;
	if (OidIsValid(relid))
	{
		tab = hash_search(table_cache, &relid, HASH_FIND, NULL);
		if (tab)
			tab->valid = false;
		return;
	}
	hash_seq_init(&status, table_cache);
	while ((tab = hash_seq_search(&status)) != NULL)
		tab->valid = false;
}

/* Creates the cache and registers its invalidation callback (from _PG_init). */
void
st_registry_init(void)
{
	HASHCTL		ctl;

	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(StTable);
	ctl.hcxt = CacheMemoryContext;
	table_cache = hash_create("singletable tables", 64, &ctl,
							  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	CacheRegisterRelcacheCallback(invalidate_table, (Datum) 0);
}

/* Frees the plans and strings of a stale entry. */
static void
release_entry(StTable *tab)
{
	for (int i = 0; i < ST_NUM_ITEM_PLANS; i++)
		if (tab->item_plans[i])
			SPI_freeplan(tab->item_plans[i]);
	for (int o = 0; o < ST_NUM_SK_OPS; o++)
		for (int f = 0; f < 2; f++)
			for (int s = 0; s < 2; s++)
				if (tab->query_plans[o][f][s])
					SPI_freeplan(tab->query_plans[o][f][s]);
	if (tab->cxt)
		MemoryContextDelete(tab->cxt);
	memset(((char *) tab) + sizeof(Oid), 0, sizeof(StTable) - sizeof(Oid));
}

/* Resolves a (possibly schema-qualified) table name; NULL-safe error text. */
static RangeVar *
name_to_rangevar(text *name)
{
	if (name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("table_name must not be NULL")));
	return makeRangeVarFromNameList(textToQualifiedNameList(name));
}

/*
 * Finds the item-collection table named by name, locked in lockmode, and its
 * cached description. Must be called inside SPI_connect.
 */
StTable *
st_table_open(text *name, LOCKMODE lockmode, AclMode required)
{
	RangeVar   *rv = name_to_rangevar(name);
	Oid			relid = RangeVarGetRelid(rv, lockmode, true);
	StTable    *tab;
	bool		found;

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("table \"%s\" does not exist", text_to_cstring(name)),
				 errdetail("Requested resource not found: Table: %s not found", text_to_cstring(name))));

	tab = hash_search(table_cache, &relid, HASH_ENTER, &found);
	if (found && tab->valid)
		return tab;
	if (found)
		release_entry(tab);
	else
		memset(((char *) tab) + sizeof(Oid), 0, sizeof(StTable) - sizeof(Oid));

	/* load the registry row */
	{
		Oid			argtypes[1] = {OIDOID};
		Datum		values[1] = {ObjectIdGetDatum(relid)};
		int			rc;
		HeapTuple	tup;
		TupleDesc	desc;
		bool		isnull;
		MemoryContext old;
		char	   *nsp;

		rc = SPI_execute_with_args("SELECT partition_key, partition_key_type, sort_key, sort_key_type"
								   " FROM " REGISTRY " WHERE table_name OPERATOR(pg_catalog.=) $1",
								   1, argtypes, values, NULL, true, 1);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "reading the singletable registry failed: %s", SPI_result_code_string(rc));
		if (SPI_processed == 0)
		{
			hash_search(table_cache, &relid, HASH_REMOVE, NULL);
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("table \"%s\" is not a singletable table", text_to_cstring(name)),
					 errhint("Item-collection tables are created with singletable.create_table().")));
		}
		tup = SPI_tuptable->vals[0];
		desc = SPI_tuptable->tupdesc;

		tab->cxt = AllocSetContextCreate(CacheMemoryContext, "singletable table",
										 ALLOCSET_SMALL_SIZES);
		old = MemoryContextSwitchTo(tab->cxt);
		tab->relname = get_rel_name(relid);
		nsp = get_namespace_name(get_rel_namespace(relid));
		tab->qualname = quote_qualified_identifier(nsp, tab->relname);
		tab->pk_name = TextDatumGetCString(SPI_getbinval(tup, desc, 1, &isnull));
		tab->pk_type = (StKeyType) TextDatumGetCString(SPI_getbinval(tup, desc, 2, &isnull))[0];
		SPI_getbinval(tup, desc, 3, &isnull);
		if (!isnull)
		{
			tab->sk_name = TextDatumGetCString(SPI_getbinval(tup, desc, 3, &isnull));
			tab->sk_type = (StKeyType) TextDatumGetCString(SPI_getbinval(tup, desc, 4, &isnull))[0];
		}
		MemoryContextSwitchTo(old);
	}
	tab->relid = relid;
	tab->valid = true;
	return tab;
}

/*
 * Prepares sql with argtypes and cursor options and keeps the plan for the
 * life of the entry.
 */
static SPIPlanPtr
prepare_kept(const char *sql, int nargs, Oid *argtypes, int cursor_options)
{
	SPIPlanPtr	plan = SPI_prepare_cursor(sql, nargs, argtypes, cursor_options);

	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed for \"%s\": %s", sql, SPI_result_code_string(SPI_result));
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "SPI_keepplan failed");
	return plan;
}

/* Appends "pk = $1 [AND sk = $2]" for the table's key. */
static void
append_key_match(StringInfo buf, StTable *tab)
{
	appendStringInfo(buf, "%s OPERATOR(pg_catalog.=) $1", quote_identifier(tab->pk_name));
	if (tab->sk_name)
		appendStringInfo(buf, " AND %s OPERATOR(pg_catalog.=) $2", quote_identifier(tab->sk_name));
}

/* Parameter types of the single-item statements: $1 pk, $2 sk (text when unused), $3 item. */
static void
item_argtypes(StTable *tab, Oid *argtypes)
{
	argtypes[0] = st_key_type_oid(tab->pk_type);
	argtypes[1] = tab->sk_name ? st_key_type_oid(tab->sk_type) : TEXTOID;
	argtypes[2] = JSONBOID;
}

/*
 * The prepared statement of one single-item operation. Parameters are always
 * $1 pk, $2 sk (unused without a sort key), $3 item.
 */
SPIPlanPtr
st_item_plan(StTable *tab, StPlanKind kind)
{
	StringInfoData buf;
	Oid			argtypes[3];

	if (tab->item_plans[kind])
		return tab->item_plans[kind];

	item_argtypes(tab, argtypes);

	initStringInfo(&buf);
	switch (kind)
	{
		case ST_PLAN_GET:
		case ST_PLAN_LOCK:
			appendStringInfo(&buf, "SELECT " ITEM_COLUMN " FROM %s WHERE ", tab->qualname);
			append_key_match(&buf, tab);
			if (kind == ST_PLAN_LOCK)
				appendStringInfoString(&buf, " FOR UPDATE");
			break;
		case ST_PLAN_UPDATE:
			appendStringInfo(&buf, "UPDATE %s SET " ITEM_COLUMN " = $3 WHERE ", tab->qualname);
			append_key_match(&buf, tab);
			break;
		case ST_PLAN_INSERT:
		case ST_PLAN_UPSERT:
			{
				const char *pk = quote_identifier(tab->pk_name);
				const char *sk = tab->sk_name ? quote_identifier(tab->sk_name) : NULL;

				appendStringInfo(&buf, "INSERT INTO %s (%s%s%s, " ITEM_COLUMN ") VALUES ($1%s, $3)",
								 tab->qualname, pk, sk ? ", " : "", sk ? sk : "", sk ? ", $2" : "");
				if (kind == ST_PLAN_INSERT)
					appendStringInfoString(&buf, " ON CONFLICT DO NOTHING");
				else
					appendStringInfo(&buf, " ON CONFLICT (%s%s%s) DO UPDATE SET " ITEM_COLUMN
									 " = EXCLUDED." ITEM_COLUMN,
									 pk, sk ? ", " : "", sk ? sk : "");
			}
			break;
		case ST_PLAN_DELETE:
			appendStringInfo(&buf, "DELETE FROM %s WHERE ", tab->qualname);
			append_key_match(&buf, tab);
			appendStringInfoString(&buf, " RETURNING " ITEM_COLUMN);
			break;
		default:
			elog(ERROR, "unknown plan kind %d", kind);
	}
	tab->item_plans[kind] = prepare_kept(buf.data, 3, argtypes, 0);
	pfree(buf.data);
	return tab->item_plans[kind];
}

/* Statement parameters as SPI_execute_plan_extended takes them (values are constants). */
ParamListInfo
st_param_list(int n, Datum *values, const char *nulls, Oid *argtypes)
{
	ParamListInfo params = makeParamList(n);

	for (int i = 0; i < n; i++)
	{
		params->params[i].value = values[i];
		params->params[i].isnull = (nulls[i] == 'n');
		params->params[i].pflags = PARAM_FLAG_CONST;
		params->params[i].ptype = argtypes[i];
	}
	return params;
}

/*
 * Where st_item_fetch puts the item of the first row: copied into the memory
 * of the SPI caller (SPI_palloc) straight from the executor's slot, so that
 * it outlives SPI_finish without SPI's tuple table and a second copy.
 */
typedef struct ItemReceiver
{
	DestReceiver pub;
	Jsonb	   *item;
} ItemReceiver;

static bool
item_receive(TupleTableSlot *slot, DestReceiver *self)
{
	ItemReceiver *r = (ItemReceiver *) self;
	bool		isnull;
	Datum		d = slot_getattr(slot, 1, &isnull);

	if (!isnull && r->item == NULL)
	{
		/* expanded in executor memory only when stored compressed, external or short */
		struct varlena *v = PG_DETOAST_DATUM(d);

		r->item = (Jsonb *) SPI_palloc(VARSIZE(v));
		memcpy(r->item, v, VARSIZE(v));
	}
	return true;
}

static void
dest_startup_noop(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

static void
dest_noop(DestReceiver *self)
{
}

/*
 * Sets up a receiver that only receives rows (no startup, shutdown or
 * destroy work; it lives on the caller's stack). mydest is DestNone, so SPI
 * reports a SELECT into it as SPI_OK_UTILITY and keeps no tuple table.
 */
void
st_dest_init(DestReceiver *dest, bool (*receive) (TupleTableSlot *slot, DestReceiver *self))
{
	dest->receiveSlot = receive;
	dest->rStartup = dest_startup_noop;
	dest->rShutdown = dest_noop;
	dest->rDestroy = dest_noop;
	dest->mydest = DestNone;
}

/*
 * Runs the kept statement kind (one that returns the item column, at most
 * one row: GET, LOCK, DELETE) with parameters values/nulls and returns the
 * item it returned, in the SPI caller's memory, or NULL.
 */
Jsonb *
st_item_fetch(StTable *tab, StPlanKind kind, Datum *values, const char *nulls, bool read_only)
{
	ItemReceiver recv;
	SPIExecuteOptions options;
	Oid			argtypes[3];
	int			rc;

	item_argtypes(tab, argtypes);
	memset(&recv, 0, sizeof(recv));
	st_dest_init(&recv.pub, item_receive);
	memset(&options, 0, sizeof(options));
	options.params = st_param_list(3, values, nulls, argtypes);
	options.read_only = read_only;
	/* a key matches at most one row; a DELETE must not be cut short anyway */
	options.tcount = (kind == ST_PLAN_DELETE) ? 0 : 1;
	options.dest = (DestReceiver *) &recv;
	rc = SPI_execute_plan_extended(st_item_plan(tab, kind), &options);
	/* a SELECT into a receiver other than SPI's own reports SPI_OK_UTILITY */
	if (rc < 0)
		elog(ERROR, "singletable statement failed: %s", SPI_result_code_string(rc));
	return recv.item;
}

/* Parameter types of the Query statements ($1 pk, $2/$3 bounds, $4 start, $5 limit). */
void
st_query_argtypes(StTable *tab, Oid *argtypes)
{
	Oid			skt = tab->sk_name ? st_key_type_oid(tab->sk_type) : TEXTOID;

	argtypes[0] = st_key_type_oid(tab->pk_type);
	argtypes[1] = skt;
	argtypes[2] = skt;
	argtypes[3] = skt;
	argtypes[4] = INT8OID;
}

/*
 * The SQL of a Query: every key condition is an index range on the primary
 * key (pk, sk), the start key of a page narrows that range, and ORDER BY
 * follows the index in either direction.
 */
char *
st_query_sql(StTable *tab, StSkOp op, bool forward, bool has_start)
{
	StringInfoData buf;
	const char *sk = tab->sk_name ? quote_identifier(tab->sk_name) : NULL;

	initStringInfo(&buf);
	appendStringInfo(&buf, "SELECT %s, " ITEM_COLUMN " FROM %s WHERE %s OPERATOR(pg_catalog.=) $1",
					 sk ? sk : "NULL::pg_catalog.text", tab->qualname, quote_identifier(tab->pk_name));
	switch (op)
	{
		case ST_SK_NONE:
			break;
		case ST_SK_EQ:
			appendStringInfo(&buf, " AND %s OPERATOR(pg_catalog.=) $2", sk);
			break;
		case ST_SK_LT:
			appendStringInfo(&buf, " AND %s OPERATOR(pg_catalog.<) $2", sk);
			break;
		case ST_SK_LE:
			appendStringInfo(&buf, " AND %s OPERATOR(pg_catalog.<=) $2", sk);
			break;
		case ST_SK_GT:
			appendStringInfo(&buf, " AND %s OPERATOR(pg_catalog.>) $2", sk);
			break;
		case ST_SK_GE:
			appendStringInfo(&buf, " AND %s OPERATOR(pg_catalog.>=) $2", sk);
			break;
		case ST_SK_BETWEEN:
			appendStringInfo(&buf, " AND %s OPERATOR(pg_catalog.>=) $2 AND %s OPERATOR(pg_catalog.<=) $3", sk, sk);
			break;
		case ST_SK_RANGE:
			appendStringInfo(&buf, " AND %s OPERATOR(pg_catalog.>=) $2 AND %s OPERATOR(pg_catalog.<) $3", sk, sk);
			break;
		default:
			elog(ERROR, "unknown sort key operator %d", op);
	}
	if (has_start)
		appendStringInfo(&buf, " AND %s OPERATOR(pg_catalog.%s) $4", sk, forward ? ">" : "<");
	if (sk)
		appendStringInfo(&buf, " ORDER BY %s%s", sk, forward ? "" : " DESC");
	appendStringInfoString(&buf, " LIMIT $5");
	return buf.data;
}

/*
 * The prepared statement of a Query shape, prepared on first use. It is
 * planned as a cursor that wants its first rows fast (cursor_tuple_fraction),
 * which is what a Query is: rows streamed in key order, often under a limit.
 * That makes the ordered index scan the plan for every collection that is
 * not a large part of the table, instead of a bitmap scan followed by a sort.
 */
SPIPlanPtr
st_query_plan(StTable *tab, StSkOp op, bool forward, bool has_start)
{
	SPIPlanPtr *slot = &tab->query_plans[op][forward ? 1 : 0][has_start ? 1 : 0];

	if (*slot == NULL)
	{
		Oid			argtypes[ST_QUERY_NARGS];
		char	   *sql = st_query_sql(tab, op, forward, has_start);

		st_query_argtypes(tab, argtypes);
		*slot = prepare_kept(sql, ST_QUERY_NARGS, argtypes, CURSOR_OPT_FAST_PLAN);
		pfree(sql);
	}
	return *slot;
}

/* Validates a key attribute name given to create_table. */
static char *
check_key_name(text *t, const char *param)
{
	char	   *s;
	int			len;

	if (t == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", param)));
	s = text_to_cstring(t);
	len = strlen(s);
	if (len < 1 || len > 255)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be 1 to 255 bytes long, not %d", param, len)));
	if (strcmp(s, ITEM_COLUMN) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s cannot be named \"%s\"", param, ITEM_COLUMN),
				 errdetail("The column \"%s\" holds the whole item.", ITEM_COLUMN)));
	return s;
}

/* Runs a statement on the registry as its owner (see create_table for why). */
static void
registry_execute_as_owner(const char *sql, int nargs, Oid *argtypes, Datum *values,
						  const char *nulls)
{
	Oid			save_userid;
	int			save_sec;
	Oid			regid = RangeVarGetRelid(makeRangeVar("singletable", "tables", -1),
										 RowExclusiveLock, false);
	HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(regid));
	Oid			owner;
	int			rc;

	if (!HeapTupleIsValid(tp))
		elog(ERROR, "cache lookup failed for relation %u", regid);
	owner = ((Form_pg_class) GETSTRUCT(tp))->relowner;
	ReleaseSysCache(tp);

	GetUserIdAndSecContext(&save_userid, &save_sec);
	SetUserIdAndSecContext(owner, save_sec | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	rc = SPI_execute_with_args(sql, nargs, argtypes, values, nulls, false, 0);
	SetUserIdAndSecContext(save_userid, save_sec);
	if (rc < 0)
		elog(ERROR, "updating the singletable registry failed: %s", SPI_result_code_string(rc));
}

/*
 * singletable.create_table(table_name, partition_key, sort_key,
 *                          partition_key_type, sort_key_type) -> regclass
 *
 * Creates, with the caller's rights, a table whose key attributes are real
 * columns under a btree primary key (S as text COLLATE "C", N numeric, B
 * bytea) and whose items live in one jsonb column, then registers it.
 */
Datum
singletable_create_table(PG_FUNCTION_ARGS)
{
	text	   *name = PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0);
	RangeVar   *rv = name_to_rangevar(name);
	char	   *pk_name = check_key_name(PG_ARGISNULL(1) ? NULL : PG_GETARG_TEXT_PP(1), "partition_key");
	char	   *sk_name = PG_ARGISNULL(2) ? NULL : check_key_name(PG_GETARG_TEXT_PP(2), "sort_key");
	StKeyType	pk_type,
				sk_type = ST_KEY_S;
	StringInfoData sql;
	Oid			relid;
	const char *qualname;

	if (PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("partition_key_type must not be NULL")));
	pk_type = st_key_type_from_text(text_to_cstring(PG_GETARG_TEXT_PP(3)), "partition_key_type");
	if (sk_name)
	{
		if (PG_ARGISNULL(4))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("sort_key_type must not be NULL when sort_key is given")));
		sk_type = st_key_type_from_text(text_to_cstring(PG_GETARG_TEXT_PP(4)), "sort_key_type");
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
	if (rv->schemaname)
		(void) LookupExplicitNamespace(rv->schemaname, false);
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
	appendStringInfo(&sql, ", " ITEM_COLUMN " pg_catalog.jsonb NOT NULL, PRIMARY KEY (%s",
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
		Oid			argtypes[5] = {OIDOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID};
		char		pkt[2] = {(char) pk_type, 0};
		char		skt[2] = {(char) sk_type, 0};
		Datum		values[5];
		char		nulls[5] = {' ', ' ', ' ', sk_name ? ' ' : 'n', sk_name ? ' ' : 'n'};

		values[0] = ObjectIdGetDatum(relid);
		values[1] = CStringGetTextDatum(pk_name);
		values[2] = CStringGetTextDatum(pkt);
		values[3] = sk_name ? CStringGetTextDatum(sk_name) : (Datum) 0;
		values[4] = sk_name ? CStringGetTextDatum(skt) : (Datum) 0;
		registry_execute_as_owner("INSERT INTO " REGISTRY
								  " (table_name, partition_key, partition_key_type, sort_key, sort_key_type)"
								  " VALUES ($1::pg_catalog.regclass, $2, $3, $4, $5)",
								  5, argtypes, values, nulls);
	}
	SPI_finish();
	PG_RETURN_OID(relid);
}

/*
 * singletable.drop_table(table_name): drops an item-collection table with the
 * caller's rights; the sql_drop event trigger removes its registry row.
 */
Datum
singletable_drop_table(PG_FUNCTION_ARGS)
{
	StTable    *tab;
	char	   *sql;

	SPI_connect();
	tab = st_table_open(PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0), AccessExclusiveLock, 0);
	sql = psprintf("DROP TABLE %s", tab->qualname);
	if (SPI_execute(sql, false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "DROP TABLE failed");
	SPI_finish();
	PG_RETURN_VOID();
}

/*
 * singletable.describe_table(table_name) -> jsonb, in the shape of
 * DynamoDB's DescribeTable: key schema, attribute types, item count
 * estimate (pg_class.reltuples) and total size on disk.
 */
Datum
singletable_describe_table(PG_FUNCTION_ARGS)
{
	StTable    *tab;
	Oid			argtypes[6] = {OIDOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID};
	Datum		values[6];
	char		nulls[6] = {' ', ' ', ' ', ' ', ' ', ' '};
	char		pkt[2] = {0, 0},
				skt[2] = {0, 0};
	Datum		result;
	bool		isnull;

	SPI_connect();
	tab = st_table_open(PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0), AccessShareLock, ACL_SELECT);
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
							  " 'ItemCount', GREATEST(c.reltuples, 0)::pg_catalog.int8,"
							  " 'TableSizeBytes', pg_catalog.pg_total_relation_size(c.oid),"
							  " 'Schema', n.nspname)"
							  " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace"
							  " WHERE c.oid OPERATOR(pg_catalog.=) $1",
							  6, argtypes, values, nulls, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "describing table \"%s\" failed", tab->relname);
	result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	result = SPI_datumTransfer(result, false, -1);
	SPI_finish();
	PG_RETURN_DATUM(result);
}
