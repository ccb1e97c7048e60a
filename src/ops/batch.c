/*
 * batch.c — DynamoDB's BatchGetItem and BatchWriteItem: the operations
 * (batch.h) and their SQL functions, singletable.batch_get and
 * singletable.batch_write.
 *
 * Both read DynamoDB's RequestItems document in three passes, as DynamoDB
 * validates it: its shape (members, types, counts and the count limits:
 * nothing is looked up yet), then every table, opened with the rights the
 * call needs (checked before its lock, st_table_open), then every key and
 * item against its table (the key schema; DynamoDB's item rules through
 * st_item_prepare; duplicate keys). Only a request that passes all three
 * runs, and it runs one set-based statement per table (and kind of write),
 * never one statement per key.
 *
 * Design notes: the section on batch.c in README.md of this folder.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/resowner.h"

#include "ops/batch.h"
#include "ops/capacity.h"
#include "utils/errors.h"
#include "ops/expr_glue.h"
#include "ops/hot_keys.h"
#include "ops/item.h"
#include "format/jsonpush.h"
#include "format/jsonval.h"
#include "ops/read_internal.h"
#include "catalog/statements.h"
#include "ops/ttl.h"
#include "ops/write_internal.h"

PG_FUNCTION_INFO_V1(singletable_batch_get);
PG_FUNCTION_INFO_V1(singletable_batch_write);

/* Statement parameters: $1 the partition keys, $2 the sort keys, $3 the items */
#define BATCH_NARGS 3

/* One key of a batch: a get, or a put or delete of batch_write */
typedef struct BatchEntry
{
	int			pos;			/* in its table's list, from 0 */
	bool		is_put;
	JsonbValue	request;		/* as given: the key (get) or the write request */
	StKey		pk;
	StKey		sk;				/* unset without a sort key */
	StItem		item;			/* a put's item, checked */
	Jsonb	   *read;			/* distributed: the item read (get), or replaced (put) */
	Jsonb	   *result;			/* get: the item returned (projected), or NULL */
} BatchEntry;

/* One table of a batch */
typedef struct BatchTable
{
	JsonbValue	name;			/* as the request names it (a string) */
	text	   *name_text;
	JsonbValue	value;			/* its request: an object (get), an array (write) */
	int			nmembers;		/* get: the members of that object */
	JsonbValue *member_names;
	JsonbValue *member_values;
	JsonbValue	keys;			/* get: Keys */
	const char *projection;		/* get: ProjectionExpression, or NULL */
	JsonbValue	names;			/* get: ExpressionAttributeNames (type jbvNull: none) */
	int			consistent_read;	/* get: ConsistentRead, 1 or 0; -1: not given */
	int			n;				/* keys or write requests */
	int			nputs;
	int			ndeletes;
	StTable    *tab;
	StCapacity *cap;
	BatchEntry *entries;		/* in request order */
	BatchEntry **sorted;		/* in key order */
	StProjection *proj;
	StAttrNames *proj_attrs;
	int			done;			/* get: keys read, before the response limit */
	int			returned;		/* get: items returned */
	bool		unprocessed;	/* write: rolled back after lock_timeout */
} BatchTable;

/* A batch call */
typedef struct Batch
{
	bool		is_write;
	const char *func;			/* "batch_get" or "batch_write", for messages */
	int			ntables;
	BatchTable *tables;			/* in request order */
	StCapacity *caps;			/* one per table, in the same order */
	MemoryContext cxt;			/* the caller's: results and the response */
	int64		response_bytes; /* get: of the items returned so far */
	bool		full;			/* get: the response limit was reached */
	StTtlClock	clock;			/* get: the moment expired items are hidden at */
} Batch;

/* Where an error of one key or request happened (errcontext) */
typedef struct EntryContext
{
	const char *kind;
	int			pos;
	BatchTable *bt;
	const char *func;
} EntryContext;

/*
 * Receives the rows of a batch statement: bt's entries[0..n-1] are its
 * keys, in the statement's order.
 */
typedef struct BatchReceiver
{
	DestReceiver pub;
	Batch	   *b;
	BatchTable *bt;
	BatchEntry **entries;
	int			n;
	int			next;			/* rows received so far */
	bool		armed;			/* put: _replacing hands over replaced items */
	MemoryContext rowcxt;		/* reset after every row */
} BatchReceiver;

/* ------------------------------------------------------------ the request */

/* Whether v is an object, or an array (a container other than the root): jsonval.h */
#define is_object(v) st_jbv_is_object(v)
#define is_array(v) st_jbv_is_array(v)

/* Whether string v is name. */
static bool
is_name(const JsonbValue *v, const char *name)
{
	return v->type == jbvString && v->val.string.len == (int) strlen(name) &&
		memcmp(v->val.string.val, name, v->val.string.len) == 0;
}

/* A string value as a C string (in the current memory context). */
static char *
string_of(const JsonbValue *v)
{
	return pnstrdup(v->val.string.val, v->val.string.len);
}

/* A container value (object or array) as a Jsonb of its own (a copy). */
static Jsonb *
jsonb_of(JsonbValue *v)
{
	return JsonbValueToJsonb(v);
}

/* What JSON kind v is, for messages */
static const char *
json_kind(const JsonbValue *v)
{
	switch (v->type)
	{
		case jbvString:
			return "a string";
		case jbvNumeric:
			return "a number";
		case jbvBool:
			return "a boolean";
		case jbvNull:
			return "null";
		case jbvBinary:
			return JsonContainerIsObject(v->val.binary.data) ? "an object" : "an array";
		default:
			return "a JSON value";
	}
}

/*
 * The members of object obj: their names and values (containers as
 * jbvBinary values pointing into obj), in jsonb's order; returns how many.
 */
static int
object_members(JsonbValue *obj, JsonbValue **names, JsonbValue **values)
{
	JsonbContainer *c = obj->val.binary.data;
	int			size = JsonContainerSize(c);
	int			n = 0;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	*names = palloc(sizeof(JsonbValue) * Max(size, 1));
	*values = palloc(sizeof(JsonbValue) * Max(size, 1));
	it = JsonbIteratorInit(c);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		CHECK_FOR_INTERRUPTS();
		if (tok == WJB_KEY)
			(*names)[n] = v;
		else if (tok == WJB_VALUE)
			(*values)[n++] = v;
	}
	return n;
}

/* The elements of array arr (containers as jbvBinary values); returns how many. */
static int
array_elements(JsonbValue *arr, JsonbValue **elems)
{
	JsonbContainer *c = arr->val.binary.data;
	int			n = 0;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	*elems = palloc(sizeof(JsonbValue) * Max(JsonContainerSize(c), 1));
	it = JsonbIteratorInit(c);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		CHECK_FOR_INTERRUPTS();
		if (tok == WJB_ELEM)
			(*elems)[n++] = v;
	}
	return n;
}

/* The value of member name of object obj, or NULL (into *buf). */
static JsonbValue *
member(JsonbValue *obj, const char *name, JsonbValue *buf)
{
	return getKeyJsonValueFromContainer(obj->val.binary.data, name, strlen(name), buf);
}

