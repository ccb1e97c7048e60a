/*
 * parser.c — lexer and recursive-descent parser for DynamoDB's condition
 * (and filter), update and projection expressions.
 *
 * The parser resolves #name and :value placeholders against the call's
 * StExprEnv while it builds the tree, and performs every check DynamoDB
 * makes before reading an item (operand types of literals, distinct
 * operands, overlapping update paths, limits), so evaluation never has to
 * re-examine the syntax. Positions in messages are 1-based byte offsets.
 */
#include "st_base.h"

#include "lib/stringinfo.h"

#include "expr.h"

typedef enum TokKind
{
	T_END,
	T_NAME,						/* bare attribute name, keyword or function */
	T_NAMEPH,					/* #name */
	T_VALUEPH,					/* :value */
	T_INT,						/* digits, inside [] */
	T_LPAREN,
	T_RPAREN,
	T_LBRACKET,
	T_RBRACKET,
	T_COMMA,
	T_DOT,
	T_EQ,
	T_NE,
	T_LT,
	T_LE,
	T_GT,
	T_GE,
	T_PLUS,
	T_MINUS,
	T_BAD						/* a character no token starts with */
} TokKind;

typedef struct Token
{
	TokKind		kind;
	int			pos;			/* byte offset */
	const char *text;
	int			len;
} Token;

typedef struct Parser
{
	const char *expr;
	int			len;
	StExprKind	kind;
	StExprEnv  *env;
	Token		tok;			/* current token */
	int			next;			/* offset after the current token */
	int			prev_pos;		/* the token before tok: its offset (-1: none) */
	int			prev_end;		/* and the offset after it */
	int			operators;
	int			depth;
} Parser;

/*
 * Nesting of parentheses and NOT. An expression DynamoDB accepts nests at
 * most twice its operators: each NOT is an operator, and a parenthesised
 * group holds an operator of its own (else DynamoDB refuses it as
 * redundant) or is an operand's. So every accepted expression parses; a
 * deeper one, which DynamoDB refuses for its operators or parentheses, is
 * refused here before it costs more stack (each level is a few frames;
 * enter() checks the stack too).
 */
#define MAX_PARSE_DEPTH (2 * ST_MAX_OPERATORS + 2)

const char *
st_expr_kind_name(StExprKind kind)
{
	switch (kind)
	{
		case SE_CONDITION:
			return "ConditionExpression";
		case SE_FILTER:
		case SE_QUERY_FILTER:
			return "FilterExpression";
		case SE_UPDATE:
			return "UpdateExpression";
		case SE_PROJECTION:
			return "ProjectionExpression";
		case SE_KEY_CONDITION:
			return "KeyConditionExpression";
	}
	return "expression";
}

static const char *
kind_label(StExprKind kind)
{
	switch (kind)
	{
		case SE_CONDITION:
			return "condition";
		case SE_FILTER:
		case SE_QUERY_FILTER:
			return "filter";
		case SE_UPDATE:
			return "update";
		case SE_PROJECTION:
			return "projection";
		case SE_KEY_CONDITION:
			return "key condition";
	}
	return "";
}

static void syntax_error(Parser *p) pg_attribute_noreturn();
static int	skip_space(const Parser *p, int i);
static TokKind scan_token(const Parser *p, int i, int *len);
static void invalid(Parser *p, int pos, const char *dynamo, const char *msg) pg_attribute_noreturn();

/* A syntax error at the current token, with DynamoDB's detail text. */
static void
syntax_error(Parser *p)
{
	const char *tok = p->tok.kind == T_END ? "<EOF>" : pnstrdup(p->tok.text, p->tok.len);
	int			from = p->prev_pos >= 0 ? p->prev_pos : p->tok.pos;
	int			to;
	char	   *near;

	/*
	 * DynamoDB's near text: the expression from the token before the
	 * offending one to the end of the token after it
	 */
	if (p->tok.kind == T_END)
		to = p->prev_pos >= 0 ? p->prev_end : p->tok.pos;
	else
	{
		int			i = p->tok.pos + p->tok.len;
		int			len;

		to = i;
		i = skip_space(p, i);
		if (i < p->len)
		{
			(void) scan_token(p, i, &len);
			to = i + len;
		}
	}
	near = pnstrdup(p->expr + from, to - from);

	st_expr_error(ST_ERR_SYNTAX,
				  psprintf("Invalid %s: Syntax error; token: \"%s\", near: \"%s\"",
						   st_expr_kind_name(p->kind), tok, near),
				  "syntax error in %s expression at position %d: unexpected %s%s%s",
				  kind_label(p->kind), p->tok.pos + 1,
				  p->tok.kind == T_END ? "end of expression" : "token \"",
				  p->tok.kind == T_END ? "" : tok,
				  p->tok.kind == T_END ? "" : "\"");
}

/* A validation error about the expression (well-formed, but not allowed). */
static void
invalid(Parser *p, int pos, const char *dynamo, const char *msg)
{
	st_expr_error(ST_ERR_VALIDATION,
				  psprintf("Invalid %s: %s", st_expr_kind_name(p->kind), dynamo),
				  "invalid %s expression at position %d: %s", kind_label(p->kind), pos + 1, msg);
}

static bool
is_name_start(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static bool
is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9') || c == '_';
}

