/*
 * stream_worker.c — the stream worker of a database: decodes the
 * database's logical replication slot (singletable_streams_<db oid>)
 * through the extension's output plugin, as a walsender does (one decoding
 * context kept open), collects the plugin's lines in memory, and stores
 * them in one transaction: sequence numbers in commit order, rows of
 * singletable.stream_records, and the commit LSN of the last transaction
 * stored in singletable.stream_state. Only after that commit does the slot
 * advance (LogicalConfirmReceivedLocation). After a crash the slot may
 * deliver stored transactions again: their commit LSN is at or below the
 * stored one, and they are skipped. So nothing is lost, nothing is stored
 * twice.
 *
 * Without a slot, the worker creates it (enable_stream starts the worker;
 * the streams wait ENABLING) and then marks the ENABLING streams ENABLED.
 * Every second it also closes shards older than
 * singletable.stream_shard_lifetime (a child shard follows) and the open
 * shards of disabled streams (once it has decoded past the disabling), and
 * every minute deletes records and shards older than
 * singletable.stream_retention. Once no stream is left in the database (the
 * last disabled one's records expired, or its table was dropped), or the
 * extension is gone, the worker drops the slot and exits: a slot would keep
 * WAL and block DROP DATABASE.
 *
 * The TTL launcher (ttl_worker.c) calls st_stream_launcher_round each
 * second: a worker for each database whose slot exists and is idle. So a
 * worker that dies, or a server restart, is followed within a second or
 * two; a second worker for the same database finds the slot active and
 * exits.
 */
#include "postgres.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlogutils.h"
#include "catalog/namespace.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "replication/decode.h"
#include "replication/logical.h"
#include "replication/slot.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_lsn.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "utils/bgw.h"
#include "ops/streams.h"
#include "commands/commands.h"
#include "bgw/stream_worker.h"

PGDLLEXPORT void st_stream_worker_main(Datum arg);

/* the plugin's lines not stored yet, in pending_cxt */
static List *pending = NIL;
static MemoryContext pending_cxt = NULL;

/* disabled streams whose open shard closes once decoding passed close_lsn */
static List *closing = NIL;		/* of int32 stream ids, in TopMemoryContext */
static XLogRecPtr close_lsn = InvalidXLogRecPtr;

static bool
start_worker(Oid dboid)
{
	BackgroundWorker worker;
	char		name[BGW_MAXLEN];

	snprintf(name, sizeof(name), "singletable stream worker for database %u", dboid);
	st_bgworker_fill(&worker, "st_stream_worker_main", "singletable stream worker", name, BGW_NEVER_RESTART);
	worker.bgw_main_arg = ObjectIdGetDatum(dboid);
	return RegisterDynamicBackgroundWorker(&worker, NULL);
}

/* enable_stream's hook: a worker for this database (it creates the slot if needed) */
static bool
start_my_worker(void)
{
	return start_worker(MyDatabaseId);
}

void
st_stream_worker_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	st_streams_preloaded = true;
	st_stream_start_worker_hook = start_my_worker;
}

#define MAX_TRACKED 64
static struct
{
	Oid			dboid;
	TimestampTz last_start;
}			started[MAX_TRACKED];

void
st_stream_launcher_round(void)
{
	Oid			dbs[MAX_TRACKED];
	int			n = 0;
	TimestampTz now = GetCurrentTimestamp();

	LWLockAcquire(ReplicationSlotControlLock, LW_SHARED);
	for (int i = 0; i < max_replication_slots && n < MAX_TRACKED; i++)
	{
		ReplicationSlot *s = &ReplicationSlotCtl->replication_slots[i];
		char		want[NAMEDATALEN];
		pid_t		active;

		if (!s->in_use || !OidIsValid(s->data.database))
			continue;
		snprintf(want, sizeof(want), ST_STREAM_SLOT_FORMAT, s->data.database);
		if (strcmp(NameStr(s->data.name), want) != 0)
			continue;
		SpinLockAcquire(&s->mutex);
		active = s->active_pid;
		SpinLockRelease(&s->mutex);
		if (active == 0)
			dbs[n++] = s->data.database;
	}
	LWLockRelease(ReplicationSlotControlLock);

	for (int i = 0; i < n; i++)
	{
		int			j;
		int			free_j = -1;

		for (j = 0; j < MAX_TRACKED; j++)
		{
			if (started[j].dboid == dbs[i])
				break;
			if (free_j < 0 && (started[j].dboid == InvalidOid ||
							   started[j].last_start < now - 60 * USECS_PER_SEC))
				free_j = j;
		}
		if (j == MAX_TRACKED)
		{
			if (free_j < 0)
				continue;
			j = free_j;
			started[j].dboid = dbs[i];
			started[j].last_start = 0;
		}
		/* a worker just started needs a moment to acquire the slot */
		if (started[j].last_start > now - 3 * USECS_PER_SEC)
			continue;
		started[j].last_start = now;
		(void) start_worker(dbs[i]);
	}
}

