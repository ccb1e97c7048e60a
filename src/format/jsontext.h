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

/* Whether any of the 8 bytes of w needs an escape: one below 0x20, a quote, a backslash */
static inline bool
st_jtext_word_escapes(uint64 w)
{
#define ST_JTEXT_ONES UINT64CONST(0x0101010101010101)
#define ST_JTEXT_HIGHS UINT64CONST(0x8080808080808080)
	uint64		quote = w ^ (ST_JTEXT_ONES * '"');
	uint64		backslash = w ^ (ST_JTEXT_ONES * '\\');

	/* a byte below n: (w - n per byte) & ~w & high bits (exact as a test, for n <= 128) */
	return (((w - ST_JTEXT_ONES * 0x20) & ~w) |
			((quote - ST_JTEXT_ONES) & ~quote) |
			((backslash - ST_JTEXT_ONES) & ~backslash)) & ST_JTEXT_HIGHS;
#undef ST_JTEXT_ONES
#undef ST_JTEXT_HIGHS
}

/*
 * The JSON string of the len bytes s (no NUL among them), quoted and escaped
 * as escape_json escapes it. Inline: the bytes up to the first that needs
 * an escape (in a response, usually all of them) are copied as they are
 * scanned, 8 at a time, without a call.
 */
static inline void
st_jtext_string(StringInfo buf, const char *s, int len)
{
	const unsigned char *p = (const unsigned char *) s;
	int			i = 0;
	char	   *d;

	/* room for the bytes as they are, the quotes and a word written past the end */
	if (buf->len + len + 2 + 8 >= buf->maxlen)
		enlargeStringInfo(buf, len + 2 + 8);
	d = buf->data + buf->len;
	*d++ = '"';
	for (; i + 8 <= len; i += 8)
	{
		uint64		w;

		memcpy(&w, p + i, 8);
		if (st_jtext_word_escapes(w))
			break;
		memcpy(d + i, &w, 8);
	}
	for (; i < len && st_jtext_escapes[p[i]] == 0; i++)
		d[i] = (char) p[i];
	buf->len += 1 + i;
	if (i < len)
		st_jtext_string_escaped(buf, s + i, len - i);
	st_jtext_char(buf, '"');
}

#endif
