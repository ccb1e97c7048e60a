/*
 * jsonpush.h — building a jsonb with pushJsonbValue: an object's key, and
 * its members of the kinds responses are made of (a string, a number, a
 * boolean, a jsonb, any JsonbValue); the JsonbValue of a string or of a
 * jsonb, for pushJsonbValue and for the writer of jsonbw.h alike. Nothing
 * is copied: the strings and jsonbs must live until the jsonb is built.
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_JSONPUSH_H
#define SINGLETABLE_JSONPUSH_H

#include "utils/jsonb.h"

/* v set to the string s (terminated) */
static inline void
st_jbv_string(JsonbValue *v, const char *s)
{
	v->type = jbvString;
	v->val.string.val = (char *) s;
	v->val.string.len = strlen(s);
}

/* v set to the root container of j (a raw scalar stays wrapped: see st_push_jsonb_as) */
static inline void
st_jbv_jsonb(JsonbValue *v, Jsonb *j)
{
	v->type = jbvBinary;
	v->val.binary.data = &j->root;
	v->val.binary.len = VARSIZE(j) - VARHDRSZ;
}

/* "key" of the object being built (WJB_KEY); its value is pushed next */
extern void st_push_key(JsonbParseState **st, const char *key);

/* The member "key": v of the object being built */
extern void st_push_member(JsonbParseState **st, const char *key, JsonbValue *v);
extern void st_push_string(JsonbParseState **st, const char *key, const char *value);
extern void st_push_int(JsonbParseState **st, const char *key, int64 value);
extern void st_push_bool(JsonbParseState **st, const char *key, bool value);
extern void st_push_jsonb(JsonbParseState **st, const char *key, Jsonb *j);

/* j as an object's value (tok WJB_VALUE, after st_push_key) or an array's element (WJB_ELEM) */
extern void st_push_jsonb_as(JsonbParseState **st, JsonbIteratorToken tok, Jsonb *j);

#endif
