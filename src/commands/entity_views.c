/*
 * entity_views.c — DDL of entity views (commands.h): st_create_entity_views
 * creates one view per entity of a table, st_drop_entity_views drops them,
 * st_entity_views_refresh re-creates them after define_entity/drop_entity.
 *
 * The view of entity E of table T is named T_e, e being E in snake_case
 * ('UserProfile' -> user_profile, 'XIntegration' -> x_integration), in the
 * schema given (by default T's). Its columns: one per field of the
 * entity's key templates (the table's, then each index's), typed and
 * decoded by the key_field_* functions of planner/entity_keys.c (an index's
 * field under CASE WHEN <the index's predicate>: NULL for an item outside
 * the sparse index); one per declared attribute (S text, N numeric, BOOL
 * boolean: NULL when the item's attribute has another type; other types
 * jsonb in the stored form); then the table's key columns and item. Its
 * WHERE selects the entity's items: begins_with on each key's literal
 * prefix (an index range) and key_matches on its template. An INSTEAD OF
 * trigger (functions/sql_entity_views.c) makes it writable.
 *
 * Which tables have views is kept in singletable.entity_views (table,
 * schema); the views themselves are found by their trigger and by their
 * dependency on the table, so a view not made here is never dropped.
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "catalog/pg_type_d.h"
#include "catalog/namespace.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "lib/stringinfo.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "catalog/entities.h"
#include "catalog/registry.h"
#include "commands/commands.h"
#include "commands/commands_internal.h"

/* The registry of tables with entity views */
#define ST_ENTITY_VIEWS_REGISTRY "singletable.entity_views"

/* The views of the table made by create_entity_views: found by trigger function and dependency */
#define OUR_VIEWS_SQL \
	"SELECT DISTINCT c.oid, pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) '.'" \
	" OPERATOR(pg_catalog.||) pg_catalog.quote_ident(c.relname)" \
	" FROM pg_catalog.pg_rewrite r" \
	" JOIN pg_catalog.pg_depend d ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass" \
	"  AND d.objid OPERATOR(pg_catalog.=) r.oid" \
	"  AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass" \
	"  AND d.refobjid OPERATOR(pg_catalog.=) $1" \
	" JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) r.ev_class" \
	" JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace" \
	" WHERE c.relkind OPERATOR(pg_catalog.=) 'v' AND EXISTS (SELECT FROM pg_catalog.pg_trigger t" \
	"  WHERE t.tgrelid OPERATOR(pg_catalog.=) c.oid" \
	"  AND t.tgfoid OPERATOR(pg_catalog.=) 'singletable.entity_view_trigger()'::pg_catalog.regprocedure)"

/* The entity's name in snake_case (see the head comment) */
char *
st_entity_view_suffix(const char *entity)
{
	StringInfoData buf;
	int			len = strlen(entity);

	initStringInfo(&buf);
	for (int i = 0; i < len; i++)
	{
		char		c = entity[i];
		bool		upper = c >= 'A' && c <= 'Z';

		if (upper && i > 0)
		{
			char		p = entity[i - 1];
			char		n = i + 1 < len ? entity[i + 1] : '\0';
			bool		plower = (p >= 'a' && p <= 'z') || (p >= '0' && p <= '9');
			bool		pupper = p >= 'A' && p <= 'Z';

			if (plower || (pupper && n >= 'a' && n <= 'z'))
				appendStringInfoChar(&buf, '_');
		}
		if (upper)
			appendStringInfoChar(&buf, c - 'A' + 'a');
		else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (unsigned char) c >= 0x80)
			appendStringInfoChar(&buf, c);
		else
			appendStringInfoChar(&buf, '_');
	}
	return buf.data;
}

/* The decoder of a field type */
static const char *
decoder_name(StFieldType t)
{
	switch (t)
	{
		case ST_FIELD_STRING:
			return "singletable.key_field_text";
		case ST_FIELD_INT:
			return "singletable.key_field_int";
		case ST_FIELD_DATE:
			return "singletable.key_field_date";
		case ST_FIELD_TIMESTAMP:
			return "singletable.key_field_timestamp";
		case ST_FIELD_UUID:
			return "singletable.key_field_uuid";
	}
	return NULL;
}

