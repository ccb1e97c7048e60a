/*
 * read.c — the read operations: get, query and the explanation of a query
 * (see ops.h).
 *
 * A Query's key condition becomes bounds on the primary key (pk, sk): the
 * statement is "pk = $1 AND sk <op> $2 [AND sk <op> $3]", begins_with being
 * [prefix, successor(prefix)), so the btree reads only the matching items.
 * A start key (DynamoDB's ExclusiveStartKey) is validated as DynamoDB does
 * and narrows the range further ($4).
 */
#include "postgres.h"

#include "catalog/pg_type_d.h"
#include "commands/explain.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/params.h"
#include "tcop/dest.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "tcop/tcopprot.h"
#include "utils/plancache.h"
#include "utils/snapmgr.h"
#include "access/htup_details.h"

#include "utils/errors.h"
#include "ops/estimate.h"
#include "ops/expr_glue.h"
#include "ops/hot_keys.h"
#include "ops/item.h"
#include "format/jsonpush.h"
#include "format/jsonval.h"
#include "catalog/entity_suggest.h"
#include "ops/keycond.h"
#include "ops/direct.h"
#include "ops/ops.h"
#include "ops/read_internal.h"
#include "ops/write_internal.h"
#include "ops/ttl.h"

/* The sk_op names of StSkOp (RANGE is begins_with) */
static const char *const sk_op_names[ST_NUM_SK_OPS] = {
	NULL, "=", "<", "<=", ">", ">=", "between", "begins_with"
};


/* The projection of a stored item, in stored form; names from st_attr_names(NULL, proj). */
Datum
st_project_item(StTable *tab, const StProjection *proj, const StAttrNames *names, Jsonb *item)
{
	const char *b_keys[2] = {NULL, NULL};
	StVal	   *v = st_project(proj, st_item_attrs(tab, item, names));

	if (tab->pk_type == ST_KEY_B)
		b_keys[0] = tab->pk_name;
	if (tab->sk_name && tab->sk_type == ST_KEY_B)
		b_keys[1] = tab->sk_name;
	return JsonbPGetDatum(st_val_to_jsonb(v, b_keys));
}

/*
 * The item of key values/nulls (as ST_PLAN_GET takes them) in the SPI
 * caller's memory, or NULL: read from the primary key directly, else by the
 * kept statement (direct.c says when); what names the operation.
 */
Jsonb *
st_read_item(StTable *tab, Datum *values, const char *nulls, const char *what)
{
	Jsonb	   *item;

	if (st_direct_get(tab, values, what, true, &item))
		return item;
	return st_item_fetch(tab, ST_PLAN_GET, values, nulls, true);
}

/* GetItem: the item, projected, in the caller's memory; NULL when absent. */
Jsonb *
st_op_get(const StGetRequest *req)
{
	StTable    *tab;
	StKey		pk,
				sk;
	Datum		values[3];
	char		nulls[3] = {' ', 'n', 'n'};
	Jsonb	   *item;
	StProjection *proj = NULL;
	StCapacity	cap;

	tab = st_table_open_read(req->tab, req->table_name);
	st_capacity_begin(&cap, tab, ST_STAT_GET_ITEM);
	st_capacity_set_consistency(&cap, req->consistent_read != 0);
	if (req->projection == NULL && req->names != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("names can only be given with a projection"),
				 st_errdetail_dynamodb("ExpressionAttributeNames can only be specified when using expressions")));
	if (req->projection)
	{
		StExprEnv  *env = st_env_build(tab, req->names, NULL);

		proj = st_parse_projection(req->projection, env);
		st_expr_check_unused(env);
	}
	st_request_keys(tab, &req->pk, &req->sk, &pk, &sk);
	st_hot_keys_record(tab, false, pk.display);
	values[0] = pk.datum;
	if (tab->sk_name)
	{
		values[1] = sk.datum;
		nulls[1] = ' ';
	}
	/*
	 * The item, in this function's memory: read directly (no SPI connection
	 * needed), else by the kept statement in an SPI connection of its own.
	 */
	if (!st_direct_get(tab, values, "get_item", false, &item))
	{
		SPI_connect();
		item = st_item_fetch(tab, ST_PLAN_GET, values, nulls, true);
		SPI_finish();
	}
	st_capacity_get(&cap, item);
	if (item && tab->ttl_attr && !req->include_expired)
	{
		StTtlClock	clock;

		/* expired but not swept yet: as good as deleted (unlike DynamoDB) */
		st_ttl_clock(&clock);
		if (st_ttl_item_expired(tab, item, &clock))
			item = NULL;
	}
	if (item && proj)
		item = DatumGetJsonbP(st_project_item(tab, proj, st_attr_names(NULL, proj), item));
	cap.table.counts.items_returned = item != NULL;
	st_capacity_end(&cap);
	return item;
}

/* Converts one sort-key operand, naming the attribute in errors. */
static StKey
sk_arg(StTable *tab, const StKeyText *t)
{
	StKey		k;

	st_key_from_text(tab->sk_type, t->data, t->len, tab->sk_name, tab->relname, true, &k);
	return k;
}

/*
 * Whether a start key's sort key (start) lies within the key condition op
 * with operand / lower bound lo and upper bound hi (DynamoDB requires it).
 */
static bool
start_in_range(StKeyType t, StSkOp op, Datum lo, bool has_hi, Datum hi, Datum start)
{
	int			c1 = 0,
				c2 = 0;

	if (op != ST_SK_NONE)
		c1 = st_key_compare(t, start, lo);
	if ((op == ST_SK_BETWEEN || op == ST_SK_RANGE) && has_hi)
		c2 = st_key_compare(t, start, hi);
	switch (op)
	{
		case ST_SK_NONE:
			return true;
		case ST_SK_EQ:
			return c1 == 0;
		case ST_SK_LT:
			return c1 < 0;
		case ST_SK_LE:
			return c1 <= 0;
		case ST_SK_GT:
			return c1 > 0;
		case ST_SK_GE:
			return c1 >= 0;
		case ST_SK_BETWEEN:
			return c1 >= 0 && c2 <= 0;
		case ST_SK_RANGE:
			return c1 >= 0 && (!has_hi || c2 < 0);
		default:
			return false;
	}
}

/*
 * The error of a start key that does not name exactly the table's key; op
 * names the read in the message: "query on", "scan of".
 */
void
st_start_key_invalid(StTable *tab, const char *op, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("exclusive_start_key of a %s table \"%s\" %s", op, tab->relname, why),
			 st_errdetail_dynamodb("The provided starting key is invalid: The provided key element does not match the schema"),
			 tab->sk_name
			 ? errhint("A start key is an object with exactly the key attributes \"%s\" and \"%s\".",
					   tab->pk_name, tab->sk_name)
			 : errhint("A start key is an object with exactly the key attribute \"%s\".", tab->pk_name)));
}

/*
 * One key attribute of a start key map as text, checked against the key's
 * type (S a string, N a number, B binary or base64 text).
 */
