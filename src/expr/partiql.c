/*
 * partiql.c — DynamoDB's PartiQL: SELECT, INSERT, UPDATE, DELETE (and
 * EXISTS for transactions) parsed by recursive descent into StPqlStatement;
 * conditions rendered as DynamoDB expressions (partiql.h).
 *
 * The lexer makes one pass over the text; the parser looks one token ahead
 * and its recursion is bounded by ST_PQL_MAX_DEPTH (nested conditions and
 * literals), so parsing is linear in the statement's length.
 */
#include "st_base.h"

#include <ctype.h>

#include "expr.h"
#include "partiql.h"

typedef enum
{
	K_END,
	K_IDENT,					/* bare word (keywords too) */
	K_QIDENT,					/* "double quoted" */
	K_STRING,					/* 'single quoted' */
	K_NUMBER,
	K_PUNCT
} TokKind;

typedef struct
{
	TokKind		kind;
	int			pos;
	char	   *text;			/* identifier, string (unescaped), number, punctuation */
	int			len;
} Tok;

typedef struct
{
	const char *src;
	int			len;
	int			at;				/* lexer position */
	Tok			tok;			/* the current token */
	int			depth;
	char	  **params;
	char	   *param_types;
	int			nparams;
	int			used;
} P;

static void pql_syntax(P *p, const char *why) pg_attribute_noreturn();

static void
pql_syntax(P *p, const char *why)
{
	st_expr_error(ST_ERR_SYNTAX,
				  psprintf("Statement wasn't well formed, can't be processed: %s at position %d",
						   why, p->tok.pos + 1),
				  "PartiQL statement is not well formed at position %d: %s", p->tok.pos + 1, why);
}

static void pql_invalid(const char *msg) pg_attribute_noreturn();

static void
pql_invalid(const char *msg)
{
	st_expr_error(ST_ERR_VALIDATION, msg, "invalid PartiQL statement: %s", msg);
}

/* ---------------------------------------------------------------- lexer */

static void
next(P *p)
{
	const char *s = p->src;
	int			i = p->at;

	while (i < p->len && isspace((unsigned char) s[i]))
		i++;
	p->tok.pos = i;
	if (i >= p->len)
	{
		p->tok.kind = K_END;
		p->tok.text = "";
		p->tok.len = 0;
		p->at = i;
		return;
	}
	if (isalpha((unsigned char) s[i]) || s[i] == '_')
	{
		int			b = i;

		while (i < p->len && (isalnum((unsigned char) s[i]) || s[i] == '_'))
			i++;
		p->tok.kind = K_IDENT;
		p->tok.text = pnstrdup(s + b, i - b);
		p->tok.len = i - b;
	}
	else if (s[i] == '"' || s[i] == '\'')
	{
		char		q = s[i];
		StringInfoData b;

		initStringInfo(&b);
		i++;
		for (;;)
		{
			ST_CHECK_INTERRUPTS();
			if (i >= p->len)
			{
				p->at = i;
				pql_syntax(p, q == '"' ? "unterminated quoted identifier" : "unterminated string");
			}
			if (s[i] == q)
			{
				if (i + 1 < p->len && s[i + 1] == q)
				{
					appendStringInfoChar(&b, q);
					i += 2;
					continue;
				}
				i++;
				break;
			}
			appendStringInfoChar(&b, s[i]);
			i++;
		}
		p->tok.kind = q == '"' ? K_QIDENT : K_STRING;
		p->tok.text = b.data;
		p->tok.len = b.len;
	}
	else if (isdigit((unsigned char) s[i]) ||
			 (s[i] == '.' && i + 1 < p->len && isdigit((unsigned char) s[i + 1])))
	{
		int			b = i;

		while (i < p->len && (isdigit((unsigned char) s[i]) || s[i] == '.'))
			i++;
		if (i < p->len && (s[i] == 'e' || s[i] == 'E'))
		{
			i++;
			if (i < p->len && (s[i] == '+' || s[i] == '-'))
				i++;
			while (i < p->len && isdigit((unsigned char) s[i]))
				i++;
		}
		p->tok.kind = K_NUMBER;
		p->tok.text = pnstrdup(s + b, i - b);
		p->tok.len = i - b;
	}
	else
	{
		static const char *const two[] = {"<>", "<=", ">=", "!=", "<<", ">>", NULL};
		int			n = 1;

		for (int k = 0; two[k]; k++)
			if (i + 1 < p->len && s[i] == two[k][0] && s[i + 1] == two[k][1])
				n = 2;
		if (n == 1 && strchr("=<>(),.[]{}:?*+-;", s[i]) == NULL)
		{
			p->at = i;
			pql_syntax(p, "unexpected character");
		}
		p->tok.kind = K_PUNCT;
		p->tok.text = pnstrdup(s + i, n);
		p->tok.len = n;
		i += n;
	}
	p->at = i;
}

