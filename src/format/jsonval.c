/*
 * jsonval.c — jsonb <-> DynamoDB values.
 *
 * JSON has strings, numbers, booleans, null, arrays and objects; DynamoDB
 * also has binary (B) and sets (SS, NS, BS). singletable encodes them as an
 * object whose only key is a tag:
 *
 *   {"$B": "<base64>"}   {"$SS": ["a", "b"]}   {"$NS": [1, 2.5]}   {"$BS": ["AQ=="]}
 *
 * Design notes: the section on jsonval.c in README.md of this folder.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "utils/errors.h"
#include "format/jsonval.h"
#include "format/keys.h"

/* What is being converted, for messages: "attribute "x" of item for table "t"" */
typedef struct ConvCtx
{
	const char *what;
	const char *attr;			/* current top-level attribute, not terminated */
	int			attrlen;
	bool		is_item;		/* a whole item: count_values applies the item limit */
	int64		nvalues;		/* values met so far that cost at least 1 byte */
} ConvCtx;

static StVal *container_to_val(JsonbContainer *c, ConvCtx *ctx, int depth, bool *canonical);
static StVal *jbv_to_val(JsonbValue *v, ConvCtx *ctx, int depth, bool *canonical);

/* The description of what is being converted, naming the attribute. */
static char *
ctx_desc(ConvCtx *ctx)
{
	if (ctx->attr)
		return psprintf("attribute \"%.*s\" of %s", ctx->attrlen, ctx->attr, ctx->what);
	return (char *) ctx->what;
}

/* Raises an error for a value that is not in the encoding (SQLSTATE code). */
static void
bad_value_code(ConvCtx *ctx, int code, const char *fmt, const char *arg)
{
	ereport(ERROR,
			(errcode(code),
			 errmsg("invalid value for %s: %s", ctx_desc(ctx), psprintf(fmt, arg)),
			 errhint("Binary and set values are written {\"$B\": \"<base64>\"}, {\"$SS\": [...]}, {\"$NS\": [...]}, {\"$BS\": [...]}; a map whose only key is one of these tags is written {\"$M\": {...}}.")));
}

/* A value not in the encoding: invalid_parameter_value. */
static void
bad_value(ConvCtx *ctx, const char *fmt, const char *arg)
{
	bad_value_code(ctx, ERRCODE_INVALID_PARAMETER_VALUE, fmt, arg);
}

/*
 * Counts n more values of an item and refuses the item once they cannot fit
 * in DynamoDB's size limit, before converting them: every top-level
 * attribute costs at least 1 byte (its name is not empty), every list
 * element and map entry at least 1 (the "+ 1" of L and M sizes), every set
 * member at least 1 except one empty S or B member per set (callers pass
 * n - 1 for sets). So an item with more than ST_MAX_ITEM_BYTES such values
 * is too large whatever they hold, and a container of a million keys is
 * refused in O(1) instead of being converted first.
 */
static void
count_values(ConvCtx *ctx, int n)
{
	if (!ctx->is_item)
		return;
	ctx->nvalues += n;
	if (ctx->nvalues > ST_MAX_ITEM_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s has more than %d attributes, elements and set members, more than fit in the limit of %d bytes",
						ctx->what, ST_MAX_ITEM_BYTES, ST_MAX_ITEM_BYTES),
				 st_errdetail_dynamodb("Item size has exceeded the maximum allowed size")));
}

/* A JSON number as a canonical N value. */
static StVal *
number_val(Numeric num, ConvCtx *ctx, bool *canonical)
{
	char	   *s = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(num)));
	StNumber	n;
	StNumberError err = st_number_parse(s, strlen(s), &n);

	if (err != ST_NUM_OK)
		ereport(ERROR,
				(errcode(err == ST_NUM_SYNTAX ? ERRCODE_INVALID_TEXT_REPRESENTATION : ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("invalid number for %s", ctx_desc(ctx)),
				 st_errdetail_dynamodb("%s", st_number_error_text(err))));
	if (strcmp(s, n.canonical) != 0)
		*canonical = false;
	return st_val_make_str(SV_N, n.canonical, strlen(n.canonical));
}

/* A base64 JSON string as a B value. */
static StVal *
binary_val(JsonbValue *v, ConvCtx *ctx, bool *canonical)
{
	int			len;
	char	   *bin;
	int			elen;
	char	   *enc;

	if (v->type != jbvString)
		bad_value(ctx, "%s must be a base64 string", "a binary value");
	bin = st_base64_decode(v->val.string.val, v->val.string.len, &len);
	if (bin == NULL)
		bad_value_code(ctx, ERRCODE_INVALID_TEXT_REPRESENTATION, "%s is not valid base64",
					   "a binary value");
	enc = st_base64_encode(bin, len, &elen);
	if (elen != v->val.string.len || memcmp(enc, v->val.string.val, elen) != 0)
		*canonical = false;
	return st_val_make_str(SV_B, bin, len);
}

