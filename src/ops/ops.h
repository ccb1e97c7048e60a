/*
 * ops.h — the operations layer: DynamoDB's item operations as C functions.
 *
 * Each operation takes a request struct and no FunctionCallInfo. It
 * validates the request, opens the table with the rights it needs (checked
 * before any lock is taken), runs its statements in its own SPI connection
 * and returns its result in the caller's memory context. The SQL functions
 * (src/sql_items.c) are thin wrappers that fill a request from their
 * arguments; batches, transactions, the JSON API and the TTL worker call the
 * same functions.
 *
 * Design notes: the section on ops.h in README.md of this folder.
 */
#ifndef SINGLETABLE_OPS_H
#define SINGLETABLE_OPS_H

#include "access/htup.h"
#include "access/tupdesc.h"
#include "executor/tuptable.h"
#include "utils/jsonb.h"

#include "catalog/registry.h"

/* A key value as text (S as is, N as decimal text, B as base64); data NULL = not given */
typedef struct StKeyText
{
	const char *data;
	int			len;
} StKeyText;

/* DynamoDB's ReturnValues */
typedef enum StReturnValues
{
	ST_RV_NONE,
	ST_RV_ALL_OLD,
	ST_RV_UPDATED_OLD,
	ST_RV_ALL_NEW,
	ST_RV_UPDATED_NEW
} StReturnValues;

/* Expressions and their placeholders; NULL members are absent */
typedef struct StExprText
{
	const char *condition;		/* ConditionExpression (writes) */
	Jsonb	   *names;			/* ExpressionAttributeNames {"#n": "name"} */
	Jsonb	   *vals;			/* ExpressionAttributeValues {":v": value} */
} StExprText;

typedef struct StPutRequest
{
	text	   *table_name;
	Jsonb	   *item;
	StExprText	expr;
	StReturnValues return_values;	/* NONE or ALL_OLD */
	bool		return_old_on_failure;
} StPutRequest;

typedef struct StGetRequest
{
	text	   *table_name;
	StKeyText	pk;
	StKeyText	sk;
	const char *projection;
	Jsonb	   *names;
	bool		include_expired;	/* also an item its TTL has expired */
	int			consistent_read;	/* ConsistentRead: 1, 0, or -1 (not given) */
	StTable    *tab;			/* table_name as the caller opened it, or NULL */
} StGetRequest;

typedef struct StDeleteRequest
{
	text	   *table_name;
	StKeyText	pk;
	StKeyText	sk;
	StExprText	expr;
	StReturnValues return_values;	/* NONE or ALL_OLD */
	bool		return_old_on_failure;
} StDeleteRequest;

typedef struct StUpdateRequest
{
	text	   *table_name;
	StKeyText	pk;
	StKeyText	sk;
	const char *update;			/* UpdateExpression */
	StExprText	expr;
	StReturnValues return_values;
	bool		return_old_on_failure;
} StUpdateRequest;

/*
 * Receives one row of a Query of a table as the table stores it, in place of
 * the StQueryRowFn call with its values: tuple is the table's row, whose
 * columns are those of the request's tuple_desc (the same types in the same
 * places, none missing) and hold exactly the pk, sk and item the row
 * function would get (see StQueryRequest.tuple_row). It lives until the
 * next row: a receiver keeps a copy.
 */
typedef void (*StQueryTupleFn) (void *arg, HeapTuple tuple);

typedef struct StQueryRequest
{
	text	   *table_name;
	StKeyText	pk;
	StSkOp		op;
	StKeyText	sk1;			/* the operand of op; the lower bound of BETWEEN */
	StKeyText	sk2;			/* the upper bound of BETWEEN */
	bool		forward;		/* ScanIndexForward */
	int32		max_items;		/* Limit; 0: none */
	StKeyText	start_sk;		/* the sort key of the start key, alone */
	Jsonb	   *start_key;		/* ExclusiveStartKey as a key map {pk: .., sk: ..} */
	const char *filter;
	const char *projection;
	Jsonb	   *names;
	Jsonb	   *vals;
	const char *index_name;		/* IndexName: query this secondary index; NULL: the table */
	const char *key_condition;	/* KeyConditionExpression, in place of pk/op/sk1/sk2 */
	bool		include_expired;	/* also items their TTL has expired */
	int			consistent_read;	/* ConsistentRead: 1, 0, or -1 (not given: strongly
									 * consistent, except on a global secondary index) */
	bool		page;			/* one page: stop after ST_PAGE_BYTES of evaluated items */
	bool		fetch_item;		/* on a local secondary index: each row's whole item
								 * from the table (DynamoDB's Select ALL_ATTRIBUTES) */
	StTable    *tab;			/* table_name as the caller opened it, or NULL */

	/*
	 * Optional (NULL: every row goes to the row function): a caller that
	 * stores rows (pk, sk, item) of tuple_desc, as singletable.query's
	 * result does, may have a row handed over as the table stores it, one
	 * copy instead of forming a tuple of its values. A Query of the table
	 * read directly (direct.c) does so for an item returned unprojected
	 * when the table's columns are tuple_desc's and the row's values are
	 * exactly the row function's (direct.c, tuple_passes); every other row
	 * still goes to the row function.
	 */
	StQueryTupleFn tuple_row;
	TupleDesc	tuple_desc;
} StQueryRequest;