/* errcontext of one key or request of a table */
static void
entry_context(void *arg)
{
	EntryContext *c = (EntryContext *) arg;

	if (c->kind == NULL)
		errcontext("the request of table \"%.*s\" in %s",
				   c->bt->name.val.string.len, c->bt->name.val.string.val, c->func);
	else
		errcontext("%s %d of table \"%.*s\" in %s", c->kind, c->pos + 1,
				   c->bt->name.val.string.len, c->bt->name.val.string.val, c->func);
}

/*
 * Checks the top of request_items: an object naming at least one table;
 * returns its members as the batch's tables.
 */
static void
read_tables(Batch *b, Jsonb *request_items)
{
	JsonbValue	root;
	JsonbValue *names;
	JsonbValue *values;

	if (!JB_ROOT_IS_OBJECT(request_items) || JB_ROOT_IS_SCALAR(request_items))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("request_items of %s must be a JSON object mapping table names to their requests",
						b->func),
				 b->is_write
				 ? errhint("Write {\"table\": [{\"PutRequest\": {\"Item\": {...}}}, {\"DeleteRequest\": {\"Key\": {...}}}]}.")
				 : errhint("Write {\"table\": {\"Keys\": [{...}, ...]}}.")));
	st_jbv_jsonb(&root, request_items);
	/* every table has a key or request at least: more tables than the limit are too many */
	if ((int) JB_ROOT_COUNT(request_items) > (b->is_write ? ST_BATCH_WRITE_MAX_REQUESTS : ST_BATCH_GET_MAX_KEYS))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("request_items of %s names %u tables, more than the limit of %d %s in all",
						b->func, JB_ROOT_COUNT(request_items),
						b->is_write ? ST_BATCH_WRITE_MAX_REQUESTS : ST_BATCH_GET_MAX_KEYS,
						b->is_write ? "write requests" : "keys"),
				 b->is_write
				 ? st_errdetail_dynamodb("Too many items requested for the BatchWriteItem call")
				 : st_errdetail_dynamodb("Too many items requested for the BatchGetItem call")));
	b->ntables = object_members(&root, &names, &values);
	if (b->ntables == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("request_items of %s names no table", b->func),
				 b->is_write
				 ? st_errdetail_dynamodb("BatchWriteItem cannot have a null or no requests set")
				 : st_errdetail_dynamodb("BatchGetItem must have some requests set")));
	b->tables = palloc0(sizeof(BatchTable) * b->ntables);
	for (int i = 0; i < b->ntables; i++)
	{
		BatchTable *bt = &b->tables[i];

		bt->name = names[i];
		bt->name_text = cstring_to_text_with_len(names[i].val.string.val, names[i].val.string.len);
		bt->value = values[i];
		bt->names.type = jbvNull;
		bt->consistent_read = -1;
	}
}

/* The error of a table's request that is not what batch_get takes */
static void
get_shape_error(BatchTable *bt, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("the request of table \"%s\" in batch_get %s", text_to_cstring(bt->name_text), what),
			 errhint("A table's request is {\"Keys\": [...]} with optional \"ProjectionExpression\", \"ExpressionAttributeNames\" and \"ConsistentRead\".")));
}

/*
 * Checks the shape of batch_get's request (each table's object, its
 * members and their types) and the limit on keys, before any table is
 * looked up.
 */
static void
read_get_request(Batch *b, Jsonb *request_items)
{
	int			nkeys = 0;

	read_tables(b, request_items);
	for (int i = 0; i < b->ntables; i++)
	{
		BatchTable *bt = &b->tables[i];
		bool		has_keys = false;

		if (!is_object(&bt->value))
			get_shape_error(bt, psprintf("must be a JSON object, not %s", json_kind(&bt->value)));
		bt->nmembers = object_members(&bt->value, &bt->member_names, &bt->member_values);
		for (int m = 0; m < bt->nmembers; m++)
		{
			JsonbValue *k = &bt->member_names[m];
			JsonbValue *v = &bt->member_values[m];

			if (is_name(k, "Keys"))
			{
				if (!is_array(v))
					get_shape_error(bt, psprintf("has Keys that are %s, not an array of keys", json_kind(v)));
				bt->keys = *v;
				bt->n = JsonContainerSize(v->val.binary.data);
				has_keys = true;
			}
			else if (is_name(k, "ProjectionExpression"))
			{
				if (v->type != jbvString)
					get_shape_error(bt, psprintf("has a ProjectionExpression that is %s, not a string", json_kind(v)));
				bt->projection = string_of(v);
			}
			else if (is_name(k, "ExpressionAttributeNames"))
			{
				if (!is_object(v))
					get_shape_error(bt, psprintf("has ExpressionAttributeNames that are %s, not an object", json_kind(v)));
				bt->names = *v;
			}
			else if (is_name(k, "ConsistentRead"))
			{
				if (v->type != jbvBool)
					get_shape_error(bt, psprintf("has a ConsistentRead that is %s, not true or false", json_kind(v)));
				bt->consistent_read = v->val.boolean ? 1 : 0;
			}
			else
				get_shape_error(bt, psprintf("has an unknown member \"%s\"", string_of(k)));
		}
		if (!has_keys)
			get_shape_error(bt, "has no Keys");
		if (bt->n == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the Keys of table \"%s\" in batch_get are empty", text_to_cstring(bt->name_text)),
					 st_errdetail_dynamodb("The list of keys in RequestItems for BatchGetItem is required: %s has empty list",
										   text_to_cstring(bt->name_text))));
		nkeys += bt->n;
	}
	if (nkeys > ST_BATCH_GET_MAX_KEYS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("batch_get requests %d keys, more than the limit of %d", nkeys, ST_BATCH_GET_MAX_KEYS),
				 st_errdetail_dynamodb("Too many items requested for the BatchGetItem call")));
}

/* The error of a write request that is not what batch_write takes */
static void
write_shape_error(BatchTable *bt, int pos, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("write request %d of table \"%s\" in batch_write %s", pos + 1,
					text_to_cstring(bt->name_text), what),
			 errhint("A write request is {\"PutRequest\": {\"Item\": {...}}} or {\"DeleteRequest\": {\"Key\": {...}}}.")));
}

/*
 * Checks the shape of batch_write's request (each table's array of write
 * requests, each a PutRequest with an Item or a DeleteRequest with a Key)
 * and the limit on requests, before any table is looked up.
 */
