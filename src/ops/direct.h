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

#endif
