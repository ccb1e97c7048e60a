/*
 * capacity.h — DynamoDB's read/write arithmetic for every operation: the
 * consumed capacity units of the table and of each secondary index, kept as
 * the session's last ConsumedCapacity (singletable.last_consumed_capacity())
 * and added to the operation statistics (stats.h).
 *
 * An operation fills one StCapacity while it runs (st_capacity_begin, then
 * st_capacity_read_bytes / _write / _index_write) and ends it with
 * st_capacity_end, also when it is about to raise a failed condition (a
 * failed condition still costs). Nothing here reads a table.
 *
 * Design notes: the section on capacity.h in README.md of this folder.
 */
#ifndef SINGLETABLE_CAPACITY_H
#define SINGLETABLE_CAPACITY_H

#include "utils/jsonb.h"

#include "catalog/indexes.h"
#include "catalog/registry.h"
#include "ops/stats.h"

/* A Query or Scan page stops after this many bytes of evaluated items */
#define ST_PAGE_BYTES (1024 * 1024)

/* What one resource (the table, or one index) of an operation consumed */
typedef struct StCapacityPart
{
	const char *index_name;		/* NULL: the table */
	bool		is_lsi;
	bool		used;			/* charged (or counted) by this operation */
	double		units;
	StStatCounts counts;
} StCapacityPart;

/* singletable.track_capacity (guc.c) */
extern bool st_track_capacity;

typedef struct StCapacity
{
	bool		enabled;		/* track_capacity was on when the operation began */
	StTable    *tab;
	StStatOp	op;
	bool		is_read;		/* read units (else write units) */
	double		read_factor;	/* 1 strongly consistent, 0.5 eventually, 2 transactional */
	double		write_factor;	/* 1, or 2 transactional (the table part only) */
	bool		transactional;	/* TransactGetItems/TransactWriteItems */
	StCapacityPart table;
	int			n_indexes;		/* parts of tab->indexes, in its order */
	/* a Query or Scan: its current page's evaluated bytes, pages closed so far */
	int64		page_bytes;
	int			pages;
	/* last: only the first n_indexes are set */
	StCapacityPart indexes[ST_MAX_GSIS + ST_MAX_LSIS];
} StCapacity;

/*
 * Starts the capacity of operation op on tab (strongly consistent until
 * st_capacity_set_consistency). With track_capacity off, every other call
 * on cap does nothing (but st_capacity_evaluated still cuts pages).
 */
extern void st_capacity_begin(StCapacity *cap, StTable *tab, StStatOp op);
extern void st_capacity_set_consistency(StCapacity *cap, bool strongly);

/* A transaction's table part costs double (TransactWriteItems, TransactGetItems) */
extern void st_capacity_set_transactional(StCapacity *cap);

/* The part an index read charges (NULL: the table) */
extern StCapacityPart *st_capacity_part(StCapacity *cap, StIndex *idx);

/* Read units of bytes: 4 KB units times the read factor, at least one unit */
extern double st_read_units(int64 bytes, double factor);

/* Write units of bytes: 1 KB units, at least one */
extern double st_write_units(int64 bytes);

/*
 * A single-item read (GetItem) of item (stored form; NULL: missing: the
 * minimum unit). Accumulates: a batch calls it once per key.
 */
extern void st_capacity_get(StCapacity *cap, Jsonb *item);

/*
 * One item evaluated by a Query or Scan on part: returns true when its
 * page is full (ST_PAGE_BYTES reached), after closing the page.
 */
extern bool st_capacity_evaluated(StCapacity *cap, StCapacityPart *part, int64 bytes);

/* Closes a Query's or Scan's last page (the minimum unit for an empty one) */
extern void st_capacity_read_end(StCapacity *cap, StCapacityPart *part);

/*
 * A write of the table's item: old is the item it replaced or deleted (NULL:
 * none), newitem the item written, of new_size bytes (NULL: a delete, or
 * nothing written); charges the table max(old, new) and every index whose
 * entry changes. failed: the condition failed (charged on the current item,
 * newitem NULL).
 */
extern void st_capacity_write(StCapacity *cap, Jsonb *old, Jsonb *newitem, int64 new_size,
							  bool failed);
/* (st_capacity_write accumulates too: a batch calls it once per item, each rounded alone) */

/* Ends the operation: the session's last ConsumedCapacity, the statistics */
extern void st_capacity_end(StCapacity *cap);

/*
 * Ends an operation over n tables (a batch or a transaction: one StCapacity
 * per table, all begun with the same op): with list, last_consumed_capacity()
 * is DynamoDB's list of ConsumedCapacity, one per table
 */
extern void st_capacity_end_many(StCapacity *caps, int n, bool list);

/* DynamoDB's size of a stored item of tab (its B keys are plain base64) */
extern int64 st_capacity_item_size(StTable *tab, Jsonb *item);

/* The last operation's ConsumedCapacity, in DynamoDB's shape, or NULL */
extern Jsonb *st_last_consumed_capacity(void);

/* Puts (upserts) that replaced an item report it through singletable._replacing() */
extern void st_capacity_arm_replaced(bool arm);
extern Jsonb *st_capacity_replaced(void);

#endif