static bool
is_punct(P *p, const char *s)
{
	return p->tok.kind == K_PUNCT && strcmp(p->tok.text, s) == 0;
}

static bool
is_kw(P *p, const char *kw)
{
	return p->tok.kind == K_IDENT && pg_strcasecmp(p->tok.text, kw) == 0;
}

static void
expect_punct(P *p, const char *s)
{
	if (!is_punct(p, s))
		pql_syntax(p, psprintf("expected \"%s\"", s));
	next(p);
}

static void
expect_kw(P *p, const char *kw)
{
	if (!is_kw(p, kw))
		pql_syntax(p, psprintf("expected %s", kw));
	next(p);
}

static bool
accept_kw(P *p, const char *kw)
{
	if (!is_kw(p, kw))
		return false;
	next(p);
	return true;
}

static bool
accept_punct(P *p, const char *s)
{
	if (!is_punct(p, s))
		return false;
	next(p);
	return true;
}

static void
enter(P *p)
{
	if (++p->depth > ST_PQL_MAX_DEPTH)
		st_expr_error(ST_ERR_LIMIT,
					  psprintf("Statement wasn't well formed, can't be processed: nesting deeper than %d",
							   ST_PQL_MAX_DEPTH),
					  "PartiQL statement nests deeper than %d", ST_PQL_MAX_DEPTH);
}

/* ---------------------------------------------------------------- JSON text */

void
st_pql_json_string(StringInfo out, const char *s, int len)
{
	appendStringInfoChar(out, '"');
	for (int i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (c == '"' || c == '\\')
		{
			appendStringInfoChar(out, '\\');
			appendStringInfoChar(out, (char) c);
		}
		else if (c < 0x20)
			appendStringInfo(out, "\\u%04x", c);
		else
			appendStringInfoChar(out, (char) c);
	}
	appendStringInfoChar(out, '"');
}

/* ---------------------------------------------------------------- nodes */

static StPqlNode *
node(StPqlNodeKind kind, int nargs)
{
	StPqlNode  *n = palloc0(sizeof(StPqlNode));

	n->kind = kind;
	n->nargs = nargs;
	if (nargs > 0)
		n->args = palloc0(sizeof(StPqlNode *) * nargs);
	return n;
}

static StPqlNode *
node2(StPqlNodeKind kind, StPqlNode *a, StPqlNode *b)
{
	StPqlNode  *n = node(kind, 2);

	n->args[0] = a;
	n->args[1] = b;
	return n;
}

/* an identifier: a bare word or a double-quoted one */
static char *
ident(P *p)
{
	char	   *s;

	if (p->tok.kind != K_IDENT && p->tok.kind != K_QIDENT)
		pql_syntax(p, "expected an identifier");
	s = p->tok.text;
	next(p);
	return s;
}

