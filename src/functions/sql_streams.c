/*
 * sql_streams.c — SQL functions of DynamoDB Streams: enable_stream and
 * disable_stream (commands/streams.c) and stream_records, the records of a
 * table's newest stream as rows (ops/streams.c).
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"

#include "catalog/registry.h"
#include "utils/errors.h"
#include "ops/streams.h"
#include "commands/commands.h"
#include "functions/sql_args.h"

PG_FUNCTION_INFO_V1(singletable_enable_stream);
PG_FUNCTION_INFO_V1(singletable_disable_stream);
PG_FUNCTION_INFO_V1(singletable_stream_records);

/* The OID of a table named in SQL; a missing one raises st_table_open's error */
static Oid
table_oid(text *name, AclMode required)
{
	Oid			relid;

	if (name == NULL)
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("table_name must not be NULL")));
	relid = RangeVarGetRelid(st_name_to_rangevar(name), NoLock, true);
	if (!OidIsValid(relid))
		relid = st_table_open(name, AccessShareLock, required)->relid;
	return relid;
}

/* singletable.enable_stream(table_name, view_type) -> the stream ARN */
Datum
singletable_enable_stream(PG_FUNCTION_ARGS)
{
	text	   *name = ARG_TEXT(0);
	char	   *view = ARG_CSTRING(1);
	int			v;
	int32		id;
	StStream	s;
	List	   *l;
	ListCell   *lc;

	if (view == NULL)
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("view_type must not be NULL")));
	v = st_stream_view_from_name(view);
	if (v < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid view_type \"%s\": must be KEYS_ONLY, NEW_IMAGE, OLD_IMAGE or NEW_AND_OLD_IMAGES", view)));
	id = st_enable_stream(table_oid(name, ST_ACL_OWNER), (StStreamView) v);
	l = st_streams_of(InvalidOid);
	foreach(lc, l)
	{
		s = *(StStream *) lfirst(lc);
		if (s.stream_id == id)
			PG_RETURN_TEXT_P(cstring_to_text(s.arn));
	}
	elog(ERROR, "the new stream %d is not found", id);
}

/* singletable.disable_stream(table_name) */
Datum
singletable_disable_stream(PG_FUNCTION_ARGS)
{
	st_disable_stream(table_oid(ARG_TEXT(0), ST_ACL_OWNER));
	PG_RETURN_VOID();
}

/* A SequenceNumber's text: 1 to 21 digits */
static int64
parse_seq(const char *s)
{
	int64		v = 0;
	int			n = strlen(s);

	if (n < 1 || n > 21)
		goto bad;
	for (int i = 0; i < n; i++)
	{
		if (s[i] < '0' || s[i] > '9')
			goto bad;
		if (v > (PG_INT64_MAX - (s[i] - '0')) / 10)
			goto bad;
		v = v * 10 + (s[i] - '0');
	}
	return v;
bad:
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid after_sequence: a sequence number is 1 to 21 digits")));
	return 0;
}

/*
 * singletable.stream_records(table_name, after_sequence, max_records):
 * the records of the table's newest stream after after_sequence
 */
Datum
singletable_stream_records(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	text	   *name = ARG_TEXT(0);
	char	   *after = ARG_CSTRING(1);
	int			max = PG_ARGISNULL(2) ? 1000 : PG_GETARG_INT32(2);
	Oid			relid;
	StStream   *s;
	List	   *recs;
	ListCell   *lc;
	Jsonb	   *service = NULL;
	int64		after_seq;

	if (max < 1 || max > 10000)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_records must be between 1 and 10000, not %d", max)));
	after_seq = after ? parse_seq(after) : 0;
	relid = table_oid(name, ACL_SELECT);
	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", get_rel_name(relid))));
	s = st_stream_latest(relid);
	if (s == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("table \"%s\" has no stream", get_rel_name(relid)),
				 errhint("Enable one with singletable.enable_stream().")));
	recs = st_stream_read(s->stream_id, after_seq, 0, max, PG_INT64_MAX);

	InitMaterializedSRF(fcinfo, 0);
	foreach(lc, recs)
	{
		StStreamRecord *r = lfirst(lc);
		Datum		values[9];
		bool		nulls[9] = {0};

		CHECK_FOR_INTERRUPTS();
		values[0] = CStringGetTextDatum(st_stream_seq_text(r->seq));
		values[1] = CStringGetTextDatum(r->event_name);
		values[2] = TimestampTzGetDatum(r->created_at);
		values[3] = JsonbPGetDatum(r->keys);
		nulls[4] = r->new_image == NULL;
		values[4] = r->new_image ? JsonbPGetDatum(r->new_image) : (Datum) 0;
		nulls[5] = r->old_image == NULL;
		values[5] = r->old_image ? JsonbPGetDatum(r->old_image) : (Datum) 0;
		values[6] = Int32GetDatum(r->size_bytes);
		if (r->ttl)
		{
			if (service == NULL)
				service = DatumGetJsonbP(DirectFunctionCall1(jsonb_in,
															 CStringGetDatum("{\"type\": \"Service\", \"principalId\": \"dynamodb.amazonaws.com\"}")));
			values[7] = JsonbPGetDatum(service);
		}
		else
			nulls[7] = true;
		values[8] = CStringGetTextDatum(s->arn);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