StKeyText
st_start_key_attr(StTable *tab, const char *op, StVal *map, const char *name, StKeyType kt)
{
	StVal	   *v = st_val_map_get(map, name, strlen(name));
	StKeyText	r;

	if (v == NULL)
		st_start_key_invalid(tab, op, psprintf("lacks key attribute \"%s\"", name));
	if (!((kt == ST_KEY_S && v->type == SV_S) || (kt == ST_KEY_N && v->type == SV_N) ||
		  (kt == ST_KEY_B && (v->type == SV_B || v->type == SV_S))))
		st_start_key_invalid(tab, op, psprintf("has key attribute \"%s\" of type %s instead of %c",
										name, st_val_type_name(v->type), (char) kt));
	if (kt == ST_KEY_B && v->type == SV_B)
		r.data = st_base64_encode(v->u.str.data, v->u.str.len, &r.len);
	else
	{
		r.data = v->u.str.data;
		r.len = v->u.str.len;
	}
	return r;
}

/*
 * Validates a start key as DynamoDB validates ExclusiveStartKey and sets
 * $4: it names exactly the key attributes with their types, lies in the
 * queried partition, and its sort key lies within the key condition.
 */
static void
parse_start_key(StTable *tab, const StQueryRequest *req, StQueryArgs *qa)
{
	StKeyText	sk;
	StKey		k;

	if (req->start_key == NULL && req->start_sk.data == NULL)
		return;
	if (req->start_key != NULL && req->start_sk.data != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("exclusive_start_sk and exclusive_start_key cannot both be given")));
	if (tab->sk_name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table \"%s\" has no sort key, so a query cannot be continued from a start key",
						tab->relname),
				 st_errdetail_dynamodb("The query can return at most one row and cannot be restarted")));
	if (req->start_key != NULL)
	{
		bool		canonical;
		StVal	   *map;
		StKeyText	pk;

		if (!JB_ROOT_IS_OBJECT(req->start_key) || JB_ROOT_IS_SCALAR(req->start_key))
			st_start_key_invalid(tab, "query on", "is not a JSON object");
		/* a key has two attributes: refuse anything larger before converting it */
		if (JB_ROOT_COUNT(req->start_key) != 2)
			st_start_key_invalid(tab, "query on", psprintf("has %u attributes, not the 2 key attributes",
											JB_ROOT_COUNT(req->start_key)));
		map = st_jsonb_to_val(req->start_key, "exclusive_start_key", &canonical);
		pk = st_start_key_attr(tab, "query on", map, tab->pk_name, tab->pk_type);
		sk = st_start_key_attr(tab, "query on", map, tab->sk_name, tab->sk_type);
		st_key_from_text(tab->pk_type, pk.data, pk.len, tab->pk_name, tab->relname, false, &k);
		if (strcmp(k.display, qa->pk_display) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("exclusive_start_key of a query on table \"%s\" lies in another partition than the query",
							tab->relname),
					 st_errdetail_dynamodb("The provided starting key is outside query boundaries based on provided conditions")));
	}
	else
		sk = req->start_sk;
	k = sk_arg(tab, &sk);
	if (!start_in_range(tab->sk_type, qa->op, qa->values[1], qa->nulls[2] == ' ', qa->values[2], k.datum))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the start key of a query on table \"%s\" is outside the sort key condition",
						tab->relname),
				 st_errdetail_dynamodb("The provided starting key does not match the range key predicate")));
	qa->values[3] = k.datum;
	qa->nulls[3] = ' ';
	qa->has_start = true;
}

/*
 * Validates the key condition, limit and start key of a Query and converts
 * them to the parameters of its statement.
 */
static void
parse_query_keys(StTable *tab, const StQueryRequest *req, StQueryArgs *qa)
{
	StKey		k;

	memset(qa, 0, sizeof(*qa));
	for (int i = 0; i < ST_INDEX_QUERY_MAX_NARGS; i++)
		qa->nulls[i] = 'n';

	if (req->pk.data == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("partition key \"%s\" of table \"%s\" must not be NULL in a query",
						tab->pk_name, tab->relname),
				 st_errdetail_dynamodb("Query condition missed key schema element: %s", tab->pk_name)));
	st_key_from_text(tab->pk_type, req->pk.data, req->pk.len, tab->pk_name, tab->relname, false, &k);
	qa->values[0] = k.datum;
	qa->nulls[0] = ' ';
	qa->pk_display = k.display;

	if (req->max_items < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_items must be at least 1, not %d", req->max_items)));
	if (req->max_items > 0)
	{
		qa->values[4] = Int64GetDatum((int64) req->max_items);
		qa->nulls[4] = ' ';
	}

	qa->op = req->op;
	if (req->op == ST_SK_NONE)
	{
		if (req->sk1.data != NULL || req->sk2.data != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("sk_value given without sk_op"),
					 errhint("Name the sort key condition: =, <, <=, >, >=, between or begins_with.")));
	}
	else
	{
		if (tab->sk_name == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" has no sort key, so a query cannot have a sort key condition",
							tab->relname),
					 st_errdetail_dynamodb("Query key condition not supported")));
		if (req->sk1.data == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("sk_value must not be NULL for sort key operator \"%s\"", sk_op_names[req->op])));
		if (req->op == ST_SK_RANGE && tab->sk_type == ST_KEY_N)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("begins_with cannot be used on sort key \"%s\" of table \"%s\", which is of type N",
							tab->sk_name, tab->relname),
					 st_errdetail_dynamodb("Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N")));
		if (req->op == ST_SK_BETWEEN && req->sk2.data == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("sk_value2 must not be NULL for sort key operator \"between\""),
					 errhint("between takes the inclusive bounds sk_value and sk_value2.")));
		if (req->op != ST_SK_BETWEEN && req->sk2.data != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("sk_value2 is only used with sort key operator \"between\", not \"%s\"",
							sk_op_names[req->op])));

		k = sk_arg(tab, &req->sk1);
		qa->values[1] = k.datum;
		qa->nulls[1] = ' ';
		if (req->op == ST_SK_BETWEEN)
		{
			StKey		k2 = sk_arg(tab, &req->sk2);

			if (st_key_compare(tab->sk_type, k2.datum, k.datum) < 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("between bounds of sort key \"%s\" of table \"%s\" are reversed: sk_value2 is lower than sk_value",
								tab->sk_name, tab->relname),
						 st_errdetail_dynamodb("Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound")));
			qa->values[2] = k2.datum;
			qa->nulls[2] = ' ';
		}
		else if (req->op == ST_SK_RANGE)
		{
			struct varlena *p = DatumGetByteaPP(k.datum);
			int			len;
			char	   *succ;

			succ = (tab->sk_type == ST_KEY_S)
				? st_prefix_successor_utf8(VARDATA_ANY(p), VARSIZE_ANY_EXHDR(p), &len)
				: st_prefix_successor_bytes(VARDATA_ANY(p), VARSIZE_ANY_EXHDR(p), &len);
			if (succ != NULL)
			{
				bytea	   *b = palloc(VARHDRSZ + len);

				SET_VARSIZE(b, VARHDRSZ + len);
				memcpy(VARDATA(b), succ, len);
				qa->values[2] = PointerGetDatum(b);
				qa->nulls[2] = ' ';
			}
		}
	}
	if (req->index_name == NULL)
		parse_start_key(tab, req, qa);

	/* every key >= the prefix starts with it: the range has no upper bound */
	if (qa->op == ST_SK_RANGE && qa->nulls[2] != ' ')
		qa->op = ST_SK_GE;
}

