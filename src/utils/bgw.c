/*
 * bgw.c — the description of a singletable background worker.
 */
#include "postgres.h"

#include "utils/bgw.h"

/*
 * Fills worker for function (in this library), shown as backend type type
 * and named name, restarted restart_time seconds after it fails (or
 * BGW_NEVER_RESTART); connected to a database, started once recovery ended.
 */
void
st_bgworker_fill(BackgroundWorker *worker, const char *function, const char *type,
				 const char *name, int restart_time)
{
	memset(worker, 0, sizeof(*worker));
	worker->bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker->bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker->bgw_restart_time = restart_time;
	snprintf(worker->bgw_library_name, BGW_MAXLEN, "singletable");
	snprintf(worker->bgw_function_name, BGW_MAXLEN, "%s", function);
	snprintf(worker->bgw_type, BGW_MAXLEN, "%s", type);
	snprintf(worker->bgw_name, BGW_MAXLEN, "%s", name);
}
