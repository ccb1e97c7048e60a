/*
 * registry.c — resolving a table name for a call, and the per-backend cache
 * of item-collection tables.
 *
 * st_table_open resolves a (possibly qualified) name with
 * RangeVarGetRelidExtended and a callback that runs before the table is
 * locked: it refuses anything but an ordinary table, checks the caller's
 * rights (ownership for DDL, else every privilege the call needs) and that
 * the table is in the registry. So a role without rights gets its error at
 * once: it never queues a lock on a table it may not use, where it would
 * wait, and make every later locker wait behind it (a queued ACCESS
 * EXCLUSIVE lock on pg_database stalls every new connection).
 *
 * Design notes: the section on registry.c in README.md of this folder.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "commands/trigger.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

#include "utils/errors.h"
#include "catalog/distribute.h"
#include "catalog/registry.h"
#include "catalog/entities.h"
#include "ops/ttl.h"

StaticAssertDecl((ST_ACL_OWNER & (((AclMode) 1 << N_ACL_RIGHTS) - 1)) == 0 &&
				 ST_ACL_OWNER < ((AclMode) 1 << 16),
				 "ST_ACL_OWNER must not be a privilege nor a grant option");

/* The registry row of a table, as the callback reads it before the lock */
typedef struct RegistryRow
{
	Oid			relid;			/* InvalidOid: not read */
	char	   *pk_name;
	StKeyType	pk_type;
	char	   *sk_name;
	StKeyType	sk_type;
	char	   *dynamodb_name;	/* NULL: the table's own name */
} RegistryRow;

/* What st_table_open's callback checks, and what it found */
typedef struct OpenCheck
{
	text	   *name;			/* as the caller gave it, for messages; NULL: of rv */
	const RangeVar *rv;			/* the name resolved */
	AclMode		required;		/* privileges, or ST_ACL_OWNER */
	RegistryRow row;			/* read when the cache had no valid entry */
} OpenCheck;

static HTAB *table_cache = NULL;

/* Entries (copies) whose plans and memory wait for the end of the transaction */
static List *retired = NIL;

/* The table whose entry is being built, and whether it was invalidated meanwhile */
static Oid	building_relid = InvalidOid;
static bool building_invalidated = false;

/* Relcache callback: marks the cached description of relid (or all) stale. */
static void
invalidate_table(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS status;
	StTable    *tab;

	if (!OidIsValid(relid) || relid == building_relid)
		building_invalidated = true;
	if (table_cache == NULL)
		return;
	if (OidIsValid(relid))
	{
		tab = hash_search(table_cache, &relid, HASH_FIND, NULL);
		if (tab)
			tab->valid = false;
		return;
	}
	hash_seq_init(&status, table_cache);
	while ((tab = hash_seq_search(&status)) != NULL)
		tab->valid = false;
}

/*
 * Syscache callback on pg_namespace: a renamed (or dropped, or new) schema
 * can change what every cached qualified name refers to, so all go stale.
 */
static void
invalidate_namespace(Datum arg, int cacheid, uint32 hashvalue)
{
	invalidate_table(arg, InvalidOid);
}

/* Moves the plans and memory of entry tab to the retired list; tab is emptied. */
static void
retire_entry(StTable *tab)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
	StTable    *copy = palloc(sizeof(StTable));

	retired = lappend(retired, copy);
	MemoryContextSwitchTo(old);
	memcpy(copy, tab, sizeof(StTable));
	memset(((char *) tab) + sizeof(Oid), 0, sizeof(StTable) - sizeof(Oid));
}

/* Frees the plans and memory of a retired entry (no call can be using them). */
static void
free_retired(StTable *copy)
{
	st_statements_free(copy);
	if (copy->cxt)
		MemoryContextDelete(copy->cxt);
	pfree(copy);
}

/*
 * Transaction callback: at the end of a top-level transaction no statement
 * of ours can be running, so retired plans and stale entries are freed, and
 * stale entries leave the hash table.
 */
