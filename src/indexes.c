/*
 * indexes.c — secondary indexes (GSIs): create_gsi, drop_gsi, their registry
 * rows in singletable.indexes, and the rules an item's index key attributes
 * follow.
 *
 * A GSI is a partial btree index on the item table over typed expressions of
 * the item's index key attributes (S: ((item->>'a') COLLATE "C"), N:
 * ((item->'a')::numeric), B: decode of the stored {"$B": base64} form)
 * followed by the table's key columns, so that ties come back in base-key
 * order and pagination has a total order. Its predicate admits exactly the
 * items carrying every index key attribute with the declared JSON type, so
 * items without them (the sparse case) cost nothing in the index. The same
 * SQL text (st_index_key_expr, st_index_predicate) is written into the
 * CREATE INDEX and into the query statements (statements.c), so the planner
 * proves the partial index usable, in generic plans too.
 *
 * Writes check the index key attributes as DynamoDB does
 * (st_index_check_item): absent is fine; present, they must have the
 * declared type, not be empty, and be within the key size limits.
 * create_gsi checks the items already in the table the same way before it
 * builds the index, and lists up to 5 keys of offending items.
 *
 * The registry row names the PostgreSQL index by name (in the table's
 * schema), not by regclass: pg_dump restores the registry's rows before it
 * creates indexes (post-data), where a regclass of the index would not yet
 * resolve. The registry is written as its owner, like singletable.tables.
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
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "errors.h"
#include "indexes.h"
#include "registry.h"
#include "tables.h"

PG_FUNCTION_INFO_V1(singletable_create_gsi);
PG_FUNCTION_INFO_V1(singletable_drop_gsi);

/* The SQL expression of an index key attribute (see the file header). */
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

/* The typed-presence test of one attribute (the JSON type its stored form has). */
static void
append_type_test(StringInfo buf, const char *attname, StKeyType t)
{
	const char *lit = quote_literal_cstr(attname);

	if (t == ST_KEY_B)
		appendStringInfo(buf, "pg_catalog.jsonb_typeof((" ST_ITEM_COLUMN " OPERATOR(pg_catalog.->) %s) OPERATOR(pg_catalog.->) '$B') OPERATOR(pg_catalog.=) 'string'", lit);
	else
		appendStringInfo(buf, "pg_catalog.jsonb_typeof(" ST_ITEM_COLUMN " OPERATOR(pg_catalog.->) %s) OPERATOR(pg_catalog.=) '%s'",
						 lit, t == ST_KEY_S ? "string" : "number");
}

/* The index predicate: every key attribute present with its declared type. */
char *
st_index_predicate(const char *pk_name, StKeyType pk_type, const char *sk_name, StKeyType sk_type)
{
	StringInfoData buf;

	initStringInfo(&buf);
	append_type_test(&buf, pk_name, pk_type);
	if (sk_name)
	{
		appendStringInfoString(&buf, " AND ");
		append_type_test(&buf, sk_name, sk_type);
	}
	return buf.data;
}

/* The DynamoDB type name of a key type. */
static const char *
key_type_name(StKeyType t)
{
	return t == ST_KEY_S ? "S" : t == ST_KEY_N ? "N" : "B";
}

