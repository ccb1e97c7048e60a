/*
 * fuzz_expr.c — libFuzzer harness for the expression engine (src/expr/),
 * built outside the server with -DST_FRONTEND (see README.md).
 *
 * Input: the first byte chooses the mode, the rest is the text.
 *   'c' condition, 'f' filter (parsed as a Scan's, then as a Query's),
 *   'u' update, 'p' projection, 'n' number;
 *   any other byte b: mode b % 5 in that order.
 * The text is copied into a NUL-terminated buffer (so it ends at the first
 * NUL byte, as a C string from the server would), parsed against a fixed
 * set of placeholders, then evaluated against three fixed items.
 *
 * Errors the engine reports through st_expr_error() are expected outcomes:
 * they siglongjmp back to the step that was running. Each step says which
 * kinds of error it may raise; any other kind is a finding and aborts (for
 * instance, evaluating a condition that parsed must never fail).
 *
 * Besides the sanitizers, the harness checks these invariants:
 *   - results are well-formed values (sets sorted, unique, not empty; map
 *     keys unique; numbers canonical);
 *   - the fixed items and placeholder values are never modified (compared
 *     with copies built independently; chunks of them are never pfree'd or
 *     repalloc'd);
 *   - a condition gives the same result on the item reduced to the
 *     top-level names st_expr_collect_top_names() reports (what the
 *     extension relies on to convert only those attributes);
 *   - an update gives the same result (or fails alike) with its actions
 *     written in reverse order, and never changes the key attributes;
 *   - a Query's filter that parsed reads no key attribute;
 *   - messages are valid UTF-8 when the expression is;
 *   - number parsing round-trips and arithmetic is exact and consistent.
 *
 * Memory: in a frontend build palloc is malloc and the engine frees almost
 * nothing, so the harness provides palloc and friends itself (they take
 * precedence over libpgcommon's fe_memutils.o, which is then not linked):
 * every chunk allocated while an input runs is freed when it ends (so the
 * process does not grow, and use after the end of an input is caught). The
 * chunk headers are poisoned for AddressSanitizer. The engine itself frees
 * nothing, as in the server, where memory contexts do: leak detection has
 * nothing to find there, and the documented commands turn it off
 * (-detect_leaks=0).
 */
#include "st_base.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <sanitizer/asan_interface.h>

#include "lib/stringinfo.h"

#include "expr.h"
#include "partiql.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fatal(const char *fmt,...) pg_attribute_printf(1, 2) pg_attribute_noreturn();

