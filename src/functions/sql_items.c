/*
 * sql_items.c — the SQL functions of items, Query and Scan: thin wrappers that
 * turn their arguments into a request of the operations layer (ops.h) and
 * its result into a SQL value. Nothing here reads a table.
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "functions/sql_args.h"
#include "functions/sql_items.h"
#include "format/jsonpush.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "ops/capacity.h"
#include "utils/errors.h"
#include "ops/estimate.h"
#include "ops/item.h"
#include "ops/ops.h"

PG_FUNCTION_INFO_V1(singletable_put_item);
PG_FUNCTION_INFO_V1(singletable_get_item);
PG_FUNCTION_INFO_V1(singletable_delete_item);
PG_FUNCTION_INFO_V1(singletable_update_item);
PG_FUNCTION_INFO_V1(singletable_query);
PG_FUNCTION_INFO_V1(singletable_explain_query);
PG_FUNCTION_INFO_V1(singletable_scan);
PG_FUNCTION_INFO_V1(singletable_explain_scan);
PG_FUNCTION_INFO_V1(singletable_condition_check_failure_item);
PG_FUNCTION_INFO_V1(singletable_item_size);
PG_FUNCTION_INFO_V1(singletable_query_page);
PG_FUNCTION_INFO_V1(singletable_scan_page);
PG_FUNCTION_INFO_V1(singletable_last_evaluated_key);
PG_FUNCTION_INFO_V1(singletable_estimate_query);


/* A key argument (NULL: not given). */
static StKeyText
key_arg(FunctionCallInfo fcinfo, int n)
{
	StKeyText	k = {NULL, 0};

	if (!ARG_ISNULL(n))
	{
		text	   *t = PG_GETARG_TEXT_PP(n);

		k.data = VARDATA_ANY(t);
		k.len = VARSIZE_ANY_EXHDR(t);
	}
	return k;
}

/* The table_name argument, which must be given. */
static text *
table_arg(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("table_name must not be NULL")));
	return PG_GETARG_TEXT_PP(0);
}

/* A return_values argument (name says which), NOT NULL. */
static StReturnValues
return_values_arg(FunctionCallInfo fcinfo, int n, const char *func, bool put_or_delete)
{
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("return_values of %s must not be NULL", func)));
	return st_parse_return_values(text_to_cstring(PG_GETARG_TEXT_PP(n)), func, put_or_delete);
}

/* return_values_on_condition_check_failure: NONE (or NULL) or ALL_OLD. */
static bool
return_old_on_failure_arg(FunctionCallInfo fcinfo, int n)
{
	char	   *s;

	if (PG_ARGISNULL(n))
		return false;
	s = text_to_cstring(PG_GETARG_TEXT_PP(n));
	if (strcmp(s, "NONE") == 0)
		return false;
	if (strcmp(s, "ALL_OLD") == 0)
		return true;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("return_values_on_condition_check_failure must be NONE or ALL_OLD, not \"%s\"", s)));
	return false;
}

/* A consistent_read argument: 1, 0, or -1 when absent or NULL (the default) */
static int
consistent_read_arg(FunctionCallInfo fcinfo, int n)
{
	if (PG_NARGS() <= n || PG_ARGISNULL(n))
		return -1;
	return PG_GETARG_BOOL(n) ? 1 : 0;
}

#define RETURN_JSONB_OR_NULL(j) \
	do { Jsonb *j_ = (j); if (j_ == NULL) PG_RETURN_NULL(); PG_RETURN_JSONB_P(j_); } while (0)

/*
 * singletable.put_item(table_name, item, condition, names, vals,
 *                      return_values, return_values_on_condition_check_failure)
 */
Datum
singletable_put_item(PG_FUNCTION_ARGS)
{
	StPutRequest req;

	req.table_name = table_arg(fcinfo);
	req.return_values = return_values_arg(fcinfo, 5, "put_item", true);
	req.return_old_on_failure = return_old_on_failure_arg(fcinfo, 6);
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("item must not be NULL")));
	req.item = PG_GETARG_JSONB_P(1);
	req.expr.condition = ARG_CSTRING(2);
	req.expr.names = ARG_JSONB(3);
	req.expr.vals = ARG_JSONB(4);
	RETURN_JSONB_OR_NULL(st_op_put(&req));
}

