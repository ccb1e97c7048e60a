/*
 * json.c — the little JSON the gateway needs without a JSON library:
 *
 *  - gw_json_check: is a request body one JSON value (RFC 8259) in valid
 *    UTF-8, nested at most N deep? A malformed body is DynamoDB's
 *    SerializationException, which the gateway must tell apart from the
 *    ValidationException that a cast to jsonb failing inside the database
 *    would map to; checking here also keeps NUL bytes and invalid UTF-8
 *    away from libpq's text parameters. Parsing the document is left to
 *    PostgreSQL's jsonb.
 *  - gw_json_top_string: one string member of a top-level object (the
 *    "__type" of an error DETAIL, which decides the HTTP status).
 *  - gw_buf and gw_error_response: the error bodies the
 *    gateway writes itself, {"__type": ..., "message": ...}.
 *
 * The checker is a recursive descent bounded by max_depth, linear in the
 * input; it never reads past len and needs no NUL terminator.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gateway.h"

typedef struct jparser
{
	const unsigned char *p;
	const unsigned char *end;
	int			depth;
	int			max_depth;
	bool		too_deep;
	const char *err;
	/* when capturing a string: where the decoded bytes go */
	char	   *out;
	size_t		outlen;
	size_t		outcap;
} jparser;

static bool parse_value(jparser *js);

static void
skip_ws(jparser *js)
{
	while (js->p < js->end &&
		   (*js->p == ' ' || *js->p == '\t' || *js->p == '\n' || *js->p == '\r'))
		js->p++;
}

static bool
fail(jparser *js, const char *why)
{
	if (js->err == NULL)
		js->err = why;
	return false;
}

/* Appends one decoded byte to the capture buffer, if capturing (drops what does not fit). */
static void
capture(jparser *js, unsigned char c)
{
	if (js->out != NULL && js->outlen + 1 < js->outcap)
		js->out[js->outlen++] = (char) c;
}

static void
capture_codepoint(jparser *js, uint32_t cp)
{
	if (cp < 0x80)
		capture(js, (unsigned char) cp);
	else if (cp < 0x800)
	{
		capture(js, 0xC0 | (cp >> 6));
		capture(js, 0x80 | (cp & 0x3F));
	}
	else if (cp < 0x10000)
	{
		capture(js, 0xE0 | (cp >> 12));
		capture(js, 0x80 | ((cp >> 6) & 0x3F));
		capture(js, 0x80 | (cp & 0x3F));
	}
	else
	{
		capture(js, 0xF0 | (cp >> 18));
		capture(js, 0x80 | ((cp >> 12) & 0x3F));
		capture(js, 0x80 | ((cp >> 6) & 0x3F));
		capture(js, 0x80 | (cp & 0x3F));
	}
}

/* Reads 4 hex digits of a \u escape. */
static bool
parse_hex4(jparser *js, uint32_t *cp)
{
	*cp = 0;
	if (js->end - js->p < 4)
		return fail(js, "truncated \\u escape");
	for (int i = 0; i < 4; i++)
	{
		unsigned char c = *js->p++;

		*cp <<= 4;
		if (c >= '0' && c <= '9')
			*cp |= c - '0';
		else if (c >= 'a' && c <= 'f')
			*cp |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			*cp |= c - 'A' + 10;
		else
			return fail(js, "invalid \\u escape");
	}
	return true;
}

/*
 * Checks one UTF-8 sequence starting at js->p (its first byte >= 0x80):
 * no overlong forms, no surrogates, nothing above U+10FFFF.
 */
static bool
parse_utf8(jparser *js)
{
	const unsigned char *s = js->p;
	ptrdiff_t	avail = js->end - s;
	int			n;
	uint32_t	cp;

	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		n = 2, cp = s[0] & 0x1F;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		n = 3, cp = s[0] & 0x0F;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		n = 4, cp = s[0] & 0x07;
	else
		return fail(js, "invalid UTF-8");
	if (avail < n)
		return fail(js, "invalid UTF-8");
	for (int i = 1; i < n; i++)
	{
		if ((s[i] & 0xC0) != 0x80)
			return fail(js, "invalid UTF-8");
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
		(cp >= 0xD800 && cp <= 0xDFFF))
		return fail(js, "invalid UTF-8");
	for (int i = 0; i < n; i++)
		capture(js, s[i]);
	js->p += n;
	return true;
}