/* Checks one index key attribute of an item: absent, or typed, non-empty, within its limit. */
static void
check_index_attr(StTable *tab, StIndex *idx, StVal *val, const char *name, StKeyType kt,
				 bool is_sort, bool is_update)
{
	StVal	   *v = st_val_map_get(val, name, strlen(name));
	int			limit = is_sort ? ST_MAX_SORT_KEY_BYTES : ST_MAX_PARTITION_KEY_BYTES;
	bool		ok;

	if (v == NULL)
		return;					/* sparse: the item is not in this index */
	ok = (kt == ST_KEY_S && v->type == SV_S) || (kt == ST_KEY_N && v->type == SV_N) ||
		(kt == ST_KEY_B && v->type == SV_B);
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("key attribute \"%s\" of index \"%s\" of table \"%s\" must be of type %s, not %s",
						name, idx->name, tab->relname, key_type_name(kt), st_val_type_name(v->type)),
				 st_errdetail_dynamodb("One or more parameter values were invalid: Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s",
									   name, key_type_name(kt), st_val_type_name(v->type), idx->name)));
	if (kt == ST_KEY_N)
		return;
	if (v->u.str.len == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key attribute \"%s\" of index \"%s\" of table \"%s\" cannot be an empty %s",
						name, idx->name, tab->relname, kt == ST_KEY_S ? "string" : "binary value"),
				 is_update
				 ? st_errdetail_dynamodb("One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty %s value.",
										 kt == ST_KEY_S ? "string" : "binary")
				 : st_errdetail_dynamodb("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty %s value. IndexName: %s, IndexKey: %s",
										 kt == ST_KEY_S ? "string" : "binary", idx->name, name)));
	if (v->u.str.len > limit)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s key \"%s\" of index \"%s\" of table \"%s\" is %d bytes, more than the limit of %d bytes",
						is_sort ? "sort" : "partition", name, idx->name, tab->relname, v->u.str.len, limit),
				 is_update
				 ? st_errdetail_dynamodb("The update expression attempted to update the secondary index key beyond allowed size limits")
				 : is_sort
				 ? st_errdetail_dynamodb("One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes")
				 : st_errdetail_dynamodb("One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes")));
}

/*
 * Checks every index key attribute of an item about to be written (val, an
 * M) against the table's indexes; raises DynamoDB's error for the first bad one.
 */
void
st_index_check_item(StTable *tab, StVal *val, bool is_update, int base_key_bytes)
{
	for (int i = 0; i < tab->n_indexes; i++)
	{
		StIndex    *idx = &tab->indexes[i];
		StVal	   *pk;
		StVal	   *sk = NULL;
		int			bytes;

		check_index_attr(tab, idx, val, idx->pk_name, idx->pk_type, false, is_update);
		if (idx->sk_name)
			check_index_attr(tab, idx, val, idx->sk_name, idx->sk_type, true, is_update);

		/* in the index (every key attribute present, checked above): its entry must fit */
		pk = st_val_map_get(val, idx->pk_name, strlen(idx->pk_name));
		if (idx->sk_name)
			sk = st_val_map_get(val, idx->sk_name, strlen(idx->sk_name));
		if (pk == NULL || (idx->sk_name && sk == NULL))
			continue;
		bytes = base_key_bytes + (pk->type == SV_N ? ST_INDEX_N_KEY_BYTES : pk->u.str.len);
		if (sk)
			bytes += sk->type == SV_N ? ST_INDEX_N_KEY_BYTES : sk->u.str.len;
		if (bytes > ST_MAX_INDEX_ENTRY_KEY_BYTES)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("entry of index \"%s\" of table \"%s\" would hold %d bytes of keys, more than the limit of %d bytes for index keys and table keys together",
							idx->name, tab->relname, bytes, ST_MAX_INDEX_ENTRY_KEY_BYTES),
					 errdetail("The index keys and the table's keys are stored in one btree index entry, which holds at most 2704 bytes."),
					 errhint("Shorten the index keys or the table's keys.")));
	}
}

/* A text argument that must not be NULL, as a C string. */
static char *
required_arg(FunctionCallInfo fcinfo, int n, const char *param)
{
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", param)));
	return text_to_cstring(PG_GETARG_TEXT_PP(n));
}

/* Validates an index name: DynamoDB's 3 to 255 characters of [a-zA-Z0-9_.-]. */
static void
check_index_name(const char *s)
{
	int			len = strlen(s);

	if (len < 3 || len > 255)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("index_name must be 3 to 255 characters long, not %d", len),
				 st_errdetail_dynamodb("1 validation error detected: Value '%s' at 'indexName' failed to satisfy constraint: Member must have length greater than or equal to 3", s)));
	for (int i = 0; i < len; i++)
		if (!(isalnum((unsigned char) s[i]) || s[i] == '_' || s[i] == '.' || s[i] == '-'))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("index_name \"%s\" may only contain letters, digits, '_', '.' and '-'", s)));
}

