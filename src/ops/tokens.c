/*
 * tokens.c — ClientRequestTokens of transact_write (see tokens.h).
 *
 * A call with a token first claims it: a transaction-level advisory lock on
 * a 64-bit hash of (role, token), taken without waiting. Another session
 * whose call with the same token has not ended (it has not committed or
 * rolled back) holds it, so the second call fails at once with
 * TransactionInProgress (55S01) instead of running the request twice; a
 * second call in the same transaction gets the lock again and finds the
 * first call's row. Two different tokens whose hashes collide only make one
 * of them report TransactionInProgress while the other runs.
 *
 * Design notes: the section on tokens.c in README.md of this folder.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type_d.h"
#include "commands/dbcommands.h"
#include "commands/extension.h"
#include "common/cryptohash.h"
#include "common/hashfn.h"
#include "common/sha2.h"
#include "executor/spi.h"
#include "mb/pg_wchar.h"
#include "nodes/makefuncs.h"
#include "miscadmin.h"
#include "storage/lock.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "utils/errors.h"
#include "catalog/distribute.h"
#include "catalog/registry.h"
#include "ops/tokens.h"

#define TOKEN_TABLE "client_request_tokens"
#define TOKEN_REGISTRY "singletable." TOKEN_TABLE

/* The statements on the token table, prepared once per backend */
typedef enum TokenStatement
{
	TOKEN_EXPIRE,				/* deletes up to $2 rows that expired at $1 */
	TOKEN_LOOKUP,				/* the row of ($1 role, $2 token), whether live at $3 */
	TOKEN_STORE,				/* inserts the row, or replaces one expired at $6 */
	NUM_TOKEN_STATEMENTS
} TokenStatement;

static const char *const statement_sql[NUM_TOKEN_STATEMENTS] = {
	/* oldest first, skipping rows another session is deleting */
	"DELETE FROM " TOKEN_REGISTRY " t USING (SELECT e.role, e.token FROM " TOKEN_REGISTRY " e"
	" WHERE e.created_at OPERATOR(pg_catalog.<=) $1 ORDER BY e.created_at LIMIT $2"
	" FOR UPDATE SKIP LOCKED) x"
	" WHERE t.role OPERATOR(pg_catalog.=) x.role AND t.token OPERATOR(pg_catalog.=) x.token",
	"SELECT request_hash, response, created_at OPERATOR(pg_catalog.>) $3"
	" FROM " TOKEN_REGISTRY
	" WHERE role OPERATOR(pg_catalog.=) $1 AND token OPERATOR(pg_catalog.=) $2",
	"INSERT INTO " TOKEN_REGISTRY " AS t (role, token, request_hash, response, created_at)"
	" VALUES ($1, $2, $3, $4, $5) ON CONFLICT (role, token) DO UPDATE"
	" SET request_hash = EXCLUDED.request_hash, response = EXCLUDED.response,"
	" created_at = EXCLUDED.created_at"
	" WHERE t.created_at OPERATOR(pg_catalog.<=) $6"
};
static const int statement_nargs[NUM_TOKEN_STATEMENTS] = {2, 3, 6};
static const Oid statement_argtypes[NUM_TOKEN_STATEMENTS][6] = {
	{TIMESTAMPTZOID, INT8OID},
	{REGROLEOID, TEXTOID, TIMESTAMPTZOID},
	{REGROLEOID, TEXTOID, BYTEAOID, JSONBOID, TIMESTAMPTZOID, TIMESTAMPTZOID}
};
static SPIPlanPtr statement_plans[NUM_TOKEN_STATEMENTS];

/* A time before which a token has expired: now - 10 minutes */
static TimestampTz
expiry_cutoff(void)
{
	return TimestampTzPlusMilliseconds(GetCurrentTimestamp(), -(int64) ST_TOKEN_LIFETIME_SECS * 1000);
}

void
st_token_validate(const char *token, int len)
{
	int			chars = pg_mbstrlen_with_len(token, len);

	if (chars < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("client_request_token must not be empty"),
				 st_errdetail_dynamodb("1 validation error detected: Value '' at 'clientRequestToken' failed to satisfy constraint: Member must have length greater than or equal to 1")));
	if (chars > ST_TOKEN_MAX_CHARS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("client_request_token is %d characters long, more than the limit of %d",
						chars, ST_TOKEN_MAX_CHARS),
				 st_errdetail_dynamodb("1 validation error detected: Value '%.*s' at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to %d",
									   len, token, ST_TOKEN_MAX_CHARS)));
}

bytea *
st_token_request_hash(Jsonb *request)
{
	pg_cryptohash_ctx *ctx = pg_cryptohash_create(PG_SHA256);
	bytea	   *hash = palloc(VARHDRSZ + PG_SHA256_DIGEST_LENGTH);

	/* jsonb is normalized (keys sorted, duplicates removed): equal requests, equal bytes */
	if (pg_cryptohash_init(ctx) < 0 ||
		pg_cryptohash_update(ctx, (const uint8 *) VARDATA(request), VARSIZE(request) - VARHDRSZ) < 0 ||
		pg_cryptohash_final(ctx, (uint8 *) VARDATA(hash), PG_SHA256_DIGEST_LENGTH) < 0)
		elog(ERROR, "could not compute the SHA-256 of a request: %s", pg_cryptohash_error(ctx));
	pg_cryptohash_free(ctx);
	SET_VARSIZE(hash, VARHDRSZ + PG_SHA256_DIGEST_LENGTH);
	return hash;
}

