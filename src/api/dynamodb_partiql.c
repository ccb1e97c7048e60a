/*
 * dynamodb_partiql.c — DynamoDB's PartiQL: ExecuteStatement,
 * BatchExecuteStatement, ExecuteTransaction, and the SQL function
 * singletable.partiql(statement, parameters).
 *
 * A statement is parsed by expr/partiql.c and runs as the request of an
 * existing operation, built as JSON with the statement's paths and values as
 * ExpressionAttributeNames/Values placeholders:
 *
 *   SELECT, the partition key equal  -> Query (KeyConditionExpression from
 *                                       the top-level AND terms on the keys,
 *                                       the rest its FilterExpression);
 *                                       both keys equal, nothing else, on
 *                                       the table -> GetItem
 *   SELECT, otherwise                -> Scan with the WHERE as its filter
 *   INSERT                           -> PutItem, attribute_not_exists(pk)
 *   UPDATE / DELETE                  -> UpdateItem / DeleteItem of the key
 *                                       the WHERE's equalities give, the
 *                                       rest its ConditionExpression
 *   ExecuteTransaction               -> TransactWriteItems / TransactGetItems
 *
 * So evaluation, key and item checks, capacity and conditions stay the
 * operations layer's. The key schema comes from DescribeTable.
 */
#include "postgres.h"

#include "access/xact.h"
#include "common/base64.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "api/dynamodb.h"
#include "expr/partiql.h"
#include "format/attrval.h"
#include "format/jsonval.h"
#include "utils/errors.h"

PG_FUNCTION_INFO_V1(singletable_partiql);

#define MAX_BATCH_STATEMENTS 25
#define MAX_TRANSACT_STATEMENTS 100

/* ------------------------------------------------------------ JSON helpers */

static JsonbValue *
jget(JsonbContainer *c, const char *key)
{
	JsonbValue *v;

	if (c == NULL || !JsonContainerIsObject(c))
		return NULL;
	v = getKeyJsonValueFromContainer(c, key, strlen(key), NULL);
	if (v == NULL || v->type == jbvNull)
		return NULL;
	return v;
}

static JsonbContainer *
jcont(JsonbValue *v)
{
	return v && v->type == jbvBinary ? v->val.binary.data : NULL;
}

static char *
jstr(JsonbValue *v)
{
	return v && v->type == jbvString ? pnstrdup(v->val.string.val, v->val.string.len) : NULL;
}

static char *
jtext(JsonbValue *v)
{
	if (v->type == jbvBinary)
		return JsonbToCString(NULL, v->val.binary.data, v->val.binary.len);
	return JsonbToCString(NULL, &JsonbValueToJsonb(v)->root, 0);
}

static Jsonb *
jparse(const char *text)
{
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text)));
}

static void
jkey(StringInfo b, const char *key)
{
	if (b->len > 1)
		appendStringInfoString(b, ", ");
	escape_json(b, key);
	appendStringInfoString(b, ": ");
}

static void
validation(const char *msg) pg_attribute_noreturn();

static void
validation(const char *msg)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid PartiQL request: %s", msg),
			 st_errdetail_dynamodb("%s", msg)));
}

/* ------------------------------------------------------------ the table's keys */

typedef struct PqlKeys
{
	char	   *pk;
	char	   *sk;				/* NULL: none */
	char		pk_type;		/* 'S', 'N', 'B' (AttributeDefinitions), or 0 */
	char		sk_type;
} PqlKeys;

static void
key_schema(JsonbContainer *ks, PqlKeys *k)
{
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;
	int			n_hash = 0;
	int			n_range = 0;

	k->pk = k->sk = NULL;
	k->pk_type = k->sk_type = 0;
	if (ks == NULL)
		return;
	it = JsonbIteratorInit(ks);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		char	   *name;
		char	   *type;

		if (tok != WJB_ELEM || e.type != jbvBinary)
			continue;
		name = jstr(jget(e.val.binary.data, "AttributeName"));
		type = jstr(jget(e.val.binary.data, "KeyType"));
		if (name && type && strcmp(type, "HASH") == 0)
			k->pk = name, n_hash++;
		else if (name && type)
			k->sk = name, n_range++;
	}

	/*
	 * An index of multi-attribute keys: no term is its key condition (an
	 * attribute name is never empty), so a SELECT of it is a Scan of the
	 * index with the whole WHERE as its filter — the items DynamoDB answers,
	 * read from the whole index.
	 */
	if (n_hash > 1 || n_range > 1)
	{
		k->pk = "";
		k->sk = NULL;
	}
}

/* DescribeTable of table: no such table is DynamoDB's message of PartiQL */
static Jsonb *
describe(const char *table, const char *request)
{
	MemoryContext cxt = CurrentMemoryContext;
	Jsonb	   *volatile d = NULL;
	volatile bool missing = false;

	PG_TRY();
	{
		d = st_ddb_call_internal("DescribeTable", jparse(request));
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_UNDEFINED_TABLE)
			PG_RE_THROW();
		FlushErrorState();
		missing = true;
	}
	PG_END_TRY();
	if (missing)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("PartiQL statement on table \"%s\", which does not exist", table),
				 st_errdetail_dynamodb("Cannot do operations on a non-existent table")));
	return d;
}

/* The keys of table (with index: of that index; ValidationException when it has none such) */
/* the types of k's attributes from the AttributeDefinitions of table t */
static void
key_types(JsonbContainer *t, PqlKeys *k)
{
	JsonbContainer *defs = jcont(jget(t, "AttributeDefinitions"));
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;

	if (defs == NULL)
		return;
	it = JsonbIteratorInit(defs);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		char	   *name;
		char	   *type;

		if (tok != WJB_ELEM || e.type != jbvBinary)
			continue;
		CHECK_FOR_INTERRUPTS();
		name = jstr(jget(e.val.binary.data, "AttributeName"));
		type = jstr(jget(e.val.binary.data, "AttributeType"));
		if (name == NULL || type == NULL)
			continue;
		if (k->pk && strcmp(name, k->pk) == 0)
			k->pk_type = type[0];
		if (k->sk && strcmp(name, k->sk) == 0)
			k->sk_type = type[0];
	}
}

#define KEY_TYPE_MISMATCH "Key attribute's data type should match its data type in table's schema: Key %s"

/* a key equality's value v (a literal or parameter) has key's type t, else DynamoDB's error */
static void
check_key_value(StPqlNode *v, const char *key, char t)
{
	if (v && t && v->kind == PQ_VALUE && v->type != t)
		validation(psprintf(KEY_TYPE_MISMATCH, key));
}

/* an INSERT's item has the key attributes, of their types, else DynamoDB's errors */
static void
check_insert_keys(StPqlStatement *s, const PqlKeys *k)
{
	Jsonb	   *item = jparse(s->item_members);

	for (int i = 0; i < 2; i++)
	{
		const char *key = i ? k->sk : k->pk;
		char		t = i ? k->sk_type : k->pk_type;
		JsonbValue *v;
		char		vt = 0;

		if (key == NULL)
			continue;
		v = jget(&item->root, key);
		if (v == NULL)
			validation(psprintf("Key attribute should be present in the item: Key %s", key));
		if (v->type == jbvBinary && JsonContainerIsObject(v->val.binary.data) &&
			JsonContainerSize(v->val.binary.data) == 1)
			vt = jget(v->val.binary.data, "S") ? 'S' : jget(v->val.binary.data, "N") ? 'N' :
				jget(v->val.binary.data, "B") ? 'B' : 'o';
		if (t && vt != t)
			validation(psprintf(KEY_TYPE_MISMATCH, key));
	}
}

static void
table_keys(const char *table, const char *index, PqlKeys *table_k, PqlKeys *k)
{
	StringInfoData b;
	Jsonb	   *d;
	JsonbContainer *t;

	initStringInfo(&b);
	appendStringInfoString(&b, "{\"TableName\": ");
	escape_json(&b, table);
	appendStringInfoChar(&b, '}');
	d = describe(table, b.data);
	t = jcont(jget(&d->root, "Table"));
	key_schema(jcont(jget(t, "KeySchema")), table_k);
	key_types(t, table_k);
	if (index == NULL)
	{
		*k = *table_k;
		return;
	}
	for (int g = 0; g < 2; g++)
	{
		JsonbContainer *list = jcont(jget(t, g ? "LocalSecondaryIndexes" : "GlobalSecondaryIndexes"));
		JsonbIterator *it;
		JsonbValue	e;
		JsonbIteratorToken tok;

		if (list == NULL)
			continue;
		it = JsonbIteratorInit(list);
		while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
		{
			char	   *name;

			if (tok != WJB_ELEM || e.type != jbvBinary)
				continue;
			name = jstr(jget(e.val.binary.data, "IndexName"));
			if (name && strcmp(name, index) == 0)
			{
				key_schema(jcont(jget(e.val.binary.data, "KeySchema")), k);
				key_types(t, k);
				return;
			}
		}
	}
	validation(psprintf("The table does not have the specified index: %s", index));
}

/* ------------------------------------------------------------ WHERE analysis */

typedef struct Where
{
	int			n;
	StPqlNode **terms;			/* the top-level AND terms */
	bool	   *used;			/* taken as a key condition */
	StPqlNode  *pk_eq;			/* the value the partition key equals */
	StPqlNode  *sk_eq;
	int			sk_term;		/* the term on the sort key (or -1) */
	int			sk_term2;		/* a second range term on the sort key, the
								 * other side of sk_term's (or -1) */
	int			pk_in;			/* a term "pk IN [values]" (or -1) */
} Where;

