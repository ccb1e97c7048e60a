/*
 * write.c — the write operations: put, delete and update (see ops.h).
 *
 * Design notes: the section on write.c in README.md of this folder.
 */
#include "postgres.h"

#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"

#include "ops/capacity.h"
#include "utils/errors.h"
#include "ops/expr_glue.h"
#include "ops/hot_keys.h"
#include "ops/item.h"
#include "format/jsonval.h"
#include "ops/ops.h"
#include "ops/stats.h"
#include "ops/write_internal.h"

/* Insert races lost in a row before a write gives up with 40001 */
#define MAX_WRITE_ATTEMPTS 100

/* The item of the last failed condition that asked for it, and whose it is */
static Jsonb *failure_item = NULL;
static Oid	failure_item_user = InvalidOid;

/* Forgets the item of an earlier failed condition (each write starts so). */
void
st_condition_failure_reset(void)
{
	if (failure_item)
		pfree(failure_item);
	failure_item = NULL;
	failure_item_user = InvalidOid;
}

/*
 * The current item of the last write of this session whose condition failed
 * with return_old_on_failure, or NULL (also when that item did not exist).
 * Only the role that made the write can read it.
 */
Jsonb *
st_condition_failure_item(void)
{
	Jsonb	   *copy;

	if (failure_item == NULL || failure_item_user != GetUserId())
		return NULL;
	copy = palloc(VARSIZE(failure_item));
	memcpy(copy, failure_item, VARSIZE(failure_item));
	return copy;
}

/*
 * Raises ConditionalCheckFailed (SQLSTATE 23S01). With keep, the current
 * item is kept for st_condition_failure_item() in this backend's memory: the
 * error itself carries no item content, since errors reach the server log.
 */
static void
condition_failed(StTable *tab, Jsonb *current, bool keep, StCapacity *cap)
{
	/* a failed condition still costs: the current item's size, or 1 unit */
	st_capacity_write(cap, current, NULL, 0, true);
	st_capacity_end(cap);
	if (keep && current)
	{
		failure_item = MemoryContextAlloc(TopMemoryContext, VARSIZE(current));
		memcpy(failure_item, current, VARSIZE(current));
		failure_item_user = GetUserId();
	}
	ereport(ERROR,
			(errcode(ERRCODE_ST_CONDITIONAL_CHECK_FAILED),
			 errmsg("conditional check failed for an item of table \"%s\"", tab->relname),
			 st_errdetail_dynamodb("The conditional request failed"),
			 keep ? errhint("singletable.condition_check_failure_item() returns the current item.") : 0));
}

/* Whether cond (NULL: none) holds for the locked current item (NULL: none). */
bool
st_write_condition_holds(StTable *tab, const StNode *cond, Jsonb *current)
{
	if (cond == NULL)
		return true;
	return st_eval_condition(cond, st_item_attrs(tab, current, st_attr_names(cond, NULL)));
}

/* Evaluates cond on the locked current item; raises ConditionalCheckFailed. */
static void
check_condition(StTable *tab, const StNode *cond, Jsonb *current, bool keep, StCapacity *cap)
{
	if (!st_write_condition_holds(tab, cond, current))
		condition_failed(tab, current, keep, cap);
}

/*
 * Raises the error being handled again, from a PG_CATCH block (cxt: the
 * memory context the PG_TRY began in). A constraint the user added to the
 * table (CHECK on item, a foreign key) fails with PostgreSQL's DETAIL
 * "Failing row contains (...)" — the whole item, which would reach the
 * server log: such an error is raised again without it. Every statement
 * that writes items runs inside this (single writes here, batches in
 * batch.c).
 */
void
st_write_rethrow_hiding_row(MemoryContext cxt)
{
	ErrorData  *edata;

	MemoryContextSwitchTo(cxt);
	edata = CopyErrorData();
	if (ERRCODE_TO_CATEGORY(edata->sqlerrcode) != ERRCODE_INTEGRITY_CONSTRAINT_VIOLATION ||
		(edata->detail == NULL && edata->detail_log == NULL))
		PG_RE_THROW();
	FlushErrorState();
	edata->detail = pstrdup("The failing row is not shown: it holds item content.");
	edata->detail_log = NULL;
	ReThrowError(edata);
}

/*
 * Executes a kept plan that writes and checks its result code; a
 * constraint's error without the failing row (st_write_rethrow_hiding_row).
 */
