/*
 * distribute.c — item-collection tables on Citus: whether a table is
 * distributed, what describe_table says about it, and the hash-range scan of
 * its segments (distribute_table itself is commands/distribute.c).
 *
 * A table is distributed by its partition key column with Citus's own
 * create_distributed_table, so each item collection lives in one shard and
 * every single-key statement the extension runs (its WHERE clause names the
 * partition key) is routed to that shard. All item tables whose partition
 * keys have the same type are colocated with the first one distributed:
 * collections with the same key value land on the same node, so that a
 * transaction writing the same key in two tables stays on one node.
 *
 * Design notes: the section on distribute.c in README.md of this folder.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/table.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_type_d.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "nodes/primnodes.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/typcache.h"

#include "catalog/distribute.h"
#include "utils/errors.h"
#include "catalog/indexes.h"
#include "catalog/registry.h"
#include "catalog/statements.h"


/* Whether Citus is installed in this database. */
bool
st_citus_installed(void)
{
	return OidIsValid(get_extension_oid("citus", true));
}

/* Whether relid is a Citus table (distributed, reference or local); false without Citus. Needs SPI. */
bool
st_citus_table(Oid relid)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};

	if (!st_citus_installed())
		return false;
	if (SPI_execute_with_args("SELECT 1 FROM pg_catalog.pg_dist_partition"
							  " WHERE logicalrelid OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
							  1, argtypes, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "reading Citus's metadata failed");
	return SPI_processed > 0;
}

/*
 * The shards of distributed table relid whose placements this node holds,
 * as relation OIDs (NIL on a node without any, such as a coordinator that
 * has no shards). Read from Citus's metadata on this node, so that it needs
 * no other node. Needs SPI.
 */
List *
st_citus_local_shards(Oid relid)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	List	   *shards = NIL;

	if (!st_citus_installed())
		return NIL;
	/* to_regclass: a placement whose shard relation is not (yet, or any more) here is skipped */
	if (SPI_execute_with_args("SELECT pg_catalog.to_regclass(pg_catalog.shard_name(s.logicalrelid, s.shardid))::pg_catalog.oid"
							  " FROM pg_catalog.pg_dist_shard s"
							  " JOIN pg_catalog.pg_dist_placement p ON p.shardid OPERATOR(pg_catalog.=) s.shardid"
							  " WHERE s.logicalrelid OPERATOR(pg_catalog.=) $1::pg_catalog.regclass"
							  " AND p.groupid OPERATOR(pg_catalog.=) (SELECT groupid FROM pg_catalog.pg_dist_local_group)"
							  " ORDER BY s.shardid",
							  1, argtypes, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "reading Citus's shard placements failed");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);

		if (!isnull)
			shards = lappend_oid(shards, DatumGetObjectId(d));
	}
	SPI_freetuptable(SPI_tuptable);
	return shards;
}

/*
 * The hash function Citus distributes a partition key of type kt by: the
 * support function of the type's default hash operator class, which
 * worker_hash and Citus's shard pruning look up the same way.
 */
Oid
st_key_hash_proc(StKeyType kt)
{
	TypeCacheEntry *tce = lookup_type_cache(st_key_type_oid(kt), TYPECACHE_HASH_PROC);

	if (!OidIsValid(tce->hash_proc))
		elog(ERROR, "key type %c has no hash function", (char) kt);
	return tce->hash_proc;
}

/* The hash of partition key value pk as Citus computes it (the column's collation is "C"). */
int32
st_key_hash(StKeyType kt, Datum pk)
{
	return DatumGetInt32(OidFunctionCall1Coll(st_key_hash_proc(kt), C_COLLATION_OID, pk));
}

/*
 * describe_table's figures of a distributed table, from its shards (the
 * coordinator's table and indexes are empty shells): *items, the sum of the
 * shards' row estimates, *bytes, of their total sizes, and, when indexes is
 * not NULL, {PostgreSQL index name: [entries, bytes]} of each index, the sum
 * over its copies on the shards (Citus names a shard's copy
 * <index name>_<shard id>; a name it had to shorten is not found: no figures).
 *
 * One statement on each node (run_command_on_all_nodes: one connection per
 * node, not one per shard as run_command_on_shards), given the table's shard
 * ids and names: each node answers for the shards it holds, and a shard with
 * several placements is counted once. A node that does not answer is left
 * out with a WARNING. Not citus_total_relation_size, which
 * Citus refuses in a transaction that has modified several shards
 * (UpdateTable creating a GSI describes the table after building it on every
 * shard). The nodes' statement names its functions with pg_catalog; its
 * operators are pg_catalog's, which a new session searches first. Needs SPI.
 */
