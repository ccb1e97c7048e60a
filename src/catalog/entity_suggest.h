/*
 * entity_suggest.h — the typo guard (singletable.prefix_check): whether a
 * Query's partition key and begins_with prefix can find the items of any
 * entity of the table, and the registered prefixes closest to what was
 * given (bounded Levenshtein distance). Shared by the operations (ops/read.c)
 * and the planner (planner/begins_with.c), which may not call each other.
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_ENTITY_SUGGEST_H
#define SINGLETABLE_ENTITY_SUGGEST_H

#include "lib/stringinfo.h"

#include "catalog/entities.h"
#include "catalog/registry.h"

/* The levels of singletable.entity_check and singletable.prefix_check */
typedef enum StCheckLevel
{
	ST_CHECK_OFF,
	ST_CHECK_WARNING,
	ST_CHECK_ERROR
} StCheckLevel;

/*
 * The SQLSTATEs of the checks' WARNINGs (class 01, subclass E): warnings are
 * no DynamoDB exception, so they are not in utils/errors.tab, which holds
 * the errors (22E01, 22E02).
 */
#define ERRCODE_ST_WARNING_ENTITY_MISMATCH	MAKE_SQLSTATE('0','1','E','0','1')
#define ERRCODE_ST_WARNING_PREFIX_MISMATCH	MAKE_SQLSTATE('0','1','E','0','2')

/* singletable.prefix_check (registered by guc.c) */
extern int	st_prefix_check;

/* Bytes of a key or prefix compared, and suggestions listed, at most */
#define ST_SUGGEST_MAX_BYTES	64
#define ST_SUGGEST_MAX			3

/* Levenshtein distance of the first ST_SUGGEST_MAX_BYTES bytes of a and b */
extern int	st_edit_distance(const char *a, int alen, const char *b, int blen);

/*
 * The distance of a key (or prefix) from a template's type tag: the key cut
 * to the tag's length against the tag; INT_MAX for a template without a tag.
 */
extern int	st_tag_distance(const StTemplate *t, const char *key, int keylen);

/* An entity's template, a candidate for suggestions */
typedef struct StSuggestCand
{
	const StTemplate *t;
	const char *entity;
} StSuggestCand;

/*
 * Appends to buf the up to ST_SUGGEST_MAX distinct type tags of cands
 * closest to key, as "'USER#' (entity User)", joined by ", " and " or ";
 * returns how many.
 */
extern int	st_suggest_tags(StringInfo buf, const StSuggestCand *cands, int n,
							const char *key, int keylen);

/*
 * Appends to buf the text a message may quote of what was given: at most
 * ST_SUGGEST_MAX_BYTES bytes of it, cut at a character, "..." after a cut.
 */
extern void st_suggest_quote(StringInfo buf, const char *s, int len);

/*
 * The typo check of a Query of tab (idx: on that index, NULL: on the table)
 * with partition key value pk (NULL: not known, as at plan time) and
 * begins_with prefix (NULL: none): a WARNING or ERROR by
 * singletable.prefix_check when pk matches no entity's partition key
 * template, or prefix can begin no sort key of an entity whose partition key
 * template pk matches. Nothing on a table without entities, or on an index
 * no entity gives templates for.
 */
extern void st_prefix_check_query(StTable *tab, StIndex *idx, const char *pk, int pklen,
								  const char *prefix, int prefixlen);

#endif
