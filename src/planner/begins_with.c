/*
 * begins_with.c — singletable.begins_with(text, text) and (bytea, bytea) for
 * plain SQL, and the planner support function that makes them btree ranges.
 *
 * For "sk begins_with P" on a btree index column the support function returns
 * the index conditions  sk >= P AND sk < successor(P)  and marks them exact
 * (lossy = false), so no row is filtered after the index. With a constant P
 * the successor is computed at plan time. With anything else that is constant
 * during one scan (a bind parameter in a generic plan, an outer reference)
 * the upper bound is the expression singletable.prefix_upper_bound(P), which
 * the executor evaluates once when the index scan starts (a "runtime key").
 * (PostgreSQL's own starts_with/^@ handle constants only.)
 *
 * Design notes: the section on begins_with.c in README.md of this folder.
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_opfamily_d.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "optimizer/plancat.h"
#include "parser/parse_func.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/selfuncs.h"

#include "catalog/entity_suggest.h"
#include "format/keys.h"

PG_FUNCTION_INFO_V1(singletable_begins_with_text);
PG_FUNCTION_INFO_V1(singletable_begins_with_bytea);
PG_FUNCTION_INFO_V1(singletable_prefix_upper_bound_text);
PG_FUNCTION_INFO_V1(singletable_prefix_upper_bound_bytea);
PG_FUNCTION_INFO_V1(singletable_begins_with_support);

/*
 * For a bytea prefix made only of 0xFF bytes there is no successor and no
 * largest bytea either; likewise for a text prefix made only of U+10FFFF (or
 * empty) and valid UTF-8. Index entries are at most 2704 bytes after
 * compression, and neither pglz nor lz4 compresses better than 256:1, so no
 * indexed value is longer than this many bytes: a string of 0xFF (of
 * U+10FFFF) this long after the prefix is above every indexed value that
 * starts with it.
 */
#define ST_INDEX_VALUE_MAX (2704 * 256 + 1)

/* U+10FFFF, the largest code point, in UTF-8 */
static const char st_utf8_max_char[4] = {'\xF4', '\x8F', '\xBF', '\xBF'};

/* begins_with on varlenas: byte-wise prefix test, no collation involved. */
static bool
varlena_begins_with(struct varlena *s, struct varlena *p)
{
	int			slen = VARSIZE_ANY_EXHDR(s),
				plen = VARSIZE_ANY_EXHDR(p);

	return plen <= slen && memcmp(VARDATA_ANY(s), VARDATA_ANY(p), plen) == 0;
}

/* singletable.begins_with(text, text): does the string start with the prefix (bytes)? */
Datum
singletable_begins_with_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(varlena_begins_with(PG_GETARG_TEXT_PP(0), PG_GETARG_TEXT_PP(1)));
}

/* singletable.begins_with(bytea, bytea): does the value start with the prefix? */
Datum
singletable_begins_with_bytea(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(varlena_begins_with(PG_GETARG_BYTEA_PP(0), PG_GETARG_BYTEA_PP(1)));
}

/*
 * singletable.prefix_upper_bound(text): the smallest valid UTF-8 string above
 * every string that starts with the prefix, in byte order (C collation). A
 * prefix without one (empty, or only U+10FFFF) gets itself followed by
 * U+10FFFF repeated past ST_INDEX_VALUE_MAX bytes: still valid UTF-8, and
 * above every value with the prefix that a btree index can hold.
 */
Datum
singletable_prefix_upper_bound_text(PG_FUNCTION_ARGS)
{
	text	   *p = PG_GETARG_TEXT_PP(0);
	const char *pdata = VARDATA_ANY(p);
	int			plen = VARSIZE_ANY_EXHDR(p);
	int			len;
	char	   *succ;
	text	   *res;

	/* UTF-8 byte order means nothing for another encoding's bytes */
	if (GetDatabaseEncoding() != PG_UTF8)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("singletable.prefix_upper_bound(text) requires a UTF8 database, not %s",
						GetDatabaseEncodingName()),
				 errdetail("The bound is computed in UTF-8 byte order.")));

	/*
	 * Text of a UTF-8 database is valid UTF-8, except what C code (such as
	 * 0.1.0 of this function) wrote unchecked; the successor must not read
	 * past a truncated last sequence.
	 */
	(void) pg_verify_mbstr(PG_UTF8, pdata, plen, false);

	succ = st_prefix_successor_utf8(pdata, plen, &len);
	if (succ != NULL)
		PG_RETURN_TEXT_P(cstring_to_text_with_len(succ, len));

	len = plen + (ST_INDEX_VALUE_MAX / 4 + 1) * 4;
	res = palloc(VARHDRSZ + len);
	SET_VARSIZE(res, VARHDRSZ + len);
	memcpy(VARDATA(res), pdata, plen);
	for (int i = plen; i < len; i += 4)
		memcpy(VARDATA(res) + i, st_utf8_max_char, 4);
	PG_RETURN_TEXT_P(res);
}