/* The decoding context's writer: the plugin's lines, collected */
static void
collect_prepare(LogicalDecodingContext *ctx, XLogRecPtr lsn, TransactionId xid, bool last_write)
{
	resetStringInfo(ctx->out);
}

static void
collect_write(LogicalDecodingContext *ctx, XLogRecPtr lsn, TransactionId xid, bool last_write)
{
	MemoryContext old = MemoryContextSwitchTo(pending_cxt);

	pending = lappend(pending, pnstrdup(ctx->out->data, ctx->out->len));
	MemoryContextSwitchTo(old);
}

/* Creates the slot (in a transaction of its own that writes nothing) */
static void
create_slot(const char *name)
{
	LogicalDecodingContext *ctx;

	StartTransactionCommand();
	CheckLogicalDecodingRequirements();
	ReplicationSlotCreate(name, true, RS_EPHEMERAL, false);
	ctx = CreateInitDecodingContext("singletable", NIL, false, InvalidXLogRecPtr,
									XL_ROUTINE(.page_read = read_local_xlog_page,
											   .segment_open = wal_segment_open,
											   .segment_close = wal_segment_close),
									NULL, NULL, NULL);
	DecodingContextFindStartpoint(ctx);
	FreeDecodingContext(ctx);
	ReplicationSlotPersist();
	ReplicationSlotRelease();
	CommitTransactionCommand();
	ereport(LOG, (errmsg("singletable: created logical replication slot \"%s\" for streams", name)));
}

/* Splits a line at tabs, in place: at most max fields */
static int
split_tabs(char *line, char **fields, int max)
{
	int			n = 0;

	fields[n++] = line;
	for (char *p = line; *p && n < max; p++)
		if (*p == '\t')
		{
			*p = '\0';
			fields[n++] = p + 1;
		}
	return n;
}

/*
 * Rows waiting for one INSERT: the records are stored STORE_CHUNK at a time
 * by one statement over unnest() of nine arrays (a row at a time, the
 * executor's per-statement work cost more than the rows themselves: under
 * four busy writers the worker fell behind).
 */
#define STORE_CHUNK 1000
#define STORE_COLS 9
static const Oid store_elem[STORE_COLS] = {INT4OID, INT8OID, TIMESTAMPTZOID, TEXTOID, BOOLOID, INT4OID,
TEXTOID, TEXTOID, TEXTOID};
typedef struct StoreChunk
{
	MemoryContext cxt;			/* the rows' values and arrays, reset per chunk */
	int			n;
	Datum		values[STORE_COLS][STORE_CHUNK];
	bool		nulls[STORE_COLS][STORE_CHUNK];
} StoreChunk;