/* Column names taken so far in one view */
typedef struct Columns
{
	int			n;
	const char *names[ST_TEMPLATE_MAX_FIELDS * 130 + 1003];
} Columns;

static bool
column_taken(Columns *cols, const char *name)
{
	for (int i = 0; i < cols->n; i++)
		if (strcmp(cols->names[i], name) == 0)
			return true;
	return false;
}

static void
check_column_name(StTable *tab, StEntity *e, const char *name)
{
	if (strlen(name) >= NAMEDATALEN)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("field or attribute \"%s\" of entity \"%s\" of table \"%s\" is too long for a column name (at most %d bytes)",
						name, e->name, tab->relname, NAMEDATALEN - 1)));
	if (strcmp(name, tab->pk_name) == 0 || (tab->sk_name && strcmp(name, tab->sk_name) == 0) ||
		strcmp(name, "item") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_COLUMN),
				 errmsg("field \"%s\" of entity \"%s\" has the name of a column of table \"%s\"; its view cannot have both",
						name, e->name, tab->relname),
				 errhint("Rename the field in the entity's templates.")));
}

/* The columns of one key template's fields */
static void
append_fields(StringInfo sql, Columns *cols, StTable *tab, StEntity *e, StTemplate *t,
			  const char *keyexpr, const char *guard)
{
	if (t == NULL)
		return;
	for (int f = 0; f < t->nfields; f++)
	{
		const StTemplatePart *p = st_template_field(t, f);

		if (column_taken(cols, p->text))
			continue;
		check_column_name(tab, e, p->text);
		cols->names[cols->n++] = p->text;
		appendStringInfoString(sql, "\n  ");
		if (guard)
			appendStringInfo(sql, "CASE WHEN %s THEN ", guard);
		appendStringInfo(sql, "%s(%s, %s, %s)", decoder_name(p->type), keyexpr,
						 quote_literal_cstr(t->source), quote_literal_cstr(p->text));
		if (guard)
			appendStringInfoString(sql, " END");
		appendStringInfo(sql, " AS %s,", quote_identifier(p->text));
	}
}

/* The condition that a key column holds the entity's keys of template t */
static void
append_key_filter(StringInfo sql, const char *col, StTemplate *t)
{
	if (st_template_is_constant(t))
	{
		appendStringInfo(sql, " AND %s OPERATOR(pg_catalog.=) %s", col,
						 quote_literal_cstr(t->prefix));
		return;
	}
	if (t->prefix_len > 0)
		appendStringInfo(sql, " AND singletable.begins_with(%s, %s)", col, quote_literal_cstr(t->prefix));
	appendStringInfo(sql, " AND singletable.key_matches(%s, %s)", col, quote_literal_cstr(t->source));
}

