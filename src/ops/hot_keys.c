/*
 * hot_keys.c — the most-accessed partition keys per table, for reads and
 * for writes (see hot_keys.h): st_hot_keys_record, singletable.hot_keys()
 * and the reset that reset_stats calls.
 *
 * Per (database, table) one slot holds two sketches, read and write; each
 * sketch holds two Space-Saving summaries, of the current window and of the
 * previous one, of singletable.hot_keys_max counters each.
 *
 * Design notes: the section on hot_keys.c in README.md of this folder.
 */
#include "postgres.h"

#include "access/xact.h"
#include "common/hashfn.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "ops/hot_keys.h"
#include "ops/stats.h"

int			st_hot_keys_max = ST_HOT_KEYS_MAX_DEFAULT;
int			st_hot_keys_tables = ST_HOT_KEYS_TABLES_DEFAULT;
int			st_hot_keys_window = 60;
bool		st_track_hot_keys = true;

#define TRANCHE_NAME "singletable hot keys"

/* The access kinds, a sketch each */
#define HK_READ 0
#define HK_WRITE 1

/*
 * One counter of a Space-Saving summary, the part an access that does not
 * take it over never reads: its count and its key's hash are in arrays of
 * their own, which the heap and the index walk (a few cache lines).
 */
typedef struct HkCounter
{
	int64		error;			/* the most the count can exceed the key's accesses by */
	int16		keylen;			/* bytes of key kept */
	bool		truncated;		/* key holds only the key's first keylen bytes */
	char		key[ST_HOT_KEY_MAX_BYTES];
} HkCounter;

/*
 * A summary of one window: the header, then (at the offsets of hk_geo) a
 * min-heap of counter numbers by count, each counter's place in the heap,
 * an open-addressing index from hash to counter number (-1: empty), each
 * counter's count (an overestimate of its key's accesses) and its key's hash
 * (of the whole key: its identity), and the counters.
 */
typedef struct HkSummary
{
	int64		total;			/* accesses recorded in the window */
	int32		n;				/* counters in use */
} HkSummary;

/* A sketch: one access kind of one table */
typedef struct HkSketch
{
	LWLock	   *lock;			/* shared mode: protects the sketch and its slot's owner */
	TimestampTz window_start;	/* start of the current window */
	int			cur;			/* the current window's summary, 0 or 1 */
} HkSketch;

/* A table's slot; the read and the write sketch follow */
typedef struct HkTable
{
	Oid			dbid;			/* InvalidOid: free */
	Oid			relid;
} HkTable;

/* The shared state: the slots follow */
typedef struct HkShared
{
	LWLock	   *lock;			/* the slots' owners: shared to find, exclusive to assign */
	int			ntables;
} HkShared;

/* The sizes and offsets of the structures, set by the GUCs at startup */
static struct
{
	bool		set;
	int			k;
	int			mask;			/* index slots - 1 */
	Size		off_heap,
				off_pos,
				off_index,
				off_counts,
				off_hashes,
				off_counters,
				summary_size,
				sketch_size,
				table_size;
} hk_geo;

static HkShared *hk_shared = NULL;	/* shared mode: attached at startup */
static char *hk_slots = NULL;	/* shared mode: the first slot */
static HkTable *hk_local[ST_HOT_KEYS_LOCAL_TABLES];	/* else: this backend's, or NULL */

/* Which slot held a table last (checked under the sketch's lock before use) */
#define HK_CACHE_SIZE 64
static struct
{
	Oid			relid;
	int			slot;
} hk_cache[HK_CACHE_SIZE];

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

#define SUM_HEAP(m) ((int16 *) ((char *) (m) + hk_geo.off_heap))
#define SUM_POS(m) ((int16 *) ((char *) (m) + hk_geo.off_pos))
#define SUM_INDEX(m) ((int16 *) ((char *) (m) + hk_geo.off_index))
#define SUM_COUNTS(m) ((int64 *) ((char *) (m) + hk_geo.off_counts))
#define SUM_HASHES(m) ((uint64 *) ((char *) (m) + hk_geo.off_hashes))
#define SUM_COUNTERS(m) ((HkCounter *) ((char *) (m) + hk_geo.off_counters))

