/*
 * dynamodb.c — singletable.dynamodb(operation, request): DynamoDB's JSON
 * protocol over the operations layer.
 *
 * A call looks its operation up in one table of {name, handler} (adding an
 * operation is one line); an unknown name is UnknownOperationException. A
 * handler of an item operation, Query or Scan
 *
 * Design notes: the section on dynamodb.c in README.md of this folder.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "format/attrval.h"
#include "ops/batch.h"
#include "ops/capacity.h"
#include "api/dynamodb.h"
#include "api/dynamodb_legacy.h"
#include "utils/errors.h"
#include "format/jsonbw.h"
#include "format/jsonpush.h"
#include "format/jsontext.h"
#include "format/jsonval.h"
#include "ops/ops.h"
#include "catalog/registry.h"
#include "ops/transact.h"
#include "ops/expr_glue.h"
#include "expr/expr.h"

PG_FUNCTION_INFO_V1(singletable_dynamodb);
PG_FUNCTION_INFO_V1(singletable_dynamodb_as);

char	   *st_dynamodb_schema = NULL;
bool		st_dynamodb_distribute = false;
int			st_dynamodb_create_delay = 0;

/* ------------------------------------------------------------ request members */

JsonbValue *
st_ddb_member(StDdbCall *call, const char *name)
{
	JsonbValue *v = getKeyJsonValueFromContainer(call->req, name, strlen(name), NULL);

	if (v == NULL || v->type == jbvNull)
		return NULL;
	return v;
}

char *
st_ddb_string_of(JsonbValue *v)
{
	if (v->type != jbvString)
		st_attrval_serialization_error(v, "String");
	return pnstrdup(v->val.string.val, v->val.string.len);
}

char *
st_ddb_string(StDdbCall *call, const char *name)
{
	JsonbValue *v = st_ddb_member(call, name);

	return v ? st_ddb_string_of(v) : NULL;
}

JsonbValue *
st_ddb_object(StDdbCall *call, const char *name)
{
	JsonbValue *v = st_ddb_member(call, name);

	if (v && (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data)))
		st_attrval_serialization_error(v, "Map");
	return v;
}

JsonbValue *
st_ddb_array(StDdbCall *call, const char *name)
{
	JsonbValue *v = st_ddb_member(call, name);

	if (v && (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data)))
		st_attrval_serialization_error(v, "List");
	return v;
}

int
st_ddb_bool(StDdbCall *call, const char *name)
{
	JsonbValue *v = st_ddb_member(call, name);

	if (v == NULL)
		return -1;
	if (v->type != jbvBool)
		st_attrval_serialization_error(v, "Boolean");
	return v->val.boolean ? 1 : 0;
}

bool
st_ddb_int(StDdbCall *call, const char *name, int64 *out)
{
	return st_ddb_value_int(st_ddb_member(call, name), name, "Integer", out);
}

/*
 * A request member v (NULL: absent) as an integer; type is the Java type
 * DynamoDB names in its SerializationException ("Integer", "Long").
 */
bool
st_ddb_value_int(JsonbValue *v, const char *name, const char *type, int64 *out)
{
	char	   *s;
	char	   *end;

	if (v == NULL)
		return false;
	if (v->type != jbvNumeric)
		st_attrval_serialization_error(v, type);
	s = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (*end != '\0' || errno != 0)
		ereport(ERROR,
				(errcode(ERRCODE_ST_SERIALIZATION),
				 errmsg("%s of a DynamoDB request is not an integer", name),
				 st_errdetail_dynamodb("NUMBER_VALUE cannot be converted to %s", type)));
	return true;
}

/* ------------------------------------------------------------ validation */

void
st_ddb_errors_init(StDdbErrors *e)
{
	e->n = 0;
	initStringInfo(&e->buf);
}

/* value: already quoted ('x') or "null" */
void
st_ddb_error(StDdbErrors *e, const char *value, const char *path, const char *constraint)
{
	e->n++;
	if (e->n > 10)
		return;
	if (e->n > 1)
		appendStringInfoString(&e->buf, "; ");
	appendStringInfo(&e->buf, "Value %s at '%s' failed to satisfy constraint: %s", value, path, constraint);
}

static char *
quoted(const char *s)
{
	return psprintf("'%s'", s);
}

void
st_ddb_check_name(StDdbErrors *e, const char *name, const char *path, bool required)
{
	int			len;
	bool		pattern = true;

	if (name == NULL)
	{
		if (required)
			st_ddb_error(e, "null", path, "Member must not be null");
		return;
	}
	len = strlen(name);
	for (int i = 0; i < len; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
			  (name[i] >= '0' && name[i] <= '9') || name[i] == '_' || name[i] == '.' || name[i] == '-'))
			pattern = false;
	if (!pattern)
		st_ddb_error(e, quoted(name), path, "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+");
	if (len < 3)
		st_ddb_error(e, quoted(name), path, "Member must have length greater than or equal to 3");
	if (len > 255)
		st_ddb_error(e, quoted(name), path, "Member must have length less than or equal to 255");
}

void
st_ddb_check_enum(StDdbErrors *e, const char *value, const char *path,
				  const char *const *allowed, const char *set)
{
	if (value == NULL)
		return;
	for (int i = 0; allowed[i]; i++)
		if (strcmp(value, allowed[i]) == 0)
			return;
	st_ddb_error(e, quoted(value), path, psprintf("Member must satisfy enum value set: %s", set));
}

void
st_ddb_check_int(StDdbErrors *e, bool given, int64 v, const char *path, int64 min, int64 max)
{
	if (!given)
		return;
	if (v < min)
		st_ddb_error(e, psprintf("'" INT64_FORMAT "'", v), path,
					 psprintf("Member must have value greater than or equal to " INT64_FORMAT, min));
	if (v > max)
		st_ddb_error(e, psprintf("'" INT64_FORMAT "'", v), path,
					 psprintf("Member must have value less than or equal to " INT64_FORMAT, max));
}

void
st_ddb_errors_raise(StDdbErrors *e)
{
	if (e->n == 0)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid DynamoDB request: %d parameter values fail their constraints", e->n),
			 st_errdetail_dynamodb("%d validation error%s detected: %s", e->n, e->n > 1 ? "s" : "",
								   e->buf.data)));
}

/* ------------------------------------------------------------ tables */

static const char *
ddb_schema(void)
{
	return st_dynamodb_schema && st_dynamodb_schema[0] ? st_dynamodb_schema : "public";
}

/*
 * The PostgreSQL name of the table that DynamoDB calls name. A name of up to
 * 63 bytes is its own; a longer one (DynamoDB allows 255) is its first
 * ST_DDB_NAME_PREFIX bytes, a '~' and 16 hex digits of its 64-bit hash:
 * 63 bytes, and never a DynamoDB name itself ('~' is outside DynamoDB's
 * pattern, which every request's TableName is checked against first), so
 * no other DynamoDB name can reach that table. The registry keeps the long
 * name (singletable.tables.dynamodb_name) for ListTables, DescribeTable,
 * ConsumedCapacity and stream ARNs. Two long names with the same first 46
 * bytes and the same 64-bit hash would share a PostgreSQL name: CreateTable
 * of the second one answers that the table exists.
 */
#define ST_DDB_NAME_PREFIX (NAMEDATALEN - 1 - 1 - 16)

char *
st_ddb_relname(const char *name)
{
	size_t		len = strlen(name);
	uint64		h;

	if (len < NAMEDATALEN)
		return (char *) name;
	h = DatumGetUInt64(hash_bytes_extended((const unsigned char *) name, (int) len, 0));
	return psprintf("%.*s~%016" INT64_MODIFIER "x", ST_DDB_NAME_PREFIX, name, h);
}

text *
st_ddb_table_text(const char *name)
{
	return cstring_to_text(quote_qualified_identifier(ddb_schema(), st_ddb_relname(name)));
}

/* The table name names in the schema of singletable.dynamodb, or InvalidOid */
Oid
st_ddb_find_relid(const char *name)
{
	Oid			nsp = get_namespace_oid(ddb_schema(), true);

	if (OidIsValid(nsp) && strlen(name) <= 255)
		return get_relname_relid(st_ddb_relname(name), nsp);
	return InvalidOid;
}

Oid
st_ddb_table_relid(const char *name)
{
	Oid			relid = st_ddb_find_relid(name);

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("table \"%s\" does not exist in schema \"%s\"", name, ddb_schema()),
				 st_errdetail_dynamodb("Requested resource not found")));
	return relid;
}

/* What an item operation needs of its table, read before the operation */
typedef struct DdbTable
{
	text	   *name;			/* qualified, for the operations layer */
	StTable    *tab;			/* as opened, for a read (StGetRequest.tab) */
	StAttrKeys	keys;
	bool		has_lsi;
	int			n_indexes;
	struct
	{
		char	   *name;
		bool		is_lsi;
		StProjectionType projection;
	}		   *indexes;
} DdbTable;

/*
 * Resolves a table and copies its key schema and indexes: with SELECT, the
 * right every operation needs, checked before ACCESS SHARE, the lock any
 * SELECT takes. A read is handed the table so opened (t->tab: the same
 * rights and lock); a write checks its own rights (INSERT, UPDATE, DELETE)
 * before its stronger lock, so a reader's write is refused without queueing
 * behind a lock that conflicts with writes.
 */
static StDdbCall *current_call = NULL;

static Jsonb *jsonb_of(JsonbValue *v);
static Jsonb *values_stored(JsonbValue *vals);

/* The expression members that a request is validated with before its table */
typedef enum WithoutTableExpr
{
	WT_CONDITION,
	WT_UPDATE,
	WT_FILTER,
	WT_PROJECTION,
	WT_NUM
} WithoutTableExpr;

static const char *const without_table_members[WT_NUM] = {
	"ConditionExpression", "UpdateExpression", "FilterExpression", "ProjectionExpression"
};

/*
 * Parses the expressions texts[] (NULL: absent) of a request to table name,
 * which does not exist, with its ExpressionAttributeNames and stored
 * ExpressionAttributeValues: without key attributes, which only the table
 * knows. check_unused: an unused name or value is an error (not for a
 * Query, whose KeyConditionExpression stays unchecked).
 */
static void
parse_without_table(const char *name, Jsonb *names, Jsonb *vals, char *texts[WT_NUM], bool check_unused)
{
	StTable    *tab = palloc0(sizeof(StTable));
	StExprEnv  *env;

	tab->relname = pstrdup(name);
	tab->ddb_name = tab->relname;
	tab->qualname = tab->relname;
	tab->pk_name = "";
	env = st_env_build(tab, names, vals);
	for (int i = 0; i < WT_NUM; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (texts[i] == NULL)
			continue;
		if (i == WT_UPDATE)
			(void) st_parse_update(texts[i], env);
		else if (i == WT_PROJECTION)
			(void) st_parse_projection(texts[i], env);
		else
			(void) st_parse_condition(texts[i], i == WT_FILTER ? SE_FILTER : SE_CONDITION, env);
	}
	if (check_unused)
		st_expr_check_unused(env);
}