static void
flatten(StPqlNode *n, Where *w, int *cap)
{
	/* the AND chain is left-deep: walk down its left side iteratively */
	StPqlNode **stack;
	int			top = 0;
	int			scap = 8;

	stack = palloc(sizeof(StPqlNode *) * scap);
	stack[top++] = n;
	while (top > 0)
	{
		StPqlNode  *x = stack[--top];

		CHECK_FOR_INTERRUPTS();
		if (x->kind == PQ_AND)
		{
			if (top + 2 > scap)
			{
				scap *= 2;
				stack = repalloc(stack, sizeof(StPqlNode *) * scap);
			}
			stack[top++] = x->args[1];
			stack[top++] = x->args[0];
			continue;
		}
		if (w->n == *cap)
		{
			*cap *= 2;
			w->terms = repalloc(w->terms, sizeof(StPqlNode *) * *cap);
		}
		w->terms[w->n++] = x;
	}
}

/* term is "key = value" (either side): the value, else NULL */
static StPqlNode *
eq_value(StPqlNode *t, const char *key)
{
	const char *a;
	const char *b;

	if (key == NULL || t->kind != PQ_CMP || strcmp(t->op, "=") != 0)
		return NULL;
	a = st_pql_top_name(t->args[0]);
	b = st_pql_top_name(t->args[1]);
	if (a && strcmp(a, key) == 0 && t->args[1]->kind == PQ_VALUE)
		return t->args[1];
	if (b && strcmp(b, key) == 0 && t->args[0]->kind == PQ_VALUE)
		return t->args[0];
	return NULL;
}

/* term is a sort-key condition a Query takes (= < <= > >= BETWEEN begins_with) */
static bool
is_sk_cond(StPqlNode *t, const char *sk)
{
	const char *a;

	if (sk == NULL)
		return false;
	if (t->kind == PQ_CMP && strcmp(t->op, "<>") != 0)
	{
		const char *b = st_pql_top_name(t->args[1]);

		a = st_pql_top_name(t->args[0]);
		return (a && strcmp(a, sk) == 0 && t->args[1]->kind == PQ_VALUE) ||
			(b && strcmp(b, sk) == 0 && t->args[0]->kind == PQ_VALUE);
	}
	if (t->kind == PQ_BETWEEN)
	{
		a = st_pql_top_name(t->args[0]);
		return a && strcmp(a, sk) == 0 && t->args[1]->kind == PQ_VALUE &&
			t->args[2]->kind == PQ_VALUE;
	}
	if (t->kind == PQ_FUNC && strcmp(t->name, "begins_with") == 0)
	{
		a = st_pql_top_name(t->args[0]);
		return a && strcmp(a, sk) == 0 && t->args[1]->kind == PQ_VALUE;
	}
	return false;
}

/*
 * term is a one-sided range on the sort key (sk > v, sk >= v, v < sk, ...):
 * +1 a lower bound, -1 an upper bound, with its value and whether the bound
 * is in the range; else 0
 */
static int
range_side(StPqlNode *t, const char *sk, StPqlNode **value, bool *inclusive)
{
	const char *a;
	const char *op;
	int			side;

	if (sk == NULL || t->kind != PQ_CMP)
		return 0;
	op = t->op;
	if (strcmp(op, "<") != 0 && strcmp(op, "<=") != 0 && strcmp(op, ">") != 0 && strcmp(op, ">=") != 0)
		return 0;
	side = op[0] == '>' ? 1 : -1;
	a = st_pql_top_name(t->args[0]);
	if (a && strcmp(a, sk) == 0 && t->args[0]->npath == 1 && t->args[1]->kind == PQ_VALUE)
		*value = t->args[1];
	else
	{
		a = st_pql_top_name(t->args[1]);
		if (!(a && strcmp(a, sk) == 0 && t->args[1]->npath == 1 && t->args[0]->kind == PQ_VALUE))
			return 0;
		*value = t->args[0];
		side = -side;
	}
	*inclusive = op[1] == '=';
	return side;
}

/* term is "pk IN [values]" with only literal or parameter S, N or B values of one type */
static bool
is_pk_in(StPqlNode *t, const char *pk)
{
	const char *a;

	if (t->kind != PQ_IN || t->nargs < 2)
		return false;
	a = st_pql_top_name(t->args[0]);
	if (!(a && strcmp(a, pk) == 0 && t->args[0]->npath == 1))
		return false;
	for (int i = 1; i < t->nargs; i++)
	{
		StPqlNode  *v = t->args[i];

		if (v->kind != PQ_VALUE || (v->type != 'S' && v->type != 'N' && v->type != 'B') ||
			v->type != t->args[1]->type)
			return false;
	}
	return true;
}

/*
 * The WHERE's top-level AND terms and which give the key condition. With
 * ranges (a SELECT), a second one-sided range on the sort key, of the other
 * side than the first, is taken too (sk > 1 AND sk < 5: one key range).
 */
static void
analyse(StPqlNode *where, const PqlKeys *k, Where *w, bool ranges)
{
	int			cap = 8;

	memset(w, 0, sizeof(*w));
	w->sk_term = -1;
	w->sk_term2 = -1;
	w->pk_in = -1;
	w->terms = palloc(sizeof(StPqlNode *) * cap);
	if (where)
		flatten(where, w, &cap);
	w->used = palloc0(sizeof(bool) * Max(w->n, 1));
	for (int i = 0; i < w->n; i++)
	{
		StPqlNode  *v;

		if (w->pk_eq == NULL && (v = eq_value(w->terms[i], k->pk)) != NULL)
		{
			w->pk_eq = v;
			w->used[i] = true;
		}
		else if (w->sk_term < 0 && is_sk_cond(w->terms[i], k->sk))
		{
			w->sk_term = i;
			w->sk_eq = eq_value(w->terms[i], k->sk);
			w->used[i] = true;
		}
		else if (ranges && w->pk_in < 0 && is_pk_in(w->terms[i], k->pk))
			w->pk_in = i;
	}
	if (ranges && w->sk_term >= 0)
	{
		StPqlNode  *v1;
		StPqlNode  *v2;
		bool		inc;
		int			side = range_side(w->terms[w->sk_term], k->sk, &v1, &inc);

		for (int i = 0; side != 0 && i < w->n; i++)
			if (!w->used[i] && range_side(w->terms[i], k->sk, &v2, &inc) == -side &&
				v1->type == v2->type && (v1->type == 'S' || v1->type == 'N' || v1->type == 'B'))
			{
				w->sk_term2 = i;
				w->used[i] = true;
				break;
			}
	}
}

/* the unused terms, joined by AND, into out (false: none) */
static bool
render_rest(StPqlRender *r, StringInfo out, Where *w)
{
	bool		any = false;

	for (int i = 0; i < w->n; i++)
	{
		if (w->used[i])
			continue;
		if (any)
			appendStringInfoString(out, " AND ");
		appendStringInfoChar(out, '(');
		st_pql_render(r, out, w->terms[i]);
		appendStringInfoChar(out, ')');
		any = true;
	}
	return any;
}

static void
add_placeholders(StringInfo b, StPqlRender *r)
{
	if (r->nnames)
	{
		jkey(b, "ExpressionAttributeNames");
		appendStringInfo(b, "{%s}", r->names.data);
	}
	if (r->nvalues)
	{
		jkey(b, "ExpressionAttributeValues");
		appendStringInfo(b, "{%s}", r->values.data);
	}
}

static void
add_string(StringInfo b, const char *key, const char *value)
{
	jkey(b, key);
	escape_json(b, value);
}

/* the Key member of an item statement: both keys by equality, else DynamoDB's error */
static void
add_key(StringInfo b, Where *w, const PqlKeys *k, const char *message)
{
	if (w->pk_eq == NULL || (k->sk && w->sk_eq == NULL))
		validation(message);
	jkey(b, "Key");
	appendStringInfoChar(b, '{');
	escape_json(b, k->pk);
	appendStringInfo(b, ": %s", w->pk_eq->wire);
	if (k->sk)
	{
		appendStringInfoString(b, ", ");
		escape_json(b, k->sk);
		appendStringInfo(b, ": %s", w->sk_eq->wire);
	}
	appendStringInfoChar(b, '}');
}

#define NO_FULL_KEY "Where clause does not contain a mandatory equality on all key attributes"

/* ------------------------------------------------------------ the statement's request */

typedef struct PqlOptions
{
	const char *rcc;			/* ReturnConsumedCapacity */
	int			consistent;		/* -1 absent */
	bool		has_limit;
	int64		limit;
	char	   *start_key;		/* NextToken's key (JSON text) */
	bool		transact;		/* inside a transaction: no TableName wrapper */
} PqlOptions;

typedef struct PqlPlan
{
	const char *op;				/* GetItem, Query, Scan, PutItem, UpdateItem, DeleteItem, ConditionCheck */
	StringInfoData req;			/* the request object's members (no braces) */
	bool		single;			/* GetItem: one item */
	int			n_in;			/* a Query a value of "pk IN [...]": how many values */
	bool		pick;			/* the projection is picked from whole items (append_item) */
	const char *sk_name;		/* the sort key of strict_lo, strict_hi */
	char	   *strict_lo;		/* the wire value of a range's excluded bound: its */
	char	   *strict_hi;		/* items are read (BETWEEN) and left out */
} PqlPlan;