static void
sweep_at_xact_end(XactEvent event, void *arg)
{
	HASH_SEQ_STATUS status;
	StTable    *tab;
	List	   *dead;
	ListCell   *lc;

	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_PREPARE:
			break;
		default:
			return;
	}
	building_relid = InvalidOid;
	if (table_cache != NULL)
	{
		hash_seq_init(&status, table_cache);
		while ((tab = hash_seq_search(&status)) != NULL)
		{
			if (tab->valid)
				continue;
			/* removing the element just returned is allowed during a scan */
			retire_entry(tab);
			if (hash_search(table_cache, &tab->relid, HASH_REMOVE, NULL) == NULL)
				elog(WARNING, "singletable cache entry %u vanished", tab->relid);
		}
	}
	/* detach first: an error while freeing must not free anything twice */
	dead = retired;
	retired = NIL;
	foreach(lc, dead)
		free_retired((StTable *) lfirst(lc));
	list_free(dead);
}

/*
 * Registers the cache's invalidation and transaction-end callbacks (from
 * _PG_init). Only static arrays and TopMemoryContext are touched, so this
 * also works in the postmaster, whose children inherit the registrations.
 */
void
st_registry_init(void)
{
	CacheRegisterRelcacheCallback(invalidate_table, (Datum) 0);
	CacheRegisterSyscacheCallback(NAMESPACEOID, invalidate_namespace, (Datum) 0);
	RegisterXactCallback(sweep_at_xact_end, NULL);
}

/* The cache, created on first use (CacheMemoryContext exists in a backend by then). */
static HTAB *
get_cache(void)
{
	HASHCTL		ctl;

	if (table_cache != NULL)
		return table_cache;
	Assert(CacheMemoryContext != NULL);
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(StTable);
	ctl.hcxt = CacheMemoryContext;
	table_cache = hash_create("singletable tables", 64, &ctl,
							  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	return table_cache;
}

/*
 * A name SPI_unregister_relation looks up in st_spi_connected: longer than
 * any identifier (NAMEDATALEN - 1 bytes), so that no ephemeral named
 * relation has it — those of SQL are a trigger's REFERENCING names.
 */
static const char spi_probe_name[] =
"singletable: is an SPI connection open? (a name longer than any SQL identifier)";

StaticAssertDecl(sizeof(spi_probe_name) > NAMEDATALEN,
				 "the SPI probe name must not be a possible identifier");

/*
 * True when an SPI connection is open (SPI_connect called and not yet
 * SPI_finish'ed, in this function or a caller), for Asserts only.
 *
 * PostgreSQL 15 has no SPI_is_connected, and the SPI stack (_SPI_current)
 * is static to spi.c. SPI's documented answer is the return code
 * SPI_ERROR_UNCONNECTED of its calls "from an unconnected C function"; of
 * those, SPI_unregister_relation is the one without a side effect: it
 * checks the connection first, then looks the name up in the connection's
 * query environment, and with a name no relation has (spi_probe_name)
 * returns SPI_ERROR_REL_NOT_FOUND and changes nothing. Like any SPI call it
 * sees the innermost connection, which may be a caller's (a PL/pgSQL
 * function's): it tells that SPI calls will work, not who connected. (This
 * used to match the names of SPI's memory contexts, internals of spi.c.)
 */
bool
st_spi_connected(void)
{
	return SPI_unregister_relation(spi_probe_name) != SPI_ERROR_UNCONNECTED;
}

/*
 * Whether the len bytes at p are an unqualified name that SQL's identifier
 * rules leave as it is: lower-case ASCII letters, digits and underscores,
 * shorter than NAMEDATALEN (no quotes, dots, spaces, upper case to fold or
 * truncation to warn of).
 */
static inline bool
plain_name(const char *p, int len)
{
	if (len <= 0 || len >= NAMEDATALEN)
		return false;
	for (int i = 0; i < len; i++)
	{
		char		c = p[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	return true;
}

/* Resolves a (possibly schema-qualified) table name; NULL-safe error text. */
RangeVar *
st_name_to_rangevar(text *name)
{
	if (name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("table_name must not be NULL")));
	/* the commonest name, as textToQualifiedNameList would read it, without its list */
	if (plain_name(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name)))
		return makeRangeVar(NULL, pnstrdup(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name)), -1);
	return makeRangeVarFromNameList(textToQualifiedNameList(name));
}