/* CREATE VIEW of one entity */
static char *
view_sql(StTable *tab, StEntity *e, const char *qualview)
{
	StringInfoData sql;
	Columns    *cols = palloc0(sizeof(Columns));
	const char *pk = quote_identifier(tab->pk_name);
	const char *sk = tab->sk_name ? quote_identifier(tab->sk_name) : NULL;

	initStringInfo(&sql);
	appendStringInfo(&sql, "CREATE VIEW %s AS SELECT", qualview);
	append_fields(&sql, cols, tab, e, e->pk, pk, NULL);
	append_fields(&sql, cols, tab, e, e->sk, sk, NULL);
	for (int i = 0; i < e->n_indexes; i++)
	{
		StEntityIndex *ix = &e->indexes[i];
		StIndex    *idx = st_table_index(tab, ix->index_name);

		if (idx == NULL)
			continue;
		if (ix->pk && !idx->is_lsi)
			append_fields(&sql, cols, tab, e, ix->pk, idx->pk[0].expr, idx->predicate);
		if (ix->sk && idx->n_sk == 1)
			append_fields(&sql, cols, tab, e, ix->sk, idx->sk[0].expr, idx->predicate);
	}
	for (int i = 0; i < e->n_attrs; i++)
	{
		StEntityAttr *a = &e->attrs[i];
		const char *lit = quote_literal_cstr(a->name);
		const char *test = "pg_catalog.jsonb_typeof(" ST_ITEM_COLUMN " OPERATOR(pg_catalog.->) %s) OPERATOR(pg_catalog.=) '%s'";

		check_column_name(tab, e, a->name);
		appendStringInfoString(&sql, "\n  ");
		if (strcmp(a->type, "S") == 0)
			appendStringInfo(&sql, "CASE WHEN %s THEN " ST_ITEM_COLUMN " OPERATOR(pg_catalog.->>) %s END",
							 psprintf(test, lit, "string"), lit);
		else if (strcmp(a->type, "N") == 0)
			appendStringInfo(&sql, "CASE WHEN %s THEN (" ST_ITEM_COLUMN " OPERATOR(pg_catalog.->) %s)::pg_catalog.numeric END",
							 psprintf(test, lit, "number"), lit);
		else if (strcmp(a->type, "BOOL") == 0)
			appendStringInfo(&sql, "CASE WHEN %s THEN (" ST_ITEM_COLUMN " OPERATOR(pg_catalog.->) %s)::pg_catalog.bool END",
							 psprintf(test, lit, "boolean"), lit);
		else
			appendStringInfo(&sql, ST_ITEM_COLUMN " OPERATOR(pg_catalog.->) %s", lit);
		appendStringInfo(&sql, " AS %s,", quote_identifier(a->name));
	}
	appendStringInfo(&sql, "\n  %s,", pk);
	if (sk)
		appendStringInfo(&sql, " %s,", sk);
	appendStringInfo(&sql, " " ST_ITEM_COLUMN "\n FROM %s\n WHERE true", tab->qualname);
	append_key_filter(&sql, pk, e->pk);
	if (sk && e->sk)
		append_key_filter(&sql, sk, e->sk);
	return sql.data;
}

/*
 * The privileges granted on the table's views to other roles, as
 * (view name, "GRANT privilege", " TO role"), to grant again on the view of the
 * same name when they are re-created
 */
#define VIEW_GRANTS_SQL \
	"SELECT c.relname::pg_catalog.text, 'GRANT ' OPERATOR(pg_catalog.||) a.privilege_type," \
	" ' TO ' OPERATOR(pg_catalog.||)" \
	" CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0::pg_catalog.oid THEN 'PUBLIC'" \
	"  ELSE pg_catalog.quote_ident(g.rolname) END OPERATOR(pg_catalog.||)" \
	" CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END" \
	" FROM pg_catalog.pg_class c CROSS JOIN LATERAL pg_catalog.aclexplode(c.relacl) a" \
	" LEFT JOIN pg_catalog.pg_roles g ON g.oid OPERATOR(pg_catalog.=) a.grantee" \
	" WHERE c.oid OPERATOR(pg_catalog.=) ANY ($1) AND a.grantee OPERATOR(pg_catalog.<>) c.relowner"

typedef struct ViewGrant
{
	char	   *relname;
	char	   *grant;			/* "GRANT privilege" */
	char	   *to;				/* " TO role [WITH GRANT OPTION]" */
} ViewGrant;

/*
 * Drops the views create_entity_views made of the table; with grants, returns
 * the privileges other roles had on them (*ngrants of them)
 */
static ViewGrant *
drop_views(Oid relid, int *ngrants)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	SPITupleTable *tt;
	uint64		n;
	char	  **names;
	Datum	   *oids;
	ViewGrant  *grants = NULL;

	*ngrants = 0;
	if (SPI_execute_with_args(OUR_VIEWS_SQL, 1, argtypes, values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "listing the entity views failed");
	tt = SPI_tuptable;
	n = SPI_processed;
	names = palloc(sizeof(char *) * (n + 1));
	oids = palloc(sizeof(Datum) * (n + 1));
	for (uint64 i = 0; i < n; i++)
	{
		bool		isnull;

		names[i] = SPI_getvalue(tt->vals[i], tt->tupdesc, 2);
		oids[i] = SPI_getbinval(tt->vals[i], tt->tupdesc, 1, &isnull);
	}
	if (n > 0)
	{
		Oid			gtypes[1] = {OIDARRAYOID};
		Datum		gvalues[1] = {PointerGetDatum(construct_array(oids, n, OIDOID, sizeof(Oid), true, TYPALIGN_INT))};

		if (SPI_execute_with_args(VIEW_GRANTS_SQL, 1, gtypes, gvalues, NULL, false, 0) != SPI_OK_SELECT)
			elog(ERROR, "reading the privileges of the entity views failed");
		grants = palloc(sizeof(ViewGrant) * (SPI_processed + 1));
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			grants[i].relname = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
			grants[i].grant = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2);
			grants[i].to = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 3);
		}
		*ngrants = SPI_processed;
	}
	for (uint64 i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (SPI_execute(psprintf("DROP VIEW %s", names[i]), false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "DROP VIEW failed");
	}
	return grants;
}

