/*
 * write.c — put_item, delete_item and update_item.
 *
 * Without a condition, a write is one statement: INSERT ... ON CONFLICT (key)
 * DO UPDATE for a put (unless it returns the old item), DELETE ... RETURNING
 * for a delete. Every other write is a read-check-write under a row lock:
 * the current item is read with SELECT ... FOR UPDATE (which waits for a concurrent writer and
 * then returns the latest committed version), the condition is evaluated on
 * it, and the write follows in the same transaction. When the item does not
 * exist and a concurrent session inserts the same key first, the INSERT ...
 * ON CONFLICT DO NOTHING reports no row and the whole sequence runs again,
 * now against that item. So a condition is always checked against the item
 * the write replaces. Under READ COMMITTED this never fails spuriously; under
 * REPEATABLE READ or SERIALIZABLE a concurrent change raises PostgreSQL's
 * serialization failure (40001), which the caller retries.
 *
 * Writes go through SPI with plans cached per table (registry.c), so that an
 * item table stays a plain table (Citus can distribute it).
 */
#include "postgres.h"

#include "executor/spi.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "expr_glue.h"
#include "item.h"
#include "jsonval.h"
#include "registry.h"

PG_FUNCTION_INFO_V1(singletable_put_item);
PG_FUNCTION_INFO_V1(singletable_delete_item);
PG_FUNCTION_INFO_V1(singletable_update_item);

#define ARG_TEXT(n) (PG_ARGISNULL(n) ? NULL : PG_GETARG_TEXT_PP(n))
#define ARG_JSONB(n) (PG_ARGISNULL(n) ? NULL : PG_GETARG_JSONB_P(n))
#define MAX_WRITE_ATTEMPTS 100

/* Executes a kept plan and checks its result code. */
static void
run_plan(SPIPlanPtr plan, Datum *values, const char *nulls, int expected, long count)
{
	int			rc = SPI_execute_plan(plan, values, nulls, false, count);

	if (rc != expected)
		elog(ERROR, "singletable statement failed: %s", SPI_result_code_string(rc));
}

/*
 * Converts the key arguments (pk at position pkarg, sk after it) of
 * get/delete/update to the column datums values[0..1] and nulls[0..1].
 */
void
st_key_args(StTable *tab, FunctionCallInfo fcinfo, int pkarg, Datum *values, char *nulls)
{
	StKey		pk,
				sk;

	st_key_args_full(tab, fcinfo, pkarg, &pk, &sk);
	values[0] = pk.datum;
	nulls[0] = ' ';
	values[1] = tab->sk_name ? sk.datum : (Datum) 0;
	nulls[1] = tab->sk_name ? ' ' : 'n';
}

/* st_key_args, returning the keys themselves. */
void
st_key_args_full(StTable *tab, FunctionCallInfo fcinfo, int pkarg, StKey *pk, StKey *sk)
{
	text	   *t;

	if (PG_ARGISNULL(pkarg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("partition key \"%s\" of table \"%s\" must not be NULL",
						tab->pk_name, tab->relname)));
	t = PG_GETARG_TEXT_PP(pkarg);
	st_key_from_text(tab->pk_type, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), tab->pk_name,
					 tab->relname, false, pk);
	if (tab->sk_name == NULL)
	{
		if (!PG_ARGISNULL(pkarg + 1))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" has no sort key, but a sort key value was given",
							tab->relname),
					 errdetail("The provided key element does not match the schema")));
		return;
	}
	if (PG_ARGISNULL(pkarg + 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sort key \"%s\" of table \"%s\" is missing", tab->sk_name, tab->relname),
				 errdetail("The provided key element does not match the schema")));
	t = PG_GETARG_TEXT_PP(pkarg + 1);
	st_key_from_text(tab->sk_type, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), tab->sk_name,
					 tab->relname, true, sk);
	st_key_check_combined(pk, sk, tab->relname);
}