/* Converts one JSON value (scalar or container). depth counts nesting levels. */
StVal *
st_jbv_to_val(JsonbValue *v, const char *what, int depth, bool *canonical)
{
	ConvCtx		ctx = {what, NULL, 0, false, 0};

	*canonical = true;			/* cleared below when some part is not in stored form */
	return jbv_to_val(v, &ctx, depth, canonical);
}

static StVal *
jbv_to_val(JsonbValue *v, ConvCtx *ctx, int depth, bool *canonical)
{
	switch (v->type)
	{
		case jbvString:
			return st_val_make_str(SV_S, v->val.string.val, v->val.string.len);
		case jbvNumeric:
			return number_val(v->val.numeric, ctx, canonical);
		case jbvBool:
			{
				StVal	   *r = palloc0(sizeof(StVal));

				r->type = SV_BOOL;
				r->u.boolean = v->val.boolean;
				return r;
			}
		case jbvNull:
			{
				StVal	   *r = palloc0(sizeof(StVal));

				r->type = SV_NULL;
				return r;
			}
		case jbvBinary:
			return container_to_val(v->val.binary.data, ctx, depth, canonical);
		default:
			elog(ERROR, "unexpected jsonb value type %d", v->type);
	}
	return NULL;
}

/* The elements of a tagged set: an array of strings (SS, BS) or numbers (NS). */
static StVal *
set_val(JsonbValue *arr, StValType type, ConvCtx *ctx, bool *canonical)
{
	StVal	   *r = palloc0(sizeof(StVal));
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	int			n = 0;

	if (arr->type != jbvBinary || !JsonContainerIsArray(arr->val.binary.data))
		bad_value(ctx, "%s must be a JSON array", type == SV_SS ? "$SS" : type == SV_NS ? "$NS" : "$BS");
	r->type = type;
	/* one empty S or B member may cost nothing */
	count_values(ctx, JsonContainerSize(arr->val.binary.data) - 1);
	r->u.list.elems = palloc(sizeof(StVal *) * Max(JsonContainerSize(arr->val.binary.data), 1));
	it = JsonbIteratorInit(arr->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		CHECK_FOR_INTERRUPTS();
		if (tok != WJB_ELEM)
			continue;
		if (type == SV_SS && v.type == jbvString)
			r->u.list.elems[n++] = st_val_make_str(SV_S, v.val.string.val, v.val.string.len);
		else if (type == SV_NS && v.type == jbvNumeric)
			r->u.list.elems[n++] = number_val(v.val.numeric, ctx, canonical);
		else if (type == SV_BS && v.type == jbvString)
			r->u.list.elems[n++] = binary_val(&v, ctx, canonical);
		else
			bad_value(ctx, "%s", type == SV_SS ? "$SS members must be strings" :
					  type == SV_NS ? "$NS members must be numbers" : "$BS members must be base64 strings");
	}
	r->u.list.n = n;
	/* sorted input stays canonical; normalize sorts and rejects duplicates */
	for (int i = 1; i < n && *canonical; i++)
	{
		const StVal *a = r->u.list.elems[i - 1],
				   *b = r->u.list.elems[i];

		CHECK_FOR_INTERRUPTS();
		if (st_val_compare(a, b) >= 0)
			*canonical = false;
	}
	st_val_set_normalize(r, ctx_desc(ctx));
	return r;
}