/*
 * A request to a table that does not exist: validated first as far as it can
 * be without the table, as DynamoDB validates a request completely before it
 * looks the table up — its ExpressionAttributeValues, then its expressions
 * (parsed without key attributes, which only the table knows: a Query's
 * KeyConditionExpression, and the unused placeholders then, stay unchecked).
 * A request that passes gets ResourceNotFoundException.
 */
static void
validate_without_table(StDdbCall *call, const char *name)
{
	char	   *texts[WT_NUM];

	st_ddb_check_expression_members(call);
	/* the Item or Key's AttributeValues (without key rules), then ReturnValues */
	if (strcmp(call->op, "PutItem") == 0 || strcmp(call->op, "DeleteItem") == 0 ||
		strcmp(call->op, "UpdateItem") == 0 || strcmp(call->op, "GetItem") == 0)
	{
		JsonbValue *m = st_ddb_object(call, strcmp(call->op, "PutItem") == 0 ? "Item" : "Key");
		char	   *rv = st_ddb_string(call, "ReturnValues");

		if (m)
			(void) st_attrval_map_to_stored(m, strcmp(call->op, "PutItem") == 0 ? ST_AV_ITEM : ST_AV_KEY, NULL);
		if (rv && strcmp(call->op, "GetItem") != 0)
			(void) st_parse_return_values(rv, call->op, strcmp(call->op, "UpdateItem") != 0);
	}
	for (int i = 0; i < WT_NUM; i++)
		texts[i] = st_ddb_string(call, without_table_members[i]);
	parse_without_table(name, jsonb_of(st_ddb_object(call, "ExpressionAttributeNames")),
						values_stored(st_ddb_object(call, "ExpressionAttributeValues")), texts,
						strcmp(call->op, "Query") != 0);
}

static void
ddb_open(const char *name, DdbTable *t)
{
	StTable    *tab;

	if (current_call && !OidIsValid(st_ddb_find_relid(name)))
		validate_without_table(current_call, name);
	st_ddb_check_active(st_ddb_table_relid(name), name);
	/* no SPI connection: st_table_open makes one only to read a table it has not cached */
	tab = st_table_open_in(ddb_schema(), st_ddb_relname(name), AccessShareLock, ACL_SELECT);
	/* st_ddb_table_text(name): the same names, quoted when the entry was built */
	t->name = cstring_to_text(tab->qualname);
	t->tab = tab;
	t->keys.pk_name = pstrdup(tab->pk_name);
	t->keys.pk_type = tab->pk_type;
	t->keys.sk_name = tab->sk_name ? pstrdup(tab->sk_name) : NULL;
	t->keys.sk_type = tab->sk_type;
	t->n_indexes = tab->n_indexes;
	t->has_lsi = false;
	t->indexes = palloc0(sizeof(*t->indexes) * Max(tab->n_indexes, 1));
	for (int i = 0; i < tab->n_indexes; i++)
	{
		t->indexes[i].name = pstrdup(tab->indexes[i].name);
		t->indexes[i].is_lsi = tab->indexes[i].is_lsi;
		t->indexes[i].projection = tab->indexes[i].projection;
		if (tab->indexes[i].is_lsi)
			t->has_lsi = true;
	}
}

/* ------------------------------------------------------------ JSON building */

static Jsonb *
end_object(JsonbParseState **st)
{
	return JsonbValueToJsonb(pushJsonbValue(st, WJB_END_OBJECT, NULL));
}

/*
 * The memory a response is built in before it becomes one jsonb: a
 * per-backend context whose first 256 kB stay allocated between calls, so
 * that building a page of items (a tree of JsonbValues many times the size of
 * the items) does not return its memory to the operating system and fault
 * it in again at every call. Reset at the start of each call that uses it.
 */
static MemoryContext
response_context(void)
{
	static MemoryContext cxt = NULL;

	if (cxt == NULL)
		cxt = AllocSetContextCreate(TopMemoryContext, "singletable dynamodb response",
									256 * 1024, 256 * 1024, ALLOCSET_DEFAULT_MAXSIZE);
	else
		MemoryContextReset(cxt);
	return cxt;
}

/* ------------------------------------------------------------ shared parameters */

static const char *const rcc_values[] = {"INDEXES", "TOTAL", "NONE", NULL};
static const char *const ricm_values[] = {"SIZE", "NONE", NULL};
static const char *const rv_values[] = {"ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW", NULL};
static const char *const rvoccf_values[] = {"ALL_OLD", "NONE", NULL};
static const char *const select_values[] = {"SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES",
"ALL_PROJECTED_ATTRIBUTES", NULL};

/* The parameters every write shares */
typedef struct WriteParams
{
	char	   *table;
	char	   *rcc;			/* ReturnConsumedCapacity */
	char	   *ricm;			/* ReturnItemCollectionMetrics */
	char	   *rv;				/* ReturnValues */
	char	   *rvoccf;			/* ReturnValuesOnConditionCheckFailure */
	bool		old_on_failure; /* it is ALL_OLD */
	StExprText	expr;
	JsonbValue *vals;			/* wire ExpressionAttributeValues */
} WriteParams;

static Jsonb *
jsonb_of(JsonbValue *v)
{
	return v ? JsonbValueToJsonb(v) : NULL;
}

/* Reads and checks (into e) TableName, the Return* enums and the expression parameters. */
static void
write_params(StDdbCall *call, StDdbErrors *e, WriteParams *p)
{
	JsonbValue *names = st_ddb_object(call, "ExpressionAttributeNames");

	p->table = st_ddb_string(call, "TableName");
	p->rcc = st_ddb_string(call, "ReturnConsumedCapacity");
	p->ricm = st_ddb_string(call, "ReturnItemCollectionMetrics");
	p->rv = st_ddb_string(call, "ReturnValues");
	p->rvoccf = st_ddb_string(call, "ReturnValuesOnConditionCheckFailure");
	p->old_on_failure = p->rvoccf && strcmp(p->rvoccf, "ALL_OLD") == 0;
	p->expr.condition = st_ddb_string(call, "ConditionExpression");
	p->expr.names = jsonb_of(names);
	p->vals = st_ddb_object(call, "ExpressionAttributeValues");
	p->expr.vals = NULL;
	st_ddb_check_enum(e, p->rcc, "returnConsumedCapacity", rcc_values, "[INDEXES, TOTAL, NONE]");
	st_ddb_check_enum(e, p->ricm, "returnItemCollectionMetrics", ricm_values, "[SIZE, NONE]");
	st_ddb_check_enum(e, p->rv, "returnValues", rv_values,
					  "[ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]");
	st_ddb_check_enum(e, p->rvoccf, "returnValuesOnConditionCheckFailure", rvoccf_values,
					  "[ALL_OLD, NONE]");
	st_ddb_check_name(e, p->table, "tableName", true);
}

/* ExpressionAttributeValues in stored form */
static Jsonb *
values_stored(JsonbValue *vals)
{
	return vals ? st_attrval_map_to_stored(vals, ST_AV_VALUES, NULL) : NULL;
}

/* ConsumedCapacity as ReturnConsumedCapacity asked (TOTAL: without the per-part maps) */
/* Pushes (as tok) one ConsumedCapacity object without its Table and index maps */
static void
push_total(JsonbParseState **st, JsonbIteratorToken tok, JsonbContainer *obj)
{
	JsonbIterator *it = JsonbIteratorInit(obj);
	JsonbValue	k,
				v;
	JsonbValue *res;
	JsonbParseState *sub = NULL;
	Jsonb	   *j;
	JsonbValue	jv;

	pushJsonbValue(&sub, WJB_BEGIN_OBJECT, NULL);
	while (st_jbv_next_member(&it, &k, &v))
	{
		if (v.type == jbvBinary)
			continue;			/* Table, GlobalSecondaryIndexes, LocalSecondaryIndexes */
		pushJsonbValue(&sub, WJB_KEY, &k);
		pushJsonbValue(&sub, WJB_VALUE, &v);
	}
	res = pushJsonbValue(&sub, WJB_END_OBJECT, NULL);
	j = JsonbValueToJsonb(res);
	st_jbv_jsonb(&jv, j);
	pushJsonbValue(st, tok, &jv);
}

static void
push_capacity(JsonbParseState **st, const char *rcc)
{
	Jsonb	   *cc;

	if (rcc == NULL || strcmp(rcc, "NONE") == 0)
		return;
	cc = st_last_consumed_capacity();
	if (cc == NULL)
		return;
	if (strcmp(rcc, "INDEXES") == 0)
	{
		st_push_jsonb(st, "ConsumedCapacity", cc);
		return;
	}
	/* TOTAL: each table's totals without its Table/index parts (a batch's list: each element) */
	st_push_key(st, "ConsumedCapacity");
	if (JB_ROOT_IS_OBJECT(cc))
		push_total(st, WJB_VALUE, &cc->root);
	else
	{
		JsonbIterator *it = JsonbIteratorInit(&cc->root);
		JsonbValue	e;
		JsonbIteratorToken tok;

		pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
		while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
			if (tok == WJB_ELEM && e.type == jbvBinary)
				push_total(st, WJB_ELEM, e.val.binary.data);
		pushJsonbValue(st, WJB_END_ARRAY, NULL);
	}
}

/* ConsumedCapacity as a response member (see push_capacity); false when there is none */
static bool
capacity_member(const char *rcc, JsonbValue *k, JsonbValue *v)
{
	JsonbParseState *st = NULL;
	Jsonb	   *j;
	JsonbValue *cc;

	if (rcc == NULL || strcmp(rcc, "NONE") == 0)
		return false;
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	push_capacity(&st, rcc);
	j = end_object(&st);
	cc = getKeyJsonValueFromContainer(&j->root, "ConsumedCapacity", strlen("ConsumedCapacity"), NULL);
	if (cc == NULL)
		return false;
	st_jbv_string(k, "ConsumedCapacity");
	*v = *cc;
	return true;
}

/*
 * ItemCollectionMetrics of a write to a table with a local secondary index
 * (ReturnItemCollectionMetrics SIZE): the item collection's key and
 * DynamoDB's estimate range of its size in GB, from the bytes its items take.
 */