/* Creates the views of tab's entities in schema nsp; returns their OIDs */
static List *
create_views(StTable *tab, const char *nsp)
{
	StEntity   *ents;
	int			n;
	List	   *oids = NIL;
	Oid			nspid = get_namespace_oid(nsp, false);
	ViewGrant  *grants;
	int			ngrants;

	n = st_entities_read(tab, CurrentMemoryContext, false, &ents);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("table \"%s\" has no entities", tab->relname),
				 errhint("Define them with singletable.define_entity() first.")));
	grants = drop_views(tab->relid, &ngrants);
	for (int i = 0; i < n; i++)
	{
		char	   *name = psprintf("%s_%s", tab->relname, st_entity_view_suffix(ents[i].name));
		char	   *qual = psprintf("%s.%s", quote_identifier(nsp), quote_identifier(name));
		Oid			existing;

		CHECK_FOR_INTERRUPTS();
		if (strlen(name) >= NAMEDATALEN)
			ereport(ERROR,
					(errcode(ERRCODE_NAME_TOO_LONG),
					 errmsg("the view name \"%s\" of entity \"%s\" of table \"%s\" is longer than %d bytes",
							name, ents[i].name, tab->relname, NAMEDATALEN - 1)));
		existing = get_relname_relid(name, nspid);
		if (OidIsValid(existing))
			ereport(ERROR,
					(errcode(ERRCODE_DUPLICATE_TABLE),
					 errmsg("%s \"%s\" already exists in schema \"%s\"; it is not a view create_entity_views made of table \"%s\"",
							get_rel_relkind(existing) == RELKIND_VIEW ? "view" : "relation",
							name, nsp, tab->relname),
					 errhint("Rename or drop it, or give the views another schema (schema => ...).")));
		if (SPI_execute(view_sql(tab, &ents[i], qual), false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "CREATE VIEW failed");
		if (SPI_execute(psprintf("CREATE TRIGGER entity_view INSTEAD OF INSERT OR UPDATE OR DELETE ON %s"
								 " FOR EACH ROW EXECUTE FUNCTION singletable.entity_view_trigger(%s)",
								 qual, quote_literal_cstr(ents[i].name)), false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "CREATE TRIGGER failed");
		if (SPI_execute(psprintf("COMMENT ON VIEW %s IS %s", qual,
								 quote_literal_cstr(psprintf("Entity %s of table %s (singletable.create_entity_views)",
															 ents[i].name, tab->relname))), false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "COMMENT failed");
		/* what other roles were granted on the view it replaces */
		for (int g = 0; g < ngrants; g++)
			if (strcmp(grants[g].relname, name) == 0 &&
				SPI_execute(psprintf("%s ON %s%s", grants[g].grant, qual, grants[g].to), false, 0) != SPI_OK_UTILITY)
				elog(ERROR, "GRANT failed");
		oids = lappend_oid(oids, get_relname_relid(name, nspid));
	}
	return oids;
}

/* Writes the registry row (table, schema) */
static void
register_views(StTable *tab, const char *nsp)
{
	Oid			argtypes[2] = {OIDOID, NAMEOID};
	Datum		values[2] = {ObjectIdGetDatum(tab->relid), CStringGetDatum(nsp)};

	st_registry_execute_as_owner("entity_views",
								 "INSERT INTO " ST_ENTITY_VIEWS_REGISTRY " (table_name, view_schema)"
								 " VALUES ($1::pg_catalog.regclass, $2) ON CONFLICT (table_name)"
								 " DO UPDATE SET view_schema = EXCLUDED.view_schema",
								 2, argtypes, values, NULL);
}

List *
st_create_entity_views(text *table_name, const char *schema)
{
	StTable    *tab;
	List	   *oids;
	List	   *result = NIL;
	MemoryContext caller = CurrentMemoryContext;
	char	   *nsp;

	if (table_name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("table_name must not be NULL")));
	if (schema != NULL && !OidIsValid(get_namespace_oid(schema, true)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_SCHEMA),
				 errmsg("schema \"%s\" does not exist", schema)));
	SPI_connect();
	/* ownership before the lock; SHARE UPDATE EXCLUSIVE, as define_entity takes */
	tab = st_table_open(table_name, ShareUpdateExclusiveLock, ST_ACL_OWNER);
	nsp = schema ? pstrdup(schema) : get_namespace_name(get_rel_namespace(tab->relid));
	{
		AclResult	acl = pg_namespace_aclcheck(get_namespace_oid(nsp, false), GetUserId(), ACL_CREATE);

		if (acl != ACLCHECK_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied to create the views of table \"%s\" in schema \"%s\"",
							tab->relname, nsp)));
	}
	oids = create_views(tab, nsp);
	register_views(tab, nsp);
	SPI_finish();
	{
		MemoryContext old = MemoryContextSwitchTo(caller);

		result = list_copy(oids);
		MemoryContextSwitchTo(old);
	}
	return result;
}

