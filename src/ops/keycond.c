/*
 * keycond.c — DynamoDB's KeyConditionExpression (see keycond.h).
 *
 * Design notes: the section on keycond.c in README.md of this folder.
 */
#include "postgres.h"

#include "utils/errors.h"
#include "ops/keycond.h"

/* One condition of the conjunction, on one key attribute */
typedef struct KeyTerm
{
	const StPath *path;
	StSkOp		op;
	const StVal *v1;
	const StVal *v2;
	int			pos;
} KeyTerm;

/* Raises DynamoDB's ValidationException for a key condition. */
static void
key_condition_error(int pos, const char *dynamo, const char *msg)
	pg_attribute_noreturn();

static void
key_condition_error(int pos, const char *dynamo, const char *msg)
{
	st_expr_error(ST_ERR_VALIDATION, dynamo, "invalid key condition at position %d: %s", pos + 1, msg);
}

/* The name of the operator or function a node is, for "Invalid operator used" */
static const char *
node_operator_name(const StNode *n)
{
	switch (n->kind)
	{
		case SN_OR:
			return "OR";
		case SN_NOT:
			return "NOT";
		case SN_IN:
			return "IN";
		case SN_CMP:
			return "<>";
		case SN_ATTRIBUTE_EXISTS:
			return "attribute_exists";
		case SN_ATTRIBUTE_NOT_EXISTS:
			return "attribute_not_exists";
		case SN_ATTRIBUTE_TYPE:
			return "attribute_type";
		case SN_CONTAINS:
			return "contains";
		default:
			return "?";
	}
}

/* A key operand: a top-level attribute name (not nested, not size()). */
static const StPath *
key_path(const StNode *n)
{
	if (n->kind == SN_SIZE)
		key_condition_error(n->pos, "KeyConditionExpressions cannot contain nested operations",
							"size() cannot be used in a key condition");
	if (n->kind != SN_PATH)
		return NULL;
	if (n->path->n != 1 || n->path->elems[0].is_index)
		key_condition_error(n->pos, "KeyConditionExpressions cannot have conditions on nested attributes",
							"a key condition can only name top-level key attributes");
	return n->path;
}

/* Converts one condition into a term. */
static void
make_term(const StNode *n, KeyTerm *t)
{
	const StPath *a;
	const StPath *b;

	memset(t, 0, sizeof(*t));
	t->pos = n->pos;
	switch (n->kind)
	{
		case SN_CMP:
			if (n->op == SC_NE)
				break;
			a = key_path(n->args[0]);
			b = key_path(n->args[1]);
			if (a && b)
				key_condition_error(n->pos, "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition",
									"a condition compares two attributes");
			if (!a && !b)
				key_condition_error(n->pos, "Invalid condition in KeyConditionExpression: No key attribute specified",
									"a condition names no key attribute");
			{
				/* ":v < sk" is "sk > :v" */
				static const StSkOp fwd[] = {ST_SK_EQ, ST_SK_NONE, ST_SK_LT, ST_SK_LE, ST_SK_GT, ST_SK_GE};
				static const StSkOp rev[] = {ST_SK_EQ, ST_SK_NONE, ST_SK_GT, ST_SK_GE, ST_SK_LT, ST_SK_LE};

				t->path = a ? a : b;
				t->op = a ? fwd[n->op] : rev[n->op];
				t->v1 = (a ? n->args[1] : n->args[0])->value;
			}
			return;
		case SN_BETWEEN:
		case SN_BEGINS_WITH:
			{
				const char *what = n->kind == SN_BETWEEN ? "BETWEEN" : "begins_with";

				a = key_path(n->args[0]);
				if (a == NULL)
					key_condition_error(n->pos,
										psprintf("Invalid condition in KeyConditionExpression: %s operator must have the key attribute as its first operand", what),
										psprintf("%s must have the key attribute as its first operand", what));
				for (int i = 1; i < n->nargs; i++)
					if (key_path(n->args[i]) != NULL)
						key_condition_error(n->pos, "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition",
											"a condition compares two attributes");
				t->path = a;
				t->op = n->kind == SN_BETWEEN ? ST_SK_BETWEEN : ST_SK_RANGE;
				t->v1 = n->args[1]->value;
				t->v2 = n->kind == SN_BETWEEN ? n->args[2]->value : NULL;
				return;
			}
		default:
			break;
	}
	key_condition_error(n->pos, psprintf("Invalid operator used in KeyConditionExpression: %s", node_operator_name(n)),
						psprintf("%s cannot be used in a key condition", node_operator_name(n)));
}

/*
 * Collects the conditions of a conjunction, in order, into *terms (grown as
 * needed). max > 0: more than max conditions is DynamoDB's "one condition
 * per key" at once (a key of one partition and one sort attribute; a
 * multi-attribute key counts them after its other checks).
 */
