/*
 * dynamodb_streams.c — DynamoDB Streams under singletable.dynamodb:
 * ListStreams, DescribeStream, GetShardIterator and GetRecords (the
 * gateway's X-Amz-Target DynamoDBStreams_20120810.<Op>), and the
 * StreamSpecification of CreateTable, UpdateTable and DescribeTable
 * (dynamodb_tables.c calls the helpers at the end).
 *
 * The streams, their shards and records are read through the read API of
 * ops/streams.h (which checks the caller's SELECT on each stream's table);
 * enabling and disabling is the DDL of commands/commands.h. This file only
 * checks requests in DynamoDB's words and writes its answers.
 *
 * Design notes: the section on dynamodb_streams.c in README.md of this
 * folder.
 */
#include "postgres.h"

#include <inttypes.h>

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "api/dynamodb.h"
#include "commands/commands.h"
#include "format/jsonpush.h"
#include "format/keys.h"
#include "ops/streams.h"
#include "utils/errors.h"

/* GetRecords' byte limit per call (DynamoDB: 1 MB) */
#define GET_RECORDS_MAX_BYTES (1024 * 1024)
/* the version field of our shard iterators */
#define ITERATOR_VERSION "1"

/* GUC (guc.c): how long a shard iterator is valid, in seconds (DynamoDB: 15 minutes) */
int			st_stream_iterator_lifetime = 900;

static const char *const view_types[] = {"NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES", "KEYS_ONLY", NULL};
#define VIEW_TYPES_SET "[NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES, KEYS_ONLY]"
static const char *const iterator_types[] = {"TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER", NULL};
#define ITERATOR_TYPES_SET "[TRIM_HORIZON, LATEST, AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER]"

/* ------------------------------------------------------------ helpers */

static void
validation(const char *msg)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid DynamoDB Streams request: %s", msg),
			 st_errdetail_dynamodb("%s", msg)));
}

static int64
floor_div(int64 a, int64 b)
{
	return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* Milliseconds since the Unix epoch of a timestamptz */
static int64
epoch_ms(TimestampTz t)
{
	return floor_div(t + (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * USECS_PER_SEC, 1000);
}

/* The member key: a JSON number of epoch seconds with milliseconds ("1796465474.785") */
static void
push_epoch(JsonbParseState **st, const char *key, TimestampTz t)
{
	int64		ms = epoch_ms(t);
	int64		s = floor_div(ms, 1000);
	JsonbValue	v;
	char	   *txt;

	txt = psprintf(INT64_FORMAT ".%03d", s, (int) (ms - s * 1000));
	v.type = jbvNumeric;
	v.val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum(txt),
														ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
	st_push_member(st, key, &v);
}

/* A string member's length constraints, DynamoDB's messages (path: the member in camelCase) */
static void
check_length(StDdbErrors *e, const char *value, const char *path, int min, int max)
{
	int			len;

	if (value == NULL)
		return;
	len = strlen(value);
	if (len < min)
		st_ddb_error(e, psprintf("'%s'", value), path,
					 psprintf("Member must have length greater than or equal to %d", min));
	if (len > max)
		st_ddb_error(e, psprintf("'%s'", value), path,
					 psprintf("Member must have length less than or equal to %d", max));
}

static void
check_required(StDdbErrors *e, const void *value, const char *path)
{
	if (value == NULL)
		st_ddb_error(e, "null", path, "Member must not be null");
}

/* The stream of arn, or ResourceNotFoundException */
static void
stream_or_error(const char *arn, StStream *s)
{
	if (!st_stream_by_arn(arn, s))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("stream \"%s\" does not exist", arn),
				 st_errdetail_dynamodb("Requested resource not found: Stream: %s not found", arn)));
}

/* The shard shard_id of stream s, or ResourceNotFoundException */
static StStreamShard *
shard_or_error(StStream *s, const char *shard_id)
{
	ListCell   *lc;

	foreach(lc, st_stream_shards(s->stream_id))
	{
		StStreamShard *sh = lfirst(lc);

		CHECK_FOR_INTERRUPTS();
		if (strcmp(sh->shard_id, shard_id) == 0)
			return sh;
	}
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_TABLE),
			 errmsg("stream of table \"%s\" has no shard \"%s\"", s->table_name, shard_id),
			 st_errdetail_dynamodb("Shard does not exist")));
	return NULL;				/* not reached */
}