/* DynamoDB's limit of partition key values of IN that a SELECT reads as Queries */
#define MAX_IN_KEYS 50

/* node reads a key attribute (a path starting with one of k's names) */
static bool
refs_key(const StPqlNode *n, const PqlKeys *k)
{
	check_stack_depth();
	if (n->kind == PQ_PATH)
		return !n->path[0].is_index &&
			(strcmp(n->path[0].name, k->pk) == 0 || (k->sk && strcmp(n->path[0].name, k->sk) == 0));
	for (int i = 0; i < n->nargs; i++)
		if (refs_key(n->args[i], k))
			return true;
	return false;
}

/*
 * A term beside the key condition reads a key attribute (pk = 'a' AND sk > 1
 * AND sk < 5): a Query's filter may not, so the statement runs as a Scan.
 */
static bool
rest_refs_key(Where *w, const PqlKeys *k)
{
	for (int i = 0; i < w->n; i++)
		if (!w->used[i] && refs_key(w->terms[i], k))
			return true;
	return false;
}

static StPqlNode *
key_path(const char *name)
{
	StPqlNode  *n = palloc0(sizeof(StPqlNode));

	n->kind = PQ_PATH;
	n->npath = 1;
	n->path = palloc0(sizeof(StPqlPathElem));
	n->path[0].name = pstrdup(name);
	return n;
}

/* a key value's type and text from its wire form {"S": "..."}; false: not S, N or B */
static bool
wire_key(const char *wire, char *type, char **text)
{
	Jsonb	   *j = jparse(wire);
	static const char *const types[] = {"S", "N", "B"};

	for (int i = 0; i < 3; i++)
	{
		char	   *t = jstr(jget(&j->root, types[i]));

		if (t)
		{
			*type = types[i][0];
			*text = t;
			return true;
		}
	}
	return false;
}

/* compares key texts of type t: numbers by value, strings and binaries by bytes */
static int
key_text_cmp(char t, const char *a, const char *b)
{
	if (t == 'N')
		return DatumGetInt32(DirectFunctionCall2(numeric_cmp,
												 DirectFunctionCall3(numeric_in, CStringGetDatum(a),
																	 ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)),
												 DirectFunctionCall3(numeric_in, CStringGetDatum(b),
																	 ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1))));
	if (t == 'B')
	{
		/* by the decoded bytes: two base64 spellings of one value are equal */
		int			la = strlen(a),
					lb = strlen(b);
		char	   *da = palloc(pg_b64_dec_len(la) + 1);
		char	   *db = palloc(pg_b64_dec_len(lb) + 1);
		int			na = pg_b64_decode(a, la, da, pg_b64_dec_len(la));
		int			nb = pg_b64_decode(b, lb, db, pg_b64_dec_len(lb));
		int			c;

		if (na < 0 || nb < 0)
			return strcmp(a, b);
		c = memcmp(da, db, Min(na, nb));
		return c != 0 ? c : (na > nb) - (na < nb);
	}
	return strcmp(a, b);
}

/* the wire values a and b are key values of one type and compare as c (<0, 0, >0) */
static bool
wire_cmp(const char *a, const char *b, int *c)
{
	char		ta,
				tb;
	char	   *xa,
			   *xb;

	if (!wire_key(a, &ta, &xa) || !wire_key(b, &tb, &xb) || ta != tb)
		return false;
	*c = key_text_cmp(ta, xa, xb);
	return true;
}

/* item's attribute name equals the key value wire (false when absent or of another type) */
static bool
item_key_equals(JsonbValue *item, const char *name, const char *wire)
{
	JsonbValue *av = item->type == jbvBinary ? jget(item->val.binary.data, name) : NULL;
	char		t;
	char	   *text;
	char	   *v;

	if (av == NULL || !wire_key(wire, &t, &text))
		return false;
	v = jstr(jget(jcont(av), t == 'S' ? "S" : t == 'N' ? "N" : "B"));
	return v != NULL && key_text_cmp(t, v, text) == 0;
}

/* a path as DynamoDB's messages name it: [m, k], [l, [0]] */
static char *
path_label(const StPqlNode *p)
{
	StringInfoData b;

	initStringInfo(&b);
	appendStringInfoChar(&b, '[');
	for (int i = 0; i < p->npath; i++)
	{
		if (i > 0)
			appendStringInfoString(&b, ", ");
		if (p->path[i].is_index)
			appendStringInfo(&b, "[%d]", p->path[i].index);
		else
			appendStringInfoString(&b, p->path[i].name);
	}
	appendStringInfoChar(&b, ']');
	return b.data;
}

/* orders paths by their steps, a path before those it is the start of */
static int
path_cmp(const void *x, const void *y)
{
	const StPqlNode *a = *(const StPqlNode *const *) x;
	const StPqlNode *b = *(const StPqlNode *const *) y;

	for (int e = 0; e < a->npath && e < b->npath; e++)
	{
		int			c;

		if (a->path[e].is_index != b->path[e].is_index)
			return a->path[e].is_index ? 1 : -1;
		c = a->path[e].is_index ? (a->path[e].index > b->path[e].index) - (a->path[e].index < b->path[e].index)
			: strcmp(a->path[e].name, b->path[e].name);
		if (c != 0)
			return c;
	}
	return (a->npath > b->npath) - (a->npath < b->npath);
}

/*
 * two selected paths of which one is (in) the other: DynamoDB's error;
 * sorted, such a pair is next to each other
 */
static void
check_overlap(StPqlStatement *s)
{
	const StPqlNode **sorted;

	if (s->nproj < 2)
		return;
	sorted = palloc(sizeof(StPqlNode *) * s->nproj);
	memcpy(sorted, s->proj, sizeof(StPqlNode *) * s->nproj);
	qsort(sorted, s->nproj, sizeof(StPqlNode *), path_cmp);
	for (int i = 0; i + 1 < s->nproj; i++)
	{
		const StPqlNode *a = sorted[i];
		const StPqlNode *b = sorted[i + 1];
		bool		same = true;

		CHECK_FOR_INTERRUPTS();
		for (int e = 0; e < a->npath && same; e++)
			same = a->path[e].is_index == b->path[e].is_index &&
				(a->path[e].is_index ? a->path[e].index == b->path[e].index
				 : strcmp(a->path[e].name, b->path[e].name) == 0);
		if (same)
			validation(psprintf("Two document paths overlap with each other; must remove or rewrite one of these paths; path one: %s, path two: %s",
								path_label(a), path_label(b)));
	}
}

/*
 * Plans a SELECT (or the EXISTS of a transaction) as the request of an
 * operation. in_value: with "pk IN [...]" read as Queries (pl->n_in > 0),
 * the value of the list this Query reads.
 */
