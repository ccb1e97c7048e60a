/*
 * dynamodb_legacy.h — DynamoDB's legacy (non-expression) request parameters
 * for singletable.dynamodb: a request that carries AttributesToGet,
 * KeyConditions, QueryFilter, ScanFilter, Expected, AttributeUpdates or
 * ConditionalOperator is rewritten into the expression members its handler
 * takes (src/dynamodb_legacy.c).
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_DYNAMODB_LEGACY_H
#define SINGLETABLE_DYNAMODB_LEGACY_H

#include "api/dynamodb.h"

/*
 * Replaces call->req by the request rewritten into expressions when it
 * has a legacy parameter of its operation; leaves it alone otherwise.
 * Raises DynamoDB's ValidationException for invalid legacy parameters and
 * for legacy parameters mixed with expressions.
 */
extern void st_ddb_legacy_rewrite(StDdbCall *call);
extern void st_ddb_check_expression_members(StDdbCall *call);

#endif
