/*
 * entity_keys.c — the typed fields of entity views (commands/entity_views.c)
 * as index ranges.
 *
 * A view's field column decodes a key with a template:
 *   singletable.key_field_int(pk, 'USER#{userId:int(6)}', 'userId')
 * (key_field_text, _int, _date, _timestamp, _uuid by the field's type). A
 * decoder is strict: NULL unless the key matches the template and the
 * field's text is the text st_field_encode writes for its value (no leading
 * zero of an int, a uuid in lower case; a timestamp in any accepted form).
 *
 * PostgreSQL cannot invert a decoder, so a WHERE on a decoded column would
 * read the whole entity. The set_rel_pathlist hook below looks, on every
 * base relation, for restriction clauses "decoder(key, tmpl, field) OP v"
 * with v constant during the scan (a Const, a bind parameter), derives
 * clauses on the key itself that the original implies for every row, adds
 * them to the relation's restrictions and builds its index paths again, so
 * that paths using them as index conditions compete with the others:
 *
 *   - equality on every field of the template, none a timestamp:
 *       key = singletable.key_compose(tmpl, v1, ..., vn)
 *   - on the first field of the template (after the literal prefix P):
 *       =        key >= key_field_bound(tmpl, field, 3, v)
 *                AND key < key_field_bound(tmpl, field, 4, v)
 *       >, >=    key >= key_field_bound(tmpl, field, 1, v)
 *       <, <=    key < key_field_bound(tmpl, field, 2, v)
 *     ranges only for types whose text order is their order (int(N), date,
 *     timestamp, uuid); for a string only the lower bound and equality.
 *   - a view column of a secondary index's field is
 *       CASE WHEN <the index's predicate> THEN decoder(...) END
 *     (NULL for an item outside the sparse index); a clause on it implies
 *     the predicate, which is added too, so the partial index is usable.
 *
 * With constants the bounds are folded at plan time; with a parameter they
 * are runtime index keys, evaluated once when the scan starts.
 *
 * The decoders have a support function that does nothing but is called by
 * the planner while it simplifies the query (before it builds paths): that
 * loads this library, and with it the hook, in a session that has not yet
 * called any singletable function and has no shared_preload_libraries.
 *
 * Design notes: the section on entity_keys.c in README.md of this folder.
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_opfamily_d.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "catalog/pg_am_d.h"
#include "fmgr.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/syscache.h"
#include "mb/pg_wchar.h"

#include "format/keys.h"
#include "format/template.h"
#include "planner/entity_keys.h"

PG_FUNCTION_INFO_V1(singletable_key_field);
PG_FUNCTION_INFO_V1(singletable_key_matches);
PG_FUNCTION_INFO_V1(singletable_key_compose);
PG_FUNCTION_INFO_V1(singletable_key_field_bound);
PG_FUNCTION_INFO_V1(singletable_key_field_support);

/* in begins_with.c */
extern Datum singletable_prefix_upper_bound_text(PG_FUNCTION_ARGS);

/* Bound kinds of key_field_bound */
#define BOUND_LOWER		1		/* key >= bound, for field > v and field >= v */
#define BOUND_UPPER		2		/* key < bound, for field < v and field <= v */
#define BOUND_EQ_LOWER	3		/* key >= bound, for field = v */
#define BOUND_EQ_UPPER	4		/* key < bound, for field = v */

/* A template parsed once per call site (fn_extra), with the field asked for */
typedef struct TemplateCache
{
	char	   *source;
	char	   *field;
	StTemplate *t;
	int			fidx;			/* the field's index, or -1 */
	const StTemplatePart *part;
} TemplateCache;

static TemplateCache *
template_cache(FunctionCallInfo fcinfo, text *tmpl, text *field)
{
	TemplateCache *c = (TemplateCache *) fcinfo->flinfo->fn_extra;
	char	   *src = text_to_cstring(tmpl);
	char	   *fname = field ? text_to_cstring(field) : NULL;
	MemoryContext old;

	if (c != NULL && strcmp(c->source, src) == 0 &&
		((fname == NULL && c->field == NULL) || (fname && c->field && strcmp(c->field, fname) == 0)))
		return c;
	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	c = palloc0(sizeof(TemplateCache));
	c->source = pstrdup(src);
	c->field = fname ? pstrdup(fname) : NULL;
	c->t = st_template_parse(src, "the key template");
	c->fidx = -1;
	if (fname)
	{
		c->fidx = st_template_field_index(c->t, fname);
		if (c->fidx < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("key template '%s' has no field \"%s\"", src, fname)));
		c->part = st_template_field(c->t, c->fidx);
	}
	MemoryContextSwitchTo(old);
	fcinfo->flinfo->fn_extra = c;
	return c;
}

