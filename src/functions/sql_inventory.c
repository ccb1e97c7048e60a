/*
 * sql_inventory.c — the SQL functions of the inventory (key_prefixes,
 * collections) and of entity inference (infer_entities): thin wrappers that
 * read their arguments, call ops/inventory.c or ops/infer.c and return the
 * rows. Nothing here reads a table.
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "functions/sql_args.h"
#include "ops/infer.h"
#include "ops/inventory.h"

PG_FUNCTION_INFO_V1(singletable_key_prefix);
PG_FUNCTION_INFO_V1(singletable_key_prefixes);
PG_FUNCTION_INFO_V1(singletable_collections);
PG_FUNCTION_INFO_V1(singletable_infer_entities);

static Datum
text_or_null(const char *s, bool *isnull)
{
	*isnull = s == NULL;
	return s ? CStringGetTextDatum(s) : (Datum) 0;
}

/*
 * singletable._key_prefix(key text) -> text: the key's literal prefix (up
 * to and including its first '#', ':' or '|'; the whole key when it has
 * none and looks like a constant), or NULL. Internal, for key_prefixes.
 */
Datum
singletable_key_prefix(PG_FUNCTION_ARGS)
{
	text	   *key = PG_GETARG_TEXT_PP(0);
	char	   *p = st_key_literal_prefix(VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key));

	if (p == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(p));
}

/*
 * singletable.key_prefixes(table_name, sample_percent DEFAULT NULL) ->
 * TABLE(entity, pk_prefix, sk_prefix, items, partitions, bytes,
 * avg_item_bytes, max_item_bytes, largest_collection_items,
 * largest_collection_bytes, rows_read, sampled)
 */
Datum
singletable_key_prefixes(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	text	   *name = ARG_TEXT(0);
	bool		has_sample = !PG_ARGISNULL(1);
	double		pct = has_sample ? PG_GETARG_FLOAT8(1) : 100.0;
	int64		rows_read;
	List	   *groups;
	ListCell   *lc;

	InitMaterializedSRF(fcinfo, 0);
	groups = st_key_prefixes(name, has_sample, pct, &rows_read);
	foreach(lc, groups)
	{
		StPrefixGroup *g = lfirst(lc);
		Datum		values[12];
		bool		nulls[12] = {0};

		values[0] = text_or_null(g->entity, &nulls[0]);
		values[1] = text_or_null(g->pk_prefix, &nulls[1]);
		values[2] = text_or_null(g->sk_prefix, &nulls[2]);
		values[3] = Int64GetDatum(g->items);
		values[4] = Int64GetDatum(g->partitions);
		values[5] = Int64GetDatum(g->bytes);
		values[6] = DirectFunctionCall3(numeric_in, CStringGetDatum(g->avg_item_bytes),
										ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
		values[7] = Int64GetDatum(g->max_item_bytes);
		values[8] = Int64GetDatum(g->largest_collection_items);
		values[9] = Int64GetDatum(g->largest_collection_bytes);
		values[10] = Int64GetDatum(rows_read);
		values[11] = BoolGetDatum(has_sample);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * singletable.collections(table_name, entity DEFAULT NULL, top DEFAULT 10, threshold_bytes
 * DEFAULT NULL, sample_percent DEFAULT NULL) -> TABLE(rank_by, rank,
 * partition_key, items, bytes, over_threshold, rows_read, sampled)
 */
Datum
singletable_collections(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	text	   *name = ARG_TEXT(0);
	char	   *entity = ARG_CSTRING(1);
	bool		has_threshold = !PG_ARGISNULL(3);
	bool		has_sample = !PG_ARGISNULL(4);
	int64		threshold;
	int64		rows_read;
	List	   *rows;
	ListCell   *lc;

	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("top must not be NULL (table \"%s\")",
						name ? text_to_cstring(name) : "(null)")));
	InitMaterializedSRF(fcinfo, 0);
	rows = st_collections(name, entity, PG_GETARG_INT32(2), has_threshold,
						  has_threshold ? PG_GETARG_INT64(3) : 0,
						  has_sample, has_sample ? PG_GETARG_FLOAT8(4) : 100.0,
						  &threshold, &rows_read);
	foreach(lc, rows)
	{
		StCollection *c = lfirst(lc);
		Datum		values[8];
		bool		nulls[8] = {0};

		values[0] = CStringGetTextDatum(c->by_bytes ? "bytes" : "items");
		values[1] = Int32GetDatum(c->rank);
		values[2] = CStringGetTextDatum(c->partition_key);
		values[3] = Int64GetDatum(c->items);
		values[4] = Int64GetDatum(c->bytes);
		values[5] = BoolGetDatum(threshold >= 0 && c->bytes > threshold);
		nulls[5] = threshold < 0;
		values[6] = Int64GetDatum(rows_read);
		values[7] = BoolGetDatum(has_sample);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * singletable.infer_entities(table_name, sample_percent DEFAULT NULL) ->
 * TABLE(entity, pk_template, sk_template, items, statement)
 */
Datum
singletable_infer_entities(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	text	   *name = ARG_TEXT(0);
	bool		has_sample = !PG_ARGISNULL(1);
	List	   *rows;
	ListCell   *lc;

	InitMaterializedSRF(fcinfo, 0);
	rows = st_infer_entities(name, has_sample, has_sample ? PG_GETARG_FLOAT8(1) : 100.0);
	foreach(lc, rows)
	{
		StInferredEntity *e = lfirst(lc);
		Datum		values[5];
		bool		nulls[5] = {0};

		values[0] = CStringGetTextDatum(e->entity);
		values[1] = CStringGetTextDatum(e->pk_template);
		values[2] = text_or_null(e->sk_template, &nulls[2]);
		values[3] = Int64GetDatum(e->items);
		values[4] = CStringGetTextDatum(e->statement);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