void
st_write_run_plan(SPIPlanPtr plan, Datum *values, const char *nulls, int expected)
{
	MemoryContext cxt = CurrentMemoryContext;
	volatile int rc = 0;

	PG_TRY();
	{
		rc = SPI_execute_plan(plan, values, nulls, false, 0);
	}
	PG_CATCH();
	{
		st_write_rethrow_hiding_row(cxt);
	}
	PG_END_TRY();
	if (rc != expected)
		elog(ERROR, "singletable statement failed: %s", SPI_result_code_string(rc));
}

/*
 * The error for a statement that wrote no row although the item was there
 * to write: a BEFORE row trigger returned NULL. what is "insert", "update".
 */
static void
write_skipped_by_trigger(StTable *tab, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_TRIGGERED_ACTION_EXCEPTION),
			 errmsg("a trigger on table \"%s\" skipped the %s of an item", tab->relname, what),
			 errdetail("The statement wrote no row, so the item was not written."),
			 errhint("A BEFORE row trigger on an item-collection table must not return NULL.")));
}

/*
 * An INSERT ... ON CONFLICT DO NOTHING wrote nothing again although the key
 * was just found free. Without row-level security and triggers that is a
 * lost race (the caller retries); otherwise it is not going to clear.
 */
static void
check_insert_not_written(StTable *tab)
{
	Relation	rel = RelationIdGetRelation(tab->relid);
	bool		insert_triggers;
	bool		rls;

	if (!RelationIsValid(rel))
		elog(ERROR, "could not open relation with OID %u", tab->relid);
	insert_triggers = rel->trigdesc && rel->trigdesc->trig_insert_before_row;
	RelationClose(rel);
	rls = check_enable_rls(tab->relid, InvalidOid, true) == RLS_ENABLED;
	if (rls)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("could not write an item to table \"%s\": its key is taken by a row that row-level security hides from role \"%s\"%s",
						tab->relname, GetUserNameFromId(GetUserId(), false),
						insert_triggers ? ", or a trigger skipped the insert" : ""),
				 errhint("The role needs a SELECT and UPDATE policy that shows it every row it may overwrite.")));
	if (insert_triggers)
		write_skipped_by_trigger(tab, "insert");
}

/*
 * Writes the item in values[] after its current version was locked: UPDATE
 * when there was one, else INSERT ... ON CONFLICT DO NOTHING. Returns false
 * when the INSERT lost a race with a concurrent insert of the same key (the
 * caller then locks and checks that item).
 */
bool
st_write_locked(StTable *tab, Datum *values, const char *nulls, bool exists, int attempt)
{
	if (exists)
	{
		st_write_run_plan(st_item_plan(tab, ST_PLAN_UPDATE), values, nulls, SPI_OK_UPDATE);
		if (SPI_processed == 0)
			write_skipped_by_trigger(tab, "update");
		return true;
	}
	st_write_run_plan(st_item_plan(tab, ST_PLAN_INSERT), values, nulls, SPI_OK_INSERT);
	if (SPI_processed > 0)
		return true;
	/* a lost race is over once the winner committed: the next read sees it */
	if (attempt >= 1)
		check_insert_not_written(tab);
	if (attempt >= MAX_WRITE_ATTEMPTS)
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("could not write item to table \"%s\" after %d attempts",
						tab->relname, attempt)));
	return false;
}

/*
 * Converts the key of a request to column values: pk, and sk exactly when
 * the table has a sort key. Errors name the attribute and the table.
 */
void
st_request_keys(StTable *tab, const StKeyText *pk, const StKeyText *sk, StKey *pkk, StKey *skk)
{
	if (pk->data == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("partition key \"%s\" of table \"%s\" must not be NULL",
						tab->pk_name, tab->relname)));
	st_key_from_text(tab->pk_type, pk->data, pk->len, tab->pk_name, tab->relname, false, pkk);
	if (tab->sk_name == NULL)
	{
		if (sk->data != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" has no sort key, but a sort key value was given",
							tab->relname),
					 st_errdetail_dynamodb("The provided key element does not match the schema")));
		return;
	}
	if (sk->data == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sort key \"%s\" of table \"%s\" is missing", tab->sk_name, tab->relname),
				 st_errdetail_dynamodb("The provided key element does not match the schema")));
	st_key_from_text(tab->sk_type, sk->data, sk->len, tab->sk_name, tab->relname, true, skk);
	st_key_check_combined(pkk, skk, tab->relname);
}

/* The statement parameters $1 pk, $2 sk (NULL without a sort key), $3 item (NULL). */
void
st_write_key_params(StTable *tab, const StKey *pk, const StKey *sk, Datum *values, char *nulls)
{
	values[0] = pk->datum;
	nulls[0] = ' ';
	values[1] = tab->sk_name ? sk->datum : (Datum) 0;
	nulls[1] = tab->sk_name ? ' ' : 'n';
	values[2] = (Datum) 0;
	nulls[2] = 'n';
}

