/*
 * indexes.h — secondary indexes of item-collection tables: their registry
 * (singletable.indexes), their DDL (create_gsi, drop_gsi), the SQL text of
 * their key expressions and predicate, and the check of an item's index key
 * attributes before it is written.
 */
#ifndef SINGLETABLE_INDEXES_H
#define SINGLETABLE_INDEXES_H

#include "expr/expr.h"
#include "keys.h"
#include "statements.h"

/* The registry of secondary indexes, one row per (table, index) */
#define ST_INDEX_REGISTRY "singletable.indexes"

/* DynamoDB's projection types of an index */
typedef enum StProjectionType
{
	ST_PROJ_ALL = 'A',
	ST_PROJ_KEYS_ONLY = 'K',
	ST_PROJ_INCLUDE = 'I'
} StProjectionType;

/* A secondary index as the per-backend cache holds it (inside its StTable) */
struct StIndex
{
	char	   *name;			/* the DynamoDB index name */
	char	   *pk_name;
	StKeyType	pk_type;
	char	   *sk_name;		/* NULL: the index has no sort key */
	StKeyType	sk_type;
	StProjectionType projection;
	int			n_nonkey;		/* INCLUDE: the non-key attributes */
	char	  **nonkey;
	char	   *pg_index_name;	/* the PostgreSQL index, in the table's schema */
	Oid			indexrelid;		/* InvalidOid when that index is missing */
	char	   *pk_expr;		/* SQL of the key expressions and predicate */
	char	   *sk_expr;
	char	   *predicate;
	SPIPlanPtr	query_plans[ST_NUM_SK_OPS][2][2];	/* [op][forward][has start] */
};

/* The SQL expression of an index key attribute over the item column */
extern char *st_index_key_expr(const char *attname, StKeyType t);

/* The predicate admitting exactly the items carrying every key attribute typed */
extern char *st_index_predicate(const char *pk_name, StKeyType pk_type,
								const char *sk_name, StKeyType sk_type);

/*
 * An index entry holds the index keys and the table's keys: 8 bytes of
 * tuple header, 4 varlena headers and up to 9 bytes of alignment padding
 * below btree's 2704 bytes. Index key and table key bytes together are
 * limited to this (N keys counted as ST_INDEX_N_KEY_BYTES, more than any
 * numeric of 38 digits takes).
 */
#define ST_MAX_INDEX_ENTRY_KEY_BYTES	2660
#define ST_INDEX_N_KEY_BYTES			32

/* Checks the index key attributes of an item about to be written */
extern void st_index_check_item(StTable *tab, StVal *val, bool is_update, int base_key_bytes);

#endif
