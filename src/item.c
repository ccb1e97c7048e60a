/*
 * item.c — validating an item before it is written.
 *
 * One pass over the jsonb computes DynamoDB's item size, checks the nesting
 * depth and every number, and finds the key attributes. jsonb keeps a
 * number's written scale (1.10 stays 1.10), while DynamoDB returns numbers in
 * canonical form (1.1); only when some number is not canonical is the item
 * rebuilt, so the common case costs one read-only iteration.
 *
 * Size rules implemented (shared/docs/dynamodb-semantics.md section 2.2):
 *   item  = sum over top-level attributes of (UTF-8 bytes of name + value size)
 *   S     = UTF-8 bytes;  N = 1 + ceil(digits/2) (+1 when the digit pairs
 *           straddle the point, +1 when negative), zero = 1
 *   BOOL, NULL = 1;  L = 3 + sum(1 + element);  M = 3 + sum(name + 1 + value)
 *   a B key attribute counts its decoded bytes.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "item.h"

typedef struct SizeFrame
{
	bool		is_object;
	int64		size;
} SizeFrame;

static const char *
jbv_type_name(JsonbValue *v)
{
	switch (v->type)
	{
		case jbvString:
			return "S";
		case jbvNumeric:
			return "N";
		case jbvBool:
			return "BOOL";
		case jbvNull:
			return "NULL";
		default:
			return "?";
	}
}

/* Checks a jsonb number against DynamoDB's range and precision; returns its size. */
static int
number_size(JsonbValue *v, const char *attname, bool *canonical)
{
	char	   *s = DatumGetCString(DirectFunctionCall1(numeric_out,
														NumericGetDatum(v->val.numeric)));
	StNumber	num;

	st_number_parse_or_error(s, strlen(s), &num, attname);
	if (strcmp(s, num.canonical) != 0)
		*canonical = false;
	return num.size;
}

/* Rebuilds a jsonb value with every number in canonical form. */
static Jsonb *
canonicalize_numbers(Jsonb *in)
{
	JsonbIterator *it = JsonbIteratorInit(&in->root);
	JsonbParseState *state = NULL;
	JsonbValue	v;
	JsonbIteratorToken tok;
	JsonbValue *res = NULL;

	while ((tok = JsonbIteratorNext(&it, &v, false)) != WJB_DONE)
	{
		if ((tok == WJB_VALUE || tok == WJB_ELEM) && v.type == jbvNumeric)
		{
			char	   *s = DatumGetCString(DirectFunctionCall1(numeric_out,
																NumericGetDatum(v.val.numeric)));
			StNumber	num;

			st_number_parse_or_error(s, strlen(s), &num, "?");
			v.val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in,
																CStringGetDatum(num.canonical),
																ObjectIdGetDatum(InvalidOid),
																Int32GetDatum(-1)));
		}
		res = pushJsonbValue(&state, tok, tok < WJB_BEGIN_ARRAY ? &v : NULL);
	}
	return JsonbValueToJsonb(res);
}

/* Validates a scalar key attribute value and converts it to its column datum. */
static void
key_from_jbv(StTable *tab, JsonbValue *v, const char *attname, StKeyType kt,
			 bool is_sort, StKey *out)
{
	const char *actual = jbv_type_name(v);
	bool		ok;

	ok = (kt == ST_KEY_N) ? (v->type == jbvNumeric) : (v->type == jbvString);
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("key attribute \"%s\" of table \"%s\" must be of type %c, not %s",
						attname, tab->relname, (char) kt, actual),
				 errdetail("One or more parameter values were invalid: Type mismatch for key %s expected: %c actual: %s",
						   attname, (char) kt, actual),
				 kt == ST_KEY_N ? errhint("N keys are JSON numbers in items.") :
				 kt == ST_KEY_B ? errhint("B keys are base64 JSON strings in items.") : 0));
	if (kt == ST_KEY_N)
	{
		char	   *s = DatumGetCString(DirectFunctionCall1(numeric_out,
															NumericGetDatum(v->val.numeric)));

		st_key_from_text(kt, s, strlen(s), attname, tab->relname, is_sort, out);
	}
	else
		st_key_from_text(kt, v->val.string.val, v->val.string.len, attname,
						 tab->relname, is_sort, out);
}

/*
 * Validates an item for table tab: a JSON object carrying the key attributes
 * with the right types, numbers within DynamoDB's limits, at most 32 levels of
 * nesting and 400 KB. Fills *out with the key datums and the item to store.
 */
