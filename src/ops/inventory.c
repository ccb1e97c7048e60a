/*
 * inventory.c — key_prefixes and collections: what a table holds, per literal
 * key prefix and per item collection, in one pass over its rows (or over a
 * TABLESAMPLE SYSTEM sample of its pages).
 *
 * Design notes: the section on inventory.c in README.md of this folder.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "catalog/entities.h"
#include "catalog/registry.h"
#include "format/template.h"
#include "ops/inventory.h"

/* Is s[0..len) a constant-looking key (PROFILE, METRICS, ElectroDB's $user_1)? */
bool
st_key_is_constant(const char *s, int len)
{
	int			i;

	if (len < 1 || len > ST_KEY_CONSTANT_MAX)
		return false;
	if (s[0] == '$')
	{
		if (len < 2)
			return false;
		for (i = 1; i < len; i++)
			if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
				  (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
				return false;
		return true;
	}
	if (!(s[0] >= 'A' && s[0] <= 'Z'))
		return false;
	for (i = 1; i < len; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

char *
st_key_literal_prefix(const char *s, int len)
{
	int			n = st_key_tag_length(s, len);

	if (n > 0)
		return pnstrdup(s, n);
	return st_key_is_constant(s, len) ? pnstrdup(s, len) : NULL;
}

void
st_inventory_check_sample(const char *tabname, bool has_sample, double pct)
{
	if (has_sample && !(pct > 0.0 && pct <= 100.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sample_percent must be greater than 0 and at most 100 (table \"%s\")",
						tabname)));
}

/* The name argument's text, for messages before the table is open */
static char *
name_for_message(text *name)
{
	return name ? text_to_cstring(name) : "(null)";
}

/*
 * The FROM item reading tab's rows as r(k, s[, sk]): k the partition key, s
 * each item's DynamoDB size, the sort key when with_sk, e the entity of the
 * keys (entity_of) when with_entity; sampled with TABLESAMPLE SYSTEM
 * ($sample_param) when sample_param > 0.
 */
static void
append_rows(StringInfo sql, StTable *tab, bool with_sk, bool with_entity, int sample_param)
{
	appendStringInfo(sql, "(SELECT t.%s AS k, ", quote_identifier(tab->pk_name));
	if (with_sk)
		appendStringInfo(sql, "t.%s AS sk, ", quote_identifier(tab->sk_name));
	if (with_entity)
	{
		appendStringInfo(sql, "singletable.entity_of(%u::pg_catalog.oid::pg_catalog.regclass, t.%s",
						 tab->relid, quote_identifier(tab->pk_name));
		if (tab->sk_name)
			appendStringInfo(sql, ", t.%s", quote_identifier(tab->sk_name));
		appendStringInfoString(sql, ") AS e, ");
	}
	appendStringInfoString(sql, "singletable._stored_size(t.item, ");
	if (tab->pk_type == ST_KEY_B || (tab->sk_name && tab->sk_type == ST_KEY_B))
	{
		appendStringInfoString(sql, "ARRAY[");
		if (tab->pk_type == ST_KEY_B)
			appendStringInfoString(sql, quote_literal_cstr(tab->pk_name));
		if (tab->sk_name && tab->sk_type == ST_KEY_B)
			appendStringInfo(sql, "%s%s", tab->pk_type == ST_KEY_B ? ", " : "",
							 quote_literal_cstr(tab->sk_name));
		appendStringInfoString(sql, "]::pg_catalog.text[]");
	}
	else
		appendStringInfoString(sql, "NULL::pg_catalog.text[]");
	appendStringInfo(sql, ") AS s FROM %s t", tab->qualname);
	if (sample_param > 0)
		appendStringInfo(sql, " TABLESAMPLE SYSTEM ($%d)", sample_param);
	appendStringInfoString(sql, ") r");
}

/* n read from a sample of pct percent of the pages, scaled to the whole table */
static int64
scale(int64 n, bool has_sample, double pct)
{
	if (!has_sample)
		return n;
	return (int64) rint((double) n * 100.0 / pct);
}

static int64
get_int64(HeapTuple tup, TupleDesc desc, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);

	return isnull ? 0 : DatumGetInt64(d);
}

static char *
get_text(HeapTuple tup, TupleDesc desc, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);

	return isnull ? NULL : TextDatumGetCString(d);
}

/*
 * One statement, one pass over the rows: the inner aggregate makes one row
 * per (partition, sort key prefix) with its items, bytes and largest item;
 * the outer one groups those by (partition key prefix, sort key prefix).
 * The partition key's prefix is a function of the partition, so it is
 * computed once per partition-and-group, not per row.
 */
List *
st_key_prefixes(text *name, bool has_sample, double pct, int64 *rows_read)
{
	MemoryContext outer = CurrentMemoryContext;
	StTable    *tab;
	StringInfoData sql;
	Oid			argtypes[1] = {FLOAT8OID};
	Datum		values[1] = {Float8GetDatum(pct)};
	const char *pkp;
	const char *skp;
	bool		with_entity;
	List	   *groups = NIL;
	int64		read = 0;
	uint64		i;

	st_inventory_check_sample(name_for_message(name), has_sample, pct);
	SPI_connect();
	tab = st_table_open(name, AccessShareLock, ACL_SELECT);

	/* entities have templates only on tables with S keys */
	with_entity = tab->n_entities > 0;
	pkp = tab->pk_type == ST_KEY_S ? "singletable._key_prefix(c.k) COLLATE \"C\"" : "NULL::pg_catalog.text";
	skp = tab->sk_name && tab->sk_type == ST_KEY_S ? "singletable._key_prefix(r.sk) COLLATE \"C\"" : "NULL::pg_catalog.text";
	if (with_entity)
	{
		pkp = "CASE WHEN c.e IS NULL THEN singletable._key_prefix(c.k) COLLATE \"C\" END";
		skp = tab->sk_name ? "CASE WHEN r.e IS NULL THEN singletable._key_prefix(r.sk) COLLATE \"C\" END"
			: "NULL::pg_catalog.text";
	}
	initStringInfo(&sql);
	appendStringInfo(&sql,
					 "SELECT %s AS entity, %s AS pkp, c.skp,"
					 " pg_catalog.sum(c.n)::pg_catalog.int8, pg_catalog.count(*),"
					 " pg_catalog.sum(c.b)::pg_catalog.int8, pg_catalog.max(c.mx),"
					 " pg_catalog.max(c.n), pg_catalog.max(c.b)::pg_catalog.int8,"
					 " pg_catalog.round(pg_catalog.sum(c.b) / pg_catalog.sum(c.n), 1)::pg_catalog.text"
					 " FROM (SELECT r.k, %s AS skp, %s AS e, pg_catalog.count(*) AS n,"
					 " pg_catalog.sum(r.s) AS b, pg_catalog.max(r.s) AS mx FROM ",
					 with_entity ? "c.e COLLATE \"C\"" : "NULL::pg_catalog.text", pkp, skp,
					 with_entity ? "r.e" : "NULL::pg_catalog.text");
	append_rows(&sql, tab, tab->sk_name != NULL && tab->sk_type == ST_KEY_S, with_entity,
				has_sample ? 1 : 0);
	appendStringInfoString(&sql, " GROUP BY r.k, 2, 3) c GROUP BY 1, 2, 3"
						   " ORDER BY 1 NULLS LAST, 2 NULLS LAST, 3 NULLS LAST");

	if (SPI_execute_with_args(sql.data, has_sample ? 1 : 0, argtypes, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "key_prefixes: SPI_execute failed");

	for (i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		MemoryContext old = MemoryContextSwitchTo(outer);
		StPrefixGroup *g = palloc0(sizeof(StPrefixGroup));
		int64		items = get_int64(tup, desc, 4);

		CHECK_FOR_INTERRUPTS();
		g->entity = get_text(tup, desc, 1);
		g->pk_prefix = get_text(tup, desc, 2);
		g->sk_prefix = get_text(tup, desc, 3);
		if (g->entity)
		{
			/* an entity's prefixes are its templates' type tags */
			StEntity   *e = st_entity_find(tab, g->entity);

			if (e && e->pk->prefix_len > 0)
				g->pk_prefix = pnstrdup(e->pk->prefix, e->pk->prefix_len);
			if (e && e->sk && e->sk->prefix_len > 0)
				g->sk_prefix = pnstrdup(e->sk->prefix, e->sk->prefix_len);
		}
		read += items;
		g->items = scale(items, has_sample, pct);
		g->partitions = get_int64(tup, desc, 5);
		g->bytes = scale(get_int64(tup, desc, 6), has_sample, pct);
		g->avg_item_bytes = get_text(tup, desc, 10);
		g->max_item_bytes = get_int64(tup, desc, 7);
		g->largest_collection_items = scale(get_int64(tup, desc, 8), has_sample, pct);
		g->largest_collection_bytes = scale(get_int64(tup, desc, 9), has_sample, pct);
		groups = lappend(groups, g);
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	*rows_read = read;
	return groups;
}

/*
 * One statement: the collections (items and bytes per partition key) are
 * aggregated once into a materialized CTE, from which two top-N sorts (a
 * bounded heap each) take the largest by items and by bytes, and the rows
 * read are summed.
 */
List *
st_collections(text *name, const char *entity, int top, bool has_threshold, int64 threshold,
			   bool has_sample, double pct, int64 *threshold_out, int64 *rows_read)
{
	MemoryContext outer = CurrentMemoryContext;
	StTable    *tab;
	StringInfoData sql;
	Oid			argtypes[3] = {INT4OID, FLOAT8OID, TEXTOID};
	Datum		values[3];
	const char *filter = "";
	List	   *rows = NIL;
	int64		read = 0;
	uint64		i;
	int			j;

	if (top < 1 || top > ST_COLLECTIONS_TOP_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("top must be between 1 and %d (table \"%s\")", ST_COLLECTIONS_TOP_MAX,
						name_for_message(name))));
	if (has_threshold && threshold <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("threshold_bytes must be greater than 0 (table \"%s\")",
						name_for_message(name))));
	st_inventory_check_sample(name_for_message(name), has_sample, pct);

	SPI_connect();
	tab = st_table_open(name, AccessShareLock, ACL_SELECT);
	if (entity != NULL && st_entity_find(tab, entity) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("entity \"%s\" of table \"%s\" does not exist", entity, tab->relname),
				 errhint("singletable.define_entity() defines one; the table has %d.", tab->n_entities)));
	if (entity != NULL)
		filter = " FILTER (WHERE r.e OPERATOR(pg_catalog.=) $3)";

	*threshold_out = -1;
	if (has_threshold)
		*threshold_out = threshold;
	else
		for (j = 0; j < tab->n_indexes; j++)
			if (tab->indexes[j].is_lsi)
				*threshold_out = ST_ITEM_COLLECTION_LIMIT_BYTES;

	/*
	 * $1 top, $2 the sample's percentage (TABLESAMPLE SYSTEM ($2)), $3 the
	 * entity; rd counts every row read, n and b those of the entity
	 */
	initStringInfo(&sql);
	appendStringInfo(&sql,
					 "WITH c AS MATERIALIZED (SELECT r.k, pg_catalog.count(*)%s AS n,"
					 " (pg_catalog.sum(r.s)%s)::pg_catalog.int8 AS b, pg_catalog.count(*) AS rd FROM ",
					 filter, filter);
	append_rows(&sql, tab, false, entity != NULL, has_sample ? 2 : 0);
	appendStringInfoString(&sql,
						   " GROUP BY r.k)"
						   " SELECT false, pg_catalog.row_number() OVER (ORDER BY x.n DESC, x.b DESC, x.k),"
						   " x.k, x.n, x.b, (SELECT pg_catalog.sum(rd)::pg_catalog.int8 FROM c)"
						   " FROM (SELECT * FROM c WHERE c.n OPERATOR(pg_catalog.>) 0"
						   " ORDER BY c.n DESC, c.b DESC, c.k LIMIT $1) x"
						   " UNION ALL"
						   " SELECT true, pg_catalog.row_number() OVER (ORDER BY y.b DESC, y.n DESC, y.k),"
						   " y.k, y.n, y.b, NULL"
						   " FROM (SELECT * FROM c WHERE c.n OPERATOR(pg_catalog.>) 0"
						   " ORDER BY c.b DESC, c.n DESC, c.k LIMIT $1) y"
						   " ORDER BY 1, 2");
	values[0] = Int32GetDatum(top);
	values[1] = Float8GetDatum(pct);
	values[2] = entity ? CStringGetTextDatum(entity) : (Datum) 0;
	if (SPI_execute_with_args(sql.data, entity ? 3 : has_sample ? 2 : 1, argtypes, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "collections: SPI_execute failed");

	for (i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		Datum		k;
		MemoryContext old;
		StCollection *c;

		CHECK_FOR_INTERRUPTS();
		if (i == 0)
			read = get_int64(tup, desc, 6);
		k = SPI_getbinval(tup, desc, 3, &isnull);
		old = MemoryContextSwitchTo(outer);
		c = palloc0(sizeof(StCollection));
		c->by_bytes = DatumGetBool(SPI_getbinval(tup, desc, 1, &isnull));
		c->rank = (int) get_int64(tup, desc, 2);
		c->partition_key = text_to_cstring(st_key_datum_to_text(tab->pk_type, k));
		c->items = scale(get_int64(tup, desc, 4), has_sample, pct);
		c->bytes = scale(get_int64(tup, desc, 5), has_sample, pct);
		rows = lappend(rows, c);
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	*rows_read = read;
	return rows;
}
