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
} PqlKeys;

static void
key_schema(JsonbContainer *ks, PqlKeys *k)
{
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;

	k->pk = k->sk = NULL;
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
			k->pk = name;
		else if (name && type)
			k->sk = name;
	}
}

/* The keys of table (with index: of that index; ValidationException when it has none such) */
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
	d = st_ddb_call_internal("DescribeTable", jparse(b.data));
	t = jcont(jget(&d->root, "Table"));
	key_schema(jcont(jget(t, "KeySchema")), table_k);
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

static void
analyse(StPqlNode *where, const PqlKeys *k, Where *w)
{
	int			cap = 8;

	memset(w, 0, sizeof(*w));
	w->sk_term = -1;
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
} PqlPlan;

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

static void
plan_select(StPqlStatement *s, PqlOptions *o, PqlPlan *pl, bool exists)
{
	PqlKeys		tk;
	PqlKeys		k;
	Where		w;
	StPqlRender r;
	StringInfoData e;
	StringInfo	b = &pl->req;

	table_keys(s->table, s->index, &tk, &k);
	analyse(s->where, &k, &w);
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

	if (s->nproj > 0)
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
	if (w.pk_eq && w.sk_eq && s->index == NULL && w.n == 2 && !o->has_limit &&
		o->start_key == NULL)
	{
		pl->op = "GetItem";
		pl->single = true;
		add_key(b, &w, &k, NO_FULL_KEY);
	}
	else if (w.pk_eq)
	{
		pl->op = "Query";
		appendStringInfoChar(&e, '(');
		st_pql_render(&r, &e, key_path(k.pk));
		appendStringInfoString(&e, " = ");
		st_pql_render(&r, &e, w.pk_eq);
		appendStringInfoChar(&e, ')');
		if (w.sk_term >= 0)
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
		pl->op = "Scan";
		for (int i = 0; i < w.n; i++)
			w.used[i] = false;
		if (render_rest(&r, &e, &w))
			add_string(b, "FilterExpression", e.data);
	}
	if (s->index)
		add_string(b, "IndexName", s->index);
	add_placeholders(b, &r);
	if (o->consistent >= 0)
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
	if (o->rcc)
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
		analyse(s->where, &k, &w);
		add_key(b, &w, &k, NO_FULL_KEY);
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
			pl->op = "DeleteItem";
			if (render_rest(&r, &e, &w))
				add_string(b, "ConditionExpression", e.data);
		}
		if (s->returning && !o->transact)
		{
			if (s->kind == PQL_DELETE && strcmp(s->returning, "ALL_OLD") != 0)
				validation("DELETE can only return ALL OLD *");
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
 * Runs a statement (not EXISTS) with options o; returns the response of
 * ExecuteStatement {"Items": [...], "NextToken", "ConsumedCapacity"}.
 */
static Jsonb *
run_statement(StPqlStatement *s, PqlOptions *o, bool *is_read, Jsonb **single_item)
{
	PqlPlan		pl = {0};
	Jsonb	   *res = NULL;
	StringInfoData out;
	JsonbValue *v;

	initStringInfo(&pl.req);
	if (s->kind == PQL_EXISTS)
		validation("EXISTS is only supported in ExecuteTransaction");
	if (s->kind == PQL_SELECT)
		plan_select(s, o, &pl, false);
	else
		plan_write(s, o, &pl);
	if (is_read)
		*is_read = s->kind == PQL_SELECT;

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
	else
		res = st_ddb_call_internal(pl.op, jparse(pl.req.data));

	initStringInfo(&out);
	appendStringInfoString(&out, "{\"Items\": [");
	if (s->kind == PQL_SELECT)
	{
		if (pl.single)
		{
			v = jget(&res->root, "Item");
			if (v)
				appendStringInfoString(&out, jtext(v));
			if (single_item)
				*single_item = v ? jparse(jtext(v)) : NULL;
		}
		else if ((v = jget(&res->root, "Items")) != NULL)
		{
			char	   *t = jtext(v);

			/* the array's elements: strip its brackets */
			appendBinaryStringInfo(&out, t + 1, strlen(t) - 2);
		}
	}
	else if ((v = jget(&res->root, "Attributes")) != NULL)
		appendStringInfoString(&out, jtext(v));
	appendStringInfoChar(&out, ']');
	if (!pl.single && (v = jget(&res->root, "LastEvaluatedKey")) != NULL)
	{
		jkey(&out, "NextToken");
		escape_json(&out, next_token_encode(jparse(jtext(v))));
	}
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
	return run_statement(s, &o, NULL, NULL);
}

Jsonb *
st_ddb_batch_execute_statement(StDdbCall *call)
{
	(void) call;
	validation("not yet");
}

Jsonb *
st_ddb_execute_transaction(StDdbCall *call)
{
	(void) call;
	validation("not yet");
}
