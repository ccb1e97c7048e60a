/*
 * estimate.c — singletable.estimate_query: what a Query would evaluate
 * (items, bytes, 1 MB pages, read capacity units) before running it, and the
 * size index that makes the estimate cheap.
 *
 * Design notes: the section on estimate.c in README.md of this folder.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/relscan.h"
#include "access/skey.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/visibilitymap.h"
#include "catalog/namespace.h"
#include "catalog/pg_index.h"
#include "executor/tuptable.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "ops/estimate.h"
#include "executor/spi.h"
#include "catalog/registry.h"

/* The name of tab's size index (in the table's schema) */
char *
st_size_index_name(StTable *tab)
{
	char	   *name = psprintf("%s_item_size", tab->relname);

	/* truncated as PostgreSQL truncates identifiers */
	if (strlen(name) >= NAMEDATALEN)
		name[pg_mbcliplen(name, strlen(name), NAMEDATALEN - 1)] = '\0';
	return name;
}

/* The SQL of the size index's key columns */
char *
st_size_index_columns(StTable *tab)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "%s, ", quote_identifier(tab->pk_name));
	if (tab->sk_name)
		appendStringInfo(&buf, "%s, ", quote_identifier(tab->sk_name));
	appendStringInfoString(&buf, "singletable._stored_size(item, ");
	if (tab->pk_type == ST_KEY_B || (tab->sk_name && tab->sk_type == ST_KEY_B))
	{
		appendStringInfoString(&buf, "ARRAY[");
		if (tab->pk_type == ST_KEY_B)
			appendStringInfoString(&buf, quote_literal_cstr(tab->pk_name));
		if (tab->sk_name && tab->sk_type == ST_KEY_B)
			appendStringInfo(&buf, "%s%s", tab->pk_type == ST_KEY_B ? ", " : "",
							 quote_literal_cstr(tab->sk_name));
		appendStringInfoString(&buf, "]::pg_catalog.text[])");
	}
	else
		appendStringInfoString(&buf, "NULL::pg_catalog.text[])");
	return buf.data;
}

/*
 * The OID of tab's size index, or InvalidOid: the index of that name in the
 * table's schema, on this table, valid and with the size as its last column.
 */
Oid
st_size_index(StTable *tab)
{
	Oid			nsp = get_rel_namespace(tab->relid);
	Oid			indexoid = get_relname_relid(st_size_index_name(tab), nsp);
	HeapTuple	tup;
	Form_pg_index idx;
	bool		ok;

	if (!OidIsValid(indexoid))
		return InvalidOid;
	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(indexoid));
	if (!HeapTupleIsValid(tup))
		return InvalidOid;
	idx = (Form_pg_index) GETSTRUCT(tup);
	ok = idx->indrelid == tab->relid && idx->indisvalid && idx->indisready &&
		idx->indnatts == (tab->sk_name ? 3 : 2) &&
		idx->indkey.values[idx->indnatts - 1] == 0 &&	/* an expression */
		heap_attisnull(tup, Anum_pg_index_indpred, NULL);
	ReleaseSysCache(tup);
	return ok ? indexoid : InvalidOid;
}

/* Adds the scan key "column attno <strategy> value" of the index's own opfamily */
static void
add_key(Relation irel, ScanKey keys, int *n, AttrNumber attno, StrategyNumber strategy, Datum value)
{
	Oid			opfamily = irel->rd_opfamily[attno - 1];
	Oid			type = irel->rd_opcintype[attno - 1];
	Oid			op = get_opfamily_member(opfamily, type, type, strategy);

	if (!OidIsValid(op))
		elog(ERROR, "no operator of strategy %d for type %u in operator family %u", strategy, type, opfamily);
	ScanKeyEntryInitialize(&keys[*n], 0, attno, strategy, type, irel->rd_indcollation[attno - 1],
						   get_opcode(op), value);
	(*n)++;
}

/*
 * Walks the range of a table Query (qa, as for its statement: $1 pk, $2 and
 * $3 the sort key bounds of op, $4 the start key) in the size index, in the
 * query's direction, at most max_items entries (0: all); every entry's size
 * goes to cap. Returns the entries that had to be checked in the heap.
 */