static void
read_write_request(Batch *b, Jsonb *request_items)
{
	int			nrequests = 0;

	read_tables(b, request_items);
	for (int i = 0; i < b->ntables; i++)
	{
		BatchTable *bt = &b->tables[i];

		if (!is_array(&bt->value))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the requests of table \"%s\" in batch_write must be a JSON array, not %s",
							text_to_cstring(bt->name_text), json_kind(&bt->value)),
					 errhint("Write {\"table\": [{\"PutRequest\": {\"Item\": {...}}}, {\"DeleteRequest\": {\"Key\": {...}}}]}.")));
		bt->n = JsonContainerSize(bt->value.val.binary.data);
		if (bt->n == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the requests of table \"%s\" in batch_write are empty", text_to_cstring(bt->name_text)),
					 st_errdetail_dynamodb("The batch write request list for a table cannot be null or empty: %s",
										   text_to_cstring(bt->name_text))));
		nrequests += bt->n;
	}
	if (nrequests > ST_BATCH_WRITE_MAX_REQUESTS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("batch_write has %d write requests, more than the limit of %d",
						nrequests, ST_BATCH_WRITE_MAX_REQUESTS),
				 st_errdetail_dynamodb("Too many items requested for the BatchWriteItem call")));

	for (int i = 0; i < b->ntables; i++)
	{
		BatchTable *bt = &b->tables[i];
		JsonbValue *elems;

		(void) array_elements(&bt->value, &elems);
		bt->entries = palloc0(sizeof(BatchEntry) * bt->n);
		for (int j = 0; j < bt->n; j++)
		{
			BatchEntry *e = &bt->entries[j];
			JsonbValue *names;
			JsonbValue *values;
			JsonbValue *inner_names;
			JsonbValue *inner_values;
			int			n;

			e->pos = j;
			e->request = elems[j];
			if (!is_object(&elems[j]))
				write_shape_error(bt, j, psprintf("must be a JSON object, not %s", json_kind(&elems[j])));
			n = object_members(&elems[j], &names, &values);
			for (int m = 0; m < n; m++)
				if (!is_name(&names[m], "PutRequest") && !is_name(&names[m], "DeleteRequest"))
					write_shape_error(bt, j, psprintf("has an unknown member \"%s\"", string_of(&names[m])));
			if (n != 1)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("write request %d of table \"%s\" in batch_write must have exactly one member, PutRequest or DeleteRequest",
								j + 1, text_to_cstring(bt->name_text)),
						 st_errdetail_dynamodb("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")));
			e->is_put = is_name(&names[0], "PutRequest");
			if (!is_object(&values[0]))
				write_shape_error(bt, j, psprintf("has a %s that is %s, not an object",
												  e->is_put ? "PutRequest" : "DeleteRequest", json_kind(&values[0])));
			n = object_members(&values[0], &inner_names, &inner_values);
			/* no conditions, no return values: DynamoDB's WriteRequest has nothing else */
			for (int m = 0; m < n; m++)
				if (!is_name(&inner_names[m], e->is_put ? "Item" : "Key"))
					write_shape_error(bt, j, psprintf("has a %s with an unknown member \"%s\"",
													  e->is_put ? "PutRequest" : "DeleteRequest",
													  string_of(&inner_names[m])));
			if (n == 0)
				write_shape_error(bt, j, e->is_put ? "has a PutRequest without an Item"
								  : "has a DeleteRequest without a Key");
			if (!is_object(&inner_values[0]))
				write_shape_error(bt, j, psprintf("has %s that is %s, not an object",
												  e->is_put ? "an Item" : "a Key", json_kind(&inner_values[0])));
			if (e->is_put)
				bt->nputs++;
			else
				bt->ndeletes++;
		}
	}
}

/*
 * Opens every table with the rights it needs (checked before its lock) and
 * refuses a table named twice (under two spellings of its name).
 */
static void
open_tables(Batch *b)
{
	Oid		   *relids = palloc(sizeof(Oid) * b->ntables);
	int		   *order = palloc(sizeof(int) * b->ntables);

	for (int i = 0; i < b->ntables; i++)
	{
		BatchTable *bt = &b->tables[i];
		AclMode		rights = ACL_SELECT;
		LOCKMODE	lockmode = AccessShareLock;

		CHECK_FOR_INTERRUPTS();
		if (b->is_write)
		{
			/* as put_item and delete_item: an upsert and a delete read the key columns */
			rights = ACL_SELECT | (bt->nputs ? ACL_INSERT | ACL_UPDATE : 0) | (bt->ndeletes ? ACL_DELETE : 0);
			lockmode = RowExclusiveLock;
		}
		bt->tab = st_table_open(bt->name_text, lockmode, rights);
		relids[i] = bt->tab->relid;
		order[i] = i;
	}
	/* by OID (also the order batch_write writes in), then a table named twice is adjacent */
	for (int i = 1; i < b->ntables; i++)
	{
		int			j = i;
		int			o = order[i];

		/* insertion sort: tables are at most as many as keys, 100 */
		while (j > 0 && relids[order[j - 1]] > relids[o])
		{
			order[j] = order[j - 1];
			j--;
		}
		order[j] = o;
	}
	for (int i = 1; i < b->ntables; i++)
		if (relids[order[i]] == relids[order[i - 1]])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("request_items of %s names table \"%s\" twice, as \"%s\" and \"%s\"",
							b->func, b->tables[order[i]].tab->relname,
							text_to_cstring(b->tables[Min(order[i], order[i - 1])].name_text),
							text_to_cstring(b->tables[Max(order[i], order[i - 1])].name_text)),
					 errhint("Name each table once, with all its requests.")));
	b->caps = palloc(sizeof(StCapacity) * b->ntables);
	for (int i = 0; i < b->ntables; i++)
	{
		BatchTable *bt = &b->tables[i];

		bt->cap = &b->caps[i];
		st_capacity_begin(bt->cap, bt->tab, b->is_write ? ST_STAT_BATCH_WRITE_ITEM : ST_STAT_BATCH_GET_ITEM);
		if (!b->is_write)
			/* DynamoDB's default: eventually consistent unless ConsistentRead is true */
			st_capacity_set_consistency(bt->cap, bt->consistent_read == 1);
	}
}

/* The hint of a key that does not match the schema */
static int
key_hint(StTable *tab)
{
	if (tab->sk_name)
		return errhint("A key is an object with exactly the key attributes \"%s\" and \"%s\".",
					   tab->pk_name, tab->sk_name);
	return errhint("A key is an object with exactly the key attribute \"%s\".", tab->pk_name);
}

/*
 * Whether v is a B value in the extension's form, {"$B": "base64"}, and
 * then its base64 text in *str.
 */
static bool
tagged_binary(JsonbValue *v, JsonbValue *str)
{
	JsonbValue	buf;
	JsonbValue *b;

	if (!is_object(v) || JsonContainerSize(v->val.binary.data) != 1)
		return false;
	b = member(v, ST_TAG_B, &buf);
	if (b == NULL || b->type != jbvString)
		return false;
	*str = *b;
	return true;
}

/*
 * One key attribute of a key map (a get's key or a delete's Key) as text:
 * S a string, N a number, B base64 text or {"$B": ...}; DynamoDB's error
 * for one that is missing or of another type.
 */
static StKeyText
key_attr(StTable *tab, JsonbValue *key, const char *name, StKeyType kt)
{
	JsonbValue	buf;
	JsonbValue	str;
	JsonbValue *v = member(key, name, &buf);
	StKeyText	r;

	if (v == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key for table \"%s\" lacks key attribute \"%s\"", tab->relname, name),
				 st_errdetail_dynamodb("The provided key element does not match the schema"),
				 key_hint(tab)));
	if (kt == ST_KEY_S && v->type == jbvString)
	{
		r.data = v->val.string.val;
		r.len = v->val.string.len;
	}
	else if (kt == ST_KEY_N && v->type == jbvNumeric)
	{
		r.data = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
		r.len = strlen(r.data);
	}
	else if (kt == ST_KEY_B && (v->type == jbvString || tagged_binary(v, &str)))
	{
		if (v->type != jbvString)
			v = &str;
		r.data = v->val.string.val;
		r.len = v->val.string.len;
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("key attribute \"%s\" of table \"%s\" must be of type %c, not %s",
						name, tab->relname, (char) kt, json_kind(v)),
				 st_errdetail_dynamodb("The provided key element does not match the schema"),
				 kt == ST_KEY_N ? errhint("N keys are JSON numbers in keys.") :
				 kt == ST_KEY_B ? errhint("B keys are base64 strings or {\"$B\": ...} in keys.") : 0));
	return r;
}

