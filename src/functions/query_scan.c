/*
 * query_scan.c — singletable.query in FROM as a scan that streams its rows.
 *
 * PostgreSQL runs a set-returning function in FROM to its end and keeps its
 * rows in a tuplestore before the query sees the first (FunctionScan): a
 * copy of every row in, another out, and an outer LIMIT that cannot stop
 * the read. A call of singletable.query alone in FROM is planned instead as
 * a custom scan (EXPLAIN: "Custom Scan (SingletableQuery)") that reads the
 * table's primary key row by row as the query asks for rows
 * (ops.h, st_query_stream_*): a row the table stores as item_row's is handed
 * on as it lies in the buffer, without a copy; a LIMIT stops the read, and
 * what was read is what is counted (capacity, statistics) and where
 * last_evaluated_key() says the read ended.
 *
 * The same call, the same answers: the arguments are read by the function's
 * own reader (sql_items.c) and checked by the operations layer as the
 * function's are. Where the Query cannot be streamed — a secondary index,
 * row-level security, a Citus table, direct_reads off (direct.c) — the scan
 * runs the function's materialized read into a tuplestore of its own and
 * returns its rows, as the FunctionScan did.
 *
 * The path replaces the FunctionScan only where nothing else depends on
 * FunctionScan's behaviour:
 *   - the call is the only function of its FROM item, without ORDINALITY,
 *     and singletable.query's C function (the 0.1.0 definition too);
 *   - it references no other FROM item (LATERAL keeps the FunctionScan:
 *     its arguments would be parameters of a nested loop), and the query
 *     reads its columns, not its row as a whole value;
 *   - the query and every query it is part of is a SELECT without FOR
 *     UPDATE/SHARE or an INSERT (a re-check of a concurrently updated row
 *     in UPDATE, DELETE, MERGE or a locking SELECT re-reads FROM items:
 *     EvalPlanQual, which a function's copied row serves);
 *   - singletable.query_scan is on.
 * A rescan (the inner side of a nested loop, a correlated subquery) reads
 * again; the planner knows a rescan costs a read and materializes where
 * that is cheaper. It does not scan backward: a SCROLL cursor gets a
 * Material node from the planner.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/sysattr.h"
#include "catalog/pg_type_d.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
#include "utils/tuplestore.h"

#include "functions/query_scan.h"
#include "functions/sql_items.h"
#include "ops/ops.h"

/* singletable.query_scan (guc.c) */
bool		st_query_scan = true;

/* singletable.query's C function (sql_items.c) */
extern Datum singletable_query(PG_FUNCTION_ARGS);

static set_rel_pathlist_hook_type prev_set_rel_pathlist = NULL;

/* The scan's state */
typedef struct QueryScanState
{
	CustomScanState css;
	FuncExpr   *call;			/* the call, its arguments as the plan has them */
	List	   *args;			/* their ExprStates */
	MemoryContext cxt;			/* one read's memory: reset at each (re)start */
	bool		started;
	StQueryStream *stream;		/* the read, streamed; or */
	Tuplestorestate *store;		/* its rows, materialized */
	TupleTableSlot *row_slot;	/* a streamed row (a heap tuple slot) */
	TupleTableSlot *store_slot; /* a row out of the store (a minimal tuple slot) */
	bool		ever_streamed;	/* for EXPLAIN ANALYZE: which path the reads took */
	bool		ever_stored;
} QueryScanState;

static Plan *plan_query_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
							 List *tlist, List *clauses, List *custom_plans);