static void
fatal(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	fprintf(stderr, "fuzz_expr: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

/* ------------------------------------------------------------------ memory */

typedef struct Chunk
{
	struct Chunk *prev;
	struct Chunk *next;
	size_t		size;
	bool		permanent;		/* fixed items and values: never freed */
} Chunk;

/* the user data follows the header at a 16-byte boundary */
#define CHUNK_HDR	(((sizeof(Chunk)) + 15) & ~(size_t) 15)
#define CHUNK_OF(p)	((Chunk *) ((char *) (p) - CHUNK_HDR))
#define DATA_OF(c)	((void *) ((char *) (c) + CHUNK_HDR))

/* MaxAllocSize of the backend (utils/memutils.h, not available here) */
#define MAX_ALLOC_SIZE ((Size) 0x3fffffff)

static Chunk *chunks;			/* this input's chunks */
static bool permanent_mode;		/* set while building the fixed values */

static void
hdr_open(Chunk *c)
{
	if (c)
		ASAN_UNPOISON_MEMORY_REGION(c, CHUNK_HDR);
}

static void
hdr_close(Chunk *c)
{
	if (c)
		ASAN_POISON_MEMORY_REGION(c, CHUNK_HDR);
}

static void
chunk_link(Chunk *c)
{
	c->prev = NULL;
	c->next = chunks;
	if (chunks)
	{
		hdr_open(chunks);
		chunks->prev = c;
		hdr_close(chunks);
	}
	chunks = c;
}

/* c is open; its neighbours are closed */
static void
chunk_unlink(Chunk *c)
{
	if (c->prev)
	{
		hdr_open(c->prev);
		c->prev->next = c->next;
		hdr_close(c->prev);
	}
	else
		chunks = c->next;
	if (c->next)
	{
		hdr_open(c->next);
		c->next->prev = c->prev;
		hdr_close(c->next);
	}
}

static void *
chunk_alloc(Size size, bool zero)
{
	Chunk	   *c;

	/* the backend raises "invalid memory alloc request size": a finding */
	if (size > MAX_ALLOC_SIZE)
		fatal("palloc of %zu bytes", (size_t) size);
	c = malloc(CHUNK_HDR + size);
	if (c == NULL)
		fatal("out of memory");
	c->size = size;
	c->permanent = permanent_mode;
	if (permanent_mode)
		c->prev = c->next = NULL;
	else
		chunk_link(c);
	hdr_close(c);
	if (zero)
		memset(DATA_OF(c), 0, size);
	return DATA_OF(c);
}

void *
palloc(Size size)
{
	return chunk_alloc(size, false);
}

void *
palloc0(Size size)
{
	return chunk_alloc(size, true);
}

void *
palloc_extended(Size size, int flags)
{
	return chunk_alloc(size, (flags & MCXT_ALLOC_ZERO) != 0);
}

void
pfree(void *pointer)
{
	Chunk	   *c = CHUNK_OF(pointer);

	hdr_open(c);
	if (c->permanent)
	{
		if (!permanent_mode)
			fatal("pfree of a fixed item or value");
		free(c);
		return;
	}
	chunk_unlink(c);
	free(c);
}

void *
repalloc(void *pointer, Size size)
{
	Chunk	   *c = CHUNK_OF(pointer);
	Chunk	   *n;

	if (size > MAX_ALLOC_SIZE)
		fatal("repalloc of %zu bytes", (size_t) size);
	hdr_open(c);
	if (c->permanent && !permanent_mode)
		fatal("repalloc of a fixed item or value");
	if (!c->permanent)
		chunk_unlink(c);
	n = realloc(c, CHUNK_HDR + size);
	if (n == NULL)
		fatal("out of memory");
	n->size = size;
	if (!n->permanent)
		chunk_link(n);
	hdr_close(n);
	return DATA_OF(n);
}

char *
pstrdup(const char *in)
{
	size_t		len = strlen(in);
	char	   *r = palloc(len + 1);

	memcpy(r, in, len + 1);
	return r;
}

char *
pnstrdup(const char *in, Size size)
{
	size_t		len = strnlen(in, size);
	char	   *r = palloc(len + 1);

	memcpy(r, in, len);
	r[len] = '\0';
	return r;
}

/* Frees every chunk of the input that ended. */
static void
free_chunks(void)
{
	while (chunks)
	{
		Chunk	   *c = chunks;

		hdr_open(c);
		chunks = c->next;
		free(c);
	}
}

/* ------------------------------------------------------------------ errors */

#define KIND(k)		(1 << (k))
#define PARSE_ERRORS (KIND(ST_ERR_SYNTAX) | KIND(ST_ERR_VALIDATION) | KIND(ST_ERR_LIMIT))
/* an update may fail on an item: invalid for it, or arithmetic out of range */
#define APPLY_ERRORS (KIND(ST_ERR_RUNTIME) | KIND(ST_ERR_NUMBER_RANGE))

static sigjmp_buf jmp;
static bool armed;				/* a step is running: jmp is valid */
static int	allowed_kinds;		/* the kinds of error it may raise */
static const char *step_name;
static bool check_utf8;			/* the input text is valid UTF-8 */
static bool verbose;			/* FUZZ_EXPR_VERBOSE set: print what happens */

static bool
utf8_valid(const char *s, size_t len)
{
	size_t		i = 0;

	while (i < len)
	{
		unsigned char c = (unsigned char) s[i];
		int			n;
		uint32_t	cp;

		if (c < 0x80)
		{
			i++;
			continue;
		}
		else if ((c & 0xE0) == 0xC0)
			n = 1, cp = c & 0x1F;
		else if ((c & 0xF0) == 0xE0)
			n = 2, cp = c & 0x0F;
		else if ((c & 0xF8) == 0xF0)
			n = 3, cp = c & 0x07;
		else
			return false;
		for (int k = 1; k <= n; k++)
		{
			if (i + k >= len || ((unsigned char) s[i + k] & 0xC0) != 0x80)
				return false;
			cp = (cp << 6) | ((unsigned char) s[i + k] & 0x3F);
		}
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
			cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return false;
		i += n + 1;
	}
	return true;
}

void
st_expr_error(StExprErrorKind kind, const char *detail, const char *fmt,...)
{
	StringInfoData buf;

	if (!armed)
		fatal("st_expr_error outside a step");
	if (kind < ST_ERR_SYNTAX || kind > ST_ERR_NUMBER_RANGE)
		fatal("st_expr_error with kind %d", (int) kind);

	/* format the message as the extension does, to check its arguments */
	initStringInfo(&buf);
	for (;;)
	{
		va_list		ap;
		int			needed;

		va_start(ap, fmt);
		needed = appendStringInfoVA(&buf, fmt, ap);
		va_end(ap);
		if (needed == 0)
			break;
		enlargeStringInfo(&buf, needed);
	}
	if (buf.len == 0)
		fatal("%s: empty error message", step_name);
	if (!(allowed_kinds & KIND(kind)))
		fatal("%s raised an unexpected error of kind %d: %s (%s)", step_name, (int) kind, buf.data,
			  detail ? detail : "no detail");
	if (check_utf8 && !utf8_valid(buf.data, buf.len))
		fatal("%s: message is not valid UTF-8: %s", step_name, buf.data);
	if (detail && check_utf8 && !utf8_valid(detail, strlen(detail)))
		fatal("%s: detail is not valid UTF-8: %s", step_name, detail);
	if (verbose)
		fprintf(stderr, "  %s: error %d: %s\n", step_name, (int) kind, buf.data);
	armed = false;
	siglongjmp(jmp, 1);
}

/*
 * Runs fn(arg) as one step; true when it returned, false when it raised an
 * error of one of the kinds in allowed (other kinds abort).
 */
static bool
attempt(const char *name, int allowed, void (*fn) (void *), void *arg)
{
	step_name = name;
	allowed_kinds = allowed;
	if (sigsetjmp(jmp, 0) != 0)
		return false;
	armed = true;
	fn(arg);
	armed = false;
	return true;
}

/* ------------------------------------------------------------ fixed values */

static StVal *
mk_s(const char *s)
{
	return st_val_make_str(SV_S, s, strlen(s));
}

static StVal *
mk_b(const char *s, int len)
{
	return st_val_make_str(SV_B, s, len);
}

/* a number, stored in canonical form as the extension does */
static StVal *
mk_n(const char *s)
{
	StNumber	num;

	if (st_number_parse(s, strlen(s), &num) != ST_NUM_OK)
		fatal("bad fixed number %s", s);
	return st_val_make_str(SV_N, num.canonical, strlen(num.canonical));
}

static StVal *
mk_bool(bool b)
{
	StVal	   *v = palloc0(sizeof(StVal));

	v->type = SV_BOOL;
	v->u.boolean = b;
	return v;
}

static StVal *
mk_null(void)
{
	StVal	   *v = palloc0(sizeof(StVal));

	v->type = SV_NULL;
	return v;
}

/* a list (or, with a set type, a set) of n values */
static StVal *
mk_list(StValType t, int n,...)
{
	StVal	   *v = palloc0(sizeof(StVal));
	va_list		ap;

	v->type = t;
	v->u.list.n = n;
	v->u.list.elems = palloc(sizeof(StVal *) * Max(n, 1));
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		v->u.list.elems[i] = va_arg(ap, StVal *);
	va_end(ap);
	if (st_val_is_set(t))
		st_val_set_normalize(v, "fixed");
	return v;
}

/* a map of n (key, value) pairs */
static StVal *
mk_map(int n,...)
{
	StVal	   *v = st_val_make_map(n);
	va_list		ap;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
	{
		const char *k = va_arg(ap, const char *);

		st_val_map_put(v, k, strlen(k), va_arg(ap, StVal *));
	}
	va_end(ap);
	return v;
}

#define NITEMS 3
#define NVALUES 13

typedef struct Fixed
{
	StVal	   *items[NITEMS];
	StVal	   *values[NVALUES];
} Fixed;

static const char *const value_keys[NVALUES] = {
	":s", ":n", ":z", ":b", ":l", ":m", ":ss", ":ns", ":t", ":bool", ":null", ":e", ":le"
};

static const char *const name_keys[] = {"#a", "#b", "#n", "#v"};
static const char *const name_values[] = {"a", "b", "n.x", "v"};

#define NNAMES lengthof(name_keys)

#define NINES38 "99999999999999999999999999999999999999"

static void
build_fixed(Fixed *f)
{
	/* a rich item: nested maps and lists, every type, an empty map and list */
	f->items[0] = mk_map(21,
						 "pk", mk_s("p1"),
						 "sk", mk_s("s#1"),
						 "a", mk_map(3,
									 "b", mk_list(SV_L, 4,
												  mk_n("1"),
												  mk_s("x"),
												  mk_map(2, "c", mk_n("-2.5"), "d", mk_list(SV_L, 0)),
												  mk_list(SV_L, 2, mk_n("0"), mk_bool(false))),
									 "c", mk_bool(true),
									 "n.x", mk_s("dotted")),
						 "b", mk_list(SV_L, 5, mk_s("abc"), mk_n("1.5"), mk_b("\0\377", 2), mk_null(),
									  mk_map(0)),
						 "c", mk_list(SV_L, 3, mk_s("c0"), mk_s("c1"), mk_s("c2")),
						 "d", mk_map(1, "a", mk_map(1, "b", mk_map(1, "c", mk_s("deep")))),
						 "e", mk_map(0),
						 "l", mk_list(SV_L, 0),
						 "n.x", mk_n("1.5"),
						 "s", mk_s("abcdef"),
						 "ss", mk_list(SV_SS, 3, mk_s("c"), mk_s("a"), mk_s("b")),
						 "ns", mk_list(SV_NS, 3, mk_n("2.5"), mk_n("1"), mk_n("-3")),
						 "bs", mk_list(SV_BS, 2, mk_b("\2\3", 2), mk_b("\1", 1)),
						 "t", mk_s("N"),
						 "v", mk_n(NINES38),
						 "x", mk_n("-1E-130"),
						 "y", mk_n("9.9999999999999999999999999999999999999E+125"),
						 "z", mk_s(""),
						 "bool", mk_bool(true),
						 "null", mk_null(),
						 "m", mk_map(6, "k1", mk_n("1"), "k2", mk_n("2"), "k3", mk_n("3"),
									 "k4", mk_n("4"), "k5", mk_n("5"), "k6", mk_list(SV_L, 1, mk_n("6"))));
	/* a sparse item */
	f->items[1] = mk_map(7,
						 "pk", mk_s("p2"),
						 "sk", mk_s("s#2"),
						 "a", mk_n("1"),
						 "b", mk_s("abc"),
						 "c", mk_list(SV_L, 3, mk_n("1"), mk_n("2"), mk_n("3")),
						 "s", mk_list(SV_SS, 1, mk_s("abc")),
						 "ns", mk_list(SV_NS, 1, mk_n("1")));
	/* no item: an empty map */
	f->items[2] = mk_map(0);

	f->values[0] = mk_s("abc");
	f->values[1] = mk_n("1.5");
	f->values[2] = mk_n(NINES38);
	f->values[3] = mk_b("\0\001\376", 3);
	f->values[4] = mk_list(SV_L, 2, mk_s("x"), mk_s("y"));
	f->values[5] = mk_map(2, "a", mk_s("abc"), "b", mk_n("1.5"));
	f->values[6] = mk_list(SV_SS, 2, mk_s("b"), mk_s("a"));
	f->values[7] = mk_list(SV_NS, 2, mk_n("2"), mk_n("1"));
	f->values[8] = mk_s("N");
	f->values[9] = mk_bool(true);
	f->values[10] = mk_null();
	f->values[11] = mk_s("");
	f->values[12] = mk_list(SV_L, 0);
}

static Fixed fixed;				/* what the engine works on */
static Fixed pristine;			/* the same, built separately, never used */
static StExprEnv env;

static void
build_fixed_step(void *arg)
{
	build_fixed((Fixed *) arg);
}

static void
init(void)
{
	permanent_mode = true;
	if (!attempt("build", 0, build_fixed_step, &fixed) ||
		!attempt("build", 0, build_fixed_step, &pristine))
		fatal("cannot build the fixed values");

	env.nnames = NNAMES;
	env.name_keys = (const char **) name_keys;
	env.name_values = (const char **) name_values;
	env.name_lens = palloc(sizeof(int) * NNAMES);
	env.name_used = palloc0(sizeof(bool) * NNAMES);
	for (int i = 0; i < (int) NNAMES; i++)
		env.name_lens[i] = strlen(name_values[i]);
	env.nvalues = NVALUES;
	env.value_keys = (const char **) value_keys;
	env.values = (const StVal **) fixed.values;
	env.value_used = palloc0(sizeof(bool) * NVALUES);
	env.key_names[0] = "pk";
	env.key_names[1] = "sk";
	permanent_mode = false;
}

/* ---------------------------------------------------------------- checks */

/* Aborts unless v is a well-formed value. */
static void
check_val(const StVal *v, int depth)
{
	if (v == NULL)
		fatal("%s: NULL value", step_name);
	if (depth > 200)
		fatal("%s: value nested more than 200 levels", step_name);
	switch (v->type)
	{
		case SV_S:
		case SV_B:
			if (v->u.str.len < 0 || (v->u.str.len > 0 && v->u.str.data == NULL))
				fatal("%s: bad string", step_name);
			break;
		case SV_N:
			{
				StNumber	num;

				if (st_number_parse(v->u.str.data, v->u.str.len, &num) != ST_NUM_OK ||
					(int) strlen(num.canonical) != v->u.str.len ||
					memcmp(num.canonical, v->u.str.data, v->u.str.len) != 0)
					fatal("%s: number \"%.*s\" is not canonical", step_name, v->u.str.len, v->u.str.data);
				break;
			}
		case SV_BOOL:
		case SV_NULL:
			break;
		case SV_SS:
		case SV_NS:
		case SV_BS:
			{
				StValType et = v->type == SV_SS ? SV_S : v->type == SV_NS ? SV_N : SV_B;

				if (v->u.list.n < 1)
					fatal("%s: empty set", step_name);
				for (int i = 0; i < v->u.list.n; i++)
				{
					check_val(v->u.list.elems[i], depth + 1);
					if (v->u.list.elems[i]->type != et)
						fatal("%s: set of type %s holds a %s", step_name, st_val_type_name(v->type),
							  st_val_type_name(v->u.list.elems[i]->type));
					if (i > 0 && st_val_compare(v->u.list.elems[i - 1], v->u.list.elems[i]) >= 0)
						fatal("%s: set not sorted or with duplicates", step_name);
				}
				break;
			}
		case SV_L:
			if (v->u.list.n < 0 || (v->u.list.n > 0 && v->u.list.elems == NULL))
				fatal("%s: bad list", step_name);
			for (int i = 0; i < v->u.list.n; i++)
				check_val(v->u.list.elems[i], depth + 1);
			break;
		case SV_M:
			if (v->u.map.n < 0 || v->u.map.entries == NULL)
				fatal("%s: bad map", step_name);
			for (int i = 0; i < v->u.map.n; i++)
			{
				const StMapEntry *e = &v->u.map.entries[i];

				check_val(e->val, depth + 1);
				for (int j = 0; j < i; j++)
					if (v->u.map.entries[j].keylen == e->keylen &&
						memcmp(v->u.map.entries[j].key, e->key, e->keylen) == 0)
						fatal("%s: duplicate map key \"%.*s\"", step_name, e->keylen, e->key);
			}
			break;
		default:
			fatal("%s: value of type %d", step_name, (int) v->type);
	}
}

/* Appends v in a compact notation, for FUZZ_EXPR_VERBOSE. */
static void
print_val(StringInfo buf, const StVal *v)
{
	switch (v->type)
	{
		case SV_S:
			appendStringInfo(buf, "\"%.*s\"", v->u.str.len, v->u.str.data);
			break;
		case SV_N:
			appendBinaryStringInfo(buf, v->u.str.data, v->u.str.len);
			break;
		case SV_B:
			appendStringInfoString(buf, "b'");
			for (int i = 0; i < v->u.str.len; i++)
				appendStringInfo(buf, "%02x", (unsigned char) v->u.str.data[i]);
			appendStringInfoChar(buf, '\'');
			break;
		case SV_BOOL:
			appendStringInfoString(buf, v->u.boolean ? "true" : "false");
			break;
		case SV_NULL:
			appendStringInfoString(buf, "null");
			break;
		case SV_L:
		case SV_SS:
		case SV_NS:
		case SV_BS:
			appendStringInfoString(buf, v->type == SV_L ? "[" : "<<");
			for (int i = 0; i < v->u.list.n; i++)
			{
				if (i > 0)
					appendStringInfoString(buf, ", ");
				print_val(buf, v->u.list.elems[i]);
			}
			appendStringInfoString(buf, v->type == SV_L ? "]" : ">>");
			break;
		case SV_M:
			appendStringInfoChar(buf, '{');
			for (int i = 0; i < v->u.map.n; i++)
			{
				appendStringInfo(buf, "%s%.*s: ", i > 0 ? ", " : "",
								 v->u.map.entries[i].keylen, v->u.map.entries[i].key);
				print_val(buf, v->u.map.entries[i].val);
			}
			appendStringInfoChar(buf, '}');
			break;
	}
}

static void
print_result(const char *what, int item, const StVal *v)
{
	StringInfoData buf;

	initStringInfo(&buf);
	print_val(&buf, v);
	fprintf(stderr, "  item %d: %s %s\n", item, what, buf.data);
}

/* ------------------------------------------------------------ conditions */

typedef struct CondCtx
{
	const char *expr;
	StExprKind	kind;
	StNode	   *node;
	int			item;
	bool		result;
	StVal	   *reduced;
} CondCtx;

static void
parse_condition_step(void *arg)
{
	CondCtx    *c = arg;

	c->node = st_parse_condition(c->expr, c->kind, &env);
}

static void
eval_condition_step(void *arg)
{
	CondCtx    *c = arg;

	c->result = st_eval_condition(c->node, fixed.items[c->item]);
}

/* the item reduced to the top-level names the condition reads */
static void
reduce_step(void *arg)
{
	CondCtx    *c = arg;
	const char **names = NULL;
	int		   *lens = NULL;
	int			n = 0,
				cap = 0;
	const StVal *item = fixed.items[c->item];

	st_expr_collect_top_names(c->node, &names, &lens, &n, &cap);
	c->reduced = st_val_make_map(n);
	for (int i = 0; i < n; i++)
	{
		StVal	   *v = st_val_map_get(item, names[i], lens[i]);

		if (v)
			st_val_map_put(c->reduced, names[i], lens[i], v);
	}
}

static void
eval_reduced_step(void *arg)
{
	CondCtx    *c = arg;

	c->result = st_eval_condition(c->node, c->reduced);
}

/* A Query's filter must not read a key attribute: the parser rejects it. */
static void
check_query_filter_step(void *arg)
{
	CondCtx    *c = arg;
	const char **names = NULL;
	int		   *lens = NULL;
	int			n = 0,
				cap = 0;

	st_expr_collect_top_names(c->node, &names, &lens, &n, &cap);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < 2; k++)
			if (lens[i] == (int) strlen(env.key_names[k]) &&
				memcmp(names[i], env.key_names[k], lens[i]) == 0)
				fatal("a query filter that reads key attribute %s parsed", env.key_names[k]);
}

static void
check_unused_step(void *arg)
{
	st_expr_check_unused(&env);
}

static void
run_condition(const char *expr, StExprKind kind)
{
	CondCtx		c;

	memset(&c, 0, sizeof(c));
	c.expr = expr;
	c.kind = kind;
	if (!attempt("parse condition", PARSE_ERRORS, parse_condition_step, &c))
		return;
	if (c.node == NULL)
		fatal("parse condition returned NULL");
	if (kind == SE_QUERY_FILTER)
		attempt("check query filter", 0, check_query_filter_step, &c);
	for (c.item = 0; c.item < NITEMS; c.item++)
	{
		bool		full;

		attempt("eval condition", 0, eval_condition_step, &c);
		full = c.result;
		attempt("collect top names", 0, reduce_step, &c);
		attempt("eval condition on reduced item", 0, eval_reduced_step, &c);
		if (c.result != full)
			fatal("condition gives %d on item %d but %d on its top-level names", full, c.item, c.result);
		if (verbose)
			fprintf(stderr, "  item %d: %s\n", c.item, full ? "true" : "false");
	}
	attempt("check unused", KIND(ST_ERR_VALIDATION), check_unused_step, NULL);
}

/* --------------------------------------------------------------- updates */

typedef struct UpdCtx
{
	const char *expr;
	StUpdate   *upd;
	StUpdate   *reversed;		/* the same actions, written in reverse order */
	int			item;
	StVal	   *result;
	StVal	   *result2;
} UpdCtx;

static void
parse_update_step(void *arg)
{
	UpdCtx	   *u = arg;

	u->upd = st_parse_update(u->expr, &env);
}

static void
apply_update_step(void *arg)
{
	UpdCtx	   *u = arg;

	u->result = st_apply_update(u->upd, fixed.items[u->item]);
}

/*
 * An update applies as if to a snapshot of the item: the order in which its
 * actions are written does not matter.
 */
static void
apply_reversed_step(void *arg)
{
	UpdCtx	   *u = arg;

	u->result2 = st_apply_update(u->reversed, fixed.items[u->item]);
}

static void
check_update_result_step(void *arg)
{
	UpdCtx	   *u = arg;
	const StVal *old = fixed.items[u->item];
	StProjection *paths = st_update_paths(u->upd);
	int64		size;

	check_val(u->result, 0);
	if (u->result->type != SV_M)
		fatal("update result is not a map");
	size = st_val_size(u->result);
	if (size < 3)
		fatal("update result has size " INT64_FORMAT, size);
	for (int k = 0; k < 2; k++)
	{
		const char *key = env.key_names[k];
		StVal	   *a = st_val_map_get(old, key, strlen(key));
		StVal	   *b = st_val_map_get(u->result, key, strlen(key));

		if ((a == NULL) != (b == NULL) || (a && !st_val_equal(a, b)))
			fatal("update changed key attribute %s", key);
	}
	/* ReturnValues UPDATED_NEW and UPDATED_OLD */
	check_val(st_project(paths, u->result), 0);
	check_val(st_project(paths, old), 0);
}

static void
run_update(const char *expr)
{
	UpdCtx		u;

	memset(&u, 0, sizeof(u));
	u.expr = expr;
	if (!attempt("parse update", PARSE_ERRORS, parse_update_step, &u))
		return;
	if (u.upd == NULL || u.upd->n < 1)
		fatal("parse update returned no actions");
	u.reversed = palloc(sizeof(StUpdate));
	u.reversed->n = u.upd->n;
	u.reversed->actions = palloc(sizeof(StUpdateAction) * u.upd->n);
	for (int i = 0; i < u.upd->n; i++)
		u.reversed->actions[i] = u.upd->actions[u.upd->n - 1 - i];
	for (u.item = 0; u.item < NITEMS; u.item++)
	{
		bool		ok = attempt("apply update", APPLY_ERRORS, apply_update_step, &u);
		bool		ok2 = attempt("apply update in reverse", APPLY_ERRORS, apply_reversed_step, &u);

		if (ok != ok2)
			fatal("update %s on item %d but %s with its actions in reverse order",
				  ok ? "succeeds" : "fails", u.item, ok2 ? "succeeds" : "fails");
		if (!ok)
			continue;
		if (!st_val_equal(u.result, u.result2))
			fatal("update gives another item with its actions in reverse order (item %d)", u.item);
		attempt("check update result", 0, check_update_result_step, &u);
		if (verbose)
			print_result("updated to", u.item, u.result);
	}
	attempt("check unused", KIND(ST_ERR_VALIDATION), check_unused_step, NULL);
}

/* ----------------------------------------------------------- projections */

typedef struct ProjCtx
{
	const char *expr;
	StProjection *proj;
} ProjCtx;

static void
parse_projection_step(void *arg)
{
	ProjCtx    *p = arg;

	p->proj = st_parse_projection(p->expr, &env);
}

static void
project_step(void *arg)
{
	ProjCtx    *p = arg;

	for (int i = 0; i < NITEMS; i++)
	{
		StVal	   *r = st_project(p->proj, fixed.items[i]);

		check_val(r, 0);
		if (r->type != SV_M)
			fatal("projection is not a map");
		if (verbose)
			print_result("projected to", i, r);
		if (st_val_size(r) > st_val_size(fixed.items[i]))
			fatal("projection is larger than the item");
	}
}

static void
run_projection(const char *expr)
{
	ProjCtx		p;

	memset(&p, 0, sizeof(p));
	p.expr = expr;
	if (!attempt("parse projection", PARSE_ERRORS, parse_projection_step, &p))
		return;
	if (p.proj == NULL || p.proj->n < 1)
		fatal("parse projection returned no paths");
	attempt("project", 0, project_step, &p);
	attempt("check unused", KIND(ST_ERR_VALIDATION), check_unused_step, NULL);
}

/* --------------------------------------------------------------- PartiQL */

typedef struct PqlCtx
{
	const char *text;
	StPqlStatement *s;
} PqlCtx;

static void
parse_pql_step(void *arg)
{
	PqlCtx	   *p = arg;
	static char *params[] = {"{\"S\": \"p\"}", "{\"N\": \"1\"}"};
	static char types[] = {'S', 'N'};
	int			n = 0;

	/* as many parameters as the text has ? marks, up to two */
	for (const char *c = p->text; *c && n < 2; c++)
		n += *c == '?';
	p->s = st_pql_parse(p->text, strlen(p->text), params, types, n);
}

static void
render_pql_step(void *arg)
{
	PqlCtx	   *p = arg;
	StPqlRender r;
	StringInfoData out;

	st_pql_render_init(&r);
	initStringInfo(&out);
	if (p->s->where)
		st_pql_render(&r, &out, p->s->where);
	if (p->s->kind == PQL_UPDATE)
		st_pql_render_update(&r, &out, p->s);
	for (int i = 0; i < p->s->nproj; i++)
		st_pql_render(&r, &out, p->s->proj[i]);
	if (check_utf8 && !utf8_valid(out.data, out.len))
		fatal("rendered PartiQL is not valid UTF-8");
}

static void
run_partiql(const char *text)
{
	PqlCtx		p;

	memset(&p, 0, sizeof(p));
	p.text = text;
	if (!attempt("parse PartiQL", PARSE_ERRORS, parse_pql_step, &p))
		return;
	if (p.s == NULL || p.s->table == NULL)
		fatal("PartiQL parse returned no statement");
	attempt("render PartiQL", KIND(ST_ERR_VALIDATION), render_pql_step, &p);
}

/* --------------------------------------------------------------- numbers */

typedef struct NumCtx
{
	const char *text;
	int			len;
} NumCtx;

static int
sign(int c)
{
	return (c > 0) - (c < 0);
}

/* Parses a result of the engine again: it must be canonical already. */
static void
check_canonical(const StNumber *n, const char *what)
{
	StNumber	again;
	int			len = strlen(n->canonical);

	if (st_number_parse(n->canonical, len, &again) != ST_NUM_OK ||
		strcmp(again.canonical, n->canonical) != 0 || again.size != n->size)
		fatal("%s: \"%s\" does not parse back to itself", what, n->canonical);
	if (n->size < 1 || n->size > 40)
		fatal("%s: \"%s\" has size %d", what, n->canonical, n->size);
}

static void
number_step(void *arg)
{
	NumCtx	   *c = arg;
	static const char *const others[] = {"0", "1.5", "-1", NINES38, "-99999999999999999999999999999999999999",
		"0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
	"-9.9999999999999999999999999999999999999E125", "123456789012345678.9"};
	StNumber	x;
	StNumber	r;
	StNumberError err;
	const char *xs;
	int			xl;
	int			size = -1;

	err = st_number_parse(c->text, c->len, &x);
	if (err < ST_NUM_OK || err > ST_NUM_UNDERFLOW)
		fatal("st_number_parse returned %d", (int) err);
	/* the size alone (src/format/size.c sizes stored numbers with it) is the same, or the same error */
	if (st_number_size(c->text, c->len, &size) != err || (err == ST_NUM_OK && size != x.size))
		fatal("st_number_size of \"%.*s\" disagrees with st_number_parse", c->len, c->text);
	if (err != ST_NUM_OK)
	{
		if (st_number_error_text(err)[0] == '\0')
			fatal("no text for number error %d", (int) err);
		return;
	}
	check_canonical(&x, "parse");
	xs = x.canonical;
	xl = strlen(xs);
	if (st_number_compare(xs, xl, c->text, c->len) != 0)
		fatal("\"%s\" does not compare equal to its input", xs);
	if (st_number_add(xs, xl, "0", 1, false, &r) != ST_NUM_OK || strcmp(r.canonical, xs) != 0)
		fatal("\"%s\" + 0 is not itself", xs);
	if (st_number_add(xs, xl, xs, xl, true, &r) != ST_NUM_OK || strcmp(r.canonical, "0") != 0)
		fatal("\"%s\" - itself is not 0", xs);
	for (int i = 0; i < (int) lengthof(others); i++)
	{
		const char *o = others[i];
		int			ol = strlen(o);
		int			c1 = st_number_compare(xs, xl, o, ol);
		int			c2 = st_number_compare(o, ol, xs, xl);
		StNumber	r2;
		StNumberError e1,
					e2;

		if (sign(c1) != -sign(c2))
			fatal("compare(%s, %s) = %d but compare back = %d", xs, o, c1, c2);
		e1 = st_number_add(xs, xl, o, ol, false, &r);
		e2 = st_number_add(o, ol, xs, xl, false, &r2);
		if (e1 != e2 || (e1 == ST_NUM_OK && strcmp(r.canonical, r2.canonical) != 0))
			fatal("%s + %s is not commutative", xs, o);
		if (e1 == ST_NUM_OK)
		{
			int			osign = sign(st_number_compare(o, ol, "0", 1));

			check_canonical(&r, "add");
			if (sign(st_number_compare(r.canonical, strlen(r.canonical), xs, xl)) != osign)
				fatal("%s + %s = %s is not on the right side of %s", xs, o, r.canonical, xs);
		}
		e1 = st_number_add(xs, xl, o, ol, true, &r);
		if (e1 == ST_NUM_OK)
		{
			check_canonical(&r, "subtract");
			/* (x - o) + o == x */
			if (st_number_add(r.canonical, strlen(r.canonical), o, ol, false, &r2) == ST_NUM_OK &&
				strcmp(r2.canonical, xs) != 0)
				fatal("(%s - %s) + %s = %s", xs, o, o, r2.canonical);
		}
	}
}

static void
run_number(const char *text, int len)
{
	NumCtx		c;

	c.text = text;
	c.len = len;
	attempt("number", 0, number_step, &c);
}

/* ------------------------------------------------------------- the entry */

static void
check_fixed_step(void *arg)
{
	for (int i = 0; i < NITEMS; i++)
		if (!st_val_equal(fixed.items[i], pristine.items[i]))
			fatal("fixed item %d was modified", i);
	for (int i = 0; i < NVALUES; i++)
		if (!st_val_equal(fixed.values[i], pristine.values[i]))
			fatal("value %s was modified", value_keys[i]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool initialized = false;
	char	   *text;
	int			mode;
	size_t		len;

	if (!initialized)
	{
		verbose = getenv("FUZZ_EXPR_VERBOSE") != NULL;
		init();
		initialized = true;
	}
	if (size < 1)
		return 0;
	switch (data[0])
	{
		case 'c':
			mode = 0;
			break;
		case 'f':
			mode = 1;
			break;
		case 'u':
			mode = 2;
			break;
		case 'p':
			mode = 3;
			break;
		case 'n':
			mode = 4;
			break;
		case 'q':
			/* PartiQL: only by its letter, so the other inputs keep their modes */
			mode = 5;
			break;
		default:
			mode = data[0] % 5;
			break;
	}
	len = size - 1;
	text = malloc(len + 1);
	memcpy(text, data + 1, len);
	text[len] = '\0';
	check_utf8 = utf8_valid(text, strlen(text));
	if (verbose)
		fprintf(stderr, "mode %d: %.200s\n", mode, text);

	memset(env.name_used, 0, sizeof(bool) * env.nnames);
	memset(env.value_used, 0, sizeof(bool) * env.nvalues);

	switch (mode)
	{
		case 0:
			run_condition(text, SE_CONDITION);
			break;
		case 1:
			/* a Scan's filter, then a Query's (which must not read the keys) */
			run_condition(text, SE_FILTER);
			memset(env.name_used, 0, sizeof(bool) * env.nnames);
			memset(env.value_used, 0, sizeof(bool) * env.nvalues);
			run_condition(text, SE_QUERY_FILTER);
			break;
		case 2:
			run_update(text);
			break;
		case 3:
			run_projection(text);
			break;
		case 4:
			/* the whole rest, NUL bytes included */
			run_number(text, (int) len);
			break;
		case 5:
			run_partiql(text);
			break;
	}
	attempt("check fixed values", 0, check_fixed_step, NULL);
	free_chunks();
	free(text);
	return 0;
}
