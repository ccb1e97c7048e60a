/*
 * stream_decode.c — the extension's logical decoding output plugin
 * (_PG_output_plugin_init): a slot created with plugin 'singletable'
 * decodes through it. It is the capture side of DynamoDB Streams.
 *
 * For each change to a relation that, in the historic snapshot of the
 * change, has a row in singletable.streams (a user catalog table) with a
 * status other than DISABLED, it writes one line:
 *
 *   C <tab> stream_id <tab> INSERT|MODIFY|REMOVE <tab> ttl 0|1 <tab> size_bytes
 *     <tab> Keys <tab> NewImage or empty <tab> OldImage or empty
 *
 * the images in wire form (AttributeValues, JSON text: no raw tab or
 * newline in it) as the stream's view type carries them, and at the commit
 * of a transaction that wrote such lines:
 *
 *   T <tab> commit LSN (decimal) <tab> commit time (TimestampTz, decimal)
 *
 * An UPDATE whose item is unchanged writes nothing (DynamoDB writes no
 * record for a write that changed nothing); so does a DELETE without the
 * old item (REPLICA IDENTITY not FULL). A transaction that logged the
 * transactional message "singletable.ttl" (the TTL sweep, ops/ttl.c) marks
 * its deletes ttl. The stream worker (bgw/stream_worker.c) collects the
 * lines in memory and stores them; pg_logical_slot_peek_changes shows them.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "fmgr.h"
#include "replication/logical.h"
#include "replication/output_plugin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "catalog/statements.h"
#include "format/attrval.h"
#include "format/size.h"
#include "ops/streams.h"

extern PGDLLEXPORT void _PG_output_plugin_init(OutputPluginCallbacks *cb);

typedef struct DecodeState
{
	MemoryContext cxt;			/* reset after each change */
	bool		ttl;			/* this transaction is the TTL sweep's */
	bool		wrote;			/* this transaction wrote a change line */
} DecodeState;

/* The stream of a relation, from singletable.streams */
typedef struct StreamInfo
{
	int32		stream_id;
	StStreamView view;
	StAttrKeys	keys;
} StreamInfo;

/* columns of singletable.streams (install script) */
#define A_STREAM_ID 1
#define A_TABLE_OID 2
#define A_VIEW_TYPE 6
#define A_STATUS 7
#define A_PK 8
#define A_PK_TYPE 9
#define A_SK 10
#define A_SK_TYPE 11

static void
decode_startup(LogicalDecodingContext *ctx, OutputPluginOptions *opt, bool is_init)
{
	DecodeState *st = MemoryContextAllocZero(ctx->context, sizeof(DecodeState));

	st->cxt = AllocSetContextCreate(ctx->context, "singletable stream decoding", ALLOCSET_DEFAULT_SIZES);
	ctx->output_plugin_private = st;
	opt->output_type = OUTPUT_PLUGIN_TEXTUAL_OUTPUT;
	opt->receive_rewrites = false;
}

static void
decode_shutdown(LogicalDecodingContext *ctx)
{
}

static void
decode_begin(LogicalDecodingContext *ctx, ReorderBufferTXN *txn)
{
	DecodeState *st = ctx->output_plugin_private;

	st->ttl = false;
	st->wrote = false;
}

static void
decode_commit(LogicalDecodingContext *ctx, ReorderBufferTXN *txn, XLogRecPtr commit_lsn)
{
	DecodeState *st = ctx->output_plugin_private;

	if (!st->wrote)
		return;
	OutputPluginPrepareWrite(ctx, true);
	appendStringInfo(ctx->out, "T\t" UINT64_FORMAT "\t" INT64_FORMAT, (uint64) commit_lsn,
					 (int64) txn->xact_time.commit_time);
	OutputPluginWrite(ctx, true);
}

static void
decode_message(LogicalDecodingContext *ctx, ReorderBufferTXN *txn, XLogRecPtr lsn, bool transactional,
			   const char *prefix, Size sz, const char *message)
{
	DecodeState *st = ctx->output_plugin_private;

	if (transactional && strcmp(prefix, "singletable.ttl") == 0)
		st->ttl = true;
}

static char *
attr_text(HeapTuple tup, TupleDesc desc, int att)
{
	bool		isnull;
	Datum		d = heap_getattr(tup, att, desc, &isnull);

	return isnull ? NULL : TextDatumGetCString(d);
}