static void
plan_select(StPqlStatement *s, PqlOptions *o, PqlPlan *pl, bool exists,
			const char *single_only, int in_value)
{
	PqlKeys		tk;
	PqlKeys		k;
	Where		w;
	StPqlRender r;
	StringInfoData e;
	StringInfo	b = &pl->req;
	bool		nested;

	/* a batch's read of an index: not of one item (before the index is looked up) */
	if (single_only && s->index && !exists)
		validation(single_only);
	table_keys(s->table, s->index, &tk, &k);
	analyse(s->where, &k, &w, !exists);
	/* pk IN [v1, ...]: a Query each value (DynamoDB's docs: no full scan) */
	if (!exists && w.pk_eq == NULL && w.pk_in >= 0 && w.terms[w.pk_in]->nargs - 1 <= MAX_IN_KEYS)
	{
		pl->n_in = w.terms[w.pk_in]->nargs - 1;
		w.used[w.pk_in] = true;
		w.pk_eq = w.terms[w.pk_in]->args[1 + Max(0, Min(in_value, pl->n_in - 1))];
	}
	check_key_value(w.pk_eq, k.pk, k.pk_type);
	check_key_value(w.sk_eq, k.sk, k.sk_type);
	if (!exists)
		check_overlap(s);
	st_pql_render_init(&r);
	initStringInfo(&e);
	appendStringInfoChar(b, '{');
	add_string(b, "TableName", s->table);

	if (s->order_by)
	{
		const char *ob = st_pql_top_name(s->order_by);

		if (s->where == NULL)
			validation("Must have WHERE clause in the statement when using ORDER BY clause.");
		if (w.pk_eq == NULL)
			validation("Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause.");
		if (ob == NULL || (strcmp(ob, k.pk) != 0 && (k.sk == NULL || strcmp(ob, k.sk) != 0)))
			validation(psprintf("Variable reference %s in ORDER BY clause must be part of the primary key",
								ob ? ob : "path"));
	}
	if (exists)
	{
		/* EXISTS(SELECT ...) of a transaction: a ConditionCheck of the item */
		if (s->index)
			validation("EXISTS can not be used on an index");
		pl->op = "ConditionCheck";
		add_key(b, &w, &k, NO_FULL_KEY);
		appendStringInfoString(&e, "attribute_exists(");
		st_pql_render(&r, &e, key_path(k.pk));
		appendStringInfoChar(&e, ')');
		if (w.sk_term >= 0 && w.sk_eq == NULL)
			w.used[w.sk_term] = false;
		/* DynamoDB: "a full primary key and one other condition" */
		if (single_only)
		{
			bool		cond = false;

			for (int i = 0; i < w.n; i++)
				cond |= !w.used[i];
			if (!cond)
				validation(single_only);
		}
		for (int i = 0; i < w.n; i++)
			if (!w.used[i])
			{
				appendStringInfoString(&e, " AND (");
				st_pql_render(&r, &e, w.terms[i]);
				appendStringInfoChar(&e, ')');
			}
		add_string(b, "ConditionExpression", e.data);
		add_placeholders(b, &r);
		appendStringInfoChar(b, '}');
		return;
	}

	nested = false;
	for (int i = 0; i < s->nproj; i++)
		nested |= s->proj[i]->npath > 1;
	/* two range terms on the sort key: one key range, its excluded bounds left out after */
	if (w.sk_term2 >= 0 && w.pk_eq && !rest_refs_key(&w, &k))
	{
		StPqlNode  *v1,
				   *v2;
		bool		inc1,
					inc2;

		if (range_side(w.terms[w.sk_term], k.sk, &v1, &inc1) < 0)
		{
			(void) range_side(w.terms[w.sk_term2], k.sk, &v2, &inc2);
			pl->strict_lo = inc2 ? NULL : v2->wire;
			pl->strict_hi = inc1 ? NULL : v1->wire;
		}
		else
		{
			(void) range_side(w.terms[w.sk_term2], k.sk, &v2, &inc2);
			pl->strict_lo = inc1 ? NULL : v1->wire;
			pl->strict_hi = inc2 ? NULL : v2->wire;
		}
		pl->sk_name = k.sk;
	}
	/*
	 * a nested path is answered by append_item from the whole item: a
	 * ProjectionExpression would compact its lists (l[1] becomes l[0]); so
	 * are the items of a range with an excluded bound (its sort key is read)
	 */
	/*
	 * (BatchExecuteStatement's and ExecuteTransaction's reads answer nested
	 * paths in the item's structure, as DynamoDB Local does: their
	 * GetItem's ProjectionExpression)
	 */
	pl->pick = s->nproj > 0 && ((nested && !single_only) || pl->strict_lo || pl->strict_hi);
	if (s->nproj > 0 && !pl->pick)
	{
		for (int i = 0; i < s->nproj; i++)
		{
			if (i > 0)
				appendStringInfoString(&e, ", ");
			st_pql_render(&r, &e, s->proj[i]);
		}
		add_string(b, "ProjectionExpression", e.data);
		resetStringInfo(&e);
	}
	if (w.pk_eq && (k.sk == NULL || w.sk_eq) && s->index == NULL && w.n == (k.sk ? 2 : 1) &&
		pl->n_in == 0 && !o->has_limit &&
		o->start_key == NULL)
	{
		pl->op = "GetItem";
		pl->single = true;
		add_key(b, &w, &k, NO_FULL_KEY);
	}
	else if (single_only)
		validation(single_only);
	else if (w.pk_eq && !rest_refs_key(&w, &k))
	{
		pl->op = "Query";
		appendStringInfoChar(&e, '(');
		st_pql_render(&r, &e, key_path(k.pk));
		appendStringInfoString(&e, " = ");
		st_pql_render(&r, &e, w.pk_eq);
		appendStringInfoChar(&e, ')');
		if (w.sk_term2 >= 0)
		{
			/* sk > lo AND sk < hi: BETWEEN lo AND hi, the bounds excluded after */
			StPqlNode  *lo,
					   *hi;
			bool		inc;
			int			c;

			if (range_side(w.terms[w.sk_term], k.sk, &lo, &inc) < 0)
			{
				hi = lo;
				(void) range_side(w.terms[w.sk_term2], k.sk, &lo, &inc);
			}
			else
				(void) range_side(w.terms[w.sk_term2], k.sk, &hi, &inc);
			/* an empty range: the one at lo, left out (as BETWEEN refuses lo > hi) */
			if (wire_cmp(lo->wire, hi->wire, &c) && c > 0)
			{
				hi = lo;
				pl->strict_lo = lo->wire;
			}
			appendStringInfoString(&e, " AND ");
			st_pql_render(&r, &e, key_path(k.sk));
			appendStringInfoString(&e, " BETWEEN ");
			st_pql_render(&r, &e, lo);
			appendStringInfoString(&e, " AND ");
			st_pql_render(&r, &e, hi);
		}
		else if (w.sk_term >= 0)
		{
			appendStringInfoString(&e, " AND ");
			st_pql_render(&r, &e, w.terms[w.sk_term]);
		}
		add_string(b, "KeyConditionExpression", e.data);
		resetStringInfo(&e);
		if (render_rest(&r, &e, &w))
			add_string(b, "FilterExpression", e.data);
		if (s->order_desc)
		{
			jkey(b, "ScanIndexForward");
			appendStringInfoString(b, "false");
		}
	}
	else
	{
		if (s->order_by)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("PartiQL SELECT on table \"%s\": ORDER BY with a second condition on a key attribute is not supported",
							s->table),
					 st_errdetail_dynamodb("ORDER BY with a second condition on a key attribute is not supported")));
		pl->op = "Scan";
		pl->n_in = 0;
		pl->strict_lo = pl->strict_hi = NULL;
		for (int i = 0; i < w.n; i++)
			w.used[i] = false;
		if (render_rest(&r, &e, &w))
			add_string(b, "FilterExpression", e.data);
	}
	if (s->index)
		add_string(b, "IndexName", s->index);
	add_placeholders(b, &r);
	if (o->consistent >= 0 && !o->transact)
	{
		jkey(b, "ConsistentRead");
		appendStringInfoString(b, o->consistent ? "true" : "false");
	}
	if (o->has_limit && !pl->single)
	{
		jkey(b, "Limit");
		appendStringInfo(b, INT64_FORMAT, o->limit);
	}
	if (o->start_key && !pl->single)
	{
		jkey(b, "ExclusiveStartKey");
		appendStringInfoString(b, o->start_key);
	}
	if (o->rcc && !o->transact)
		add_string(b, "ReturnConsumedCapacity", o->rcc);
	appendStringInfoChar(b, '}');
}

static void
plan_write(StPqlStatement *s, PqlOptions *o, PqlPlan *pl)
{
	PqlKeys		k;
	PqlKeys		tk;
	Where		w;
	StPqlRender r;
	StringInfoData e;
	StringInfo	b = &pl->req;

	table_keys(s->table, NULL, &tk, &k);
	st_pql_render_init(&r);
	initStringInfo(&e);
	appendStringInfoChar(b, '{');
	add_string(b, "TableName", s->table);
	if (s->kind == PQL_INSERT)
	{
		check_insert_keys(s, &k);
		pl->op = "PutItem";
		jkey(b, "Item");
		appendStringInfoString(b, s->item_members);
		appendStringInfoString(&e, "attribute_not_exists(");
		st_pql_render(&r, &e, key_path(k.pk));
		appendStringInfoChar(&e, ')');
		add_string(b, "ConditionExpression", e.data);
	}
	else
	{
		analyse(s->where, &k, &w, false);
		add_key(b, &w, &k, NO_FULL_KEY);
		check_key_value(w.pk_eq, k.pk, k.pk_type);
		check_key_value(w.sk_eq, k.sk, k.sk_type);
		/* a second equality on a key attribute: DynamoDB's message, not a false condition */
		for (int i = 0; i < w.n; i++)
		{
			const char *key = NULL;

			if (w.used[i])
				continue;
			if (eq_value(w.terms[i], k.pk))
				key = k.pk;
			else if (w.sk_eq && eq_value(w.terms[i], k.sk))
				key = k.sk;
			if (key)
				validation(psprintf("Multiple conditions on same key %s. Only single item Update/Insert/Delete are supported",
									key));
		}
		/* a sort-key term other than equality is a condition */
		if (w.sk_term >= 0 && w.sk_eq == NULL)
			w.used[w.sk_term] = false;
		if (s->kind == PQL_UPDATE)
		{
			pl->op = "UpdateItem";
			st_pql_render_update(&r, &e, s);
			add_string(b, "UpdateExpression", e.data);
			resetStringInfo(&e);
			/* PartiQL's UPDATE changes an existing item only */
			appendStringInfoString(&e, "attribute_exists(");
			st_pql_render(&r, &e, key_path(k.pk));
			appendStringInfoChar(&e, ')');
			for (int i = 0; i < w.n; i++)
				if (!w.used[i])
				{
					appendStringInfoString(&e, " AND (");
					st_pql_render(&r, &e, w.terms[i]);
					appendStringInfoChar(&e, ')');
				}
			add_string(b, "ConditionExpression", e.data);
		}
		else
		{
			/*
			 * the WHERE selects no absent item: deleting it is no error
			 * (as DynamoDB Local), the condition is the item's
			 */
			bool		cond = false;

			pl->op = "DeleteItem";

			for (int i = 0; i < w.n; i++)
				cond |= !w.used[i];
			if (cond)
			{
				appendStringInfoString(&e, "attribute_not_exists(");
				st_pql_render(&r, &e, key_path(k.pk));
				appendStringInfoString(&e, ") OR ");
				(void) render_rest(&r, &e, &w);
				add_string(b, "ConditionExpression", e.data);
			}
		}
		if (s->returning && !o->transact)
		{
			if (s->kind == PQL_DELETE && strcmp(s->returning, "ALL_OLD") != 0)
				validation(psprintf("Invalid returning clause: RETURNING %s %s *. Only RETURNING ALL OLD * is allowed in DELETE statements.",
									strncmp(s->returning, "ALL", 3) == 0 ? "ALL" : "MODIFIED",
									strstr(s->returning, "OLD") ? "OLD" : "NEW"));
			add_string(b, "ReturnValues", s->returning);
		}
	}
	add_placeholders(b, &r);
	if (o->rcc && !o->transact)
		add_string(b, "ReturnConsumedCapacity", o->rcc);
	appendStringInfoChar(b, '}');
}

