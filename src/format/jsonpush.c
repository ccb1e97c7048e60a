/*
 * jsonpush.c — the members of a jsonb being built with pushJsonbValue
 * (jsonpush.h): the one set of these helpers for every response the
 * extension builds (the JSON API, batches, transactions).
 */
#include "postgres.h"

#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "format/jsonpush.h"

void
st_push_key(JsonbParseState **st, const char *key)
{
	JsonbValue	k;

	st_jbv_string(&k, key);
	(void) pushJsonbValue(st, WJB_KEY, &k);
}

void
st_push_member(JsonbParseState **st, const char *key, JsonbValue *v)
{
	st_push_key(st, key);
	(void) pushJsonbValue(st, WJB_VALUE, v);
}

void
st_push_string(JsonbParseState **st, const char *key, const char *value)
{
	JsonbValue	v;

	st_jbv_string(&v, value);
	st_push_member(st, key, &v);
}

void
st_push_int(JsonbParseState **st, const char *key, int64 value)
{
	JsonbValue	v;

	v.type = jbvNumeric;
	v.val.numeric = int64_to_numeric(value);
	st_push_member(st, key, &v);
}

void
st_push_bool(JsonbParseState **st, const char *key, bool value)
{
	JsonbValue	v;

	v.type = jbvBool;
	v.val.boolean = value;
	st_push_member(st, key, &v);
}

void
st_push_jsonb(JsonbParseState **st, const char *key, Jsonb *j)
{
	st_push_key(st, key);
	st_push_jsonb_as(st, WJB_VALUE, j);
}

/*
 * A raw scalar (a jsonb that is a string, number, boolean or null) is pushed
 * as that scalar; a container is copied into the jsonb being built.
 */
void
st_push_jsonb_as(JsonbParseState **st, JsonbIteratorToken tok, Jsonb *j)
{
	JsonbValue	v;

	if (JB_ROOT_IS_SCALAR(j))
		JsonbExtractScalar(&j->root, &v);
	else
		st_jbv_jsonb(&v, j);
	(void) pushJsonbValue(st, tok, &v);
}
