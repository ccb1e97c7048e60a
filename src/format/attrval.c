/*
 * attrval.c — DynamoDB's wire AttributeValues <-> the stored form of items.
 *
 * On the wire every value is an object with exactly one type key:
 *
 *   {"S": "x"} {"N": "17"} {"B": "<base64>"} {"BOOL": true} {"NULL": true}
 *   {"L": [...]} {"M": {...}} {"SS": ["a"]} {"NS": ["1"]} {"BS": ["AQ=="]}
 *
 * Design notes: the section on attrval.c in README.md of this folder.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "format/attrval.h"
#include "utils/errors.h"
#include "format/jsonbw.h"
#include "format/jsonpush.h"
#include "format/jsontext.h"
#include "format/jsonval.h"
#include "format/numtext.h"
#include "format/size.h"

/* The prefix of DynamoDB's value messages */
#define INVALID "One or more parameter values were invalid: "

/* The ExpressionAttributeValues key being converted, for the message suffix */
static const char *values_key = NULL;

/* Raises a ValidationException with DynamoDB's text msg about a value. */
static void
value_error(StAttrParam param, const char *msg)
{
	if (param == ST_AV_VALUES && values_key)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid AttributeValue in ExpressionAttributeValues"),
				 st_errdetail_dynamodb("ExpressionAttributeValues contains invalid value: %s for key %s",
									   msg, values_key)));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid AttributeValue in %s", param == ST_AV_ITEM ? "Item" : "Key"),
			 st_errdetail_dynamodb("%s", msg)));
}

void
st_attrval_serialization_error(JsonbValue *v, const char *expected)
{
	const char *msg;

	if (v->type == jbvBinary && JsonContainerIsArray(v->val.binary.data))
		msg = "Start of list found where not expected";
	else if (v->type == jbvBinary)
		msg = "Start of structure or map found where not expected.";
	else
		msg = psprintf("%s cannot be converted to %s",
					   v->type == jbvString ? "STRING_VALUE" :
					   v->type == jbvNumeric ? "NUMBER_VALUE" :
					   v->type == jbvBool ? (v->val.boolean ? "TRUE_VALUE" : "FALSE_VALUE") :
					   "NULL_VALUE", expected);
	ereport(ERROR,
			(errcode(ERRCODE_ST_SERIALIZATION),
			 errmsg("a DynamoDB request has a JSON value of the wrong type where type %s is expected",
					expected),
			 st_errdetail_dynamodb("%s", msg)));
	pg_unreachable();
}

/* The string of a JSON string value (else SerializationException). */
static void
string_of(JsonbValue *v, const char **s, int *len)
{
	if (v->type != jbvString)
		st_attrval_serialization_error(v, "String");
	*s = v->val.string.val;
	*len = v->val.string.len;
}

/* An N value from its text (DynamoDB's number messages). */
static StVal *
number_of(JsonbValue *v, StAttrParam param)
{
	const char *s;
	int			len;
	StNumber	n;
	StNumberError err;

	string_of(v, &s, &len);
	err = st_number_parse(s, len, &n);
	if (err != ST_NUM_OK)
	{
		if (param == ST_AV_VALUES && values_key)
			value_error(param, st_number_error_text(err));
		ereport(ERROR,
				(errcode(err == ST_NUM_SYNTAX ? ERRCODE_INVALID_TEXT_REPRESENTATION : ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("invalid number in a DynamoDB AttributeValue"),
				 st_errdetail_dynamodb("%s", st_number_error_text(err))));
	}
	return st_val_make_str(SV_N, n.canonical, strlen(n.canonical));
}

/* A B value from its base64 text. */
static StVal *
binary_of(JsonbValue *v)
{
	const char *s;
	int			len;
	int			blen;
	char	   *bin;

	string_of(v, &s, &len);
	bin = st_base64_decode(s, len, &blen);
	if (bin == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_ST_SERIALIZATION),
				 errmsg("a DynamoDB binary value is not valid base64"),
				 st_errdetail_dynamodb("Base64 encoded binary value is not valid")));
	return st_val_make_str(SV_B, bin, blen);
}

static int
set_member_cmp(const void *a, const void *b)
{
	return st_val_compare(*(StVal *const *) a, *(StVal *const *) b);
}