/*
 * names (ExpressionAttributeNames) given without any expression, or else vals
 * (ExpressionAttributeValues) without an expression that takes values
 * (null_exprs: DynamoDB's "ConditionExpression is null"): DynamoDB's
 * ValidationException, naming the member.
 */
void
st_expr_members_error(bool names, const char *null_exprs)
{
	if (names)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("names can only be given with an expression"),
				 st_errdetail_dynamodb("ExpressionAttributeNames can only be specified when using expressions")));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("vals can only be given with an expression that takes values"),
			 st_errdetail_dynamodb("ExpressionAttributeValues can only be specified when using expressions: %s",
								   null_exprs)));
}

/* The parsed condition of a write, or NULL; names/vals checked for use. */
StNode *
st_write_parse_condition(StTable *tab, const StExprText *expr)
{
	StExprEnv  *env;
	StNode	   *cond = NULL;

	if (expr->condition == NULL && (expr->names || expr->vals))
		st_expr_members_error(expr->names != NULL, "ConditionExpression is null");
	env = st_env_build(tab, expr->names, expr->vals);
	if (expr->condition)
		cond = st_parse_condition(expr->condition, SE_CONDITION, env);
	st_expr_check_unused(env);
	return cond;
}

/*
 * The start of a put or delete (op): ReturnValues other than NONE and
 * ALL_OLD rejected, no item of an earlier failed condition kept, SPI
 * connected.
 */
static void
put_or_delete_begin(StReturnValues rv, const char *op)
{
	if (rv != ST_RV_NONE && rv != ST_RV_ALL_OLD)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("return_values of %s must be NONE or ALL_OLD", op),
				 st_errdetail_dynamodb("ReturnValues can only be ALL_OLD or NONE")));
	st_condition_failure_reset();
	SPI_connect();
}

/* Copies a result out of SPI's memory into the caller's. */
static Jsonb *
result_out(Jsonb *j)
{
	if (j == NULL)
		return NULL;
	return DatumGetJsonbP(SPI_datumTransfer(JsonbPGetDatum(j), false, -1));
}

/*
 * The end of a put or delete that replaced or deleted old (NULL: none) by
 * item of size bytes (NULL: a delete): its capacity charged and recorded,
 * SPI finished. Returns old, in the caller's memory, for ALL_OLD (want_old),
 * else NULL.
 */
static Jsonb *
put_or_delete_end(StCapacity *cap, Jsonb *old, Jsonb *item, int64 size, bool want_old)
{
	st_capacity_write(cap, old, item, size, false);
	st_capacity_end(cap);
	old = want_old ? result_out(old) : NULL;
	SPI_finish();
	return old;
}

/*
 * PutItem. Without a condition and without ALL_OLD nothing needs the current
 * item, and the write is one upsert statement, atomic by itself. Otherwise
 * the current item is locked and read first. Returns the previous item for
 * ALL_OLD, else NULL.
 */
Jsonb *
st_op_put(const StPutRequest *req)
{
	bool		want_old = req->return_values == ST_RV_ALL_OLD;
	bool		locked;
	StTable    *tab;
	StItem		item;
	StNode	   *cond;
	Datum		values[3];
	char		nulls[3];
	Jsonb	   *old = NULL;
	StCapacity	cap;

	put_or_delete_begin(req->return_values, "put_item");
	/* also an upsert reads: ON CONFLICT compares the key columns */
	tab = st_table_open(req->table_name, RowExclusiveLock, ACL_SELECT | ACL_INSERT | ACL_UPDATE);
	st_capacity_begin(&cap, tab, ST_STAT_PUT_ITEM);

	/*
	 * The upsert learns the item it replaced from singletable._replacing()
	 * in its SET clause, which on a distributed table runs on a worker: there
	 * the item is locked and read first, as for a condition.
	 */
	locked = req->expr.condition != NULL || want_old || tab->distributed;
	cond = st_write_parse_condition(tab, &req->expr);
	st_item_prepare(tab, req->item, &item);
	st_hot_keys_record(tab, true, item.pk.display);
	st_write_key_params(tab, &item.pk, &item.sk, values, nulls);
	values[2] = JsonbPGetDatum(item.jsonb);
	nulls[2] = ' ';

	if (!locked)
	{
		if (cap.enabled)
			st_capacity_arm_replaced(true);
		st_write_run_plan(st_item_plan(tab, ST_PLAN_UPSERT), values, nulls, SPI_OK_INSERT);
		if (SPI_processed == 0)
			write_skipped_by_trigger(tab, "insert or update");
		old = cap.enabled ? st_capacity_replaced() : NULL;
	}
	else
	{
		for (int attempt = 0;; attempt++)
		{
			old = st_item_fetch(tab, ST_PLAN_LOCK, values, nulls, false);
			check_condition(tab, cond, old, req->return_old_on_failure, &cap);
			if (st_write_locked(tab, values, nulls, old != NULL, attempt))
				break;
			/* lost an insert race: the other item is committed now; lock and check it */
			CHECK_FOR_INTERRUPTS();
		}
	}
	old = put_or_delete_end(&cap, old, item.jsonb, item.size, want_old);
	/* forget the replaced item (not returned: unlocked means no ALL_OLD) */
	if (!locked && cap.enabled)
		st_capacity_arm_replaced(false);
	return old;
}

