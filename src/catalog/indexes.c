/*
 * indexes.c — secondary indexes (GSIs and LSIs) as the table cache holds
 * them: their registry rows in singletable.indexes (read by st_indexes_load;
 * written by the DDL, commands/indexes.c), the SQL of their key expressions
 * and predicates, and the rules an item's index key attributes follow.
 *
 * Writes check the index key attributes as DynamoDB does
 * (st_index_check_item): absent is fine; present, they must have the
 * declared type, not be empty, and be within the key size limits.
 * create_gsi checks the items already in the table the same way before it
 * builds the index; its error counts the offending items and gives the
 * query that lists them, naming none.
 *
 * Design notes: the section on indexes.c in README.md of this folder.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "utils/errors.h"
#include "catalog/indexes.h"
#include "catalog/registry.h"


/* The SQL expression of an index key attribute (see the Design notes). */
char *
st_index_key_expr(const char *attname, StKeyType t)
{
	const char *lit = quote_literal_cstr(attname);

	switch (t)
	{
		case ST_KEY_S:
			return psprintf("((" ST_ITEM_COLUMN " OPERATOR(pg_catalog.->>) %s) COLLATE pg_catalog.\"C\")", lit);
		case ST_KEY_N:
			return psprintf("((" ST_ITEM_COLUMN " OPERATOR(pg_catalog.->) %s)::pg_catalog.numeric)", lit);
		case ST_KEY_B:
			return psprintf("pg_catalog.decode(((" ST_ITEM_COLUMN " OPERATOR(pg_catalog.->) %s) OPERATOR(pg_catalog.->>) '$B'), 'base64')", lit);
	}
	return NULL;
}

/*
 * An operator or a function's schema in the SQL below: search_path-proof
 * (OPERATOR(pg_catalog.->), pg_catalog.f) for the SQL the extension runs,
 * or readable (->, f) for SQL shown to a user, who runs it as written.
 */
#define SQL_OP(readable, op) ((readable) ? op : "OPERATOR(pg_catalog." op ")")
#define SQL_FN(readable) ((readable) ? "" : "pg_catalog.")

/* The typed-presence test of one attribute (the JSON type its stored form has). */
static void
append_type_test(StringInfo buf, const char *attname, StKeyType t, bool readable)
{
	const char *lit = quote_literal_cstr(attname);

	if (t == ST_KEY_B)
		appendStringInfo(buf, "%sjsonb_typeof((" ST_ITEM_COLUMN " %s %s) %s '$B') %s 'string'",
						 SQL_FN(readable), SQL_OP(readable, "->"), lit, SQL_OP(readable, "->"),
						 SQL_OP(readable, "="));
	else
		appendStringInfo(buf, "%sjsonb_typeof(" ST_ITEM_COLUMN " %s %s) %s '%s'",
						 SQL_FN(readable), SQL_OP(readable, "->"), lit, SQL_OP(readable, "="),
						 t == ST_KEY_S ? "string" : "number");
}

/* The DynamoDB type name of a key type. */
static const char *
key_type_name(StKeyType t)
{
	return t == ST_KEY_S ? "S" : t == ST_KEY_N ? "N" : "B";
}

/*
 * Sets the SQL of an index's key expressions and its predicate from its
 * attributes. An LSI's partition key is the table's key column; every other
 * attribute is an expression over the item, tested for its type in the
 * predicate.
 */
void
st_index_set_sql(StTable *tab, StIndex *idx)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < idx->n_pk; i++)
	{
		if (idx->is_lsi)
		{
			idx->pk[i].expr = pstrdup(quote_identifier(tab->pk_name));
			continue;
		}
		idx->pk[i].expr = st_index_key_expr(idx->pk[i].name, idx->pk[i].type);
		if (buf.len > 0)
			appendStringInfoString(&buf, " AND ");
		append_type_test(&buf, idx->pk[i].name, idx->pk[i].type, false);
	}
	for (int i = 0; i < idx->n_sk; i++)
	{
		idx->sk[i].expr = st_index_key_expr(idx->sk[i].name, idx->sk[i].type);
		if (buf.len > 0)
			appendStringInfoString(&buf, " AND ");
		append_type_test(&buf, idx->sk[i].name, idx->sk[i].type, false);
	}
	idx->predicate = buf.data;
}

