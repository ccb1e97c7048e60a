/*
 * read.c — get_item, query and explain_query.
 *
 * A Query's key condition becomes bounds on the primary key (pk, sk): the
 * statement is "pk = $1 AND sk <op> $2 [AND sk <op> $3]", begins_with being
 * [prefix, successor(prefix)), so the btree reads only the matching items.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "commands/explain.h"
#include "nodes/params.h"
#include "utils/plancache.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "tcop/dest.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "expr_glue.h"
#include "jsonval.h"
#include "registry.h"

PG_FUNCTION_INFO_V1(singletable_get_item);
PG_FUNCTION_INFO_V1(singletable_query);
PG_FUNCTION_INFO_V1(singletable_explain_query);

/* A Query's arguments, validated and converted to statement parameters */
typedef struct QueryArgs
{
	StSkOp		op;
	bool		forward;
	bool		has_start;
	char	   *pk_display;		/* canonical pk text, returned on every row */
	StNode	   *filter;			/* FilterExpression, or NULL */
	StProjection *projection;	/* ProjectionExpression, or NULL */
	StAttrNames *filter_attrs;	/* attributes the filter reads */
	StAttrNames *projection_attrs;	/* attributes the projection reads */
	int32		max_items;		/* 0: no limit */
	Datum		values[ST_QUERY_NARGS];
	char		nulls[ST_QUERY_NARGS];
} QueryArgs;

#define ARG_TEXT(n) (PG_ARGISNULL(n) ? NULL : PG_GETARG_TEXT_PP(n))

/* Parses an optional projection with its names; NULL without one. */
static StProjection *
parse_projection_arg(StTable *tab, text *projection, Jsonb *names, StExprEnv **envp)
{
	StExprEnv  *env = st_env_build(tab, names, NULL);
	StProjection *proj = NULL;

	if (projection)
		proj = st_parse_projection(text_to_cstring(projection), env);
	*envp = env;
	return proj;
}

/* The projection of a stored item, in stored form; names from st_attr_names(NULL, proj). */
static Datum
project_item(StTable *tab, const StProjection *proj, const StAttrNames *names, Jsonb *item)
{
	const char *b_keys[2] = {NULL, NULL};
	StVal	   *v = st_project(proj, st_item_attrs(tab, item, names));

	if (tab->pk_type == ST_KEY_B)
		b_keys[0] = tab->pk_name;
	if (tab->sk_name && tab->sk_type == ST_KEY_B)
		b_keys[1] = tab->sk_name;
	return JsonbPGetDatum(st_val_to_jsonb(v, b_keys));
}

/* singletable.get_item(table_name, pk, sk, projection, names) -> item or NULL. */
Datum
singletable_get_item(PG_FUNCTION_ARGS)
{
	StTable    *tab;
	Datum		values[3];
	char		nulls[3] = {' ', ' ', 'n'};
	Jsonb	   *item;
	StExprEnv  *env;
	StProjection *proj = NULL;

	SPI_connect();
	tab = st_table_open(ARG_TEXT(0), AccessShareLock, ACL_SELECT);
	if (PG_ARGISNULL(3) && !PG_ARGISNULL(4))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("names can only be given with a projection"),
				 errdetail("ExpressionAttributeNames can only be specified when using expressions")));
	if (!PG_ARGISNULL(3))
	{
		proj = parse_projection_arg(tab, ARG_TEXT(3), PG_ARGISNULL(4) ? NULL : PG_GETARG_JSONB_P(4), &env);
		st_expr_check_unused(env);
	}
	st_key_args(tab, fcinfo, 1, values, nulls);
	values[2] = (Datum) 0;
	/* the item comes back in this function's memory, outliving SPI_finish */
	item = st_item_fetch(tab, ST_PLAN_GET, values, nulls, true);
	if (item && proj)
	{
		/* projected in SPI memory, the result copied out of it */
		item = DatumGetJsonbP(SPI_datumTransfer(project_item(tab, proj, st_attr_names(NULL, proj), item),
												false, -1));
	}
	SPI_finish();
	if (item == NULL)
		PG_RETURN_NULL();
	PG_RETURN_JSONB_P(item);
}