/* a path: name ( .name | [n] )* */
static StPqlNode *
path(P *p)
{
	StPqlNode  *n = node(PQ_PATH, 0);
	int			cap = 4;

	n->path = palloc(sizeof(StPqlPathElem) * cap);
	n->path[0].is_index = false;
	n->path[0].name = ident(p);
	n->npath = 1;
	for (;;)
	{
		StPqlPathElem e = {0};

		ST_CHECK_INTERRUPTS();
		if (accept_punct(p, "."))
			e.name = ident(p);
		else if (is_punct(p, "["))
		{
			next(p);
			if (p->tok.kind != K_NUMBER || strspn(p->tok.text, "0123456789") != (size_t) p->tok.len ||
				p->tok.len > 9)
				pql_syntax(p, "expected a list index");
			e.is_index = true;
			e.index = atoi(p->tok.text);
			next(p);
			expect_punct(p, "]");
		}
		else
			break;
		if (n->npath == cap)
		{
			cap *= 2;
			n->path = repalloc(n->path, sizeof(StPqlPathElem) * cap);
		}
		n->path[n->npath++] = e;
	}
	return n;
}

static StPqlNode *value(P *p);

static StPqlNode *
wire_node(char *wire, char type)
{
	StPqlNode  *n = node(PQ_VALUE, 0);

	n->wire = wire;
	n->type = type;
	return n;
}

/* a literal or ?: its AttributeValue's wire text */
static StPqlNode *
value(P *p)
{
	StringInfoData b;

	initStringInfo(&b);
	if (is_punct(p, "?"))
	{
		int			k = p->used++;

		if (k >= p->nparams)
			pql_invalid("Number of parameters in request and statement don't match.");
		next(p);
		return wire_node(p->params[k], p->param_types ? p->param_types[k] : 'o');
	}
	if (p->tok.kind == K_STRING)
	{
		st_pql_json_string(&b, p->tok.text, p->tok.len);
		next(p);
		return wire_node(psprintf("{\"S\": %s}", b.data), 'S');
	}
	if (p->tok.kind == K_NUMBER || is_punct(p, "-") || is_punct(p, "+"))
	{
		bool		neg = is_punct(p, "-");

		if (p->tok.kind == K_PUNCT)
		{
			next(p);
			if (p->tok.kind != K_NUMBER)
				pql_syntax(p, "expected a number");
		}
		appendStringInfo(&b, "{\"N\": \"%s%s\"}", neg ? "-" : "", p->tok.text);
		next(p);
		return wire_node(b.data, 'N');
	}
	if (is_kw(p, "TRUE") || is_kw(p, "FALSE"))
	{
		bool		t = is_kw(p, "TRUE");

		next(p);
		return wire_node(t ? "{\"BOOL\": true}" : "{\"BOOL\": false}", 'o');
	}
	if (accept_kw(p, "NULL"))
		return wire_node("{\"NULL\": true}", 'o');
	if (accept_kw(p, "MISSING"))
		return node(PQ_MISSING, 0);
	if (is_punct(p, "{"))
	{
		enter(p);
		next(p);
		appendStringInfoString(&b, "{\"M\": {");
		if (!is_punct(p, "}"))
			for (int i = 0;; i++)
			{
				StPqlNode  *v;

				ST_CHECK_INTERRUPTS();
				if (p->tok.kind != K_STRING)
					pql_syntax(p, "expected a string as the key of a map");
				if (i > 0)
					appendStringInfoString(&b, ", ");
				st_pql_json_string(&b, p->tok.text, p->tok.len);
				next(p);
				expect_punct(p, ":");
				v = value(p);
				if (v->kind == PQ_MISSING)
					pql_invalid("MISSING is not a value of a map");
				appendStringInfo(&b, ": %s", v->wire);
				if (!accept_punct(p, ","))
					break;
			}
		expect_punct(p, "}");
		appendStringInfoString(&b, "}}");
		p->depth--;
		return wire_node(b.data, 'o');
	}
	if (is_punct(p, "["))
	{
		enter(p);
		next(p);
		appendStringInfoString(&b, "{\"L\": [");
		if (!is_punct(p, "]"))
			for (int i = 0;; i++)
			{
				StPqlNode  *v;

				ST_CHECK_INTERRUPTS();
				v = value(p);
				if (v->kind == PQ_MISSING)
					pql_invalid("MISSING is not a value of a list");
				appendStringInfo(&b, "%s%s", i ? ", " : "", v->wire);
				if (!accept_punct(p, ","))
					break;
			}
		expect_punct(p, "]");
		appendStringInfoString(&b, "]}");
		p->depth--;
		return wire_node(b.data, 'o');
	}
	if (is_punct(p, "<<"))
	{
		char		t = 0;
		StringInfoData e;

		initStringInfo(&e);
		next(p);
		for (int i = 0;; i++)
		{
			StPqlNode  *v;
			char	   *colon;
			char	   *inner;

			ST_CHECK_INTERRUPTS();
			v = value(p);
			if (v->kind != PQ_VALUE || (v->type != 'S' && v->type != 'N' && v->type != 'B') ||
				(t && v->type != t))
				pql_invalid("A set must hold strings, numbers or binaries of one type");
			t = v->type;
			/* {"S": "x"} -> "x" */
			colon = strchr(v->wire, ':');
			inner = pstrdup(colon + 1);
			inner[strlen(inner) - 1] = '\0';
			appendStringInfo(&e, "%s%s", i ? ", " : "", inner);
			if (!accept_punct(p, ","))
				break;
		}
		expect_punct(p, ">>");
		appendStringInfo(&b, "{\"%cS\": [%s]}", t, e.data);
		return wire_node(b.data, 'o');
	}
	pql_syntax(p, "expected a value");
}

