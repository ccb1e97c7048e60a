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
/* Ends a container with all its children written; returns its JEntry in its parent */
extern JEntry st_jbw_end(StringInfo buf, StJbwContainer *c);

/*
 * The first n children of the stored container src, copied unchanged as the
 * first children of c (none written yet); returns their data's length.
 */
extern int	st_jbw_copy_children(StringInfo buf, StJbwContainer *c, const JsonbContainer *src, int n);

/* Scalars and copies of containers; each returns its JEntry */
extern JEntry st_jbw_value(StringInfo buf, const JsonbValue *v);	/* scalar or jbvBinary */
/* The object {key: true|false} of one pair, in one step (strings: st_jbw_typed_string) */
extern JEntry st_jbw_bool_pair(StringInfo buf, const char *key, int keylen, bool value);

/* A jsonb object of n members in any order (keys: distinct jbvStrings; values: scalars or jbvBinary) */
extern Jsonb *st_jbw_object(int n, const JsonbValue *keys, const JsonbValue *values);

/*
 * Children written elsewhere, one after the other from a 4-byte aligned
 * offset of their buffer: their data and their JEntries
 */
typedef struct StJbwChildren
{
	const char *data;
	int			len;
	const JEntry *entries;
	int			n;
} StJbwChildren;

/* The array of those children, their data copied in one step; returns its JEntry */
extern JEntry st_jbw_array(StringInfo buf, const StJbwChildren *children);

/*
 * st_jbw_object whose member array_at (when not -1) has the array of array
 * as its value (values[array_at] is not read): a page's items are copied
 * once, into the response, not into an array first.
 */
extern Jsonb *st_jbw_object_array(int n, const JsonbValue *keys, const JsonbValue *values, int array_at,
								  const StJbwChildren *array);

/*
 * The calls made for every value of a page, inline: appending bytes, a
 * string, and recording a child's JEntry.
 */
extern void st_jbw_size_error(void) pg_attribute_noreturn();

/* Appends len bytes (appendBinaryStringInfo without its call when they fit) */
static inline void
st_jbw_append(StringInfo buf, const void *data, int len)
{
	if (buf->len + len >= buf->maxlen)
		enlargeStringInfo(buf, len);
	memcpy(buf->data + buf->len, data, len);
	buf->len += len;
	buf->data[buf->len] = '\0';
}

/* A string's bytes as given */
static inline JEntry
st_jbw_string(StringInfo buf, const char *s, int len)
{
	st_jbw_append(buf, s, len);
	return JENTRY_ISSTRING | len;
}

/* Records the JEntry of the child just written into buf */
static inline void
st_jbw_child(StringInfo buf, StJbwContainer *c, JEntry child)
{
	Assert(c->i < c->nchildren);
	c->totallen += JBE_OFFLENFLD(child);
	if (c->totallen > JENTRY_OFFLENMASK)
		st_jbw_size_error();
	/* every JB_OFFSET_STRIDE'th child stores its end offset (jsonb_util.c) */
	if ((c->i % JB_OFFSET_STRIDE) == 0)
		child = (child & JENTRY_TYPEMASK) | c->totallen | JENTRY_HAS_OFF;
	memcpy(buf->data + c->jentries + sizeof(JEntry) * c->i, &child, sizeof(JEntry));
	c->i++;
}

/*
 * The object {"<t>": s} of a one-letter key t and a string s (an S, N or B
 * on the wire), written in one step: padding, header, the two JEntries (the
 * key's an end offset, as the first child of every container stores), the
 * key's letter, the string. The value written the most in a response.
 */
static inline JEntry
st_jbw_typed_string(StringInfo buf, char t, const char *s, int len)
{
	int			padlen = INTALIGN(buf->len) - buf->len;
	int			total = padlen + (int) (sizeof(uint32) + 2 * sizeof(JEntry)) + 1 + len;
	uint32		head[3];
	char	   *p;
	static const uint32 zero = 0;

	if (total > (int) JENTRY_OFFLENMASK)
		st_jbw_size_error();
	if (buf->len + total >= buf->maxlen)
		enlargeStringInfo(buf, total);
	head[0] = 1 | JB_FOBJECT;
	head[1] = JENTRY_ISSTRING | JENTRY_HAS_OFF | 1;
	head[2] = JENTRY_ISSTRING | (uint32) len;
	p = buf->data + buf->len;
	/* the padding (0 to 3 bytes) as one store; the header overwrites the rest */
	memcpy(p, &zero, sizeof(uint32));
	p += padlen;
	memcpy(p, head, sizeof(head));
	p[sizeof(head)] = t;
	memcpy(p + sizeof(head) + 1, s, len);
	buf->len += total;
	buf->data[buf->len] = '\0';
	return JENTRY_ISCONTAINER | (uint32) total;
}

#endif