/* A string, js->p on its opening quote; decoded into the capture buffer if any. */
static bool
parse_string(jparser *js)
{
	js->p++;
	while (js->p < js->end)
	{
		unsigned char c = *js->p;

		if (c == '"')
		{
			js->p++;
			return true;
		}
		if (c < 0x20)
			return fail(js, "control character in a string");
		if (c >= 0x80)
		{
			if (!parse_utf8(js))
				return false;
			continue;
		}
		js->p++;
		if (c != '\\')
		{
			capture(js, c);
			continue;
		}
		if (js->p >= js->end)
			break;
		c = *js->p++;
		switch (c)
		{
			case '"':
			case '\\':
			case '/':
				capture(js, c);
				break;
			case 'b':
				capture(js, '\b');
				break;
			case 'f':
				capture(js, '\f');
				break;
			case 'n':
				capture(js, '\n');
				break;
			case 'r':
				capture(js, '\r');
				break;
			case 't':
				capture(js, '\t');
				break;
			case 'u':
				{
					uint32_t	cp;

					if (!parse_hex4(js, &cp))
						return false;
					if (cp >= 0xDC00 && cp <= 0xDFFF)
						return fail(js, "unpaired surrogate in a \\u escape");
					if (cp >= 0xD800 && cp <= 0xDBFF)
					{
						uint32_t	lo;

						if (js->end - js->p < 2 || js->p[0] != '\\' || js->p[1] != 'u')
							return fail(js, "unpaired surrogate in a \\u escape");
						js->p += 2;
						if (!parse_hex4(js, &lo))
							return false;
						if (lo < 0xDC00 || lo > 0xDFFF)
							return fail(js, "unpaired surrogate in a \\u escape");
						cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					}
					capture_codepoint(js, cp);
					break;
				}
			default:
				return fail(js, "invalid escape in a string");
		}
	}
	return fail(js, "unterminated string");
}

static bool
parse_digits(jparser *js)
{
	const unsigned char *start = js->p;

	while (js->p < js->end && *js->p >= '0' && *js->p <= '9')
		js->p++;
	return js->p > start;
}

/* A number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool
parse_number(jparser *js)
{
	if (js->p < js->end && *js->p == '-')
		js->p++;
	if (js->p < js->end && *js->p == '0')
		js->p++;
	else if (!parse_digits(js))
		return fail(js, "invalid number");
	if (js->p < js->end && *js->p == '.')
	{
		js->p++;
		if (!parse_digits(js))
			return fail(js, "invalid number");
	}
	if (js->p < js->end && (*js->p == 'e' || *js->p == 'E'))
	{
		js->p++;
		if (js->p < js->end && (*js->p == '+' || *js->p == '-'))
			js->p++;
		if (!parse_digits(js))
			return fail(js, "invalid number");
	}
	return true;
}

static bool
parse_literal(jparser *js, const char *word)
{
	size_t		n = strlen(word);

	if ((size_t) (js->end - js->p) < n || memcmp(js->p, word, n) != 0)
		return fail(js, "invalid token");
	js->p += n;
	return true;
}

/* An array or object, js->p on its opening bracket. */
static bool
parse_container(jparser *js, bool object)
{
	unsigned char close = object ? '}' : ']';

	if (++js->depth > js->max_depth)
	{
		js->too_deep = true;
		return fail(js, "nested too deep");
	}
	js->p++;
	skip_ws(js);
	if (js->p < js->end && *js->p == close)
	{
		js->p++;
		js->depth--;
		return true;
	}
	for (;;)
	{
		if (object)
		{
			if (js->p >= js->end || *js->p != '"')
				return fail(js, "expected a member name");
			if (!parse_string(js))
				return false;
			skip_ws(js);
			if (js->p >= js->end || *js->p != ':')
				return fail(js, "expected ':'");
			js->p++;
		}
		if (!parse_value(js))
			return false;
		skip_ws(js);
		if (js->p >= js->end)
			return fail(js, "unexpected end of input");
		if (*js->p == close)
		{
			js->p++;
			js->depth--;
			return true;
		}
		if (*js->p != ',')
			return fail(js, object ? "expected ',' or '}'" : "expected ',' or ']'");
		js->p++;
		skip_ws(js);
	}
}

static bool
parse_value(jparser *js)
{
	skip_ws(js);
	if (js->p >= js->end)
		return fail(js, "unexpected end of input");
	switch (*js->p)
	{
		case '{':
			return parse_container(js, true);
		case '[':
			return parse_container(js, false);
		case '"':
			{
				/* only the captured member's own value is captured */
				char	   *out = js->out;
				bool		ok;

				js->out = NULL;
				ok = parse_string(js);
				js->out = out;
				return ok;
			}
		case 't':
			return parse_literal(js, "true");
		case 'f':
			return parse_literal(js, "false");
		case 'n':
			return parse_literal(js, "null");
		default:
			if (*js->p == '-' || (*js->p >= '0' && *js->p <= '9'))
				return parse_number(js);
			return fail(js, "invalid token");
	}
}

/*
 * NULL if s[0..len) is exactly one JSON value in valid UTF-8 nested at most
 * max_depth deep, else why not (a static string); *too_deep tells that the
 * nesting was the reason.
 */
