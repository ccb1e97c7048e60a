/*
 * stats.c — per-table and per-index operation statistics (see stats.h):
 * st_stats_count, the view singletable.table_stats, reset_stats and
 * stats_info.
 *
 * One entry per (database, table, index or none, operation) holds what the
 * calls did: calls, items read, returned and written, their bytes, capacity
 * units and failed conditions. The layout follows pg_stat_statements.
 *
 * Design notes: the section on stats.c in README.md of this folder.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_authid_d.h"
#include "common/hashfn.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/syscache.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "ops/hot_keys.h"
#include "ops/stats.h"

const char *const st_stat_op_names[ST_STAT_NUM_OPS] = {
	[ST_STAT_GET_ITEM] = "GetItem",
	[ST_STAT_PUT_ITEM] = "PutItem",
	[ST_STAT_UPDATE_ITEM] = "UpdateItem",
	[ST_STAT_DELETE_ITEM] = "DeleteItem",
	[ST_STAT_QUERY] = "Query",
	[ST_STAT_SCAN] = "Scan",
	[ST_STAT_BATCH_GET_ITEM] = "BatchGetItem",
	[ST_STAT_BATCH_WRITE_ITEM] = "BatchWriteItem",
	[ST_STAT_TRANSACT_GET_ITEMS] = "TransactGetItems",
	[ST_STAT_TRANSACT_WRITE_ITEMS] = "TransactWriteItems",
};

int			st_stats_max = ST_STATS_MAX_DEFAULT;

/* The share of the entries an eviction removes, and the least it removes */
#define EVICT_PERCENT 5
#define EVICT_MIN 10
/* What a call adds to an entry's usage, and the decay of every usage per eviction */
#define USAGE_CALL 1.0
#define USAGE_DECAY 0.99

#define TRANCHE_NAME "singletable stats"

/*
 * The hash key. An index name is DynamoDB's (3 to 255 characters; a longer
 * one, which create_gsi refuses, would be cut); the table itself has the
 * empty name. Hashed and compared up to the name's
 * end (stat_key_hash, stat_key_match), so that a lookup fills no more of
 * the key than the name.
 */
typedef struct StatKey
{
	Oid			dbid;
	Oid			relid;
	int32		op;				/* StStatOp */
	char		index_name[ST_STAT_INDEX_NAME_LEN];
} StatKey;

#define STAT_KEY_FIXED offsetof(StatKey, index_name)

StaticAssertDecl(STAT_KEY_FIXED == 2 * sizeof(Oid) + sizeof(int32),
				 "the hashed fixed part of StatKey must have no padding");

typedef struct StatEntry
{
	StatKey		key;			/* hash key, first */
	slock_t		mutex;			/* protects the counters (shared mode) */
	int64		calls;
	StStatCounts sum;
	double		usage;			/* eviction: calls, decayed */
} StatEntry;

/* The state beside the hash table */
typedef struct StatShared
{
	LWLock	   *lock;			/* the hash table: shared to count, exclusive to insert or remove */
	slock_t		mutex;			/* protects the fields below */
	int64		dealloc;		/* evictions since the last full reset */
	TimestampTz stats_reset;	/* the last full reset, or the start */
} StatShared;

/* Shared mode: both in shared memory, attached at startup. Else both backend-local. */
static StatShared *stats_state = NULL;
static HTAB *stats_hash = NULL;
static bool stats_shared = false;
static StatShared local_state;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* Hash of a key: the fixed part, then the index name up to its end. */
static uint32
stat_key_hash(const void *key, Size keysize)
{
	const StatKey *k = key;
	uint32		h = hash_bytes((const unsigned char *) k, STAT_KEY_FIXED);

	if (k->index_name[0] != '\0')
		h = hash_combine(h, hash_bytes((const unsigned char *) k->index_name,
									   strlen(k->index_name)));
	return h;
}

/* 0 when two keys are equal (HashCompareFunc). */
static int
stat_key_match(const void *key1, const void *key2, Size keysize)
{
	const StatKey *a = key1;
	const StatKey *b = key2;

	if (memcmp(a, b, STAT_KEY_FIXED) != 0)
		return 1;
	return strcmp(a->index_name, b->index_name);
}

/* Copies a key into a new entry, the name's unused bytes zeroed (HashCopyFunc). */
static void *
stat_key_copy(void *dest, const void *src, Size keysize)
{
	StatKey    *d = dest;
	const StatKey *s = src;

	memset(d, 0, sizeof(StatKey));
	memcpy(d, s, STAT_KEY_FIXED);
	strlcpy(d->index_name, s->index_name, sizeof(d->index_name));
	return dest;
}

