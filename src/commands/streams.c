/*
 * streams.c — DDL of DynamoDB Streams (commands.h): st_enable_stream adds a
 * row to singletable.streams (ENABLED when the database's slot exists, else
 * ENABLING until the stream worker has created it) with its first shard,
 * and sets REPLICA IDENTITY FULL; st_disable_stream marks the stream
 * DISABLED (the worker closes its open shard) and restores REPLICA IDENTITY DEFAULT.
 * Both are exact to the commit: the output plugin (ops/stream_decode.c)
 * reads singletable.streams in the historic snapshot of each change.
 */
#include "postgres.h"

#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "replication/slot.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/varlena.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "catalog/registry.h"
#include "utils/errors.h"
#include "ops/streams.h"
#include "commands/commands.h"

/* the prefix of api/dynamodb_tables.c's ARN_PREFIX */
#define STREAM_ARN_PREFIX "arn:aws:dynamodb:ddblocal:000000000000:table/"

bool		(*st_stream_start_worker_hook) (void) = NULL;

/*
 * Whether the database's slot exists; *free: how many slots are not in use
 * (enabling needs one when the slot does not exist yet)
 */
static bool
slot_exists(int *free)
{
	bool		found = false;
	char		name[NAMEDATALEN];

	*free = 0;
	snprintf(name, sizeof(name), ST_STREAM_SLOT_FORMAT, MyDatabaseId);
	LWLockAcquire(ReplicationSlotControlLock, LW_SHARED);
	for (int i = 0; i < max_replication_slots; i++)
	{
		ReplicationSlot *s = &ReplicationSlotCtl->replication_slots[i];

		if (!s->in_use)
			(*free)++;
		else if (s->data.database == MyDatabaseId && strcmp(NameStr(s->data.name), name) == 0)
			found = true;
	}
	LWLockRelease(ReplicationSlotControlLock);
	return found;
}

/*
 * Whether the server lets the library decode: a server that has the setting
 * output_plugin_libraries (not every PostgreSQL build does) must list it
 */
static bool
plugin_allowed(void)
{
	const char *libs = GetConfigOption("output_plugin_libraries", true, false);
	char	   *copy;
	List	   *names;
	ListCell   *lc;

	if (libs == NULL)
		return true;
	copy = pstrdup(libs);
	if (!SplitIdentifierString(copy, ',', &names))
		return false;
	foreach(lc, names)
		if (strcmp((char *) lfirst(lc), "singletable") == 0)
			return true;
	return false;
}

