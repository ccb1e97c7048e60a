/*
 * guc.c — every setting of singletable (singletable.*).
 *
 * The TTL settings: ttl_enabled, ttl_interval and ttl_log_sweeps are read
 * by the background workers and change on reload (PGC_SIGHUP);
 * ttl_batch_size also bounds a session's own ttl_sweep, so a session may set
 * it (PGC_USERSET).
 */
#include "postgres.h"

#include "utils/guc.h"

#include "guc.h"
#include "ttl.h"

bool		st_ttl_enabled = true;
int			st_ttl_interval = 10;
int			st_ttl_batch_size = 1000;
bool		st_ttl_log_sweeps = false;

/* Defines the settings; then no other singletable.* name may be used. */
void
st_guc_init(void)
{
	DefineCustomBoolVariable("singletable.ttl_enabled",
							 "Whether the background workers sweep expired items.",
							 "Without shared_preload_libraries = 'singletable' there are no workers; use singletable.ttl_sweep().",
							 &st_ttl_enabled, true, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("singletable.ttl_interval",
							"Seconds between the sweeps of a database's TTL tables.",
							NULL,
							&st_ttl_interval, 10, 1, 86400, PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomIntVariable("singletable.ttl_batch_size",
							"Expired items deleted per transaction of a sweep.",
							NULL,
							&st_ttl_batch_size, 1000, 1, 100000, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("singletable.ttl_log_sweeps",
							 "Log a line at LOG level for each sweep that deleted items (else at DEBUG1).",
							 NULL,
							 &st_ttl_log_sweeps, false, PGC_SIGHUP, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("singletable");
}