void
st_item_prepare(StTable *tab, Jsonb *item, StItem *out)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	SizeFrame	stack[ST_MAX_NESTING_DEPTH + 1];
	int			depth = 0;
	bool		canonical = true;
	bool		have_pk = false,
				have_sk = false;
	bool		b_rewrite = false;
	char	   *topname = NULL;	/* current top-level attribute name */
	int			key_role = 0;	/* 1: current top-level value is pk, 2: sk */

	if (item == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("item must not be NULL")));
	if (!JB_ROOT_IS_OBJECT(item) || JB_ROOT_IS_SCALAR(item))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("item for table \"%s\" must be a JSON object", tab->relname),
				 errdetail("An item maps attribute names to values: {\"%s\": ...}.",
						   tab->pk_name)));

	memset(out, 0, sizeof(*out));
	it = JsonbIteratorInit(&item->root);
	while ((tok = JsonbIteratorNext(&it, &v, false)) != WJB_DONE)
	{
		int64		vsize = -1;

		CHECK_FOR_INTERRUPTS();
		switch (tok)
		{
			case WJB_BEGIN_OBJECT:
			case WJB_BEGIN_ARRAY:
				if (depth >= ST_MAX_NESTING_DEPTH)
					ereport(ERROR,
							(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
							 errmsg("attribute \"%s\" of an item for table \"%s\" is nested more than %d levels deep",
									topname ? topname : "?", tab->relname, ST_MAX_NESTING_DEPTH),
							 errdetail("Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit")));
				if (depth == 1 && key_role != 0)
					ereport(ERROR,
							(errcode(ERRCODE_DATATYPE_MISMATCH),
							 errmsg("key attribute \"%s\" of table \"%s\" must be of type %c, not %s",
									topname, tab->relname,
									(char) (key_role == 1 ? tab->pk_type : tab->sk_type),
									tok == WJB_BEGIN_OBJECT ? "M" : "L"),
							 errdetail("Key attributes must be scalars of type S, N or B.")));
				stack[depth].is_object = (tok == WJB_BEGIN_OBJECT);
				stack[depth].size = (depth == 0) ? 0 : 3;
				depth++;
				break;
			case WJB_END_OBJECT:
			case WJB_END_ARRAY:
				depth--;
				if (depth > 0)
					vsize = stack[depth].size;
				break;
			case WJB_KEY:
				if (depth == 1)
				{
					if (v.val.string.len == 0)
						ereport(ERROR,
								(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
								 errmsg("an item for table \"%s\" has an attribute with an empty name",
										tab->relname)));
					topname = pnstrdup(v.val.string.val, v.val.string.len);
					key_role = 0;
					if (strcmp(topname, tab->pk_name) == 0)
						key_role = 1;
					else if (tab->sk_name && strcmp(topname, tab->sk_name) == 0)
						key_role = 2;
					stack[0].size += v.val.string.len;
				}
				else
					stack[depth - 1].size += v.val.string.len + 1;
				break;
			case WJB_VALUE:
			case WJB_ELEM:
				switch (v.type)
				{
					case jbvString:
						vsize = v.val.string.len;
						break;
					case jbvNumeric:
						vsize = number_size(&v, topname ? topname : "?", &canonical);
						break;
					case jbvBool:
					case jbvNull:
						vsize = 1;
						break;
					default:
						elog(ERROR, "unexpected jsonb value type %d", v.type);
				}
				if (depth == 1 && key_role != 0)
				{
					StKey	   *k = (key_role == 1) ? &out->pk : &out->sk;
					StKeyType	kt = (key_role == 1) ? tab->pk_type : tab->sk_type;

					key_from_jbv(tab, &v, topname, kt, key_role == 2, k);
					if (key_role == 1)
						have_pk = true;
					else
						have_sk = true;
					if (kt == ST_KEY_B)
					{
						/* count decoded bytes; keep base64 canonical */
						vsize = k->nbytes;
						if (strlen(k->display) != v.val.string.len ||
							memcmp(k->display, v.val.string.val, v.val.string.len) != 0)
							b_rewrite = true;
					}
				}
				break;
			default:
				break;
		}
		if (vsize >= 0 && depth > 0)
			stack[depth - 1].size += (depth > 1 && !stack[depth - 1].is_object) ? vsize + 1 : vsize;
	}
	out->size = stack[0].size;

	if (!have_pk || (tab->sk_name && !have_sk))
	{
		const char *missing = !have_pk ? tab->pk_name : tab->sk_name;

		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("item for table \"%s\" lacks key attribute \"%s\"",
						tab->relname, missing),
				 errdetail("One or more parameter values were invalid: Missing the key %s in the item",
						   missing)));
	}
	if (out->size > ST_MAX_ITEM_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("item for table \"%s\" is " INT64_FORMAT " bytes, more than the limit of %d bytes",
						tab->relname, out->size, ST_MAX_ITEM_BYTES),
				 errdetail("Item size has exceeded the maximum allowed size")));
	st_key_check_combined(&out->pk, tab->sk_name ? &out->sk : NULL, tab->relname);

	out->jsonb = canonical ? item : canonicalize_numbers(item);
	if (b_rewrite)
	{
		/* store B keys in canonical base64, the form reads return */
		JsonbValue	kv;
		Jsonb	   *patched = out->jsonb;
		const char *names[2] = {tab->pk_name, tab->sk_name};
		StKey	   *keys[2] = {&out->pk, &out->sk};
		StKeyType	types[2] = {tab->pk_type, tab->sk_type};

		for (int i = 0; i < 2; i++)
		{
			Datum		path;
			text	   *elem;

			if (names[i] == NULL || types[i] != ST_KEY_B)
				continue;
			elem = cstring_to_text(names[i]);
			path = PointerGetDatum(construct_array((Datum *) &elem, 1, TEXTOID, -1, false, TYPALIGN_INT));
			kv.type = jbvString;
			kv.val.string.val = keys[i]->display;
			kv.val.string.len = strlen(keys[i]->display);
			patched = DatumGetJsonbP(DirectFunctionCall4(jsonb_set, JsonbPGetDatum(patched), path,
														 JsonbPGetDatum(JsonbValueToJsonb(&kv)),
														 BoolGetDatum(true)));
		}
		out->jsonb = patched;
	}
}