static void
push_collection_metrics(JsonbParseState **st, const char *ricm, DdbTable *t, StKeyText *pk)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		values[1];
	char	   *sql;
	double		gb = 0;
	JsonbValue	v;

	if (ricm == NULL || strcmp(ricm, "SIZE") != 0 || !t->has_lsi)
		return;
	values[0] = PointerGetDatum(cstring_to_text_with_len(pk->data, pk->len));
	sql = psprintf("SELECT COALESCE(pg_catalog.sum(pg_catalog.pg_column_size(t.*)), 0)::pg_catalog.float8"
				   " FROM %s t WHERE %s OPERATOR(pg_catalog.=) $1::%s",
				   text_to_cstring(t->name), quote_identifier(t->keys.pk_name),
				   t->keys.pk_type == ST_KEY_N ? "pg_catalog.numeric" :
				   t->keys.pk_type == ST_KEY_B ? "pg_catalog.bytea" : "pg_catalog.text");
	if (t->keys.pk_type == ST_KEY_B)
		sql = psprintf("SELECT COALESCE(pg_catalog.sum(pg_catalog.pg_column_size(t.*)), 0)::pg_catalog.float8"
					   " FROM %s t WHERE %s OPERATOR(pg_catalog.=) pg_catalog.decode($1, 'base64')",
					   text_to_cstring(t->name), quote_identifier(t->keys.pk_name));
	SPI_connect();
	if (SPI_execute_with_args(sql, 1, argtypes, values, NULL, true, 1) == SPI_OK_SELECT &&
		SPI_processed == 1)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		if (!isnull)
			gb = DatumGetFloat8(d) / (1024.0 * 1024.0 * 1024.0);
	}
	SPI_finish();

	st_push_key(st, "ItemCollectionMetrics");
	pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
	st_push_key(st, "ItemCollectionKey");
	pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
	st_push_key(st, t->keys.pk_name);
	pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
	st_push_key(st, t->keys.pk_type == ST_KEY_S ? "S" : t->keys.pk_type == ST_KEY_N ? "N" : "B");
	v.type = jbvString;
	v.val.string.val = (char *) pk->data;
	v.val.string.len = pk->len;
	pushJsonbValue(st, WJB_VALUE, &v);
	pushJsonbValue(st, WJB_END_OBJECT, NULL);
	pushJsonbValue(st, WJB_END_OBJECT, NULL);
	st_push_key(st, "SizeEstimateRangeGB");
	pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
	v.type = jbvNumeric;
	v.val.numeric = DatumGetNumeric(DirectFunctionCall1(float8_numeric, Float8GetDatum(floor(gb))));
	pushJsonbValue(st, WJB_ELEM, &v);
	v.val.numeric = DatumGetNumeric(DirectFunctionCall1(float8_numeric, Float8GetDatum(floor(gb) + 1)));
	pushJsonbValue(st, WJB_ELEM, &v);
	pushJsonbValue(st, WJB_END_ARRAY, NULL);
	pushJsonbValue(st, WJB_END_OBJECT, NULL);
}

/* The response of a write: Attributes, ConsumedCapacity, ItemCollectionMetrics */
static Jsonb *
write_response(Jsonb *attrs, WriteParams *p, DdbTable *t, StKeyText *pk)
{
	JsonbParseState *st = NULL;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	if (attrs && JB_ROOT_COUNT(attrs) > 0)
		st_push_jsonb(&st, "Attributes", st_attrval_from_stored(attrs, &t->keys));
	push_capacity(&st, p->rcc);
	push_collection_metrics(&st, p->ricm, t, pk);
	return end_object(&st);
}

/* The key text of a stored item's partition key (for ItemCollectionMetrics) */
static StKeyText
item_pk(Jsonb *item, DdbTable *t)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&item->root, t->keys.pk_name,
												 strlen(t->keys.pk_name), NULL);
	StKeyText	r = {"", 0};

	if (v && v->type == jbvString)
	{
		r.data = v->val.string.val;
		r.len = v->val.string.len;
	}
	else if (v && v->type == jbvNumeric)
	{
		r.data = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
		r.len = strlen(r.data);
	}
	return r;
}

/*
 * The start of PutItem, DeleteItem and UpdateItem: reads and checks the
 * shared parameters and the required map member (Item or Key; param names
 * it in DynamoDB's message), raising every error found at once, then opens
 * the table and arms the failed condition's item for dynamodb_error.
 * Returns the member.
 */
static JsonbValue *
write_begin(StDdbCall *call, WriteParams *p, const char *member, const char *param, DdbTable *t)
{
	StDdbErrors e;
	JsonbValue *v = st_ddb_object(call, member);

	st_ddb_errors_init(&e);
	write_params(call, &e, p);
	if (v == NULL)
		st_ddb_error(&e, "null", param, "Member must not be null");
	st_ddb_errors_raise(&e);
	ddb_open(p->table, t);
	call->want_failure_item = p->old_on_failure;
	call->keys = t->keys;
	return v;
}

/* ------------------------------------------------------------ responses of reads */

/*
 * The response document of GetItem, Query and Scan, member by member: as
 * the members of a jsonb (singletable.dynamodb), or as JSON text written as
 * they come (singletable.dynamodb_as, StDdbCall.text). A handler decides the
 * members once, through these calls; only they know the two forms.
 */
#define RESP_MAX 6

typedef struct Resp
{
	StringInfo	text;			/* NULL: a jsonb */
	int			n;
	JsonbValue	keys[RESP_MAX];
	JsonbValue	values[RESP_MAX];
	int			array_at;		/* the member Items (its value: the page's items), -1: none */
} Resp;

static void
resp_init(Resp *r, StringInfo text)
{
	r->text = text;
	r->n = 0;
	r->array_at = -1;
	if (text)
		st_jtext_char(text, '{');
}

/* Begins member key: in text, writes its key; in jsonb, returns its value for the caller to set */
static JsonbValue *
resp_key(Resp *r, const char *key)
{
	if (r->n == RESP_MAX)
		elog(ERROR, "a response has more than %d members", RESP_MAX);
	if (r->text)
	{
		if (r->n > 0)
			st_jtext_char(r->text, ',');
		st_jtext_string(r->text, key, strlen(key));
		st_jtext_char(r->text, ':');
		r->n++;
		return NULL;
	}
	st_jbv_string(&r->keys[r->n], key);
	return &r->values[r->n++];
}

/* A member whose value is a stored item (or key) in wire form */
static void
resp_stored(Resp *r, const char *key, Jsonb *stored, const StAttrKeys *keys)
{
	JsonbValue *v = resp_key(r, key);

	if (r->text)
		st_attrval_text_stored(r->text, &stored->root, keys, NULL);
	else
		st_jbv_jsonb(v, st_attrval_from_stored(stored, keys));
}

/* A member whose value is a number */
static void
resp_int(Resp *r, const char *key, int64 value)
{
	JsonbValue *v = resp_key(r, key);

	if (r->text)
		st_jtext_int(r->text, value);
	else
	{
		v->type = jbvNumeric;
		v->val.numeric = int64_to_numeric(value);
	}
}

/* ConsumedCapacity as rcc asks for it (capacity_member), when there is one */
static void
resp_capacity(Resp *r, const char *rcc)
{
	JsonbValue	k,
				cc;
	JsonbValue *v;

	if (!capacity_member(rcc, &k, &cc))
		return;
	v = resp_key(r, "ConsumedCapacity");
	if (r->text)
		st_jtext_value(r->text, &cc);
	else
		*v = cc;
}

/*
 * Begins the member Items: in text, its array, which the page's rows then
 * write their items into; in jsonb, its place (resp_finish's array).
 */
static void
resp_items_begin(Resp *r)
{
	(void) resp_key(r, "Items");
	if (r->text)
		st_jtext_char(r->text, '[');
	else
		r->array_at = r->n - 1;
}

static void
resp_items_end(Resp *r)
{
	if (r->text)
		st_jtext_char(r->text, ']');
}

/* Ends the response: its jsonb (items: the array of Items), or NULL when it is written as text */
static Jsonb *
resp_finish(Resp *r, const StJbwChildren *items)
{
	if (r->text)
	{
		st_jtext_char(r->text, '}');
		return NULL;
	}
	return st_jbw_object_array(r->n, r->keys, r->values, r->array_at, items);
}

/* ------------------------------------------------------------ items */

static Jsonb *
ddb_put_item(StDdbCall *call)
{
	WriteParams p;
	DdbTable	t;
	JsonbValue *item = write_begin(call, &p, "Item", "item", &t);
	StPutRequest req;
	Jsonb	   *res;
	StKeyText	pk;

	memset(&req, 0, sizeof(req));
	req.table_name = t.name;
	req.item = st_attrval_map_to_stored(item, ST_AV_ITEM, &t.keys);
	req.expr = p.expr;
	req.expr.vals = values_stored(p.vals);
	req.return_values = p.rv ? st_parse_return_values(p.rv, "PutItem", true) : ST_RV_NONE;
	req.return_old_on_failure = p.old_on_failure;
	res = st_op_put(&req);
	pk = item_pk(req.item, &t);
	return write_response(res, &p, &t, &pk);
}

static Jsonb *
ddb_delete_item(StDdbCall *call)
{
	WriteParams p;
	DdbTable	t;
	JsonbValue *key = write_begin(call, &p, "Key", "key", &t);
	StDeleteRequest req;
	Jsonb	   *res;

	memset(&req, 0, sizeof(req));
	req.table_name = t.name;
	st_attrval_key(key, &t.keys, &req.pk, &req.sk);
	req.expr = p.expr;
	req.expr.vals = values_stored(p.vals);
	req.return_values = p.rv ? st_parse_return_values(p.rv, "DeleteItem", true) : ST_RV_NONE;
	req.return_old_on_failure = p.old_on_failure;
	res = st_op_delete(&req);
	return write_response(res, &p, &t, &req.pk);
}

static Jsonb *
ddb_update_item(StDdbCall *call)
{
	WriteParams p;
	DdbTable	t;
	JsonbValue *key = write_begin(call, &p, "Key", "key", &t);
	StUpdateRequest req;
	Jsonb	   *res;

	memset(&req, 0, sizeof(req));
	req.table_name = t.name;
	st_attrval_key(key, &t.keys, &req.pk, &req.sk);
	req.update = st_ddb_string(call, "UpdateExpression");
	req.expr = p.expr;
	req.expr.vals = values_stored(p.vals);
	req.return_values = p.rv ? st_parse_return_values(p.rv, "UpdateItem", false) : ST_RV_NONE;
	req.return_old_on_failure = p.old_on_failure;
	res = st_op_update(&req);
	return write_response(res, &p, &t, &req.pk);
}

static Jsonb *
ddb_get_item(StDdbCall *call)
{
	StDdbErrors e;
	char	   *table = st_ddb_string(call, "TableName");
	JsonbValue *key = st_ddb_object(call, "Key");
	char	   *rcc = st_ddb_string(call, "ReturnConsumedCapacity");
	JsonbValue *names = st_ddb_object(call, "ExpressionAttributeNames");
	int			consistent = st_ddb_bool(call, "ConsistentRead");
	char	   *projection = st_ddb_string(call, "ProjectionExpression");
	DdbTable	t;
	StGetRequest req;
	Jsonb	   *item;
	MemoryContext old;
	Resp		r;
	Jsonb	   *res;

	st_ddb_errors_init(&e);
	st_ddb_check_enum(&e, rcc, "returnConsumedCapacity", rcc_values, "[INDEXES, TOTAL, NONE]");
	st_ddb_check_name(&e, table, "tableName", true);
	if (key == NULL)
		st_ddb_error(&e, "null", "key", "Member must not be null");
	st_ddb_errors_raise(&e);

	ddb_open(table, &t);
	memset(&req, 0, sizeof(req));
	req.table_name = t.name;
	req.tab = t.tab;
	st_attrval_key(key, &t.keys, &req.pk, &req.sk);
	req.projection = projection;
	req.names = jsonb_of(names);
	/* DynamoDB's default is eventually consistent (the SQL functions' is strong) */
	req.consistent_read = consistent == 1 ? 1 : 0;
	item = st_op_get(&req);

	old = MemoryContextSwitchTo(response_context());
	resp_init(&r, call->text);
	if (item)
		resp_stored(&r, "Item", item, &t.keys);
	resp_capacity(&r, rcc);
	res = resp_finish(&r, NULL);
	MemoryContextSwitchTo(old);
	return res;
}

