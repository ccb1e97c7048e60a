/*
 * template.c — key templates of entities (see template.h): parsing,
 * matching, composing and the field types' syntax. No table, no SPI: the
 * registry (catalog/entities.c) keeps parsed templates per table.
 *
 * Every loop here is over the template (at most ST_TEMPLATE_MAX_BYTES) or
 * over the key once; nothing backtracks.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "datatype/timestamp.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

#include "format/template.h"

#define FIELD_NAME_MAX 64
#define INT_WIDTH_MAX 20

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool
is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool
is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool
is_name_char(char c)
{
	return is_name_start(c) || is_digit(c);
}

/* The number the n digits at s make, or -1 when one is not a digit */
static int
digits_value(const char *s, int n)
{
	int			v = 0;

	for (int i = 0; i < n; i++)
	{
		if (!is_digit(s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* Whether the 10 bytes at s are a valid date YYYY-MM-DD */
static bool
date_valid(const char *s)
{
	static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int			y = digits_value(s, 4);
	int			m = digits_value(s + 5, 2);
	int			d = digits_value(s + 8, 2);

	if (y < 0 || m < 1 || m > 12 || d < 1 || s[4] != '-' || s[7] != '-')
		return false;
	if (d > mdays[m - 1])
		return false;
	if (m == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return false;
	return true;
}

/*
 * The length of the timestamp at the start of s (len bytes), or 0:
 * YYYY-MM-DDTHH:MM, then optionally ":SS" and after it "." and 1 to 9
 * digits, then optionally "Z". Greedy.
 */
static int
timestamp_length(const char *s, int len)
{
	int			n;

	if (len < 16 || !date_valid(s) || s[10] != 'T' || s[13] != ':')
		return 0;
	if (digits_value(s + 11, 2) < 0 || digits_value(s + 11, 2) > 23 ||
		digits_value(s + 14, 2) < 0 || digits_value(s + 14, 2) > 59)
		return 0;
	n = 16;
	if (len >= 19 && s[16] == ':' && digits_value(s + 17, 2) >= 0 && digits_value(s + 17, 2) <= 60)
	{
		n = 19;
		if (n < len && s[n] == '.')
		{
			int			f = 0;

			while (n + 1 + f < len && f < 9 && is_digit(s[n + 1 + f]))
				f++;
			if (f > 0)
				n += 1 + f;
		}
	}
	if (n < len && s[n] == 'Z')
		n++;
	return n;
}

/* Whether the 36 bytes at s are a uuid 8-4-4-4-12 (hex, either case) */
static bool
uuid_valid(const char *s)
{
	for (int i = 0; i < 36; i++)
	{
		if (i == 8 || i == 13 || i == 18 || i == 23)
		{
			if (s[i] != '-')
				return false;
		}
		else if (!is_hex(s[i]))
			return false;
	}
	return true;
}

bool
st_field_value_valid(StFieldType type, int width, const char *v, int len)
{
	if (len < 1)
		return false;
	switch (type)
	{
		case ST_FIELD_STRING:
			return true;
		case ST_FIELD_INT:
			if (width > 0 && len != width)
				return false;
			for (int i = 0; i < len; i++)
				if (!is_digit(v[i]))
					return false;
			return true;
		case ST_FIELD_DATE:
			return len == 10 && date_valid(v);
		case ST_FIELD_TIMESTAMP:
			return timestamp_length(v, len) == len;
		case ST_FIELD_UUID:
			return len == 36 && uuid_valid(v);
	}
	return false;
}

char *
st_field_type_text(StFieldType type, int width)
{
	switch (type)
	{
		case ST_FIELD_STRING:
			return pstrdup("string");
		case ST_FIELD_INT:
			return width > 0 ? psprintf("int(%d)", width) : pstrdup("int");
		case ST_FIELD_DATE:
			return pstrdup("date");
		case ST_FIELD_TIMESTAMP:
			return pstrdup("timestamp");
		case ST_FIELD_UUID:
			return pstrdup("uuid");
	}
	return pstrdup("?");
}

/* Parses a field's type (len bytes at s) into part; false when unknown */
static bool
parse_field_type(const char *s, int len, StTemplatePart *part)
{
	part->width = 0;
#define IS(word) (len == (int) strlen(word) && strncmp(s, word, len) == 0)
	if (IS("string"))
		part->type = ST_FIELD_STRING;
	else if (IS("int"))
		part->type = ST_FIELD_INT;
	else if (IS("date"))
		part->type = ST_FIELD_DATE;
	else if (IS("timestamp"))
		part->type = ST_FIELD_TIMESTAMP;
	else if (IS("uuid"))
		part->type = ST_FIELD_UUID;
	else if (len >= 6 && strncmp(s, "int(", 4) == 0 && s[len - 1] == ')')
	{
		int			w = 0;

		if (len - 5 > 2)
			return false;
		for (int i = 4; i < len - 1; i++)
		{
			if (!is_digit(s[i]))
				return false;
			w = w * 10 + (s[i] - '0');
		}
		if (w < 1 || w > INT_WIDTH_MAX)
			return false;
		part->type = ST_FIELD_INT;
		part->width = w;
	}
	else
		return false;
#undef IS
	return true;
}

StTemplate *
st_template_parse(const char *src, const char *what)
{
	int			len = strlen(src);
	StTemplate *t = palloc0(sizeof(StTemplate));
	StringInfoData lit;
	int			maxparts = 2 * ST_TEMPLATE_MAX_FIELDS + 1;
	int			i = 0;

	if (len == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s is empty", what),
				 errhint("A template is literal text and fields, e.g. 'USER#{userId}', or a constant, e.g. 'PROFILE'.")));
	if (len > ST_TEMPLATE_MAX_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s is %d bytes long, more than the limit of %d", what, len, ST_TEMPLATE_MAX_BYTES)));
	pg_verifymbstr(src, len, false);

	t->source = pstrdup(src);
	t->parts = palloc0(sizeof(StTemplatePart) * maxparts);
	initStringInfo(&lit);

	while (i <= len)
	{
		char		c = i < len ? src[i] : '\0';

		if (i < len && c == '{' && i + 1 < len && src[i + 1] == '{')
		{
			appendStringInfoChar(&lit, '{');
			i += 2;
			continue;
		}
		if (i < len && c == '}')
		{
			if (i + 1 < len && src[i + 1] == '}')
			{
				appendStringInfoChar(&lit, '}');
				i += 2;
				continue;
			}
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s has a \"}\" at byte %d that closes no field", what, i + 1),
					 errhint("Write a literal brace as \"}}\".")));
		}
		if (i < len && c != '{')
		{
			appendStringInfoChar(&lit, c);
			i++;
			continue;
		}

		/* a field starts, or the end: the literal so far is a part */
		if (lit.len > 0)
		{
			StTemplatePart *p = &t->parts[t->nparts++];

			p->is_field = false;
			p->text = pstrdup(lit.data);
			p->len = lit.len;
			resetStringInfo(&lit);
		}
		if (i == len)
			break;

		/* {name} or {name:type} */
		{
			int			start = i + 1;
			int			end = start;
			int			colon = -1;
			StTemplatePart *p;

			while (end < len && src[end] != '}')
			{
				if (src[end] == ':' && colon < 0)
					colon = end;
				end++;
			}
			if (end == len)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s has a \"{\" at byte %d that is not closed", what, i + 1),
						 errhint("Fields are written {name} or {name:type}; a literal brace as \"{{\".")));
			if (t->nfields == ST_TEMPLATE_MAX_FIELDS)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("%s has more than %d fields", what, ST_TEMPLATE_MAX_FIELDS)));
			if (t->nparts > 0 && t->parts[t->nparts - 1].is_field)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s has two fields in a row, at byte %d", what, i + 1),
						 errdetail("Where the first field ends could not be read back from a key."),
						 errhint("Put literal text between them, e.g. '{a}#{b}'.")));
			p = &t->parts[t->nparts++];
			p->is_field = true;
			{
				int			nend = colon >= 0 ? colon : end;
				int			nlen = nend - start;

				if (nlen < 1 || nlen > FIELD_NAME_MAX || !is_name_start(src[start]))
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("%s has a field without a valid name at byte %d", what, i + 1),
							 errhint("A field's name is a letter or underscore, then letters, digits or underscores, at most %d bytes.",
									 FIELD_NAME_MAX)));
				for (int k = start; k < nend; k++)
					if (!is_name_char(src[k]))
						ereport(ERROR,
								(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
								 errmsg("%s has a field without a valid name at byte %d", what, i + 1),
								 errhint("A field's name is a letter or underscore, then letters, digits or underscores, at most %d bytes.",
										 FIELD_NAME_MAX)));
				p->text = pnstrdup(src + start, nlen);
				p->len = nlen;
			}
			p->type = ST_FIELD_STRING;
			if (colon >= 0 && !parse_field_type(src + colon + 1, end - colon - 1, p))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s gives field \"%s\" the unknown type \"%s\"", what, p->text,
								pnstrdup(src + colon + 1, end - colon - 1)),
						 errhint("The types are string, int, int(N) (N digits, zero-padded, N from 1 to %d), date, timestamp and uuid.",
								 INT_WIDTH_MAX)));
			for (int k = 0; k < t->nparts - 1; k++)
				if (t->parts[k].is_field && strcmp(t->parts[k].text, p->text) == 0)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("%s has field \"%s\" twice", what, p->text)));
			t->nfields++;
			i = end + 1;
		}
	}

	if (t->nparts > 0 && !t->parts[0].is_field)
	{
		t->prefix = t->parts[0].text;
		t->prefix_len = t->parts[0].len;
	}
	else
	{
		t->prefix = pstrdup("");
		t->prefix_len = 0;
	}
	return t;
}