/* Validates a key attribute name of an index: 1 to 255 bytes, not the item column. */
static void
check_attr_name(const char *s, const char *param)
{
	int			len = strlen(s);

	if (len < 1 || len > 255)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be 1 to 255 bytes long, not %d", param, len)));
}

/* The SQL condition "the item carries attribute name but not as an index key may hold it". */
static void
append_bad_attr(StringInfo buf, const char *name, StKeyType t, bool is_sort)
{
	const char *lit = quote_literal_cstr(name);
	int			limit = is_sort ? ST_MAX_SORT_KEY_BYTES : ST_MAX_PARTITION_KEY_BYTES;

	appendStringInfo(buf, "(" ST_ITEM_COLUMN " OPERATOR(pg_catalog.?) %s AND (NOT (", lit);
	append_type_test(buf, name, t);
	appendStringInfoString(buf, ")");
	if (t == ST_KEY_S)
		appendStringInfo(buf, " OR pg_catalog.octet_length(" ST_ITEM_COLUMN " OPERATOR(pg_catalog.->>) %s) NOT BETWEEN 1 AND %d", lit, limit);
	else if (t == ST_KEY_B)
		appendStringInfo(buf, " OR pg_catalog.length(%s) NOT BETWEEN 1 AND %d",
						 st_index_key_expr(name, t), limit);
	appendStringInfoString(buf, "))");
}

/*
 * Refuses to index a table holding items whose index key attributes an
 * index may not hold (DynamoDB's backfill rule), listing up to 5 of their keys.
 */
static void
check_backfill(StTable *tab, const char *index_name, const char *pk_name, StKeyType pk_type,
			   const char *sk_name, StKeyType sk_type)
{
	StringInfoData sql;
	StringInfoData keys;
	const char *bad_attr = pk_name;

	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT %s::pg_catalog.text, %s, ",
					 quote_identifier(tab->pk_name),
					 tab->sk_name ? psprintf("%s::pg_catalog.text", quote_identifier(tab->sk_name)) : "NULL::pg_catalog.text");
	append_bad_attr(&sql, pk_name, pk_type, false);
	appendStringInfo(&sql, " FROM %s WHERE ", tab->qualname);
	append_bad_attr(&sql, pk_name, pk_type, false);
	if (sk_name)
	{
		appendStringInfoString(&sql, " OR ");
		append_bad_attr(&sql, sk_name, sk_type, true);
	}
	appendStringInfo(&sql, " ORDER BY 1, 2 LIMIT 5");
	if (SPI_execute(sql.data, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "checking the items of table \"%s\" failed", tab->relname);
	if (SPI_processed == 0)
		return;
	initStringInfo(&keys);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		char	   *pk = SPI_getvalue(tup, SPI_tuptable->tupdesc, 1);
		char	   *sk = SPI_getvalue(tup, SPI_tuptable->tupdesc, 2);
		bool		isnull;
		bool		pk_bad = DatumGetBool(SPI_getbinval(tup, SPI_tuptable->tupdesc, 3, &isnull));

		if (i == 0 && !pk_bad && sk_name)
			bad_attr = sk_name;
		appendStringInfo(&keys, "%s(%s%s%s)", i ? ", " : "", pk, sk ? ", " : "", sk ? sk : "");
	}
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("cannot create index \"%s\" on table \"%s\": items hold key attribute \"%s\" with a wrong type, empty or over the key size limit",
					index_name, tab->relname, bad_attr),
			 errdetail("Keys of such items (at most 5): %s.", keys.data),
			 errhint("Fix or remove those attributes, then create the index again.")));
}

/*
 * singletable.create_gsi(table_name, index_name, partition_key, sort_key,
 *   partition_key_type, sort_key_type, projection, non_key_attributes)
 *   -> regclass of the PostgreSQL index
 */
