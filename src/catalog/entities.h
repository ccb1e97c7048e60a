/*
 * entities.h — the entities of an item-collection table as a call sees them:
 * rows of the registry singletable.entities, with their key templates
 * parsed, kept in the table's cache entry (StTable.entities), and the
 * matching of a key to its entity.
 */
#ifndef SINGLETABLE_ENTITIES_H
#define SINGLETABLE_ENTITIES_H

#include "format/template.h"

typedef struct StTable StTable;

/* The registry of entities, one row per (table, entity) */
#define ST_ENTITY_REGISTRY "singletable.entities"

/* An entity's key templates for one secondary index */
typedef struct StEntityIndex
{
	char	   *index_name;
	StTemplate *pk;				/* NULL: not given (an LSI shares the table's) */
	StTemplate *sk;				/* NULL: not given */
} StEntityIndex;

/* A declared attribute: its name and DynamoDB type (S, N, B, BOOL, NULL, M, L, SS, NS, BS) */
typedef struct StEntityAttr
{
	char	   *name;
	char	   *type;
} StEntityAttr;

typedef struct StEntity
{
	char	   *name;
	StTemplate *pk;
	StTemplate *sk;				/* NULL on a table without a sort key */
	int			n_indexes;
	StEntityIndex *indexes;
	int			n_attrs;
	StEntityAttr *attrs;
} StEntity;

/*
 * Reads the entities of tab into the array *out (allocated in cxt), ordered
 * by name; returns their number. read_only: in the caller's snapshot (the
 * cache); false: a new one (a check that must see rows committed up to its
 * lock). Needs an SPI connection.
 */
extern int	st_entities_read(StTable *tab, MemoryContext cxt, bool read_only, StEntity **out);

/* Loads tab's entities into its cache entry (from build_entry) */
extern void st_entities_load(StTable *tab);

/* The entity named name of tab, or NULL */
extern StEntity *st_entity_find(StTable *tab, const char *name);

/*
 * The first entity (by name) whose key templates the keys match, or NULL.
 * sk is NULL on a table without a sort key.
 */
extern StEntity *st_entity_match(StTable *tab, const char *pk, int pklen,
								 const char *sk, int sklen);

/* The entity's templates for index index_name, or NULL */
extern StEntityIndex *st_entity_index(StEntity *e, const char *index_name);

/* Whether a DynamoDB type name is one an attribute may be declared with */
extern bool st_entity_attr_type_valid(const char *type);

#endif
