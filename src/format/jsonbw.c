/*
 * jsonbw.c — a jsonb written in its binary form directly.
 *
 * Design notes: the section on jsonbw.c in README.md of this folder.
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "format/jsonbw.h"

/* Pads buf to a multiple of 4 bytes with zeros; returns the padding's length */
static int
pad_to_int(StringInfo buf)
{
	int			padlen = INTALIGN(buf->len) - buf->len;

	if (padlen > 0)
	{
		static const uint32 zero = 0;

		if (buf->len + (int) sizeof(uint32) >= buf->maxlen)
			enlargeStringInfo(buf, sizeof(uint32));
		/* four bytes of a constant length: a store, not a call of memset */
		memcpy(buf->data + buf->len, &zero, sizeof(uint32));
		buf->len += padlen;
		buf->data[buf->len] = '\0';
	}
	return padlen;
}

/* Reserves len bytes at the end of buf; returns their offset */
static int
reserve(StringInfo buf, int len)
{
	int			off;

	if (buf->len + len >= buf->maxlen)
		enlargeStringInfo(buf, len);
	off = buf->len;
	buf->len += len;
	buf->data[buf->len] = '\0';
	return off;
}

void
st_jbw_init(StringInfo buf)
{
	initStringInfo(buf);
	(void) reserve(buf, VARHDRSZ);
}

Jsonb *
st_jbw_finish(StringInfo buf)
{
	SET_VARSIZE(buf->data, buf->len);
	return (Jsonb *) buf->data;
}

void
st_jbw_begin(StringInfo buf, StJbwContainer *c, bool object, int n)
{
	uint32		header;

	if (object && n > (int) (JB_CMASK / 2))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("number of jsonb object pairs exceeds the maximum allowed (%zu)",
						(size_t) (JB_CMASK / 2))));
	if (!object && n > (int) JB_CMASK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("number of jsonb array elements exceeds the maximum allowed (%zu)",
						(size_t) JB_CMASK)));
	c->base = buf->len;
	pad_to_int(buf);
	header = (uint32) n | (object ? JB_FOBJECT : JB_FARRAY);
	st_jbw_append(buf, &header, sizeof(uint32));
	c->nchildren = object ? 2 * n : n;
	c->jentries = reserve(buf, sizeof(JEntry) * c->nchildren);
	c->i = 0;
	c->totallen = 0;
}

void
st_jbw_size_error(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("total size of jsonb array elements exceeds the maximum of %d bytes",
					JENTRY_OFFLENMASK)));
}

/*
 * Both containers' data start 4-byte aligned (st_jbw_begin pads before the
 * header, and the header and JEntries are 4-byte words), so every copied
 * child keeps its padding; and the offsets that every JB_OFFSET_STRIDE'th
 * JEntry stores count from the same start, so the JEntries hold unchanged.
 */
int
st_jbw_copy_children(StringInfo buf, StJbwContainer *c, const JsonbContainer *src, int n)
{
	int			len;

	Assert(c->i == 0 && n <= c->nchildren);
	if (n == 0)
		return 0;
	len = (int) getJsonbOffset(src, n - 1) + (int) getJsonbLength(src, n - 1);
	memcpy(buf->data + c->jentries, src->children, sizeof(JEntry) * n);
	st_jbw_append(buf, (const char *) &src->children[JsonContainerIsObject(src) ?
													   2 * JsonContainerSize(src) :
													   JsonContainerSize(src)],
				  len);
	c->i = n;
	c->totallen = len;
	return len;
}

JEntry
st_jbw_end(StringInfo buf, StJbwContainer *c)
{
	int			totallen = buf->len - c->base;

	Assert(c->i == c->nchildren);
	if (totallen > JENTRY_OFFLENMASK)
		st_jbw_size_error();
	return JENTRY_ISCONTAINER | totallen;
}

JEntry
st_jbw_bool_pair(StringInfo buf, const char *key, int keylen, bool value)
{
	int			padlen = INTALIGN(buf->len) - buf->len;
	int			total = padlen + sizeof(uint32) + 2 * sizeof(JEntry) + keylen;
	char	   *p;
	uint32		head[3];
	static const uint32 zero = 0;

	if (total > JENTRY_OFFLENMASK)
		st_jbw_size_error();
	/* child 0 (the key) stores its end offset (st_jbw_child), child 1 is a bool: no data */
	head[0] = 1 | JB_FOBJECT;
	head[1] = JENTRY_ISSTRING | JENTRY_HAS_OFF | keylen;
	head[2] = value ? JENTRY_ISBOOL_TRUE : JENTRY_ISBOOL_FALSE;
	if (buf->len + total >= buf->maxlen)
		enlargeStringInfo(buf, total);
	p = buf->data + buf->len;
	/* the padding (0 to 3 bytes), as one store; the header overwrites the rest */
	memcpy(p, &zero, sizeof(uint32));
	p += padlen;
	memcpy(p, head, sizeof(head));
	memcpy(p + sizeof(head), key, keylen);
	buf->len += total;
	buf->data[buf->len] = '\0';
	return JENTRY_ISCONTAINER | total;
}