/*
 * singletable.key_field_text/_int/_date/_timestamp/_uuid(key, template,
 * field): the field's value, or NULL when the key does not match the
 * template or the field's text is not the one its value is written with.
 */
Datum
singletable_key_field(PG_FUNCTION_ARGS)
{
	text	   *key = PG_GETARG_TEXT_PP(0);
	TemplateCache *c = template_cache(fcinfo, PG_GETARG_TEXT_PP(1), PG_GETARG_TEXT_PP(2));
	char	   *values[ST_TEMPLATE_MAX_FIELDS];
	Datum		result;
	Oid			rettype = get_func_rettype(fcinfo->flinfo->fn_oid);

	if (rettype != st_field_sql_type(c->part->type))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("field \"%s\" of key template '%s' is of type %s, not %s", c->field, c->source,
						st_field_type_text(c->part->type, c->part->width), format_type_be(rettype))));
	if (!st_template_match(c->t, VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key), values))
		PG_RETURN_NULL();
	if (!st_field_decode(c->part->type, c->part->width, values[c->fidx], strlen(values[c->fidx]), &result))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(result);
}

/* singletable.key_matches(key, template): whether the key matches the template */
Datum
singletable_key_matches(PG_FUNCTION_ARGS)
{
	text	   *key = PG_GETARG_TEXT_PP(0);
	TemplateCache *c = template_cache(fcinfo, PG_GETARG_TEXT_PP(1), NULL);

	PG_RETURN_BOOL(st_template_match(c->t, VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key), NULL));
}

/* Whether a value of type typid can stand for a field of sql type fieldtype */
static bool
value_type_ok(Oid typid, Oid fieldtype)
{
	if (fieldtype == INT8OID)
		return typid == INT8OID || typid == INT4OID || typid == INT2OID;
	return typid == fieldtype;
}

/* A value of type typid as the field's SQL type */
static Datum
value_as_field_type(Datum d, Oid typid)
{
	if (typid == INT4OID)
		return Int64GetDatum((int64) DatumGetInt32(d));
	if (typid == INT2OID)
		return Int64GetDatum((int64) DatumGetInt16(d));
	return d;
}

/* The argument argno ("any") as a value of field part, checking its type */
static Datum
field_arg(FunctionCallInfo fcinfo, int argno, const TemplateCache *c, const StTemplatePart *part)
{
	Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, argno);

	/* a quoted literal for a string field */
	if (typid == UNKNOWNOID && part->type == ST_FIELD_STRING)
		return PointerGetDatum(cstring_to_text(DatumGetCString(PG_GETARG_DATUM(argno))));
	if (!value_type_ok(typid, st_field_sql_type(part->type)))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("field \"%s\" of key template '%s' takes %s, not %s", part->text, c->source,
						format_type_be(st_field_sql_type(part->type)), format_type_be(typid))));
	return value_as_field_type(PG_GETARG_DATUM(argno), typid);
}

/*
 * singletable.key_compose(template, VARIADIC values "any"): the key the
 * template makes of the values of its fields (in template order), or NULL
 * when one has no text in its field (a negative int, too wide, ...).
 */
Datum
singletable_key_compose(PG_FUNCTION_ARGS)
{
	TemplateCache *c = template_cache(fcinfo, PG_GETARG_TEXT_PP(0), NULL);
	char	   *values[ST_TEMPLATE_MAX_FIELDS];

	if (PG_NARGS() - 1 != c->t->nfields)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key template '%s' has %d fields, not %d", c->source, c->t->nfields, PG_NARGS() - 1)));
	for (int i = 0; i < c->t->nfields; i++)
	{
		const StTemplatePart *part = st_template_field(c->t, i);

		if (PG_ARGISNULL(i + 1))
			PG_RETURN_NULL();
		values[i] = st_field_encode(part->type, part->width, field_arg(fcinfo, i + 1, c, part));
		if (values[i] == NULL || !st_field_value_valid(part->type, part->width, values[i], strlen(values[i])))
			PG_RETURN_NULL();
	}
	PG_RETURN_TEXT_P(cstring_to_text(st_template_compose(c->t, values)));
}

