/*
 * template.h — key templates of entities: 'TENANT#{tenantId}',
 * 'POST#{postId:int(4)}', 'PROFILE'. Parsing, matching a key against a
 * template (and reading its fields), composing a key from field values, and
 * the rules of the field types.
 *
 * A template is literal text and fields {name} or {name:type}; "{{" and "}}"
 * are a literal brace. Types: string (the default), int(N) (exactly N digits,
 * zero-padded), int (digits), date (YYYY-MM-DD), timestamp (ISO-8601 in UTC,
 * YYYY-MM-DDTHH:MM, optional :SS and fraction, an optional Z), uuid (36
 * characters, lower-case hex). Each field is followed by literal text or
 * ends the template; two fields in a row are refused (where would one end?).
 *
 * Matching reads fields left to right without backtracking: a string or int
 * field runs to the first occurrence of the literal after it (to the end
 * for the last field), a date, timestamp or uuid field takes exactly what
 * its syntax allows. A field is never empty.
 */
#ifndef SINGLETABLE_TEMPLATE_H
#define SINGLETABLE_TEMPLATE_H

#include "postgres_ext.h"

typedef enum StFieldType
{
	ST_FIELD_STRING,
	ST_FIELD_INT,				/* width 0: any number of digits; N: exactly N */
	ST_FIELD_DATE,
	ST_FIELD_TIMESTAMP,
	ST_FIELD_UUID
} StFieldType;

typedef struct StTemplatePart
{
	bool		is_field;
	char	   *text;			/* the literal (unescaped), or the field's name */
	int			len;			/* strlen(text) */
	StFieldType type;			/* a field's */
	int			width;			/* int(N)'s N, else 0 */
} StTemplatePart;

typedef struct StTemplate
{
	char	   *source;			/* as given */
	int			nparts;
	StTemplatePart *parts;
	int			nfields;
	char	   *prefix;			/* the literal text before the first field (all of a constant) */
	int			prefix_len;
} StTemplate;

/* Longest template, and most fields in one */
#define ST_TEMPLATE_MAX_BYTES	1024
#define ST_TEMPLATE_MAX_FIELDS	16

/*
 * Parses src; an error names what ("the sort key template of entity
 * \"User\"") and says what is wrong. Allocates in the current context.
 */
extern StTemplate *st_template_parse(const char *src, const char *what);

/* Whether the template has no field (a constant key, 'PROFILE') */
#define st_template_is_constant(t) ((t)->nfields == 0)

/*
 * Whether key (len bytes) matches t. With values non-NULL, the fields'
 * values are returned there (t->nfields palloc'd strings) on a match.
 */
extern bool st_template_match(const StTemplate *t, const char *key, int len, char **values);

/*
 * Whether key (len bytes) has t's literal text where t has it, every field
 * read as a string field (to the next literal, or to the end); on such a
 * match *bad_field is the number (0-based) of the first field whose value
 * is not valid for its type, or -1 when all are (st_template_match would
 * then match too, unless a field's own syntax reads another length).
 */
extern bool st_template_match_loose(const StTemplate *t, const char *key, int len, int *bad_field);

/*
 * Whether key could be the beginning of a key t matches (a begins_with
 * prefix that can find t's items).
 */
extern bool st_template_prefix_possible(const StTemplate *t, const char *key, int len);

/* Whether v (len bytes) is a valid value of a field of type/width */
extern bool st_field_value_valid(StFieldType type, int width, const char *v, int len);

/* The type as a template writes it: "string", "int(4)", "date" ... (palloc'd) */
extern char *st_field_type_text(StFieldType type, int width);

/* The field numbered i (0-based among the fields) of t */
extern const StTemplatePart *st_template_field(const StTemplate *t, int i);

/* The index of the field named name in t, or -1 */
extern int	st_template_field_index(const StTemplate *t, const char *name);

/*
 * The key t makes of the fields' values (t->nfields strings, already
 * valid); palloc'd.
 */
extern char *st_template_compose(const StTemplate *t, char *const *values);

/*
 * The delimiter t's type tag ends with: the last character of its prefix
 * when that is punctuation ('#', ':', '|', '_' ...), else '\0'.
 */
extern char st_template_delimiter(const StTemplate *t);

/*
 * Typed values of fields (entity views, src/planner/entity_keys.c). The SQL
 * type of a field: text, bigint (int, int(N)), date, timestamptz, uuid.
 */
extern Oid	st_field_sql_type(StFieldType type);

/*
 * Decodes a field's text (len bytes, valid for the type) into *out, strictly:
 * false unless the text is the one st_field_encode writes for that value, so
 * that equal values have equal texts (an int without leading zeros, a uuid
 * in lower case, a year from 1 to 9999); a timestamp may have any accepted
 * form but no leap second, its fraction truncated to microseconds.
 */
extern bool st_field_decode(StFieldType type, int width, const char *v, int len, Datum *out);

/*
 * The text of a value (of st_field_sql_type) in a field of type/width, or
 * NULL when it has none (a negative int, wider than width, a date or time
 * outside years 1 to 9999). A timestamp is written YYYY-MM-DDTHH:MM:SSZ,
 * with .ffffff before the Z when it has a fraction of a second. palloc'd.
 */
extern char *st_field_encode(StFieldType type, int width, Datum value);

/*
 * Where a value lies against the values a field of type/width can hold:
 * -1 below all (a negative int, before year 1), 1 above all (wider than
 * width, after year 9999), 0 within.
 */
extern int	st_field_value_domain(StFieldType type, int width, Datum value);

/*
 * The delimiters a key's type tag may end with, and the length of key's tag:
 * up to and including its first delimiter; 0 when it has none. What the
 * inventory groups by and the typo check names.
 */
#define ST_KEY_DELIMITERS "#:|"
extern int	st_key_tag_length(const char *key, int len);

#endif