/* ------------------------------------------------------------ Query and Scan */

/*
 * The items of a page, in wire form: each written as a container into one
 * buffer as its row arrives (no copy of the stored item, no JsonbValue
 * tree), in memory that outlives each row's; read_response makes them the
 * Items array. In text, each is written as it arrives into the response's
 * Items, which page_init has begun.
 */
typedef struct WirePage
{
	MemoryContext cxt;
	Resp		resp;			/* the response */
	StringInfoData items;		/* the items' containers, one after the other */
	JEntry	   *entries;		/* the JEntry of each */
	int			n;
	int			size;			/* of entries */
	const StAttrKeys *keys;
	bool		count_only;		/* Select COUNT: no Items */
} WirePage;

/* The item's size is counted as it is written, when asked for (StQueryRowFn) */
static bool
wire_row(void *arg, text *pk, text *sk, Jsonb *item, int64 *size)
{
	WirePage   *p = (WirePage *) arg;
	JEntry		e;

	if (p->count_only || item == NULL)
		return false;
	if (size)
		*size = 0;
	/* the buffers grow in their own context (repalloc); garbage stays in the row's */
	if (p->resp.text)
	{
		if (p->n++ > 0)
			st_jtext_char(p->resp.text, ',');
		st_attrval_text_stored(p->resp.text, &item->root, p->keys, size);
		return size != NULL;
	}
	e = st_attrval_write_stored(&p->items, &item->root, p->keys, size);
	if (p->n == p->size)
	{
		p->size *= 2;
		p->entries = repalloc(p->entries, sizeof(JEntry) * p->size);
	}
	p->entries[p->n++] = e;
	return size != NULL;
}

/* The parameters Query and Scan share */
typedef struct ReadParams
{
	char	   *table;
	char	   *index;
	char	   *select;
	char	   *rcc;
	char	   *filter;
	char	   *projection;
	JsonbValue *names;
	JsonbValue *vals;
	JsonbValue *start;
	bool		has_limit;
	int64		limit;
	int			consistent;
} ReadParams;

static void
read_params(StDdbCall *call, StDdbErrors *e, ReadParams *p)
{
	p->table = st_ddb_string(call, "TableName");
	p->index = st_ddb_string(call, "IndexName");
	p->select = st_ddb_string(call, "Select");
	p->rcc = st_ddb_string(call, "ReturnConsumedCapacity");
	p->filter = st_ddb_string(call, "FilterExpression");
	p->projection = st_ddb_string(call, "ProjectionExpression");
	p->names = st_ddb_object(call, "ExpressionAttributeNames");
	p->vals = st_ddb_object(call, "ExpressionAttributeValues");
	p->start = st_ddb_object(call, "ExclusiveStartKey");
	p->has_limit = st_ddb_int(call, "Limit", &p->limit);
	/* DynamoDB's default is eventually consistent (the SQL functions' is strong) */
	p->consistent = st_ddb_bool(call, "ConsistentRead") == 1 ? 1 : 0;
	st_ddb_check_enum(e, p->rcc, "returnConsumedCapacity", rcc_values, "[INDEXES, TOTAL, NONE]");
	st_ddb_check_enum(e, p->select, "select", select_values,
					  "[SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]");
	st_ddb_check_int(e, p->has_limit, p->limit, "limit", 1, PG_INT32_MAX);
	st_ddb_check_name(e, p->index, "indexName", false);
	st_ddb_check_name(e, p->table, "tableName", true);
}

/* DynamoDB's checks of Select against ProjectionExpression and the index */
static void
check_select(ReadParams *p, DdbTable *t, const char *what)
{
	if (p->select == NULL)
		return;
	if (strcmp(p->select, "SPECIFIC_ATTRIBUTES") == 0)
	{
		if (p->projection == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("Select SPECIFIC_ATTRIBUTES needs a ProjectionExpression"),
					 st_errdetail_dynamodb("1 validation error detected: Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES")));
		return;
	}
	if (p->projection)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a ProjectionExpression needs Select SPECIFIC_ATTRIBUTES, not %s", p->select),
				 st_errdetail_dynamodb("Cannot specify the ProjectionExpression when choosing to get %s",
									   p->select)));
	if (strcmp(p->select, "ALL_PROJECTED_ATTRIBUTES") == 0 && p->index == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("Select ALL_PROJECTED_ATTRIBUTES needs an IndexName"),
				 st_errdetail_dynamodb("ALL_PROJECTED_ATTRIBUTES can be used only when %s using an IndexName",
									   what)));
	if (strcmp(p->select, "ALL_ATTRIBUTES") == 0 && p->index)
		for (int i = 0; i < t->n_indexes; i++)
			if (strcmp(t->indexes[i].name, p->index) == 0 && !t->indexes[i].is_lsi &&
				t->indexes[i].projection != ST_PROJ_ALL)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("Select ALL_ATTRIBUTES on global secondary index \"%s\", whose projection is not ALL",
								p->index),
						 st_errdetail_dynamodb("One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index %s because its projection type is not ALL",
											   p->index)));
}

/* ExclusiveStartKey in stored form: its key attributes of the table's types, B keys plain */
static Jsonb *
start_key_stored(JsonbValue *start, DdbTable *t)
{
	Jsonb	   *j;
	StAttrKeys	keys = t->keys;

	if (start == NULL)
		return NULL;
	j = st_attrval_map_to_stored(start, ST_AV_VALUES, NULL);
	/* convert again with the table's B keys plain, once the values are known valid */
	if (keys.pk_type == ST_KEY_B || (keys.sk_name && keys.sk_type == ST_KEY_B))
	{
		StVal	   *map;
		bool		canonical;
		const char *b_keys[2] = {NULL, NULL};

		map = st_jsonb_to_val(j, "ExclusiveStartKey", &canonical);
		if (keys.pk_type == ST_KEY_B)
		{
			StVal	   *v = st_val_map_get(map, keys.pk_name, strlen(keys.pk_name));

			if (v && v->type != SV_B)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("key attribute \"%s\" of the ExclusiveStartKey is not of type B", keys.pk_name),
						 st_errdetail_dynamodb("The provided starting key is invalid: The provided key element does not match the schema")));
			b_keys[0] = keys.pk_name;
		}
		if (keys.sk_name && keys.sk_type == ST_KEY_B)
		{
			StVal	   *v = st_val_map_get(map, keys.sk_name, strlen(keys.sk_name));

			if (v && v->type != SV_B)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("key attribute \"%s\" of the ExclusiveStartKey is not of type B", keys.sk_name),
						 st_errdetail_dynamodb("The provided starting key is invalid: The provided key element does not match the schema")));
			b_keys[1] = keys.sk_name;
		}
		j = st_val_to_jsonb(map, b_keys);
	}
	return j;
}

/* The response of a Query or Scan page: Items, Count, ScannedCount, LastEvaluatedKey, ConsumedCapacity */
static Jsonb *
read_response(WirePage *page, StReadResult *res, ReadParams *p, DdbTable *t)
{
	MemoryContext old = MemoryContextSwitchTo(page->cxt);
	Resp	   *r = &page->resp;
	StJbwChildren items = {page->items.data, page->items.len, page->entries, page->n};
	Jsonb	   *j;

	/* the items as written: in jsonb, copied once, into the response */
	if (!page->count_only)
		resp_items_end(r);
	if (res->last_key)
		resp_stored(r, "LastEvaluatedKey", res->last_key, &t->keys);
	resp_int(r, "Count", (int64) res->count);
	resp_int(r, "ScannedCount", (int64) res->scanned);
	resp_capacity(r, p->rcc);
	j = resp_finish(r, &items);
	MemoryContextSwitchTo(old);
	return j;
}

/* Prepares the page the rows fill (text: the response's text, else NULL) */
static void
page_init(WirePage *page, ReadParams *p, DdbTable *t, StringInfo text)
{
	MemoryContext old;

	page->cxt = response_context();
	page->keys = &t->keys;
	page->count_only = p->select && strcmp(p->select, "COUNT") == 0;
	page->n = 0;
	resp_init(&page->resp, text);
	if (!page->count_only)
		resp_items_begin(&page->resp);
	if (text)
	{
		/* the items go into the text; the same room as below */
		if (!page->count_only)
			enlargeStringInfo(text, 16 * 1024);
		memset(&page->items, 0, sizeof(page->items));
		page->entries = NULL;
		page->size = 0;
		return;
	}
	old = MemoryContextSwitchTo(page->cxt);
	initStringInfo(&page->items);
	/* a page of the usual few dozen items without growing (and copying) it on the way */
	if (!page->count_only)
		enlargeStringInfo(&page->items, 16 * 1024);
	page->size = 32;
	page->entries = palloc(sizeof(JEntry) * page->size);
	MemoryContextSwitchTo(old);
}

static Jsonb *
ddb_query(StDdbCall *call)
{
	StDdbErrors e;
	ReadParams	p;
	char	   *keycond = st_ddb_string(call, "KeyConditionExpression");
	int			forward = st_ddb_bool(call, "ScanIndexForward");
	DdbTable	t;
	StQueryRequest req;
	StReadResult res;
	WirePage	page;

	st_ddb_errors_init(&e);
	read_params(call, &e, &p);
	st_ddb_errors_raise(&e);
	/* ExpressionAttributeValues without an expression first, as DynamoDB answers */
	st_ddb_check_expression_members(call);
	if (keycond == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a Query needs a KeyConditionExpression"),
				 st_errdetail_dynamodb("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")));

	ddb_open(p.table, &t);
	check_select(&p, &t, "Querying");
	memset(&req, 0, sizeof(req));
	req.table_name = t.name;
	req.tab = t.tab;
	req.key_condition = keycond;
	req.op = ST_SK_NONE;
	req.forward = forward != 0;
	req.max_items = p.has_limit ? (int32) p.limit : 0;
	req.start_key = start_key_stored(p.start, &t);
	req.filter = p.filter;
	req.projection = p.projection;
	req.names = jsonb_of(p.names);
	req.vals = values_stored(p.vals);
	req.index_name = p.index;
	/* ALL_ATTRIBUTES on an LSI fetches each item from the table (sem §4.3) */
	req.fetch_item = p.select && strcmp(p.select, "ALL_ATTRIBUTES") == 0;
	req.consistent_read = p.consistent;
	req.page = true;
	page_init(&page, &p, &t, call->text);
	st_op_query(&req, wire_row, &page, &res);
	return read_response(&page, &res, &p, &t);
}