/*
 * Converts a key map (an object with exactly the table's key attributes) to
 * column values, with DynamoDB's errors for one that does not match the
 * schema and the key limits of st_key_from_text.
 */
static void
parse_key(StTable *tab, JsonbValue *key, StKey *pk, StKey *sk)
{
	int			nattrs = tab->sk_name ? 2 : 1;
	StKeyText	t;

	if (!is_object(key))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key for table \"%s\" must be a JSON object, not %s", tab->relname, json_kind(key)),
				 st_errdetail_dynamodb("The provided key element does not match the schema"),
				 key_hint(tab)));
	if ((int) JsonContainerSize(key->val.binary.data) != nattrs)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg_plural("key for table \"%s\" has %u attribute, but the table's key has %d",
							   "key for table \"%s\" has %u attributes, but the table's key has %d",
							   JsonContainerSize(key->val.binary.data),
							   tab->relname, JsonContainerSize(key->val.binary.data), nattrs),
				 st_errdetail_dynamodb("The provided key element does not match the schema"),
				 key_hint(tab)));
	t = key_attr(tab, key, tab->pk_name, tab->pk_type);
	st_key_from_text(tab->pk_type, t.data, t.len, tab->pk_name, tab->relname, false, pk);
	if (tab->sk_name)
	{
		t = key_attr(tab, key, tab->sk_name, tab->sk_type);
		st_key_from_text(tab->sk_type, t.data, t.len, tab->sk_name, tab->relname, true, sk);
		st_key_check_combined(pk, sk, tab->relname);
	}
}

/*
 * The key attributes of a put's item: present and of their types, with the
 * text BatchWriteItem gives for both (put_item's own texts differ).
 */
static void
check_put_key(StTable *tab, JsonbValue *item, const char *name, StKeyType kt)
{
	JsonbValue	buf;
	JsonbValue	str;
	JsonbValue *v = member(item, name, &buf);

	if (v == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("item for table \"%s\" lacks key attribute \"%s\"", tab->relname, name),
				 st_errdetail_dynamodb("The provided key element does not match the schema")));
	if (!((kt == ST_KEY_S && v->type == jbvString) || (kt == ST_KEY_N && v->type == jbvNumeric) ||
		  (kt == ST_KEY_B && (v->type == jbvString || tagged_binary(v, &str)))))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("key attribute \"%s\" of table \"%s\" must be of type %c, not %s",
						name, tab->relname, (char) kt, json_kind(v)),
				 st_errdetail_dynamodb("The provided key element does not match the schema"),
				 kt == ST_KEY_N ? errhint("N keys are JSON numbers in items.") :
				 kt == ST_KEY_B ? errhint("B keys are base64 JSON strings in items.") : 0));
}

/* Orders entries by key (qsort_arg comparator; arg: the table). */
static int
entry_cmp(const void *a, const void *b, void *arg)
{
	StTable    *tab = (StTable *) arg;
	const BatchEntry *x = *(BatchEntry *const *) a;
	const BatchEntry *y = *(BatchEntry *const *) b;
	int			c = st_key_compare(tab->pk_type, x->pk.datum, y->pk.datum);

	if (c == 0 && tab->sk_name)
		c = st_key_compare(tab->sk_type, x->sk.datum, y->sk.datum);
	return c;
}

/*
 * Sorts a table's entries by key into bt->sorted and refuses a key named
 * twice (a get twice, two puts, a put and a delete).
 */
static void
sort_entries(Batch *b, BatchTable *bt)
{
	bt->sorted = palloc(sizeof(BatchEntry *) * bt->n);
	for (int i = 0; i < bt->n; i++)
		bt->sorted[i] = &bt->entries[i];
	/* at most 100 keys (checked before) */
	qsort_arg(bt->sorted, bt->n, sizeof(BatchEntry *), entry_cmp, bt->tab);
	for (int i = 1; i < bt->n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (entry_cmp(&bt->sorted[i - 1], &bt->sorted[i], bt->tab) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s %d and %d of table \"%s\" in %s are the same key",
							b->is_write ? "write requests" : "keys",
							Min(bt->sorted[i - 1]->pos, bt->sorted[i]->pos) + 1,
							Max(bt->sorted[i - 1]->pos, bt->sorted[i]->pos) + 1,
							bt->tab->relname, b->func),
					 st_errdetail_dynamodb("Provided list of item keys contains duplicates")));
	}
}

/*
 * Checks batch_get's keys and projection against each table (the tables
 * are open), and its duplicates.
 */
static void
check_get_keys(Batch *b)
{
	for (int i = 0; i < b->ntables; i++)
	{
		BatchTable *bt = &b->tables[i];
		JsonbValue *keys;
		ErrorContextCallback errcb;
		EntryContext ctx = {NULL, 0, bt, b->func};

		errcb.callback = entry_context;
		errcb.arg = &ctx;
		errcb.previous = error_context_stack;
		error_context_stack = &errcb;
		if (bt->projection == NULL && bt->names.type != jbvNull)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the request of table \"%s\" in batch_get has ExpressionAttributeNames but no ProjectionExpression",
							text_to_cstring(bt->name_text)),
					 st_errdetail_dynamodb("ExpressionAttributeNames can only be specified when using expressions")));
		if (bt->projection)
		{
			StExprEnv  *env = st_env_build(bt->tab, bt->names.type == jbvNull ? NULL : jsonb_of(&bt->names),
										   NULL);

			bt->proj = st_parse_projection(bt->projection, env);
			st_expr_check_unused(env);
			bt->proj_attrs = st_attr_names(NULL, bt->proj);
		}
		(void) array_elements(&bt->keys, &keys);
		bt->entries = palloc0(sizeof(BatchEntry) * bt->n);
		ctx.kind = "key";
		for (int j = 0; j < bt->n; j++)
		{
			BatchEntry *e = &bt->entries[j];

			CHECK_FOR_INTERRUPTS();
			ctx.pos = j;
			e->pos = j;
			e->request = keys[j];
			parse_key(bt->tab, &keys[j], &e->pk, &e->sk);
		}
		error_context_stack = errcb.previous;
		sort_entries(b, bt);
	}
}

/*
 * Checks batch_write's keys and items against each table (the tables are
 * open): a put's item by DynamoDB's rules (st_item_prepare: keys, sizes,
 * index keys), a delete's key by the key schema; and duplicates.
 */