/* Converts one sort-key argument, naming the argument in errors. */
static StKey
sk_arg(StTable *tab, text *t)
{
	StKey		k;

	st_key_from_text(tab->sk_type, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), tab->sk_name,
					 tab->relname, true, &k);
	return k;
}

/* Whether a start key lies within the key condition (DynamoDB requires it). */
static bool
start_in_range(StTable *tab, QueryArgs *qa, Datum start)
{
	StKeyType	t = tab->sk_type;
	int			c1 = 0,
				c2 = 0;

	if (qa->op != ST_SK_NONE)
		c1 = st_key_compare(t, start, qa->values[1]);
	if (qa->op == ST_SK_BETWEEN || (qa->op == ST_SK_RANGE))
		c2 = st_key_compare(t, start, qa->values[2]);
	switch (qa->op)
	{
		case ST_SK_NONE:
			return true;
		case ST_SK_EQ:
			return c1 == 0;
		case ST_SK_LT:
			return c1 < 0;
		case ST_SK_LE:
			return c1 <= 0;
		case ST_SK_GT:
			return c1 > 0;
		case ST_SK_GE:
			return c1 >= 0;
		case ST_SK_BETWEEN:
			return c1 >= 0 && c2 <= 0;
		case ST_SK_RANGE:
			return c1 >= 0 && c2 < 0;
		default:
			return false;
	}
}

/*
 * Validates the Query arguments (table_name is argument 0 and already open):
 * pk, sk_op, sk_value, sk_value2, forward, max_items, exclusive_start_sk.
 */