/*
 * The table as a query on index idx sees it: the index's partition key (its
 * first attribute) and sort attribute n_eq in place of the table's keys, so
 * that the key condition on them is parsed and checked as on a table (error
 * messages name the index's key attributes).
 */
StTable
st_index_view(StTable *tab, StIndex *idx, int n_eq)
{
	StTable		view = *tab;

	view.pk_name = idx->pk[0].name;
	view.pk_type = idx->pk[0].type;
	view.sk_name = n_eq < idx->n_sk ? idx->sk[n_eq].name : NULL;
	view.sk_type = n_eq < idx->n_sk ? idx->sk[n_eq].type : ST_KEY_S;
	return view;
}

/* The index named by a read request, or DynamoDB's error for an unknown or unusable one. */
StIndex *
st_read_index(StTable *tab, const char *name)
{
	StIndex    *idx = st_table_index(tab, name);

	if (idx == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table \"%s\" has no index \"%s\"", tab->relname, name),
				 st_errdetail_dynamodb("The table does not have the specified index: %s", name)));
	if (idx->build_error)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("index \"%s\" of table \"%s\" could not be built", name, tab->relname),
				 errhint("describe_table shows the build's error (BuildError); drop the index with singletable.drop_gsi(), fix the items, and create it again.")));
	if (!idx->active)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("index \"%s\" of table \"%s\" is still being built", name, tab->relname),
				 st_errdetail_dynamodb("Cannot read from backfilling global secondary index: %s", name),
				 errhint("describe_table shows IndexStatus ACTIVE once the index can be read.")));
	if (!OidIsValid(idx->indexrelid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("index \"%s\" of table \"%s\" has lost its PostgreSQL index \"%s\"",
						name, tab->relname, idx->pg_index_name),
				 errhint("Drop it with singletable.%s() and create it again.",
						 idx->is_lsi ? "drop_lsi" : "drop_gsi")));
	return idx;
}

/* The key schema a query reads: the table's, or index idx's. */
static void
key_schema(StTable *tab, StIndex *idx, StKeySchema *ks)
{
	memset(ks, 0, sizeof(*ks));
	if (idx == NULL)
	{
		ks->n_pk = 1;
		ks->pk_names[0] = tab->pk_name;
		ks->pk_types[0] = tab->pk_type;
		ks->n_sk = tab->sk_name ? 1 : 0;
		ks->sk_names[0] = tab->sk_name;
		ks->sk_types[0] = tab->sk_type;
		return;
	}
	ks->n_pk = idx->n_pk;
	ks->n_sk = idx->n_sk;
	for (int i = 0; i < idx->n_pk; i++)
	{
		ks->pk_names[i] = idx->pk[i].name;
		ks->pk_types[i] = idx->pk[i].type;
	}
	for (int j = 0; j < idx->n_sk; j++)
	{
		ks->sk_names[j] = idx->sk[j].name;
		ks->sk_types[j] = idx->sk[j].type;
	}
}

/*
 * The key condition of a request in normal form: parsed from key_condition,
 * or taken from the positional pk, sk_op, sk_value and sk_value2, which
 * only a key of one partition and at most one sort attribute has.
 */
static void
request_key_condition(StTable *tab, StIndex *idx, const StQueryRequest *req, StExprEnv *env,
					  StKeyCond *kc)
{
	StKeySchema ks;

	key_schema(tab, idx, &ks);
	if (req->key_condition != NULL)
	{
		if (req->pk.data != NULL || req->op != ST_SK_NONE || req->sk1.data != NULL || req->sk2.data != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("key_condition cannot be given with pk, sk_op, sk_value or sk_value2"),
					 errhint("key_condition holds the whole key condition, e.g. 'pk = :pk AND begins_with(sk, :prefix)'.")));
		st_parse_key_condition(req->key_condition, env, &ks, kc);
		return;
	}
	if (ks.n_pk > 1 || ks.n_sk > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("index \"%s\" of table \"%s\" has a key of several attributes, so it is queried with key_condition",
						idx->name, tab->relname),
				 errhint("Write the condition as DynamoDB's KeyConditionExpression, e.g. key_condition => 'tenant = :t AND region = :r', with the values in vals.")));
	memset(kc, 0, sizeof(*kc));
	kc->pk[0] = req->pk;
	kc->op = req->op;
	kc->sk1 = req->sk1;
	kc->sk2 = req->sk2;
}

/*
 * Validates the start key of a query on an index (DynamoDB's
 * LastEvaluatedKey of an index: exactly the index keys and the table's keys)
 * and sets its parameters: it lies in the queried partition, its sort
 * attributes with equality have the queried values, the one with the
 * condition lies within it.
 */
static void
parse_index_start_key(StTable *tab, StIndex *idx, const StQueryRequest *req, StQueryArgs *qa)
{
	StTable		view = st_index_view(tab, idx, 0);
	bool		canonical;
	StVal	   *map;
	StKeyText	t;
	StKey		k;

	if (req->start_sk.data != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("exclusive_start_sk cannot be given with index_name"),
				 errhint("A query on an index continues from exclusive_start_key, holding the index keys and the table's keys.")));
	if (req->start_key == NULL)
		return;
	if (!JB_ROOT_IS_OBJECT(req->start_key) || JB_ROOT_IS_SCALAR(req->start_key) ||
		JB_ROOT_COUNT(req->start_key) != (uint32) qa->n_key_names)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("exclusive_start_key of a query on index \"%s\" of table \"%s\" must be an object of exactly its %d key attributes",
						idx->name, tab->relname, qa->n_key_names),
				 st_errdetail_dynamodb("The provided starting key is invalid"),
				 errhint("The start key of an index holds the index's key attributes and the table's key attributes.")));
	map = st_jsonb_to_val(req->start_key, "exclusive_start_key", &canonical);

	for (int i = 0; i < idx->n_pk; i++)
	{
		t = st_start_key_attr(&view, "query on", map, idx->pk[i].name, idx->pk[i].type);
		st_key_from_text(idx->pk[i].type, t.data, t.len, idx->pk[i].name, tab->relname, false, &k);
		if (strcmp(k.display, qa->pk_displays[i]) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("exclusive_start_key of a query on index \"%s\" of table \"%s\" lies in another partition than the query",
							idx->name, tab->relname),
					 st_errdetail_dynamodb("The provided starting key is outside query boundaries based on provided conditions")));
	}
	for (int j = 0; j < idx->n_sk; j++)
	{
		StTable		sview = st_index_view(tab, idx, j);
		bool		ok = true;

		t = st_start_key_attr(&sview, "query on", map, idx->sk[j].name, idx->sk[j].type);
		k = sk_arg(&sview, &t);
		if (j < qa->n_eq)
			ok = st_key_compare(idx->sk[j].type, k.datum, qa->values[ST_IXP_SK(idx, j)]) == 0;
		else if (j == qa->n_eq)
			ok = start_in_range(idx->sk[j].type, qa->op, qa->values[ST_IXP_SK(idx, j)],
								qa->nulls[ST_IXP_UPPER(idx)] == ' ', qa->values[ST_IXP_UPPER(idx)], k.datum);
		if (!ok)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the start key of a query on index \"%s\" of table \"%s\" is outside the sort key condition",
							idx->name, tab->relname),
					 st_errdetail_dynamodb("The provided starting key does not match the range key predicate")));
		qa->values[ST_IXP_START_SK(idx, j)] = k.datum;
		qa->nulls[ST_IXP_START_SK(idx, j)] = ' ';
	}
	t = st_start_key_attr(tab, "query on", map, tab->pk_name, tab->pk_type);
	st_key_from_text(tab->pk_type, t.data, t.len, tab->pk_name, tab->relname, false, &k);
	qa->values[ST_IXP_START_PK(idx)] = k.datum;
	qa->nulls[ST_IXP_START_PK(idx)] = ' ';
	if (tab->sk_name)
	{
		t = st_start_key_attr(tab, "query on", map, tab->sk_name, tab->sk_type);
		st_key_from_text(tab->sk_type, t.data, t.len, tab->sk_name, tab->relname, true, &k);
		qa->values[ST_IXP_START_TSK(idx)] = k.datum;
		qa->nulls[ST_IXP_START_TSK(idx)] = ' ';
	}
	qa->has_start = true;
}