/* ------------------------------------------------------------ one statement */

static StPqlStatement *
parse_statement(const char *statement, JsonbValue *params)
{
	char	  **texts = NULL;
	char	   *types = NULL;
	int			n = 0;

	if (params)
	{
		JsonbIterator *it;
		JsonbValue	e;
		JsonbIteratorToken tok;
		int			cap;

		if (params->type != jbvBinary || !JsonContainerIsArray(params->val.binary.data))
			st_attrval_serialization_error(params, "List");
		cap = JsonContainerSize(params->val.binary.data);
		if (cap == 0)
			validation("1 validation error detected: Value '[]' at 'parameters' failed to satisfy constraint: Member must have length greater than or equal to 1");
		texts = palloc(sizeof(char *) * cap);
		types = palloc(cap);
		it = JsonbIteratorInit(params->val.binary.data);
		while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
		{
			char		t = 'o';

			if (tok != WJB_ELEM)
				continue;
			CHECK_FOR_INTERRUPTS();
			if (!st_jbv_is_object(&e))
				st_attrval_serialization_error(&e, "Map");
			/* checked as a value: its errors say what is wrong with it */
			(void) st_attrval_to_val(&e, ST_AV_VALUES, 1);
			if (JsonContainerSize(e.val.binary.data) == 1)
			{
				if (jget(e.val.binary.data, "S"))
					t = 'S';
				else if (jget(e.val.binary.data, "N"))
					t = 'N';
				else if (jget(e.val.binary.data, "B"))
					t = 'B';
			}
			types[n] = t;
			texts[n++] = jtext(&e);
		}
	}
	return st_pql_parse(statement, strlen(statement), texts, types, n);
}

static char *
next_token_encode(Jsonb *key)
{
	char	   *text = JsonbToCString(NULL, &key->root, VARSIZE(key));
	int			len = strlen(text);
	char	   *out = palloc(pg_b64_enc_len(len) + 1);
	int			n = pg_b64_encode(text, len, out, pg_b64_enc_len(len));

	out[n] = '\0';
	return out;
}

static char *
next_token_decode(const char *token)
{
	int			len = strlen(token);
	char	   *out = palloc(pg_b64_dec_len(len) + 1);
	int			n = pg_b64_decode(token, len, out, pg_b64_dec_len(len));
	Jsonb	   *volatile j = NULL;
	MemoryContext cxt = CurrentMemoryContext;

	if (n < 0)
		validation("The provided starting token is invalid");
	out[n] = '\0';
	PG_TRY();
	{
		j = jparse(out);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		FlushErrorState();
	}
	PG_END_TRY();
	if (j == NULL || !JB_ROOT_IS_OBJECT(j) || JB_ROOT_IS_SCALAR(j))
		validation("The provided starting token is invalid");
	return out;
}

/*
 * A selected item as PartiQL answers it: a nested path's value under the
 * name of its last step (SELECT m.k, l[1] gives "k" and "l[1]"), where a
 * ProjectionExpression keeps the document's structure.
 */
static void
append_item(StringInfo out, JsonbValue *item, StPqlStatement *s, bool nested)
{
	bool		first = true;

	if (!nested)
	{
		appendStringInfoString(out, jtext(item));
		return;
	}
	appendStringInfoChar(out, '{');
	for (int i = 0; i < s->nproj; i++)
	{
		StPqlNode  *p = s->proj[i];
		JsonbValue *av = jget(item->val.binary.data, p->path[0].name);
		StringInfoData label;

		CHECK_FOR_INTERRUPTS();
		initStringInfo(&label);
		appendStringInfoString(&label, p->path[0].name);
		for (int e = 1; av && e < p->npath; e++)
		{
			JsonbValue *inner;

			if (p->path[e].is_index)
			{
				inner = jget(jcont(av), "L");
				av = inner && jcont(inner) && JsonContainerIsArray(jcont(inner)) ?
					getIthJsonbValueFromContainer(jcont(inner), p->path[e].index) : NULL;
				appendStringInfo(&label, "[%d]", p->path[e].index);
			}
			else
			{
				inner = jget(jcont(av), "M");
				av = jget(jcont(inner), p->path[e].name);
				resetStringInfo(&label);
				appendStringInfoString(&label, p->path[e].name);
			}
		}
		if (av == NULL)
			continue;
		if (!first)
			appendStringInfoString(out, ", ");
		first = false;
		escape_json(out, label.data);
		appendStringInfoString(out, ": ");
		appendStringInfoString(out, jtext(av));
	}
	appendStringInfoChar(out, '}');
}

/*
 * Calls operation op with request text req; an error whose DynamoDB message
 * starts with prefix loses it: a statement has no UpdateExpression or
 * KeyConditionExpression, so DynamoDB's message does not name one.
 */
static Jsonb *
call_unprefixed(const char *op, const char *req, const char *prefix)
{
	MemoryContext cxt = CurrentMemoryContext;
	Jsonb	   *volatile res = NULL;

	PG_TRY();
	{
		res = st_ddb_call_internal(op, jparse(req));
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		char	   *member = psprintf("\"message\": \"%s", prefix);
		char	   *at;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->detail == NULL || (at = strstr(edata->detail, member)) == NULL)
			PG_RE_THROW();
		FlushErrorState();
		edata->detail = psprintf("%.*s\"message\": \"%s", (int) (at - edata->detail), edata->detail,
								 at + strlen(member));
		ReThrowError(edata);
	}
	PG_END_TRY();
	return res;
}

/*
 * The sum of two ConsumedCapacity objects of one shape (the Queries of one
 * statement): the numbers added member by member, the rest of a's.
 */
static void
capacity_add(StringInfo out, JsonbContainer *a, JsonbContainer *b)
{
	JsonbIterator *it = JsonbIteratorInit(a);
	JsonbValue	key;
	JsonbValue	val;
	JsonbIteratorToken tok;
	bool		first = true;

	check_stack_depth();
	appendStringInfoChar(out, '{');
	while ((tok = JsonbIteratorNext(&it, &key, true)) != WJB_DONE)
	{
		char	   *name;
		JsonbValue *other;

		if (tok != WJB_KEY)
			continue;
		CHECK_FOR_INTERRUPTS();
		(void) JsonbIteratorNext(&it, &val, true);
		name = pnstrdup(key.val.string.val, key.val.string.len);
		other = b ? jget(b, name) : NULL;
		if (!first)
			appendStringInfoString(out, ", ");
		first = false;
		escape_json(out, name);
		appendStringInfoString(out, ": ");
		if (val.type == jbvNumeric && other && other->type == jbvNumeric)
			appendStringInfoString(out, DatumGetCString(DirectFunctionCall1(numeric_out,
																			DirectFunctionCall2(numeric_add,
																								NumericGetDatum(val.val.numeric),
																								NumericGetDatum(other->val.numeric)))));
		else if (val.type == jbvBinary && JsonContainerIsObject(val.val.binary.data))
			capacity_add(out, val.val.binary.data, jcont(other));
		else
			appendStringInfoString(out, jtext(&val));
	}
	appendStringInfoChar(out, '}');
}

/*
 * The order in which the n values of "pk IN [...]" are read: the list's, or
 * with ORDER BY the partition key the values' (DESC: reversed), as DynamoDB
 * Local answers; into perm. A repeated value is -1 after its first (read once).
 */
static void
in_order(StPqlStatement *s, int n, int *perm)
{
	PqlKeys		tk,
				k;
	Where		w;
	StPqlNode **v;
	const char *ob = s->order_by ? st_pql_top_name(s->order_by) : NULL;

	table_keys(s->table, s->index, &tk, &k);
	analyse(s->where, &k, &w, true);
	v = w.terms[w.pk_in]->args + 1;
	for (int i = 0; i < n; i++)
		perm[i] = i;
	/* insertion sort: n is at most MAX_IN_KEYS */
	for (int i = 1; ob && strcmp(ob, k.pk) == 0 && i < n; i++)
		for (int j = i; j > 0; j--)
		{
			int			c;

			CHECK_FOR_INTERRUPTS();
			if (!wire_cmp(v[perm[j - 1]]->wire, v[perm[j]]->wire, &c) || (s->order_desc ? c >= 0 : c <= 0))
				break;
			c = perm[j];
			perm[j] = perm[j - 1];
			perm[j - 1] = c;
		}
	for (int i = 1; i < n; i++)
		for (int j = 0; j < i; j++)
		{
			CHECK_FOR_INTERRUPTS();
			if (perm[j] >= 0 && strcmp(v[perm[j]]->wire, v[perm[i]]->wire) == 0)
			{
				perm[i] = -1;
				break;
			}
		}
}

/*
 * Runs a SELECT; returns the response of ExecuteStatement. With "pk IN
 * [...]" the Queries of its values run in the list's order, their items
 * concatenated, Limit (the items evaluated) across them, and NextToken is
 * {"$in": the value's position[, "key": the Query's LastEvaluatedKey]}.
 */