static void
parse_query_args(FunctionCallInfo fcinfo, StTable *tab, QueryArgs *qa)
{
	text	   *pk = ARG_TEXT(1);
	text	   *op = ARG_TEXT(2);
	text	   *v1 = ARG_TEXT(3);
	text	   *v2 = ARG_TEXT(4);
	text	   *start = ARG_TEXT(7);
	StKey		k;
	char	   *opname;

	memset(qa, 0, sizeof(*qa));
	for (int i = 0; i < ST_QUERY_NARGS; i++)
		qa->nulls[i] = 'n';

	if (pk == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("partition key \"%s\" of table \"%s\" must not be NULL in a query",
						tab->pk_name, tab->relname),
				 errdetail("Query condition missed key schema element: %s", tab->pk_name)));
	st_key_from_text(tab->pk_type, VARDATA_ANY(pk), VARSIZE_ANY_EXHDR(pk), tab->pk_name,
					 tab->relname, false, &k);
	qa->values[0] = k.datum;
	qa->nulls[0] = ' ';
	qa->pk_display = k.display;

	qa->forward = PG_ARGISNULL(5) ? true : PG_GETARG_BOOL(5);
	if (!PG_ARGISNULL(6))
	{
		int32		max_items = PG_GETARG_INT32(6);

		if (max_items < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("max_items must be at least 1, not %d", max_items)));
		qa->values[4] = Int64GetDatum((int64) max_items);
		qa->nulls[4] = ' ';
		qa->max_items = max_items;
	}

	if (op == NULL)
	{
		if (v1 != NULL || v2 != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("sk_value given without sk_op"),
					 errhint("Name the sort key condition: =, <, <=, >, >=, between or begins_with.")));
		qa->op = ST_SK_NONE;
	}
	else
	{
		opname = text_to_cstring(op);
		if (tab->sk_name == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" has no sort key, so a query cannot have a sort key condition",
							tab->relname),
					 errdetail("Query key condition not supported")));
		if (strcmp(opname, "=") == 0)
			qa->op = ST_SK_EQ;
		else if (strcmp(opname, "<") == 0)
			qa->op = ST_SK_LT;
		else if (strcmp(opname, "<=") == 0)
			qa->op = ST_SK_LE;
		else if (strcmp(opname, ">") == 0)
			qa->op = ST_SK_GT;
		else if (strcmp(opname, ">=") == 0)
			qa->op = ST_SK_GE;
		else if (pg_strcasecmp(opname, "between") == 0)
			qa->op = ST_SK_BETWEEN;
		else if (strcmp(opname, "begins_with") == 0)
			qa->op = ST_SK_RANGE;
		else
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown sort key operator \"%s\"", opname),
					 errhint("sk_op is one of =, <, <=, >, >=, between, begins_with.")));

		if (v1 == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("sk_value must not be NULL for sort key operator \"%s\"", opname)));
		if (qa->op == ST_SK_RANGE && tab->sk_type == ST_KEY_N)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("begins_with cannot be used on sort key \"%s\" of table \"%s\", which is of type N",
							tab->sk_name, tab->relname),
					 errdetail("Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N")));
		if (qa->op == ST_SK_BETWEEN && v2 == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("sk_value2 must not be NULL for sort key operator \"between\""),
					 errhint("between takes the inclusive bounds sk_value and sk_value2.")));
		if (qa->op != ST_SK_BETWEEN && v2 != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("sk_value2 is only used with sort key operator \"between\", not \"%s\"",
							opname)));

		k = sk_arg(tab, v1);
		qa->values[1] = k.datum;
		qa->nulls[1] = ' ';
		if (qa->op == ST_SK_BETWEEN)
		{
			StKey		k2 = sk_arg(tab, v2);

			if (st_key_compare(tab->sk_type, k2.datum, k.datum) < 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("between bounds of sort key \"%s\" are reversed: \"%s\" is lower than \"%s\"",
								tab->sk_name, k2.display, k.display),
						 errdetail("Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound")));
			qa->values[2] = k2.datum;
			qa->nulls[2] = ' ';
		}
		else if (qa->op == ST_SK_RANGE)
		{
			struct varlena *p = DatumGetByteaPP(k.datum);
			int			len;
			char	   *succ;

			succ = (tab->sk_type == ST_KEY_S)
				? st_prefix_successor_utf8(VARDATA_ANY(p), VARSIZE_ANY_EXHDR(p), &len)
				: st_prefix_successor_bytes(VARDATA_ANY(p), VARSIZE_ANY_EXHDR(p), &len);
			if (succ == NULL)
				qa->op = ST_SK_GE;	/* every key >= the prefix starts with it */
			else
			{
				bytea	   *b = palloc(VARHDRSZ + len);

				SET_VARSIZE(b, VARHDRSZ + len);
				memcpy(VARDATA(b), succ, len);
				qa->values[2] = PointerGetDatum(b);
				qa->nulls[2] = ' ';
			}
		}
	}

	if (start != NULL)
	{
		if (tab->sk_name == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" has no sort key, so a query cannot continue from exclusive_start_sk",
							tab->relname),
					 errdetail("The query can return at most one row and cannot be restarted")));
		k = sk_arg(tab, start);
		if (!start_in_range(tab, qa, k.datum))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("exclusive_start_sk \"%s\" is outside the sort key condition", k.display),
					 errdetail("The provided starting key does not match the range key predicate")));
		qa->values[3] = k.datum;
		qa->nulls[3] = ' ';
		qa->has_start = true;
	}
}

/* The filter, projection, names and vals arguments of query (positions 8..11). */
static void
parse_query_expressions(FunctionCallInfo fcinfo, StTable *tab, QueryArgs *qa)
{
	text	   *filter = ARG_TEXT(8);
	text	   *projection = ARG_TEXT(9);
	Jsonb	   *names = PG_ARGISNULL(10) ? NULL : PG_GETARG_JSONB_P(10);
	Jsonb	   *vals = PG_ARGISNULL(11) ? NULL : PG_GETARG_JSONB_P(11);
	StExprEnv  *env;

	if (filter == NULL && projection == NULL && (names || vals))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("names and vals can only be given with an expression"),
				 errdetail("ExpressionAttributeNames can only be specified when using expressions")));
	env = st_env_build(tab, names, vals);
	if (filter)
		qa->filter = st_parse_condition(text_to_cstring(filter), SE_FILTER, env);
	if (projection)
		qa->projection = st_parse_projection(text_to_cstring(projection), env);
	st_expr_check_unused(env);
	qa->filter_attrs = st_attr_names(qa->filter, NULL);
	qa->projection_attrs = st_attr_names(NULL, qa->projection);
}