/*
 * Where field part p, starting at pos of key (len bytes), ends (exclusive),
 * or -1 when no valid value starts there. next: the literal after it, or
 * NULL for the last part.
 */
static int
field_end(const StTemplatePart *p, const StTemplatePart *next, const char *key, int len, int pos)
{
	int			end;

	switch (p->type)
	{
		case ST_FIELD_DATE:
			end = pos + 10;
			if (end > len || !date_valid(key + pos))
				return -1;
			return end;
		case ST_FIELD_UUID:
			end = pos + 36;
			if (end > len || !uuid_valid(key + pos))
				return -1;
			return end;
		case ST_FIELD_TIMESTAMP:
			end = timestamp_length(key + pos, len - pos);
			return end > 0 ? pos + end : -1;
		case ST_FIELD_INT:
			if (p->width > 0)
			{
				end = pos + p->width;
				if (end > len || digits_value(key + pos, p->width) < 0)
					return -1;
				return end;
			}
			end = pos;
			while (end < len && is_digit(key[end]))
				end++;
			return end > pos ? end : -1;
		case ST_FIELD_STRING:
			if (next == NULL)
				return len > pos ? len : -1;
			for (end = pos + 1; end + next->len <= len; end++)
				if (memcmp(key + end, next->text, next->len) == 0)
					return end;
			return -1;
	}
	return -1;
}