static Jsonb *
run_select(StPqlStatement *s, PqlOptions *o, const char *single_only)
{
	PqlOptions	so = *o;
	StringInfoData out;
	StringInfoData cc;
	char	   *next = NULL;
	int			vi = 0;
	int		   *perm = NULL;
	bool		first = true;
	bool		in_token = false;
	int64		left = o->limit;

	initStringInfo(&out);
	initStringInfo(&cc);
	if (o->start_key)
	{
		Jsonb	   *t = jparse(o->start_key);
		JsonbValue *pos = jget(&t->root, "$in");

		if (pos)
		{
			JsonbValue *key = jget(&t->root, "key");

			char	   *text;
			char	   *end;
			long		n;

			if (pos->type != jbvNumeric)
				validation("The provided starting token is invalid");
			text = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(pos->val.numeric)));
			errno = 0;
			n = strtol(text, &end, 10);
			if (errno != 0 || *end != '\0' || n < 0 || n >= MAX_IN_KEYS)
				validation("The provided starting token is invalid");
			vi = (int) n;
			so.start_key = key ? jtext(key) : NULL;
			in_token = true;
		}
	}
	appendStringInfoString(&out, "{\"Items\": [");
	for (;;)
	{
		PqlPlan		pl = {0};
		Jsonb	   *res;
		JsonbValue *v;
		JsonbValue *lek;

		CHECK_FOR_INTERRUPTS();
		initStringInfo(&pl.req);
		plan_select(s, &so, &pl, false, single_only, perm ? perm[vi] : vi);
		if ((o->start_key && in_token != (pl.n_in > 0)) || (pl.n_in > 0 && (vi < 0 || vi >= pl.n_in)))
			validation("The provided starting token is invalid");
		if (pl.n_in > 0 && perm == NULL)
		{
			/* now that the values are known: their order, then this one's plan again */
			perm = palloc(sizeof(int) * pl.n_in);
			in_order(s, pl.n_in, perm);
			continue;
		}
		if (pl.n_in > 0 && perm[vi] < 0)
		{
			/* a repeated value */
			if (++vi >= pl.n_in)
				break;
			continue;
		}
		res = call_unprefixed(pl.op, pl.req.data, "Invalid KeyConditionExpression: ");
		if (pl.single)
		{
			v = jget(&res->root, "Item");
			if (v)
			{
				append_item(&out, v, s, pl.pick);
				first = false;
			}
		}
		else if ((v = jget(&res->root, "Items")) != NULL)
		{
			int			ni = JsonContainerSize(v->val.binary.data);

			for (int i = 0; i < ni; i++)
			{
				JsonbValue *item = getIthJsonbValueFromContainer(v->val.binary.data, i);

				CHECK_FOR_INTERRUPTS();
				/* a range's excluded bound */
				if ((pl.strict_lo && item_key_equals(item, pl.sk_name, pl.strict_lo)) ||
					(pl.strict_hi && item_key_equals(item, pl.sk_name, pl.strict_hi)))
					continue;
				if (!first)
					appendStringInfoString(&out, ", ");
				first = false;
				append_item(&out, item, s, pl.pick);
			}
		}
		if ((v = jget(&res->root, "ConsumedCapacity")) != NULL)
		{
			if (cc.len == 0)
				appendStringInfoString(&cc, jtext(v));
			else
			{
				Jsonb	   *prev = jparse(cc.data);

				resetStringInfo(&cc);
				capacity_add(&cc, &prev->root, jcont(v));
			}
		}
		lek = pl.single ? NULL : jget(&res->root, "LastEvaluatedKey");
		if (pl.n_in == 0)
		{
			if (lek)
				next = next_token_encode(jparse(jtext(lek)));
			break;
		}
		if (o->has_limit && (v = jget(&res->root, "ScannedCount")) != NULL && v->type == jbvNumeric)
			left -= DatumGetInt64(DirectFunctionCall1(numeric_int8, NumericGetDatum(v->val.numeric)));
		if (lek)
		{
			next = next_token_encode(jparse(psprintf("{\"$in\": %d, \"key\": %s}", vi, jtext(lek))));
			break;
		}
		if (++vi >= pl.n_in)
			break;
		if (o->has_limit && left <= 0)
		{
			next = next_token_encode(jparse(psprintf("{\"$in\": %d}", vi)));
			break;
		}
		so.start_key = NULL;
		so.limit = left;
	}
	appendStringInfoChar(&out, ']');
	if (next)
	{
		jkey(&out, "NextToken");
		escape_json(&out, next);
	}
	if (cc.len > 0)
	{
		jkey(&out, "ConsumedCapacity");
		appendStringInfoString(&out, cc.data);
	}
	appendStringInfoChar(&out, '}');
	return jparse(out.data);
}

/*
 * Runs a statement (not EXISTS) with options o; returns the response of
 * ExecuteStatement {"Items": [...], "NextToken", "ConsumedCapacity"}.
 */
static Jsonb *
run_statement(StPqlStatement *s, PqlOptions *o, const char *single_only)
{
	PqlPlan		pl = {0};
	Jsonb	   *res = NULL;
	StringInfoData out;
	JsonbValue *v;

	initStringInfo(&pl.req);
	if (s->kind == PQL_EXISTS)
		validation("EXISTS can only be used in ExecuteTransaction write requests.");
	if (s->kind == PQL_SELECT)
		return run_select(s, o, single_only);
	plan_write(s, o, &pl);

	if (s->kind == PQL_INSERT)
	{
		MemoryContext cxt = CurrentMemoryContext;

		PG_TRY();
		{
			res = st_ddb_call_internal(pl.op, jparse(pl.req.data));
		}
		PG_CATCH();
		{
			ErrorData  *edata;

			MemoryContextSwitchTo(cxt);
			edata = CopyErrorData();
			if (edata->sqlerrcode != ERRCODE_ST_CONDITIONAL_CHECK_FAILED)
				PG_RE_THROW();
			FlushErrorState();
			ereport(ERROR,
					(errcode(ERRCODE_ST_DUPLICATE_ITEM),
					 errmsg("PartiQL INSERT into table \"%s\": an item with this primary key exists",
							s->table),
					 st_errdetail_dynamodb("Duplicate primary key exists in table")));
		}
		PG_END_TRY();
	}
	else if (s->kind == PQL_UPDATE)
		res = call_unprefixed(pl.op, pl.req.data, "Invalid UpdateExpression: ");
	else
		res = st_ddb_call_internal(pl.op, jparse(pl.req.data));

	initStringInfo(&out);
	appendStringInfoString(&out, "{\"Items\": [");
	if ((v = jget(&res->root, "Attributes")) != NULL)
		appendStringInfoString(&out, jtext(v));
	appendStringInfoChar(&out, ']');
	if ((v = jget(&res->root, "ConsumedCapacity")) != NULL)
	{
		jkey(&out, "ConsumedCapacity");
		appendStringInfoString(&out, jtext(v));
	}
	appendStringInfoChar(&out, '}');
	return jparse(out.data);
}

static void
read_options(StDdbCall *call, PqlOptions *o)
{
	char	   *token;

	memset(o, 0, sizeof(*o));
	o->rcc = st_ddb_string(call, "ReturnConsumedCapacity");
	o->consistent = st_ddb_bool(call, "ConsistentRead");
	o->has_limit = st_ddb_int(call, "Limit", &o->limit);
	if (o->has_limit && o->limit < 1)
		validation(psprintf("1 validation error detected: Value '" INT64_FORMAT "' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1",
							o->limit));
	token = st_ddb_string(call, "NextToken");
	if (token)
		o->start_key = next_token_decode(token);
}

static char *
statement_of(StDdbCall *call)
{
	char	   *s = st_ddb_string(call, "Statement");

	if (s == NULL)
		validation("1 validation error detected: Value null at 'statement' failed to satisfy constraint: Member must not be null");
	if (s[0] == '\0')
		validation("1 validation error detected: Value '' at 'statement' failed to satisfy constraint: Member must have length greater than or equal to 1");
	return s;
}

Jsonb *
st_ddb_execute_statement(StDdbCall *call)
{
	PqlOptions	o;
	char	   *text = statement_of(call);
	StPqlStatement *s;

	read_options(call, &o);
	s = parse_statement(text, st_ddb_member(call, "Parameters"));
	return run_statement(s, &o, NULL);
}

/* ------------------------------------------------------------ BatchExecuteStatement */

/* DynamoDB's Code of a batch statement's error, from the exception of its SQLSTATE */
static const char *
batch_code(int sqlerrcode)
{
	const char *exc = st_dynamodb_exception(sqlerrcode);
	const char *name = strchr(exc, '#');
	int			len;

	name = name ? name + 1 : exc;
	if (strcmp(name, "ValidationException") == 0)
		return "ValidationError";
	if (strcmp(name, "ThrottlingException") == 0)
		return "ThrottlingError";
	len = strlen(name);
	if (len > 9 && strcmp(name + len - 9, "Exception") == 0)
		return pnstrdup(name, len - 9);
	return name;
}

/* the message of an error: its DynamoDB body's, else its own */
static char *
error_message(ErrorData *edata)
{
	if (edata->detail && strncmp(edata->detail, "{\"__type\"", 9) == 0)
	{
		Jsonb	   *body = jparse(edata->detail);
		char	   *m = jstr(jget(&body->root, "message"));

		if (m)
			return m;
	}
	return pstrdup(edata->message ? edata->message : "");
}