/* Adds name to the key attributes of a read of an index, once. */
void
st_add_key_name(StQueryArgs *qa, const char *name)
{
	if (name == NULL)
		return;
	for (int i = 0; i < qa->n_key_names; i++)
		if (strcmp(qa->key_names[i], name) == 0)
			return;
	qa->key_names[qa->n_key_names++] = name;
}

/*
 * Validates the key condition kc of a query on index idx and fills qa with
 * the parameters of the index's statement: the condition on the partition
 * key and sort attribute n_eq is checked as a table's (through
 * index_view), the other attributes of a multi-attribute key one by one.
 */
static void
parse_index_keys(StTable *tab, StIndex *idx, const StKeyCond *kc, const StQueryRequest *req,
				 StQueryArgs *qa)
{
	StTable		view = st_index_view(tab, idx, kc->n_eq);
	StQueryRequest one = *req;
	StQueryArgs	t;
	StKey		k;

	one.pk = kc->pk[0];
	one.op = kc->op;
	one.sk1 = kc->sk1;
	one.sk2 = kc->sk2;
	one.start_key = NULL;
	one.start_sk.data = NULL;
	parse_query_keys(&view, &one, &t);

	memset(qa, 0, sizeof(*qa));
	for (int i = 0; i < ST_INDEX_QUERY_MAX_NARGS; i++)
		qa->nulls[i] = 'n';
	qa->index = idx;
	qa->op = t.op;
	qa->n_eq = kc->n_eq;
	qa->pk_display = t.pk_display;
	qa->pk_displays[0] = t.pk_display;
	qa->values[ST_IXP_PK(idx, 0)] = t.values[0];
	qa->nulls[ST_IXP_PK(idx, 0)] = ' ';
	if (t.nulls[1] == ' ')
	{
		qa->values[ST_IXP_SK(idx, kc->n_eq)] = t.values[1];
		qa->nulls[ST_IXP_SK(idx, kc->n_eq)] = ' ';
	}
	qa->values[ST_IXP_UPPER(idx)] = t.values[2];
	qa->nulls[ST_IXP_UPPER(idx)] = t.nulls[2];
	qa->values[ST_IXP_LIMIT(idx)] = t.values[4];
	qa->nulls[ST_IXP_LIMIT(idx)] = t.nulls[4];
	for (int i = 1; i < idx->n_pk; i++)
	{
		if (kc->pk[i].data == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("partition key \"%s\" of index \"%s\" must not be NULL in a query",
							idx->pk[i].name, idx->name)));
		st_key_from_text(idx->pk[i].type, kc->pk[i].data, kc->pk[i].len, idx->pk[i].name,
						 tab->relname, false, &k);
		qa->values[ST_IXP_PK(idx, i)] = k.datum;
		qa->nulls[ST_IXP_PK(idx, i)] = ' ';
		qa->pk_displays[i] = k.display;
	}
	for (int j = 0; j < kc->n_eq; j++)
	{
		st_key_from_text(idx->sk[j].type, kc->sk_eq[j].data, kc->sk_eq[j].len, idx->sk[j].name,
						 tab->relname, true, &k);
		qa->values[ST_IXP_SK(idx, j)] = k.datum;
		qa->nulls[ST_IXP_SK(idx, j)] = ' ';
	}
	/* an item's keys: the table's, then the index's (an LSI's partition key is the table's) */
	st_add_key_name(qa, tab->pk_name);
	st_add_key_name(qa, tab->sk_name);
	for (int i = 0; i < idx->n_pk; i++)
		st_add_key_name(qa, idx->pk[i].name);
	for (int j = 0; j < idx->n_sk; j++)
		st_add_key_name(qa, idx->sk[j].name);
	parse_index_start_key(tab, idx, req, qa);
}

/*
 * The placeholders of a read (has_expression: it has a filter, projection
 * or key condition), and the key attributes a query's filter may not read:
 * the table's, or on index idx the index's.
 */
StExprEnv *
st_read_env(StTable *tab, StIndex *idx, bool has_expression, bool has_value_expression,
			const char *null_exprs, Jsonb *names, Jsonb *vals)
{
	StExprEnv  *env;

	if (!has_expression && names)
		st_expr_members_error(true, NULL);
	if (!has_value_expression && vals)
		st_expr_members_error(false, null_exprs);
	env = st_env_build(tab, names, vals);
	if (idx)
	{
		int			n = 0;

		memset(env->key_names, 0, sizeof(env->key_names));
		for (int i = 0; i < idx->n_pk; i++)
			env->key_names[n++] = idx->pk[i].name;
		for (int j = 0; j < idx->n_sk; j++)
			env->key_names[n++] = idx->sk[j].name;
	}
	return env;
}

/*
 * The typo guard (singletable.prefix_check) of a valid key condition kc on
 * tab or its index idx: the partition key and a begins_with prefix on the
 * first sort attribute, where they are Strings of one attribute each (what
 * entities give templates for).
 */
static void
typo_check(StTable *tab, StIndex *idx, const StKeyCond *kc)
{
	StKeyType	pkt = idx ? idx->pk[0].type : tab->pk_type;
	bool		one_attr = idx == NULL || (idx->n_pk == 1 && idx->n_sk <= 1);
	StKeyType	skt = idx ? (idx->n_sk > 0 ? idx->sk[0].type : ST_KEY_N) : tab->sk_type;
	bool		prefix = kc->op == ST_SK_RANGE && kc->n_eq == 0 && skt == ST_KEY_S &&
		(idx ? idx->n_sk > 0 : tab->sk_name != NULL);

	if (pkt != ST_KEY_S || !one_attr || kc->pk[0].data == NULL)
		return;
	st_prefix_check_query(tab, idx, kc->pk[0].data, kc->pk[0].len,
						  prefix ? kc->sk1.data : NULL, prefix ? kc->sk1.len : 0);
}

