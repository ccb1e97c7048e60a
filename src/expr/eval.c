/*
 * eval.c — evaluating conditions and filters against an item.
 *
 * DynamoDB's rules (Developer Guide, "Comparison operator and function reference"): values of
 * different types never compare true; a missing attribute makes every
 * comparison false except <>, which is true; <, <=, >, >= and BETWEEN are
 * defined for S, N and B only; size() of N, BOOL or NULL from the item makes
 * its comparison false; size() of an S counts UTF-16 code units, of a B
 * bytes. There is no SQL three-valued logic here.
 */
#include "st_base.h"

#include "expr.h"

/* What an operand evaluated to */
typedef enum OpStatus
{
	OP_VALUE,					/* *out holds the value */
	OP_MISSING,					/* the path does not exist in the item */
	OP_INVALID					/* size() of a type without a size */
} OpStatus;

/* The value at path in item, or NULL when some step does not exist. */
StVal *
st_path_get(const StVal *item, const StPath *path)
{
	const StVal *cur = item;

	for (int i = 0; i < path->n && cur != NULL; i++)
	{
		const StPathElem *el = &path->elems[i];

		if (el->is_index)
		{
			if (cur->type != SV_L || el->index >= cur->u.list.n)
				return NULL;
			cur = cur->u.list.elems[el->index];
		}
		else
		{
			if (cur->type != SV_M)
				return NULL;
			cur = st_val_map_get(cur, el->name, el->namelen);
		}
	}
	return (StVal *) cur;
}

/*
 * The length of UTF-8 text in UTF-16 code units, which is what DynamoDB's
 * size() counts for an S: one per character, two for a character outside
 * the Basic Multilingual Plane (code point 0x10000 and up, a 4-byte UTF-8
 * sequence, a surrogate pair in UTF-16). Counts lead bytes, so it needs no
 * decoding: continuation bytes (10xxxxxx) count nothing.
 */
static int64
utf16_length(const char *s, int len)
{
	int64		n = 0;

	for (int i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if ((c & 0xC0) != 0x80)
			n += c >= 0xF0 ? 2 : 1;
	}
	return n;
}

/* The number n as a canonical N value. */
static StVal *
make_count(int64 n)
{
	char	   *s = psprintf(INT64_FORMAT, n);

	return st_val_make_str(SV_N, s, strlen(s));
}

static OpStatus
eval_operand(const StNode *n, const StVal *item, const StVal **out)
{
	switch (n->kind)
	{
		case SN_VALUE:
			*out = n->value;
			return OP_VALUE;
		case SN_PATH:
			*out = st_path_get(item, n->path);
			return *out ? OP_VALUE : OP_MISSING;
		case SN_SIZE:
			{
				const StVal *v;
				OpStatus	st = eval_operand(n->args[0], item, &v);

				if (st != OP_VALUE)
					return st;
				switch (v->type)
				{
					case SV_S:
						*out = make_count(utf16_length(v->u.str.data, v->u.str.len));
						return OP_VALUE;
					case SV_B:
						*out = make_count(v->u.str.len);
						return OP_VALUE;
					case SV_L:
					case SV_SS:
					case SV_NS:
					case SV_BS:
						*out = make_count(v->u.list.n);
						return OP_VALUE;
					case SV_M:
						*out = make_count(v->u.map.n);
						return OP_VALUE;
					default:
						return OP_INVALID;
				}
			}
		default:
			break;
	}
	st_expr_error(ST_ERR_VALIDATION, NULL, "unexpected operand kind %d", n->kind);
}

/* a <op> b for two present values */
static bool
compare_values(StCmpOp op, const StVal *a, const StVal *b)
{
	int			c;

	if (op == SC_EQ)
		return st_val_equal(a, b);
	if (op == SC_NE)
		return !st_val_equal(a, b);
	if (a->type != b->type || !st_val_orderable(a))
		return false;
	c = st_val_compare(a, b);
	switch (op)
	{
		case SC_LT:
			return c < 0;
		case SC_LE:
			return c <= 0;
		case SC_GT:
			return c > 0;
		case SC_GE:
			return c >= 0;
		default:
			return false;
	}
}

/* Whether the bytes of needle occur in haystack. */
static bool
bytes_contain(const char *h, int hlen, const char *n, int nlen)
{
	if (nlen == 0)
		return true;
	for (int i = 0; i + nlen <= hlen; i++)
		if (memcmp(h + i, n, nlen) == 0)
			return true;
	return false;
}

