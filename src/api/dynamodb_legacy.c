/*
 * dynamodb_legacy.c — DynamoDB's legacy (non-expression) request
 * parameters for singletable.dynamodb(operation, request).
 *
 * Applications and SDK helpers written before expressions (2014) still
 * send AttributesToGet, KeyConditions, QueryFilter, ScanFilter, Expected,
 * AttributeUpdates and ConditionalOperator. Rather than a second evaluator,
 * a request that carries one is rewritten, before its handler reads it,
 * into the expression members the handlers already take:
 *
 * Design notes: the section on dynamodb_legacy.c in README.md of this folder.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "catalog/indexes.h"
#include "format/attrval.h"
#include "ops/batch.h"
#include "api/dynamodb.h"
#include "api/dynamodb_legacy.h"
#include "utils/errors.h"
#include "format/jsonpush.h"
#include "format/jsonval.h"

#define INVALID "One or more parameter values were invalid: "

/* An operation's legacy and expression members, in DynamoDB's order for its messages */
typedef struct LegacyOp
{
	const char *op;
	const char *legacy[5];
	const char *expr[4];
	const char *valexpr[3];		/* the expressions that take ExpressionAttributeValues */
} LegacyOp;

static const LegacyOp legacy_ops[] = {
	{"GetItem", {"AttributesToGet"}, {"ProjectionExpression"}, {NULL}},
	{"Query", {"AttributesToGet", "QueryFilter", "ConditionalOperator", "KeyConditions"},
	{"ProjectionExpression", "FilterExpression", "KeyConditionExpression"},
	{"FilterExpression", "KeyConditionExpression"}},
	{"Scan", {"AttributesToGet", "ScanFilter", "ConditionalOperator"},
	{"ProjectionExpression", "FilterExpression"}, {"FilterExpression"}},
	{"PutItem", {"Expected", "ConditionalOperator"}, {"ConditionExpression"}, {"ConditionExpression"}},
	{"DeleteItem", {"Expected", "ConditionalOperator"}, {"ConditionExpression"}, {"ConditionExpression"}},
	{"UpdateItem", {"AttributeUpdates", "Expected", "ConditionalOperator"},
	{"UpdateExpression", "ConditionExpression"}, {"UpdateExpression", "ConditionExpression"}},
};

/* BatchGetItem's per-table entry: GetItem's members */
#define BATCH_GET_OP (&legacy_ops[0])

static const char *const comparison_operators[] = {
	"IN", "NULL", "BETWEEN", "LT", "NOT_CONTAINS", "EQ", "GT", "NOT_NULL", "NE", "LE",
	"BEGINS_WITH", "GE", "CONTAINS", NULL
};
#define COMPARISON_OPERATOR_SET \
	"[IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]"
static const char *const conditional_operators[] = {"OR", "AND", NULL};
static const char *const update_actions[] = {"ADD", "PUT", "DELETE", NULL};

/* Where a map of conditions is */
typedef enum CondPlace
{
	PLACE_EXPECTED,				/* Expected: ExpectedAttributeValue, Exists/Value allowed */
	PLACE_FILTER,				/* QueryFilter, ScanFilter: Condition */
	PLACE_KEY					/* KeyConditions: Condition on a key attribute */
} CondPlace;

/* The placeholders generated for one request */
typedef struct Gen
{
	char	   *name_prefix;
	char	   *value_prefix;
	int			nnames;
	int			nvalues;
	int			cap;
	char	  **name_keys;
	JsonbValue *name_targets;	/* strings */
	char	  **value_keys;
	JsonbValue *values;			/* wire AttributeValues, as found in the request */
} Gen;

/* ------------------------------------------------------------ small helpers */

static void invalid(const char *msg, const char *detail) pg_attribute_noreturn();

/* Raises DynamoDB's ValidationException: errmsg msg, DynamoDB's text detail */
static void
invalid(const char *msg, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s", msg),
			 st_errdetail_dynamodb("%s", detail)));
}

/* Member key of an object found in a container (JSON null: absent) */
static JsonbValue *
member(JsonbValue *obj, const char *key)
{
	JsonbValue *v = getKeyJsonValueFromContainer(obj->val.binary.data, key, strlen(key), NULL);

	return (v == NULL || v->type == jbvNull) ? NULL : v;
}

static void
require_object(JsonbValue *v)
{
	if (!st_jbv_is_object(v))
		st_attrval_serialization_error(v, "Map");
}

/*
 * The longest run of '_' after sigil 'l' in s (-1 when sigil 'l' does not
 * occur), so that a prefix with one more cannot occur in s. Linear: the
 * scan resumes after each run.
 */
static int
longest_run(const char *s, int len, char sigil, int longest)
{
	for (int i = 0; i + 1 < len; i++)
	{
		if (s[i] == sigil && s[i + 1] == 'l')
		{
			int			k = 0;

			while (i + 2 + k < len && s[i + 2 + k] == '_')
				k++;
			longest = Max(longest, k);
			i += 1 + k;
		}
	}
	return longest;
}