/*
 * Validates a query request on table tab, on the table or on the index it
 * names, and fills qa; env holds its placeholders.
 */
static void
parse_request_keys(StTable *tab, const StQueryRequest *req, StQueryArgs *qa, StExprEnv **envp)
{
	StIndex    *idx = req->index_name ? st_read_index(tab, req->index_name) : NULL;
	StExprEnv  *env = st_read_env(tab, idx,
								  req->filter || req->projection || req->key_condition,
								  req->filter || req->key_condition,
								  "FilterExpression and KeyConditionExpression are null",
								  req->names, req->vals);
	StKeyCond	kc;

	request_key_condition(tab, idx, req, env, &kc);
	if (idx == NULL)
	{
		StQueryRequest one = *req;

		one.pk = kc.pk[0];
		one.op = kc.op;
		one.sk1 = kc.sk1;
		one.sk2 = kc.sk2;
		parse_query_keys(tab, &one, qa);
	}
	else
		parse_index_keys(tab, idx, &kc, req, qa);
	*envp = env;
	if (tab->n_entities > 0)
		typo_check(tab, idx, &kc);
}

/*
 * The top-level attributes names[0..n) (NULLs skipped) of a stored item, as
 * a new jsonb object: an index's projected entry, or a LastEvaluatedKey.
 */
static Jsonb *
pick_attrs(Jsonb *item, const char *const *names, int n)
{
	JsonbParseState *state = NULL;
	JsonbValue *res;

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < n; i++)
	{
		JsonbValue	key;
		JsonbValue *v;

		if (names[i] == NULL)
			continue;
		st_jbv_string(&key, names[i]);
		v = findJsonbValueFromContainer(&item->root, JB_FOBJECT, &key);
		if (v == NULL)
			continue;
		pushJsonbValue(&state, WJB_KEY, &key);
		pushJsonbValue(&state, WJB_VALUE, v);
	}
	res = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(res);
}

/*
 * An item as the index read projects it (KEYS_ONLY, INCLUDE); ALL, a table
 * and an LSI read fetching the whole item (sized so, as DynamoDB charges the
 * fetch from the table) return item.
 */
static Jsonb *
index_project(StQueryArgs *qa, Jsonb *item)
{
	StIndex    *idx = qa->index;
	const char **names;

	if (idx == NULL || idx->projection == ST_PROJ_ALL || qa->fetch_item)
		return item;
	names = palloc(sizeof(char *) * (qa->n_key_names + idx->n_nonkey));
	memcpy(names, qa->key_names, sizeof(char *) * qa->n_key_names);
	for (int i = 0; i < idx->n_nonkey; i++)
		names[qa->n_key_names + i] = idx->nonkey[i];
	return pick_attrs(item, names, qa->n_key_names + idx->n_nonkey);
}

/*
 * The filter (of kind SE_QUERY_FILTER for a Query, SE_FILTER for a Scan) and
 * projection of a read; then every placeholder must have been used.
 */
void
st_read_expressions(StExprEnv *env, const char *filter, StExprKind filter_kind,
					const char *projection, StQueryArgs *qa)
{
	if (filter)
		qa->filter = st_parse_condition(filter, filter_kind, env);
	if (projection)
		qa->projection = st_parse_projection(projection, env);
	st_expr_check_unused(env);
	qa->filter_attrs = st_attr_names(qa->filter, NULL);
	qa->projection_attrs = st_attr_names(NULL, qa->projection);
}

/* Whether a query of index idx reads every shard of a distributed table (a GSI's does). */
static bool
multi_shard(StTable *tab, StIndex *idx)
{
	return tab->distributed && !idx->is_lsi;
}

/*
 * The statement of the key range in qa as a Query, its estimate and its
 * explanation all run it: its parameters, and whether it is planned afresh
 * from its text as a one-shot plan (one_shot: a GSI of a distributed table,
 * whose query reads every shard) instead of running the kept plan.
 */
typedef struct QueryStatement
{
	int			nargs;
	Oid			argtypes[ST_INDEX_QUERY_MAX_NARGS];
	ParamListInfo params;
	bool		one_shot;
} QueryStatement;

static void
query_statement(StTable *tab, StQueryArgs *qa, QueryStatement *qs)
{
	if (qa->index)
	{
		st_index_query_argtypes(tab, qa->index, qa->n_eq, qs->argtypes);
		qs->nargs = ST_INDEX_QUERY_NARGS(qa->index);
		qs->one_shot = multi_shard(tab, qa->index);
	}
	else
	{
		st_query_argtypes(tab, qs->argtypes);
		qs->nargs = ST_QUERY_NARGS;
		qs->one_shot = false;
	}
	qs->params = st_param_list(qs->nargs, qa->values, qa->nulls, qs->argtypes);
}

/* The kept plan of the key range in qa, read forward or backward */
static SPIPlanPtr
query_plan(StTable *tab, StQueryArgs *qa, bool forward)
{
	return qa->index
		? st_index_query_plan(tab, qa->index, qa->n_eq, qa->op, forward, qa->has_start)
		: st_query_plan(tab, qa->op, forward, qa->has_start);
}

/* Runs the statement of the key range in qa (query_statement), its rows into recv */
static void
run_query_statement(StTable *tab, StQueryArgs *qa, bool forward, StQueryReceiver *recv)
{
	QueryStatement qs;
	SPIExecuteOptions options;
	int			rc;

	/* a Query of the table reads its primary key directly where that is exact */
	if (qa->index == NULL && st_direct_query(tab, qa, forward, recv))
		return;
	if (qa->index != NULL)
		ereport(DEBUG1,
				(errmsg_internal("singletable: query of index \"%s\" of table \"%s\" runs its statement: secondary indexes are read through it",
								 qa->index->name, tab->relname)));
	query_statement(tab, qa, &qs);
	memset(&options, 0, sizeof(options));
	options.params = qs.params;
	options.read_only = true;
	options.dest = (DestReceiver *) recv;
	if (qs.one_shot)
	{
		/*
		 * Citus cannot plan a multi-shard statement with unbound parameters,
		 * which a kept plan may be (plan_cache_mode = force_generic_plan
		 * overrides cursor options): a one-shot plan is always custom.
		 */
		rc = SPI_execute_extended(st_index_query_sql(tab, qa->index, qa->n_eq, qa->op, forward, qa->has_start),
								  &options);
	}
	else
		rc = SPI_execute_plan_extended(query_plan(tab, qa, forward), &options);
	/* a SELECT into a receiver other than SPI's own reports SPI_OK_UTILITY */
	if (rc < 0)
		elog(ERROR, "singletable query failed: %s", SPI_result_code_string(rc));
}


/* Whether the read needs the size of every item it evaluates */
static inline bool
sizes_items(StQueryReceiver *r)
{
	/* sized when counted, and always for a page (it stops at 1 MB) */
	return r->cap.enabled || r->page;
}

