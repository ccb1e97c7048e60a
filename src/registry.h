/*
 * registry.h — the singletable.tables registry and the per-backend cache of
 * table descriptions and prepared SPI plans, invalidated by relcache callbacks.
 */
#ifndef SINGLETABLE_REGISTRY_H
#define SINGLETABLE_REGISTRY_H

#include "postgres.h"

#include "executor/spi.h"
#include "fmgr.h"
#include "nodes/parsenodes.h"
#include "storage/lockdefs.h"
#include "utils/jsonb.h"

#include "keys.h"

/* Statements kept prepared per table (see registry.c for their SQL) */
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

typedef struct StTable
{
	Oid			relid;			/* hash key */
	bool		valid;			/* false once a relcache invalidation arrived */
	MemoryContext cxt;			/* holds the strings below */
	char	   *relname;
	char	   *qualname;		/* quoted schema.table for SQL */
	char	   *pk_name;
	StKeyType	pk_type;
	char	   *sk_name;		/* NULL for a partition-key-only table */
	StKeyType	sk_type;
	SPIPlanPtr	item_plans[ST_NUM_ITEM_PLANS];
	SPIPlanPtr	query_plans[ST_NUM_SK_OPS][2][2];	/* [op][forward][has start] */
} StTable;

extern void st_registry_init(void);
extern StTable *st_table_open(text *name, LOCKMODE lockmode, AclMode required);
extern SPIPlanPtr st_item_plan(StTable *tab, StPlanKind kind);
extern ParamListInfo st_param_list(int n, Datum *values, const char *nulls, Oid *argtypes);
extern void st_dest_init(DestReceiver *dest,
						 bool (*receive) (TupleTableSlot *slot, DestReceiver *self));
extern Jsonb *st_item_fetch(StTable *tab, StPlanKind kind, Datum *values,
							 const char *nulls, bool read_only);
extern char *st_query_sql(StTable *tab, StSkOp op, bool forward, bool has_start);
extern SPIPlanPtr st_query_plan(StTable *tab, StSkOp op, bool forward, bool has_start);
extern void st_query_argtypes(StTable *tab, Oid *argtypes);

#endif