static Jsonb *
ddb_scan(StDdbCall *call)
{
	StDdbErrors e;
	ReadParams	p;
	int64		segment = 0,
				total = 0;
	bool		has_segment = st_ddb_int(call, "Segment", &segment);
	bool		has_total = st_ddb_int(call, "TotalSegments", &total);
	DdbTable	t;
	StScanRequest req;
	StReadResult res;
	WirePage	page;

	st_ddb_errors_init(&e);
	read_params(call, &e, &p);
	st_ddb_check_int(&e, has_segment, segment, "segment", 0, 999999);
	st_ddb_check_int(&e, has_total, total, "totalSegments", 1, 1000000);
	st_ddb_errors_raise(&e);

	ddb_open(p.table, &t);
	check_select(&p, &t, "Scanning");
	memset(&req, 0, sizeof(req));
	req.table_name = t.name;
	req.tab = t.tab;
	req.filter = p.filter;
	req.projection = p.projection;
	req.names = jsonb_of(p.names);
	req.vals = values_stored(p.vals);
	req.index_name = p.index;
	req.has_segment = has_segment;
	req.segment = (int32) segment;
	req.has_total_segments = has_total;
	req.total_segments = (int32) total;
	req.max_items = p.has_limit ? (int32) p.limit : 0;
	req.start_key = start_key_stored(p.start, &t);
	req.consistent_read = p.consistent;
	req.page = true;
	page_init(&page, &p, &t, call->text);
	st_op_scan(&req, wire_row, &page, &res);
	return read_response(&page, &res, &p, &t);
}

/* ------------------------------------------------------------ dispatch */

typedef struct StDdbOperation
{
	const char *name;
	StDdbHandler handler;		/* NULL: not implemented yet (UnknownOperationException) */
} StDdbOperation;

/* ------------------------------------------------------------ batches and transactions */

/*
 * BatchGetItem, BatchWriteItem, TransactGetItems and TransactWriteItems
 * rewrite DynamoDB's request into the operations layer's (src/batch.c,
 * src/transact.c: the same shapes, values in the stored form, tables by
 * their qualified names), call it, and convert its response back. Every
 * check of the request is the operations layer's; what is rewritten here
 * is only the members that hold AttributeValues (Item, Key, Keys,
 * ExpressionAttributeValues) and TableName. A member of an unexpected JSON
 * type is passed through unchanged, for the operation to refuse.
 */

/* Member key of object v (a value found in a container), or NULL */
static JsonbValue *
member_of(JsonbValue *v, const char *key)
{
	if (!st_jbv_is_object(v))
		return NULL;
	return getKeyJsonValueFromContainer(v->val.binary.data, key, strlen(key), NULL);
}

#define is_object(v) st_jbv_is_object(v)
#define is_array(v) st_jbv_is_array(v)

/*
 * Whether a request is over its operation's count limit: then it is passed
 * on unconverted, and the operation refuses it before any work
 * proportional to its size.
 */
static bool
over_limit(JsonbValue *list, int limit)
{
	return st_jbv_is_array(list) && JsonContainerSize(list->val.binary.data) > (uint32) limit;
}

/* BatchGetItem's keys or BatchWriteItem's requests over all tables, beyond limit */
static bool
batch_over_limit(JsonbValue *ri, bool write, int limit)
{
	JsonbIterator *it;
	JsonbValue	k,
				v;
	int64		n = 0;

	if (!st_jbv_is_object(ri))
		return false;
	it = JsonbIteratorInit(ri->val.binary.data);
	while (st_jbv_next_member(&it, &k, &v))
	{
		JsonbValue *list;

		list = write ? &v : member_of(&v, "Keys");
		if (st_jbv_is_array(list))
			n += JsonContainerSize(list->val.binary.data);
		if (n > limit)
			return true;
	}
	return false;
}

/* The tables a batch or transaction named: wire name, qualified name, key schema */
typedef struct MultiTables
{
	int			n;
	char	  **names;
	char	  **qualified;
	DdbTable   *tables;
} MultiTables;

/* The table of wire name (opened on first use; ResourceNotFound for a missing one) */
static DdbTable *
multi_table(MultiTables *m, const char *name)
{
	for (int i = 0; i < m->n; i++)
		if (strcmp(m->names[i], name) == 0)
			return &m->tables[i];
	if (m->n % 16 == 0)
	{
		int			size = m->n + 16;

		m->names = m->n ? repalloc(m->names, sizeof(char *) * size) : palloc(sizeof(char *) * size);
		m->qualified = m->n ? repalloc(m->qualified, sizeof(char *) * size) : palloc(sizeof(char *) * size);
		m->tables = m->n ? repalloc(m->tables, sizeof(DdbTable) * size) : palloc(sizeof(DdbTable) * size);
	}
	ddb_open(name, &m->tables[m->n]);
	m->names[m->n] = pstrdup(name);
	m->qualified[m->n] = text_to_cstring(m->tables[m->n].name);
	return &m->tables[m->n++];
}

/* The wire name of a qualified name m knows, or the name itself */
static const char *
multi_wire_name(MultiTables *m, const char *qualified, DdbTable **t)
{
	for (int i = 0; i < m->n; i++)
		if (strcmp(m->qualified[i], qualified) == 0)
		{
			*t = &m->tables[i];
			return m->names[i];
		}
	*t = NULL;
	return qualified;
}

/*
 * Rewrites the members of one request object (a transaction's action, a
 * batch table's entry, a PutRequest/DeleteRequest) for table t: TableName
 * qualified, Item/Key in the stored form, Keys each in the stored form,
 * ExpressionAttributeValues in the stored form.
 */
static void
push_rewritten(JsonbParseState **st, JsonbValue *obj, DdbTable *t, const char *qualified)
{
	JsonbIterator *it = JsonbIteratorInit(obj->val.binary.data);
	JsonbValue	k,
				v;
	JsonbIteratorToken tok;

	pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
	while (st_jbv_next_member(&it, &k, &v))
	{
		char	   *key;

		key = pnstrdup(k.val.string.val, k.val.string.len);
		if (strcmp(key, "TableName") == 0 && qualified)
			st_push_string(st, key, qualified);
		else if ((strcmp(key, "Item") == 0 || strcmp(key, "Key") == 0) && t && is_object(&v))
			st_push_jsonb(st, key, st_attrval_map_to_stored(&v, strcmp(key, "Item") == 0 ? ST_AV_ITEM : ST_AV_KEY,
																&t->keys));
		else if (strcmp(key, "ExpressionAttributeValues") == 0 && is_object(&v))
			st_push_jsonb(st, key, st_attrval_map_to_stored(&v, ST_AV_VALUES, NULL));
		else if (strcmp(key, "Keys") == 0 && t && is_array(&v))
		{
			JsonbIterator *ki = JsonbIteratorInit(v.val.binary.data);
			JsonbValue	e;

			st_push_key(st, key);
			pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
			while ((tok = JsonbIteratorNext(&ki, &e, true)) != WJB_DONE)
			{
				if (tok != WJB_ELEM)
					continue;
				CHECK_FOR_INTERRUPTS();
				if (is_object(&e))
				{
					Jsonb	   *stored = st_attrval_map_to_stored(&e, ST_AV_KEY, &t->keys);

					st_push_jsonb_as(st, WJB_ELEM, stored);
				}
				else
					pushJsonbValue(st, WJB_ELEM, &e);
			}
			pushJsonbValue(st, WJB_END_ARRAY, NULL);
		}
		else
			st_push_member(st, key, &v);
	}
	pushJsonbValue(st, WJB_END_OBJECT, NULL);
}

/*
 * One action of a transaction (its one member's object) rewritten for table
 * t. An Item or Key that fails its table's key schema (a ValidationException)
 * does not fail the request: DynamoDB cancels the transaction with that
 * action's ValidationError reason. Its position and message are appended to
 * invalid ("<n>\t<message>\n") and the action is passed on unconverted.
 * Catching without a subtransaction is safe: the conversion only computes.
 */
static JsonbValue *
rewrite_action(JsonbValue *obj, DdbTable *t, int pos, StringInfo invalid)
{
	MemoryContext cxt = CurrentMemoryContext;
	JsonbValue *volatile result = NULL;

	PG_TRY();
	{
		JsonbParseState *st = NULL;
		Jsonb	   *one;

		/* [object]: push_rewritten writes an element */
		pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
		push_rewritten(&st, obj, t, text_to_cstring(t->name));
		one = JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_ARRAY, NULL));
		result = getIthJsonbValueFromContainer(&one->root, 0);
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		JsonbValue	top;
		JsonbValue *message;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (strcmp(st_dynamodb_exception(edata->sqlerrcode), ST_EXC_VALIDATION) != 0 ||
			edata->detail == NULL || strncmp(edata->detail, "{\"__type\"", 9) != 0)
			PG_RE_THROW();
		FlushErrorState();
		st_jbv_jsonb(&top, DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(edata->detail))));
		message = member_of(&top, "message");
		appendStringInfo(invalid, "%d\t%s\n", pos,
						 message && message->type == jbvString ?
						 pnstrdup(message->val.string.val, message->val.string.len) : edata->message);
		result = obj;
	}
	PG_END_TRY();
	return result;
}

/*
 * Cancels a transaction of n actions whose invalid ones (rewrite_action's
 * list) have a ValidationError reason, the others None, as DynamoDB does.
 */
static void
cancel_invalid(StringInfo invalid, int n)
{
	StringInfoData codes;
	StringInfoData members;
	char	   *line = invalid->data;
	int			first = atoi(line);

	initStringInfo(&codes);
	initStringInfo(&members);
	appendStringInfoString(&members, "\"CancellationReasons\": [");
	for (int i = 1; i <= n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (i > 1)
		{
			appendStringInfoString(&codes, ", ");
			appendStringInfoString(&members, ", ");
		}
		if (*line && atoi(line) == i)
		{
			char	   *msg = strchr(line, '\t') + 1;
			char	   *end = strchr(msg, '\n');

			appendStringInfoString(&codes, "ValidationError");
			appendStringInfoString(&members, "{\"Code\": \"ValidationError\", \"Message\": ");
			escape_json(&members, pnstrdup(msg, end - msg));
			appendStringInfoChar(&members, '}');
			line = end + 1;
		}
		else
		{
			appendStringInfoString(&codes, "None");
			appendStringInfoString(&members, "{\"Code\": \"None\"}");
		}
	}
	appendStringInfoChar(&members, ']');
	ereport(ERROR,
			(errcode(ERRCODE_ST_TRANSACTION_CANCELED),
			 errmsg("transaction cancelled: action %d of TransactItems has a key or item that does not match its table's key schema",
					first),
			 st_errdetail_dynamodb_members(members.data,
										   "Transaction cancelled, please refer cancellation reasons for specific reasons [%s]",
										   codes.data)));
}

/*
 * An action of a transaction whose table does not exist, validated as far as
 * it can be without the table (as validate_without_table does for a request):
 * its ExpressionAttributeValues, Item or Key, and expressions.
 */