/* The KeySchema of a stream (HASH, then RANGE) */
static void
push_key_schema(JsonbParseState **st, const StAttrKeys *keys)
{
	st_push_key(st, "KeySchema");
	pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
	pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
	st_push_string(st, "AttributeName", keys->pk_name);
	st_push_string(st, "KeyType", "HASH");
	pushJsonbValue(st, WJB_END_OBJECT, NULL);
	if (keys->sk_name)
	{
		pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
		st_push_string(st, "AttributeName", keys->sk_name);
		st_push_string(st, "KeyType", "RANGE");
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(st, WJB_END_ARRAY, NULL);
}

/* ------------------------------------------------------------ StreamSpecification */

/*
 * Reads StreamSpecification (NULL: absent) of CreateTable or UpdateTable:
 * its members' types and the model's constraints go to e; the rules between
 * them are st_ddb_stream_spec_check's, after e is raised.
 */
void
st_ddb_stream_spec_read(StDdbErrors *e, JsonbValue *spec, StDdbStreamSpec *out)
{
	JsonbValue *en;
	JsonbValue *vt;

	memset(out, 0, sizeof(*out));
	out->enabled = -1;
	if (spec == NULL)
		return;
	out->given = true;
	en = getKeyJsonValueFromContainer(spec->val.binary.data, "StreamEnabled", strlen("StreamEnabled"), NULL);
	vt = getKeyJsonValueFromContainer(spec->val.binary.data, "StreamViewType", strlen("StreamViewType"), NULL);
	if (en && en->type != jbvNull)
	{
		if (en->type != jbvBool)
			st_attrval_serialization_error(en, "Boolean");
		out->enabled = en->val.boolean ? 1 : 0;
	}
	if (vt && vt->type != jbvNull)
		out->view = st_ddb_string_of(vt);
	if (out->enabled < 0)
		st_ddb_error(e, "null", "streamSpecification.streamEnabled", "Member must not be null");
	st_ddb_check_enum(e, out->view, "streamSpecification.streamViewType", view_types, VIEW_TYPES_SET);
}

/* DynamoDB's rules between StreamEnabled and StreamViewType (DynamoDB Local's words) */
void
st_ddb_stream_spec_check(const StDdbStreamSpec *spec)
{
	if (!spec->given)
		return;
	if (spec->enabled == 1 && (spec->view == NULL || spec->view[0] == '\0'))
		validation("Invalid StreamViewType: Stream ViewType must not be null or empty when enabling streams.");
	if (spec->enabled == 0 && spec->view != NULL)
		validation("Invalid StreamViewType: Stream StreamEnabled was false but a StreamViewType was present.");
}

/*
 * Applies a checked StreamSpecification to table relid (name: its DynamoDB
 * name): enables a stream (error if one is enabled) or disables it (error
 * if none is). CreateTable passes created = true: a disabled specification
 * is then nothing to do.
 */
void
st_ddb_stream_spec_apply(Oid relid, const char *name, const StDdbStreamSpec *spec, bool created)
{
	StStream   *latest;
	bool		enabled;

	if (!spec->given || (created && spec->enabled != 1))
		return;
	latest = created ? NULL : st_stream_latest(relid);
	enabled = latest && strcmp(latest->status, "DISABLED") != 0;
	if (spec->enabled == 1)
	{
		if (enabled)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" already has an enabled stream", name),
					 st_errdetail_dynamodb("Table already has an enabled stream: TableName: %s", name)));
		(void) st_enable_stream(relid, (StStreamView) st_stream_view_from_name(spec->view));
	}
	else
	{
		if (!enabled)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" has no enabled stream to disable", name),
					 st_errdetail_dynamodb("Table has no stream to disable")));
		st_disable_stream(relid);
	}
}

/*
 * DescribeTable's stream members of table relid: StreamSpecification while
 * a stream is enabled (or enabling), LatestStreamLabel and LatestStreamArn
 * of its newest stream, enabled or not (as DynamoDB keeps them after a
 * stream is disabled).
 */