/* singletable.get_item(table_name, pk, sk, projection, names) */
Datum
singletable_get_item(PG_FUNCTION_ARGS)
{
	StGetRequest req;

	req.table_name = table_arg(fcinfo);
	req.pk = key_arg(fcinfo, 1);
	req.sk = key_arg(fcinfo, 2);
	req.include_expired = PG_NARGS() > 5 && !PG_ARGISNULL(5) && PG_GETARG_BOOL(5);
	/* consistent_read is the 7th argument since 0.2.0 */
	req.consistent_read = consistent_read_arg(fcinfo, 6);
	req.projection = ARG_CSTRING(3);
	req.names = ARG_JSONB(4);
	req.tab = NULL;
	RETURN_JSONB_OR_NULL(st_op_get(&req));
}

/*
 * singletable.delete_item(table_name, pk, sk, condition, names, vals,
 *                         return_values, return_values_on_condition_check_failure)
 */
Datum
singletable_delete_item(PG_FUNCTION_ARGS)
{
	StDeleteRequest req;

	req.table_name = table_arg(fcinfo);
	req.return_values = return_values_arg(fcinfo, 6, "delete_item", true);
	req.return_old_on_failure = return_old_on_failure_arg(fcinfo, 7);
	req.pk = key_arg(fcinfo, 1);
	req.sk = key_arg(fcinfo, 2);
	req.expr.condition = ARG_CSTRING(3);
	req.expr.names = ARG_JSONB(4);
	req.expr.vals = ARG_JSONB(5);
	RETURN_JSONB_OR_NULL(st_op_delete(&req));
}

/*
 * singletable.update_item(table_name, pk, sk, update, condition, names, vals,
 *                         return_values, return_values_on_condition_check_failure)
 */
Datum
singletable_update_item(PG_FUNCTION_ARGS)
{
	StUpdateRequest req;

	req.table_name = table_arg(fcinfo);
	req.return_values = return_values_arg(fcinfo, 7, "update_item", false);
	req.return_old_on_failure = return_old_on_failure_arg(fcinfo, 8);
	req.pk = key_arg(fcinfo, 1);
	req.sk = key_arg(fcinfo, 2);
	req.update = ARG_CSTRING(3);
	/* DynamoDB's UpdateItem without an expression is singletable.dynamodb's */
	if (req.update == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("update must not be NULL"),
				 errhint("Write an update expression such as SET #n = :v.")));
	req.expr.condition = ARG_CSTRING(4);
	req.expr.names = ARG_JSONB(5);
	req.expr.vals = ARG_JSONB(6);
	RETURN_JSONB_OR_NULL(st_op_update(&req));
}

/* The arguments shared by query and explain_query (0..7). */
static void
query_request(FunctionCallInfo fcinfo, StQueryRequest *req)
{
	memset(req, 0, sizeof(*req));
	req->consistent_read = -1;
	req->table_name = table_arg(fcinfo);
	req->pk = key_arg(fcinfo, 1);
	req->op = ARG_ISNULL(2) ? ST_SK_NONE : st_parse_sk_op(text_to_cstring(PG_GETARG_TEXT_PP(2)));
	req->sk1 = key_arg(fcinfo, 3);
	req->sk2 = key_arg(fcinfo, 4);
	req->forward = ARG_ISNULL(5) ? true : PG_GETARG_BOOL(5);
	if (!ARG_ISNULL(6))
	{
		req->max_items = PG_GETARG_INT32(6);
		if (req->max_items < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("max_items must be at least 1, not %d", req->max_items)));
	}
	req->start_sk = key_arg(fcinfo, 7);
}

/* Stores one row of a Query in the function's result. */
static bool
store_row(void *arg, text *pk, text *sk, Jsonb *item, int64 *size)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) arg;
	Datum		values[3] = {PointerGetDatum(pk), PointerGetDatum(sk), PointerGetDatum(item)};
	bool		nulls[3] = {pk == NULL, sk == NULL, item == NULL};

	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return false;
}