bool
st_template_match(const StTemplate *t, const char *key, int len, char **values)
{
	int			pos = 0;
	int			f = 0;

	for (int i = 0; i < t->nparts; i++)
	{
		const StTemplatePart *p = &t->parts[i];

		if (!p->is_field)
		{
			if (pos + p->len > len || memcmp(key + pos, p->text, p->len) != 0)
				return false;
			pos += p->len;
		}
		else
		{
			const StTemplatePart *next = i + 1 < t->nparts ? &t->parts[i + 1] : NULL;
			int			end = field_end(p, next, key, len, pos);

			if (end < 0)
				return false;
			if (values)
				values[f] = pnstrdup(key + pos, end - pos);
			f++;
			pos = end;
		}
	}
	return pos == len;
}

bool
st_template_match_loose(const StTemplate *t, const char *key, int len, int *bad_field)
{
	int			pos = 0;
	int			f = 0;

	*bad_field = -1;
	for (int i = 0; i < t->nparts; i++)
	{
		const StTemplatePart *p = &t->parts[i];

		if (!p->is_field)
		{
			if (pos + p->len > len || memcmp(key + pos, p->text, p->len) != 0)
				return false;
			pos += p->len;
		}
		else
		{
			StTemplatePart as_string = *p;
			const StTemplatePart *next = i + 1 < t->nparts ? &t->parts[i + 1] : NULL;
			int			end;

			as_string.type = ST_FIELD_STRING;
			end = field_end(&as_string, next, key, len, pos);
			if (end < 0)
				return false;
			if (*bad_field < 0 && !st_field_value_valid(p->type, p->width, key + pos, end - pos))
				*bad_field = f;
			f++;
			pos = end;
		}
	}
	return pos == len;
}