/* SS, NS or BS from a JSON array: not empty, no duplicates, sorted. */
static StVal *
set_of(JsonbValue *arr, StValType type, StAttrParam param)
{
	StVal	   *r;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	int			n = 0;
	int			size;

	if (arr->type != jbvBinary || !JsonContainerIsArray(arr->val.binary.data))
		st_attrval_serialization_error(arr, "List");
	size = JsonContainerSize(arr->val.binary.data);
	if (size == 0)
		value_error(param, type == SV_SS ? INVALID "An string set  may not be empty" :
					type == SV_NS ? INVALID "An number set  may not be empty" :
					INVALID "Binary sets should not be empty");
	r = palloc0(sizeof(StVal));
	r->type = type;
	r->u.list.elems = palloc(sizeof(StVal *) * size);
	it = JsonbIteratorInit(arr->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		CHECK_FOR_INTERRUPTS();
		if (tok != WJB_ELEM)
			continue;
		if (type == SV_SS)
		{
			const char *s;
			int			len;

			string_of(&v, &s, &len);
			r->u.list.elems[n++] = st_val_make_str(SV_S, s, len);
		}
		else if (type == SV_NS)
			r->u.list.elems[n++] = number_of(&v, param);
		else
			r->u.list.elems[n++] = binary_of(&v);
	}
	r->u.list.n = n;
	qsort(r->u.list.elems, n, sizeof(StVal *), set_member_cmp);
	for (int i = 1; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (st_val_compare(r->u.list.elems[i - 1], r->u.list.elems[i]) == 0)
			value_error(param, type == SV_BS ? INVALID "Input collection of type BS contains duplicates." :
						INVALID "Input collection contains duplicates.");
	}
	return r;
}

static void
too_deep(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("a DynamoDB AttributeValue is nested more than %d levels deep", ST_MAX_DEPTH),
			 st_errdetail_dynamodb("Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit")));
}

