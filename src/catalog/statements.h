/*
 * statements.h — the SQL statements singletable runs on an item table: their
 * shapes, the plans kept per table, SPI parameter lists and the row-only
 * receivers that take their results.
 */
#ifndef SINGLETABLE_STATEMENTS_H
#define SINGLETABLE_STATEMENTS_H

#include "executor/spi.h"
#include "tcop/dest.h"
#include "utils/jsonb.h"

#include "format/keys.h"

/* The column holding the whole item; key attributes are columns of their own */
#define ST_ITEM_COLUMN "item"

/* Statements kept prepared per table (see statements.c for their SQL) */
typedef enum StPlanKind
{
	ST_PLAN_GET,				/* SELECT item WHERE key = */
	ST_PLAN_LOCK,				/* SELECT item WHERE key = FOR UPDATE */
	ST_PLAN_UPDATE,				/* UPDATE SET item WHERE key = */
	ST_PLAN_INSERT,				/* INSERT ... ON CONFLICT DO NOTHING */
	ST_PLAN_UPSERT,				/* INSERT ... ON CONFLICT (key) DO UPDATE */
	ST_PLAN_DELETE,				/* DELETE WHERE key = RETURNING item */
	ST_NUM_ITEM_PLANS
} StPlanKind;

/* Statements of batch_get and batch_write kept per table (batch.c writes their SQL) */
typedef enum StBatchPlanKind
{
	ST_BATCH_GET,				/* the item of every key, in the keys' order */
	ST_BATCH_LOCK,				/* lock the items of the keys, in their order */
	ST_BATCH_PUT,				/* a multi-row upsert */
	ST_BATCH_DELETE,			/* a multi-row delete */
	ST_NUM_BATCH_PLANS
} StBatchPlanKind;

/* Sort-key conditions of a Query; begins_with arrives as RANGE or GE */
typedef enum StSkOp
{
	ST_SK_NONE,
	ST_SK_EQ,
	ST_SK_LT,
	ST_SK_LE,
	ST_SK_GT,
	ST_SK_GE,
	ST_SK_BETWEEN,				/* sk >= $2 AND sk <= $3 */
	ST_SK_RANGE,				/* sk >= $2 AND sk < $3 (begins_with) */
	ST_NUM_SK_OPS
} StSkOp;

/* Query statement parameters: $1 pk, $2 bound, $3 bound, $4 start key, $5 limit */
#define ST_QUERY_NARGS 5

/*
 * Index query parameters (0-based; $n is one more), for an index of n_pk
 * partition and n_sk sort attributes: the partition values, the sort values
 * (equality, or the operand / lower bound of the condition on the sort
 * attribute after those with equality), the upper bound, the limit, the
 * start key's sort values, the start key's table keys.
 */
#define ST_IXP_PK(idx, i)		(i)
#define ST_IXP_SK(idx, j)		((idx)->n_pk + (j))
#define ST_IXP_UPPER(idx)		((idx)->n_pk + (idx)->n_sk)
#define ST_IXP_LIMIT(idx)		((idx)->n_pk + (idx)->n_sk + 1)
#define ST_IXP_START_SK(idx, j)	((idx)->n_pk + (idx)->n_sk + 2 + (j))
#define ST_IXP_START_PK(idx)	((idx)->n_pk + 2 * (idx)->n_sk + 2)
#define ST_IXP_START_TSK(idx)	((idx)->n_pk + 2 * (idx)->n_sk + 3)
#define ST_INDEX_QUERY_NARGS(idx)	((idx)->n_pk + 2 * (idx)->n_sk + 4)
#define ST_INDEX_QUERY_MAX_NARGS	(3 * 4 + 4)

/*
 * Where a Scan statement starts on the btree it reads: at its start, at
 * the segment's lower bound of the leading key column, or after a start key
 * (which lies within the segment, so the lower bound is implied).
 */
typedef enum StScanFrom
{
	ST_SCAN_FROM_START,
	ST_SCAN_FROM_LOWER,			/* lead >= $1 */
	ST_SCAN_FROM_KEY,			/* (every column) > (start key) */
	ST_NUM_SCAN_FROM
} StScanFrom;

/*
 * Scan parameters (0-based; $n is one more), for a btree of ncols columns
 * (st_scan_columns): the segment's bounds on the leading key column, the
 * start key's value of every column, the limit.
 */
#define ST_SCP_LOWER			0
#define ST_SCP_UPPER			1
#define ST_SCP_START(j)			(2 + (j))
#define ST_SCP_LIMIT(ncols)		(2 + (ncols))
#define ST_SCAN_NARGS(ncols)	(3 + (ncols))
/* a GSI's 4 + 4 key attributes and the table's two keys */
#define ST_SCAN_MAX_COLS		10
#define ST_SCAN_MAX_NARGS		ST_SCAN_NARGS(ST_SCAN_MAX_COLS)

/* The cached description of a table (registry.h) that the statements are kept in */
typedef struct StTable StTable;
typedef struct StIndex StIndex;

extern SPIPlanPtr st_item_plan(StTable *tab, StPlanKind kind);
extern bool st_have_replacing(void);
extern ParamListInfo st_param_list(int n, Datum *values, const char *nulls, Oid *argtypes);
extern void st_dest_init(DestReceiver *dest,
						 bool (*receive) (TupleTableSlot *slot, DestReceiver *self));
extern Jsonb *st_item_fetch(StTable *tab, StPlanKind kind, Datum *values,
							 const char *nulls, bool read_only);
extern char *st_query_sql(StTable *tab, StSkOp op, bool forward, bool has_start);
extern SPIPlanPtr st_query_plan(StTable *tab, StSkOp op, bool forward, bool has_start);
extern void st_query_argtypes(StTable *tab, Oid *argtypes);
extern char *st_index_query_sql(StTable *tab, StIndex *idx, int n_eq, StSkOp op, bool forward,
								bool has_start);
extern SPIPlanPtr st_index_query_plan(StTable *tab, StIndex *idx, int n_eq, StSkOp op,
									  bool forward, bool has_start);
extern void st_index_query_argtypes(StTable *tab, StIndex *idx, int n_eq, Oid *argtypes);
extern int	st_scan_columns(StTable *tab, StIndex *idx, const char **exprs, StKeyType *types);
extern void st_scan_argtypes(StTable *tab, StIndex *idx, Oid *argtypes);
extern char *st_scan_sql(StTable *tab, StIndex *idx, StScanFrom from, bool has_upper);
extern SPIPlanPtr st_scan_plan(StTable *tab, StIndex *idx, StScanFrom from, bool has_upper);
extern void st_statements_free(StTable *tab);

#endif
