/*
 * ttl_worker.c — the background sweep of TTL tables (with
 * shared_preload_libraries = 'singletable'): the launcher and the
 * per-database workers. Their shared memory is ops/ttl_stats.c.
 *
 * Design notes: the section on ttl_worker.c in README.md of this folder.
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
#include "catalog/distribute.h"
#include "catalog/registry.h"
#include "ops/tokens.h"
#include "ops/ttl.h"
#include "bgw/ttl_worker.h"
#include "bgw/stream_worker.h"

PGDLLEXPORT void st_ttl_launcher_main(Datum arg);
PGDLLEXPORT void st_ttl_worker_main(Datum arg);

/* A worker sweeps at most this long (DROP DATABASE waits 5 s for other sessions) */
#define ST_TTL_WORKER_MAX_MS 4000

/*
 * From _PG_init under shared_preload_libraries only: the shared memory and
 * the launcher. Without preload there is no background sweep.
 */
void
st_ttl_worker_init(void)
{
	BackgroundWorker worker;

	if (!process_shared_preload_libraries_in_progress)
		return;
	st_ttl_shmem_init();

	st_bgworker_fill(&worker, "st_ttl_launcher_main", "singletable ttl launcher",
					 "singletable ttl launcher", 10);
	RegisterBackgroundWorker(&worker);
}

/* A database the launcher serves */
typedef struct DbEntry
{
	Oid			dboid;			/* hash key */
	BackgroundWorkerHandle *handle; /* the current worker, or NULL */
	TimestampTz last_start;		/* 0: never; the next is due ttl_interval after it */
	bool		seen;			/* still in pg_database this round */
} DbEntry;