static void
validate_action_without_table(JsonbValue *obj, const char *name)
{
	JsonbValue *names = member_of(obj, "ExpressionAttributeNames");
	JsonbValue *vals = member_of(obj, "ExpressionAttributeValues");
	JsonbValue *item = member_of(obj, "Item");
	JsonbValue *key = member_of(obj, "Key");
	char	   *texts[WT_NUM];

	if (item && is_object(item))
		(void) st_attrval_map_to_stored(item, ST_AV_ITEM, NULL);
	if (key && is_object(key))
		(void) st_attrval_map_to_stored(key, ST_AV_KEY, NULL);
	if (names && names->type != jbvNull && !member_of(obj, "ConditionExpression") &&
		!member_of(obj, "UpdateExpression") && !member_of(obj, "ProjectionExpression"))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ExpressionAttributeNames can only be given with an expression"),
				 st_errdetail_dynamodb("ExpressionAttributeNames can only be specified when using expressions")));
	/* a transaction's action has no FilterExpression */
	for (int i = 0; i < WT_NUM; i++)
	{
		JsonbValue *e = i == WT_FILTER ? NULL : member_of(obj, without_table_members[i]);

		texts[i] = e && e->type == jbvString ? pnstrdup(e->val.string.val, e->val.string.len) : NULL;
	}
	parse_without_table(name, names && is_object(names) ? JsonbValueToJsonb(names) : NULL,
						vals && is_object(vals) ? values_stored(vals) : NULL, texts, true);
}

/*
 * Before any table of a transaction is opened: each action whose table does
 * not exist is validated without it, so that a malformed request is a
 * validation error rather than ResourceNotFoundException.
 */
static void
prevalidate_transact_items(JsonbValue *items)
{
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;

	it = JsonbIteratorInit(items->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		JsonbIterator *ai;
		JsonbValue	k,
					v;

		if (tok != WJB_ELEM || !is_object(&e))
			continue;
		CHECK_FOR_INTERRUPTS();
		ai = JsonbIteratorInit(e.val.binary.data);
		while (st_jbv_next_member(&ai, &k, &v))
		{
			JsonbValue *tn = member_of(&v, "TableName");

			if (is_object(&v) && tn && tn->type == jbvString)
			{
				char	   *name = pnstrdup(tn->val.string.val, tn->val.string.len);

				if (!OidIsValid(st_ddb_find_relid(name)))
					validate_action_without_table(&v, name);
			}
		}
	}
}

/* The TransactItems of a transaction, rewritten; the table of each action into tabs */
static Jsonb *
rewrite_transact_items(JsonbValue *items, MultiTables *m, DdbTable ***tabs, int *n)
{
	JsonbParseState *st = NULL;
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	int			size = 16;
	StringInfoData invalid;

	initStringInfo(&invalid);
	*n = 0;
	*tabs = palloc0(sizeof(DdbTable *) * size);
	if (!is_array(items) || over_limit(items, ST_TRANSACT_MAX_ACTIONS))
		return items ? JsonbValueToJsonb(items) : NULL;
	prevalidate_transact_items(items);
	it = JsonbIteratorInit(items->val.binary.data);
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		JsonbIterator *ai;
		JsonbValue	k,
					v;

		if (tok != WJB_ELEM)
			continue;
		CHECK_FOR_INTERRUPTS();
		if (*n == size)
		{
			size *= 2;
			*tabs = repalloc(*tabs, sizeof(DdbTable *) * size);
		}
		(*tabs)[*n] = NULL;
		if (!is_object(&e))
		{
			pushJsonbValue(&st, WJB_ELEM, &e);
			(*n)++;
			continue;
		}
		/* {"Put": {...}}: the action's one member, rewritten for its table */
		ai = JsonbIteratorInit(e.val.binary.data);
		pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		while (st_jbv_next_member(&ai, &k, &v))
		{
			JsonbValue *tn;

			pushJsonbValue(&st, WJB_KEY, &k);
			tn = member_of(&v, "TableName");
			if (is_object(&v) && tn && tn->type == jbvString)
			{
				char	   *name = pnstrdup(tn->val.string.val, tn->val.string.len);
				DdbTable   *t = multi_table(m, name);

				(*tabs)[*n] = t;
				pushJsonbValue(&st, WJB_VALUE, rewrite_action(&v, t, *n + 1, &invalid));
			}
			else
				pushJsonbValue(&st, WJB_VALUE, &v);
		}
		pushJsonbValue(&st, WJB_END_OBJECT, NULL);
		(*n)++;
	}
	if (invalid.len)
		cancel_invalid(&invalid, *n);
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_ARRAY, NULL));
}

static const char *
rcc_of(StDdbCall *call)
{
	StDdbErrors e;
	char	   *rcc = st_ddb_string(call, "ReturnConsumedCapacity");

	st_ddb_errors_init(&e);
	st_ddb_check_enum(&e, rcc, "returnConsumedCapacity", rcc_values, "[INDEXES, TOTAL, NONE]");
	st_ddb_errors_raise(&e);
	return rcc;
}

/* TransactWriteItems: {"TransactItems": [...], "ClientRequestToken"} */
static Jsonb *
ddb_transact_write(StDdbCall *call)
{
	const char *rcc = rcc_of(call);
	char	   *token = st_ddb_string(call, "ClientRequestToken");
	MultiTables m = {0};
	DdbTable  **tabs;
	int			n;
	Jsonb	   *items = rewrite_transact_items(st_ddb_array(call, "TransactItems"), &m, &tabs, &n);
	JsonbParseState *st = NULL;

	if (items == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("TransactItems must be given"),
				 st_errdetail_dynamodb("1 validation error detected: Value null at 'transactItems' failed to satisfy constraint: Member must not be null")));
	/* a cancellation converts its reasons' items with these (dynamodb_error) */
	call->action_keys = palloc0(sizeof(StAttrKeys *) * Max(n, 1));
	for (int i = 0; i < n; i++)
		if (tabs[i])
			call->action_keys[i] = &tabs[i]->keys;
	call->n_actions = n;
	(void) st_op_transact_write(items, token, token ? strlen(token) : 0);
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	push_capacity(&st, rcc);
	return end_object(&st);
}

/* TransactGetItems: {"TransactItems": [{"Get": {...}}]} -> {"Responses": [{"Item": ...}, {}]} */
static Jsonb *
ddb_transact_get(StDdbCall *call)
{
	const char *rcc = rcc_of(call);
	MultiTables m = {0};
	DdbTable  **tabs;
	int			n;
	Jsonb	   *items = rewrite_transact_items(st_ddb_array(call, "TransactItems"), &m, &tabs, &n);
	Jsonb	   *res;
	JsonbValue *responses;
	JsonbParseState *st = NULL;
	JsonbValue	top;

	if (items == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("TransactItems must be given"),
				 st_errdetail_dynamodb("1 validation error detected: Value null at 'transactItems' failed to satisfy constraint: Member must not be null")));
	res = st_op_transact_get(items);
	st_jbv_jsonb(&top, res);
	responses = member_of(&top, "Responses");
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	if (is_array(responses))
	{
		JsonbIterator *it = JsonbIteratorInit(responses->val.binary.data);
		JsonbValue	e;
		JsonbIteratorToken tok;
		int			i = 0;

		st_push_key(&st, "Responses");
		pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
		while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
		{
			JsonbValue *item;

			if (tok != WJB_ELEM)
				continue;
			item = member_of(&e, "Item");
			pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
			if (is_object(item) && i < n && tabs[i])
			{
				st_push_key(&st, "Item");
				st_attrval_push_stored(&st, WJB_VALUE, item->val.binary.data, &tabs[i]->keys);
			}
			pushJsonbValue(&st, WJB_END_OBJECT, NULL);
			i++;
		}
		pushJsonbValue(&st, WJB_END_ARRAY, NULL);
	}
	push_capacity(&st, rcc);
	return end_object(&st);
}

/*
 * The RequestItems of a batch, rewritten: tables by qualified name; for a
 * write, each PutRequest/DeleteRequest rewritten, for a read, the entry.
 */
/*
 * Before any table of a batch is opened: the entry of each table that does
 * not exist is validated without it (its keys' and items' AttributeValues,
 * BatchGetItem's ProjectionExpression and placeholders), as for a
 * transaction's actions.
 */
static void
prevalidate_request_items(JsonbValue *ri, bool write)
{
	JsonbIterator *it = JsonbIteratorInit(ri->val.binary.data);
	JsonbValue	k,
				v;

	while (st_jbv_next_member(&it, &k, &v))
	{
		char	   *name = pnstrdup(k.val.string.val, k.val.string.len);
		JsonbIterator *ei;
		JsonbValue	e;
		JsonbIteratorToken tok;

		CHECK_FOR_INTERRUPTS();
		if (OidIsValid(st_ddb_find_relid(name)))
			continue;
		if (!write && is_object(&v))
		{
			JsonbValue *keys = member_of(&v, "Keys");

			/* the projection and placeholders, as a Get action's */
			validate_action_without_table(&v, name);
			if (keys && is_array(keys))
			{
				ei = JsonbIteratorInit(keys->val.binary.data);
				while ((tok = JsonbIteratorNext(&ei, &e, true)) != WJB_DONE)
					if (tok == WJB_ELEM && is_object(&e))
						(void) st_attrval_map_to_stored(&e, ST_AV_KEY, NULL);
			}
		}
		else if (write && is_array(&v))
		{
			ei = JsonbIteratorInit(v.val.binary.data);
			while ((tok = JsonbIteratorNext(&ei, &e, true)) != WJB_DONE)
			{
				JsonbValue *put = tok == WJB_ELEM ? member_of(&e, "PutRequest") : NULL;
				JsonbValue *del = tok == WJB_ELEM ? member_of(&e, "DeleteRequest") : NULL;
				JsonbValue *item = put ? member_of(put, "Item") : NULL;
				JsonbValue *key = del ? member_of(del, "Key") : NULL;

				CHECK_FOR_INTERRUPTS();
				if (item && is_object(item))
					(void) st_attrval_map_to_stored(item, ST_AV_ITEM, NULL);
				if (key && is_object(key))
					(void) st_attrval_map_to_stored(key, ST_AV_KEY, NULL);
			}
		}
	}
}

