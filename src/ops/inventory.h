/*
 * inventory.h — what a table holds, read from its keys: items, partitions and
 * DynamoDB bytes per literal key prefix (key_prefixes), and its largest item
 * collections (collections). Both read the table in one pass, or a
 * TABLESAMPLE SYSTEM sample of its pages, and say how many rows they read.
 *
 * Design notes: the section on inventory.c in README.md of this folder.
 */
#ifndef SINGLETABLE_INVENTORY_H
#define SINGLETABLE_INVENTORY_H

#include "fmgr.h"
#include "nodes/pg_list.h"

/* A key without a delimiter is its own prefix when it is at most this long and constant-looking */
#define ST_KEY_CONSTANT_MAX 32

/* collections: the most collections of each ranking */
#define ST_COLLECTIONS_TOP_MAX 1000

/* DynamoDB's limit on an item collection of a table with a local secondary index: 10 GB */
#define ST_ITEM_COLLECTION_LIMIT_BYTES ((int64) 10 * 1024 * 1024 * 1024)

/* One group of key_prefixes: the items whose keys have these literal prefixes */
typedef struct StPrefixGroup
{
	char	   *entity;			/* NULL: no entity matches */
	char	   *pk_prefix;		/* NULL: the key has no literal prefix */
	char	   *sk_prefix;		/* NULL: likewise, or no sort key */
	int64		items;
	int64		partitions;
	int64		bytes;
	char	   *avg_item_bytes;	/* numeric text, rounded to 0.1 byte */
	int64		max_item_bytes;
	int64		largest_collection_items;
	int64		largest_collection_bytes;
} StPrefixGroup;

/* One collection of collections' rankings */
typedef struct StCollection
{
	bool		by_bytes;		/* ranked by bytes, else by items */
	int			rank;			/* 1.. within its ranking */
	char	   *partition_key;	/* the partition key's text (base64 for B) */
	int64		items;
	int64		bytes;
} StCollection;

/*
 * The literal prefix of a key's text (palloc'd), or NULL when it has none:
 * the text up to and including its first delimiter, or the whole key when it
 * has no delimiter and looks like a constant (st_key_is_constant).
 */
extern char *st_key_literal_prefix(const char *s, int len);
extern bool st_key_is_constant(const char *s, int len);

/*
 * Checks a sample_percent argument (has_sample false: none given) and
 * returns it; errors name the table and the limit.
 */
extern void st_inventory_check_sample(const char *tabname, bool has_sample, double pct);

/*
 * key_prefixes of table name: its groups (a List of StPrefixGroup *, in the
 * caller's memory, ordered by prefixes), the rows read into *rows_read.
 */
extern List *st_key_prefixes(text *name, bool has_sample, double pct, int64 *rows_read);

/*
 * collections of table name (of the items of entity, when not NULL): the top
 * collections by items then by bytes (a List of StCollection *), the
 * threshold that applies into *threshold (-1: none), the rows read into
 * *rows_read.
 */
extern List *st_collections(text *name, const char *entity, int top, bool has_threshold, int64 threshold,
							bool has_sample, double pct, int64 *threshold_out, int64 *rows_read);

#endif
