/*
 * direct.c — point reads and key-range queries of a table read straight
 * from its primary-key index (index scan with scan keys, heap fetch under
 * the active snapshot), instead of running their kept statement through
 * SPI; the statement stays the path wherever this one could not be exact.
 *
 * Design notes: the section on direct.c in README.md of this folder.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/relscan.h"
#include "access/skey.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_type_d.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/bitmapset.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/typcache.h"

#include "catalog/registry.h"
#include "catalog/statements.h"
#include "ops/direct.h"
#include "ops/read_internal.h"

/* singletable.direct_reads: off sends every read through its statement */
bool		st_direct_reads = true;

/* A direct read of a table: the relations, the key columns, the scan */
typedef struct DirectRead
{
	Relation	heap;
	Relation	index;
	AttrNumber	pk_att;			/* the table's columns (1-based) */
	AttrNumber	sk_att;			/* InvalidAttrNumber without a sort key */
	AttrNumber	item_att;
	IndexScanDesc scan;
	TupleTableSlot *slot;		/* the heap's rows */
	bool		own_slot;		/* slot is the read's (dropped at its end) */
} DirectRead;

/* The column named name of rel (not dropped), or InvalidAttrNumber */
static AttrNumber
column_of(Relation rel, const char *name)
{
	TupleDesc	desc = RelationGetDescr(rel);

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (!att->attisdropped && strcmp(NameStr(att->attname), name) == 0)
			return att->attnum;
	}
	return InvalidAttrNumber;
}

/*
 * Whether index column i (0-based) of the btree is column att of the key
 * type kt under the type's default btree operator family and the column's
 * collation: what the statement's "col OPERATOR(pg_catalog.op) $n"
 * compares with, so that its scan keys select the same rows in the same
 * order.
 */
static bool
index_column_is(Relation heap, Relation index, int i, AttrNumber att, StKeyType kt)
{
	Oid			typid = st_key_type_oid(kt);
	TypeCacheEntry *tce;

	if (index->rd_index->indkey.values[i] != att)
		return false;
	if (index->rd_opcintype[i] != typid ||
		TupleDescAttr(RelationGetDescr(heap), att - 1)->atttypid != typid)
		return false;
	if (index->rd_indcollation[i] != TupleDescAttr(RelationGetDescr(heap), att - 1)->attcollation)
		return false;
	tce = lookup_type_cache(typid, TYPECACHE_BTREE_OPFAMILY);
	return index->rd_opfamily[i] == tce->btree_opf;
}

/*
 * Why a direct read of tab (opened as heap) could differ from its
 * statement, or NULL when it cannot: then d holds the primary-key index,
 * opened. Each reason is a fallback to the statement path:
 *  - singletable.direct_reads is off (the statement path forced);
 *  - a Citus table: the coordinator's table is a shell, Citus's planner
 *    routes the statement to the shards;
 *  - a partitioned table, or one with inheritance children: the statement
 *    reads the partitions / children too;
 *  - row-level security enabled: the statement adds the policies' quals
 *    (for the owner too when forced; the planner decides per role);
 *  - no active snapshot (the statement would take one of its own);
 *  - no usable primary key: not a valid, non-partial btree on exactly the
 *    key columns with the key types' default operator families and the
 *    columns' collations (the registry creates it so; a table altered by
 *    hand may differ, and the planner then chooses another plan).
 */
static const char *
direct_refusal(StTable *tab, DirectRead *d)
{
	Relation	heap = d->heap;
	Oid			pkidx;
	Relation	index;
	int			nkeys = tab->sk_name ? 2 : 1;

	if (!st_direct_reads)
		return "singletable.direct_reads is off";
	if (tab->citus)
		return "it is a Citus table";
	if (heap->rd_rel->relkind != RELKIND_RELATION)
		return "it is partitioned";
	if (heap->rd_rel->relhassubclass)
		return "it has inheritance children";
	if (heap->rd_rel->relrowsecurity)
		return "row-level security is enabled on it";
	if (!ActiveSnapshotSet())
		return "there is no active snapshot";
	d->pk_att = column_of(heap, tab->pk_name);
	d->sk_att = tab->sk_name ? column_of(heap, tab->sk_name) : InvalidAttrNumber;
	d->item_att = column_of(heap, ST_ITEM_COLUMN);
	if (d->pk_att == InvalidAttrNumber || d->item_att == InvalidAttrNumber ||
		(tab->sk_name && d->sk_att == InvalidAttrNumber))
		return "a key or item column is missing";
	pkidx = RelationGetPrimaryKeyIndex(heap);
	if (!OidIsValid(pkidx))
		return "it has no primary key";
	index = index_open(pkidx, AccessShareLock);
	if (index->rd_rel->relam != BTREE_AM_OID || !index->rd_index->indisvalid ||
		!index->rd_index->indisready ||
		index->rd_index->indnkeyatts != nkeys ||
		!heap_attisnull(index->rd_indextuple, Anum_pg_index_indpred, NULL) ||
		!heap_attisnull(index->rd_indextuple, Anum_pg_index_indexprs, NULL) ||
		!index_column_is(heap, index, 0, d->pk_att, tab->pk_type) ||
		(tab->sk_name && !index_column_is(heap, index, 1, d->sk_att, tab->sk_type)))
	{
		index_close(index, AccessShareLock);
		return "its primary key is not the btree the statement reads";
	}
	d->index = index;
	return NULL;
}