/*
 * The CREATE INDEX statement of an index: its key expressions, then the
 * table's key columns that are not already among them (an LSI's first
 * column is the table's partition key), under its predicate.
 */
char *
st_index_create_sql(StTable *tab, StIndex *idx, bool concurrently)
{
	StringInfoData sql;

	initStringInfo(&sql);
	appendStringInfo(&sql, "CREATE INDEX %s%s ON %s (", concurrently ? "CONCURRENTLY " : "",
					 quote_identifier(idx->pg_index_name), tab->qualname);
	for (int i = 0; i < idx->n_pk; i++)
		appendStringInfo(&sql, "%s%s", i ? ", " : "", idx->pk[i].expr);
	for (int i = 0; i < idx->n_sk; i++)
		appendStringInfo(&sql, ", %s", idx->sk[i].expr);
	if (!idx->is_lsi)
		appendStringInfo(&sql, ", %s", quote_identifier(tab->pk_name));
	if (tab->sk_name)
		appendStringInfo(&sql, ", %s", quote_identifier(tab->sk_name));
	appendStringInfo(&sql, ") WHERE %s", idx->predicate);
	return sql.data;
}

/* Checks one index key attribute of an item: absent, or typed, non-empty, within its limit. */
static void
check_index_attr(StTable *tab, StIndex *idx, StVal *val, const StIndexAttr *a,
				 bool is_sort, bool is_update)
{
	StVal	   *v = st_val_map_get(val, a->name, strlen(a->name));
	int			limit = is_sort ? ST_MAX_SORT_KEY_BYTES : ST_MAX_PARTITION_KEY_BYTES;
	StKeyType	kt = a->type;
	bool		ok;

	if (v == NULL)
		return;					/* sparse: the item is not in this index */
	ok = (kt == ST_KEY_S && v->type == SV_S) || (kt == ST_KEY_N && v->type == SV_N) ||
		(kt == ST_KEY_B && v->type == SV_B);
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("key attribute \"%s\" of index \"%s\" of table \"%s\" must be of type %s, not %s",
						a->name, idx->name, tab->relname, key_type_name(kt), st_val_type_name(v->type)),
				 st_errdetail_dynamodb("One or more parameter values were invalid: Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s",
									   a->name, key_type_name(kt), st_val_type_name(v->type), idx->name)));
	if (kt == ST_KEY_N)
		return;
	if (v->u.str.len == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key attribute \"%s\" of index \"%s\" of table \"%s\" cannot be an empty %s",
						a->name, idx->name, tab->relname, kt == ST_KEY_S ? "string" : "binary value"),
				 is_update
				 ? st_errdetail_dynamodb("One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty %s value.",
										 kt == ST_KEY_S ? "string" : "binary")
				 : st_errdetail_dynamodb("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty %s value. IndexName: %s, IndexKey: %s",
										 kt == ST_KEY_S ? "string" : "binary", idx->name, a->name)));
	if (v->u.str.len > limit)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s key \"%s\" of index \"%s\" of table \"%s\" is %d bytes, more than the limit of %d bytes",
						is_sort ? "sort" : "partition", a->name, idx->name, tab->relname, v->u.str.len, limit),
				 is_update
				 ? st_errdetail_dynamodb("The update expression attempted to update the secondary index key beyond allowed size limits")
				 : is_sort
				 ? st_errdetail_dynamodb("One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes")
				 : st_errdetail_dynamodb("One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes")));
}

