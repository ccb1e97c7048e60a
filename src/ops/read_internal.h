/*
 * read_internal.h — what the read operations of the operations layer share
 * (read.c: get and query; scan.c: scan): the validated form of a read, the
 * row receiver that applies TTL, index projection, filter and projection
 * and cuts pages, start key checks, the index lookup and EXPLAIN of a kept
 * statement. Internal to the operations layer; other subsystems use ops.h.
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_READ_INTERNAL_H
#define SINGLETABLE_READ_INTERNAL_H

#include "executor/spi.h"
#include "tcop/dest.h"
#include "utils/jsonb.h"

#include "ops/capacity.h"
#include "ops/expr_glue.h"
#include "ops/ops.h"
#include "ops/ttl.h"

/* A read request, validated and converted to statement parameters */
typedef struct StQueryArgs
{
	StSkOp		op;
	bool		has_start;
	char	   *pk_display;		/* canonical pk text, returned on every row */
	StNode	   *filter;			/* FilterExpression, or NULL */
	StProjection *projection;	/* ProjectionExpression, or NULL */
	StAttrNames *filter_attrs;	/* attributes the filter reads */
	StAttrNames *projection_attrs;	/* attributes the projection reads */
	StIndex    *index;			/* the secondary index read, or NULL */
	int			n_eq;			/* index: sort attributes with equality */
	char	   *pk_displays[ST_MAX_INDEX_KEY_ATTRS];	/* index: partition values */
	int			n_key_names;	/* index: the table's and the index's key attributes */
	const char *key_names[2 + 2 * ST_MAX_INDEX_KEY_ATTRS];
	Datum		values[ST_INDEX_QUERY_MAX_NARGS];	/* ST_QUERY_NARGS on the table */
	char		nulls[ST_INDEX_QUERY_MAX_NARGS];
	bool		fetch_item;		/* an LSI's rows as the whole base item (ALL_ATTRIBUTES) */
} StQueryArgs;

/*
 * Where the rows of a read go: straight from the executor to the caller's
 * row function, through this receiver (no intermediate SPI tuple table).
 */
typedef struct StQueryReceiver
{
	DestReceiver pub;
	StTable    *tab;
	StQueryArgs *qa;
	int32		max_items;
	StQueryRowFn row;
	void	   *row_arg;
	StQueryTupleFn tuple_row;	/* rows as the table stores them, or NULL (ops.h) */
	TupleDesc	tuple_desc;		/* the columns tuple_row takes */
	HeapTuple	tuple;			/* the table's row of the row received, when it
								 * may go to tuple_row as it is (direct.c sets
								 * it), else NULL */
	text	   *pk_text;		/* a table query: the partition's key */
	MemoryContext rowcxt;		/* reset after every row; created by the
								 * first row that allocates */
	bool		row_allocs;		/* every row allocates (filter, projection,
								 * N or B sort key) */
	MemoryContext callcxt;		/* lives for the call: the page marker's key */
	uint64		evaluated;		/* ScannedCount */
	uint64		returned;		/* Count */
	bool		hide_expired;	/* leave out items the table's TTL has expired */
	StTtlClock	clock;
	bool		page;			/* stop after ST_PAGE_BYTES of evaluated items */
	int			n_key_names;	/* the attributes of a LastEvaluatedKey */
	const char *key_names[2 + 2 * ST_MAX_INDEX_KEY_ATTRS];
	Jsonb	   *last_key;		/* LastEvaluatedKey (in callcxt), or NULL */
	StCapacity	cap;			/* what the read consumed */
	StCapacityPart *part;		/* the table or index it charges */
} StQueryReceiver;

/*
 * The item of key values/nulls ($1 pk, $2 sk as ST_PLAN_GET takes them) in
 * the SPI caller's memory, or NULL: from the primary key directly
 * (direct.c) or through the kept statement; what names the operation.
 */
extern Jsonb *st_read_item(StTable *tab, Datum *values, const char *nulls, const char *what);

/* The projection of a stored item, in stored form; names from st_attr_names(NULL, proj) */
extern Datum st_project_item(StTable *tab, const StProjection *proj, const StAttrNames *names,
							 Jsonb *item);

/* The index a read names, or DynamoDB's error for an unknown or unusable one */
extern StIndex *st_read_index(StTable *tab, const char *name);

/*
 * The table as a read of index idx sees it: the index's partition key and
 * sort attribute n_eq in place of the table's keys (for checks and errors
 * that name them)
 */
extern StTable st_index_view(StTable *tab, StIndex *idx, int n_eq);

/* Start keys: the error of one that does not name exactly the table's key, one attribute of one */
extern void st_start_key_invalid(StTable *tab, const char *op, const char *why) pg_attribute_noreturn();
extern StKeyText st_start_key_attr(StTable *tab, const char *op, StVal *map, const char *name,
								   StKeyType kt);

/* Adds name to qa's key attributes (LastEvaluatedKey of an index), once */
extern void st_add_key_name(StQueryArgs *qa, const char *name);

/*
 * The placeholders of a read with these expressions (has_expression: a
 * filter, projection or key condition is given); on index idx the key
 * attributes a query's filter may not read are the index's.
 */
extern StExprEnv *st_read_env(StTable *tab, StIndex *idx, bool has_expression,
							  bool has_value_expression, const char *null_exprs, Jsonb *names,
							  Jsonb *vals);

/* Parses filter (of kind SE_QUERY_FILTER or SE_FILTER) and projection into qa; every placeholder must be used */
extern void st_read_expressions(StExprEnv *env, const char *filter, StExprKind filter_kind,
								const char *projection, StQueryArgs *qa);

/*
 * Sets up r for a read of tab described by qa; receive is st_keyed_receive
 * (rows (pk, sk, item)) or query's own receiver. Rows go to row(arg, ...).
 * op is ST_STAT_QUERY or ST_STAT_SCAN; consistent_read as in StQueryRequest
 * (checked: not on a global secondary index); page stops the read after
 * ST_PAGE_BYTES of evaluated items.
 */
extern void st_query_receiver_init(StQueryReceiver *r, StTable *tab, StQueryArgs *qa,
								   int32 max_items, bool include_expired, StStatOp op,
								   int consistent_read, bool page,
								   bool (*receive) (TupleTableSlot *slot, DestReceiver *self),
								   StQueryRowFn row, void *arg);

/*
 * One row of a Query of the table, as its statement's receiver (set up by
 * st_op_query and st_op_estimate_query) gets it: sk (NULL without a sort
 * key) and item. What a direct read of the table (direct.c) hands each row
 * to, without a slot. Whether the read goes on.
 */
extern bool st_query_receive_row(StQueryReceiver *r, Datum sk, bool sk_isnull, Datum item);

/* Receives one (pk, sk, item) row: of a query on a secondary index or of a scan */
extern bool st_keyed_receive(TupleTableSlot *slot, DestReceiver *self);

/*
 * Ends the read: its capacity (the session's last ConsumedCapacity, the
 * statistics), its LastEvaluatedKey (the session's last one), result
 */
extern void st_query_receiver_end(StQueryReceiver *r, StReadResult *result);

/*
 * EXPLAIN (COSTS OFF) of kept statement plan with params, as text in the
 * SPI caller's memory; one_shot plans it afresh as a one-shot plan (with
 * its nargs argtypes), as reads of several Citus shards run.
 */
extern char *st_explain_plan(SPIPlanPtr plan, ParamListInfo params, Oid *argtypes, int nargs,
							 bool one_shot, bool analyze);

#endif