static void
check_write_requests(Batch *b)
{
	for (int i = 0; i < b->ntables; i++)
	{
		BatchTable *bt = &b->tables[i];
		ErrorContextCallback errcb;
		EntryContext ctx = {NULL, 0, bt, b->func};

		errcb.callback = entry_context;
		errcb.arg = &ctx;
		errcb.previous = error_context_stack;
		error_context_stack = &errcb;
		for (int j = 0; j < bt->n; j++)
		{
			BatchEntry *e = &bt->entries[j];
			JsonbValue	buf;
			JsonbValue	inner_buf;
			JsonbValue *inner;
			JsonbValue *v;

			CHECK_FOR_INTERRUPTS();
			ctx.pos = j;
			ctx.kind = e->is_put ? "PutRequest" : "DeleteRequest";
			inner = member(&e->request, e->is_put ? "PutRequest" : "DeleteRequest", &inner_buf);
			Assert(inner != NULL);
			v = member(inner, e->is_put ? "Item" : "Key", &buf);
			Assert(v != NULL && is_object(v));
			if (e->is_put)
			{
				check_put_key(bt->tab, v, bt->tab->pk_name, bt->tab->pk_type);
				if (bt->tab->sk_name)
					check_put_key(bt->tab, v, bt->tab->sk_name, bt->tab->sk_type);
				st_item_prepare(bt->tab, jsonb_of(v), &e->item);
				e->pk = e->item.pk;
				e->sk = e->item.sk;
			}
			else
				parse_key(bt->tab, v, &e->pk, &e->sk);
		}
		error_context_stack = errcb.previous;
		sort_entries(b, bt);
	}
}

/* -------------------------------------------------------------- statements */

/* The array type of a key type's column */
static Oid
key_array_type(StKeyType t)
{
	switch (t)
	{
		case ST_KEY_S:
			return TEXTARRAYOID;
		case ST_KEY_N:
			return NUMERICARRAYOID;
		case ST_KEY_B:
			return BYTEAARRAYOID;
	}
	return InvalidOid;
}

/* Parameter types: $1 pk[], $2 sk[] (text[] without a sort key), $3 jsonb[]. */
static void
batch_argtypes(StTable *tab, Oid *argtypes)
{
	argtypes[0] = key_array_type(tab->pk_type);
	argtypes[1] = tab->sk_name ? key_array_type(tab->sk_type) : TEXTARRAYOID;
	argtypes[2] = JSONBARRAYOID;
}

/*
 * The SQL of batch statement kind on tab; distributed: as Citus runs it
 * over several shards (see the top of this file). Names are quoted,
 * operators and functions schema-qualified.
 */
static char *
batch_sql(StTable *tab, StBatchPlanKind kind, bool distributed)
{
	StringInfoData buf;
	const char *pk = quote_identifier(tab->pk_name);
	const char *sk = tab->sk_name ? quote_identifier(tab->sk_name) : NULL;
	const char *keys = sk ? "ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2))"
		: "ROWS FROM (pg_catalog.unnest($1))";
	const char *cols = sk ? "k(pk, sk" : "k(pk";
	char	   *match = psprintf("t.%s OPERATOR(pg_catalog.=) k.pk%s%s%s", pk,
								 sk ? " AND t." : "", sk ? sk : "",
								 sk ? " OPERATOR(pg_catalog.=) k.sk" : "");
	char	   *prune = psprintf(" AND t.%s OPERATOR(pg_catalog.=) ANY ($1)", pk);

	initStringInfo(&buf);
	switch (kind)
	{
		case ST_BATCH_GET:
			/* one index probe per key, in the keys' order (see the top of this file) */
			if (distributed)
				appendStringInfo(&buf, "SELECT k.ord, t." ST_ITEM_COLUMN " FROM %s t JOIN %s WITH ORDINALITY AS %s, ord)"
								 " ON %s WHERE TRUE%s",
								 tab->qualname, keys, cols, match, prune);
			else
				appendStringInfo(&buf, "SELECT k.ord, (SELECT t." ST_ITEM_COLUMN " FROM %s t WHERE %s)"
								 " FROM %s WITH ORDINALITY AS %s, ord)",
								 tab->qualname, match, keys, cols);
			break;
		case ST_BATCH_LOCK:
			/* a LATERAL subquery with FOR UPDATE is not flattened: a probe per key, in order */
			Assert(!distributed);
			appendStringInfo(&buf, "SELECT 1 FROM %s AS %s), LATERAL (SELECT 1 FROM %s t WHERE %s FOR UPDATE OF t) l",
							 keys, cols, tab->qualname, match);
			break;
		case ST_BATCH_PUT:
			appendStringInfo(&buf, "INSERT INTO %s AS st_old (%s%s%s, " ST_ITEM_COLUMN ") SELECT k.pk%s, k.item"
							 " FROM ROWS FROM (pg_catalog.unnest($1)%s, pg_catalog.unnest($3)) AS %s, item)"
							 " ON CONFLICT (%s%s%s) DO UPDATE SET " ST_ITEM_COLUMN " = ",
							 tab->qualname, pk, sk ? ", " : "", sk ? sk : "", sk ? ", k.sk" : "",
							 sk ? ", pg_catalog.unnest($2)" : "", cols, pk, sk ? ", " : "", sk ? sk : "");
			/* the replaced item goes to the capacity arithmetic (capacity.c), row by row */
			if (!distributed && st_have_replacing())
				appendStringInfoString(&buf, "singletable._replacing(st_old." ST_ITEM_COLUMN ", EXCLUDED." ST_ITEM_COLUMN ")");
			else
				appendStringInfoString(&buf, "EXCLUDED." ST_ITEM_COLUMN);
			if (!distributed)
				appendStringInfo(&buf, " RETURNING %s%s%s", pk, sk ? ", " : "", sk ? sk : "");
			break;
		case ST_BATCH_DELETE:
			appendStringInfo(&buf, "DELETE FROM %s AS t USING %s AS %s) WHERE %s%s RETURNING t." ST_ITEM_COLUMN,
							 tab->qualname, keys, cols, match, distributed ? prune : "");
			break;
		default:
			elog(ERROR, "unknown batch statement %d", kind);
	}
	pfree(match);
	pfree(prune);
	return buf.data;
}

/* The kept statement kind of tab, prepared on first use (statements.c frees it). */
static SPIPlanPtr
batch_plan(StTable *tab, StBatchPlanKind kind)
{
	Assert(kind >= 0 && kind < ST_NUM_BATCH_PLANS);
	if (tab->batch_plans[kind] == NULL)
	{
		Oid			argtypes[BATCH_NARGS];
		char	   *sql = batch_sql(tab, kind, false);
		SPIPlanPtr	plan;

		batch_argtypes(tab, argtypes);
		plan = SPI_prepare(sql, BATCH_NARGS, argtypes);
		if (plan == NULL)
			elog(ERROR, "SPI_prepare failed for \"%s\": %s", sql, SPI_result_code_string(SPI_result));
		if (SPI_keepplan(plan) != 0)
			elog(ERROR, "SPI_keepplan failed");
		tab->batch_plans[kind] = plan;
		pfree(sql);
	}
	return tab->batch_plans[kind];
}

/* An array of the keys (sk: the sort keys, else the partition keys) of entries. */
static Datum
key_array(StTable *tab, BatchEntry **entries, int n, bool sk)
{
	Datum	   *d = palloc(sizeof(Datum) * n);
	StKeyType	t = sk ? tab->sk_type : tab->pk_type;

	for (int i = 0; i < n; i++)
		d[i] = sk ? entries[i]->sk.datum : entries[i]->pk.datum;
	return PointerGetDatum(construct_array(d, n, st_key_type_oid(t), -1, false, TYPALIGN_INT));
}

/* An array of the items of puts entries. */
static Datum
item_array(BatchEntry **entries, int n)
{
	Datum	   *d = palloc(sizeof(Datum) * n);

	for (int i = 0; i < n; i++)
		d[i] = JsonbPGetDatum(entries[i]->item.jsonb);
	return PointerGetDatum(construct_array(d, n, JSONBOID, -1, false, TYPALIGN_INT));
}