/*
 * Checks every index key attribute of an item about to be written (val, an
 * M) against the table's indexes; raises DynamoDB's error for the first bad
 * one, or ours for an index entry that could not be stored.
 */
void
st_index_check_item(StTable *tab, StVal *val, bool is_update, int base_key_bytes)
{
	for (int i = 0; i < tab->n_indexes; i++)
	{
		StIndex    *idx = &tab->indexes[i];
		int			bytes = base_key_bytes;
		bool		indexed = true;

		CHECK_FOR_INTERRUPTS();
		/* an LSI's partition key is the table's, checked with the table's key */
		for (int j = idx->is_lsi ? idx->n_pk : 0; j < idx->n_pk; j++)
			check_index_attr(tab, idx, val, &idx->pk[j], false, is_update);
		for (int j = 0; j < idx->n_sk; j++)
			check_index_attr(tab, idx, val, &idx->sk[j], true, is_update);

		/* in the index (every key attribute present, checked above): its entry must fit */
		for (int j = 0; j < idx->n_pk + idx->n_sk && indexed; j++)
		{
			const StIndexAttr *a = j < idx->n_pk ? &idx->pk[j] : &idx->sk[j - idx->n_pk];
			StVal	   *v;

			if (idx->is_lsi && j < idx->n_pk)
				continue;
			v = st_val_map_get(val, a->name, strlen(a->name));
			if (v == NULL)
				indexed = false;
			else
				bytes += (v->type == SV_N ? ST_INDEX_N_KEY_BYTES : v->u.str.len) +
					(j >= 2 ? ST_INDEX_ATTR_OVERHEAD : 0);
		}
		if (indexed && bytes > ST_MAX_INDEX_ENTRY_KEY_BYTES)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("entry of index \"%s\" of table \"%s\" would hold %d bytes of keys, more than the limit of %d bytes for index keys and table keys together",
							idx->name, tab->relname, bytes, ST_MAX_INDEX_ENTRY_KEY_BYTES),
					 errdetail("The index keys and the table's keys are stored in one btree index entry, which holds at most 2704 bytes."),
					 errhint("Shorten the index keys or the table's keys.")));
	}
}

/* Reads a text[] registry column into attribute names (types false) or types. */
static int
read_attrs(HeapTuple tup, TupleDesc desc, int col, StIndexAttr *attrs, bool types)
{
	bool		isnull;
	Datum		arr = SPI_getbinval(tup, desc, col, &isnull);
	Datum	   *elems;
	bool	   *enulls;
	int			n;

	if (isnull)
		return 0;
	deconstruct_array(DatumGetArrayTypeP(arr), TEXTOID, -1, false, TYPALIGN_INT,
					  &elems, &enulls, &n);
	if (n < 1 || n > ST_MAX_INDEX_KEY_ATTRS)
		elog(ERROR, "singletable index registry row has %d key attributes", n);
	for (int j = 0; j < n; j++)
	{
		char	   *v = enulls[j] ? pstrdup("S") : TextDatumGetCString(elems[j]);

		if (types)
			attrs[j].type = (StKeyType) v[0];
		else
			attrs[j].name = v;
	}
	return n;
}

/*
 * Reads the table's secondary indexes from singletable.indexes into tab
 * (memory in tab->cxt), for the cache entry registry.c builds. An installation not yet updated to 0.2.0 has no
 * index registry: its tables have no indexes.
 */