static Node *create_query_scan_state(CustomScan *cscan);
static void begin_query_scan(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_query_scan(CustomScanState *node);
static void end_query_scan(CustomScanState *node);
static void rescan_query_scan(CustomScanState *node);
static void explain_query_scan(CustomScanState *node, List *ancestors, ExplainState *es);

static const CustomPathMethods query_path_methods = {
	.CustomName = "SingletableQuery",
	.PlanCustomPath = plan_query_scan,
};

static const CustomScanMethods query_scan_methods = {
	.CustomName = "SingletableQuery",
	.CreateCustomScanState = create_query_scan_state,
};

static const CustomExecMethods query_exec_methods = {
	.CustomName = "SingletableQuery",
	.BeginCustomScan = begin_query_scan,
	.ExecCustomScan = exec_query_scan,
	.EndCustomScan = end_query_scan,
	.ReScanCustomScan = rescan_query_scan,
	.ExplainCustomScan = explain_query_scan,
};

/*
 * Whether funcid is singletable.query: its C function is this library's
 * singletable_query, called on NULL input (the scan reads NULL arguments as
 * the function does) and returning a set. One catalog lookup (fmgr_info).
 */
static bool
is_query_function(Oid funcid)
{
	FmgrInfo	flinfo;

	fmgr_info(funcid, &flinfo);
	return flinfo.fn_addr == singletable_query && flinfo.fn_retset && !flinfo.fn_strict;
}

/*
 * Whether the query being planned, and every query it is part of, is a
 * SELECT without FOR UPDATE/SHARE or an INSERT: statements whose rows are
 * never re-checked by EvalPlanQual (UPDATE, DELETE, MERGE and locking
 * SELECTs re-read their FROM items' rows for a concurrently updated row).
 */
static bool
no_recheck(PlannerInfo *root)
{
	for (PlannerInfo *r = root; r != NULL; r = r->parent_root)
		if ((r->parse->commandType != CMD_SELECT && r->parse->commandType != CMD_INSERT) ||
			r->parse->rowMarks != NIL || r->rowMarks != NIL)
			return false;
	return true;
}

/*
 * Whether the query reads the FROM item's row as a whole (a whole-row
 * reference, "SELECT r FROM singletable.query(...) AS r"): the scan tuple
 * holds its columns, not the row value.
 */
static bool
whole_row_used(RelOptInfo *rel)
{
	Bitmapset  *attrs = NULL;
	ListCell   *lc;

	pull_varattnos((Node *) rel->reltarget->exprs, rel->relid, &attrs);
	foreach(lc, rel->baserestrictinfo)
		pull_varattnos((Node *) ((RestrictInfo *) lfirst(lc))->clause, rel->relid, &attrs);
	return bms_is_member(InvalidAttrNumber - FirstLowInvalidHeapAttributeNumber, attrs);
}

/* The call of singletable.query that FROM item rte is, when it may be streamed (see above) */
static FuncExpr *
streamable_call(PlannerInfo *root, RelOptInfo *rel, RangeTblEntry *rte)
{
	RangeTblFunction *rtfunc;
	FuncExpr   *call;
	TupleDesc	desc;

	if (!st_query_scan || rte->rtekind != RTE_FUNCTION || rte->funcordinality ||
		list_length(rte->functions) != 1 || rel->reloptkind != RELOPT_BASEREL ||
		!bms_is_empty(rel->lateral_relids))
		return NULL;
	rtfunc = (RangeTblFunction *) linitial(rte->functions);
	if (!IsA(rtfunc->funcexpr, FuncExpr))
		return NULL;
	call = (FuncExpr *) rtfunc->funcexpr;
	if (!call->funcretset || !is_query_function(call->funcid) || !no_recheck(root) ||
		whole_row_used(rel))
		return NULL;
	/* singletable.item_row: (pk text, sk text, item jsonb), which the stream writes */
	if (get_expr_result_type((Node *) call, NULL, &desc) != TYPEFUNC_COMPOSITE || desc->natts != 3 ||
		TupleDescAttr(desc, 0)->atttypid != TEXTOID || TupleDescAttr(desc, 1)->atttypid != TEXTOID ||
		TupleDescAttr(desc, 2)->atttypid != JSONBOID)
		return NULL;
	return call;
}

/*
 * set_rel_pathlist_hook: a FROM item that is a streamable call of
 * singletable.query gets the custom path in place of its FunctionScan's,
 * with the same row estimate (query_support.c) and total cost; its first
 * row costs nothing to wait for.
 */
static void
query_scan_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte)
{
	Path	   *fpath = NULL;
	CustomPath *cpath;
	ListCell   *lc;

	if (prev_set_rel_pathlist)
		prev_set_rel_pathlist(root, rel, rti, rte);
	if (streamable_call(root, rel, rte) == NULL)
		return;
	foreach(lc, rel->pathlist)
	{
		Path	   *p = (Path *) lfirst(lc);

		if (p->pathtype == T_FunctionScan && p->param_info == NULL)
			fpath = p;
	}
	if (fpath == NULL)
		return;
	cpath = makeNode(CustomPath);
	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = rel;
	cpath->path.pathtarget = rel->reltarget;
	cpath->path.param_info = NULL;
	cpath->path.rows = fpath->rows;
	cpath->path.startup_cost = 0;
	cpath->path.total_cost = fpath->total_cost;
	cpath->path.pathkeys = NIL;
	cpath->methods = &query_path_methods;
	rel->pathlist = list_make1(cpath);
}

