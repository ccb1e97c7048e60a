/*
 * keys.c — DynamoDB key types S, N and B.
 *
 * S keys are text compared by UTF-8 bytes (the column is COLLATE "C"), N keys
 * are numeric in DynamoDB's canonical form, B keys are bytea and travel as
 * base64. Everything here is pure computation: no catalog access, no SPI.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/numeric.h"

#include "utils/errors.h"
#include "format/keys.h"

/* Parses a key type name ('S', 'N' or 'B'); param names the argument for the error. */
StKeyType
st_key_type_from_text(const char *s, const char *param)
{
	if (strcmp(s, "S") == 0)
		return ST_KEY_S;
	if (strcmp(s, "N") == 0)
		return ST_KEY_N;
	if (strcmp(s, "B") == 0)
		return ST_KEY_B;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid key type \"%s\" for %s", s, param),
			 errhint("Key attributes are of type S (string), N (number) or B (binary).")));
	return ST_KEY_S;			/* keep compiler quiet */
}

/* The PostgreSQL type OID of a key column. */
Oid
st_key_type_oid(StKeyType t)
{
	switch (t)
	{
		case ST_KEY_S:
			return TEXTOID;
		case ST_KEY_N:
			return NUMERICOID;
		case ST_KEY_B:
			return BYTEAOID;
	}
	return InvalidOid;
}

/* The column type (with collation) used in CREATE TABLE for a key type. */
const char *
st_key_sql_type(StKeyType t)
{
	switch (t)
	{
		case ST_KEY_S:
			return "pg_catalog.text COLLATE pg_catalog.\"C\"";
		case ST_KEY_N:
			return "pg_catalog.numeric";
		case ST_KEY_B:
			return "pg_catalog.bytea";
	}
	return NULL;
}