/* DeleteItem. Returns the deleted item for ALL_OLD, else NULL. */
Jsonb *
st_op_delete(const StDeleteRequest *req)
{
	bool		want_old = req->return_values == ST_RV_ALL_OLD;
	StTable    *tab;
	StNode	   *cond;
	StKey		pk,
				sk;
	Datum		values[3];
	char		nulls[3];
	Jsonb	   *old = NULL;
	StCapacity	cap;

	put_or_delete_begin(req->return_values, "delete_item");
	tab = st_table_open(req->table_name, RowExclusiveLock, ACL_DELETE | ACL_SELECT |
						(req->expr.condition ? ACL_UPDATE : 0));
	st_capacity_begin(&cap, tab, ST_STAT_DELETE_ITEM);
	cond = st_write_parse_condition(tab, &req->expr);
	st_request_keys(tab, &req->pk, &req->sk, &pk, &sk);
	st_hot_keys_record(tab, true, pk.display);
	st_write_key_params(tab, &pk, &sk, values, nulls);
	if (cond)
	{
		/*
		 * Lock, check, delete. When no item exists the condition is checked
		 * against none and nothing is deleted, even if a concurrent session
		 * inserts the key meanwhile: that item was not what was checked.
		 */
		old = st_item_fetch(tab, ST_PLAN_LOCK, values, nulls, false);
		check_condition(tab, cond, old, req->return_old_on_failure, &cap);
		if (old == NULL)
			return put_or_delete_end(&cap, NULL, NULL, 0, want_old);
	}
	/* the deleted item: its size is the delete's cost */
	if (want_old || cap.enabled)
		old = st_item_fetch(tab, ST_PLAN_DELETE, values, nulls, false);
	else
		st_write_run_plan(st_item_plan(tab, ST_PLAN_DELETE), values, nulls, SPI_OK_DELETE_RETURNING);
	return put_or_delete_end(&cap, old, NULL, 0, want_old);
}

/*
 * The parsed update expression of an update (update NULL: one of no
 * actions), and its condition in *cond (NULL: none); names/vals checked for
 * use.
 */
StUpdate *
st_write_parse_update(StTable *tab, const char *update, const StExprText *expr, StNode **cond)
{
	StExprEnv  *env;
	StUpdate   *upd;

	if (update == NULL && expr->condition == NULL && (expr->names || expr->vals))
		st_expr_members_error(expr->names != NULL, "UpdateExpression and ConditionExpression are null");
	env = st_env_build(tab, expr->names, expr->vals);
	upd = update ? st_parse_update(update, env) : palloc0(sizeof(StUpdate));

	*cond = NULL;
	if (expr->condition)
		*cond = st_parse_condition(expr->condition, SE_CONDITION, env);
	st_expr_check_unused(env);
	return upd;
}

/*
 * The item an update makes of the current item old (NULL: none), of key
 * pk/sk: false when it writes nothing (an update made only of REMOVE and
 * DELETE creates no item, though a path that cannot exist is still an
 * error); else fills *item, and *newval with the new item as a value. The
 * errors are those of the update on this item (a wrong operand type, a
 * path that cannot exist, the item or an index key over its limit).
 */