/* ---------------------------------------------------------------- conditions */

static StPqlNode *cond(P *p);

static bool
is_value_start(P *p)
{
	return p->tok.kind == K_STRING || p->tok.kind == K_NUMBER ||
		is_punct(p, "?") || is_punct(p, "-") || is_punct(p, "{") || is_punct(p, "[") ||
		is_punct(p, "<<") || is_kw(p, "TRUE") || is_kw(p, "FALSE") || is_kw(p, "NULL") ||
		is_kw(p, "MISSING");
}

/* a function call name( args ): the current token is the name, followed by ( */
static StPqlNode *
func(P *p, const char *name, int min, int max)
{
	StPqlNode  *n;
	StPqlNode  *args[4];
	int			k = 0;

	next(p);
	expect_punct(p, "(");
	enter(p);
	for (;;)
	{
		if (k == max)
			pql_syntax(p, psprintf("too many arguments of %s", name));
		args[k++] = is_value_start(p) ? value(p) : path(p);
		if (!accept_punct(p, ","))
			break;
	}
	p->depth--;
	expect_punct(p, ")");
	if (k < min)
		pql_syntax(p, psprintf("too few arguments of %s", name));
	n = node(PQ_FUNC, k);
	n->name = name;
	memcpy(n->args, args, sizeof(StPqlNode *) * k);
	return n;
}

static bool
is_call(P *p, const char *name)
{
	int			i = p->at;

	if (!is_kw(p, name))
		return false;
	while (i < p->len && isspace((unsigned char) p->src[i]))
		i++;
	return i < p->len && p->src[i] == '(';
}

static StPqlNode *
operand(P *p)
{
	if (is_call(p, "size"))
		return func(p, "size", 1, 1);
	if (is_value_start(p))
		return value(p);
	return path(p);
}

