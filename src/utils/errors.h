/*
 * errors.h — the one error contract of singletable.
 *
 * Every error the extension raises has a specific SQLSTATE, and every
 * SQLSTATE it raises maps to exactly one DynamoDB exception
 * (st_dynamodb_exception). Where DynamoDB has a message for the error, the
 * DETAIL is a small JSON object, DynamoDB's own error body:
 *
 *     {"__type": "com.amazon.coral.validate#ValidationException",
 *      "message": "One or more parameter values were invalid: ..."}
 *
 * Design notes: the section on errors.h in README.md of this folder.
 */
#ifndef SINGLETABLE_ERRORS_H
#define SINGLETABLE_ERRORS_H

/*
 * singletable's SQLSTATEs (ERRCODE_ST_*), DynamoDB's exceptions as "__type"
 * has them (ST_EXC_*) and the pairing of the two (ST_SQLSTATE_EXCEPTIONS and
 * the class fallbacks), generated at build time from the error table
 * utils/errors.tab, which the gateway's table comes from too.
 */
#include "utils/errors_table.h"

extern const char *st_dynamodb_exception(int sqlerrcode);
extern int	st_errdetail_dynamodb(const char *fmt,...) pg_attribute_printf(1, 2);
extern int	st_errdetail_dynamodb_members(const char *members, const char *fmt,...) pg_attribute_printf(2, 3);

#endif