/* Converts a jsonb array or object, decoding tagged values. */
static StVal *
container_to_val(JsonbContainer *c, ConvCtx *ctx, int depth, bool *canonical)
{
	JsonbIterator *it;
	JsonbValue	k,
				v;
	JsonbIteratorToken tok;
	StVal	   *r;

	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	if (JsonContainerIsObject(c) && JsonContainerSize(c) == 1)
	{
		StTag		tag;

		it = JsonbIteratorInit(c);
		JsonbIteratorNext(&it, &k, true);	/* begin object */
		JsonbIteratorNext(&it, &k, true);	/* the key */
		JsonbIteratorNext(&it, &v, true);	/* its value */
		tag = st_tag_of(k.val.string.val, k.val.string.len);
		if (tag == TAG_B)
			return binary_val(&v, ctx, canonical);
		if (tag == TAG_SS)
			return set_val(&v, SV_SS, ctx, canonical);
		if (tag == TAG_NS)
			return set_val(&v, SV_NS, ctx, canonical);
		if (tag == TAG_BS)
			return set_val(&v, SV_BS, ctx, canonical);
		if (tag == TAG_M)
		{
			if (v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
				bad_value(ctx, "%s must be a JSON object", "$M");
			c = v.val.binary.data;
			/* fall through to a plain map: its own keys are not tags */
			if (depth >= ST_MAX_DEPTH)
				goto too_deep;
			count_values(ctx, JsonContainerSize(c));
			r = st_val_make_map(JsonContainerSize(c));
			it = JsonbIteratorInit(c);
			while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
			{
				CHECK_FOR_INTERRUPTS();
				if (tok == WJB_KEY)
				{
					JsonbIteratorNext(&it, &v, true);
					/* jsonb's keys are unique and come in order */
					st_val_map_append(r, k.val.string.val, k.val.string.len,
									  jbv_to_val(&v, ctx, depth + 1, canonical));
				}
			}
			return r;
		}
	}
	if (depth >= ST_MAX_DEPTH)
		goto too_deep;

	count_values(ctx, JsonContainerSize(c));
	it = JsonbIteratorInit(c);
	if (JsonContainerIsArray(c))
	{
		int			n = 0;

		r = palloc0(sizeof(StVal));
		r->type = SV_L;
		r->u.list.elems = palloc(sizeof(StVal *) * Max(JsonContainerSize(c), 1));
		while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		{
			CHECK_FOR_INTERRUPTS();
			if (tok == WJB_ELEM)
				r->u.list.elems[n++] = jbv_to_val(&v, ctx, depth + 1, canonical);
		}
		r->u.list.n = n;
		return r;
	}
	r = st_val_make_map(JsonContainerSize(c));
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		CHECK_FOR_INTERRUPTS();
		if (tok == WJB_KEY)
		{
			if (k.val.string.len == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s has an attribute with an empty name", ctx_desc(ctx))));
			JsonbIteratorNext(&it, &v, true);
			if (depth == 0)
			{
				ctx->attr = k.val.string.val;
				ctx->attrlen = k.val.string.len;
			}
			/* jsonb's keys are unique and come in order */
			st_val_map_append(r, k.val.string.val, k.val.string.len,
							  jbv_to_val(&v, ctx, depth + 1, canonical));
		}
	}
	return r;

too_deep:
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("%s is nested more than %d levels deep", ctx_desc(ctx), ST_MAX_DEPTH),
			 st_errdetail_dynamodb("Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit")));
	return NULL;
}

/*
 * Converts a whole item. *canonical is cleared when the document is not in
 * the stored form (then st_val_to_jsonb gives that form). An item with more
 * values than can fit in 409,600 bytes is refused (see count_values).
 */
StVal *
st_jsonb_to_val(Jsonb *jb, const char *what, bool *canonical)
{
	JsonbValue	v;
	ConvCtx		ctx = {what, NULL, 0, true, 0};

	*canonical = true;
	if (JB_ROOT_IS_SCALAR(jb))
	{
		JsonbExtractScalar(&jb->root, &v);
		return jbv_to_val(&v, &ctx, 0, canonical);
	}
	return container_to_val(&jb->root, &ctx, 0, canonical);
}

static JsonbValue *
push_scalar_string(JsonbParseState **st, JsonbIteratorToken tok, const char *s, int len)
{
	JsonbValue	v;

	v.type = jbvString;
	v.val.string.val = (char *) s;
	v.val.string.len = len;
	return pushJsonbValue(st, tok, &v);
}

static JsonbValue *push_val(JsonbParseState **st, JsonbIteratorToken tok, const StVal *v,
							const char *const *b_keys, int depth);

static void
push_tagged_begin(JsonbParseState **st, const char *tag)
{
	pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
	push_scalar_string(st, WJB_KEY, tag, strlen(tag));
}

/*
 * Pushes v as a value (tok WJB_VALUE or WJB_ELEM) in the stored encoding;
 * returns what the last push returned (the root, for a top-level container).
 */
