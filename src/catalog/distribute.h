/*
 * distribute.h — item-collection tables distributed with Citus (distribute.c).
 */
#ifndef SINGLETABLE_DISTRIBUTE_H
#define SINGLETABLE_DISTRIBUTE_H

#include "fmgr.h"
#include "nodes/pg_list.h"

#include "format/keys.h"

typedef struct StTable StTable;
typedef struct StIndex StIndex;

/*
 * Parameters of a scan segment of a distributed table (st_hash_scan_sql;
 * 0-based, $n is one more): the segment's hash range [lower, upper), the
 * start key's hash, partition and sort key, the limit.
 */
#define ST_HSP_LOWER		0
#define ST_HSP_UPPER		1
#define ST_HSP_START_HASH	2
#define ST_HSP_START_PK		3
#define ST_HSP_START_SK		4
#define ST_HSP_LIMIT		5
#define ST_HSP_NARGS		6

extern bool st_citus_installed(void);
extern bool st_citus_table(Oid relid);
extern List *st_citus_local_shards(Oid relid);
extern Datum st_table_distribution(StTable *tab);
extern void st_distributed_table_size(StTable *tab, int64 *items, int64 *bytes, Datum *indexes);
extern Oid	st_key_hash_proc(StKeyType kt);
extern int32 st_key_hash(StKeyType kt, Datum pk);
extern char *st_key_hash_sql(StTable *tab);
extern bool st_segment_index_exists(StTable *tab);
extern int	st_shard_hash_mins(StTable *tab, int32 **mins);
extern char *st_hash_scan_sql(StTable *tab, StIndex *idx, bool has_lower, bool has_upper,
							  bool has_start);
extern void st_hash_scan_argtypes(StTable *tab, Oid *argtypes);

#endif
