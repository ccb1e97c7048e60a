/*
 * entity_check.h — the write guard (singletable.entity_check): an item a
 * put, update, batch or transaction writes, checked against the entities of
 * its table before anything is written. Include after postgres.h.
 */
#ifndef SINGLETABLE_ENTITY_CHECK_H
#define SINGLETABLE_ENTITY_CHECK_H

#include "expr/expr.h"
#include "format/keys.h"
#include "catalog/registry.h"

/* singletable.entity_check: an StCheckLevel (catalog/entity_suggest.h); registered by guc.c */
extern int	st_entity_check;

/*
 * Checks the item val of keys pk and sk (NULL without a sort key) for table
 * tab, which has entities: its keys match an entity's templates, the fields
 * are of their types, its declared attributes of their types, the index key
 * attributes it carries match the entity's index templates. A WARNING or an
 * ERROR by singletable.entity_check, naming the table, entity, field or
 * template and never the item's content.
 */
extern void st_entity_check_item(StTable *tab, const StVal *val, const StKey *pk, const StKey *sk);

/* Whether st_entity_check_item has anything to do for tab: the cheap test first */
#define st_entity_check_wanted(tab) \
	((tab)->n_entities > 0 && st_entity_check != 0 && (tab)->pk_type == ST_KEY_S)

#endif
