/*
 * expr.h — DynamoDB's expression language: values, parser, evaluator.
 *
 * Everything under src/expr/ is independent of the PostgreSQL backend: it uses
 * only palloc/StringInfo (available to frontend programs through libpgcommon)
 * and reports errors through st_expr_error(), which the extension implements
 * with ereport() (src/ops/expr_glue.c) and the fuzzer with longjmp
 * (test/fuzz/). So the parser and evaluator can be fuzzed outside a server.
 *
 * Values are a small DOM of DynamoDB's data model (StVal). The extension
 * converts items between jsonb and StVal (src/format/jsonval.c).
 */
#ifndef SINGLETABLE_EXPR_H
#define SINGLETABLE_EXPR_H

#include "st_base.h"

/* ------------------------------------------------------------------ values */

typedef enum StValType
{
	SV_S,
	SV_N,
	SV_B,
	SV_BOOL,
	SV_NULL,
	SV_L,
	SV_M,
	SV_SS,
	SV_NS,
	SV_BS
} StValType;

typedef struct StVal StVal;

typedef struct StMapEntry
{
	const char *key;
	int			keylen;
	StVal	   *val;
} StMapEntry;

struct StVal
{
	StValType	type;
	union
	{
		/* S: UTF-8 bytes; B: raw bytes; N: canonical decimal text */
		struct
		{
			const char *data;
			int			len;
		}			str;
		bool		boolean;
		/* L, and sets (SS/NS/BS: elements S/N/B, sorted, no duplicates) */
		struct
		{
			int			n;
			StVal	  **elems;
		}			list;
		/* M: entries in no particular order, names unique */
		struct
		{
			int			n;
			StMapEntry *entries;
		}			map;
	}			u;
};

extern const char *st_val_type_name(StValType t);
extern bool st_val_equal(const StVal *a, const StVal *b);
extern bool st_val_orderable(const StVal *v);
extern int	st_val_compare(const StVal *a, const StVal *b);	/* same orderable type */
extern int64 st_val_size(const StVal *v);
extern StVal *st_val_map_get(const StVal *map, const char *key, int keylen);
extern StVal *st_val_copy(const StVal *v);
extern StVal *st_val_make_str(StValType t, const char *data, int len);
extern StVal *st_val_make_map(int capacity);
extern void st_val_map_put(StVal *map, const char *key, int keylen, StVal *val);
extern void st_val_map_append(StVal *map, const char *key, int keylen, StVal *val);
extern bool st_val_map_remove(StVal *map, const char *key, int keylen);
extern void st_val_set_normalize(StVal *set, const char *context);
extern bool st_val_is_set(StValType t);

/* ----------------------------------------------------------------- numbers */

#define ST_NUMBER_MAX_DIGITS 38

typedef struct StNumber
{
	char	   *canonical;		/* plain decimal, no exponent, no trailing zeros */
	int			size;			/* DynamoDB's size in bytes */
} StNumber;

typedef enum StNumberError
{
	ST_NUM_OK,
	ST_NUM_SYNTAX,
	ST_NUM_PRECISION,
	ST_NUM_OVERFLOW,
	ST_NUM_UNDERFLOW
} StNumberError;

extern StNumberError st_number_parse(const char *str, int len, StNumber *out);
extern StNumberError st_number_size(const char *str, int len, int *size);
extern StNumberError st_number_size_decomposed(bool neg, int n, int e, int *size);
extern const char *st_number_error_text(StNumberError e);
extern int	st_number_compare(const char *a, int alen, const char *b, int blen);
extern StNumberError st_number_add(const char *a, int alen, const char *b, int blen,
								   bool subtract, StNumber *out);

/* ------------------------------------------------------------------ errors */

typedef enum StExprErrorKind
{
	ST_ERR_SYNTAX,				/* malformed expression: syntax_error */
	ST_ERR_VALIDATION,			/* well-formed but invalid: invalid_parameter_value */
	ST_ERR_LIMIT,				/* a DynamoDB limit: program_limit_exceeded */
	ST_ERR_RUNTIME,				/* invalid for this item: invalid_parameter_value */
	ST_ERR_NUMBER_RANGE			/* arithmetic left DynamoDB's number range:
								 * numeric_value_out_of_range */
} StExprErrorKind;

/*
 * Reports an error and does not return. detail may be NULL. Implemented by
 * the extension (ereport) and by the fuzzer (longjmp).
 */
extern void st_expr_error(StExprErrorKind kind, const char *detail, const char *fmt,...)
			pg_attribute_printf(3, 4) pg_attribute_noreturn();

/* -------------------------------------------------------------- the syntax */

/* One element of a document path: a map key or a list index */
typedef struct StPathElem
{
	bool		is_index;
	int			index;
	const char *name;
	int			namelen;
} StPathElem;

typedef struct StPath
{
	int			n;
	StPathElem *elems;
	int			pos;			/* byte offset in the expression */
} StPath;