static StPqlNode *
predicate(P *p)
{
	StPqlNode  *a;
	static const char *const cmps[] = {"=", "<>", "!=", "<", "<=", ">", ">=", NULL};

	if (is_punct(p, "("))
	{
		StPqlNode  *c;

		enter(p);
		next(p);
		c = cond(p);
		expect_punct(p, ")");
		p->depth--;
		return c;
	}
	if (is_call(p, "begins_with"))
		return func(p, "begins_with", 2, 2);
	if (is_call(p, "contains"))
		return func(p, "contains", 2, 2);
	if (is_call(p, "attribute_type"))
		return func(p, "attribute_type", 2, 2);
	a = operand(p);
	for (int i = 0; cmps[i]; i++)
		if (is_punct(p, cmps[i]))
		{
			StPqlNode  *n;

			next(p);
			n = node2(PQ_CMP, a, operand(p));
			n->op = strcmp(cmps[i], "!=") == 0 ? "<>" : cmps[i];
			if (n->args[1]->kind == PQ_MISSING || a->kind == PQ_MISSING)
				pql_invalid("MISSING must be compared using IS operator");
			return n;
		}
	if (accept_kw(p, "BETWEEN"))
	{
		StPqlNode  *n = node(PQ_BETWEEN, 3);

		n->args[0] = a;
		n->args[1] = operand(p);
		expect_kw(p, "AND");
		n->args[2] = operand(p);
		return n;
	}
	if (accept_kw(p, "IN"))
	{
		StPqlNode  *n;
		int			cap = 8;
		int			k = 1;
		const char *close = is_punct(p, "(") ? ")" : "]";

		if (!is_punct(p, "(") && !is_punct(p, "["))
			pql_syntax(p, "expected a list after IN");
		next(p);
		n = node(PQ_IN, cap);
		n->args[0] = a;
		for (;;)
		{
			ST_CHECK_INTERRUPTS();
			if (k == cap)
			{
				cap *= 2;
				n->args = repalloc(n->args, sizeof(StPqlNode *) * cap);
			}
			n->args[k++] = operand(p);
			if (!accept_punct(p, ","))
				break;
		}
		expect_punct(p, close);
		n->nargs = k;
		return n;
	}
	if (accept_kw(p, "IS"))
	{
		StPqlNode  *n = node(PQ_IS, 1);

		n->args[0] = a;
		n->negated = accept_kw(p, "NOT");
		if (accept_kw(p, "NULL"))
			n->is_null = true;
		else
			expect_kw(p, "MISSING");
		return n;
	}
	pql_syntax(p, "expected a comparison");
}

static StPqlNode *
not_cond(P *p)
{
	if (accept_kw(p, "NOT"))
	{
		StPqlNode  *n = node(PQ_NOT, 1);

		enter(p);
		n->args[0] = not_cond(p);
		p->depth--;
		return n;
	}
	return predicate(p);
}

static StPqlNode *
and_cond(P *p)
{
	StPqlNode  *a = not_cond(p);

	while (accept_kw(p, "AND"))
	{
		ST_CHECK_INTERRUPTS();
		a = node2(PQ_AND, a, not_cond(p));
	}
	return a;
}

static StPqlNode *
cond(P *p)
{
	StPqlNode  *a = and_cond(p);

	while (accept_kw(p, "OR"))
	{
		ST_CHECK_INTERRUPTS();
		a = node2(PQ_OR, a, and_cond(p));
	}
	return a;
}

/* ---------------------------------------------------------------- statements */

static void
target(P *p, StPqlStatement *s, bool index_ok)
{
	s->table = ident(p);
	if (index_ok && accept_punct(p, "."))
		s->index = ident(p);
}

static void
returning(P *p, StPqlStatement *s)
{
	bool		all;
	bool		old;

	if (!accept_kw(p, "RETURNING"))
		return;
	if (accept_kw(p, "ALL"))
		all = true;
	else
	{
		expect_kw(p, "MODIFIED");
		all = false;
	}
	if (accept_kw(p, "OLD"))
		old = true;
	else
	{
		expect_kw(p, "NEW");
		old = false;
	}
	expect_punct(p, "*");
	s->returning = all ? (old ? "ALL_OLD" : "ALL_NEW") : (old ? "UPDATED_OLD" : "UPDATED_NEW");
}

