/*
 * streams.c — the read API of DynamoDB Streams (streams.h): streams,
 * shards and records of singletable.streams, stream_shards and
 * stream_records, which the stream worker (bgw/stream_worker.c) writes.
 *
 * The storage has no privileges for PUBLIC: it is read here as its owner
 * (the extension's owner), after checking that the caller has SELECT on
 * the stream's table when that table still exists.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "utils/errors.h"
#include "ops/streams.h"

bool		st_streams_preloaded = false;
int			st_stream_retention = 86400;
int			st_stream_shard_lifetime = 14400;

static const char *const view_names[] = {"KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"};

const char *
st_stream_view_name(StStreamView view)
{
	return view_names[view];
}

int
st_stream_view_from_name(const char *name)
{
	for (int i = 0; i < lengthof(view_names); i++)
		if (strcmp(name, view_names[i]) == 0)
			return i;
	return -1;
}

char *
st_stream_seq_text(int64 seq)
{
	return psprintf("%021lld", (long long) seq);
}

static Oid
rel_owner(Oid relid)
{
	HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(tp))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	owner = ((Form_pg_class) GETSTRUCT(tp))->relowner;
	ReleaseSysCache(tp);
	return owner;
}

/*
 * Runs sql on the stream storage as its owner (the owner of
 * singletable.streams), in the caller's SPI connection; the result is in
 * SPI_tuptable. Returns SPI's code.
 */
int
st_stream_execute(const char *sql, int nargs, Oid *argtypes, Datum *values, const char *nulls,
				  bool read_only)
{
	Oid			save_userid;
	int			save_sec;
	Oid			relid = get_relname_relid("streams", get_namespace_oid("singletable", false));
	int			rc;

	if (!OidIsValid(relid))
		elog(ERROR, "singletable.streams does not exist");
	GetUserIdAndSecContext(&save_userid, &save_sec);
	SetUserIdAndSecContext(rel_owner(relid), save_sec | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	PG_TRY();
	{
		rc = SPI_execute_with_args(sql, nargs, argtypes, values, nulls, read_only, 0);
	}
	PG_FINALLY();
	{
		SetUserIdAndSecContext(save_userid, save_sec);
	}
	PG_END_TRY();
	if (rc < 0)
		elog(ERROR, "stream storage statement failed: %s", SPI_result_code_string(rc));
	return rc;
}

/* Whether the caller may read a stream of the table relid (a dropped table: yes) */
static bool
may_read(Oid relid)
{
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		return true;
	return pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK;
}

static char *
col_text(HeapTuple tup, TupleDesc desc, int col)
{
	char	   *s = SPI_getvalue(tup, desc, col);

	return s;
}

static Datum
col_datum(HeapTuple tup, TupleDesc desc, int col, bool *isnull)
{
	return SPI_getbinval(tup, desc, col, isnull);
}

#define STREAM_COLS "stream_id, table_oid, table_name, stream_label, stream_arn, view_type, status," \
	" enabled_at, disabled_at, partition_key, partition_key_type, sort_key, sort_key_type"

/* A stream from a row of STREAM_COLS, in the current memory context */
static void
stream_from_row(HeapTuple tup, TupleDesc desc, StStream *s)
{
	bool		isnull;
	char	   *status;
	char	   *t;

	s->stream_id = DatumGetInt32(col_datum(tup, desc, 1, &isnull));
	s->table_oid = DatumGetObjectId(col_datum(tup, desc, 2, &isnull));
	s->table_name = col_text(tup, desc, 3);
	s->label = col_text(tup, desc, 4);
	s->arn = col_text(tup, desc, 5);
	s->view = (StStreamView) st_stream_view_from_name(col_text(tup, desc, 6));
	status = col_text(tup, desc, 7);
	s->status = strcmp(status, "ENABLING") == 0 ? "ENABLING" :
		strcmp(status, "ENABLED") == 0 ? "ENABLED" : "DISABLED";
	s->enabled_at = DatumGetTimestampTz(col_datum(tup, desc, 8, &isnull));
	s->disabled_at = DatumGetTimestampTz(col_datum(tup, desc, 9, &isnull));
	if (isnull)
		s->disabled_at = 0;
	s->keys.pk_name = col_text(tup, desc, 10);
	t = col_text(tup, desc, 11);
	s->keys.pk_type = (StKeyType) t[0];
	s->keys.sk_name = col_text(tup, desc, 12);
	t = col_text(tup, desc, 13);
	s->keys.sk_type = t ? (StKeyType) t[0] : ST_KEY_S;
}

/* The streams a query finds that the caller may read, in the caller's context */
static List *
streams_where(const char *where, int nargs, Oid *argtypes, Datum *values)
{
	MemoryContext caller = CurrentMemoryContext;
	List	   *out = NIL;

	SPI_connect();
	st_stream_execute(psprintf("SELECT " STREAM_COLS " FROM singletable.streams %s"
							   " ORDER BY stream_id DESC", where),
					  nargs, argtypes, values, NULL, false);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		MemoryContext old = MemoryContextSwitchTo(caller);
		StStream   *s = palloc0(sizeof(StStream));

		stream_from_row(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, s);
		MemoryContextSwitchTo(old);
		if (may_read(s->table_oid))
			out = lappend(out, s);
	}
	SPI_finish();
	return out;
}