static void
geometry_init(void)
{
	int			nslots = 1;
	Size		off;

	if (hk_geo.set)
		return;
	hk_geo.k = st_hot_keys_max;
	while (nslots < 2 * hk_geo.k)
		nslots <<= 1;
	hk_geo.mask = nslots - 1;
	off = MAXALIGN(sizeof(HkSummary));
	hk_geo.off_heap = off;
	off += sizeof(int16) * hk_geo.k;
	hk_geo.off_pos = off;
	off += sizeof(int16) * hk_geo.k;
	hk_geo.off_index = off;
	off += sizeof(int16) * nslots;
	off = MAXALIGN(off);
	hk_geo.off_counts = off;
	off += sizeof(int64) * hk_geo.k;
	hk_geo.off_hashes = off;
	off += sizeof(uint64) * hk_geo.k;
	hk_geo.off_counters = off;
	off += sizeof(HkCounter) * hk_geo.k;
	hk_geo.summary_size = MAXALIGN(off);
	hk_geo.sketch_size = MAXALIGN(sizeof(HkSketch)) + 2 * hk_geo.summary_size;
	hk_geo.table_size = MAXALIGN(sizeof(HkTable)) + 2 * hk_geo.sketch_size;
	hk_geo.set = true;
}

static inline HkSketch *
table_sketch(HkTable *t, int kind)
{
	return (HkSketch *) ((char *) t + MAXALIGN(sizeof(HkTable)) + kind * hk_geo.sketch_size);
}

static inline HkSummary *
sketch_summary(HkSketch *s, int which)
{
	return (HkSummary *) ((char *) s + MAXALIGN(sizeof(HkSketch)) + which * hk_geo.summary_size);
}

static inline int
ntables(void)
{
	return hk_shared ? hk_shared->ntables : ST_HOT_KEYS_LOCAL_TABLES;
}

/* Slot i, or NULL (a backend's slot not allocated yet) */
static inline HkTable *
slot_at(int i)
{
	if (hk_shared)
		return (HkTable *) (hk_slots + (Size) i * hk_geo.table_size);
	return hk_local[i];
}

static inline void
sketch_lock(HkSketch *s, LWLockMode mode)
{
	if (hk_shared)
		LWLockAcquire(s->lock, mode);
}

static inline void
sketch_unlock(HkSketch *s)
{
	if (hk_shared)
		LWLockRelease(s->lock);
}

static inline void
dir_lock(LWLockMode mode)
{
	if (hk_shared)
		LWLockAcquire(hk_shared->lock, mode);
}

static inline void
dir_unlock(void)
{
	if (hk_shared)
		LWLockRelease(hk_shared->lock);
}

/* ------------------------------------------------------------ shared memory */

static Size
hk_memsize(void)
{
	return add_size(MAXALIGN(sizeof(HkShared)),
					mul_size(st_hot_keys_tables, hk_geo.table_size));
}

static void
hk_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	geometry_init();
	RequestAddinShmemSpace(hk_memsize());
	RequestNamedLWLockTranche(TRANCHE_NAME, 1 + 2 * st_hot_keys_tables);
}

static void summary_clear(HkSummary *m);

static void
hk_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	geometry_init();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	hk_shared = ShmemInitStruct("singletable hot keys", hk_memsize(), &found);
	hk_slots = (char *) hk_shared + MAXALIGN(sizeof(HkShared));
	if (!found)
	{
		LWLockPadded *locks = GetNamedLWLockTranche(TRANCHE_NAME);

		hk_shared->lock = &locks[0].lock;
		hk_shared->ntables = st_hot_keys_tables;
		for (int i = 0; i < st_hot_keys_tables; i++)
		{
			HkTable    *t = slot_at(i);

			t->dbid = InvalidOid;
			t->relid = InvalidOid;
			for (int kind = 0; kind < 2; kind++)
			{
				HkSketch   *s = table_sketch(t, kind);

				s->lock = &locks[1 + 2 * i + kind].lock;
				s->window_start = 0;
				s->cur = 0;
				summary_clear(sketch_summary(s, 0));
				summary_clear(sketch_summary(s, 1));
			}
		}
	}
	LWLockRelease(AddinShmemInitLock);
}

void
st_hot_keys_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = hk_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = hk_shmem_startup;
}