static void
select_body(P *p, StPqlStatement *s)
{
	s->kind = PQL_SELECT;
	expect_kw(p, "SELECT");
	if (!accept_punct(p, "*"))
	{
		int			cap = 4;

		s->proj = palloc(sizeof(StPqlNode *) * cap);
		for (;;)
		{
			ST_CHECK_INTERRUPTS();
			if (s->nproj == cap)
			{
				cap *= 2;
				s->proj = repalloc(s->proj, sizeof(StPqlNode *) * cap);
			}
			s->proj[s->nproj++] = path(p);
			if (!accept_punct(p, ","))
				break;
		}
	}
	expect_kw(p, "FROM");
	target(p, s, true);
	if (accept_kw(p, "WHERE"))
		s->where = cond(p);
	if (accept_kw(p, "ORDER"))
	{
		expect_kw(p, "BY");
		s->order_by = path(p);
		if (accept_kw(p, "DESC"))
			s->order_desc = true;
		else
			(void) accept_kw(p, "ASC");
	}
}

/* a SET value: operand [+|- operand], or list_append/if_not_exists/set_add/set_delete */
static StPqlNode *
set_value(P *p)
{
	StPqlNode  *a;

	if (is_call(p, "list_append"))
		a = func(p, "list_append", 2, 2);
	else if (is_call(p, "if_not_exists"))
		a = func(p, "if_not_exists", 2, 2);
	else if (is_call(p, "set_add"))
		return func(p, "set_add", 2, 2);
	else if (is_call(p, "set_delete"))
		return func(p, "set_delete", 2, 2);
	else
		a = is_value_start(p) ? value(p) : path(p);
	if (a->kind == PQ_MISSING)
		pql_invalid("MISSING is not a value to set");
	if (is_punct(p, "+") || is_punct(p, "-"))
	{
		bool		plus = is_punct(p, "+");

		next(p);
		return node2(plus ? PQ_PLUS : PQ_MINUS, a, is_value_start(p) ? value(p) : path(p));
	}
	return a;
}

static void
add_action(StPqlStatement *s, int *cap, StPqlAction a)
{
	if (s->nactions == *cap)
	{
		*cap = *cap ? *cap * 2 : 4;
		s->actions = s->actions ? repalloc(s->actions, sizeof(StPqlAction) * *cap) :
			palloc(sizeof(StPqlAction) * *cap);
	}
	s->actions[s->nactions++] = a;
}

