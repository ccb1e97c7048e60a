/*
 * query_support.c — planner support for singletable.query: a row estimate.
 *
 * A call alone in FROM streams its rows (functions/query_scan.c); one that
 * is not (LATERAL, ORDINALITY, singletable.query_scan off) is a FunctionScan,
 * which reads the call to its end first. Either way the planner is given a
 * row estimate, so that joins and sorts around a query are planned for the
 * collection's size rather than a constant:
 *   - max_items given as a constant: at most that many rows;
 *   - otherwise, for a constant table name the caller may read: the table's
 *     rows per partition key, reltuples / n_distinct(pk) from ANALYZE's
 *     statistics, a third of that under a range condition on the sort key,
 *     one row under sk = value.
 * Without statistics the function's declared ROWS stands.
 *
 * And a call is simplified to one without its trailing default arguments
 * (simplify_call), which the executor would otherwise set up on every run.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_statistic.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

PG_FUNCTION_INFO_V1(singletable_query_support);

/* Arguments of singletable.query read here (0-based) */
#define QARG_TABLE		0
#define QARG_SK_OP		2
#define QARG_FORWARD	5
#define QARG_MAX_ITEMS	6
#define QARG_INCLUDE_EXPIRED 15

/* The constant argument n of a call, or NULL when it is not a non-null constant. */
static Const *
const_arg(List *args, int n)
{
	Node	   *arg;

	if (list_length(args) <= n)
		return NULL;
	arg = (Node *) list_nth(args, n);
	if (!IsA(arg, Const) || ((Const *) arg)->constisnull)
		return NULL;
	return (Const *) arg;
}

/*
 * Average rows per partition key of the table named by a constant, from
 * pg_class.reltuples and the statistics of its first column (create_table
 * puts the partition key there); < 0 when unknown or not readable.
 */
static double
rows_per_partition(Const *name)
{
	List	   *names;
	Oid			relid;
	HeapTuple	tp;
	double		reltuples;
	double		ndistinct;

	names = textToQualifiedNameList(DatumGetTextPP(name->constvalue));
	relid = RangeVarGetRelid(makeRangeVarFromNameList(names), NoLock, true);
	if (!OidIsValid(relid) || pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		return -1;

	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tp))
		return -1;
	reltuples = ((Form_pg_class) GETSTRUCT(tp))->reltuples;
	ReleaseSysCache(tp);
	if (reltuples <= 0)
		return -1;

	tp = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(relid), Int16GetDatum(1), BoolGetDatum(false));
	if (!HeapTupleIsValid(tp))
		return -1;
	ndistinct = ((Form_pg_statistic) GETSTRUCT(tp))->stadistinct;
	ReleaseSysCache(tp);
	if (ndistinct < 0)
		ndistinct = -ndistinct * reltuples;
	if (ndistinct < 1)
		return -1;
	return reltuples / ndistinct;
}

/*
 * Whether argument n (0-based) of a call of singletable.query is a constant
 * that singletable_query (sql_items.c) reads as it reads the argument left
 * out: NULL for every optional argument, and also the value NULL stands
 * for where the SQL default is not NULL (forward true, include_expired
 * false).
 */
static bool
arg_as_absent(Node *arg, int n)
{
	Const	   *c;

	if (!IsA(arg, Const))
		return false;
	c = (Const *) arg;
	if (c->constisnull)
		return true;
	if (n == QARG_FORWARD)
		return DatumGetBool(c->constvalue);
	if (n == QARG_INCLUDE_EXPIRED)
		return !DatumGetBool(c->constvalue);
	return false;
}

/*
 * SupportRequestSimplify: the call without its trailing arguments that are
 * constants read as absent (arg_as_absent), at least the table name kept;
 * NULL when there are none. A call in FROM initializes one expression per
 * argument every time it runs, about 650 instructions each, and a call
 * that names a table and a key condition passes 13 defaults. The C
 * function reads an argument beyond PG_NARGS() as NULL (sql_items.c,
 * query_page_request), so the shorter call does exactly what the full one
 * does. Only singletable.query has this support function.
 */
static Node *
simplify_call(SupportRequestSimplify *req)
{
	FuncExpr   *f = req->fcall;
	int			n = list_length(f->args);
	int			keep = n;
	FuncExpr   *short_call;

	while (keep > QARG_TABLE + 1 && arg_as_absent(list_nth(f->args, keep - 1), keep - 1))
		keep--;
	if (keep == n)
		return NULL;
	short_call = makeFuncExpr(f->funcid, f->funcresulttype, list_copy_head(f->args, keep),
							  f->funccollid, f->inputcollid, f->funcformat);
	short_call->funcretset = f->funcretset;
	short_call->funcvariadic = f->funcvariadic;
	short_call->location = f->location;
	return (Node *) short_call;
}

/* singletable.query_support(internal): answers SupportRequestRows and SupportRequestSimplify. */
Datum
singletable_query_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);
	SupportRequestRows *req;
	List	   *args;
	Const	   *c;
	double		rows;

	if (IsA(rawreq, SupportRequestSimplify))
		PG_RETURN_POINTER(simplify_call((SupportRequestSimplify *) rawreq));
	if (!IsA(rawreq, SupportRequestRows))
		PG_RETURN_POINTER(NULL);
	req = (SupportRequestRows *) rawreq;
	if (!is_funcclause(req->node))
		PG_RETURN_POINTER(NULL);
	args = ((FuncExpr *) req->node)->args;

	if ((c = const_arg(args, QARG_MAX_ITEMS)) != NULL)
	{
		req->rows = Max(DatumGetInt32(c->constvalue), 1);
		PG_RETURN_POINTER(req);
	}
	if ((c = const_arg(args, QARG_TABLE)) == NULL || (rows = rows_per_partition(c)) < 0)
		PG_RETURN_POINTER(NULL);
	if ((c = const_arg(args, QARG_SK_OP)) != NULL)
		rows = strcmp(TextDatumGetCString(c->constvalue), "=") == 0 ? 1 : rows / 3;
	else if (list_length(args) > QARG_SK_OP && !IsA(list_nth(args, QARG_SK_OP), Const))
		rows = rows / 3;		/* a condition of unknown kind */
	req->rows = Max(rows, 1);
	PG_RETURN_POINTER(req);
}