void
st_distributed_table_size(StTable *tab, int64 *items, int64 *bytes, Datum *indexes)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(tab->relid)};
	bool		isnull;

	if (SPI_execute_with_args("WITH s AS (SELECT shardid AS id, pg_catalog.shard_name(logicalrelid, shardid) AS name"
							  "   FROM pg_catalog.pg_dist_shard WHERE logicalrelid OPERATOR(pg_catalog.=) $1::pg_catalog.regclass),"
							  " cmd AS (SELECT pg_catalog.format("
							  "  'SELECT COALESCE(pg_catalog.json_agg(pg_catalog.json_build_array(s.id, c.reltuples,"
							  "     pg_catalog.pg_total_relation_size(c.oid),"
							  "     (SELECT pg_catalog.json_object_agg(ic.relname, pg_catalog.json_build_array(ic.reltuples,"
							  "        pg_catalog.pg_relation_size(ic.oid)))"
							  "       FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid"
							  "      WHERE i.indrelid = c.oid))), ''[]'')"
							  "    FROM ROWS FROM (pg_catalog.unnest(%L::pg_catalog.int8[]), pg_catalog.unnest(%L::pg_catalog.text[])) s(id, name)"
							  "    JOIN pg_catalog.pg_class c ON c.oid = pg_catalog.to_regclass(s.name)',"
							  "  pg_catalog.array_agg(s.id), pg_catalog.array_agg(s.name)) AS command FROM s),"
							  " r AS MATERIALIZED (SELECT r.* FROM cmd, pg_catalog.run_command_on_all_nodes(cmd.command) r),"
							  " shard AS (SELECT DISTINCT ON ((e OPERATOR(pg_catalog.->>) 0)::pg_catalog.int8)"
							  "   (e OPERATOR(pg_catalog.->>) 0)::pg_catalog.int8 AS id, e"
							  "   FROM r, pg_catalog.jsonb_array_elements(r.result::pg_catalog.jsonb) e"
							  "  WHERE r.success ORDER BY 1)"
							  " SELECT (SELECT COALESCE(pg_catalog.sum(GREATEST((e OPERATOR(pg_catalog.->>) 1)::pg_catalog.float8, 0)), 0)::pg_catalog.int8 FROM shard),"
							  "  (SELECT COALESCE(pg_catalog.sum((e OPERATOR(pg_catalog.->>) 2)::pg_catalog.int8), 0)::pg_catalog.int8 FROM shard),"
							  "  (SELECT COALESCE(pg_catalog.jsonb_object_agg(x.name, pg_catalog.jsonb_build_array(x.t, x.b)), '{}')"
							  "    FROM (SELECT pg_catalog.left(i.key, -1 OPERATOR(pg_catalog.-) pg_catalog.length(shard.id::pg_catalog.text)) AS name,"
							  "                 pg_catalog.sum(GREATEST((i.value OPERATOR(pg_catalog.->>) 0)::pg_catalog.float8, 0)) AS t,"
							  "                 pg_catalog.sum((i.value OPERATOR(pg_catalog.->>) 1)::pg_catalog.int8) AS b"
							  "            FROM shard, pg_catalog.jsonb_each(COALESCE(NULLIF(shard.e OPERATOR(pg_catalog.->) 3, 'null'), '{}')) i"
							  "           WHERE i.key OPERATOR(pg_catalog.~~) ('%\\_' OPERATOR(pg_catalog.||) shard.id)"
							  "           GROUP BY 1) x),"
							  "  (SELECT pg_catalog.format('node %s: %s', r.nodeid, r.result) FROM r WHERE NOT r.success"
							  "    ORDER BY r.nodeid LIMIT 1)",
							  1, argtypes, values, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "reading the size of distributed table \"%s\" failed", tab->relname);
	*items = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	*bytes = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	{
		char	   *failed = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4);

		/* the figures of the nodes that answered; an estimate anyway, as DynamoDB's */
		if (failed)
			ereport(WARNING,
					(errmsg("the size of distributed table \"%s\" leaves out a node that did not answer", tab->relname),
					 errdetail("%s", failed)));
	}
	if (indexes)
		*indexes = SPI_datumTransfer(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull),
									 false, -1);
}