/* The hash table's description, the same in both modes. */
static void
stat_hash_ctl(HASHCTL *info)
{
	memset(info, 0, sizeof(HASHCTL));
	info->keysize = sizeof(StatKey);
	info->entrysize = sizeof(StatEntry);
	info->hash = stat_key_hash;
	info->match = stat_key_match;
	info->keycopy = stat_key_copy;
}

#define STAT_HASH_FLAGS (HASH_ELEM | HASH_FUNCTION | HASH_COMPARE | HASH_KEYCOPY)

/* The shared memory the statistics need. */
static Size
stats_memsize(void)
{
	return add_size(MAXALIGN(sizeof(StatShared)),
					hash_estimate_size(st_stats_max, sizeof(StatEntry)));
}

/* Asks for the shared memory and the lock (shmem_request_hook). */
static void
stats_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(stats_memsize());
	RequestNamedLWLockTranche(TRANCHE_NAME, 1);
}

/* Creates or attaches the shared state and hash table (shmem_startup_hook). */
static void
stats_shmem_startup(void)
{
	bool		found;
	HASHCTL		info;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	stats_state = ShmemInitStruct("singletable stats", sizeof(StatShared), &found);
	if (!found)
	{
		stats_state->lock = &(GetNamedLWLockTranche(TRANCHE_NAME))->lock;
		SpinLockInit(&stats_state->mutex);
		stats_state->dealloc = 0;
		stats_state->stats_reset = GetCurrentTimestamp();
	}
	stat_hash_ctl(&info);
	/* a fixed size: the entries never take shared memory of others */
	stats_hash = ShmemInitHash("singletable stats hash", st_stats_max, st_stats_max,
							   &info, STAT_HASH_FLAGS | HASH_FIXED_SIZE);
	stats_shared = true;
	LWLockRelease(AddinShmemInitLock);
}

/*
 * From _PG_init: under shared_preload_libraries the shared memory is
 * requested; otherwise nothing happens until the first count.
 */
void
st_stats_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = stats_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = stats_shmem_startup;
}

/*
 * The hash table and its state: the shared ones, or this backend's, created
 * on first use (which can fail only for want of memory).
 */
static HTAB *
stats_table(void)
{
	if (stats_hash == NULL)
	{
		MemoryContext cxt;
		HASHCTL		info;

		Assert(!stats_shared);
		cxt = AllocSetContextCreate(TopMemoryContext, "singletable stats",
									ALLOCSET_SMALL_SIZES);
		stat_hash_ctl(&info);
		info.hcxt = cxt;
		local_state.lock = NULL;
		SpinLockInit(&local_state.mutex);
		local_state.dealloc = 0;
		local_state.stats_reset = GetCurrentTimestamp();
		stats_state = &local_state;
		stats_hash = hash_create("singletable stats", 64, &info,
								 STAT_HASH_FLAGS | HASH_CONTEXT);
	}
	return stats_hash;
}

static inline void
lock_table(LWLockMode mode)
{
	if (stats_shared)
		LWLockAcquire(stats_state->lock, mode);
}

static inline void
unlock_table(void)
{
	if (stats_shared)
		LWLockRelease(stats_state->lock);
}

/* Orders entries by usage, least used first (qsort). */
static int
usage_cmp(const void *a, const void *b)
{
	double		ua = (*(StatEntry *const *) a)->usage;
	double		ub = (*(StatEntry *const *) b)->usage;

	if (ua < ub)
		return -1;
	if (ua > ub)
		return 1;
	return 0;
}

/*
 * Evicts the least used EVICT_PERCENT of the entries (at least EVICT_MIN)
 * and decays every usage, as pg_stat_statements' entry_dealloc does. The
 * table's lock is held exclusively. Returns false when there was no memory
 * to sort the entries: nothing was evicted.
 */
static bool
stats_evict(void)
{
	long		n = hash_get_num_entries(stats_hash);
	StatEntry **entries;
	StatEntry  *e;
	HASH_SEQ_STATUS seq;
	long		i = 0;
	long		nvictims;

	/*
	 * This backend's own table first loses the entries of tables dropped
	 * since (a session that creates and drops tables would otherwise fill it
	 * with them); a table in another database is not looked up.
	 */
	if (!stats_shared)
	{
		long		dropped = 0;

		hash_seq_init(&seq, stats_hash);
		while ((e = hash_seq_search(&seq)) != NULL)
			if (e->key.dbid == MyDatabaseId && !SearchSysCacheExists1(RELOID, ObjectIdGetDatum(e->key.relid)))
			{
				hash_search(stats_hash, &e->key, HASH_REMOVE, NULL);
				dropped++;
			}
		if (dropped > 0)
			return true;
	}
	entries = MemoryContextAllocExtended(TopMemoryContext, Max(n, 1) * sizeof(StatEntry *),
										 MCXT_ALLOC_NO_OOM);
	if (entries == NULL)
		return false;
	hash_seq_init(&seq, stats_hash);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		entries[i++] = e;
		e->usage *= USAGE_DECAY;
	}
	qsort(entries, i, sizeof(StatEntry *), usage_cmp);
	nvictims = Min(Max(EVICT_MIN, i * EVICT_PERCENT / 100), i);
	for (long v = 0; v < nvictims; v++)
		hash_search(stats_hash, &entries[v]->key, HASH_REMOVE, NULL);
	pfree(entries);

	SpinLockAcquire(&stats_state->mutex);
	stats_state->dealloc++;
	SpinLockRelease(&stats_state->mutex);
	return true;
}

