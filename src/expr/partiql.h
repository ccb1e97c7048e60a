/*
 * partiql.h — DynamoDB's PartiQL statements: a parser into a small syntax
 * tree and a renderer of its conditions, paths and update actions as
 * DynamoDB expressions (text with #name and :value placeholders), so that a
 * statement runs as the request of an existing operation (api/dynamodb_partiql.c).
 *
 * Server-independent like the rest of expr/: palloc, StringInfo and
 * st_expr_error() only. Literals become AttributeValues in wire JSON text
 * ({"S": "..."}); a ? parameter becomes the text of its Parameters entry,
 * which the caller supplies, so the tree holds no placeholders of its own.
 */
#ifndef SINGLETABLE_PARTIQL_H
#define SINGLETABLE_PARTIQL_H

#include "lib/stringinfo.h"

#include "st_base.h"

#define ST_PQL_MAX_DEPTH 32
#define ST_PQL_MAX_BYTES 8192	/* DynamoDB's limit of a statement */

typedef enum StPqlNodeKind
{
	PQ_PATH,
	PQ_VALUE,					/* wire: the AttributeValue's JSON text */
	PQ_MISSING,
	PQ_CMP,						/* op: "=", "<>", "<", "<=", ">", ">=" */
	PQ_BETWEEN,
	PQ_IN,
	PQ_AND,
	PQ_OR,
	PQ_NOT,
	PQ_IS,						/* IS [NOT] MISSING | NULL: is_null, negated */
	PQ_FUNC,					/* name: begins_with, contains, attribute_type, size, ... */
	PQ_PLUS,
	PQ_MINUS
} StPqlNodeKind;

typedef struct StPqlPathElem
{
	bool		is_index;
	int			index;
	char	   *name;
} StPqlPathElem;

typedef struct StPqlNode StPqlNode;

struct StPqlNode
{
	StPqlNodeKind kind;
	const char *op;				/* PQ_CMP */
	const char *name;			/* PQ_FUNC, lower case */
	bool		is_null;		/* PQ_IS */
	bool		negated;		/* PQ_IS */
	int			npath;			/* PQ_PATH */
	StPqlPathElem *path;
	char	   *wire;			/* PQ_VALUE */
	char		type;			/* PQ_VALUE: 'S', 'N', 'B', 'o'ther, 'p'arameter */
	int			nargs;
	StPqlNode **args;
};

typedef enum StPqlKind
{
	PQL_SELECT,
	PQL_INSERT,
	PQL_UPDATE,
	PQL_DELETE,
	PQL_EXISTS					/* EXISTS(SELECT ...), in ExecuteTransaction */
} StPqlKind;

typedef struct StPqlAction
{
	bool		remove;			/* REMOVE path; else SET path = value */
	StPqlNode  *path;
	StPqlNode  *value;
} StPqlAction;

typedef struct StPqlStatement
{
	StPqlKind	kind;
	char	   *table;
	char	   *index;			/* SELECT FROM "t"."index", or NULL */
	int			nproj;			/* 0: SELECT * */
	StPqlNode **proj;
	StPqlNode  *where;			/* NULL: none */
	StPqlNode  *order_by;		/* a path, or NULL */
	bool		order_desc;
	char	   *item;			/* INSERT: the map's wire JSON text ({"M": {...}}) */
	char	   *item_members;	/* INSERT: its members' text, {"a": {...}, ...} */
	int			nactions;		/* UPDATE */
	StPqlAction *actions;
	const char *returning;		/* ALL_OLD, ALL_NEW, UPDATED_OLD, UPDATED_NEW or NULL */
	int			nparams;		/* the ? used */
} StPqlStatement;

/*
 * Parses statement (len bytes); params[i] is the wire JSON text of the i-th
 * Parameters entry. A statement with more ? than nparams is a
 * ValidationException in DynamoDB's words.
 */
extern StPqlStatement *st_pql_parse(const char *statement, int len,
									char **params, char *param_types, int nparams);

/* The placeholders a rendering collects: "#pN" names, ":pN" values */
typedef struct StPqlRender
{
	StringInfoData names;		/* "\"#p0\": \"a\", ..." (no braces) */
	StringInfoData values;		/* "\":p0\": {...}, ..." */
	int			nnames;
	int			nvalues;
} StPqlRender;

extern void st_pql_render_init(StPqlRender *r);
/* appends node as a DynamoDB condition (or operand) expression */
extern void st_pql_render(StPqlRender *r, StringInfo out, const StPqlNode *node);
/* the UpdateExpression of an UPDATE's actions */
extern void st_pql_render_update(StPqlRender *r, StringInfo out, const StPqlStatement *s);

/* appends s as a JSON string (quotes included) */
extern void st_pql_json_string(StringInfo out, const char *s, int len);

/* node is a path of one name (a top-level attribute): that name, else NULL */
extern const char *st_pql_top_name(const StPqlNode *node);

#endif
