/*
 * indexes.c — DDL of secondary indexes (commands.h): st_create_gsi,
 * st_create_lsi, st_drop_gsi, st_drop_lsi and st_index_sql, behind the SQL
 * functions of those names (functions/sql_ddl.c) and the JSON API's
 * CreateTable and UpdateTable. Each checks its arguments and the caller's
 * rights before locking, creates the partial expression index (or launches
 * a concurrent build, index_build.c) and registers it in
 * singletable.indexes. What reads and writes need of an index (its cache
 * entry, key expressions, item checks) is catalog/indexes.c.
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
#include "catalog/entities.h"
#include "catalog/registry.h"
#include "commands/commands.h"
#include "commands/commands_internal.h"

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

/*
 * Splits a list of key attribute names: "a", or up to 4 names separated by
 * commas ("tenant,region"); a name holding a comma, a double quote or
 * leading or trailing spaces is written in double quotes, a double quote in
 * it doubled ("a,b" as "\"a,b\""). Spaces around the commas are ignored.
 */
static int
split_names(const char *s, const char *param, char **out)
{
	int			n = 0;
	const char *p = s;

	for (;;)
	{
		StringInfoData name;

		initStringInfo(&name);
		while (*p == ' ')
			p++;
		if (*p == '"')
		{
			for (p++;; p++)
			{
				if (*p == '\0')
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("%s has an unterminated quoted attribute name", param)));
				if (*p == '"' && p[1] == '"')
					appendStringInfoChar(&name, *p++);
				else if (*p == '"')
					break;
				else
					appendStringInfoChar(&name, *p);
			}
			p++;
			while (*p == ' ')
				p++;
			if (*p != ',' && *p != '\0')
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s has text after a quoted attribute name", param)));
		}
		else
		{
			const char *e = p;

			while (*e && *e != ',')
				e++;
			appendBinaryStringInfo(&name, p, e - p);
			while (name.len > 0 && name.data[name.len - 1] == ' ')
				name.data[--name.len] = '\0';
			p = e;
		}
		if (n == ST_MAX_INDEX_KEY_ATTRS)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("%s names more than %d attributes", param, ST_MAX_INDEX_KEY_ATTRS),
					 st_errdetail_dynamodb("One or more parameter values were invalid: A key schema may contain at most %d HASH and %d RANGE attributes",
										   ST_MAX_INDEX_KEY_ATTRS, ST_MAX_INDEX_KEY_ATTRS)));
		check_attr_name(name.data, param);
		out[n++] = name.data;
		if (*p == '\0')
			return n;
		p++;					/* the comma */
	}
}

/*
 * Reads the key attributes of one side of an index key: names from the
 * list names, types from the list types ("S", or one type per attribute,
 * "S,N").
 */
static int
parse_key_attrs(const char *names, const char *types, const char *name_param,
				const char *type_param, StIndexAttr *attrs)
{
	char	   *nv[ST_MAX_INDEX_KEY_ATTRS];
	int			n = split_names(names, name_param, nv);
	char	   *tv = pstrdup(types);
	int			nt = 0;
	char	   *tokens[ST_MAX_INDEX_KEY_ATTRS + 1];

	for (char *tok = strtok(tv, ","); tok != NULL; tok = strtok(NULL, ","))
	{
		while (*tok == ' ')
			tok++;
		for (char *e = tok + strlen(tok); e > tok && e[-1] == ' ';)
			*--e = '\0';
		if (nt == ST_MAX_INDEX_KEY_ATTRS)
		{
			nt++;
			break;
		}
		tokens[nt++] = tok;
	}
	if (nt != 1 && nt != n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s lists %d types for the %d attributes of %s", type_param, nt, n, name_param),
				 errhint("Give one type for all of them, or one per attribute in the same order (\"S,N\").")));
	for (int i = 0; i < n; i++)
	{
		attrs[i].name = nv[i];
		attrs[i].type = st_key_type_from_text(tokens[nt == 1 ? 0 : i], type_param);
	}
	return n;
}

