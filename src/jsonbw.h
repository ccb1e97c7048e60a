/*
 * jsonbw.h — writing a jsonb in its binary form directly, container by
 * container, without the tree of JsonbValues that pushJsonbValue builds and
 * JsonbValueToJsonb then walks again: for the large documents of
 * singletable.dynamodb (a page of items in wire form), see jsonbw.c.
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_JSONBW_H
#define SINGLETABLE_JSONBW_H

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

/* A container being written: its header and JEntries are reserved, its children follow */
typedef struct StJbwContainer
{
	int			base;			/* where it starts in the buffer (before its padding) */
	int			jentries;		/* offset of its JEntry array */
	int			nchildren;		/* JEntries: 2 * pairs of an object, elements of an array */
	int			i;				/* children written */
	int			totallen;		/* their data's length */
} StJbwContainer;

/* A buffer to write a jsonb in (its varlena header reserved) */
extern void st_jbw_init(StringInfo buf);
/* The jsonb written in buf, whose root is the one container written (its JEntry: root) */
extern Jsonb *st_jbw_finish(StringInfo buf);

/*
 * Begins an object of n pairs or an array of n elements. An object's
 * children are its n keys, in jsonb's order (shorter first, then bytewise;
 * no duplicates), then its n values.
 */
extern void st_jbw_begin(StringInfo buf, StJbwContainer *c, bool object, int n);
/* Records the JEntry of the child just written into buf */
extern void st_jbw_child(StringInfo buf, StJbwContainer *c, JEntry child);
/* Ends a container with all its children written; returns its JEntry in its parent */
extern JEntry st_jbw_end(StringInfo buf, StJbwContainer *c);

/* Scalars (a string's bytes as given) and copies of containers; each returns its JEntry */
extern JEntry st_jbw_string(StringInfo buf, const char *s, int len);
extern JEntry st_jbw_value(StringInfo buf, const JsonbValue *v);	/* scalar or jbvBinary */
/* The object {key: v} of one pair whose value is a string, bool or null, in one step */
extern JEntry st_jbw_pair(StringInfo buf, const char *key, int keylen, const JsonbValue *v);

/* A jsonb object of n members in any order (keys: distinct jbvStrings; values: scalars or jbvBinary) */
extern Jsonb *st_jbw_object(int n, const JsonbValue *keys, const JsonbValue *values);

#endif