int64
st_estimate_size_index(StTable *tab, Oid indexoid, StQueryArgs *qa, bool forward, int32 max_items,
					   StCapacity *cap, int64 *items)
{
	Relation	heap = table_open(tab->relid, AccessShareLock);
	Relation	irel = index_open(indexoid, AccessShareLock);
	Snapshot	snapshot = GetActiveSnapshot();
	ScanKeyData keys[5];
	int			nkeys = 0;
	AttrNumber	sizecol = tab->sk_name ? 3 : 2;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	Buffer		vmbuf = InvalidBuffer;
	ItemPointer tid;
	int64		heap_fetches = 0;

	add_key(irel, keys, &nkeys, 1, BTEqualStrategyNumber, qa->values[0]);
	switch (qa->op)
	{
		case ST_SK_NONE:
			break;
		case ST_SK_EQ:
			add_key(irel, keys, &nkeys, 2, BTEqualStrategyNumber, qa->values[1]);
			break;
		case ST_SK_LT:
			add_key(irel, keys, &nkeys, 2, BTLessStrategyNumber, qa->values[1]);
			break;
		case ST_SK_LE:
			add_key(irel, keys, &nkeys, 2, BTLessEqualStrategyNumber, qa->values[1]);
			break;
		case ST_SK_GT:
			add_key(irel, keys, &nkeys, 2, BTGreaterStrategyNumber, qa->values[1]);
			break;
		case ST_SK_GE:
			add_key(irel, keys, &nkeys, 2, BTGreaterEqualStrategyNumber, qa->values[1]);
			break;
		case ST_SK_BETWEEN:
			add_key(irel, keys, &nkeys, 2, BTGreaterEqualStrategyNumber, qa->values[1]);
			add_key(irel, keys, &nkeys, 2, BTLessEqualStrategyNumber, qa->values[2]);
			break;
		case ST_SK_RANGE:
			add_key(irel, keys, &nkeys, 2, BTGreaterEqualStrategyNumber, qa->values[1]);
			add_key(irel, keys, &nkeys, 2, BTLessStrategyNumber, qa->values[2]);
			break;
		default:
			elog(ERROR, "unknown sort key operator %d", qa->op);
	}
	if (qa->has_start)
		add_key(irel, keys, &nkeys, 2, forward ? BTGreaterStrategyNumber : BTLessStrategyNumber,
				qa->values[3]);

	scan = index_beginscan(heap, irel, snapshot, nkeys, 0);
	scan->xs_want_itup = true;
	index_rescan(scan, keys, nkeys, NULL, 0);
	slot = table_slot_create(heap, NULL);
	*items = 0;
	while ((tid = index_getnext_tid(scan, forward ? ForwardScanDirection : BackwardScanDirection)) != NULL)
	{
		bool		isnull;
		Datum		size;

		CHECK_FOR_INTERRUPTS();
		if (!VM_ALL_VISIBLE(heap, ItemPointerGetBlockNumber(tid), &vmbuf))
		{
			/* as IndexOnlyNext: the entry counts only if its row is visible */
			heap_fetches++;
			if (!index_fetch_heap(scan, slot))
				continue;
			ExecClearTuple(slot);
		}
		else
			PredicateLockPage(heap, ItemPointerGetBlockNumber(tid), snapshot);
		size = index_getattr(scan->xs_itup, sizecol, scan->xs_itupdesc, &isnull);
		if (isnull)
			elog(ERROR, "size index \"%s\" holds a NULL size", RelationGetRelationName(irel));
		(*items)++;
		(void) st_capacity_evaluated(cap, &cap->table, DatumGetInt64(size));
		if (max_items > 0 && *items >= max_items)
			break;
	}
	if (BufferIsValid(vmbuf))
		ReleaseBuffer(vmbuf);
	ExecDropSingleTupleTableSlot(slot);
	index_endscan(scan);
	index_close(irel, AccessShareLock);
	table_close(heap, AccessShareLock);
	return heap_fetches;
}

PG_FUNCTION_INFO_V1(singletable_create_size_index);
PG_FUNCTION_INFO_V1(singletable_drop_size_index);

/*
 * singletable.create_size_index(table_name) -> regclass: the size index of a
 * table the caller owns, <table>_item_size in its schema. Builds like any
 * CREATE INDEX (SHARE lock: writes wait for the build); every later write
 * maintains it, and, as any index over item, makes updates non-HOT.
 */
Datum
singletable_create_size_index(PG_FUNCTION_ARGS)
{
	StTable    *tab;
	char	   *name;
	char	   *nsp;
	Oid			nspoid;
	Oid			indexoid;

	SPI_connect();
	tab = st_table_open(PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0), ShareLock, ST_ACL_OWNER);
	if (tab->distributed)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" is distributed: a size index is not supported", tab->relname),
				 errdetail("The size index is read on the coordinator, which holds no rows of a distributed table."),
				 errhint("estimate_query reads the items of the range on a distributed table.")));
	name = st_size_index_name(tab);
	nspoid = get_rel_namespace(tab->relid);
	nsp = get_namespace_name(nspoid);
	if (OidIsValid(get_relname_relid(name, nspoid)))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_TABLE),
				 errmsg("relation \"%s\" for the size index of table \"%s\" already exists", name, tab->relname),
				 errhint("A table has one size index; singletable.drop_size_index() drops it.")));
	if (SPI_execute(psprintf("CREATE INDEX %s ON %s (%s)", quote_identifier(name), tab->qualname,
							 st_size_index_columns(tab)), false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "CREATE INDEX failed");
	indexoid = get_relname_relid(name, nspoid);
	if (!OidIsValid(indexoid))
		elog(ERROR, "size index \"%s.%s\" was not created", nsp, name);
	SPI_finish();
	PG_RETURN_OID(indexoid);
}

/* singletable.drop_size_index(table_name): drops the table's size index. */
Datum
singletable_drop_size_index(PG_FUNCTION_ARGS)
{
	StTable    *tab;
	Oid			indexoid;

	SPI_connect();
	tab = st_table_open(PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0), AccessExclusiveLock, ST_ACL_OWNER);
	indexoid = st_size_index(tab);
	if (!OidIsValid(indexoid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("table \"%s\" has no size index", tab->relname),
				 errhint("singletable.create_size_index() creates it.")));
	if (SPI_execute(psprintf("DROP INDEX %s",
							 quote_qualified_identifier(get_namespace_name(get_rel_namespace(indexoid)),
														get_rel_name(indexoid))),
					false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "DROP INDEX failed");
	SPI_finish();
	PG_RETURN_VOID();
}