/* singletable.prefix_upper_bound(bytea): the byte successor of the prefix. */
Datum
singletable_prefix_upper_bound_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *p = PG_GETARG_BYTEA_PP(0);
	int			plen = VARSIZE_ANY_EXHDR(p);
	int			len;
	char	   *succ = st_prefix_successor_bytes(VARDATA_ANY(p), plen, &len);
	bytea	   *res;

	if (succ == NULL)
	{
		len = plen + ST_INDEX_VALUE_MAX;
		res = palloc(VARHDRSZ + len);
		memcpy(VARDATA(res), VARDATA_ANY(p), plen);
		memset(VARDATA(res) + plen, 0xFF, len - plen);
	}
	else
	{
		res = palloc(VARHDRSZ + len);
		memcpy(VARDATA(res), succ, len);
	}
	SET_VARSIZE(res, VARHDRSZ + len);
	PG_RETURN_BYTEA_P(res);
}

/* Builds "leftop <strategy> rightop" with the opfamily's operator. */
static Expr *
make_bound(Oid opfamily, Oid type, int16 strategy, Node *leftop, Expr *rightop, Oid collation)
{
	Oid			opr = get_opfamily_member(opfamily, type, type, strategy);

	if (!OidIsValid(opr))
		elog(ERROR, "no operator for strategy %d in opfamily %u", strategy, opfamily);
	return make_opclause(opr, BOOLOID, false, (Expr *) leftop, rightop, InvalidOid, collation);
}

/* Whether ranges over this index column are byte ranges for our argument type. */
static bool
index_supports_prefix_range(Oid argtype, Oid opfamily, Oid collation)
{
	if (argtype == BYTEAOID)
		return opfamily == BYTEA_BTREE_FAM_OID;
	return opfamily == TEXT_BTREE_FAM_OID &&
		GetDatabaseEncoding() == PG_UTF8 &&
		OidIsValid(collation) && lc_collate_is_c(collation);
}

/* expr without the relabelings (COLLATE, binary-compatible casts) over it */
static Node *
strip_relabel(Node *expr)
{
	while (expr && IsA(expr, RelabelType))
		expr = (Node *) ((RelabelType *) expr)->arg;
	return expr;
}

/*
 * The constant the query's restrictions set the index's first column equal
 * to (the partition key of a Query), or NULL.
 */
static Const *
partition_constant(IndexOptInfo *index)
{
	Node	   *col;
	ListCell   *lc;

	if (index->indexkeys[0] != 0)
		col = (Node *) makeVar(index->rel->relid, index->indexkeys[0], TEXTOID, -1, InvalidOid, 0);
	else if (index->indexprs != NIL)
		col = strip_relabel(linitial(index->indexprs));
	else
		return NULL;
	foreach(lc, index->rel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		OpExpr	   *op = (OpExpr *) ri->clause;
		Node	   *l,
				   *r;

		if (!IsA(op, OpExpr) || list_length(op->args) != 2 ||
			get_op_opfamily_strategy(op->opno, index->opfamily[0]) != BTEqualStrategyNumber)
			continue;
		l = strip_relabel(linitial(op->args));
		r = strip_relabel(lsecond(op->args));
		if (IsA(r, Const) && !IsA(l, Const))
		{
			Node	   *t = l;

			l = r;
			r = t;
		}
		if (!IsA(l, Const) || ((Const *) l)->constisnull || ((Const *) l)->consttype != TEXTOID)
			continue;
		if (IsA(r, Var) && IsA(col, Var) ? ((Var *) r)->varno == ((Var *) col)->varno &&
			((Var *) r)->varattno == ((Var *) col)->varattno : equal(r, col))
			return (Const *) l;
	}
	return NULL;
}