/* The smallest valid UTF-8 text above every text that starts with s */
static text *
upper_bound(const char *s)
{
	return DatumGetTextPP(DirectFunctionCall1(singletable_prefix_upper_bound_text,
											  PointerGetDatum(cstring_to_text(s))));
}

/*
 * singletable.key_field_bound(template, field, kind, value "any"): a bound
 * on keys of the template for a condition on its first field (see the head
 * comment for the kinds), sound for every key whose field decodes.
 */
Datum
singletable_key_field_bound(PG_FUNCTION_ARGS)
{
	TemplateCache *c = template_cache(fcinfo, PG_GETARG_TEXT_PP(0), PG_GETARG_TEXT_PP(1));
	int32		kind = PG_GETARG_INT32(2);
	const StTemplatePart *part = c->part;
	const char *prefix = c->t->prefix;
	Datum		v;
	int			domain;
	bool		lower = (kind == BOUND_LOWER || kind == BOUND_EQ_LOWER);
	bool		eq = (kind == BOUND_EQ_LOWER || kind == BOUND_EQ_UPPER);
	char	   *enc;
	char	   *b;

	if (kind < BOUND_LOWER || kind > BOUND_EQ_UPPER)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("key_field_bound: kind must be 1 to 4, not %d", kind)));
	if (c->fidx != 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("field \"%s\" is not the first field of key template '%s'", c->field, c->source)));
	v = field_arg(fcinfo, 3, c, part);
	domain = st_field_value_domain(part->type, part->width, v);

	/* where the text has no order of the values: no bound (every key of the entity) */
	if (!eq && (part->type == ST_FIELD_STRING ? !lower : (part->type == ST_FIELD_INT && part->width == 0)))
		PG_RETURN_TEXT_P(lower ? cstring_to_text(prefix) : upper_bound(prefix));

	/* below every value: [P, ...) for a lower bound, none below P for an upper one */
	if (domain < 0)
		PG_RETURN_TEXT_P(cstring_to_text(prefix));
	/* above every value: none from successor(P) on, all below it */
	if (domain > 0)
		PG_RETURN_TEXT_P(upper_bound(prefix));
	enc = st_field_encode(part->type, part->width, v);
	if (part->type == ST_FIELD_TIMESTAMP)
		enc[16] = '\0';			/* the minute: every form of the time starts with it */
	else if (eq)
	{
		/* the field's text is exactly enc, then the literal after it */
		int			k;

		for (k = 0; k < c->t->nparts; k++)
			if (&c->t->parts[k] == part)
				break;
		if (k + 1 < c->t->nparts)
			enc = psprintf("%s%s", enc, c->t->parts[k + 1].text);
	}
	b = psprintf("%s%s", prefix, enc);
	if (lower)
		PG_RETURN_TEXT_P(cstring_to_text(b));
	PG_RETURN_TEXT_P(upper_bound(b));
}

/*
 * Support of the decoders: no simplification. Its call, while the planner
 * simplifies a query, loads the library and with it the hook below.
 */
Datum
singletable_key_field_support(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(NULL);
}

/* ---------------------------------------------------------------------
 * The planner hook
 * --------------------------------------------------------------------- */

static set_rel_pathlist_hook_type prev_set_rel_pathlist = NULL;

/* One restriction clause on a decoded field */
typedef struct FieldQual
{
	Node	   *key;			/* the key expression the decoder reads */
	char	   *tmpl;
	StTemplate *t;
	int			fidx;
	const StTemplatePart *part;
	int			strategy;		/* BT*StrategyNumber, as "field OP value" */
	Expr	   *value;
	Node	   *guard;			/* the CASE condition around the decoder, or NULL */
	Index		security_level;
	Oid			nsp;			/* the decoder's schema */
} FieldQual;

