/*
 * dynamodb_tables.c — the control plane of singletable.dynamodb: CreateTable,
 * DeleteTable, DescribeTable, ListTables, UpdateTable, UpdateTimeToLive,
 * DescribeTimeToLive, TagResource, UntagResource, ListTagsOfResource,
 * DescribeLimits and DescribeEndpoints.
 *
 * DynamoDB's tables are item-collection tables in one schema
 * (singletable.dynamodb_schema), made and changed by the DDL of commands.h
 * that the SQL functions create_table, create_gsi, ... call too, so they are
 * ordinary singletable tables; what DynamoDB reports beyond the registries
 * (billing mode, throughput, tags) is kept in singletable.dynamodb_tables
 * (register_table). Every request is checked for its shape and DynamoDB's
 * constraints, with its messages, before anything is locked or any DDL runs.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "catalog/distribute.h"
#include "api/dynamodb.h"
#include "utils/errors.h"
#include "format/jsonval.h"
#include "catalog/registry.h"
#include "commands/commands.h"

#define ST_DDB_REGISTRY "dynamodb_tables"
#define ARN_PREFIX "arn:aws:dynamodb:ddblocal:000000000000:table/"
#define INVALID "One or more parameter values were invalid: "

/*
 * Makes what the DDL of this call has written so far visible to the
 * registry reads that follow (they read with the active snapshot, which the
 * statement took before the call); ended by see_own_writes_end.
 */
static void
see_own_writes(void)
{
	CommandCounterIncrement();
	PushCopiedSnapshot(GetActiveSnapshot());
	UpdateActiveSnapshotCommandId();
}

static void
see_own_writes_end(void)
{
	PopActiveSnapshot();
}

static Datum
text_datum(const char *s)
{
	return s ? PointerGetDatum(cstring_to_text(s)) : (Datum) 0;
}

static Jsonb *
end_object(JsonbParseState **st)
{
	return JsonbValueToJsonb(pushJsonbValue(st, WJB_END_OBJECT, NULL));
}

/* A JSON value of a list of objects, its i-th element as a container (else SerializationException) */
static JsonbContainer *
object_elem(JsonbValue *arr, int i)
{
	JsonbValue *v = getIthJsonbValueFromContainer(arr->val.binary.data, i);

	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		st_attrval_serialization_error(v, "Structure");
	return v->val.binary.data;
}

/* A string member of an object (NULL: absent or null) */
static char *
obj_string(JsonbContainer *c, const char *name)
{
	JsonbValue *v = getKeyJsonValueFromContainer(c, name, strlen(name), NULL);

	if (v == NULL || v->type == jbvNull)
		return NULL;
	return st_ddb_string_of(v);
}

static JsonbValue *
obj_member(JsonbContainer *c, const char *name)
{
	JsonbValue *v = getKeyJsonValueFromContainer(c, name, strlen(name), NULL);

	return (v == NULL || v->type == jbvNull) ? NULL : v;
}

static int
array_size(JsonbValue *v)
{
	return v ? JsonContainerSize(v->val.binary.data) : 0;
}

static JsonbValue *
obj_array(JsonbContainer *c, const char *name)
{
	JsonbValue *v = obj_member(c, name);

	if (v && (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data)))
		st_attrval_serialization_error(v, "List");
	return v;
}

static JsonbValue *
obj_object(JsonbContainer *c, const char *name)
{
	JsonbValue *v = obj_member(c, name);

	if (v && (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data)))
		st_attrval_serialization_error(v, "Structure");
	return v;
}

static bool
obj_int(JsonbContainer *c, const char *name, int64 *out)
{
	return st_ddb_value_int(obj_member(c, name), name, "Long", out);
}

static void
validation(const char *msg)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid DynamoDB table definition"),
			 st_errdetail_dynamodb("%s", msg)));
}

/* ------------------------------------------------------------ definitions */

typedef struct KeyDef
{
	char	   *hash;			/* the (first) partition attribute; "": the first element is not HASH */
	char	   *range;			/* the (first) sort attribute; NULL: none; "": see parse_key_schema */
	int			n;				/* the elements of KeySchema, in order */
	char	  **names;
	char	  **types;			/* HASH, RANGE, or NULL (absent or not one of them) */
	int			n_hash;			/* of a GSI: its HASH elements */
	int			n_range;		/* and its RANGE elements */
} KeyDef;

typedef struct IndexDef
{
	char	   *name;
	KeyDef		key;
	char	   *projection;		/* ALL, KEYS_ONLY, INCLUDE */
	JsonbValue *nonkey;			/* array of strings, or NULL */
	bool		has_throughput;
	int64		rcu;			/* its ProvisionedThroughput (0: none given) */
	int64		wcu;
} IndexDef;

typedef struct TableDef
{
	int			n_attrs;
	char	  **attr_names;
	char	  **attr_types;
	KeyDef		key;
	int			n_gsi;
	IndexDef   *gsi;
	int			n_lsi;
	IndexDef   *lsi;
} TableDef;

static const char *const key_types[] = {"HASH", "RANGE", NULL};
static const char *const attr_types[] = {"B", "N", "S", NULL};
static const char *const proj_types[] = {"ALL", "KEYS_ONLY", "INCLUDE", NULL};
static const char *const billing_modes[] = {"PROVISIONED", "PAY_PER_REQUEST", NULL};

/*
 * A KeySchema: checks shape and enums into e, fills k. A table's and an LSI's
 * have 1 or 2 elements (HASH, then RANGE); a GSI's (gsi) up to 4 HASH then
 * up to 4 RANGE elements (DynamoDB's multi-attribute keys, since November
 * 2025), whose rules check_key_schema checks.
 */
static void
parse_key_schema(StDdbErrors *e, JsonbValue *ks, const char *path, KeyDef *k, bool gsi)
{
	int			n = array_size(ks);
	int			max = gsi ? n : Min(n, 2);

	k->hash = k->range = NULL;
	k->n = 0;
	k->n_hash = k->n_range = 0;
	k->names = palloc0(sizeof(char *) * Max(max, 1));
	k->types = palloc0(sizeof(char *) * Max(max, 1));
	if (ks == NULL)
	{
		st_ddb_error(e, "null", path, "Member must not be null");
		return;
	}
	if (n < 1)
		st_ddb_error(e, "'[]'", path, "Member must have length greater than or equal to 1");
	if (!gsi && n > 2)
		st_ddb_error(e, psprintf("'[%d elements]'", n), path, "Member must have length less than or equal to 2");
	for (int i = 0; i < max; i++)
	{
		JsonbContainer *c = object_elem(ks, i);
		char	   *name = obj_string(c, "AttributeName");
		char	   *type = obj_string(c, "KeyType");
		char	   *p = psprintf("%s.%d.member", path, i + 1);

		CHECK_FOR_INTERRUPTS();
		if (name == NULL)
			st_ddb_error(e, "null", psprintf("%s.attributeName", p), "Member must not be null");
		else if (strlen(name) < 1 || strlen(name) > 255)
			st_ddb_error(e, psprintf("'%s'", name), psprintf("%s.attributeName", p),
						 strlen(name) < 1 ? "Member must have length greater than or equal to 1" :
						 "Member must have length less than or equal to 255");
		if (type == NULL)
			st_ddb_error(e, "null", psprintf("%s.keyType", p), "Member must not be null");
		else
			st_ddb_check_enum(e, type, psprintf("%s.keyType", p), key_types, "[HASH, RANGE]");
		k->names[i] = name;
		k->types[i] = type && (strcmp(type, "HASH") == 0 || strcmp(type, "RANGE") == 0) ? type : NULL;
		k->n = i + 1;
		if (k->types[i] && k->types[i][0] == 'H')
			k->n_hash++;
		else if (k->types[i])
			k->n_range++;
		if (i == 0)
			k->hash = type && strcmp(type, "HASH") == 0 ? name : NULL;
		if (i == 1 && !gsi)
			k->range = type && strcmp(type, "RANGE") == 0 ? name : NULL;
		if (gsi && k->range == NULL && k->types[i] && k->types[i][0] == 'R')
			k->range = name;
		/* the order rules are checked after the constraints */
		if (i == 0 && type && strcmp(type, "HASH") != 0)
			k->hash = (char *) "";
		if (i == 1 && !gsi && type && strcmp(type, "RANGE") != 0)
			k->range = (char *) "";
	}
}

/* Whether attribute name is defined in t */
static bool
attr_defined(TableDef *t, const char *name)
{
	for (int i = 0; i < t->n_attrs; i++)
		if (t->attr_names[i] && strcmp(t->attr_names[i], name) == 0)
			return true;
	return false;
}

/*
 * DynamoDB's rules of a GSI's KeySchema of more than 2 elements, or of 2
 * HASH elements (multi-attribute keys), after the constraints: the first
 * element HASH, every HASH before every RANGE, at most 4 of each, no name
 * twice, every name defined. The messages are DynamoDB's (as listed by
 * probes of the service; DynamoDB Local 3.3.0 words them differently, see
 * docs/indexes.md).
 */
