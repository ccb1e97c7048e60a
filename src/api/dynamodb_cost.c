/*
 * dynamodb_cost.c — singletable.estimate_cost: what one DynamoDB request costs
 * per call, per month and in money, measured on the table's real data.
 *
 * The request runs once, as singletable.dynamodb would run it, inside an
 * internal subtransaction that is always rolled back: the units are those
 * its ConsumedCapacity reports (the sizes of the items it reads or writes,
 * old and new, its index entries, a transaction's double rate), and nothing
 * of it remains — no write, no stream record, no token, no count in
 * table_stats or hot_keys (st_stats_paused). A read that may be strongly
 * consistent runs strongly consistent, and its eventually consistent units
 * are half of those, as DynamoDB computes them; a read of a global
 * secondary index is eventually consistent only.
 *
 * Money: on-demand, the month's request units at the prices per million
 * given; provisioned, the capacity that serves the month's units spread
 * evenly over its 730 hours at the target utilization (DynamoDB's auto
 * scaling default, 70%), at least 1, at the prices per capacity-unit hour
 * given. The default prices are AWS's for us-east-1 after its price change
 * of 1 November 2024 (docs/capacity.md).
 */
#include "postgres.h"

#include <math.h>

#include "access/xact.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "api/dynamodb.h"
#include "format/jsonbw.h"
#include "format/jsonpush.h"
#include "format/jsonval.h"
#include "ops/stats.h"

PG_FUNCTION_INFO_V1(singletable_estimate_cost);

#define HOURS_PER_MONTH 730.0

/* The operations estimate_cost measures, and whether each reads */
static const struct
{
	const char *name;
	bool		read;
	bool		single_table;	/* has a TableName of its own */
	bool		consistent;		/* takes ConsistentRead */
}			cost_ops[] = {
	{"GetItem", true, true, true},
	{"Query", true, true, true},
	{"Scan", true, true, true},
	{"BatchGetItem", true, false, false},
	{"TransactGetItems", true, false, false},
	{"PutItem", false, true, false},
	{"UpdateItem", false, true, false},
	{"DeleteItem", false, true, false},
	{"BatchWriteItem", false, false, false},
	{"TransactWriteItems", false, false, false},
};

static bool
has_member(Jsonb *j, const char *name)
{
	return getKeyJsonValueFromContainer(&j->root, name, strlen(name), NULL) != NULL;
}

/* The operation a request is for, from its members (DeleteItem must be named) */
const char *
st_ddb_infer_operation(Jsonb *req)
{
	if (has_member(req, "TransactItems"))
	{
		JsonbValue *items = getKeyJsonValueFromContainer(&req->root, "TransactItems", strlen("TransactItems"), NULL);

		if (items->type == jbvBinary && JsonContainerIsArray(items->val.binary.data) &&
			JsonContainerSize(items->val.binary.data) > 0)
		{
			JsonbValue *first = getIthJsonbValueFromContainer(items->val.binary.data, 0);

			if (first && first->type == jbvBinary && JsonContainerIsObject(first->val.binary.data) &&
				getKeyJsonValueFromContainer(first->val.binary.data, "Get", 3, NULL))
				return "TransactGetItems";
		}
		return "TransactWriteItems";
	}
	if (has_member(req, "RequestItems"))
	{
		JsonbValue *ri = getKeyJsonValueFromContainer(&req->root, "RequestItems", strlen("RequestItems"), NULL);

		/* BatchWriteItem's tables hold lists of requests, BatchGetItem's objects with Keys */
		if (ri->type == jbvBinary && JsonContainerIsObject(ri->val.binary.data))
		{
			JsonbIterator *it = JsonbIteratorInit(ri->val.binary.data);
			JsonbValue	k,
						v;

			if (st_jbv_next_member(&it, &k, &v) && v.type == jbvBinary && JsonContainerIsArray(v.val.binary.data))
				return "BatchWriteItem";
		}
		return "BatchGetItem";
	}
	if (has_member(req, "KeyConditionExpression") || has_member(req, "KeyConditions"))
		return "Query";
	if (has_member(req, "Item"))
		return "PutItem";
	if (has_member(req, "Key"))
		return has_member(req, "UpdateExpression") || has_member(req, "AttributeUpdates") ? "UpdateItem" : "GetItem";
	return "Scan";
}