/* ------------------------------------------------------------ Space-Saving */

static void
summary_clear(HkSummary *m)
{
	m->total = 0;
	m->n = 0;
	memset(SUM_INDEX(m), 0xff, sizeof(int16) * (hk_geo.mask + 1));
}

/* The index slot of hash: where it is (*found) or where it would go. */
static inline int
index_probe(HkSummary *m, uint64 hash, bool *found)
{
	int16	   *idx = SUM_INDEX(m);
	uint64	   *h = SUM_HASHES(m);
	int			i = (int) (hash & hk_geo.mask);

	while (idx[i] >= 0)
	{
		if (h[idx[i]] == hash)
		{
			*found = true;
			return i;
		}
		i = (i + 1) & hk_geo.mask;
	}
	*found = false;
	return i;
}

/* Empties index slot i, shifting later entries of its run back (linear probing). */
static void
index_delete(HkSummary *m, int i)
{
	int16	   *idx = SUM_INDEX(m);
	uint64	   *h = SUM_HASHES(m);
	int			j = i;

	for (;;)
	{
		int			home;

		j = (j + 1) & hk_geo.mask;
		if (idx[j] < 0)
			break;
		home = (int) (h[idx[j]] & hk_geo.mask);
		/* the entry at j may move to i unless its home lies cyclically in (i, j] */
		if (j > i ? (home <= i || home > j) : (home <= i && home > j))
		{
			idx[i] = idx[j];
			i = j;
		}
	}
	idx[i] = -1;
}

static inline void
heap_swap(int16 *heap, int16 *pos, int a, int b)
{
	int16		t = heap[a];

	heap[a] = heap[b];
	heap[b] = t;
	pos[heap[a]] = a;
	pos[heap[b]] = b;
}

static void
sift_down(HkSummary *m, int p)
{
	int16	   *heap = SUM_HEAP(m);
	int16	   *pos = SUM_POS(m);
	int64	   *cnt = SUM_COUNTS(m);

	for (;;)
	{
		int			l = 2 * p + 1;
		int			s = l;

		if (l >= m->n)
			break;
		if (l + 1 < m->n && cnt[heap[l + 1]] < cnt[heap[l]])
			s = l + 1;
		if (cnt[heap[s]] >= cnt[heap[p]])
			break;
		heap_swap(heap, pos, p, s);
		p = s;
	}
}

static void
sift_up(HkSummary *m, int p)
{
	int16	   *heap = SUM_HEAP(m);
	int16	   *pos = SUM_POS(m);
	int64	   *cnt = SUM_COUNTS(m);

	while (p > 0)
	{
		int			parent = (p - 1) / 2;

		if (cnt[heap[parent]] <= cnt[heap[p]])
			break;
		heap_swap(heap, pos, p, parent);
		p = parent;
	}
}

static inline void
counter_set_key(HkCounter *c, const char *key, int keylen, bool truncated)
{
	c->keylen = (int16) keylen;
	c->truncated = truncated;
	memcpy(c->key, key, keylen);
}

/*
 * Counts one access of the key: its counter, a free one, or the least
 * counter's, whose count the key inherits as its error (Space-Saving).
 */
static void
summary_add(HkSummary *m, uint64 hash, const char *key, int keylen, bool truncated)
{
	int16	   *idx = SUM_INDEX(m);
	int16	   *heap = SUM_HEAP(m);
	int16	   *pos = SUM_POS(m);
	int64	   *cnt = SUM_COUNTS(m);
	uint64	   *h = SUM_HASHES(m);
	HkCounter  *c = SUM_COUNTERS(m);
	bool		found;
	int			slot = index_probe(m, hash, &found);
	int			ci;

	m->total++;
	if (found)
	{
		ci = idx[slot];
		cnt[ci]++;
		sift_down(m, pos[ci]);
		return;
	}
	if (m->n < hk_geo.k)
	{
		ci = m->n++;
		counter_set_key(&c[ci], key, keylen, truncated);
		h[ci] = hash;
		cnt[ci] = 1;
		c[ci].error = 0;
		idx[slot] = ci;
		heap[m->n - 1] = ci;
		pos[ci] = m->n - 1;
		sift_up(m, m->n - 1);
		return;
	}
	/* full: the least counter changes hands */
	ci = heap[0];
	{
		bool		old_found;
		int			old_slot = index_probe(m, h[ci], &old_found);

		Assert(old_found);
		if (old_found)
			index_delete(m, old_slot);
	}
	slot = index_probe(m, hash, &found);
	counter_set_key(&c[ci], key, keylen, truncated);
	h[ci] = hash;
	c[ci].error = cnt[ci];
	cnt[ci]++;
	idx[slot] = ci;
	sift_down(m, 0);
}