/* The parsed condition of a write, or NULL; names/vals checked for use. */
static StNode *
parse_write_condition(StTable *tab, text *condition, Jsonb *names, Jsonb *vals, StExprEnv **envp)
{
	StExprEnv  *env;
	StNode	   *cond = NULL;

	if (condition == NULL && (names || vals))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("names and vals can only be given with an expression"),
				 errdetail("ExpressionAttributeNames can only be specified when using expressions")));
	env = st_env_build(tab, names, vals);
	if (condition)
		cond = st_parse_condition(text_to_cstring(condition), SE_CONDITION, env);
	if (envp)
		*envp = env;
	else
		st_expr_check_unused(env);
	return cond;
}

/*
 * Writes the item in values[] after its current version was locked: UPDATE
 * when there was one, else INSERT ... ON CONFLICT DO NOTHING. Returns false
 * when the INSERT lost a race with a concurrent insert of the same key (the
 * caller then locks and checks that item); gives up after many attempts.
 */
static bool
write_locked(StTable *tab, Datum *values, const char *nulls, bool exists, int attempt)
{
	if (exists)
	{
		run_plan(st_item_plan(tab, ST_PLAN_UPDATE), values, nulls, SPI_OK_UPDATE, 0);
		return true;
	}
	run_plan(st_item_plan(tab, ST_PLAN_INSERT), values, nulls, SPI_OK_INSERT, 0);
	if (SPI_processed > 0)
		return true;
	if (attempt >= MAX_WRITE_ATTEMPTS)
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("could not write item to table \"%s\" after %d attempts",
						tab->relname, attempt)));
	return false;
}

/* Evaluates cond on the locked current item; raises ConditionalCheckFailed. */
static void
check_condition(StTable *tab, const StNode *cond, Jsonb *current, bool return_old)
{
	if (cond == NULL)
		return;
	if (!st_eval_condition(cond, st_item_attrs(tab, current, st_attr_names(cond, NULL))))
		st_condition_failed(tab, current, return_old);
}

/*
 * return_values of put_item and delete_item: NONE (the default, as in
 * DynamoDB) or ALL_OLD. Returns true for ALL_OLD.
 */
static bool
parse_return_old(text *arg, const char *func)
{
	if (arg == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("return_values of %s must not be NULL", func)));
	return st_parse_none_or_all_old(arg, psprintf("return_values of %s", func),
									"ReturnValues can only be ALL_OLD or NONE");
}

/*
 * singletable.put_item(table_name, item, condition, names, vals,
 *                      return_values, return_values_on_condition_check_failure)
 *   -> the previous item (return_values ALL_OLD) or NULL.
 *
 * Without a condition and without ALL_OLD nothing needs the current item, and
 * the write is one upsert statement (INSERT ... ON CONFLICT (key) DO UPDATE),
 * atomic by itself. Otherwise the current item is locked and read first.
 */
Datum
singletable_put_item(PG_FUNCTION_ARGS)
{
	StTable    *tab;
	StItem		item;
	StNode	   *cond;
	Datum		values[3];
	char		nulls[3] = {' ', ' ', ' '};
	Jsonb	   *old = NULL;
	bool		want_old = parse_return_old(ARG_TEXT(5), "put_item");
	bool		return_old = st_return_old_on_failure(ARG_TEXT(6));

	SPI_connect();
	tab = st_table_open(ARG_TEXT(0), RowExclusiveLock,
						ACL_SELECT | ACL_INSERT | ACL_UPDATE);
	cond = parse_write_condition(tab, ARG_TEXT(2), ARG_JSONB(3), ARG_JSONB(4), NULL);
	st_item_prepare(tab, ARG_JSONB(1), &item);
	values[0] = item.pk.datum;
	values[1] = tab->sk_name ? item.sk.datum : (Datum) 0;
	nulls[1] = tab->sk_name ? ' ' : 'n';
	values[2] = JsonbPGetDatum(item.jsonb);

	if (cond == NULL && !want_old)
		run_plan(st_item_plan(tab, ST_PLAN_UPSERT), values, nulls, SPI_OK_INSERT, 0);
	else
	{
		for (int attempt = 0;; attempt++)
		{
			old = st_item_fetch(tab, ST_PLAN_LOCK, values, nulls, false);
			check_condition(tab, cond, old, return_old);
			if (write_locked(tab, values, nulls, old != NULL, attempt))
				break;
			/* lost an insert race: the other item is committed now; lock and check it */
		}
	}
	SPI_finish();
	if (old == NULL || !want_old)
		PG_RETURN_NULL();
	PG_RETURN_JSONB_P(old);
}