static char *
make_prefix(char sigil, int longest)
{
	StringInfoData b;

	initStringInfo(&b);
	appendStringInfoChar(&b, sigil);
	appendStringInfoChar(&b, 'l');
	for (int i = 0; i <= longest; i++)
		appendStringInfoChar(&b, '_');
	return b.data;
}

/* Placeholder prefixes that occur nowhere in obj's expressions and map keys */
static void
gen_init(Gen *g, JsonbValue *obj, const LegacyOp *lop)
{
	int			names = -1,
				values = -1;
	static const char *const maps[] = {"ExpressionAttributeNames", "ExpressionAttributeValues", NULL};

	memset(g, 0, sizeof(*g));
	for (int i = 0; lop->expr[i]; i++)
	{
		JsonbValue *v = member(obj, lop->expr[i]);

		if (v && v->type == jbvString)
		{
			names = longest_run(v->val.string.val, v->val.string.len, '#', names);
			values = longest_run(v->val.string.val, v->val.string.len, ':', values);
		}
	}
	for (int i = 0; maps[i]; i++)
	{
		JsonbValue *m = member(obj, maps[i]);
		JsonbIterator *it;
		JsonbValue	k;
		JsonbIteratorToken tok;

		if (!st_jbv_is_object(m))
			continue;
		it = JsonbIteratorInit(m->val.binary.data);
		while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
		{
			CHECK_FOR_INTERRUPTS();
			if (tok != WJB_KEY)
				continue;
			names = longest_run(k.val.string.val, k.val.string.len, '#', names);
			values = longest_run(k.val.string.val, k.val.string.len, ':', values);
		}
	}
	g->name_prefix = names < 0 ? "#l" : make_prefix('#', names);
	g->value_prefix = values < 0 ? ":l" : make_prefix(':', values);
}

static void
gen_grow(Gen *g)
{
	int			need = Max(g->nnames, g->nvalues) + 1;

	if (need <= g->cap)
		return;
	g->cap = Max(16, g->cap * 2);
	if (g->name_keys == NULL)
	{
		g->name_keys = palloc(sizeof(char *) * g->cap);
		g->name_targets = palloc(sizeof(JsonbValue) * g->cap);
		g->value_keys = palloc(sizeof(char *) * g->cap);
		g->values = palloc(sizeof(JsonbValue) * g->cap);
	}
	else
	{
		g->name_keys = repalloc(g->name_keys, sizeof(char *) * g->cap);
		g->name_targets = repalloc(g->name_targets, sizeof(JsonbValue) * g->cap);
		g->value_keys = repalloc(g->value_keys, sizeof(char *) * g->cap);
		g->values = repalloc(g->values, sizeof(JsonbValue) * g->cap);
	}
}

/* A new name placeholder for attribute name (len bytes) */
static const char *
gen_name(Gen *g, const char *name, int len)
{
	char	   *key;

	gen_grow(g);
	key = psprintf("%s%d", g->name_prefix, g->nnames);
	g->name_keys[g->nnames] = key;
	g->name_targets[g->nnames].type = jbvString;
	g->name_targets[g->nnames].val.string.val = (char *) name;
	g->name_targets[g->nnames].val.string.len = len;
	g->nnames++;
	return key;
}

/* A new value placeholder for the wire AttributeValue v */
static const char *
gen_value(Gen *g, JsonbValue *v)
{
	char	   *key;

	gen_grow(g);
	key = psprintf("%s%d", g->value_prefix, g->nvalues);
	g->value_keys[g->nvalues] = key;
	g->values[g->nvalues] = *v;
	g->nvalues++;
	return key;
}

/* {"L": []}, for ADD of a list to an absent attribute */
static JsonbValue *
empty_list_value(void)
{
	Jsonb	   *j = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{\"L\": []}")));
	JsonbValue *v = palloc(sizeof(JsonbValue));

	st_jbv_jsonb(v, j);
	return v;
}

/* ------------------------------------------------------------ DynamoDB's constraint checks */

/* The enum and not-null constraints of a map of conditions, into e */
static void
check_condition_enums(StDdbErrors *e, JsonbValue *map, const char *path, CondPlace place)
{
	JsonbIterator *it;
	JsonbValue	k,
				v;

	require_object(map);
	it = JsonbIteratorInit(map->val.binary.data);
	while (st_jbv_next_member(&it, &k, &v))
	{
		JsonbValue *op;
		char	   *where;

		require_object(&v);
		op = member(&v, "ComparisonOperator");
		where = psprintf("%s.%.*s.member.comparisonOperator", path, k.val.string.len, k.val.string.val);
		if (op == NULL)
		{
			/* a Condition needs its operator; an ExpectedAttributeValue may use Exists/Value */
			if (place != PLACE_EXPECTED)
				st_ddb_error(e, "null", where, "Member must not be null");
			continue;
		}
		st_ddb_check_enum(e, st_ddb_string_of(op), where, comparison_operators, COMPARISON_OPERATOR_SET);
	}
}