static Jsonb *
rewrite_request_items(JsonbValue *ri, MultiTables *m, bool write)
{
	JsonbParseState *st = NULL;
	JsonbIterator *it;
	JsonbValue	k,
				v;
	JsonbIteratorToken tok;

	if (!is_object(ri) ||
		batch_over_limit(ri, write, write ? ST_BATCH_WRITE_MAX_REQUESTS : ST_BATCH_GET_MAX_KEYS))
		return ri ? JsonbValueToJsonb(ri) : NULL;
	prevalidate_request_items(ri, write);
	it = JsonbIteratorInit(ri->val.binary.data);
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	while (st_jbv_next_member(&it, &k, &v))
	{
		char	   *name;
		DdbTable   *t;
		char	   *qualified;

		name = pnstrdup(k.val.string.val, k.val.string.len);
		t = multi_table(m, name);
		qualified = text_to_cstring(t->name);
		st_push_key(&st, qualified);
		if (!write && is_object(&v))
			push_rewritten(&st, &v, t, NULL);
		else if (write && is_array(&v))
		{
			JsonbIterator *ri2 = JsonbIteratorInit(v.val.binary.data);
			JsonbValue	e;

			pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
			while ((tok = JsonbIteratorNext(&ri2, &e, true)) != WJB_DONE)
			{
				JsonbIterator *ei;
				JsonbValue	rk,
							rv;

				if (tok != WJB_ELEM)
					continue;
				if (!is_object(&e))
				{
					pushJsonbValue(&st, WJB_ELEM, &e);
					continue;
				}
				ei = JsonbIteratorInit(e.val.binary.data);
				pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
				while (st_jbv_next_member(&ei, &rk, &rv))
				{
					pushJsonbValue(&st, WJB_KEY, &rk);
					if (is_object(&rv))
						push_rewritten(&st, &rv, t, NULL);
					else
						pushJsonbValue(&st, WJB_VALUE, &rv);
				}
				pushJsonbValue(&st, WJB_END_OBJECT, NULL);
			}
			pushJsonbValue(&st, WJB_END_ARRAY, NULL);
		}
		else
			pushJsonbValue(&st, WJB_VALUE, &v);
	}
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

/*
 * Converts one member (Responses, UnprocessedKeys, UnprocessedItems) of a
 * batch's response back: tables by wire name, items and keys in wire form.
 */
static void
push_batch_member(JsonbParseState **st, const char *member, JsonbValue *obj, MultiTables *m)
{
	JsonbIterator *it;
	JsonbValue	k,
				v;
	JsonbIteratorToken tok;

	st_push_key(st, member);
	if (!is_object(obj))
	{
		pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
		pushJsonbValue(st, WJB_END_OBJECT, NULL);
		return;
	}
	it = JsonbIteratorInit(obj->val.binary.data);
	pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
	while (st_jbv_next_member(&it, &k, &v))
	{
		DdbTable   *t;
		const char *wire;

		wire = multi_wire_name(m, pnstrdup(k.val.string.val, k.val.string.len), &t);
		st_push_key(st, wire);
		if (t == NULL)
			pushJsonbValue(st, WJB_VALUE, &v);
		else if (strcmp(member, "Responses") == 0 && is_array(&v))
		{
			/* a list of items */
			JsonbIterator *ii = JsonbIteratorInit(v.val.binary.data);
			JsonbValue	e;

			pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
			while ((tok = JsonbIteratorNext(&ii, &e, true)) != WJB_DONE)
				if (tok == WJB_ELEM && is_object(&e))
					st_attrval_push_stored(st, WJB_ELEM, e.val.binary.data, &t->keys);
			pushJsonbValue(st, WJB_END_ARRAY, NULL);
		}
		else if (strcmp(member, "UnprocessedKeys") == 0 && is_object(&v))
		{
			/* the request's entry: Keys in wire form, the rest as is */
			JsonbIterator *ei = JsonbIteratorInit(v.val.binary.data);
			JsonbValue	ek,
						ev;
			JsonbIteratorToken etok;

			pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
			while (st_jbv_next_member(&ei, &ek, &ev))
			{
				pushJsonbValue(st, WJB_KEY, &ek);
				if (ek.val.string.len == 4 && memcmp(ek.val.string.val, "Keys", 4) == 0 && is_array(&ev))
				{
					JsonbIterator *ki = JsonbIteratorInit(ev.val.binary.data);
					JsonbValue	e;

					pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
					while ((etok = JsonbIteratorNext(&ki, &e, true)) != WJB_DONE)
						if (etok == WJB_ELEM && is_object(&e))
							st_attrval_push_stored(st, WJB_ELEM, e.val.binary.data, &t->keys);
					pushJsonbValue(st, WJB_END_ARRAY, NULL);
				}
				else
					pushJsonbValue(st, WJB_VALUE, &ev);
			}
			pushJsonbValue(st, WJB_END_OBJECT, NULL);
		}
		else if (strcmp(member, "UnprocessedItems") == 0 && is_array(&v))
		{
			/* [{"PutRequest": {"Item": ...}}, {"DeleteRequest": {"Key": ...}}] */
			JsonbIterator *ri = JsonbIteratorInit(v.val.binary.data);
			JsonbValue	e;

			pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
			while ((tok = JsonbIteratorNext(&ri, &e, true)) != WJB_DONE)
			{
				JsonbIterator *ei;
				JsonbValue	rk,
							rv;

				if (tok != WJB_ELEM || !is_object(&e))
					continue;
				ei = JsonbIteratorInit(e.val.binary.data);
				pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
				while (st_jbv_next_member(&ei, &rk, &rv))
				{
					JsonbValue *inner;

					pushJsonbValue(st, WJB_KEY, &rk);
					inner = member_of(&rv, "Item");
					if (inner == NULL)
						inner = member_of(&rv, "Key");
					pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
					if (is_object(inner))
					{
						st_push_key(st, member_of(&rv, "Item") ? "Item" : "Key");
						st_attrval_push_stored(st, WJB_VALUE, inner->val.binary.data, &t->keys);
					}
					pushJsonbValue(st, WJB_END_OBJECT, NULL);
				}
				pushJsonbValue(st, WJB_END_OBJECT, NULL);
			}
			pushJsonbValue(st, WJB_END_ARRAY, NULL);
		}
		else
			pushJsonbValue(st, WJB_VALUE, &v);
	}
	pushJsonbValue(st, WJB_END_OBJECT, NULL);
}

static Jsonb *
ddb_batch(StDdbCall *call, bool write)
{
	const char *rcc = rcc_of(call);
	MultiTables m = {0};
	Jsonb	   *ri = rewrite_request_items(st_ddb_object(call, "RequestItems"), &m, write);
	Jsonb	   *res;
	JsonbValue	top;
	JsonbParseState *st = NULL;

	if (ri == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("RequestItems must be given"),
				 st_errdetail_dynamodb("1 validation error detected: Value null at 'requestItems' failed to satisfy constraint: Member must not be null")));
	res = write ? st_op_batch_write(ri) : st_op_batch_get(ri);
	st_jbv_jsonb(&top, res);
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	if (!write)
		push_batch_member(&st, "Responses", member_of(&top, "Responses"), &m);
	push_batch_member(&st, write ? "UnprocessedItems" : "UnprocessedKeys",
					  member_of(&top, write ? "UnprocessedItems" : "UnprocessedKeys"), &m);
	push_capacity(&st, rcc);
	return end_object(&st);
}

static Jsonb *
ddb_batch_get(StDdbCall *call)
{
	return ddb_batch(call, false);
}

static Jsonb *
ddb_batch_write(StDdbCall *call)
{
	return ddb_batch(call, true);
}

static const StDdbOperation operations[] = {
	{"PutItem", ddb_put_item},
	{"GetItem", ddb_get_item},
	{"DeleteItem", ddb_delete_item},
	{"UpdateItem", ddb_update_item},
	{"Query", ddb_query},
	{"Scan", ddb_scan},
	{"CreateTable", st_ddb_create_table},
	{"DeleteTable", st_ddb_delete_table},
	{"DescribeTable", st_ddb_describe_table},
	{"ListTables", st_ddb_list_tables},
	{"UpdateTable", st_ddb_update_table},
	{"UpdateTimeToLive", st_ddb_update_ttl},
	{"DescribeTimeToLive", st_ddb_describe_ttl},
	{"TagResource", st_ddb_tag_resource},
	{"UntagResource", st_ddb_untag_resource},
	{"ListTagsOfResource", st_ddb_list_tags},
	{"DescribeLimits", st_ddb_describe_limits},
	{"DescribeEndpoints", st_ddb_describe_endpoints},
	/* DynamoDB Streams (X-Amz-Target DynamoDBStreams_20120810.<Op> at the gateway) */
	{"ListStreams", st_ddb_list_streams},
	{"DescribeStream", st_ddb_describe_stream},
	{"GetShardIterator", st_ddb_get_shard_iterator},
	{"GetRecords", st_ddb_get_records},

	{"BatchGetItem", ddb_batch_get},
	{"BatchWriteItem", ddb_batch_write},
	{"TransactGetItems", ddb_transact_get},
	{"TransactWriteItems", ddb_transact_write},
	/* PartiQL (dynamodb_partiql.c): statements run as the requests above */
	{"ExecuteStatement", st_ddb_execute_statement},
	{"BatchExecuteStatement", st_ddb_batch_execute_statement},
	{"ExecuteTransaction", st_ddb_execute_transaction},
};

/*
 * The response of operation op to request, called from another operation
 * (PartiQL): the handler alone, its errors as they are (the outer call
 * gives them DynamoDB's body).
 */
Jsonb *
st_ddb_call_internal(const char *op, Jsonb *request)
{
	StDdbCall	call;

	for (int i = 0; i < lengthof(operations); i++)
		if (strcmp(op, operations[i].name) == 0)
		{
			memset(&call, 0, sizeof(call));
			call.op = operations[i].name;
			call.req = &request->root;
			return operations[i].handler(&call);
		}
	elog(ERROR, "unknown internal DynamoDB operation \"%s\"", op);
}

/* DynamoDB's error body {"__type": ..., "message": ...} (with the failed item's "Item") */
static char *
error_body(const char *type, const char *message, Jsonb *item)
{
	StringInfoData b;

	initStringInfo(&b);
	appendStringInfoString(&b, "{\"__type\": ");
	escape_json(&b, type);
	appendStringInfoString(&b, ", \"message\": ");
	escape_json(&b, message);
	if (item)
	{
		appendStringInfoString(&b, ", \"Item\": ");
		(void) JsonbToCString(&b, &item->root, VARSIZE(item));
	}
	appendStringInfoChar(&b, '}');
	return b.data;
}

/*
 * The body of a cancelled TransactWriteItems whose reasons carry items
 * (ReturnValuesOnConditionCheckFailure ALL_OLD), or NULL when none does:
 * detail's __type and message, and the reasons of cancellation_reasons()
 * with each Item in wire form.
 */
static char *
cancellation_body(const char *detail, StDdbCall *call)
{
	Jsonb	   *reasons = st_cancellation_reasons();
	Jsonb	   *old;
	JsonbValue	top;
	JsonbValue *message;
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	JsonbParseState *st = NULL;
	StringInfoData b;
	bool		any = false;
	int			i = 0;

	if (reasons == NULL || call->action_keys == NULL)
		return NULL;
	pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
	it = JsonbIteratorInit(&reasons->root);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		JsonbIterator *ri;
		JsonbValue	k,
					v;

		if (tok != WJB_ELEM || !is_object(&e))
			continue;
		CHECK_FOR_INTERRUPTS();
		pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		ri = JsonbIteratorInit(e.val.binary.data);
		while (st_jbv_next_member(&ri, &k, &v))
		{
			pushJsonbValue(&st, WJB_KEY, &k);
			if (k.val.string.len == 4 && memcmp(k.val.string.val, "Item", 4) == 0 &&
				is_object(&v) && i < call->n_actions && call->action_keys[i])
			{
				st_attrval_push_stored(&st, WJB_VALUE, v.val.binary.data, call->action_keys[i]);
				any = true;
			}
			else
				pushJsonbValue(&st, WJB_VALUE, &v);
		}
		pushJsonbValue(&st, WJB_END_OBJECT, NULL);
		i++;
	}
	if (!any)
		return NULL;
	reasons = JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_ARRAY, NULL));

	/* the message the operation wrote (the DETAIL is our own JSON) */
	old = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(detail)));
	st_jbv_jsonb(&top, old);
	message = member_of(&top, "message");

	initStringInfo(&b);
	appendStringInfoString(&b, "{\"__type\": ");
	escape_json(&b, st_dynamodb_exception(ERRCODE_ST_TRANSACTION_CANCELED));
	appendStringInfoString(&b, ", \"message\": ");
	escape_json(&b, message && message->type == jbvString ?
				pnstrdup(message->val.string.val, message->val.string.len) : "");
	appendStringInfoString(&b, ", \"CancellationReasons\": ");
	(void) JsonbToCString(&b, &reasons->root, VARSIZE(reasons));
	appendStringInfoChar(&b, '}');
	return b.data;
}

