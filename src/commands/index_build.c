/*
 * index_build.c — st_create_gsi with concurrently (commands.h): the index is
 * built with CREATE INDEX CONCURRENTLY by a background worker, so that
 * writes go on while it is built, and the call returns at once, as
 * DynamoDB's CreateGlobalSecondaryIndex does (IndexStatus CREATING, then
 * ACTIVE).
 *
 * Design notes: the section on index_build.c in README.md of this folder.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type_d.h"
#include "commands/dbcommands.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/lmgr.h"
#include "tcop/dest.h"
#include "tcop/tcopprot.h"
#include "tcop/utility.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "utils/bgw.h"
#include "catalog/registry.h"
#include "commands/commands_internal.h"

PGDLLEXPORT void st_index_build_main(Datum arg);

/* What the worker is told (bgw_extra, BGW_EXTRALEN bytes) */
typedef struct BuildRequest
{
	Oid			dboid;
	Oid			roleid;
	TransactionId xid;			/* the creating transaction */
	Oid			relid;			/* the item table */
	NameData	pg_index;		/* the PostgreSQL index to build */
} BuildRequest;

StaticAssertDecl(sizeof(BuildRequest) <= BGW_EXTRALEN, "BuildRequest must fit in bgw_extra");

/* The worker's one job (static: they live across its PG_TRY) */
static char *build_index_name = NULL;
static char *build_create_sql = NULL;
static char *build_drop_sql = NULL;

/*
 * Starts the worker that builds idx of tab (its registry row written as
 * CREATING in this transaction). Errors when no worker slot is free, so the
 * whole create_gsi is rolled back.
 */
void
st_index_build_launch(StTable *tab, StIndex *idx)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;
	BuildRequest req;

	memset(&req, 0, sizeof(req));
	req.dboid = MyDatabaseId;
	req.roleid = GetUserId();
	req.xid = GetTopTransactionId();
	req.relid = tab->relid;
	namestrcpy(&req.pg_index, idx->pg_index_name);

	{
		char		name[BGW_MAXLEN];

		snprintf(name, sizeof(name), "singletable index build %s", idx->pg_index_name);
		st_bgworker_fill(&worker, "st_index_build_main", "singletable index build", name, BGW_NEVER_RESTART);
	}
	memcpy(worker.bgw_extra, &req, sizeof(req));
	worker.bgw_notify_pid = 0;
	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("could not start a background worker to build index \"%s\" of table \"%s\"",
						idx->name, tab->relname),
				 errhint("Every slot of max_worker_processes is in use; try again later, or create the index without concurrently.")));
}

/*
 * Reads the CREATING registry row of the request and returns its index
 * name (in TopMemoryContext), or NULL when there is none (the caller
 * rolled back, or the index was dropped meanwhile).
 */