/* Whether the n bytes at s could begin a value of field p */
static bool
field_start_possible(const StTemplatePart *p, const char *s, int n)
{
	static const char date_shape[] = "dddd-dd-dd";
	static const char ts_shape[] = "dddd-dd-ddTdd:dd";
	static const char uuid_shape[] = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
	const char *shape = NULL;

	switch (p->type)
	{
		case ST_FIELD_STRING:
			return true;
		case ST_FIELD_INT:
			for (int i = 0; i < n; i++)
				if (!is_digit(s[i]))
					return false;
			return p->width == 0 || n <= p->width;
		case ST_FIELD_DATE:
			shape = date_shape;
			break;
		case ST_FIELD_TIMESTAMP:
			shape = ts_shape;
			break;
		case ST_FIELD_UUID:
			shape = uuid_shape;
			break;
	}
	for (int i = 0; i < n && shape[i] != '\0'; i++)
	{
		char		c = s[i];

		if ((shape[i] == 'd' && !is_digit(c)) || (shape[i] == 'x' && !is_hex(c)) ||
			(shape[i] != 'd' && shape[i] != 'x' && shape[i] != c))
			return false;
	}
	return true;
}

bool
st_template_prefix_possible(const StTemplate *t, const char *key, int len)
{
	int			pos = 0;

	for (int i = 0; i < t->nparts; i++)
	{
		const StTemplatePart *p = &t->parts[i];

		if (pos == len)
			return true;
		if (!p->is_field)
		{
			int			n = Min(p->len, len - pos);

			if (memcmp(key + pos, p->text, n) != 0)
				return false;
			pos += n;
		}
		else
		{
			const StTemplatePart *next = i + 1 < t->nparts ? &t->parts[i + 1] : NULL;
			int			end = field_end(p, next, key, len, pos);

			if (end < 0)
			{
				/* the key ends inside this field (or inside the literal after it)? */
				int			n = len - pos;

				if (p->type == ST_FIELD_STRING)
				{
					/* no occurrence of the next literal: the key ends in the field or in it */
					return true;
				}
				return field_start_possible(p, key + pos, n);
			}
			pos = end;
		}
	}
	return pos == len;
}

const StTemplatePart *
st_template_field(const StTemplate *t, int i)
{
	int			f = 0;

	for (int k = 0; k < t->nparts; k++)
		if (t->parts[k].is_field && f++ == i)
			return &t->parts[k];
	return NULL;
}

int
st_template_field_index(const StTemplate *t, const char *name)
{
	int			f = 0;

	for (int k = 0; k < t->nparts; k++)
	{
		if (!t->parts[k].is_field)
			continue;
		if (strcmp(t->parts[k].text, name) == 0)
			return f;
		f++;
	}
	return -1;
}