/* The offset of the first character at or after i that is not white space */
static int
skip_space(const Parser *p, int i)
{
	const char *s = p->expr;

	while (i < p->len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/*
 * The kind and length (*len) of the token at offset i (< p->len, not white
 * space), without judging it: T_BAD for a character no token starts with
 * (its length a whole UTF-8 character), a placeholder of any length.
 */
static TokKind
scan_token(const Parser *p, int i, int *len)
{
	const char *s = p->expr;
	int			j = i + 1;

	*len = 1;
	switch (s[i])
	{
		case '(':
			return T_LPAREN;
		case ')':
			return T_RPAREN;
		case '[':
			return T_LBRACKET;
		case ']':
			return T_RBRACKET;
		case ',':
			return T_COMMA;
		case '.':
			return T_DOT;
		case '=':
			return T_EQ;
		case '+':
			return T_PLUS;
		case '-':
			return T_MINUS;
		case '<':
			if (j < p->len && (s[j] == '>' || s[j] == '='))
			{
				*len = 2;
				return s[j] == '>' ? T_NE : T_LE;
			}
			return T_LT;
		case '>':
			if (j < p->len && s[j] == '=')
			{
				*len = 2;
				return T_GE;
			}
			return T_GT;
		case '#':
		case ':':
			while (j < p->len && is_name_char(s[j]))
				j++;
			*len = j - i;
			return s[i] == '#' ? T_NAMEPH : T_VALUEPH;
		default:
			if (is_name_start(s[i]))
			{
				while (j < p->len && is_name_char(s[j]))
					j++;
				*len = j - i;
				return T_NAME;
			}
			if (s[i] >= '0' && s[i] <= '9')
			{
				while (j < p->len && s[j] >= '0' && s[j] <= '9')
					j++;
				*len = j - i;
				return T_INT;
			}
			/* one UTF-8 character, for the message */
			while (j < p->len && ((unsigned char) s[j] & 0xC0) == 0x80)
				j++;
			*len = j - i;
			return T_BAD;
	}
}

/* Reads the next token into p->tok. */
static void
advance(Parser *p)
{
	int			i = skip_space(p, p->next);

	if (p->tok.text != NULL)
	{
		p->prev_pos = p->tok.pos;
		p->prev_end = p->tok.pos + p->tok.len;
	}
	else
		p->prev_pos = -1;
	p->tok.pos = i;
	p->tok.text = p->expr + i;
	if (i >= p->len)
	{
		p->tok.kind = T_END;
		p->tok.len = 0;
		p->next = i;
		return;
	}
	p->tok.kind = scan_token(p, i, &p->tok.len);
	p->next = i + p->tok.len;
	if (p->tok.kind == T_BAD)
	{
		p->tok.kind = T_NAME;	/* any kind but T_END, for the message */
		syntax_error(p);
	}
	if ((p->tok.kind == T_NAMEPH || p->tok.kind == T_VALUEPH) && p->tok.len == 1)
		syntax_error(p);
	if ((p->tok.kind == T_NAMEPH || p->tok.kind == T_VALUEPH) && p->tok.len > ST_MAX_PLACEHOLDER_BYTES)
		st_expr_error(ST_ERR_LIMIT, NULL,
					  "placeholder at position %d of %s expression is %d bytes, more than the limit of %d",
					  i + 1, kind_label(p->kind), p->tok.len, ST_MAX_PLACEHOLDER_BYTES);
}

static bool
tok_is_keyword(Parser *p, const char *kw)
{
	return p->tok.kind == T_NAME && (int) strlen(kw) == p->tok.len &&
		pg_strncasecmp(p->tok.text, kw, p->tok.len) == 0;
}

static bool
tok_is_function(Parser *p, const char *fn)
{
	return p->tok.kind == T_NAME && (int) strlen(fn) == p->tok.len &&
		strncmp(p->tok.text, fn, p->tok.len) == 0;
}

static void
expect(Parser *p, TokKind kind)
{
	if (p->tok.kind != kind)
		syntax_error(p);
	advance(p);
}

static void
count_operator(Parser *p)
{
	if (++p->operators > ST_MAX_OPERATORS)
		st_expr_error(ST_ERR_LIMIT,
					  psprintf("Invalid %s: The expression contains too many operators; operator count: %d",
							   st_expr_kind_name(p->kind), p->operators),
					  "%s expression has more than %d operators", kind_label(p->kind), ST_MAX_OPERATORS);
}

static void
enter(Parser *p)
{
	ST_CHECK_STACK_DEPTH();
	if (++p->depth > MAX_PARSE_DEPTH)
		st_expr_error(ST_ERR_LIMIT, NULL,
					  "%s expression is nested more than %d levels deep at position %d",
					  kind_label(p->kind), MAX_PARSE_DEPTH, p->tok.pos + 1);
}

static StNode *
new_node(StNodeKind kind, int pos, int nargs)
{
	StNode	   *n = palloc0(sizeof(StNode));

	n->kind = kind;
	n->pos = pos;
	n->nargs = nargs;
	if (nargs > 0)
		n->args = palloc0(sizeof(StNode *) * nargs);
	return n;
}

/* Resolves the #name placeholder of the current token. */
static void
resolve_name(Parser *p, StPathElem *el)
{
	StExprEnv  *env = p->env;

	for (int i = 0; i < env->nnames; i++)
	{
		if ((int) strlen(env->name_keys[i]) == p->tok.len &&
			memcmp(env->name_keys[i], p->tok.text, p->tok.len) == 0)
		{
			env->name_used[i] = true;
			el->name = env->name_values[i];
			el->namelen = env->name_lens[i];
			return;
		}
	}
	st_expr_error(ST_ERR_VALIDATION,
				  psprintf("Invalid %s: An expression attribute name used in the document path is not defined; attribute name: %.*s",
						   st_expr_kind_name(p->kind), p->tok.len, p->tok.text),
				  "%s expression uses %.*s at position %d, which names does not define",
				  kind_label(p->kind), p->tok.len, p->tok.text, p->tok.pos + 1);
}

/* The key attribute that path starts with, or NULL. */
static const char *
path_key(Parser *p, const StPath *path)
{
	for (int k = 0; k < ST_EXPR_MAX_KEYS; k++)
	{
		const char *key = p->env->key_names[k];

		if (key && !path->elems[0].is_index && path->elems[0].namelen == (int) strlen(key) &&
			memcmp(path->elems[0].name, key, path->elems[0].namelen) == 0)
			return key;
	}
	return NULL;
}

/*
 * Key attributes are scalars, so DynamoDB rejects any path that goes into
 * one (pk.x, sk[0]) in every kind of expression. Its message has no
 * "Invalid ...Expression:" prefix. A query's filter reports any use of a key
 * instead (check_query_filter), as DynamoDB does.
 */
static void
check_key_path(Parser *p, const StPath *path)
{
	const char *key;

	if (path->n < 2 || p->kind == SE_QUERY_FILTER || p->kind == SE_KEY_CONDITION ||
		(key = path_key(p, path)) == NULL)
		return;
	st_expr_error(ST_ERR_VALIDATION,
				  psprintf("Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: %s", key),
				  "invalid %s expression at position %d: key attribute \"%s\" is a scalar; it has no nested paths",
				  kind_label(p->kind), path->pos + 1, key);
}

/* Parses a document path: name ( .name | [index] )* */
static StPath *
parse_path(Parser *p)
{
	StPath	   *path = palloc0(sizeof(StPath));
	int			cap = 4;

	path->pos = p->tok.pos;
	path->elems = palloc0(sizeof(StPathElem) * cap);
	for (;;)
	{
		StPathElem *el;

		if (path->n == cap)
		{
			cap *= 2;
			path->elems = repalloc(path->elems, sizeof(StPathElem) * cap);
		}
		el = &path->elems[path->n];
		memset(el, 0, sizeof(StPathElem));	/* repalloc'd elements are not zeroed */
		if (path->n == 0 || p->tok.kind == T_DOT)
		{
			if (path->n > 0)
				advance(p);		/* the dot */
			if (p->tok.kind == T_NAME)
			{
				if (st_is_reserved_word(p->tok.text, p->tok.len))
					st_expr_error(ST_ERR_VALIDATION,
								  psprintf("Invalid %s: Attribute name is a reserved keyword; reserved keyword: %.*s",
										   st_expr_kind_name(p->kind), p->tok.len, p->tok.text),
								  "attribute name \"%.*s\" at position %d of %s expression is a reserved word",
								  p->tok.len, p->tok.text, p->tok.pos + 1, kind_label(p->kind));
				el->name = p->tok.text;
				el->namelen = p->tok.len;
			}
			else if (p->tok.kind == T_NAMEPH)
				resolve_name(p, el);
			else
				syntax_error(p);
			advance(p);
		}
		else if (p->tok.kind == T_LBRACKET)
		{
			long		idx = 0;

			advance(p);
			if (p->tok.kind != T_INT)
				syntax_error(p);
			for (int i = 0; i < p->tok.len; i++)
			{
				idx = idx * 10 + (p->tok.text[i] - '0');
				if (idx > PG_INT32_MAX)
					invalid(p, p->tok.pos, "List index is too large", "list index is too large");
			}
			el->is_index = true;
			el->index = (int) idx;
			advance(p);
			expect(p, T_RBRACKET);
		}
		else
			break;
		path->n++;
		if (path->n > ST_MAX_DEPTH)
			st_expr_error(ST_ERR_LIMIT,
						  "Nesting Levels have exceeded supported limits",
						  "document path at position %d of %s expression is more than %d levels deep",
						  path->pos + 1, kind_label(p->kind), ST_MAX_DEPTH);
	}
	check_key_path(p, path);
	return path;
}

/* Resolves the :value placeholder of the current token into a node. */
static StNode *
parse_value(Parser *p)
{
	StExprEnv  *env = p->env;
	StNode	   *n = new_node(SN_VALUE, p->tok.pos, 0);

	for (int i = 0; i < env->nvalues; i++)
	{
		if ((int) strlen(env->value_keys[i]) == p->tok.len &&
			memcmp(env->value_keys[i], p->tok.text, p->tok.len) == 0)
		{
			env->value_used[i] = true;
			n->value = env->values[i];
			n->value_name = env->value_keys[i];
			advance(p);
			return n;
		}
	}
	st_expr_error(ST_ERR_VALIDATION,
				  psprintf("Invalid %s: An expression attribute value used in expression is not defined; attribute value: %.*s",
						   st_expr_kind_name(p->kind), p->tok.len, p->tok.text),
				  "%s expression uses %.*s at position %d, which vals does not define",
				  kind_label(p->kind), p->tok.len, p->tok.text, p->tok.pos + 1);
	return NULL;
}

static StNode *
path_node(Parser *p)
{
	StNode	   *n = new_node(SN_PATH, p->tok.pos, 0);

	n->path = parse_path(p);
	return n;
}

static bool
path_equal(const StPath *a, const StPath *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
	{
		const StPathElem *x = &a->elems[i],
				   *y = &b->elems[i];

		if (x->is_index != y->is_index)
			return false;
		if (x->is_index ? x->index != y->index
			: (x->namelen != y->namelen || memcmp(x->name, y->name, x->namelen) != 0))
			return false;
	}
	return true;
}

/* DynamoDB rejects a path repeated among the operands of one operator. */
static void
check_distinct(Parser *p, StNode *n, const char *opname)
{
	if (n->nargs < 2 || n->args[0]->kind != SN_PATH)
		return;
	for (int i = 1; i < n->nargs; i++)
		if (n->args[i]->kind == SN_PATH && path_equal(n->args[0]->path, n->args[i]->path))
		{
			char	   *ps = st_path_to_string(n->args[0]->path);

			invalid(p, n->pos,
					psprintf("The first operand must be distinct from the remaining operands for this operator or function; operator: %s, first operand: [%s]",
							 opname, ps),
					psprintf("operand %s of %s is repeated", ps, opname));
		}
}

static const char *
literal_type(StNode *n)
{
	return st_val_type_name(n->value->type);
}

/* Rejects a literal that cannot be ordered (<, <=, >, >=, BETWEEN). */
static void
check_orderable_literal(Parser *p, StNode *n, const char *opname)
{
	if (n->kind == SN_VALUE && !st_val_orderable(n->value))
		invalid(p, n->pos,
				psprintf("Incorrect operand type for operator or function; operator or function: %s, operand type: %s",
						 opname, literal_type(n)),
				psprintf("%s cannot compare a value of type %s (%s)", opname, literal_type(n), n->value_name));
}

static StNode *parse_or(Parser *p);
static StNode *parse_operand(Parser *p, bool in_update);
static StNode *parse_set_value(Parser *p);
static void wrong_operand_count(Parser *p, int pos, const char *fn, int given) pg_attribute_noreturn();

/*
 * fn (at pos) called with other than its number of operands: given were
 * read, and the current token is a comma (more follow: counted to the
 * call's closing parenthesis) or the closing parenthesis. DynamoDB's
 * message.
 */
static void
wrong_operand_count(Parser *p, int pos, const char *fn, int given)
{
	int			count = given;

	if (p->tok.kind == T_COMMA)
	{
		int			depth = 0;

		count++;
		advance(p);
		while (p->tok.kind != T_END && !(depth == 0 && p->tok.kind == T_RPAREN))
		{
			if (p->tok.kind == T_LPAREN)
				depth++;
			else if (p->tok.kind == T_RPAREN)
				depth--;
			else if (p->tok.kind == T_COMMA && depth == 0)
				count++;
			advance(p);
		}
	}
	invalid(p, pos,
			psprintf("Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d",
					 fn, count),
			psprintf("%s takes a different number of arguments than %d", fn, count));
}

/* list_append as an operand of a function: DynamoDB allows it only as a whole SET value */
static void
check_not_list_append(Parser *p, StNode *arg)
{
	if (arg->kind == SN_LIST_APPEND)
		invalid(p, arg->pos,
				"The function is not allowed to be used this way in an expression; function: list_append",
				"list_append cannot be an operand of another function");
}

/* size(operand), an operand that yields a number */
static StNode *
parse_size(Parser *p)
{
	StNode	   *n = new_node(SN_SIZE, p->tok.pos, 1);
	StNode	   *arg;

	count_operator(p);
	advance(p);
	expect(p, T_LPAREN);
	if (p->tok.kind == T_NAME && p->next < p->len && p->expr[p->next] == '(')
		invalid(p, p->tok.pos, "KeyConditionExpressions cannot contain nested operations",
				"size() takes a path or a value, not a function");
	if (p->tok.kind != T_VALUEPH && p->tok.kind != T_NAME && p->tok.kind != T_NAMEPH &&
		p->tok.kind != T_LPAREN)
		syntax_error(p);
	/* a path, a :value, or either in parentheses */
	arg = parse_operand(p, false);
	if (arg->kind != SN_PATH && arg->kind != SN_VALUE)
		invalid(p, arg->pos, "KeyConditionExpressions cannot contain nested operations",
				"size() takes a path or a value, not a function");
	if (p->tok.kind == T_COMMA)
		wrong_operand_count(p, n->pos, "size", 1);
	n->args[0] = arg;
	if (arg->kind == SN_VALUE)
	{
		switch (arg->value->type)
		{
			case SV_N:
			case SV_BOOL:
			case SV_NULL:
				invalid(p, arg->pos,
						psprintf("Incorrect operand type for operator or function; operator or function: size, operand type: %s",
								 literal_type(arg)),
						psprintf("size() of a value of type %s", literal_type(arg)));
			default:
				break;
		}
	}
	expect(p, T_RPAREN);
	return n;
}

/* The function names DynamoDB knows, for "Invalid function name". */
static bool
known_function(Parser *p)
{
	static const char *const fns[] = {"attribute_exists", "attribute_not_exists", "attribute_type",
	"begins_with", "contains", "size", "if_not_exists", "list_append"};

	for (int i = 0; i < (int) lengthof(fns); i++)
		if (tok_is_function(p, fns[i]))
			return true;
	return false;
}

static void
unknown_function(Parser *p)
{
	invalid(p, p->tok.pos,
			psprintf("Invalid function name; function: %.*s", p->tok.len, p->tok.text),
			psprintf("unknown function \"%.*s\"", p->tok.len, p->tok.text));
}

static void
misplaced_function(Parser *p, int pos, const char *fn)
{
	invalid(p, pos,
			psprintf("The function is not allowed to be used this way in an expression; function: %s", fn),
			psprintf("function %s cannot be used here", fn));
}

/* Whether the current token is a name directly followed by "(" (a call). */
static bool
at_call(Parser *p)
{
	int			i = p->next;

	if (p->tok.kind != T_NAME)
		return false;
	while (i < p->len && (p->expr[i] == ' ' || p->expr[i] == '\t' || p->expr[i] == '\n' || p->expr[i] == '\r'))
		i++;
	return i < p->len && p->expr[i] == '(';
}

/*
 * An operand: path, :value, size(...) in conditions; in updates also
 * if_not_exists(path, operand) and list_append(operand, operand).
 */
static StNode *
parse_operand(Parser *p, bool in_update)
{
	if (p->tok.kind == T_VALUEPH)
		return parse_value(p);
	if (p->tok.kind == T_LPAREN)
	{
		/* ( operand ), in an update ( value ): DynamoDB accepts one pair */
		int			pos = p->tok.pos;
		StNode	   *inner;

		advance(p);
		enter(p);
		inner = in_update ? parse_set_value(p) : parse_operand(p, false);
		p->depth--;
		expect(p, T_RPAREN);
		if (inner->parenthesized)
			invalid(p, pos, "The expression has redundant parentheses;", "redundant parentheses");
		inner->parenthesized = true;
		return inner;
	}
	if (at_call(p))
	{
		int			pos = p->tok.pos;

		if (!known_function(p))
			unknown_function(p);
		if (in_update && !tok_is_function(p, "if_not_exists") && !tok_is_function(p, "list_append"))
			invalid(p, pos,
					psprintf("The function is not allowed in an update expression; function: %.*s",
							 p->tok.len, p->tok.text),
					psprintf("function %.*s cannot be used in an update expression", p->tok.len, p->tok.text));
		if (!in_update && tok_is_function(p, "size"))
			return parse_size(p);
		if (in_update && tok_is_function(p, "if_not_exists"))
		{
			StNode	   *n = new_node(SN_IF_NOT_EXISTS, pos, 2);

			count_operator(p);
			advance(p);
			expect(p, T_LPAREN);
			if (p->tok.kind != T_NAME && p->tok.kind != T_NAMEPH)
				invalid(p, p->tok.pos,
						"Operator or function requires a document path; operator or function: if_not_exists",
						"the first argument of if_not_exists must be a document path");
			n->args[0] = path_node(p);
			if (p->tok.kind == T_RPAREN)
				wrong_operand_count(p, pos, "if_not_exists", 1);
			expect(p, T_COMMA);
			enter(p);
			n->args[1] = parse_operand(p, true);
			p->depth--;
			check_not_list_append(p, n->args[1]);
			if (p->tok.kind == T_COMMA)
				wrong_operand_count(p, pos, "if_not_exists", 2);
			expect(p, T_RPAREN);
			return n;
		}
		if (in_update && tok_is_function(p, "list_append"))
		{
			StNode	   *n = new_node(SN_LIST_APPEND, pos, 2);

			count_operator(p);
			advance(p);
			expect(p, T_LPAREN);
			enter(p);
			n->args[0] = parse_operand(p, true);
			check_not_list_append(p, n->args[0]);
			if (p->tok.kind == T_RPAREN)
				wrong_operand_count(p, pos, "list_append", 1);
			expect(p, T_COMMA);
			n->args[1] = parse_operand(p, true);
			check_not_list_append(p, n->args[1]);
			p->depth--;
			if (p->tok.kind == T_COMMA)
				wrong_operand_count(p, pos, "list_append", 2);
			expect(p, T_RPAREN);
			for (int i = 0; i < 2; i++)
				if (n->args[i]->kind == SN_VALUE && n->args[i]->value->type != SV_L)
					invalid(p, n->args[i]->pos,
							psprintf("Incorrect operand type for operator or function; operator or function: list_append, operand type: %s",
									 literal_type(n->args[i])),
							psprintf("list_append takes lists, %s is of type %s",
									 n->args[i]->value_name, literal_type(n->args[i])));
			return n;
		}
		misplaced_function(p, pos, pnstrdup(p->tok.text, p->tok.len));
	}
	if (p->tok.kind == T_NAME || p->tok.kind == T_NAMEPH)
		return path_node(p);
	syntax_error(p);
	return NULL;
}

static bool
tok_is_comparator(Parser *p, StCmpOp *op)
{
	switch (p->tok.kind)
	{
		case T_EQ:
			*op = SC_EQ;
			return true;
		case T_NE:
			*op = SC_NE;
			return true;
		case T_LT:
			*op = SC_LT;
			return true;
		case T_LE:
			*op = SC_LE;
			return true;
		case T_GT:
			*op = SC_GT;
			return true;
		case T_GE:
			*op = SC_GE;
			return true;
		default:
			return false;
	}
}

static const char *const cmp_names[] = {"=", "<>", "<", "<=", ">", ">="};

/* A boolean function call in a condition. */
static StNode *
parse_bool_function(Parser *p)
{
	int			pos = p->tok.pos;
	StNode	   *n;
	const char *fn;
	StNodeKind	kind;
	int			nargs;

	if (tok_is_function(p, "attribute_exists"))
		kind = SN_ATTRIBUTE_EXISTS, nargs = 1, fn = "attribute_exists";
	else if (tok_is_function(p, "attribute_not_exists"))
		kind = SN_ATTRIBUTE_NOT_EXISTS, nargs = 1, fn = "attribute_not_exists";
	else if (tok_is_function(p, "attribute_type"))
		kind = SN_ATTRIBUTE_TYPE, nargs = 2, fn = "attribute_type";
	else if (tok_is_function(p, "begins_with"))
		kind = SN_BEGINS_WITH, nargs = 2, fn = "begins_with";
	else if (tok_is_function(p, "contains"))
		kind = SN_CONTAINS, nargs = 2, fn = "contains";
	else
	{
		if (!known_function(p))
			unknown_function(p);
		misplaced_function(p, pos, pnstrdup(p->tok.text, p->tok.len));
		return NULL;
	}
	count_operator(p);
	n = new_node(kind, pos, nargs);
	advance(p);
	expect(p, T_LPAREN);
	for (int i = 0;; i++)
	{
		StNode	   *arg;

		/*
		 * The first operand is a path; begins_with and contains also take a
		 * :value there, as DynamoDB does. size(a) starts with a name too, but
		 * is not a path.
		 */
		int			argpos = p->tok.pos;

		if (i == 0 && p->tok.kind != T_LPAREN &&
			!(p->tok.kind == T_VALUEPH && (kind == SN_BEGINS_WITH || kind == SN_CONTAINS)) &&
			((p->tok.kind != T_NAME && p->tok.kind != T_NAMEPH) ||
			 (at_call(p) && tok_is_function(p, "size"))))
			invalid(p, p->tok.pos,
					psprintf("Operator or function requires a document path; operator or function: %s", fn),
					psprintf("the first argument of %s must be a document path", fn));
		arg = parse_operand(p, false);
		/* a parenthesised first operand: the same rule for what it holds */
		if (i == 0 && arg->parenthesized && arg->kind != SN_PATH &&
			!(arg->kind == SN_VALUE && (kind == SN_BEGINS_WITH || kind == SN_CONTAINS)))
			invalid(p, argpos,
					psprintf("Operator or function requires a document path; operator or function: %s", fn),
					psprintf("the first argument of %s must be a document path", fn));
		if (i < nargs)
			n->args[i] = arg;
		if (p->tok.kind == T_COMMA)
		{
			advance(p);
			if (i + 1 >= nargs)
			{
				/* count the rest for the message */
				int			count = i + 2;

				while (p->tok.kind != T_RPAREN && p->tok.kind != T_END)
				{
					if (p->tok.kind == T_COMMA)
						count++;
					advance(p);
				}
				invalid(p, pos,
						psprintf("Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", fn, count),
						psprintf("%s takes %d argument%s, not %d", fn, nargs, nargs > 1 ? "s" : "", count));
			}
			continue;
		}
		if (i + 1 != nargs)
			invalid(p, pos,
					psprintf("Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", fn, i + 1),
					psprintf("%s takes %d argument%s, not %d", fn, nargs, nargs > 1 ? "s" : "", i + 1));
		break;
	}
	expect(p, T_RPAREN);

	if (kind == SN_ATTRIBUTE_TYPE)
	{
		StNode	   *t = n->args[1];
		static const char *const types[] = {"S", "SS", "N", "NS", "B", "BS", "BOOL", "NULL", "L", "M"};
		bool		ok = false;

		if (t->kind != SN_VALUE)
			invalid(p, t->pos,
					"Incorrect operand type for operator or function; operator or function: attribute_type, operand type: document path",
					"the second argument of attribute_type must be a :value naming a type");
		if (t->value->type != SV_S)
			invalid(p, t->pos,
					psprintf("Incorrect operand type for operator or function; operator or function: attribute_type, operand type: %s",
							 literal_type(t)),
					psprintf("attribute_type takes a type name (S), %s is of type %s", t->value_name, literal_type(t)));
		for (int i = 0; i < (int) lengthof(types); i++)
			if ((int) strlen(types[i]) == t->value->u.str.len &&
				memcmp(types[i], t->value->u.str.data, t->value->u.str.len) == 0)
				ok = true;
		if (!ok)
			invalid(p, t->pos,
					psprintf("Invalid attribute type name found; type: %.*s, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}",
							 t->value->u.str.len, t->value->u.str.data),
					psprintf("unknown attribute type \"%.*s\"", t->value->u.str.len, t->value->u.str.data));
	}
	/* begins_with works on S and B: a literal of another type is an error (either operand) */
	for (int i = 0; kind == SN_BEGINS_WITH && i < 2; i++)
		if (n->args[i]->kind == SN_VALUE &&
			n->args[i]->value->type != SV_S && n->args[i]->value->type != SV_B)
			invalid(p, n->args[i]->pos,
					psprintf("Incorrect operand type for operator or function; operator or function: begins_with, operand type: %s",
							 literal_type(n->args[i])),
					psprintf("begins_with takes strings or binaries, %s is of type %s",
							 n->args[i]->value_name, literal_type(n->args[i])));
	if (kind == SN_BEGINS_WITH || kind == SN_CONTAINS)
		check_distinct(p, n, fn);
	return n;
}

/*
 * Whether the "(" at the current token opens a parenthesised operand, as in
 * "(size(b)) = :v", rather than a condition: what follows its closing
 * parenthesis is a comparator, BETWEEN or IN. A scan of the characters to
 * the closing parenthesis (names and placeholders hold no parentheses);
 * bounded by the nesting limit, each character is scanned at most once per
 * enclosing level.
 */
static bool
operand_in_parentheses(Parser *p)
{
	const char *s = p->expr;
	int			depth = 1;
	int			i = p->next;

	for (; i < p->len && depth > 0; i++)
	{
		if (s[i] == '(')
			depth++;
		else if (s[i] == ')')
			depth--;
	}
	if (depth > 0)
		return false;
	while (i < p->len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	if (i >= p->len)
		return false;
	if (s[i] == '=' || s[i] == '<' || s[i] == '>')
		return true;
	for (int k = 0; k < 2; k++)
	{
		const char *kw = k == 0 ? "BETWEEN" : "IN";
		int			n = strlen(kw);

		if (i + n <= p->len && pg_strncasecmp(s + i, kw, n) == 0 &&
			(i + n == p->len || !is_name_char(s[i + n])))
			return true;
	}
	return false;
}

/* comparison | BETWEEN | IN | boolean function | ( condition ) */
static StNode *
parse_predicate(Parser *p)
{
	StNode	   *left;
	StCmpOp		op;
	int			pos = p->tok.pos;

	if (p->tok.kind == T_LPAREN && !operand_in_parentheses(p))
	{
		StNode	   *inner;

		advance(p);
		enter(p);
		inner = parse_or(p);
		p->depth--;
		expect(p, T_RPAREN);
		/* ((x)): DynamoDB rejects parentheses around a parenthesised group */
		if (inner->parenthesized)
			invalid(p, pos, "The expression has redundant parentheses;", "redundant parentheses");
		inner->parenthesized = true;
		return inner;
	}
	if (at_call(p) && !tok_is_function(p, "size"))
		return parse_bool_function(p);

	left = parse_operand(p, false);
	if (tok_is_comparator(p, &op))
	{
		StNode	   *n = new_node(SN_CMP, p->tok.pos, 2);

		count_operator(p);
		n->op = op;
		advance(p);
		n->args[0] = left;
		n->args[1] = parse_operand(p, false);
		if (op != SC_EQ && op != SC_NE)
		{
			check_orderable_literal(p, n->args[0], cmp_names[op]);
			check_orderable_literal(p, n->args[1], cmp_names[op]);
		}
		check_distinct(p, n, cmp_names[op]);
		return n;
	}
	if (tok_is_keyword(p, "BETWEEN"))
	{
		StNode	   *n = new_node(SN_BETWEEN, p->tok.pos, 3);

		count_operator(p);
		advance(p);
		n->args[0] = left;
		n->args[1] = parse_operand(p, false);
		if (!tok_is_keyword(p, "AND"))
			syntax_error(p);
		advance(p);
		n->args[2] = parse_operand(p, false);
		for (int i = 0; i < 3; i++)
			check_orderable_literal(p, n->args[i], "BETWEEN");
		if (n->args[1]->kind == SN_VALUE && n->args[2]->kind == SN_VALUE)
		{
			const StVal *lo = n->args[1]->value,
					   *hi = n->args[2]->value;

			if (lo->type != hi->type)
				invalid(p, n->pos,
						"The BETWEEN operator requires same data type for lower and upper bounds",
						psprintf("BETWEEN bounds %s and %s are of different types", n->args[1]->value_name,
								 n->args[2]->value_name));
			if (st_val_compare(lo, hi) > 0)
				invalid(p, n->pos,
						"The BETWEEN operator requires upper bound to be greater than or equal to lower bound",
						psprintf("BETWEEN lower bound %s is greater than upper bound %s",
								 n->args[1]->value_name, n->args[2]->value_name));
		}
		check_distinct(p, n, "BETWEEN");
		return n;
	}
	if (tok_is_keyword(p, "IN"))
	{
		StNode	   *n = new_node(SN_IN, p->tok.pos, 0);
		int			cap = 8;

		count_operator(p);
		advance(p);
		expect(p, T_LPAREN);
		n->args = palloc(sizeof(StNode *) * cap);
		n->args[n->nargs++] = left;
		for (;;)
		{
			if (n->nargs == cap)
			{
				cap *= 2;
				n->args = repalloc(n->args, sizeof(StNode *) * cap);
			}
			n->args[n->nargs++] = parse_operand(p, false);
			if (n->nargs > ST_MAX_IN_OPERANDS)
				st_expr_error(ST_ERR_LIMIT,
							  psprintf("Invalid %s: The expression contains too many operands for the IN operator",
									   st_expr_kind_name(p->kind)),
							  "IN at position %d of %s expression has more than %d operands",
							  n->pos + 1, kind_label(p->kind), ST_MAX_IN_OPERANDS - 1);
			if (p->tok.kind != T_COMMA)
				break;
			advance(p);
		}
		expect(p, T_RPAREN);
		check_distinct(p, n, "IN");
		return n;
	}
	if (left->kind == SN_SIZE)
		misplaced_function(p, left->pos, "size");
	syntax_error(p);
	return NULL;
}

static StNode *
parse_not(Parser *p)
{
	if (tok_is_keyword(p, "NOT"))
	{
		StNode	   *n = new_node(SN_NOT, p->tok.pos, 1);

		count_operator(p);
		advance(p);
		enter(p);
		n->args[0] = parse_not(p);
		p->depth--;
		return n;
	}
	return parse_predicate(p);
}

static StNode *
parse_binary(Parser *p, const char *kw, StNodeKind kind, StNode *(*sub) (Parser *))
{
	StNode	   *left = sub(p);

	while (tok_is_keyword(p, kw))
	{
		StNode	   *n = new_node(kind, p->tok.pos, 2);

		count_operator(p);
		advance(p);
		n->args[0] = left;
		n->args[1] = sub(p);
		left = n;
	}
	return left;
}

static StNode *
parse_and(Parser *p)
{
	return parse_binary(p, "AND", SN_AND, parse_not);
}

static StNode *
parse_or(Parser *p)
{
	return parse_binary(p, "OR", SN_OR, parse_and);
}

/* Sets up a parser over expr; rejects empty and oversized expressions. */
static void
parser_init(Parser *p, const char *expr, StExprKind kind, StExprEnv *env)
{
	memset(p, 0, sizeof(*p));
	p->prev_pos = -1;
	p->expr = expr;
	p->len = strlen(expr);
	p->kind = kind;
	p->env = env;
	if (p->len > ST_MAX_EXPRESSION_BYTES)
		st_expr_error(ST_ERR_LIMIT,
					  psprintf("Invalid %s: Expression size has exceeded the maximum allowed size; expression size: %d",
							   st_expr_kind_name(kind), p->len),
					  "%s expression is %d bytes, more than the limit of %d bytes",
					  kind_label(kind), p->len, ST_MAX_EXPRESSION_BYTES);
	advance(p);
	if (p->tok.kind == T_END)
		st_expr_error(ST_ERR_VALIDATION,
					  psprintf("Invalid %s: The expression can not be empty;", st_expr_kind_name(kind)),
					  "%s expression is empty", kind_label(kind));
}

/* The first path in n (in the order written) that starts with key, or NULL. */
static const StPath *
find_key_use(Parser *p, const StNode *n, const char *key)
{
	if (n->kind == SN_PATH)
	{
		const char *k = path_key(p, n->path);

		return k && strcmp(k, key) == 0 ? n->path : NULL;
	}
	for (int i = 0; i < n->nargs; i++)
	{
		const StPath *found = find_key_use(p, n->args[i], key);

		if (found)
			return found;
	}
	return NULL;
}

/*
 * A query's filter must not read the key attributes, not even through a
 * nested path: DynamoDB wants them in the key condition. It names the
 * partition key first.
 */
static void
check_query_filter(Parser *p, const StNode *n)
{
	for (int k = 0; k < ST_EXPR_MAX_KEYS; k++)
	{
		const char *key = p->env->key_names[k];
		const StPath *path = key ? find_key_use(p, n, key) : NULL;

		if (path)
			st_expr_error(ST_ERR_VALIDATION,
						  psprintf("Filter Expression can only contain non-primary key attributes: Primary key attribute: %s", key),
						  "invalid filter expression at position %d: the filter of a query cannot use key attribute \"%s\"",
						  path->pos + 1, key);
	}
}

/* Parses a condition or filter expression. */
StNode *
st_parse_condition(const char *expr, StExprKind kind, StExprEnv *env)
{
	Parser		p;
	StNode	   *n;

	parser_init(&p, expr, kind, env);
	n = parse_or(&p);
	if (p.tok.kind != T_END)
		syntax_error(&p);
	if (kind == SE_QUERY_FILTER)
		check_query_filter(&p, n);
	return n;
}

/* Appends a path to buf in DynamoDB's message notation: a, b, [1] */
char *
st_path_to_string(const StPath *path)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < path->n; i++)
	{
		if (i > 0)
			appendStringInfoString(&buf, ", ");
		if (path->elems[i].is_index)
			appendStringInfo(&buf, "[%d]", path->elems[i].index);
		else
			appendBinaryStringInfo(&buf, path->elems[i].name, path->elems[i].namelen);
	}
	return buf.data;
}

/* Rejects two paths that overlap (one is a prefix of the other) or conflict. */
static void
check_paths(Parser *p, StPath **paths, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
		{
			StPath	   *a = paths[i],
					   *b = paths[j];
			int			common = Min(a->n, b->n);
			int			k;
			bool		diverge = false;

			for (k = 0; k < common; k++)
			{
				StPathElem *x = &a->elems[k],
						   *y = &b->elems[k];

				if (x->is_index != y->is_index)
					invalid(p, b->pos,
							psprintf("Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [%s], path two: [%s]",
									 st_path_to_string(a), st_path_to_string(b)),
							psprintf("paths [%s] and [%s] conflict", st_path_to_string(a), st_path_to_string(b)));
				if (x->is_index ? x->index != y->index
					: (x->namelen != y->namelen || memcmp(x->name, y->name, x->namelen) != 0))
				{
					diverge = true;
					break;
				}
			}
			if (!diverge)
				invalid(p, b->pos,
						psprintf("Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [%s], path two: [%s]",
								 st_path_to_string(a), st_path_to_string(b)),
						psprintf("paths [%s] and [%s] overlap", st_path_to_string(a), st_path_to_string(b)));
		}
}

/*
 * An update must not write a key attribute. (A path into one was rejected
 * by parse_path already.) DynamoDB's message has no "Invalid
 * UpdateExpression:" prefix.
 */
static void
check_not_key(Parser *p, StPath *path)
{
	const char *key = path_key(p, path);

	if (key)
		st_expr_error(ST_ERR_VALIDATION,
					  psprintf("One or more parameter values were invalid: Cannot update attribute %s. This attribute is part of the key", key),
					  "invalid update expression at position %d: key attribute \"%s\" cannot be updated",
					  path->pos + 1, key);
}

/* SET value: operand, or operand + operand, or operand - operand */
static StNode *
parse_set_value(Parser *p)
{
	StNode	   *left = parse_operand(p, true);

	if ((p->tok.kind == T_PLUS || p->tok.kind == T_MINUS) &&
		(left->kind == SN_PLUS || left->kind == SN_MINUS))
		syntax_error(p);		/* (a + b) + c, as DynamoDB */
	if (p->tok.kind == T_PLUS || p->tok.kind == T_MINUS)
	{
		StNode	   *n = new_node(p->tok.kind == T_PLUS ? SN_PLUS : SN_MINUS, p->tok.pos, 2);
		const char *opname = p->tok.kind == T_PLUS ? "+" : "-";

		count_operator(p);
		advance(p);
		n->args[0] = left;
		n->args[1] = parse_operand(p, true);
		for (int i = 0; i < 2; i++)
			if (n->args[i]->kind == SN_VALUE && n->args[i]->value->type != SV_N)
				invalid(p, n->args[i]->pos,
						psprintf("Incorrect operand type for operator or function; operator or function: %s, operand type: %s",
								 opname, literal_type(n->args[i])),
						psprintf("%s takes numbers, %s is of type %s", opname,
								 n->args[i]->value_name, literal_type(n->args[i])));
		return n;
	}
	return left;
}

/* Parses an update expression: SET, REMOVE, ADD, DELETE clauses, each at most once. */
StUpdate *
st_parse_update(const char *expr, StExprEnv *env)
{
	Parser		p;
	StUpdate   *u = palloc0(sizeof(StUpdate));
	int			cap = 8;
	bool		seen[4] = {false, false, false, false};
	static const char *const clause_names[] = {"SET", "REMOVE", "ADD", "DELETE"};
	StPath	  **paths;

	parser_init(&p, expr, SE_UPDATE, env);
	u->actions = palloc0(sizeof(StUpdateAction) * cap);
	while (p.tok.kind != T_END)
	{
		StUpdateKind kind;

		if (tok_is_keyword(&p, "SET"))
			kind = SU_SET;
		else if (tok_is_keyword(&p, "REMOVE"))
			kind = SU_REMOVE;
		else if (tok_is_keyword(&p, "ADD"))
			kind = SU_ADD;
		else if (tok_is_keyword(&p, "DELETE"))
			kind = SU_DELETE;
		else
			syntax_error(&p);
		if (seen[kind])
			invalid(&p, p.tok.pos,
					psprintf("The \"%s\" section can only be used once in an update expression;", clause_names[kind]),
					psprintf("the %s clause appears twice", clause_names[kind]));
		seen[kind] = true;
		advance(&p);
		for (;;)
		{
			StUpdateAction *a;

			if (u->n == cap)
			{
				cap *= 2;
				u->actions = repalloc(u->actions, sizeof(StUpdateAction) * cap);
			}
			a = &u->actions[u->n++];
			memset(a, 0, sizeof(StUpdateAction));	/* repalloc'd actions are not zeroed */
			a->kind = kind;
			if (p.tok.kind != T_NAME && p.tok.kind != T_NAMEPH)
				syntax_error(&p);
			a->path = parse_path(&p);
			check_not_key(&p, a->path);
			count_operator(&p);
			switch (kind)
			{
				case SU_SET:
					expect(&p, T_EQ);
					a->value = parse_set_value(&p);
					break;
				case SU_REMOVE:
					break;
				case SU_ADD:
				case SU_DELETE:
					if (p.tok.kind != T_VALUEPH)
						syntax_error(&p);
					a->value = parse_value(&p);
					if (kind == SU_ADD && a->value->value->type != SV_N && !st_val_is_set(a->value->value->type))
						invalid(&p, a->value->pos,
								psprintf("Incorrect operand type for operator or function; operator: ADD, operand type: %s",
										 a->value->value->type == SV_L ? "LIST" : literal_type(a->value)),
								psprintf("ADD takes a number or a set, %s is of type %s",
										 a->value->value_name, literal_type(a->value)));
					if (kind == SU_DELETE && !st_val_is_set(a->value->value->type))
						invalid(&p, a->value->pos,
								psprintf("Incorrect operand type for operator or function; operator: DELETE, operand type: %s",
										 literal_type(a->value)),
								psprintf("DELETE takes a set, %s is of type %s",
										 a->value->value_name, literal_type(a->value)));
					break;
			}
			if (p.tok.kind != T_COMMA)
				break;
			advance(&p);
		}
	}
	paths = palloc(sizeof(StPath *) * u->n);
	for (int i = 0; i < u->n; i++)
		paths[i] = u->actions[i].path;
	check_paths(&p, paths, u->n);
	return u;
}

/* Parses a projection expression: path {, path} */
StProjection *
st_parse_projection(const char *expr, StExprEnv *env)
{
	Parser		p;
	StProjection *proj = palloc0(sizeof(StProjection));
	int			cap = 8;

	parser_init(&p, expr, SE_PROJECTION, env);
	proj->paths = palloc(sizeof(StPath *) * cap);
	for (;;)
	{
		if (proj->n == cap)
		{
			cap *= 2;
			proj->paths = repalloc(proj->paths, sizeof(StPath *) * cap);
		}
		if (p.tok.kind != T_NAME && p.tok.kind != T_NAMEPH)
			syntax_error(&p);
		proj->paths[proj->n++] = parse_path(&p);
		if (p.tok.kind != T_COMMA)
			break;
		advance(&p);
	}
	if (p.tok.kind != T_END)
		syntax_error(&p);
	check_paths(&p, proj->paths, proj->n);
	return proj;
}

/* Reports placeholders defined in names/vals that no expression used. */
void
st_expr_check_unused(StExprEnv *env)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < env->nnames; i++)
		if (!env->name_used[i])
			appendStringInfo(&buf, "%s%s", buf.len ? ", " : "", env->name_keys[i]);
	if (buf.len)
		st_expr_error(ST_ERR_VALIDATION,
					  psprintf("Value provided in ExpressionAttributeNames unused in expressions: keys: {%s}", buf.data),
					  "names defines %s, which no expression uses", buf.data);
	for (int i = 0; i < env->nvalues; i++)
		if (!env->value_used[i])
			appendStringInfo(&buf, "%s%s", buf.len ? ", " : "", env->value_keys[i]);
	if (buf.len)
		st_expr_error(ST_ERR_VALIDATION,
					  psprintf("Value provided in ExpressionAttributeValues unused in expressions: keys: {%s}", buf.data),
					  "vals defines %s, which no expression uses", buf.data);
}