/* Reads the projection arguments into idx and returns the non-key attributes array (or NULL). */
static ArrayType *
parse_projection(StIndex *idx, const char *projection, ArrayType *nonkey)
{
	if (strcmp(projection, "ALL") == 0)
		idx->projection = ST_PROJ_ALL;
	else if (strcmp(projection, "KEYS_ONLY") == 0)
		idx->projection = ST_PROJ_KEYS_ONLY;
	else if (strcmp(projection, "INCLUDE") == 0)
		idx->projection = ST_PROJ_INCLUDE;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("projection must be ALL, KEYS_ONLY or INCLUDE, not \"%s\"", projection),
				 st_errdetail_dynamodb("1 validation error detected: Value '%s' at 'projection.projectionType' failed to satisfy constraint: Member must satisfy enum value set: [ALL, INCLUDE, KEYS_ONLY]",
									   projection)));
	if ((idx->projection == ST_PROJ_INCLUDE) != (nonkey != NULL))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("non_key_attributes must be given exactly when projection is INCLUDE"),
				 st_errdetail_dynamodb("One or more parameter values were invalid: ProjectionType is %s, but NonKeyAttributes is %sspecified",
									   projection, nonkey ? "" : "not ")));
	if (nonkey != NULL && (ARR_NDIM(nonkey) != 1 || array_contains_nulls(nonkey) ||
						   ArrayGetNItems(ARR_NDIM(nonkey), ARR_DIMS(nonkey)) > 20))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("non_key_attributes must be a one-dimensional array of 1 to 20 attribute names without NULLs"),
				 st_errdetail_dynamodb("One or more parameter values were invalid: The number of projected attributes in an index cannot exceed 20")));
	return nonkey;
}

/* A text[] of the names (or types) of attrs. */
static Datum
attrs_array(const StIndexAttr *attrs, int n, bool types)
{
	Datum		elems[ST_MAX_INDEX_KEY_ATTRS];

	for (int i = 0; i < n; i++)
	{
		char		t[2] = {(char) attrs[i].type, 0};

		elems[i] = CStringGetTextDatum(types ? t : attrs[i].name);
	}
	return PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false, TYPALIGN_INT));
}

/* Refuses an index whose name is taken, over its quota, or whose attributes repeat. */
static void
check_new_index(StTable *tab, StIndex *idx)
{
	int			n_same = 0;

	for (int i = 0; i < tab->n_indexes; i++)
	{
		if (strcmp(tab->indexes[i].name, idx->name) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_TABLE),
					 errmsg("index \"%s\" of table \"%s\" already exists", idx->name, tab->relname),
					 st_errdetail_dynamodb("Attempting to create an index which already exists")));
		if (tab->indexes[i].is_lsi == idx->is_lsi)
			n_same++;
	}
	if (n_same >= (idx->is_lsi ? ST_MAX_LSIS : ST_MAX_GSIS))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("table \"%s\" already has %d %s secondary indexes, the most it may have",
						tab->relname, n_same, idx->is_lsi ? "local" : "global"),
				 idx->is_lsi
				 ? st_errdetail_dynamodb("One or more parameter values were invalid: Number of LocalSecondaryIndexes exceeds per-table limit of %d", ST_MAX_LSIS)
				 : st_errdetail_dynamodb("Subscriber limit exceeded: The number of global secondary indexes per table cannot exceed %d", ST_MAX_GSIS)));
	for (int i = 0; i < idx->n_pk + idx->n_sk; i++)
		for (int j = 0; j < i; j++)
		{
			const char *a = i < idx->n_pk ? idx->pk[i].name : idx->sk[i - idx->n_pk].name;
			const char *b = j < idx->n_pk ? idx->pk[j].name : idx->sk[j - idx->n_pk].name;

			if (strcmp(a, b) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("attribute \"%s\" appears twice in the key of index \"%s\"", a, idx->name),
						 errhint("Each key attribute of an index is named once, as partition or as sort attribute.")));
		}
}

/*
 * Creates the index described by idx (attributes, projection, name set) on
 * tab, locked SHARE by the caller: checks, the btree index, the registry
 * row. With concurrently, the registry row is written as CREATING and a
 * background worker builds the index after the caller commits
 * (index_build.c). Returns the PostgreSQL index (InvalidOid while it is
 * built concurrently).
 */
