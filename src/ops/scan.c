/*
 * scan.c — Scan: DynamoDB's read of a whole table or secondary index, with
 * its parallel-scan contract, and the explanation of a scan (see ops.h).
 *
 * A Scan reads one btree in its order: the table's primary key (pk, sk), or
 * an index's columns (its key expressions, then the table's keys), so that
 * max_items, a start key (ExclusiveStartKey, continuing after that key as a
 * row comparison over every column) and the page marker work as in Query
 * (read.c, whose receiver and checks this shares through read_internal.h).
 *
 * Design notes: the section on scan.c in README.md of this folder.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/pg_statistic.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

#include "catalog/distribute.h"
#include "utils/errors.h"
#include "format/jsonval.h"
#include "ops/ops.h"
#include "ops/read_internal.h"

/* DynamoDB's limit of TotalSegments (Segment is at most one less) */
#define ST_MAX_TOTAL_SEGMENTS 1000000

/* A Scan request, validated and converted to the parameters of its statement */
typedef struct ScanArgs
{
	StQueryArgs qa;				/* filter, projection, index and its key
								 * names: what the receiver reads */
	int			ncols;			/* columns of the btree read */
	const char *exprs[ST_SCAN_MAX_COLS];
	const char *names[ST_SCAN_MAX_COLS];	/* their attributes */
	StKeyType	types[ST_SCAN_MAX_COLS];
	StScanFrom	from;
	bool		has_upper;
	bool		empty;			/* a segment other than 0 without statistics */
	Datum		values[ST_SCAN_MAX_NARGS];
	char		nulls[ST_SCAN_MAX_NARGS];
	Oid			argtypes[ST_SCAN_MAX_NARGS];
	/* a segment of a distributed table: a range of the partition key's hash */
	bool		by_hash;
	bool		hash_has_lower; /* (has_upper is the upper bound's) */
	bool		has_start;
	Datum		hvalues[ST_HSP_NARGS];
	char		hnulls[ST_HSP_NARGS];
	Oid			hargtypes[ST_HSP_NARGS];
} ScanArgs;

/*
 * The statistics of the leading column as the bounds use them: candidate
 * values in key order, each with the fraction of the rows below it, and
 * the fraction of all rows they describe.
 */
typedef struct KeyStats
{
	int			n;
	Datum	   *values;
	double	   *below;
	double		total;
} KeyStats;

/* A most common value and its frequency */
typedef struct CommonValue
{
	Datum		value;
	double		freq;
} CommonValue;

/* Orders common values by key (arg: the StKeyType). */
static int
compare_common(const void *a, const void *b, void *arg)
{
	return st_key_compare(*(StKeyType *) arg, ((const CommonValue *) a)->value,
						  ((const CommonValue *) b)->value);
}

/* Appends candidate v with fraction below, unless it equals the last one. */
static void
add_candidate(KeyStats *ks, StKeyType kt, Datum v, double below)
{
	if (ks->n > 0 && st_key_compare(kt, ks->values[ks->n - 1], v) == 0)
		return;
	ks->values[ks->n] = v;
	ks->below[ks->n] = below;
	ks->n++;
}

/*
 * Reads the statistics of column attnum of relation relid (a table, or an
 * index's expression column) as visible to the active snapshot, and turns
 * them into candidate bounds. False when there are none usable: no row in
 * pg_statistic, values of another type than the key's, or a histogram not
 * in key order.
 */