/* The error for a table that is not an item-collection table. */
static void
not_singletable_error(text *name, Oid relid)
{
	bool		citus = false;

	/* Citus's metadata is read through SPI: in a connection of its own if the caller has none */
	if (OidIsValid(relid))
	{
		bool		connected = st_spi_connected();

		if (!connected)
			SPI_connect();
		citus = st_citus_table(relid);
		if (!connected)
			SPI_finish();
	}
	/*
	 * A Citus table without a registry row here: a node that the
	 * coordinator's registry rows of the table have not reached (see
	 * singletable.cluster_registry): the table was distributed with Citus's
	 * own function, or this node was added after it was distributed.
	 */
	if (citus)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("distributed table \"%s\" has no singletable registry row on this node",
						text_to_cstring(name)),
				 errdetail("Every node gets the registry rows of tables distributed with singletable.distribute_table, through singletable.cluster_registry, but not those of a table distributed with create_distributed_table, nor a node added later."),
				 errhint("On the coordinator, run SELECT singletable.cluster_registry_sync(); once.")));
	ereport(ERROR,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg("table \"%s\" is not a singletable table", text_to_cstring(name)),
			 errhint("Item-collection tables are created with singletable.create_table().")));
}

/* A text column of a registry row by name; NULL when null or not there */
static char *
registry_text(HeapTuple tup, TupleDesc desc, const char *column)
{
	int			attno = SPI_fnumber(desc, column);
	bool		isnull;
	Datum		d;

	if (attno <= 0)
		return NULL;
	d = SPI_getbinval(tup, desc, attno, &isnull);
	return isnull ? NULL : TextDatumGetCString(d);
}

/*
 * Reads the registry row of relid into row (strings in the current memory
 * context); false when there is none. In an SPI connection of its own, so
 * that st_table_open needs none when the cache has the table; the registry
 * is readable by PUBLIC, and reading it does not lock the item table.
 */
static bool
read_registry_row(Oid relid, RegistryRow *row)
{
	MemoryContext outer = CurrentMemoryContext;
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	HeapTuple	tup;
	TupleDesc	desc;
	int			rc;

	SPI_connect();
	/* every column: dynamodb_name is not there before ALTER EXTENSION ... UPDATE from 0.1.0 */
	rc = SPI_execute_with_args("SELECT * FROM " ST_REGISTRY " WHERE table_name OPERATOR(pg_catalog.=) $1",
							   1, argtypes, values, NULL, true, 1);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "reading the singletable registry failed: %s", SPI_result_code_string(rc));
	if (SPI_processed == 0)
	{
		SPI_finish();
		return false;
	}
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	/* the strings in the caller's memory; SPI_finish frees the tuple and returns there */
	MemoryContextSwitchTo(outer);
	row->relid = relid;
	row->pk_name = registry_text(tup, desc, "partition_key");
	row->pk_type = (StKeyType) registry_text(tup, desc, "partition_key_type")[0];
	row->sk_name = registry_text(tup, desc, "sort_key");
	row->sk_type = row->sk_name ? (StKeyType) registry_text(tup, desc, "sort_key_type")[0] : ST_KEY_S;
	row->dynamodb_name = registry_text(tup, desc, "dynamodb_name");
	SPI_finish();
	return true;
}

/* A valid cache entry of relid, or NULL. */
static StTable *
valid_entry(Oid relid)
{
	StTable    *tab = hash_search(get_cache(), &relid, HASH_FIND, NULL);

	return (tab && tab->valid) ? tab : NULL;
}

static StTable *open_rangevar(RangeVar *rv, text *name, LOCKMODE lockmode, AclMode required);

/* The table's name for a message: as the caller gave it, or quoted from the RangeVar */
static text *
check_name(OpenCheck *check)
{
	if (check->name == NULL)
		check->name = cstring_to_text(quote_qualified_identifier(check->rv->schemaname,
																 check->rv->relname));
	return check->name;
}

