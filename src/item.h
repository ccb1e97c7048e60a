/*
 * item.h — items as jsonb objects: validation, DynamoDB's size rules, key
 * extraction and canonical numbers.
 */
#ifndef SINGLETABLE_ITEM_H
#define SINGLETABLE_ITEM_H

#include "utils/jsonb.h"

#include "keys.h"
#include "registry.h"

/* An item checked against its table, ready to be written */
typedef struct StItem
{
	Jsonb	   *jsonb;			/* the item to store (numbers canonical) */
	StKey		pk;
	StKey		sk;				/* unset when the table has no sort key */
	int64		size;			/* DynamoDB item size in bytes */
} StItem;

extern void st_item_prepare(StTable *tab, Jsonb *item, StItem *out);

#endif
