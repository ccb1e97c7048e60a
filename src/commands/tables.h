/*
 * tables.h — DDL of item-collection tables: the SQL functions create_table,
 * drop_table and describe_table (tables.c).
 */
#ifndef SINGLETABLE_TABLES_H
#define SINGLETABLE_TABLES_H

#include "fmgr.h"

extern Datum singletable_create_table(PG_FUNCTION_ARGS);
extern Datum singletable_drop_table(PG_FUNCTION_ARGS);
extern Datum singletable_describe_table(PG_FUNCTION_ARGS);

#endif