StVal *
st_attrval_to_val(JsonbValue *av, StAttrParam param, int depth)
{
	JsonbIterator *it;
	JsonbValue	k,
				v,
				typev;
	JsonbIteratorToken tok;
	const char *type = NULL;
	int			typelen = 0;
	int			ntypes = 0;

	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	if (av->type != jbvBinary || !JsonContainerIsObject(av->val.binary.data))
		st_attrval_serialization_error(av, "AttributeValue");
	/* the one member that is not null is the type */
	it = JsonbIteratorInit(av->val.binary.data);
	while (st_jbv_next_member(&it, &k, &v))
	{
		if (v.type == jbvNull)
			continue;
		if (++ntypes == 1)
		{
			type = k.val.string.val;
			typelen = k.val.string.len;
			typev = v;
		}
	}
	if (ntypes > 1)
		value_error(param, "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes");

#define IS(t) (typelen == (int) strlen(t) && memcmp(type, t, typelen) == 0)
	if (ntypes == 1 && IS("S"))
	{
		const char *s;
		int			len;

		string_of(&typev, &s, &len);
		return st_val_make_str(SV_S, s, len);
	}
	if (ntypes == 1 && IS("N"))
		return number_of(&typev, param);
	if (ntypes == 1 && IS("B"))
		return binary_of(&typev);
	if (ntypes == 1 && (IS("BOOL") || IS("NULL")))
	{
		StVal	   *r = palloc0(sizeof(StVal));

		if (typev.type != jbvBool)
			st_attrval_serialization_error(&typev, "Boolean");
		if (IS("NULL"))
		{
			if (!typev.val.boolean)
				value_error(param, INVALID "Null attribute value types must have the value of true");
			r->type = SV_NULL;
		}
		else
		{
			r->type = SV_BOOL;
			r->u.boolean = typev.val.boolean;
		}
		return r;
	}
	if (ntypes == 1 && IS("SS"))
		return set_of(&typev, SV_SS, param);
	if (ntypes == 1 && IS("NS"))
		return set_of(&typev, SV_NS, param);
	if (ntypes == 1 && IS("BS"))
		return set_of(&typev, SV_BS, param);
	if (ntypes == 1 && IS("L"))
	{
		StVal	   *r;
		int			n = 0;

		if (typev.type != jbvBinary || !JsonContainerIsArray(typev.val.binary.data))
			st_attrval_serialization_error(&typev, "List");
		if (depth >= ST_MAX_DEPTH)
			too_deep();
		r = palloc0(sizeof(StVal));
		r->type = SV_L;
		r->u.list.elems = palloc(sizeof(StVal *) * Max(JsonContainerSize(typev.val.binary.data), 1));
		it = JsonbIteratorInit(typev.val.binary.data);
		while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		{
			CHECK_FOR_INTERRUPTS();
			if (tok == WJB_ELEM)
				r->u.list.elems[n++] = st_attrval_to_val(&v, param, depth + 1);
		}
		r->u.list.n = n;
		return r;
	}
	if (ntypes == 1 && IS("M"))
	{
		StVal	   *r;

		if (typev.type != jbvBinary || !JsonContainerIsObject(typev.val.binary.data))
			st_attrval_serialization_error(&typev, "Map");
		if (depth >= ST_MAX_DEPTH)
			too_deep();
		r = st_val_make_map(JsonContainerSize(typev.val.binary.data));
		it = JsonbIteratorInit(typev.val.binary.data);
		while (st_jbv_next_member(&it, &k, &v))
		{
			/* jsonb's keys are unique and sorted */
			st_val_map_append(r, k.val.string.val, k.val.string.len,
							  st_attrval_to_val(&v, param, depth + 1));
		}
		return r;
	}
#undef IS
	/* no type, or one DynamoDB does not have */
	value_error(param, "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
	return NULL;
}

/* The top-level attributes of a wire map as an StVal map. */
static StVal *
map_to_val(JsonbValue *map, StAttrParam param)
{
	JsonbIterator *it;
	JsonbValue	k,
				v;
	StVal	   *r;

	if (map->type != jbvBinary || !JsonContainerIsObject(map->val.binary.data))
		st_attrval_serialization_error(map, "Map");
	r = st_val_make_map(JsonContainerSize(map->val.binary.data));
	it = JsonbIteratorInit(map->val.binary.data);
	PG_TRY();
	{
		while (st_jbv_next_member(&it, &k, &v))
		{
			if (param == ST_AV_VALUES)
				values_key = pnstrdup(k.val.string.val, k.val.string.len);
			st_val_map_append(r, k.val.string.val, k.val.string.len,
							  st_attrval_to_val(&v, param, 1));
		}
	}
	PG_FINALLY();
	{
		values_key = NULL;
	}
	PG_END_TRY();
	return r;
}

/* The DynamoDB type letter of a key value, or NULL when it cannot be a key */
static const char *
key_type_name(const StVal *v)
{
	return st_val_type_name(v->type);
}

/* Checks a key attribute of an item or key map against the schema. */
static void
check_key_attr(StVal *map, const char *name, StKeyType kt, StAttrParam param)
{
	StVal	   *v = st_val_map_get(map, name, strlen(name));
	bool		ok;

	if (v == NULL)
	{
		if (param == ST_AV_KEY)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the Key lacks key attribute \"%s\"", name),
					 st_errdetail_dynamodb("The provided key element does not match the schema")));
		return;					/* an Item without it: st_item_prepare's message */
	}
	ok = (kt == ST_KEY_S && v->type == SV_S) || (kt == ST_KEY_N && v->type == SV_N) ||
		(kt == ST_KEY_B && v->type == SV_B);
	if (ok)
		return;
	if (param == ST_AV_KEY)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key attribute \"%s\" of the Key is of type %s, not %c", name,
						key_type_name(v), (char) kt),
				 st_errdetail_dynamodb("The provided key element does not match the schema")));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("key attribute \"%s\" of the Item is of type %s, not %c", name,
					key_type_name(v), (char) kt),
			 st_errdetail_dynamodb(INVALID "Type mismatch for key %s expected: %c actual: %s",
								   name, (char) kt, key_type_name(v))));
}

Jsonb *
st_attrval_map_to_stored(JsonbValue *map, StAttrParam param, const StAttrKeys *keys)
{
	StVal	   *v = map_to_val(map, param);
	const char *b_keys[2] = {NULL, NULL};

	if (keys)
	{
		check_key_attr(v, keys->pk_name, keys->pk_type, param);
		if (keys->sk_name)
			check_key_attr(v, keys->sk_name, keys->sk_type, param);
		if (keys->pk_type == ST_KEY_B)
			b_keys[0] = keys->pk_name;
		if (keys->sk_name && keys->sk_type == ST_KEY_B)
			b_keys[1] = keys->sk_name;
	}
	return st_val_to_jsonb(v, b_keys);
}