/*
 * Gives an error raised under singletable.dynamodb DynamoDB's body as its
 * DETAIL (see the header), and a failed condition the item it asked for.
 */
static void
dynamodb_error(ErrorData *edata, StDdbCall *call)
{
	bool		has_body = edata->detail && strncmp(edata->detail, "{\"__type\"", 9) == 0;

	if (!has_body)
	{
		/* the DETAIL becomes the body; a prose DETAIL stays in the server log */
		if (edata->detail && edata->detail_log == NULL)
			edata->detail_log = edata->detail;
		edata->detail = error_body(st_dynamodb_exception(edata->sqlerrcode),
								   edata->message ? edata->message : "", NULL);
	}
	if (edata->sqlerrcode == ERRCODE_ST_TRANSACTION_CANCELED && has_body)
	{
		char	   *body = cancellation_body(edata->detail, call);

		/* as below: the items go to the client, the log keeps the body without them */
		if (body)
		{
			if (edata->detail_log == NULL)
				edata->detail_log = edata->detail;
			edata->detail = body;
		}
	}
	if (edata->sqlerrcode == ERRCODE_ST_CONDITIONAL_CHECK_FAILED && call->want_failure_item)
	{
		Jsonb	   *item = st_condition_failure_item();

		if (item)
		{
			Jsonb	   *wire = st_attrval_from_stored(item, &call->keys);

			/* the client gets the item; the server log only the body without it */
			if (edata->detail_log == NULL)
				edata->detail_log = edata->detail;
			edata->detail = error_body(ST_EXC_CONDITION, "The conditional request failed", wire);
		}
	}
}

/*
 * The response of one call: looks the operation up, checks the request is an
 * object, runs the handler; a handler's error gets DynamoDB's error body
 * (dynamodb_error) in its DETAIL. name and request must not be NULL.
 */
static Jsonb *
ddb_call(const char *name, Jsonb *request, StringInfo text)
{
	MemoryContext cxt = CurrentMemoryContext;
	StDdbCall	call;
	const StDdbOperation *volatile op = NULL;
	Jsonb	   *volatile result = NULL;

	for (int i = 0; i < lengthof(operations); i++)
		if (strcmp(name, operations[i].name) == 0)
			op = &operations[i];
	if (op == NULL || op->handler == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_ST_UNKNOWN_OPERATION),
				 errmsg("unknown DynamoDB operation \"%s\"", name),
				 op ? errhint("Operation %s is not available in this build of singletable.", name) : 0,
				 st_errdetail_dynamodb("Operation is not supported: %s", name)));
	if (!JB_ROOT_IS_OBJECT(request) || JB_ROOT_IS_SCALAR(request))
		ereport(ERROR,
				(errcode(ERRCODE_ST_SERIALIZATION),
				 errmsg("the request of %s is not a JSON object", name),
				 st_errdetail_dynamodb("Start of structure or map expected")));

	memset(&call, 0, sizeof(call));
	call.op = op->name;
	call.req = &request->root;
	call.text = text;
	current_call = &call;
	PG_TRY();
	{
		/* legacy parameters become the expressions the handlers take */
		st_ddb_legacy_rewrite(&call);
		result = op->handler(&call);
		current_call = NULL;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		current_call = NULL;
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		dynamodb_error(edata, &call);
		ReThrowError(edata);
	}
	PG_END_TRY();
	return result;
}

/* The operation argument: not NULL (DynamoDB's validation error) */
static char *
operation_arg(FunctionCallInfo fcinfo, int argno)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("operation must not be NULL"),
				 st_errdetail_dynamodb("1 validation error detected: Value null at 'operation' failed to satisfy constraint: Member must not be null")));
	return text_to_cstring(PG_GETARG_TEXT_PP(argno));
}

static void
null_request_error(const char *name)
{
	ereport(ERROR,
			(errcode(ERRCODE_ST_SERIALIZATION),
			 errmsg("the request of %s must not be NULL", name),
			 st_errdetail_dynamodb("Request body is empty or not a JSON object")));
}

/*
 * singletable.dynamodb(operation text, request jsonb) -> jsonb: DynamoDB's
 * response to the request of that operation (DynamoDB's JSON protocol, the
 * operation named as in X-Amz-Target without its prefix).
 */
Datum
singletable_dynamodb(PG_FUNCTION_ARGS)
{
	char	   *name = operation_arg(fcinfo, 0);

	if (PG_ARGISNULL(1))
		null_request_error(name);
	PG_RETURN_JSONB_P(ddb_call(name, PG_GETARG_JSONB_P(1), NULL));
}

/*
 * The request text of dynamodb_as as jsonb: a text that is not JSON is
 * DynamoDB's SerializationException (jsonb_in's own error would be a
 * 22P02 with a fragment of the request in its DETAIL).
 */
static Jsonb *
request_from_text(const char *name, text *body)
{
	MemoryContext cxt = CurrentMemoryContext;
	char	   *cstr = text_to_cstring(body);
	Jsonb	   *volatile request = NULL;

	PG_TRY();
	{
		request = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(cstr)));
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_INVALID_TEXT_REPRESENTATION &&
			edata->sqlerrcode != ERRCODE_UNTRANSLATABLE_CHARACTER &&
			edata->sqlerrcode != ERRCODE_CHARACTER_NOT_IN_REPERTOIRE &&
			edata->sqlerrcode != ERRCODE_PROGRAM_LIMIT_EXCEEDED)
			PG_RE_THROW();
		FlushErrorState();
		ereport(ERROR,
				(errcode(ERRCODE_ST_SERIALIZATION),
				 errmsg("the request of %s is not valid JSON", name),
				 st_errdetail_dynamodb("Start of structure or map expected")));
	}
	PG_END_TRY();
	return request;
}

/*
 * The extension's own operations, as the gateway's viewer calls them
 * (X-Amz-Target SingleTable_20261201.<Op>, sent here as "SingleTable.<Op>"):
 * singletable.viewer_api(op, request), looked up by its signature and called
 * under dynamodb_as's role switch, with the role's EXECUTE right checked as
 * a call from SQL would check it.
 */
#define VIEWER_OPERATION_PREFIX "SingleTable."

static Jsonb *
viewer_call(const char *name, Jsonb *request)
{
	Oid			argtypes[2] = {TEXTOID, JSONBOID};
	Oid			fn;
	Datum		result;

	fn = LookupFuncName(list_make2(makeString("singletable"), makeString("viewer_api")), 2, argtypes, true);
	if (!OidIsValid(fn))
		ereport(ERROR,
				(errcode(ERRCODE_ST_UNKNOWN_OPERATION),
				 errmsg("this installation of singletable has no singletable.viewer_api(text, jsonb)"),
				 errhint("ALTER EXTENSION singletable UPDATE")));
	if (pg_proc_aclcheck(fn, GetUserId(), ACL_EXECUTE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for function viewer_api")));
	result = OidFunctionCall2(fn, CStringGetTextDatum(name + strlen(VIEWER_OPERATION_PREFIX)),
							  JsonbPGetDatum(request));
	return DatumGetJsonbP(result);
}

/*
 * singletable.dynamodb_as(role text, operation text, request text) -> text:
 * the gateway's call. The response of singletable.dynamodb, as its JSON text,
 * computed as role (NULL: the current user).
 *
 * The role switch is SetUserIdAndSecContext with SECURITY_LOCAL_USERID_CHANGE
 * for the duration of the call, as a SECURITY DEFINER function's is: user
 * code that runs during the call (a trigger of the table, a row-level
 * security policy's function, an index expression) cannot undo it, because
 * SET ROLE, RESET ROLE and SET SESSION AUTHORIZATION fail while it is in
 * force. (With SET ROLE <role>; SELECT dynamodb(...); RESET ROLE, such code
 * could RESET ROLE and SET ROLE to any other role of the login user.) The
 * switch asks what SET ROLE asks: that the session user is a member of
 * role. Execution is revoked from PUBLIC; the gateway's login role is
 * granted it (docs/endpoint.md). Runs with the caller's rights otherwise: it
 * gives no right a member of role does not have by SET ROLE.
 */
Datum
singletable_dynamodb_as(PG_FUNCTION_ARGS)
{
	char	   *name = operation_arg(fcinfo, 1);
	Oid			role;
	Oid			save_userid;
	int			save_sec_context;
	Jsonb	   *request;
	Jsonb	   *volatile result = NULL;
	StringInfoData out;

	if (PG_ARGISNULL(0))
		role = GetUserId();
	else
	{
		char	   *rolename = text_to_cstring(PG_GETARG_TEXT_PP(0));

		role = get_role_oid(rolename, true);
		if (!OidIsValid(role))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("role \"%s\" does not exist", rolename),
					 st_errdetail_dynamodb("The role of this access key does not exist")));
		if (!is_member_of_role(GetSessionUserId(), role))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied to act as role \"%s\"", rolename),
					 errhint("Only members of a role may run a call as it: GRANT \"%s\" TO the login role.",
							 rolename),
					 st_errdetail_dynamodb("The role of this access key is not granted to the gateway")));
	}
	if (PG_ARGISNULL(2))
		null_request_error(name);
	request = request_from_text(name, PG_GETARG_TEXT_PP(2));
	/* the response text, written as the result's text datum: its header reserved */
	initStringInfo(&out);
	appendStringInfoSpaces(&out, VARHDRSZ);

	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(role, save_sec_context | SECURITY_LOCAL_USERID_CHANGE);
	PG_TRY();
	{
		/* GetItem, Query and Scan write their text into out; the others return a jsonb */
		if (strncmp(name, VIEWER_OPERATION_PREFIX, strlen(VIEWER_OPERATION_PREFIX)) == 0)
			result = viewer_call(name, request);
		else
			result = ddb_call(name, request, &out);
	}
	PG_FINALLY();
	{
		SetUserIdAndSecContext(save_userid, save_sec_context);
	}
	PG_END_TRY();
	if (result)
		(void) JsonbToCString(&out, &result->root, VARSIZE(result));
	SET_VARSIZE(out.data, out.len);
	PG_RETURN_TEXT_P((text *) out.data);
}