static void
check_multi_key_schema(KeyDef *k, TableDef *t)
{
	bool		seen_range = false;

	if (k->hash == NULL || k->hash[0] == '\0')
		validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
	for (int i = 0; i < k->n; i++)
	{
		bool		is_hash = k->types[i] && k->types[i][0] == 'H';

		if (is_hash && seen_range)
			validation(INVALID "All HASH key attributes must precede RANGE key attributes in the KeySchema");
		seen_range = seen_range || !is_hash;
	}
	if (k->n_hash > ST_MAX_INDEX_KEY_ATTRS)
		validation(INVALID "The KeySchema exceeds the maximum allowed number of HASH key attributes");
	if (k->n_range > ST_MAX_INDEX_KEY_ATTRS)
		validation(INVALID "The KeySchema exceeds the maximum allowed number of RANGE key attributes");
	/* at most 8 elements from here */
	for (int i = 0; i < k->n; i++)
		for (int j = 0; j < i; j++)
			if (strcmp(k->names[i], k->names[j]) == 0)
				validation(INVALID "The KeySchema contains multiple key attributes with the same name");
	for (int i = 0; i < k->n; i++)
		if (!attr_defined(t, k->names[i]))
			validation(INVALID "Some index key attributes are not defined in AttributeDefinitions.");
}

/* Whether a GSI's KeySchema k is a multi-attribute one (more than one HASH or RANGE element) */
static bool
is_multi_key(KeyDef *k)
{
	return k->n > 2 || (k->n == 2 && k->types[1] && k->types[1][0] == 'H');
}

/* DynamoDB's KeySchema rules, after the constraints (index: its name; gsi: a GSI's) */
static void
check_key_schema(KeyDef *k, TableDef *t, const char *index, bool gsi)
{
	if (gsi && is_multi_key(k))
	{
		check_multi_key_schema(k, t);
		return;
	}
	if (k->hash == NULL || k->hash[0] == '\0')
		validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
	if (k->range && k->range[0] == '\0')
		validation("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type");
	if (k->range && strcmp(k->hash, k->range) == 0)
		validation(index ? psprintf(INVALID "Both the Hash Key and the Range Key element in the KeySchema have the same name")
				   : "Both the Hash Key and the Range Key element in the KeySchema have the same name");
	for (int pass = 0; pass < 2; pass++)
	{
		const char *name = pass == 0 ? k->hash : k->range;

		if (name == NULL)
			continue;
		if (!attr_defined(t, name))
			validation(INVALID "Some index key attributes are not defined in AttributeDefinitions.");
	}
}

/* Whether name is one of the key attributes of k */
static bool
key_uses(KeyDef *k, const char *name)
{
	for (int i = 0; i < k->n; i++)
		if (k->names[i] && strcmp(k->names[i], name) == 0)
			return true;
	return false;
}

static const char *
attr_type(TableDef *t, const char *name)
{
	for (int i = 0; i < t->n_attrs; i++)
		if (strcmp(t->attr_names[i], name) == 0)
			return t->attr_types[i];
	return NULL;
}

static void parse_throughput(StDdbErrors *e, JsonbValue *pt, const char *path, int64 *rcu, int64 *wcu);

/* NonKeyAttributes: each name 1 to 255 characters, as DynamoDB's model says */
static void
check_nonkey_names(StDdbErrors *e, JsonbValue *arr, const char *path)
{
	int			n = array_size(arr);
	bool		bad = false;
	StringInfoData list;

	initStringInfo(&list);
	appendStringInfoString(&list, "'[");
	for (int i = 0; i < n; i++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(arr->val.binary.data, i);
		char	   *name = v && v->type == jbvString ? pnstrdup(v->val.string.val, v->val.string.len) : NULL;

		CHECK_FOR_INTERRUPTS();
		if (name == NULL)
			continue;
		bad = bad || name[0] == '\0' || strlen(name) > 255;
		appendStringInfo(&list, "%s%s", i ? ", " : "", name);
	}
	appendStringInfoString(&list, "]'");
	if (bad)
		st_ddb_error(e, list.data, path,
					 "Member must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 1]");
}

/* The indexes of GlobalSecondaryIndexes or LocalSecondaryIndexes (path: for messages) */
static IndexDef *
parse_indexes(StDdbErrors *e, JsonbValue *arr, const char *path, int *n, bool single, bool gsi)
{
	IndexDef   *r;

	*n = array_size(arr);
	r = palloc0(sizeof(IndexDef) * Max(*n, 1));
	if (arr && *n == 0)
		st_ddb_error(e, "'[]'", path, "Member must have length greater than or equal to 1");
	for (int i = 0; i < *n; i++)
	{
		JsonbContainer *c = object_elem(arr, i);
		char	   *p = single ? (char *) path : psprintf("%s.%d.member", path, i + 1);
		JsonbValue *proj = obj_object(c, "Projection");
		JsonbValue *ipt = obj_object(c, "ProvisionedThroughput");

		CHECK_FOR_INTERRUPTS();
		r[i].name = obj_string(c, "IndexName");
		st_ddb_check_name(e, r[i].name, psprintf("%s.indexName", p), true);
		parse_key_schema(e, obj_array(c, "KeySchema"), psprintf("%s.keySchema", p), &r[i].key, gsi);
		if (proj == NULL)
			st_ddb_error(e, "null", psprintf("%s.projection", p), "Member must not be null");
		else
		{
			r[i].projection = obj_string(proj->val.binary.data, "ProjectionType");
			r[i].nonkey = obj_array(proj->val.binary.data, "NonKeyAttributes");
			check_nonkey_names(e, r[i].nonkey, psprintf("%s.projection.nonKeyAttributes", p));
			st_ddb_check_enum(e, r[i].projection, psprintf("%s.projection.projectionType", p),
							  proj_types, "[ALL, INCLUDE, KEYS_ONLY]");
		}
		r[i].has_throughput = ipt != NULL;
		parse_throughput(e, ipt, psprintf("%s.provisionedThroughput", p), &r[i].rcu, &r[i].wcu);
	}
	return r;
}

/* DynamoDB's rules of an index definition, after the constraints */
static void
check_index(IndexDef *ix, TableDef *t, bool lsi, bool provisioned)
{
	check_key_schema(&ix->key, t, ix->name, !lsi);
	if (lsi)
	{
		if (t->key.range == NULL)
			validation(INVALID "Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex");
		if (ix->key.range == NULL)
			validation(psprintf(INVALID "Index KeySchema does not have a range key for index: %s", ix->name));
		if (strcmp(ix->key.hash, t->key.hash) != 0)
			validation(psprintf(INVALID "Index KeySchema does not have the same leading hash key as table KeySchema for index: %s. index hash key: %s, table hash key: %s",
								ix->name, ix->key.hash, t->key.hash));
	}
	if (ix->projection == NULL)
		validation(INVALID "Unknown ProjectionType: null");
	if (strcmp(ix->projection, "INCLUDE") != 0 && ix->nonkey)
		validation(psprintf(INVALID "ProjectionType is %s, but NonKeyAttributes is specified", ix->projection));
	if (strcmp(ix->projection, "INCLUDE") == 0 && ix->nonkey == NULL)
		validation(INVALID "NonKeyAttributes must not be null or empty when ProjectionType is INCLUDE");
	if (!lsi && provisioned && !ix->has_throughput)
		validation(psprintf(INVALID "ProvisionedThroughput must be specified for index: %s", ix->name));
	if (!lsi && !provisioned && ix->has_throughput)
		validation(psprintf(INVALID "ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST",
							ix->name));
}

/* The non-key attributes of an index as a text[] (NULL: none) */
static ArrayType *
nonkey_array(JsonbValue *arr)
{
	int			n = array_size(arr);
	Datum	   *elems;

	if (arr == NULL)
		return NULL;
	elems = palloc(sizeof(Datum) * Max(n, 1));
	for (int i = 0; i < n; i++)
		elems[i] = text_datum(st_ddb_string_of(getIthJsonbValueFromContainer(arr->val.binary.data, i)));
	return construct_array(elems, n, TEXTOID, -1, false, TYPALIGN_INT);
}

/* ProvisionedThroughput {ReadCapacityUnits, WriteCapacityUnits}: checked into e */
static void
parse_throughput(StDdbErrors *e, JsonbValue *pt, const char *path, int64 *rcu, int64 *wcu)
{
	bool		has_r,
				has_w;

	*rcu = *wcu = 0;
	if (pt == NULL)
		return;
	has_r = obj_int(pt->val.binary.data, "ReadCapacityUnits", rcu);
	has_w = obj_int(pt->val.binary.data, "WriteCapacityUnits", wcu);
	if (!has_r)
		st_ddb_error(e, "null", psprintf("%s.readCapacityUnits", path), "Member must not be null");
	st_ddb_check_int(e, has_r, *rcu, psprintf("%s.readCapacityUnits", path), 1, PG_INT64_MAX);
	if (!has_w)
		st_ddb_error(e, "null", psprintf("%s.writeCapacityUnits", path), "Member must not be null");
	st_ddb_check_int(e, has_w, *wcu, psprintf("%s.writeCapacityUnits", path), 1, PG_INT64_MAX);
}

/* ------------------------------------------------------------ the description */

/*
 * How a description differs from the stored state: a table's description
 * in the response to the call that is changing it (CreateTable: every GSI
 * is CREATING like the table; UpdateTable: the index created CREATING, the
 * index deleted DELETING, the indexes whose throughput changes UPDATING).
 */
typedef struct DescOpts
{
	const char *gsi_status;		/* every GSI's IndexStatus, or NULL */
	int			n_marks;		/* these GSIs' IndexStatus: */
	const char **mark_names;
	const char **mark_status;
} DescOpts;