/* One key attribute's value as key text. */
static StKeyText
key_text(StVal *v)
{
	StKeyText	r;

	if (v->type == SV_B)
		r.data = st_base64_encode(v->u.str.data, v->u.str.len, &r.len);
	else
	{
		r.data = v->u.str.data;
		r.len = v->u.str.len;
	}
	return r;
}

/*
 * Key attribute name of an S or N key read straight from the Key map c:
 * {"S": "..."} of an S key, {"N": "<valid number>"} of an N key, its key
 * text as key_text makes it. False for anything else (no such attribute,
 * another type, a second type member, B, an invalid number), which the
 * generic conversion then converts or refuses with its message.
 */
static bool
key_direct(JsonbContainer *c, const char *name, StKeyType kt, StKeyText *out)
{
	JsonbValue	av;
	JsonbValue	tv;
	StNumber	n;

	if (kt != ST_KEY_S && kt != ST_KEY_N)
		return false;
	if (getKeyJsonValueFromContainer(c, name, strlen(name), &av) == NULL ||
		av.type != jbvBinary || !JsonContainerIsObject(av.val.binary.data) ||
		JsonContainerSize(av.val.binary.data) != 1 ||
		getKeyJsonValueFromContainer(av.val.binary.data, kt == ST_KEY_S ? "S" : "N", 1, &tv) == NULL ||
		tv.type != jbvString)
		return false;
	if (kt == ST_KEY_S)
	{
		out->data = tv.val.string.val;
		out->len = tv.val.string.len;
		return true;
	}
	if (st_number_parse(tv.val.string.val, tv.val.string.len, &n) != ST_NUM_OK)
		return false;
	out->data = n.canonical;
	out->len = strlen(n.canonical);
	return true;
}

void
st_attrval_key(JsonbValue *map, const StAttrKeys *keys, StKeyText *pk, StKeyText *sk)
{
	StVal	   *v;
	int			nkeys = keys->sk_name ? 2 : 1;

	/*
	 * The usual Key, exactly the key attributes as strings of their types:
	 * the same key text as below, without the generic value structure.
	 */
	if (map->type == jbvBinary && JsonContainerIsObject(map->val.binary.data) &&
		JsonContainerSize(map->val.binary.data) == nkeys &&
		key_direct(map->val.binary.data, keys->pk_name, keys->pk_type, pk) &&
		(keys->sk_name == NULL || key_direct(map->val.binary.data, keys->sk_name, keys->sk_type, sk)))
	{
		if (keys->sk_name == NULL)
		{
			sk->data = NULL;
			sk->len = 0;
		}
		return;
	}
	v = map_to_val(map, ST_AV_KEY);

	check_key_attr(v, keys->pk_name, keys->pk_type, ST_AV_KEY);
	if (keys->sk_name)
		check_key_attr(v, keys->sk_name, keys->sk_type, ST_AV_KEY);
	if (v->u.map.n != nkeys)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the Key has %d attributes, not the %d key attributes of the table",
						v->u.map.n, nkeys),
				 st_errdetail_dynamodb("The provided key element does not match the schema")));
	*pk = key_text(st_val_map_get(v, keys->pk_name, strlen(keys->pk_name)));
	if (keys->sk_name)
		*sk = key_text(st_val_map_get(v, keys->sk_name, strlen(keys->sk_name)));
	else
	{
		sk->data = NULL;
		sk->len = 0;
	}
}

/* ------------------------------------------------------ stored to wire */

/*
 * Stored to wire writes the response's binary jsonb directly (jsonbw.h), or
 * its JSON text (jsontext.h) with the same walk (attrval_walk.h): no tree of
 * JsonbValues, no copy of the stored item. The stored containers are read by
 * index, their JEntries in order (children_of, value_at): the binary form
 * writes an object's keys first, then its values, as jsonb stores them, the
 * text each key before its value; the wire form keeps the stored form's
 * keys, so their order too.
 */

/* Where a container's children's data starts, and how many JEntries it has */
static char *
children_of(JsonbContainer *c, int *nchildren)
{
	int			n = JsonContainerSize(c);

	*nchildren = JsonContainerIsObject(c) ? 2 * n : n;
	return (char *) &c->children[*nchildren];
}

/*
 * Child i of container c (data: children_of), whose data starts *offset
 * bytes in; advances *offset past it (cf. fillJsonbValue in jsonb_util.c).
 */