/* The Action constraints of AttributeUpdates, into e */
static void
check_update_enums(StDdbErrors *e, JsonbValue *map)
{
	JsonbIterator *it;
	JsonbValue	k,
				v;

	require_object(map);
	it = JsonbIteratorInit(map->val.binary.data);
	while (st_jbv_next_member(&it, &k, &v))
	{
		JsonbValue *action;

		require_object(&v);
		action = member(&v, "Action");
		if (action)
			st_ddb_check_enum(e, st_ddb_string_of(action),
							  psprintf("attributeUpdates.%.*s.member.action", k.val.string.len, k.val.string.val),
							  update_actions, "[ADD, PUT, DELETE]");
	}
}

/* The length constraints of AttributesToGet, into e */
static void
check_attributes_to_get(StDdbErrors *e, JsonbValue *list, const char *path)
{
	int			n;
	StringInfoData shown;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	bool		first = true;

	if (!st_jbv_is_array(list))
		st_attrval_serialization_error(list, "List");
	n = JsonContainerSize(list->val.binary.data);
	if (n >= 1 && n <= 255)
		return;
	/* DynamoDB shows the list as [a, b] */
	initStringInfo(&shown);
	appendStringInfoString(&shown, "'[");
	it = JsonbIteratorInit(list->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM)
			continue;
		CHECK_FOR_INTERRUPTS();
		if (!first)
			appendStringInfoString(&shown, ", ");
		appendStringInfoString(&shown, st_ddb_string_of(&v));
		first = false;
	}
	appendStringInfoString(&shown, "]'");
	st_ddb_error(e, shown.data, path, n < 1 ? "Member must have length greater than or equal to 1" :
				 "Member must have length less than or equal to 255");
}

/* ------------------------------------------------------------ AttributesToGet */

typedef struct NameRef
{
	const char *s;
	int			len;
	int			pos;
} NameRef;

static int
name_ref_cmp(const void *a, const void *b)
{
	const NameRef *x = a;
	const NameRef *y = b;
	int			c;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	c = memcmp(x->s, y->s, x->len);
	if (c != 0)
		return c;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * AttributesToGet (1 to 255 names, checked) as a ProjectionExpression of
 * placeholders. A duplicate is DynamoDB's error, naming the name whose
 * second occurrence comes first.
 */
static char *
projection_of(Gen *g, JsonbValue *list)
{
	int			n = JsonContainerSize(list->val.binary.data);
	NameRef    *refs = palloc(sizeof(NameRef) * n);
	JsonbIterator *it = JsonbIteratorInit(list->val.binary.data);
	JsonbValue	v;
	JsonbIteratorToken tok;
	StringInfoData out;
	int			m = 0;
	int			dup = -1;

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM)
			continue;
		CHECK_FOR_INTERRUPTS();
		if (v.type != jbvString)
			st_attrval_serialization_error(&v, "String");
		refs[m].s = v.val.string.val;
		refs[m].len = v.val.string.len;
		refs[m].pos = m;
		m++;
	}
	/* at most 255 names: sorting them is cheap */
	qsort(refs, m, sizeof(NameRef), name_ref_cmp);
	for (int i = 1; i < m; i++)
		if (refs[i].len == refs[i - 1].len && memcmp(refs[i].s, refs[i - 1].s, refs[i].len) == 0 &&
			(i < 2 || refs[i - 2].len != refs[i].len || memcmp(refs[i - 2].s, refs[i].s, refs[i].len) != 0) &&
			(dup < 0 || refs[i].pos < refs[dup].pos))
			dup = i;
	if (dup >= 0)
		invalid("AttributesToGet names an attribute twice",
				psprintf(INVALID "Duplicate value in attribute name: %.*s", refs[dup].len, refs[dup].s));
	/* back in the request's order */
	initStringInfo(&out);
	it = JsonbIteratorInit(list->val.binary.data);
	m = 0;
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM)
			continue;
		CHECK_FOR_INTERRUPTS();
		if (m++ > 0)
			appendStringInfoString(&out, ", ");
		appendStringInfoString(&out, gen_name(g, v.val.string.val, v.val.string.len));
	}
	return out.data;
}

/* ------------------------------------------------------------ conditions */

/* DynamoDB's operand rules of a comparison operator: count, one type, allowed types, BETWEEN's order */
static void
check_operands(const char *op, StVal **vals, int n)
{
	bool		count_ok;
	bool		any_type = false;
	bool		s_b_only = false;

	if (strcmp(op, "NULL") == 0 || strcmp(op, "NOT_NULL") == 0)
		count_ok = n == 0;
	else if (strcmp(op, "IN") == 0)
		count_ok = n >= 1;
	else if (strcmp(op, "BETWEEN") == 0)
		count_ok = n == 2;
	else
		count_ok = n == 1;
	if (!count_ok)
		invalid(psprintf("the %s ComparisonOperator takes another number of values", op),
				psprintf(INVALID "Invalid number of argument(s) for the %s ComparisonOperator", op));
	for (int i = 1; i < n; i++)
		if (vals[i]->type != vals[0]->type)
			invalid("the values of an AttributeValueList are of different types",
					INVALID "AttributeValues inside AttributeValueList must be of same type");
	if (strcmp(op, "EQ") == 0 || strcmp(op, "NE") == 0)
		any_type = true;
	else if (strcmp(op, "BEGINS_WITH") == 0)
		s_b_only = true;
	for (int i = 0; i < n && !any_type; i++)
	{
		StValType t = vals[i]->type;

		if (!(t == SV_S || t == SV_B || (t == SV_N && !s_b_only)))
			invalid(psprintf("the %s ComparisonOperator does not take a value of type %s", op,
							 st_val_type_name(t)),
					psprintf(INVALID "ComparisonOperator %s is not valid for %s AttributeValue type", op,
							 st_val_type_name(t)));
	}
	if (strcmp(op, "BETWEEN") == 0 && st_val_compare(vals[0], vals[1]) > 0)
		invalid("the lower bound of BETWEEN is greater than its upper bound",
				"The BETWEEN condition was provided a range where the lower bound is greater than the upper bound");
}