/* Adds one call with counts c (NULL: none) to entry e, under its spinlock when shared. */
static inline void
entry_add(StatEntry *e, const StStatCounts *c)
{
	if (stats_shared)
		SpinLockAcquire(&e->mutex);
	e->calls++;
	e->usage += USAGE_CALL;
	if (c)
	{
		e->sum.items_read += c->items_read;
		e->sum.items_returned += c->items_returned;
		e->sum.items_written += c->items_written;
		e->sum.bytes_read += c->bytes_read;
		e->sum.bytes_written += c->bytes_written;
		e->sum.read_units += c->read_units;
		e->sum.write_units += c->write_units;
		e->sum.condition_failures += c->condition_failures;
	}
	if (stats_shared)
		SpinLockRelease(&e->mutex);
}

/*
 * Adds one call of op with counts c to the entry of (this database, relid,
 * index_name or the table). Never raises an error of its own; a call that
 * finds no room is not counted.
 */
bool		st_stats_paused = false;

void
st_stats_count(Oid relid, const char *index_name, StStatOp op, const StStatCounts *c)
{
	StatKey		key;
	StatEntry  *e;
	bool		found;

	if (st_stats_paused)
		return;
	Assert((unsigned) op < ST_STAT_NUM_OPS);
	if ((unsigned) op >= ST_STAT_NUM_OPS)
		return;
	(void) stats_table();
	key.dbid = MyDatabaseId;
	key.relid = relid;
	key.op = (int32) op;
	if (index_name)
		strlcpy(key.index_name, index_name, sizeof(key.index_name));
	else
		key.index_name[0] = '\0';

	lock_table(LW_SHARED);
	e = hash_search(stats_hash, &key, HASH_FIND, NULL);
	if (e)
	{
		entry_add(e, c);
		unlock_table();
		return;
	}
	unlock_table();

	/* a new entry: another backend may create it meanwhile, or fill the table */
	lock_table(LW_EXCLUSIVE);
	e = hash_search(stats_hash, &key, HASH_FIND, NULL);
	if (e == NULL && (hash_get_num_entries(stats_hash) < (stats_shared ? st_stats_max : ST_STATS_LOCAL_MAX) ||
					  stats_evict()))
	{
		/* shared memory is fixed-size: no room returns NULL, never an error */
		e = hash_search(stats_hash, &key, stats_shared ? HASH_ENTER_NULL : HASH_ENTER, &found);
		if (e && !found)
		{
			SpinLockInit(&e->mutex);
			e->calls = 0;
			memset(&e->sum, 0, sizeof(e->sum));
			e->usage = 0;
		}
	}
	if (e)
		entry_add(e, c);
	unlock_table();
}

/* A copy of one entry, taken under the lock for the view */
typedef struct StatCopy
{
	Oid			relid;
	int32		op;
	char		index_name[ST_STAT_INDEX_NAME_LEN];
	int64		calls;
	StStatCounts sum;
} StatCopy;

/* Orders copies by table, then the table before its indexes by name, then operation (qsort). */
static int
copy_cmp(const void *a, const void *b)
{
	const StatCopy *x = a;
	const StatCopy *y = b;
	int			r;

	if (x->relid != y->relid)
		return x->relid < y->relid ? -1 : 1;
	if ((r = strcmp(x->index_name, y->index_name)) != 0)
		return r;
	return (x->op > y->op) - (x->op < y->op);
}

#define TABLE_STATS_COLS 13

PG_FUNCTION_INFO_V1(singletable_table_stats);

/*
 * singletable.table_stats() -> SETOF record: the entries of this database
 * whose table exists and which the caller may see (SELECT on the table, or
 * the privileges of pg_read_all_stats), ordered by table, index, operation.
 */