StPqlStatement *
st_pql_parse(const char *statement, int len, char **params, char *param_types, int nparams)
{
	P			p = {0};
	StPqlStatement *s = palloc0(sizeof(StPqlStatement));

	if (len > ST_PQL_MAX_BYTES)
		st_expr_error(ST_ERR_LIMIT,
					  psprintf("1 validation error detected: Value at 'statement' failed to satisfy constraint: Member must have length less than or equal to %d",
							   ST_PQL_MAX_BYTES),
					  "PartiQL statement longer than %d bytes", ST_PQL_MAX_BYTES);
	p.src = statement;
	p.len = len;
	p.params = params;
	p.param_types = param_types;
	p.nparams = nparams;
	next(&p);
	if (is_kw(&p, "SELECT"))
		select_body(&p, s);
	else if (accept_kw(&p, "EXISTS"))
	{
		expect_punct(&p, "(");
		select_body(&p, s);
		expect_punct(&p, ")");
		s->kind = PQL_EXISTS;
	}
	else if (accept_kw(&p, "INSERT"))
	{
		StPqlNode  *v;

		s->kind = PQL_INSERT;
		expect_kw(&p, "INTO");
		target(&p, s, false);
		expect_kw(&p, "VALUE");
		/* a list, a scalar, ...: DynamoDB's message (without its position) */
		if (!is_punct(&p, "{") && !is_punct(&p, "?"))
			pql_invalid("Unsupported format in item expression. Please use struct format {...} to express item values for insert statement.");
		v = value(&p);
		if (strncmp(v->wire, "{\"M\":", 5) != 0)
			pql_invalid("Unsupported format in item expression. Please use struct format {...} to express item values for insert statement.");
		s->item = v->wire;
		/* {"M": {...}} -> {...} */
		s->item_members = pstrdup(v->wire + 5);
		s->item_members[strlen(s->item_members) - 1] = '\0';
	}
	else if (accept_kw(&p, "UPDATE"))
	{
		int			cap = 0;

		s->kind = PQL_UPDATE;
		target(&p, s, false);
		if (!is_kw(&p, "SET") && !is_kw(&p, "REMOVE"))
			pql_syntax(&p, "expected SET or REMOVE");
		while (is_kw(&p, "SET") || is_kw(&p, "REMOVE"))
		{
			bool		remove = is_kw(&p, "REMOVE");

			next(&p);
			for (;;)
			{
				StPqlAction a = {0};

				ST_CHECK_INTERRUPTS();
				a.remove = remove;
				a.path = path(&p);
				if (!remove)
				{
					expect_punct(&p, "=");
					a.value = set_value(&p);
				}
				add_action(s, &cap, a);
				/* SET a = 1, b = 2; REMOVE takes one path (REMOVE a REMOVE b), as DynamoDB */
				if (remove || !accept_punct(&p, ","))
					break;
			}
		}
		/* no WHERE: DynamoDB's "Where clause does not contain ..." when planned */
		if (accept_kw(&p, "WHERE"))
			s->where = cond(&p);
		returning(&p, s);
	}
	else if (accept_kw(&p, "DELETE"))
	{
		s->kind = PQL_DELETE;
		expect_kw(&p, "FROM");
		target(&p, s, false);
		if (accept_kw(&p, "WHERE"))
			s->where = cond(&p);
		returning(&p, s);
	}
	else
		pql_syntax(&p, "expected SELECT, INSERT, UPDATE, DELETE or EXISTS");
	(void) accept_punct(&p, ";");
	if (p.tok.kind != K_END)
		pql_syntax(&p, "unexpected text after the statement");
	if (p.used != nparams)
		pql_invalid("Number of parameters in request and statement don't match.");
	s->nparams = p.used;
	return s;
}

/* ---------------------------------------------------------------- rendering */

void
st_pql_render_init(StPqlRender *r)
{
	initStringInfo(&r->names);
	initStringInfo(&r->values);
	r->nnames = 0;
	r->nvalues = 0;
}

static void
render_path(StPqlRender *r, StringInfo out, const StPqlNode *n)
{
	for (int i = 0; i < n->npath; i++)
	{
		const StPqlPathElem *e = &n->path[i];

		if (e->is_index)
			appendStringInfo(out, "[%d]", e->index);
		else
		{
			appendStringInfo(out, "%s#p%d", i ? "." : "", r->nnames);
			appendStringInfo(&r->names, "%s\"#p%d\": ", r->nnames ? ", " : "", r->nnames);
			st_pql_json_string(&r->names, e->name, strlen(e->name));
			r->nnames++;
		}
	}
}

static void
render_value(StPqlRender *r, StringInfo out, const char *wire)
{
	appendStringInfo(out, ":p%d", r->nvalues);
	appendStringInfo(&r->values, "%s\":p%d\": %s", r->nvalues ? ", " : "", r->nvalues, wire);
	r->nvalues++;
}