/* The databases a worker may connect to (not templates, accepting connections). */
static List *
database_list(void)
{
	List	   *dbs = NIL;
	Relation	rel;
	TableScanDesc scan;
	HeapTuple	tup;
	MemoryContext cxt = CurrentMemoryContext;

	StartTransactionCommand();
	(void) GetTransactionSnapshot();
	rel = table_open(DatabaseRelationId, AccessShareLock);
	scan = table_beginscan_catalog(rel, 0, NULL);
	while (HeapTupleIsValid(tup = heap_getnext(scan, ForwardScanDirection)))
	{
		Form_pg_database db = (Form_pg_database) GETSTRUCT(tup);
		MemoryContext old;

		if (db->datistemplate || !db->datallowconn)
			continue;
		old = MemoryContextSwitchTo(cxt);
		dbs = lappend_oid(dbs, db->oid);
		MemoryContextSwitchTo(old);
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	CommitTransactionCommand();
	/* the commit leaves TopMemoryContext current */
	MemoryContextSwitchTo(cxt);
	return dbs;
}

/* Starts the worker of a database; false when no slot is free (tried again next round). */
static bool
start_worker(DbEntry *e)
{
	BackgroundWorker worker;
	char		name[BGW_MAXLEN];
	MemoryContext old;
	bool		started;

	snprintf(name, sizeof(name), "singletable ttl worker for database %u", e->dboid);
	st_bgworker_fill(&worker, "st_ttl_worker_main", "singletable ttl worker", name, BGW_NEVER_RESTART);
	worker.bgw_main_arg = ObjectIdGetDatum(e->dboid);
	worker.bgw_notify_pid = MyProcPid;
	/* the handle lives as long as the worker, beyond this round's memory */
	old = MemoryContextSwitchTo(TopMemoryContext);
	started = RegisterDynamicBackgroundWorker(&worker, &e->handle);
	MemoryContextSwitchTo(old);
	return started;
}

/* Whether a database's worker is still starting or running. */
static bool
worker_alive(DbEntry *e)
{
	pid_t		pid;

	if (e->handle == NULL)
		return false;
	switch (GetBackgroundWorkerPid(e->handle, &pid))
	{
		case BGWH_STARTED:
		case BGWH_NOT_YET_STARTED:
			return true;
		default:
			pfree(e->handle);
			e->handle = NULL;
			return false;
	}
}

/* One round of the launcher: a worker for every database whose turn it is. */
static void
launcher_round(HTAB *dbs)
{
	List	   *list = database_list();
	ListCell   *lc;
	HASH_SEQ_STATUS status;
	DbEntry    *e;
	TimestampTz now = GetCurrentTimestamp();
	bool		rescan;

	rescan = st_ttl_take_rescan();

	hash_seq_init(&status, dbs);
	while ((e = hash_seq_search(&status)) != NULL)
		e->seen = false;
	foreach(lc, list)
	{
		Oid			dboid = lfirst_oid(lc);
		bool		found;

		e = hash_search(dbs, &dboid, HASH_ENTER, &found);
		if (!found)
		{
			e->handle = NULL;
			e->last_start = 0;
		}
		e->seen = true;
		/* the interval in force now, also just after a reload changed it */
		if (worker_alive(e) ||
			(!rescan && e->last_start != 0 &&
			 now < TimestampTzPlusMilliseconds(e->last_start, (int64) st_ttl_interval * 1000)))
			continue;
		if (start_worker(e))
			e->last_start = now;
	}
	/* dropped databases: their workers end with them */
	hash_seq_init(&status, dbs);
	while ((e = hash_seq_search(&status)) != NULL)
		if (!e->seen && !worker_alive(e))
			hash_search(dbs, &e->dboid, HASH_REMOVE, NULL);
	list_free(list);
}

/* At the launcher's exit: enable_ttl must not set the latch of the next owner of its PGPROC. */
static void
launcher_detach(int code, Datum arg)
{
	st_ttl_launcher_detach();
}

/* The launcher (see the file header). */
void
st_ttl_launcher_main(Datum arg)
{
	HASHCTL		ctl;
	HTAB	   *dbs;
	MemoryContext roundcxt;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	pgstat_report_appname("singletable ttl launcher");

	st_ttl_launcher_attach();
	before_shmem_exit(launcher_detach, (Datum) 0);

	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(DbEntry);
	dbs = hash_create("singletable ttl databases", 64, &ctl, HASH_ELEM | HASH_BLOBS);
	roundcxt = AllocSetContextCreate(TopMemoryContext, "singletable ttl launcher round",
									 ALLOCSET_DEFAULT_SIZES);

	for (;;)
	{
		MemoryContext old;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		/* what a round allocates (the database list) goes with it */
		MemoryContextReset(roundcxt);
		old = MemoryContextSwitchTo(roundcxt);
		if (st_ttl_enabled)
			launcher_round(dbs);
		/* the stream workers of databases with a slot (stream_worker.c) */
		st_stream_launcher_round();
		MemoryContextSwitchTo(old);
		/* woken by a worker's exit (bgw_notify_pid), enable_ttl, SIGHUP or SIGTERM */
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 Min((long) st_ttl_interval * 1000L, 1000L), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

/*
 * A table's name for a log line, database.schema.table, outside any
 * transaction: looked up in one of its own.
 */
static char *
st_table_display_name(Oid relid)
{
	char	   *name;
	char	   *rel;
	char	   *nsp;

	StartTransactionCommand();
	rel = get_rel_name(relid);
	nsp = rel ? get_namespace_name(get_rel_namespace(relid)) : NULL;
	name = MemoryContextStrdup(TopMemoryContext,
							   rel && nsp ? psprintf("%s.%s.%s", get_database_name(MyDatabaseId), nsp, rel)
							   : psprintf("%u", relid));
	CommitTransactionCommand();
	return name;
}

/* A TTL table of the worker's database */
typedef struct TtlTable
{
	Oid			relid;
	Oid			owner;
	bool		distributed;	/* a Citus table: its shards here are swept */
	List	   *shards;			/* of a Citus table, the shards whose placements are here */
} TtlTable;

/* The TTL tables of this database (in cxt); NIL when the extension is not installed. */
static List *
ttl_tables(MemoryContext cxt)
{
	List	   *tables = NIL;
	ListCell   *lc;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	if (OidIsValid(get_extension_oid("singletable", true)))
	{
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		if (SPI_execute("SELECT t.table_name::pg_catalog.oid, c.relowner FROM " ST_TTL_REGISTRY " t"
						" JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) t.table_name::pg_catalog.oid"
						" ORDER BY 1", true, 0) != SPI_OK_SELECT)
			elog(ERROR, "reading the singletable TTL registry failed");
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			bool		isnull;
			MemoryContext old = MemoryContextSwitchTo(cxt);
			TtlTable   *t = palloc(sizeof(TtlTable));

			t->relid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
			t->owner = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull));
			t->distributed = false;
			t->shards = NIL;
			tables = lappend(tables, t);
			MemoryContextSwitchTo(old);
		}
		SPI_freetuptable(SPI_tuptable);

		/*
		 * A Citus table is swept on every node by that node's worker, each
		 * on the shards whose placements it holds, so that the sweep rate
		 * grows with the nodes and needs no other node (a coordinator
		 * without shards has nothing to do). singletable.ttl_sweep() still
		 * sweeps a whole distributed table from any node.
		 */
		foreach(lc, tables)
		{
			TtlTable   *t = lfirst(lc);

			if (st_citus_table(t->relid))
			{
				List	   *shards = st_citus_local_shards(t->relid);
				MemoryContext old = MemoryContextSwitchTo(cxt);

				t->distributed = true;
				t->shards = list_copy(shards);
				MemoryContextSwitchTo(old);
			}
			if (t->distributed && t->shards == NIL)
				tables = foreach_delete_current(tables, lc);
		}
		SPI_finish();
		PopActiveSnapshot();
	}
	CommitTransactionCommand();
	return tables;
}