static bool
load_key_stats(Oid relid, AttrNumber attnum, StKeyType kt, KeyStats *ks)
{
	Relation	rel;
	ScanKeyData key[3];
	SysScanDesc sscan;
	HeapTuple	tup;
	AttStatsSlot mcv;
	AttStatsSlot hist;
	bool		has_mcv = false;
	bool		has_hist = false;
	double		nullfrac = 0;
	Oid			typid = st_key_type_oid(kt);
	CommonValue *common;
	int			nmcv;
	int			nhist;
	double		mcv_sum = 0;
	double		bucket = 0;
	double		running = 0;
	int			i = 0,
				j = 0;

	memset(ks, 0, sizeof(*ks));
	rel = table_open(StatisticRelationId, AccessShareLock);
	ScanKeyInit(&key[0], Anum_pg_statistic_starelid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	ScanKeyInit(&key[1], Anum_pg_statistic_staattnum, BTEqualStrategyNumber, F_INT2EQ,
				Int16GetDatum(attnum));
	ScanKeyInit(&key[2], Anum_pg_statistic_stainherit, BTEqualStrategyNumber, F_BOOLEQ,
				BoolGetDatum(false));
	/* the snapshot the scan reads the items with (see the file header) */
	sscan = systable_beginscan(rel, StatisticRelidAttnumInhIndexId, true, GetActiveSnapshot(),
							   3, key);
	tup = systable_getnext(sscan);
	if (HeapTupleIsValid(tup))
	{
		/* the slots' values are copies: they outlive the scan */
		nullfrac = ((Form_pg_statistic) GETSTRUCT(tup))->stanullfrac;
		has_mcv = get_attstatsslot(&mcv, tup, STATISTIC_KIND_MCV, InvalidOid,
								   ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS);
		has_hist = get_attstatsslot(&hist, tup, STATISTIC_KIND_HISTOGRAM, InvalidOid,
									ATTSTATSSLOT_VALUES);
	}
	systable_endscan(sscan);
	table_close(rel, AccessShareLock);

	nmcv = (has_mcv && mcv.valuetype == typid && mcv.nnumbers == mcv.nvalues) ? mcv.nvalues : 0;
	/* a histogram of one value has no buckets */
	nhist = (has_hist && hist.valuetype == typid && hist.nvalues >= 2) ? hist.nvalues : 0;
	if (nmcv == 0 && nhist == 0)
		return false;
	for (int k = 1; k < nhist; k++)
		if (st_key_compare(kt, hist.values[k - 1], hist.values[k]) > 0)
			return false;		/* sorted by another order than the key's */

	/* the common values in key order (they are stored by frequency) */
	common = palloc(sizeof(CommonValue) * (nmcv + 1));
	for (int k = 0; k < nmcv; k++)
	{
		common[k].value = mcv.values[k];
		common[k].freq = Max(mcv.numbers[k], 0);
		mcv_sum += common[k].freq;
	}
	qsort_arg(common, nmcv, sizeof(CommonValue), compare_common, &kt);
	if (nhist > 0)
		bucket = Max(1.0 - nullfrac - mcv_sum, 0) / (nhist - 1);
	ks->total = mcv_sum + bucket * Max(nhist - 1, 0);
	if (!(ks->total > 0))
		return false;

	/*
	 * Merge both in key order. Below histogram bound j lie j buckets; below
	 * a common value inside bucket j-1 (between bounds j-1 and j) half of
	 * it. The common values below add their frequencies.
	 */
	ks->values = palloc(sizeof(Datum) * (nmcv + nhist));
	ks->below = palloc(sizeof(double) * (nmcv + nhist));
	while (i < nmcv || j < nhist)
	{
		int			c = i >= nmcv ? 1 : j >= nhist ? -1 : st_key_compare(kt, common[i].value, hist.values[j]);

		if (c <= 0)
		{
			double		hbelow = (c == 0) ? j * bucket
				: j == 0 ? 0
				: j >= nhist ? (nhist - 1) * bucket
				: (j - 1) * bucket + bucket / 2;

			add_candidate(ks, kt, common[i].value, hbelow + running);
			running += common[i].freq;
			i++;
			if (c == 0)
				j++;
		}
		else
		{
			add_candidate(ks, kt, hist.values[j], j * bucket + running);
			j++;
		}
	}
	return true;
}

/*
 * Bound i of n (1 <= i < n): the candidate whose fraction of rows below is
 * nearest to i/n of the rows, the lower of two as near. Nondecreasing in i,
 * and the same in every session that sees the same statistics.
 */
static Datum
segment_bound(const KeyStats *ks, int i, int n)
{
	double		target = ks->total * (double) i / (double) n;
	int			lo = 0,
				hi = ks->n;

	/* the first candidate with at least target below it */
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (ks->below[mid] < target)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ks->n)
		return ks->values[ks->n - 1];
	if (lo > 0 && target - ks->below[lo - 1] <= ks->below[lo] - target)
		lo--;
	return ks->values[lo];
}

