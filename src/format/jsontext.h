/*
 * jsontext.h — writing JSON text directly into a StringInfo: strings escaped
 * exactly as PostgreSQL's escape_json escapes them, and any jsonb value as
 * jsonb_out would print it (for the text responses of singletable.dynamodb_as,
 * see jsontext.c).
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_JSONTEXT_H
#define SINGLETABLE_JSONTEXT_H

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

/* The JSON string of the len bytes s (no NUL among them), quoted and escaped as escape_json */
extern void st_jtext_string(StringInfo buf, const char *s, int len);

/* A jsonb value: a scalar, or a container (jbvBinary) as JsonbToCString prints it */
extern void st_jtext_value(StringInfo buf, const JsonbValue *v);

/* A 64-bit integer as a JSON number */
extern void st_jtext_int(StringInfo buf, int64 v);

/* Appends len bytes of JSON text that need no escaping (appendBinaryStringInfo, inline) */
static inline void
st_jtext_raw(StringInfo buf, const char *s, int len)
{
	if (buf->len + len >= buf->maxlen)
		enlargeStringInfo(buf, len);
	memcpy(buf->data + buf->len, s, len);
	buf->len += len;
	buf->data[buf->len] = '\0';
}

/* Appends one character of JSON text */
static inline void
st_jtext_char(StringInfo buf, char c)
{
	if (buf->len + 1 >= buf->maxlen)
		enlargeStringInfo(buf, 1);
	buf->data[buf->len++] = c;
	buf->data[buf->len] = '\0';
}

#endif