char *
st_template_compose(const StTemplate *t, char *const *values)
{
	StringInfoData buf;
	int			f = 0;

	initStringInfo(&buf);
	for (int k = 0; k < t->nparts; k++)
	{
		if (t->parts[k].is_field)
			appendStringInfoString(&buf, values[f++]);
		else
			appendBinaryStringInfo(&buf, t->parts[k].text, t->parts[k].len);
	}
	return buf.data;
}

char
st_template_delimiter(const StTemplate *t)
{
	char		c;

	if (t->prefix_len == 0)
		return '\0';
	c = t->prefix[t->prefix_len - 1];
	if ((unsigned char) c < 0x80 && !is_name_char(c) && c != ' ' && c != '{' && c != '}')
		return c;
	return '\0';
}

Oid
st_field_sql_type(StFieldType type)
{
	switch (type)
	{
		case ST_FIELD_STRING:
			return TEXTOID;
		case ST_FIELD_INT:
			return INT8OID;
		case ST_FIELD_DATE:
			return DATEOID;
		case ST_FIELD_TIMESTAMP:
			return TIMESTAMPTZOID;
		case ST_FIELD_UUID:
			return UUIDOID;
	}
	return InvalidOid;
}

static int
hex_value(char c)
{
	return is_digit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

/* The first day and the day after the last one a field can hold: years 1 to 9999 */
#define FIELD_FIRST_JDATE	(date2j(1, 1, 1) - POSTGRES_EPOCH_JDATE)
#define FIELD_END_JDATE		(date2j(10000, 1, 1) - POSTGRES_EPOCH_JDATE)

bool
st_field_decode(StFieldType type, int width, const char *v, int len, Datum *out)
{
	switch (type)
	{
		case ST_FIELD_STRING:
			*out = PointerGetDatum(cstring_to_text_with_len(v, len));
			return true;
		case ST_FIELD_INT:
			{
				uint64		n = 0;

				if (width == 0 && len > 1 && v[0] == '0')
					return false;	/* not the text of its value */
				for (int i = 0; i < len; i++)
				{
					int			d = v[i] - '0';

					if (n > ((uint64) PG_INT64_MAX - d) / 10)
						return false;	/* beyond bigint */
					n = n * 10 + d;
				}
				*out = Int64GetDatum((int64) n);
				return true;
			}
		case ST_FIELD_DATE:
			{
				int			y = digits_value(v, 4);

				if (y < 1)
					return false;
				*out = DateADTGetDatum(date2j(y, digits_value(v + 5, 2), digits_value(v + 8, 2)) -
									   POSTGRES_EPOCH_JDATE);
				return true;
			}
		case ST_FIELD_TIMESTAMP:
			{
				int			y = digits_value(v, 4);
				int			sec = 0;
				int64		usec = 0;
				int64		days;

				if (y < 1)
					return false;
				if (len >= 19 && v[16] == ':')
				{
					sec = digits_value(v + 17, 2);
					if (sec > 59)
						return false;	/* a leap second has no timestamptz of its own */
					if (len > 20 && v[19] == '.')
					{
						int			scale = 100000;

						for (int i = 20; i < len && is_digit(v[i]); i++)
						{
							/* truncated: the minute stays the text's */
							if (scale > 0)
								usec += (v[i] - '0') * scale;
							scale /= 10;
						}
					}
				}
				days = date2j(y, digits_value(v + 5, 2), digits_value(v + 8, 2)) - POSTGRES_EPOCH_JDATE;
				*out = TimestampTzGetDatum(days * USECS_PER_DAY +
										   (digits_value(v + 11, 2) * INT64CONST(3600) +
											digits_value(v + 14, 2) * INT64CONST(60) + sec) * USECS_PER_SEC + usec);
				return true;
			}
		case ST_FIELD_UUID:
			{
				pg_uuid_t  *u = palloc(sizeof(pg_uuid_t));
				int			k = 0;

				for (int i = 0; i < 36; i++)
				{
					int			hi,
								lo;

					if (v[i] == '-')
						continue;
					hi = hex_value(v[i]);
					lo = hex_value(v[i + 1]);
					if (hi < 0 || lo < 0)
						return false;	/* upper case: not the text uuid_out writes */
					u->data[k++] = (unsigned char) (hi * 16 + lo);
					i++;
				}
				*out = UUIDPGetDatum(u);
				return true;
			}
	}
	return false;
}

int
st_field_value_domain(StFieldType type, int width, Datum value)
{
	switch (type)
	{
		case ST_FIELD_STRING:
		case ST_FIELD_UUID:
			return 0;
		case ST_FIELD_INT:
			{
				int64		n = DatumGetInt64(value);
				int64		lim = 1;

				if (n < 0)
					return -1;
				if (width == 0 || width > 18)
					return 0;
				for (int i = 0; i < width; i++)
					lim *= 10;
				return n >= lim ? 1 : 0;
			}
		case ST_FIELD_DATE:
			{
				DateADT		d = DatumGetDateADT(value);

				return d < FIELD_FIRST_JDATE ? -1 : d >= FIELD_END_JDATE ? 1 : 0;
			}
		case ST_FIELD_TIMESTAMP:
			{
				TimestampTz t = DatumGetTimestampTz(value);

				return t < FIELD_FIRST_JDATE * USECS_PER_DAY ? -1 :
					t >= FIELD_END_JDATE * USECS_PER_DAY ? 1 : 0;
			}
	}
	return 0;
}

char *
st_field_encode(StFieldType type, int width, Datum value)
{
	if (st_field_value_domain(type, width, value) != 0)
		return NULL;
	switch (type)
	{
		case ST_FIELD_STRING:
			return text_to_cstring(DatumGetTextPP(value));
		case ST_FIELD_INT:
			return psprintf("%0*lld", width, (long long) DatumGetInt64(value));
		case ST_FIELD_DATE:
			{
				int			y,
							m,
							d;

				j2date(DatumGetDateADT(value) + POSTGRES_EPOCH_JDATE, &y, &m, &d);
				return psprintf("%04d-%02d-%02d", y, m, d);
			}
		case ST_FIELD_TIMESTAMP:
			{
				TimestampTz t = DatumGetTimestampTz(value);
				int64		days = t / USECS_PER_DAY;
				int64		rest = t % USECS_PER_DAY;
				int			y,
							m,
							d;
				int64		secs;

				if (rest < 0)
				{
					rest += USECS_PER_DAY;
					days--;
				}
				j2date(days + POSTGRES_EPOCH_JDATE, &y, &m, &d);
				secs = rest / USECS_PER_SEC;
				if (rest % USECS_PER_SEC == 0)
					return psprintf("%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, d, (int) (secs / 3600),
									(int) (secs / 60 % 60), (int) (secs % 60));
				return psprintf("%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", y, m, d, (int) (secs / 3600),
								(int) (secs / 60 % 60), (int) (secs % 60), (int) (rest % USECS_PER_SEC));
			}
		case ST_FIELD_UUID:
			{
				pg_uuid_t  *u = DatumGetUUIDP(value);
				static const char hex[] = "0123456789abcdef";
				char	   *s = palloc(37);
				int			k = 0;

				for (int i = 0; i < 16; i++)
				{
					if (i == 4 || i == 6 || i == 8 || i == 10)
						s[k++] = '-';
					s[k++] = hex[u->data[i] >> 4];
					s[k++] = hex[u->data[i] & 0x0F];
				}
				s[k] = '\0';
				return s;
			}
	}
	return NULL;
}

int
st_key_tag_length(const char *key, int len)
{
	for (int i = 0; i < len; i++)
		if (key[i] != '\0' && strchr(ST_KEY_DELIMITERS, key[i]) != NULL)
			return i + 1;
	return 0;
}
