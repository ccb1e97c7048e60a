/*
 * value.c — operations on DynamoDB values (StVal): type names, equality,
 * ordering, DynamoDB's size rules, maps and sets.
 *
 * Values may be wide (an item has up to 409,600 top-level attributes, a
 * list or map as many elements), so every operation here is linear or
 * n log n in the number of elements, and every loop over elements calls
 * ST_CHECK_INTERRUPTS() so that a statement working on one can be cancelled.
 */
#include "st_base.h"

#include "expr.h"

/* DynamoDB's name of a type ("S", "NS", "BOOL", ...). */
const char *
st_val_type_name(StValType t)
{
	static const char *const names[] = {"S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS"};

	return names[t];
}

bool
st_val_is_set(StValType t)
{
	return t == SV_SS || t == SV_NS || t == SV_BS;
}

/* Whether <, <=, >, >= and BETWEEN are defined for v (S, N, B). */
bool
st_val_orderable(const StVal *v)
{
	return v->type == SV_S || v->type == SV_N || v->type == SV_B;
}

/* Compares two scalar values of the same type: S and B by bytes, N by value. */
static int
scalar_compare(StValType t, const StVal *a, const StVal *b)
{
	if (t == SV_N)
		return st_number_compare(a->u.str.data, a->u.str.len, b->u.str.data, b->u.str.len);
	else
	{
		int			c = memcmp(a->u.str.data, b->u.str.data, Min(a->u.str.len, b->u.str.len));

		if (c != 0)
			return c < 0 ? -1 : 1;
		return (a->u.str.len > b->u.str.len) - (a->u.str.len < b->u.str.len);
	}
}

/*
 * Orders two map keys as jsonb orders object keys: shorter first, then by
 * bytes. Any strict total order would do; this one is the order in which a
 * jsonb object's keys arrive, which st_val_map_append relies on.
 */
static int
key_order(const char *a, int alen, const char *b, int blen)
{
	if (alen != blen)
		return alen < blen ? -1 : 1;
	return memcmp(a, b, alen);
}

/* qsort comparator of map entry pointers by key_order. */
static int
entry_ptr_cmp(const void *a, const void *b)
{
	const StMapEntry *x = *(const StMapEntry *const *) a;
	const StMapEntry *y = *(const StMapEntry *const *) b;

	return key_order(x->key, x->keylen, y->key, y->keylen);
}

/* The entries of a map as pointers sorted by key_order (n log n). */
static const StMapEntry **
sorted_entries(const StVal *map)
{
	const StMapEntry **r = palloc(sizeof(StMapEntry *) * Max(map->u.map.n, 1));

	for (int i = 0; i < map->u.map.n; i++)
		r[i] = &map->u.map.entries[i];
	qsort(r, map->u.map.n, sizeof(StMapEntry *), entry_ptr_cmp);
	return r;
}

/* Orders two values of the same orderable type (caller checks the types). */
int
st_val_compare(const StVal *a, const StVal *b)
{
	return scalar_compare(a->type, a, b);
}

/*
 * Deep equality: same type; sets as sets (they are kept sorted), lists in
 * order, maps regardless of entry order, numbers by value.
 */
bool
st_val_equal(const StVal *a, const StVal *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type)
	{
		case SV_S:
		case SV_B:
		case SV_N:
			return scalar_compare(a->type, a, b) == 0;
		case SV_BOOL:
			return a->u.boolean == b->u.boolean;
		case SV_NULL:
			return true;
		case SV_L:
		case SV_SS:
		case SV_NS:
		case SV_BS:
			if (a->u.list.n != b->u.list.n)
				return false;
			for (int i = 0; i < a->u.list.n; i++)
			{
				ST_CHECK_INTERRUPTS();
				if (!st_val_equal(a->u.list.elems[i], b->u.list.elems[i]))
					return false;
			}
			return true;
		case SV_M:
			if (a->u.map.n != b->u.map.n)
				return false;
			if (a->u.map.n <= 8)
			{
				/* small maps: a lookup per entry is cheaper than sorting */
				for (int i = 0; i < a->u.map.n; i++)
				{
					StMapEntry *e = &a->u.map.entries[i];
					StVal	   *other = st_val_map_get(b, e->key, e->keylen);

					if (other == NULL || !st_val_equal(e->val, other))
						return false;
				}
				return true;
			}
			else
			{
				/*
				 * wide maps: a lookup per entry would be quadratic; sort both
				 * (keys are unique) and walk them side by side
				 */
				const StMapEntry **ea = sorted_entries(a);
				const StMapEntry **eb = sorted_entries(b);
				bool		equal = true;

				for (int i = 0; i < a->u.map.n && equal; i++)
				{
					ST_CHECK_INTERRUPTS();
					/* map keys are unique: sorted, no two neighbours are equal */
					Assert(i == 0 || (entry_ptr_cmp(&ea[i - 1], &ea[i]) < 0 &&
									  entry_ptr_cmp(&eb[i - 1], &eb[i]) < 0));
					equal = key_order(ea[i]->key, ea[i]->keylen, eb[i]->key, eb[i]->keylen) == 0 &&
						st_val_equal(ea[i]->val, eb[i]->val);
				}
				pfree(ea);
				pfree(eb);
				return equal;
			}
	}
	return false;
}

