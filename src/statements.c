/*
 * statements.c — the statements singletable runs on an item table.
 *
 * Every operation is one of a few statement shapes per table: the
 * single-item statements (get, get for update, update, insert, upsert,
 * delete), all taking $1 pk, $2 sk, $3 item, and the Query statements, one
 * per sort-key condition, direction and paging, all index ranges on the
 * primary key. Their SQL names the table by its quoted qualified name as the
 * cache entry holds it (built under the table's lock, refreshed whenever the
 * table or any schema changes) and compares with OPERATOR(pg_catalog.x), so
 * that search_path cannot change what they do. Each is prepared on first use
 * and kept (SPI_keepplan) in the table's cache entry until the entry is
 * invalidated; registry.c frees them, never while one may be running.
 *
 * Results come back through row-only receivers: st_item_fetch copies the
 * item of the first row straight from the executor's slot into the caller's
 * memory, without SPI's tuple table.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "nodes/params.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "indexes.h"
#include "registry.h"
#include "statements.h"

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

	Assert(kind >= 0 && kind < ST_NUM_ITEM_PLANS);
	Assert(tab->cxt != NULL && tab->qualname != NULL);
	if (tab->item_plans[kind])
		return tab->item_plans[kind];
	Assert(st_spi_connected());

	item_argtypes(tab, argtypes);

	initStringInfo(&buf);
	switch (kind)
	{
		case ST_PLAN_GET:
		case ST_PLAN_LOCK:
			appendStringInfo(&buf, "SELECT " ST_ITEM_COLUMN " FROM %s WHERE ", tab->qualname);
			append_key_match(&buf, tab);
			if (kind == ST_PLAN_LOCK)
				appendStringInfoString(&buf, " FOR UPDATE");
			break;
		case ST_PLAN_UPDATE:
			appendStringInfo(&buf, "UPDATE %s SET " ST_ITEM_COLUMN " = $3 WHERE ", tab->qualname);
			append_key_match(&buf, tab);
			break;
		case ST_PLAN_INSERT:
		case ST_PLAN_UPSERT:
			{
				const char *pk = quote_identifier(tab->pk_name);
				const char *sk = tab->sk_name ? quote_identifier(tab->sk_name) : NULL;

				appendStringInfo(&buf, "INSERT INTO %s (%s%s%s, " ST_ITEM_COLUMN ") VALUES ($1%s, $3)",
								 tab->qualname, pk, sk ? ", " : "", sk ? sk : "", sk ? ", $2" : "");
				if (kind == ST_PLAN_INSERT)
					appendStringInfoString(&buf, " ON CONFLICT DO NOTHING");
				else
					appendStringInfo(&buf, " ON CONFLICT (%s%s%s) DO UPDATE SET " ST_ITEM_COLUMN
									 " = EXCLUDED." ST_ITEM_COLUMN,
									 pk, sk ? ", " : "", sk ? sk : "");
			}
			break;
		case ST_PLAN_DELETE:
			appendStringInfo(&buf, "DELETE FROM %s WHERE ", tab->qualname);
			append_key_match(&buf, tab);
			appendStringInfoString(&buf, " RETURNING " ST_ITEM_COLUMN);
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

/* Receives a row of st_item_fetch's statement: keeps the item of the first. */
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