/*
 * DynamoDB's checks of Segment and TotalSegments, before the table is
 * opened (DynamoDB validates a request's parameters first): each within
 * its range, both or neither, Segment below TotalSegments.
 */
static void
check_segments(const StScanRequest *req)
{
	StringInfoData detail;
	int			nbad = 0;

	initStringInfo(&detail);
	if (req->has_total_segments && (req->total_segments < 1 || req->total_segments > ST_MAX_TOTAL_SEGMENTS))
	{
		appendStringInfo(&detail, "Value '%d' at 'totalSegments' failed to satisfy constraint: Member must have value %s",
						 req->total_segments,
						 req->total_segments < 1 ? "greater than or equal to 1" : "less than or equal to 1000000");
		nbad++;
	}
	if (req->has_segment && (req->segment < 0 || req->segment >= ST_MAX_TOTAL_SEGMENTS))
	{
		appendStringInfo(&detail, "%sValue '%d' at 'segment' failed to satisfy constraint: Member must have value %s",
						 nbad ? "; " : "", req->segment,
						 req->segment < 0 ? "greater than or equal to 0" : "less than or equal to 999999");
		nbad++;
	}
	if (nbad > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("total_segments must be between 1 and %d, and segment between 0 and %d",
						ST_MAX_TOTAL_SEGMENTS, ST_MAX_TOTAL_SEGMENTS - 1),
				 st_errdetail_dynamodb("%d validation error%s detected: %s", nbad, nbad > 1 ? "s" : "",
									   detail.data)));
	if (req->has_segment && !req->has_total_segments)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("segment is given without total_segments"),
				 st_errdetail_dynamodb("The TotalSegments parameter is required but was not present in the request when Segment parameter is present"),
				 errhint("A parallel scan gives both: segment 0 .. total_segments - 1 of total_segments.")));
	if (req->has_total_segments && !req->has_segment)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("total_segments is given without segment"),
				 st_errdetail_dynamodb("The Segment parameter is required but was not present in the request when parameter TotalSegments is present"),
				 errhint("A parallel scan gives both: segment 0 .. total_segments - 1 of total_segments.")));
	if (req->has_segment && req->segment >= req->total_segments)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("segment %d is not less than total_segments %d", req->segment, req->total_segments),
				 st_errdetail_dynamodb("The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: %d is not less than TotalSegments: %d",
									   req->segment, req->total_segments)));
	if (req->max_items < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_items must be at least 1, not %d", req->max_items)));
}

/* The attribute names of the btree's columns (parallel to st_scan_columns). */
static void
column_names(StTable *tab, StIndex *idx, const char **names)
{
	int			n = 0;

	if (idx == NULL)
		names[n++] = tab->pk_name;
	else
	{
		for (int i = 0; i < idx->n_pk; i++)
			names[n++] = idx->pk[i].name;
		for (int j = 0; j < idx->n_sk; j++)
			names[n++] = idx->sk[j].name;
		if (!idx->is_lsi)
			names[n++] = tab->pk_name;
	}
	if (tab->sk_name)
		names[n++] = tab->sk_name;
}

/*
 * Validates the start key of a Scan of the table (exactly the table's key
 * attributes with their types) and sets the start parameters: one per
 * column of the primary key.
 */
static void
parse_table_start_key(StTable *tab, const StScanRequest *req, ScanArgs *sa)
{
	int			nkeys = tab->sk_name ? 2 : 1;
	bool		canonical;
	StVal	   *map;

	if (!JB_ROOT_IS_OBJECT(req->start_key) || JB_ROOT_IS_SCALAR(req->start_key))
		st_start_key_invalid(tab, "scan of", "is not a JSON object");
	if (JB_ROOT_COUNT(req->start_key) != (uint32) nkeys)
		st_start_key_invalid(tab, "scan of", psprintf("has %u attributes, not the %s",
													  JB_ROOT_COUNT(req->start_key),
													  nkeys == 1 ? "key attribute" : "2 key attributes"));
	map = st_jsonb_to_val(req->start_key, "exclusive_start_key", &canonical);
	for (int j = 0; j < sa->ncols; j++)
	{
		StKeyText	t = st_start_key_attr(tab, "scan of", map, sa->names[j], sa->types[j]);
		StKey		k;

		st_key_from_text(sa->types[j], t.data, t.len, sa->names[j], tab->relname, j > 0, &k);
		sa->values[ST_SCP_START(j)] = k.datum;
		sa->nulls[ST_SCP_START(j)] = ' ';
	}
}