/* Stores one row of a Query, as the table stores it, in the function's result (StQueryTupleFn). */
static void
store_tuple(void *arg, HeapTuple tuple)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) arg;

	tuplestore_puttuple(rsinfo->setResult, tuple);
}

/* The arguments of query and query_page (0..16); query_scan.c reads a call's so */
void
st_sql_query_request(FunctionCallInfo fcinfo, StQueryRequest *req)
{
	query_request(fcinfo, req);
	req->filter = ARG_CSTRING(8);
	req->projection = ARG_CSTRING(9);
	req->names = ARG_JSONB(10);
	req->vals = ARG_JSONB(11);
	/*
	 * exclusive_start_key, index_name, key_condition, include_expired and
	 * consistent_read: the 13th to 17th arguments since 0.2.0 (0.1.0's
	 * definition lacks them); a call may also leave out trailing defaults
	 * (ARG_ISNULL)
	 */
	req->start_key = ARG_JSONB(12);
	req->index_name = ARG_CSTRING(13);
	req->key_condition = ARG_CSTRING(14);
	req->include_expired = !ARG_ISNULL(15) && PG_GETARG_BOOL(15);
	req->consistent_read = consistent_read_arg(fcinfo, 16);
}

/*
 * singletable.query(table_name, pk, sk_op, sk_value, sk_value2, forward,
 *                   max_items, exclusive_start_sk, filter, projection, names,
 *                   vals [, exclusive_start_key, index_name, key_condition,
 *                   include_expired, consistent_read]) -> SETOF item_row
 *
 * Called as a function (a FunctionScan: LATERAL, ORDINALITY, the select
 * list, singletable.query_scan off), its rows are materialized in the result
 * tuplestore: max_items, not an outer LIMIT, bounds the work. A call alone in
 * FROM is planned as query_scan.c's scan instead, which streams them. Every
 * row is an item; where a read cut by max_items ends is
 * singletable.last_evaluated_key(). Before the 0.2.0 install script the
 * function has 12 arguments.
 */
Datum
singletable_query(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	StQueryRequest req;

	/* the result type is singletable.item_row, which callers pass as expectedDesc */
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	st_sql_query_request(fcinfo, &req);
	st_sql_query_store(&req, rsinfo->setResult, rsinfo->setDesc);
	return (Datum) 0;
}

/*
 * The rows of Query req, all of them, into store (columns desc, those of
 * singletable.item_row): singletable.query's result, and query_scan.c's
 * where it cannot stream.
 */
void
st_sql_query_store(StQueryRequest *req, Tuplestorestate *store, TupleDesc desc)
{
	ReturnSetInfo rsinfo;

	/* store_row and store_tuple read these two of a function's result info */
	memset(&rsinfo, 0, sizeof(rsinfo));
	rsinfo.setResult = store;
	rsinfo.setDesc = desc;
	/* a row of the table that is a row of item_row is copied as it is (ops.h) */
	req->tuple_row = store_tuple;
	req->tuple_desc = desc;
	st_op_query(req, store_row, &rsinfo, NULL);
}

/* The items of a page, collected in memory that outlives each row's */
typedef struct PageItems
{
	MemoryContext cxt;
	JsonbParseState *state;
} PageItems;

/* Adds one item of a page to its Items array. */
static bool
page_row(void *arg, text *pk, text *sk, Jsonb *item, int64 *size)
{
	PageItems  *p = (PageItems *) arg;
	MemoryContext old = MemoryContextSwitchTo(p->cxt);
	JsonbValue	v;
	Jsonb	   *copy;

	/* the parse state points into the item's strings: they must outlive the row */
	copy = palloc(VARSIZE(item));
	memcpy(copy, item, VARSIZE(item));
	v.type = jbvBinary;
	v.val.binary.data = &copy->root;
	v.val.binary.len = VARSIZE(copy) - VARHDRSZ;
	(void) pushJsonbValue(&p->state, WJB_ELEM, &v);
	MemoryContextSwitchTo(old);
	return false;
}

/*
 * DynamoDB's response of one page: {"Items": [...], "Count", "ScannedCount",
 * "LastEvaluatedKey" (when the page did not reach the end), "ConsumedCapacity"}.
 */
