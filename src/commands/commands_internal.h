/*
 * commands_internal.h — what the files of commands/ share and no other
 * folder uses: the check of a required argument (commands.h: a NULL
 * pointer is an argument not given) and the start of a concurrent index
 * build (index_build.c), which create_gsi (indexes.c) calls.
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_COMMANDS_INTERNAL_H
#define SINGLETABLE_COMMANDS_INTERNAL_H

#include "catalog/registry.h"

/* A required argument: NULL raises "<param> must not be NULL" */
static inline const char *
st_ddl_required(const char *value, const char *param)
{
	if (value == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", param)));
	return value;
}

/* Concurrent builds (index_build.c): the start of one */
extern void st_index_build_launch(StTable *tab, StIndex *idx);

/* Entity views (entity_views.c): drop_table drops the table's */
extern void st_entity_views_drop_all(StTable *tab);

#endif
