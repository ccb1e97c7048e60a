/*
 * stats.h — per-table and per-index operation statistics: the extension's
 * CloudWatch (view singletable.table_stats, reset by singletable.reset_stats()).
 *
 * Every operation of the operations layer adds what it did to one entry per
 * (database, table, index or none, operation): calls, items and bytes read
 * and written, capacity units, conditional-check failures. The counters live
 * in shared memory when the library is preloaded (shared_preload_libraries;
 * they survive across sessions until a restart or reset), else in this
 * backend's memory (the view says which in its scope column).
 *
 * Counting never fails an operation and takes no heavyweight lock.
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_STATS_H
#define SINGLETABLE_STATS_H

/* The operations counted, in DynamoDB's names (st_stat_op_names) */
typedef enum StStatOp
{
	ST_STAT_GET_ITEM,
	ST_STAT_PUT_ITEM,
	ST_STAT_UPDATE_ITEM,
	ST_STAT_DELETE_ITEM,
	ST_STAT_QUERY,
	ST_STAT_SCAN,
	ST_STAT_BATCH_GET_ITEM,
	ST_STAT_BATCH_WRITE_ITEM,
	ST_STAT_TRANSACT_GET_ITEMS,
	ST_STAT_TRANSACT_WRITE_ITEMS,
	ST_STAT_NUM_OPS
} StStatOp;

extern const char *const st_stat_op_names[ST_STAT_NUM_OPS];

/* What one call did to one table or index */
typedef struct StStatCounts
{
	int64		items_read;		/* items evaluated (before filter) */
	int64		items_returned; /* items passed to the caller (after filter) */
	int64		items_written;	/* items put, updated or deleted */
	int64		bytes_read;		/* DynamoDB item size of the items evaluated */
	int64		bytes_written;	/* DynamoDB item size of the items written */
	double		read_units;		/* read capacity units consumed */
	double		write_units;	/* write capacity units consumed */
	int64		condition_failures; /* conditional-check failures */
} StStatCounts;

/* An index name's room in an entry: DynamoDB's 255 characters and the NUL */
#define ST_STAT_INDEX_NAME_LEN 256

/* singletable.stats_max (guc.c): entries kept, of every database */
#define ST_STATS_MAX_DEFAULT 5000
/* without preload: a backend's own entries (its tables dropped since are evicted first) */
#define ST_STATS_LOCAL_MAX 1000
extern int	st_stats_max;

/* Registers the shared memory (from _PG_init; only under shared_preload_libraries) */
extern void st_stats_init(void);

/*
 * Adds one call of op with counts c to the entry of table relid (in
 * MyDatabaseId) and index index_name (NULL: the table itself). c may be
 * NULL: a call that did nothing countable. Cheap (no catalog access, no
 * allocation once the entry exists) and raises no error of its own.
 */
extern void st_stats_count(Oid relid, const char *index_name, StStatOp op, const StStatCounts *c);

/*
 * True while a call runs only to be measured and rolled back (estimate_cost):
 * neither the statistics nor the hot-key sketches count it.
 */
extern bool st_stats_paused;

#endif