/* The sum of CapacityUnits in a response's ConsumedCapacity (an object or a list) */
static double
consumed_units(Jsonb *resp)
{
	JsonbValue *cc = getKeyJsonValueFromContainer(&resp->root, "ConsumedCapacity", strlen("ConsumedCapacity"), NULL);
	double		sum = 0;

	if (cc == NULL || cc->type != jbvBinary)
		return 0;
	if (JsonContainerIsObject(cc->val.binary.data))
	{
		JsonbValue *u = getKeyJsonValueFromContainer(cc->val.binary.data, "CapacityUnits", strlen("CapacityUnits"), NULL);

		return u && u->type == jbvNumeric ? DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(u->val.numeric))) : 0;
	}
	for (uint32 i = 0; i < JsonContainerSize(cc->val.binary.data); i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(cc->val.binary.data, i);
		JsonbValue *u;

		CHECK_FOR_INTERRUPTS();
		if (e == NULL || e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data))
			continue;
		u = getKeyJsonValueFromContainer(e->val.binary.data, "CapacityUnits", strlen("CapacityUnits"), NULL);
		if (u && u->type == jbvNumeric)
			sum += DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(u->val.numeric)));
	}
	return sum;
}

/* request with its top-level members set (NULL: removed), the others kept */
Jsonb *
st_ddb_with_members(Jsonb *request, const char *const *names, JsonbValue *const *values, int n)
{
	JsonbParseState *st = NULL;
	JsonbIterator *it = JsonbIteratorInit(&request->root);
	JsonbValue	k,
				v;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	while (st_jbv_next_member(&it, &k, &v))
	{
		bool		replaced = false;

		for (int i = 0; i < n; i++)
			if (k.val.string.len == (int) strlen(names[i]) &&
				memcmp(k.val.string.val, names[i], k.val.string.len) == 0)
				replaced = true;
		if (replaced)
			continue;
		pushJsonbValue(&st, WJB_KEY, &k);
		pushJsonbValue(&st, WJB_VALUE, &v);
	}
	for (int i = 0; i < n; i++)
		if (values[i])
		{
			st_push_key(&st, names[i]);
			pushJsonbValue(&st, WJB_VALUE, values[i]);
		}
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

/*
 * The response of op to request, run in a subtransaction that is rolled back
 * whatever happens; an error is re-thrown after the rollback. strict: with
 * the entity and typo guards (singletable.entity_check, prefix_check) at
 * ERROR for the call.
 */
Jsonb *
st_ddb_run_rolled_back(const char *op, Jsonb *request, bool strict)
{
	MemoryContext outer = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	Jsonb	   *result = NULL;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(outer);
	st_stats_paused = true;
	PG_TRY();
	{
		Jsonb	   *r;
		MemoryContext old;

		/* set in the subtransaction, so its rollback restores them */
		if (strict)
		{
			(void) set_config_option("singletable.entity_check", "error", PGC_USERSET, PGC_S_SESSION,
									 GUC_ACTION_LOCAL, true, 0, false);
			(void) set_config_option("singletable.prefix_check", "error", PGC_USERSET, PGC_S_SESSION,
									 GUC_ACTION_LOCAL, true, 0, false);
		}
		r = st_ddb_call_internal(op, request);
		old = MemoryContextSwitchTo(outer);

		result = r ? DatumGetJsonbPCopy(JsonbPGetDatum(r)) : NULL;
		MemoryContextSwitchTo(old);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		/* as PL/pgSQL's exception blocks: the subtransaction ends before the error goes on */
		st_stats_paused = false;
		MemoryContextSwitchTo(outer);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(outer);
		CurrentResourceOwner = owner;
		ReThrowError(edata);
	}
	PG_END_TRY();
	st_stats_paused = false;
	RollbackAndReleaseCurrentSubTransaction();
	MemoryContextSwitchTo(outer);
	CurrentResourceOwner = owner;
	return result;
}

/* A float8 argument that must be given, finite and at least min */
static double
float_arg(FunctionCallInfo fcinfo, int n, const char *name, double min, double max)
{
	double		v;

	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", name)));
	v = PG_GETARG_FLOAT8(n);
	if (isnan(v) || v < min || v > max)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be between %g and %g, not %g", name, min, max, v)));
	return v;
}

/*
 * singletable.estimate_cost(table_name, request, calls_per_month, operation,
 *   read_request_price, write_request_price, read_capacity_unit_hour_price,
 *   write_capacity_unit_hour_price, target_utilization) -> record
 */
Datum
singletable_estimate_cost(PG_FUNCTION_ARGS)
{
	char	   *table;
	Jsonb	   *request;
	double		calls;
	const char *op = NULL;
	double		rrp,
				wrp,
				rcuh,
				wcuh,
				util;
	int			oi = -1;
	bool		consistent_allowed;
	double		units;
	double		sc_units = -1;
	double		ec_units = -1;
	double		monthly;
	double		on_demand;
	int64		provisioned = 0;
	double		provisioned_usd;
	Jsonb	   *resp;
	TupleDesc	tupdesc;
	Datum		values[10];
	bool		nulls[10] = {0};
	JsonbValue	tv,
				rv;

	/* the cheap checks first: arguments, then the request's shape */
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("table_name must not be NULL")));
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("request must not be NULL")));
	table = text_to_cstring(PG_GETARG_TEXT_PP(0));
	request = PG_GETARG_JSONB_P(1);
	if (!JB_ROOT_IS_OBJECT(request))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("request must be a JSON object: a DynamoDB request document")));
	calls = float_arg(fcinfo, 2, "calls_per_month", 0, 1e15);
	if (!PG_ARGISNULL(3))
		op = text_to_cstring(PG_GETARG_TEXT_PP(3));
	rrp = float_arg(fcinfo, 4, "read_request_price", 0, 1e9);
	wrp = float_arg(fcinfo, 5, "write_request_price", 0, 1e9);
	rcuh = float_arg(fcinfo, 6, "read_capacity_unit_hour_price", 0, 1e9);
	wcuh = float_arg(fcinfo, 7, "write_capacity_unit_hour_price", 0, 1e9);
	util = float_arg(fcinfo, 8, "target_utilization", 0.01, 1);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "estimate_cost must return a record");

	if (op == NULL)
		op = st_ddb_infer_operation(request);
	for (int i = 0; i < lengthof(cost_ops); i++)
		if (strcmp(op, cost_ops[i].name) == 0)
			oi = i;
	if (oi < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("estimate_cost cannot measure operation \"%s\"", op),
				 errhint("It measures GetItem, Query, Scan, BatchGetItem, TransactGetItems, PutItem, UpdateItem, DeleteItem, BatchWriteItem and TransactWriteItems.")));

	/* the request as it will run: its table, its capacity reported per index */
	{
		const char *names[3];
		JsonbValue *vals[3];
		int			n = 0;
		JsonbValue *given = getKeyJsonValueFromContainer(&request->root, "TableName", strlen("TableName"), NULL);
		JsonbValue *index = getKeyJsonValueFromContainer(&request->root, "IndexName", strlen("IndexName"), NULL);
		JsonbValue	cv;

		st_jbv_string(&rv, "INDEXES");
		names[n] = "ReturnConsumedCapacity";
		vals[n++] = &rv;
		if (cost_ops[oi].single_table)
		{
			if (given && (given->type != jbvString || given->val.string.len != (int) strlen(table) ||
						  memcmp(given->val.string.val, table, strlen(table)) != 0))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("the request's TableName is not table_name \"%s\"", table)));
			st_jbv_string(&tv, table);
			names[n] = "TableName";
			vals[n++] = &tv;
		}
		/* strongly consistent where DynamoDB allows it: not on a global secondary index */
		consistent_allowed = cost_ops[oi].consistent && index == NULL;
		if (consistent_allowed)
		{
			cv.type = jbvBool;
			cv.val.boolean = true;
			names[n] = "ConsistentRead";
			vals[n++] = &cv;
		}
		request = st_ddb_with_members(request, names, vals, n);
	}

	resp = st_ddb_run_rolled_back(op, request, false);
	units = resp ? consumed_units(resp) : 0;
	if (cost_ops[oi].read && cost_ops[oi].consistent)
	{
		if (consistent_allowed)
		{
			sc_units = units;
			ec_units = units / 2;
		}
		else
			ec_units = units;
		/* the month's reads at the request's own consistency (DynamoDB's default: eventual) */
		{
			JsonbValue *cr = getKeyJsonValueFromContainer(&PG_GETARG_JSONB_P(1)->root, "ConsistentRead",
														  strlen("ConsistentRead"), NULL);

			units = cr && cr->type == jbvBool && cr->val.boolean && consistent_allowed ? sc_units : ec_units;
		}
	}

	monthly = units * calls;
	on_demand = monthly / 1e6 * (cost_ops[oi].read ? rrp : wrp);
	if (monthly > 0)
		provisioned = (int64) ceil(monthly / (HOURS_PER_MONTH * 3600.0) / util);
	provisioned = Max(provisioned, 1);
	provisioned_usd = provisioned * (cost_ops[oi].read ? rcuh : wcuh) * HOURS_PER_MONTH;

	values[0] = CStringGetTextDatum(op);
	values[1] = Float8GetDatum(units);
	if (sc_units >= 0)
		values[2] = Float8GetDatum(sc_units);
	else
		nulls[2] = true;
	if (ec_units >= 0)
		values[3] = Float8GetDatum(ec_units);
	else
		nulls[3] = true;
	values[4] = BoolGetDatum(cost_ops[oi].read);
	values[5] = Float8GetDatum(monthly);
	values[6] = DirectFunctionCall1(float8_numeric, Float8GetDatum(round(on_demand * 100) / 100));
	values[7] = Int64GetDatum(provisioned);
	values[8] = DirectFunctionCall1(float8_numeric, Float8GetDatum(round(provisioned_usd * 100) / 100));
	if (resp && has_member(resp, "ConsumedCapacity"))
		values[9] = JsonbPGetDatum(JsonbValueToJsonb(getKeyJsonValueFromContainer(&resp->root, "ConsumedCapacity",
																				   strlen("ConsumedCapacity"), NULL)));
	else
		nulls[9] = true;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}