/*
 * Validates the start key of a Scan of index idx (DynamoDB's
 * LastEvaluatedKey of an index: exactly the index's key attributes and the
 * table's) and sets the start parameters: one per column of the index.
 */
static void
parse_index_start_key(StTable *tab, StIndex *idx, const StScanRequest *req, ScanArgs *sa)
{
	bool		canonical;
	StVal	   *map;

	if (!JB_ROOT_IS_OBJECT(req->start_key) || JB_ROOT_IS_SCALAR(req->start_key) ||
		JB_ROOT_COUNT(req->start_key) != (uint32) sa->qa.n_key_names)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("exclusive_start_key of a scan of index \"%s\" of table \"%s\" must be an object of exactly its %d key attributes",
						idx->name, tab->relname, sa->qa.n_key_names),
				 st_errdetail_dynamodb("The provided starting key is invalid"),
				 errhint("The start key of an index holds the index's key attributes and the table's key attributes.")));
	map = st_jsonb_to_val(req->start_key, "exclusive_start_key", &canonical);
	for (int c = 0; c < sa->ncols; c++)
	{
		/* errors about an index key attribute name the index's keys, as query's do */
		bool		is_index_sk = c >= idx->n_pk && c < idx->n_pk + idx->n_sk;
		bool		is_index_key = c < idx->n_pk + idx->n_sk;
		StTable		view = is_index_key ? st_index_view(tab, idx, is_index_sk ? c - idx->n_pk : 0) : *tab;
		bool		is_sort = is_index_key ? is_index_sk : strcmp(sa->names[c], tab->pk_name) != 0;
		StKeyText	t = st_start_key_attr(&view, "scan of", map, sa->names[c], sa->types[c]);
		StKey		k;

		st_key_from_text(sa->types[c], t.data, t.len, sa->names[c], tab->relname, is_sort, &k);
		sa->values[ST_SCP_START(c)] = k.datum;
		sa->nulls[ST_SCP_START(c)] = ' ';
	}
}

static void start_key_outside(StTable *tab, StIndex *idx, int s, int n, const char *hint) pg_attribute_noreturn();

/* DynamoDB's error of a start key outside segment s of n; hint says where the bounds come from. */
static void
start_key_outside(StTable *tab, StIndex *idx, int s, int n, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("exclusive_start_key lies outside segment %d of %d of the scan of %s \"%s\"",
					s, n, idx ? "index" : "table", idx ? idx->name : tab->relname),
			 st_errdetail_dynamodb("The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: %d Segment: %d",
								   n, s),
			 errhint("A segment continues only from a key it returned. %s", hint)));
}

/*
 * Bound i (1 <= i < n) of the hash space of a table of nshards shards
 * whose lowest hashes are mins, in hash order (see the file header):
 * position i*nshards/n counted in shards, in shard k = floor(i*nshards/n)
 * the same fraction of its hash range. Nondecreasing in i, and a shard's
 * start whenever i*nshards/n is whole.
 */
static int64
hash_bound(const int32 *mins, int nshards, int i, int n)
{
	int64		pos = (int64) i * nshards;
	int			k = (int) (pos / n);
	int64		part = pos % n;
	int64		width = (k + 1 < nshards ? (int64) mins[k + 1] : (int64) PG_INT32_MAX + 1) - mins[k];

	/* width * part < 2^32 * 10^6: no overflow */
	return mins[k] + width * part / n;
}

/*
 * The segment's range of the partition key's hash on distributed table tab
 * (see the file header), as the parameters of st_hash_scan_sql with the
 * start key's position; refuses a start key outside the segment. False,
 * and nothing set, when tab has no segment index or is not distributed by
 * the hash of its partition key.
 */