void
st_ddb_push_table_stream(JsonbParseState **st, Oid relid)
{
	StStream   *latest = st_stream_latest(relid);

	if (latest == NULL)
		return;
	if (strcmp(latest->status, "DISABLED") != 0)
	{
		st_push_key(st, "StreamSpecification");
		pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
		st_push_bool(st, "StreamEnabled", true);
		st_push_string(st, "StreamViewType", st_stream_view_name(latest->view));
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
	}
	st_push_string(st, "LatestStreamLabel", latest->label);
	st_push_string(st, "LatestStreamArn", latest->arn);
}

/* ------------------------------------------------------------ ListStreams */

Jsonb *
st_ddb_list_streams(StDdbCall *call)
{
	StDdbErrors e;
	char	   *table = st_ddb_string(call, "TableName");
	char	   *start = st_ddb_string(call, "ExclusiveStartStreamArn");
	int64		limit = 100;
	bool		has_limit = st_ddb_int(call, "Limit", &limit);
	List	   *streams;
	ListCell   *lc;
	JsonbParseState *st = NULL;
	bool		started;
	int			n = 0;
	StStream   *last = NULL;
	bool		more = false;

	st_ddb_errors_init(&e);
	st_ddb_check_name(&e, table, "tableName", false);
	st_ddb_check_int(&e, has_limit, limit, "limit", 1, INT64CONST(0x7fffffff));
	check_length(&e, start, "exclusiveStartStreamArn", 37, 1024);
	st_ddb_errors_raise(&e);
	if (limit > 100)
		validation("One or more parameter values were invalid: Limit cannot be greater than the maximum allowed size: 100");

	/* every stream the caller may read, newest first; an unknown start: from the first */
	streams = st_streams_of(InvalidOid);
	started = true;
	if (start)
	{
		foreach(lc, streams)
			if (strcmp(((StStream *) lfirst(lc))->arn, start) == 0)
				started = false;
	}

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	st_push_key(&st, "Streams");
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	foreach(lc, streams)
	{
		StStream   *s = lfirst(lc);

		CHECK_FOR_INTERRUPTS();
		if (!started)
		{
			started = strcmp(s->arn, start) == 0;
			continue;
		}
		if (table && strcmp(s->table_name, table) != 0)
			continue;
		if (n == limit)
		{
			more = true;
			break;
		}
		pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		st_push_string(&st, "StreamArn", s->arn);
		st_push_string(&st, "TableName", s->table_name);
		st_push_string(&st, "StreamLabel", s->label);
		pushJsonbValue(&st, WJB_END_OBJECT, NULL);
		last = s;
		n++;
	}
	pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	if (more && last)
		st_push_string(&st, "LastEvaluatedStreamArn", last->arn);
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

/* ------------------------------------------------------------ DescribeStream */

Jsonb *
st_ddb_describe_stream(StDdbCall *call)
{
	StDdbErrors e;
	char	   *arn = st_ddb_string(call, "StreamArn");
	char	   *start = st_ddb_string(call, "ExclusiveStartShardId");
	int64		limit = 100;
	bool		has_limit = st_ddb_int(call, "Limit", &limit);
	StStream	s;
	List	   *shards;
	ListCell   *lc;
	JsonbParseState *st = NULL;
	bool		started = start == NULL;
	int			n = 0;
	StStreamShard *last = NULL;
	bool		more = false;

	st_ddb_errors_init(&e);
	check_required(&e, arn, "streamArn");
	check_length(&e, arn, "streamArn", 37, 1024);
	st_ddb_check_int(&e, has_limit, limit, "limit", 1, INT64CONST(0x7fffffff));
	check_length(&e, start, "exclusiveStartShardId", 28, 65);
	st_ddb_errors_raise(&e);
	if (limit > 100)
		validation("One or more parameter values were invalid: Limit cannot be greater than the maximum: 100");

	stream_or_error(arn, &s);
	shards = st_stream_shards(s.stream_id);

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	st_push_key(&st, "StreamDescription");
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	st_push_string(&st, "StreamArn", s.arn);
	st_push_string(&st, "StreamLabel", s.label);
	st_push_string(&st, "StreamStatus", s.status);
	st_push_string(&st, "StreamViewType", st_stream_view_name(s.view));
	push_epoch(&st, "CreationRequestDateTime", s.enabled_at);
	st_push_string(&st, "TableName", s.table_name);
	push_key_schema(&st, &s.keys);
	st_push_key(&st, "Shards");
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	foreach(lc, shards)
	{
		StStreamShard *sh = lfirst(lc);

		CHECK_FOR_INTERRUPTS();
		if (!started)
		{
			/* shard ids sort in creation order: an unknown start begins after it */
			started = strcmp(sh->shard_id, start) >= 0;
			if (strcmp(sh->shard_id, start) <= 0)
				continue;
		}
		if (n == limit)
		{
			more = true;
			break;
		}
		pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		st_push_string(&st, "ShardId", sh->shard_id);
		st_push_key(&st, "SequenceNumberRange");
		pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		st_push_string(&st, "StartingSequenceNumber", st_stream_seq_text(sh->starting_seq));
		if (sh->ending_seq != 0)
			st_push_string(&st, "EndingSequenceNumber", st_stream_seq_text(sh->ending_seq));
		pushJsonbValue(&st, WJB_END_OBJECT, NULL);
		if (sh->parent_shard_id)
			st_push_string(&st, "ParentShardId", sh->parent_shard_id);
		pushJsonbValue(&st, WJB_END_OBJECT, NULL);
		last = sh;
		n++;
	}
	pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	if (more && last)
		st_push_string(&st, "LastEvaluatedShardId", last->shard_id);
	pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

/* ------------------------------------------------------------ shard iterators */

/*
 * A shard iterator: "<stream ARN>|1|<base64 of v1|stream_id|shard_id|after_seq|issued_ms>",
 * the shape of DynamoDB's own (the stream's ARN, a version, an opaque
 * part). It holds a position, not a right: each GetRecords reads the stream
 * through ops/streams.h, which checks the caller's SELECT on its table, so
 * a forged iterator reads nothing its bearer could not read otherwise.
 */
typedef struct ShardIterator
{
	char	   *arn;
	int32		stream_id;
	char	   *shard_id;
	int64		after_seq;
	int64		issued_ms;
} ShardIterator;

static char *
iterator_text(const ShardIterator *it)
{
	char	   *payload = psprintf("v1|%d|%s|" INT64_FORMAT "|" INT64_FORMAT,
								   it->stream_id, it->shard_id, it->after_seq, it->issued_ms);
	int			len;
	char	   *b64 = st_base64_encode(payload, strlen(payload), &len);

	return psprintf("%s|" ITERATOR_VERSION "|%.*s", it->arn, len, b64);
}

static void
invalid_iterator(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid DynamoDB Streams shard iterator"),
			 st_errdetail_dynamodb("Invalid ShardIterator")));
}