/*
 * Runs batch statement kind of bt over the keys (and with items, the
 * items) of entries[0..n-1], rows into dest. A constraint's error is raised
 * without the failing row, the whole item, as for single writes
 * (st_write_rethrow_hiding_row).
 */
static void
run_statement(BatchTable *bt, StBatchPlanKind kind, BatchEntry **entries, int n, bool with_items,
			  DestReceiver *dest, bool read_only)
{
	StTable    *tab = bt->tab;
	Datum		values[BATCH_NARGS];
	char		nulls[BATCH_NARGS] = {' ', 'n', 'n'};
	Oid			argtypes[BATCH_NARGS];
	SPIExecuteOptions options;
	MemoryContext cxt = CurrentMemoryContext;
	volatile int rc = 0;

	values[0] = key_array(tab, entries, n, false);
	values[1] = values[2] = (Datum) 0;
	if (tab->sk_name)
	{
		values[1] = key_array(tab, entries, n, true);
		nulls[1] = ' ';
	}
	if (with_items)
	{
		values[2] = item_array(entries, n);
		nulls[2] = ' ';
	}
	batch_argtypes(tab, argtypes);
	memset(&options, 0, sizeof(options));
	options.params = st_param_list(BATCH_NARGS, values, nulls, argtypes);
	options.read_only = read_only;
	options.dest = dest;
	PG_TRY();
	{
		if (tab->distributed)
			rc = SPI_execute_extended(batch_sql(tab, kind, true), &options);
		else
			rc = SPI_execute_plan_extended(batch_plan(tab, kind), &options);
	}
	PG_CATCH();
	{
		st_write_rethrow_hiding_row(cxt);
	}
	PG_END_TRY();
	if (rc < 0)
		elog(ERROR, "singletable batch statement failed: %s", SPI_result_code_string(rc));
}

/* A receiver's startup that has nothing to set up. */
static void
receiver_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

/* A receiver's shutdown or destroy that has nothing to release. */
static void
receiver_noop(DestReceiver *self)
{
}

/* Sets up r for the rows of a statement over entries[0..n-1] of bt. */
static void
receiver_init(BatchReceiver *r, Batch *b, BatchTable *bt, BatchEntry **entries, int n,
			  bool (*receive) (TupleTableSlot *slot, DestReceiver *self))
{
	memset(r, 0, sizeof(*r));
	st_dest_init(&r->pub, receive);
	r->pub.rStartup = receiver_startup;
	r->pub.rShutdown = receiver_noop;
	r->pub.rDestroy = receiver_noop;
	r->b = b;
	r->bt = bt;
	r->entries = entries;
	r->n = n;
	r->rowcxt = AllocSetContextCreate(CurrentMemoryContext, "singletable batch rows",
									  ALLOCSET_DEFAULT_SIZES);
}

/* A copy of jsonb j in the batch's (the caller's) memory */
static Jsonb *
copy_out(Batch *b, Jsonb *j)
{
	Jsonb	   *copy = MemoryContextAlloc(b->cxt, VARSIZE(j));

	memcpy(copy, j, VARSIZE(j));
	return copy;
}

/* The position (0-based) of a row's key from its ordinality, checked. */
static int
row_position(BatchReceiver *r, TupleTableSlot *slot)
{
	bool		isnull;
	int64		ord = DatumGetInt64(slot_getattr(slot, 1, &isnull));

	if (isnull || ord < 1 || ord > r->n)
		elog(ERROR, "singletable batch statement returned a row of key " INT64_FORMAT " of %d",
			 isnull ? 0 : ord, r->n);
	return (int) ord - 1;
}

/* ------------------------------------------------------------------- reads */

/*
 * Takes the item read for key e of table bt (stored form; NULL: none): the
 * next key in request order. Returns false when it does not fit in the
 * response (16 MB of items): the batch is full, e and every later key are
 * unprocessed. Otherwise charges it as a GetItem and keeps it for the
 * response unless its TTL has expired.
 */
static bool
take_item(Batch *b, BatchTable *bt, BatchEntry *e, Jsonb *stored)
{
	StTable    *tab = bt->tab;
	Jsonb	   *item = stored;
	int64		bytes = 0;

	if (item && tab->ttl_attr && st_ttl_item_expired(tab, item, &b->clock))
		item = NULL;			/* expired but not swept yet: as good as deleted, as in get_item */
	if (item && bt->proj)
		item = DatumGetJsonbP(st_project_item(tab, bt->proj, bt->proj_attrs, item));
	if (item)
		bytes = st_capacity_item_size(tab, item);
	if (b->response_bytes + bytes > ST_BATCH_GET_MAX_RESPONSE_BYTES)
	{
		b->full = true;
		return false;
	}
	b->response_bytes += bytes;
	st_capacity_get(bt->cap, stored);
	st_hot_keys_record(tab, false, e->pk.display);
	if (item)
	{
		/* an item of a distributed table was copied out already when it arrived */
		e->result = (item == e->read) ? item : copy_out(b, item);
		bt->returned++;
	}
	bt->done = e->pos + 1;
	return true;
}

/* Receives a row of a table's get statement: the next key in request order. */
static bool
get_receive(TupleTableSlot *slot, DestReceiver *self)
{
	BatchReceiver *r = (BatchReceiver *) self;
	bool		isnull;
	Datum		d;
	int			pos;
	bool		more;
	MemoryContext old;

	CHECK_FOR_INTERRUPTS();
	pos = row_position(r, slot);
	if (pos != r->next)
		elog(ERROR, "singletable batch_get read key %d where key %d was next", pos + 1, r->next + 1);
	r->next++;
	d = slot_getattr(slot, 2, &isnull);
	old = MemoryContextSwitchTo(r->rowcxt);
	more = take_item(r->b, r->bt, &r->bt->entries[pos], isnull ? NULL : (Jsonb *) PG_DETOAST_DATUM(d));
	MemoryContextSwitchTo(old);
	MemoryContextReset(r->rowcxt);
	return more;
}

/*
 * Receives a row of a distributed table's read (in no particular order):
 * keeps the item of its key, for take_item in request order (a get), or as
 * the item a put replaces.
 */
static bool
read_receive(TupleTableSlot *slot, DestReceiver *self)
{
	BatchReceiver *r = (BatchReceiver *) self;
	bool		isnull;
	Datum		d;
	int			pos;

	CHECK_FOR_INTERRUPTS();
	pos = row_position(r, slot);
	d = slot_getattr(slot, 2, &isnull);
	if (!isnull)
	{
		MemoryContext old = MemoryContextSwitchTo(r->rowcxt);

		r->entries[pos]->read = copy_out(r->b, (Jsonb *) PG_DETOAST_DATUM(d));
		MemoryContextSwitchTo(old);
		MemoryContextReset(r->rowcxt);
	}
	r->next++;
	return true;
}

