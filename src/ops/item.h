/*
 * item.h — items: validation against their table, DynamoDB's size rules,
 * key extraction, and the stored jsonb form.
 */
#ifndef SINGLETABLE_ITEM_H
#define SINGLETABLE_ITEM_H

#include "utils/jsonb.h"

#include "expr/expr.h"
#include "format/keys.h"
#include "catalog/registry.h"

/* An item checked against its table, ready to be written */
typedef struct StItem
{
	Jsonb	   *jsonb;			/* the stored form */
	StVal	   *val;			/* the item as a value (M) */
	StKey		pk;
	StKey		sk;				/* unset when the table has no sort key */
	int64		size;			/* DynamoDB item size in bytes */
} StItem;

extern void st_item_prepare(StTable *tab, Jsonb *item, StItem *out);
extern void st_item_from_val(StTable *tab, StVal *val, Jsonb *stored_form, bool is_update,
							 StItem *out);
extern StVal *st_key_to_val(StKeyType t, const StKey *k);
extern int64 st_item_size(Jsonb *item);

#endif