JEntry
st_jbw_value(StringInfo buf, const JsonbValue *v)
{
	switch (v->type)
	{
		case jbvString:
			return st_jbw_string(buf, v->val.string.val, v->val.string.len);
		case jbvNumeric:
			{
				int			numlen = VARSIZE_ANY(v->val.numeric);
				int			padlen = pad_to_int(buf);

				st_jbw_append(buf, v->val.numeric, numlen);
				return JENTRY_ISNUMERIC | (padlen + numlen);
			}
		case jbvBool:
			return v->val.boolean ? JENTRY_ISBOOL_TRUE : JENTRY_ISBOOL_FALSE;
		case jbvNull:
			return JENTRY_ISNULL;
		case jbvBinary:
			{
				int			start = buf->len;
				JsonbValue	scalar;

				/* a raw scalar's pseudo array is no container of a document */
				if (JsonContainerIsScalar(v->val.binary.data))
				{
					if (!JsonbExtractScalar(v->val.binary.data, &scalar))
						elog(ERROR, "a jsonb raw scalar has no scalar");
					return st_jbw_value(buf, &scalar);
				}
				pad_to_int(buf);
				st_jbw_append(buf, v->val.binary.data, v->val.binary.len);
				return JENTRY_ISCONTAINER | (buf->len - start);
			}
		default:
			elog(ERROR, "unexpected jsonb value type %d", (int) v->type);
	}
	return 0;					/* keep the compiler quiet */
}

/* jsonb's order of object keys: shorter first, then bytewise (lengthCompareJsonbStringValue) */
static int
key_cmp(const JsonbValue *a, const JsonbValue *b)
{
	if (a->val.string.len != b->val.string.len)
		return a->val.string.len > b->val.string.len ? 1 : -1;
	return memcmp(a->val.string.val, b->val.string.val, a->val.string.len);
}

Jsonb *
st_jbw_object(int n, const JsonbValue *k, const JsonbValue *values)
{
	return st_jbw_object_array(n, k, values, -1, NULL);
}

JEntry
st_jbw_array(StringInfo buf, const StJbwChildren *children)
{
	StJbwContainer a;

	st_jbw_begin(buf, &a, false, children->n);
	/* the children's data at an aligned offset, as they were written at one */
	Assert(buf->len % sizeof(uint32) == 0);
	st_jbw_append(buf, children->data, children->len);
	for (int i = 0; i < children->n; i++)
		st_jbw_child(buf, &a, children->entries[i]);
	return st_jbw_end(buf, &a);
}

Jsonb *
st_jbw_object_array(int n, const JsonbValue *k, const JsonbValue *values, int array_at,
					const StJbwChildren *array)
{
	StringInfoData buf;
	StJbwContainer o;
	int		   *order = palloc(sizeof(int) * Max(n, 1));

	Assert(array_at < n && (array_at < 0 || array != NULL));
	for (int i = 0; i < n; i++)
		order[i] = i;
	/* insertion sort: the members of a response are a handful, not user input */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && key_cmp(&k[order[j - 1]], &k[order[j]]) > 0; j--)
		{
			int			t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	st_jbw_init(&buf);
	/* the whole size at once (a page's Items would otherwise be copied while the buffer grows) */
	{
		Size		total = sizeof(uint32) * 2 + sizeof(JEntry) * 2 * n;

		for (int i = 0; i < n; i++)
			total += k[i].val.string.len + sizeof(uint32) +
				(i == array_at ? sizeof(uint32) + sizeof(JEntry) * (Size) array->n + array->len :
				 values[i].type == jbvBinary ? values[i].val.binary.len :
				 values[i].type == jbvNumeric ? VARSIZE_ANY(values[i].val.numeric) :
				 values[i].type == jbvString ? values[i].val.string.len : 0);
		if (total < MaxAllocSize)
			enlargeStringInfo(&buf, (int) total);
	}
	st_jbw_begin(&buf, &o, true, n);
	for (int i = 0; i < n; i++)
	{
		Assert(i == 0 || key_cmp(&k[order[i - 1]], &k[order[i]]) < 0);
		st_jbw_child(&buf, &o, st_jbw_string(&buf, k[order[i]].val.string.val,
											 k[order[i]].val.string.len));
	}
	for (int i = 0; i < n; i++)
		st_jbw_child(&buf, &o, order[i] == array_at ? st_jbw_array(&buf, array)
					 : st_jbw_value(&buf, &values[order[i]]));
	(void) st_jbw_end(&buf, &o);
	return st_jbw_finish(&buf);
}