/*
 * The ProvisionedThroughput of GSI index of the map index_pt
 * (singletable.dynamodb_tables.index_throughput): 0 and 0 when it has none,
 * as DynamoDB describes a GSI of a PAY_PER_REQUEST table.
 */
static void
push_index_throughput(JsonbParseState **st, Jsonb *index_pt, const char *index)
{
	int64		rcu = 0,
				wcu = 0;
	JsonbValue *v = index_pt ? getKeyJsonValueFromContainer(&index_pt->root, index, strlen(index), NULL) : NULL;

	if (v && v->type == jbvBinary)
	{
		(void) obj_int(v->val.binary.data, "ReadCapacityUnits", &rcu);
		(void) obj_int(v->val.binary.data, "WriteCapacityUnits", &wcu);
	}
	st_push_key(st, "ProvisionedThroughput");
	pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
	st_push_int(st, "NumberOfDecreasesToday", 0);
	st_push_int(st, "ReadCapacityUnits", rcu);
	st_push_int(st, "WriteCapacityUnits", wcu);
	pushJsonbValue(st, WJB_END_OBJECT, NULL);
}

/*
 * Pushes the index list v (describe_table's GlobalSecondaryIndexes or
 * LocalSecondaryIndexes) in DynamoDB's shape: every index gains its IndexArn
 * (a member of both GlobalSecondaryIndexDescription and
 * LocalSecondaryIndexDescription), and an LSI loses IndexStatus and
 * Backfilling, which LocalSecondaryIndexDescription does not have: an LSI is
 * created with its table and never has a state of its own. A GSI gains its
 * ProvisionedThroughput (index_pt) and its IndexStatus as opts say.
 */
static void
push_indexes(JsonbParseState **st, JsonbValue *v, const char *table, bool local,
			 Jsonb *index_pt, const DescOpts *opts)
{
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;

	if (v->type != jbvBinary)
	{
		pushJsonbValue(st, WJB_VALUE, v);
		return;
	}
	pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		JsonbIterator *mit;
		JsonbValue	mk,
					mv;
		char	   *index_name = NULL;
		char	   *status = NULL;

		CHECK_FOR_INTERRUPTS();
		if (tok != WJB_ELEM)
			continue;
		if (e.type != jbvBinary)
		{
			pushJsonbValue(st, WJB_ELEM, &e);
			continue;
		}
		pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
		mit = JsonbIteratorInit(e.val.binary.data);
		while (st_jbv_next_member(&mit, &mk, &mv))
		{
#define KEY_IS(s) (mk.val.string.len == (int) strlen(s) && memcmp(mk.val.string.val, s, mk.val.string.len) == 0)
			if (local && (KEY_IS("IndexStatus") || KEY_IS("Backfilling")))
				continue;
			/*
			 * Backfilling only while the index is being backfilled: "for
			 * indexes that were created during a CreateTable operation, the
			 * Backfilling attribute does not appear" (API Reference,
			 * GlobalSecondaryIndexDescription), nor for a built one here.
			 */
			if (KEY_IS("Backfilling") && mv.type == jbvBool && !mv.val.boolean)
				continue;
			if (KEY_IS("IndexName") && mv.type == jbvString)
				index_name = pnstrdup(mv.val.string.val, mv.val.string.len);
			if (KEY_IS("IndexStatus") && mv.type == jbvString)
			{
				/* pushed below, once the index's name is known */
				status = pnstrdup(mv.val.string.val, mv.val.string.len);
				continue;
			}
			if (!local && KEY_IS("ProvisionedThroughput"))
				continue;
#undef KEY_IS
			pushJsonbValue(st, WJB_KEY, &mk);
			pushJsonbValue(st, WJB_VALUE, &mv);
		}
		if (index_name)
			st_push_string(st, "IndexArn", psprintf(ARN_PREFIX "%s/index/%s", table, index_name));
		if (!local && index_name)
		{
			if (opts && opts->gsi_status)
				status = (char *) opts->gsi_status;
			for (int i = 0; opts && i < opts->n_marks; i++)
				if (strcmp(opts->mark_names[i], index_name) == 0)
					status = (char *) opts->mark_status[i];
			push_index_throughput(st, index_pt, index_name);
		}
		if (status)
			st_push_string(st, "IndexStatus", status);
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(st, WJB_END_ARRAY, NULL);
}

/*
 * DescribeTable's TableDescription of a table of the schema: what
 * singletable.describe_table says, in DynamoDB's shape, with the billing
 * mode and throughput of singletable.dynamodb_tables and status.
 */
static Jsonb *
table_description(const char *name, const char *status, const DescOpts *opts)
{
	Jsonb	   *desc;
	JsonbParseState *st = NULL;
	JsonbIterator *it;
	JsonbValue	k,
				v;
	Oid			relid = st_ddb_table_relid(name);
	double		created = 0;
	char	   *billing = "PAY_PER_REQUEST";
	int64		rcu = 0,
				wcu = 0;
	Jsonb	   *index_pt = NULL;
	char	   *table_id = NULL;
	double		ppr_since = 0;
	MemoryContext outer = CurrentMemoryContext;

	desc = st_describe_table(st_ddb_table_text(name));
	SPI_connect();
	{
		Oid			argtypes[1] = {OIDOID};
		Datum		values[1] = {ObjectIdGetDatum(relid)};

		if (SPI_execute_with_args("SELECT pg_catalog.date_part('epoch', t.created_at)::pg_catalog.float8,"
								  " d.billing_mode, COALESCE(d.read_capacity_units, 0), COALESCE(d.write_capacity_units, 0),"
								  " d.index_throughput,"
								  " COALESCE(d.table_id, pg_catalog.md5(t.table_name::pg_catalog.oid::pg_catalog.text"
								  " OPERATOR(pg_catalog.||) t.created_at::pg_catalog.text)::pg_catalog.uuid)::pg_catalog.text,"
								  " pg_catalog.date_part('epoch', COALESCE(d.pay_per_request_since, t.created_at))::pg_catalog.float8"
								  " FROM singletable.tables t LEFT JOIN singletable." ST_DDB_REGISTRY " d"
								  " ON d.table_name OPERATOR(pg_catalog.=) t.table_name"
								  " WHERE t.table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
								  1, argtypes, values, NULL, true, 1) == SPI_OK_SELECT && SPI_processed == 1)
		{
			bool		isnull;
			HeapTuple	tup = SPI_tuptable->vals[0];
			TupleDesc	td = SPI_tuptable->tupdesc;
			Datum		d;

			created = DatumGetFloat8(SPI_getbinval(tup, td, 1, &isnull));
			d = SPI_getbinval(tup, td, 2, &isnull);
			if (!isnull)
				billing = MemoryContextStrdup(outer, TextDatumGetCString(d));
			rcu = DatumGetInt64(SPI_getbinval(tup, td, 3, &isnull));
			wcu = DatumGetInt64(SPI_getbinval(tup, td, 4, &isnull));
			d = SPI_getbinval(tup, td, 5, &isnull);
			if (!isnull)
			{
				MemoryContext spi = MemoryContextSwitchTo(outer);

				index_pt = DatumGetJsonbPCopy(d);
				MemoryContextSwitchTo(spi);
			}
			d = SPI_getbinval(tup, td, 6, &isnull);
			if (!isnull)
				table_id = MemoryContextStrdup(outer, TextDatumGetCString(d));
			ppr_since = DatumGetFloat8(SPI_getbinval(tup, td, 7, &isnull));
		}
	}
	SPI_finish();

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	it = JsonbIteratorInit(&desc->root);
	while (st_jbv_next_member(&it, &k, &v))
	{
#define KEY_IS(s) (k.val.string.len == (int) strlen(s) && memcmp(k.val.string.val, s, k.val.string.len) == 0)
		/* not DynamoDB's: the schema, the distribution; the status is set below */
		if (KEY_IS("Schema") || KEY_IS("TableDistribution") || KEY_IS("TableStatus") ||
			KEY_IS("TimeToLiveDescription"))
			continue;
		if (KEY_IS("TableName"))
		{
			/* DynamoDB's name, which a PostgreSQL name of 63 bytes may stand for */
			st_push_string(&st, "TableName", name);
			continue;
		}
		if (KEY_IS("GlobalSecondaryIndexes") || KEY_IS("LocalSecondaryIndexes"))
		{
			pushJsonbValue(&st, WJB_KEY, &k);
			push_indexes(&st, &v, name, KEY_IS("LocalSecondaryIndexes"), index_pt, opts);
			continue;
		}
#undef KEY_IS
		pushJsonbValue(&st, WJB_KEY, &k);
		pushJsonbValue(&st, WJB_VALUE, &v);
	}
	st_push_string(&st, "TableStatus", status);
	st_push_string(&st, "TableArn", psprintf(ARN_PREFIX "%s", name));
	st_push_key(&st, "CreationDateTime");
	v.type = jbvNumeric;
	v.val.numeric = DatumGetNumeric(DirectFunctionCall1(float8_numeric, Float8GetDatum(created)));
	pushJsonbValue(&st, WJB_VALUE, &v);
	st_push_key(&st, "BillingModeSummary");
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	st_push_string(&st, "BillingMode", billing);
	if (strcmp(billing, "PAY_PER_REQUEST") == 0)
	{
		st_push_key(&st, "LastUpdateToPayPerRequestDateTime");
		v.type = jbvNumeric;
		v.val.numeric = DatumGetNumeric(DirectFunctionCall1(float8_numeric, Float8GetDatum(ppr_since)));
		pushJsonbValue(&st, WJB_VALUE, &v);
	}
	pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	if (table_id)
		st_push_string(&st, "TableId", table_id);
	st_push_key(&st, "ProvisionedThroughput");
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	st_push_int(&st, "NumberOfDecreasesToday", 0);
	st_push_int(&st, "ReadCapacityUnits", rcu);
	st_push_int(&st, "WriteCapacityUnits", wcu);
	pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	/* StreamSpecification, LatestStreamLabel, LatestStreamArn (dynamodb_streams.c) */
	st_ddb_push_table_stream(&st, relid);
	return end_object(&st);
}