/*
 * The plan: a scan of no relation (scanrelid 0: the executor would open an
 * RTE_FUNCTION as a table) whose scan tuple is the function's row, its
 * columns in custom_scan_tlist; the call in custom_exprs.
 */
static Plan *
plan_query_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist,
				List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	RangeTblEntry *rte = planner_rt_fetch(rel->relid, root);
	RangeTblFunction *rtfunc = (RangeTblFunction *) linitial(rte->functions);
	TupleDesc	desc;
	List	   *scan_tlist = NIL;

	(void) get_expr_result_type(rtfunc->funcexpr, NULL, &desc);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) makeVar(rel->relid, i + 1, att->atttypid,
															  att->atttypmod, att->attcollation, 0),
											 i + 1, pstrdup(NameStr(att->attname)), false));
	}
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = extract_actual_clauses(clauses, false);
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_exprs = list_make1(copyObject(rtfunc->funcexpr));
	cscan->custom_scan_tlist = scan_tlist;
	cscan->methods = &query_scan_methods;
	return &cscan->scan.plan;
}

static Node *
create_query_scan_state(CustomScan *cscan)
{
	QueryScanState *st = (QueryScanState *) newNode(sizeof(QueryScanState), T_CustomScanState);

	st->css.methods = &query_exec_methods;
	return (Node *) st;
}