/*
 * RangeVarGetRelidExtended callback, run before the table is locked (and
 * again if the name comes to mean another table while waiting for it):
 * refuses what is not an ordinary table, a caller without the rights the
 * call needs, and a table not in the registry. Nothing here locks the table.
 */
static void
check_table_callback(const RangeVar *rv, Oid relid, Oid oldrelid, void *arg)
{
	OpenCheck  *check = (OpenCheck *) arg;
	HeapTuple	tp;
	char		relkind;
	char	   *relname;
	Oid			owner;

	if (!OidIsValid(relid))
		return;					/* the caller reports a missing table */
	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tp))
		return;					/* dropped meanwhile; the lookup will retry */
	relkind = ((Form_pg_class) GETSTRUCT(tp))->relkind;
	relname = pstrdup(NameStr(((Form_pg_class) GETSTRUCT(tp))->relname));
	owner = ((Form_pg_class) GETSTRUCT(tp))->relowner;
	ReleaseSysCache(tp);

	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE)
		not_singletable_error(check_name(check), InvalidOid);

	/* rights first: a role without them learns nothing more and waits for nothing */
	if (check->required & ST_ACL_OWNER)
	{
		if (!superuser() && !has_privs_of_role(GetUserId(), owner))
			aclcheck_error(ACLCHECK_NOT_OWNER, get_relkind_objtype(relkind), relname);
	}
	if ((check->required & ~ST_ACL_OWNER) != 0 &&
		pg_class_aclmask(relid, GetUserId(), check->required & ~ST_ACL_OWNER, ACLMASK_ALL)
		!= (check->required & ~ST_ACL_OWNER))
		aclcheck_error(ACLCHECK_NO_PRIV, get_relkind_objtype(relkind), relname);

	if (valid_entry(relid) != NULL)
		return;
	if (!read_registry_row(relid, &check->row))
		not_singletable_error(check_name(check), relid);
}

/* A table's qualified, quoted name as st_table_open takes it; NULL when it is gone. */
text *
st_table_name_text(Oid relid)
{
	char	   *rel = get_rel_name(relid);
	char	   *nsp = rel ? get_namespace_name(get_rel_namespace(relid)) : NULL;

	if (rel == NULL || nsp == NULL)
		return NULL;
	return cstring_to_text(quote_qualified_identifier(nsp, rel));
}

/* The cached index named name of tab, or NULL. */
StIndex *
st_table_index(StTable *tab, const char *name)
{
	for (int i = 0; i < tab->n_indexes; i++)
		if (strcmp(tab->indexes[i].name, name) == 0)
			return &tab->indexes[i];
	return NULL;
}

/*
 * Fills the empty entry tab from row, under the table's lock: the table's
 * current name and its key attributes. An invalidation of the table while
 * this reads the catalogs leaves the entry stale, to be rebuilt next time.
 */
static void
build_entry(StTable *tab, const RegistryRow *row)
{
	MemoryContext cxt;
	MemoryContext old;
	char	   *nsp;

	Assert(tab->cxt == NULL && !tab->valid);
	Assert(row->relid == tab->relid);

	building_relid = tab->relid;
	building_invalidated = false;
	cxt = AllocSetContextCreate(CacheMemoryContext, "singletable table", ALLOCSET_SMALL_SIZES);
	tab->cxt = cxt;
	old = MemoryContextSwitchTo(cxt);
	tab->relname = get_rel_name(tab->relid);
	nsp = get_namespace_name(get_rel_namespace(tab->relid));
	if (tab->relname == NULL || nsp == NULL)
		elog(ERROR, "cache lookup failed for relation %u", tab->relid);
	tab->qualname = quote_qualified_identifier(nsp, tab->relname);
	tab->ddb_name = row->dynamodb_name ? pstrdup(row->dynamodb_name) : tab->relname;
	tab->pk_name = pstrdup(row->pk_name);
	tab->pk_type = row->pk_type;
	tab->sk_name = row->sk_name ? pstrdup(row->sk_name) : NULL;
	tab->sk_type = row->sk_type;
	MemoryContextSwitchTo(old);
	/* the registries' rows, read in an SPI connection of its own, kept in tab->cxt */
	SPI_connect();
	st_indexes_load(tab);
	st_ttl_load(tab);
	st_entities_load(tab);
	/* Citus invalidates the table's relcache entry when it distributes it */
	tab->distributed = st_table_distribution(tab) != (Datum) 0;
	tab->citus = tab->distributed || st_citus_table(tab->relid);
	SPI_finish();
	/* valid only if nothing invalidated the table while its name was read */
	tab->valid = !building_invalidated;
	building_relid = InvalidOid;
}