/*
 * Where the rows of a Query go: straight from the executor into the result
 * tuplestore, through this receiver (no intermediate SPI tuple table).
 */
typedef struct QueryReceiver
{
	DestReceiver pub;
	StTable    *tab;
	QueryArgs  *qa;
	ReturnSetInfo *rsinfo;
	text	   *pk_text;
	MemoryContext rowcxt;		/* reset after every row; created by the
								 * first row that allocates */
	bool		row_allocs;		/* every row allocates (filter, projection,
								 * N or B sort key) */
	MemoryContext callcxt;		/* lives for the call: the page marker's key */
	uint64		evaluated;
	bool		last_returned;
	Datum		last_sk;		/* key of the max_items-th item, with a filter */
} QueryReceiver;

/* Converts one (sk, item) row, applies filter and projection, stores it. */
static bool
query_receive(TupleTableSlot *slot, DestReceiver *self)
{
	QueryReceiver *r = (QueryReceiver *) self;
	QueryArgs  *qa = r->qa;
	StTable    *tab = r->tab;
	Datum		out[3];
	bool		outnull[3] = {false, false, false};
	Datum		sk;
	MemoryContext old;

	CHECK_FOR_INTERRUPTS();
	slot_getallattrs(slot);

	/*
	 * A row of an S-keyed table without filter or projection allocates only
	 * when its item must be detoasted; skip the context for the others.
	 */
	if (r->rowcxt == NULL &&
		(r->row_allocs || VARATT_IS_EXTENDED(DatumGetPointer(slot->tts_values[1]))))
		r->rowcxt = AllocSetContextCreate(r->callcxt, "singletable query rows",
										  ALLOCSET_DEFAULT_SIZES);
	old = r->rowcxt ? MemoryContextSwitchTo(r->rowcxt) : CurrentMemoryContext;
	r->evaluated++;
	out[0] = PointerGetDatum(r->pk_text);
	sk = slot->tts_values[0];
	if (slot->tts_isnull[0] || tab->sk_name == NULL)
		outnull[1] = true;
	else
		out[1] = PointerGetDatum(st_key_datum_to_text(tab->sk_type, sk));
	/* detoasted: the stored row must not point into the table's TOAST */
	out[2] = PointerGetDatum(PG_DETOAST_DATUM(slot->tts_values[1]));
	r->last_returned = qa->filter == NULL ||
		st_eval_condition(qa->filter, st_item_attrs(tab, DatumGetJsonbP(out[2]), qa->filter_attrs));
	if (r->last_returned && qa->projection)
		out[2] = project_item(tab, qa->projection, qa->projection_attrs, DatumGetJsonbP(out[2]));
	if (r->last_returned)
		tuplestore_putvalues(r->rsinfo->setResult, r->rsinfo->setDesc, out, outnull);
	if (qa->filter && qa->max_items > 0 && r->evaluated == (uint64) qa->max_items && tab->sk_name)
	{
		MemoryContextSwitchTo(r->callcxt);
		r->last_sk = PointerGetDatum(st_key_datum_to_text(tab->sk_type, sk));
	}
	MemoryContextSwitchTo(old);
	if (r->rowcxt)
		MemoryContextReset(r->rowcxt);
	return true;
}

/*
 * singletable.query(table_name, pk, sk_op, sk_value, sk_value2, forward,
 *                   max_items, exclusive_start_sk, filter, projection, names,
 *                   vals) -> (pk, sk, item)
 *
 * Runs the cached statement for this condition shape; its rows go from the
 * executor through query_receive into the result tuplestore.
 */
