/*
 * endpoint.c — singletable_endpoint: the DynamoDB HTTP endpoint served from
 * inside PostgreSQL. The library, in shared_preload_libraries, starts
 * singletable_endpoint.workers background workers; each connects to
 * singletable_endpoint.database as singletable_endpoint.user, listens on
 * singletable_endpoint.listen (one port for all: SO_REUSEPORT, the kernel
 * spreads new connections over the workers) and runs server.c's event loop,
 * the very HTTP side of singletable-gateway: SigV4 and the credentials file
 * (sigv4.c), DynamoDB's headers and errors, the request deadline, the
 * per-address limit, the viewer, drain on SIGTERM, reload on SIGHUP. Only
 * the pool differs: instead of pool.c's libpq connections, each call runs
 * here, in the worker's own backend (gw_pool_submit below), as
 *
 *     schema.dynamodb_as(role, operation, request)
 *
 * called through fmgr in a transaction of its own, with the same EXECUTE
 * check, role switch (SECURITY_LOCAL_USERID_CHANGE) and error contract as
 * the gateway's statement. So a request costs no second process, no
 * Unix-socket round trip and no protocol message; the price is that the
 * HTTP parser (libmicrohttpd) and SigV4 run inside the server, where a
 * crash restarts every backend, not only the endpoint. singletable-gateway
 * remains the choice that keeps them out of the server (docs/endpoint.md).
 *
 * One call at a time per worker: a worker's connections wait while it runs
 * a call (a long Scan holds up the other requests of that worker, as a
 * backend of the gateway's pool would), and the workers' number bounds the
 * calls running at once, as --pool does. Waiting connections hold no
 * worker: a slow client costs a socket.
 *
 * Signals: server.c blocks SIGTERM and SIGHUP and reads them from a signalfd
 * between requests; SIGINT stays the backend's cancel (pg_cancel_backend,
 * statement_timeout, which run_call arms as a statement would); SIGHUP also reloads the configuration file
 * (credentials, role and log level may change), SIGTERM drains and exits
 * (the postmaster sends it at shutdown; after pg_terminate_backend the
 * worker is started again 10 s later). Postmaster death is looked at every
 * second (gw_pool_tick).
 */
#include "postgres.h"

#include <signal.h>
#include <sys/resource.h>

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "commands/dbcommands.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "libpq/pqsignal.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/pmsignal.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/elog.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timeout.h"

#include "gateway.h"

PG_MODULE_MAGIC;

void		_PG_init(void);
PGDLLEXPORT void singletable_endpoint_main(Datum arg);

/* settings (singletable_endpoint.*) */
static char *ep_listen;
static int	ep_workers = 2;
static char *ep_database;
static char *ep_user;
static char *ep_schema;
static char *ep_credentials;
static char *ep_role;
static char *ep_viewer;
static int	ep_max_connections = 1024;
static int	ep_per_address = 256;
static int	ep_request_timeout = 20;
static int	ep_drain_timeout = 30;
static int	ep_log_level = GW_LOG_WARNING;

static const struct config_enum_entry log_levels[] = {
	{"error", GW_LOG_ERROR, false},
	{"warning", GW_LOG_WARNING, false},
	{"info", GW_LOG_INFO, false},
	{"debug", GW_LOG_DEBUG, false},
	{NULL, 0, false}
};

/* the worker's call */
static Oid	call_fn = InvalidOid;
static FmgrInfo call_finfo;
static char *call_schema;
static gw_call *current_call;	/* the call running: its WARNINGs are collected */
static emit_log_hook_type prev_emit_log_hook;

static bool
check_listen(char **newval, void **extra, GucSource source)
{
	const char *colon;

	if (*newval == NULL || (*newval)[0] == '\0')
		return true;
	colon = strrchr(*newval, ':');
	if (colon == NULL || colon == *newval || colon[1] == '\0' || strspn(colon + 1, "0123456789") != strlen(colon + 1))
	{
		GUC_check_errdetail("The listening address must be HOST:PORT or [IPv6]:PORT.");
		return false;
	}
	return true;
}