/* The expression of operator op on attribute placeholder n with value placeholders v */
static char *
term_of(const char *op, const char *n, const char **v, int nv)
{
	static const struct
	{
		const char *op;
		const char *sym;
	}			cmp[] = {{"EQ", "="}, {"NE", "<>"}, {"LE", "<="}, {"LT", "<"}, {"GE", ">="}, {"GT", ">"}};
	StringInfoData b;

	for (int i = 0; i < lengthof(cmp); i++)
		if (strcmp(op, cmp[i].op) == 0)
			return psprintf("%s %s %s", n, cmp[i].sym, v[0]);
	if (strcmp(op, "NOT_NULL") == 0)
		return psprintf("attribute_exists(%s)", n);
	if (strcmp(op, "NULL") == 0)
		return psprintf("attribute_not_exists(%s)", n);
	if (strcmp(op, "CONTAINS") == 0)
		return psprintf("contains(%s, %s)", n, v[0]);
	if (strcmp(op, "NOT_CONTAINS") == 0)
		return psprintf("(attribute_exists(%s) AND NOT contains(%s, %s))", n, n, v[0]);
	if (strcmp(op, "BEGINS_WITH") == 0)
		return psprintf("begins_with(%s, %s)", n, v[0]);
	if (strcmp(op, "BETWEEN") == 0)
		return psprintf("%s BETWEEN %s AND %s", n, v[0], v[1]);
	/* IN */
	initStringInfo(&b);
	appendStringInfo(&b, "%s IN (", n);
	for (int i = 0; i < nv; i++)
	{
		CHECK_FOR_INTERRUPTS();
		appendStringInfo(&b, "%s%s", i ? ", " : "", v[i]);
	}
	appendStringInfoChar(&b, ')');
	return b.data;
}

/* The values of an AttributeValueList (or one Value), checked, with their placeholders */
static int
read_values(Gen *g, JsonbValue *list, JsonbValue *value, StVal ***vals, const char ***keys)
{
	int			n = 0;

	if (list)
	{
		JsonbIterator *it;
		JsonbValue	v;
		JsonbIteratorToken tok;

		if (!st_jbv_is_array(list))
			st_attrval_serialization_error(list, "List");
		*vals = palloc(sizeof(StVal *) * Max(1, JsonContainerSize(list->val.binary.data)));
		*keys = palloc(sizeof(char *) * Max(1, JsonContainerSize(list->val.binary.data)));
		it = JsonbIteratorInit(list->val.binary.data);
		while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		{
			if (tok != WJB_ELEM)
				continue;
			CHECK_FOR_INTERRUPTS();
			(*vals)[n] = st_attrval_to_val(&v, ST_AV_ITEM, 1);
			(*keys)[n] = gen_value(g, &v);
			n++;
		}
	}
	else
	{
		*vals = palloc(sizeof(StVal *));
		*keys = palloc(sizeof(char *));
		if (value)
		{
			(*vals)[0] = st_attrval_to_val(value, ST_AV_ITEM, 1);
			(*keys)[0] = gen_value(g, value);
			n = 1;
		}
	}
	return n;
}

/*
 * The expression of one ExpectedAttributeValue, with DynamoDB's checks of
 * its members (API reference, ExpectedAttributeValue).
 */
