/*
 * errors.c — SQLSTATE <-> DynamoDB exception, and DETAIL as DynamoDB's error
 * body (see errors.h for the contract).
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/json.h"

#include "utils/errors.h"

/*
 * The DynamoDB exception of a SQLSTATE. Listed: every SQLSTATE the
 * extension raises, and PostgreSQL's own errors a call can meet. Other
 * classes of data or syntax errors are a ValidationException; anything
 * else is DynamoDB's InternalServerError.
 */
const char *
st_dynamodb_exception(int sqlerrcode)
{
	switch (sqlerrcode)
	{
		case ERRCODE_ST_CONDITIONAL_CHECK_FAILED:
			return ST_EXC_CONDITION;
		case ERRCODE_ST_TRANSACTION_CANCELED:
			return ST_EXC_CANCELED;
		case ERRCODE_ST_IDEMPOTENT_MISMATCH:
			return ST_EXC_IDEMPOTENT;
		case ERRCODE_ST_TRANSACTION_IN_PROGRESS:
			return ST_EXC_IN_PROGRESS;
		case ERRCODE_ST_SERIALIZATION:
			return ST_EXC_SERIALIZATION;
		case ERRCODE_ST_UNKNOWN_OPERATION:
			return ST_EXC_UNKNOWN_OPERATION;
		case ERRCODE_UNDEFINED_TABLE:
		case ERRCODE_WRONG_OBJECT_TYPE:
			return ST_EXC_NOT_FOUND;
		case ERRCODE_DUPLICATE_TABLE:
		case ERRCODE_OBJECT_IN_USE:
			return ST_EXC_IN_USE;
		case ERRCODE_T_R_SERIALIZATION_FAILURE:
		case ERRCODE_T_R_DEADLOCK_DETECTED:
			return ST_EXC_CONFLICT;
		case ERRCODE_INSUFFICIENT_PRIVILEGE:
			return ST_EXC_ACCESS_DENIED;
		case ERRCODE_LOCK_NOT_AVAILABLE:
		case ERRCODE_QUERY_CANCELED:
			return ST_EXC_THROTTLING;
		case ERRCODE_SYNTAX_ERROR:
		case ERRCODE_DATATYPE_MISMATCH:
		case ERRCODE_PROGRAM_LIMIT_EXCEEDED:
		case ERRCODE_FEATURE_NOT_SUPPORTED:
			return ST_EXC_VALIDATION;
	}
	/* class 22: data exceptions (invalid values, NULL arguments, ranges) */
	if (ERRCODE_TO_CATEGORY(sqlerrcode) == ERRCODE_DATA_EXCEPTION)
		return ST_EXC_VALIDATION;
	return ST_EXC_INTERNAL;
}

/* The formatted message of a variadic errdetail helper */
static char *
format_va(const char *fmt, va_list args) pg_attribute_printf(1, 0);

static char *
format_va(const char *fmt, va_list args)
{
	StringInfoData msg;

	initStringInfo(&msg);
	for (;;)
	{
		va_list		ap;
		int			needed;

		va_copy(ap, args);
		needed = appendStringInfoVA(&msg, fmt, ap);
		va_end(ap);
		if (needed == 0)
			break;
		enlargeStringInfo(&msg, needed);
	}
	return msg.data;
}

/* DETAIL {"__type": ..., "message": msg[, members]} for the SQLSTATE set earlier */
static int
errdetail_body(const char *msg, const char *members)
{
	StringInfoData body;

	initStringInfo(&body);
	appendStringInfoString(&body, "{\"__type\": ");
	escape_json(&body, st_dynamodb_exception(geterrcode()));
	appendStringInfoString(&body, ", \"message\": ");
	escape_json(&body, msg);
	if (members)
		appendStringInfo(&body, ", %s", members);
	appendStringInfoChar(&body, '}');
	return errdetail_internal("%s", body.data);
}

/*
 * errdetail for an error DynamoDB also raises: {"__type": ..., "message":
 * ...} with the exception of the SQLSTATE set earlier in the same ereport
 * and DynamoDB's message text. Use it inside ereport(), after errcode().
 */
int
st_errdetail_dynamodb(const char *fmt,...)
{
	va_list		ap;
	char	   *msg;

	va_start(ap, fmt);
	msg = format_va(fmt, ap);
	va_end(ap);
	return errdetail_body(msg, NULL);
}

/*
 * st_errdetail_dynamodb with more members of DynamoDB's body after
 * "message": members is their JSON text, e.g. "\"CancellationReasons\":
 * [...]" (TransactionCanceledException). It reaches the server log like any
 * DETAIL, so it must hold no item content.
 */
int
st_errdetail_dynamodb_members(const char *members, const char *fmt,...)
{
	va_list		ap;
	char	   *msg;

	va_start(ap, fmt);
	msg = format_va(fmt, ap);
	va_end(ap);
	return errdetail_body(msg, members);
}