static bool
hash_segment_bounds(StTable *tab, StIndex *idx, const StScanRequest *req, ScanArgs *sa, bool has_start)
{
	int			n = req->total_segments;
	int			s = req->segment;
	int32	   *mins;
	int			nshards;
	int64		lower,
				upper;

	if (!st_segment_index_exists(tab) || (nshards = st_shard_hash_mins(tab, &mins)) == 0)
		return false;
	for (int i = 0; i < ST_HSP_NARGS; i++)
		sa->hnulls[i] = 'n';
	st_hash_scan_argtypes(tab, sa->hargtypes);
	sa->by_hash = true;
	sa->has_start = has_start;
	sa->hash_has_lower = s > 0;
	sa->has_upper = s < n - 1;
	lower = s > 0 ? hash_bound(mins, nshards, s, n) : PG_INT32_MIN;
	upper = s < n - 1 ? hash_bound(mins, nshards, s + 1, n) : (int64) PG_INT32_MAX + 1;
	if (sa->hash_has_lower)
	{
		sa->hvalues[ST_HSP_LOWER] = Int32GetDatum((int32) lower);
		sa->hnulls[ST_HSP_LOWER] = ' ';
	}
	if (sa->has_upper)
	{
		sa->hvalues[ST_HSP_UPPER] = Int32GetDatum((int32) upper);
		sa->hnulls[ST_HSP_UPPER] = ' ';
	}
	if (has_start)
	{
		/* the table's keys among the start key's columns (column_names): a GSI's follow its own */
		int			pkcol = (idx && !idx->is_lsi) ? idx->n_pk + idx->n_sk : 0;
		Datum		pk = sa->values[ST_SCP_START(pkcol)];
		int32		hash = st_key_hash(tab->pk_type, pk);

		if (hash < lower || hash >= upper)
			start_key_outside(tab, idx, s, n,
							  psprintf("Its bounds come from the shards of \"%s\" (pg_dist_shard): a shard split since the previous page can move them (see README, Scan).",
									   tab->relname));
		sa->hvalues[ST_HSP_START_HASH] = Int32GetDatum(hash);
		sa->hvalues[ST_HSP_START_PK] = pk;
		sa->hnulls[ST_HSP_START_HASH] = sa->hnulls[ST_HSP_START_PK] = ' ';
		if (tab->sk_name)
		{
			sa->hvalues[ST_HSP_START_SK] = sa->values[ST_SCP_START(sa->ncols - 1)];
			sa->hnulls[ST_HSP_START_SK] = ' ';
		}
	}
	return true;
}

/*
 * The segment's bounds on the leading column, from its statistics, or on a
 * distributed table on the partition key's hash (see the file header);
 * refuses a start key outside the segment. Sets from, has_upper and empty,
 * or by_hash and its parameters.
 */
static void
segment_bounds(StTable *tab, StIndex *idx, const StScanRequest *req, ScanArgs *sa, bool has_start)
{
	KeyStats	ks;
	bool		have_stats;
	int			n = req->has_total_segments ? req->total_segments : 1;
	int			s = req->has_segment ? req->segment : 0;
	bool		has_lower = false;
	Oid			relid;
	AttrNumber	attnum;

	sa->from = has_start ? ST_SCAN_FROM_KEY : ST_SCAN_FROM_START;
	sa->has_upper = false;
	sa->empty = false;
	if (n == 1)
		return;
	if (tab->distributed && hash_segment_bounds(tab, idx, req, sa, has_start))
		return;

	/* a GSI's leading column is an expression of its index; an LSI's is the table's partition key */
	if (idx && !idx->is_lsi)
	{
		relid = idx->indexrelid;
		attnum = 1;
	}
	else
	{
		relid = tab->relid;
		attnum = get_attnum(tab->relid, tab->pk_name);
	}
	/* as pg_stats: no statistics of a table whose rows the caller's policies filter */
	have_stats = check_enable_rls(tab->relid, InvalidOid, true) != RLS_ENABLED &&
		attnum != InvalidAttrNumber && load_key_stats(relid, attnum, sa->types[0], &ks);
	if (!have_stats)
	{
		/* correct without statistics, though not parallel: segment 0 reads every item */
		sa->empty = s > 0;
	}
	else
	{
		if (s > 0)
		{
			sa->values[ST_SCP_LOWER] = segment_bound(&ks, s, n);
			sa->nulls[ST_SCP_LOWER] = ' ';
			has_lower = true;
		}
		if (s < n - 1)
		{
			sa->values[ST_SCP_UPPER] = segment_bound(&ks, s + 1, n);
			sa->nulls[ST_SCP_UPPER] = ' ';
			sa->has_upper = true;
		}
	}
	if (has_start &&
		(sa->empty ||
		 (has_lower && st_key_compare(sa->types[0], sa->values[ST_SCP_START(0)], sa->values[ST_SCP_LOWER]) < 0) ||
		 (sa->has_upper && st_key_compare(sa->types[0], sa->values[ST_SCP_START(0)], sa->values[ST_SCP_UPPER]) >= 0)))
		start_key_outside(tab, idx, s, n,
						  psprintf("Its bounds come from the statistics of \"%s\": an ANALYZE since the previous page can move them (see README, Scan).",
								   sa->names[0]));
	if (!has_start && has_lower)
		sa->from = ST_SCAN_FROM_LOWER;
}

