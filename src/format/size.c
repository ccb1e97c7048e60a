/*
 * size.c — DynamoDB's size of an item in the stored form, read off its jsonb.
 *
 * Every operation accounts DynamoDB's consumed capacity, which needs the
 * size of every item it reads or writes (the Developer Guide's "Item sizes
 * and formats"; ops/README.md, item.c). st_item_size (item.c) gets it by
 * converting the jsonb to a value tree (jsonval.c), which validates every
 * number, binary and set: right for JSON a user passes, far too slow for
 * every row of a query. A stored item is valid and in the stored form (the
 * header of jsonval.c): canonical numbers, padded base64 without line
 * breaks, B and sets tagged, {"$M": ...} for a map that would read as a
 * tag, and the table's B key attributes as plain base64 strings. So its size
 * is read off the jsonb binary directly; the section on size.c in README.md
 * of this folder says how.
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "format/attrval.h"
#include "expr/expr.h"
#include "format/jsonbw.h"
#include "format/jsonval.h"
#include "format/numtext.h"
#include "format/size.h"

PG_FUNCTION_INFO_V1(singletable_stored_size);
PG_FUNCTION_INFO_V1(singletable_wire_size);

/* The top-level attributes holding B keys as plain base64 strings */
typedef struct BKeys
{
	const char *name[2];		/* NULL when unused */
	size_t		len[2];
} BKeys;

static int64 container_size(JsonbContainer *c);

/* Refuses an item that is not in the stored form; what says how. See size.h. */
void
st_size_not_stored(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("item is not in the stored form: %s", what),
			 errhint("Use singletable.item_size for an item that is not read from a table.")));
}

/* The decoded length of base64 text in the stored form (padded, no line breaks). */
int64
st_size_base64(const char *s, uint32 len)
{
	int			pad = 0;

	if (len % 4 != 0)
		st_size_not_stored("base64 text whose length is not a multiple of 4");
	if (len > 0 && s[len - 1] == '=')
		pad = s[len - 2] == '=' ? 2 : 1;
	return (int64) len / 4 * 3 - pad;
}

/* DynamoDB's size of a number from its text, as numeric_out writes it. See size.h. */
int64
st_size_number_text(const char *s, int len)
{
	int			size = 0;
	StNumberError err = st_number_size(s, len, &size);

	/* no number's text in the message: errors never carry item content */
	if (err != ST_NUM_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("item is not in the stored form: a number is not a DynamoDB number"),
				 errdetail("%s", st_number_error_text(err))));
	return size;
}

/* number_size of a number out of DynamoDB's range or a special value: as its text says (an error) */
static pg_noinline int64
number_text_size(Numeric num)
{
	char		tmp[ST_NUMTEXT_BUFSIZE];
	int			len;
	char	   *s = st_numeric_print(num, tmp, &len);
	int64		size = st_size_number_text(s, len);

	if (s != tmp)
		pfree(s);
	return size;
}

/*
 * DynamoDB's size of a jsonb number: from its significant digits and
 * exponent, read off the numeric's digits (numtext.c), without printing and
 * parsing its text; a number out of DynamoDB's range or a special value is
 * refused as its text is.
 */
static int64
number_size(Numeric num)
{
	const char *p = VARDATA_ANY(num);
	bool		neg;
	int			n;
	int			e;
	int			size;

	/*
	 * The commonest stored number, one base-10000 digit in numeric's short
	 * format (an integer below 10,000, or one such digit times a power of
	 * 10,000): a 2-byte header (sign, display scale, weight) and the digit.
	 * st_numeric_decimal's decomposition for one group, inline: with
	 * first = last = 0 its leading digits are the digit's decimal digits
	 * (lead), its trailing zeros those of the digit (trail), so e = 4 *
	 * weight + lead - 1 and n = lead - trail. A digit of 0 (numeric never
	 * stores one alone) and every other form take the general path. The
	 * regression test size_arith compares both paths with item_size.
	 */
	if (VARSIZE_ANY_EXHDR(num) == 2 * sizeof(uint16))
	{
		uint16		header;
		int16		dig;

		memcpy(&header, p, sizeof(uint16));
		memcpy(&dig, p + sizeof(uint16), sizeof(int16));
		if ((header & 0xC000) == 0x8000 && dig > 0 && dig < 10000)
		{
			int			weight = header & 0x003F;
			int			lead = dig >= 1000 ? 4 : dig >= 100 ? 3 : dig >= 10 ? 2 : 1;
			int			trail = 0;

			if (header & 0x0040)
				weight -= 0x003F + 1;
			while (dig % 10 == 0)
			{
				dig /= 10;
				trail++;
			}
			e = 4 * weight + lead - 1;
			n = lead - trail;
			if (st_number_size_decomposed((header & 0x2000) != 0, n, e, &size) == ST_NUM_OK)
				return size;
			return number_text_size(num);
		}
	}
	if (st_numeric_decimal(num, &neg, &n, &e) &&
		st_number_size_decomposed(neg, n, e, &size) == ST_NUM_OK)
		return size;
	return number_text_size(num);
}