void
st_indexes_load(StTable *tab)
{
	Oid			nsp = get_namespace_oid("singletable", true);
	Oid			tabnsp = get_rel_namespace(tab->relid);
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(tab->relid)};
	SPITupleTable *tt;
	int			rc;

	if (!OidIsValid(nsp) || !OidIsValid(get_relname_relid("indexes", nsp)))
		return;
	rc = SPI_execute_with_args("SELECT index_name, index_type, partition_key, partition_key_type, sort_key,"
							   " sort_key_type, projection, non_key_attributes, pg_index, status, build_error"
							   " FROM " ST_INDEX_REGISTRY " WHERE table_name OPERATOR(pg_catalog.=) $1"
							   " ORDER BY index_name COLLATE pg_catalog.\"C\"",
							   1, argtypes, values, NULL, true, 0);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading the singletable index registry failed: %s", SPI_result_code_string(rc));
	tt = SPI_tuptable;
	if (SPI_processed == 0)
		return;
	tab->n_indexes = (int) SPI_processed;
	tab->indexes = MemoryContextAllocZero(tab->cxt, sizeof(StIndex) * SPI_processed);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = tt->vals[i];
		StIndex    *idx = &tab->indexes[i];
		MemoryContext old = MemoryContextSwitchTo(tab->cxt);
		char	   *proj;
		bool		isnull;
		Datum		arr;

		idx->name = SPI_getvalue(tup, tt->tupdesc, 1);
		idx->is_lsi = strcmp(SPI_getvalue(tup, tt->tupdesc, 2), "LSI") == 0;
		idx->n_pk = read_attrs(tup, tt->tupdesc, 3, idx->pk, false);
		if (read_attrs(tup, tt->tupdesc, 4, idx->pk, true) != idx->n_pk)
			elog(ERROR, "singletable index registry row of \"%s\" has key types that do not match its key", idx->name);
		idx->n_sk = read_attrs(tup, tt->tupdesc, 5, idx->sk, false);
		if (read_attrs(tup, tt->tupdesc, 6, idx->sk, true) != idx->n_sk)
			elog(ERROR, "singletable index registry row of \"%s\" has key types that do not match its key", idx->name);
		proj = SPI_getvalue(tup, tt->tupdesc, 7);
		idx->projection = strcmp(proj, "ALL") == 0 ? ST_PROJ_ALL
			: strcmp(proj, "KEYS_ONLY") == 0 ? ST_PROJ_KEYS_ONLY : ST_PROJ_INCLUDE;
		arr = SPI_getbinval(tup, tt->tupdesc, 8, &isnull);
		if (!isnull)
		{
			Datum	   *elems;
			bool	   *enulls;

			deconstruct_array(DatumGetArrayTypeP(arr), TEXTOID, -1, false, TYPALIGN_INT,
							  &elems, &enulls, &idx->n_nonkey);
			idx->nonkey = palloc(sizeof(char *) * (idx->n_nonkey + 1));
			for (int j = 0; j < idx->n_nonkey; j++)
				idx->nonkey[j] = enulls[j] ? pstrdup("") : TextDatumGetCString(elems[j]);
		}
		idx->pg_index_name = SPI_getvalue(tup, tt->tupdesc, 9);
		idx->active = strcmp(SPI_getvalue(tup, tt->tupdesc, 10), "ACTIVE") == 0;
		idx->build_error = SPI_getvalue(tup, tt->tupdesc, 11);
		idx->indexrelid = get_relname_relid(idx->pg_index_name, tabnsp);
		st_index_set_sql(tab, idx);
		MemoryContextSwitchTo(old);
	}
	SPI_freetuptable(tt);
}

/*
 * The SQL condition "the item carries attribute name but not as an index key
 * may hold it": of the wrong type, or (S, B) empty or over the key size limit.
 */