/* Evaluates a condition or filter against item (an M; empty when absent). */
bool
st_eval_condition(const StNode *n, const StVal *item)
{
	const StVal *a,
			   *b,
			   *c;
	OpStatus	sa,
				sb,
				sc;

	switch (n->kind)
	{
		case SN_AND:
			return st_eval_condition(n->args[0], item) && st_eval_condition(n->args[1], item);
		case SN_OR:
			return st_eval_condition(n->args[0], item) || st_eval_condition(n->args[1], item);
		case SN_NOT:
			return !st_eval_condition(n->args[0], item);
		case SN_CMP:
			sa = eval_operand(n->args[0], item, &a);
			sb = eval_operand(n->args[1], item, &b);
			if (sa == OP_INVALID || sb == OP_INVALID)
				return false;
			if (sa == OP_MISSING || sb == OP_MISSING)
				return n->op == SC_NE;
			return compare_values(n->op, a, b);
		case SN_BETWEEN:
			sa = eval_operand(n->args[0], item, &a);
			sb = eval_operand(n->args[1], item, &b);
			sc = eval_operand(n->args[2], item, &c);
			if (sa != OP_VALUE || sb != OP_VALUE || sc != OP_VALUE)
				return false;
			if (a->type != b->type || a->type != c->type || !st_val_orderable(a))
				return false;
			return st_val_compare(b, a) <= 0 && st_val_compare(a, c) <= 0;
		case SN_IN:
			if (eval_operand(n->args[0], item, &a) != OP_VALUE)
				return false;
			for (int i = 1; i < n->nargs; i++)
				if (eval_operand(n->args[i], item, &b) == OP_VALUE && st_val_equal(a, b))
					return true;
			return false;
		case SN_ATTRIBUTE_EXISTS:
			return st_path_get(item, n->args[0]->path) != NULL;
		case SN_ATTRIBUTE_NOT_EXISTS:
			return st_path_get(item, n->args[0]->path) == NULL;
		case SN_ATTRIBUTE_TYPE:
			a = st_path_get(item, n->args[0]->path);
			if (a == NULL)
				return false;
			{
				const char *t = st_val_type_name(a->type);

				return (int) strlen(t) == n->args[1]->value->u.str.len &&
					memcmp(t, n->args[1]->value->u.str.data, n->args[1]->value->u.str.len) == 0;
			}
		case SN_BEGINS_WITH:
			if (eval_operand(n->args[0], item, &a) != OP_VALUE ||
				eval_operand(n->args[1], item, &b) != OP_VALUE)
				return false;
			if (a->type != b->type || (a->type != SV_S && a->type != SV_B))
				return false;
			return b->u.str.len <= a->u.str.len &&
				memcmp(a->u.str.data, b->u.str.data, b->u.str.len) == 0;
		case SN_CONTAINS:
			if (eval_operand(n->args[0], item, &a) != OP_VALUE ||
				eval_operand(n->args[1], item, &b) != OP_VALUE)
				return false;
			switch (a->type)
			{
				case SV_S:
				case SV_B:
					return b->type == a->type &&
						bytes_contain(a->u.str.data, a->u.str.len, b->u.str.data, b->u.str.len);
				case SV_SS:
				case SV_NS:
				case SV_BS:
					if ((a->type == SV_SS && b->type != SV_S) ||
						(a->type == SV_NS && b->type != SV_N) ||
						(a->type == SV_BS && b->type != SV_B))
						return false;
					/* membership, as for a list */
					/* FALLTHROUGH */
				case SV_L:
					for (int i = 0; i < a->u.list.n; i++)
						if (st_val_equal(a->u.list.elems[i], b))
							return true;
					return false;
				default:
					return false;
			}
		default:
			st_expr_error(ST_ERR_VALIDATION, NULL, "node of kind %d is not a condition", n->kind);
	}
	return false;
}

/* Adds the first element of path to the list of top-level names. */
static void
add_top_name(const StPath *path, const char ***names, int **lens, int *n, int *cap)
{
	const StPathElem *el = &path->elems[0];

	for (int i = 0; i < *n; i++)
		if ((*lens)[i] == el->namelen && memcmp((*names)[i], el->name, el->namelen) == 0)
			return;
	if (*n == *cap)
	{
		*cap = *cap ? *cap * 2 : 8;
		*names = *names ? repalloc(*names, sizeof(char *) * *cap) : palloc(sizeof(char *) * *cap);
		*lens = *lens ? repalloc(*lens, sizeof(int) * *cap) : palloc(sizeof(int) * *cap);
	}
	(*names)[*n] = el->name;
	(*lens)[*n] = el->namelen;
	(*n)++;
}

/*
 * Collects the top-level attribute names a condition reads, so that only
 * those attributes of a stored item need to be converted for evaluation.
 */
void
st_expr_collect_top_names(const StNode *node, const char ***names, int **lens, int *n, int *cap)
{
	if (node->kind == SN_PATH)
		add_top_name(node->path, names, lens, n, cap);
	for (int i = 0; i < node->nargs; i++)
		st_expr_collect_top_names(node->args[i], names, lens, n, cap);
}