static char *
expected_term(Gen *g, const char *attr, int len, JsonbValue *cond)
{
	JsonbValue *op = member(cond, "ComparisonOperator");
	JsonbValue *list = member(cond, "AttributeValueList");
	JsonbValue *value = member(cond, "Value");
	JsonbValue *exists = member(cond, "Exists");
	const char *n;
	StVal	  **vals;
	const char **keys;
	int			nv;

	if (exists && exists->type != jbvBool)
		st_attrval_serialization_error(exists, "Boolean");
	if (list && value)
		invalid(psprintf("Expected on attribute \"%.*s\" has both Value and AttributeValueList", len, attr),
				psprintf(INVALID "Value and AttributeValueList cannot be used together for Attribute: %.*s",
						 len, attr));
	if (op)
	{
		char	   *ops = st_ddb_string_of(op);

		if (exists)
			invalid(psprintf("Expected on attribute \"%.*s\" has both Exists and ComparisonOperator", len, attr),
					psprintf(INVALID "Exists and ComparisonOperator cannot be used together for Attribute: %.*s",
							 len, attr));
		if (strcmp(ops, "NULL") != 0 && strcmp(ops, "NOT_NULL") != 0 && list == NULL && value == NULL)
			invalid(psprintf("Expected on attribute \"%.*s\" has no value for %s", len, attr, ops),
					psprintf(INVALID "Value or AttributeValueList must be used with ComparisonOperator: %s for Attribute: %.*s",
							 ops, len, attr));
		n = gen_name(g, attr, len);
		nv = read_values(g, list, value, &vals, &keys);
		check_operands(ops, vals, nv);
		return term_of(ops, n, keys, nv);
	}
	if (list)
		invalid(psprintf("Expected on attribute \"%.*s\" has an AttributeValueList but no ComparisonOperator",
						 len, attr),
				psprintf(INVALID "AttributeValueList can only be used with a ComparisonOperator for Attribute: %.*s",
						 len, attr));
	if ((exists == NULL || exists->val.boolean) && value == NULL)
		invalid(psprintf("Expected on attribute \"%.*s\" needs a Value", len, attr),
				psprintf(INVALID "Value must be provided when Exists is %s for Attribute: %.*s",
						 exists ? "true" : "null", len, attr));
	if (exists && !exists->val.boolean && value)
		invalid(psprintf("Expected on attribute \"%.*s\" has a Value with Exists false", len, attr),
				psprintf(INVALID "Value cannot be used when Exists is false for Attribute: %.*s", len, attr));
	n = gen_name(g, attr, len);
	if (value == NULL)
		return psprintf("attribute_not_exists(%s)", n);
	nv = read_values(g, NULL, value, &vals, &keys);
	return term_of("EQ", n, keys, nv);
}

/*
 * A map of conditions (Expected, QueryFilter, ScanFilter, KeyConditions)
 * as one expression, its terms joined by conjunction (" AND " or " OR ");
 * NULL for an empty map. KeyConditions has at most max_key conditions.
 */
static char *
conditions_of(Gen *g, JsonbValue *map, CondPlace place, const char *conjunction, int max_key)
{
	JsonbIterator *it = JsonbIteratorInit(map->val.binary.data);
	JsonbValue	k,
				v;
	StringInfoData out;
	int			nterms = 0;
	bool		unindexable = false;

	initStringInfo(&out);
	while (st_jbv_next_member(&it, &k, &v))
	{
		char	   *term;

		if (place == PLACE_EXPECTED)
			term = expected_term(g, k.val.string.val, k.val.string.len, &v);
		else
		{
			char	   *op = st_ddb_string_of(member(&v, "ComparisonOperator"));
			const char *n = gen_name(g, k.val.string.val, k.val.string.len);
			StVal	  **vals;
			const char **keys;
			int			nv = read_values(g, member(&v, "AttributeValueList"), NULL, &vals, &keys);

			check_operands(op, vals, nv);
			if (place == PLACE_KEY &&
				!(strcmp(op, "EQ") == 0 || strcmp(op, "LE") == 0 || strcmp(op, "LT") == 0 ||
				  strcmp(op, "GE") == 0 || strcmp(op, "GT") == 0 || strcmp(op, "BEGINS_WITH") == 0 ||
				  strcmp(op, "BETWEEN") == 0))
				unindexable = true;
			term = term_of(op, n, keys, nv);
		}
		if (nterms++ > 0)
			appendStringInfoString(&out, conjunction);
		appendStringInfoString(&out, term);
	}
	if (place == PLACE_KEY && (nterms < 1 || nterms > max_key))
		invalid(max_key == 2 ? "KeyConditions must have one or two conditions" :
				psprintf("KeyConditions on an index must have 1 to %d conditions", max_key),
				"Conditions can be of length 1 or 2 only");
	if (unindexable)
		invalid("KeyConditions can only use EQ, LE, LT, GE, GT, BEGINS_WITH and BETWEEN",
				"Attempted conditional constraint is not an indexable operation");
	return nterms ? out.data : NULL;
}

/* ------------------------------------------------------------ AttributeUpdates */