static Oid
create_index(StTable *tab, StIndex *idx, ArrayType *nonkey, const char *projection, bool concurrently)
{
	Oid			nspoid = get_rel_namespace(tab->relid);
	char	   *pg_name;
	Oid			indexrelid = InvalidOid;

	check_new_index(tab, idx);
	st_index_set_sql(tab, idx);

	/* <table>_<index>_gsi (or _lsi), cut to NAMEDATALEN - 1 bytes at a character boundary */
	pg_name = psprintf("%s_%s_%s", tab->relname, idx->name, idx->is_lsi ? "lsi" : "gsi");
	if (strlen(pg_name) >= NAMEDATALEN)
		pg_name[pg_mbcliplen(pg_name, strlen(pg_name), NAMEDATALEN - 1)] = '\0';
	idx->pg_index_name = pg_name;
	if (OidIsValid(get_relname_relid(pg_name, nspoid)))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_TABLE),
				 errmsg("relation \"%s\" for index \"%s\" of table \"%s\" already exists",
						pg_name, idx->name, tab->relname)));

	if (!concurrently)
	{
		st_index_check_backfill(tab, idx);
		if (SPI_execute(st_index_create_sql(tab, idx, false), false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "CREATE INDEX failed");
		indexrelid = get_relname_relid(pg_name, nspoid);
		if (!OidIsValid(indexrelid))
			elog(ERROR, "index \"%s\" of table \"%s\" was not created", pg_name, tab->relname);
	}

	{
		Oid			argtypes[11] = {OIDOID, TEXTOID, TEXTOID, TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID,
		TEXTARRAYOID, TEXTOID, TEXTARRAYOID, TEXTOID, TEXTOID};
		Datum		values[11];
		char		nulls[11] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};

		values[0] = ObjectIdGetDatum(tab->relid);
		values[1] = CStringGetTextDatum(idx->name);
		values[2] = CStringGetTextDatum(idx->is_lsi ? "LSI" : "GSI");
		values[3] = attrs_array(idx->pk, idx->n_pk, false);
		values[4] = attrs_array(idx->pk, idx->n_pk, true);
		values[5] = idx->n_sk ? attrs_array(idx->sk, idx->n_sk, false) : (Datum) 0;
		values[6] = idx->n_sk ? attrs_array(idx->sk, idx->n_sk, true) : (Datum) 0;
		nulls[5] = nulls[6] = idx->n_sk ? ' ' : 'n';
		values[7] = CStringGetTextDatum(projection);
		values[8] = nonkey ? PointerGetDatum(nonkey) : (Datum) 0;
		nulls[8] = nonkey ? ' ' : 'n';
		values[9] = CStringGetTextDatum(pg_name);
		values[10] = CStringGetTextDatum(concurrently ? "CREATING" : "ACTIVE");
		st_registry_execute_as_owner("indexes", "INSERT INTO " ST_INDEX_REGISTRY
									 " (table_name, index_name, index_type, partition_key, partition_key_type,"
									 " sort_key, sort_key_type, projection, non_key_attributes, pg_index, status)"
									 " VALUES ($1::pg_catalog.regclass, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
									 11, argtypes, values, nulls);
	}
	if (concurrently)
		st_index_build_launch(tab, idx);
	CacheInvalidateRelcacheByRelid(tab->relid);
	return indexrelid;
}

/*
 * One index created or dropped at a time per table, as in DynamoDB: while a
 * background worker builds an index of the table (create_gsi with
 * concurrently, status CREATING), creating or dropping another one is
 * refused. Waiting instead would deadlock: the waiting call holds a snapshot
 * that CREATE INDEX CONCURRENTLY waits for, while it waits for the build's
 * lock (on Citus the two meet on a worker, where each shard's build waits
 * for the propagated DROP INDEX). Checked without a lock first (relid
 * InvalidOid: looked up from table_name, nothing done for a table that does
 * not exist: opening it reports that), and again once the table is locked,
 * for a build whose creating transaction committed while we waited.
 * Needs SPI.
 */
static void
check_no_index_build(text *table_name, Oid relid)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1];

	if (!OidIsValid(relid))
		relid = RangeVarGetRelid(st_name_to_rangevar(table_name), NoLock, true);
	if (!OidIsValid(relid))
		return;
	values[0] = ObjectIdGetDatum(relid);
	if (SPI_execute_with_args("SELECT index_name FROM " ST_INDEX_REGISTRY
							  " WHERE table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass"
							  " AND status OPERATOR(pg_catalog.=) 'CREATING'"
							  " ORDER BY index_name COLLATE pg_catalog.\"C\" LIMIT 1",
							  1, argtypes, values, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "reading the index registry failed");
	if (SPI_processed > 0)
		ereport(ERROR,
				(errcode(ERRCODE_ST_INDEX_BUILD_IN_PROGRESS),
				 errmsg("index \"%s\" of table \"%s\" is being built",
						SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1),
						get_rel_name(relid)),
				 errhint("Create or drop another index of the table once singletable.indexes says ACTIVE or FAILED for it."),
				 st_errdetail_dynamodb("Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table")));
}

/*
 * Creates a GSI (singletable.create_gsi(table_name, index_name,
 * partition_key, sort_key, partition_key_type, sort_key_type, projection,
 * non_key_attributes, concurrently) -> regclass of the PostgreSQL index,
 * NULL when built concurrently: it does not exist yet).
 */
