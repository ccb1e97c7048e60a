/*
 * dynamodb.h — the JSON API singletable.dynamodb(operation, request): what
 * the dispatcher and item operations (dynamodb.c) share with the control
 * plane (dynamodb_tables.c): reading a request's members with DynamoDB's
 * SerializationException for a wrong JSON type, collecting its constraint
 * violations into one ValidationException, and naming tables.
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_DYNAMODB_H
#define SINGLETABLE_DYNAMODB_H

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "format/attrval.h"
#include "format/jsonpush.h"

/* GUCs (guc.c): the schema of DynamoDB's tables; whether CreateTable distributes with Citus */
extern char *st_dynamodb_schema;
extern bool st_dynamodb_distribute;
extern int	st_dynamodb_create_delay;

/* Refuses a table still CREATING (singletable.dynamodb_create_delay) to item operations */
extern void st_ddb_check_active(Oid relid, const char *name);

/* One call of singletable.dynamodb */
typedef struct StDdbCall
{
	const char *op;				/* the operation's name */
	JsonbContainer *req;		/* the request, a JSON object */
	/* a write that asked for the item on a failed condition (ReturnValuesOnConditionCheckFailure) */
	bool		want_failure_item;
	StAttrKeys	keys;			/* its table's keys, to convert that item */
	/* TransactWriteItems: each action's table keys (NULL: unknown), for its reason's Item */
	StAttrKeys **action_keys;
	int			n_actions;
	/*
	 * Not NULL: the response is wanted as JSON text (singletable.dynamodb_as).
	 * A handler that writes it so (GetItem, Query, Scan) appends it here and
	 * returns NULL; any other returns its jsonb, which the caller prints.
	 */
	StringInfo	text;
} StDdbCall;

/* The response: a jsonb, or NULL when it was written into call->text */
typedef Jsonb *(*StDdbHandler) (StDdbCall *call);

/* DynamoDB's "N validation errors detected: ..." (at most 10 listed) */
typedef struct StDdbErrors
{
	int			n;
	StringInfoData buf;
} StDdbErrors;

/* A member of the request (NULL when absent or JSON null) */
extern JsonbValue *st_ddb_member(StDdbCall *call, const char *name);
extern char *st_ddb_string(StDdbCall *call, const char *name);
extern JsonbValue *st_ddb_object(StDdbCall *call, const char *name);
extern JsonbValue *st_ddb_array(StDdbCall *call, const char *name);
extern int	st_ddb_bool(StDdbCall *call, const char *name);	/* 1, 0, -1: absent */
extern bool st_ddb_int(StDdbCall *call, const char *name, int64 *out);
extern bool st_ddb_value_int(JsonbValue *v, const char *name, const char *type, int64 *out);
extern char *st_ddb_string_of(JsonbValue *v);

extern void st_ddb_errors_init(StDdbErrors *e);
extern void st_ddb_error(StDdbErrors *e, const char *value, const char *path, const char *constraint);
extern void st_ddb_check_name(StDdbErrors *e, const char *name, const char *path, bool required);
extern void st_ddb_check_enum(StDdbErrors *e, const char *value, const char *path,
							  const char *const *allowed, const char *set);
extern void st_ddb_check_int(StDdbErrors *e, bool given, int64 v, const char *path, int64 min, int64 max);
extern void st_ddb_errors_raise(StDdbErrors *e);

/* The qualified name text of DynamoDB table name (in singletable.dynamodb_schema) */
extern char *st_ddb_relname(const char *name);
extern text *st_ddb_table_text(const char *name);
/* Raises ResourceNotFoundException unless name is a table of the schema; returns its OID */
extern Oid	st_ddb_table_relid(const char *name);
extern Oid	st_ddb_find_relid(const char *name);

/* Operation op's handler called with request (no error body: the outer call adds it) */
extern Jsonb *st_ddb_call_internal(const char *op, Jsonb *request);

/* dynamodb_cost.c: a request's operation from its members; a copy with members set; a call rolled back */
extern const char *st_ddb_infer_operation(Jsonb *request);
extern Jsonb *st_ddb_with_members(Jsonb *request, const char *const *names, JsonbValue *const *values, int n);
extern Jsonb *st_ddb_run_rolled_back(const char *op, Jsonb *request, bool strict);

/* PartiQL (dynamodb_partiql.c) */
extern Jsonb *st_ddb_execute_statement(StDdbCall *call);
extern Jsonb *st_ddb_batch_execute_statement(StDdbCall *call);
extern Jsonb *st_ddb_execute_transaction(StDdbCall *call);

/* The control plane (dynamodb_tables.c) */
extern Jsonb *st_ddb_create_table(StDdbCall *call);
extern Jsonb *st_ddb_delete_table(StDdbCall *call);
extern Jsonb *st_ddb_describe_table(StDdbCall *call);
extern Jsonb *st_ddb_list_tables(StDdbCall *call);
extern Jsonb *st_ddb_update_table(StDdbCall *call);
extern Jsonb *st_ddb_update_ttl(StDdbCall *call);
extern Jsonb *st_ddb_describe_ttl(StDdbCall *call);
extern Jsonb *st_ddb_tag_resource(StDdbCall *call);
extern Jsonb *st_ddb_untag_resource(StDdbCall *call);
extern Jsonb *st_ddb_list_tags(StDdbCall *call);
extern Jsonb *st_ddb_describe_limits(StDdbCall *call);
extern Jsonb *st_ddb_describe_endpoints(StDdbCall *call);

/* DynamoDB Streams (dynamodb_streams.c) */
extern int	st_stream_iterator_lifetime;	/* GUC: seconds a shard iterator is valid */
extern Jsonb *st_ddb_list_streams(StDdbCall *call);
extern Jsonb *st_ddb_describe_stream(StDdbCall *call);
extern Jsonb *st_ddb_get_shard_iterator(StDdbCall *call);
extern Jsonb *st_ddb_get_records(StDdbCall *call);

/* StreamSpecification of CreateTable and UpdateTable; the stream members of DescribeTable */
typedef struct StDdbStreamSpec
{
	bool		given;			/* the member is present */
	int			enabled;		/* StreamEnabled: 1, 0, -1 absent */
	char	   *view;			/* StreamViewType or NULL */
} StDdbStreamSpec;
extern void st_ddb_stream_spec_read(StDdbErrors *e, JsonbValue *spec, StDdbStreamSpec *out);
extern void st_ddb_stream_spec_check(const StDdbStreamSpec *spec);
extern void st_ddb_stream_spec_apply(Oid relid, const char *name, const StDdbStreamSpec *spec, bool created);
extern void st_ddb_push_table_stream(JsonbParseState **st, Oid relid);

#endif
