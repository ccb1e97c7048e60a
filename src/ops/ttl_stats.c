/*
 * ttl_stats.c — the TTL sweep's shared memory (with shared_preload_libraries):
 * per-table statistics of the sweeps, the launcher's latch that enable_ttl
 * sets, and singletable.ttl_status(), which reads them with each table's
 * backlog.
 */
#include "postgres.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_database.h"
#include "catalog/pg_type_d.h"
#include "commands/dbcommands.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/bgw.h"
#include "catalog/registry.h"
#include "ops/tokens.h"
#include "ops/ttl.h"

/* Statistics of at most this many TTL tables are kept (all databases) */
#define ST_TTL_MAX_STATS 1024

typedef struct TtlStat
{
	Oid			dboid;			/* InvalidOid: a free slot */
	Oid			relid;
	TimestampTz last_start;
	TimestampTz last_end;		/* 0 while a sweep runs */
	int64		last_deleted;
	int64		total_deleted;	/* since the server started */
	char		last_error[256];
} TtlStat;

typedef struct TtlShared
{
	LWLock	   *lock;			/* protects everything below */
	int			launcher_pgprocno;	/* -1: no launcher */
	bool		rescan;			/* start workers now, whatever the interval */
	TtlStat		stats[ST_TTL_MAX_STATS];
} TtlShared;

static TtlShared *ttl_shared = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* Asks for the shared memory (shmem_request_hook). */
static void
ttl_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(TtlShared)));
	RequestNamedLWLockTranche("singletable", 1);
}

/* Creates or attaches the shared memory (shmem_startup_hook). */
static void
ttl_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	ttl_shared = ShmemInitStruct("singletable ttl", sizeof(TtlShared), &found);
	if (!found)
	{
		memset(ttl_shared, 0, sizeof(TtlShared));
		ttl_shared->lock = &(GetNamedLWLockTranche("singletable"))->lock;
		ttl_shared->launcher_pgprocno = -1;
	}
	LWLockRelease(AddinShmemInitLock);
}

/* Installs the shared memory's hooks (from _PG_init, under shared_preload_libraries). */
void
st_ttl_shmem_init(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = ttl_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = ttl_shmem_startup;
}

/* The launcher registers its latch for st_ttl_wake_launcher. */
void
st_ttl_launcher_attach(void)
{
	LWLockAcquire(ttl_shared->lock, LW_EXCLUSIVE);
	ttl_shared->launcher_pgprocno = MyProc->pgprocno;
	LWLockRelease(ttl_shared->lock);
}

/* At the launcher's exit: enable_ttl must not set the latch of the next owner of its PGPROC. */
void
st_ttl_launcher_detach(void)
{
	LWLockAcquire(ttl_shared->lock, LW_EXCLUSIVE);
	if (ttl_shared->launcher_pgprocno == MyProc->pgprocno)
		ttl_shared->launcher_pgprocno = -1;
	LWLockRelease(ttl_shared->lock);
}

/* Whether the launcher was asked for a round now (and clears the request). */
bool
st_ttl_take_rescan(void)
{
	bool		rescan;

	LWLockAcquire(ttl_shared->lock, LW_EXCLUSIVE);
	rescan = ttl_shared->rescan;
	ttl_shared->rescan = false;
	LWLockRelease(ttl_shared->lock);
	return rescan;
}

/* Wakes the launcher for an immediate round (enable_ttl); nothing without preload. */
void
st_ttl_wake_launcher(void)
{
	int			pgprocno;

	if (ttl_shared == NULL)
		return;
	LWLockAcquire(ttl_shared->lock, LW_EXCLUSIVE);
	ttl_shared->rescan = true;
	pgprocno = ttl_shared->launcher_pgprocno;
	LWLockRelease(ttl_shared->lock);
	if (pgprocno >= 0)
		SetLatch(&ProcGlobal->allProcs[pgprocno].procLatch);
}

/* The statistics slot of (this database, relid), created if create; NULL when none. Lock held. */
static TtlStat *
stat_slot(Oid relid, bool create)
{
	TtlStat    *free_slot = NULL;

	for (int i = 0; i < ST_TTL_MAX_STATS; i++)
	{
		TtlStat    *s = &ttl_shared->stats[i];

		if (s->dboid == MyDatabaseId && s->relid == relid)
			return s;
		if (!OidIsValid(s->dboid) && free_slot == NULL)
			free_slot = s;
	}
	if (create && free_slot)
	{
		memset(free_slot, 0, sizeof(TtlStat));
		free_slot->dboid = MyDatabaseId;
		free_slot->relid = relid;
	}
	return create ? free_slot : NULL;
}

/* Records the start of a sweep of relid. */
void
st_ttl_stats_begin(Oid relid)
{
	TtlStat    *s;

	if (ttl_shared == NULL)
		return;
	LWLockAcquire(ttl_shared->lock, LW_EXCLUSIVE);
	if ((s = stat_slot(relid, true)) != NULL)
	{
		s->last_start = GetCurrentTimestamp();
		s->last_end = 0;
	}
	LWLockRelease(ttl_shared->lock);
}