/*
 * Moves the sketch's windows on to now: after one window the current one
 * becomes the previous one, after two both are empty. Lock held exclusively.
 */
static void
sketch_roll(HkSketch *s, TimestampTz now)
{
	int64		w = (int64) st_hot_keys_window * USECS_PER_SEC;

	if (s->window_start == 0 || now - s->window_start >= 2 * w)
	{
		summary_clear(sketch_summary(s, 0));
		summary_clear(sketch_summary(s, 1));
		s->window_start = now;
	}
	else if (now - s->window_start >= w)
	{
		s->cur ^= 1;
		summary_clear(sketch_summary(s, s->cur));
		s->window_start += w;
	}
}

/* Empties slot t and gives it to (dbid, relid); the directory is locked exclusively. */
static void
slot_assign(HkTable *t, Oid dbid, Oid relid)
{
	for (int kind = 0; kind < 2; kind++)
	{
		HkSketch   *s = table_sketch(t, kind);

		sketch_lock(s, LW_EXCLUSIVE);
		if (kind == 0)
		{
			t->dbid = dbid;
			t->relid = relid;
		}
		s->window_start = 0;
		s->cur = 0;
		summary_clear(sketch_summary(s, 0));
		summary_clear(sketch_summary(s, 1));
	}
	for (int kind = 0; kind < 2; kind++)
		sketch_unlock(table_sketch(t, kind));
}

/* Accesses of slot t in its windows as of now (read without locks: a heuristic) */
static int64
slot_usage(HkTable *t, TimestampTz now)
{
	int64		w = (int64) st_hot_keys_window * USECS_PER_SEC;
	int64		usage = 0;

	for (int kind = 0; kind < 2; kind++)
	{
		HkSketch   *s = table_sketch(t, kind);
		TimestampTz start = s->window_start;
		int			cur = s->cur;

		if (start == 0 || now - start >= 2 * w)
			continue;
		usage += sketch_summary(s, cur)->total;
		if (now - start < w)
			usage += sketch_summary(s, cur ^ 1)->total;
	}
	return usage;
}

/* The slot of (this database, relid), or -1; the directory is locked. */
static int
slot_find(Oid relid)
{
	for (int i = 0; i < ntables(); i++)
	{
		HkTable    *t = slot_at(i);

		if (t && t->dbid == MyDatabaseId && t->relid == relid)
			return i;
	}
	return -1;
}

/*
 * The slot of (this database, relid), given to it if it has none: a free
 * slot or the least used one. -1 when there is none (no memory).
 */
static int
slot_get(Oid relid, TimestampTz now)
{
	int			i;
	int			victim = -1;
	int64		least = PG_INT64_MAX;

	dir_lock(LW_SHARED);
	i = slot_find(relid);
	dir_unlock();
	if (i >= 0)
		return i;

	dir_lock(LW_EXCLUSIVE);
	i = slot_find(relid);
	if (i < 0)
	{
		for (int j = 0; j < ntables(); j++)
		{
			HkTable    *t = slot_at(j);
			int64		u;

			if (t == NULL || !OidIsValid(t->dbid))
			{
				victim = j;
				break;
			}
			u = slot_usage(t, now);
			if (u < least)
			{
				least = u;
				victim = j;
			}
		}
		if (victim >= 0 && slot_at(victim) == NULL)
		{
			/* a backend's own slot, allocated on first use; none without memory */
			hk_local[victim] = MemoryContextAllocExtended(TopMemoryContext, hk_geo.table_size,
														  MCXT_ALLOC_NO_OOM);
		}
		if (victim >= 0 && slot_at(victim) != NULL)
		{
			slot_assign(slot_at(victim), MyDatabaseId, relid);
			i = victim;
		}
	}
	dir_unlock();
	return i;
}

