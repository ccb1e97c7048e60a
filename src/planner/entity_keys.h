/*
 * entity_keys.h — the decoders of entity views' field columns and the
 * planner hook that turns conditions on them into index ranges of the keys
 * (entity_keys.c).
 */
#ifndef SINGLETABLE_ENTITY_KEYS_H
#define SINGLETABLE_ENTITY_KEYS_H

/* Installs the set_rel_pathlist hook (from _PG_init), chained to the previous one */
extern void st_entity_keys_init(void);

#endif