/* Parses a number in DynamoDB's syntax, raising the error naming the attribute. */
void
st_number_parse_or_error(const char *str, int len, StNumber *out, const char *attname)
{
	StNumberError err = st_number_parse(str, len, out);

	if (err != ST_NUM_OK)
		ereport(ERROR,
				(errcode(err == ST_NUM_SYNTAX ? ERRCODE_INVALID_TEXT_REPRESENTATION
						 : ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("invalid number for attribute \"%s\"", attname),
				 st_errdetail_dynamodb("%s", st_number_error_text(err))));
}

static const char b64chars[] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Standard base64 with padding and without line breaks. */
char *
st_base64_encode(const char *data, int len, int *outlen)
{
	char	   *out = palloc(((len + 2) / 3) * 4 + 1);
	char	   *p = out;
	int			i;

	for (i = 0; i + 2 < len; i += 3)
	{
		uint32		v;

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		v = ((uint8) data[i] << 16) | ((uint8) data[i + 1] << 8) | (uint8) data[i + 2];
		*p++ = b64chars[(v >> 18) & 63];
		*p++ = b64chars[(v >> 12) & 63];
		*p++ = b64chars[(v >> 6) & 63];
		*p++ = b64chars[v & 63];
	}
	if (i < len)
	{
		uint32		v = (uint8) data[i] << 16;

		if (i + 1 < len)
			v |= (uint8) data[i + 1] << 8;
		*p++ = b64chars[(v >> 18) & 63];
		*p++ = b64chars[(v >> 12) & 63];
		*p++ = (i + 1 < len) ? b64chars[(v >> 6) & 63] : '=';
		*p++ = '=';
	}
	*p = '\0';
	*outlen = p - out;
	return out;
}

static int
b64val(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/*
 * Base64 decoding: padding required; line breaks are skipped (PostgreSQL's
 * encode(..., 'base64') inserts one every 76 characters, MIME a CR LF), any
 * other character is invalid. There may not be more line-break bytes than
 * base64 characters: without that bound a binary value of one byte could
 * take any number of bytes of jsonb, and item.c could not refuse an
 * oversized item by its jsonb size alone. NULL when invalid.
 */
char *
st_base64_decode(const char *data, int len, int *outlen)
{
	char	   *out;
	int			o = 0;

	if (memchr(data, '\n', len) || memchr(data, '\r', len))
	{
		char	   *clean = palloc(len);
		int			n = 0;

		for (int i = 0; i < len; i++)
		{
			if ((i & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
			if (data[i] != '\n' && data[i] != '\r')
				clean[n++] = data[i];
		}
		if (len - n > n)
			return NULL;
		data = clean;
		len = n;
	}
	if (len % 4 != 0)
		return NULL;
	out = palloc(len / 4 * 3 + 1);
	for (int i = 0; i < len; i += 4)
	{
		int			a = b64val(data[i]),
					b = b64val(data[i + 1]),
					c,
					d;
		bool		last = (i + 4 == len);

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (a < 0 || b < 0)
			return NULL;
		if (last && data[i + 2] == '=' && data[i + 3] == '=')
		{
			out[o++] = (a << 2) | (b >> 4);
			break;
		}
		c = b64val(data[i + 2]);
		if (c < 0)
			return NULL;
		if (last && data[i + 3] == '=')
		{
			out[o++] = (a << 2) | (b >> 4);
			out[o++] = ((b & 15) << 4) | (c >> 2);
			break;
		}
		d = b64val(data[i + 3]);
		if (d < 0)
			return NULL;
		out[o++] = (a << 2) | (b >> 4);
		out[o++] = ((b & 15) << 4) | (c >> 2);
		out[o++] = ((c & 3) << 6) | d;
	}
	*outlen = o;
	return out;
}

/*
 * Converts a key given as text (S as is, N as decimal text, B as base64) to
 * its column datum, enforcing DynamoDB's rules: not empty, at most 2048 bytes
 * for a partition key and 1024 for a sort key, N in range and precision.
 */
void
st_key_from_text(StKeyType t, const char *str, int len, const char *attname,
				 const char *tabname, bool is_sort, StKey *out)
{
	int			limit = is_sort ? ST_MAX_SORT_KEY_BYTES : ST_MAX_PARTITION_KEY_BYTES;

	switch (t)
	{
		case ST_KEY_S:
			if (len == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("key attribute \"%s\" of table \"%s\" cannot be an empty string",
								attname, tabname),
						 st_errdetail_dynamodb("The AttributeValue for a key attribute cannot contain an empty string value. Key: %s",
								   attname)));
			out->datum = PointerGetDatum(cstring_to_text_with_len(str, len));
			out->nbytes = len;
			out->display = pnstrdup(str, len);
			break;
		case ST_KEY_N:
			{
				StNumber	num;

				st_number_parse_or_error(str, len, &num, attname);
				out->datum = DirectFunctionCall3(numeric_in, CStringGetDatum(num.canonical),
												 ObjectIdGetDatum(InvalidOid),
												 Int32GetDatum(-1));
				out->nbytes = num.size;
				out->display = num.canonical;
				break;
			}
		case ST_KEY_B:
			{
				int			blen;
				char	   *bin = st_base64_decode(str, len, &blen);
				bytea	   *b;

				if (bin == NULL)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
							 errmsg("key attribute \"%s\" of table \"%s\" is not valid base64",
									attname, tabname),
							 errhint("B (binary) values are written as standard base64 with padding.")));
				if (blen == 0)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("key attribute \"%s\" of table \"%s\" cannot be an empty binary value",
									attname, tabname),
							 st_errdetail_dynamodb("The AttributeValue for a key attribute cannot contain an empty binary value. Key: %s",
									   attname)));
				b = palloc(VARHDRSZ + blen);
				SET_VARSIZE(b, VARHDRSZ + blen);
				memcpy(VARDATA(b), bin, blen);
				out->datum = PointerGetDatum(b);
				out->nbytes = blen;
				out->display = st_base64_encode(bin, blen, &blen);
				break;
			}
	}
	if (out->nbytes > limit)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s key \"%s\" of table \"%s\" is %d bytes, more than the limit of %d bytes",
						is_sort ? "sort" : "partition", attname, tabname, out->nbytes, limit),
				 is_sort ?
				 st_errdetail_dynamodb("Aggregated size of all range keys has exceeded the size limit of 1024 bytes") :
				 st_errdetail_dynamodb("Size of hashkey has exceeded the maximum size limit of2048 bytes")));
}