/* DynamoDB's size of a value (see item size rules in README). */
int64
st_val_size(const StVal *v)
{
	int64		size = 0;

	switch (v->type)
	{
		case SV_S:
		case SV_B:
			return v->u.str.len;
		case SV_N:
			{
				StNumber	num;

				if (st_number_parse(v->u.str.data, v->u.str.len, &num) != ST_NUM_OK)
					return v->u.str.len;
				return num.size;
			}
		case SV_BOOL:
		case SV_NULL:
			return 1;
		case SV_SS:
		case SV_NS:
		case SV_BS:
			for (int i = 0; i < v->u.list.n; i++)
			{
				ST_CHECK_INTERRUPTS();
				size += st_val_size(v->u.list.elems[i]);
			}
			return size;
		case SV_L:
			size = 3;
			for (int i = 0; i < v->u.list.n; i++)
			{
				ST_CHECK_INTERRUPTS();
				size += 1 + st_val_size(v->u.list.elems[i]);
			}
			return size;
		case SV_M:
			size = 3;
			for (int i = 0; i < v->u.map.n; i++)
			{
				ST_CHECK_INTERRUPTS();
				size += v->u.map.entries[i].keylen + 1 + st_val_size(v->u.map.entries[i].val);
			}
			return size;
	}
	return 0;
}

/* The value of key in a map, or NULL (a linear search: one lookup is O(n)). */
StVal *
st_val_map_get(const StVal *map, const char *key, int keylen)
{
	for (int i = 0; i < map->u.map.n; i++)
	{
		StMapEntry *e = &map->u.map.entries[i];

		ST_CHECK_INTERRUPTS();
		if (e->keylen == keylen && memcmp(e->key, key, keylen) == 0)
			return e->val;
	}
	return NULL;
}

/* A new S, N or B value (data is not copied). */
StVal *
st_val_make_str(StValType t, const char *data, int len)
{
	StVal	   *v = palloc0(sizeof(StVal));

	v->type = t;
	v->u.str.data = data;
	v->u.str.len = len;
	return v;
}

/* A new empty map with room for capacity entries. */
StVal *
st_val_make_map(int capacity)
{
	StVal	   *v = palloc0(sizeof(StVal));
	int			cap = 4;

	/* always a power of two: st_val_map_put grows it when n reaches one */
	while (cap < capacity)
		cap *= 2;
	v->type = SV_M;
	v->u.map.entries = palloc0(sizeof(StMapEntry) * cap);
	return v;
}

/* Adds an entry at the end of a map, growing it (amortized O(1)). */
static void
map_add(StVal *map, const char *key, int keylen, StVal *val)
{
	int			n = map->u.map.n;

	/* grow at powers of two, starting from 4 (st_val_make_map's capacity) */
	if (n >= 4 && (n & (n - 1)) == 0)
		map->u.map.entries = repalloc(map->u.map.entries, sizeof(StMapEntry) * n * 2);
	map->u.map.entries[n].key = key;
	map->u.map.entries[n].keylen = keylen;
	map->u.map.entries[n].val = val;
	map->u.map.n = n + 1;
}

/*
 * Sets key in a map, replacing an existing entry. The search for it is
 * linear: building a map of n entries with put is O(n^2), so maps built
 * from a whole jsonb object use st_val_map_append.
 */
void
st_val_map_put(StVal *map, const char *key, int keylen, StVal *val)
{
	int			n = map->u.map.n;

	for (int i = 0; i < n; i++)
	{
		StMapEntry *e = &map->u.map.entries[i];

		ST_CHECK_INTERRUPTS();
		if (e->keylen == keylen && memcmp(e->key, key, keylen) == 0)
		{
			e->val = val;
			return;
		}
	}
	map_add(map, key, keylen, val);
}