/* Records the end of a sweep of relid: how many items it deleted, and its error or NULL. */
void
st_ttl_stats_end(Oid relid, int64 deleted, const char *error)
{
	TtlStat    *s;

	if (ttl_shared == NULL)
		return;
	LWLockAcquire(ttl_shared->lock, LW_EXCLUSIVE);
	if ((s = stat_slot(relid, true)) != NULL)
	{
		s->last_end = GetCurrentTimestamp();
		s->last_deleted = deleted;
		s->total_deleted += deleted;
		if (error)
			strlcpy(s->last_error, error, sizeof(s->last_error));
		else
			s->last_error[0] = '\0';
	}
	LWLockRelease(ttl_shared->lock);
}

PG_FUNCTION_INFO_V1(singletable_ttl_status);

/*
 * singletable.ttl_status() -> SETOF record: every TTL table of this
 * database the caller can see, with the statistics of its sweeps (NULL
 * without preload) and its backlog: the expired items not yet swept,
 * counted up to 100,000, since the count visits each (NULL when the caller
 * may not read the table).
 */
Datum
singletable_ttl_status(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	StTtlClock	clock;
	SPITupleTable *tt;
	uint64		ntables;

	InitMaterializedSRF(fcinfo, 0);
	SPI_connect();
	st_ttl_clock(&clock);
	if (SPI_execute("SELECT t.table_name, t.attribute_name, t.ttl_index,"
					" pg_catalog.has_table_privilege(t.table_name, 'SELECT'),"
					" pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(c.relname)"
					" FROM " ST_TTL_REGISTRY " t"
					" JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) t.table_name::pg_catalog.oid"
					" JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace"
					" ORDER BY t.table_name::pg_catalog.oid", true, 0) != SPI_OK_SELECT)
		elog(ERROR, "reading the singletable TTL registry failed");
	tt = SPI_tuptable;
	ntables = SPI_processed;
	for (uint64 i = 0; i < ntables; i++)
	{
		Datum		values[9];
		bool		nulls[9] = {false};
		bool		isnull;
		Oid			relid = DatumGetObjectId(SPI_getbinval(tt->vals[i], tt->tupdesc, 1, &isnull));
		bool		can_read = DatumGetBool(SPI_getbinval(tt->vals[i], tt->tupdesc, 4, &isnull));
		TtlStat		s;
		bool		have_stats = false;

		values[0] = ObjectIdGetDatum(relid);
		values[1] = CStringGetTextDatum(SPI_getvalue(tt->vals[i], tt->tupdesc, 2));
		/* ttl_index is a name column: a text datum there would be read as garbage */
		values[2] = SPI_getbinval(tt->vals[i], tt->tupdesc, 3, &isnull);
		if (ttl_shared != NULL)
		{
			TtlStat    *p;

			LWLockAcquire(ttl_shared->lock, LW_SHARED);
			if ((p = stat_slot(relid, false)) != NULL)
			{
				s = *p;
				have_stats = true;
			}
			LWLockRelease(ttl_shared->lock);
		}
		nulls[3] = !have_stats || s.last_start == 0;
		values[3] = have_stats ? TimestampTzGetDatum(s.last_start) : (Datum) 0;
		nulls[4] = !have_stats || s.last_end == 0;
		values[4] = have_stats ? TimestampTzGetDatum(s.last_end) : (Datum) 0;
		nulls[5] = nulls[6] = !have_stats;
		values[5] = have_stats ? Int64GetDatum(s.last_deleted) : (Datum) 0;
		values[6] = have_stats ? Int64GetDatum(s.total_deleted) : (Datum) 0;
		nulls[8] = !have_stats || s.last_error[0] == '\0';
		values[8] = nulls[8] ? (Datum) 0 : CStringGetTextDatum(s.last_error);
		nulls[7] = !can_read;
		if (can_read)
		{
			StTable    *tab = st_table_open(cstring_to_text(SPI_getvalue(tt->vals[i], tt->tupdesc, 5)),
											AccessShareLock, ACL_SELECT);
			Oid			argtypes[2] = {NUMERICOID, NUMERICOID};
			Datum		args[2] = {NumericGetDatum(clock.now), NumericGetDatum(clock.floor)};

			if (SPI_execute_with_args(psprintf("SELECT pg_catalog.count(*) FROM (SELECT 1 FROM %s WHERE %s LIMIT 100000) s",
											   tab->qualname, st_ttl_expired_sql(tab->ttl_attr)),
									  2, argtypes, args, NULL, true, 0) != SPI_OK_SELECT)
				elog(ERROR, "counting the expired items failed");
			values[7] = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	SPI_finish();
	return (Datum) 0;
}
