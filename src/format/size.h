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

/*
 * The rules of its leaves, for a walk that sizes a stored item on its way
 * (the wire writer, src/attrval.c): the decoded length of stored base64
 * text, and the size of a number from the text numeric_out gives it. Both
 * refuse what is not in the stored form, as st_stored_item_size does, with
 * st_size_not_stored (what: how it is not).
 */
extern int64 st_size_base64(const char *s, uint32 len);
extern int64 st_size_number_text(const char *s, int len);
extern void st_size_not_stored(const char *what) pg_attribute_noreturn();

#endif