/*
 * The privilege check of the statement (SELECT of pk, sk and item),
 * through the executor's own: the same errors, the same hook
 * (ExecutorCheckPerms_hook).
 */
static void
check_privileges(DirectRead *d)
{
	RangeTblEntry *rte = makeNode(RangeTblEntry);

	rte->rtekind = RTE_RELATION;
	rte->relid = RelationGetRelid(d->heap);
	rte->relkind = d->heap->rd_rel->relkind;
	rte->rellockmode = AccessShareLock;
	rte->requiredPerms = ACL_SELECT;
	rte->selectedCols = bms_add_member(NULL, d->pk_att - FirstLowInvalidHeapAttributeNumber);
	if (d->sk_att != InvalidAttrNumber)
		rte->selectedCols = bms_add_member(rte->selectedCols,
										   d->sk_att - FirstLowInvalidHeapAttributeNumber);
	rte->selectedCols = bms_add_member(rte->selectedCols,
									   d->item_att - FirstLowInvalidHeapAttributeNumber);
	(void) ExecCheckRTPerms(list_make1(rte), true);
}

/*
 * Opens tab for a direct read (what: the operation, for the DEBUG1 line
 * that says which path ran); false, with the relations closed, when the
 * read must run its statement (said in DEBUG1 only if say_refusal: a
 * caller that then runs the statement path, which says it, does not).
 */
static bool
direct_begin(StTable *tab, DirectRead *d, const char *what, bool say_refusal)
{
	const char *why;

	memset(d, 0, sizeof(*d));
	/* every read opened tab with st_table_open first: its ACCESS SHARE lock is held */
	d->heap = table_open(tab->relid, NoLock);
	why = direct_refusal(tab, d);
	if (why != NULL)
	{
		table_close(d->heap, NoLock);
		if (say_refusal)
			ereport(DEBUG1,
					(errmsg_internal("singletable: %s of table \"%s\" runs its statement: %s",
									 what, tab->relname, why)));
		return false;
	}
	ereport(DEBUG1,
			(errmsg_internal("singletable: %s of table \"%s\" reads its primary key directly",
							 what, tab->relname)));
	check_privileges(d);
	return true;
}

/* The comparison function of key type kt for btree strategy strategy */
static RegProcedure
key_proc(StKeyType kt, StrategyNumber strategy)
{
	static const RegProcedure s_procs[] = {F_TEXT_LT, F_TEXT_LE, F_TEXTEQ, F_TEXT_GE, F_TEXT_GT};
	static const RegProcedure n_procs[] = {F_NUMERIC_LT, F_NUMERIC_LE, F_NUMERIC_EQ, F_NUMERIC_GE, F_NUMERIC_GT};
	static const RegProcedure b_procs[] = {F_BYTEALT, F_BYTEALE, F_BYTEAEQ, F_BYTEAGE, F_BYTEAGT};

	Assert(strategy >= BTLessStrategyNumber && strategy <= BTGreaterStrategyNumber);
	switch (kt)
	{
		case ST_KEY_S:
			return s_procs[strategy - 1];
		case ST_KEY_N:
			return n_procs[strategy - 1];
		case ST_KEY_B:
			return b_procs[strategy - 1];
	}
	elog(ERROR, "unknown key type %d", (int) kt);
	return InvalidOid;
}