/*
 * Adds key to a map without looking for it: the caller guarantees that the
 * key is not there yet. Keys must arrive in jsonb's order of object keys
 * (shorter first, then by bytes), strictly increasing, as they do when the
 * map is built from one jsonb object, whose keys are unique and sorted;
 * a strictly increasing sequence has no duplicates, which the Assert checks
 * in O(1) per key. This keeps building a map of n keys O(n).
 */
void
st_val_map_append(StVal *map, const char *key, int keylen, StVal *val)
{
	Assert(map->u.map.n == 0 ||
		   key_order(map->u.map.entries[map->u.map.n - 1].key,
					 map->u.map.entries[map->u.map.n - 1].keylen, key, keylen) < 0);
	map_add(map, key, keylen, val);
}

/* Removes key from a map; false when it was not there. */
bool
st_val_map_remove(StVal *map, const char *key, int keylen)
{
	for (int i = 0; i < map->u.map.n; i++)
	{
		StMapEntry *e = &map->u.map.entries[i];

		if (e->keylen == keylen && memcmp(e->key, key, keylen) == 0)
		{
			memmove(e, e + 1, sizeof(StMapEntry) * (map->u.map.n - i - 1));
			map->u.map.n--;
			return true;
		}
	}
	return false;
}

/* A deep copy (strings shared: values are never modified in place). */
StVal *
st_val_copy(const StVal *v)
{
	StVal	   *c = palloc(sizeof(StVal));

	*c = *v;
	switch (v->type)
	{
		case SV_L:
		case SV_SS:
		case SV_NS:
		case SV_BS:
			c->u.list.elems = palloc(sizeof(StVal *) * Max(v->u.list.n, 1));
			for (int i = 0; i < v->u.list.n; i++)
			{
				ST_CHECK_INTERRUPTS();
				c->u.list.elems[i] = st_val_copy(v->u.list.elems[i]);
			}
			break;
		case SV_M:
			{
				int			cap = 4;

				while (cap < v->u.map.n)
					cap *= 2;
				c->u.map.entries = palloc(sizeof(StMapEntry) * cap);
				for (int i = 0; i < v->u.map.n; i++)
				{
					ST_CHECK_INTERRUPTS();
					c->u.map.entries[i] = v->u.map.entries[i];
					c->u.map.entries[i].val = st_val_copy(v->u.map.entries[i].val);
				}
				break;
			}
		default:
			break;
	}
	return c;
}

static int
elem_cmp(const void *a, const void *b)
{
	const StVal *x = *(const StVal *const *) a;
	const StVal *y = *(const StVal *const *) b;

	return scalar_compare(x->type, x, y);
}

#ifdef USE_ASSERT_CHECKING
/*
 * Whether a set is what every set must be once finished: not empty, members
 * of its element type, strictly increasing (so sorted and without
 * duplicates). The fuzzer checks the same on every result.
 */
static bool
set_is_well_formed(const StVal *set)
{
	StValType	et = set->type == SV_SS ? SV_S : set->type == SV_NS ? SV_N : SV_B;

	if (!st_val_is_set(set->type) || set->u.list.n < 1)
		return false;
	for (int i = 0; i < set->u.list.n; i++)
		if (set->u.list.elems[i]->type != et ||
			(i > 0 && elem_cmp(&set->u.list.elems[i - 1], &set->u.list.elems[i]) >= 0))
			return false;
	return true;
}
#endif

/*
 * Sorts a set's elements and checks DynamoDB's set rules: not empty, no
 * duplicates (NS members compare by value). context names the attribute.
 */
void
st_val_set_normalize(StVal *set, const char *context)
{
	int			n = set->u.list.n;

	if (n == 0)
		st_expr_error(ST_ERR_VALIDATION,
					  set->type == SV_SS ? "One or more parameter values were invalid: An string set  may not be empty" :
					  set->type == SV_NS ? "One or more parameter values were invalid: An number set  may not be empty" :
					  "One or more parameter values were invalid: Binary sets should not be empty",
					  "%s set %s is empty", st_val_type_name(set->type), context);
	/* O(n log n): sorted, duplicates are neighbours */
	qsort(set->u.list.elems, n, sizeof(StVal *), elem_cmp);
	for (int i = 1; i < n; i++)
	{
		ST_CHECK_INTERRUPTS();
		if (elem_cmp(&set->u.list.elems[i - 1], &set->u.list.elems[i]) == 0)
			st_expr_error(ST_ERR_VALIDATION,
						  "One or more parameter values were invalid: Input collection contains duplicates.",
						  "%s set %s contains duplicates", st_val_type_name(set->type), context);
	}
	Assert(set_is_well_formed(set));
}
