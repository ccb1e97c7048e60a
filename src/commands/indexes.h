/*
 * indexes.h — DDL of secondary indexes (indexes.c) and their concurrent
 * build in a background worker (index_build.c).
 */
#ifndef SINGLETABLE_COMMANDS_INDEXES_H
#define SINGLETABLE_COMMANDS_INDEXES_H

#include "catalog/indexes.h"

/* Concurrent builds (index_build.c): the start of one */
extern void st_index_build_launch(StTable *tab, StIndex *idx);

#endif
