/*
 * estimate.h — what a Query would evaluate, before running it
 * (singletable.estimate_query), and the size index that makes that cheap.
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_ESTIMATE_H
#define SINGLETABLE_ESTIMATE_H

#include "ops/read_internal.h"

/* What estimate_query reports */
typedef struct StQueryEstimate
{
	int64		items;			/* items the query would evaluate */
	int64		bytes;			/* their DynamoDB size */
	int			pages;			/* 1 MB pages (query_page calls) */
	double		units;			/* read capacity units, strongly consistent (GSI: eventually) */
	bool		strongly;		/* units are strongly consistent ones */
	bool		size_index;		/* from the size index alone (else from the items) */
	int64		heap_fetches;	/* size index entries checked in the heap */
} StQueryEstimate;

extern char *st_size_index_name(StTable *tab);
extern char *st_size_index_columns(StTable *tab);
extern Oid	st_size_index(StTable *tab);
extern int64 st_estimate_size_index(StTable *tab, Oid indexoid, StQueryArgs *qa, bool forward,
									int32 max_items, StCapacity *cap, int64 *items);

/* in read.c: the estimate of a Query request (filter and projection are checked, not run) */
extern void st_op_estimate_query(const StQueryRequest *req, StQueryEstimate *est);

#endif
