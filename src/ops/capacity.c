/*
 * capacity.c — consumed capacity units, as DynamoDB computes them, for
 * every operation (see capacity.h), and the session's last ConsumedCapacity.
 *
 * Reads: GetItem rounds its one item up to 4 KB (a missing item costs the
 * minimum unit); Query and Scan sum the sizes of the items they evaluate —
 * before filter, projection and TTL hiding — and round once per page of
 * 1 MB, so a read of several pages costs what reading them one by one would.
 * A read of a global secondary index is sized on its projected entries and
 * charged to the index; strongly consistent reads cost 1 per 4 KB, eventually
 * consistent ones 0.5 (the default on a GSI, the only choice there).
 *
 * Design notes: the section on capacity.c in README.md of this folder.
 */
#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "ops/capacity.h"
#include "ops/item.h"
#include "format/jsonval.h"
#include "format/size.h"

PG_FUNCTION_INFO_V1(singletable_last_consumed_capacity);
PG_FUNCTION_INFO_V1(singletable_replacing);

/* The last operation's capacity, without pointers into the table cache */
typedef struct LastPart
{
	char		index_name[NAMEDATALEN];
	bool		is_lsi;
	double		units;
} LastPart;

typedef struct LastTable
{
	bool		is_read;
	bool		transactional;
	char		table_name[256];	/* DynamoDB's name (StTable.ddb_name), up to 255 bytes */
	bool		table_used;
	double		table_units;
	int			n_indexes;
	LastPart	indexes[ST_MAX_GSIS + ST_MAX_LSIS];
} LastTable;

/*
 * The last operation: one table, or (a batch or transaction, list) several,
 * in last_cxt, which every operation's end resets
 */
static struct
{
	bool		valid;
	bool		list;
	int			n_tables;
	LastTable  *tables;
} last;
static MemoryContext last_cxt = NULL;

bool		st_track_capacity = true;

/* The item an upsert replaced (singletable._replacing), while a put is armed */
static bool replaced_armed = false;
static Jsonb *replaced_item = NULL;
static MemoryContext replaced_cxt = NULL;

void
st_capacity_begin(StCapacity *cap, StTable *tab, StStatOp op)
{
	/* the parts of indexes the table does not have stay unset (every call is charged) */
	memset(cap, 0, offsetof(StCapacity, indexes));
	memset(cap->indexes, 0, sizeof(StCapacityPart) * tab->n_indexes);
	cap->enabled = st_track_capacity;
	cap->tab = tab;
	cap->op = op;
	cap->is_read = (op == ST_STAT_GET_ITEM || op == ST_STAT_QUERY || op == ST_STAT_SCAN ||
					op == ST_STAT_BATCH_GET_ITEM || op == ST_STAT_TRANSACT_GET_ITEMS);
	cap->read_factor = 1.0;
	cap->write_factor = 1.0;
	cap->transactional = false;
	cap->n_indexes = tab->n_indexes;
	for (int i = 0; i < tab->n_indexes; i++)
	{
		cap->indexes[i].index_name = tab->indexes[i].name;
		cap->indexes[i].is_lsi = tab->indexes[i].is_lsi;
	}
}

void
st_capacity_set_consistency(StCapacity *cap, bool strongly)
{
	cap->read_factor = strongly ? 1.0 : 0.5;
}

void
st_capacity_set_transactional(StCapacity *cap)
{
	/* one prepare and one commit pass; index writes are not doubled */
	cap->read_factor = 2.0;
	cap->write_factor = 2.0;
	cap->transactional = true;
}

StCapacityPart *
st_capacity_part(StCapacity *cap, StIndex *idx)
{
	if (idx == NULL)
		return &cap->table;
	for (int i = 0; i < cap->n_indexes; i++)
		if (cap->tab->indexes + i == idx)
			return &cap->indexes[i];
	elog(ERROR, "index \"%s\" is not an index of table \"%s\"", idx->name, cap->tab->relname);
	return NULL;
}

double
st_read_units(int64 bytes, double factor)
{
	int64		units = (bytes + 4095) / 4096;

	return (double) Max(units, 1) * factor;
}

double
st_write_units(int64 bytes)
{
	int64		units = (bytes + 1023) / 1024;

	return (double) Max(units, 1);
}

void
st_capacity_get(StCapacity *cap, Jsonb *item)
{
	bool		found = item != NULL;
	int64		bytes;

	if (!cap->enabled)
		return;
	bytes = found ? st_capacity_item_size(cap->tab, item) : 0;
	cap->table.used = true;
	cap->table.units += st_read_units(bytes, cap->read_factor);
	cap->table.counts.items_read += found ? 1 : 0;
	cap->table.counts.bytes_read += bytes;
	cap->table.counts.read_units = cap->table.units;
}