/*
 * Validates a Scan request on table tab and fills sa with the parameters of
 * its statement: the index, filter and projection, start key and segment.
 */
static void
parse_scan(StTable *tab, const StScanRequest *req, ScanArgs *sa)
{
	StIndex    *idx = req->index_name ? st_read_index(tab, req->index_name) : NULL;
	StExprEnv  *env = st_read_env(tab, NULL, req->filter || req->projection, req->filter != NULL,
								  "FilterExpression is null", req->names, req->vals);

	memset(sa, 0, sizeof(*sa));
	for (int i = 0; i < ST_SCAN_MAX_NARGS; i++)
		sa->nulls[i] = 'n';
	sa->qa.index = idx;
	if (idx)
	{
		/* an item's keys as query's: the table's, then the index's */
		st_add_key_name(&sa->qa, tab->pk_name);
		st_add_key_name(&sa->qa, tab->sk_name);
		for (int i = 0; i < idx->n_pk; i++)
			st_add_key_name(&sa->qa, idx->pk[i].name);
		for (int j = 0; j < idx->n_sk; j++)
			st_add_key_name(&sa->qa, idx->sk[j].name);
	}
	/* a Scan's filter may read key attributes (SE_FILTER) */
	st_read_expressions(env, req->filter, SE_FILTER, req->projection, &sa->qa);

	sa->ncols = st_scan_columns(tab, idx, sa->exprs, sa->types);
	column_names(tab, idx, sa->names);
	st_scan_argtypes(tab, idx, sa->argtypes);
	if (req->start_key)
	{
		if (idx)
			parse_index_start_key(tab, idx, req, sa);
		else
			parse_table_start_key(tab, req, sa);
	}
	segment_bounds(tab, idx, req, sa, req->start_key != NULL);
	if (req->max_items > 0)
	{
		sa->values[ST_SCP_LIMIT(sa->ncols)] = Int64GetDatum((int64) req->max_items);
		sa->nulls[ST_SCP_LIMIT(sa->ncols)] = ' ';
		sa->hvalues[ST_HSP_LIMIT] = Int64GetDatum((int64) req->max_items);
		sa->hnulls[ST_HSP_LIMIT] = ' ';
	}
}

/* The SQL of the statement of a segment of a distributed table (sa->by_hash). */
static char *
hash_scan_sql(StTable *tab, const ScanArgs *sa)
{
	return st_hash_scan_sql(tab, sa->qa.index, sa->hash_has_lower, sa->has_upper, sa->has_start);
}

/*
 * Scan: runs the kept statement of this segment's shape on the table or
 * index; its rows go from the executor through st_keyed_receive to row(),
 * as a query's on an index do: a page cut by max_items under a filter ends
 * with a marker (item NULL) carrying the LastEvaluatedKey, on the table in
 * pk and sk, on an index as item with pk and sk NULL. Without a filter the
 * last row's keys continue the scan.
 */
