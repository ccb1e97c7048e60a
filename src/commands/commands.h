/*
 * commands.h — the DDL as C functions: item-collection tables, their
 * secondary indexes, Time to Live and distribution with Citus.
 *
 * Each function takes C values, where a NULL pointer is an argument not
 * given: a required one raises "<param> must not be NULL" at the point the
 * SQL function has always checked it. It checks its arguments (cheap limits
 * first) and the caller's rights before it takes any lock, runs its
 * statements in its own SPI connection, and returns its result in the
 * caller's memory context. The SQL functions (functions/sql_ddl.c) are thin
 * wrappers that fill these arguments from theirs; the JSON API's control
 * plane (api/dynamodb_tables.c) calls the same functions.
 *
 * Errors follow utils/errors.h. Include after postgres.h.
 */
#ifndef SINGLETABLE_COMMANDS_H
#define SINGLETABLE_COMMANDS_H

#include "nodes/pg_list.h"
#include "utils/array.h"
#include "utils/jsonb.h"
#include "ops/streams.h"			/* StStreamView */

/* create_table (tables.c) */
typedef struct StCreateTableRequest
{
	text	   *table_name;		/* possibly schema-qualified */
	const char *partition_key;
	const char *sort_key;		/* NULL: a table with a partition key only */
	const char *partition_key_type; /* "S", "N" or "B" */
	const char *sort_key_type;	/* required with sort_key */
	const char *dynamodb_name;	/* NULL, or the DynamoDB name over 63 bytes it has */
} StCreateTableRequest;

/* Creates and registers the table, owned by the caller; returns its OID */
extern Oid	st_create_table(const StCreateTableRequest *req);

/* Drops a table the caller owns (the event trigger removes its registry rows) */
extern void st_drop_table(text *table_name);

/* DynamoDB's DescribeTable of a table the caller may read, as jsonb */
extern Jsonb *st_describe_table(text *table_name);

/* create_gsi (indexes.c; with concurrently, the build is index_build.c's) */
typedef struct StCreateGsiRequest
{
	text	   *table_name;
	const char *index_name;
	const char *partition_key;	/* "a", or up to 4 names: "a,b" */
	const char *partition_key_type; /* "S", or one per attribute: "S,N" */
	const char *sort_key;		/* NULL: none; else as partition_key */
	const char *sort_key_type;	/* required with sort_key */
	const char *projection;		/* ALL, KEYS_ONLY or INCLUDE */
	ArrayType  *non_key_attributes; /* text[], given exactly with INCLUDE */
	bool		concurrently;	/* build in a background worker */
} StCreateGsiRequest;

/* create_lsi (indexes.c): the table's partition key, another sort key */
typedef struct StCreateLsiRequest
{
	text	   *table_name;
	const char *index_name;
	const char *sort_key;		/* one attribute */
	const char *sort_key_type;
	const char *projection;
	ArrayType  *non_key_attributes;
} StCreateLsiRequest;

/*
 * Create a secondary index on a table the caller owns; return the
 * PostgreSQL index (InvalidOid for a GSI built concurrently: it does not
 * exist yet).
 */
extern Oid	st_create_gsi(const StCreateGsiRequest *req);
extern Oid	st_create_lsi(const StCreateLsiRequest *req);

/* Drop a secondary index of a table the caller owns */
extern void st_drop_gsi(text *table_name, const char *index_name);
extern void st_drop_lsi(text *table_name, const char *index_name);

/* The plain-SQL SELECT that reads one partition of an index, in index order */
extern char *st_index_sql(text *table_name, const char *index_name);

/* Time to Live of a table the caller owns (ttl.c) */
extern void st_enable_ttl(text *table_name, const char *attribute_name);
extern void st_disable_ttl(text *table_name);

/* distribute_table (distribute.c) */
typedef struct StDistributeRequest
{
	text	   *table_name;
	bool		has_shard_count;	/* false: Citus's default, or the colocation group's */
	int32		shard_count;
} StDistributeRequest;

/* Distributes a table the caller owns with Citus, by its partition key */
extern void st_distribute_table(const StDistributeRequest *req);

/* singletable.distribute_new_tables: create_table and CreateTable distribute what they create */
extern bool st_distribute_new_tables;

/* define_entity (entities.c) */
typedef struct StDefineEntityRequest
{
	text	   *table_name;
	const char *entity;
	const char *pk;				/* the partition key template */
	const char *sk;				/* the sort key template; NULL: none */
	Jsonb	   *indexes;		/* {"GSI1": {"pk": ..., "sk": ...}}, or NULL */
	Jsonb	   *attributes;		/* {"name": "S"}, or NULL */
	bool		replace;		/* change an existing entity */
} StDefineEntityRequest;

/* Registers (or with replace changes) an entity of a table the caller owns */
extern void st_define_entity(const StDefineEntityRequest *req);

/* Removes an entity of a table the caller owns */
extern void st_drop_entity(text *table_name, const char *entity);

/* entity views (entity_views.c) */
struct StTable;

/*
 * Creates one view per entity of a table the caller owns, in schema (NULL:
 * the table's), replacing the ones it made before; returns their OIDs
 */
extern List *st_create_entity_views(text *table_name, const char *schema);

/* Drops the views create_entity_views made of a table the caller owns */
extern void st_drop_entity_views(text *table_name);

/* Re-creates a table's entity views, if it has any, after its entities changed */
extern void st_entity_views_refresh(struct StTable *tab);

/* The view name's suffix of an entity: its name in snake_case */
extern char *st_entity_view_suffix(const char *entity);

/*
 * Streams (streams.c). StStreamView is defined in ops/streams.h.
 *
 * enable: the caller must own the table; wal_level below logical or the
 * library not preloaded: 55000; a Citus table: 0A000; no replication slot
 * or background worker free for a new slot: 53400; a stream already
 * enabled: 22023 (ValidationException "Table already has an enabled stream:
 * TableName: x"). Returns the new stream_id.
 */
extern int32 st_enable_stream(Oid relid, StStreamView view);

/* disable: the caller must own the table; error if no enabled stream */
extern void st_disable_stream(Oid relid);

/*
 * Set by bgw/stream_worker.c under preload: starts this database's stream
 * worker; false when no background worker slot is free
 */
extern bool (*st_stream_start_worker_hook) (void);

#endif