/* Whether e is a call of a decoder; its schema into *nsp */
static bool
is_decoder(Node *e, Oid *nsp)
{
	FuncExpr   *f;
	char	   *name;

	if (!IsA(e, FuncExpr))
		return false;
	f = (FuncExpr *) e;
	if (list_length(f->args) != 3 || !IsA(lsecond(f->args), Const) || !IsA(lthird(f->args), Const) ||
		((Const *) lsecond(f->args))->constisnull || ((Const *) lthird(f->args))->constisnull ||
		((Const *) lsecond(f->args))->consttype != TEXTOID || ((Const *) lthird(f->args))->consttype != TEXTOID)
		return false;
	name = get_func_name(f->funcid);
	if (name == NULL || strncmp(name, "key_field_", 10) != 0 || strcmp(name, "key_field_bound") == 0 ||
		strcmp(name, "key_field_support") == 0)
		return false;
	*nsp = get_func_namespace(f->funcid);
	{
		char	   *nspname = get_namespace_name(*nsp);

		if (nspname == NULL || strcmp(nspname, "singletable") != 0)
			return false;
	}
	/* the C function behind it must be ours */
	{
		HeapTuple	tp = SearchSysCache1(PROCOID, ObjectIdGetDatum(f->funcid));
		bool		ours = false;

		if (HeapTupleIsValid(tp))
		{
			bool		isnull;
			Datum		src = SysCacheGetAttr(PROCOID, tp, Anum_pg_proc_prosrc, &isnull);

			ours = !isnull && strcmp(TextDatumGetCString(src), "singletable_key_field") == 0;
			ReleaseSysCache(tp);
		}
		return ours;
	}
}

/* The decoder call in e (bare, or as the only result of a CASE), and its guard */
static FuncExpr *
find_decoder(Node *e, Node **guard, Oid *nsp)
{
	*guard = NULL;
	while (IsA(e, RelabelType))
		e = (Node *) ((RelabelType *) e)->arg;
	if (IsA(e, CaseExpr))
	{
		CaseExpr   *ce = (CaseExpr *) e;
		CaseWhen   *w;

		if (ce->arg != NULL || list_length(ce->args) != 1 ||
			(ce->defresult && !(IsA(ce->defresult, Const) && ((Const *) ce->defresult)->constisnull)))
			return NULL;
		w = linitial(ce->args);
		if (!is_decoder((Node *) w->result, nsp))
			return NULL;
		*guard = (Node *) w->expr;
		return (FuncExpr *) w->result;
	}
	return is_decoder(e, nsp) ? (FuncExpr *) e : NULL;
}

/* The btree operator family comparing a field's values */
static Oid
field_opfamily(Oid fieldtype)
{
	Oid			opclass = GetDefaultOpClass(fieldtype, BTREE_AM_OID);

	return OidIsValid(opclass) ? get_opclass_family(opclass) : InvalidOid;
}

/* Reads one restriction clause as a FieldQual; false when it is none */
static bool
read_field_qual(RestrictInfo *ri, FieldQual *q)
{
	OpExpr	   *op;
	Node	   *l,
			   *r;
	FuncExpr   *dec;
	bool		commuted = false;
	Oid			opfamily;
	Oid			fieldtype;
	int			strategy;
	Oid			lefttype,
				righttype;
	text	   *tsrc;

	if (ri->pseudoconstant || !IsA(ri->clause, OpExpr))
		return false;
	op = (OpExpr *) ri->clause;
	if (list_length(op->args) != 2)
		return false;
	l = linitial(op->args);
	r = lsecond(op->args);
	dec = find_decoder(l, &q->guard, &q->nsp);
	if (dec == NULL)
	{
		dec = find_decoder(r, &q->guard, &q->nsp);
		if (dec == NULL)
			return false;
		commuted = true;
		r = l;
	}
	if (contain_var_clause(r) || contain_volatile_functions(r) || contain_subplans(r) ||
		contain_var_clause((Node *) linitial(dec->args)) == false)
		return false;

	tsrc = DatumGetTextPP(((Const *) lsecond(dec->args))->constvalue);
	q->tmpl = text_to_cstring(tsrc);
	q->t = st_template_parse(q->tmpl, "the key template");
	q->fidx = st_template_field_index(q->t, TextDatumGetCString(((Const *) lthird(dec->args))->constvalue));
	if (q->fidx < 0)
		return false;
	q->part = st_template_field(q->t, q->fidx);
	fieldtype = st_field_sql_type(q->part->type);
	if (dec->funcresulttype != fieldtype || !value_type_ok(exprType(r), fieldtype))
		return false;
	opfamily = field_opfamily(fieldtype);
	if (!OidIsValid(opfamily))
		return false;
	if (!op_in_opfamily(op->opno, opfamily))
		return false;
	get_op_opfamily_properties(op->opno, opfamily, false, &strategy, &lefttype, &righttype);
	/* a string's text order is its order only bytewise */
	if (fieldtype == TEXTOID && !(OidIsValid(op->inputcollid) && lc_collate_is_c(op->inputcollid)))
		return false;
	if (commuted)
		strategy = BTMaxStrategyNumber + 1 - strategy;	/* commuted: < is >, = is = */
	q->strategy = strategy;
	q->value = (Expr *) r;
	q->key = (Node *) linitial(dec->args);
	q->security_level = ri->security_level;
	return true;
}