static void
begin_query_scan(CustomScanState *node, EState *estate, int eflags)
{
	QueryScanState *st = (QueryScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	TupleDesc	desc = node->ss.ss_ScanTupleSlot->tts_tupleDescriptor;

	st->call = (FuncExpr *) linitial(cscan->custom_exprs);
	st->args = ExecInitExprList(st->call->args, &node->ss.ps);
	st->cxt = AllocSetContextCreate(CurrentMemoryContext, "singletable query scan",
									ALLOCSET_DEFAULT_SIZES);
	/* the scan tuple slot is a virtual one; the rows come in these */
	st->row_slot = ExecAllocTableSlot(&estate->es_tupleTable, desc, &TTSOpsBufferHeapTuple);
	st->store_slot = ExecAllocTableSlot(&estate->es_tupleTable, desc, &TTSOpsMinimalTuple);
}

/* Ends the current read, if any: what it consumed is counted */
static void
finish_read(QueryScanState *st)
{
	if (st->stream)
	{
		MemoryContext old = MemoryContextSwitchTo(st->cxt);

		st_query_stream_end(st->stream);
		MemoryContextSwitchTo(old);
		st->stream = NULL;
	}
	if (st->store)
	{
		tuplestore_end(st->store);
		st->store = NULL;
	}
	ExecClearTuple(st->row_slot);
	ExecClearTuple(st->store_slot);
	MemoryContextReset(st->cxt);
	st->started = false;
}

/* Starts the read: the call's arguments, as the function reads them */
static void
start_read(QueryScanState *st)
{
	ExprContext *econtext = st->css.ss.ps.ps_ExprContext;
	int			nargs = list_length(st->args);
	LOCAL_FCINFO(fcinfo, FUNC_MAX_ARGS);
	StQueryRequest req;
	MemoryContext old;
	ListCell   *lc;
	int			i = 0;

	old = MemoryContextSwitchTo(st->cxt);
	InitFunctionCallInfoData(*fcinfo, NULL, nargs, st->call->inputcollid, NULL, NULL);
	foreach(lc, st->args)
	{
		fcinfo->args[i].value = ExecEvalExpr((ExprState *) lfirst(lc), econtext,
											 &fcinfo->args[i].isnull);
		i++;
	}
	st_sql_query_request(fcinfo, &req);
	st->stream = st_query_stream_begin(&req, st->row_slot);
	if (st->stream)
		st->ever_streamed = true;
	else
	{
		st->store = tuplestore_begin_heap(false, false, work_mem);
		st_sql_query_store(&req, st->store, st->store_slot->tts_tupleDescriptor);
		st->ever_stored = true;
	}
	MemoryContextSwitchTo(old);
	st->started = true;
}

/*
 * The next row of the read. The node's projection and quals, and its
 * parent's expressions, were compiled for a virtual scan tuple, which they
 * read without deforming it: the row is deformed here (printtup would do it
 * anyway).
 */
static TupleTableSlot *
next_row(ScanState *ss)
{
	QueryScanState *st = (QueryScanState *) ss;
	TupleTableSlot *slot;
	bool		found;

	if (!st->started)
		start_read(st);
	if (st->stream)
	{
		MemoryContext old = MemoryContextSwitchTo(st->cxt);

		found = st_query_stream_next(st->stream);
		MemoryContextSwitchTo(old);
		slot = st->row_slot;
	}
	else
	{
		found = tuplestore_gettupleslot(st->store, true, false, st->store_slot);
		slot = st->store_slot;
	}
	if (!found)
		return ExecClearTuple(ss->ss_ScanTupleSlot);
	slot_getallattrs(slot);
	return slot;
}

/* Rows come from the read alone: nothing to re-check */
static bool
recheck_row(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

static TupleTableSlot *
exec_query_scan(CustomScanState *node)
{
	return ExecScan(&node->ss, next_row, recheck_row);
}

static void
end_query_scan(CustomScanState *node)
{
	QueryScanState *st = (QueryScanState *) node;

	finish_read(st);
	MemoryContextDelete(st->cxt);
}

/* A rescan reads again (its arguments may have changed) */
static void
rescan_query_scan(CustomScanState *node)
{
	finish_read((QueryScanState *) node);
	ExecScanReScan(&node->ss);
}

/*
 * EXPLAIN: VERBOSE shows the call as a FunctionScan does; ANALYZE which
 * path its reads took.
 */
static void
explain_query_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	QueryScanState *st = (QueryScanState *) node;

	if (es->verbose)
	{
		List	   *context = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan, ancestors);

		ExplainPropertyText("Function Call",
							deparse_expression((Node *) st->call, context, false, false), es);
	}
	if (es->analyze && (st->ever_streamed || st->ever_stored))
		ExplainPropertyText("Read",
							st->ever_streamed && st->ever_stored ? "primary key directly and statement"
							: st->ever_streamed ? "primary key directly, streamed"
							: "statement, materialized", es);
}

/* Registers the scan's methods and the planner hook (from _PG_init) */
void
st_query_scan_init(void)
{
	RegisterCustomScanMethods(&query_scan_methods);
	prev_set_rel_pathlist = set_rel_pathlist_hook;
	set_rel_pathlist_hook = query_scan_pathlist;
}