/* The relation's stream that is not DISABLED, in the historic snapshot */
static bool
find_stream(Oid relid, StreamInfo *out)
{
	Oid			nsp = get_namespace_oid("singletable", true);
	Oid			streams;
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tup;
	bool		found = false;

	if (!OidIsValid(nsp))
		return false;
	streams = get_relname_relid("streams", nsp);
	if (!OidIsValid(streams))
		return false;
	rel = table_open(streams, AccessShareLock);
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	while ((tup = systable_getnext(scan)) != NULL)
	{
		TupleDesc	desc = RelationGetDescr(rel);
		bool		isnull;
		char	   *s;

		if (DatumGetObjectId(heap_getattr(tup, A_TABLE_OID, desc, &isnull)) != relid)
			continue;
		if (strcmp(attr_text(tup, desc, A_STATUS), "DISABLED") == 0)
			continue;
		out->stream_id = DatumGetInt32(heap_getattr(tup, A_STREAM_ID, desc, &isnull));
		out->view = (StStreamView) st_stream_view_from_name(attr_text(tup, desc, A_VIEW_TYPE));
		out->keys.pk_name = attr_text(tup, desc, A_PK);
		out->keys.pk_type = (StKeyType) attr_text(tup, desc, A_PK_TYPE)[0];
		out->keys.sk_name = attr_text(tup, desc, A_SK);
		s = attr_text(tup, desc, A_SK_TYPE);
		out->keys.sk_type = s ? (StKeyType) s[0] : ST_KEY_S;
		found = true;
		break;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/* The item column of a decoded tuple, or NULL (absent, or not in the WAL) */
static Jsonb *
tuple_item(ReorderBufferTupleBuf *buf, TupleDesc desc, int attnum)
{
	bool		isnull;
	Datum		d;

	if (buf == NULL || attnum == InvalidAttrNumber)
		return NULL;
	d = heap_getattr(&buf->tuple, attnum, desc, &isnull);
	if (isnull)
		return NULL;
	/* an unchanged TOASTed value of an UPDATE's new tuple is not in the WAL */
	if (VARATT_IS_EXTERNAL_ONDISK(DatumGetPointer(d)))
		return NULL;
	return DatumGetJsonbP(d);
}

/* DynamoDB's size of a key attribute in wire form ({"S": ...}) */
static int64
key_size(const char *name, JsonbValue *wire, StKeyType type)
{
	JsonbValue *v;
	char		t[2] = {(char) type, 0};
	int64		size = strlen(name);

	if (wire == NULL || wire->type != jbvBinary)
		return size;
	v = getKeyJsonValueFromContainer(wire->val.binary.data, t, 1, NULL);
	if (v == NULL || v->type != jbvString)
		return size;
	switch (type)
	{
		case ST_KEY_N:
			return size + st_size_number_text(v->val.string.val, v->val.string.len);
		case ST_KEY_B:
			return size + st_size_base64(v->val.string.val, v->val.string.len);
		default:
			return size + v->val.string.len;
	}
}

/* The Keys map of a wire image; adds the keys' size to *size */
static Jsonb *
wire_keys(Jsonb *wire, const StAttrKeys *keys, int64 *size)
{
	JsonbParseState *ps = NULL;
	JsonbValue	k;
	JsonbValue *v;
	JsonbValue *res;

	pushJsonbValue(&ps, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < 2; i++)
	{
		const char *name = i == 0 ? keys->pk_name : keys->sk_name;

		if (name == NULL)
			continue;
		v = getKeyJsonValueFromContainer(&wire->root, name, strlen(name), NULL);
		*size += key_size(name, v, i == 0 ? keys->pk_type : keys->sk_type);
		if (v == NULL)
			continue;
		k.type = jbvString;
		k.val.string.val = (char *) name;
		k.val.string.len = strlen(name);
		pushJsonbValue(&ps, WJB_KEY, &k);
		pushJsonbValue(&ps, WJB_VALUE, v);
	}
	res = pushJsonbValue(&ps, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(res);
}

static void
append_json(StringInfo out, Jsonb *j)
{
	appendStringInfoChar(out, '\t');
	if (j)
		(void) JsonbToCString(out, &j->root, VARSIZE(j));
}

static void
decode_change(LogicalDecodingContext *ctx, ReorderBufferTXN *txn, Relation relation,
			  ReorderBufferChange *change)
{
	DecodeState *st = ctx->output_plugin_private;
	MemoryContext old;
	StreamInfo	si;
	TupleDesc	desc = RelationGetDescr(relation);
	AttrNumber	attnum;
	Jsonb	   *newitem = NULL;
	Jsonb	   *olditem = NULL;
	const char *event;
	const char *b1;
	const char *b2;
	Jsonb	   *newwire = NULL;
	Jsonb	   *oldwire = NULL;
	Jsonb	   *keys;
	int64		size = 0;
	bool		carry_new;
	bool		carry_old;

	/* the storage's own writes, and every other table of the extension */
	if (RelationGetNamespace(relation) == get_namespace_oid("singletable", true))
		return;
	if (relation->rd_rel->relkind != RELKIND_RELATION &&
		relation->rd_rel->relkind != RELKIND_PARTITIONED_TABLE)
		return;

	old = MemoryContextSwitchTo(st->cxt);
	if (!find_stream(RelationGetRelid(relation), &si))
		goto done;
	attnum = get_attnum(RelationGetRelid(relation), ST_ITEM_COLUMN);
	switch (change->action)
	{
		case REORDER_BUFFER_CHANGE_INSERT:
			event = "INSERT";
			newitem = tuple_item(change->data.tp.newtuple, desc, attnum);
			if (newitem == NULL)
				goto done;
			break;
		case REORDER_BUFFER_CHANGE_UPDATE:
			event = "MODIFY";
			olditem = tuple_item(change->data.tp.oldtuple, desc, attnum);
			newitem = tuple_item(change->data.tp.newtuple, desc, attnum);
			if (newitem == NULL)
				newitem = olditem;
			if (newitem == NULL)
				goto done;
			if (olditem != NULL &&
				DatumGetBool(DirectFunctionCall2(jsonb_eq, JsonbPGetDatum(olditem), JsonbPGetDatum(newitem))))
				goto done;
			if (olditem == NULL)
				event = "INSERT";
			break;
		case REORDER_BUFFER_CHANGE_DELETE:
			event = "REMOVE";
			olditem = tuple_item(change->data.tp.oldtuple, desc, attnum);
			if (olditem == NULL)
				goto done;
			break;
		default:
			goto done;
	}
	carry_new = newitem != NULL && strcmp(event, "REMOVE") != 0 &&
		(si.view == ST_STREAM_NEW_IMAGE || si.view == ST_STREAM_NEW_AND_OLD_IMAGES);
	carry_old = olditem != NULL &&
		(si.view == ST_STREAM_OLD_IMAGE || si.view == ST_STREAM_NEW_AND_OLD_IMAGES);
	b1 = si.keys.pk_type == ST_KEY_B ? si.keys.pk_name : NULL;
	b2 = si.keys.sk_name && si.keys.sk_type == ST_KEY_B ? si.keys.sk_name : NULL;
	if (newitem)
		newwire = st_attrval_from_stored(newitem, &si.keys);
	if (olditem)
		oldwire = st_attrval_from_stored(olditem, &si.keys);
	keys = wire_keys(newwire ? newwire : oldwire, &si.keys, &size);
	if (carry_new)
		size += st_stored_item_size(newitem, b1, b2);
	if (carry_old)
		size += st_stored_item_size(olditem, b1, b2);

	MemoryContextSwitchTo(old);
	OutputPluginPrepareWrite(ctx, true);
	appendStringInfo(ctx->out, "C\t%d\t%s\t%d\t" INT64_FORMAT, si.stream_id, event,
					 st->ttl && strcmp(event, "REMOVE") == 0 ? 1 : 0, size);
	append_json(ctx->out, keys);
	append_json(ctx->out, carry_new ? newwire : NULL);
	append_json(ctx->out, carry_old ? oldwire : NULL);
	OutputPluginWrite(ctx, true);
	st->wrote = true;
	old = MemoryContextSwitchTo(st->cxt);
done:
	MemoryContextSwitchTo(old);
	MemoryContextReset(st->cxt);
}

void
_PG_output_plugin_init(OutputPluginCallbacks *cb)
{
	cb->startup_cb = decode_startup;
	cb->begin_cb = decode_begin;
	cb->change_cb = decode_change;
	cb->commit_cb = decode_commit;
	cb->message_cb = decode_message;
	cb->shutdown_cb = decode_shutdown;
}