static Jsonb *
page_response(PageItems *p, StReadResult *res)
{
	JsonbParseState *state = NULL;
	JsonbValue *items;
	JsonbValue	iv;
	Jsonb	   *cc = st_last_consumed_capacity();

	items = pushJsonbValue(&p->state, WJB_END_ARRAY, NULL);
	(void) pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	iv = *items;
	st_push_member(&state, "Items", &iv);
	st_push_int(&state, "Count", (int64) res->count);
	st_push_int(&state, "ScannedCount", (int64) res->scanned);
	if (res->last_key)
		st_push_jsonb(&state, "LastEvaluatedKey", res->last_key);
	if (cc)
		st_push_jsonb(&state, "ConsumedCapacity", cc);
	return JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_OBJECT, NULL));
}

static void
page_items_init(PageItems *p)
{
	p->cxt = CurrentMemoryContext;
	p->state = NULL;
	(void) pushJsonbValue(&p->state, WJB_BEGIN_ARRAY, NULL);
}

/*
 * singletable.query_page(same arguments as query) -> jsonb: one page of a
 * Query, as DynamoDB returns it: at most max_items items evaluated, and at
 * most 1 MB of them (the page ends with the item that reaches 1 MB).
 */
Datum
singletable_query_page(PG_FUNCTION_ARGS)
{
	StQueryRequest req;
	StReadResult res;
	PageItems	p;

	st_sql_query_request(fcinfo, &req);
	req.page = true;
	page_items_init(&p);
	st_op_query(&req, page_row, &p, &res);
	PG_RETURN_JSONB_P(page_response(&p, &res));
}

/*
 * singletable.estimate_query(same arguments as query) -> (items, bytes,
 * pages, read_capacity_units, eventually_consistent_read_capacity_units,
 * source, heap_fetches): what the Query would evaluate and cost, read from
 * the table's size index when it has one (see src/estimate.c).
 */
Datum
singletable_estimate_query(PG_FUNCTION_ARGS)
{
	StQueryRequest req;
	StQueryEstimate est;
	TupleDesc	desc;
	Datum		values[7];
	bool		nulls[7] = {false, false, false, false, false, false, false};

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "estimate_query must return a row");
	st_sql_query_request(fcinfo, &req);
	st_op_estimate_query(&req, &est);
	values[0] = Int64GetDatum(est.items);
	values[1] = Int64GetDatum(est.bytes);
	values[2] = Int32GetDatum(est.pages);
	/* a GSI has no strongly consistent reads */
	values[3] = Float8GetDatum(est.strongly ? est.units : 0);
	nulls[3] = !est.strongly;
	values[4] = Float8GetDatum(est.strongly ? est.units / 2 : est.units);
	values[5] = CStringGetTextDatum(est.size_index ? "size index" : "items");
	values[6] = Int64GetDatum(est.heap_fetches);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

/*
 * singletable.last_evaluated_key() -> jsonb: where this session's last
 * query, scan, query_page or scan_page stopped (DynamoDB's
 * LastEvaluatedKey, to pass as exclusive_start_key), or NULL when it read
 * to the end.
 */
Datum
singletable_last_evaluated_key(PG_FUNCTION_ARGS)
{
	RETURN_JSONB_OR_NULL(st_last_evaluated_key());
}

/* Stores the lines of an EXPLAIN text as the rows of the function's result. */
static void
store_lines(ReturnSetInfo *rsinfo, const char *line)
{
	while (*line)
	{
		char	   *nl = strchr(line, '\n');
		int			len = nl ? nl - line : strlen(line);
		Datum		d = PointerGetDatum(cstring_to_text_with_len(line, len));
		bool		isnull = false;

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &d, &isnull);
		line += len + (nl ? 1 : 0);
	}
}

/*
 * singletable.explain_query(same key arguments as query, with_analyze)
 *   -> one row per line of the plan
 */