/* Takes the advisory lock of (role, token) without waiting; false when another session holds it. */
static bool
claim(const char *token, int len)
{
	LOCKTAG		tag;
	uint64		key = hash_bytes_extended((const unsigned char *) token, len, GetUserId());

	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, (uint32) (key >> 32), (uint32) key, ST_LOCKTAG_TOKEN);
	return LockAcquire(&tag, ExclusiveLock, false, true) != LOCKACQUIRE_NOT_AVAIL;
}

/* The token table's owner */
static Oid
token_table_owner(Oid *relid_out)
{
	Oid			relid = RangeVarGetRelid(makeRangeVar("singletable", TOKEN_TABLE, -1),
										 RowExclusiveLock, false);
	HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(tp))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	owner = ((Form_pg_class) GETSTRUCT(tp))->relowner;
	ReleaseSysCache(tp);
	if (relid_out)
		*relid_out = relid;
	return owner;
}

/*
 * Whether the token table is distributed by Citus (cluster_registry_sync
 * distributes it by token with the first distributed item table, so that a
 * token used through one node is found through every other): its rows are
 * then read and written by routed statements (the role passed as regrole,
 * which each node resolves by name), and expired ones are deleted by each
 * node's background worker from the shards it holds, not by every call.
 */
static bool
tokens_distributed(void)
{
	Oid			relid;

	(void) token_table_owner(&relid);
	return st_citus_table(relid);
}

/*
 * Runs statement which with values as the token table's owner (see the
 * file header); its rows are SPI_tuptable's.
 */
