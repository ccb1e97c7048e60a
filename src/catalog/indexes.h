/*
 * indexes.h — secondary indexes of item-collection tables: their registry
 * (singletable.indexes) and cache entries, the SQL text of their key
 * expressions and predicate, and the checks of an item's index key
 * attributes before it is written and of a table's items before an index is
 * built. Their DDL is commands/indexes.c.
 */
#ifndef SINGLETABLE_INDEXES_H
#define SINGLETABLE_INDEXES_H

#include "expr/expr.h"
#include "format/keys.h"
#include "catalog/statements.h"

/* The registry of secondary indexes, one row per (table, index) */
#define ST_INDEX_REGISTRY "singletable.indexes"

/* A GSI key has up to 4 partition and 4 sort attributes (DynamoDB since November 2025) */
#define ST_MAX_INDEX_KEY_ATTRS 4

/* DynamoDB's per-table quotas of indexes */
#define ST_MAX_GSIS 20
#define ST_MAX_LSIS 5

/* DynamoDB's projection types of an index */
typedef enum StProjectionType
{
	ST_PROJ_ALL = 'A',
	ST_PROJ_KEYS_ONLY = 'K',
	ST_PROJ_INCLUDE = 'I'
} StProjectionType;

/* One key attribute of an index: its name, type and SQL expression over the item */
typedef struct StIndexAttr
{
	char	   *name;
	StKeyType	type;
	char	   *expr;
} StIndexAttr;

/* A secondary index as the per-backend cache holds it (inside its StTable) */
struct StIndex
{
	char	   *name;			/* the DynamoDB index name */
	bool		is_lsi;			/* local: its partition key is the table's */
	bool		active;			/* false while a concurrent build runs, or if it failed */
	char	   *build_error;	/* the failed build's error, or NULL */
	int			n_pk;			/* partition attributes, 1..4 (1 for an LSI) */
	StIndexAttr pk[ST_MAX_INDEX_KEY_ATTRS];
	int			n_sk;			/* sort attributes, 0..4 (1 for an LSI) */
	StIndexAttr sk[ST_MAX_INDEX_KEY_ATTRS];
	StProjectionType projection;
	int			n_nonkey;		/* INCLUDE: the non-key attributes */
	char	  **nonkey;
	char	   *pg_index_name;	/* the PostgreSQL index, in the table's schema */
	Oid			indexrelid;		/* InvalidOid when that index is missing */
	char	   *predicate;		/* SQL of the partial index's predicate */
	/* kept query statements: [sort attributes with equality][op][forward][has start] */
	SPIPlanPtr	query_plans[ST_MAX_INDEX_KEY_ATTRS][ST_NUM_SK_OPS][2][2];
	/* kept scan statements: [from][has upper bound] */
	SPIPlanPtr	scan_plans[ST_NUM_SCAN_FROM][2];
};

/* The SQL expression of an index key attribute over the item column */
extern char *st_index_key_expr(const char *attname, StKeyType t);

/* Reads the registry rows of tab's indexes into its cache entry */
extern void st_indexes_load(StTable *tab);

/* Fills the key expressions and predicate of an index whose attributes are set */
extern void st_index_set_sql(StTable *tab, StIndex *idx);

/* The CREATE INDEX statement of an index (its attributes and predicate set) */
extern char *st_index_create_sql(StTable *tab, StIndex *idx, bool concurrently);

/*
 * An index entry holds the index keys and the table's keys: 8 bytes of
 * tuple header, a varlena header per column and alignment padding below
 * btree's 2704 bytes. Index key and table key bytes together are limited to
 * this (N keys counted as ST_INDEX_N_KEY_BYTES, more than any numeric of 38
 * digits takes), less ST_INDEX_ATTR_OVERHEAD per index key attribute beyond
 * the first two.
 */
#define ST_MAX_INDEX_ENTRY_KEY_BYTES	2660
#define ST_INDEX_N_KEY_BYTES			32
#define ST_INDEX_ATTR_OVERHEAD			8

/* Refuses to index a table holding items the index may not hold (counting them) */
extern void st_index_check_backfill(StTable *tab, StIndex *idx);


/* Checks the index key attributes of an item about to be written */
extern void st_index_check_item(StTable *tab, StVal *val, bool is_update, int base_key_bytes);

#endif