/* Rejects a (pk, sk) pair too large for one btree index tuple. */
void
st_key_check_combined(const StKey *pk, const StKey *sk, const char *tabname)
{
	if (sk != NULL && pk->nbytes + sk->nbytes > ST_MAX_COMBINED_KEY_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("key of table \"%s\" is %d bytes, more than the limit of %d bytes for partition and sort key together",
						tabname, pk->nbytes + sk->nbytes, ST_MAX_COMBINED_KEY_BYTES),
				 errdetail("The partition key is %d bytes and the sort key %d bytes; both are stored in one btree index entry, which holds at most 2704 bytes.",
						   pk->nbytes, sk->nbytes),
				 errhint("Shorten the partition key or the sort key.")));
}

/* The canonical text of a key column value (S as is, N decimal, B base64). */
text *
st_key_datum_to_text(StKeyType t, Datum d)
{
	switch (t)
	{
		case ST_KEY_S:
			return DatumGetTextPP(d);
		case ST_KEY_N:
			return cstring_to_text(DatumGetCString(DirectFunctionCall1(numeric_out, d)));
		case ST_KEY_B:
			{
				bytea	   *b = DatumGetByteaPP(d);
				int			len;
				char	   *s = st_base64_encode(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b), &len);

				return cstring_to_text_with_len(s, len);
			}
	}
	return NULL;
}

/* Compares two key column values in DynamoDB's order for their type. */
int
st_key_compare(StKeyType t, Datum a, Datum b)
{
	if (t == ST_KEY_N)
		return DatumGetInt32(DirectFunctionCall2(numeric_cmp, a, b));
	else
	{
		/* text and bytea: unsigned bytes, shorter first on a common prefix */
		struct varlena *va = PG_DETOAST_DATUM_PACKED(a);
		struct varlena *vb = PG_DETOAST_DATUM_PACKED(b);
		int			la = VARSIZE_ANY_EXHDR(va),
					lb = VARSIZE_ANY_EXHDR(vb);
		int			c = memcmp(VARDATA_ANY(va), VARDATA_ANY(vb), Min(la, lb));

		if (c != 0)
			return c;
		return (la > lb) - (la < lb);
	}
}

/*
 * The smallest valid UTF-8 string greater than every string that starts with
 * the prefix p: the prefix with its last code point incremented (skipping the
 * surrogate gap), dropping trailing U+10FFFF code points first. NULL when
 * there is none (empty prefix or only U+10FFFF): then every string >= p
 * starts with p.
 */
char *
st_prefix_successor_utf8(const char *p, int len, int *outlen)
{
	int			end = len;

	while (end > 0)
	{
		int			start = end - 1;
		pg_wchar	c;
		char	   *out;
		int			clen;

		/* step back to the first byte of the last code point */
		while (start > 0 && ((unsigned char) p[start] & 0xC0) == 0x80)
			start--;
		c = utf8_to_unicode((const unsigned char *) p + start);
		if (c >= 0x10FFFF)
		{
			end = start;
			continue;
		}
		c = (c == 0xD7FF) ? 0xE000 : c + 1;
		out = palloc(start + 4 + 1);
		memcpy(out, p, start);
		unicode_to_utf8(c, (unsigned char *) out + start);
		clen = pg_utf_mblen((unsigned char *) out + start);
		*outlen = start + clen;
		out[*outlen] = '\0';
		return out;
	}
	return NULL;
}

/*
 * The smallest byte string greater than every string that starts with p:
 * drop trailing 0xFF bytes, increment the last one. NULL when there is none.
 */
char *
st_prefix_successor_bytes(const char *p, int len, int *outlen)
{
	int			end = len;

	while (end > 0 && (unsigned char) p[end - 1] == 0xFF)
		end--;
	if (end == 0)
		return NULL;
	{
		char	   *out = palloc(end + 1);

		memcpy(out, p, end);
		out[end - 1] = (char) ((unsigned char) out[end - 1] + 1);
		out[end] = '\0';
		*outlen = end;
		return out;
	}
}