/*
 * The distribution of a table as describe_table shows it, or NULL when the
 * table is not a Citus table (or Citus is not installed). Needs SPI.
 */
Datum
st_table_distribution(StTable *tab)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(tab->relid)};
	bool		isnull;
	Datum		d;

	if (!st_citus_installed())
		return (Datum) 0;
	if (SPI_execute_with_args("SELECT pg_catalog.jsonb_build_object('Distributed', true,"
							  " 'DistributionColumn', pg_catalog.column_to_column_name(p.logicalrelid, p.partkey),"
							  " 'ShardCount', (SELECT pg_catalog.count(*) FROM pg_catalog.pg_dist_shard s"
							  "                 WHERE s.logicalrelid OPERATOR(pg_catalog.=) p.logicalrelid),"
							  " 'ColocationId', p.colocationid)"
							  " FROM pg_catalog.pg_dist_partition p"
							  " WHERE p.logicalrelid OPERATOR(pg_catalog.=) $1::pg_catalog.regclass"
							  " AND p.partmethod OPERATOR(pg_catalog.=) 'h'",
							  1, argtypes, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "reading Citus's metadata failed");
	if (SPI_processed != 1)
		return (Datum) 0;
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? (Datum) 0 : d;
}

/* The SQL expression of the hash of tab's partition key column. */
char *
st_key_hash_sql(StTable *tab)
{
	Oid			proc = st_key_hash_proc(tab->pk_type);

	return psprintf("%s.%s(%s)", quote_identifier(get_namespace_name(get_func_namespace(proc))),
					quote_identifier(get_func_name(proc)), quote_identifier(tab->pk_name));
}

/*
 * Whether tab (the coordinator's table, whose indexes Citus creates on
 * every shard) has a segment index: a valid btree index, not partial, on
 * exactly (hash(pk), pk[, sk]) with the hash function of st_key_hash_proc.
 * Recognized by its definition, not its name, so that an index created by
 * hand on a table distributed with create_distributed_table serves as well,
 * and one survives renames of the table.
 */
bool
st_segment_index_exists(StTable *tab)
{
	Relation	rel = table_open(tab->relid, AccessShareLock);
	List	   *indexes = RelationGetIndexList(rel);
	AttrNumber	pk = get_attnum(tab->relid, tab->pk_name);
	AttrNumber	sk = tab->sk_name ? get_attnum(tab->relid, tab->sk_name) : InvalidAttrNumber;
	int			nkeys = tab->sk_name ? 3 : 2;
	Oid			proc = st_key_hash_proc(tab->pk_type);
	bool		found = false;
	ListCell   *lc;

	foreach(lc, indexes)
	{
		Relation	irel = index_open(lfirst_oid(lc), AccessShareLock);
		Form_pg_index ix = irel->rd_index;

		if (irel->rd_rel->relam == BTREE_AM_OID && ix->indisvalid && ix->indnkeyatts == nkeys &&
			ix->indkey.values[0] == 0 && ix->indkey.values[1] == pk &&
			(nkeys == 2 || ix->indkey.values[2] == sk) &&
			RelationGetIndexPredicate(irel) == NIL)
		{
			List	   *exprs = RelationGetIndexExpressions(irel);
			FuncExpr   *f = list_length(exprs) == 1 && IsA(linitial(exprs), FuncExpr)
				? linitial_node(FuncExpr, exprs) : NULL;

			found = f != NULL && f->funcid == proc && list_length(f->args) == 1 &&
				IsA(linitial(f->args), Var) && linitial_node(Var, f->args)->varattno == pk;
		}
		index_close(irel, AccessShareLock);
		if (found)
			break;
	}
	list_free(indexes);
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * The lowest hash value of every shard of tab, in hash order, when tab is
 * hash-distributed by its partition key column (then shard k holds the
 * hashes from mins[k] up to mins[k + 1] - 1, the last one up to INT32_MAX);
 * returns the number of shards, 0 when tab is not distributed that way.
 * Read from Citus's metadata as the statement's snapshot sees it. Needs SPI.
 */
int
st_shard_hash_mins(StTable *tab, int32 **mins)
{
	Oid			argtypes[2] = {OIDOID, TEXTOID};
	Datum		values[2] = {ObjectIdGetDatum(tab->relid), CStringGetTextDatum(tab->pk_name)};
	int			n;

	if (SPI_execute_with_args("SELECT s.shardminvalue::pg_catalog.int4 FROM pg_catalog.pg_dist_shard s"
							  " JOIN pg_catalog.pg_dist_partition p ON p.logicalrelid OPERATOR(pg_catalog.=) s.logicalrelid"
							  " WHERE s.logicalrelid OPERATOR(pg_catalog.=) $1::pg_catalog.regclass"
							  " AND p.partmethod OPERATOR(pg_catalog.=) 'h'"
							  " AND pg_catalog.column_to_column_name(p.logicalrelid, p.partkey) OPERATOR(pg_catalog.=) $2"
							  " ORDER BY 1",
							  2, argtypes, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "reading the shards of distributed table \"%s\" failed", tab->relname);
	n = (int) SPI_processed;
	*mins = palloc(sizeof(int32) * Max(n, 1));
	for (int k = 0; k < n; k++)
	{
		bool		isnull;

		(*mins)[k] = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[k], SPI_tuptable->tupdesc, 1, &isnull));
		if (isnull)
			elog(ERROR, "a shard of distributed table \"%s\" has no hash range", tab->relname);
	}
	return n;
}