Oid
st_create_gsi(const StCreateGsiRequest *req)
{
	StTable    *tab;
	StIndex		idx;
	const char *pk_names = st_ddl_required(req->partition_key, "partition_key");
	const char *pk_types = st_ddl_required(req->partition_key_type, "partition_key_type");
	const char *projection = st_ddl_required(req->projection, "projection");
	ArrayType  *nonkey = req->non_key_attributes;
	bool		concurrently = req->concurrently;
	Oid			indexrelid;

	memset(&idx, 0, sizeof(idx));
	idx.name = pstrdup(st_ddl_required(req->index_name, "index_name"));
	check_index_name(idx.name);
	idx.n_pk = parse_key_attrs(pk_names, pk_types, "partition_key", "partition_key_type", idx.pk);
	if (req->sort_key != NULL)
		idx.n_sk = parse_key_attrs(req->sort_key, st_ddl_required(req->sort_key_type, "sort_key_type"),
								   "sort_key", "sort_key_type", idx.sk);
	nonkey = parse_projection(&idx, projection, nonkey);

	SPI_connect();
	check_no_index_build(req->table_name, InvalidOid);
	/* ownership checked before the lock; SHARE blocks writes while the index is built */
	tab = st_table_open(req->table_name, concurrently ? ShareUpdateExclusiveLock : ShareLock, ST_ACL_OWNER);
	check_no_index_build(req->table_name, tab->relid);
	indexrelid = create_index(tab, &idx, nonkey, projection, concurrently);
	SPI_finish();
	return indexrelid;
}

/*
 * Creates an LSI (singletable.create_lsi(table_name, index_name, sort_key,
 * sort_key_type, projection, non_key_attributes) -> regclass of the
 * PostgreSQL index).
 */
Oid
st_create_lsi(const StCreateLsiRequest *req)
{
	StTable    *tab;
	StIndex		idx;
	const char *sk_name = st_ddl_required(req->sort_key, "sort_key");
	const char *sk_type = st_ddl_required(req->sort_key_type, "sort_key_type");
	const char *projection = st_ddl_required(req->projection, "projection");
	ArrayType  *nonkey = req->non_key_attributes;
	Oid			indexrelid;

	memset(&idx, 0, sizeof(idx));
	idx.name = pstrdup(st_ddl_required(req->index_name, "index_name"));
	idx.is_lsi = true;
	check_index_name(idx.name);
	check_attr_name(sk_name, "sort_key");
	idx.n_sk = 1;
	idx.sk[0].name = pstrdup(sk_name);
	idx.sk[0].type = st_key_type_from_text(sk_type, "sort_key_type");
	nonkey = parse_projection(&idx, projection, nonkey);

	SPI_connect();
	check_no_index_build(req->table_name, InvalidOid);
	tab = st_table_open(req->table_name, ShareLock, ST_ACL_OWNER);
	check_no_index_build(req->table_name, tab->relid);
	if (tab->sk_name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table \"%s\" has no sort key, so it cannot have a local secondary index",
						tab->relname),
				 st_errdetail_dynamodb("One or more parameter values were invalid: Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex")));
	/*
	 * The table's sort key attribute is accepted, as DynamoDB accepts it: the
	 * index orders each collection as the table does (every item is in it);
	 * the partition key attribute cannot be a sort key of the same index.
	 */
	if (strcmp(sk_name, tab->pk_name) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sort key \"%s\" of local secondary index \"%s\" is the partition key of table \"%s\"",
						sk_name, idx.name, tab->relname),
				 st_errdetail_dynamodb("Both the Hash Key and the Range Key element in the KeySchema have the same name")));
	idx.n_pk = 1;
	idx.pk[0].name = tab->pk_name;
	idx.pk[0].type = tab->pk_type;
	indexrelid = create_index(tab, &idx, nonkey, projection, false);
	SPI_finish();
	return indexrelid;
}

/*
 * Drops index index_name of a table (an LSI with lsi, else a GSI): the
 * PostgreSQL index, whose drop the sql_drop event trigger follows by
 * removing the registry row, and a registry row left without its index.
 */