static Jsonb *
wrap(const char *key, Jsonb *j)
{
	JsonbParseState *st = NULL;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	st_push_jsonb(&st, key, j);
	return end_object(&st);
}

/*
 * Writes the billing mode and throughput of a table (an upsert) into
 * singletable.dynamodb_tables, which holds what DynamoDB reports that the
 * extension's registries do not (also the tags). It is written as the
 * registry's owner (st_registry_execute_as_owner) like the other
 * registries; its rows go with their table (event trigger).
 */
static void
register_table(Oid relid, const char *billing, int64 rcu, int64 wcu)
{
	Oid			argtypes[4] = {OIDOID, TEXTOID, INT8OID, INT8OID};
	Datum		values[4] = {ObjectIdGetDatum(relid), text_datum(billing), Int64GetDatum(rcu), Int64GetDatum(wcu)};

	SPI_connect();
	st_registry_execute_as_owner(ST_DDB_REGISTRY,
								 "INSERT INTO singletable." ST_DDB_REGISTRY
								 " (table_name, billing_mode, read_capacity_units, write_capacity_units)"
								 " VALUES ($1::pg_catalog.regclass, $2, $3, $4)"
								 " ON CONFLICT (table_name) DO UPDATE SET billing_mode = EXCLUDED.billing_mode,"
								 " pay_per_request_since = CASE WHEN EXCLUDED.billing_mode OPERATOR(pg_catalog.=) 'PAY_PER_REQUEST'"
								 " AND singletable." ST_DDB_REGISTRY ".billing_mode OPERATOR(pg_catalog.<>) 'PAY_PER_REQUEST'"
								 " THEN pg_catalog.now() ELSE singletable." ST_DDB_REGISTRY ".pay_per_request_since END,"
								 " read_capacity_units = EXCLUDED.read_capacity_units,"
								 " write_capacity_units = EXCLUDED.write_capacity_units",
								 4, argtypes, values, NULL);
	SPI_finish();
}

/*
 * Sets the ProvisionedThroughput of GSI index of table relid (rcu < 0:
 * removes it; index NULL: removes every GSI's, as a table's change to
 * PAY_PER_REQUEST does).
 */
static void
register_index_throughput(Oid relid, const char *index, int64 rcu, int64 wcu)
{
	Oid			argtypes[4] = {OIDOID, TEXTOID, INT8OID, INT8OID};
	Datum		values[4] = {ObjectIdGetDatum(relid), text_datum(index ? index : ""), Int64GetDatum(rcu), Int64GetDatum(wcu)};

	SPI_connect();
	st_registry_execute_as_owner(ST_DDB_REGISTRY,
								 index == NULL ?
								 "UPDATE singletable." ST_DDB_REGISTRY " SET index_throughput = '{}'"
								 " WHERE table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass" :
								 rcu < 0 ?
								 "UPDATE singletable." ST_DDB_REGISTRY " SET index_throughput = index_throughput OPERATOR(pg_catalog.-) $2"
								 " WHERE table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass" :
								 "UPDATE singletable." ST_DDB_REGISTRY " SET index_throughput = index_throughput OPERATOR(pg_catalog.||)"
								 " pg_catalog.jsonb_build_object($2, pg_catalog.jsonb_build_object('ReadCapacityUnits', $3, 'WriteCapacityUnits', $4))"
								 " WHERE table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
								 4, argtypes, values, NULL);
	SPI_finish();
}

/* ------------------------------------------------------------ CreateTable */

/* Creates GSI ix (its attributes defined in t) on table, built at once */
static void
create_gsi(text *table, IndexDef *ix, TableDef *t)
{
	StCreateGsiRequest req;
	StringInfoData names[2];
	StringInfoData types[2];

	req.table_name = table;
	req.index_name = ix->name;

	/* the HASH, then the RANGE attributes as create_gsi's lists, each name quoted */
	for (int part = 0; part < 2; part++)
	{
		initStringInfo(&names[part]);
		initStringInfo(&types[part]);
		for (int i = 0; i < ix->key.n; i++)
		{
			if ((ix->key.types[i][0] == 'H') != (part == 0))
				continue;
			if (names[part].len > 0)
			{
				appendStringInfoChar(&names[part], ',');
				appendStringInfoChar(&types[part], ',');
			}
			appendStringInfoChar(&names[part], '"');
			for (const char *c = ix->key.names[i]; *c; c++)
			{
				if (*c == '"')
					appendStringInfoChar(&names[part], '"');
				appendStringInfoChar(&names[part], *c);
			}
			appendStringInfoChar(&names[part], '"');
			appendStringInfoString(&types[part], attr_type(t, ix->key.names[i]));
		}
	}
	req.partition_key = names[0].data;
	req.partition_key_type = types[0].data;
	req.sort_key = names[1].len > 0 ? names[1].data : NULL;
	req.sort_key_type = names[1].len > 0 ? types[1].data : "S";
	req.projection = ix->projection;
	req.non_key_attributes = nonkey_array(ix->nonkey);
	req.concurrently = false;
	(void) st_create_gsi(&req);
}

/* Creates LSI ix (its sort attribute defined in t) on table */
static void
create_lsi(text *table, IndexDef *ix, TableDef *t)
{
	StCreateLsiRequest req;

	req.table_name = table;
	req.index_name = ix->name;
	req.sort_key = ix->key.range;
	req.sort_key_type = attr_type(t, ix->key.range);
	req.projection = ix->projection;
	req.non_key_attributes = nonkey_array(ix->nonkey);
	(void) st_create_lsi(&req);
}