/* A receiver's startup that has nothing to set up. */
static void
dest_startup_noop(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

/* A receiver's shutdown or destroy that has nothing to release. */
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

	/* the item is copied with SPI_palloc, into the memory of the SPI caller */
	Assert(st_spi_connected());
	Assert(kind == ST_PLAN_GET || kind == ST_PLAN_LOCK || kind == ST_PLAN_DELETE);
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
	appendStringInfo(&buf, "SELECT %s, " ST_ITEM_COLUMN " FROM %s WHERE %s OPERATOR(pg_catalog.=) $1",
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
	SPIPlanPtr *slot;

	Assert(op >= 0 && op < ST_NUM_SK_OPS);
	Assert(tab->cxt != NULL && tab->qualname != NULL);
	slot = &tab->query_plans[op][forward ? 1 : 0][has_start ? 1 : 0];
	if (*slot == NULL)
	{
		Oid			argtypes[ST_QUERY_NARGS];
		char	   *sql;

		Assert(st_spi_connected());
		sql = st_query_sql(tab, op, forward, has_start);

		st_query_argtypes(tab, argtypes);
		*slot = prepare_kept(sql, ST_QUERY_NARGS, argtypes, CURSOR_OPT_FAST_PLAN);
		pfree(sql);
	}
	return *slot;
}

/* Parameter types of an index query: st_query_argtypes's on the index keys, then the base keys. */
void
st_index_query_argtypes(StTable *tab, StIndex *idx, Oid *argtypes)
{
	Oid			skt = idx->sk_name ? st_key_type_oid(idx->sk_type) : TEXTOID;

	argtypes[0] = st_key_type_oid(idx->pk_type);
	argtypes[1] = skt;
	argtypes[2] = skt;
	argtypes[3] = skt;
	argtypes[4] = INT8OID;
	argtypes[5] = st_key_type_oid(tab->pk_type);
	argtypes[6] = tab->sk_name ? st_key_type_oid(tab->sk_type) : TEXTOID;
}

/*
 * The SQL of a query on a secondary index: the index's predicate written
 * literally (so the planner proves the partial index usable, in generic
 * plans too), equality on the index partition key expression, the sort key
 * condition on the index sort key expression, a start key as a row
 * comparison on (index sk, pk, sk) -- the index's trailing columns, so still
 * one index range -- and ORDER BY the index's columns.
 */
char *
st_index_query_sql(StTable *tab, StIndex *idx, StSkOp op, bool forward, bool has_start)
{
	StringInfoData buf;
	const char *isk = idx->sk_expr;
	const char *pk = quote_identifier(tab->pk_name);
	const char *sk = tab->sk_name ? quote_identifier(tab->sk_name) : NULL;
	const char *dir = forward ? "" : " DESC";
	static const char *const ops[ST_NUM_SK_OPS] = {NULL, "=", "<", "<=", ">", ">=", NULL, NULL};

	initStringInfo(&buf);
	appendStringInfo(&buf, "SELECT %s, %s, " ST_ITEM_COLUMN " FROM %s WHERE %s AND %s OPERATOR(pg_catalog.=) $1",
					 pk, sk ? sk : "NULL::pg_catalog.text",
					 tab->qualname, idx->predicate, idx->pk_expr);
	switch (op)
	{
		case ST_SK_NONE:
			break;
		case ST_SK_BETWEEN:
			appendStringInfo(&buf, " AND %s OPERATOR(pg_catalog.>=) $2 AND %s OPERATOR(pg_catalog.<=) $3", isk, isk);
			break;
		case ST_SK_RANGE:
			appendStringInfo(&buf, " AND %s OPERATOR(pg_catalog.>=) $2 AND %s OPERATOR(pg_catalog.<) $3", isk, isk);
			break;
		default:
			appendStringInfo(&buf, " AND %s OPERATOR(pg_catalog.%s) $2", isk, ops[op]);
			break;
	}
	if (has_start)
	{
		appendStringInfoString(&buf, " AND (");
		if (isk)
			appendStringInfo(&buf, "%s, ", isk);
		appendStringInfo(&buf, "%s", pk);
		if (sk)
			appendStringInfo(&buf, ", %s", sk);
		appendStringInfo(&buf, ") OPERATOR(pg_catalog.%s) (", forward ? ">" : "<");
		if (isk)
			appendStringInfoString(&buf, "$4, ");
		appendStringInfoString(&buf, "$6");
		if (sk)
			appendStringInfoString(&buf, ", $7");
		appendStringInfoString(&buf, ")");
	}
	appendStringInfoString(&buf, " ORDER BY ");
	if (isk)
		appendStringInfo(&buf, "%s%s, ", isk, dir);
	appendStringInfo(&buf, "%s%s", pk, dir);
	if (sk)
		appendStringInfo(&buf, ", %s%s", sk, dir);
	appendStringInfoString(&buf, " LIMIT $5");
	return buf.data;
}

/* The kept statement of a query shape on a secondary index (see st_query_plan). */
SPIPlanPtr
st_index_query_plan(StTable *tab, StIndex *idx, StSkOp op, bool forward, bool has_start)
{
	SPIPlanPtr *slot = &idx->query_plans[op][forward ? 1 : 0][has_start ? 1 : 0];

	if (*slot == NULL)
	{
		Oid			argtypes[ST_INDEX_QUERY_NARGS];
		char	   *sql = st_index_query_sql(tab, idx, op, forward, has_start);

		st_index_query_argtypes(tab, idx, argtypes);
		*slot = prepare_kept(sql, ST_INDEX_QUERY_NARGS, argtypes, CURSOR_OPT_FAST_PLAN);
		pfree(sql);
	}
	return *slot;
}

/* Frees the kept statements of a cache entry that no call can be running. */
void
st_statements_free(StTable *tab)
{
	for (int i = 0; i < ST_NUM_ITEM_PLANS; i++)
		if (tab->item_plans[i])
			SPI_freeplan(tab->item_plans[i]);
	for (int o = 0; o < ST_NUM_SK_OPS; o++)
		for (int f = 0; f < 2; f++)
			for (int s = 0; s < 2; s++)
				if (tab->query_plans[o][f][s])
					SPI_freeplan(tab->query_plans[o][f][s]);
	for (int i = 0; i < tab->n_indexes; i++)
		for (int o = 0; o < ST_NUM_SK_OPS; o++)
			for (int f = 0; f < 2; f++)
				for (int s = 0; s < 2; s++)
					if (tab->indexes[i].query_plans[o][f][s])
					{
						SPI_freeplan(tab->indexes[i].query_plans[o][f][s]);
						tab->indexes[i].query_plans[o][f][s] = NULL;
					}
	memset(tab->item_plans, 0, sizeof(tab->item_plans));
	memset(tab->query_plans, 0, sizeof(tab->query_plans));
}