/*
 * DynamoDB's size of the value of JEntry je, whose data is the len bytes at
 * offset off from base, the start of its container's data. Numbers and
 * containers are stored at the next int-aligned offset.
 */
static int64
value_size(JEntry je, const char *base, uint32 off, uint32 len)
{
	if (JBE_ISSTRING(je))
		return len;
	if (JBE_ISNUMERIC(je))
		return number_size((Numeric) (base + INTALIGN(off)));
	if (JBE_ISCONTAINER(je))
		return container_size((JsonbContainer *) (base + INTALIGN(off)));
	return 1;					/* BOOL or NULL */
}

/* Whether key is one of the B key attributes. */
static inline bool
is_b_key(const BKeys *bkeys, const char *key, uint32 len)
{
	for (int i = 0; i < 2; i++)
		if (bkeys->name[i] && bkeys->len[i] == len && memcmp(bkeys->name[i], key, len) == 0)
			return true;
	return false;
}

/*
 * The sum over the members of object c of (name bytes + extra + value
 * size): extra is 1 in a map, 0 at the top level of an item, where the
 * attributes bkeys names (when not NULL) are B values as plain base64
 * strings. An object's JEntries are its keys in order, then its values in
 * the same order; so is their data.
 */
static int64
members_size(JsonbContainer *c, int extra, const BKeys *bkeys)
{
	uint32		n = JsonContainerSize(c);
	const char *base = (const char *) &c->children[2 * n];
	uint32		koff = 0;
	uint32		voff = getJsonbOffset(c, n);	/* where the values' data starts */
	int64		size = 0;

	/*
	 * Without B keys the names count only by their bytes: the keys' data is
	 * contiguous (strings, never padded), voff bytes in all.
	 */
	if (bkeys == NULL)
	{
		size = (int64) voff + (int64) extra * n;
		for (uint32 i = 0; i < n; i++)
		{
			JEntry		vje = c->children[n + i];
			uint32		vnext = voff;

			CHECK_FOR_INTERRUPTS();
			JBE_ADVANCE_OFFSET(vnext, vje);
			size += value_size(vje, base, voff, vnext - voff);
			voff = vnext;
		}
		return size;
	}
	for (uint32 i = 0; i < n; i++)
	{
		JEntry		kje = c->children[i];
		JEntry		vje = c->children[n + i];
		uint32		knext = koff;
		uint32		vnext = voff;

		CHECK_FOR_INTERRUPTS();
		JBE_ADVANCE_OFFSET(knext, kje);
		JBE_ADVANCE_OFFSET(vnext, vje);
		size += (knext - koff) + extra;
		if (bkeys && is_b_key(bkeys, base + koff, knext - koff))
		{
			if (!JBE_ISSTRING(vje))
				st_size_not_stored("a B key attribute is not a base64 string");
			size += st_size_base64(base + voff, vnext - voff);
		}
		else
			size += value_size(vje, base, voff, vnext - voff);
		koff = knext;
		voff = vnext;
	}
	return size;
}

/* The size of a set: the sum of its members' sizes (tag is TAG_SS, TAG_NS or TAG_BS). */
static int64
set_size(JEntry je, const char *base, uint32 off, StTag tag)
{
	JsonbContainer *arr;
	uint32		n;
	const char *data;
	uint32		moff = 0;
	int64		size = 0;

	if (!JBE_ISCONTAINER(je))
		st_size_not_stored("a set is not a JSON array");
	arr = (JsonbContainer *) (base + INTALIGN(off));
	if (!JsonContainerIsArray(arr))
		st_size_not_stored("a set is not a JSON array");
	n = JsonContainerSize(arr);
	if (n == 0)
		st_size_not_stored("a set is empty");
	data = (const char *) &arr->children[n];
	for (uint32 i = 0; i < n; i++)
	{
		JEntry		mje = arr->children[i];
		uint32		mnext = moff;

		CHECK_FOR_INTERRUPTS();
		JBE_ADVANCE_OFFSET(mnext, mje);
		if (tag == TAG_NS)
		{
			if (!JBE_ISNUMERIC(mje))
				st_size_not_stored("an $NS member is not a number");
			size += number_size((Numeric) (data + INTALIGN(moff)));
		}
		else if (!JBE_ISSTRING(mje))
			st_size_not_stored(tag == TAG_SS ? "an $SS member is not a string" :
					   "a $BS member is not a base64 string");
		else if (tag == TAG_BS)
			size += st_size_base64(data + moff, mnext - moff);
		else
			size += mnext - moff;
		moff = mnext;
	}
	return size;
}

/*
 * DynamoDB's size of a nested container: L, M, or a tagged value (B, a set,
 * a {"$M": ...} map).
 */
