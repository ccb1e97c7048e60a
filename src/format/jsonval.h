/*
 * jsonval.h — converting between jsonb and DynamoDB values (StVal), with
 * singletable's encoding of the types JSON lacks.
 */
#ifndef SINGLETABLE_JSONVAL_H
#define SINGLETABLE_JSONVAL_H

#include "miscadmin.h"
#include "utils/jsonb.h"

#include "expr/expr.h"

/* Tags of the encoding: an object with exactly one of these as its only key */
#define ST_TAG_B	"$B"
#define ST_TAG_SS	"$SS"
#define ST_TAG_NS	"$NS"
#define ST_TAG_BS	"$BS"
#define ST_TAG_M	"$M"

/* Which of the tags a key is (TAG_NONE: none) */
typedef enum StTag
{
	TAG_NONE,
	TAG_B,
	TAG_SS,
	TAG_NS,
	TAG_BS,
	TAG_M
} StTag;

#define ST_IS_TAG(key, len, tag) ((len) == sizeof(tag) - 1 && memcmp((key), (tag), (len)) == 0)

/*
 * The tag key (len bytes, not terminated) is, if any: a tagged value is an
 * object whose only key is it. Inline: the size of every stored item is read
 * with it (size.c).
 */
static inline StTag
st_tag_of(const char *key, int len)
{
	if (len < 2 || key[0] != '$')
		return TAG_NONE;
	if (ST_IS_TAG(key, len, ST_TAG_B))
		return TAG_B;
	if (ST_IS_TAG(key, len, ST_TAG_SS))
		return TAG_SS;
	if (ST_IS_TAG(key, len, ST_TAG_NS))
		return TAG_NS;
	if (ST_IS_TAG(key, len, ST_TAG_BS))
		return TAG_BS;
	if (ST_IS_TAG(key, len, ST_TAG_M))
		return TAG_M;
	return TAG_NONE;
}

extern StVal *st_jsonb_to_val(Jsonb *jb, const char *what, bool *canonical);
extern StVal *st_jbv_to_val(JsonbValue *v, const char *what, int depth, bool *canonical);
extern Jsonb *st_val_to_jsonb(const StVal *v, const char *const *b_keys);

/* Whether a value found in a container is an object, or an array (not a raw scalar) */
static inline bool
st_jbv_is_object(const JsonbValue *v)
{
	return v != NULL && v->type == jbvBinary && JsonContainerIsObject(v->val.binary.data);
}

static inline bool
st_jbv_is_array(const JsonbValue *v)
{
	return v != NULL && v->type == jbvBinary && JsonContainerIsArray(v->val.binary.data) &&
		!JsonContainerIsScalar(v->val.binary.data);
}

/*
 * The next member of the object *it iterates (JsonbIteratorInit of an
 * object container): its key and its value (a container as jbvBinary);
 * false after the last. Calls CHECK_FOR_INTERRUPTS: the objects of a request
 * are user input.
 */
static inline bool
st_jbv_next_member(JsonbIterator **it, JsonbValue *k, JsonbValue *v)
{
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(it, k, true)) != WJB_DONE)
		if (tok == WJB_KEY)
		{
			(void) JsonbIteratorNext(it, v, true);
			CHECK_FOR_INTERRUPTS();
			return true;
		}
	return false;
}

#endif