/*
 * singletable.delete_item(table_name, pk, sk, condition, names, vals,
 *                         return_values, return_values_on_condition_check_failure)
 *   -> the deleted item (return_values ALL_OLD) or NULL.
 */
Datum
singletable_delete_item(PG_FUNCTION_ARGS)
{
	StTable    *tab;
	StNode	   *cond;
	Datum		values[3];
	char		nulls[3] = {' ', ' ', 'n'};
	Jsonb	   *old;
	bool		want_old = parse_return_old(ARG_TEXT(6), "delete_item");
	bool		return_old = st_return_old_on_failure(ARG_TEXT(7));

	SPI_connect();
	tab = st_table_open(ARG_TEXT(0), RowExclusiveLock,
						ACL_SELECT | ACL_DELETE | (PG_ARGISNULL(3) ? 0 : ACL_UPDATE));
	cond = parse_write_condition(tab, ARG_TEXT(3), ARG_JSONB(4), ARG_JSONB(5), NULL);
	st_key_args(tab, fcinfo, 1, values, nulls);
	values[2] = (Datum) 0;
	if (cond)
	{
		/*
		 * Lock, check, delete. When no item exists the condition is checked
		 * against none and nothing is deleted, even if a concurrent session
		 * inserts the key meanwhile: that item was not what was checked.
		 */
		old = st_item_fetch(tab, ST_PLAN_LOCK, values, nulls, false);
		check_condition(tab, cond, old, return_old);
		if (old == NULL)
		{
			SPI_finish();
			PG_RETURN_NULL();
		}
	}
	if (want_old)
		old = st_item_fetch(tab, ST_PLAN_DELETE, values, nulls, false);
	else
	{
		run_plan(st_item_plan(tab, ST_PLAN_DELETE), values, nulls, SPI_OK_DELETE_RETURNING, 0);
		old = NULL;
	}
	SPI_finish();
	if (old == NULL)
		PG_RETURN_NULL();
	PG_RETURN_JSONB_P(old);
}

typedef enum ReturnValues
{
	RV_NONE,
	RV_ALL_OLD,
	RV_UPDATED_OLD,
	RV_ALL_NEW,
	RV_UPDATED_NEW
} ReturnValues;

static ReturnValues
parse_return_values(text *arg)
{
	char	   *s;

	if (arg == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("return_values must not be NULL")));
	s = text_to_cstring(arg);
	if (strcmp(s, "NONE") == 0)
		return RV_NONE;
	if (strcmp(s, "ALL_OLD") == 0)
		return RV_ALL_OLD;
	if (strcmp(s, "UPDATED_OLD") == 0)
		return RV_UPDATED_OLD;
	if (strcmp(s, "ALL_NEW") == 0)
		return RV_ALL_NEW;
	if (strcmp(s, "UPDATED_NEW") == 0)
		return RV_UPDATED_NEW;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("return_values must be one of NONE, ALL_OLD, UPDATED_OLD, ALL_NEW, UPDATED_NEW, not \"%s\"", s)));
	return RV_NONE;
}

/* The UPDATED_* projection of an item on the update's paths, or NULL when empty. */
static Jsonb *
updated_part(StTable *tab, const StUpdate *upd, StVal *item)
{
	StVal	   *p = st_project(st_update_paths(upd), item);

	if (p->u.map.n == 0)
		return NULL;
	return st_val_to_jsonb(p, NULL);
}