/*
 * Counts one evaluated item (stored, as the read sees it: on an index its
 * projected entry), of DynamoDB size size (-1: not known yet), and decides
 * whether the read goes on: false when a page is full, or max_items items
 * were evaluated, after leaving the item's key as the LastEvaluatedKey.
 */
static bool
evaluated(StQueryReceiver *r, Jsonb *stored, int64 size)
{
	bool		full = false;

	r->evaluated++;
	if (sizes_items(r))
	{
		if (size < 0)
			size = st_capacity_item_size(r->tab, stored);
		full = st_capacity_evaluated(&r->cap, r->part, size) && r->page;
	}
	if (full || (r->max_items > 0 && r->evaluated == (uint64) r->max_items))
	{
		MemoryContext old = MemoryContextSwitchTo(r->callcxt);

		r->last_key = pick_attrs(stored, r->key_names, r->n_key_names);
		MemoryContextSwitchTo(old);
		return false;
	}
	return true;
}

/*
 * Counts the evaluated item (stored, as the read sees it: on an index its
 * projected entry) and, when returned (not expired, the filter holds),
 * passes it on, projected. The row function sizes an item it is handed
 * unprojected if it can (StQueryRowFn): one walk of the item, not two.
 * Whether the read goes on.
 */
static bool
pass_on(StQueryReceiver *r, text *pk, text *sk, Jsonb *item, bool returned)
{
	StQueryArgs *qa = r->qa;
	int64		size = -1;
	bool		more;

	if (returned && qa->projection == NULL)
	{
		r->returned++;
		/* the table's row holds exactly pk, sk and item (direct.c): it goes as it is */
		if (r->tuple != NULL)
			r->tuple_row(r->row_arg, r->tuple);
		else if (!r->row(r->row_arg, pk, sk, item, sizes_items(r) ? &size : NULL))
			size = -1;
		return evaluated(r, item, size);
	}
	more = evaluated(r, item, -1);
	if (returned)
	{
		item = DatumGetJsonbP(st_project_item(r->tab, qa->projection, qa->projection_attrs, item));
		r->returned++;
		(void) r->row(r->row_arg, pk, sk, item, NULL);
	}
	return more;
}

/*
 * Receives one (pk, sk, item) row: of a query on a secondary index (the
 * item as the index projects it, then filter and projection as on a table)
 * or of a scan.
 */
bool
st_keyed_receive(TupleTableSlot *slot, DestReceiver *self)
{
	StQueryReceiver *r = (StQueryReceiver *) self;
	StQueryArgs *qa = r->qa;
	StTable    *tab = r->tab;
	text	   *pk;
	text	   *sk;
	Jsonb	   *stored;
	Jsonb	   *item;
	bool		returned;
	bool		more;
	MemoryContext old;

	CHECK_FOR_INTERRUPTS();
	slot_getallattrs(slot);
	if (r->rowcxt == NULL)
		r->rowcxt = AllocSetContextCreate(r->callcxt, "singletable query rows",
										  ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(r->rowcxt);
	pk = st_key_datum_to_text(tab->pk_type, slot->tts_values[0]);
	sk = (slot->tts_isnull[1] || tab->sk_name == NULL) ? NULL
		: st_key_datum_to_text(tab->sk_type, slot->tts_values[1]);
	stored = (Jsonb *) PG_DETOAST_DATUM(slot->tts_values[2]);
	item = index_project(qa, stored);
	returned = !(r->hide_expired && st_ttl_item_expired(tab, stored, &r->clock)) &&
		(qa->filter == NULL ||
		 st_eval_condition(qa->filter, st_item_attrs(tab, item, qa->filter_attrs)));
	more = pass_on(r, pk, sk, item, returned);
	MemoryContextSwitchTo(old);
	MemoryContextReset(r->rowcxt);
	return more;
}

/*
 * One row (sk, item) of a Query of the table, the statement's row (sk NULL
 * without a sort key): converts it, applies filter and projection, passes
 * it on. Whether the read goes on.
 */
bool
st_query_receive_row(StQueryReceiver *r, Datum skd, bool sk_isnull, Datum itemd)
{
	StQueryArgs *qa = r->qa;
	StTable    *tab = r->tab;
	text	   *sk = NULL;
	Jsonb	   *item;
	bool		returned;
	bool		more;
	MemoryContext old;

	CHECK_FOR_INTERRUPTS();

	/*
	 * A row of an S-keyed table without filter or projection allocates only
	 * when its item must be detoasted; skip the context for the others.
	 */
	if (r->rowcxt == NULL &&
		(r->row_allocs || VARATT_IS_EXTENDED(DatumGetPointer(itemd))))
		r->rowcxt = AllocSetContextCreate(r->callcxt, "singletable query rows",
										  ALLOCSET_DEFAULT_SIZES);
	old = r->rowcxt ? MemoryContextSwitchTo(r->rowcxt) : CurrentMemoryContext;
	/* a row passing as the table's (r->tuple: never with a projection) needs no sk text */
	if (!sk_isnull && tab->sk_name != NULL && r->tuple == NULL)
		sk = st_key_datum_to_text(tab->sk_type, skd);
	/* detoasted: a stored row must not point into the table's TOAST */
	item = (Jsonb *) PG_DETOAST_DATUM(itemd);
	returned = !(r->hide_expired && st_ttl_item_expired(tab, item, &r->clock)) &&
		(qa->filter == NULL ||
		 st_eval_condition(qa->filter, st_item_attrs(tab, item, qa->filter_attrs)));
	more = pass_on(r, r->pk_text, sk, item, returned);
	MemoryContextSwitchTo(old);
	if (r->rowcxt)
		MemoryContextReset(r->rowcxt);
	return more;
}

/* Receives one (sk, item) row of the statement of a Query of the table. */
static bool
query_receive(TupleTableSlot *slot, DestReceiver *self)
{
	slot_getallattrs(slot);
	return st_query_receive_row((StQueryReceiver *) self, slot->tts_values[0],
								slot->tts_isnull[0], slot->tts_values[1]);
}

/* The LastEvaluatedKey of this session's last Query or Scan */
static Jsonb *last_evaluated_key = NULL;

Jsonb *
st_last_evaluated_key(void)
{
	Jsonb	   *copy;

	if (last_evaluated_key == NULL)
		return NULL;
	copy = palloc(VARSIZE(last_evaluated_key));
	memcpy(copy, last_evaluated_key, VARSIZE(last_evaluated_key));
	return copy;
}

/*
 * Sets up receiver r of a read of tab, described by qa, whose rows go to
 * row(arg, ...): max_items and (with page) ST_PAGE_BYTES end the read and
 * leave its LastEvaluatedKey; expired items are left out unless
 * include_expired. Lives on the caller's stack, in the caller's memory
 * context, for the call.
 */
void
st_query_receiver_init(StQueryReceiver *r, StTable *tab, StQueryArgs *qa, int32 max_items,
					   bool include_expired, StStatOp op, int consistent_read, bool page,
					   bool (*receive) (TupleTableSlot *slot, DestReceiver *self),
					   StQueryRowFn row, void *arg)
{
	bool		gsi = qa->index && !qa->index->is_lsi;

	if (gsi && consistent_read == 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("consistent_read cannot be true on global secondary index \"%s\" of table \"%s\"",
						qa->index->name, tab->relname),
				 errdetail("A global secondary index is read eventually consistent, as in DynamoDB, and charged so."),
				 st_errdetail_dynamodb("Consistent reads are not supported on global secondary indexes")));
	memset(r, 0, sizeof(*r));
	st_dest_init(&r->pub, receive);
	r->tab = tab;
	r->qa = qa;
	r->max_items = max_items;
	r->row = row;
	r->row_arg = arg;
	r->page = page;
	if (qa->pk_display)
		r->pk_text = cstring_to_text(qa->pk_display);
	r->callcxt = CurrentMemoryContext;
	r->row_allocs = qa->filter || qa->projection || (tab->sk_name && tab->sk_type != ST_KEY_S);
	r->hide_expired = tab->ttl_attr != NULL && !include_expired;
	if (r->hide_expired)
	{
		st_ttl_clock(&r->clock);
		r->row_allocs = true;	/* the expiry test allocates */
	}
	if (qa->index)
	{
		r->n_key_names = qa->n_key_names;
		memcpy(r->key_names, qa->key_names, sizeof(char *) * qa->n_key_names);
	}
	else
	{
		r->key_names[r->n_key_names++] = tab->pk_name;
		if (tab->sk_name)
			r->key_names[r->n_key_names++] = tab->sk_name;
	}
	st_capacity_begin(&r->cap, tab, op);
	st_capacity_set_consistency(&r->cap, consistent_read == 1 || (consistent_read == -1 && !gsi));
	r->part = st_capacity_part(&r->cap, qa->index);
}

