/*
 * jsontext.c — JSON text written directly.
 *
 * Design notes: the section on jsontext.c in README.md of this folder.
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/numeric.h"

#include "format/jsontext.h"

/*
 * What escape_json writes for each byte: 0 the byte itself, else the
 * second character of a two-character escape ("\n"), or 'u' for \u00XX.
 */
static const char escapes[256] = {
	'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'b', 't', 'n', 'u', 'f', 'r', 'u', 'u',
	'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u',
	0, 0, '"', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '\\', 0, 0, 0,
	/* the rest, DEL and every byte of a multibyte character included, as is */
};

void
st_jtext_string(StringInfo buf, const char *s, int len)
{
	int			start = 0;

	/* the quotes and the bytes as they are; an escape grows it (enlarged then) */
	if (buf->len + len + 2 >= buf->maxlen)
		enlargeStringInfo(buf, len + 2);
	buf->data[buf->len++] = '"';
	for (int i = 0; i < len; i++)
	{
		char		e = escapes[(unsigned char) s[i]];

		if (likely(e == 0))
			continue;
		/* the run before this byte, then its escape */
		st_jtext_raw(buf, s + start, i - start);
		start = i + 1;
		if (e == 'u')
		{
			static const char hex[] = "0123456789abcdef";
			char		u[6] = {'\\', 'u', '0', '0', hex[((unsigned char) s[i]) >> 4],
			hex[((unsigned char) s[i]) & 15]};

			st_jtext_raw(buf, u, 6);
		}
		else
		{
			char		two[2] = {'\\', e};

			st_jtext_raw(buf, two, 2);
		}
	}
	st_jtext_raw(buf, s + start, len - start);
	st_jtext_char(buf, '"');
}

void
st_jtext_int(StringInfo buf, int64 v)
{
	char		tmp[MAXINT8LEN + 1];
	int			len = pg_lltoa(v, tmp);

	st_jtext_raw(buf, tmp, len);
}

void
st_jtext_value(StringInfo buf, const JsonbValue *v)
{
	switch (v->type)
	{
		case jbvNull:
			st_jtext_raw(buf, "null", 4);
			break;
		case jbvString:
			st_jtext_string(buf, v->val.string.val, v->val.string.len);
			break;
		case jbvNumeric:
			appendStringInfoString(buf, DatumGetCString(DirectFunctionCall1(numeric_out,
																			NumericGetDatum(v->val.numeric))));
			break;
		case jbvBool:
			if (v->val.boolean)
				st_jtext_raw(buf, "true", 4);
			else
				st_jtext_raw(buf, "false", 5);
			break;
		case jbvBinary:
			(void) JsonbToCString(buf, v->val.binary.data, v->val.binary.len);
			break;
		default:
			elog(ERROR, "unexpected jsonb value type %d", (int) v->type);
	}
}
