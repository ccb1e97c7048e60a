/*
 * write.c — put_item and delete_item.
 *
 * Writes go through SPI with plans cached per table (registry.c), so that an
 * item table can be distributed by Citus and queried by plain SQL alike.
 */
#include "postgres.h"

#include "executor/spi.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "item.h"
#include "registry.h"

PG_FUNCTION_INFO_V1(singletable_put_item);
PG_FUNCTION_INFO_V1(singletable_delete_item);

/* Executes a kept plan and checks its result code. */
static void
run_plan(SPIPlanPtr plan, Datum *values, const char *nulls, int expected, long count)
{
	int			rc = SPI_execute_plan(plan, values, nulls, false, count);

	if (rc != expected)
		elog(ERROR, "singletable statement failed: %s", SPI_result_code_string(rc));
}

/* The jsonb in column 1 of the first result row, copied out of SPI memory. */
static Datum
first_item(bool *isnull)
{
	Datum		d;

	*isnull = true;
	if (SPI_processed == 0)
		return (Datum) 0;
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, isnull);
	return *isnull ? (Datum) 0 : SPI_datumTransfer(d, false, -1);
}

/*
 * Converts the key arguments (pk at position pkarg, sk after it) of
 * get_item/delete_item to the column datums values[0..1] and nulls[0..1].
 */
void
st_key_args(StTable *tab, FunctionCallInfo fcinfo, int pkarg, Datum *values, char *nulls)
{
	StKey		pk,
				sk;
	text	   *t;

	if (PG_ARGISNULL(pkarg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("partition key \"%s\" of table \"%s\" must not be NULL",
						tab->pk_name, tab->relname)));
	t = PG_GETARG_TEXT_PP(pkarg);
	st_key_from_text(tab->pk_type, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), tab->pk_name,
					 tab->relname, false, &pk);
	values[0] = pk.datum;
	nulls[0] = ' ';
	if (tab->sk_name == NULL)
	{
		if (!PG_ARGISNULL(pkarg + 1))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" has no sort key, but a sort key value was given",
							tab->relname),
					 errdetail("The provided key element does not match the schema")));
		values[1] = (Datum) 0;
		nulls[1] = 'n';
		return;
	}
	if (PG_ARGISNULL(pkarg + 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sort key \"%s\" of table \"%s\" is missing", tab->sk_name, tab->relname),
				 errdetail("The provided key element does not match the schema")));
	t = PG_GETARG_TEXT_PP(pkarg + 1);
	st_key_from_text(tab->sk_type, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), tab->sk_name,
					 tab->relname, true, &sk);
	st_key_check_combined(&pk, &sk, tab->relname);
	values[1] = sk.datum;
	nulls[1] = ' ';
}

/*
 * singletable.put_item(table_name, item) -> previous item or NULL.
 *
 * Reads the current item under a row lock (SELECT ... FOR UPDATE), then
 * updates it or inserts the new one. If a concurrent session inserts the same
 * key between the two (the INSERT's ON CONFLICT DO NOTHING reports 0 rows),
 * the loop reads again and now finds, locks and replaces that item, so the
 * previous item returned is exactly the one this write replaced.
 */
Datum
singletable_put_item(PG_FUNCTION_ARGS)
{
	StTable    *tab;
	StItem		item;
	Datum		values[3];
	char		nulls[3] = {' ', ' ', ' '};
	Datum		old = (Datum) 0;
	bool		oldnull = true;

	SPI_connect();
	tab = st_table_open(PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0), RowExclusiveLock);
	st_item_prepare(tab, PG_ARGISNULL(1) ? NULL : PG_GETARG_JSONB_P(1), &item);
	values[0] = item.pk.datum;
	values[1] = tab->sk_name ? item.sk.datum : (Datum) 0;
	nulls[1] = tab->sk_name ? ' ' : 'n';
	values[2] = JsonbPGetDatum(item.jsonb);

	for (int attempt = 0;; attempt++)
	{
		run_plan(st_item_plan(tab, ST_PLAN_LOCK), values, nulls, SPI_OK_SELECT, 1);
		if (SPI_processed > 0)
		{
			old = first_item(&oldnull);
			run_plan(st_item_plan(tab, ST_PLAN_UPDATE), values, nulls, SPI_OK_UPDATE, 0);
			break;
		}
		run_plan(st_item_plan(tab, ST_PLAN_INSERT), values, nulls, SPI_OK_INSERT, 0);
		if (SPI_processed > 0)
			break;
		/* lost an insert race: the other item is committed now, lock it */
		if (attempt >= 100)
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("could not write item to table \"%s\" after %d attempts",
							tab->relname, attempt)));
	}
	SPI_finish();
	if (oldnull)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(old);
}

/* singletable.delete_item(table_name, pk, sk) -> the deleted item or NULL. */
Datum
singletable_delete_item(PG_FUNCTION_ARGS)
{
	StTable    *tab;
	Datum		values[3];
	char		nulls[3] = {' ', ' ', 'n'};
	Datum		old;
	bool		oldnull;

	SPI_connect();
	tab = st_table_open(PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0), RowExclusiveLock);
	st_key_args(tab, fcinfo, 1, values, nulls);
	values[2] = (Datum) 0;
	run_plan(st_item_plan(tab, ST_PLAN_DELETE), values, nulls, SPI_OK_DELETE_RETURNING, 0);
	old = first_item(&oldnull);
	SPI_finish();
	if (oldnull)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(old);
}
