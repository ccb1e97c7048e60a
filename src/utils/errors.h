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
 * exception in DETAIL always agrees with the SQLSTATE. The table below is
 * the one place that pairs them; README's SQLSTATE table documents it.
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_ERRORS_H
#define SINGLETABLE_ERRORS_H

/* ConditionalCheckFailedException: class 23 (integrity constraint violation), subclass S01 */
#define ERRCODE_ST_CONDITIONAL_CHECK_FAILED MAKE_SQLSTATE('2','3','S','0','1')

/*
 * TransactionCanceledException: a transaction's condition failed or an
 * action was invalid for its item (DETAIL: DynamoDB's body with its
 * CancellationReasons); class 23 like a failed condition, subclass S02
 */
#define ERRCODE_ST_TRANSACTION_CANCELED MAKE_SQLSTATE('2','3','S','0','2')

/* IdempotentParameterMismatchException: a ClientRequestToken reused with another request */
#define ERRCODE_ST_IDEMPOTENT_MISMATCH MAKE_SQLSTATE('2','2','S','0','1')

/* TransactionInProgressException: the first call with that token is still running */
#define ERRCODE_ST_TRANSACTION_IN_PROGRESS MAKE_SQLSTATE('5','5','S','0','1')

/* SerializationException: a DynamoDB request whose JSON has the wrong type (singletable.dynamodb) */
#define ERRCODE_ST_SERIALIZATION MAKE_SQLSTATE('2','2','S','0','2')

/* UnknownOperationException: singletable.dynamodb was given an operation it does not know */
#define ERRCODE_ST_UNKNOWN_OPERATION MAKE_SQLSTATE('4','2','S','0','1')

/* DynamoDB's error types, as they appear in "__type" on the wire */
#define ST_EXC_VALIDATION		"com.amazon.coral.validate#ValidationException"
#define ST_EXC_NS				"com.amazonaws.dynamodb.v20120810#"
#define ST_EXC_CONDITION		ST_EXC_NS "ConditionalCheckFailedException"
#define ST_EXC_NOT_FOUND		ST_EXC_NS "ResourceNotFoundException"
#define ST_EXC_IN_USE			ST_EXC_NS "ResourceInUseException"
#define ST_EXC_CONFLICT			ST_EXC_NS "TransactionConflictException"
#define ST_EXC_CANCELED			ST_EXC_NS "TransactionCanceledException"
#define ST_EXC_IDEMPOTENT		ST_EXC_NS "IdempotentParameterMismatchException"
#define ST_EXC_IN_PROGRESS		ST_EXC_NS "TransactionInProgressException"
#define ST_EXC_ACCESS_DENIED	"com.amazon.coral.service#AccessDeniedException"
#define ST_EXC_THROTTLING		"com.amazon.coral.availability#ThrottlingException"
#define ST_EXC_INTERNAL			ST_EXC_NS "InternalServerError"
#define ST_EXC_SERIALIZATION	"com.amazon.coral.service#SerializationException"
#define ST_EXC_UNKNOWN_OPERATION	"com.amazon.coral.service#UnknownOperationException"

extern const char *st_dynamodb_exception(int sqlerrcode);
extern int	st_errdetail_dynamodb(const char *fmt,...) pg_attribute_printf(1, 2);
extern int	st_errdetail_dynamodb_members(const char *members, const char *fmt,...) pg_attribute_printf(2, 3);

#endif
