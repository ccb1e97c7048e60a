/*
 * item.c — checking an item before it is written.
 *
 * The item is converted to a DynamoDB value (src/jsonval.c), which validates
 * every number, binary and set and the nesting depth; then its key
 * attributes and size are checked. When the jsonb given is already in the
 * stored form (canonical numbers, sorted sets...) it is stored as is,
 * otherwise the value is written back to jsonb.
 *
 * Design notes: the section on item.c in README.md of this folder.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "utils/errors.h"
#include "catalog/indexes.h"
#include "ops/entity_check.h"
#include "ops/item.h"
#include "format/jsonval.h"

/*
 * At most this many top-level attributes fit in an item. An attribute costs
 * its name (at least 1 byte: empty names are rejected) plus its value, which
 * may cost nothing (an empty S or B, or {"$SS": [""]}). So 1 byte per
 * attribute is the exact lower bound one attribute can cost, and an item of
 * more than 409,600 attributes exceeds the limit whatever they hold. (The
 * names must also differ, which makes the true bound lower, about 142,000;
 * the simple bound is enough to refuse without converting.)
 */
#define ST_MAX_ITEM_ATTRIBUTES		ST_MAX_ITEM_BYTES

/*
 * No valid item takes more jsonb than this. Claim: a value v of DynamoDB
 * size s, stored in a jsonb container, takes with its slot there (2 JEntries
 * of 4 bytes for an object member, 1 for an array element, up to 3 bytes of
 * alignment) at most K * (s + 1) bytes, with K = 40. By induction:
 *  - S: its bytes + 11 <= K (s + 1). BOOL, NULL: 11 <= 2 K.
 *  - N: a valid number has at most 38 significant digits, at most 11 base-
 *    10000 digits; numeric_in normalizes it to at most 4 + 4 + 22 bytes, so
 *    41 bytes for s >= 1.
 *  - B {"$B": "..."}: 14 bytes of object + the base64 text; keys.c allows no
 *    more line-break bytes than base64 characters, so q groups of 4 take at
 *    most 8 q bytes and decode to at least 3 q - 2 bytes: 25 bytes for an
 *    empty B (s = 0), 25 + 8 q <= K (3 q - 1) otherwise.
 *  - sets: 22 bytes of {"$SS": [ ]} + 4 + member bytes per member; members
 *    cost at least 1 byte except one empty S or B, so at most 37 + 5 s bytes
 *    (SS, BS) or 33 + 37 k with s >= 2 k - 1 (NS): K = 37 covers all.
 *  - L: 4 + sum(K (s_i + 1)) + 11 <= K (3 + sum(1 + s_i) + 1).
 *  - M: 4 + sum(name_i + K (s_i + 1)) + 11 <= K (s + 1) likewise, and the
 *    {"$M": ...} wrapper adds 17 bytes, covered by the 3 K of slack.
 * At the top level each attribute takes name + K (s_i + 1) <= (K + 1)
 * (name + s_i) bytes as its name is at least 1 byte, so a valid item takes
 * at most 8 + 41 * 409,600 bytes (16.8 MB) of jsonb. The bound below is 64
 * times the limit (26.2 MB), leaving a margin for slips in this reasoning:
 * what it refuses is far beyond any valid item, and it is refused before it
 * is converted.
 */
#define ST_MAX_ITEM_JSONB_BYTES		((int64) 64 * ST_MAX_ITEM_BYTES)

/* A key value as an StVal of its type (B keys are binary). */
StVal *
st_key_to_val(StKeyType t, const StKey *k)
{
	switch (t)
	{
		case ST_KEY_S:
			return st_val_make_str(SV_S, k->display, strlen(k->display));
		case ST_KEY_N:
			return st_val_make_str(SV_N, k->display, strlen(k->display));
		case ST_KEY_B:
			{
				bytea	   *b = DatumGetByteaPP(k->datum);

				return st_val_make_str(SV_B, VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b));
			}
	}
	return NULL;
}

/*
 * Checks key attribute name of the item: present, scalar of the key's type,
 * within DynamoDB's limits. A B key may be a plain base64 string or a
 * {"$B": ...} value; either way it becomes binary in val. Returns false when
 * the stored form must be rewritten.
 */
static bool
check_key(StTable *tab, StVal *val, const char *name, StKeyType kt, bool is_sort, StKey *out)
{
	StVal	   *v = st_val_map_get(val, name, strlen(name));
	bool		same_form = true;
	const char *actual;
	bool		ok;

	if (v == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("item for table \"%s\" lacks key attribute \"%s\"", tab->relname, name),
				 st_errdetail_dynamodb("One or more parameter values were invalid: Missing the key %s in the item", name)));
	actual = st_val_type_name(v->type);
	ok = (kt == ST_KEY_S && v->type == SV_S) || (kt == ST_KEY_N && v->type == SV_N) ||
		(kt == ST_KEY_B && (v->type == SV_B || v->type == SV_S));
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("key attribute \"%s\" of table \"%s\" must be of type %c, not %s",
						name, tab->relname, (char) kt, actual),
				 st_errdetail_dynamodb("One or more parameter values were invalid: Type mismatch for key %s expected: %c actual: %s",
						   name, (char) kt, actual),
				 kt == ST_KEY_N ? errhint("N keys are JSON numbers in items.") :
				 kt == ST_KEY_B ? errhint("B keys are base64 JSON strings in items.") : 0));
	if (kt == ST_KEY_B && v->type == SV_B)
	{
		int			len;
		char	   *enc = st_base64_encode(v->u.str.data, v->u.str.len, &len);

		st_key_from_text(kt, enc, len, name, tab->relname, is_sort, out);
		same_form = false;		/* stored as a plain base64 string */
	}
	else
		st_key_from_text(kt, v->u.str.data, v->u.str.len, name, tab->relname, is_sort, out);
	if (kt == ST_KEY_B)
	{
		if (v->type == SV_S && (strlen(out->display) != (size_t) v->u.str.len ||
								memcmp(out->display, v->u.str.data, v->u.str.len) != 0))
			same_form = false;	/* non-canonical base64 */
		st_val_map_put(val, name, strlen(name), st_key_to_val(kt, out));
	}
	return same_form;
}

