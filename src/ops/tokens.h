/*
 * tokens.h — ClientRequestTokens of transact_write: the durable record that
 * makes a retried transaction idempotent for 10 minutes
 * (singletable.client_request_tokens), and the advisory lock classes of
 * transactions.
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_TOKENS_H
#define SINGLETABLE_TOKENS_H

#include "utils/jsonb.h"

/* DynamoDB's limits: 1 to 36 characters, valid for 10 minutes after the call */
#define ST_TOKEN_MAX_CHARS		36
#define ST_TOKEN_LIFETIME_SECS	600

/* Expired tokens a call with a token deletes (it adds at most one) */
#define ST_TOKEN_EXPIRE_PER_CALL	16

/* Expired tokens the TTL worker deletes in one round of a database */
#define ST_TOKEN_EXPIRE_PER_ROUND	10000

/*
 * The advisory locks of transactions (pg_locks.objsubid; PostgreSQL's
 * pg_advisory_lock functions use 1 and 2, Citus small numbers): one per
 * item of a transact_write, one per (role, token) while its call runs
 */
#define ST_LOCKTAG_ITEM		0x5354	/* 21332, "ST" */
#define ST_LOCKTAG_TOKEN	0x5355	/* 21333 */

/* Refuses a token that is not 1 to 36 characters long (DynamoDB's error) */
extern void st_token_validate(const char *token, int len);

/* The SHA-256 of a request, the same for the same request (its jsonb) */
extern bytea *st_token_request_hash(Jsonb *request);

/*
 * Claims token for the current transaction (55S01 while another session's
 * call with it has not ended) and deletes a few expired tokens. Returns the
 * response of the earlier call with the same token and request (in the SPI
 * caller's memory: a replay, nothing to run), or NULL: then the caller runs
 * the request and stores its response with st_token_store in the same
 * transaction. 22S01 when the token was used for another request. Inside
 * the caller's SPI connection.
 */
extern Jsonb *st_token_begin(const char *token, int len, bytea *hash);
extern void st_token_store(const char *token, int len, bytea *hash, Jsonb *response);

/*
 * One round of the TTL worker in its database, outside a transaction:
 * deletes expired tokens (at most ST_TOKEN_EXPIRE_PER_ROUND) in a
 * transaction of its own when the token table exists; logs an error
 * instead of raising it.
 */
extern void st_tokens_expire_round(void);

#endif