static void
store_chunk(SPIPlanPtr plan, StoreChunk *c)
{
	Datum		args[STORE_COLS];
	int			dims[1] = {c->n};
	int			lbs[1] = {1};
	MemoryContext old;

	if (c->n == 0)
		return;
	old = MemoryContextSwitchTo(c->cxt);
	for (int k = 0; k < STORE_COLS; k++)
	{
		int16		len;
		bool		byval;
		char		align;

		get_typlenbyvalalign(store_elem[k], &len, &byval, &align);
		args[k] = PointerGetDatum(construct_md_array(c->values[k], c->nulls[k], 1, dims, lbs,
													 store_elem[k], len, byval, align));
	}
	MemoryContextSwitchTo(old);
	if (SPI_execute_plan(plan, args, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "storing stream records failed");
	MemoryContextReset(c->cxt);
	c->n = 0;
}

/* The INSERT of store_pending, kept across its transactions */
static SPIPlanPtr store_plan = NULL;

/* Stores the pending lines: one transaction */
static void
store_pending(void)
{
	static const char *ins =
		"INSERT INTO singletable.stream_records (stream_id, seq, created_at, event_name, ttl, size_bytes,"
		" keys, new_image, old_image) SELECT u.stream_id, u.seq, u.created_at, u.event_name, u.ttl, u.size_bytes,"
		" u.keys::pg_catalog.jsonb, u.new_image::pg_catalog.jsonb, u.old_image::pg_catalog.jsonb"
		" FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2), pg_catalog.unnest($3), pg_catalog.unnest($4),"
		" pg_catalog.unnest($5), pg_catalog.unnest($6), pg_catalog.unnest($7), pg_catalog.unnest($8), pg_catalog.unnest($9))"
		" AS u(stream_id, seq, created_at, event_name, ttl, size_bytes, keys, new_image, old_image)"
		" WHERE EXISTS (SELECT 1 FROM singletable.streams s WHERE s.stream_id OPERATOR(pg_catalog.=) u.stream_id)";
	Oid			argtypes[STORE_COLS] = {INT4ARRAYOID, INT8ARRAYOID, TIMESTAMPTZARRAYOID, TEXTARRAYOID, BOOLARRAYOID,
	INT4ARRAYOID, TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID};
	XLogRecPtr	last_lsn;
	int64		last_seq;
	bool		isnull;
	ListCell   *lc;
	ListCell   *txn_start = NULL;
	int			stored = 0;
	StoreChunk *chunk;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	pgstat_report_activity(STATE_RUNNING, "storing stream records");
	if (SPI_execute("SELECT last_commit_lsn, last_seq FROM singletable.stream_state FOR UPDATE", false, 0)
		!= SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "singletable.stream_state must hold one row");
	last_lsn = DatumGetLSN(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	last_seq = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	/* planned once for the worker's life (the plan cache replans it after DDL) */
	if (store_plan == NULL)
	{
		SPIPlanPtr	plan = SPI_prepare(ins, STORE_COLS, argtypes);

		if (plan == NULL)
			elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
		if (SPI_keepplan(plan) != 0)
			elog(ERROR, "SPI_keepplan failed");
		store_plan = plan;
	}
	chunk = palloc(sizeof(StoreChunk));
	chunk->cxt = AllocSetContextCreate(CurrentMemoryContext, "singletable stream records chunk",
									   ALLOCSET_DEFAULT_SIZES);
	chunk->n = 0;

	foreach(lc, pending)
	{
		char	   *line = lfirst(lc);
		char	   *f[8];
		XLogRecPtr	lsn;
		TimestampTz at;

		CHECK_FOR_INTERRUPTS();
		if (line[0] == 'C')
		{
			if (txn_start == NULL)
				txn_start = lc;
			continue;
		}
		if (line[0] != 'T' || split_tabs(line, f, 3) != 3)
			elog(ERROR, "unexpected line from the stream decoder");
		lsn = (XLogRecPtr) strtoull(f[1], NULL, 10);
		at = (TimestampTz) strtoll(f[2], NULL, 10);
		if (lsn <= last_lsn)
		{
			/* stored before a crash, delivered again */
			txn_start = NULL;
			continue;
		}
		for (ListCell *c = txn_start; c != NULL && c != lc; c = lnext(pending, c))
		{
			char	   *cl = lfirst(c);
			int			i = chunk->n;

			MemoryContext old;

			if (split_tabs(cl, f, 8) != 8)
				elog(ERROR, "unexpected change line from the stream decoder");
			old = MemoryContextSwitchTo(chunk->cxt);
			chunk->values[0][i] = Int32GetDatum(atoi(f[1]));
			chunk->values[1][i] = Int64GetDatum(++last_seq);
			chunk->values[2][i] = TimestampTzGetDatum(at);
			chunk->values[3][i] = CStringGetTextDatum(f[2]);
			chunk->values[4][i] = BoolGetDatum(f[3][0] == '1');
			chunk->values[5][i] = Int32GetDatum(atoi(f[4]));
			chunk->values[6][i] = CStringGetTextDatum(f[5]);
			for (int k = 0; k < 7; k++)
				chunk->nulls[k][i] = false;
			for (int k = 6; k < 8; k++)
			{
				chunk->nulls[k + 1][i] = (f[k][0] == '\0');
				chunk->values[k + 1][i] = chunk->nulls[k + 1][i] ? (Datum) 0 : CStringGetTextDatum(f[k]);
			}
			MemoryContextSwitchTo(old);
			if (++chunk->n == STORE_CHUNK)
				store_chunk(store_plan, chunk);
			stored++;
		}
		txn_start = NULL;
		last_lsn = lsn;
	}
	store_chunk(store_plan, chunk);
	{
		Oid			t[2] = {LSNOID, INT8OID};
		Datum		v[2] = {LSNGetDatum(last_lsn), Int64GetDatum(last_seq)};

		if (SPI_execute_with_args("UPDATE singletable.stream_state SET last_commit_lsn = $1, last_seq = $2",
								  2, t, v, NULL, false, 0) != SPI_OK_UPDATE)
			elog(ERROR, "updating singletable.stream_state failed");
	}
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);
	elog(DEBUG1, "singletable stream worker stored %d records", stored);
	MemoryContextReset(pending_cxt);
	pending = NIL;
}

/*
 * Whether the database has no stream left (not even a disabled one whose
 * records are kept): then the slot is not needed. Checked again under a
 * SHARE lock of singletable.streams, which waits for enable_stream's
 * transactions in flight and keeps new ones out until this one ends: an
 * enable_stream after it sees the slot gone (ENABLING, a new slot).
 */
static bool
no_stream_left(void)
{
	static const char *q = "SELECT NOT EXISTS (SELECT 1 FROM singletable.streams)";
	bool		isnull;

	if (SPI_execute(q, false, 0) != SPI_OK_SELECT ||
		!DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)))
		return false;
	if (SPI_execute("LOCK TABLE singletable.streams IN SHARE MODE", false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "LOCK TABLE singletable.streams failed");
	/* a new snapshot (read committed): what committed before the lock */
	return SPI_execute(q, false, 0) == SPI_OK_SELECT &&
		DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

/*
 * Housekeeping in a transaction: ENABLING streams, shards, retention. When
 * no stream is left, drops the slot (and the decoding context) and exits.
 */
static void
maintenance(bool retention, XLogRecPtr decoded, LogicalDecodingContext *ctx)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	pgstat_report_activity(STATE_RUNNING, "stream maintenance");
	SPI_execute("UPDATE singletable.streams SET status = 'ENABLED' WHERE status OPERATOR(pg_catalog.=) 'ENABLING'",
				false, 0);
	/* shards past their lifetime: closed, a child follows */
	{
		Oid			t[1] = {INT4OID};
		Datum		v[1] = {Int32GetDatum(st_stream_shard_lifetime)};

		SPI_execute_with_args("WITH closed AS (UPDATE singletable.stream_shards h"
							  " SET ending_seq = st.last_seq, closed_at = pg_catalog.now()"
							  " FROM singletable.stream_state st, singletable.streams s"
							  " WHERE h.ending_seq IS NULL AND h.stream_id OPERATOR(pg_catalog.=) s.stream_id"
							  " AND s.status OPERATOR(pg_catalog.<>) 'DISABLED'"
							  " AND h.created_at OPERATOR(pg_catalog.<) (pg_catalog.now() OPERATOR(pg_catalog.-) pg_catalog.make_interval(secs => $1))"
							  " RETURNING h.stream_id, h.shard_id, h.ending_seq)"
							  " INSERT INTO singletable.stream_shards (stream_id, shard_id, parent_shard_id, starting_seq)"
							  " SELECT stream_id, 'shardId-' OPERATOR(pg_catalog.||) pg_catalog.lpad(pg_catalog.floor(pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8::pg_catalog.text, 20, '0')"
							  " OPERATOR(pg_catalog.||) '-' OPERATOR(pg_catalog.||) pg_catalog.substr(pg_catalog.md5(pg_catalog.random()::pg_catalog.text), 1, 8),"
							  " shard_id, ending_seq OPERATOR(pg_catalog.+) 1 FROM closed",
							  1, t, v, NULL, false, 0);
	}
	/* disabled streams: close their open shard once decoding passed the disabling */
	if (closing != NIL && decoded >= close_lsn)
	{
		ListCell   *lc;

		foreach(lc, closing)
		{
			Oid			t[1] = {INT4OID};
			Datum		v[1] = {Int32GetDatum(lfirst_int(lc))};

			SPI_execute_with_args("UPDATE singletable.stream_shards h"
								  " SET ending_seq = GREATEST(st.last_seq, h.starting_seq OPERATOR(pg_catalog.-) 1),"
								  " closed_at = pg_catalog.now() FROM singletable.stream_state st"
								  " WHERE h.stream_id OPERATOR(pg_catalog.=) $1 AND h.ending_seq IS NULL",
								  1, t, v, NULL, false, 0);
		}
		list_free(closing);
		closing = NIL;
	}
	if (closing == NIL)
	{
		SPI_execute("SELECT DISTINCT h.stream_id FROM singletable.stream_shards h JOIN singletable.streams s"
					" USING (stream_id) WHERE s.status OPERATOR(pg_catalog.=) 'DISABLED' AND h.ending_seq IS NULL",
					true, 0);
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			bool		isnull;
			MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

			closing = lappend_int(closing, DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[i],
																	   SPI_tuptable->tupdesc, 1, &isnull)));
			MemoryContextSwitchTo(old);
		}
		/* the disabling committed before this snapshot, so before this LSN */
		close_lsn = GetXLogInsertRecPtr();
	}
	if (retention)
	{
		Oid			t[1] = {INT4OID};
		Datum		v[1] = {Int32GetDatum(st_stream_retention)};

		SPI_execute_with_args("WITH d AS (DELETE FROM singletable.stream_records"
							  " WHERE created_at OPERATOR(pg_catalog.<) (pg_catalog.now() OPERATOR(pg_catalog.-) pg_catalog.make_interval(secs => $1))"
							  " RETURNING stream_id, seq),"
							  " m AS (SELECT stream_id, pg_catalog.max(seq) AS mx FROM d GROUP BY stream_id)"
							  " UPDATE singletable.streams s SET trimmed_seq = m.mx FROM m"
							  " WHERE s.stream_id OPERATOR(pg_catalog.=) m.stream_id AND s.trimmed_seq OPERATOR(pg_catalog.<) m.mx",
							  1, t, v, NULL, false, 0);
		SPI_execute_with_args("DELETE FROM singletable.stream_shards"
							  " WHERE closed_at OPERATOR(pg_catalog.<) (pg_catalog.now() OPERATOR(pg_catalog.-) pg_catalog.make_interval(secs => $1))",
							  1, t, v, NULL, false, 0);
		SPI_execute_with_args("WITH gone AS (DELETE FROM singletable.streams s WHERE status OPERATOR(pg_catalog.=) 'DISABLED'"
							  " AND disabled_at OPERATOR(pg_catalog.<) (pg_catalog.now() OPERATOR(pg_catalog.-) pg_catalog.make_interval(secs => $1))"
							  " AND NOT EXISTS (SELECT 1 FROM singletable.stream_records r WHERE r.stream_id OPERATOR(pg_catalog.=) s.stream_id)"
							  " RETURNING stream_id) DELETE FROM singletable.stream_shards h USING gone"
							  " WHERE h.stream_id OPERATOR(pg_catalog.=) gone.stream_id",
							  1, t, v, NULL, false, 0);
	}
	if (ctx != NULL && no_stream_left())
	{
		char		name[NAMEDATALEN];

		strlcpy(name, NameStr(MyReplicationSlot->data.name), sizeof(name));
		FreeDecodingContext(ctx);
		ReplicationSlotRelease();
		ReplicationSlotDrop(name, true);
		SPI_finish();
		PopActiveSnapshot();
		CommitTransactionCommand();
		ereport(LOG, (errmsg("singletable: dropped logical replication slot \"%s\": no stream is left in this database",
							 name)));
		proc_exit(0);
	}
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);
}

