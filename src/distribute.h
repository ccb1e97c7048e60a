/*
 * distribute.h — item-collection tables distributed with Citus (distribute.c).
 */
#ifndef SINGLETABLE_DISTRIBUTE_H
#define SINGLETABLE_DISTRIBUTE_H

#include "fmgr.h"

typedef struct StTable StTable;

extern bool st_citus_installed(void);
extern bool st_citus_table(Oid relid);
extern Datum st_table_distribution(StTable *tab);
extern void st_distributed_table_size(StTable *tab, int64 *items, int64 *bytes);

#endif
