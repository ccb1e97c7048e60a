/*
 * expr_glue.c — the expression engine inside the server: its error reporting
 * (ereport), placeholders from the names/vals arguments, stored items as
 * StVal, and the conditional-check failure.
 */
#include "postgres.h"

#include <stdarg.h>

#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "utils/errors.h"
#include "ops/expr_glue.h"
#include "format/jsonval.h"

/* The engine's errors as ereport(ERROR) with an errcode per kind. */
void
st_expr_error(StExprErrorKind kind, const char *detail, const char *fmt,...)
{
	StringInfoData msg;
	int			code;

	/* format the whole message: a fixed buffer could cut a UTF-8 character */
	initStringInfo(&msg);
	for (;;)
	{
		va_list		ap;
		int			needed;

		va_start(ap, fmt);
		needed = appendStringInfoVA(&msg, fmt, ap);
		va_end(ap);
		if (needed == 0)
			break;
		enlargeStringInfo(&msg, needed);
	}
	switch (kind)
	{
		case ST_ERR_SYNTAX:
			code = ERRCODE_SYNTAX_ERROR;
			break;
		case ST_ERR_LIMIT:
			code = ERRCODE_PROGRAM_LIMIT_EXCEEDED;
			break;
		case ST_ERR_NUMBER_RANGE:
			code = ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE;
			break;
		default:
			code = ERRCODE_INVALID_PARAMETER_VALUE;
			break;
	}
	ereport(ERROR,
			(errcode(code),
			 errmsg_internal("%s", msg.data),
			 detail ? st_errdetail_dynamodb("%s", detail) : 0));
	pg_unreachable();
}

/* Whether s[0..len) is a placeholder: prefix then [A-Za-z0-9_]+ */
static bool
valid_placeholder(const char *s, int len, char prefix)
{
	if (len < 2 || s[0] != prefix)
		return false;
	for (int i = 1; i < len; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
			  (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

/* Checks that a names/vals argument is a non-empty JSON object. */
static void
check_map_arg(Jsonb *jb, const char *arg, const char *dynamo)
{
	if (!JB_ROOT_IS_OBJECT(jb) || JB_ROOT_IS_SCALAR(jb))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a JSON object", arg)));
	if (JB_ROOT_COUNT(jb) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not be empty", arg),
				 st_errdetail_dynamodb("%s must not be empty", dynamo)));
}

/*
 * The placeholders of one call: names {"#n": "attribute"} and vals
 * {":v": value} (values in singletable's JSON encoding).
 */
StExprEnv *
st_env_build(StTable *tab, Jsonb *names, Jsonb *vals)
{
	StExprEnv  *env = palloc0(sizeof(StExprEnv));
	JsonbIterator *it;
	JsonbValue	k,
				v;

	env->key_names[0] = tab->pk_name;
	env->key_names[1] = tab->sk_name;
	if (names)
	{
		int			n = 0;

		check_map_arg(names, "names", "ExpressionAttributeNames");
		env->name_keys = palloc(sizeof(char *) * JB_ROOT_COUNT(names));
		env->name_values = palloc(sizeof(char *) * JB_ROOT_COUNT(names));
		env->name_lens = palloc(sizeof(int) * JB_ROOT_COUNT(names));
		env->name_used = palloc0(sizeof(bool) * JB_ROOT_COUNT(names));
		it = JsonbIteratorInit(&names->root);
		while (st_jbv_next_member(&it, &k, &v))
		{
			if (!valid_placeholder(k.val.string.val, k.val.string.len, '#'))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("names key \"%.*s\" is not a valid #name placeholder",
								Min(k.val.string.len, 100), k.val.string.val),
						 st_errdetail_dynamodb("ExpressionAttributeNames contains invalid key: Syntax error; key: \"%.*s\"",
								   Min(k.val.string.len, 100), k.val.string.val),
						 errhint("Placeholders are # followed by letters, digits or underscores.")));
			if (v.type != jbvString || v.val.string.len == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("names value for \"%.*s\" must be a non-empty string",
								k.val.string.len, k.val.string.val)));
			env->name_keys[n] = pnstrdup(k.val.string.val, k.val.string.len);
			env->name_values[n] = v.val.string.val;
			env->name_lens[n] = v.val.string.len;
			n++;
		}
		env->nnames = n;
	}
	if (vals)
	{
		int			n = 0;

		check_map_arg(vals, "vals", "ExpressionAttributeValues");
		env->value_keys = palloc(sizeof(char *) * JB_ROOT_COUNT(vals));
		env->values = palloc(sizeof(StVal *) * JB_ROOT_COUNT(vals));
		env->value_used = palloc0(sizeof(bool) * JB_ROOT_COUNT(vals));
		it = JsonbIteratorInit(&vals->root);
		while (st_jbv_next_member(&it, &k, &v))
		{
			bool		canonical;
			char	   *what;

			if (!valid_placeholder(k.val.string.val, k.val.string.len, ':'))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("vals key \"%.*s\" is not a valid :value placeholder",
								Min(k.val.string.len, 100), k.val.string.val),
						 st_errdetail_dynamodb("ExpressionAttributeValues contains invalid key: Syntax error; key: \"%.*s\"",
								   Min(k.val.string.len, 100), k.val.string.val),
						 errhint("Placeholders are : followed by letters, digits or underscores.")));
			env->value_keys[n] = pnstrdup(k.val.string.val, k.val.string.len);
			what = psprintf("vals key %s", env->value_keys[n]);
			/* a value is an attribute value: its containers start at level 1 */
			env->values[n] = st_jbv_to_val(&v, what, 1, &canonical);
			n++;
		}
		env->nvalues = n;
	}
	return env;
}