/* Sets scan key *key: index column col (1-based) of key type kt, strategy, value */
static void
key_init(DirectRead *d, ScanKey key, AttrNumber col, StKeyType kt, StrategyNumber strategy,
		 Datum value)
{
	ScanKeyEntryInitialize(key, 0, col, strategy, st_key_type_oid(kt),
						   d->index->rd_indcollation[col - 1], key_proc(kt, strategy), value);
}

/*
 * Starts the scan of the index with keys, under the active snapshot (as the
 * executor's), its rows fetched into slot (a heap tuple slot of the caller's,
 * left to it at the end) or, when NULL, into a slot of the table's own.
 */
static void
direct_scan(DirectRead *d, ScanKey keys, int nkeys, TupleTableSlot *slot)
{
	d->scan = index_beginscan(d->heap, d->index, GetActiveSnapshot(), nkeys, 0);
	index_rescan(d->scan, keys, nkeys, NULL, 0);
	d->own_slot = slot == NULL;
	d->slot = slot ? slot : table_slot_create(d->heap, NULL);
}

/* The next row of the scan in direction dir, or false */
static bool
direct_next(DirectRead *d, ScanDirection dir)
{
	if (!index_getnext_slot(d->scan, dir, d->slot))
		return false;
	/* a btree's scan keys are exact: the executor would have nothing to recheck */
	if (d->scan->xs_recheck)
		elog(ERROR, "singletable: unexpected recheck of an index scan of table \"%s\"",
			 RelationGetRelationName(d->heap));
	return true;
}

/* Ends the scan and closes the relations (the locks stay, as the executor's) */
static void
direct_end(DirectRead *d)
{
	if (d->slot && d->own_slot)
		ExecDropSingleTupleTableSlot(d->slot);
	if (d->scan)
		index_endscan(d->scan);
	index_close(d->index, NoLock);
	table_close(d->heap, NoLock);
}

/*
 * GetItem's read: the item of key values[0] (pk), values[1] (sk) copied
 * into the SPI caller's memory (spi: as st_item_fetch does) or the current
 * memory context, or NULL. False when the table must be read through its
 * statement.
 */
bool
st_direct_get(StTable *tab, Datum *values, const char *what, bool spi, Jsonb **item)
{
	DirectRead	d;
	ScanKeyData keys[2];
	int			nkeys = 0;

	if (!direct_begin(tab, &d, what, true))
		return false;
	key_init(&d, &keys[nkeys++], 1, tab->pk_type, BTEqualStrategyNumber, values[0]);
	if (tab->sk_name)
		key_init(&d, &keys[nkeys++], 2, tab->sk_type, BTEqualStrategyNumber, values[1]);
	direct_scan(&d, keys, nkeys, NULL);
	*item = NULL;
	/* a key matches at most one row: the statement stops after one too (tcount 1) */
	if (direct_next(&d, ForwardScanDirection))
	{
		bool		isnull;
		Datum		v = slot_getattr(d.slot, d.item_att, &isnull);

		if (!isnull)
		{
			struct varlena *p = PG_DETOAST_DATUM(v);

			/* copied: the row is on a buffer page, unpinned at the scan's end */
			*item = (Jsonb *) (spi ? SPI_palloc(VARSIZE(p)) : palloc(VARSIZE(p)));
			memcpy(*item, p, VARSIZE(p));
		}
	}
	direct_end(&d);
	return true;
}

/*
 * Whether the rows of the direct read d of a Query may go to recv's
 * tuple_row as the table stores them (ops.h, StQueryRequest.tuple_row): the
 * caller takes them (its columns are tuple_desc's), the items are returned
 * unprojected, and the table's columns are exactly tuple_desc's: (pk, sk,
 * item) in that order, of the same types (varlena ones), none dropped, and
 * its slots a heap table's. Then a row of the table is laid out as a tuple
 * of tuple_desc formed from the same values (heap_form_tuple lays out both,
 * attribute by attribute, by type): a copy of it is the row the function
 * would store, if its values are those the row function would get
 * (tuple_passes checks that per row).
 */
