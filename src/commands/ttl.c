/*
 * ttl.c — DDL of Time to Live (commands.h): st_enable_ttl creates the
 * partial index the sweep reads and registers the setting; st_disable_ttl
 * drops both. Behind the SQL functions enable_ttl and disable_ttl
 * (functions/sql_ddl.c) and the JSON API's UpdateTimeToLive. The sweep
 * itself and the test reads use are ops/ttl.c; the background workers
 * bgw/ttl_worker.c.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"

#include "catalog/registry.h"
#include "utils/errors.h"
#include "format/keys.h"
#include "ops/ttl.h"
#include "commands/commands.h"
#include "commands/commands_internal.h"

/*
 * singletable.enable_ttl(table_name, attribute_name): the table's items
 * expire at the Number of epoch seconds in attribute_name. Creates the
 * partial index the sweep reads and registers the setting.
 */
void
st_enable_ttl(text *table_name, const char *attribute_name)
{
	const char *attr = st_ddl_required(attribute_name, "attribute_name");
	int			len = strlen(attr);
	StTable    *tab;
	char	   *idxname;
	Oid			nspoid;

	if (len < 1 || len > 255)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("attribute_name must be 1 to 255 bytes long, not %d", len),
				 st_errdetail_dynamodb("1 validation error detected: Value at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length %s",
									   len < 1 ? "greater than or equal to 1" : "less than or equal to 255")));
	SPI_connect();
	/* ownership before the lock; SHARE: writes wait while the index is built */
	tab = st_table_open(table_name, ShareLock, ST_ACL_OWNER);
	if (tab->ttl_attr != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("TTL is already enabled on table \"%s\", with attribute \"%s\"", tab->relname, tab->ttl_attr),
				 st_errdetail_dynamodb("TimeToLive is already enabled"),
				 errhint("Disable it with singletable.disable_ttl() first to change the attribute.")));
	if (strcmp(attr, tab->pk_name) == 0 || (tab->sk_name && strcmp(attr, tab->sk_name) == 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the TTL attribute of table \"%s\" cannot be its key attribute \"%s\"", tab->relname, attr)));

	/* <table>_ttl, cut to NAMEDATALEN - 1 bytes at a character boundary */
	nspoid = get_rel_namespace(tab->relid);
	idxname = psprintf("%s_ttl", tab->relname);
	if (strlen(idxname) >= NAMEDATALEN)
		idxname[pg_mbcliplen(idxname, strlen(idxname), NAMEDATALEN - 1)] = '\0';
	if (OidIsValid(get_relname_relid(idxname, nspoid)))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_TABLE),
				 errmsg("relation \"%s\" for the TTL index of table \"%s\" already exists", idxname, tab->relname)));
	if (SPI_execute(psprintf("CREATE INDEX %s ON %s (%s) WHERE %s", quote_identifier(idxname), tab->qualname,
							 st_ttl_expiry_expr(attr), st_ttl_expiry_test(attr)), false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "CREATE INDEX failed");
	{
		Oid			argtypes[3] = {OIDOID, TEXTOID, TEXTOID};
		Datum		values[3] = {ObjectIdGetDatum(tab->relid), CStringGetTextDatum(attr), CStringGetTextDatum(idxname)};

		st_registry_execute_as_owner("ttl", "INSERT INTO " ST_TTL_REGISTRY " (table_name, attribute_name, ttl_index)"
									 " VALUES ($1::pg_catalog.regclass, $2, $3)", 3, argtypes, values, NULL);
	}
	CacheInvalidateRelcacheByRelid(tab->relid);
	SPI_finish();
	/* a database that now has a TTL table is served at once */
	st_ttl_wake_launcher();
}

/* singletable.disable_ttl(table_name): items no longer expire; the TTL index is dropped. */
void
st_disable_ttl(text *table_name)
{
	StTable    *tab;

	SPI_connect();
	tab = st_table_open(table_name, AccessExclusiveLock, ST_ACL_OWNER);
	if (tab->ttl_attr == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("TTL is not enabled on table \"%s\"", tab->relname),
				 st_errdetail_dynamodb("TimeToLive is already disabled")));
	if (SPI_execute(psprintf("DROP INDEX IF EXISTS %s",
							 quote_qualified_identifier(get_namespace_name(get_rel_namespace(tab->relid)),
														tab->ttl_index)), false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "DROP INDEX failed");
	{
		Oid			argtypes[1] = {OIDOID};
		Datum		values[1] = {ObjectIdGetDatum(tab->relid)};

		st_registry_execute_as_owner("ttl", "DELETE FROM " ST_TTL_REGISTRY
									 " WHERE table_name OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
									 1, argtypes, values, NULL);
	}
	CacheInvalidateRelcacheByRelid(tab->relid);
	SPI_finish();
}