/* "key <strategy> rhs" on text in the key's collation */
static Expr *
key_clause(Node *key, int strategy, Expr *rhs)
{
	Oid			opno = get_opfamily_member(TEXT_BTREE_FAM_OID, TEXTOID, TEXTOID, strategy);

	return make_opclause(opno, BOOLOID, false, (Expr *) copyObject(key), rhs, InvalidOid,
						 exprCollation(key));
}

static Oid
lookup_fn(Oid nsp, const char *name, int nargs, Oid *argtypes)
{
	return LookupFuncName(list_make2(makeString(get_namespace_name(nsp)), makeString((char *) name)),
						  nargs, argtypes, true);
}

/* key_field_bound(tmpl, field, kind, value), folded when value is a constant */
static Expr *
bound_expr(PlannerInfo *root, FieldQual *q, int kind)
{
	Oid			argtypes[4] = {TEXTOID, TEXTOID, INT4OID, ANYOID};
	Oid			fn = lookup_fn(q->nsp, "key_field_bound", 4, argtypes);
	Expr	   *e;

	if (!OidIsValid(fn))
		return NULL;
	e = (Expr *) makeFuncExpr(fn, TEXTOID,
							  list_make4(makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1,
												   CStringGetTextDatum(q->tmpl), false, false),
										 makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1,
												   CStringGetTextDatum(q->part->text), false, false),
										 makeConst(INT4OID, -1, InvalidOid, 4, Int32GetDatum(kind), false, true),
										 copyObject(q->value)),
							  exprCollation(q->key), exprCollation(q->key), COERCE_EXPLICIT_CALL);
	return (Expr *) eval_const_expressions(root, (Node *) e);
}

/* Adds clause to *out unless rel already has it */
static void
add_derived(PlannerInfo *root, RelOptInfo *rel, List **out, Expr *clause, Index security_level)
{
	ListCell   *lc;

	foreach(lc, rel->baserestrictinfo)
		if (equal(((RestrictInfo *) lfirst(lc))->clause, clause))
			return;
	foreach(lc, *out)
		if (equal(((RestrictInfo *) lfirst(lc))->clause, clause))
			return;
	*out = lappend(*out, make_restrictinfo(root, clause, true, false, false, security_level,
										   NULL, NULL, NULL));
}

/* Whether key is text in a collation whose order is UTF-8 byte order */
static bool
key_orders_bytewise(Node *key)
{
	Oid			coll = exprCollation(key);

	return exprType(key) == TEXTOID && OidIsValid(coll) && lc_collate_is_c(coll) &&
		GetDatabaseEncoding() == PG_UTF8;
}