static int64
container_size(JsonbContainer *c)
{
	uint32		n = JsonContainerSize(c);

	check_stack_depth();
	if (JsonContainerIsArray(c))
	{
		const char *base = (const char *) &c->children[n];
		uint32		off = 0;
		int64		size = 3;

		for (uint32 i = 0; i < n; i++)
		{
			JEntry		je = c->children[i];
			uint32		next = off;

			CHECK_FOR_INTERRUPTS();
			JBE_ADVANCE_OFFSET(next, je);
			size += 1 + value_size(je, base, off, next - off);
			off = next;
		}
		return size;
	}
	if (n == 1)
	{
		const char *base = (const char *) &c->children[2];
		JEntry		kje = c->children[0];
		JEntry		vje = c->children[1];
		uint32		voff = 0;	/* the key's data starts at 0, its value's after it */
		uint32		vnext;
		StTag		tag;

		JBE_ADVANCE_OFFSET(voff, kje);
		vnext = voff;
		JBE_ADVANCE_OFFSET(vnext, vje);
		tag = st_tag_of(base, voff);
		switch (tag)
		{
			case TAG_NONE:
				break;
			case TAG_B:
				if (!JBE_ISSTRING(vje))
					st_size_not_stored("a $B value is not a base64 string");
				return st_size_base64(base + voff, vnext - voff);
			case TAG_SS:
			case TAG_NS:
			case TAG_BS:
				return set_size(vje, base, voff, tag);
			case TAG_M:
				{
					JsonbContainer *map;

					if (!JBE_ISCONTAINER(vje))
						st_size_not_stored("an $M value is not a JSON object");
					map = (JsonbContainer *) (base + INTALIGN(voff));
					if (!JsonContainerIsObject(map))
						st_size_not_stored("an $M value is not a JSON object");
					/* its own keys are not tags */
					return 3 + members_size(map, 1, NULL);
				}
		}
	}
	return 3 + members_size(c, 1, NULL);
}

/*
 * DynamoDB's size of a stored item: the sum over its top-level attributes
 * of (UTF-8 bytes of the name + size of the value). See size.h.
 */
int64
st_stored_item_size(Jsonb *item, const char *b_key1, const char *b_key2)
{
	BKeys		bkeys;

	if (!JB_ROOT_IS_OBJECT(item))
		st_size_not_stored("it is not a JSON object");
	bkeys.name[0] = b_key1;
	bkeys.len[0] = b_key1 ? strlen(b_key1) : 0;
	bkeys.name[1] = b_key2;
	bkeys.len[1] = b_key2 ? strlen(b_key2) : 0;
	return members_size(&item->root, 0, (b_key1 || b_key2) ? &bkeys : NULL);
}

/* The b_keys argument of the internal size functions: at most two attribute names */
static void
b_keys_arg(FunctionCallInfo fcinfo, int argno, const char *b_keys[2])
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	int			k = 0;

	b_keys[0] = b_keys[1] = NULL;
	if (PG_ARGISNULL(argno))
		return;
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(argno), TEXTOID, -1, false, TYPALIGN_INT,
					  &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			continue;
		if (k == 2)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("b_keys names at most two attributes, the partition and sort key")));
		b_keys[k++] = TextDatumGetCString(elems[i]);
	}
}

/*
 * singletable._stored_size(item jsonb, b_keys text[] DEFAULT NULL) -> bigint:
 * st_stored_item_size of an item in the stored form (as read from a table),
 * b_keys naming the attributes (at most two) that hold B keys as plain base64
 * strings. Internal, for the tests of the size arithmetic: it lets them
 * compare this size with item_size's on many items. Not part of the API.
 */
Datum
singletable_stored_size(PG_FUNCTION_ARGS)
{
	const char *b_keys[2];

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	b_keys_arg(fcinfo, 1, b_keys);
	PG_RETURN_INT64(st_stored_item_size(PG_GETARG_JSONB_P(0), b_keys[0], b_keys[1]));
}

/*
 * singletable._wire_size(item jsonb, b_keys text[] DEFAULT NULL) -> bigint:
 * the size the wire writer counts while it writes the item in wire form, as
 * a Query or Scan of singletable.dynamodb does for every item it reads
 * (st_attrval_write_stored, src/attrval.c); b_keys as for _stored_size.
 * Internal, for the tests: it must equal _stored_size, errors included.
 */
Datum
singletable_wire_size(PG_FUNCTION_ARGS)
{
	const char *b_keys[2];
	StAttrKeys	keys;
	StringInfoData buf;
	int64		size = 0;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	b_keys_arg(fcinfo, 1, b_keys);
	/* the B key attributes as a key schema (the others' types do not matter) */
	keys.pk_name = b_keys[0] ? b_keys[0] : "";
	keys.pk_type = b_keys[0] ? ST_KEY_B : ST_KEY_S;
	keys.sk_name = b_keys[1];
	keys.sk_type = ST_KEY_B;
	st_jbw_init(&buf);
	(void) st_attrval_write_stored(&buf, &PG_GETARG_JSONB_P(0)->root, &keys, &size);
	pfree(buf.data);
	PG_RETURN_INT64(size);
}