bool
st_write_update_item(StTable *tab, const StUpdate *upd, const StKey *pk, const StKey *sk,
					 Jsonb *old, StItem *item, StVal **newval)
{
	StVal	   *oldval = st_item_attrs(tab, old, NULL);

	*newval = NULL;
	if (old == NULL)
	{
		bool		creates = false;

		/* only SET and ADD create an item */
		for (int i = 0; i < upd->n; i++)
			if (upd->actions[i].kind == SU_SET || upd->actions[i].kind == SU_ADD)
				creates = true;
		if (!creates && upd->n > 0)
		{
			/* nothing is written, but a path that cannot exist is an error */
			(void) st_apply_update(upd, oldval);
			return false;
		}
		st_val_map_put(oldval, tab->pk_name, strlen(tab->pk_name), st_key_to_val(tab->pk_type, pk));
		if (tab->sk_name)
			st_val_map_put(oldval, tab->sk_name, strlen(tab->sk_name), st_key_to_val(tab->sk_type, sk));
	}
	*newval = st_apply_update(upd, oldval);
	st_item_from_val(tab, *newval, NULL, true, item);
	return true;
}

/* The UPDATED_* projection of an item on the update's paths, or NULL when empty. */
static Jsonb *
updated_part(const StUpdate *upd, StVal *item)
{
	StVal	   *p = st_project(st_update_paths(upd), item);

	if (p->u.map.n == 0)
		return NULL;
	return st_val_to_jsonb(p, NULL);
}

/*
 * UpdateItem: an absent item is created from its key and the results of SET
 * and ADD (an update made only of REMOVE and DELETE creates nothing). Key
 * attributes cannot be updated. Without an update expression (req->update
 * NULL, DynamoDB's UpdateItem with only a Key) an absent item is created with
 * its key attributes alone and an existing one is written unchanged. Returns
 * what return_values asks for.
 */
Jsonb *
st_op_update(const StUpdateRequest *req)
{
	StTable    *tab;
	StUpdate   *upd;
	StNode	   *cond;
	StKey		pk,
				sk;
	Datum		values[3];
	char		nulls[3];
	Jsonb	   *old = NULL;
	StVal	   *newval = NULL;
	StItem		item;
	bool		written = false;
	Jsonb	   *result = NULL;
	StCapacity	cap;

	st_condition_failure_reset();
	SPI_connect();
	tab = st_table_open(req->table_name, RowExclusiveLock, ACL_SELECT | ACL_INSERT | ACL_UPDATE);
	st_capacity_begin(&cap, tab, ST_STAT_UPDATE_ITEM);
	upd = st_write_parse_update(tab, req->update, &req->expr, &cond);
	st_request_keys(tab, &req->pk, &req->sk, &pk, &sk);
	st_hot_keys_record(tab, true, pk.display);
	st_write_key_params(tab, &pk, &sk, values, nulls);

	for (int attempt = 0;; attempt++)
	{
		old = st_item_fetch(tab, ST_PLAN_LOCK, values, nulls, false);
		check_condition(tab, cond, old, req->return_old_on_failure, &cap);
		if (!st_write_update_item(tab, upd, &pk, &sk, old, &item, &newval))
			break;
		values[2] = JsonbPGetDatum(item.jsonb);
		nulls[2] = ' ';
		if (st_write_locked(tab, values, nulls, old != NULL, attempt))
		{
			written = true;
			break;
		}
		CHECK_FOR_INTERRUPTS();
	}
	st_capacity_write(&cap, old, written ? item.jsonb : NULL, written ? item.size : 0, false);
	st_capacity_end(&cap);

	switch (req->return_values)
	{
		case ST_RV_NONE:
			break;
		case ST_RV_ALL_OLD:
			result = old;
			break;
		case ST_RV_ALL_NEW:
			result = written ? item.jsonb : NULL;
			break;
		case ST_RV_UPDATED_OLD:
			result = old ? updated_part(upd, st_item_attrs(tab, old, NULL)) : NULL;
			break;
		case ST_RV_UPDATED_NEW:
			result = written ? updated_part(upd, newval) : NULL;
			break;
	}
	result = result_out(result);
	SPI_finish();
	return result;
}

/*
 * Parses DynamoDB's ReturnValues of operation op. put_or_delete allows only NONE and ALL_OLD,
 * with DynamoDB's message for the others.
 */
StReturnValues
st_parse_return_values(const char *s, const char *op, bool put_or_delete)
{
	static const char *const names[] = {"NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"};

	for (int i = 0; i < lengthof(names); i++)
		if (strcmp(s, names[i]) == 0)
		{
			if (put_or_delete && i > ST_RV_ALL_OLD)
				break;
			return (StReturnValues) i;
		}
	if (put_or_delete)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("return_values of %s must be NONE or ALL_OLD, not \"%s\"", op, s),
				 st_errdetail_dynamodb("ReturnValues can only be ALL_OLD or NONE")));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("return_values of %s must be one of NONE, ALL_OLD, UPDATED_OLD, ALL_NEW, UPDATED_NEW, not \"%s\"", op, s)));
	return ST_RV_NONE;
}