/* The clauses the field quals of one key and template imply (see the head comment) */
static void
derive_for_key(PlannerInfo *root, RelOptInfo *rel, FieldQual *qs, int nq, int first, List **out)
{
	FieldQual  *q0 = &qs[first];
	StTemplate *t = q0->t;
	FieldQual  *eqs[ST_TEMPLATE_MAX_FIELDS];
	bool		all_eq = true;
	Index		level = 0;

	if (!key_orders_bytewise(q0->key))
		return;
	memset(eqs, 0, sizeof(eqs));
	for (int i = first; i < nq; i++)
	{
		FieldQual  *q = &qs[i];

		if (strcmp(q->tmpl, q0->tmpl) != 0 || !equal(q->key, q0->key))
			continue;
		if (q->strategy == BTEqualStrategyNumber && eqs[q->fidx] == NULL)
			eqs[q->fidx] = q;
		if (q->guard)
		{
			List	   *conj = make_ands_implicit((Expr *) q->guard);
			ListCell   *lc;

			foreach(lc, conj)
				add_derived(root, rel, out, copyObject(lfirst(lc)), q->security_level);
		}
	}
	for (int f = 0; f < t->nfields; f++)
	{
		if (eqs[f] == NULL || st_template_field(t, f)->type == ST_FIELD_TIMESTAMP)
			all_eq = false;
		else
			level = Max(level, eqs[f]->security_level);
	}
	if (all_eq && t->nfields > 0)
	{
		Oid			argtypes[2] = {TEXTOID, ANYOID};
		Oid			fn;
		List	   *args = list_make1(makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1,
												CStringGetTextDatum(q0->tmpl), false, false));
		FuncExpr   *fe;

		/* VARIADIC "any": its proargtypes are (text, "any") */
		fn = lookup_fn(q0->nsp, "key_compose", 2, argtypes);
		if (OidIsValid(fn))
		{
			for (int f = 0; f < t->nfields; f++)
				args = lappend(args, copyObject(eqs[f]->value));
			fe = makeFuncExpr(fn, TEXTOID, args, exprCollation(q0->key), exprCollation(q0->key),
							  COERCE_EXPLICIT_CALL);
			add_derived(root, rel, out, key_clause(q0->key, BTEqualStrategyNumber,
											 (Expr *) eval_const_expressions(root, (Node *) fe)), level);
			return;
		}
	}
	/* conditions on the first field: a range of the key */
	for (int i = first; i < nq; i++)
	{
		FieldQual  *q = &qs[i];
		StFieldType ty = q->part->type;
		bool		ordered = (ty == ST_FIELD_INT && q->part->width > 0) || ty == ST_FIELD_DATE ||
			ty == ST_FIELD_TIMESTAMP || ty == ST_FIELD_UUID;
		Expr	   *lo = NULL,
				   *hi = NULL;

		if (q->fidx != 0 || strcmp(q->tmpl, q0->tmpl) != 0 || !equal(q->key, q0->key))
			continue;
		switch (q->strategy)
		{
			case BTEqualStrategyNumber:
				lo = bound_expr(root, q, BOUND_EQ_LOWER);
				hi = bound_expr(root, q, BOUND_EQ_UPPER);
				break;
			case BTGreaterStrategyNumber:
			case BTGreaterEqualStrategyNumber:
				if (ordered || ty == ST_FIELD_STRING)
					lo = bound_expr(root, q, BOUND_LOWER);
				break;
			case BTLessStrategyNumber:
			case BTLessEqualStrategyNumber:
				if (ordered)
					hi = bound_expr(root, q, BOUND_UPPER);
				break;
		}
		if (lo)
			add_derived(root, rel, out, key_clause(q->key, BTGreaterEqualStrategyNumber, lo), q->security_level);
		if (hi)
			add_derived(root, rel, out, key_clause(q->key, BTLessStrategyNumber, hi), q->security_level);
	}
}

/* paths without the index and bitmap scans */
static List *
drop_index_paths(List *paths)
{
	List	   *kept = NIL;
	ListCell   *lc;

	foreach(lc, paths)
	{
		Path	   *p = (Path *) lfirst(lc);

		if (!IsA(p, IndexPath) && !IsA(p, BitmapHeapPath))
			kept = lappend(kept, p);
	}
	return kept;
}

static void
entity_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte)
{
	FieldQual  *qs;
	int			nq = 0;
	List	   *derived = NIL;
	ListCell   *lc;

	if (prev_set_rel_pathlist)
		prev_set_rel_pathlist(root, rel, rti, rte);
	if (rel->reloptkind != RELOPT_BASEREL || rte->rtekind != RTE_RELATION ||
		rel->indexlist == NIL || rel->baserestrictinfo == NIL)
		return;

	qs = palloc0(sizeof(FieldQual) * list_length(rel->baserestrictinfo));
	foreach(lc, rel->baserestrictinfo)
		if (read_field_qual((RestrictInfo *) lfirst(lc), &qs[nq]))
			nq++;
	if (nq == 0)
		return;
	for (int i = 0; i < nq; i++)
	{
		bool		seen = false;

		for (int k = 0; k < i && !seen; k++)
			seen = strcmp(qs[k].tmpl, qs[i].tmpl) == 0 && equal(qs[k].key, qs[i].key);
		if (!seen)
			derive_for_key(root, rel, qs, nq, i, &derived);
	}
	if (derived == NIL)
		return;
	rel->baserestrictinfo = list_concat(rel->baserestrictinfo, derived);
	check_index_predicates(root, rel);

	/*
	 * The index paths built again have the clauses the first ones had and
	 * the derived ones: replace the first ones, which add_path would keep
	 * over new ones of fuzzily equal cost (a small or never analysed table)
	 */
	rel->pathlist = drop_index_paths(rel->pathlist);
	rel->partial_pathlist = drop_index_paths(rel->partial_pathlist);
	create_index_paths(root, rel);
}

void
st_entity_keys_init(void)
{
	prev_set_rel_pathlist = set_rel_pathlist_hook;
	set_rel_pathlist_hook = entity_rel_pathlist;
}
