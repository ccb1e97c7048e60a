/*
 * ttl.c — Time to Live (see ttl.h): the sweep (ttl_sweep and its batches)
 * and what reads call to hide expired items. enable_ttl and disable_ttl are
 * commands/ttl.c; the statistics and ttl_status, ttl_stats.c.
 *
 * As in DynamoDB, a table's TTL attribute holds the expiry time as a Number
 * of seconds since the epoch; an item whose attribute is absent, not a
 * Number, or more than five years in the past never expires. A value in
 * milliseconds by mistake lies tens of thousands of years ahead, so such an
 * item never expires either (README says how to find them).
 *
 * Design notes: the section on ttl.c in README.md of this folder.
 */
#include "postgres.h"

#include "access/xlog.h"
#include "replication/message.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type_d.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "catalog/distribute.h"
#include "utils/errors.h"
#include "format/keys.h"
#include "catalog/registry.h"
#include "ops/ttl.h"

/* the settings of the sweep (guc.c defines them) */
bool		st_ttl_enabled = true;
int			st_ttl_interval = 10;
int			st_ttl_batch_size = 1000;
bool		st_ttl_log_sweeps = false;

PG_FUNCTION_INFO_V1(singletable_ttl_sweep);

/* The current moment of reads and sweeps: whole epoch seconds, and five years before. */
void
st_ttl_clock(StTtlClock *clock)
{
	int64		secs = (int64) ((GetCurrentTimestamp() / USECS_PER_SEC) +
								(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY);

	clock->now = int64_to_numeric(secs);
	clock->floor = int64_to_numeric(secs - ST_TTL_MAX_AGE_SECONDS);
}

/* Whether item (stored form) is expired by tab's TTL setting at clock. */
bool
st_ttl_item_expired(StTable *tab, Jsonb *item, const StTtlClock *clock)
{
	JsonbValue	key;
	JsonbValue *v;

	if (tab->ttl_attr == NULL)
		return false;
	key.type = jbvString;
	key.val.string.val = tab->ttl_attr;
	key.val.string.len = strlen(tab->ttl_attr);
	v = findJsonbValueFromContainer(&item->root, JB_FOBJECT, &key);
	if (v == NULL || v->type != jbvNumeric)
		return false;
	return DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(v->val.numeric),
											 NumericGetDatum(clock->now))) < 0 &&
		DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(v->val.numeric),
										  NumericGetDatum(clock->floor))) >= 0;
}

/*
 * The typed expiry expression: NULL unless the attribute is a Number, so
 * that it never fails on an item whose attribute is a string (which never
 * expires), in whatever order a plan evaluates the conditions.
 */
char *
st_ttl_expiry_expr(const char *attr)
{
	const char *lit = quote_literal_cstr(attr);

	return psprintf("(CASE WHEN pg_catalog.jsonb_typeof(" ST_ITEM_COLUMN " OPERATOR(pg_catalog.->) %s) OPERATOR(pg_catalog.=) 'number'"
					" THEN (" ST_ITEM_COLUMN " OPERATOR(pg_catalog.->) %s)::pg_catalog.numeric END)", lit, lit);
}

/*
 * The condition "expired at $1 (now), not before $2 (the floor)" over the
 * TTL index: its predicate and a range of its expression.
 */
char *
st_ttl_expired_sql(const char *attr)
{
	char	   *expr = st_ttl_expiry_expr(attr);

	return psprintf("%s AND %s OPERATOR(pg_catalog.<) $1 AND %s OPERATOR(pg_catalog.>=) $2",
					st_ttl_expiry_test(attr), expr, expr);
}

/* The test that an item has a numeric expiry (the TTL index's predicate). */

char *
st_ttl_expiry_test(const char *attr)
{
	return psprintf("pg_catalog.jsonb_typeof(" ST_ITEM_COLUMN " OPERATOR(pg_catalog.->) %s) OPERATOR(pg_catalog.=) 'number'",
					quote_literal_cstr(attr));
}

static int64 sweep_batch_here(StTable *tab, const char *qualname, int64 limit,
							  const StTtlClock *clock, StTtlResume *resume);

/*
 * One batch of a sweep: deletes at most limit expired items of tab, chosen
 * through the TTL index, skipping items another transaction has locked.
 * Runs in the caller's SPI connection and transaction.
 *
 * On a table distributed with Citus, which does not lock rows across shards
 * (FOR UPDATE in a multi-shard query), the batch is routed: one multi-shard
 * read, without locks, finds collections (partition keys) holding expired
 * items, and each collection's expired items are then deleted by one
 * statement routed to its shard, where FOR UPDATE SKIP LOCKED works as on a
 * local table. Expired items of a time series cluster in few collections,
 * so a batch is few statements. That is what singletable.ttl_sweep runs,
 * from any node; the TTL workers of a Citus cluster sweep instead each
 * node's own shards (st_ttl_sweep_shard_batch).
 */