Datum
singletable_create_gsi(PG_FUNCTION_ARGS)
{
	StTable    *tab;
	char	   *index_name = required_arg(fcinfo, 1, "index_name");
	char	   *pk_name = required_arg(fcinfo, 2, "partition_key");
	char	   *sk_name = PG_ARGISNULL(3) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(3));
	StKeyType	pk_type = st_key_type_from_text(required_arg(fcinfo, 4, "partition_key_type"), "partition_key_type");
	StKeyType	sk_type = ST_KEY_S;
	char	   *projection = required_arg(fcinfo, 6, "projection");
	ArrayType  *nonkey = PG_ARGISNULL(7) ? NULL : PG_GETARG_ARRAYTYPE_P(7);
	char	   *pg_name;
	char	   *nsp;
	StringInfoData sql;
	Oid			indexrelid;

	check_index_name(index_name);
	check_attr_name(pk_name, "partition_key");
	if (sk_name)
	{
		check_attr_name(sk_name, "sort_key");
		sk_type = st_key_type_from_text(required_arg(fcinfo, 5, "sort_key_type"), "sort_key_type");
		if (strcmp(pk_name, sk_name) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("partition_key and sort_key of index \"%s\" must be different attributes, both are \"%s\"",
							index_name, pk_name)));
	}
	if (strcmp(projection, "ALL") != 0 && strcmp(projection, "KEYS_ONLY") != 0 &&
		strcmp(projection, "INCLUDE") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("projection must be ALL, KEYS_ONLY or INCLUDE, not \"%s\"", projection)));
	if ((strcmp(projection, "INCLUDE") == 0) != (nonkey != NULL))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("non_key_attributes must be given exactly when projection is INCLUDE"),
				 st_errdetail_dynamodb("One or more parameter values were invalid: ProjectionType is %s, but NonKeyAttributes is %sspecified",
									   projection, nonkey ? "" : "not ")));
	if (nonkey != NULL && (ARR_NDIM(nonkey) > 1 || array_contains_nulls(nonkey) ||
						   ArrayGetNItems(ARR_NDIM(nonkey), ARR_DIMS(nonkey)) > 100))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("non_key_attributes must be a one-dimensional array of at most 100 attribute names without NULLs")));

	SPI_connect();
	/* ownership checked before the lock; SHARE blocks writes while the index is built */
	tab = st_table_open(PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0), ShareLock, ST_ACL_OWNER);
	for (int i = 0; i < tab->n_indexes; i++)
		if (strcmp(tab->indexes[i].name, index_name) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_TABLE),
					 errmsg("index \"%s\" of table \"%s\" already exists", index_name, tab->relname),
					 st_errdetail_dynamodb("Attempting to create an index which already exists")));

	check_backfill(tab, index_name, pk_name, pk_type, sk_name, sk_type);

	/* <table>_<index>_gsi, cut to NAMEDATALEN - 1 bytes at a character boundary */
	pg_name = psprintf("%s_%s_gsi", tab->relname, index_name);
	if (strlen(pg_name) >= NAMEDATALEN)
		pg_name[pg_mbcliplen(pg_name, strlen(pg_name), NAMEDATALEN - 1)] = '\0';
	nsp = get_namespace_name(get_rel_namespace(tab->relid));
	if (OidIsValid(get_relname_relid(pg_name, get_rel_namespace(tab->relid))))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_TABLE),
				 errmsg("relation \"%s\" for index \"%s\" of table \"%s\" already exists",
						pg_name, index_name, tab->relname)));

	initStringInfo(&sql);
	appendStringInfo(&sql, "CREATE INDEX %s ON %s (%s", quote_identifier(pg_name), tab->qualname,
					 st_index_key_expr(pk_name, pk_type));
	if (sk_name)
		appendStringInfo(&sql, ", %s", st_index_key_expr(sk_name, sk_type));
	appendStringInfo(&sql, ", %s", quote_identifier(tab->pk_name));
	if (tab->sk_name)
		appendStringInfo(&sql, ", %s", quote_identifier(tab->sk_name));
	appendStringInfo(&sql, ") WHERE %s", st_index_predicate(pk_name, pk_type, sk_name, sk_type));
	if (SPI_execute(sql.data, false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "CREATE INDEX failed");
	indexrelid = get_relname_relid(pg_name, get_rel_namespace(tab->relid));
	if (!OidIsValid(indexrelid))
		elog(ERROR, "index \"%s\".\"%s\" was not created", nsp, pg_name);

	{
		Oid			argtypes[9] = {OIDOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTARRAYOID, TEXTOID};
		char		pkt[2] = {(char) pk_type, 0};
		char		skt[2] = {(char) sk_type, 0};
		Datum		values[9];
		char		nulls[9] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};

		values[0] = ObjectIdGetDatum(tab->relid);
		values[1] = CStringGetTextDatum(index_name);
		values[2] = CStringGetTextDatum(pk_name);
		values[3] = CStringGetTextDatum(pkt);
		values[4] = sk_name ? CStringGetTextDatum(sk_name) : (Datum) 0;
		values[5] = sk_name ? CStringGetTextDatum(skt) : (Datum) 0;
		nulls[4] = nulls[5] = sk_name ? ' ' : 'n';
		values[6] = CStringGetTextDatum(projection);
		values[7] = nonkey ? PointerGetDatum(nonkey) : (Datum) 0;
		nulls[7] = nonkey ? ' ' : 'n';
		values[8] = CStringGetTextDatum(pg_name);
		st_registry_execute_as_owner("indexes", "INSERT INTO " ST_INDEX_REGISTRY
							   " (table_name, index_name, partition_key, partition_key_type, sort_key,"
							   " sort_key_type, projection, non_key_attributes, pg_index)"
							   " VALUES ($1::pg_catalog.regclass, $2, $3, $4, $5, $6, $7, $8, $9)",
							   9, argtypes, values, nulls);
	}
	CacheInvalidateRelcacheByRelid(tab->relid);
	SPI_finish();
	PG_RETURN_OID(indexrelid);
}