static bool
rows_pass(DirectRead *d, StQueryReceiver *recv)
{
	TupleDesc	desc = recv->tuple_desc;
	TupleDesc	heapdesc = RelationGetDescr(d->heap);

	if (recv->tuple_row == NULL || desc == NULL || recv->qa->projection != NULL ||
		recv->pk_text == NULL || table_slot_callbacks(d->heap) != &TTSOpsBufferHeapTuple)
		return false;
	if (desc->natts != 3 || heapdesc->natts != 3 ||
		d->pk_att != 1 || d->sk_att != 2 || d->item_att != 3)
		return false;
	for (int i = 0; i < 3; i++)
	{
		Form_pg_attribute a = TupleDescAttr(heapdesc, i);
		Form_pg_attribute b = TupleDescAttr(desc, i);

		if (a->attisdropped || b->attisdropped || a->atttypid != b->atttypid ||
			a->attlen != -1 || b->attlen != -1 || a->attalign != b->attalign)
			return false;
	}
	return true;
}

/*
 * The table's row of the current row of d, when it holds exactly the values
 * st_query_receive_row hands the row function (rows_pass said the columns
 * match):
 * all of its 3 columns stored (none missing from an older row), none NULL,
 * none TOASTed or compressed (the row function gets them detoasted: in the
 * row they would be uncompressed inline, as here; without HEAP_HASEXTERNAL
 * no value is a TOAST pointer, so compressed inline is the one form left to
 * refuse), and its partition key byte for byte the query's, pk_len bytes at
 * pk_data (the row function gets the query's, which the index's equality
 * matched, and a non-deterministic collation could match other bytes). The
 * sort key and the item are the row's own in both paths. NULL when the row
 * must go to the row function.
 */
static inline HeapTuple
tuple_passes(DirectRead *d, const char *pk_data, uint32 pk_len)
{
	/* a heap table's slot (rows_pass checked it): its tuple, on the buffer page */
	HeapTuple	tuple = ((BufferHeapTupleTableSlot *) d->slot)->base.tuple;
	struct varlena *pk;

	if (tuple == NULL || HeapTupleHeaderGetNatts(tuple->t_data) != 3 ||
		HeapTupleHasNulls(tuple) || HeapTupleHasExternal(tuple))
		return NULL;
	for (int i = 0; i < 3; i++)
		if (VARATT_IS_COMPRESSED(DatumGetPointer(d->slot->tts_values[i])))
			return NULL;
	pk = (struct varlena *) DatumGetPointer(d->slot->tts_values[0]);
	if (VARSIZE_ANY_EXHDR(pk) != pk_len || memcmp(VARDATA_ANY(pk), pk_data, pk_len) != 0)
		return NULL;
	return tuple;
}

/* A direct read of a Query's key range, row by row (direct.h) */
struct StDirectQuery
{
	DirectRead	d;
	StQueryReceiver *recv;
	ScanDirection dir;
	bool		pass;			/* rows may go to recv->tuple_row (rows_pass) */
	const char *pk_data;		/* the query's partition key, for tuple_passes */
	uint32		pk_len;
};

/*
 * Opens tab for the direct read of a Query: NULL (nothing read; DEBUG1 says
 * why only if say_refusal) when the table must be read through its
 * statement.
 */
StDirectQuery *
st_direct_query_open(StTable *tab, bool say_refusal)
{
	StDirectQuery *q = palloc0(sizeof(StDirectQuery));

	if (!direct_begin(tab, &q->d, "query", say_refusal))
	{
		pfree(q);
		return NULL;
	}
	return q;
}

/*
 * Starts the direct read q of a Query of the table: the key range of qa (as
 * st_query_sql writes it: pk = $1, the sort key condition on $2 / $3, after
 * the start key $4) in direction forward, its rows for recv (max_items is
 * recv's; the statement's LIMIT $5 is the same number). With slot (a heap
 * tuple slot of recv->tuple_desc's columns), rows that may go to
 * recv->tuple_row as the table stores them are fetched into it, and
 * tuple_row only hears of them.
 */