/*
 * Finds the item-collection table named by name and its cached description,
 * after checking that the caller has the rights required (ACL_* bits, all
 * of them, or ST_ACL_OWNER), and then locks it in lockmode. Needs no SPI
 * connection: a table not cached (or stale) is read in one of its own.
 */
StTable *
st_table_open(text *name, LOCKMODE lockmode, AclMode required)
{
	return open_rangevar(st_name_to_rangevar(name), name, lockmode, required);
}

/*
 * st_table_open of table relname in schema schemaname, the names as they
 * are (not SQL text to parse): what st_table_open of their
 * quote_qualified_identifier does, without building and parsing that text.
 */
StTable *
st_table_open_in(const char *schemaname, const char *relname, LOCKMODE lockmode, AclMode required)
{
	return open_rangevar(makeRangeVar(pstrdup(schemaname), pstrdup(relname), -1), NULL,
						 lockmode, required);
}

/* st_table_open of rv (name: its text for messages, or NULL: made from rv if needed) */
static StTable *
open_rangevar(RangeVar *rv, text *name, LOCKMODE lockmode, AclMode required)
{
	OpenCheck	check;
	Oid			relid;
	StTable    *tab;
	bool		found;

	Assert(required != 0);
	memset(&check, 0, sizeof(check));
	check.name = name;
	check.rv = rv;
	check.required = required;
	relid = RangeVarGetRelidExtended(rv, lockmode, RVR_MISSING_OK, check_table_callback, &check);
	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("table \"%s\" does not exist", text_to_cstring(check_name(&check))),
				 st_errdetail_dynamodb("Requested resource not found: Table: %s not found",
									   text_to_cstring(check_name(&check)))));

	/* locked: invalidations up to now have arrived */
	tab = hash_search(get_cache(), &relid, HASH_ENTER, &found);
	if (found && tab->valid)
		return tab;
	if (found)
		retire_entry(tab);
	else
		memset(((char *) tab) + sizeof(Oid), 0, sizeof(StTable) - sizeof(Oid));
	Assert(tab->relid == relid);

	/* the callback read the row unless a valid entry then went stale since */
	if (check.row.relid != relid && !read_registry_row(relid, &check.row))
		not_singletable_error(check_name(&check), relid);
	build_entry(tab, &check.row);
	return tab;
}

/*
 * The table of a read (ACL_SELECT, ACCESS SHARE): opened, its entry still
 * valid, it is what st_table_open(name, AccessShareLock, ACL_SELECT) would
 * return (the caller opened it so in this transaction, so the rights were
 * checked and the lock is held); else it is opened.
 */
StTable *
st_table_open_read(StTable *opened, text *name)
{
	if (opened != NULL && opened->valid)
		return opened;
	return st_table_open(name, AccessShareLock, ACL_SELECT);
}

/*
 * The cache entry of relid when it is an item-collection table, else NULL,
 * for a caller that already holds a lock on it (the planner, on a relation
 * of the query it plans) and checks no rights: it only reads what the
 * registries, readable by PUBLIC, say of the table.
 */
StTable *
st_table_lookup(Oid relid)
{
	RegistryRow row;
	StTable    *tab = valid_entry(relid);
	bool		found;

	if (tab != NULL)
		return tab;
	memset(&row, 0, sizeof(row));
	if (!read_registry_row(relid, &row))
		return NULL;
	tab = hash_search(get_cache(), &relid, HASH_ENTER, &found);
	if (found && tab->valid)
		return tab;
	if (found)
		retire_entry(tab);
	else
		memset(((char *) tab) + sizeof(Oid), 0, sizeof(StTable) - sizeof(Oid));
	build_entry(tab, &row);
	return tab;
}

