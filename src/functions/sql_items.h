/*
 * sql_items.h — what query_scan.c shares with sql_items.c: reading a call
 * of singletable.query into a request, and running it into a tuplestore.
 *
 * Include after postgres.h and fmgr.h.
 */
#ifndef SINGLETABLE_SQL_ITEMS_H
#define SINGLETABLE_SQL_ITEMS_H

#include "utils/tuplestore.h"

#include "ops/ops.h"

/* The arguments of a call of singletable.query or query_page (0..16), as the C function reads them */
extern void st_sql_query_request(FunctionCallInfo fcinfo, StQueryRequest *req);

/* Every row of Query req into store, of columns desc (singletable.item_row's) */
extern void st_sql_query_store(StQueryRequest *req, Tuplestorestate *store, TupleDesc desc);

#endif