/*
 * One batch of a table's sweep (of its shard shard_relid here, for a Citus
 * table) in a transaction of its own, as the table's owner; -1 when the
 * table, the shard or its TTL setting is gone.
 */
static int64
worker_batch(const TtlTable *t, Oid shard_relid, StTtlResume *resume)
{
	int64		n = -1;
	text	   *name;
	Oid			save_userid;
	int			save_sec;
	StTtlClock	clock;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	name = st_table_name_text(t->relid);
	pgstat_report_activity(STATE_RUNNING, "singletable ttl sweep");
	if (name != NULL)
	{
		StTable    *tab = st_table_open(name, RowExclusiveLock, ACL_SELECT | ACL_DELETE);

		if (tab->ttl_attr != NULL)
		{
			st_ttl_clock(&clock);
			GetUserIdAndSecContext(&save_userid, &save_sec);
			SetUserIdAndSecContext(t->owner, save_sec | SECURITY_LOCAL_USERID_CHANGE |
								   SECURITY_RESTRICTED_OPERATION);
			if (OidIsValid(shard_relid))
				n = tab->distributed ? st_ttl_sweep_shard_batch(tab, shard_relid, st_ttl_batch_size, &clock, resume) : -1;
			else
				n = st_ttl_sweep_batch(tab, st_ttl_batch_size, &clock, resume);
			SetUserIdAndSecContext(save_userid, save_sec);
		}
	}
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);
	return n;
}

/* A worker: one sweep of every TTL table of its database (see the file header). */
void
st_ttl_worker_main(Datum arg)
{
	Oid			dboid = DatumGetObjectId(arg);
	MemoryContext cxt;
	List	   *volatile tables;
	ListCell   *lc;
	TimestampTz deadline;
	volatile bool more_work = false;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(dboid, InvalidOid, 0);
	pgstat_report_appname("singletable ttl worker");
	cxt = AllocSetContextCreate(TopMemoryContext, "singletable ttl worker", ALLOCSET_DEFAULT_SIZES);

	tables = ttl_tables(cxt);

	/*
	 * At most ttl_interval seconds, and under the 5 s DROP DATABASE waits for
	 * the other sessions of a database to end; a worker that stops with work
	 * left asks the launcher for the next one at once.
	 */
	deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
										   Min((int64) st_ttl_interval * 1000, ST_TTL_WORKER_MAX_MS));
	foreach(lc, tables)
	{
		TtlTable   *t = lfirst(lc);
		volatile int64 total = 0;
		/* the table itself, or each of its shards here (a Citus table) */
		volatile int nparts = t->distributed ? list_length(t->shards) : 1;

		if (!st_ttl_enabled)
			break;
		st_ttl_stats_begin(t->relid);
		PG_TRY();
		{
			for (int part = 0; part < nparts && GetCurrentTimestamp() < deadline; part++)
			{
				Oid			shard = t->distributed ? list_nth_oid(t->shards, part) : InvalidOid;
				StTtlResume resume = {NULL, cxt};

				for (;;)
				{
					int64		n;

					CHECK_FOR_INTERRUPTS();
					if (ConfigReloadPending)
					{
						ConfigReloadPending = false;
						ProcessConfigFile(PGC_SIGHUP);
					}
					/* switched off: stop between two batches */
					if (!st_ttl_enabled)
						break;
					n = worker_batch(t, shard, &resume);
					if (n > 0)
						total += n;
					if (n < st_ttl_batch_size || GetCurrentTimestamp() >= deadline)
						break;
				}
			}
			st_ttl_stats_end(t->relid, total, NULL);
			if (total > 0)
				ereport(st_ttl_log_sweeps ? LOG : DEBUG1,
						(errmsg("singletable: swept " INT64_FORMAT " expired items of table \"%s\"", total,
								st_table_display_name(t->relid))));
		}
		PG_CATCH();
		{
			ErrorData  *edata;

			MemoryContextSwitchTo(cxt);
			edata = CopyErrorData();
			FlushErrorState();
			AbortCurrentTransaction();
			ereport(LOG,
					(errmsg("singletable: the sweep of table \"%s\" failed: %s",
							st_table_display_name(t->relid), edata->message)));
			st_ttl_stats_end(t->relid, total, edata->message);
			FreeErrorData(edata);
		}
		PG_END_TRY();
		if (GetCurrentTimestamp() >= deadline)
		{
			more_work = true;
			break;
		}
	}
	/* and the expired ClientRequestTokens of transact_write (tokens.c) */
	st_tokens_expire_round();
	if (more_work)
		st_ttl_wake_launcher();
	proc_exit(0);
}