Jsonb *
st_ddb_create_table(StDdbCall *call)
{
	StDdbErrors e;
	char	   *name = st_ddb_string(call, "TableName");
	JsonbValue *defs = st_ddb_array(call, "AttributeDefinitions");
	JsonbValue *ks = st_ddb_array(call, "KeySchema");
	JsonbValue *gsis = st_ddb_array(call, "GlobalSecondaryIndexes");
	JsonbValue *lsis = st_ddb_array(call, "LocalSecondaryIndexes");
	char	   *billing = st_ddb_string(call, "BillingMode");
	JsonbValue *pt = st_ddb_object(call, "ProvisionedThroughput");
	JsonbValue *stream = st_ddb_object(call, "StreamSpecification");
	JsonbValue *tags = st_ddb_array(call, "Tags");
	TableDef	t;
	bool		provisioned;
	int64		rcu,
				wcu;
	StCreateTableRequest ct;
	Oid			relid;
	StDdbStreamSpec stream_spec;

	memset(&t, 0, sizeof(t));
	st_ddb_errors_init(&e);
	if (defs == NULL)
		st_ddb_error(&e, "null", "attributeDefinitions", "Member must not be null");
	st_ddb_check_name(&e, name, "tableName", true);
	parse_key_schema(&e, ks, "keySchema", &t.key, false);
	t.n_attrs = array_size(defs);
	t.attr_names = palloc0(sizeof(char *) * Max(t.n_attrs, 1));
	t.attr_types = palloc0(sizeof(char *) * Max(t.n_attrs, 1));
	for (int i = 0; i < t.n_attrs; i++)
	{
		JsonbContainer *c = object_elem(defs, i);
		char	   *p = psprintf("attributeDefinitions.%d.member", i + 1);

		t.attr_names[i] = obj_string(c, "AttributeName");
		t.attr_types[i] = obj_string(c, "AttributeType");
		if (t.attr_names[i] == NULL)
			st_ddb_error(&e, "null", psprintf("%s.attributeName", p), "Member must not be null");
		if (t.attr_types[i] == NULL)
			st_ddb_error(&e, "null", psprintf("%s.attributeType", p), "Member must not be null");
		st_ddb_check_enum(&e, t.attr_types[i], psprintf("%s.attributeType", p), attr_types, "[B, N, S]");
	}
	t.gsi = parse_indexes(&e, gsis, "globalSecondaryIndexes", &t.n_gsi, false, true);
	t.lsi = parse_indexes(&e, lsis, "localSecondaryIndexes", &t.n_lsi, false, false);
	st_ddb_check_enum(&e, billing, "billingMode", billing_modes, "[PROVISIONED, PAY_PER_REQUEST]");
	parse_throughput(&e, pt, "provisionedThroughput", &rcu, &wcu);
	st_ddb_stream_spec_read(&e, stream, &stream_spec);
	st_ddb_errors_raise(&e);

	/* DynamoDB's rules of the definitions, in its order */
	provisioned = billing == NULL || strcmp(billing, "PROVISIONED") == 0;
	if (provisioned && pt == NULL)
		validation("One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED");
	if (!provisioned && pt)
		validation("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST");
	for (int i = 0; i < t.n_attrs; i++)
		for (int j = 0; j < i; j++)
			if (strcmp(t.attr_names[i], t.attr_names[j]) == 0)
				validation("Cannot have two attributes with the same name");
	check_key_schema(&t.key, &t, NULL, false);
	if (t.n_lsi > 5)
		validation("One or more parameter values were invalid: Number of LocalSecondaryIndexes exceeds per-table limit of 5");
	if (t.n_gsi > 20)
		validation("One or more parameter values were invalid: GlobalSecondaryIndex count exceeds the per-table limit of 20");
	for (int i = 0; i < t.n_lsi; i++)
		check_index(&t.lsi[i], &t, true, provisioned);
	for (int i = 0; i < t.n_gsi; i++)
		check_index(&t.gsi[i], &t, false, provisioned);
	for (int i = 0; i < t.n_gsi + t.n_lsi; i++)
		for (int j = 0; j < i; j++)
		{
			IndexDef   *a1 = i < t.n_gsi ? &t.gsi[i] : &t.lsi[i - t.n_gsi];
			IndexDef   *a2 = j < t.n_gsi ? &t.gsi[j] : &t.lsi[j - t.n_gsi];

			if (strcmp(a1->name, a2->name) == 0)
				validation(psprintf("One or more parameter values were invalid: Duplicate index name: %s", a1->name));
		}
	{
		/* every attribute defined is a key attribute of the table or an index */
		for (int i = 0; i < t.n_attrs; i++)
		{
			bool		used = key_uses(&t.key, t.attr_names[i]);

			CHECK_FOR_INTERRUPTS();
			for (int j = 0; j < t.n_gsi + t.n_lsi && !used; j++)
				used = key_uses(j < t.n_gsi ? &t.gsi[j].key : &t.lsi[j - t.n_gsi].key, t.attr_names[i]);
			if (!used)
				validation("One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions");
		}
	}
	st_ddb_stream_spec_check(&stream_spec);
	if (OidIsValid(st_ddb_find_relid(name)))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_TABLE),
				 errmsg("table \"%s\" already exists", name),
				 st_errdetail_dynamodb("Table already exists: %s", name)));

	/* the table, its indexes, its DynamoDB settings, its distribution */
	ct.table_name = st_ddb_table_text(name);
	ct.partition_key = t.key.hash;
	ct.sort_key = t.key.range;
	ct.partition_key_type = attr_type(&t, t.key.hash);
	ct.sort_key_type = t.key.range ? attr_type(&t, t.key.range) : "S";
	ct.dynamodb_name = strlen(name) >= NAMEDATALEN ? name : NULL;
	relid = st_create_table(&ct);
	see_own_writes();
	for (int i = 0; i < t.n_lsi; i++)
		create_lsi(ct.table_name, &t.lsi[i], &t);
	for (int i = 0; i < t.n_gsi; i++)
		create_gsi(ct.table_name, &t.gsi[i], &t);
	see_own_writes_end();
	see_own_writes();
	register_table(relid, provisioned ? "PROVISIONED" : "PAY_PER_REQUEST", rcu, wcu);
	for (int i = 0; i < t.n_gsi; i++)
		if (t.gsi[i].has_throughput)
			register_index_throughput(relid, t.gsi[i].name, t.gsi[i].rcu, t.gsi[i].wcu);
	if (tags)
	{
		/* TagResource's checks and storage */
		JsonbParseState *st = NULL;
		Jsonb	   *req;

		pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		st_push_string(&st, "ResourceArn", psprintf(ARN_PREFIX "%s", name));
		st_push_key(&st, "Tags");
		pushJsonbValue(&st, WJB_VALUE, tags);
		req = end_object(&st);
		{
			StDdbCall	tc = *call;

			tc.req = &req->root;
			(void) st_ddb_tag_resource(&tc);
		}
	}
	/* the stream, enabled with the table (its first write already captured) */
	st_ddb_stream_spec_apply(relid, name, &stream_spec, true);
	see_own_writes_end();
	{
		Jsonb	   *desc;
		DescOpts	opts = {"CREATING", 0, NULL, NULL};	/* its GSIs too */

		/*
		 * Described before it is distributed: the new table is empty either
		 * way, and Citus refuses its size functions in a transaction that
		 * has just distributed a table (a multi-shard modification).
		 */
		see_own_writes();
		desc = table_description(name, "CREATING", &opts);
		see_own_writes_end();
		if ((st_dynamodb_distribute || st_distribute_new_tables) && st_citus_installed())
		{
			StDistributeRequest dr = {ct.table_name, false, 0};

			see_own_writes();
			st_distribute_table(&dr);
			see_own_writes_end();
		}
		return wrap("TableDescription", desc);
	}
}

/* ------------------------------------------------------------ table status */

/*
 * Whether table relid (a table of the schema) is still CREATING: made less
 * than singletable.dynamodb_create_delay ago. Never with the delay 0, the
 * default, which costs nothing: a table is ACTIVE as soon as it is created
 * (CreateTable answers CREATING, every later DescribeTable ACTIVE,
 * DeleteTable DELETING). Until the delay has passed since its creation
 * (singletable.tables.created_at), DynamoDB's rules for a CREATING table
 * apply (st_ddb_check_active, check_not_creating).
 */
static bool
table_creating(Oid relid)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	bool		creating = false;

	if (st_dynamodb_create_delay <= 0)
		return false;
	SPI_connect();
	if (SPI_execute_with_args("SELECT t.created_at FROM singletable.tables t"
							  " WHERE t.table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
							  1, argtypes, values, NULL, true, 1) == SPI_OK_SELECT && SPI_processed == 1)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		if (!isnull)
			creating = !TimestampDifferenceExceeds(DatumGetTimestampTz(d), GetCurrentTimestamp(),
												   st_dynamodb_create_delay);
	}
	SPI_finish();
	return creating;
}

void
st_ddb_check_active(Oid relid, const char *name)
{
	if (table_creating(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("table \"%s\" is still being created", name),
				 errhint("singletable.dynamodb_create_delay is %d ms; DescribeTable says ACTIVE when it is ready.",
						 st_dynamodb_create_delay),
				 st_errdetail_dynamodb("Requested resource not found")));
}

/* DeleteTable and UpdateTable of a table still CREATING: DynamoDB's ResourceInUseException */
static void
check_not_creating(const char *name)
{
	if (table_creating(st_ddb_table_relid(name)))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("table \"%s\" is still being created", name),
				 st_errdetail_dynamodb("Attempt to change a resource which is still in use: Table is being created: %s", name)));
}

/* ------------------------------------------------------------ DeleteTable, DescribeTable */

static char *
required_table(StDdbCall *call)
{
	StDdbErrors e;
	char	   *name = st_ddb_string(call, "TableName");

	st_ddb_errors_init(&e);
	st_ddb_check_name(&e, name, "tableName", true);
	st_ddb_errors_raise(&e);
	return name;
}

Jsonb *
st_ddb_delete_table(StDdbCall *call)
{
	char	   *name = required_table(call);
	Jsonb	   *desc;

	check_not_creating(name);
	desc = table_description(name, "DELETING", NULL);
	st_drop_table(st_ddb_table_text(name));
	return wrap("TableDescription", desc);
}

/* Any table of the schema made by create_table answers DescribeTable too */
Jsonb *
st_ddb_describe_table(StDdbCall *call)
{
	char	   *name = required_table(call);

	return wrap("Table", table_description(name, table_creating(st_ddb_table_relid(name)) ? "CREATING" : "ACTIVE", NULL));
}

/* ------------------------------------------------------------ ListTables */

Jsonb *
st_ddb_list_tables(StDdbCall *call)
{
	StDdbErrors e;
	char	   *start = st_ddb_string(call, "ExclusiveStartTableName");
	int64		limit = 100;
	bool		has_limit = st_ddb_int(call, "Limit", &limit);
	Oid			argtypes[3] = {TEXTOID, TEXTOID, INT8OID};
	Datum		values[3];
	char		nulls[3] = {' ', start ? ' ' : 'n', ' '};
	JsonbParseState *st = NULL;
	char	   *last = NULL;

	st_ddb_errors_init(&e);
	st_ddb_check_name(&e, start, "exclusiveStartTableName", false);
	st_ddb_check_int(&e, has_limit, limit, "limit", 1, 100);
	st_ddb_errors_raise(&e);

	values[0] = text_datum(st_dynamodb_schema && st_dynamodb_schema[0] ? st_dynamodb_schema : "public");
	values[1] = text_datum(start);
	values[2] = Int64GetDatum(limit + 1);
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	st_push_key(&st, "TableNames");
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	SPI_connect();
	/* by DynamoDB's name (a long one is kept in the registry), in DynamoDB's order */
	if (SPI_execute_with_args("SELECT s.name FROM (SELECT COALESCE(t.dynamodb_name, c.relname::pg_catalog.text) AS name"
							  " FROM singletable.tables t"
							  " JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) t.table_name::pg_catalog.oid"
							  " JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace"
							  " WHERE n.nspname OPERATOR(pg_catalog.=) $1) s"
							  " WHERE $2 IS NULL OR s.name COLLATE \"C\" OPERATOR(pg_catalog.>) $2"
							  " ORDER BY s.name COLLATE \"C\" LIMIT $3",
							  3, argtypes, values, nulls, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "listing the tables of the DynamoDB schema failed");
	for (uint64 i = 0; i < SPI_processed && i < (uint64) limit; i++)
	{
		JsonbValue	v;
		char	   *s = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);

		CHECK_FOR_INTERRUPTS();
		v.type = jbvString;
		v.val.string.val = s;
		v.val.string.len = strlen(s);
		pushJsonbValue(&st, WJB_ELEM, &v);
		last = s;
	}
	if (SPI_processed <= (uint64) limit)
		last = NULL;
	pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	if (last)
		st_push_string(&st, "LastEvaluatedTableName", last);
	SPI_finish();
	return end_object(&st);
}