const char *
gw_json_check(const char *s, size_t len, int max_depth, bool *too_deep)
{
	jparser		js = {0};

	js.p = (const unsigned char *) s;
	js.end = js.p + len;
	js.max_depth = max_depth;
	if (parse_value(&js))
	{
		skip_ws(&js);
		if (js.p != js.end)
			fail(&js, "data after the JSON value");
	}
	if (too_deep)
		*too_deep = js.too_deep;
	return js.err;
}

/*
 * Copies (decoded, NUL-terminated, cut to bufsize) the string value of the
 * member `key` of the top-level object s[0..len) into buf. False if s is not
 * a valid object or has no such string member.
 */
bool
gw_json_top_string(const char *s, size_t len, const char *key, char *buf, size_t bufsize)
{
	jparser		js = {0};
	size_t		keylen = strlen(key);
	char		name[64];
	bool		found = false;

	js.p = (const unsigned char *) s;
	js.end = js.p + len;
	js.max_depth = GW_JSON_MAX_DEPTH;
	skip_ws(&js);
	if (js.p >= js.end || *js.p != '{' || bufsize == 0)
		return false;
	js.p++;
	js.depth = 1;
	skip_ws(&js);
	if (js.p < js.end && *js.p == '}')
		return false;
	for (;;)
	{
		bool		match;

		if (js.p >= js.end || *js.p != '"')
			return false;
		js.out = name;
		js.outlen = 0;
		js.outcap = sizeof(name);
		if (!parse_string(&js))
			return false;
		match = (js.outlen == keylen && memcmp(name, key, keylen) == 0);
		js.out = NULL;
		skip_ws(&js);
		if (js.p >= js.end || *js.p != ':')
			return false;
		js.p++;
		skip_ws(&js);
		if (match && !found && js.p < js.end && *js.p == '"')
		{
			js.out = buf;
			js.outlen = 0;
			js.outcap = bufsize;
			if (!parse_string(&js))
				return false;
			buf[js.outlen] = '\0';
			js.out = NULL;
			found = true;
		}
		else if (!parse_value(&js))
			return false;
		skip_ws(&js);
		if (js.p >= js.end)
			return false;
		if (*js.p == '}')
			break;
		if (*js.p != ',')
			return false;
		js.p++;
		skip_ws(&js);
	}
	js.p++;
	skip_ws(&js);
	return found && js.p == js.end;
}

/* Makes room for n more bytes (and a NUL) in b; false when out of memory. */
static bool
buf_reserve(gw_buf *b, size_t n)
{
	if (b->oom)
		return false;
	if (b->len + n + 1 > b->cap)
	{
		size_t		ncap = (b->len + n + 1) * 2;
		char	   *d = realloc(b->data, ncap);

		if (d == NULL)
		{
			b->oom = true;
			return false;
		}
		b->data = d;
		b->cap = ncap;
	}
	return true;
}