static char *
creating_index_name(const BuildRequest *req)
{
	Oid			argtypes[2] = {OIDOID, NAMEOID};
	Datum		values[2] = {ObjectIdGetDatum(req->relid), NameGetDatum(&req->pg_index)};
	char	   *name = NULL;

	if (SPI_execute_with_args("SELECT index_name FROM " ST_INDEX_REGISTRY
							  " WHERE table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass"
							  " AND pg_index OPERATOR(pg_catalog.=) $2 AND status OPERATOR(pg_catalog.=) 'CREATING'",
							  2, argtypes, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "reading the singletable index registry failed");
	if (SPI_processed == 1)
		name = MemoryContextStrdup(TopMemoryContext,
								   SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
	return name;
}

/* Sets the status (and build error) of the request's registry row. */
static void
set_status(const BuildRequest *req, const char *status, const char *error)
{
	Oid			argtypes[4] = {OIDOID, NAMEOID, TEXTOID, TEXTOID};
	Datum		values[4] = {ObjectIdGetDatum(req->relid), NameGetDatum(&req->pg_index),
	CStringGetTextDatum(status), error ? CStringGetTextDatum(error) : (Datum) 0};
	char		nulls[4] = {' ', ' ', ' ', error ? ' ' : 'n'};

	st_registry_execute_as_owner("indexes", "UPDATE " ST_INDEX_REGISTRY " SET status = $3, build_error = $4"
								 " WHERE table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass"
								 " AND pg_index OPERATOR(pg_catalog.=) $2",
								 4, argtypes, values, nulls);
	CacheInvalidateRelcacheByRelid(req->relid);
}

/* Runs one utility statement as a top-level command, in its own transactions. */
static void
run_toplevel(const char *sql)
{
	List	   *raw;
	RawStmt    *rs;
	PlannedStmt *ps;
	MemoryContext stmtcxt = AllocSetContextCreate(TopMemoryContext, "singletable index build statement",
												  ALLOCSET_DEFAULT_SIZES);

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	pgstat_report_activity(STATE_RUNNING, sql);
	PushActiveSnapshot(GetTransactionSnapshot());

	/*
	 * The statement, and what ProcessUtility allocates for it before the
	 * build commits its first transaction, must outlive the transactions
	 * CREATE INDEX CONCURRENTLY commits: they live in a context of their
	 * own, as exec_simple_query keeps them in its portal's context.
	 */
	MemoryContextSwitchTo(stmtcxt);
	raw = pg_parse_query(sql);
	if (list_length(raw) != 1)
		elog(ERROR, "singletable index build: expected one statement");
	rs = linitial_node(RawStmt, raw);
	ps = makeNode(PlannedStmt);
	ps->commandType = CMD_UTILITY;
	ps->canSetTag = false;
	ps->utilityStmt = rs->stmt;
	ps->stmt_location = rs->stmt_location;
	ps->stmt_len = rs->stmt_len;
	ProcessUtility(ps, sql, false, PROCESS_UTILITY_TOPLEVEL, NULL, NULL, None_Receiver, NULL);
	/* CREATE INDEX CONCURRENTLY pops the snapshot it was given and ends in a new transaction */
	if (ActiveSnapshotSet())
		PopActiveSnapshot();
	CommitTransactionCommand();
	MemoryContextSwitchTo(TopMemoryContext);
	pgstat_report_activity(STATE_IDLE, NULL);
	MemoryContextDelete(stmtcxt);
}

/* Entry point of the worker: its steps are in the Design notes. */
void
st_index_build_main(Datum arg)
{
	BuildRequest req;
	MemoryContext cxt = CurrentMemoryContext;

	memcpy(&req, MyBgworkerEntry->bgw_extra, sizeof(req));
	BackgroundWorkerUnblockSignals();

	/*
	 * Connected as the bootstrap superuser (PostgreSQL 15 would refuse a
	 * role without LOGIN), everything then runs as the caller's role, who
	 * owns the table: the build, the check of the items, the registry
	 * writes (as its owner, like every registry write).
	 */
	BackgroundWorkerInitializeConnectionByOid(req.dboid, InvalidOid, 0);
	SetUserIdAndSecContext(req.roleid, SECURITY_LOCAL_USERID_CHANGE);
	pgstat_report_appname("singletable index build");

	/* 1. the creating transaction must have ended */
	StartTransactionCommand();
	XactLockTableWait(req.xid, NULL, NULL, XLTW_None);
	CommitTransactionCommand();

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	build_index_name = creating_index_name(&req);
	if (build_index_name != NULL)
	{
		text	   *name = st_table_name_text(req.relid);
		StTable    *tab = name ? st_table_open(name, AccessShareLock, ST_ACL_OWNER) : NULL;
		StIndex    *idx = tab ? st_table_index(tab, build_index_name) : NULL;

		if (idx)
		{
			build_create_sql = MemoryContextStrdup(TopMemoryContext, st_index_create_sql(tab, idx, true));
			build_drop_sql = MemoryContextStrdup(TopMemoryContext,
										   psprintf("DROP INDEX IF EXISTS %s",
													quote_qualified_identifier(get_namespace_name(get_rel_namespace(tab->relid)),
																			   idx->pg_index_name)));
		}
	}
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	if (build_create_sql == NULL)
		proc_exit(0);			/* rolled back or dropped: nothing to build */

	PG_TRY();
	{
		/* 2. the build, writes going on */
		run_toplevel(build_create_sql);

		/* 3. and 4. the items written before every writer knew the index; then ACTIVE */
		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		{
			text	   *name = st_table_name_text(req.relid);
			StTable    *tab = name ? st_table_open(name, AccessShareLock, ST_ACL_OWNER) : NULL;
			StIndex    *idx = tab ? st_table_index(tab, build_index_name) : NULL;

			if (idx == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_UNDEFINED_OBJECT),
						 errmsg("index \"%s\" was dropped while it was built", build_index_name)));
			st_index_check_backfill(tab, idx);
		}
		set_status(&req, "ACTIVE", NULL);
		SPI_finish();
		PopActiveSnapshot();
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		char	   *message;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		AbortCurrentTransaction();
		/*
		 * The message only: singletable.indexes is readable by every role,
		 * and a DETAIL may carry values (see the Design notes).
		 */
		message = pstrdup(edata->message);
		ereport(LOG,
				(errmsg("singletable: building index \"%s\" failed: %s", build_index_name, edata->message)));

		/* FAILED first: the drop's event trigger keeps FAILED rows */
		StartTransactionCommand();
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		set_status(&req, "FAILED", message);
		SPI_finish();
		PopActiveSnapshot();
		CommitTransactionCommand();
		run_toplevel(build_drop_sql);
	}
	PG_END_TRY();
	proc_exit(0);
}