static int64
parse_int64(const char *s)
{
	char	   *end;
	int64		v;

	if (s == NULL || *s == '\0')
		invalid_iterator();
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end != '\0' || errno != 0)
		invalid_iterator();
	return v;
}

/* Reads a shard iterator; a malformed one is ValidationException "Invalid ShardIterator" */
static void
iterator_parse(const char *text, ShardIterator *it)
{
	const char *bar = strrchr(text, '|');
	const char *ver;
	char	   *payload;
	int			plen;
	char	   *fields[6];
	int			nf = 0;
	char	   *p;

	if (bar == NULL || bar == text)
		invalid_iterator();
	/* "<arn>|1|" before the opaque part */
	ver = bar - 1;
	while (ver > text && *ver != '|')
		ver--;
	if (ver == text || bar - ver - 1 != (int) strlen(ITERATOR_VERSION) ||
		strncmp(ver + 1, ITERATOR_VERSION, bar - ver - 1) != 0)
		invalid_iterator();
	it->arn = pnstrdup(text, ver - text);
	if (strlen(bar + 1) == 0 || strspn(bar + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") != strlen(bar + 1))
		invalid_iterator();
	payload = st_base64_decode(bar + 1, strlen(bar + 1), &plen);
	if (payload == NULL || memchr(payload, '\0', plen) != NULL)
		invalid_iterator();
	payload = pnstrdup(payload, plen);
	for (p = payload; nf < 6;)
	{
		char	   *next = strchr(p, '|');

		fields[nf++] = p;
		if (next == NULL)
			break;
		*next = '\0';
		p = next + 1;
	}
	if (nf != 5 || strcmp(fields[0], "v1") != 0)
		invalid_iterator();
	it->stream_id = (int32) parse_int64(fields[1]);
	it->shard_id = fields[2];
	it->after_seq = parse_int64(fields[3]);
	it->issued_ms = parse_int64(fields[4]);
}

/* The sequence number of GetShardIterator: digits, else DynamoDB's message */
static int64
parse_seq(const char *s)
{
	char	   *end;
	int64		v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (strspn(s, "0123456789") != strlen(s) || *end != '\0' || errno != 0)
		validation("One or more parameter values were invalid: Invalid SequenceNumber");
	return v;
}

static void
trimmed(const char *table)
{
	ereport(ERROR,
			(errcode(ERRCODE_ST_TRIMMED_DATA),
			 errmsg("the stream position asked for in table \"%s\" is beyond the stream's retention", table),
			 errhint("singletable.stream_retention says how long records are kept."),
			 st_errdetail_dynamodb("The operation attempted to read past the oldest stream record in a shard.")));
}

Jsonb *
st_ddb_get_shard_iterator(StDdbCall *call)
{
	StDdbErrors e;
	char	   *arn = st_ddb_string(call, "StreamArn");
	char	   *shard_id = st_ddb_string(call, "ShardId");
	char	   *type = st_ddb_string(call, "ShardIteratorType");
	char	   *seq = st_ddb_string(call, "SequenceNumber");
	StStream	s;
	StStreamShard *sh;
	ShardIterator it;
	int64		trim;
	bool		with_seq;
	JsonbParseState *st = NULL;

	st_ddb_errors_init(&e);
	check_required(&e, arn, "streamArn");
	check_length(&e, arn, "streamArn", 37, 1024);
	check_required(&e, shard_id, "shardId");
	check_length(&e, shard_id, "shardId", 28, 65);
	check_required(&e, type, "shardIteratorType");
	st_ddb_check_enum(&e, type, "shardIteratorType", iterator_types, ITERATOR_TYPES_SET);
	check_length(&e, seq, "sequenceNumber", 21, 40);
	st_ddb_errors_raise(&e);
	with_seq = strcmp(type, "AT_SEQUENCE_NUMBER") == 0 || strcmp(type, "AFTER_SEQUENCE_NUMBER") == 0;
	if (with_seq && seq == NULL)
		validation("One or more parameter values were invalid: Invalid SequenceNumber");
	if (!with_seq && seq != NULL)
		validation("One or more parameter values were invalid: SequenceNumber should not be passed for this iterator type");

	stream_or_error(arn, &s);
	sh = shard_or_error(&s, shard_id);
	trim = st_stream_trim_seq(s.stream_id);

	it.arn = s.arn;
	it.stream_id = s.stream_id;
	it.shard_id = sh->shard_id;
	it.issued_ms = epoch_ms(GetCurrentTimestamp());
	if (strcmp(type, "TRIM_HORIZON") == 0)
		it.after_seq = Max(sh->starting_seq, trim) - 1;
	else if (strcmp(type, "LATEST") == 0)
	{
		/* a closed shard's latest position is its end */
		if (sh->ending_seq != 0)
			it.after_seq = sh->ending_seq;
		else
			it.after_seq = Max(st_stream_last_seq(s.stream_id), Max(sh->starting_seq, trim) - 1);
	}
	else
	{
		int64		n = parse_seq(seq);

		if (n < trim)
			trimmed(s.table_name);
		if (n < sh->starting_seq || (sh->ending_seq != 0 && n > sh->ending_seq))
			validation(psprintf("Invalid SequenceNumber: %s is not in shard %s", seq, sh->shard_id));
		it.after_seq = strcmp(type, "AT_SEQUENCE_NUMBER") == 0 ? n - 1 : n;
	}

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	st_push_string(&st, "ShardIterator", iterator_text(&it));
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

/* ------------------------------------------------------------ GetRecords */

/* A stable eventID of a record: its stream and sequence number in UUID form */
static char *
event_id(int32 stream_id, int64 seq)
{
	uint64		s = (uint64) seq;

	return psprintf("%08x-%04x-4%03x-8%03x-%012" PRIx64,
					(uint32) stream_id, (uint32) ((s >> 60) & 0xf), (uint32) ((s >> 48) & 0xfff),
					0u, (uint64) (s & UINT64CONST(0xffffffffffff)));
}

static void
push_record(JsonbParseState **st, StStream *s, StStreamRecord *r)
{
	bool		new_image = s->view == ST_STREAM_NEW_IMAGE || s->view == ST_STREAM_NEW_AND_OLD_IMAGES;
	bool		old_image = s->view == ST_STREAM_OLD_IMAGE || s->view == ST_STREAM_NEW_AND_OLD_IMAGES;

	pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
	st_push_string(st, "eventID", event_id(s->stream_id, r->seq));
	st_push_string(st, "eventName", r->event_name);
	st_push_string(st, "eventVersion", "1.1");
	st_push_string(st, "eventSource", "aws:dynamodb");
	st_push_string(st, "awsRegion", "ddblocal");
	st_push_key(st, "dynamodb");
	pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
	/* epoch seconds, as DynamoDB rounds them and the SDKs read them */
	st_push_int(st, "ApproximateCreationDateTime", floor_div(epoch_ms(r->created_at), 1000));
	if (r->keys)
		st_push_jsonb(st, "Keys", r->keys);
	if (new_image && r->new_image)
		st_push_jsonb(st, "NewImage", r->new_image);
	if (old_image && r->old_image)
		st_push_jsonb(st, "OldImage", r->old_image);
	st_push_string(st, "SequenceNumber", st_stream_seq_text(r->seq));
	st_push_int(st, "SizeBytes", r->size_bytes);
	st_push_string(st, "StreamViewType", st_stream_view_name(s->view));
	pushJsonbValue(st, WJB_END_OBJECT, NULL);
	if (r->ttl)
	{
		/*
		 * The service model's member names (Identity: PrincipalId, Type),
		 * which the SDKs read; Lambda's event documents spell them
		 * principalId and type
		 */
		st_push_key(st, "userIdentity");
		pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
		st_push_string(st, "Type", "Service");
		st_push_string(st, "PrincipalId", "dynamodb.amazonaws.com");
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(st, WJB_END_OBJECT, NULL);
}

/* An object member "key": <text> of a record written as text */
static void
text_member(StringInfo out, const char *key, const char *value, bool first)
{
	if (!first)
		appendStringInfoChar(out, ',');
	escape_json(out, key);
	appendStringInfoChar(out, ':');
	escape_json(out, value);
}

static void
text_jsonb(StringInfo out, const char *key, Jsonb *j)
{
	appendStringInfoChar(out, ',');
	escape_json(out, key);
	appendStringInfoChar(out, ':');
	(void) JsonbToCString(out, &j->root, VARSIZE(j));
}

/*
 * A record as JSON text (singletable.dynamodb_as, the gateway's call): the
 * members push_record builds, written straight into the response text,
 * the images printed from their stored jsonb, without building a jsonb of
 * the whole page first (a page of 1,000 records is most of a megabyte).
 */
static void
text_record(StringInfo out, StStream *s, StStreamRecord *r)
{
	bool		new_image = s->view == ST_STREAM_NEW_IMAGE || s->view == ST_STREAM_NEW_AND_OLD_IMAGES;
	bool		old_image = s->view == ST_STREAM_OLD_IMAGE || s->view == ST_STREAM_NEW_AND_OLD_IMAGES;

	appendStringInfoChar(out, '{');
	text_member(out, "eventID", event_id(s->stream_id, r->seq), true);
	text_member(out, "eventName", r->event_name, false);
	text_member(out, "eventVersion", "1.1", false);
	text_member(out, "eventSource", "aws:dynamodb", false);
	text_member(out, "awsRegion", "ddblocal", false);
	appendStringInfoString(out, ",\"dynamodb\":{");
	appendStringInfo(out, "\"ApproximateCreationDateTime\":" INT64_FORMAT,
					 floor_div(epoch_ms(r->created_at), 1000));
	if (r->keys)
		text_jsonb(out, "Keys", r->keys);
	if (new_image && r->new_image)
		text_jsonb(out, "NewImage", r->new_image);
	if (old_image && r->old_image)
		text_jsonb(out, "OldImage", r->old_image);
	text_member(out, "SequenceNumber", st_stream_seq_text(r->seq), false);
	appendStringInfo(out, ",\"SizeBytes\":%d", r->size_bytes);
	text_member(out, "StreamViewType", st_stream_view_name(s->view), false);
	appendStringInfoChar(out, '}');
	if (r->ttl)
		appendStringInfoString(out, ",\"userIdentity\":{\"Type\":\"Service\",\"PrincipalId\":\"dynamodb.amazonaws.com\"}");
	appendStringInfoChar(out, '}');
}

Jsonb *
st_ddb_get_records(StDdbCall *call)
{
	StDdbErrors e;
	char	   *text = st_ddb_string(call, "ShardIterator");
	int64		limit = 1000;
	bool		has_limit = st_ddb_int(call, "Limit", &limit);
	ShardIterator it;
	StStream	s;
	StStreamShard *sh;
	int64		now_ms;
	List	   *records;
	ListCell   *lc;
	int64		next_after;
	bool		at_end;
	JsonbParseState *st = NULL;

	st_ddb_errors_init(&e);
	check_required(&e, text, "shardIterator");
	check_length(&e, text, "shardIterator", 1, 2048);
	st_ddb_check_int(&e, has_limit, limit, "limit", 1, INT64CONST(0x7fffffff));
	st_ddb_errors_raise(&e);
	if (limit > 1000)
		validation("One or more parameter values were invalid: Limit should be less than or equal to 1000");

	iterator_parse(text, &it);
	now_ms = epoch_ms(GetCurrentTimestamp());
	if (now_ms - it.issued_ms > (int64) st_stream_iterator_lifetime * 1000 || it.issued_ms > now_ms + 60000)
	{
		TimestampTz issued = (TimestampTz) it.issued_ms * 1000 -
		(int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * USECS_PER_SEC;

		ereport(ERROR,
				(errcode(ERRCODE_ST_EXPIRED_ITERATOR),
				 errmsg("the shard iterator has expired"),
				 errhint("A shard iterator is valid for singletable.stream_iterator_lifetime (%d s) after GetShardIterator or GetRecords returned it.",
						 st_stream_iterator_lifetime),
				 st_errdetail_dynamodb("Iterator expired. The iterator was created at time %s while right now it's %s and the validity of the iterator is %d seconds.",
									   pstrdup(timestamptz_to_str(issued)), timestamptz_to_str(GetCurrentTimestamp()),
									   st_stream_iterator_lifetime)));
	}
	stream_or_error(it.arn, &s);
	if (s.stream_id != it.stream_id)
		invalid_iterator();
	sh = shard_or_error(&s, it.shard_id);
	if (it.after_seq + 1 < st_stream_trim_seq(s.stream_id))
		trimmed(s.table_name);

	records = st_stream_read(s.stream_id, it.after_seq, sh->ending_seq, (int) limit, GET_RECORDS_MAX_BYTES);
	next_after = it.after_seq;
	if (records != NIL)
		next_after = ((StStreamRecord *) llast(records))->seq;
	/* a closed shard read to its end has no next iterator */
	at_end = sh->ending_seq != 0 && (records == NIL || next_after >= sh->ending_seq);
	it.after_seq = next_after;
	it.issued_ms = now_ms;
	if (call->text)
	{
		/* dynamodb_as: the response's text, written directly */
		appendStringInfoString(call->text, "{\"Records\":[");
		foreach(lc, records)
		{
			CHECK_FOR_INTERRUPTS();
			if (lc != list_head(records))
				appendStringInfoChar(call->text, ',');
			text_record(call->text, &s, lfirst(lc));
		}
		appendStringInfoChar(call->text, ']');
		if (!at_end)
			text_member(call->text, "NextShardIterator", iterator_text(&it), false);
		appendStringInfoChar(call->text, '}');
		return NULL;
	}
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	st_push_key(&st, "Records");
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	foreach(lc, records)
	{
		StStreamRecord *r = lfirst(lc);

		CHECK_FOR_INTERRUPTS();
		push_record(&st, &s, r);
	}
	pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	if (!at_end)
		st_push_string(&st, "NextShardIterator", iterator_text(&it));
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}