int64
st_ttl_sweep_batch(StTable *tab, int64 limit, const StTtlClock *clock, StTtlResume *resume)
{
	Oid			argtypes[4] = {NUMERICOID, NUMERICOID, INT8OID, st_key_type_oid(tab->pk_type)};
	Datum		values[4] = {NumericGetDatum(clock->now), NumericGetDatum(clock->floor),
	Int64GetDatum(limit), (Datum) 0};
	char	   *expr;
	char	   *expired;
	int64		total = 0;
	int			rc;

	Assert(tab->ttl_attr != NULL);
	if (!tab->distributed)
		return sweep_batch_here(tab, tab->qualname, limit, clock, resume);
	else
	{
		const char *pk = quote_identifier(tab->pk_name);
		char	   *del;
		SPITupleTable *keys;
		uint64		nkeys;

		/* as in sweep_batch_here */
		if (XLogLogicalInfoActive())
			(void) LogLogicalMessage("singletable.ttl", "", 0, true);
		expr = st_ttl_expiry_expr(tab->ttl_attr);
		expired = st_ttl_expired_sql(tab->ttl_attr);
		del = psprintf("DELETE FROM %s WHERE %s OPERATOR(pg_catalog.=) $4 AND ctid OPERATOR(pg_catalog.=) ANY (ARRAY("
					   "SELECT ctid FROM %s WHERE %s OPERATOR(pg_catalog.=) $4 AND %s ORDER BY %s LIMIT $3 FOR UPDATE SKIP LOCKED))",
					   tab->qualname, pk, tab->qualname, pk, expired, expr);
		rc = SPI_execute_with_args(psprintf("SELECT DISTINCT %s FROM %s WHERE %s LIMIT $3", pk, tab->qualname, expired),
								   3, argtypes, values, NULL, false, 0);
		if (rc != SPI_OK_SELECT)
			elog(ERROR, "sweeping table \"%s\" failed: %s", tab->relname, SPI_result_code_string(rc));
		keys = SPI_tuptable;
		nkeys = SPI_processed;
		for (uint64 i = 0; i < nkeys && total < limit; i++)
		{
			bool		isnull;

			CHECK_FOR_INTERRUPTS();
			values[2] = Int64GetDatum(limit - total);
			values[3] = SPI_getbinval(keys->vals[i], keys->tupdesc, 1, &isnull);
			rc = SPI_execute_with_args(del, 4, argtypes, values, NULL, false, 0);
			if (rc != SPI_OK_DELETE)
				elog(ERROR, "sweeping table \"%s\" failed: %s", tab->relname, SPI_result_code_string(rc));
			total += (int64) SPI_processed;
		}
		SPI_freetuptable(keys);
		return total;
	}
}

/*
 * One batch of the sweep of the relation qualname that holds tab's items
 * on this node: tab itself (a local table), or one of its Citus shards
 * whose placement is here (st_ttl_sweep_shard_batch). A statement on a
 * shard relation is a local statement, as on a table of its own.
 */
static int64
sweep_batch_here(StTable *tab, const char *qualname, int64 limit, const StTtlClock *clock,
				 StTtlResume *resume)
{
	Oid			argtypes[3] = {NUMERICOID, NUMERICOID, INT8OID};
	Datum		values[3] = {NumericGetDatum(clock->now),
		NumericGetDatum(resume && resume->from ? resume->from : clock->floor),
	Int64GetDatum(limit)};
	char	   *expr = st_ttl_expiry_expr(tab->ttl_attr);
	char	   *expired;
	int64		total;
	int			rc;

	/*
	 * Streams: the output plugin (stream_decode.c) marks this transaction's
	 * deletes as the service's (userIdentity); only where WAL is decoded.
	 */
	if (XLogLogicalInfoActive())
		(void) LogLogicalMessage("singletable.ttl", "", 0, true);
	expired = st_ttl_expired_sql(tab->ttl_attr);

	/*
	 * In expiry order, so that the plan is an index scan that stops after the
	 * limit (the planner's estimate of the range ignores the partial index's
	 * statistics, and a bitmap scan would read the whole backlog for every
	 * batch), and from where the previous batch of this sweep ended, so that
	 * a batch does not walk again over the index entries of the items
	 * already deleted (they stay until VACUUM).
	 */
	rc = SPI_execute_with_args(psprintf("DELETE FROM %s WHERE ctid OPERATOR(pg_catalog.=) ANY (ARRAY("
										"SELECT ctid FROM %s WHERE %s ORDER BY %s LIMIT $3 FOR UPDATE SKIP LOCKED))"
										" RETURNING %s",
										qualname, qualname, expired, expr, expr),
							   3, argtypes, values, NULL, false, 0);
	if (rc != SPI_OK_DELETE_RETURNING)
		elog(ERROR, "sweeping table \"%s\" failed: %s", tab->relname, SPI_result_code_string(rc));
	if (resume)
	{
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			bool		isnull;
			Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);

			if (!isnull && (resume->from == NULL ||
							DatumGetInt32(DirectFunctionCall2(numeric_cmp, d, NumericGetDatum(resume->from))) > 0))
			{
				MemoryContext old = MemoryContextSwitchTo(resume->cxt);

				resume->from = DatumGetNumericCopy(d);
				MemoryContextSwitchTo(old);
			}
		}
	}
	total = (int64) SPI_processed;
	SPI_freetuptable(SPI_tuptable);
	return total;
}