static void
value_at(JsonbContainer *c, char *data, int i, uint32 *offset, JsonbValue *v)
{
	JEntry		entry = c->children[i];
	uint32		off = *offset;
	uint32		end = off;

	JBE_ADVANCE_OFFSET(end, entry);
	*offset = end;
	if (JBE_ISSTRING(entry))
	{
		v->type = jbvString;
		v->val.string.val = data + off;
		v->val.string.len = end - off;
	}
	else if (JBE_ISNUMERIC(entry))
	{
		v->type = jbvNumeric;
		v->val.numeric = (Numeric) (data + INTALIGN(off));
	}
	else if (JBE_ISBOOL_TRUE(entry) || JBE_ISBOOL_FALSE(entry))
	{
		v->type = jbvBool;
		v->val.boolean = JBE_ISBOOL_TRUE(entry);
	}
	else if (JBE_ISNULL(entry))
		v->type = jbvNull;
	else
	{
		Assert(JBE_ISCONTAINER(entry));
		v->type = jbvBinary;
		v->val.binary.data = (JsonbContainer *) (data + INTALIGN(off));
		v->val.binary.len = end - INTALIGN(off);
	}
}

/*
 * Sizing on the way: where a walk is given size (not NULL), it adds
 * DynamoDB's size of what it writes, by the rules src/size.c applies to the
 * stored form, and refuses what is not in the stored form as it does
 * (st_size_*): a Query or Scan sizes every item it reads (its 1 MB page and
 * its capacity), and its wire writer sees every byte that needs, so an item
 * is walked once, not twice. The leaves: an S is its bytes, an N its text's
 * size, a B its decoded length, BOOL and NULL 1; an L is 3 + 1 per element,
 * an M 3 + (name + 1) per member, an item (name) per attribute; a set the
 * sum of its members'. test/regress/sql/stored_size.sql compares the two sizes.
 */

/*
 * The output of the walk (attrval_walk.h): the wire form's binary jsonb
 * (jsonbw.h) or its JSON text (jsontext.h), as text says. The walk decides
 * once what every stored value is on the wire, and how it is sized and
 * checked; these out_* calls are all that differs between the two outputs.
 * In the binary form every call that writes a value returns its JEntry,
 * which out_child records in its container; in text they return 0, and the
 * commas and a map's keys are written before each child (out_elem, out_key).
 * Each instance of the walk passes text as a constant.
 */

/* A container being written: binary, its header and JEntries; text, its children so far */
typedef struct WireCont
{
	StJbwContainer c;
	int			n;
	char		close;
} WireCont;

static inline void
out_begin(bool text, StringInfo buf, WireCont *c, bool object, int n)
{
	if (text)
	{
		st_jtext_char(buf, object ? '{' : '[');
		c->n = 0;
		c->close = object ? '}' : ']';
	}
	else
		st_jbw_begin(buf, &c->c, object, n);
}

/*
 * Begins the wire map of the n pairs of the stored object src, whose keys
 * it keeps: the binary form copies them now (st_jbw_copy_children), the text
 * writes each before its value (out_key). Returns the keys' data length.
 */
static inline uint32
out_begin_map(bool text, StringInfo buf, WireCont *c, JsonbContainer *src, int n)
{
	out_begin(text, buf, c, true, n);
	if (!text)
		return st_jbw_copy_children(buf, &c->c, src, n);
	return n == 0 ? 0 : getJsonbOffset(src, n - 1) + getJsonbLength(src, n - 1);
}

/* Before an array's element: in text, the comma */
static inline void
out_elem(bool text, StringInfo buf, WireCont *c)
{
	if (text && c->n++ > 0)
		st_jtext_char(buf, ',');
}

/* Before a map's value: in text, the comma and its key */
static inline void
out_key(bool text, StringInfo buf, WireCont *c, const char *key, int len)
{
	if (!text)
		return;
	if (c->n++ > 0)
		st_jtext_char(buf, ',');
	st_jtext_string(buf, key, len);
	st_jtext_char(buf, ':');
}

/* After a child: in binary, its JEntry */
static inline void
out_child(bool text, StringInfo buf, WireCont *c, JEntry child)
{
	if (!text)
		st_jbw_child(buf, &c->c, child);
}

static inline JEntry
out_end(bool text, StringInfo buf, WireCont *c)
{
	if (text)
	{
		st_jtext_char(buf, c->close);
		return 0;
	}
	return st_jbw_end(buf, &c->c);
}

