/*
 * singletable.c — module entry point: one init call per subsystem.
 */
#include "postgres.h"

#include "fmgr.h"

#include "guc.h"
#include "catalog/registry.h"
#include "ops/hot_keys.h"
#include "ops/stats.h"
#include "bgw/ttl_worker.h"
#include "bgw/stream_worker.h"
#include "planner/entity_keys.h"
#include "functions/query_scan.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/*
 * Called once when the library is loaded: in each backend, or in the
 * postmaster under shared_preload_libraries, where no backend state (catalog
 * caches, CacheMemoryContext) exists yet. So each subsystem only registers
 * its callbacks here and builds its state on first use.
 */
void
_PG_init(void)
{
	st_guc_init();
	st_registry_init();
	/* operation statistics: shared memory only under shared_preload_libraries */
	st_stats_init();
	/* hot keys: shared memory only under shared_preload_libraries */
	st_hot_keys_init();
	/* the background sweep of TTL tables, only under shared_preload_libraries */
	st_ttl_worker_init();
	/* the stream workers, only under shared_preload_libraries */
	st_stream_worker_init();
	/* conditions on entity views' fields as index ranges */
	st_entity_keys_init();
	/* singletable.query in FROM streamed by a custom scan */
	st_query_scan_init();
}