static void
collect_terms(const StNode *n, KeyTerm **terms, int *nterms, int *cap, int max)
{
	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	if (n->kind == SN_AND)
	{
		for (int i = 0; i < n->nargs; i++)
			collect_terms(n->args[i], terms, nterms, cap, max);
		return;
	}
	if (max > 0 && *nterms == max)
		key_condition_error(n->pos, "KeyConditionExpressions must only contain one condition per key",
							"a key condition has more conditions than the key has attributes");
	if (*nterms == *cap)
	{
		*cap *= 2;
		*terms = repalloc(*terms, sizeof(KeyTerm) * *cap);
	}
	make_term(n, &(*terms)[(*nterms)++]);
}

/* Whether two terms name the same attribute */
static bool
same_attribute(const KeyTerm *a, const KeyTerm *b)
{
	const StPathElem *x = &a->path->elems[0];
	const StPathElem *y = &b->path->elems[0];

	return x->namelen == y->namelen && memcmp(x->name, y->name, x->namelen) == 0;
}

/* A key value in text form, checked against the attribute's type. */
static StKeyText
term_value(const StVal *v, StKeyType t, int pos)
{
	StKeyText	r;
	bool		ok = (t == ST_KEY_S && v->type == SV_S) || (t == ST_KEY_N && v->type == SV_N) ||
		(t == ST_KEY_B && v->type == SV_B);

	if (!ok)
		key_condition_error(pos, "One or more parameter values were invalid: Condition parameter type does not match schema type",
							psprintf("a value of type %s is compared with a key attribute of type %c",
									 st_val_type_name(v->type), (char) t));
	if (t == ST_KEY_B)
		r.data = st_base64_encode(v->u.str.data, v->u.str.len, &r.len);
	else
	{
		r.data = v->u.str.data;
		r.len = v->u.str.len;
	}
	return r;
}

/*
 * The names of names[0..n) whose term is missing (missing) or is not an
 * equality (else), joined by ", " as DynamoDB Local 3.3.0 lists them (quoted:
 * each in double quotes, for our message); NULL: none. *pos: the position of
 * the first such term (0 if it has none).
 */
static char *
failing_names(const char *const *names, const KeyTerm *const *terms, int n, bool missing, bool quoted,
			  int *pos)
{
	StringInfoData r;

	initStringInfo(&r);
	*pos = 0;
	for (int j = 0; j < n; j++)
		if (missing ? terms[j] == NULL : (terms[j] != NULL && terms[j]->op != ST_SK_EQ))
		{
			if (r.len == 0 && terms[j])
				*pos = terms[j]->pos;
			appendStringInfo(&r, quoted ? "%s\"%s\"" : "%s%s", r.len ? ", " : "", names[j]);
		}
	return r.len ? r.data : NULL;
}

/*
 * The rules of a multi-attribute key (a GSI's of more than one partition or
 * sort attribute) with DynamoDB Local 3.3.0's messages: every partition
 * attribute with =, and = on each sort attribute before the last one that
 * has a condition; the attributes without a condition are named first, else
 * those with another operator.
 */
static void
check_multi_key_terms(const StKeySchema *ks, const KeyTerm **pk_terms, const KeyTerm **sk_terms, int last)
{
	int			pos;

	for (int missing = 1; missing >= 0; missing--)
	{
		char	   *bad = failing_names(ks->pk_names, pk_terms, ks->n_pk, missing, false, &pos);

		if (bad)
			key_condition_error(pos, psprintf("HASH key attributes %s must have equality conditions specified in the query", bad),
								psprintf(missing ? "partition key attributes %s have no condition" :
										 "partition key attributes %s can only be compared with =",
										 failing_names(ks->pk_names, pk_terms, ks->n_pk, missing, true, &pos)));
	}
	for (int missing = 1; missing >= 0 && last >= 1; missing--)
	{
		char	   *bad = failing_names(ks->sk_names, sk_terms, last, missing, false, &pos);

		if (bad)
			key_condition_error(pos, psprintf("RANGE key attributes %s must have equality conditions specified in the query because a condition is present on key attribute %s",
											  bad, ks->sk_names[last]),
								psprintf(missing ? "sort key attributes %s have no condition, but \"%s\" after them has one" :
										 "sort key attributes %s must be compared with = because \"%s\" after them has a condition",
										 failing_names(ks->sk_names, sk_terms, last, missing, true, &pos),
										 ks->sk_names[last]));
	}
}

