/*
 * entities.c — the entities of a table (see entities.h): the registry rows
 * of singletable.entities read into the table's cache entry, templates
 * parsed once per entry, and the entity a key belongs to.
 *
 * The rows are written by define_entity and drop_entity
 * (commands/entities.c); a change by plain SQL reaches every session's
 * cache through the registry_changed trigger, as for singletable.tables.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "catalog/entities.h"
#include "catalog/registry.h"

static const char *const attr_types[] = {"S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"};

bool
st_entity_attr_type_valid(const char *type)
{
	for (int i = 0; i < (int) lengthof(attr_types); i++)
		if (strcmp(type, attr_types[i]) == 0)
			return true;
	return false;
}

/* The text elements of the array in column col of tup (NULL elements as NULL) */
static int
text_array(HeapTuple tup, TupleDesc desc, int col, char ***out)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	*out = NULL;
	if (isnull)
		return 0;
	deconstruct_array(DatumGetArrayTypeP(d), TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	*out = palloc(sizeof(char *) * (n + 1));
	for (int i = 0; i < n; i++)
		(*out)[i] = nulls[i] ? NULL : TextDatumGetCString(elems[i]);
	return n;
}

int
st_entities_read(StTable *tab, MemoryContext cxt, bool read_only, StEntity **out)
{
	Oid			nsp = get_namespace_oid("singletable", true);
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(tab->relid)};
	SPITupleTable *tt;
	StEntity   *ents;
	int			n;
	int			rc;

	*out = NULL;
	if (!OidIsValid(nsp) || !OidIsValid(get_relname_relid("entities", nsp)))
		return 0;
	rc = SPI_execute_with_args("SELECT e.entity, e.pk_template, e.sk_template,"
							   " ARRAY(SELECT j.key FROM pg_catalog.jsonb_each(e.index_templates) j"
							   "       ORDER BY j.key COLLATE pg_catalog.\"C\"),"
							   " ARRAY(SELECT j.value OPERATOR(pg_catalog.->>) 'pk'"
							   "       FROM pg_catalog.jsonb_each(e.index_templates) j ORDER BY j.key COLLATE pg_catalog.\"C\"),"
							   " ARRAY(SELECT j.value OPERATOR(pg_catalog.->>) 'sk'"
							   "       FROM pg_catalog.jsonb_each(e.index_templates) j ORDER BY j.key COLLATE pg_catalog.\"C\"),"
							   " ARRAY(SELECT j.key FROM pg_catalog.jsonb_each_text(e.attributes) j"
							   "       ORDER BY j.key COLLATE pg_catalog.\"C\"),"
							   " ARRAY(SELECT j.value FROM pg_catalog.jsonb_each_text(e.attributes) j"
							   "       ORDER BY j.key COLLATE pg_catalog.\"C\")"
							   " FROM " ST_ENTITY_REGISTRY " e WHERE e.table_name OPERATOR(pg_catalog.=) $1"
							   " ORDER BY e.entity COLLATE pg_catalog.\"C\"",
							   1, argtypes, values, NULL, read_only, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading the singletable entity registry failed: %s", SPI_result_code_string(rc));
	tt = SPI_tuptable;
	n = (int) SPI_processed;
	if (n == 0)
		return 0;
	ents = MemoryContextAllocZero(cxt, sizeof(StEntity) * n);
	for (int i = 0; i < n; i++)
	{
		HeapTuple	tup = tt->vals[i];
		StEntity   *e = &ents[i];
		MemoryContext old = MemoryContextSwitchTo(cxt);
		char	   *sk;
		char	  **inames;
		char	  **ipks;
		char	  **isks;
		char	  **anames;
		char	  **atypes;

		CHECK_FOR_INTERRUPTS();
		e->name = SPI_getvalue(tup, tt->tupdesc, 1);
		e->pk = st_template_parse(SPI_getvalue(tup, tt->tupdesc, 2),
								  psprintf("the partition key template of entity \"%s\"", e->name));
		sk = SPI_getvalue(tup, tt->tupdesc, 3);
		e->sk = sk ? st_template_parse(sk, psprintf("the sort key template of entity \"%s\"", e->name)) : NULL;
		e->n_indexes = text_array(tup, tt->tupdesc, 4, &inames);
		text_array(tup, tt->tupdesc, 5, &ipks);
		text_array(tup, tt->tupdesc, 6, &isks);
		e->indexes = palloc0(sizeof(StEntityIndex) * (e->n_indexes + 1));
		for (int k = 0; k < e->n_indexes; k++)
		{
			StEntityIndex *ix = &e->indexes[k];

			ix->index_name = inames[k];
			ix->pk = ipks[k] ? st_template_parse(ipks[k], psprintf("the %s partition key template of entity \"%s\"",
																  ix->index_name, e->name)) : NULL;
			ix->sk = isks[k] ? st_template_parse(isks[k], psprintf("the %s sort key template of entity \"%s\"",
																  ix->index_name, e->name)) : NULL;
		}
		e->n_attrs = text_array(tup, tt->tupdesc, 7, &anames);
		text_array(tup, tt->tupdesc, 8, &atypes);
		e->attrs = palloc0(sizeof(StEntityAttr) * (e->n_attrs + 1));
		for (int k = 0; k < e->n_attrs; k++)
		{
			e->attrs[k].name = anames[k];
			e->attrs[k].type = atypes[k] ? atypes[k] : pstrdup("");
		}
		MemoryContextSwitchTo(old);
	}
	SPI_freetuptable(tt);
	*out = ents;
	return n;
}

void
st_entities_load(StTable *tab)
{
	tab->n_entities = st_entities_read(tab, tab->cxt, true, &tab->entities);
}

StEntity *
st_entity_find(StTable *tab, const char *name)
{
	for (int i = 0; i < tab->n_entities; i++)
		if (strcmp(tab->entities[i].name, name) == 0)
			return &tab->entities[i];
	return NULL;
}

StEntity *
st_entity_match(StTable *tab, const char *pk, int pklen, const char *sk, int sklen)
{
	for (int i = 0; i < tab->n_entities; i++)
	{
		StEntity   *e = &tab->entities[i];

		if (!st_template_match(e->pk, pk, pklen, NULL))
			continue;
		if ((e->sk == NULL) != (sk == NULL))
			continue;
		if (e->sk && !st_template_match(e->sk, sk, sklen, NULL))
			continue;
		return e;
	}
	return NULL;
}

StEntityIndex *
st_entity_index(StEntity *e, const char *index_name)
{
	for (int i = 0; i < e->n_indexes; i++)
		if (strcmp(e->indexes[i].index_name, index_name) == 0)
			return &e->indexes[i];
	return NULL;
}