/*
 * singletable.update_item(table_name, pk, sk, update, condition, names, vals,
 *                         return_values, return_values_on_condition_check_failure)
 *
 * DynamoDB's UpdateItem: an absent item is created from its key and the
 * results of SET and ADD (an update made only of REMOVE and DELETE creates
 * nothing). Key attributes cannot be updated.
 */
Datum
singletable_update_item(PG_FUNCTION_ARGS)
{
	StTable    *tab;
	StExprEnv  *env;
	StUpdate   *upd;
	StNode	   *cond;
	StKey		pk,
				sk;
	Datum		values[3];
	char		nulls[3] = {' ', ' ', ' '};
	Jsonb	   *old = NULL;
	StVal	   *oldval = NULL,
			   *newval = NULL;
	StItem		item;
	bool		written = false;
	ReturnValues rv = parse_return_values(ARG_TEXT(7));
	bool		return_old = st_return_old_on_failure(ARG_TEXT(8));
	Jsonb	   *result = NULL;

	SPI_connect();
	tab = st_table_open(ARG_TEXT(0), RowExclusiveLock, ACL_SELECT | ACL_INSERT | ACL_UPDATE);
	if (PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("update must not be NULL"),
				 errhint("Write an update expression such as SET #n = :v.")));
	env = st_env_build(tab, ARG_JSONB(5), ARG_JSONB(6));
	upd = st_parse_update(text_to_cstring(PG_GETARG_TEXT_PP(3)), env);
	cond = PG_ARGISNULL(4) ? NULL : st_parse_condition(text_to_cstring(PG_GETARG_TEXT_PP(4)), SE_CONDITION, env);
	st_expr_check_unused(env);
	st_key_args_full(tab, fcinfo, 1, &pk, &sk);
	values[0] = pk.datum;
	values[1] = tab->sk_name ? sk.datum : (Datum) 0;
	nulls[1] = tab->sk_name ? ' ' : 'n';

	for (int attempt = 0;; attempt++)
	{
		bool		creates = false;

		old = st_item_fetch(tab, ST_PLAN_LOCK, values, nulls, false);
		check_condition(tab, cond, old, return_old);
		oldval = st_item_attrs(tab, old, NULL);
		if (old == NULL)
		{
			/* only SET and ADD create an item */
			for (int i = 0; i < upd->n; i++)
				if (upd->actions[i].kind == SU_SET || upd->actions[i].kind == SU_ADD)
					creates = true;
			if (!creates && upd->n > 0)
				break;
			st_val_map_put(oldval, tab->pk_name, strlen(tab->pk_name), st_key_to_val(tab->pk_type, &pk));
			if (tab->sk_name)
				st_val_map_put(oldval, tab->sk_name, strlen(tab->sk_name), st_key_to_val(tab->sk_type, &sk));
		}
		newval = st_apply_update(upd, oldval);
		st_item_from_val(tab, newval, NULL, true, &item);
		values[2] = JsonbPGetDatum(item.jsonb);
		if (write_locked(tab, values, nulls, old != NULL, attempt))
		{
			written = true;
			break;
		}
	}

	switch (rv)
	{
		case RV_NONE:
			break;
		case RV_ALL_OLD:
			result = old;
			break;
		case RV_ALL_NEW:
			result = written ? item.jsonb : NULL;
			break;
		case RV_UPDATED_OLD:
			result = old ? updated_part(tab, upd, st_item_attrs(tab, old, NULL)) : NULL;
			break;
		case RV_UPDATED_NEW:
			result = written ? updated_part(tab, upd, newval) : NULL;
			break;
	}
	if (result)
		result = DatumGetJsonbP(SPI_datumTransfer(JsonbPGetDatum(result), false, -1));
	SPI_finish();
	if (result == NULL)
		PG_RETURN_NULL();
	PG_RETURN_JSONB_P(result);
}