/* ------------------------------------------------------------ UpdateTable */

/* The billing mode and throughput singletable.dynamodb_tables holds for relid (no row: PAY_PER_REQUEST) */
static bool
registered_provisioned(Oid relid, int64 *rcu, int64 *wcu)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	bool		provisioned = false;

	*rcu = *wcu = 0;
	SPI_connect();
	if (SPI_execute_with_args("SELECT d.billing_mode OPERATOR(pg_catalog.=) 'PROVISIONED',"
							  " COALESCE(d.read_capacity_units, 0), COALESCE(d.write_capacity_units, 0)"
							  " FROM singletable." ST_DDB_REGISTRY " d"
							  " WHERE d.table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
							  1, argtypes, values, NULL, true, 1) == SPI_OK_SELECT && SPI_processed == 1)
	{
		bool		isnull;
		HeapTuple	tup = SPI_tuptable->vals[0];
		TupleDesc	td = SPI_tuptable->tupdesc;

		provisioned = DatumGetBool(SPI_getbinval(tup, td, 1, &isnull));
		*rcu = DatumGetInt64(SPI_getbinval(tup, td, 2, &isnull));
		*wcu = DatumGetInt64(SPI_getbinval(tup, td, 3, &isnull));
	}
	SPI_finish();
	return provisioned;
}

/*
 * UpdateTable: creates or deletes one GSI, changes the billing mode, the
 * table's throughput or GSIs' throughput (GlobalSecondaryIndexUpdates'
 * Update). The response describes the table as DynamoDB does while the
 * change is under way: TableStatus UPDATING, the index created CREATING,
 * the index deleted still there and DELETING, the indexes whose throughput
 * changes UPDATING, and the throughput of before the call ("While the table
 * is in the UPDATING state, the table still has the provisioned throughput
 * from before the call", API Reference UpdateTable), except where the
 * billing mode changes, which sets it at once. Every later DescribeTable
 * shows the change done.
 */
/*
 * UpdateTable's AttributeDefinitions may define again an attribute the table
 * or one of its indexes has, with the same type only: an index keyed on an
 * attribute under another type would disagree with the table's.
 */
static void
check_redefinitions(const char *name, TableDef *t)
{
	Jsonb	   *desc = st_describe_table(st_ddb_table_text(name));
	JsonbValue *defs = getKeyJsonValueFromContainer(&desc->root, "AttributeDefinitions",
													strlen("AttributeDefinitions"), NULL);
	int			n = defs ? array_size(defs) : 0;

	for (int i = 0; i < n; i++)
	{
		JsonbContainer *c = object_elem(defs, i);
		char	   *attr = obj_string(c, "AttributeName");
		char	   *type = obj_string(c, "AttributeType");

		CHECK_FOR_INTERRUPTS();
		for (int j = 0; attr && type && j < t->n_attrs; j++)
			if (t->attr_names[j] && t->attr_types[j] && strcmp(t->attr_names[j], attr) == 0 &&
				strcmp(t->attr_types[j], type) != 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("attribute \"%s\" of table \"%s\" is of type %s, AttributeDefinitions says %s",
								attr, name, type, t->attr_types[j]),
						 st_errdetail_dynamodb("invalid attribute, SchemaElement redefined should be of same type as previously defined")));
	}
}

/* A GSI to create must have a name no index of the table has: ValidationException */
static void
check_index_absent(const char *name, const char *index)
{
	Jsonb	   *desc = st_describe_table(st_ddb_table_text(name));

	for (int k = 0; k < 2; k++)
	{
		const char *member = k == 0 ? "GlobalSecondaryIndexes" : "LocalSecondaryIndexes";
		JsonbValue *ixs = getKeyJsonValueFromContainer(&desc->root, member, strlen(member), NULL);
		int			n = ixs ? array_size(ixs) : 0;

		for (int i = 0; i < n; i++)
		{
			char	   *ixname = obj_string(object_elem(ixs, i), "IndexName");

			if (ixname && strcmp(ixname, index) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("index \"%s\" of table \"%s\" already exists", index, name),
						 st_errdetail_dynamodb("Attempting to create an index which already exists")));
		}
	}
}

