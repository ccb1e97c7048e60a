/*
 * statements.c — the statements singletable runs on an item table.
 *
 * Design notes: the section on statements.c in README.md of this folder.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "nodes/params.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "catalog/indexes.h"
#include "catalog/registry.h"
#include "catalog/statements.h"

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
 * Whether the installed extension has singletable._replacing(jsonb, jsonb):
 * since 0.2.0. Under an older install script (this library before ALTER
 * EXTENSION UPDATE) an upsert does without it, and a put is charged on the
 * new item only.
 */
bool
st_have_replacing(void)
{
	Oid			argtypes[2] = {JSONBOID, JSONBOID};

	return OidIsValid(LookupFuncName(list_make2(makeString("singletable"), makeString("_replacing")),
									 2, argtypes, true));
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

				/* the upsert passes the item it replaces to _replacing (capacity.c) */
				appendStringInfo(&buf, "INSERT INTO %s AS st_old (%s%s%s, " ST_ITEM_COLUMN ") VALUES ($1%s, $3)",
								 tab->qualname, pk, sk ? ", " : "", sk ? sk : "", sk ? ", $2" : "");
				if (kind == ST_PLAN_INSERT)
					appendStringInfoString(&buf, " ON CONFLICT DO NOTHING");
				else if (st_have_replacing())
					appendStringInfo(&buf, " ON CONFLICT (%s%s%s) DO UPDATE SET " ST_ITEM_COLUMN
									 " = singletable._replacing(st_old." ST_ITEM_COLUMN
									 ", EXCLUDED." ST_ITEM_COLUMN ")",
									 pk, sk ? ", " : "", sk ? sk : "");
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

/*
 * Statement parameters as SPI_execute_plan_extended takes them (values are
 * constants). Every slot is set, a NULL one to (Datum) 0, so that an
 * executor that copies the list (Citus's does) never reads garbage.
 */
ParamListInfo
st_param_list(int n, Datum *values, const char *nulls, Oid *argtypes)
{
	ParamListInfo params = makeParamList(n);

	for (int i = 0; i < n; i++)
	{
		params->params[i].value = nulls[i] == 'n' ? (Datum) 0 : values[i];
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

/*
 * Parameter types of a query on index idx whose first n_eq sort attributes
 * have equality conditions (see ST_IXP_* for the layout): the bounds' type
 * is that of the sort attribute the condition op applies to.
 */
void
st_index_query_argtypes(StTable *tab, StIndex *idx, int n_eq, Oid *argtypes)
{
	for (int i = 0; i < idx->n_pk; i++)
		argtypes[ST_IXP_PK(idx, i)] = st_key_type_oid(idx->pk[i].type);
	for (int j = 0; j < idx->n_sk; j++)
	{
		argtypes[ST_IXP_SK(idx, j)] = st_key_type_oid(idx->sk[j].type);
		argtypes[ST_IXP_START_SK(idx, j)] = st_key_type_oid(idx->sk[j].type);
	}
	argtypes[ST_IXP_UPPER(idx)] = n_eq < idx->n_sk ? st_key_type_oid(idx->sk[n_eq].type) : TEXTOID;
	argtypes[ST_IXP_LIMIT(idx)] = INT8OID;
	argtypes[ST_IXP_START_PK(idx)] = st_key_type_oid(tab->pk_type);
	argtypes[ST_IXP_START_TSK(idx)] = tab->sk_name ? st_key_type_oid(tab->sk_type) : TEXTOID;
}

/*
 * The SQL of a query on a secondary index: the index's predicate written
 * literally (so the planner proves the partial index usable, in generic
 * plans too), equality on every partition key expression and on the first
 * n_eq sort key expressions, the condition op on the next one, a start key
 * as a row comparison on the sort key expressions and the table's key
 * columns that follow them in the index -- the index's trailing columns,
 * so still one index range -- and ORDER BY the index's columns.
 */
char *
st_index_query_sql(StTable *tab, StIndex *idx, int n_eq, StSkOp op, bool forward, bool has_start)
{
	StringInfoData buf;
	const char *pk = quote_identifier(tab->pk_name);
	const char *sk = tab->sk_name ? quote_identifier(tab->sk_name) : NULL;
	const char *dir = forward ? "" : " DESC";
	const char *isk = n_eq < idx->n_sk ? idx->sk[n_eq].expr : NULL;
	int			lo = ST_IXP_SK(idx, n_eq) + 1;
	int			hi = ST_IXP_UPPER(idx) + 1;
	bool		first = true;
	static const char *const ops[ST_NUM_SK_OPS] = {NULL, "=", "<", "<=", ">", ">=", NULL, NULL};

	Assert(n_eq >= 0 && n_eq < Max(idx->n_sk, 1));
	Assert(op == ST_SK_NONE || isk != NULL);
	initStringInfo(&buf);
	appendStringInfo(&buf, "SELECT %s, %s, " ST_ITEM_COLUMN " FROM %s WHERE %s",
					 pk, sk ? sk : "NULL::pg_catalog.text", tab->qualname, idx->predicate);
	for (int i = 0; i < idx->n_pk; i++)
		appendStringInfo(&buf, " AND %s OPERATOR(pg_catalog.=) $%d", idx->pk[i].expr, ST_IXP_PK(idx, i) + 1);
	for (int j = 0; j < n_eq; j++)
		appendStringInfo(&buf, " AND %s OPERATOR(pg_catalog.=) $%d", idx->sk[j].expr, ST_IXP_SK(idx, j) + 1);
	switch (op)
	{
		case ST_SK_NONE:
			break;
		case ST_SK_BETWEEN:
			appendStringInfo(&buf, " AND %s OPERATOR(pg_catalog.>=) $%d AND %s OPERATOR(pg_catalog.<=) $%d",
							 isk, lo, isk, hi);
			break;
		case ST_SK_RANGE:
			appendStringInfo(&buf, " AND %s OPERATOR(pg_catalog.>=) $%d AND %s OPERATOR(pg_catalog.<) $%d",
							 isk, lo, isk, hi);
			break;
		default:
			appendStringInfo(&buf, " AND %s OPERATOR(pg_catalog.%s) $%d", isk, ops[op], lo);
			break;
	}
	if (has_start)
	{
		appendStringInfoString(&buf, " AND (");
		for (int j = 0; j < idx->n_sk; j++)
		{
			appendStringInfo(&buf, "%s%s", first ? "" : ", ", idx->sk[j].expr);
			first = false;
		}
		if (!idx->is_lsi)
		{
			appendStringInfo(&buf, "%s%s", first ? "" : ", ", pk);
			first = false;
		}
		if (sk)
			appendStringInfo(&buf, "%s%s", first ? "" : ", ", sk);
		appendStringInfo(&buf, ") OPERATOR(pg_catalog.%s) (", forward ? ">" : "<");
		first = true;
		for (int j = 0; j < idx->n_sk; j++)
		{
			appendStringInfo(&buf, "%s$%d", first ? "" : ", ", ST_IXP_START_SK(idx, j) + 1);
			first = false;
		}
		if (!idx->is_lsi)
		{
			appendStringInfo(&buf, "%s$%d", first ? "" : ", ", ST_IXP_START_PK(idx) + 1);
			first = false;
		}
		if (sk)
			appendStringInfo(&buf, "%s$%d", first ? "" : ", ", ST_IXP_START_TSK(idx) + 1);
		appendStringInfoString(&buf, ")");
	}
	appendStringInfoString(&buf, " ORDER BY ");
	for (int j = 0; j < idx->n_sk; j++)
		appendStringInfo(&buf, "%s%s, ", idx->sk[j].expr, dir);
	appendStringInfo(&buf, "%s%s", pk, dir);
	if (sk)
		appendStringInfo(&buf, ", %s%s", sk, dir);
	appendStringInfo(&buf, " LIMIT $%d", ST_IXP_LIMIT(idx) + 1);
	return buf.data;
}

/* The kept statement of a query shape on a secondary index (see st_query_plan). */
SPIPlanPtr
st_index_query_plan(StTable *tab, StIndex *idx, int n_eq, StSkOp op, bool forward, bool has_start)
{
	SPIPlanPtr *slot;

	Assert(n_eq >= 0 && n_eq < ST_MAX_INDEX_KEY_ATTRS);
	slot = &idx->query_plans[n_eq][op][forward ? 1 : 0][has_start ? 1 : 0];
	if (*slot == NULL)
	{
		Oid			argtypes[ST_INDEX_QUERY_MAX_NARGS];
		char	   *sql = st_index_query_sql(tab, idx, n_eq, op, forward, has_start);

		st_index_query_argtypes(tab, idx, n_eq, argtypes);
		*slot = prepare_kept(sql, ST_INDEX_QUERY_NARGS(idx), argtypes, CURSOR_OPT_FAST_PLAN);
		pfree(sql);
	}
	return *slot;
}

/*
 * The columns of the btree a Scan reads, in its order, as SQL expressions
 * with their key types; returns how many. The table's primary key is (pk
 * [, sk]); a secondary index's columns are its key expressions followed by
 * the table's key columns that are not among them (st_index_create_sql), so
 * every row has a distinct position and a start key continues exactly.
 */
int
st_scan_columns(StTable *tab, StIndex *idx, const char **exprs, StKeyType *types)
{
	int			n = 0;

	if (idx == NULL)
	{
		exprs[n] = quote_identifier(tab->pk_name);
		types[n++] = tab->pk_type;
	}
	else
	{
		for (int i = 0; i < idx->n_pk; i++)
		{
			exprs[n] = idx->pk[i].expr;
			types[n++] = idx->pk[i].type;
		}
		for (int j = 0; j < idx->n_sk; j++)
		{
			exprs[n] = idx->sk[j].expr;
			types[n++] = idx->sk[j].type;
		}
		if (!idx->is_lsi)
		{
			exprs[n] = quote_identifier(tab->pk_name);
			types[n++] = tab->pk_type;
		}
	}
	if (tab->sk_name)
	{
		exprs[n] = quote_identifier(tab->sk_name);
		types[n++] = tab->sk_type;
	}
	Assert(n <= ST_SCAN_MAX_COLS);
	return n;
}

/* Parameter types of the Scan statements of the table or index idx (see ST_SCP_*). */
void
st_scan_argtypes(StTable *tab, StIndex *idx, Oid *argtypes)
{
	const char *exprs[ST_SCAN_MAX_COLS];
	StKeyType	types[ST_SCAN_MAX_COLS];
	int			n = st_scan_columns(tab, idx, exprs, types);

	argtypes[ST_SCP_LOWER] = st_key_type_oid(types[0]);
	argtypes[ST_SCP_UPPER] = st_key_type_oid(types[0]);
	for (int j = 0; j < n; j++)
		argtypes[ST_SCP_START(j)] = st_key_type_oid(types[j]);
	argtypes[ST_SCP_LIMIT(n)] = INT8OID;
}

/*
 * The SQL of a Scan of the table, or of secondary index idx (its predicate
 * written literally, as in st_index_query_sql): one range of the btree in
 * its order. A segment is "lead >= $1 AND lead < $2" on the leading column
 * (either bound absent at the ends of the key space); a start key replaces
 * the lower bound by a row comparison over every column of the btree,
 * which is still where one index range starts.
 */
char *
st_scan_sql(StTable *tab, StIndex *idx, StScanFrom from, bool has_upper)
{
	StringInfoData buf;
	const char *exprs[ST_SCAN_MAX_COLS];
	StKeyType	types[ST_SCAN_MAX_COLS];
	int			n = st_scan_columns(tab, idx, exprs, types);
	const char *and = " WHERE ";

	initStringInfo(&buf);
	appendStringInfo(&buf, "SELECT %s, %s, " ST_ITEM_COLUMN " FROM %s",
					 quote_identifier(tab->pk_name),
					 tab->sk_name ? quote_identifier(tab->sk_name) : "NULL::pg_catalog.text",
					 tab->qualname);
	if (idx)
	{
		appendStringInfo(&buf, "%s%s", and, idx->predicate);
		and = " AND ";
	}
	if (from == ST_SCAN_FROM_LOWER)
	{
		appendStringInfo(&buf, "%s%s OPERATOR(pg_catalog.>=) $%d", and, exprs[0], ST_SCP_LOWER + 1);
		and = " AND ";
	}
	if (has_upper)
	{
		appendStringInfo(&buf, "%s%s OPERATOR(pg_catalog.<) $%d", and, exprs[0], ST_SCP_UPPER + 1);
		and = " AND ";
	}
	if (from == ST_SCAN_FROM_KEY)
	{
		appendStringInfoString(&buf, and);
		if (n == 1)
			appendStringInfo(&buf, "%s OPERATOR(pg_catalog.>) $%d", exprs[0], ST_SCP_START(0) + 1);
		else
		{
			appendStringInfoChar(&buf, '(');
			for (int j = 0; j < n; j++)
				appendStringInfo(&buf, "%s%s", j ? ", " : "", exprs[j]);
			appendStringInfoString(&buf, ") OPERATOR(pg_catalog.>) (");
			for (int j = 0; j < n; j++)
				appendStringInfo(&buf, "%s$%d", j ? ", " : "", ST_SCP_START(j) + 1);
			appendStringInfoChar(&buf, ')');
		}
	}
	appendStringInfoString(&buf, " ORDER BY ");
	for (int j = 0; j < n; j++)
		appendStringInfo(&buf, "%s%s", j ? ", " : "", exprs[j]);
	appendStringInfo(&buf, " LIMIT $%d", ST_SCP_LIMIT(n) + 1);
	return buf.data;
}

/*
 * The kept statement of a Scan shape of the table or index idx, planned as
 * a cursor that wants its first rows fast (see st_query_plan): rows
 * streamed in btree order, so the ordered index scan of the segment's range
 * is the plan, not a sort of the table.
 */
SPIPlanPtr
st_scan_plan(StTable *tab, StIndex *idx, StScanFrom from, bool has_upper)
{
	SPIPlanPtr *slot;

	Assert(from >= 0 && from < ST_NUM_SCAN_FROM);
	slot = idx ? &idx->scan_plans[from][has_upper ? 1 : 0] : &tab->scan_plans[from][has_upper ? 1 : 0];
	if (*slot == NULL)
	{
		Oid			argtypes[ST_SCAN_MAX_NARGS];
		const char *exprs[ST_SCAN_MAX_COLS];
		StKeyType	types[ST_SCAN_MAX_COLS];
		int			n = st_scan_columns(tab, idx, exprs, types);
		char	   *sql = st_scan_sql(tab, idx, from, has_upper);

		Assert(st_spi_connected());
		st_scan_argtypes(tab, idx, argtypes);
		*slot = prepare_kept(sql, ST_SCAN_NARGS(n), argtypes, CURSOR_OPT_FAST_PLAN);
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
	for (int f = 0; f < ST_NUM_SCAN_FROM; f++)
		for (int u = 0; u < 2; u++)
			if (tab->scan_plans[f][u])
				SPI_freeplan(tab->scan_plans[f][u]);
	for (int i = 0; i < ST_NUM_BATCH_PLANS; i++)
		if (tab->batch_plans[i])
			SPI_freeplan(tab->batch_plans[i]);
	for (int i = 0; i < tab->n_indexes; i++)
	{
		SPIPlanPtr *plans = &tab->indexes[i].query_plans[0][0][0][0];
		int			n = sizeof(tab->indexes[i].query_plans) / sizeof(SPIPlanPtr);

		for (int k = 0; k < n; k++)
			if (plans[k])
			{
				SPI_freeplan(plans[k]);
				plans[k] = NULL;
			}
		plans = &tab->indexes[i].scan_plans[0][0];
		n = sizeof(tab->indexes[i].scan_plans) / sizeof(SPIPlanPtr);
		for (int k = 0; k < n; k++)
			if (plans[k])
			{
				SPI_freeplan(plans[k]);
				plans[k] = NULL;
			}
	}
	memset(tab->item_plans, 0, sizeof(tab->item_plans));
	memset(tab->query_plans, 0, sizeof(tab->query_plans));
	memset(tab->scan_plans, 0, sizeof(tab->scan_plans));
	memset(tab->batch_plans, 0, sizeof(tab->batch_plans));
}