void
st_drop_entity_views(text *table_name)
{
	StTable    *tab;
	int			ngrants;

	if (table_name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("table_name must not be NULL")));
	SPI_connect();
	tab = st_table_open(table_name, ShareUpdateExclusiveLock, ST_ACL_OWNER);
	(void) drop_views(tab->relid, &ngrants);
	{
		Oid			argtypes[1] = {OIDOID};
		Datum		values[1] = {ObjectIdGetDatum(tab->relid)};

		st_registry_execute_as_owner("entity_views", "DELETE FROM " ST_ENTITY_VIEWS_REGISTRY
									 " WHERE table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
									 1, argtypes, values, NULL);
	}
	SPI_finish();
}

/*
 * Drops the entity views of tab and forgets them, for drop_table (the
 * views are the extension's, made from the registry: they go with their
 * table as its GSIs do). Nothing without the registry or without views.
 * Needs an SPI connection and the table's lock.
 */
void
st_entity_views_drop_all(StTable *tab)
{
	Oid			nsp = get_namespace_oid("singletable", true);
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(tab->relid)};
	int			ngrants;

	if (!OidIsValid(nsp) || !OidIsValid(get_relname_relid("entity_views", nsp)))
		return;
	(void) drop_views(tab->relid, &ngrants);
	st_registry_execute_as_owner("entity_views", "DELETE FROM " ST_ENTITY_VIEWS_REGISTRY
								 " WHERE table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
								 1, argtypes, values, NULL);
}

void
st_entity_views_refresh(StTable *tab)
{
	Oid			nsp = get_namespace_oid("singletable", true);
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(tab->relid)};
	char	   *schema;

	/* an installation not updated to this version has no registry */
	if (!OidIsValid(nsp) || !OidIsValid(get_relname_relid("entity_views", nsp)))
		return;
	SPI_connect();
	if (SPI_execute_with_args("SELECT view_schema::pg_catalog.text FROM " ST_ENTITY_VIEWS_REGISTRY
							  " WHERE table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
							  1, argtypes, values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "reading " ST_ENTITY_VIEWS_REGISTRY " failed");
	if (SPI_processed == 0)
	{
		SPI_finish();
		return;
	}
	schema = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	if (!OidIsValid(get_namespace_oid(schema, true)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_SCHEMA),
				 errmsg("schema \"%s\" of the entity views of table \"%s\" does not exist", schema, tab->relname),
				 errhint("Drop them with singletable.drop_entity_views() or create them in another schema.")));
	/* without entities left, no views */
	{
		StEntity   *ents;

		int			ngrants;

		if (st_entities_read(tab, CurrentMemoryContext, false, &ents) == 0)
			(void) drop_views(tab->relid, &ngrants);
		else
			(void) create_views(tab, schema);
	}
	SPI_finish();
}
