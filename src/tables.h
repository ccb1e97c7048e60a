/*
 * tables.h — DDL of item-collection tables: the SQL functions create_table,
 * drop_table and describe_table (tables.c), and what the DDL of indexes and
 * TTL (indexes.c, ttl.c) shares with them: the one way the extension writes
 * its registries, and the check of a required text argument.
 */
#ifndef SINGLETABLE_TABLES_H
#define SINGLETABLE_TABLES_H

#include "fmgr.h"

extern Datum singletable_create_table(PG_FUNCTION_ARGS);
extern Datum singletable_drop_table(PG_FUNCTION_ARGS);
extern Datum singletable_describe_table(PG_FUNCTION_ARGS);
extern char *st_required_text_arg(FunctionCallInfo fcinfo, int n, const char *param);
extern void st_registry_execute_as_owner(const char *registry, const char *sql, int nargs,
										 Oid *argtypes, Datum *values, const char *nulls);

#endif