void
st_op_scan(const StScanRequest *req, StQueryRowFn row, void *arg, StReadResult *result)
{
	StTable    *tab;
	ScanArgs	sa;
	StQueryReceiver recv;
	SPIExecuteOptions options;
	int			rc;

	check_segments(req);
	SPI_connect();
	tab = st_table_open_read(req->tab, req->table_name);
	parse_scan(tab, req, &sa);
	st_query_receiver_init(&recv, tab, &sa.qa, req->max_items, req->include_expired, ST_STAT_SCAN,
						   req->consistent_read, req->page, st_keyed_receive, row, arg);
	if (!sa.empty)
	{
		memset(&options, 0, sizeof(options));
		options.params = st_param_list(ST_SCAN_NARGS(sa.ncols), sa.values, sa.nulls, sa.argtypes);
		options.read_only = true;
		options.dest = (DestReceiver *) &recv;

		/*
		 * No key condition routes a scan of a distributed table to one shard:
		 * a one-shot plan, which is always custom (see st_op_query).
		 */
		if (sa.by_hash)
		{
			options.params = st_param_list(ST_HSP_NARGS, sa.hvalues, sa.hnulls, sa.hargtypes);
			rc = SPI_execute_extended(hash_scan_sql(tab, &sa), &options);
		}
		else if (tab->distributed)
			rc = SPI_execute_extended(st_scan_sql(tab, sa.qa.index, sa.from, sa.has_upper), &options);
		else
			rc = SPI_execute_plan_extended(st_scan_plan(tab, sa.qa.index, sa.from, sa.has_upper),
										   &options);
		/* a SELECT into a receiver other than SPI's own reports SPI_OK_UTILITY */
		if (rc < 0)
			elog(ERROR, "singletable scan failed: %s", SPI_result_code_string(rc));
	}
	st_query_receiver_end(&recv, result);
	SPI_finish();
}

/*
 * The plan st_op_scan runs for this request, as EXPLAIN text (see
 * st_explain_plan); for a segment that reads nothing (no statistics), a
 * line that says so. Filter and projection do not change the plan.
 */
char *
st_op_explain_scan(const StScanRequest *req, bool analyze)
{
	StTable    *tab;
	ScanArgs	sa;
	char	   *result;

	check_segments(req);
	SPI_connect();
	tab = st_table_open(req->table_name, AccessShareLock, ACL_SELECT);
	parse_scan(tab, req, &sa);
	if (sa.empty)
	{
		char	   *line = tab->distributed
			? psprintf("(segment %d of %d reads nothing: distributed table \"%s\" has no segment index on the hash of \"%s\" (see README, Scan), and without statistics of \"%s\" segment 0 reads every item)",
					   req->segment, req->total_segments, tab->relname, tab->pk_name, sa.names[0])
			: psprintf("(segment %d of %d reads nothing: without statistics of \"%s\", segment 0 reads every item)",
					   req->segment, req->total_segments, sa.names[0]);

		result = SPI_palloc(strlen(line) + 1);
		strcpy(result, line);
	}
	else if (sa.by_hash)
	{
		/* planned afresh from its text with the segment's bounds, as it runs (one-shot) */
		SPIPlanPtr	plan = SPI_prepare(hash_scan_sql(tab, &sa), ST_HSP_NARGS, sa.hargtypes);

		if (plan == NULL)
			elog(ERROR, "preparing the scan of distributed table \"%s\" failed: %s", tab->relname,
				 SPI_result_code_string(SPI_result));
		result = st_explain_plan(plan, st_param_list(ST_HSP_NARGS, sa.hvalues, sa.hnulls, sa.hargtypes),
								 sa.hargtypes, ST_HSP_NARGS, true, analyze);
	}
	else
		result = st_explain_plan(st_scan_plan(tab, sa.qa.index, sa.from, sa.has_upper),
								 st_param_list(ST_SCAN_NARGS(sa.ncols), sa.values, sa.nulls, sa.argtypes),
								 sa.argtypes, ST_SCAN_NARGS(sa.ncols), tab->distributed, analyze);
	SPI_finish();
	return result;
}
