/*
 * keycond.h — a Query's KeyConditionExpression: parsed by the expression
 * parser, checked against a key schema (a table's, or a secondary index's
 * of up to 4 + 4 attributes) and reduced to the values a query statement
 * takes. Include after postgres.h.
 */
#ifndef SINGLETABLE_KEYCOND_H
#define SINGLETABLE_KEYCOND_H

#include "expr/expr.h"
#include "catalog/indexes.h"
#include "ops/ops.h"

/* The key a query reads: partition attributes, then sort attributes in index order */
typedef struct StKeySchema
{
	int			n_pk;
	int			n_sk;
	const char *pk_names[ST_MAX_INDEX_KEY_ATTRS];
	StKeyType	pk_types[ST_MAX_INDEX_KEY_ATTRS];
	const char *sk_names[ST_MAX_INDEX_KEY_ATTRS];
	StKeyType	sk_types[ST_MAX_INDEX_KEY_ATTRS];
} StKeySchema;

/*
 * A key condition in normal form: equality on every partition attribute,
 * equality on the first n_eq sort attributes, and op (NONE, or any sort
 * key operator, begins_with as ST_SK_RANGE) on sort attribute n_eq. Values
 * are in text form (S as is, N canonical, B base64).
 */
typedef struct StKeyCond
{
	StKeyText	pk[ST_MAX_INDEX_KEY_ATTRS];
	int			n_eq;
	StKeyText	sk_eq[ST_MAX_INDEX_KEY_ATTRS];
	StSkOp		op;
	StKeyText	sk1;
	StKeyText	sk2;
} StKeyCond;

extern void st_parse_key_condition(const char *expr, StExprEnv *env, const StKeySchema *ks,
								   StKeyCond *out);

#endif