/*
 * Ends the read of receiver r: its consumed capacity, its LastEvaluatedKey
 * (kept as the session's last one), and result (if not NULL) in the
 * caller's memory (the context SPI_connect was called in; r's own memory,
 * SPI's, is freed by SPI_finish).
 */
void
st_query_receiver_end(StQueryReceiver *r, StReadResult *result)
{
	st_capacity_read_end(&r->cap, r->part);
	r->part->counts.items_returned = r->returned;
	st_capacity_end(&r->cap);
	if (last_evaluated_key)
		pfree(last_evaluated_key);
	last_evaluated_key = NULL;
	if (r->last_key)
	{
		last_evaluated_key = MemoryContextAlloc(TopMemoryContext, VARSIZE(r->last_key));
		memcpy(last_evaluated_key, r->last_key, VARSIZE(r->last_key));
	}
	if (result)
	{
		result->scanned = r->evaluated;
		result->count = r->returned;
		/* the receiver's memory is SPI's, gone at SPI_finish: a copy above it */
		result->last_key = NULL;
		if (r->last_key)
		{
			result->last_key = SPI_palloc(VARSIZE(r->last_key));
			memcpy(result->last_key, r->last_key, VARSIZE(r->last_key));
		}
	}
}

/*
 * Query: runs the kept statement of this condition shape; its rows go from
 * the executor through query_receive to row(). With a filter, a page that
 * stopped at max_items evaluated items ends with a marker (item NULL)
 * carrying the last evaluated sort key: DynamoDB's LastEvaluatedKey.
 * Without a filter every evaluated item is passed on, and the last one's key
 * is the start key of the next page.
 */
void
st_op_query(const StQueryRequest *req, StQueryRowFn row, void *arg, StReadResult *result)
{
	StTable    *tab;
	StQueryArgs qa;
	StQueryReceiver recv;
	StExprEnv  *env;

	SPI_connect();
	tab = st_table_open_read(req->tab, req->table_name);
	parse_request_keys(tab, req, &qa, &env);
	/* a Query of the table; one of a secondary index reads another key space */
	if (qa.index == NULL)
		st_hot_keys_record(tab, false, qa.pk_display);
	qa.fetch_item = req->fetch_item && qa.index && qa.index->is_lsi;
	st_read_expressions(env, req->filter, SE_QUERY_FILTER, req->projection, &qa);
	st_query_receiver_init(&recv, tab, &qa, req->max_items, req->include_expired, ST_STAT_QUERY,
						   req->consistent_read, req->page,
						   qa.index ? st_keyed_receive : query_receive, row, arg);
	recv.tuple_row = req->tuple_row;
	recv.tuple_desc = req->tuple_desc;
	run_query_statement(tab, &qa, req->forward, &recv);
	st_query_receiver_end(&recv, result);
	SPI_finish();
}

/* A Query streamed into a slot (ops.h) */
struct StQueryStream
{
	StQueryArgs qa;
	StQueryReceiver recv;
	StDirectQuery *dq;
	TupleTableSlot *out;
	Snapshot	snapshot;		/* the read's, registered while it runs */
	bool		delivered;		/* the last row read went into out */
	bool		done;			/* read to its end or to max_items */
};

/* A row of the stream that is not the table's as it is: its values, formed into out */
static bool
stream_row(void *arg, text *pk, text *sk, Jsonb *item, int64 *size)
{
	StQueryStream *s = (StQueryStream *) arg;
	Datum		values[3] = {PointerGetDatum(pk), PointerGetDatum(sk), PointerGetDatum(item)};
	bool		nulls[3] = {pk == NULL, sk == NULL, item == NULL};

	/* copied into the slot's memory (the row's own is reset before the next) */
	ExecForceStoreHeapTuple(heap_form_tuple(s->out->tts_tupleDescriptor, values, nulls),
							s->out, true);
	s->delivered = true;
	return false;
}

/* A row of the stream that is the table's: the direct read fetched it into out */
static void
stream_tuple(void *arg, HeapTuple tuple)
{
	StQueryStream *s = (StQueryStream *) arg;

	s->delivered = true;
}

StQueryStream *
st_query_stream_begin(const StQueryRequest *req, TupleTableSlot *out)
{
	StQueryStream *s;
	StTable    *tab;
	StExprEnv  *env;
	StDirectQuery *dq;

	/* a secondary index is read through its statement (st_op_query) */
	if (req->index_name != NULL)
		return NULL;
	tab = st_table_open_read(req->tab, req->table_name);
	/* before anything is checked or said, so that st_op_query does it once */
	dq = st_direct_query_open(tab, false);
	if (dq == NULL)
		return NULL;
	/* not zeroed: parse_request_keys and st_query_receiver_init set qa and recv */
	s = palloc(sizeof(StQueryStream));
	s->dq = dq;
	s->delivered = false;
	s->done = false;
	parse_request_keys(tab, req, &s->qa, &env);
	Assert(s->qa.index == NULL);
	st_hot_keys_record(tab, false, s->qa.pk_display);
	st_read_expressions(env, req->filter, SE_QUERY_FILTER, req->projection, &s->qa);
	st_query_receiver_init(&s->recv, tab, &s->qa, req->max_items, req->include_expired,
						   ST_STAT_QUERY, req->consistent_read, req->page, query_receive,
						   stream_row, s);
	s->recv.tuple_row = stream_tuple;
	s->recv.tuple_desc = out->tts_tupleDescriptor;
	s->out = out;
	/* the scan keeps it: registered for as long as the stream runs */
	s->snapshot = RegisterSnapshot(GetActiveSnapshot());
	st_direct_query_start(dq, tab, &s->qa, req->forward, &s->recv, out);
	return s;
}