bool
st_capacity_evaluated(StCapacity *cap, StCapacityPart *part, int64 bytes)
{
	part->used = true;
	part->counts.items_read++;
	part->counts.bytes_read += bytes;
	cap->page_bytes += bytes;
	if (cap->page_bytes < ST_PAGE_BYTES)
		return false;
	part->units += st_read_units(cap->page_bytes, cap->read_factor);
	cap->page_bytes = 0;
	cap->pages++;
	return true;
}

void
st_capacity_read_end(StCapacity *cap, StCapacityPart *part)
{
	if (!cap->enabled)
		return;
	part->used = true;
	/* the last page, or the only one (an empty one costs the minimum) */
	if (cap->page_bytes > 0 || cap->pages == 0)
	{
		part->units += st_read_units(cap->page_bytes, cap->read_factor);
		cap->page_bytes = 0;
		cap->pages++;
	}
	part->counts.read_units = part->units;
}

/* The value of top-level attribute name of a stored item, or NULL */
static JsonbValue *
attr_value(Jsonb *item, const char *name)
{
	JsonbValue	key;

	key.type = jbvString;
	key.val.string.val = (char *) name;
	key.val.string.len = strlen(name);
	return findJsonbValueFromContainer(&item->root, JB_FOBJECT, &key);
}

/* Whether two stored values are the same (the stored form is canonical) */
static bool
values_equal(JsonbValue *a, JsonbValue *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	if (a->type != b->type)
		return false;
	switch (a->type)
	{
		case jbvNull:
			return true;
		case jbvBool:
			return a->val.boolean == b->val.boolean;
		case jbvString:
			return a->val.string.len == b->val.string.len &&
				memcmp(a->val.string.val, b->val.string.val, a->val.string.len) == 0;
		case jbvNumeric:
			return DatumGetBool(DirectFunctionCall2(numeric_eq, NumericGetDatum(a->val.numeric),
													NumericGetDatum(b->val.numeric)));
		case jbvBinary:
			return compareJsonbContainers(a->val.binary.data, b->val.binary.data) == 0;
		default:
			return false;
	}
}

/* Whether item (NULL: none) is in index idx: every key attribute present */
static bool
in_index(StIndex *idx, Jsonb *item)
{
	if (item == NULL)
		return false;
	for (int j = idx->is_lsi ? idx->n_pk : 0; j < idx->n_pk; j++)
		if (attr_value(item, idx->pk[j].name) == NULL)
			return false;
	for (int j = 0; j < idx->n_sk; j++)
		if (attr_value(item, idx->sk[j].name) == NULL)
			return false;
	return true;
}

/* The attributes of item's entry in idx (all attributes: NULL) */
static int
entry_names(StTable *tab, StIndex *idx, const char **names)
{
	int			n = 0;

	names[n++] = tab->pk_name;
	if (tab->sk_name)
		names[n++] = tab->sk_name;
	for (int j = idx->is_lsi ? idx->n_pk : 0; j < idx->n_pk; j++)
		names[n++] = idx->pk[j].name;
	for (int j = 0; j < idx->n_sk; j++)
		names[n++] = idx->sk[j].name;
	if (idx->projection == ST_PROJ_INCLUDE)
		for (int j = 0; j < idx->n_nonkey; j++)
			names[n++] = idx->nonkey[j];
	return n;
}

/* DynamoDB's size of item's entry in idx (item in the index) */
static int64
entry_size(StTable *tab, StIndex *idx, Jsonb *item, int64 item_size)
{
	const char **names;
	int			n;
	JsonbParseState *state = NULL;
	JsonbValue *res;

	if (idx->projection == ST_PROJ_ALL)
		return item_size;
	names = palloc(sizeof(char *) * (2 + 2 * ST_MAX_INDEX_KEY_ATTRS + idx->n_nonkey));
	n = entry_names(tab, idx, names);
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < n; i++)
	{
		JsonbValue	key;
		JsonbValue *v;
		bool		dup = false;

		for (int k = 0; k < i; k++)
			dup = dup || strcmp(names[k], names[i]) == 0;
		if (dup || (v = attr_value(item, names[i])) == NULL)
			continue;
		key.type = jbvString;
		key.val.string.val = (char *) names[i];
		key.val.string.len = strlen(names[i]);
		pushJsonbValue(&state, WJB_KEY, &key);
		pushJsonbValue(&state, WJB_VALUE, v);
	}
	res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	return st_capacity_item_size(tab, JsonbValueToJsonb(res));
}

/*
 * Whether item a's and b's entries in idx are the same: with keys_only
 * their index keys (the table's keys never change), else the whole entry.
 */