Jsonb *
st_ddb_update_table(StDdbCall *call)
{
	StDdbErrors e;
	char	   *name = st_ddb_string(call, "TableName");
	JsonbValue *defs = st_ddb_array(call, "AttributeDefinitions");
	JsonbValue *updates = st_ddb_array(call, "GlobalSecondaryIndexUpdates");
	char	   *billing = st_ddb_string(call, "BillingMode");
	JsonbValue *pt = st_ddb_object(call, "ProvisionedThroughput");
	int64		rcu = 0,
				wcu = 0,
				old_rcu,
				old_wcu;
	int			n_updates = array_size(updates);
	int			n_online = 0;
	int			n_upd = 0;
	bool		empty_update = false;
	const char **upd_names = palloc0(sizeof(char *) * Max(n_updates, 1));
	int64	   *upd_rcu = palloc0(sizeof(int64) * Max(n_updates, 1));
	int64	   *upd_wcu = palloc0(sizeof(int64) * Max(n_updates, 1));
	TableDef	t;
	IndexDef	create;
	char	   *drop = NULL;
	Oid			relid;
	bool		was_provisioned,
				provisioned,
				billing_changes;
	DescOpts	opts = {NULL, 0, NULL, NULL};
	Jsonb	   *desc;
	StDdbStreamSpec stream_spec;

	memset(&t, 0, sizeof(t));
	memset(&create, 0, sizeof(create));
	st_ddb_errors_init(&e);
	st_ddb_check_name(&e, name, "tableName", true);
	st_ddb_stream_spec_read(&e, st_ddb_object(call, "StreamSpecification"), &stream_spec);
	st_ddb_check_enum(&e, billing, "billingMode", billing_modes, "[PROVISIONED, PAY_PER_REQUEST]");
	parse_throughput(&e, pt, "provisionedThroughput", &rcu, &wcu);
	t.n_attrs = array_size(defs);
	t.attr_names = palloc0(sizeof(char *) * Max(t.n_attrs, 1));
	t.attr_types = palloc0(sizeof(char *) * Max(t.n_attrs, 1));
	for (int i = 0; i < t.n_attrs; i++)
	{
		JsonbContainer *c = object_elem(defs, i);

		t.attr_names[i] = obj_string(c, "AttributeName");
		t.attr_types[i] = obj_string(c, "AttributeType");
		if (t.attr_names[i] == NULL)
			st_ddb_error(&e, "null", psprintf("attributeDefinitions.%d.member.attributeName", i + 1), "Member must not be null");
		st_ddb_check_enum(&e, t.attr_types[i], psprintf("attributeDefinitions.%d.member.attributeType", i + 1),
						  attr_types, "[B, N, S]");
	}
	for (int i = 0; i < n_updates; i++)
	{
		JsonbContainer *c = object_elem(updates, i);
		JsonbValue *cr = obj_object(c, "Create");
		JsonbValue *del = obj_object(c, "Delete");
		JsonbValue *up = obj_object(c, "Update");

		CHECK_FOR_INTERRUPTS();
		if (cr)
		{
			JsonbParseState *st = NULL;
			JsonbValue *arr;
			int			n;
			IndexDef   *ix;

			/* one index definition, parsed as CreateTable's */
			pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
			pushJsonbValue(&st, WJB_ELEM, cr);
			arr = pushJsonbValue(&st, WJB_END_ARRAY, NULL);
			{
				Jsonb	   *j = JsonbValueToJsonb(arr);
				JsonbValue	jv;

				jv.type = jbvBinary;
				jv.val.binary.data = &j->root;
				jv.val.binary.len = VARSIZE(j) - VARHDRSZ;
				ix = parse_indexes(&e, &jv, psprintf("globalSecondaryIndexUpdates.%d.member.create", i + 1), &n, true, true);
			}
			create = ix[0];
			n_online++;
		}
		if (del)
		{
			drop = obj_string(del->val.binary.data, "IndexName");
			st_ddb_check_name(&e, drop, psprintf("globalSecondaryIndexUpdates.%d.member.delete.indexName", i + 1), true);
			n_online++;
		}
		if (up)
		{
			char	   *p = psprintf("globalSecondaryIndexUpdates.%d.member.update", i + 1);
			JsonbValue *upt = obj_object(up->val.binary.data, "ProvisionedThroughput");

			upd_names[n_upd] = obj_string(up->val.binary.data, "IndexName");
			st_ddb_check_name(&e, upd_names[n_upd], psprintf("%s.indexName", p), true);
			if (upt == NULL)
				st_ddb_error(&e, "null", psprintf("%s.provisionedThroughput", p), "Member must not be null");
			parse_throughput(&e, upt, psprintf("%s.provisionedThroughput", p), &upd_rcu[n_upd], &upd_wcu[n_upd]);
			n_upd++;
		}
		if (!cr && !del && !up)
			empty_update = true;
	}
	st_ddb_errors_raise(&e);
	if (empty_update)
		validation(INVALID "One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null");
	if (n_online > 1)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("UpdateTable creates or deletes one global secondary index per call"),
				 st_errdetail_dynamodb("Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table")));
	st_ddb_stream_spec_check(&stream_spec);
	if (n_updates == 0 && billing == NULL && pt == NULL && !stream_spec.given)
		validation("At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required");

	relid = st_ddb_table_relid(name);
	check_not_creating(name);
	was_provisioned = registered_provisioned(relid, &old_rcu, &old_wcu);
	provisioned = billing ? strcmp(billing, "PROVISIONED") == 0 : was_provisioned;
	billing_changes = provisioned != was_provisioned;
	if (!provisioned && pt)
		validation(INVALID "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST");
	if (billing && provisioned && pt == NULL)
		validation(INVALID "ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED");
	/* DynamoDB's answer to a throughput that would not change (nothing else asked) */
	if (pt && was_provisioned && provisioned && rcu == old_rcu && wcu == old_wcu &&
		n_updates == 0 && !stream_spec.given)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("UpdateTable of table \"%s\" changes nothing: its throughput is already %lld read and %lld write capacity units",
						name, (long long) rcu, (long long) wcu),
				 st_errdetail_dynamodb("The provisioned throughput for the table will not change. The requested value equals the current value. "
									   "Current ReadCapacityUnits provisioned for the table: %lld. Requested ReadCapacityUnits: %lld. "
									   "Current WriteCapacityUnits provisioned for the table: %lld. Requested WriteCapacityUnits: %lld. "
									   "Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
									   (long long) old_rcu, (long long) rcu, (long long) old_wcu, (long long) wcu)));
	if (billing || pt || n_upd > 0)
	{
		/* the caller must own the table to change it; its GSIs' throughput */
		StTable    *tab;
		StringInfoData missing;

		initStringInfo(&missing);
		SPI_connect();
		tab = st_table_open(st_ddb_table_text(name), AccessShareLock, ST_ACL_OWNER);
		for (int i = 0; i < n_upd; i++)
		{
			StIndex    *ix = st_table_index(tab, upd_names[i]);

			if (ix == NULL || ix->is_lsi)
				ereport(ERROR,
						(errcode(ERRCODE_UNDEFINED_TABLE),
						 errmsg("table \"%s\" has no global secondary index \"%s\"", tab->relname, upd_names[i]),
						 st_errdetail_dynamodb("Requested resource not found: Index: %s not found", upd_names[i])));
			if (!provisioned)
				validation(psprintf(INVALID "ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST",
									upd_names[i]));
		}
		/* a table made PROVISIONED needs the throughput of each of its GSIs */
		for (int i = 0; billing_changes && provisioned && i < tab->n_indexes; i++)
		{
			bool		given = tab->indexes[i].is_lsi || (drop && strcmp(drop, tab->indexes[i].name) == 0);

			for (int j = 0; j < n_upd && !given; j++)
				given = strcmp(upd_names[j], tab->indexes[i].name) == 0;
			if (!given)
				appendStringInfo(&missing, "%s%s", missing.len ? "," : "", tab->indexes[i].name);
		}
		SPI_finish();
		if (missing.len)
			validation(psprintf(INVALID "ProvisionedThroughput must be specified for index: %s", missing.data));
	}
	if (create.name)
	{
		check_redefinitions(name, &t);
		check_index_absent(name, create.name);
		/* AttributeDefinitions defines every key attribute of the index, the table's too */
		check_key_schema(&create.key, &t, create.name, true);
		if (create.projection == NULL)
			validation(INVALID "Unknown ProjectionType: null");
		if (strcmp(create.projection, "INCLUDE") != 0 && create.nonkey)
			validation(psprintf(INVALID "ProjectionType is %s, but NonKeyAttributes is specified", create.projection));
		if (provisioned && !create.has_throughput)
			validation(psprintf(INVALID "ProvisionedThroughput must be specified for index: %s", create.name));
		if (!provisioned && create.has_throughput)
			validation(psprintf(INVALID "ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST",
								create.name));
		create_gsi(st_ddb_table_text(name), &create, &t);
		register_index_throughput(relid, create.name, create.has_throughput ? create.rcu : -1, create.wcu);
	}

	/* enabling or disabling the stream: the caller must own the table (commands/) */
	if (stream_spec.given)
	{
		see_own_writes();
		st_ddb_stream_spec_apply(relid, name, &stream_spec, false);
		see_own_writes_end();
	}

	/* what the description shows as changing */
	opts.mark_names = palloc(sizeof(char *) * (n_upd + 2));
	opts.mark_status = palloc(sizeof(char *) * (n_upd + 2));
	if (create.name)
	{
		opts.mark_names[opts.n_marks] = create.name;
		opts.mark_status[opts.n_marks++] = "CREATING";
	}
	if (drop)
	{
		opts.mark_names[opts.n_marks] = drop;
		opts.mark_status[opts.n_marks++] = "DELETING";
	}
	for (int i = 0; i < n_upd; i++)
	{
		opts.mark_names[opts.n_marks] = upd_names[i];
		opts.mark_status[opts.n_marks++] = "UPDATING";
	}

	/* a change of billing mode is described done, a change of throughput not yet */
	for (int pass = 0; pass < 2; pass++)
	{
		if (pass == 1)
		{
			see_own_writes();
			desc = table_description(name, "UPDATING", &opts);
			see_own_writes_end();
		}
		if ((pass == 0) != billing_changes)
			continue;
		if (billing || pt)
			register_table(relid, provisioned ? "PROVISIONED" : "PAY_PER_REQUEST",
						   pt ? rcu : old_rcu, pt ? wcu : old_wcu);
		if (billing_changes && !provisioned)
			register_index_throughput(relid, NULL, 0, 0);
		for (int i = 0; i < n_upd; i++)
			register_index_throughput(relid, upd_names[i], upd_rcu[i], upd_wcu[i]);
	}
	if (drop)
	{
		st_drop_gsi(st_ddb_table_text(name), drop);
		register_index_throughput(relid, drop, -1, 0);
	}
	return wrap("TableDescription", desc);
}

/* ------------------------------------------------------------ TTL */

/* The TTL attribute of a table (NULL: none), read with SELECT rights on it */
static char *
ttl_attribute(const char *name)
{
	MemoryContext outer = CurrentMemoryContext;
	StTable    *tab;
	char	   *attr;

	(void) st_ddb_table_relid(name);
	SPI_connect();
	tab = st_table_open(st_ddb_table_text(name), AccessShareLock, ACL_SELECT);
	attr = tab->ttl_attr ? MemoryContextStrdup(outer, tab->ttl_attr) : NULL;
	SPI_finish();
	return attr;
}

Jsonb *
st_ddb_update_ttl(StDdbCall *call)
{
	StDdbErrors e;
	char	   *name = st_ddb_string(call, "TableName");
	JsonbValue *spec = st_ddb_object(call, "TimeToLiveSpecification");
	char	   *attr = NULL;
	int			enabled = -1;
	char	   *current;
	JsonbParseState *st = NULL;

	st_ddb_errors_init(&e);
	st_ddb_check_name(&e, name, "tableName", true);
	if (spec == NULL)
		st_ddb_error(&e, "null", "timeToLiveSpecification", "Member must not be null");
	else
	{
		JsonbValue *en = obj_member(spec->val.binary.data, "Enabled");

		attr = obj_string(spec->val.binary.data, "AttributeName");
		if (en && en->type != jbvBool)
			st_attrval_serialization_error(en, "Boolean");
		enabled = en ? (en->val.boolean ? 1 : 0) : -1;
		if (attr == NULL)
			st_ddb_error(&e, "null", "timeToLiveSpecification.attributeName", "Member must not be null");
		else if (strlen(attr) < 1 || strlen(attr) > 255)
			st_ddb_error(&e, psprintf("'%s'", attr), "timeToLiveSpecification.attributeName",
						 strlen(attr) < 1 ? "Member must have length greater than or equal to 1" :
						 "Member must have length less than or equal to 255");
		if (enabled < 0)
			st_ddb_error(&e, "null", "timeToLiveSpecification.enabled", "Member must not be null");
	}
	st_ddb_errors_raise(&e);

	current = ttl_attribute(name);
	if (enabled && current)
		validation("TimeToLive is already enabled");
	if (!enabled && current == NULL)
		validation("TimeToLive is already disabled");
	if (!enabled && strcmp(current, attr) != 0)
		validation(psprintf("TimeToLive is active on a different AttributeName: current AttributeName is %s", current));
	if (enabled)
		st_enable_ttl(st_ddb_table_text(name), attr);
	else
		st_disable_ttl(st_ddb_table_text(name));
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	st_push_key(&st, "TimeToLiveSpecification");
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	st_push_string(&st, "AttributeName", attr);
	st_push_bool(&st, "Enabled", enabled == 1);
	pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	return end_object(&st);
}

