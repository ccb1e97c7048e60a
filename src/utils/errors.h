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
 * so that a SQL caller, the JSON API and the gateway get the exception and
 * DynamoDB's text without parsing prose. errmsg stays in PostgreSQL's style
 * (lower case, names the table, attribute or limit). Raise such an error with
 *
 *     ereport(ERROR, (errcode(ERRCODE_...), errmsg("..."),
 *                     st_errdetail_dynamodb("DynamoDB's message %s", ...)));
 *
 * st_errdetail_dynamodb reads the SQLSTATE already set by errcode(), so the
 * exception in DETAIL always agrees with the SQLSTATE. The error table
 * utils/errors.tab is the one place that pairs them, for the extension and
 * the gateway alike; README's SQLSTATE table documents it.
 *
 * Include after postgres.h.
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