/*
 * singletable.drop_gsi(table_name, index_name): drops the PostgreSQL index;
 * the sql_drop event trigger removes the registry row.
 */
Datum
singletable_drop_gsi(PG_FUNCTION_ARGS)
{
	StTable    *tab;
	char	   *index_name = required_arg(fcinfo, 1, "index_name");
	StIndex    *idx = NULL;
	char	   *nsp;

	SPI_connect();
	tab = st_table_open(PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0), AccessExclusiveLock, ST_ACL_OWNER);
	for (int i = 0; i < tab->n_indexes; i++)
		if (strcmp(tab->indexes[i].name, index_name) == 0)
			idx = &tab->indexes[i];
	if (idx == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("table \"%s\" has no index \"%s\"", tab->relname, index_name),
				 st_errdetail_dynamodb("Requested resource not found: Index: %s not found", index_name)));
	nsp = get_namespace_name(get_rel_namespace(tab->relid));
	if (OidIsValid(idx->indexrelid))
	{
		if (SPI_execute(psprintf("DROP INDEX %s", quote_qualified_identifier(nsp, idx->pg_index_name)),
						false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "DROP INDEX failed");
	}
	/* the event trigger removed the row with the index; a row without its index goes here */
	{
		Oid			argtypes[2] = {OIDOID, TEXTOID};
		Datum		values[2] = {ObjectIdGetDatum(tab->relid), CStringGetTextDatum(index_name)};

		st_registry_execute_as_owner("indexes", "DELETE FROM " ST_INDEX_REGISTRY
							   " WHERE table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass"
							   " AND index_name OPERATOR(pg_catalog.=) $2",
							   2, argtypes, values, NULL);
	}
	CacheInvalidateRelcacheByRelid(tab->relid);
	SPI_finish();
	PG_RETURN_VOID();
}
