/*
 * size.h — DynamoDB's size of an item in the stored form, read straight
 * off its jsonb (src/size.c): the cheap size for every item an operation
 * reads or writes. st_item_size (item.h) is the validating one, for any
 * JSON a user passes.
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_SIZE_H
#define SINGLETABLE_SIZE_H

#include "utils/jsonb.h"

/*
 * DynamoDB's size in bytes of item, a top-level object in the stored form
 * (src/jsonval.c). b_key1 and b_key2 (either may be NULL) name top-level
 * attributes holding B key values as plain base64 strings: the table's B
 * partition and sort key attributes.
 */
extern int64 st_stored_item_size(Jsonb *item, const char *b_key1, const char *b_key2);

#endif