/* Invalidates the cached entry of the table a registry row names, in every backend. */
static void
invalidate_registered(HeapTuple tuple, TupleDesc desc)
{
	bool		isnull;
	Datum		d = heap_getattr(tuple, 1, desc, &isnull);

	/* a dropped table (the sql_drop event trigger deletes its row) was invalidated by the drop */
	if (!isnull && SearchSysCacheExists1(RELOID, d))
		CacheInvalidateRelcacheByRelid(DatumGetObjectId(d));
}

PG_FUNCTION_INFO_V1(singletable_registry_changed);

/*
 * singletable.registry_changed(): AFTER trigger on singletable.tables. A
 * change of the registry by plain SQL (its owner may write it) reaches every
 * backend's cache as create_table's own change does; TRUNCATE invalidates
 * every cached table.
 */
Datum
singletable_registry_changed(PG_FUNCTION_ARGS)
{
	TriggerData *trig = (TriggerData *) fcinfo->context;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_AFTER(trig->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("singletable.registry_changed() must be called as an AFTER trigger")));
	if (TRIGGER_FIRED_BY_TRUNCATE(trig->tg_event))
		CacheInvalidateRelcacheAll();
	else
	{
		TupleDesc	desc = RelationGetDescr(trig->tg_relation);

		if (trig->tg_trigtuple)
			invalidate_registered(trig->tg_trigtuple, desc);
		if (TRIGGER_FIRED_BY_UPDATE(trig->tg_event) && trig->tg_newtuple)
			invalidate_registered(trig->tg_newtuple, desc);
	}
	return PointerGetDatum(NULL);
}

/*
 * Runs a statement on a registry table (singletable.<registry>) as that
 * table's owner: callers need not (and should not) have write access to the
 * registries. See create_table for why that is safe.
 */
void
st_registry_execute_as_owner(const char *registry, const char *sql, int nargs, Oid *argtypes,
							 Datum *values, const char *nulls)
{
	Oid			save_userid;
	int			save_sec;
	Oid			regid = RangeVarGetRelid(makeRangeVar("singletable", (char *) registry, -1),
										 RowExclusiveLock, false);
	HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(regid));
	Oid			owner;
	int			rc;

	if (!HeapTupleIsValid(tp))
		elog(ERROR, "cache lookup failed for relation %u", regid);
	owner = ((Form_pg_class) GETSTRUCT(tp))->relowner;
	ReleaseSysCache(tp);

	GetUserIdAndSecContext(&save_userid, &save_sec);
	SetUserIdAndSecContext(owner, save_sec | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	rc = SPI_execute_with_args(sql, nargs, argtypes, values, nulls, false, 0);
	SetUserIdAndSecContext(save_userid, save_sec);
	if (rc < 0)
		elog(ERROR, "updating the singletable registry %s failed: %s", registry,
			 SPI_result_code_string(rc));
}

/*
 * Reads tab's TTL setting into its cache entry (memory in tab->cxt). An
 * installation not yet updated to 0.2.0 has no TTL registry.
 */
void
st_ttl_load(StTable *tab)
{
	Oid			nsp = get_namespace_oid("singletable", true);
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(tab->relid)};
	MemoryContext old;

	if (!OidIsValid(nsp) || !OidIsValid(get_relname_relid("ttl", nsp)))
		return;
	if (SPI_execute_with_args("SELECT attribute_name, ttl_index FROM " ST_TTL_REGISTRY
							  " WHERE table_name OPERATOR(pg_catalog.=) $1",
							  1, argtypes, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "reading the singletable TTL registry failed");
	if (SPI_processed == 0)
		return;
	old = MemoryContextSwitchTo(tab->cxt);
	tab->ttl_attr = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	tab->ttl_index = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
	MemoryContextSwitchTo(old);
	SPI_freetuptable(SPI_tuptable);
}
