/*
 * sql_entities.c — the SQL functions of entities: define_entity and
 * drop_entity (thin wrappers of commands/entities.c, as sql_ddl.c's are),
 * and entity_of, the entity a pair of keys belongs to.
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "functions/sql_args.h"
#include "catalog/entities.h"
#include "catalog/registry.h"
#include "commands/commands.h"

PG_FUNCTION_INFO_V1(singletable_define_entity);
PG_FUNCTION_INFO_V1(singletable_drop_entity);
PG_FUNCTION_INFO_V1(singletable_entity_of);


/* singletable.define_entity(table_name, entity, pk, sk, indexes, attributes, replace) */
Datum
singletable_define_entity(PG_FUNCTION_ARGS)
{
	StDefineEntityRequest req;

	req.table_name = ARG_TEXT(0);
	req.entity = ARG_CSTRING(1);
	req.pk = ARG_CSTRING(2);
	req.sk = ARG_CSTRING(3);
	req.indexes = ARG_JSONB(4);
	req.attributes = ARG_JSONB(5);
	req.replace = PG_ARGISNULL(6) ? false : PG_GETARG_BOOL(6);
	st_define_entity(&req);
	PG_RETURN_VOID();
}

/* singletable.drop_entity(table_name, entity) */
Datum
singletable_drop_entity(PG_FUNCTION_ARGS)
{
	st_drop_entity(ARG_TEXT(0), ARG_CSTRING(1));
	PG_RETURN_VOID();
}

/*
 * singletable.entity_of(table_name regclass, pk, sk) -> text: the entity of
 * the table whose templates the keys match, or NULL (also for NULL keys).
 * Called once per row by inventories over whole tables: the table is opened
 * (rights checked, ACCESS SHARE) on the first call of a statement and its
 * cache entry kept in fn_extra while it stays valid.
 */
typedef struct EntityOfCache
{
	Oid			relid;
	StTable    *tab;
} EntityOfCache;

Datum
singletable_entity_of(PG_FUNCTION_ARGS)
{
	EntityOfCache *c = (EntityOfCache *) fcinfo->flinfo->fn_extra;
	Oid			relid;
	text	   *pk;
	text	   *sk;
	StEntity   *e;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("table_name must not be NULL")));
	relid = PG_GETARG_OID(0);
	if (c == NULL)
	{
		c = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(EntityOfCache));
		fcinfo->flinfo->fn_extra = c;
	}
	if (c->relid != relid || c->tab == NULL || !c->tab->valid)
	{
		char	   *rel = get_rel_name(relid);
		char	   *nsp = rel ? get_namespace_name(get_rel_namespace(relid)) : NULL;

		if (rel == NULL || nsp == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_TABLE),
					 errmsg("table with OID %u does not exist", relid)));
		c->tab = st_table_open_in(nsp, rel, AccessShareLock, ACL_SELECT);
		c->relid = relid;
	}
	if (PG_ARGISNULL(1) || (c->tab->sk_name != NULL && PG_ARGISNULL(2)))
		PG_RETURN_NULL();
	pk = PG_GETARG_TEXT_PP(1);
	sk = c->tab->sk_name != NULL ? PG_GETARG_TEXT_PP(2) : NULL;
	e = st_entity_match(c->tab, VARDATA_ANY(pk), VARSIZE_ANY_EXHDR(pk),
						sk ? VARDATA_ANY(sk) : NULL, sk ? VARSIZE_ANY_EXHDR(sk) : 0);
	if (e == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(e->name));
}