/* A Scan (DynamoDB's parallel-scan contract: segment and total_segments both or neither) */
typedef struct StScanRequest
{
	text	   *table_name;
	const char *filter;			/* FilterExpression; may read key attributes */
	const char *projection;
	Jsonb	   *names;
	Jsonb	   *vals;
	const char *index_name;		/* IndexName: scan this secondary index; NULL: the table */
	bool		has_segment;	/* Segment given */
	int32		segment;
	bool		has_total_segments; /* TotalSegments given */
	int32		total_segments;
	int32		max_items;		/* Limit; 0: none */
	Jsonb	   *start_key;		/* ExclusiveStartKey: the table's keys; on an index also its keys */
	bool		include_expired;	/* also items their TTL has expired */
	int			consistent_read;	/* as in StQueryRequest */
	bool		page;			/* one page: stop after ST_PAGE_BYTES of evaluated items */
	StTable    *tab;			/* table_name as the caller opened it, or NULL */
} StScanRequest;

/* What a Query or Scan read, besides its rows */
typedef struct StReadResult
{
	uint64		scanned;		/* ScannedCount: items evaluated */
	uint64		count;			/* Count: items passed on */
	Jsonb	   *last_key;		/* LastEvaluatedKey (stored form), or NULL: the end */
} StReadResult;

/*
 * Receives one row of a Query or Scan: the keys as text (sk NULL on a table
 * without sort key; on a secondary index the base keys of each row) and the
 * item, projected. Called in a short-lived memory context.
 *
 * size is not NULL when the item is the one the read sizes (no projection)
 * and the read needs its size: a row function that walks the item anyway
 * may store DynamoDB's size of it there (st_stored_item_size's, with the
 * table's B keys) and return true; otherwise it returns false and the read
 * sizes the item itself.
 */
typedef bool (*StQueryRowFn) (void *arg, text *pk, text *sk, Jsonb *item, int64 *size);

/* Results: the attributes return_values asked for (or the item), or NULL */
extern Jsonb *st_op_put(const StPutRequest *req);
extern Jsonb *st_op_get(const StGetRequest *req);
extern Jsonb *st_op_delete(const StDeleteRequest *req);
extern Jsonb *st_op_update(const StUpdateRequest *req);
extern void st_op_query(const StQueryRequest *req, StQueryRowFn row, void *arg,
						StReadResult *result);
extern char *st_op_explain_query(const StQueryRequest *req, bool analyze);
extern void st_op_scan(const StScanRequest *req, StQueryRowFn row, void *arg,
					   StReadResult *result);

/*
 * A Query streamed row by row into a slot, for singletable.query in FROM
 * (functions/query_scan.c): no row is read before the first is asked for,
 * and a caller that stops asking (an outer LIMIT) stops the read.
 *   - begin opens the table, checks the request as st_op_query does and
 *     starts the read; NULL (nothing read, nothing counted) where the
 *     Query must run through its statement, as st_op_query runs it (a
 *     secondary index, row-level security, a Citus table: direct.c);
 *   - next puts the next item's row (pk, sk, item) into out, a heap tuple
 *     slot of singletable.item_row's columns (req->tuple_desc), and says
 *     true; false at the end;
 *   - end counts what the read consumed, as st_op_query's end does, and
 *     leaves its LastEvaluatedKey: where max_items cut it, or, when the
 *     caller stopped before the end, the key of the item read last.
 * The stream lives in the memory context begin was called in.
 */
typedef struct StQueryStream StQueryStream;
extern StQueryStream *st_query_stream_begin(const StQueryRequest *req, TupleTableSlot *out);
extern bool st_query_stream_next(StQueryStream *s);
extern void st_query_stream_end(StQueryStream *s);

/*
 * The LastEvaluatedKey of this session's last Query or Scan (a copy), or
 * NULL when it read to the end
 */
extern Jsonb *st_last_evaluated_key(void);
extern char *st_op_explain_scan(const StScanRequest *req, bool analyze);

/* Parsing of enumerated arguments shared by every caller */
extern StReturnValues st_parse_return_values(const char *s, const char *op, bool put_or_delete);
extern StSkOp st_parse_sk_op(const char *s);

/* Internal to the operations layer: a request's key as column values */
extern void st_request_keys(StTable *tab, const StKeyText *pk, const StKeyText *sk,
							StKey *pkk, StKey *skk);

/* The item kept by the last failed condition that asked for it (or NULL) */
extern Jsonb *st_condition_failure_item(void);
extern void st_condition_failure_reset(void);

#endif
