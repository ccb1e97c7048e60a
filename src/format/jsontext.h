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

/* What escape_json writes for each byte (jsontext.c): 0 the byte itself */
extern PGDLLIMPORT const char st_jtext_escapes[256];

/* The rest of a string from its first byte that needs an escape (st_jtext_string) */
extern void st_jtext_string_escaped(StringInfo buf, const char *s, int len);

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

/*
 * The JSON string of the len bytes s (no NUL among them), quoted and escaped
 * as escape_json escapes it. Inline: the bytes up to the first that needs
 * an escape (in a response, usually all of them) are copied in one step.
 */
static inline void
st_jtext_string(StringInfo buf, const char *s, int len)
{
	const unsigned char *p = (const unsigned char *) s;
	int			plain = 0;
	char	   *d;

	while (plain < len && st_jtext_escapes[p[plain]] == 0)
		plain++;
	if (buf->len + len + 2 >= buf->maxlen)
		enlargeStringInfo(buf, len + 2);
	d = buf->data + buf->len;
	d[0] = '"';
	memcpy(d + 1, s, plain);
	buf->len += 1 + plain;
	if (plain < len)
		st_jtext_string_escaped(buf, s + plain, len - plain);
	st_jtext_char(buf, '"');
}

#endif