static JsonbValue *
push_val(JsonbParseState **st, JsonbIteratorToken tok, const StVal *v, const char *const *b_keys,
		 int depth)
{
	JsonbValue	jv;
	JsonbValue *res;

	check_stack_depth();
	if ((v->type == SV_L || v->type == SV_M) && depth >= ST_MAX_DEPTH)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("item is nested more than %d levels deep", ST_MAX_DEPTH),
				 st_errdetail_dynamodb("Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit")));
	switch (v->type)
	{
		case SV_S:
			return push_scalar_string(st, tok, v->u.str.data, v->u.str.len);
		case SV_N:
			jv.type = jbvNumeric;
			jv.val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in,
																 CStringGetDatum(pnstrdup(v->u.str.data, v->u.str.len)),
																 ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
			return pushJsonbValue(st, tok, &jv);
		case SV_BOOL:
			jv.type = jbvBool;
			jv.val.boolean = v->u.boolean;
			return pushJsonbValue(st, tok, &jv);
		case SV_NULL:
			jv.type = jbvNull;
			return pushJsonbValue(st, tok, &jv);
		case SV_B:
			{
				int			len;
				char	   *enc = st_base64_encode(v->u.str.data, v->u.str.len, &len);

				push_tagged_begin(st, ST_TAG_B);
				push_scalar_string(st, WJB_VALUE, enc, len);
				return pushJsonbValue(st, WJB_END_OBJECT, NULL);
			}
		case SV_SS:
		case SV_NS:
		case SV_BS:
			push_tagged_begin(st, v->type == SV_SS ? ST_TAG_SS : v->type == SV_NS ? ST_TAG_NS : ST_TAG_BS);
			pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
			for (int i = 0; i < v->u.list.n; i++)
			{
				const StVal *e = v->u.list.elems[i];

				CHECK_FOR_INTERRUPTS();
				if (e->type == SV_B)
				{
					int			len;
					char	   *enc = st_base64_encode(e->u.str.data, e->u.str.len, &len);

					push_scalar_string(st, WJB_ELEM, enc, len);
				}
				else
					push_val(st, WJB_ELEM, e, NULL, depth + 1);
			}
			pushJsonbValue(st, WJB_END_ARRAY, NULL);
			return pushJsonbValue(st, WJB_END_OBJECT, NULL);
		case SV_L:
			pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
			for (int i = 0; i < v->u.list.n; i++)
			{
				CHECK_FOR_INTERRUPTS();
				push_val(st, WJB_ELEM, v->u.list.elems[i], NULL, depth + 1);
			}
			return pushJsonbValue(st, WJB_END_ARRAY, NULL);
		case SV_M:
			{
				bool		wrap = (v->u.map.n == 1 &&
									st_tag_of(v->u.map.entries[0].key, v->u.map.entries[0].keylen) != TAG_NONE);

				if (wrap)
					push_tagged_begin(st, ST_TAG_M);
				pushJsonbValue(st, WJB_BEGIN_OBJECT, NULL);
				for (int i = 0; i < v->u.map.n; i++)
				{
					const StMapEntry *e = &v->u.map.entries[i];
					bool		plain_b = false;

					CHECK_FOR_INTERRUPTS();
					push_scalar_string(st, WJB_KEY, e->key, e->keylen);
					/* B key attributes of the table are plain base64 strings */
					for (int k = 0; b_keys && k < 2; k++)
						if (b_keys[k] && (int) strlen(b_keys[k]) == e->keylen &&
							memcmp(b_keys[k], e->key, e->keylen) == 0 && e->val->type == SV_B)
							plain_b = true;
					if (plain_b)
					{
						int			len;
						char	   *enc = st_base64_encode(e->val->u.str.data, e->val->u.str.len, &len);

						push_scalar_string(st, WJB_VALUE, enc, len);
					}
					else
						push_val(st, WJB_VALUE, e->val, NULL, depth + 1);
				}
				res = pushJsonbValue(st, WJB_END_OBJECT, NULL);
				if (wrap)
					res = pushJsonbValue(st, WJB_END_OBJECT, NULL);
				return res;
			}
	}
	return NULL;
}

/*
 * The stored jsonb form of v. b_keys names (up to two) top-level attributes
 * written as plain base64 strings: the table's B key attributes.
 */
Jsonb *
st_val_to_jsonb(const StVal *v, const char *const *b_keys)
{
	JsonbParseState *st = NULL;

	if (v->type == SV_S || v->type == SV_N || v->type == SV_BOOL || v->type == SV_NULL)
	{
		/* a scalar root: build it as the element of an array, then take it out */
		JsonbValue *arr;
		Jsonb	   *wrapped;

		pushJsonbValue(&st, WJB_BEGIN_ARRAY, NULL);
		push_val(&st, WJB_ELEM, v, NULL, 0);
		arr = pushJsonbValue(&st, WJB_END_ARRAY, NULL);
		wrapped = JsonbValueToJsonb(arr);
		return JsonbValueToJsonb(getIthJsonbValueFromContainer(&wrapped->root, 0));
	}
	return JsonbValueToJsonb(push_val(&st, WJB_VALUE, v, b_keys, 0));
}