static void
drop_index(text *table_name, const char *index_name, bool lsi)
{
	StTable    *tab;
	StIndex    *idx;
	char	   *nsp;

	st_ddl_required(index_name, "index_name");
	SPI_connect();
	check_no_index_build(table_name, InvalidOid);
	tab = st_table_open(table_name, AccessExclusiveLock, ST_ACL_OWNER);
	check_no_index_build(table_name, tab->relid);
	idx = st_table_index(tab, index_name);
	if (idx == NULL || idx->is_lsi != lsi)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("table \"%s\" has no %s secondary index \"%s\"", tab->relname,
						lsi ? "local" : "global", index_name),
				 idx ? errhint("\"%s\" is a %s secondary index; drop it with singletable.%s().",
							   index_name, idx->is_lsi ? "local" : "global",
							   idx->is_lsi ? "drop_lsi" : "drop_gsi") : 0,
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
		/* the entities' key templates of the index go with it */
		if (tab->n_entities > 0)
			st_registry_execute_as_owner("entities", "UPDATE " ST_ENTITY_REGISTRY
										 " SET index_templates = index_templates OPERATOR(pg_catalog.-) $2"
										 " WHERE table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass"
										 " AND index_templates OPERATOR(pg_catalog.?) $2",
										 2, argtypes, values, NULL);
	}
	CacheInvalidateRelcacheByRelid(tab->relid);
	SPI_finish();
}

/* singletable.drop_gsi(table_name, index_name) */
void
st_drop_gsi(text *table_name, const char *index_name)
{
	drop_index(table_name, index_name, false);
}

/* singletable.drop_lsi(table_name, index_name) */
void
st_drop_lsi(text *table_name, const char *index_name)
{
	drop_index(table_name, index_name, true);
}

/* Replaces every occurrence of from in s by to (a new string). */
static char *
replace_all(const char *s, const char *from, const char *to)
{
	StringInfoData buf;
	int			flen = strlen(from);
	const char *p;

	initStringInfo(&buf);
	while ((p = strstr(s, from)) != NULL)
	{
		appendBinaryStringInfo(&buf, s, p - s);
		appendStringInfoString(&buf, to);
		s = p + flen;
	}
	appendStringInfoString(&buf, s);
	return buf.data;
}

/* SQL written search_path-proof by the extension, as a user would write it. */
static char *
readable_sql(const char *sql)
{
	static const char *const pairs[][2] = {
		{"OPERATOR(pg_catalog.->>)", "->>"}, {"OPERATOR(pg_catalog.->)", "->"},
		{"OPERATOR(pg_catalog.=)", "="}, {"COLLATE pg_catalog.\"C\"", "COLLATE \"C\""},
		{"pg_catalog.", ""}
	};
	char	   *s = pstrdup(sql);

	for (int i = 0; i < lengthof(pairs); i++)
		s = replace_all(s, pairs[i][0], pairs[i][1]);
	return s;
}

/*
 * singletable.index_sql(table_name, index_name) -> text: a SELECT that
 * reads one partition of the index from plain SQL, in index order: the
 * index's predicate, equality on each partition key expression ($1, $2,
 * ...), ORDER BY the sort key expressions and the table's keys. Conditions
 * on the sort key expressions added to it are index conditions too.
 * Returned in the caller's memory context.
 */
char *
st_index_sql(text *table_name, const char *index_name)
{
	StTable    *tab;
	StIndex    *idx;
	StringInfoData sql;
	char	   *result;

	st_ddl_required(index_name, "index_name");
	SPI_connect();
	tab = st_table_open(table_name, AccessShareLock, ACL_SELECT);
	idx = st_table_index(tab, index_name);
	if (idx == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("table \"%s\" has no index \"%s\"", tab->relname, index_name),
				 st_errdetail_dynamodb("Requested resource not found: Index: %s not found", index_name)));
	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT %s, %s" ST_ITEM_COLUMN " FROM %s\n WHERE %s", quote_identifier(tab->pk_name),
					 tab->sk_name ? psprintf("%s, ", quote_identifier(tab->sk_name)) : "",
					 tab->qualname, idx->predicate);
	for (int i = 0; i < idx->n_pk; i++)
		appendStringInfo(&sql, "\n   AND %s = $%d", idx->pk[i].expr, i + 1);
	appendStringInfoString(&sql, "\n ORDER BY ");
	for (int j = 0; j < idx->n_sk; j++)
		appendStringInfo(&sql, "%s, ", idx->sk[j].expr);
	appendStringInfoString(&sql, quote_identifier(tab->pk_name));
	if (tab->sk_name)
		appendStringInfo(&sql, ", %s", quote_identifier(tab->sk_name));
	{
		char	   *text = readable_sql(sql.data);

		result = SPI_palloc(strlen(text) + 1);
		strcpy(result, text);
	}
	SPI_finish();
	return result;
}