void
st_pql_render(StPqlRender *r, StringInfo out, const StPqlNode *n)
{
	ST_CHECK_INTERRUPTS();
	switch (n->kind)
	{
		case PQ_PATH:
			render_path(r, out, n);
			break;
		case PQ_VALUE:
			render_value(r, out, n->wire);
			break;
		case PQ_MISSING:
			pql_invalid("MISSING is not a value here");
		case PQ_CMP:
			st_pql_render(r, out, n->args[0]);
			appendStringInfo(out, " %s ", n->op);
			st_pql_render(r, out, n->args[1]);
			break;
		case PQ_BETWEEN:
			st_pql_render(r, out, n->args[0]);
			appendStringInfoString(out, " BETWEEN ");
			st_pql_render(r, out, n->args[1]);
			appendStringInfoString(out, " AND ");
			st_pql_render(r, out, n->args[2]);
			break;
		case PQ_IN:
			st_pql_render(r, out, n->args[0]);
			appendStringInfoString(out, " IN (");
			for (int i = 1; i < n->nargs; i++)
			{
				if (i > 1)
					appendStringInfoString(out, ", ");
				st_pql_render(r, out, n->args[i]);
			}
			appendStringInfoChar(out, ')');
			break;
		case PQ_AND:
		case PQ_OR:
			appendStringInfoChar(out, '(');
			st_pql_render(r, out, n->args[0]);
			appendStringInfoString(out, n->kind == PQ_AND ? ") AND (" : ") OR (");
			st_pql_render(r, out, n->args[1]);
			appendStringInfoChar(out, ')');
			break;
		case PQ_NOT:
			appendStringInfoString(out, "NOT (");
			st_pql_render(r, out, n->args[0]);
			appendStringInfoChar(out, ')');
			break;
		case PQ_IS:
			if (n->args[0]->kind != PQ_PATH)
				pql_invalid("IS MISSING and IS NULL apply to an attribute");
			if (!n->is_null)
			{
				appendStringInfoString(out, n->negated ? "attribute_exists(" : "attribute_not_exists(");
				st_pql_render(r, out, n->args[0]);
				appendStringInfoChar(out, ')');
			}
			else
			{
				/* IS NULL: of the NULL type; IS NOT NULL: anything else, MISSING too */
				appendStringInfoString(out, n->negated ? "NOT attribute_type(" : "attribute_type(");
				st_pql_render(r, out, n->args[0]);
				appendStringInfoString(out, ", ");
				render_value(r, out, "{\"S\": \"NULL\"}");
				appendStringInfoChar(out, ')');
			}
			break;
		case PQ_FUNC:
			appendStringInfo(out, "%s(", n->name);
			for (int i = 0; i < n->nargs; i++)
			{
				if (i > 0)
					appendStringInfoString(out, ", ");
				st_pql_render(r, out, n->args[i]);
			}
			appendStringInfoChar(out, ')');
			break;
		case PQ_PLUS:
		case PQ_MINUS:
			st_pql_render(r, out, n->args[0]);
			appendStringInfoString(out, n->kind == PQ_PLUS ? " + " : " - ");
			st_pql_render(r, out, n->args[1]);
			break;
	}
}

void
st_pql_render_update(StPqlRender *r, StringInfo out, const StPqlStatement *s)
{
	static const char *const clauses[] = {"SET", "REMOVE", "ADD", "DELETE"};

	for (int c = 0; c < 4; c++)
	{
		bool		first = true;

		for (int i = 0; i < s->nactions; i++)
		{
			const StPqlAction *a = &s->actions[i];
			int			clause;

			ST_CHECK_INTERRUPTS();
			if (a->remove)
				clause = 1;
			else if (a->value->kind == PQ_FUNC && strcmp(a->value->name, "set_add") == 0)
				clause = 2;
			else if (a->value->kind == PQ_FUNC && strcmp(a->value->name, "set_delete") == 0)
				clause = 3;
			else
				clause = 0;
			if (clause != c)
				continue;
			appendStringInfoString(out, first ? (out->len ? " " : "") : ", ");
			if (first)
				appendStringInfo(out, "%s ", clauses[c]);
			first = false;
			st_pql_render(r, out, a->path);
			if (clause == 0)
			{
				appendStringInfoString(out, " = ");
				st_pql_render(r, out, a->value);
			}
			else if (clause >= 2)
			{
				/* set_add(a, <<...>>): ADD #a :v (the first argument is the path itself) */
				appendStringInfoChar(out, ' ');
				st_pql_render(r, out, a->value->args[1]);
			}
		}
	}
}

const char *
st_pql_top_name(const StPqlNode *n)
{
	if (n->kind != PQ_PATH || n->npath != 1 || n->path[0].is_index)
		return NULL;
	return n->path[0].name;
}