Datum
singletable_explain_query(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	StQueryRequest req;
	char	   *line;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	query_request(fcinfo, &req);
	/* index_name is the 10th argument since 0.2.0 (0.1.0's explain_query lacks it) */
	if (PG_NARGS() > 9)
		req.index_name = ARG_CSTRING(9);
	/* since 0.2.0 also key_condition, names, vals and exclusive_start_key */
	if (PG_NARGS() > 13)
	{
		req.key_condition = ARG_CSTRING(10);
		req.names = ARG_JSONB(11);
		req.vals = ARG_JSONB(12);
		req.start_key = ARG_JSONB(13);
	}
	line = st_op_explain_query(&req, !PG_ARGISNULL(8) && PG_GETARG_BOOL(8));
	store_lines(rsinfo, line);
	return (Datum) 0;
}

/*
 * The arguments of scan and explain_scan (0..10): table_name, filter,
 * projection, names, vals, index_name, segment, total_segments, max_items,
 * exclusive_start_key, include_expired.
 */
static void
scan_request(FunctionCallInfo fcinfo, StScanRequest *req)
{
	memset(req, 0, sizeof(*req));
	req->consistent_read = -1;
	req->table_name = table_arg(fcinfo);
	req->filter = ARG_CSTRING(1);
	req->projection = ARG_CSTRING(2);
	req->names = ARG_JSONB(3);
	req->vals = ARG_JSONB(4);
	req->index_name = ARG_CSTRING(5);
	req->has_segment = !PG_ARGISNULL(6);
	if (req->has_segment)
		req->segment = PG_GETARG_INT32(6);
	req->has_total_segments = !PG_ARGISNULL(7);
	if (req->has_total_segments)
		req->total_segments = PG_GETARG_INT32(7);
	if (!PG_ARGISNULL(8))
	{
		req->max_items = PG_GETARG_INT32(8);
		if (req->max_items < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("max_items must be at least 1, not %d", req->max_items)));
	}
	req->start_key = ARG_JSONB(9);
	req->include_expired = !PG_ARGISNULL(10) && PG_GETARG_BOOL(10);
}

/*
 * singletable.scan(table_name, filter, projection, names, vals, index_name,
 *                  segment, total_segments, max_items, exclusive_start_key,
 *                  include_expired) -> SETOF item_row
 *
 * Materialized in the result tuplestore, as query's rows are.
 */
Datum
singletable_scan(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	StScanRequest req;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	scan_request(fcinfo, &req);
	/* consistent_read is the 12th argument of scan and scan_page */
	req.consistent_read = consistent_read_arg(fcinfo, 11);
	st_op_scan(&req, store_row, rsinfo, NULL);
	return (Datum) 0;
}

/* singletable.scan_page(same arguments as scan) -> jsonb: one page of a Scan, as query_page */
Datum
singletable_scan_page(PG_FUNCTION_ARGS)
{
	StScanRequest req;
	StReadResult res;
	PageItems	p;

	scan_request(fcinfo, &req);
	req.consistent_read = consistent_read_arg(fcinfo, 11);
	req.page = true;
	page_items_init(&p);
	st_op_scan(&req, page_row, &p, &res);
	PG_RETURN_JSONB_P(page_response(&p, &res));
}

/*
 * singletable.explain_scan(same arguments as scan, with_analyze)
 *   -> one row per line of the plan
 */
Datum
singletable_explain_scan(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	StScanRequest req;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	scan_request(fcinfo, &req);
	store_lines(rsinfo, st_op_explain_scan(&req, !PG_ARGISNULL(11) && PG_GETARG_BOOL(11)));
	return (Datum) 0;
}

/*
 * singletable.condition_check_failure_item() -> jsonb: the current item of
 * the last write of this session whose condition failed with
 * return_values_on_condition_check_failure => 'ALL_OLD' (DynamoDB's Item of
 * ConditionalCheckFailedException), or NULL. Read it after the error, e.g.
 * in an EXCEPTION block or after ROLLBACK TO SAVEPOINT.
 */
Datum
singletable_condition_check_failure_item(PG_FUNCTION_ARGS)
{
	RETURN_JSONB_OR_NULL(st_condition_failure_item());
}

/* singletable.item_size(item jsonb) -> integer: DynamoDB's size of the item in bytes. */
Datum
singletable_item_size(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32((int32) st_item_size(PG_GETARG_JSONB_P(0)));
}