/* AttributeUpdates as an UpdateExpression (NULL for an empty map), with DynamoDB's checks */
static char *
updates_of(Gen *g, JsonbValue *map)
{
	JsonbIterator *it = JsonbIteratorInit(map->val.binary.data);
	JsonbValue	k,
				v;
	StringInfoData clause[4];	/* SET, REMOVE, ADD, DELETE */
	static const char *const verbs[] = {"SET ", "REMOVE ", "ADD ", "DELETE "};
	StringInfoData out;

	for (int i = 0; i < 4; i++)
		initStringInfo(&clause[i]);
	while (st_jbv_next_member(&it, &k, &v))
	{
		JsonbValue *action;
		JsonbValue *value;
		const char *act;
		const char *n;
		StValType	type = SV_NULL;
		int			c;

		action = member(&v, "Action");
		value = member(&v, "Value");
		act = action ? st_ddb_string_of(action) : "PUT";
		if (value)
			type = st_attrval_to_val(value, ST_AV_ITEM, 1)->type;
		if (value == NULL && strcmp(act, "DELETE") != 0)
			invalid(psprintf("AttributeUpdates %s of attribute \"%.*s\" needs a Value", act,
							 k.val.string.len, k.val.string.val),
					INVALID "Only DELETE action is allowed when no attribute value is specified");
		if (value && strcmp(act, "DELETE") == 0 && !st_val_is_set(type))
			invalid(psprintf("AttributeUpdates DELETE of attribute \"%.*s\" has a value that is not a set",
							 k.val.string.len, k.val.string.val),
					psprintf(INVALID "DELETE action with value is not supported for the type %s",
							 st_val_type_name(type)));
		if (value && strcmp(act, "ADD") == 0 &&
			!(type == SV_N || type == SV_L || st_val_is_set(type)))
			invalid(psprintf("AttributeUpdates ADD of attribute \"%.*s\" has a value of type %s",
							 k.val.string.len, k.val.string.val, st_val_type_name(type)),
					psprintf(INVALID "ADD action is not supported for the type %s", st_val_type_name(type)));
		n = gen_name(g, k.val.string.val, k.val.string.len);
		if (strcmp(act, "PUT") == 0)
		{
			c = 0;
			if (clause[c].len)
				appendStringInfoString(&clause[c], ", ");
			appendStringInfo(&clause[c], "%s = %s", n, gen_value(g, value));
		}
		else if (strcmp(act, "DELETE") == 0 && value == NULL)
		{
			c = 1;
			if (clause[c].len)
				appendStringInfoString(&clause[c], ", ");
			appendStringInfoString(&clause[c], n);
		}
		else if (strcmp(act, "ADD") == 0 && type == SV_L)
		{
			/* a list: appended, to an empty one when absent */
			const char *empty = gen_value(g, empty_list_value());

			c = 0;
			if (clause[c].len)
				appendStringInfoString(&clause[c], ", ");
			appendStringInfo(&clause[c], "%s = list_append(if_not_exists(%s, %s), %s)", n, n, empty,
							 gen_value(g, value));
		}
		else
		{
			c = strcmp(act, "ADD") == 0 ? 2 : 3;
			if (clause[c].len)
				appendStringInfoString(&clause[c], ", ");
			appendStringInfo(&clause[c], "%s %s", n, gen_value(g, value));
		}
	}
	initStringInfo(&out);
	for (int i = 0; i < 4; i++)
		if (clause[i].len)
			appendStringInfo(&out, "%s%s%s", out.len ? " " : "", verbs[i], clause[i].data);
	return out.len ? out.data : NULL;
}

/* ------------------------------------------------------------ the rewrite */

/* Pushes a map member of obj (the caller's pairs) followed by the generated ones */
static void
push_merged(JsonbParseState **st, JsonbValue *obj, const char *name, char **keys, JsonbValue *vals, int n)
{
	JsonbValue *given = member(obj, name);

	if (n == 0)
	{
		if (given)
			st_push_member(st, name, given);
		return;
	}
	st_push_key(st, name);
	pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
	if (st_jbv_is_object(given))
	{
		JsonbIterator *it = JsonbIteratorInit(given->val.binary.data);
		JsonbValue	k,
					v;

		while (st_jbv_next_member(&it, &k, &v))
		{
			pushJsonbValue(st, WJB_KEY, &k);
			pushJsonbValue(st, WJB_VALUE, &v);
		}
	}
	for (int i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		st_push_member(st, keys[i], &vals[i]);
	}
	pushJsonbValue(st, WJB_END_OBJECT, NULL);
}

/*
 * ExpressionAttributeNames without any expression of lop, then
 * ExpressionAttributeValues without an expression that takes values: DynamoDB's
 * ValidationException, whose message names the member (checked for every
 * request, legacy or not, before the table is looked up).
 */
static void
check_expression_members(JsonbValue *obj, const LegacyOp *lop)
{
	bool		any = false;

	for (int i = 0; lop->expr[i]; i++)
		if (member(obj, lop->expr[i]))
			any = true;
	if (!any && member(obj, "ExpressionAttributeNames"))
		invalid("ExpressionAttributeNames can only be given with an expression",
				"ExpressionAttributeNames can only be specified when using expressions");
	if (lop->valexpr[0] && member(obj, "ExpressionAttributeValues"))
	{
		bool		used = false;

		for (int i = 0; lop->valexpr[i]; i++)
			if (member(obj, lop->valexpr[i]))
				used = true;
		if (!used)
			invalid("ExpressionAttributeValues can only be given with an expression",
					psprintf("ExpressionAttributeValues can only be specified when using expressions: %s%s%s %s null",
							 lop->valexpr[0], lop->valexpr[1] ? " and " : "",
							 lop->valexpr[1] ? lop->valexpr[1] : "", lop->valexpr[1] ? "are" : "is"));
	}
}

/* The list "{A, B}" of the members of names that obj has */
static char *
present_list(JsonbValue *obj, const char *const *names, const char *except)
{
	StringInfoData b;
	int			n = 0;

	initStringInfo(&b);
	appendStringInfoChar(&b, '{');
	for (int i = 0; names[i]; i++)
		if (member(obj, names[i]) && !(except && strcmp(names[i], except) == 0))
			appendStringInfo(&b, "%s%s", n++ ? ", " : "", names[i]);
	appendStringInfoChar(&b, '}');
	return n ? b.data : NULL;
}

