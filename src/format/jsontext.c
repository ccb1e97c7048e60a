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
const char	st_jtext_escapes[256] = {
	'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'b', 't', 'n', 'u', 'f', 'r', 'u', 'u',
	'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u',
	0, 0, '"', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '\\', 0, 0, 0,
	/* the rest, DEL and every byte of a multibyte character included, as is */
};

/* One byte's escape (e: its st_jtext_escapes entry, not 0) */
static void
escape_byte(StringInfo buf, unsigned char c, char e)
{
	static const char hex[] = "0123456789abcdef";

	if (e == 'u')
	{
		st_jtext_raw(buf, "\\u00", 4);
		st_jtext_char(buf, hex[c >> 4]);
		st_jtext_char(buf, hex[c & 15]);
	}
	else
	{
		st_jtext_char(buf, '\\');
		st_jtext_char(buf, e);
	}
}

/* From a byte that needs an escape: each run of plain bytes copied in one step */
void
st_jtext_string_escaped(StringInfo buf, const char *s, int len)
{
	const unsigned char *p = (const unsigned char *) s;
	int			start = 0;

	for (int i = 0; i < len; i++)
	{
		char		e = st_jtext_escapes[p[i]];

		if (e == 0)
			continue;
		st_jtext_raw(buf, s + start, i - start);
		escape_byte(buf, p[i], e);
		start = i + 1;
	}
	st_jtext_raw(buf, s + start, len - start);
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
