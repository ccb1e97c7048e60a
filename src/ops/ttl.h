/*
 * ttl.h — DynamoDB's Time to Live on item-collection tables: the setting
 * (singletable.ttl), the sweep that deletes expired items, the test reads
 * use to hide expired items (ttl.c), and the sweep statistics in shared memory
 * (ttl_stats.c). The setting's DDL is commands/ttl.c; the launcher and the
 * per-database workers that sweep in the background are bgw/ttl_worker.c.
 */
#ifndef SINGLETABLE_TTL_H
#define SINGLETABLE_TTL_H

#include "fmgr.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

typedef struct StTable StTable;

/*
 * DynamoDB ignores expiry times more than five years in the past; so do
 * the sweep and the reads (365.25-day years).
 */
#define ST_TTL_MAX_AGE_SECONDS ((int64) 5 * 36525 * 864)

/* The moment reads and sweeps compare expiry times with (epoch seconds, whole) */
typedef struct StTtlClock
{
	Numeric		now;			/* items expiring before now are expired */
	Numeric		floor;			/* ... unless they expire before floor */
} StTtlClock;

extern void st_ttl_clock(StTtlClock *clock);
extern bool st_ttl_item_expired(StTable *tab, Jsonb *item, const StTtlClock *clock);
extern char *st_ttl_expiry_expr(const char *attr);
extern char *st_ttl_expiry_test(const char *attr);
extern char *st_ttl_expired_sql(const char *attr);

/*
 * Where the batches of one sweep of a table go on: items expiring at or
 * after from (NULL: from the clock's floor), kept in cxt.
 */
typedef struct StTtlResume
{
	Numeric		from;
	MemoryContext cxt;
} StTtlResume;

/* One batch of the sweep of tab: deletes at most limit expired items, returns how many */
extern int64 st_ttl_sweep_batch(StTable *tab, int64 limit, const StTtlClock *clock,
								StTtlResume *resume);
/* One batch on one shard of a distributed table that this node holds (-1: the shard is gone) */
extern int64 st_ttl_sweep_shard_batch(StTable *tab, Oid shard_relid, int64 limit,
									  const StTtlClock *clock, StTtlResume *resume);

/* Statistics of the sweeps (shared memory; nothing is kept without preload) */
extern void st_ttl_stats_begin(Oid relid);
extern void st_ttl_stats_end(Oid relid, int64 deleted, const char *error);

/* Settings (defined in ttl.c, registered by guc.c) */
extern bool st_ttl_enabled;
extern int	st_ttl_interval;
extern int	st_ttl_batch_size;
extern bool st_ttl_log_sweeps;

/*
 * The sweep's shared memory (ttl_stats.c; with shared_preload_libraries only):
 * the statistics above, and the launcher's latch, which enable_ttl sets.
 */
extern void st_ttl_shmem_init(void);
extern void st_ttl_wake_launcher(void);
extern void st_ttl_launcher_attach(void);
extern void st_ttl_launcher_detach(void);
extern bool st_ttl_take_rescan(void);

#endif