/* Reads the keys of table bt, until the response is full. */
static void
get_table(Batch *b, BatchTable *bt)
{
	BatchReceiver r;
	BatchEntry **order = palloc(sizeof(BatchEntry *) * bt->n);

	/* in request order: reads take no locks, and the response limit cuts in that order */
	for (int i = 0; i < bt->n; i++)
		order[i] = &bt->entries[i];
	if (!bt->tab->distributed)
	{
		receiver_init(&r, b, bt, order, bt->n, get_receive);
		run_statement(bt, ST_BATCH_GET, order, bt->n, false, &r.pub, true);
		/* all keys, or up to the one that did not fit */
		Assert(r.next == bt->n || b->full);
	}
	else
	{
		receiver_init(&r, b, bt, order, bt->n, read_receive);
		run_statement(bt, ST_BATCH_GET, order, bt->n, false, &r.pub, true);
		for (int i = 0; i < bt->n && !b->full; i++)
		{
			MemoryContext old = MemoryContextSwitchTo(r.rowcxt);

			CHECK_FOR_INTERRUPTS();
			(void) take_item(b, bt, order[i], order[i]->read);
			MemoryContextSwitchTo(old);
			MemoryContextReset(r.rowcxt);
		}
	}
	MemoryContextDelete(r.rowcxt);
	bt->cap->table.counts.items_returned = bt->returned;
}

/* ------------------------------------------------------------------ writes */

/*
 * Receives a row of a table's upsert (RETURNING its key), right after the
 * executor wrote it: charges the put expected next, on its item and on the
 * item it replaced, which _replacing handed over while the row was written.
 */
static bool
put_receive(TupleTableSlot *slot, DestReceiver *self)
{
	BatchReceiver *r = (BatchReceiver *) self;
	StTable    *tab = r->bt->tab;
	BatchEntry *e;
	bool		isnull;
	bool		same;
	Datum		d;
	MemoryContext old;

	CHECK_FOR_INTERRUPTS();
	if (r->next >= r->n)
		elog(ERROR, "singletable batch_write upsert returned more rows than it had items");
	e = r->entries[r->next];
	d = slot_getattr(slot, 1, &isnull);
	same = !isnull && st_key_compare(tab->pk_type, d, e->pk.datum) == 0;
	if (same && tab->sk_name)
	{
		d = slot_getattr(slot, 2, &isnull);
		same = !isnull && st_key_compare(tab->sk_type, d, e->sk.datum) == 0;
	}
	if (!same)
		ereport(ERROR,
				(errcode(ERRCODE_TRIGGERED_ACTION_EXCEPTION),
				 errmsg("a trigger on table \"%s\" skipped a put of batch_write or changed its key", tab->relname),
				 errdetail("The upsert wrote another key than the one expected next."),
				 errhint("A BEFORE row trigger on an item-collection table must not return NULL or change the key.")));
	old = MemoryContextSwitchTo(r->rowcxt);
	st_capacity_write(r->bt->cap, r->armed ? st_capacity_replaced() : NULL, e->item.jsonb, e->item.size, false);
	MemoryContextSwitchTo(old);
	MemoryContextReset(r->rowcxt);
	/* forget this row's replaced item: the next row may insert */
	if (r->armed)
		st_capacity_arm_replaced(true);
	r->next++;
	return true;
}

/* Receives a row of a table's delete: charges the deleted item. */
static bool
delete_receive(TupleTableSlot *slot, DestReceiver *self)
{
	BatchReceiver *r = (BatchReceiver *) self;
	bool		isnull;
	Datum		d;
	MemoryContext old;

	CHECK_FOR_INTERRUPTS();
	d = slot_getattr(slot, 1, &isnull);
	old = MemoryContextSwitchTo(r->rowcxt);
	st_capacity_write(r->bt->cap, isnull ? NULL : (Jsonb *) PG_DETOAST_DATUM(d), NULL, 0, false);
	MemoryContextSwitchTo(old);
	MemoryContextReset(r->rowcxt);
	r->next++;
	return true;
}

/* The error for puts of a distributed table that wrote fewer rows than items */
static void
puts_skipped(StTable *tab)
{
	ereport(ERROR,
			(errcode(ERRCODE_TRIGGERED_ACTION_EXCEPTION),
			 errmsg("a trigger on table \"%s\" skipped a put of batch_write", tab->relname),
			 errdetail("The upsert wrote fewer rows than it had items."),
			 errhint("A BEFORE row trigger on an item-collection table must not return NULL.")));
}

/* Writes table bt's puts (puts[0..n-1], in key order) in one upsert. */
static void
put_rows(Batch *b, BatchTable *bt, BatchEntry **puts, int n)
{
	BatchReceiver r;

	if (!bt->tab->distributed)
	{
		receiver_init(&r, b, bt, puts, n, put_receive);
		r.armed = bt->cap->enabled;
		if (r.armed)
			st_capacity_arm_replaced(true);
		run_statement(bt, ST_BATCH_PUT, puts, n, true, &r.pub, false);
		if (r.armed)
			st_capacity_arm_replaced(false);
		if (r.next != n)
			ereport(ERROR,
					(errcode(ERRCODE_TRIGGERED_ACTION_EXCEPTION),
					 errmsg("a trigger on table \"%s\" skipped a put of batch_write", bt->tab->relname),
					 errdetail("The upsert wrote %d of its %d items.", r.next, n),
					 errhint("A BEFORE row trigger on an item-collection table must not return NULL.")));
		MemoryContextDelete(r.rowcxt);
		return;
	}
	/* distributed: the replaced items are read first (see the top of this file) */
	receiver_init(&r, b, bt, puts, n, read_receive);
	if (bt->cap->enabled)
		run_statement(bt, ST_BATCH_GET, puts, n, false, &r.pub, false);
	run_statement(bt, ST_BATCH_PUT, puts, n, true, None_Receiver, false);
	if (SPI_processed != (uint64) n)
		puts_skipped(bt->tab);
	for (int i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		st_capacity_write(bt->cap, puts[i]->read, puts[i]->item.jsonb, puts[i]->item.size, false);
	}
	MemoryContextDelete(r.rowcxt);
}

/* Deletes table bt's keys dels[0..n-1] (in key order) in one statement. */
static void
delete_rows(Batch *b, BatchTable *bt, BatchEntry **dels, int n)
{
	BatchReceiver r;

	receiver_init(&r, b, bt, dels, n, delete_receive);
	run_statement(bt, ST_BATCH_DELETE, dels, n, false, &r.pub, false);
	/* a key that held no item costs 1 unit */
	for (int i = r.next; i < n; i++)
		st_capacity_write(bt->cap, NULL, NULL, 0, false);
	MemoryContextDelete(r.rowcxt);
}

/* Writes every request of table bt: puts, then deletes, each in key order. */
static void
write_table(Batch *b, BatchTable *bt)
{
	BatchEntry **puts = palloc(sizeof(BatchEntry *) * bt->n);
	BatchEntry **dels = palloc(sizeof(BatchEntry *) * bt->n);
	int			nputs = 0;
	int			ndels = 0;

	for (int i = 0; i < bt->n; i++)
	{
		if (bt->sorted[i]->is_put)
			puts[nputs++] = bt->sorted[i];
		else
			dels[ndels++] = bt->sorted[i];
	}
	/* both kinds: lock the existing items first, in key order (no crossing, see above) */
	if (nputs > 0 && ndels > 0 && !bt->tab->distributed)
		run_statement(bt, ST_BATCH_LOCK, bt->sorted, bt->n, false, None_Receiver, false);
	if (nputs > 0)
		put_rows(b, bt, puts, nputs);
	if (ndels > 0)
		delete_rows(b, bt, dels, ndels);
	/* every request of the table was written */
	for (int i = 0; i < bt->n; i++)
		st_hot_keys_record(bt->tab, true, bt->entries[i].pk.display);
}