bool
st_query_stream_next(StQueryStream *s)
{
	bool		more;

	while (!s->done)
	{
		s->delivered = false;
		if (!st_direct_query_next(s->dq, &more))
			s->done = true;
		else if (!more)
			s->done = true;		/* max_items: this row is the last */
		if (s->delivered)
			return true;
	}
	ExecClearTuple(s->out);
	return false;
}

void
st_query_stream_end(StQueryStream *s)
{
	/* stopped by its caller: the read ends after the item it read last */
	if (!s->done && s->recv.last_key == NULL && s->recv.evaluated > 0)
	{
		Jsonb	   *last = st_direct_query_last_item(s->dq);

		if (last)
		{
			MemoryContext old = MemoryContextSwitchTo(s->recv.callcxt);

			s->recv.last_key = pick_attrs(last, s->recv.key_names, s->recv.n_key_names);
			MemoryContextSwitchTo(old);
		}
	}
	st_direct_query_end(s->dq);
	UnregisterSnapshot(s->snapshot);
	st_query_receiver_end(&s->recv, NULL);
}

/* Passes nothing on: an estimate only sizes the rows */
static bool
discard_row(void *arg, text *pk, text *sk, Jsonb *item, int64 *size)
{
	return false;
}

/*
 * estimate_query: sizes what the Query of req would evaluate, in its order,
 * cutting 1 MB pages as it would: from the table's size index alone when
 * there is one (a Query of the table), else by reading the items of the
 * range with the query's own statement. Records no capacity and no
 * statistics: nothing is returned to anyone.
 */
void
st_op_estimate_query(const StQueryRequest *req, StQueryEstimate *est)
{
	StTable    *tab;
	StQueryArgs qa;
	StQueryReceiver recv;
	StExprEnv  *env;
	Oid			sizeidx = InvalidOid;

	memset(est, 0, sizeof(*est));
	SPI_connect();
	tab = st_table_open(req->table_name, AccessShareLock, ACL_SELECT);
	parse_request_keys(tab, req, &qa, &env);
	/* the expressions are checked as the query checks them; they change nothing here */
	st_read_expressions(env, req->filter, SE_QUERY_FILTER, req->projection, &qa);
	qa.filter = NULL;
	qa.projection = NULL;
	/* strongly consistent units (the eventually consistent ones are half), none on a GSI */
	st_query_receiver_init(&recv, tab, &qa, req->max_items, true, ST_STAT_QUERY,
						   qa.index && !qa.index->is_lsi ? req->consistent_read : 1, false,
						   qa.index ? st_keyed_receive : query_receive, discard_row, NULL);
	/* an estimate sizes the items whatever track_capacity says */
	recv.cap.enabled = true;
	/* on a distributed table the coordinator's shell holds no rows: read the items */
	if (qa.index == NULL && !tab->distributed)
		sizeidx = st_size_index(tab);
	if (OidIsValid(sizeidx))
	{
		est->size_index = true;
		est->heap_fetches = st_estimate_size_index(tab, sizeidx, &qa, req->forward, req->max_items,
												   &recv.cap, &est->items);
	}
	else
	{
		run_query_statement(tab, &qa, req->forward, &recv);
		est->items = recv.evaluated;
	}
	/* closes the last page; the receiver is not ended: nothing is recorded */
	st_capacity_read_end(&recv.cap, recv.part);
	est->bytes = recv.part->counts.bytes_read;
	est->pages = recv.cap.pages;
	est->units = recv.part->units;
	est->strongly = recv.cap.read_factor == 1.0;
	SPI_finish();
}

/*
 * EXPLAIN (COSTS OFF) of the kept statement plan with parameters params, as
 * text in the SPI caller's memory: its plan taken from the plan cache, so
 * the session's plan_cache_mode decides between a custom and a generic plan
 * as it does when the statement runs; with one_shot planned afresh from its
 * text (nargs parameters of types argtypes) as a one-shot plan, as reads of
 * several Citus shards run. With analyze the plan is executed.
 */
char *
st_explain_plan(SPIPlanPtr plan, ParamListInfo params, Oid *argtypes, int nargs, bool one_shot,
				bool analyze)
{
	CachedPlanSource *src = linitial(SPI_plan_get_plan_sources(plan));
	ExplainState *es;
	char	   *result;

	es = NewExplainState();
	es->costs = false;
	es->analyze = analyze;
	es->timing = false;
	es->summary = false;
	es->format = EXPLAIN_FORMAT_TEXT;
	ExplainBeginOutput(es);
	if (one_shot)
	{
		RawStmt    *raw = linitial_node(RawStmt, pg_parse_query(src->query_string));
		Query	   *query = linitial_node(Query, pg_analyze_and_rewrite_fixedparams(raw, src->query_string, argtypes,
																				   nargs, NULL));
		PlannedStmt *stmt = pg_plan_query(query, src->query_string, CURSOR_OPT_PARALLEL_OK, params);

		ExplainOnePlan(stmt, NULL, es, src->query_string, params, NULL, NULL, NULL);
	}
	else
	{
		CachedPlan *cplan = GetCachedPlan(src, params, CurrentResourceOwner, NULL);

		ExplainOnePlan(linitial_node(PlannedStmt, cplan->stmt_list), NULL, es,
					   src->query_string, params, NULL, NULL, NULL);
		ReleaseCachedPlan(cplan, CurrentResourceOwner);
	}
	ExplainEndOutput(es);
	result = SPI_palloc(es->str->len + 1);
	memcpy(result, es->str->data, es->str->len + 1);
	return result;
}

/*
 * The plan st_op_query runs for this request, as EXPLAIN text: the same
 * kept statement with the same parameters (see st_explain_plan). Filter and
 * projection do not change the plan and are ignored.
 */
char *
st_op_explain_query(const StQueryRequest *req, bool analyze)
{
	StTable    *tab;
	StQueryArgs qa;
	QueryStatement qs;
	StExprEnv  *env;
	char	   *result;

	SPI_connect();
	tab = st_table_open(req->table_name, AccessShareLock, ACL_SELECT);
	parse_request_keys(tab, req, &qa, &env);
	st_expr_check_unused(env);
	query_statement(tab, &qa, &qs);
	result = st_explain_plan(query_plan(tab, &qa, req->forward), qs.params, qs.argtypes, qs.nargs,
							 qs.one_shot, analyze);
	SPI_finish();
	return result;
}

/* Parses a sort-key operator of a Query: =, <, <=, >, >=, between, begins_with. */
StSkOp
st_parse_sk_op(const char *s)
{
	for (int op = ST_SK_EQ; op < ST_NUM_SK_OPS; op++)
		if (op == ST_SK_BETWEEN ? pg_strcasecmp(s, sk_op_names[op]) == 0
			: strcmp(s, sk_op_names[op]) == 0)
			return (StSkOp) op;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown sort key operator \"%s\"", s),
			 errhint("sk_op is one of =, <, <=, >, >=, between, begins_with.")));
	return ST_SK_NONE;
}