static void
run_as_owner(TokenStatement which, Datum *values)
{
	Oid			owner = token_table_owner(NULL);
	Oid			save_userid;
	int			save_sec;
	int			rc;

	if (statement_plans[which] == NULL)
	{
		SPIPlanPtr	plan = SPI_prepare(statement_sql[which], statement_nargs[which],
									   (Oid *) statement_argtypes[which]);

		if (plan == NULL || SPI_keepplan(plan) != 0)
			elog(ERROR, "preparing \"%s\" failed: %s", statement_sql[which],
				 SPI_result_code_string(SPI_result));
		statement_plans[which] = plan;
	}
	GetUserIdAndSecContext(&save_userid, &save_sec);
	SetUserIdAndSecContext(owner, save_sec | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	rc = SPI_execute_plan(statement_plans[which], values, NULL, false, 0);
	SetUserIdAndSecContext(save_userid, save_sec);
	if (rc < 0)
		elog(ERROR, "\"%s\" failed: %s", statement_sql[which], SPI_result_code_string(rc));
}

/* Deletes up to limit expired tokens, as the table's owner. */
static void
expire(int64 limit)
{
	Datum		values[2] = {TimestampTzGetDatum(expiry_cutoff()), Int64GetDatum(limit)};

	run_as_owner(TOKEN_EXPIRE, values);
}

/*
 * Of a distributed token table: deletes up to limit expired tokens from
 * each of its shards whose placement this node holds, as the table's owner
 * (a statement on a shard relation is local, as on a table of its own).
 */
static void
expire_local_shards(int64 limit)
{
	Oid			relid;
	Oid			owner = token_table_owner(&relid);
	Oid			argtypes[2] = {TIMESTAMPTZOID, INT8OID};
	Datum		values[2] = {TimestampTzGetDatum(expiry_cutoff()), Int64GetDatum(limit)};
	ListCell   *lc;

	foreach(lc, st_citus_local_shards(relid))
	{
		Oid			shard = lfirst_oid(lc);
		char	   *nsp = get_namespace_name(get_rel_namespace(shard));
		char	   *rel = get_rel_name(shard);
		char	   *qual;
		Oid			save_userid;
		int			save_sec;
		int			rc;

		CHECK_FOR_INTERRUPTS();
		if (nsp == NULL || rel == NULL)
			continue;			/* moved away meanwhile */
		qual = quote_qualified_identifier(nsp, rel);
		GetUserIdAndSecContext(&save_userid, &save_sec);
		SetUserIdAndSecContext(owner, save_sec | SECURITY_LOCAL_USERID_CHANGE |
							   SECURITY_RESTRICTED_OPERATION);
		rc = SPI_execute_with_args(psprintf("DELETE FROM %s WHERE ctid OPERATOR(pg_catalog.=) ANY (ARRAY("
											"SELECT ctid FROM %s WHERE created_at OPERATOR(pg_catalog.<=) $1"
											" ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED))", qual, qual),
								   2, argtypes, values, NULL, false, 0);
		SetUserIdAndSecContext(save_userid, save_sec);
		if (rc != SPI_OK_DELETE)
			elog(ERROR, "deleting the expired client request tokens of shard \"%s\" failed: %s",
				 rel, SPI_result_code_string(rc));
	}
}

Jsonb *
st_token_begin(const char *token, int len, bytea *hash)
{
	Datum		values[3];
	Jsonb	   *response = NULL;

	Assert(st_spi_connected());
	if (!claim(token, len))
		ereport(ERROR,
				(errcode(ERRCODE_ST_TRANSACTION_IN_PROGRESS),
				 errmsg("a transact_write with this client_request_token is still running in another session"),
				 st_errdetail_dynamodb("The transaction with the given request token is already in progress."),
				 errhint("Retry once it has ended: the retry returns its response, or runs the request if it failed.")));
	/* (an expired row is as good as none either way: this only bounds the table) */
	if (!tokens_distributed())
		expire(ST_TOKEN_EXPIRE_PER_CALL);

	values[0] = ObjectIdGetDatum(GetUserId());
	values[1] = PointerGetDatum(cstring_to_text_with_len(token, len));
	values[2] = TimestampTzGetDatum(expiry_cutoff());
	run_as_owner(TOKEN_LOOKUP, values);
	if (SPI_processed > 0)
	{
		HeapTuple	row = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		bytea	   *stored = DatumGetByteaPP(SPI_getbinval(row, desc, 1, &isnull));
		bool		live = DatumGetBool(SPI_getbinval(row, desc, 3, &isnull));

		/* an expired row is as good as none: st_token_store replaces it */
		if (live)
		{
			if (VARSIZE_ANY_EXHDR(stored) != VARSIZE_ANY_EXHDR(hash) ||
				memcmp(VARDATA_ANY(stored), VARDATA_ANY(hash), VARSIZE_ANY_EXHDR(hash)) != 0)
				ereport(ERROR,
						(errcode(ERRCODE_ST_IDEMPOTENT_MISMATCH),
						 errmsg("client_request_token was used for another request within the last %d minutes",
								ST_TOKEN_LIFETIME_SECS / 60),
						 st_errdetail_dynamodb("DynamoDB rejected the request because you retried a request with a different payload but with an idempotent token that was already used."),
						 errhint("Use a new token for a new request; a token is tied to the request it was first used with for %d minutes.",
								 ST_TOKEN_LIFETIME_SECS / 60)));
			response = DatumGetJsonbPCopy(SPI_getbinval(row, desc, 2, &isnull));
		}
	}
	return response;
}

void
st_token_store(const char *token, int len, bytea *hash, Jsonb *response)
{
	Datum		values[6];

	values[0] = ObjectIdGetDatum(GetUserId());
	values[1] = PointerGetDatum(cstring_to_text_with_len(token, len));
	values[2] = PointerGetDatum(hash);
	values[3] = JsonbPGetDatum(response);
	values[4] = TimestampTzGetDatum(GetCurrentTimestamp());
	values[5] = TimestampTzGetDatum(expiry_cutoff());

	/*
	 * The claim excludes a concurrent call of this node, so a live row of the
	 * token cannot appear here under READ COMMITTED; under REPEATABLE READ,
	 * one committed after this transaction's snapshot makes ON CONFLICT fail
	 * with a serialization error (40001), and the retry replays it. A call
	 * with the same token through another node of a Citus cluster (whose
	 * claim this node cannot see) waits here for the other's row, and finds
	 * it live: this call then fails, and its writes are undone with it.
	 */
	run_as_owner(TOKEN_STORE, values);
	if (SPI_processed != 1)
		ereport(ERROR,
				(errcode(ERRCODE_ST_TRANSACTION_IN_PROGRESS),
				 errmsg("a transact_write with this client_request_token ran in another session meanwhile"),
				 st_errdetail_dynamodb("The transaction with the given request token is already in progress."),
				 errhint("Retry: the retry returns its response.")));
}

/* Whether this database has the token table (0.2.0's install script made it). */
static bool
have_token_table(void)
{
	Oid			nsp;

	if (!OidIsValid(get_extension_oid("singletable", true)))
		return false;
	nsp = get_namespace_oid("singletable", true);
	return OidIsValid(nsp) && OidIsValid(get_relname_relid(TOKEN_TABLE, nsp));
}

void
st_tokens_expire_round(void)
{
	MemoryContext cxt = CurrentMemoryContext;

	PG_TRY();
	{
		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		if (have_token_table())
		{
			if (tokens_distributed())
				expire_local_shards(ST_TOKEN_EXPIRE_PER_ROUND);
			else
				expire(ST_TOKEN_EXPIRE_PER_ROUND);
		}
		SPI_finish();
		PopActiveSnapshot();
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		char	   *db;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		AbortCurrentTransaction();
		/* the database's name, for the log line, in a transaction of its own */
		StartTransactionCommand();
		db = MemoryContextStrdup(cxt, get_database_name(MyDatabaseId));
		CommitTransactionCommand();
		ereport(LOG,
				(errmsg("singletable: deleting the expired client request tokens of database \"%s\" failed: %s",
						db, edata->message)));
		FreeErrorData(edata);
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
}