/* a ValidationError of an item: an update of a path it does not have, of a value of another type */
static bool
item_validation(const char *message)
{
	return strcmp(message, "The document path provided in the update expression is invalid for update") == 0 ||
		strcmp(message, "The provided expression refers to an attribute that does not exist in the item") == 0 ||
		strncmp(message, "An operand in the update expression has an incorrect data type", 63) == 0;
}

/* the statements of a batch or transaction: their count checked */
static JsonbValue *
statements_member(StDdbCall *call, const char *member, const char *path, int max)
{
	JsonbValue *v = st_ddb_array(call, member);
	int			n;

	if (v == NULL)
		validation(psprintf("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", path));
	n = JsonContainerSize(v->val.binary.data);
	if (n < 1)
		validation(psprintf("1 validation error detected: Value '[]' at '%s' failed to satisfy constraint: Member must have length greater than or equal to 1", path));
	if (n > max)
		validation(psprintf("1 validation error detected: Value at '%s' failed to satisfy constraint: Member must have length less than or equal to %d", path, max));
	return v;
}

/* element i's Statement and Parameters */
static void
statement_at(JsonbValue *list, int i, char **text, JsonbValue **params, int *consistent)
{
	JsonbValue *e = getIthJsonbValueFromContainer(list->val.binary.data, i);
	JsonbValue *st;

	if (e == NULL || !st_jbv_is_object(e))
		st_attrval_serialization_error(e, "Map");
	st = jget(e->val.binary.data, "Statement");
	if (st == NULL)
		validation("1 validation error detected: Value null at 'statement' failed to satisfy constraint: Member must not be null");
	*text = st_ddb_string_of(st);
	if ((*text)[0] == '\0')
		validation("1 validation error detected: Value '' at 'statement' failed to satisfy constraint: Member must have length greater than or equal to 1");
	*params = jget(e->val.binary.data, "Parameters");
	if (consistent)
	{
		JsonbValue *c = jget(e->val.binary.data, "ConsistentRead");

		*consistent = c && c->type == jbvBool ? (c->val.boolean ? 1 : 0) : -1;
	}
}

/* parses a statement of a batch: NULL, or the error (parsing touches no shared state) */
static ErrorData *
try_parse(char *text, JsonbValue *params, StPqlStatement **out)
{
	MemoryContext cxt = CurrentMemoryContext;
	ErrorData  *volatile err = NULL;

	PG_TRY();
	{
		*out = parse_statement(text, params);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		err = CopyErrorData();
		FlushErrorState();
		*out = NULL;
	}
	PG_END_TRY();
	return err;
}

/* runs a statement of a batch in a subtransaction of its own: NULL, or its error */
static ErrorData *
try_run(StPqlStatement *s, PqlOptions *o, Jsonb **res)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	ErrorData  *volatile err = NULL;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		*res = run_statement(s, o, "Only single item select is supported");
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		err = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_END_TRY();
	return err;
}

/*
 * The item a statement of a batch names, "table" + its key (canonical
 * JSON), or NULL when it names none or fails (its error comes when it
 * runs); planned in a subtransaction of its own, as it runs.
 */
static char *
batch_key(StPqlStatement *s)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	char	   *volatile key = NULL;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		PqlOptions	o = {0};
		PqlPlan		pl = {0};

		o.consistent = -1;
		initStringInfo(&pl.req);
		if (s->kind == PQL_SELECT)
			plan_select(s, &o, &pl, false, "", -1);
		else
			plan_write(s, &o, &pl);
		if (pl.single || s->kind != PQL_SELECT)
		{
			Jsonb	   *req = jparse(pl.req.data);
			JsonbValue *k = jget(&req->root, "Key");
			StringInfoData b;

			initStringInfo(&b);
			escape_json(&b, s->table);
			if (k)
				appendStringInfo(&b, " %s", jtext(k));
			else
			{
				/* an INSERT: its item's key attributes */
				PqlKeys		tk,
							kk;
				JsonbValue *item = jget(&req->root, "Item");
				JsonbValue *v;
				StringInfoData kb;

				table_keys(s->table, NULL, &tk, &kk);
				initStringInfo(&kb);
				appendStringInfoChar(&kb, '{');
				if ((v = jget(jcont(item), kk.pk)) != NULL)
				{
					escape_json(&kb, kk.pk);
					appendStringInfo(&kb, ": %s", jtext(v));
				}
				if (kk.sk && (v = jget(jcont(item), kk.sk)) != NULL)
				{
					if (kb.len > 1)
						appendStringInfoString(&kb, ", ");
					escape_json(&kb, kk.sk);
					appendStringInfo(&kb, ": %s", jtext(v));
				}
				appendStringInfoChar(&kb, '}');
				/* canonical, as the Key of an UPDATE or DELETE */
				appendStringInfo(&b, " %s", JsonbToCString(NULL, &jparse(kb.data)->root, 0));
			}
			key = b.data;
		}
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		key = NULL;
	}
	PG_END_TRY();
	return key;
}

Jsonb *
st_ddb_batch_execute_statement(StDdbCall *call)
{
	JsonbValue *list = statements_member(call, "Statements", "statements", MAX_BATCH_STATEMENTS);
	int			n = JsonContainerSize(list->val.binary.data);
	const char *rcc = st_ddb_string(call, "ReturnConsumedCapacity");
	StPqlStatement **stmts = palloc0(sizeof(StPqlStatement *) * n);
	ErrorData **errors = palloc0(sizeof(ErrorData *) * n);
	int		   *consistent = palloc(sizeof(int) * n);
	bool		reads = false;
	bool		writes = false;
	StringInfoData out;
	double	   *units = palloc0(sizeof(double) * n);
	char	  **unit_tables = palloc0(sizeof(char *) * n);
	int			ntables = 0;

	/* parse every statement first: reads and writes must not be mixed */
	for (int i = 0; i < n; i++)
	{
		char	   *text;
		JsonbValue *params;

		CHECK_FOR_INTERRUPTS();
		statement_at(list, i, &text, &params, &consistent[i]);
		errors[i] = try_parse(text, params, &stmts[i]);
		if (stmts[i] && stmts[i]->kind == PQL_SELECT)
			reads = true;
		else if (stmts[i])
			writes = true;
	}
	if (reads && writes)
		validation("Read and write requests together in the same batch is not supported.");
	/*
	 * the statements are one BatchGetItem or BatchWriteItem in DynamoDB: two
	 * of one item are refused as there
	 */
	{
		char	  **keys = palloc0(sizeof(char *) * n);

		for (int i = 0; i < n; i++)
		{
			if (errors[i] != NULL || stmts[i]->kind == PQL_EXISTS)
				continue;
			keys[i] = batch_key(stmts[i]);
			for (int j = 0; keys[i] && j < i; j++)
			{
				CHECK_FOR_INTERRUPTS();
				if (keys[j] && strcmp(keys[i], keys[j]) == 0)
					validation("Provided list of item keys contains duplicates");
			}
		}
	}

	initStringInfo(&out);
	appendStringInfoString(&out, "{\"Responses\": [");
	for (int i = 0; i < n; i++)
	{
		Jsonb	   *res = NULL;

		CHECK_FOR_INTERRUPTS();
		if (i > 0)
			appendStringInfoString(&out, ", ");
		if (errors[i] == NULL && stmts[i]->kind == PQL_EXISTS)
		{
			appendStringInfoString(&out, "{\"Error\": {\"Code\": \"ValidationError\", \"Message\": \"EXISTS is only supported in ExecuteTransaction\"}}");
			continue;
		}
		if (errors[i] == NULL)
		{
			PqlOptions	o = {0};

			o.rcc = rcc;
			o.consistent = consistent[i];
			errors[i] = try_run(stmts[i], &o, &res);
		}
		if (errors[i])
		{
			const char *bc = batch_code(errors[i]->sqlerrcode);

			appendStringInfoString(&out, "{\"Error\": {\"Code\": ");
			escape_json(&out, bc);
			appendStringInfoString(&out, ", \"Message\": ");
			escape_json(&out, error_message(errors[i]));
			appendStringInfoChar(&out, '}');
			/*
			 * as DynamoDB Local: the table of an item's error, not of a
			 * request's (a ValidationError is a request's, but for the
			 * update of a path the item does not have)
			 */
			if (stmts[i] && strcmp(bc, "ResourceNotFound") != 0 &&
				(strcmp(bc, "ValidationError") != 0 || item_validation(error_message(errors[i]))))
			{
				appendStringInfoString(&out, ", \"TableName\": ");
				escape_json(&out, stmts[i]->table);
			}
			appendStringInfoChar(&out, '}');
		}
		else
		{
			JsonbValue *items = jget(&res->root, "Items");
			JsonbValue *cc = jget(&res->root, "ConsumedCapacity");

			appendStringInfoString(&out, "{\"TableName\": ");
			escape_json(&out, stmts[i]->table);
			if (items && JsonContainerSize(items->val.binary.data) > 0)
			{
				appendStringInfoString(&out, ", \"Item\": ");
				appendStringInfoString(&out, jtext(getIthJsonbValueFromContainer(items->val.binary.data, 0)));
			}
			appendStringInfoChar(&out, '}');
			if (cc)
			{
				JsonbValue *u = jget(cc->val.binary.data, "CapacityUnits");
				int			t;

				for (t = 0; t < ntables; t++)
					if (strcmp(unit_tables[t], stmts[i]->table) == 0)
						break;
				if (t == ntables)
					unit_tables[ntables++] = stmts[i]->table;
				if (u && u->type == jbvNumeric)
					units[t] += DatumGetFloat8(DirectFunctionCall1(numeric_float8,
																   NumericGetDatum(u->val.numeric)));
			}
		}
	}
	appendStringInfoChar(&out, ']');
	if (rcc && strcmp(rcc, "NONE") != 0)
	{
		appendStringInfoString(&out, ", \"ConsumedCapacity\": [");
		for (int t = 0; t < ntables; t++)
		{
			appendStringInfo(&out, "%s{\"TableName\": ", t ? ", " : "");
			escape_json(&out, unit_tables[t]);
			appendStringInfo(&out, ", \"CapacityUnits\": %g}", units[t]);
		}
		appendStringInfoChar(&out, ']');
	}
	appendStringInfoChar(&out, '}');
	return jparse(out.data);
}