/* Appends n bytes to b. */
void
gw_buf_append(gw_buf *b, const char *s, size_t n)
{
	if (!buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

/* Appends s as a JSON string (quoted, escaped) to b. */
void
gw_buf_append_json_string(gw_buf *b, const char *s)
{
	if (!buf_reserve(b, strlen(s) * 6 + 2))
		return;
	b->data[b->len++] = '"';
	for (const unsigned char *p = (const unsigned char *) s; *p; p++)
	{
		if (*p == '"' || *p == '\\')
		{
			b->data[b->len++] = '\\';
			b->data[b->len++] = (char) *p;
		}
		else if (*p < 0x20)
			b->len += (size_t) snprintf(b->data + b->len, 7, "\\u%04x", *p);
		else
			b->data[b->len++] = (char) *p;
	}
	b->data[b->len++] = '"';
	b->data[b->len] = '\0';
}

/*
 * DynamoDB's HTTP status of an exception, found by the Name after its '#'
 * in the error table (src/utils/errors.tab): InternalServerError 500,
 * ServiceUnavailable 503, every other exception 400 (throttling included:
 * DynamoDB answers ThrottlingException and
 * ProvisionedThroughputExceededException with 400, and the SDKs retry them
 * by name), and so is an exception the table does not list.
 */
int
gw_status_of_type(const char *type)
{
#define ENTRY(exception, name, status) {name, status},
	static const struct
	{
		const char *name;
		int			status;
	}			statuses[] = {
		GW_EXCEPTION_STATUSES(ENTRY)
	};
#undef ENTRY
	const char *name = strrchr(type, '#');

	name = name ? name + 1 : type;
	for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
		if (strcmp(name, statuses[i].name) == 0)
			return statuses[i].status;
	return 400;
}

/* Fills *out with DynamoDB's error body {"__type": type, "message": message}. */
void
gw_error_response(gw_response *out, int status, const char *type, const char *message)
{
	gw_buf		b = {0};

	gw_buf_append(&b, "{\"__type\":", 10);
	gw_buf_append_json_string(&b, type);
	if (message != NULL)
	{
		gw_buf_append(&b, ",\"message\":", 11);
		gw_buf_append_json_string(&b, message);
	}
	gw_buf_append(&b, "}", 1);
	out->status = status ? status : gw_status_of_type(type);
	if (b.oom)
	{
		free(b.data);
		b.data = NULL;
		b.len = 0;
	}
	out->body = b.data;
	out->len = b.len;
}

/*
 * The DynamoDB exception of a SQLSTATE, for an error without DynamoDB's body
 * in its DETAIL (PostgreSQL's own errors: a missing grant, a timeout): the
 * pairing of the extension's st_dynamodb_exception, both generated from the
 * error table src/utils/errors.tab.
 */
const char *
gw_exception_of_sqlstate(const char *s)
{
#define ENTRY(sqlstate, type) {sqlstate, type},
	static const struct
	{
		const char *sqlstate;	/* in classes[]: the class, two characters */
		const char *type;
	}			map[] = {
		GW_SQLSTATE_EXCEPTIONS(ENTRY)
	},
				classes[] = {
		GW_CLASS_EXCEPTIONS(ENTRY)
	};
#undef ENTRY

	if (s == NULL || strlen(s) != 5)
		return GW_EXC_OTHERWISE;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(s, map[i].sqlstate) == 0)
			return map[i].type;
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (strncmp(s, classes[i].sqlstate, 2) == 0)
			return classes[i].type;
	return GW_EXC_OTHERWISE;
}

/*
 * DynamoDB's response for a failed call, from its error's fields (pool.c:
 * libpq's; endpoint.c: the backend's ErrorData): the DETAIL verbatim when
 * it is DynamoDB's error body (the extension's error contract;
 * CancellationReasons and all), else the exception of the SQLSTATE with
 * PostgreSQL's message (InternalServerError: a fixed message, the real one
 * logged, prefixed with where).
 */
void
gw_error_from_fields(gw_response *out, const char *where, const char *sqlstate, const char *detail,
					 const char *primary, const char *schema)
{
	const char *type;
	char		dtype[256];

	if (detail != NULL && detail[0] == '{' &&
		gw_json_check(detail, strlen(detail), GW_JSON_MAX_DEPTH, NULL) == NULL &&
		gw_json_top_string(detail, strlen(detail), "__type", dtype, sizeof(dtype)) &&
		dtype[0] != '\0')
	{
		out->status = gw_status_of_type(dtype);
		out->body = strdup(detail);
		out->len = out->body ? strlen(out->body) : 0;
		if (out->status >= 500)
			gw_log(GW_LOG_ERROR, "%s: %s: %s", where, sqlstate ? sqlstate : "?????", primary ? primary : "");
		return;
	}
	type = gw_exception_of_sqlstate(sqlstate);
	if (strcmp(type, GW_EXC_INTERNAL) == 0)
	{
		if (sqlstate != NULL && strcmp(sqlstate, "42883") == 0)
			gw_log(GW_LOG_ERROR, "%s: %s (is the extension installed, with %s.dynamodb_as(text, text, text)? see --schema)",
				   where, primary ? primary : "", schema);
		else
		{
			const char *m = primary ? primary : "";
			size_t		n = strlen(m);

			gw_log(GW_LOG_ERROR, "%s: %s: %.*s", where, sqlstate ? sqlstate : "no SQLSTATE",
				   (int) (n > 0 && m[n - 1] == '\n' ? n - 1 : n), m);
		}
		gw_error_response(out, 500, GW_EXC_INTERNAL, "Internal server error");
		return;
	}
	gw_error_response(out, 0, type, primary ? primary : "");
}

/*
 * The call's warnings as a header value (malloc'd; NULL: none): control
 * characters (CR, LF ...) become spaces, bytes outside ASCII '?', at most
 * GW_MAX_WARNING_HEADER bytes, a longer text cut with "...".
 */
char *
gw_warnings_header(gw_buf *w)
{
	size_t		n;
	char	   *h;

	if (w->len == 0 || w->oom || w->data == NULL)
		return NULL;
	n = w->len > GW_MAX_WARNING_HEADER ? GW_MAX_WARNING_HEADER : w->len;
	h = malloc(n + 4);
	if (h == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
	{
		unsigned char c = (unsigned char) w->data[i];

		h[i] = c < 0x20 || c == 0x7f ? ' ' : c >= 0x80 ? '?' : (char) c;
	}
	if (n < w->len)
		memcpy(h + n, "...", 3), n += 3;
	h[n] = '\0';
	return h;
}