void
st_stream_worker_main(Datum arg)
{
	Oid			dboid = DatumGetObjectId(arg);
	char		slotname[NAMEDATALEN];
	bool		installed;
	ReplicationSlot *slot;
	LogicalDecodingContext *ctx;
	TimestampTz last_maint = 0;
	TimestampTz last_retention = 0;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(dboid, InvalidOid, 0);
	pgstat_report_appname("singletable stream worker");
	snprintf(slotname, sizeof(slotname), ST_STREAM_SLOT_FORMAT, dboid);

	StartTransactionCommand();
	{
		Oid			nsp = get_namespace_oid("singletable", true);

		installed = OidIsValid(nsp) && OidIsValid(get_relname_relid("stream_state", nsp));
	}
	CommitTransactionCommand();
	slot = SearchNamedReplicationSlot(slotname, true);
	if (!installed)
	{
		/* the extension was dropped: its slot would keep WAL and block DROP DATABASE */
		if (slot != NULL)
		{
			ReplicationSlotDrop(slotname, true);
			ereport(LOG, (errmsg("singletable: dropped logical replication slot \"%s\": the extension is not installed in this database",
								 slotname)));
		}
		proc_exit(0);
	}

	if (slot == NULL)
		create_slot(slotname);
	else
	{
		pid_t		active;

		SpinLockAcquire(&slot->mutex);
		active = slot->active_pid;
		SpinLockRelease(&slot->mutex);
		if (active != 0)
			proc_exit(0);		/* another worker has it */
	}
	maintenance(false, InvalidXLogRecPtr, NULL);

	pending_cxt = AllocSetContextCreate(TopMemoryContext, "singletable stream records", ALLOCSET_DEFAULT_SIZES);
	ReplicationSlotAcquire(slotname, true);

	/*
	 * The decoding context is created inside a transaction, as the SQL
	 * functions (pg_logical_slot_get_changes) do, not outside one as a
	 * walsender does: outside, CreateDecodingContext marks the process
	 * PROC_IN_LOGICAL_DECODING, and snapshots skip such a process entirely,
	 * its xid included. The worker writes (store_pending), so another
	 * backend's snapshot would take its running transaction for an aborted
	 * one and set HEAP_XMIN_INVALID on the rows it had inserted so far: they
	 * vanish after the commit. The slot's catalog_xmin already protects the
	 * catalog rows decoding needs, so the flag is not needed.
	 */
	StartTransactionCommand();
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		ctx = CreateDecodingContext(InvalidXLogRecPtr, NIL, false,
									XL_ROUTINE(.page_read = read_local_xlog_page,
											   .segment_open = wal_segment_open,
											   .segment_close = wal_segment_close),
									collect_prepare, collect_write, NULL);
		MemoryContextSwitchTo(old);
	}
	CommitTransactionCommand();
	if (MyProc->statusFlags & PROC_IN_LOGICAL_DECODING)
		elog(ERROR, "the stream worker must not be marked as a logical decoding process");
	XLogBeginRead(ctx->reader, MyReplicationSlot->data.restart_lsn);
	ereport(LOG, (errmsg("singletable stream worker reading slot \"%s\"", slotname)));

	for (;;)
	{
		XLogRecPtr	end;
		bool		read_any = false;
		bool		caught_up;
		TimestampTz now;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		end = GetFlushRecPtr(NULL);
		while (ctx->reader->EndRecPtr < end && list_length(pending) < 100000)
		{
			XLogRecord *record;
			char	   *errm = NULL;

			record = XLogReadRecord(ctx->reader, &errm);
			if (errm)
				elog(ERROR, "could not read WAL for slot \"%s\": %s", slotname, errm);
			if (record != NULL)
				LogicalDecodingProcessRecord(ctx, ctx->reader);
			read_any = true;
			CHECK_FOR_INTERRUPTS();
		}
		caught_up = ctx->reader->EndRecPtr >= end;
		if (pending != NIL)
			store_pending();
		/* stored: the slot may move past it */
		if (read_any)
			LogicalConfirmReceivedLocation(ctx->reader->EndRecPtr);
		now = GetCurrentTimestamp();
		if (caught_up && now - last_maint >= USECS_PER_SEC)
		{
			bool		retention = now - last_retention >= (int64) Min(60, st_stream_retention) * USECS_PER_SEC;

			maintenance(retention, ctx->reader->EndRecPtr, ctx);
			last_maint = now;
			if (retention)
				last_retention = now;
		}
		if (!read_any)
		{
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 20, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
		}
	}
}