Datum
singletable_table_stats(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			userid = GetUserId();
	bool		read_all = has_privs_of_role(userid, ROLE_PG_READ_ALL_STATS);
	text	   *scope = cstring_to_text(stats_shared ? "shared" : "backend");
	StatCopy   *copies;
	long		n = 0;
	HTAB	   *hash;
	Oid			last_relid = InvalidOid;
	bool		last_visible = false;

	HASH_SEQ_STATUS seq;
	StatEntry  *e;

	InitMaterializedSRF(fcinfo, 0);
	hash = stats_table();

	/* an error here (out of memory) releases the lock with the transaction */
	lock_table(LW_SHARED);
	copies = palloc(Max(hash_get_num_entries(hash), 1) * sizeof(StatCopy));
	hash_seq_init(&seq, hash);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		StatCopy   *c;

		if (e->key.dbid != MyDatabaseId)
			continue;
		c = &copies[n++];
		c->relid = e->key.relid;
		c->op = e->key.op;
		strlcpy(c->index_name, e->key.index_name, sizeof(c->index_name));
		if (stats_shared)
			SpinLockAcquire(&e->mutex);
		c->calls = e->calls;
		c->sum = e->sum;
		if (stats_shared)
			SpinLockRelease(&e->mutex);
	}
	unlock_table();

	qsort(copies, n, sizeof(StatCopy), copy_cmp);
	for (long i = 0; i < n; i++)
	{
		StatCopy   *c = &copies[i];
		Datum		values[TABLE_STATS_COLS];
		bool		nulls[TABLE_STATS_COLS] = {false};

		if (c->relid != last_relid)
		{
			bool		missing = false;
			AclResult	acl = pg_class_aclcheck_ext(c->relid, userid, ACL_SELECT, &missing);

			last_relid = c->relid;
			last_visible = !missing && (read_all || acl == ACLCHECK_OK);
		}
		if (!last_visible)
			continue;
		values[0] = ObjectIdGetDatum(c->relid);
		if (c->index_name[0] == '\0')
			nulls[1] = true;
		else
			values[1] = CStringGetTextDatum(c->index_name);
		values[2] = CStringGetTextDatum(st_stat_op_names[c->op]);
		values[3] = Int64GetDatum(c->calls);
		values[4] = Int64GetDatum(c->sum.items_read);
		values[5] = Int64GetDatum(c->sum.items_returned);
		values[6] = Int64GetDatum(c->sum.items_written);
		values[7] = Int64GetDatum(c->sum.bytes_read);
		values[8] = Int64GetDatum(c->sum.bytes_written);
		values[9] = Float8GetDatum(c->sum.read_units);
		values[10] = Float8GetDatum(c->sum.write_units);
		values[11] = Int64GetDatum(c->sum.condition_failures);
		values[12] = PointerGetDatum(scope);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(copies);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(singletable_reset_stats);

/*
 * singletable.reset_stats(table_name regclass DEFAULT NULL): removes the
 * entries of that table in this database, or with NULL every entry of every
 * database, and then also the eviction count (stats_reset is set to now).
 * The hot keys (hot_keys.c) of the table, or all of them, go too.
 * Without preload only this backend's entries. EXECUTE is revoked from
 * PUBLIC by the install script.
 */
Datum
singletable_reset_stats(PG_FUNCTION_ARGS)
{
	bool		all = PG_ARGISNULL(0);
	Oid			relid = all ? InvalidOid : PG_GETARG_OID(0);
	HTAB	   *hash = stats_table();
	HASH_SEQ_STATUS seq;
	StatEntry  *e;

	lock_table(LW_EXCLUSIVE);
	/* removing the entry just returned is allowed during a sequential scan */
	hash_seq_init(&seq, hash);
	while ((e = hash_seq_search(&seq)) != NULL)
		if (all || (e->key.dbid == MyDatabaseId && e->key.relid == relid))
			hash_search(hash, &e->key, HASH_REMOVE, NULL);
	if (all)
	{
		TimestampTz now = GetCurrentTimestamp();

		SpinLockAcquire(&stats_state->mutex);
		stats_state->dealloc = 0;
		stats_state->stats_reset = now;
		SpinLockRelease(&stats_state->mutex);
	}
	unlock_table();
	/* and the table's hot keys, or all of them */
	st_hot_keys_reset(relid);
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(singletable_stats_info);

/*
 * singletable.stats_info() -> (dealloc, stats_reset): how many times entries
 * were evicted for want of room since the last full reset, and when that
 * was (or when the counting started).
 */
Datum
singletable_stats_info(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[2];
	bool		nulls[2] = {false};

	int64		dealloc;
	TimestampTz reset;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	(void) stats_table();
	SpinLockAcquire(&stats_state->mutex);
	dealloc = stats_state->dealloc;
	reset = stats_state->stats_reset;
	SpinLockRelease(&stats_state->mutex);
	values[0] = Int64GetDatum(dealloc);
	values[1] = TimestampTzGetDatum(reset);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
