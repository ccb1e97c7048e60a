/*
 * direct.h — reads of a table straight from its primary-key index
 * (direct.c): GetItem's point read and a Query's key range, with the
 * statement path (statements.c) where they could not be exact.
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_DIRECT_H
#define SINGLETABLE_DIRECT_H

#include "ops/read_internal.h"

/* singletable.direct_reads (guc.c): off sends every read through its statement */
extern bool st_direct_reads;

/*
 * The item of key values[0] (pk), values[1] (sk, unused without a sort
 * key) into *item, NULL when absent: in the SPI caller's memory (spi) or
 * in the current memory context; what names the operation in the DEBUG1
 * line that says which path ran. False (nothing read) when the table must
 * be read through its statement.
 */
extern bool st_direct_get(StTable *tab, Datum *values, const char *what, bool spi, Jsonb **item);

/*
 * The key range of a Query of the table (qa, not on an index) in direction
 * forward, its rows (sk, item) handed to recv as the statement's would be.
 * False (nothing read) when the table must be read through its statement.
 */
extern bool st_direct_query(StTable *tab, StQueryArgs *qa, bool forward, StQueryReceiver *recv);

/*
 * The same read row by row (a Query streamed into a slot, ops.h): open
 * returns NULL (nothing read; DEBUG1 says why only if say_refusal) when the
 * table must be read through its statement; start begins the scan; with slot (a heap tuple slot of recv->tuple_desc's columns),
 * rows that may go to recv->tuple_row as the table stores them are fetched
 * into it. next hands one row to recv: false when the range has no more,
 * else true with *more whether recv goes on. last_item is the stored item
 * of the row read last, or NULL.
 */
typedef struct StDirectQuery StDirectQuery;
extern StDirectQuery *st_direct_query_open(StTable *tab, bool say_refusal);
extern void st_direct_query_start(StDirectQuery *q, StTable *tab, StQueryArgs *qa, bool forward,
								  StQueryReceiver *recv, TupleTableSlot *slot);
extern bool st_direct_query_next(StDirectQuery *q, bool *more);
extern Jsonb *st_direct_query_last_item(StDirectQuery *q);
extern void st_direct_query_end(StDirectQuery *q);

#endif
