/*
 * expr_glue.h — what the extension adds around the expression engine:
 * placeholders from jsonb, and the conditional-check failure.
 */
#ifndef SINGLETABLE_EXPR_GLUE_H
#define SINGLETABLE_EXPR_GLUE_H

#include "utils/jsonb.h"

#include "expr/expr.h"
#include "registry.h"

/* ConditionalCheckFailedException: class 23 (integrity constraint violation), subclass S01 */
#define ERRCODE_ST_CONDITIONAL_CHECK_FAILED MAKE_SQLSTATE('2','3','S','0','1')

/* The top-level attributes an expression reads, collected once per call */
typedef struct StAttrNames
{
	const char **names;
	int		   *lens;
	int			n;
} StAttrNames;

extern StExprEnv *st_env_build(StTable *tab, Jsonb *names, Jsonb *vals);
extern StAttrNames *st_attr_names(const StNode *cond, const StProjection *proj);
extern StVal *st_item_attrs(StTable *tab, Jsonb *item, const StAttrNames *names);
extern void st_condition_failed(StTable *tab, Jsonb *current, bool return_old);
extern bool st_parse_none_or_all_old(text *arg, const char *what, const char *detail);
extern bool st_return_old_on_failure(text *arg);

#endif
