/*
 * sql_args.h — reading a SQL function's arguments for the C functions of
 * the lower layers, where a NULL pointer is an argument not given.
 * Include after fmgr.h, utils/array.h and utils/jsonb.h.
 */
#ifndef SINGLETABLE_SQL_ARGS_H
#define SINGLETABLE_SQL_ARGS_H

#define ARG_TEXT(n) (PG_ARGISNULL(n) ? NULL : PG_GETARG_TEXT_PP(n))
#define ARG_CSTRING(n) (PG_ARGISNULL(n) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(n)))
#define ARG_JSONB(n) (PG_ARGISNULL(n) ? NULL : PG_GETARG_JSONB_P(n))
#define ARG_ARRAY(n) (PG_ARGISNULL(n) ? NULL : PG_GETARG_ARRAYTYPE_P(n))

#endif
