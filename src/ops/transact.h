/*
 * transact.h — DynamoDB's transactions in the operations layer:
 * TransactWriteItems and TransactGetItems (transact.c), with the same
 * request shapes as DynamoDB's (values in the extension's JSON form).
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_TRANSACT_H
#define SINGLETABLE_TRANSACT_H

#include "utils/jsonb.h"

/* DynamoDB's limits: actions per transaction, aggregate size of their items */
#define ST_TRANSACT_MAX_ACTIONS	100
#define ST_TRANSACT_MAX_BYTES	(4 * 1024 * 1024)

/*
 * TransactWriteItems: every action (Put, Update, Delete, ConditionCheck) or
 * none; token (len bytes; NULL: none) is the ClientRequestToken. Returns
 * the response, {"ConsumedCapacity": [...]} ({} with track_capacity off),
 * in the caller's memory. A failed condition or an action invalid for its
 * item raises TransactionCanceled (23S02); the reasons, with the items
 * asked for, are then st_cancellation_reasons().
 */
extern Jsonb *st_op_transact_write(Jsonb *transact_items, const char *token, int token_len);

/* TransactGetItems: {"Responses": [...], "ConsumedCapacity": [...]}, from one snapshot */
extern Jsonb *st_op_transact_get(Jsonb *transact_items);

/*
 * The CancellationReasons of this session's last transact_write, if it was
 * cancelled and made by the current role, with the items of failed
 * conditions that asked for them; else NULL
 */
extern Jsonb *st_cancellation_reasons(void);

#endif