void
st_hot_keys_record(StTable *tab, bool write, const char *pk_text)
{
	const char *key;
	int			len;
	int			keylen;
	uint64		hash;
	TimestampTz now;
	int			ci;
	int			i;
	HkTable    *t = NULL;
	HkSketch   *s;

	if (!st_track_hot_keys || pk_text == NULL || st_stats_paused)
		return;
	geometry_init();
	key = pk_text;
	len = strlen(key);
	hash = hash_bytes_extended((const unsigned char *) key, len, 0);
	keylen = len <= ST_HOT_KEY_MAX_BYTES ? len : pg_mbcliplen(key, len, ST_HOT_KEY_MAX_BYTES);
	/* the statement's start: no clock read per call */
	now = GetCurrentStatementStartTimestamp();

	ci = tab->relid % HK_CACHE_SIZE;
	i = hk_cache[ci].relid == tab->relid ? hk_cache[ci].slot : -1;
	for (int attempt = 0; attempt < 2; attempt++)
	{
		if (i < 0 || (t = slot_at(i)) == NULL)
		{
			i = slot_get(tab->relid, now);
			if (i < 0)
				return;
			hk_cache[ci].relid = tab->relid;
			hk_cache[ci].slot = i;
			t = slot_at(i);
		}
		s = table_sketch(t, write ? HK_WRITE : HK_READ);
		sketch_lock(s, LW_EXCLUSIVE);
		if (t->dbid == MyDatabaseId && t->relid == tab->relid)
		{
			sketch_roll(s, now);
			summary_add(sketch_summary(s, s->cur), hash, key, keylen, keylen < len);
			sketch_unlock(s);
			return;
		}
		/* the slot went to another table meanwhile */
		sketch_unlock(s);
		i = -1;
	}
}

void
st_hot_keys_reset(Oid relid)
{
	geometry_init();
	dir_lock(LW_EXCLUSIVE);
	for (int i = 0; i < ntables(); i++)
	{
		HkTable    *t = slot_at(i);

		if (t == NULL || !OidIsValid(t->dbid))
			continue;
		if (!OidIsValid(relid) || (t->dbid == MyDatabaseId && t->relid == relid))
			slot_assign(t, InvalidOid, InvalidOid);
	}
	dir_unlock();
}

/* ------------------------------------------------------------ the function */

/* One key of a report: the windows' counts of a key added up */
typedef struct HkRow
{
	int64		count;
	int64		error;
	const HkCounter *c;
} HkRow;

/* Orders rows by count, most first, then by key (qsort). */
static int
row_cmp(const void *a, const void *b)
{
	const HkRow *x = a;
	const HkRow *y = b;
	int			r;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	r = memcmp(x->c->key, y->c->key, Min(x->c->keylen, y->c->keylen));
	if (r != 0)
		return r;
	return (x->c->keylen > y->c->keylen) - (x->c->keylen < y->c->keylen);
}

/*
 * What a key absent from summary m may have had there: nothing when m has
 * room left (it would have a counter), else up to its least count.
 */
static int64
absent_bound(HkSummary *m)
{
	if (m->n < hk_geo.k)
		return 0;
	return SUM_COUNTS(m)[SUM_HEAP(m)[0]];
}

#define HOT_KEYS_COLS 8

/*
 * Adds the rows of one access kind: the summaries a (current) and b
 * (previous, or empty) merged, the hot_keys_max largest counts.
 */