static void
append_bad_attr(StringInfo buf, const char *name, StKeyType t, bool is_sort, bool readable)
{
	const char *lit = quote_literal_cstr(name);
	int			limit = is_sort ? ST_MAX_SORT_KEY_BYTES : ST_MAX_PARTITION_KEY_BYTES;

	appendStringInfo(buf, "(" ST_ITEM_COLUMN " %s %s AND (NOT (", SQL_OP(readable, "?"), lit);
	append_type_test(buf, name, t, readable);
	appendStringInfoString(buf, ")");
	if (t == ST_KEY_S)
		appendStringInfo(buf, " OR %soctet_length(" ST_ITEM_COLUMN " %s %s) NOT BETWEEN 1 AND %d",
						 SQL_FN(readable), SQL_OP(readable, "->>"), lit, limit);
	else if (t == ST_KEY_B)
		appendStringInfo(buf, " OR %slength(%sdecode(((" ST_ITEM_COLUMN " %s %s) %s '$B'), 'base64')) NOT BETWEEN 1 AND %d",
						 SQL_FN(readable), SQL_FN(readable), SQL_OP(readable, "->"), lit,
						 SQL_OP(readable, "->>"), limit);
	appendStringInfoString(buf, "))");
}

/*
 * Refuses to index a table holding items whose index key attributes the
 * index may not hold (DynamoDB's backfill rule), naming the attribute at
 * fault in the first of them in key order. The error says how many items
 * there are and gives the query that lists their keys, never a key or any
 * other item content: errors reach the server log.
 */
void
st_index_check_backfill(StTable *tab, StIndex *idx)
{
	StringInfoData sql;
	StringInfoData which;
	StringInfoData listing;
	const StIndexAttr *attrs[2 * ST_MAX_INDEX_KEY_ATTRS];
	bool		sorts[2 * ST_MAX_INDEX_KEY_ATTRS];
	int			n = 0;
	int			bad;
	int64		count;
	bool		isnull;
	const char *pk = quote_identifier(tab->pk_name);
	const char *sk = tab->sk_name ? quote_identifier(tab->sk_name) : NULL;

	for (int i = idx->is_lsi ? idx->n_pk : 0; i < idx->n_pk; i++)
	{
		attrs[n] = &idx->pk[i];
		sorts[n++] = false;
	}
	for (int i = 0; i < idx->n_sk; i++)
	{
		attrs[n] = &idx->sk[i];
		sorts[n++] = true;
	}
	initStringInfo(&which);
	initStringInfo(&sql);
	appendStringInfoString(&which, "CASE");
	for (int i = 0; i < n; i++)
	{
		appendStringInfoString(&which, " WHEN ");
		append_bad_attr(&which, attrs[i]->name, attrs[i]->type, sorts[i], false);
		appendStringInfo(&which, " THEN %d", i);
	}
	appendStringInfoString(&which, " END");
	/* the first bad attribute (w) of the first such item in key order, and how many there are */
	appendStringInfo(&sql, "SELECT w, pg_catalog.count(*) OVER () FROM (SELECT %s%s%s, %s AS w FROM %s) s"
					 " WHERE w IS NOT NULL ORDER BY %s%s LIMIT 1",
					 pk, sk ? ", " : "", sk ? sk : "", which.data, tab->qualname,
					 pk, sk ? psprintf(", %s", sk) : "");
	if (SPI_execute(sql.data, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "checking the items of table \"%s\" failed", tab->relname);
	if (SPI_processed == 0)
		return;
	bad = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	count = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));

	/* the same conditions, as a user would type them */
	initStringInfo(&listing);
	appendStringInfo(&listing, "SELECT %s%s%s FROM %s WHERE ", pk, sk ? ", " : "", sk ? sk : "", tab->qualname);
	for (int i = 0; i < n; i++)
	{
		if (i > 0)
			appendStringInfoString(&listing, " OR ");
		append_bad_attr(&listing, attrs[i]->name, attrs[i]->type, sorts[i], true);
	}
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("cannot create index \"%s\" on table \"%s\": items hold key attribute \"%s\" with a wrong type, empty or over the key size limit",
					idx->name, tab->relname, attrs[bad]->name),
			 errdetail_plural("%lld item holds such an attribute.",
							  "%lld items hold such attributes.",
							  (unsigned long) count, (long long) count),
			 errhint("Fix or remove those attributes, then create the index again. This query lists the keys of those items: %s",
					 listing.data)));
}