/*
 * The typo guard at plan time (singletable.prefix_check): begins_with(col,
 * prefix) with a constant prefix on the first sort column of an item
 * table's primary key, or of one of its secondary indexes, is checked
 * against the entities' templates, with the partition key's constant when
 * the query has one. Warned once per plan: only for the index whose sort
 * column it is (the table's key, or that secondary index). A bind parameter
 * is not known here and not checked.
 */
static void
prefix_typo_check(SupportRequestIndexCondition *req, Node *leftop, Const *c)
{
	IndexOptInfo *index = req->index;
	RangeTblEntry *rte;
	StTable    *tab;
	StIndex    *idx = NULL;
	Const	   *pkc;
	text	   *p;
	text	   *pkt = NULL;

	if (st_prefix_check == ST_CHECK_OFF || c->consttype != TEXTOID || index->rel->reloptkind != RELOPT_BASEREL)
		return;
	rte = planner_rt_fetch(index->rel->relid, req->root);
	if (rte->rtekind != RTE_RELATION)
		return;
	tab = st_table_lookup(rte->relid);
	if (tab == NULL || tab->n_entities == 0)
		return;
	for (int i = 0; i < tab->n_indexes; i++)
		if (tab->indexes[i].indexrelid == index->indexoid)
			idx = &tab->indexes[i];
	if (idx != NULL)
	{
		if (idx->n_pk != 1 || idx->n_sk != 1 || req->indexcol != 1 ||
			idx->pk[0].type != ST_KEY_S || idx->sk[0].type != ST_KEY_S)
			return;
	}
	else
	{
		/* the table's primary key index: (pk, sk) */
		Var		   *v = (Var *) strip_relabel(leftop);

		if (tab->sk_name == NULL || tab->pk_type != ST_KEY_S || tab->sk_type != ST_KEY_S ||
			req->indexcol != 1 || !index->unique || index->ncolumns != 2 ||
			index->indexkeys[0] != get_attnum(rte->relid, tab->pk_name) ||
			index->indexkeys[1] != get_attnum(rte->relid, tab->sk_name) ||
			!IsA(v, Var))
			return;
	}
	pkc = partition_constant(index);
	if (pkc)
		pkt = DatumGetTextPP(pkc->constvalue);
	p = DatumGetTextPP(c->constvalue);
	st_prefix_check_query(tab, idx, pkt ? VARDATA_ANY(pkt) : NULL, pkt ? VARSIZE_ANY_EXHDR(pkt) : 0,
						  VARDATA_ANY(p), VARSIZE_ANY_EXHDR(p));
}

/* The index conditions for begins_with(indexcol, prefix), or NIL. */
static List *
prefix_index_conditions(SupportRequestIndexCondition *req)
{
	FuncExpr   *fexpr;
	Node	   *leftop,
			   *rightop;
	Oid			argtype;

	if (!IsA(req->node, FuncExpr) || req->indexarg != 0)
		return NIL;
	fexpr = (FuncExpr *) req->node;
	if (list_length(fexpr->args) != 2)
		return NIL;
	leftop = linitial(fexpr->args);
	rightop = lsecond(fexpr->args);
	argtype = exprType(rightop);
	if (!index_supports_prefix_range(argtype, req->opfamily, req->indexcollation))
		return NIL;
	if (!is_pseudo_constant_for_index(req->root, rightop, req->index))
		return NIL;

	if (IsA(rightop, Const))
	{
		Const	   *c = (Const *) rightop;
		struct varlena *p;
		char	   *succ;
		int			len;
		List	   *conds;

		if (c->constisnull)
			return NIL;			/* strict: never true; leave it to the filter */
		prefix_typo_check(req, leftop, c);
		p = (struct varlena *) DatumGetPointer(PG_DETOAST_DATUM_PACKED(c->constvalue));
		conds = list_make1(make_bound(req->opfamily, argtype, BTGreaterEqualStrategyNumber,
									  leftop, (Expr *) c, req->indexcollation));
		succ = (argtype == TEXTOID)
			? st_prefix_successor_utf8(VARDATA_ANY(p), VARSIZE_ANY_EXHDR(p), &len)
			: st_prefix_successor_bytes(VARDATA_ANY(p), VARSIZE_ANY_EXHDR(p), &len);
		/* no successor: every value >= the prefix starts with it */
		if (succ != NULL)
		{
			struct varlena *b = palloc(VARHDRSZ + len);
			Const	   *hi;

			SET_VARSIZE(b, VARHDRSZ + len);
			memcpy(VARDATA(b), succ, len);
			hi = makeConst(argtype, -1, c->constcollid, -1, PointerGetDatum(b), false, false);
			conds = lappend(conds, make_bound(req->opfamily, argtype, BTLessStrategyNumber,
											  leftop, (Expr *) hi, req->indexcollation));
		}
		req->lossy = false;
		return conds;
	}
	else
	{
		/* evaluated once per scan: prefix_upper_bound(prefix) in the same schema */
		List	   *fname = list_make2(makeString(get_namespace_name(get_func_namespace(fexpr->funcid))),
									   makeString("prefix_upper_bound"));
		Oid			ubfunc = LookupFuncName(fname, 1, &argtype, true);
		FuncExpr   *hi;

		if (!OidIsValid(ubfunc))
			return NIL;
		hi = makeFuncExpr(ubfunc, argtype, list_make1(copyObject(rightop)),
						  req->indexcollation, req->indexcollation, COERCE_EXPLICIT_CALL);
		req->lossy = false;
		return list_make2(make_bound(req->opfamily, argtype, BTGreaterEqualStrategyNumber,
									 leftop, (Expr *) copyObject(rightop), req->indexcollation),
						  make_bound(req->opfamily, argtype, BTLessStrategyNumber,
									 leftop, (Expr *) hi, req->indexcollation));
	}
}

