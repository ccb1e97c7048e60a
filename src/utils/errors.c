/*
 * errors.c — SQLSTATE <-> DynamoDB exception, and DETAIL as DynamoDB's error
 * body (see errors.h for the contract).
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/json.h"

#include "utils/errors.h"

/* PostgreSQL's SQLSTATE macros of the table are the table's codes */
#define CHECK_CODE(macro, code, exception) \
	StaticAssertDecl((macro) == (code), #macro " is not its code in utils/errors.tab");
ST_SQLSTATE_EXCEPTIONS(CHECK_CODE)
#undef CHECK_CODE

/*
 * The DynamoDB exception of a SQLSTATE, as the error table utils/errors.tab
 * pairs them: every SQLSTATE the extension raises and PostgreSQL's own
 * errors a call can meet, then the classes (data exceptions are a
 * ValidationException); anything else is DynamoDB's InternalServerError.
 */
const char *
st_dynamodb_exception(int sqlerrcode)
{
#define CASE(macro, code, exception) \
	case macro: \
		return exception;
#define CLASS(category, exception) \
	if (ERRCODE_TO_CATEGORY(sqlerrcode) == (category)) \
		return exception;

	switch (sqlerrcode)
	{
		ST_SQLSTATE_EXCEPTIONS(CASE)
	}
	ST_CLASS_EXCEPTIONS(CLASS)
	return ST_EXC_OTHERWISE;
#undef CASE
#undef CLASS
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
