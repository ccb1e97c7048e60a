/*
 * hot_keys.h — the most-accessed partition keys of each table, for reads
 * and for writes, over a recent window (DynamoDB's Contributor Insights):
 * singletable.hot_keys(table_name), cleared by singletable.reset_stats.
 *
 * Every operation of the operations layer records the partition key of each
 * item it reads or writes (st_hot_keys_record) into a bounded top-k sketch
 * (Space-Saving) per (database, table, read|write). The sketches live in
 * shared memory when the library is preloaded (shared_preload_libraries),
 * else in this backend's memory, as the operation statistics (stats.h) do.
 *
 * Recording never fails an operation, writes no table and takes no
 * heavyweight lock.
 *
 * Design notes: the section on hot_keys.c in README.md of this folder.
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_HOT_KEYS_H
#define SINGLETABLE_HOT_KEYS_H

#include "catalog/registry.h"

/* A key's stored text is cut at this many bytes (at a character boundary) */
#define ST_HOT_KEY_MAX_BYTES 128

/* singletable.hot_keys_max: keys tracked per table and access kind */
#define ST_HOT_KEYS_MAX_DEFAULT 100
extern int	st_hot_keys_max;

/* singletable.hot_keys_tables: tables tracked (of every database; shared memory) */
#define ST_HOT_KEYS_TABLES_DEFAULT 50
/* without preload: the tables a backend tracks on its own */
#define ST_HOT_KEYS_LOCAL_TABLES 8
extern int	st_hot_keys_tables;

/* singletable.hot_keys_window: seconds of one window */
extern int	st_hot_keys_window;

/* singletable.track_hot_keys */
extern bool st_track_hot_keys;

/* Registers the shared memory (from _PG_init; only under shared_preload_libraries) */
extern void st_hot_keys_init(void);

/*
 * Records one access of tab's partition key, given in its canonical text
 * form (StKey.display: S as is, N canonical, B base64), a write or a read.
 * Cheap; raises no error of its own.
 */
extern void st_hot_keys_record(StTable *tab, bool write, const char *pk_text);

/* Discards the hot keys of (this database, relid), or with InvalidOid all of them */
extern void st_hot_keys_reset(Oid relid);

#endif