/* The wire value {"<t>": s} of a one-letter type t (S, N, B) and a string s, in one step */
static pg_attribute_always_inline JEntry
out_typed_string(bool text, StringInfo buf, char t, const char *s, int len)
{
	if (text)
	{
		char		head[5] = {'{', '"', t, '"', ':'};

		st_jtext_raw(buf, head, sizeof(head));
		st_jtext_string(buf, s, len);
		st_jtext_char(buf, '}');
		return 0;
	}
	return st_jbw_typed_string(buf, t, s, len);
}

/* A string: a set's member */
static inline JEntry
out_string(bool text, StringInfo buf, const char *s, int len)
{
	if (text)
	{
		st_jtext_string(buf, s, len);
		return 0;
	}
	return st_jbw_string(buf, s, len);
}

/* A value as it is (what is not in the stored form is passed on as found) */
static inline JEntry
out_value(bool text, StringInfo buf, const JsonbValue *v)
{
	if (text)
	{
		st_jtext_value(buf, v);
		return 0;
	}
	return st_jbw_value(buf, v);
}

/* {"BOOL": b} or {"NULL": true}, in one step */
static inline JEntry
out_typed_bool(bool text, StringInfo buf, const char *type, bool value)
{
	if (text)
	{
		st_jtext_raw(buf, "{\"", 2);
		st_jtext_raw(buf, type, strlen(type));
		st_jtext_raw(buf, value ? "\":true}" : "\":false}", value ? 7 : 8);
		return 0;
	}
	return st_jbw_bool_pair(buf, type, strlen(type), value);
}

/* Whether key k is the attribute name (a B key attribute: stored as plain base64) */
static bool
is_name(const JsonbValue *k, const char *name)
{
	return name && (int) strlen(name) == k->val.string.len &&
		memcmp(name, k->val.string.val, k->val.string.len) == 0;
}

/* The wire type of a stored tagged object's tag k (ST_TAG_*), or NULL */
static const char *
tag_type(const JsonbValue *k)
{
	static const char *const types[] = {
		[TAG_NONE] = NULL, [TAG_B] = "B", [TAG_SS] = "SS", [TAG_NS] = "NS", [TAG_BS] = "BS", [TAG_M] = "M"
	};

	return types[st_tag_of(k->val.string.val, k->val.string.len)];
}

/*
 * The walk, twice: the binary jsonb (..._jsonb) and the JSON text (..._text)
 * of the wire form; attrval_walk.h has it, and why.
 */
#define WALK_TEXT false
#define WALK(name) name##_jsonb
#include "format/attrval_walk.h"

#define WALK_TEXT true
#define WALK(name) name##_text
#include "format/attrval_walk.h"

JEntry
st_attrval_write_stored(StringInfo buf, JsonbContainer *stored, const StAttrKeys *keys, int64 *size)
{
	return write_item_jsonb(buf, stored, keys, size);
}

void
st_attrval_text_stored(StringInfo buf, JsonbContainer *stored, const StAttrKeys *keys, int64 *size)
{
	(void) write_item_text(buf, stored, keys, size);
}

Jsonb *
st_attrval_from_stored(Jsonb *stored, const StAttrKeys *keys)
{
	StringInfoData buf;

	if (!JB_ROOT_IS_OBJECT(stored) || JB_ROOT_IS_SCALAR(stored))
		elog(ERROR, "a stored item is not a JSON object");
	st_jbw_init(&buf);
	(void) write_map_entries_jsonb(&buf, &stored->root, true, keys, NULL);
	return st_jbw_finish(&buf);
}

/* tok (WJB_VALUE or WJB_ELEM) says where: the wire map is pushed in its place either way */
JsonbValue *
st_attrval_push_stored(JsonbParseState **st, JsonbIteratorToken tok, JsonbContainer *stored,
					   const StAttrKeys *keys)
{
	StringInfoData buf;
	Jsonb	   *wire;
	JsonbValue	v;

	Assert(tok == WJB_VALUE || tok == WJB_ELEM);
	if (!JsonContainerIsObject(stored))
		elog(ERROR, "a stored item is not a JSON object");
	st_jbw_init(&buf);
	(void) write_map_entries_jsonb(&buf, stored, true, keys, NULL);
	wire = st_jbw_finish(&buf);
	/* pushJsonbValue unpacks a container value into the parse state */
	st_jbv_jsonb(&v, wire);
	return pushJsonbValue(st, tok, &v);
}