/*
 * Selectivity of begins_with(col, prefix). For text this is exactly what
 * PostgreSQL estimates for col ^@ prefix (prefixsel: histogram and MCVs for a
 * constant, DEFAULT_MATCH_SEL otherwise). For bytea with a constant prefix it
 * is sel(col >= prefix) + sel(col < successor) - 1.
 */
static Selectivity
prefix_selectivity(SupportRequestSelectivity *req)
{
	Node	   *leftop,
			   *rightop;
	Oid			argtype;
	Selectivity sel;

	if (req->is_join || list_length(req->args) != 2)
		return DEFAULT_MATCH_SEL;
	leftop = linitial(req->args);
	rightop = lsecond(req->args);
	argtype = exprType(rightop);

	if (argtype == TEXTOID)
		return restriction_selectivity(req->root, TextPrefixOperator, req->args,
									   C_COLLATION_OID, req->varRelid);

	if (!IsA(rightop, Const) || ((Const *) rightop)->constisnull)
		return DEFAULT_MATCH_SEL;
	{
		Const	   *c = (Const *) rightop;
		struct varlena *p = (struct varlena *) DatumGetPointer(PG_DETOAST_DATUM_PACKED(c->constvalue));
		int			len;
		char	   *succ = st_prefix_successor_bytes(VARDATA_ANY(p), VARSIZE_ANY_EXHDR(p), &len);
		Oid			geop = get_opfamily_member(BYTEA_BTREE_FAM_OID, BYTEAOID, BYTEAOID, BTGreaterEqualStrategyNumber);
		Oid			ltop = get_opfamily_member(BYTEA_BTREE_FAM_OID, BYTEAOID, BYTEAOID, BTLessStrategyNumber);

		sel = restriction_selectivity(req->root, geop, req->args, InvalidOid, req->varRelid);
		if (succ != NULL)
		{
			struct varlena *b = palloc(VARHDRSZ + len);
			Const	   *hi;

			SET_VARSIZE(b, VARHDRSZ + len);
			memcpy(VARDATA(b), succ, len);
			hi = makeConst(BYTEAOID, -1, InvalidOid, -1, PointerGetDatum(b), false, false);
			sel += restriction_selectivity(req->root, ltop, list_make2(leftop, hi),
										   InvalidOid, req->varRelid) - 1.0;
		}
		CLAMP_PROBABILITY(sel);
		return sel > 0 ? sel : DEFAULT_MATCH_SEL;
	}
}

/* Planner support for singletable.begins_with. */
Datum
singletable_begins_with_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestIndexCondition))
	{
		List	   *conds = prefix_index_conditions((SupportRequestIndexCondition *) rawreq);

		PG_RETURN_POINTER(conds);
	}
	if (IsA(rawreq, SupportRequestSelectivity))
	{
		SupportRequestSelectivity *req = (SupportRequestSelectivity *) rawreq;

		req->selectivity = prefix_selectivity(req);
		PG_RETURN_POINTER(req);
	}
	PG_RETURN_POINTER(NULL);
}