Datum
singletable_query(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	StTable    *tab;
	QueryArgs	qa;
	QueryReceiver recv;
	SPIExecuteOptions options;
	Oid			argtypes[ST_QUERY_NARGS];
	int			rc;

	/* the result type is singletable.item_row, which callers pass as expectedDesc */
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	SPI_connect();
	tab = st_table_open(ARG_TEXT(0), AccessShareLock, ACL_SELECT);
	parse_query_args(fcinfo, tab, &qa);
	parse_query_expressions(fcinfo, tab, &qa);
	st_query_argtypes(tab, argtypes);

	memset(&recv, 0, sizeof(recv));
	st_dest_init(&recv.pub, query_receive);
	recv.tab = tab;
	recv.qa = &qa;
	recv.rsinfo = rsinfo;
	recv.pk_text = cstring_to_text(qa.pk_display);
	recv.callcxt = CurrentMemoryContext;
	recv.row_allocs = qa.filter || qa.projection || (tab->sk_name && tab->sk_type != ST_KEY_S);

	memset(&options, 0, sizeof(options));
	options.params = st_param_list(ST_QUERY_NARGS, qa.values, qa.nulls, argtypes);
	options.read_only = true;
	options.dest = (DestReceiver *) &recv;
	rc = SPI_execute_plan_extended(st_query_plan(tab, qa.op, qa.forward, qa.has_start), &options);
	/* a SELECT into a receiver other than SPI's own reports SPI_OK_UTILITY */
	if (rc < 0)
		elog(ERROR, "singletable query failed: %s", SPI_result_code_string(rc));

	/*
	 * With a filter, a page that stopped at max_items evaluated items ends
	 * with a marker row (item NULL) carrying the last evaluated sort key:
	 * DynamoDB's LastEvaluatedKey, to pass as exclusive_start_sk. Without a
	 * filter every evaluated item is returned and the last row is the key.
	 */
	if (recv.last_sk != (Datum) 0)
	{
		Datum		out[3] = {PointerGetDatum(recv.pk_text), recv.last_sk, (Datum) 0};
		bool		outnull[3] = {false, false, true};

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, out, outnull);
	}
	SPI_finish();
	return (Datum) 0;
}

/*
 * singletable.explain_query(same arguments as query, with_analyze) -> plan lines.
 *
 * Explains the plan singletable.query itself runs: the same kept statement,
 * its plan taken from the plan cache with the same parameters, so the
 * session's plan_cache_mode decides between a custom and a generic plan
 * exactly as it does for query. With with_analyze the plan is executed.
 */
Datum
singletable_explain_query(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	StTable    *tab;
	QueryArgs	qa;
	Oid			argtypes[ST_QUERY_NARGS];
	bool		analyze = !PG_ARGISNULL(8) && PG_GETARG_BOOL(8);
	SPIPlanPtr	plan;
	CachedPlanSource *src;
	CachedPlan *cplan;
	ParamListInfo params;
	ExplainState *es;
	char	   *line;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	SPI_connect();
	tab = st_table_open(ARG_TEXT(0), AccessShareLock, ACL_SELECT);
	parse_query_args(fcinfo, tab, &qa);
	st_query_argtypes(tab, argtypes);
	plan = st_query_plan(tab, qa.op, qa.forward, qa.has_start);
	src = linitial(SPI_plan_get_plan_sources(plan));

	params = st_param_list(ST_QUERY_NARGS, qa.values, qa.nulls, argtypes);

	cplan = GetCachedPlan(src, params, CurrentResourceOwner, NULL);
	es = NewExplainState();
	es->costs = false;
	es->analyze = analyze;
	es->timing = false;
	es->summary = false;
	es->format = EXPLAIN_FORMAT_TEXT;
	ExplainBeginOutput(es);
	ExplainOnePlan(linitial_node(PlannedStmt, cplan->stmt_list), NULL, es,
				   src->query_string, params, NULL, NULL, NULL);
	ExplainEndOutput(es);
	ReleaseCachedPlan(cplan, CurrentResourceOwner);

	/* one row per line, without the trailing newline */
	line = es->str->data;
	while (*line)
	{
		char	   *nl = strchr(line, '\n');
		int			len = nl ? nl - line : strlen(line);
		Datum		d = PointerGetDatum(cstring_to_text_with_len(line, len));
		bool		isnull = false;

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &d, &isnull);
		line += len + (nl ? 1 : 0);
	}
	SPI_finish();
	return (Datum) 0;
}