static bool
same_entry(StIndex *idx, Jsonb *a, Jsonb *b, bool keys_only)
{
	if (keys_only)
	{
		for (int j = idx->is_lsi ? idx->n_pk : 0; j < idx->n_pk; j++)
			if (!values_equal(attr_value(a, idx->pk[j].name), attr_value(b, idx->pk[j].name)))
				return false;
		for (int j = 0; j < idx->n_sk; j++)
			if (!values_equal(attr_value(a, idx->sk[j].name), attr_value(b, idx->sk[j].name)))
				return false;
		return true;
	}
	if (idx->projection == ST_PROJ_ALL)
		return VARSIZE(a) == VARSIZE(b) && compareJsonbContainers(&a->root, &b->root) == 0;
	for (int j = 0; idx->projection == ST_PROJ_INCLUDE && j < idx->n_nonkey; j++)
		if (!values_equal(attr_value(a, idx->nonkey[j]), attr_value(b, idx->nonkey[j])))
			return false;
	return true;
}

void
st_capacity_write(StCapacity *cap, Jsonb *old, Jsonb *newitem, int64 new_size, bool failed)
{
	StTable    *tab = cap->tab;
	StCapacityPart *t = &cap->table;
	int64		old_size;

	if (!cap->enabled)
		return;
	old_size = old ? st_capacity_item_size(tab, old) : 0;
	t->used = true;
	t->units += st_write_units(Max(old ? old_size : 0, newitem ? new_size : 0)) * cap->write_factor;
	t->counts.write_units = t->units;
	if (failed)
	{
		t->counts.condition_failures++;
		return;
	}
	if (newitem || old)
	{
		t->counts.items_written++;
		t->counts.bytes_written += newitem ? new_size : old_size;
	}
	for (int i = 0; i < tab->n_indexes; i++)
	{
		StIndex    *idx = &tab->indexes[i];
		StCapacityPart *p = &cap->indexes[i];
		bool		was = in_index(idx, old);
		bool		is = in_index(idx, newitem);
		double		units = 0;
		int64		bytes = 0;

		CHECK_FOR_INTERRUPTS();
		if (!was && !is)
			continue;
		if (is && !was)
		{
			bytes = entry_size(tab, idx, newitem, new_size);
			units = st_write_units(bytes);
		}
		else if (was && !is)
		{
			bytes = entry_size(tab, idx, old, old_size);
			units = st_write_units(bytes);
		}
		else if (!same_entry(idx, old, newitem, true))
		{
			int64		ob = entry_size(tab, idx, old, old_size);

			bytes = entry_size(tab, idx, newitem, new_size);
			units = st_write_units(ob) + st_write_units(bytes);
		}
		else if (!same_entry(idx, old, newitem, false))
		{
			int64		ob = entry_size(tab, idx, old, old_size);

			bytes = entry_size(tab, idx, newitem, new_size);
			units = Max(st_write_units(ob), st_write_units(bytes));
		}
		else
			continue;			/* identical entry: nothing written */
		p->used = true;
		p->units += units;
		p->counts.items_written++;
		p->counts.bytes_written += is ? bytes : 0;
		p->counts.write_units = p->units;
	}
}

/* Records cap as last table t, and counts its parts into the statistics */
static void
record(StCapacity *cap, LastTable *t)
{
	t->is_read = cap->is_read;
	t->transactional = cap->transactional;
	strlcpy(t->table_name, cap->tab->ddb_name, sizeof(t->table_name));
	t->table_used = cap->table.used;
	t->table_units = cap->table.units;
	t->n_indexes = 0;
	if (cap->table.used)
		st_stats_count(cap->tab->relid, NULL, cap->op, &cap->table.counts);
	for (int i = 0; i < cap->n_indexes; i++)
	{
		StCapacityPart *p = &cap->indexes[i];
		LastPart   *l;

		if (!p->used)
			continue;
		st_stats_count(cap->tab->relid, p->index_name, cap->op, &p->counts);
		l = &t->indexes[t->n_indexes++];
		strlcpy(l->index_name, p->index_name, NAMEDATALEN);
		l->is_lsi = p->is_lsi;
		l->units = p->units;
	}
}

void
st_capacity_end_many(StCapacity *caps, int n, bool list)
{
	if (last_cxt == NULL)
		last_cxt = AllocSetContextCreate(TopMemoryContext, "singletable last capacity",
										 ALLOCSET_SMALL_SIZES);
	MemoryContextReset(last_cxt);
	last.valid = n > 0 && caps[0].enabled;
	last.list = list;
	last.n_tables = 0;
	last.tables = NULL;
	if (!last.valid)
		return;
	last.tables = MemoryContextAlloc(last_cxt, sizeof(LastTable) * n);
	for (int i = 0; i < n; i++)
		record(&caps[i], &last.tables[last.n_tables++]);
}

void
st_capacity_end(StCapacity *cap)
{
	st_capacity_end_many(cap, 1, false);
}