typedef enum StNodeKind
{
	/* operands */
	SN_PATH,
	SN_VALUE,
	SN_SIZE,
	/* update values */
	SN_IF_NOT_EXISTS,
	SN_LIST_APPEND,
	SN_PLUS,
	SN_MINUS,
	/* conditions */
	SN_CMP,
	SN_BETWEEN,
	SN_IN,
	SN_AND,
	SN_OR,
	SN_NOT,
	SN_ATTRIBUTE_EXISTS,
	SN_ATTRIBUTE_NOT_EXISTS,
	SN_ATTRIBUTE_TYPE,
	SN_BEGINS_WITH,
	SN_CONTAINS
} StNodeKind;

typedef enum StCmpOp
{
	SC_EQ,
	SC_NE,
	SC_LT,
	SC_LE,
	SC_GT,
	SC_GE
} StCmpOp;

typedef struct StNode StNode;

struct StNode
{
	StNodeKind	kind;
	StCmpOp		op;				/* SN_CMP */
	int			pos;			/* byte offset in the expression */
	bool		parenthesized;	/* written as ( condition ) */
	StPath	   *path;			/* SN_PATH */
	const StVal *value;			/* SN_VALUE */
	const char *value_name;		/* SN_VALUE: the placeholder, for messages */
	int			nargs;
	StNode	  **args;
};

typedef enum StUpdateKind
{
	SU_SET,
	SU_REMOVE,
	SU_ADD,
	SU_DELETE
} StUpdateKind;

typedef struct StUpdateAction
{
	StUpdateKind kind;
	StPath	   *path;
	StNode	   *value;			/* SET: the value; ADD/DELETE: the :value */
} StUpdateAction;

typedef struct StUpdate
{
	int			n;
	StUpdateAction *actions;
} StUpdate;

typedef struct StProjection
{
	int			n;
	StPath	  **paths;
} StProjection;

/*
 * The placeholders of one call, shared by all its expressions so that
 * unused ones can be reported across them, as DynamoDB does.
 */
#define ST_EXPR_MAX_KEYS 8

typedef struct StExprEnv
{
	int			nnames;
	const char **name_keys;		/* "#n" */
	const char **name_values;	/* the attribute name it stands for */
	int		   *name_lens;
	bool	   *name_used;
	int			nvalues;
	const char **value_keys;	/* ":v" */
	const StVal **values;
	bool	   *value_used;
	/*
	 * the table's key attributes (key_names[1] NULL without a sort key):
	 * updates must not touch them, no path may go into them, and a query's
	 * filter must not read them; for the filter of a query on a secondary
	 * index, the index's key attributes (up to ST_EXPR_MAX_KEYS, unused
	 * entries NULL)
	 */
	const char *key_names[ST_EXPR_MAX_KEYS];
} StExprEnv;

/*
 * Which expression is being parsed, for messages ("Invalid UpdateExpression:
 * ...") and for the rules that depend on it. SE_QUERY_FILTER is the filter
 * of a Query, which DynamoDB forbids to read key attributes; SE_FILTER (a
 * Scan's filter) may read them. SE_KEY_CONDITION is a Query's
 * KeyConditionExpression: parsed as a condition, its shape is checked by
 * the caller (src/keycond.c).
 */
typedef enum StExprKind
{
	SE_CONDITION,
	SE_FILTER,
	SE_QUERY_FILTER,
	SE_UPDATE,
	SE_PROJECTION,
	SE_KEY_CONDITION
} StExprKind;

#define ST_MAX_EXPRESSION_BYTES 4096
#define ST_MAX_OPERATORS 300
#define ST_MAX_IN_OPERANDS 100
#define ST_MAX_PLACEHOLDER_BYTES 255
#define ST_MAX_DEPTH 32

extern const char *st_expr_kind_name(StExprKind kind);
extern StNode *st_parse_condition(const char *expr, StExprKind kind, StExprEnv *env);
extern StUpdate *st_parse_update(const char *expr, StExprEnv *env);
extern StProjection *st_parse_projection(const char *expr, StExprEnv *env);
extern void st_expr_check_unused(StExprEnv *env);
extern bool st_is_reserved_word(const char *word, int len);
extern char *st_path_to_string(const StPath *path);

/* --------------------------------------------------------------- evaluation */

extern bool st_eval_condition(const StNode *cond, const StVal *item);
extern StVal *st_apply_update(const StUpdate *upd, const StVal *item);
extern StProjection *st_update_paths(const StUpdate *upd);
extern StVal *st_project(const StProjection *proj, const StVal *item);
extern StVal *st_path_get(const StVal *item, const StPath *path);

/* top-level attribute names an expression reads (to convert only those) */
extern void st_expr_collect_top_names(const StNode *node, const char ***names, int **lens,
									  int *n, int *cap);

#endif