static void
emit_kind(ReturnSetInfo *rsinfo, const char *access, HkSummary *a, HkSummary *b,
		  TimestampTz since, Datum scope)
{
	HkSummary  *m[2] = {a, b};
	int64		bound[2] = {absent_bound(a), absent_bound(b)};
	int64		total = a->total + b->total;
	HkRow	   *rows = palloc(sizeof(HkRow) * (a->n + b->n + 1));
	int			nrows = 0;

	for (int w = 0; w < 2; w++)
	{
		HkSummary  *other = m[1 - w];
		HkCounter  *c = SUM_COUNTERS(m[w]);
		int64	   *cnt = SUM_COUNTS(m[w]);

		for (int j = 0; j < m[w]->n; j++)
		{
			bool		found;
			int			slot = index_probe(other, SUM_HASHES(m[w])[j], &found);
			HkRow	   *r;

			/* a key in both is added once, from a */
			if (found && w == 1)
				continue;
			r = &rows[nrows++];
			r->c = &c[j];
			r->count = cnt[j];
			r->error = c[j].error;
			if (found)
			{
				int			oi = SUM_INDEX(other)[slot];

				r->count += SUM_COUNTS(other)[oi];
				r->error += SUM_COUNTERS(other)[oi].error;
			}
			else
			{
				r->count += bound[1 - w];
				r->error += bound[1 - w];
			}
		}
	}
	qsort(rows, nrows, sizeof(HkRow), row_cmp);
	for (int j = 0; j < nrows && j < hk_geo.k; j++)
	{
		Datum		values[HOT_KEYS_COLS];
		bool		nulls[HOT_KEYS_COLS] = {false};

		values[0] = CStringGetTextDatum(access);
		values[1] = PointerGetDatum(cstring_to_text_with_len(rows[j].c->key, rows[j].c->keylen));
		values[2] = Int64GetDatum(rows[j].count);
		values[3] = Int64GetDatum(rows[j].error);
		values[4] = Float8GetDatum(total > 0 ? (double) rows[j].count / (double) total : 0.0);
		values[5] = BoolGetDatum(rows[j].c->truncated);
		values[6] = TimestampTzGetDatum(since);
		values[7] = scope;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(rows);
}

PG_FUNCTION_INFO_V1(singletable_hot_keys);

/*
 * singletable.hot_keys(table_name text) -> SETOF (access, partition_key,
 * count, error, share, truncated, window_start, scope): the table's most
 * accessed partition keys in the current and the previous window, reads
 * and writes, each by count. The caller needs SELECT on the table.
 */
Datum
singletable_hot_keys(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	StTable    *tab;
	Oid			relid;
	Datum		scope;
	TimestampTz now;
	int64		w;
	int			i;
	HkSummary  *copies[2][2];

	/* the name, the rights and the table first, before any work */
	tab = st_table_open(PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0), AccessShareLock, ACL_SELECT);
	relid = tab->relid;
	InitMaterializedSRF(fcinfo, 0);
	geometry_init();
	scope = CStringGetTextDatum(hk_shared ? "shared" : "backend");
	now = GetCurrentTimestamp();
	w = (int64) st_hot_keys_window * USECS_PER_SEC;

	for (int kind = 0; kind < 2; kind++)
		for (int which = 0; which < 2; which++)
		{
			copies[kind][which] = palloc(hk_geo.summary_size);
			copies[kind][which]->n = 0;
			copies[kind][which]->total = 0;
			memset(SUM_INDEX(copies[kind][which]), 0xff, sizeof(int16) * (hk_geo.mask + 1));
		}

	dir_lock(LW_SHARED);
	i = slot_find(relid);
	dir_unlock();
	if (i >= 0)
	{
		HkTable    *t = slot_at(i);
		TimestampTz since[2] = {0, 0};

		for (int kind = 0; kind < 2; kind++)
		{
			HkSketch   *s = table_sketch(t, kind);

			sketch_lock(s, LW_SHARED);
			/* the windows as of now, without moving them: a reader holds the lock shared */
			if (t->dbid == MyDatabaseId && t->relid == relid &&
				s->window_start != 0 && now - s->window_start < 2 * w)
			{
				if (now - s->window_start < w)
				{
					memcpy(copies[kind][0], sketch_summary(s, s->cur), hk_geo.summary_size);
					memcpy(copies[kind][1], sketch_summary(s, s->cur ^ 1), hk_geo.summary_size);
					since[kind] = s->window_start - (copies[kind][1]->total > 0 ? w : 0);
				}
				else
				{
					/* the current window is over: it is the previous one now */
					memcpy(copies[kind][0], sketch_summary(s, s->cur), hk_geo.summary_size);
					since[kind] = s->window_start;
				}
			}
			sketch_unlock(s);
		}
		for (int kind = 0; kind < 2; kind++)
			if (copies[kind][0]->total + copies[kind][1]->total > 0)
				emit_kind(rsinfo, kind == HK_READ ? "read" : "write",
						  copies[kind][0], copies[kind][1], since[kind], scope);
	}
	return (Datum) 0;
}
