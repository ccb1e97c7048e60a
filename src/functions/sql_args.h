/*
 * sql_args.h — reading a SQL function's arguments for the C functions of
 * the lower layers, where a NULL pointer is an argument not given.
 * Include after fmgr.h, utils/array.h and utils/jsonb.h.
 */
#ifndef SINGLETABLE_SQL_ARGS_H
#define SINGLETABLE_SQL_ARGS_H

/*
 * Whether argument n is NULL or not passed at all: a call of
 * singletable.query may leave out its trailing defaults (the planner's
 * simplification, planner/query_support.c), and every argument left out
 * is read as NULL.
 */
#define ARG_ISNULL(n) (PG_NARGS() <= (n) || PG_ARGISNULL(n))

#define ARG_TEXT(n) (ARG_ISNULL(n) ? NULL : PG_GETARG_TEXT_PP(n))
#define ARG_CSTRING(n) (ARG_ISNULL(n) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(n)))
#define ARG_JSONB(n) (ARG_ISNULL(n) ? NULL : PG_GETARG_JSONB_P(n))
#define ARG_ARRAY(n) (ARG_ISNULL(n) ? NULL : PG_GETARG_ARRAYTYPE_P(n))

#endif
