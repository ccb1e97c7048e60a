/*
 * streams.h — DynamoDB Streams: the stored change records of stream-enabled
 * tables, read for the Streams API (api/) and singletable.stream_records.
 *
 * The records are written by the stream worker (bgw/stream_worker.c) from
 * logical decoding (ops/stream_decode.c, the output plugin). Every reader
 * checks that the caller has SELECT on the stream's table when the table
 * still exists; the storage tables are read without the caller's ACL on
 * them. Results are allocated in the caller's memory context.
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_OPS_STREAMS_H
#define SINGLETABLE_OPS_STREAMS_H

#include "datatype/timestamp.h"
#include "format/attrval.h"
#include "nodes/pg_list.h"
#include "utils/jsonb.h"

/* The view type of a stream (StreamViewType) */
typedef enum StStreamView
{
	ST_STREAM_KEYS_ONLY,
	ST_STREAM_NEW_IMAGE,
	ST_STREAM_OLD_IMAGE,
	ST_STREAM_NEW_AND_OLD_IMAGES
} StStreamView;

typedef struct StStream
{
	int32		stream_id;
	Oid			table_oid;
	char	   *table_name;
	char	   *label;			/* StreamLabel */
	char	   *arn;			/* StreamArn */
	StStreamView view;
	const char *status;			/* "ENABLING", "ENABLED" or "DISABLED" */
	TimestampTz enabled_at;
	TimestampTz disabled_at;	/* 0: none */
	StAttrKeys	keys;			/* the table's key schema */
} StStream;

typedef struct StStreamShard
{
	char	   *shard_id;
	char	   *parent_shard_id;	/* NULL: none */
	int64		starting_seq;
	int64		ending_seq;		/* 0: open */
} StStreamShard;

typedef struct StStreamRecord
{
	int64		seq;
	TimestampTz created_at;		/* commit time */
	const char *event_name;		/* "INSERT", "MODIFY" or "REMOVE" */
	bool		ttl;			/* deleted by the TTL sweep: userIdentity */
	int32		size_bytes;
	Jsonb	   *keys;			/* wire form (AttributeValues) */
	Jsonb	   *new_image;		/* NULL if absent */
	Jsonb	   *old_image;		/* NULL if absent */
} StStreamRecord;

/* The name of a view type and back (-1: not a view type's name) */
extern const char *st_stream_view_name(StStreamView view);
extern int	st_stream_view_from_name(const char *name);

/* InvalidOid: every stream the caller may read; newest first (StStream *) */
extern List *st_streams_of(Oid relid);

/* false: no such stream (or the caller may not read it) */
extern bool st_stream_by_arn(const char *arn, StStream *out);

/* The table's newest stream or NULL (DescribeTable) */
extern StStream *st_stream_latest(Oid relid);

/* StStreamShard *, oldest first */
extern List *st_stream_shards(int32 stream_id);

/* Lowest seq still kept (TrimmedDataAccessException below it) */
extern int64 st_stream_trim_seq(int32 stream_id);

/* Highest seq stored for the stream, 0: none */
extern int64 st_stream_last_seq(int32 stream_id);

/*
 * Records (StStreamRecord *) with after_seq < seq <= until_seq (until 0: no
 * bound), at most max_records, and stopping before exceeding max_bytes of
 * size_bytes (at least one record)
 */
extern List *st_stream_read(int32 stream_id, int64 after_seq, int64 until_seq,
							int max_records, int64 max_bytes);

/* Settings (guc.c): retention and shard lifetime in seconds */
extern int	st_stream_retention;
extern int	st_stream_shard_lifetime;

/* true under shared_preload_libraries (set by bgw/stream_worker.c) */
extern bool st_streams_preloaded;

/*
 * The logical replication slot of a database's streams:
 * singletable_streams_<database OID> (slot names are unique in the cluster)
 */
#define ST_STREAM_SLOT_FORMAT "singletable_streams_%u"

/*
 * Runs sql on the stream storage as its owner, in the caller's SPI
 * connection (result in SPI_tuptable); returns SPI's code
 */
extern int	st_stream_execute(const char *sql, int nargs, Oid *argtypes, Datum *values,
							  const char *nulls, bool read_only);

/* Wire SequenceNumber: seq as a decimal string zero-padded to 21 digits */
extern char *st_stream_seq_text(int64 seq);

#endif
