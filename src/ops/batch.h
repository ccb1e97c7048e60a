/*
 * batch.h — DynamoDB's BatchGetItem and BatchWriteItem as operations of the
 * operations layer (see ops.h): singletable.batch_get and
 * singletable.batch_write are thin wrappers over these (src/batch.c).
 *
 * A request is DynamoDB's RequestItems document in the extension's JSON
 * form (items and keys as put_item and exclusive_start_key take them); the
 * result is DynamoDB's response document, in the caller's memory context.
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_BATCH_H
#define SINGLETABLE_BATCH_H

#include "utils/jsonb.h"

/* DynamoDB's limits of a batch */
#define ST_BATCH_GET_MAX_KEYS			100
#define ST_BATCH_WRITE_MAX_REQUESTS		25
#define ST_BATCH_GET_MAX_RESPONSE_BYTES	(16 * 1024 * 1024)

/* {"Responses": {...}, "UnprocessedKeys": {...}, "ConsumedCapacity": [...]} */
extern Jsonb *st_op_batch_get(Jsonb *request_items);

/* {"UnprocessedItems": {...}, "ConsumedCapacity": [...]} */
extern Jsonb *st_op_batch_write(Jsonb *request_items);

#endif