/*
 * The request object obj (a request, or a table's entry of BatchGetItem at
 * path) rewritten for lop, or NULL when it has none of lop's legacy members.
 */
static Jsonb *
rewrite_object(JsonbValue *obj, const LegacyOp *lop, const char *path)
{
	bool		any = false;
	bool		query = strcmp(lop->op, "Query") == 0;
	char	   *exprs;
	char	   *legacy;
	const char *except = NULL;
	StDdbErrors e;
	Gen			g;
	JsonbValue *v;
	JsonbValue *conjunction_v;
	const char *conjunction = " AND ";
	const char *new_members[4];
	char	   *new_exprs[4];
	int			n_new = 0;
	JsonbParseState *st = NULL;
	JsonbIterator *it;
	JsonbValue	k,
				mv;

	for (int i = 0; lop->legacy[i]; i++)
		if (member(obj, lop->legacy[i]))
			any = true;
	if (!any)
		return NULL;

	/* DynamoDB allows one mix: KeyConditions with the other expressions of a Query */
	if (query && member(obj, "KeyConditions") && !member(obj, "KeyConditionExpression"))
		except = "KeyConditions";
	exprs = present_list(obj, lop->expr, NULL);
	legacy = present_list(obj, lop->legacy, except);
	if (exprs && legacy)
		invalid(psprintf("%s mixes legacy parameters %s with expressions %s", lop->op, legacy, exprs),
				psprintf("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: %s Expression parameters: %s",
						 legacy, exprs));
	check_expression_members(obj, lop);

	/* the constraints DynamoDB checks first, all reported at once */
	st_ddb_errors_init(&e);
	conjunction_v = member(obj, "ConditionalOperator");
	if (conjunction_v)
	{
		char	   *c = st_ddb_string_of(conjunction_v);

		st_ddb_check_enum(&e, c, "conditionalOperator", conditional_operators, "[OR, AND]");
		if (strcmp(c, "OR") == 0)
			conjunction = " OR ";
	}
	if ((v = member(obj, "AttributesToGet")))
		check_attributes_to_get(&e, v, psprintf("%sattributesToGet", path));
	if ((v = member(obj, "KeyConditions")))
		check_condition_enums(&e, v, "keyConditions", PLACE_KEY);
	if ((v = member(obj, "QueryFilter")))
		check_condition_enums(&e, v, "queryFilter", PLACE_FILTER);
	if ((v = member(obj, "ScanFilter")))
		check_condition_enums(&e, v, "scanFilter", PLACE_FILTER);
	if ((v = member(obj, "Expected")))
		check_condition_enums(&e, v, "expected", PLACE_EXPECTED);
	if ((v = member(obj, "AttributeUpdates")))
		check_update_enums(&e, v);
	st_ddb_errors_raise(&e);

	/*
	 * ConditionalOperator joins two or more conditions: with fewer (one, an
	 * empty map or none) DynamoDB refuses it (DynamoDB Local, AWS's own code,
	 * in the differential test's local.sh; dynalite accepts it)
	 */
	if (conjunction_v)
	{
		JsonbValue *m = member(obj, "QueryFilter");

		if (m == NULL)
			m = member(obj, "ScanFilter");
		if (m == NULL)
			m = member(obj, "Expected");
		if (m == NULL || m->type != jbvBinary || JsonContainerSize(m->val.binary.data) < 2)
			invalid("ConditionalOperator needs two or more conditions",
					"ConditionalOperator can only be used when Filter or Expected has two or more elements");
	}

	/* the expressions */
	gen_init(&g, obj, lop);
	if ((v = member(obj, "AttributesToGet")))
	{
		JsonbValue *select = member(obj, "Select");

		if (select && select->type == jbvString)
		{
			char	   *s = st_ddb_string_of(select);

			if (strcmp(s, "ALL_ATTRIBUTES") == 0 || strcmp(s, "ALL_PROJECTED_ATTRIBUTES") == 0 ||
				strcmp(s, "COUNT") == 0)
				invalid(psprintf("AttributesToGet needs Select SPECIFIC_ATTRIBUTES, not %s", s),
						psprintf("Cannot specify the AttributesToGet when choosing to get %s", s));
		}
		new_members[n_new] = "ProjectionExpression";
		new_exprs[n_new++] = projection_of(&g, v);
	}
	if ((v = member(obj, "KeyConditions")))
	{
		new_members[n_new] = "KeyConditionExpression";
		/*
		 * a table's key has 2 attributes, a GSI's up to 4 + 4 (multi-attribute
		 * keys): the key condition's check counts them against the index's
		 */
		new_exprs[n_new++] = conditions_of(&g, v, PLACE_KEY, " AND ",
										   member(obj, "IndexName") ? 2 * ST_MAX_INDEX_KEY_ATTRS : 2);
	}
	if ((v = member(obj, "QueryFilter")) || (v = member(obj, "ScanFilter")))
	{
		new_members[n_new] = "FilterExpression";
		new_exprs[n_new++] = conditions_of(&g, v, PLACE_FILTER, conjunction, 0);
	}
	if ((v = member(obj, "Expected")))
	{
		new_members[n_new] = "ConditionExpression";
		new_exprs[n_new++] = conditions_of(&g, v, PLACE_EXPECTED, conjunction, 0);
	}
	if ((v = member(obj, "AttributeUpdates")))
	{
		new_members[n_new] = "UpdateExpression";
		new_exprs[n_new++] = updates_of(&g, v);
	}

	/* the request without its legacy members, with the expressions and the merged maps */
	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	it = JsonbIteratorInit(obj->val.binary.data);
	while (st_jbv_next_member(&it, &k, &mv))
	{
		char	   *key;
		bool		skip = false;

		key = pnstrdup(k.val.string.val, k.val.string.len);
		for (int i = 0; lop->legacy[i]; i++)
			if (strcmp(key, lop->legacy[i]) == 0)
				skip = true;
		if (skip || strcmp(key, "ExpressionAttributeNames") == 0 ||
			strcmp(key, "ExpressionAttributeValues") == 0)
			continue;
		pushJsonbValue(&st, WJB_KEY, &k);
		pushJsonbValue(&st, WJB_VALUE, &mv);
	}
	for (int i = 0; i < n_new; i++)
		if (new_exprs[i])
			st_push_string(&st, new_members[i], new_exprs[i]);
	push_merged(&st, obj, "ExpressionAttributeNames", g.name_keys, g.name_targets, g.nnames);
	push_merged(&st, obj, "ExpressionAttributeValues", g.value_keys, g.values, g.nvalues);
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

/*
 * BatchGetItem: each table's entry with AttributesToGet rewritten; NULL
 * when none has one, or when the request is over its key limit (then it
 * is passed on unconverted, for the operation to refuse before any work
 * proportional to its size).
 */
static Jsonb *
rewrite_batch_get(JsonbValue *top)
{
	JsonbValue *ri = member(top, "RequestItems");
	JsonbIterator *it;
	JsonbValue	k,
				v;
	bool		any = false;
	int64		nkeys = 0;
	JsonbParseState *st = NULL;
	JsonbValue *items;

	if (!st_jbv_is_object(ri))
		return NULL;
	it = JsonbIteratorInit(ri->val.binary.data);
	while (st_jbv_next_member(&it, &k, &v))
	{
		JsonbValue *keys;

		if (!st_jbv_is_object(&v))
			continue;
		if (member(&v, "AttributesToGet"))
			any = true;
		keys = member(&v, "Keys");
		if (st_jbv_is_array(keys))
			nkeys += JsonContainerSize(keys->val.binary.data);
	}
	if (!any || nkeys > ST_BATCH_GET_MAX_KEYS)
		return NULL;

	pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	it = JsonbIteratorInit(top->val.binary.data);
	while (st_jbv_next_member(&it, &k, &v))
	{
		pushJsonbValue(&st, WJB_KEY, &k);
		if (k.val.string.len != 12 || memcmp(k.val.string.val, "RequestItems", 12) != 0)
		{
			pushJsonbValue(&st, WJB_VALUE, &v);
			continue;
		}
		pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
		{
			JsonbIterator *ti = JsonbIteratorInit(ri->val.binary.data);
			JsonbValue	tk,
						tv;

			while (st_jbv_next_member(&ti, &tk, &tv))
			{
				Jsonb	   *entry = NULL;

				pushJsonbValue(&st, WJB_KEY, &tk);
				if (st_jbv_is_object(&tv))
					entry = rewrite_object(&tv, BATCH_GET_OP,
										   psprintf("requestItems.%.*s.member.", tk.val.string.len,
													tk.val.string.val));
				if (entry)
					st_push_jsonb_as(&st, WJB_VALUE, entry);
				else
					pushJsonbValue(&st, WJB_VALUE, &tv);
			}
		}
		pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	}
	items = pushJsonbValue(&st, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(items);
}

void
st_ddb_legacy_rewrite(StDdbCall *call)
{
	JsonbValue	top;
	Jsonb	   *rewritten = NULL;

	top.type = jbvBinary;
	top.val.binary.data = call->req;
	top.val.binary.len = 0;
	if (strcmp(call->op, "BatchGetItem") == 0)
		rewritten = rewrite_batch_get(&top);
	else
		for (int i = 0; i < lengthof(legacy_ops); i++)
			if (strcmp(call->op, legacy_ops[i].op) == 0)
				rewritten = rewrite_object(&top, &legacy_ops[i], "");
	if (rewritten)
		call->req = &rewritten->root;
}

/*
 * ExpressionAttributeNames or ExpressionAttributeValues without an expression
 * that takes them, in a request without legacy members (rewrite_object checks
 * those): for a table that does not exist, which the operations layer, which
 * makes the same check, never sees.
 */
void
st_ddb_check_expression_members(StDdbCall *call)
{
	JsonbValue	top;

	top.type = jbvBinary;
	top.val.binary.data = call->req;
	top.val.binary.len = 0;
	for (int i = 0; i < lengthof(legacy_ops); i++)
		if (strcmp(call->op, legacy_ops[i].op) == 0)
			check_expression_members(&top, &legacy_ops[i]);
}