/* ------------------------------------------------------------ ExecuteTransaction */

/*
 * The body of a cancelled transaction with DynamoDB's reason for an INSERT
 * whose key exists: DuplicateItem, not the ConditionalCheckFailed of the
 * Put's attribute_not_exists.
 */
static char *
duplicate_reasons(const char *detail, StPqlStatement **stmts, int n)
{
	Jsonb	   *body = jparse(detail);
	JsonbValue *reasons = jget(&body->root, "CancellationReasons");
	StringInfoData b;
	StringInfoData codes;
	int			nr;

	if (reasons == NULL || reasons->type != jbvBinary)
		return NULL;
	nr = JsonContainerSize(reasons->val.binary.data);
	initStringInfo(&b);
	initStringInfo(&codes);
	appendStringInfoString(&b, "[");
	for (int i = 0; i < nr; i++)
	{
		JsonbValue *r = getIthJsonbValueFromContainer(reasons->val.binary.data, i);
		char	   *code = jstr(jget(r->val.binary.data, "Code"));

		CHECK_FOR_INTERRUPTS();
		if (i > 0)
		{
			appendStringInfoString(&b, ", ");
			appendStringInfoString(&codes, ", ");
		}
		if (i < n && stmts[i]->kind == PQL_INSERT && code &&
			strcmp(code, "ConditionalCheckFailed") == 0)
		{
			code = "DuplicateItem";
			appendStringInfoString(&b, "{\"Code\": \"DuplicateItem\", \"Message\": \"Duplicate primary key exists in table\"}");
		}
		else
			appendStringInfoString(&b, jtext(r));
		appendStringInfoString(&codes, code ? code : "None");
	}
	appendStringInfoChar(&b, ']');
	return psprintf("{\"__type\": \"%s\", \"message\": \"Transaction cancelled, please refer cancellation reasons for specific reasons [%s]\", \"CancellationReasons\": %s}",
					st_dynamodb_exception(ERRCODE_ST_TRANSACTION_CANCELED), codes.data, b.data);
}

static Jsonb *
transact_write(const char *request, StPqlStatement **stmts, int n)
{
	MemoryContext cxt = CurrentMemoryContext;
	Jsonb	   *volatile res = NULL;

	PG_TRY();
	{
		res = st_ddb_call_internal("TransactWriteItems", jparse(request));
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		char	   *body;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_ST_TRANSACTION_CANCELED || edata->detail == NULL ||
			strncmp(edata->detail, "{\"__type\"", 9) != 0)
			PG_RE_THROW();
		FlushErrorState();
		body = duplicate_reasons(edata->detail, stmts, n);
		if (body)
			edata->detail = body;
		ReThrowError(edata);
	}
	PG_END_TRY();
	return res;
}

Jsonb *
st_ddb_execute_transaction(StDdbCall *call)
{
	JsonbValue *list = statements_member(call, "TransactStatements", "transactStatements",
										 MAX_TRANSACT_STATEMENTS);
	int			n = JsonContainerSize(list->val.binary.data);
	const char *rcc = st_ddb_string(call, "ReturnConsumedCapacity");
	const char *token = st_ddb_string(call, "ClientRequestToken");
	StPqlStatement **stmts = palloc0(sizeof(StPqlStatement *) * n);
	bool		reads = false;
	bool		writes = false;
	StringInfoData req;
	Jsonb	   *res;
	JsonbValue *v;

	for (int i = 0; i < n; i++)
	{
		char	   *text;
		JsonbValue *params;

		CHECK_FOR_INTERRUPTS();
		statement_at(list, i, &text, &params, NULL);
		stmts[i] = parse_statement(text, params);
		if (stmts[i]->kind == PQL_SELECT)
			reads = true;
		else
			writes = true;
	}
	if (reads && writes)
		validation("ExecuteTransaction API does not support both read and write operations in the same request.");

	initStringInfo(&req);
	appendStringInfoString(&req, "{\"TransactItems\": [");
	for (int i = 0; i < n; i++)
	{
		PqlOptions	o = {0};
		PqlPlan		pl = {0};
		const char *member;

		CHECK_FOR_INTERRUPTS();
		o.transact = true;
		o.consistent = -1;
		initStringInfo(&pl.req);
		if (stmts[i]->kind == PQL_SELECT)
		{
			if (stmts[i]->index)
				validation(psprintf("Validation failed in TransactStatements[%d]: Select statements within ExecuteTransaction must specify the primary key in the where clause.", i));
			plan_select(stmts[i], &o, &pl, false,
						psprintf("Validation failed in TransactStatements[%d]: Select statements within ExecuteTransaction must specify the primary key in the where clause.", i), -1);
		}
		else if (stmts[i]->kind == PQL_EXISTS)
			plan_select(stmts[i], &o, &pl, true,
						psprintf("Validation failed in TransactStatements[%d]: EXISTS() must contain a single item read with additional condition", i), -1);
		else
		{
			if (stmts[i]->returning)
				validation(psprintf("Validation failed in TransactStatements[%d]: RETURNING clause is not supported in ExecuteTransaction.", i));
			plan_write(stmts[i], &o, &pl);
		}
		if (strcmp(pl.op, "GetItem") == 0)
			member = "Get";
		else if (strcmp(pl.op, "PutItem") == 0)
			member = "Put";
		else if (strcmp(pl.op, "UpdateItem") == 0)
			member = "Update";
		else if (strcmp(pl.op, "DeleteItem") == 0)
			member = "Delete";
		else
			member = "ConditionCheck";
		appendStringInfo(&req, "%s{\"%s\": %s}", i ? ", " : "", member, pl.req.data);
	}
	appendStringInfoChar(&req, ']');
	if (reads)
	{
		if (rcc)
			add_string(&req, "ReturnConsumedCapacity", rcc);
		appendStringInfoChar(&req, '}');
		res = st_ddb_call_internal("TransactGetItems", jparse(req.data));
		return res;
	}
	if (token)
		add_string(&req, "ClientRequestToken", token);
	if (rcc)
		add_string(&req, "ReturnConsumedCapacity", rcc);
	appendStringInfoChar(&req, '}');
	res = transact_write(req.data, stmts, n);
	/* the answer of ExecuteTransaction: empty Responses for writes, the capacity if asked */
	resetStringInfo(&req);
	appendStringInfoString(&req, "{\"Responses\": []");
	if ((v = jget(&res->root, "ConsumedCapacity")) != NULL)
	{
		jkey(&req, "ConsumedCapacity");
		appendStringInfoString(&req, jtext(v));
	}
	appendStringInfoChar(&req, '}');
	return jparse(req.data);
}

/* ------------------------------------------------------------ singletable.partiql */

/*
 * singletable.partiql(statement text, parameters jsonb DEFAULT NULL)
 * RETURNS SETOF jsonb: ExecuteStatement's items, every page, in the plain
 * JSON of the other SQL functions. parameters: a JSON array of
 * AttributeValues, one for each ?.
 */
Datum
singletable_partiql(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *statement;
	char	   *params = NULL;
	char	   *token = NULL;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("statement must not be NULL")));
	statement = text_to_cstring(PG_GETARG_TEXT_PP(0));
	if (!PG_ARGISNULL(1))
	{
		Jsonb	   *p = PG_GETARG_JSONB_P(1);

		params = JsonbToCString(NULL, &p->root, VARSIZE(p));
	}
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	for (;;)
	{
		StringInfoData req;
		Jsonb	   *res;
		JsonbValue *items;

		CHECK_FOR_INTERRUPTS();
		initStringInfo(&req);
		appendStringInfoChar(&req, '{');
		add_string(&req, "Statement", statement);
		if (params)
		{
			jkey(&req, "Parameters");
			appendStringInfoString(&req, params);
		}
		if (token)
			add_string(&req, "NextToken", token);
		appendStringInfoChar(&req, '}');
		res = st_ddb_call_internal("ExecuteStatement", jparse(req.data));
		items = jget(&res->root, "Items");
		if (items)
		{
			int			n = JsonContainerSize(items->val.binary.data);

			for (int i = 0; i < n; i++)
			{
				JsonbValue *it = getIthJsonbValueFromContainer(items->val.binary.data, i);
				Datum		d;
				bool		isnull = false;

				CHECK_FOR_INTERRUPTS();
				d = JsonbPGetDatum(st_attrval_map_to_stored(it, ST_AV_ITEM, NULL));
				tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &d, &isnull);
			}
		}
		token = jstr(jget(&res->root, "NextToken"));
		if (token == NULL)
			break;
	}
	return (Datum) 0;
}