void
st_direct_query_start(StDirectQuery *q, StTable *tab, StQueryArgs *qa, bool forward,
					  StQueryReceiver *recv, TupleTableSlot *slot)
{
	DirectRead *d = &q->d;
	ScanKeyData keys[4];
	int			nkeys = 0;
	StKeyType	skt = tab->sk_type;

	q->recv = recv;
	q->dir = forward ? ForwardScanDirection : BackwardScanDirection;
	key_init(d, &keys[nkeys++], 1, tab->pk_type, BTEqualStrategyNumber, qa->values[0]);
	switch (qa->op)
	{
		case ST_SK_NONE:
			break;
		case ST_SK_EQ:
			key_init(d, &keys[nkeys++], 2, skt, BTEqualStrategyNumber, qa->values[1]);
			break;
		case ST_SK_LT:
			key_init(d, &keys[nkeys++], 2, skt, BTLessStrategyNumber, qa->values[1]);
			break;
		case ST_SK_LE:
			key_init(d, &keys[nkeys++], 2, skt, BTLessEqualStrategyNumber, qa->values[1]);
			break;
		case ST_SK_GT:
			key_init(d, &keys[nkeys++], 2, skt, BTGreaterStrategyNumber, qa->values[1]);
			break;
		case ST_SK_GE:
			key_init(d, &keys[nkeys++], 2, skt, BTGreaterEqualStrategyNumber, qa->values[1]);
			break;
		case ST_SK_BETWEEN:
			key_init(d, &keys[nkeys++], 2, skt, BTGreaterEqualStrategyNumber, qa->values[1]);
			key_init(d, &keys[nkeys++], 2, skt, BTLessEqualStrategyNumber, qa->values[2]);
			break;
		case ST_SK_RANGE:
			key_init(d, &keys[nkeys++], 2, skt, BTGreaterEqualStrategyNumber, qa->values[1]);
			key_init(d, &keys[nkeys++], 2, skt, BTLessStrategyNumber, qa->values[2]);
			break;
		default:
			elog(ERROR, "unknown sort key operator %d", qa->op);
	}
	if (qa->has_start)
		key_init(d, &keys[nkeys++], 2, skt,
				 forward ? BTGreaterStrategyNumber : BTLessStrategyNumber, qa->values[3]);
	Assert(nkeys <= lengthof(keys));

	q->pass = rows_pass(d, recv);
	/* the caller's slot holds the table's rows only where they are its rows */
	direct_scan(d, keys, nkeys, q->pass && slot != NULL ? slot : NULL);
	q->pk_data = q->pass ? VARDATA_ANY(recv->pk_text) : NULL;
	q->pk_len = q->pass ? VARSIZE_ANY_EXHDR(recv->pk_text) : 0;
}

/*
 * Reads the next row of q and hands it to the receiver: false when the range
 * has no more rows (nothing handed on), else true with *more whether the
 * receiver goes on.
 */
bool
st_direct_query_next(StDirectQuery *q, bool *more)
{
	DirectRead *d = &q->d;
	StQueryReceiver *recv = q->recv;

	if (!direct_next(d, q->dir))
		return false;
	CHECK_FOR_INTERRUPTS();
	/* the row's columns up to the last one read, deformed once */
	slot_getsomeattrs(d->slot, Max(d->sk_att, d->item_att));
	recv->tuple = q->pass ? tuple_passes(d, q->pk_data, q->pk_len) : NULL;
	/* the statement's row: (sk, item), sk NULL without a sort key */
	if (d->sk_att != InvalidAttrNumber)
		*more = st_query_receive_row(recv, d->slot->tts_values[d->sk_att - 1],
									 d->slot->tts_isnull[d->sk_att - 1],
									 d->slot->tts_values[d->item_att - 1]);
	else
		*more = st_query_receive_row(recv, (Datum) 0, true, d->slot->tts_values[d->item_att - 1]);
	recv->tuple = NULL;
	return true;
}

/*
 * The stored item of the row q read last (detoasted, in the current memory
 * context), or NULL: what a read stopped after it leaves as its
 * LastEvaluatedKey.
 */
Jsonb *
st_direct_query_last_item(StDirectQuery *q)
{
	DirectRead *d = &q->d;
	bool		isnull;
	Datum		v;

	if (d->slot == NULL || TTS_EMPTY(d->slot))
		return NULL;
	v = slot_getattr(d->slot, d->item_att, &isnull);
	return isnull ? NULL : DatumGetJsonbP(v);
}

/* Ends the direct read q (the locks stay, as the executor's) */
void
st_direct_query_end(StDirectQuery *q)
{
	direct_end(&q->d);
	pfree(q);
}

/*
 * A Query of the table read directly to its end, or until the receiver
 * says stop (st_direct_query_start). False when the table must be read
 * through its statement.
 */
bool
st_direct_query(StTable *tab, StQueryArgs *qa, bool forward, StQueryReceiver *recv)
{
	StDirectQuery *q = st_direct_query_open(tab, true);
	bool		more = true;

	if (q == NULL)
		return false;
	st_direct_query_start(q, tab, qa, forward, recv, NULL);
	while (more && st_direct_query_next(q, &more))
		;
	st_direct_query_end(q);
	return true;
}