/* Converts the top-level attribute value v of a stored item. */
static StVal *
attr_val(StTable *tab, const char *name, int len, JsonbValue *v)
{
	bool		canonical;
	StVal	   *r = st_jbv_to_val(v, "stored item", 1, &canonical);

	/* B key attributes are stored as plain base64 strings */
	if (r->type == SV_S)
		for (int k = 0; k < 2; k++)
		{
			const char *key = k == 0 ? tab->pk_name : tab->sk_name;
			StKeyType	kt = k == 0 ? tab->pk_type : tab->sk_type;

			if (key && kt == ST_KEY_B && (int) strlen(key) == len && memcmp(key, name, len) == 0)
			{
				int			blen;
				char	   *bin = st_base64_decode(r->u.str.data, r->u.str.len, &blen);

				if (bin)
					r = st_val_make_str(SV_B, bin, blen);
			}
		}
	return r;
}

/* The top-level attribute names that cond and proj read. */
StAttrNames *
st_attr_names(const StNode *cond, const StProjection *proj)
{
	StAttrNames *an = palloc0(sizeof(StAttrNames));
	int			cap = 0;

	if (cond)
		st_expr_collect_top_names(cond, &an->names, &an->lens, &an->n, &cap);
	if (proj)
		for (int i = 0; i < proj->n; i++)
		{
			StNode		path_node;

			memset(&path_node, 0, sizeof(path_node));
			path_node.kind = SN_PATH;
			path_node.path = proj->paths[i];
			st_expr_collect_top_names(&path_node, &an->names, &an->lens, &an->n, &cap);
		}
	return an;
}

/*
 * A stored item as an StVal map: all of it (names NULL), or only the listed
 * top-level attributes, which is all that evaluating an expression needs.
 * item NULL gives an empty map (the item does not exist).
 */
StVal *
st_item_attrs(StTable *tab, Jsonb *item, const StAttrNames *names)
{
	StVal	   *r;

	if (item == NULL)
		return st_val_make_map(0);
	if (names == NULL)
	{
		JsonbIterator *it = JsonbIteratorInit(&item->root);
		JsonbValue	k,
					v;

		r = st_val_make_map(JB_ROOT_COUNT(item));
		while (st_jbv_next_member(&it, &k, &v))
			/* a stored item's keys are unique and in jsonb's order */
			st_val_map_append(r, k.val.string.val, k.val.string.len,
							  attr_val(tab, k.val.string.val, k.val.string.len, &v));
		return r;
	}
	r = st_val_make_map(names->n);
	for (int i = 0; i < names->n; i++)
	{
		JsonbValue *v = getKeyJsonValueFromContainer(&item->root, names->names[i], names->lens[i], NULL);

		if (v)
			st_val_map_put(r, names->names[i], names->lens[i],
						   attr_val(tab, names->names[i], names->lens[i], v));
	}
	return r;
}