/*
 * One batch of the sweep of distributed table tab on this node: deletes at
 * most limit expired items of its shard shard_relid, whose placement this
 * node holds (st_citus_local_shards), through the shard's copy of the TTL
 * index. What the TTL workers of every Citus node run, each on its own
 * shards, so that no node depends on another to expire items.
 */
int64
st_ttl_sweep_shard_batch(StTable *tab, Oid shard_relid, int64 limit, const StTtlClock *clock,
						 StTtlResume *resume)
{
	char	   *nsp = get_namespace_name(get_rel_namespace(shard_relid));
	char	   *rel = get_rel_name(shard_relid);

	Assert(tab->ttl_attr != NULL && tab->distributed);
	if (nsp == NULL || rel == NULL)
		return -1;				/* moved away meanwhile */
	return sweep_batch_here(tab, quote_qualified_identifier(nsp, rel), limit, clock, resume);
}

/*
 * Sweeps one table in the caller's transaction: batches until none is full
 * or max_items (0: no limit) are deleted.
 */
static int64
sweep_table_here(StTable *tab, int64 max_items, const StTtlClock *clock)
{
	int64		total = 0;
	StTtlResume resume = {NULL, CurrentMemoryContext};

	for (;;)
	{
		int64		want = st_ttl_batch_size;
		int64		n;

		CHECK_FOR_INTERRUPTS();
		if (max_items > 0 && max_items - total < want)
			want = max_items - total;
		if (want <= 0)
			break;
		n = st_ttl_sweep_batch(tab, want, clock, &resume);
		total += n;
		if (n < want)
			break;
	}
	return total;
}

/*
 * singletable.ttl_sweep(table_name DEFAULT NULL, max_items DEFAULT NULL)
 * -> bigint: one sweep from this session, in its transaction: the table
 * named, or every TTL table of the database the caller may read and delete
 * from; returns how many items it deleted.
 */
Datum
singletable_ttl_sweep(PG_FUNCTION_ARGS)
{
	int64		max_items = 0;
	int64		total = 0;
	StTtlClock	clock;
	List	   *names = NIL;
	ListCell   *lc;

	if (!PG_ARGISNULL(1))
	{
		if (PG_GETARG_INT32(1) < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("max_items must be at least 1, not %d", PG_GETARG_INT32(1))));
		max_items = PG_GETARG_INT32(1);
	}
	SPI_connect();
	st_ttl_clock(&clock);
	if (!PG_ARGISNULL(0))
		names = list_make1(PG_GETARG_TEXT_PP(0));
	else
	{
		/* every TTL table the caller may sweep, by qualified name */
		if (SPI_execute("SELECT pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||)"
						" pg_catalog.quote_ident(c.relname) FROM " ST_TTL_REGISTRY " t"
						" JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) t.table_name::pg_catalog.oid"
						" JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace"
						" WHERE pg_catalog.has_table_privilege(c.oid, 'SELECT')"
						" AND pg_catalog.has_table_privilege(c.oid, 'DELETE')"
						" ORDER BY t.table_name::pg_catalog.oid", true, 0) != SPI_OK_SELECT)
			elog(ERROR, "reading the singletable TTL registry failed");
		for (uint64 i = 0; i < SPI_processed; i++)
			names = lappend(names, cstring_to_text(SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1)));
	}
	foreach(lc, names)
	{
		StTable    *tab = st_table_open((text *) lfirst(lc), RowExclusiveLock, ACL_SELECT | ACL_DELETE);
		int64		n;

		if (tab->ttl_attr == NULL)
		{
			if (PG_ARGISNULL(0))
				continue;
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("TTL is not enabled on table \"%s\"", tab->relname),
					 errhint("Enable it with singletable.enable_ttl(table_name, attribute_name).")));
		}
		st_ttl_stats_begin(tab->relid);
		n = sweep_table_here(tab, max_items > 0 ? max_items - total : 0, &clock);
		st_ttl_stats_end(tab->relid, n, NULL);
		total += n;
		if (max_items > 0 && total >= max_items)
			break;
	}
	SPI_finish();
	PG_RETURN_INT64(total);
}
