/*
 * attrval.h — DynamoDB's wire AttributeValues ({"S": "x"}, {"N": "17"}, ...)
 * to and from the extension's stored form of items (src/jsonval.c): the one
 * converter of the JSON API (singletable.dynamodb, src/dynamodb.c).
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_ATTRVAL_H
#define SINGLETABLE_ATTRVAL_H

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "expr/expr.h"
#include "format/keys.h"
#include "ops/ops.h"

/* A table's key schema, as the converter needs it (its B keys are plain base64 when stored) */
typedef struct StAttrKeys
{
	const char *pk_name;
	StKeyType	pk_type;
	const char *sk_name;		/* NULL: no sort key */
	StKeyType	sk_type;
} StAttrKeys;

/* What a map of AttributeValues is, for DynamoDB's messages */
typedef enum StAttrParam
{
	ST_AV_ITEM,					/* Item of PutItem */
	ST_AV_KEY,					/* Key, ExclusiveStartKey */
	ST_AV_VALUES				/* ExpressionAttributeValues */
} StAttrParam;

/*
 * A map of wire AttributeValues (a jsonb object) in stored form. With keys,
 * the table's key attributes must have the key's type (Item: DynamoDB's
 * type mismatch message; Key: "does not match the schema") and B keys are
 * stored as plain base64.
 */
extern Jsonb *st_attrval_map_to_stored(JsonbValue *map, StAttrParam param, const StAttrKeys *keys);

/* One wire AttributeValue as a value (depth: its nesting level, 1 at the top) */
extern StVal *st_attrval_to_val(JsonbValue *av, StAttrParam param, int depth);

/*
 * A Key map (exactly the table's key attributes, of their types) as the
 * key texts of the operations layer.
 */
extern void st_attrval_key(JsonbValue *map, const StAttrKeys *keys, StKeyText *pk, StKeyText *sk);

/*
 * A stored item (or attribute map) in wire form: a new jsonb, written as a
 * container into buf (src/jsonbw.h; returns its JEntry), appended to buf as
 * JSON text (st_attrval_text_stored: the same wire value, compact, strings
 * escaped as escape_json does), or pushed as tok into *st. Writing an item
 * into buf with size not NULL adds its DynamoDB size (st_stored_item_size's,
 * and its errors) to *size on the way.
 */
extern Jsonb *st_attrval_from_stored(Jsonb *stored, const StAttrKeys *keys);
extern JEntry st_attrval_write_stored(StringInfo buf, JsonbContainer *stored, const StAttrKeys *keys,
									  int64 *size);
extern void st_attrval_text_stored(StringInfo buf, JsonbContainer *stored, const StAttrKeys *keys,
								   int64 *size);
extern JsonbValue *st_attrval_push_stored(JsonbParseState **st, JsonbIteratorToken tok,
										  JsonbContainer *stored, const StAttrKeys *keys);

/* Raises SerializationException for a JSON value of the wrong type (expected: "String", ...) */
extern void st_attrval_serialization_error(JsonbValue *v, const char *expected) pg_attribute_noreturn();

#endif