/*
 * Writes table bt in a subtransaction. Returns false, with the table
 * rolled back and its error in *lock_error, when a row lock was not
 * obtained within lock_timeout; any other error is raised again.
 */
static bool
write_table_or_skip(Batch *b, BatchTable *bt, ErrorData **lock_error)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	volatile bool written = false;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		write_table(b, bt);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		written = true;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		st_capacity_arm_replaced(false);
		if (edata->sqlerrcode != ERRCODE_LOCK_NOT_AVAILABLE)
			ReThrowError(edata);
		*lock_error = edata;
	}
	PG_END_TRY();
	return written;
}

/* ---------------------------------------------------------------- responses */

/* Adds "ConsumedCapacity": the batch's list, when capacity is tracked. */
static void
push_capacity(JsonbParseState **state)
{
	Jsonb	   *cc = st_last_consumed_capacity();

	if (cc == NULL)
		return;
	st_push_jsonb(state, "ConsumedCapacity", cc);
}

/*
 * batch_get's response: every table's items in request order, the keys
 * beyond the response limit in the request's shape, the capacity list.
 */
static Jsonb *
get_response(Batch *b)
{
	JsonbParseState *state = NULL;
	JsonbValue *res;

	(void) pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	st_push_key(&state, "Responses");
	(void) pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < b->ntables; i++)
	{
		BatchTable *bt = &b->tables[i];

		(void) pushJsonbValue(&state, WJB_KEY, &bt->name);
		(void) pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
		for (int j = 0; j < bt->done; j++)
			if (bt->entries[j].result)
				st_push_jsonb_as(&state, WJB_ELEM, bt->entries[j].result);
		(void) pushJsonbValue(&state, WJB_END_ARRAY, NULL);
	}
	(void) pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	st_push_key(&state, "UnprocessedKeys");
	(void) pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < b->ntables; i++)
	{
		BatchTable *bt = &b->tables[i];

		if (bt->done == bt->n)
			continue;
		(void) pushJsonbValue(&state, WJB_KEY, &bt->name);
		(void) pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
		for (int m = 0; m < bt->nmembers; m++)
		{
			(void) pushJsonbValue(&state, WJB_KEY, &bt->member_names[m]);
			if (!is_name(&bt->member_names[m], "Keys"))
			{
				(void) pushJsonbValue(&state, WJB_VALUE, &bt->member_values[m]);
				continue;
			}
			(void) pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
			for (int j = bt->done; j < bt->n; j++)
				(void) pushJsonbValue(&state, WJB_ELEM, &bt->entries[j].request);
			(void) pushJsonbValue(&state, WJB_END_ARRAY, NULL);
		}
		(void) pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	}
	(void) pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	push_capacity(&state);
	res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(res);
}

/* batch_write's response: the requests of tables not written, the capacity list. */
static Jsonb *
write_response(Batch *b)
{
	JsonbParseState *state = NULL;
	JsonbValue *res;

	(void) pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	st_push_key(&state, "UnprocessedItems");
	(void) pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < b->ntables; i++)
	{
		BatchTable *bt = &b->tables[i];

		if (!bt->unprocessed)
			continue;
		(void) pushJsonbValue(&state, WJB_KEY, &bt->name);
		(void) pushJsonbValue(&state, WJB_VALUE, &bt->value);
	}
	(void) pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	push_capacity(&state);
	res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(res);
}

/* -------------------------------------------------------------- operations */

/*
 * BatchGetItem: the items of up to 100 keys of one or more tables, read
 * from one snapshot with the caller's rights.
 */
Jsonb *
st_op_batch_get(Jsonb *request_items)
{
	Batch		b;
	Jsonb	   *response;
	MemoryContext old;

	memset(&b, 0, sizeof(b));
	b.func = "batch_get";
	b.cxt = CurrentMemoryContext;
	SPI_connect();
	read_get_request(&b, request_items);
	open_tables(&b);
	check_get_keys(&b);
	for (int i = 0; i < b.ntables; i++)
		if (b.tables[i].tab->ttl_attr)
		{
			st_ttl_clock(&b.clock);
			break;
		}
	for (int i = 0; i < b.ntables && !b.full; i++)
		get_table(&b, &b.tables[i]);
	st_capacity_end_many(b.caps, b.ntables, true);
	old = MemoryContextSwitchTo(b.cxt);
	response = get_response(&b);
	MemoryContextSwitchTo(old);
	SPI_finish();
	return response;
}

/*
 * BatchWriteItem: up to 25 puts and deletes over one or more tables, all
 * checked before any is written; a table that met lock_timeout comes back
 * in UnprocessedItems.
 */
Jsonb *
st_op_batch_write(Jsonb *request_items)
{
	Batch		b;
	BatchTable **order;
	ErrorData  *lock_error = NULL;
	int			written = 0;
	Jsonb	   *response;
	MemoryContext old;

	memset(&b, 0, sizeof(b));
	b.is_write = true;
	b.func = "batch_write";
	b.cxt = CurrentMemoryContext;
	st_condition_failure_reset();
	SPI_connect();
	read_write_request(&b, request_items);
	open_tables(&b);
	check_write_requests(&b);

	/* in OID order, as two batches over the same tables must lock (see the top of this file) */
	order = palloc(sizeof(BatchTable *) * b.ntables);
	for (int i = 0; i < b.ntables; i++)
	{
		int			j = i;

		while (j > 0 && order[j - 1]->tab->relid > b.tables[i].tab->relid)
		{
			order[j] = order[j - 1];
			j--;
		}
		order[j] = &b.tables[i];
	}
	for (int i = 0; i < b.ntables; i++)
	{
		BatchTable *bt = order[i];

		CHECK_FOR_INTERRUPTS();
		if (write_table_or_skip(&b, bt, &lock_error))
			written++;
		else
		{
			/* nothing of it was written: nothing is charged */
			bt->unprocessed = true;
			st_capacity_begin(bt->cap, bt->tab, ST_STAT_BATCH_WRITE_ITEM);
		}
	}
	/* DynamoDB fails a batch of which nothing could be processed */
	if (written == 0)
		ReThrowError(lock_error);
	st_capacity_end_many(b.caps, b.ntables, true);
	old = MemoryContextSwitchTo(b.cxt);
	response = write_response(&b);
	MemoryContextSwitchTo(old);
	SPI_finish();
	return response;
}

/* --------------------------------------------------------------- functions */

/* The request_items argument, which must be given */
static Jsonb *
request_items_arg(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("request_items must not be NULL")));
	return PG_GETARG_JSONB_P(0);
}

/*
 * singletable.batch_get(request_items jsonb) -> jsonb: DynamoDB's
 * BatchGetItem (see st_op_batch_get).
 */
Datum
singletable_batch_get(PG_FUNCTION_ARGS)
{
	PG_RETURN_JSONB_P(st_op_batch_get(request_items_arg(fcinfo)));
}

/*
 * singletable.batch_write(request_items jsonb) -> jsonb: DynamoDB's
 * BatchWriteItem (see st_op_batch_write).
 */
Datum
singletable_batch_write(PG_FUNCTION_ARGS)
{
	PG_RETURN_JSONB_P(st_op_batch_write(request_items_arg(fcinfo)));
}