int64
st_capacity_item_size(StTable *tab, Jsonb *item)
{
	return st_stored_item_size(item, tab->pk_type == ST_KEY_B ? tab->pk_name : NULL,
							   tab->sk_name && tab->sk_type == ST_KEY_B ? tab->sk_name : NULL);
}

/*
 * Appends "name": {"CapacityUnits": u}; a transaction's units repeat u as
 * "<Read|Write>CapacityUnits", as DynamoDB's transactional responses do
 * (single-item, Query, Scan and batch responses carry CapacityUnits only).
 */
static void
append_units(StringInfo buf, const char *name, double units, LastTable *t, bool comma)
{
	if (comma)
		appendStringInfoString(buf, ", ");
	if (name)
	{
		escape_json(buf, name);
		appendStringInfoString(buf, ": {");
	}
	appendStringInfo(buf, "\"CapacityUnits\": %g", units);
	if (t->transactional)
		appendStringInfo(buf, ", \"%sCapacityUnits\": %g", t->is_read ? "Read" : "Write", units);
	if (name)
		appendStringInfoChar(buf, '}');
}

/* Appends the map of the used indexes of one kind of table t, if any */
static void
append_index_map(StringInfo buf, LastTable *t, bool lsi)
{
	bool		first = true;

	for (int i = 0; i < t->n_indexes; i++)
	{
		if (t->indexes[i].is_lsi != lsi)
			continue;
		appendStringInfo(buf, first ? ", \"%s\": {" : "", lsi ? "LocalSecondaryIndexes" : "GlobalSecondaryIndexes");
		append_units(buf, t->indexes[i].index_name, t->indexes[i].units, t, !first);
		first = false;
	}
	if (!first)
		appendStringInfoChar(buf, '}');
}

/* Appends the ConsumedCapacity object of table t */
static void
append_table(StringInfo buf, LastTable *t)
{
	double		total = 0;

	if (t->table_used)
		total += t->table_units;
	for (int i = 0; i < t->n_indexes; i++)
		total += t->indexes[i].units;
	appendStringInfoString(buf, "{\"TableName\": ");
	escape_json(buf, t->table_name);
	append_units(buf, NULL, total, t, true);
	/* DynamoDB names the table also when a read of an index charged it nothing */
	if (t->table_used || (t->is_read && t->n_indexes > 0))
		append_units(buf, "Table", t->table_used ? t->table_units : 0, t, true);
	append_index_map(buf, t, false);
	append_index_map(buf, t, true);
	appendStringInfoChar(buf, '}');
}

Jsonb *
st_last_consumed_capacity(void)
{
	StringInfoData buf;

	if (!last.valid)
		return NULL;
	initStringInfo(&buf);
	if (last.list)
		appendStringInfoChar(&buf, '[');
	for (int i = 0; i < last.n_tables; i++)
	{
		if (i > 0)
			appendStringInfoString(&buf, ", ");
		append_table(&buf, &last.tables[i]);
	}
	if (last.list)
		appendStringInfoChar(&buf, ']');
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data)));
}

/*
 * singletable.last_consumed_capacity() -> jsonb: DynamoDB's ConsumedCapacity
 * of this session's last item operation, Query or Scan (also of one that
 * failed its condition), or NULL before the first.
 */
Datum
singletable_last_consumed_capacity(PG_FUNCTION_ARGS)
{
	Jsonb	   *j = st_last_consumed_capacity();

	if (j == NULL)
		PG_RETURN_NULL();
	PG_RETURN_JSONB_P(j);
}

void
st_capacity_arm_replaced(bool arm)
{
	replaced_armed = arm;
	if (replaced_cxt == NULL)
		replaced_cxt = AllocSetContextCreate(TopMemoryContext, "singletable replaced item",
											 ALLOCSET_SMALL_SIZES);
	MemoryContextReset(replaced_cxt);
	replaced_item = NULL;
}

Jsonb *
st_capacity_replaced(void)
{
	return replaced_item;
}

/*
 * singletable._replacing(old jsonb, new jsonb) -> jsonb: new. The SET
 * expression of a put's upsert (ON CONFLICT DO UPDATE SET item =
 * _replacing(old.item, EXCLUDED.item)): the only place where the item that a
 * put replaces is seen without a second read, so that the put is charged on
 * the larger of the two as DynamoDB charges it. Keeps old for the put that
 * armed it (in this backend, until the next put); otherwise does nothing.
 */
Datum
singletable_replacing(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(1))
		PG_RETURN_NULL();
	if (replaced_armed && !PG_ARGISNULL(0))
	{
		Jsonb	   *old = PG_GETARG_JSONB_P(0);

		replaced_item = MemoryContextAlloc(replaced_cxt, VARSIZE(old));
		memcpy(replaced_item, old, VARSIZE(old));
		replaced_armed = false;
	}
	PG_RETURN_DATUM(PG_GETARG_DATUM(1));
}