/*
 * Checks an item given as a value (put_item after conversion, or the result
 * of update_item) and fills *out. stored_form is the jsonb to store when the
 * caller already has the item in stored form, else NULL.
 */
void
st_item_from_val(StTable *tab, StVal *val, Jsonb *stored_form, bool is_update, StItem *out)
{
	const char *b_keys[2] = {NULL, NULL};

	memset(out, 0, sizeof(*out));
	if (!check_key(tab, val, tab->pk_name, tab->pk_type, false, &out->pk))
		stored_form = NULL;
	if (tab->sk_name && !check_key(tab, val, tab->sk_name, tab->sk_type, true, &out->sk))
		stored_form = NULL;

	for (int i = 0; i < val->u.map.n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		out->size += val->u.map.entries[i].keylen + st_val_size(val->u.map.entries[i].val);
	}
	if (out->size > ST_MAX_ITEM_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("item for table \"%s\" is " INT64_FORMAT " bytes, more than the limit of %d bytes",
						tab->relname, out->size, ST_MAX_ITEM_BYTES),
				 is_update ? st_errdetail_dynamodb("Item size to update has exceeded the maximum allowed size")
				 : st_errdetail_dynamodb("Item size has exceeded the maximum allowed size")));
	st_key_check_combined(&out->pk, tab->sk_name ? &out->sk : NULL, tab->relname);
	if (tab->n_indexes > 0)
		st_index_check_item(tab, val, is_update,
							out->pk.nbytes + (tab->sk_name ? out->sk.nbytes : 0));
	/* the write guard: tables without entities pay one test */
	if (st_entity_check_wanted(tab))
		st_entity_check_item(tab, val, &out->pk, tab->sk_name ? &out->sk : NULL);

	if (tab->pk_type == ST_KEY_B)
		b_keys[0] = tab->pk_name;
	if (tab->sk_name && tab->sk_type == ST_KEY_B)
		b_keys[1] = tab->sk_name;
	out->val = val;
	out->jsonb = stored_form ? stored_form : st_val_to_jsonb(val, b_keys);
}

/*
 * Refuses, before any conversion, an item (what names it) that cannot be
 * within the item size limit by its attribute count or its jsonb size alone.
 */
static void
check_cheap_limits(Jsonb *item, const char *what)
{
	if (JB_ROOT_COUNT(item) > ST_MAX_ITEM_ATTRIBUTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s has %u attributes, more than fit in the limit of %d bytes",
						what, JB_ROOT_COUNT(item), ST_MAX_ITEM_BYTES),
				 st_errdetail_dynamodb("Item size has exceeded the maximum allowed size")));
	if (VARSIZE(item) > ST_MAX_ITEM_JSONB_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s is %zu bytes of jsonb, more than any item within the limit of %d bytes takes",
						what, (size_t) VARSIZE(item), ST_MAX_ITEM_BYTES),
				 st_errdetail_dynamodb("Item size has exceeded the maximum allowed size")));
}

/* Checks a jsonb item for table tab and fills *out (see st_item_from_val). */
void
st_item_prepare(StTable *tab, Jsonb *item, StItem *out)
{
	char	   *what;
	bool		canonical;
	StVal	   *val;

	if (item == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("item must not be NULL")));
	what = psprintf("item for table \"%s\"", tab->relname);
	if (!JB_ROOT_IS_OBJECT(item) || JB_ROOT_IS_SCALAR(item))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a JSON object", what),
				 errdetail("An item maps attribute names to values: {\"%s\": ...}.", tab->pk_name)));
	check_cheap_limits(item, what);
	val = st_jsonb_to_val(item, what, &canonical);
	if (val->type != SV_M)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a JSON object, not a %s value", what, st_val_type_name(val->type)),
				 errdetail("An item maps attribute names to values: {\"%s\": ...}.", tab->pk_name)));
	st_item_from_val(tab, val, canonical ? item : NULL, false, out);
}

/*
 * DynamoDB's size in bytes of an item given as jsonb, by the rules at the
 * top of this file, without a table: B values are those written {"$B": ...}
 * (a B key stored as a plain base64 string counts as that string). An item
 * that cannot be a valid item by its attribute count or jsonb size alone is
 * refused as st_item_prepare refuses it.
 */
int64
st_item_size(Jsonb *item)
{
	StVal	   *val;
	bool		canonical;
	int64		size = 0;

	if (!JB_ROOT_IS_OBJECT(item) || JB_ROOT_IS_SCALAR(item))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("item_size takes an item, a JSON object"),
				 errhint("An item maps attribute names to values: {\"pk\": ...}.")));
	check_cheap_limits(item, "item");
	val = st_jsonb_to_val(item, "item", &canonical);
	Assert(val->type == SV_M);
	for (int i = 0; i < val->u.map.n; i++)
		size += val->u.map.entries[i].keylen + st_val_size(val->u.map.entries[i].val);
	return size;
}