/*
 * The SQL of a scan segment of distributed table tab, or of its secondary
 * index idx: the rows whose partition key hashes into [$1, $2) (either
 * bound absent at the ends of the hash space), after the start key
 * (hash, pk, sk) > ($3, $4, $5) with has_start, in the segment index's
 * order, at most $6 (see ST_HSP_*). A scan of an index reads its items
 * through the segment index too, by the index's predicate: only the
 * segment index bounds a segment's rows on every shard.
 */
char *
st_hash_scan_sql(StTable *tab, StIndex *idx, bool has_lower, bool has_upper, bool has_start)
{
	StringInfoData buf;
	char	   *hash = st_key_hash_sql(tab);
	const char *pk = quote_identifier(tab->pk_name);
	const char *sk = tab->sk_name ? quote_identifier(tab->sk_name) : NULL;
	const char *and = " WHERE ";

	initStringInfo(&buf);
	appendStringInfo(&buf, "SELECT %s, %s, " ST_ITEM_COLUMN " FROM %s", pk,
					 sk ? sk : "NULL::pg_catalog.text", tab->qualname);
	if (idx)
	{
		appendStringInfo(&buf, "%s%s", and, idx->predicate);
		and = " AND ";
	}
	if (has_lower)
	{
		appendStringInfo(&buf, "%s%s OPERATOR(pg_catalog.>=) $%d", and, hash, ST_HSP_LOWER + 1);
		and = " AND ";
	}
	if (has_upper)
	{
		appendStringInfo(&buf, "%s%s OPERATOR(pg_catalog.<) $%d", and, hash, ST_HSP_UPPER + 1);
		and = " AND ";
	}
	if (has_start)
	{
		appendStringInfo(&buf, "%s(%s, %s", and, hash, pk);
		if (sk)
			appendStringInfo(&buf, ", %s", sk);
		appendStringInfo(&buf, ") OPERATOR(pg_catalog.>) ($%d, $%d", ST_HSP_START_HASH + 1, ST_HSP_START_PK + 1);
		if (sk)
			appendStringInfo(&buf, ", $%d", ST_HSP_START_SK + 1);
		appendStringInfoChar(&buf, ')');
	}
	appendStringInfo(&buf, " ORDER BY %s, %s", hash, pk);
	if (sk)
		appendStringInfo(&buf, ", %s", sk);
	appendStringInfo(&buf, " LIMIT $%d", ST_HSP_LIMIT + 1);
	return buf.data;
}

/* Parameter types of st_hash_scan_sql's statements on tab (see ST_HSP_*). */
void
st_hash_scan_argtypes(StTable *tab, Oid *argtypes)
{
	argtypes[ST_HSP_LOWER] = INT4OID;
	argtypes[ST_HSP_UPPER] = INT4OID;
	argtypes[ST_HSP_START_HASH] = INT4OID;
	argtypes[ST_HSP_START_PK] = st_key_type_oid(tab->pk_type);
	/* unused without a sort key */
	argtypes[ST_HSP_START_SK] = tab->sk_name ? st_key_type_oid(tab->sk_type) : TEXTOID;
	argtypes[ST_HSP_LIMIT] = INT8OID;
}