Jsonb *
st_ddb_describe_ttl(StDdbCall *call)
{
	char	   *name = required_table(call);
	char	   *attr = ttl_attribute(name);
	JsonbParseState *st = NULL;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	st_push_key(&st, "TimeToLiveDescription");
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	if (attr)
		st_push_string(&st, "AttributeName", attr);
	st_push_string(&st, "TimeToLiveStatus", attr ? "ENABLED" : "DISABLED");
	pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	return end_object(&st);
}

/* ------------------------------------------------------------ tags */

/* The table of a ResourceArn; the caller must own it to change its tags (own: true) */
static Oid
arn_table(StDdbCall *call, bool own, const char *empty, char **arn_out)
{
	StDdbErrors e;
	char	   *arn = st_ddb_string(call, "ResourceArn");
	const char *name;
	const char *slash;
	Oid			relid;

	st_ddb_errors_init(&e);
	if (arn == NULL)
		st_ddb_error(&e, "null", "resourceArn", "Member must not be null");
	else if (strlen(arn) < 1 || strlen(arn) > 1283)
		st_ddb_error(&e, psprintf("'%s'", arn), "resourceArn",
					 strlen(arn) < 1 ? "Member must have length greater than or equal to 1" :
					 "Member must have length less than or equal to 1283");
	st_ddb_errors_raise(&e);
	slash = strstr(arn, ":table/");
	if (strncmp(arn, "arn:", 4) != 0 || slash == NULL || strchr(slash + 7, '/') != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid DynamoDB table ARN"),
				 st_errdetail_dynamodb("Invalid TableArn: Invalid ResourceArn provided as input %s", arn)));
	/* an empty Tags or TagKeys list: checked after the ARN, before the table, as DynamoDB does */
	if (empty != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a DynamoDB tag request needs at least one tag"),
				 st_errdetail_dynamodb("%s", empty)));
	name = slash + 7;
	/* an ARN of no table: DynamoDB's answer names the ARN (and spells "ResourcArn") */
	if (!OidIsValid(st_ddb_find_relid(name)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("no table \"%s\" has the ARN given", name),
				 st_errdetail_dynamodb("Requested resource not found: ResourcArn: %s not found", arn)));
	relid = st_ddb_table_relid(name);
	SPI_connect();
	(void) st_table_open(st_ddb_table_text(name), AccessShareLock, own ? ST_ACL_OWNER : ACL_SELECT);
	SPI_finish();
	*arn_out = arn;
	return relid;
}

/* Ensures the table has a row in singletable.dynamodb_tables (a table made by create_table) */
static void
ensure_registered(Oid relid)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};

	SPI_connect();
	st_registry_execute_as_owner(ST_DDB_REGISTRY,
								 "INSERT INTO singletable." ST_DDB_REGISTRY " (table_name, billing_mode)"
								 " VALUES ($1::pg_catalog.regclass, 'PAY_PER_REQUEST') ON CONFLICT (table_name) DO NOTHING",
								 1, argtypes, values, NULL);
	SPI_finish();
}

Jsonb *
st_ddb_tag_resource(StDdbCall *call)
{
	JsonbValue *tags = st_ddb_array(call, "Tags");
	char	   *arn;
	Oid			relid;
	int			n = array_size(tags);
	StDdbErrors e;
	JsonbParseState *st = NULL;
	Jsonb	   *add;

	st_ddb_errors_init(&e);
	if (tags == NULL)
		st_ddb_error(&e, "null", "tags", "Member must not be null");
	/* the tags: Key 1..128, Value 0..256 characters */
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < n; i++)
	{
		JsonbContainer *c = object_elem(tags, i);
		char	   *key = obj_string(c, "Key");
		char	   *value = obj_string(c, "Value");
		char	   *p = psprintf("tags.%d.member", i + 1);

		CHECK_FOR_INTERRUPTS();
		if (key == NULL)
			st_ddb_error(&e, "null", psprintf("%s.key", p), "Member must not be null");
		else if (pg_mbstrlen(key) < 1 || pg_mbstrlen(key) > 128)
			st_ddb_error(&e, psprintf("'%s'", key), psprintf("%s.key", p),
						 pg_mbstrlen(key) < 1 ? "Member must have length greater than or equal to 1" :
						 "Member must have length less than or equal to 128");
		if (value == NULL)
			st_ddb_error(&e, "null", psprintf("%s.value", p), "Member must not be null");
		else if (pg_mbstrlen(value) > 256)
			st_ddb_error(&e, psprintf("'%s'", value), psprintf("%s.value", p),
						 "Member must have length less than or equal to 256");
		if (key && value)
			st_push_string(&st, key, value);
	}
	add = end_object(&st);
	st_ddb_errors_raise(&e);
	relid = arn_table(call, true, n == 0 ? "Atleast one Tag needs to be provided as Input." : NULL, &arn);
	ensure_registered(relid);
	{
		Oid			argtypes[2] = {OIDOID, JSONBOID};
		Datum		values[2] = {ObjectIdGetDatum(relid), JsonbPGetDatum(add)};

		SPI_connect();
		st_registry_execute_as_owner(ST_DDB_REGISTRY,
									 "UPDATE singletable." ST_DDB_REGISTRY " SET tags = tags OPERATOR(pg_catalog.||) $2"
									 " WHERE table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
									 2, argtypes, values, NULL);
		/* DynamoDB's limit: 50 tags per resource */
		if (SPI_execute_with_args("SELECT 1 FROM singletable." ST_DDB_REGISTRY
								  " WHERE table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass"
								  " AND (SELECT pg_catalog.count(*) FROM pg_catalog.jsonb_object_keys(tags)) OPERATOR(pg_catalog.>) 50",
								  1, argtypes, values, NULL, false, 1) == SPI_OK_SELECT && SPI_processed > 0)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("a DynamoDB table has at most 50 tags"),
					 st_errdetail_dynamodb("The number of tags exceeds the limit of 50 for the resource")));
		SPI_finish();
	}
	{
		JsonbParseState *r = NULL;

		pushJsonbValue(&r, WJB_BEGIN_OBJECT, NULL);
		return end_object(&r);
	}
}

Jsonb *
st_ddb_untag_resource(StDdbCall *call)
{
	JsonbValue *keys = st_ddb_array(call, "TagKeys");
	char	   *arn;
	Oid			relid;
	int			n = array_size(keys);
	StDdbErrors e;
	Datum	   *elems;
	JsonbParseState *r = NULL;

	st_ddb_errors_init(&e);
	if (keys == NULL)
		st_ddb_error(&e, "null", "tagKeys", "Member must not be null");
	st_ddb_errors_raise(&e);
	elems = palloc(sizeof(Datum) * Max(n, 1));
	for (int i = 0; i < n; i++)
		elems[i] = text_datum(st_ddb_string_of(getIthJsonbValueFromContainer(keys->val.binary.data, i)));
	relid = arn_table(call, true, n == 0 ? "Atleast one Tag Key needs to be provided as Input." : NULL, &arn);
	{
		Oid			argtypes[2] = {OIDOID, TEXTARRAYOID};
		Datum		values[2] = {ObjectIdGetDatum(relid),
		PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false, TYPALIGN_INT))};

		SPI_connect();
		st_registry_execute_as_owner(ST_DDB_REGISTRY,
									 "UPDATE singletable." ST_DDB_REGISTRY " SET tags = tags OPERATOR(pg_catalog.-) $2"
									 " WHERE table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
									 2, argtypes, values, NULL);
		SPI_finish();
	}
	pushJsonbValue(&r, WJB_BEGIN_OBJECT, NULL);
	return end_object(&r);
}

Jsonb *
st_ddb_list_tags(StDdbCall *call)
{
	char	   *arn;
	Oid			relid = arn_table(call, false, NULL, &arn);
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	JsonbParseState *st = NULL;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	st_push_key(&st, "Tags");
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	SPI_connect();
	if (SPI_execute_with_args("SELECT e.key, e.value FROM singletable." ST_DDB_REGISTRY " d,"
							  " LATERAL pg_catalog.jsonb_each_text(d.tags) e"
							  " WHERE d.table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass"
							  " ORDER BY e.key COLLATE \"C\"",
							  1, argtypes, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "reading the tags of a table failed");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		CHECK_FOR_INTERRUPTS();
		pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		st_push_string(&st, "Key", SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1));
		st_push_string(&st, "Value", SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2));
		pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	}
	pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	SPI_finish();
	return end_object(&st);
}

/* ------------------------------------------------------------ limits, endpoints */

Jsonb *
st_ddb_describe_limits(StDdbCall *call)
{
	JsonbParseState *st = NULL;

	/* DynamoDB's default quotas (there is no throttling here) */
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	st_push_int(&st, "AccountMaxReadCapacityUnits", 80000);
	st_push_int(&st, "AccountMaxWriteCapacityUnits", 80000);
	st_push_int(&st, "TableMaxReadCapacityUnits", 40000);
	st_push_int(&st, "TableMaxWriteCapacityUnits", 40000);
	return end_object(&st);
}

Jsonb *
st_ddb_describe_endpoints(StDdbCall *call)
{
	JsonbParseState *st = NULL;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	st_push_key(&st, "Endpoints");
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	st_push_string(&st, "Address", "localhost");
	st_push_int(&st, "CachePeriodInMinutes", 1440);
	pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	return end_object(&st);
}