void
_PG_init(void)
{
	BackgroundWorker worker;

	if (!process_shared_preload_libraries_in_progress)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("singletable_endpoint must be loaded by shared_preload_libraries"),
				 errhint("Add singletable_endpoint to shared_preload_libraries and restart the server.")));

	DefineCustomStringVariable("singletable_endpoint.listen",
							   "Address (HOST:PORT) of the in-server DynamoDB endpoint; empty: not started.",
							   NULL, &ep_listen, "", PGC_POSTMASTER, 0, check_listen, NULL, NULL);
	DefineCustomIntVariable("singletable_endpoint.workers",
							"Background workers serving the endpoint (calls running at once).",
							NULL, &ep_workers, 2, 1, 64, PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("singletable_endpoint.database",
							   "Database the endpoint's workers connect to.",
							   NULL, &ep_database, "postgres", PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("singletable_endpoint.user",
							   "Login role of the endpoint's workers (the gateway's login role: a member of each key's role).",
							   NULL, &ep_user, "", PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("singletable_endpoint.schema",
							   "Schema of dynamodb_as(text, text, text).",
							   NULL, &ep_schema, "singletable", PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("singletable_endpoint.credentials",
							   "Credentials file (ACCESS_KEY_ID SECRET ROLE per line); empty: no authentication (development only).",
							   NULL, &ep_credentials, "", PGC_SIGHUP, GUC_SUPERUSER_ONLY, NULL, NULL, NULL);
	DefineCustomStringVariable("singletable_endpoint.role",
							   "Without credentials: the role every request runs as; empty: the login role.",
							   NULL, &ep_role, "", PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("singletable_endpoint.viewer",
							   "Directory of the viewer's files, served at /viewer/; empty: no viewer.",
							   NULL, &ep_viewer, "", PGC_POSTMASTER, GUC_SUPERUSER_ONLY, NULL, NULL, NULL);
	DefineCustomIntVariable("singletable_endpoint.max_connections",
							"HTTP connections open at once, per worker.",
							NULL, &ep_max_connections, 1024, 1, 100000, PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("singletable_endpoint.max_connections_per_address",
							"HTTP connections open at once from one client address, per worker (0: no limit).",
							NULL, &ep_per_address, 256, 0, 100000, PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("singletable_endpoint.request_timeout",
							"Time for receiving a whole request, headers and body.",
							NULL, &ep_request_timeout, 20, 1, 3600, PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomIntVariable("singletable_endpoint.drain_timeout",
							"On SIGTERM, how long a worker waits for its requests in flight.",
							NULL, &ep_drain_timeout, 30, 0, 3600, PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomEnumVariable("singletable_endpoint.log_level",
							 "Least severe of the endpoint's own lines logged (info: one line per error answer).",
							 NULL, &ep_log_level, GW_LOG_WARNING, log_levels, PGC_SIGHUP, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("singletable_endpoint");

	if (ep_listen == NULL || ep_listen[0] == '\0')
		return;
	if (ep_user == NULL || ep_user[0] == '\0')
	{
		ereport(WARNING,
				(errmsg("singletable_endpoint.listen is set but singletable_endpoint.user is not: the endpoint does not start"),
				 errhint("Set singletable_endpoint.user to the endpoint's login role.")));
		return;
	}
	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 10;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "singletable_endpoint");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "singletable_endpoint_main");
	snprintf(worker.bgw_type, BGW_MAXLEN, "singletable endpoint");
	for (int i = 0; i < ep_workers; i++)
	{
		snprintf(worker.bgw_name, BGW_MAXLEN, "singletable endpoint %d", i + 1);
		worker.bgw_main_arg = Int32GetDatum(i);
		RegisterBackgroundWorker(&worker);
	}
}

/* server.c's and sigv4.c's log lines, in the server's log */
static void
log_sink(gw_log_level level, const char *line)
{
	int			elevel = level == GW_LOG_DEBUG ? DEBUG1 : level == GW_LOG_WARNING ? WARNING : LOG;

	ereport(elevel, (errmsg_internal("singletable endpoint: %s", line)));
}

/*
 * A call's WARNINGs (singletable's entity checks) go to its response's
 * x-singletable-warning header, as the gateway's notice receiver puts them;
 * they are logged as any backend's.
 */
static void
collect_warnings(ErrorData *edata)
{
	if (current_call != NULL && edata->elevel == WARNING && edata->message != NULL &&
		current_call->warnings.len <= GW_MAX_WARNING_HEADER)
	{
		if (current_call->warnings.len > 0)
			gw_buf_append(&current_call->warnings, " | ", 3);
		gw_buf_append(&current_call->warnings, edata->message, strlen(edata->message));
	}
	if (prev_emit_log_hook)
		prev_emit_log_hook(edata);
}

static const char *
empty_null(const char *s)
{
	return s != NULL && s[0] != '\0' ? s : NULL;
}

static void
apply_settings(gw_serve_config *config)
{
	config->credentials = empty_null(ep_credentials);
	config->role = empty_null(ep_role);
	config->request_timeout = ep_request_timeout;
	config->drain_timeout = ep_drain_timeout;
	gw_log_min = (gw_log_level) ep_log_level;
}

static void
on_sighup(gw_serve_config *config)
{
	ProcessConfigFile(PGC_SIGHUP);
	apply_settings(config);
}

/*
 * The function of the calls, looked up (again when it has gone: the
 * extension dropped and created again) in schema; InvalidOid when missing.
 */
static Oid
lookup_call_fn(void)
{
	Oid			argtypes[3] = {TEXTOID, TEXTOID, TEXTOID};
	Oid			fn;

	if (OidIsValid(call_fn) && SearchSysCacheExists1(PROCOID, ObjectIdGetDatum(call_fn)))
		return call_fn;
	call_fn = InvalidOid;
	fn = LookupFuncName(list_make2(makeString(call_schema), makeString("dynamodb_as")), 3, argtypes, true);
	if (OidIsValid(fn))
	{
		fmgr_info_cxt(fn, &call_finfo, TopMemoryContext);
		call_fn = fn;
	}
	return fn;
}

/*
 * The start-up check (pool.c's check_function): the function exists and the
 * login role may execute it; else one line saying so, and the worker exits
 * (to be started again 10 s later).
 */
bool
gw_pool_init(int size, const char *dsn, const char *schema)
{
	bool		ok = true;
	Oid			fn;

	(void) size;
	(void) dsn;
	call_schema = MemoryContextStrdup(TopMemoryContext, schema);
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	fn = lookup_call_fn();
	if (!OidIsValid(fn))
	{
		gw_log(GW_LOG_ERROR, "database \"%s\" has no %s.dynamodb_as(text, text, text): CREATE EXTENSION singletable "
			   "there (0.2.0 or later), or set singletable_endpoint.schema", get_database_name(MyDatabaseId), schema);
		ok = false;
	}
	else if (pg_proc_aclcheck(fn, GetUserId(), ACL_EXECUTE) != ACLCHECK_OK)
	{
		gw_log(GW_LOG_ERROR, "role \"%s\" may not execute %s.dynamodb_as: GRANT EXECUTE ON FUNCTION "
			   "%s.dynamodb_as(text, text, text) TO it", GetUserNameFromId(GetUserId(), false), schema, schema);
		ok = false;
	}
	PopActiveSnapshot();
	CommitTransactionCommand();
	return ok;
}

bool
gw_pool_start(int epoll_fd)
{
	(void) epoll_fd;
	return true;
}


/*
 * Runs one call in a transaction of its own, as the gateway's statement
 * runs in its implicit one: the function's text is the response; an error
 * (of the call, or of the COMMIT) aborts the transaction and is answered
 * as DynamoDB's error. The function's EXECUTE right is checked on every
 * call, as a statement would.
 */
static void
run_call(gw_call *call)
{
	MemoryContext cxt = CurrentMemoryContext;
	char	   *volatile body = NULL;

	call->warnings.len = 0;
	call->warnings.oom = false;
	current_call = call;
	/* a cancel (SIGINT: pg_cancel_backend, statement_timeout) that came between calls is not this one's */
	QueryCancelPending = false;
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	if (StatementTimeout > 0)
		enable_timeout_after(STATEMENT_TIMEOUT, StatementTimeout);
	PG_TRY();
	{
		LOCAL_FCINFO(fcinfo, 3);
		Oid			fn;
		Datum		result;
		text	   *t;
		size_t		len;

		PushActiveSnapshot(GetTransactionSnapshot());
		pgstat_report_activity(STATE_RUNNING, call->operation);
		fn = lookup_call_fn();
		if (!OidIsValid(fn))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_FUNCTION),
					 errmsg("function %s.dynamodb_as(text, text, text) does not exist", call_schema)));
		if (pg_proc_aclcheck(fn, GetUserId(), ACL_EXECUTE) != ACLCHECK_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied for function dynamodb_as")));
		InitFunctionCallInfoData(*fcinfo, &call_finfo, 3, InvalidOid, NULL, NULL);
		fcinfo->args[0].value = call->role ? CStringGetTextDatum(call->role) : (Datum) 0;
		fcinfo->args[0].isnull = call->role == NULL;
		fcinfo->args[1].value = CStringGetTextDatum(call->operation);
		fcinfo->args[1].isnull = false;
		fcinfo->args[2].value = PointerGetDatum(cstring_to_text(call->body));
		fcinfo->args[2].isnull = false;
		result = FunctionCallInvoke(fcinfo);
		if (fcinfo->isnull)
			body = strdup("{}");
		else
		{
			t = DatumGetTextPP(result);
			len = VARSIZE_ANY_EXHDR(t);
			body = malloc(len + 1);
			if (body != NULL)
			{
				memcpy(body, VARDATA_ANY(t), len);
				body[len] = '\0';
			}
		}
		PopActiveSnapshot();
		CommitTransactionCommand();
		if (StatementTimeout > 0)
			disable_timeout(STATEMENT_TIMEOUT, false);
		if (body != NULL)
		{
			call->resp.status = 200;
			call->resp.body = body;
			call->resp.len = strlen(body);
		}
		else
			gw_error_response(&call->resp, 500, GW_EXC_INTERNAL, "Internal server error");
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		current_call = NULL;
		free(body);
		disable_timeout(STATEMENT_TIMEOUT, false);
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		AbortCurrentTransaction();
		gw_error_from_fields(&call->resp, call->operation, unpack_sql_state(edata->sqlerrcode),
							 edata->detail, edata->message, call_schema);
		FreeErrorData(edata);
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	current_call = NULL;
	pgstat_report_activity(STATE_IDLE, NULL);
	if (call->resp.body == NULL)
		gw_error_response(&call->resp, 500, GW_EXC_INTERNAL, "Internal server error");
	if (call->resp.body == NULL)	/* out of memory even for that */
		call->resp.status = 500;
	call->resp.warnings = gw_warnings_header(&call->warnings);
}

/*
 * SIGTERM and SIGHUP stay blocked, for server.c's signalfd, except where
 * PostgreSQL unblocks every signal: AbortTransaction and
 * AbortSubTransaction do (PG_SETMASK(&UnBlockSig), for an error raised in
 * a signal handler), so after a call that raised an error, or rolled back
 * a subtransaction, they are unblocked. Then they reach these handlers,
 * which note them; reblock_signals blocks them again and raises what was
 * noted, which the signalfd then reads: none is lost (a bgworker's default
 * SIGHUP disposition is to ignore it) and none ends the worker mid-call.
 * The transaction callbacks below note an abort, so that a call without one
 * costs no system call for this.
 */
static volatile sig_atomic_t got_sighup;
static volatile sig_atomic_t got_sigterm;
static bool signals_unblocked;

static void
note_abort(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		signals_unblocked = true;
}

static void
note_subabort(SubXactEvent event, SubTransactionId mySubid, SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		signals_unblocked = true;
}

static void
note_sighup(SIGNAL_ARGS)
{
	got_sighup = true;
}

static void
note_sigterm(SIGNAL_ARGS)
{
	got_sigterm = true;
}

static void
reblock_signals(void)
{
	sigset_t	sigs;

	if (!signals_unblocked)
		return;
	signals_unblocked = false;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	if (got_sighup)
	{
		got_sighup = false;
		raise(SIGHUP);
	}
	if (got_sigterm)
	{
		got_sigterm = false;
		raise(SIGTERM);
	}
}

/* A call runs at once, in this backend; its response is ready on return. */
void
gw_pool_submit(gw_call *call)
{
	call->next = NULL;
	run_call(call);
	reblock_signals();
	gw_call_done(call);
}

void
gw_pool_event(int index, unsigned int events)
{
	(void) index;
	(void) events;
}

/* the loop wakes at least once a second, for gw_pool_tick */
int
gw_pool_timeout(long long now)
{
	(void) now;
	return 1000;
}

void
gw_pool_tick(long long now)
{
	static long long last;

	/*
	 * Called after each wait of the loop: once a second is enough for the
	 * postmaster's death and the tables' statistics, which a backend reports
	 * when idle (pgstat_report_stat keeps at most one report a second)
	 */
	if (now - last < 1000)
		return;
	last = now;
	if (!PostmasterIsAlive())
		proc_exit(1);
	pgstat_report_stat(false);
}

int
gw_pool_pending(void)
{
	return 0;
}

void
gw_pool_close(void)
{
}

void
gw_result_free(void *owner)
{
	(void) owner;
}

/*
 * The soft limit of open files raised to the hard one when the connections
 * need more: the HTTP connections are sockets outside PostgreSQL's own
 * accounting of files (max_files_per_process), which stays as it was.
 */
static void
raise_nofile(void)
{
	struct rlimit rl;
	rlim_t		need = (rlim_t) ep_max_connections + (rlim_t) max_files_per_process + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return;
	rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need ? rl.rlim_max : need;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < need)
		gw_log(GW_LOG_WARNING, "singletable_endpoint.max_connections = %d with max_files_per_process = %d needs %llu "
			   "open files; the limit is %llu (raise LimitNOFILE= of the server's unit, or ulimit -Hn)",
			   ep_max_connections, max_files_per_process, (unsigned long long) need, (unsigned long long) rl.rlim_cur);
}

void
singletable_endpoint_main(Datum arg)
{
	gw_serve_config config = {0};
	int			rc;

	(void) arg;
	pqsignal(SIGHUP, note_sighup);
	pqsignal(SIGTERM, note_sigterm);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(ep_database, ep_user, 0);
	pgstat_report_appname("singletable endpoint");
	gw_log_sink = log_sink;
	prev_emit_log_hook = emit_log_hook;
	emit_log_hook = collect_warnings;
	RegisterXactCallback(note_abort, NULL);
	RegisterSubXactCallback(note_subabort, NULL);

	config.listen_addr = ep_listen;
	config.schema = ep_schema;
	config.pool = 1;
	config.max_connections = ep_max_connections;
	config.per_address = ep_per_address;
	config.on_sighup = on_sighup;
	config.sigint_cancels = true;
	apply_settings(&config);
	if (empty_null(ep_viewer) != NULL && !gw_viewer_load(ep_viewer))
		proc_exit(1);
	raise_nofile();
	rc = gw_serve(&config);

	/*
	 * Drained after SIGTERM (a shutdown, or pg_terminate_backend of this
	 * worker), or a failed start: exit code 1, so that the postmaster starts
	 * the worker again 10 s later unless the server is shutting down.
	 */
	(void) rc;
	proc_exit(1);
}
