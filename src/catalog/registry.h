/*
 * registry.h — item-collection tables as a call sees them: the name resolved
 * with privileges checked before any lock, and the per-backend cache of each
 * table's registry row and kept statements (StTable).
 */
#ifndef SINGLETABLE_REGISTRY_H
#define SINGLETABLE_REGISTRY_H

#include "fmgr.h"
#include "nodes/parsenodes.h"
#include "nodes/primnodes.h"
#include "storage/lockdefs.h"

#include "catalog/indexes.h"
#include "format/keys.h"
#include "catalog/statements.h"

/* The registry of item-collection tables, one row per table, keyed by regclass */
#define ST_REGISTRY "singletable.tables"

/*
 * st_table_open's privilege for DDL: the caller must own the table. A bit
 * above every privilege (ACL_*) and below the grant-option bits.
 */
#define ST_ACL_OWNER ((AclMode) 1 << 15)

/* A cached table: hash entry of the per-backend cache, keyed by the table's OID */
struct StTable
{
	Oid			relid;			/* hash key */
	bool		valid;			/* false once an invalidation arrived */
	MemoryContext cxt;			/* holds the strings below */
	char	   *relname;
	char	   *qualname;		/* quoted schema.table for SQL */
	char	   *ddb_name;		/* DynamoDB's name: relname, or the longer one it stands for */
	char	   *pk_name;
	StKeyType	pk_type;
	char	   *sk_name;		/* NULL for a partition-key-only table */
	StKeyType	sk_type;
	SPIPlanPtr	item_plans[ST_NUM_ITEM_PLANS];
	SPIPlanPtr	query_plans[ST_NUM_SK_OPS][2][2];	/* [op][forward][has start] */
	SPIPlanPtr	scan_plans[ST_NUM_SCAN_FROM][2];	/* [from][has upper bound] */
	SPIPlanPtr	batch_plans[ST_NUM_BATCH_PLANS];	/* batch.c's */
	bool		distributed;	/* a hash-distributed Citus table */
	bool		citus;			/* any Citus table (distributed, reference, local) */
	char	   *ttl_attr;		/* TTL attribute (singletable.ttl), or NULL */
	char	   *ttl_index;		/* its partial index, in the table's schema */
	int			n_indexes;		/* secondary indexes (singletable.indexes) */
	StIndex    *indexes;		/* in cxt, ordered by name */
	int			n_entities;		/* entities (singletable.entities) */
	struct StEntity *entities;	/* in cxt, ordered by name (catalog/entities.h) */
};

extern void st_registry_init(void);
extern RangeVar *st_name_to_rangevar(text *name);
extern StTable *st_table_open(text *name, LOCKMODE lockmode, AclMode required);
extern StTable *st_table_open_in(const char *schemaname, const char *relname,
								 LOCKMODE lockmode, AclMode required);
extern StTable *st_table_open_read(StTable *opened, text *name);
extern StTable *st_table_lookup(Oid relid);
extern bool st_spi_connected(void);
extern StIndex *st_table_index(StTable *tab, const char *name);
extern text *st_table_name_text(Oid relid);

/* in write.c */

/* The registry of TTL settings, one row per table */
#define ST_TTL_REGISTRY "singletable.ttl"

/* Reads tab's TTL setting into its cache entry */
extern void st_ttl_load(StTable *tab);

/* Runs a statement on the registry table singletable.<registry> as its owner */
extern void st_registry_execute_as_owner(const char *registry, const char *sql, int nargs,
										 Oid *argtypes, Datum *values, const char *nulls);

#endif
