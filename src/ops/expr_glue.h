/*
 * expr_glue.h — what the extension adds around the expression engine:
 * placeholders from jsonb, and stored items as values.
 */
#ifndef SINGLETABLE_EXPR_GLUE_H
#define SINGLETABLE_EXPR_GLUE_H

#include "utils/jsonb.h"

#include "expr/expr.h"
#include "catalog/registry.h"

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

#endif