/* Parses expr against the key schema ks into out (see keycond.h); errors as DynamoDB's. */
void
st_parse_key_condition(const char *expr, StExprEnv *env, const StKeySchema *ks, StKeyCond *out)
{
	int			cap = 2 * ST_MAX_INDEX_KEY_ATTRS;
	KeyTerm    *terms = palloc(sizeof(KeyTerm) * cap);
	const KeyTerm *pk_terms[ST_MAX_INDEX_KEY_ATTRS] = {NULL};
	const KeyTerm *sk_terms[ST_MAX_INDEX_KEY_ATTRS] = {NULL};
	const KeyTerm *nonkey = NULL;
	int			nterms = 0;
	int			last = -1;
	bool		blank = true;
	bool		multi = ks->n_pk > 1 || ks->n_sk > 1;
	StNode	   *cond;

	memset(out, 0, sizeof(*out));
	for (const char *c = expr; *c; c++)
		if (!isspace((unsigned char) *c))
			blank = false;
	if (blank)
		st_expr_error(ST_ERR_VALIDATION, "Invalid KeyConditionExpression: The expression can not be empty;",
					  "key_condition must not be empty");
	cond = st_parse_condition(expr, SE_KEY_CONDITION, env);
	collect_terms(cond, &terms, &nterms, &cap, multi ? 0 : ks->n_pk + ks->n_sk);

	/*
	 * Each condition to its key attribute. A multi-attribute key is checked
	 * in DynamoDB Local 3.3.0's order: a second condition on an attribute,
	 * more conditions than the key has attributes, the HASH attributes, the
	 * RANGE attributes, then an attribute outside the key.
	 */
	for (int i = 0; i < nterms; i++)
	{
		const StPathElem *el = &terms[i].path->elems[0];
		const KeyTerm **slot = NULL;

		CHECK_FOR_INTERRUPTS();

		for (int j = 0; j < ks->n_pk && !slot; j++)
			if (el->namelen == (int) strlen(ks->pk_names[j]) && memcmp(el->name, ks->pk_names[j], el->namelen) == 0)
				slot = &pk_terms[j];
		for (int j = 0; j < ks->n_sk && !slot; j++)
			if (el->namelen == (int) strlen(ks->sk_names[j]) && memcmp(el->name, ks->sk_names[j], el->namelen) == 0)
			{
				slot = &sk_terms[j];
				last = Max(last, j);
			}
		if (slot == NULL && multi)
		{
			/* an attribute outside the key: a second condition on it first (the expression bounds the terms) */
			for (int k = 0; k < i; k++)
				if (same_attribute(&terms[k], &terms[i]))
					key_condition_error(terms[i].pos, "KeyConditionExpressions must only contain one condition per key",
										psprintf("attribute \"%.*s\" has two conditions", el->namelen, el->name));
			if (nonkey == NULL)
				nonkey = &terms[i];
			continue;
		}
		if (slot == NULL)
			key_condition_error(terms[i].pos, psprintf("Query condition missed key schema element: %s", ks->pk_names[0]),
								psprintf("\"%.*s\" is not a key attribute", el->namelen, el->name));
		if (*slot != NULL)
			key_condition_error(terms[i].pos, "KeyConditionExpressions must only contain one condition per key",
								psprintf("key attribute \"%.*s\" has two conditions", el->namelen, el->name));
		*slot = &terms[i];
	}
	if (multi)
	{
		if (nterms > ks->n_pk + ks->n_sk)
			key_condition_error(terms[ks->n_pk + ks->n_sk].pos, "Query key condition not supported",
								"a key condition has more conditions than the key has attributes");
		check_multi_key_terms(ks, pk_terms, sk_terms, last);
		if (nonkey)
			key_condition_error(nonkey->pos, "Query condition missed key schema element",
								psprintf("\"%.*s\" is not a key attribute",
										 nonkey->path->elems[0].namelen, nonkey->path->elems[0].name));
	}
	for (int j = 0; j < ks->n_pk; j++)
	{
		if (pk_terms[j] == NULL)
			key_condition_error(0, psprintf("Query condition missed key schema element: %s", ks->pk_names[j]),
								psprintf("partition key attribute \"%s\" has no condition", ks->pk_names[j]));
		if (pk_terms[j]->op != ST_SK_EQ)
			key_condition_error(pk_terms[j]->pos, "Query key condition not supported",
								psprintf("partition key attribute \"%s\" can only be compared with =", ks->pk_names[j]));
		out->pk[j] = term_value(pk_terms[j]->v1, ks->pk_types[j], pk_terms[j]->pos);
	}
	for (int j = 0; j <= last; j++)
	{
		const KeyTerm *t = sk_terms[j];

		if (t == NULL)
			key_condition_error(0, "Query key condition not supported",
								psprintf("sort key attribute \"%s\" has no condition, but \"%s\" after it has one",
										 ks->sk_names[j], ks->sk_names[last]));
		if (j < last && t->op != ST_SK_EQ)
			key_condition_error(t->pos, "Query key condition not supported",
								psprintf("sort key attribute \"%s\" must be compared with = because \"%s\" after it has a condition",
										 ks->sk_names[j], ks->sk_names[last]));
		if (j < last)
		{
			out->sk_eq[j] = term_value(t->v1, ks->sk_types[j], t->pos);
			continue;
		}
		out->n_eq = j;
		out->op = t->op;
		if (t->op == ST_SK_RANGE && t->v1->type == SV_N)
			key_condition_error(t->pos, "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N",
								"begins_with takes a string or binary prefix, not a number");
		if (t->op == ST_SK_BETWEEN && t->v1->type != t->v2->type)
			key_condition_error(t->pos, "Invalid KeyConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds",
								"the bounds of BETWEEN have different types");
		out->sk1 = term_value(t->v1, ks->sk_types[j], t->pos);
		if (t->v2)
			out->sk2 = term_value(t->v2, ks->sk_types[j], t->pos);
	}
}