/* A shard id: shardId-<20-digit ms since epoch>-<8 hex> */
static char *
new_shard_id(void)
{
	TimestampTz now = GetCurrentTimestamp();
	int64		ms = (now / 1000) + (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * 1000;

	return psprintf("shardId-%020lld-%08x", (long long) ms, (unsigned) random());
}

int32
st_enable_stream(Oid relid, StStreamView view)
{
	StTable    *tab;
	text	   *name;
	TimestampTz now = GetCurrentTransactionStartTimestamp();
	struct pg_tm tm;
	fsec_t		fsec;
	char	   *label;
	char	   *arn;
	int32		stream_id;
	bool		enabled;
	int			free_slots;

	if ((int) view < 0 || view > ST_STREAM_NEW_AND_OLD_IMAGES)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("invalid stream view type %d", (int) view)));
	name = st_table_name_text(relid);
	SPI_connect();
	/* ownership before the lock; SHARE ROW EXCLUSIVE: one enable at a time */
	tab = st_table_open(name, ShareRowExclusiveLock, ST_ACL_OWNER);
	if (wal_level < WAL_LEVEL_LOGICAL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot enable a stream on table \"%s\": wal_level is \"%s\", streams need \"logical\"",
						tab->relname, wal_level == WAL_LEVEL_MINIMAL ? "minimal" : "replica"),
				 errhint("Set wal_level = logical in postgresql.conf and restart the server.")));
	if (!st_streams_preloaded)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot enable a stream on table \"%s\": singletable is not in shared_preload_libraries, so no stream worker can run",
						tab->relname),
				 errhint("Add singletable to shared_preload_libraries and restart the server.")));
	if (!plugin_allowed())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot enable a stream on table \"%s\": output_plugin_libraries does not list singletable, so its stream worker cannot decode",
						tab->relname),
				 errhint("Add singletable to output_plugin_libraries in postgresql.conf and reload.")));
	if (tab->citus)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot enable a stream on table \"%s\": streams of Citus tables are not supported yet",
						tab->relname)));
	{
		Oid			argtypes[1] = {OIDOID};
		Datum		values[1] = {ObjectIdGetDatum(relid)};

		st_stream_execute("SELECT 1 FROM singletable.streams WHERE table_oid OPERATOR(pg_catalog.=) $1"
						  " AND status OPERATOR(pg_catalog.<>) 'DISABLED'", 1, argtypes, values, NULL, false);
		if (SPI_processed > 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" already has an enabled stream", tab->relname),
					 st_errdetail_dynamodb("Table already has an enabled stream: TableName: %s", tab->ddb_name)));
	}

	if (timestamp2tm(now, NULL, &tm, &fsec, NULL, NULL) != 0)
		elog(ERROR, "timestamp out of range");
	label = psprintf("%04d-%02d-%02dT%02d:%02d:%02d.%03d", tm.tm_year, tm.tm_mon, tm.tm_mday,
					 tm.tm_hour, tm.tm_min, tm.tm_sec, (int) (fsec / 1000));
	arn = psprintf(STREAM_ARN_PREFIX "%s/stream/%s", tab->ddb_name, label);
	/*
	 * The lock the INSERT below takes, before looking at the slot: the worker
	 * drops the slot when no stream is left under a SHARE lock of
	 * singletable.streams, so the slot seen here stays until this commits,
	 * and a slot dropped before is seen as absent (ENABLING: the worker makes
	 * a new one, and only changes after that are in the stream).
	 */
	LockRelationOid(get_relname_relid("streams", get_namespace_oid("singletable", false)), RowExclusiveLock);
	enabled = slot_exists(&free_slots);
	if (!enabled && free_slots == 0)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("cannot enable a stream on table \"%s\": all %d replication slots are in use, and the stream worker needs one for this database",
						tab->relname, max_replication_slots),
				 errhint("Increase max_replication_slots, or drop an unused slot.")));

	if (SPI_execute(psprintf("ALTER TABLE %s REPLICA IDENTITY FULL", tab->qualname), false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "ALTER TABLE failed");
	{
		Oid			argtypes[9] = {OIDOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID};
		char		pkt[2] = {(char) tab->pk_type, 0};
		char		skt[2] = {(char) tab->sk_type, 0};
		Datum		values[9] = {ObjectIdGetDatum(relid), CStringGetTextDatum(tab->ddb_name),
			CStringGetTextDatum(label), CStringGetTextDatum(arn),
			CStringGetTextDatum(st_stream_view_name(view)),
			CStringGetTextDatum(enabled ? "ENABLED" : "ENABLING"),
			CStringGetTextDatum(tab->pk_name), CStringGetTextDatum(pkt),
		tab->sk_name ? CStringGetTextDatum(tab->sk_name) : (Datum) 0};
		char		nulls[9] = "         ";
		bool		isnull;

		if (!tab->sk_name)
			nulls[8] = 'n';
		(void) skt;
		if (st_stream_execute(psprintf("INSERT INTO singletable.streams (table_oid, table_name, stream_label, stream_arn,"
									   " view_type, status, partition_key, partition_key_type, sort_key, sort_key_type,"
									   " enabled_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, %s, pg_catalog.now())"
									   " RETURNING stream_id",
									   tab->sk_name ? psprintf("'%c'", (char) tab->sk_type) : "NULL"),
							  9, argtypes, values, nulls, false) != SPI_OK_INSERT_RETURNING)
			elog(ERROR, "INSERT INTO singletable.streams failed");
		stream_id = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	}
	{
		Oid			argtypes[2] = {INT4OID, TEXTOID};
		Datum		values[2] = {Int32GetDatum(stream_id), CStringGetTextDatum(new_shard_id())};

		st_stream_execute("INSERT INTO singletable.stream_shards (stream_id, shard_id, starting_seq)"
						  " SELECT $1, $2, last_seq OPERATOR(pg_catalog.+) 1 FROM singletable.stream_state",
						  2, argtypes, values, NULL, false);
	}
	CacheInvalidateRelcacheByRelid(relid);
	SPI_finish();
	/* the worker creates the slot, or (re)starts reading */
	if (st_stream_start_worker_hook && !st_stream_start_worker_hook() && !enabled)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("cannot enable a stream on table \"%s\": no background worker slot is free for the stream worker",
						tab->relname),
				 errhint("Increase max_worker_processes.")));
	return stream_id;
}

void
st_disable_stream(Oid relid)
{
	StTable    *tab;
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};

	SPI_connect();
	tab = st_table_open(st_table_name_text(relid), ShareRowExclusiveLock, ST_ACL_OWNER);
	st_stream_execute("UPDATE singletable.streams SET status = 'DISABLED', disabled_at = pg_catalog.now()"
					  " WHERE table_oid OPERATOR(pg_catalog.=) $1 AND status OPERATOR(pg_catalog.<>) 'DISABLED'"
					  " RETURNING stream_id", 1, argtypes, values, NULL, false);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table \"%s\" has no enabled stream", tab->relname),
				 st_errdetail_dynamodb("Table has no enabled stream: TableName: %s", tab->ddb_name)));
	/* the worker closes its open shard once it has stored what committed before */
	if (SPI_execute(psprintf("ALTER TABLE %s REPLICA IDENTITY DEFAULT", tab->qualname), false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "ALTER TABLE failed");
	CacheInvalidateRelcacheByRelid(relid);
	SPI_finish();
}