List *
st_streams_of(Oid relid)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};

	if (!OidIsValid(relid))
		return streams_where("", 0, NULL, NULL);
	return streams_where("WHERE table_oid OPERATOR(pg_catalog.=) $1", 1, argtypes, values);
}

bool
st_stream_by_arn(const char *arn, StStream *out)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(arn)};
	List	   *l = streams_where("WHERE stream_arn OPERATOR(pg_catalog.=) $1", 1, argtypes, values);

	if (l == NIL)
		return false;
	*out = *(StStream *) linitial(l);
	return true;
}

StStream *
st_stream_latest(Oid relid)
{
	List	   *l = st_streams_of(relid);

	return l == NIL ? NULL : (StStream *) linitial(l);
}

List *
st_stream_shards(int32 stream_id)
{
	MemoryContext caller = CurrentMemoryContext;
	Oid			argtypes[1] = {INT4OID};
	Datum		values[1] = {Int32GetDatum(stream_id)};
	List	   *out = NIL;

	SPI_connect();
	st_stream_execute("SELECT shard_id, parent_shard_id, starting_seq, ending_seq FROM singletable.stream_shards"
					  " WHERE stream_id OPERATOR(pg_catalog.=) $1 ORDER BY starting_seq, created_at",
					  1, argtypes, values, NULL, false);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		MemoryContext old = MemoryContextSwitchTo(caller);
		StStreamShard *sh = palloc0(sizeof(StStreamShard));
		bool		isnull;

		sh->shard_id = col_text(tup, desc, 1);
		sh->parent_shard_id = col_text(tup, desc, 2);
		sh->starting_seq = DatumGetInt64(col_datum(tup, desc, 3, &isnull));
		sh->ending_seq = DatumGetInt64(col_datum(tup, desc, 4, &isnull));
		if (isnull)
			sh->ending_seq = 0;
		out = lappend(out, sh);
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	return out;
}

/* One int8 from a query with the stream id as $1 */
static int64
stream_int8(const char *sql, int32 stream_id)
{
	Oid			argtypes[1] = {INT4OID};
	Datum		values[1] = {Int32GetDatum(stream_id)};
	int64		v = 0;
	bool		isnull = true;

	SPI_connect();
	st_stream_execute(sql, 1, argtypes, values, NULL, false);
	if (SPI_processed == 1)
		v = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	return isnull ? 0 : v;
}

int64
st_stream_trim_seq(int32 stream_id)
{
	return stream_int8("SELECT trimmed_seq FROM singletable.streams WHERE stream_id OPERATOR(pg_catalog.=) $1",
					   stream_id) + 1;
}

int64
st_stream_last_seq(int32 stream_id)
{
	return stream_int8("SELECT pg_catalog.max(seq) FROM singletable.stream_records"
					   " WHERE stream_id OPERATOR(pg_catalog.=) $1", stream_id);
}

List *
st_stream_read(int32 stream_id, int64 after_seq, int64 until_seq, int max_records, int64 max_bytes)
{
	MemoryContext caller = CurrentMemoryContext;
	Oid			argtypes[4] = {INT4OID, INT8OID, INT8OID, INT4OID};
	Datum		values[4] = {Int32GetDatum(stream_id), Int64GetDatum(after_seq),
	Int64GetDatum(until_seq > 0 ? until_seq : PG_INT64_MAX), Int32GetDatum(max_records)};
	List	   *out = NIL;
	int64		bytes = 0;

	if (max_records <= 0)
		return NIL;
	SPI_connect();
	st_stream_execute("SELECT seq, created_at, event_name, ttl, size_bytes, keys, new_image, old_image"
					  " FROM singletable.stream_records WHERE stream_id OPERATOR(pg_catalog.=) $1"
					  " AND seq OPERATOR(pg_catalog.>) $2 AND seq OPERATOR(pg_catalog.<=) $3"
					  " ORDER BY seq LIMIT $4", 4, argtypes, values, NULL, false);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		int32		size = DatumGetInt32(SPI_getbinval(tup, desc, 5, &isnull));
		MemoryContext old;
		StStreamRecord *r;
		char	   *ev;
		Datum		d;

		CHECK_FOR_INTERRUPTS();
		if (out != NIL && bytes + size > max_bytes)
			break;
		bytes += size;
		old = MemoryContextSwitchTo(caller);
		r = palloc0(sizeof(StStreamRecord));
		r->seq = DatumGetInt64(SPI_getbinval(tup, desc, 1, &isnull));
		r->created_at = DatumGetTimestampTz(SPI_getbinval(tup, desc, 2, &isnull));
		ev = SPI_getvalue(tup, desc, 3);
		r->event_name = strcmp(ev, "INSERT") == 0 ? "INSERT" : strcmp(ev, "MODIFY") == 0 ? "MODIFY" : "REMOVE";
		r->ttl = DatumGetBool(SPI_getbinval(tup, desc, 4, &isnull));
		r->size_bytes = size;
		d = SPI_getbinval(tup, desc, 6, &isnull);
		r->keys = isnull ? NULL : DatumGetJsonbPCopy(d);
		d = SPI_getbinval(tup, desc, 7, &isnull);
		r->new_image = isnull ? NULL : DatumGetJsonbPCopy(d);
		d = SPI_getbinval(tup, desc, 8, &isnull);
		r->old_image = isnull ? NULL : DatumGetJsonbPCopy(d);
		out = lappend(out, r);
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	return out;
}
