/*
 * pool.c — a fixed pool of libpq connections, and one call of
 * singletable.dynamodb(operation, request) on one of them.
 *
 * Each of the N slots holds one connection, opened at start. A request
 * takes a free slot (waiting on a condition variable when all N are busy,
 * so that clients beyond the pool size queue), and gives it back after its
 * call. The statement
 *
 *     SELECT "schema".dynamodb($1, $2::pg_catalog.jsonb)
 *
 * is prepared once per connection (again after a reconnect).
 *
 * A request signed by a key with a role runs, in one round trip (libpq's
 * pipeline mode, one implicit transaction), SET ROLE <role>; the call;
 * RESET ROLE. When the call fails the transaction aborts, which undoes the
 * SET ROLE too; a RESET ROLE that fails discards the connection. So no
 * connection ever carries a key's role into another request, and grants and
 * row-level security decide what each key may do.
 *
 * A connection found broken before use (the backend was terminated while
 * idle: its socket is readable and reads end of file) is replaced first;
 * one that breaks during a call answers that request with
 * InternalServerError (HTTP 500, which the SDKs retry) and is replaced on
 * the slot's next use.
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "gateway.h"

#define STMT_NAME "singletable_gateway_dynamodb"

struct gw_slot
{
	int			index;
	PGconn	   *conn;
	bool		prepared;
	bool		busy;
	bool		fatal;			/* the server sent a FATAL error: the session is over */
	const char *operation;		/* of the call running, for the log of its warnings */
	gw_buf		warnings;		/* the WARNINGs of the call running, " | " between */
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_cond = PTHREAD_COND_INITIALIZER;
static gw_slot *slots;
static int	nslots;
static char *pool_dsn;
static char *pool_schema;

/*
 * Notices of the server (RAISE NOTICE) go to the debug log. A FATAL error
 * received while idle (pg_terminate_backend, idle_session_timeout, a server
 * shutdown) also arrives here: it marks the connection dead before libpq has
 * seen the end of file that follows it.
 */
static void
notice_receiver(void *arg, const PGresult *res)
{
	gw_slot    *slot = arg;
	const char *severity = PQresultErrorField(res, PG_DIAG_SEVERITY_NONLOCALIZED);
	const char *message = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);

	if (severity != NULL && (strcmp(severity, "FATAL") == 0 || strcmp(severity, "PANIC") == 0))
	{
		slot->fatal = true;
		gw_log(GW_LOG_WARNING, "connection %d: the server ended the session: %s", slot->index,
			   message ? message : "(no message)");
		return;
	}
	if (severity != NULL && strcmp(severity, "WARNING") == 0 && slot->operation != NULL && message != NULL)
	{
		/* a call's warning (singletable's entity checks): logged, and kept for the response header */
		gw_log(GW_LOG_WARNING, "%s: warning %s", slot->operation, message);
		if (slot->warnings.len <= GW_MAX_WARNING_HEADER)
		{
			if (slot->warnings.len > 0)
				gw_buf_append(&slot->warnings, " | ", 3);
			gw_buf_append(&slot->warnings, message, strlen(message));
		}
		return;
	}
	gw_log(GW_LOG_DEBUG, "connection %d: %s: %s", slot->index, severity ? severity : "NOTICE",
		   message ? message : "");
}

/*
 * The call's warnings as a header value (malloc'd; NULL: none): control
 * characters (CR, LF ...) become spaces, bytes outside ASCII '?', at most
 * GW_MAX_WARNING_HEADER bytes, a longer text cut with "...".
 */
static char *
warnings_header(gw_buf *w)
{
	size_t		n;
	char	   *h;

	if (w->len == 0 || w->oom || w->data == NULL)
		return NULL;
	n = w->len > GW_MAX_WARNING_HEADER ? GW_MAX_WARNING_HEADER : w->len;
	h = malloc(n + 4);
	if (h == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
	{
		unsigned char c = (unsigned char) w->data[i];

		h[i] = c < 0x20 || c == 0x7f ? ' ' : c >= 0x80 ? '?' : (char) c;
	}
	if (n < w->len)
		memcpy(h + n, "...", 3), n += 3;
	h[n] = '\0';
	return h;
}

/* Opens the slot's connection; false (logged) when the server cannot be reached. */
static bool
slot_connect(gw_slot *slot)
{
	/* --dsn comes last: its settings override these defaults */
	const char *keywords[] = {"client_encoding", "fallback_application_name", "connect_timeout", "dbname", NULL};
	const char *values[] = {"UTF8", GW_NAME, "10", pool_dsn, NULL};

	slot->conn = PQconnectdbParams(keywords, values, 1);
	slot->prepared = false;
	slot->fatal = false;
	if (slot->conn == NULL || PQstatus(slot->conn) != CONNECTION_OK)
	{
		char	   *m = slot->conn ? PQerrorMessage(slot->conn) : "out of memory";
		size_t		n = strlen(m);

		gw_log(GW_LOG_ERROR, "connection %d: could not connect to the database: %.*s",
			   slot->index, (int) (n > 0 && m[n - 1] == '\n' ? n - 1 : n), m);
		PQfinish(slot->conn);
		slot->conn = NULL;
		return false;
	}
	PQsetNoticeReceiver(slot->conn, notice_receiver, slot);
	gw_log(GW_LOG_DEBUG, "connection %d: connected (backend pid %d)", slot->index,
		   PQbackendPID(slot->conn));
	return true;
}

static void
slot_disconnect(gw_slot *slot)
{
	PQfinish(slot->conn);
	slot->conn = NULL;
	slot->prepared = false;
	slot->fatal = false;
}

/*
 * True if an idle connection is still usable: nothing should arrive on an
 * idle connection but notices, so a readable socket is read, and end of
 * file or an error (a terminated backend's FATAL) means it is gone.
 */
static bool
slot_alive(gw_slot *slot)
{
	struct pollfd pfd;

	if (slot->conn == NULL || slot->fatal || PQstatus(slot->conn) != CONNECTION_OK)
		return false;
	pfd.fd = PQsocket(slot->conn);
	pfd.events = POLLIN;
	if (pfd.fd < 0)
		return false;
	/* a few rounds: the FATAL message and the end of file may come in separate reads */
	for (int round = 0; round < 4; round++)
	{
		PGnotify   *n;

		pfd.revents = 0;
		if (poll(&pfd, 1, 0) <= 0)
			break;
		if (!PQconsumeInput(slot->conn) || slot->fatal || PQstatus(slot->conn) != CONNECTION_OK)
			return false;
		while ((n = PQnotifies(slot->conn)) != NULL)
			PQfreemem(n);
	}
	return true;
}

/* Connects all `size` slots; false (logged) if the database cannot be reached. */
bool
gw_pool_init(int size, const char *dsn, const char *schema)
{
	slots = calloc(size, sizeof(gw_slot));
	if (slots == NULL)
		return false;
	nslots = size;
	pool_dsn = dsn ? strdup(dsn) : NULL;
	pool_schema = strdup(schema);
	for (int i = 0; i < size; i++)
	{
		slots[i].index = i;
		if (!slot_connect(&slots[i]))
			return false;
	}
	return true;
}

/*
 * Takes a free slot, waiting while all are busy; its connection is checked
 * and, when broken, replaced (the slot may come back without a connection
 * when the database is unreachable: gw_call answers that).
 */
gw_slot *
gw_pool_acquire(void)
{
	gw_slot    *slot = NULL;

	pthread_mutex_lock(&pool_lock);
	for (;;)
	{
		for (int i = 0; i < nslots; i++)
			if (!slots[i].busy)
			{
				slot = &slots[i];
				break;
			}
		if (slot != NULL)
			break;
		pthread_cond_wait(&pool_cond, &pool_lock);
	}
	slot->busy = true;
	pthread_mutex_unlock(&pool_lock);

	if (!slot_alive(slot))
	{
		if (slot->conn != NULL)
			gw_log(GW_LOG_WARNING, "connection %d: the database connection was lost; reconnecting",
				   slot->index);
		slot_disconnect(slot);
		slot_connect(slot);
	}
	return slot;
}

/* Gives a slot back and wakes one waiting request. */
void
gw_pool_release(gw_slot *slot)
{
	pthread_mutex_lock(&pool_lock);
	slot->busy = false;
	pthread_cond_signal(&pool_cond);
	pthread_mutex_unlock(&pool_lock);
}

/* Closes every connection (at exit, after the HTTP server has stopped). */
void
gw_pool_close(void)
{
	pthread_mutex_lock(&pool_lock);
	for (int i = 0; i < nslots; i++)
		if (!slots[i].busy)
			slot_disconnect(&slots[i]);
	pthread_mutex_unlock(&pool_lock);
}

/*
 * The DynamoDB exception of a SQLSTATE, for an error without DynamoDB's body
 * in its DETAIL (PostgreSQL's own errors: a missing grant, a timeout): the
 * pairing of the extension's st_dynamodb_exception, both generated from the
 * error table src/utils/errors.tab.
 */
static const char *
exception_of_sqlstate(const char *s)
{
#define ENTRY(sqlstate, type) {sqlstate, type},
	static const struct
	{
		const char *sqlstate;	/* in classes[]: the class, two characters */
		const char *type;
	}			map[] = {
		GW_SQLSTATE_EXCEPTIONS(ENTRY)
	},
				classes[] = {
		GW_CLASS_EXCEPTIONS(ENTRY)
	};
#undef ENTRY

	if (s == NULL || strlen(s) != 5)
		return GW_EXC_OTHERWISE;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(s, map[i].sqlstate) == 0)
			return map[i].type;
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (strncmp(s, classes[i].sqlstate, 2) == 0)
			return classes[i].type;
	return GW_EXC_OTHERWISE;
}

/*
 * DynamoDB's response for a failed statement: the DETAIL verbatim when it is
 * DynamoDB's error body (the extension's error contract; CancellationReasons
 * and all), else the exception of the SQLSTATE with PostgreSQL's message
 * (InternalServerError: a fixed message, the real one logged).
 */
static void
error_response(gw_slot *slot, const PGresult *r, gw_response *out)
{
	const char *sqlstate = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	const char *detail = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_DETAIL) : NULL;
	const char *primary = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	const char *type;
	char		dtype[256];

	if (detail != NULL && detail[0] == '{' &&
		gw_json_check(detail, strlen(detail), GW_JSON_MAX_DEPTH, NULL) == NULL &&
		gw_json_top_string(detail, strlen(detail), "__type", dtype, sizeof(dtype)) &&
		dtype[0] != '\0')
	{
		out->status = gw_status_of_type(dtype);
		out->body = strdup(detail);
		out->len = out->body ? strlen(out->body) : 0;
		if (out->status >= 500)
			gw_log(GW_LOG_ERROR, "connection %d: %s: %s", slot->index,
				   sqlstate ? sqlstate : "?????", primary ? primary : "");
		return;
	}
	type = exception_of_sqlstate(sqlstate);
	if (strcmp(type, GW_EXC_INTERNAL) == 0)
	{
		if (sqlstate != NULL && strcmp(sqlstate, "42883") == 0)
			gw_log(GW_LOG_ERROR, "connection %d: %s (is the extension installed, with %s.dynamodb(text, jsonb)? see --schema)",
				   slot->index, primary ? primary : "", pool_schema);
		else
		{
			const char *m = primary ? primary : (slot->conn ? PQerrorMessage(slot->conn) : "");
			size_t		n = strlen(m);

			gw_log(GW_LOG_ERROR, "connection %d: %s: %.*s", slot->index,
				   sqlstate ? sqlstate : "no SQLSTATE", (int) (n > 0 && m[n - 1] == '\n' ? n - 1 : n), m);
		}
		gw_error_response(out, 500, GW_EXC_INTERNAL, "Internal server error");
		return;
	}
	gw_error_response(out, 0, type, primary ? primary : "");
}

/* Prepares the call on the slot's connection; on failure fills *out. */
static bool
slot_prepare(gw_slot *slot, gw_response *out)
{
	char	   *schema = PQescapeIdentifier(slot->conn, pool_schema, strlen(pool_schema));
	char		sql[256];
	PGresult   *r;
	bool		ok;

	if (schema == NULL)
	{
		gw_error_response(out, 500, GW_EXC_INTERNAL, "Internal server error");
		return false;
	}
	snprintf(sql, sizeof(sql), "SELECT %s.dynamodb($1, $2::pg_catalog.jsonb)", schema);
	PQfreemem(schema);
	r = PQprepare(slot->conn, STMT_NAME, sql, 2, NULL);
	ok = PQresultStatus(r) == PGRES_COMMAND_OK;
	if (ok)
		slot->prepared = true;
	else
		error_response(slot, r, out);
	PQclear(r);
	return ok;
}

/* A successful call's response: the function's jsonb, as text. */
static void
ok_response(const PGresult *r, gw_response *out)
{
	if (PQntuples(r) == 1 && PQnfields(r) == 1 && !PQgetisnull(r, 0, 0))
	{
		out->len = (size_t) PQgetlength(r, 0, 0);
		out->body = malloc(out->len + 1);
		if (out->body != NULL)
			memcpy(out->body, PQgetvalue(r, 0, 0), out->len + 1);
	}
	else
	{
		out->body = strdup("{}");
		out->len = 2;
	}
	out->status = out->body ? 200 : 500;
}

/* SET ROLE; the call; RESET ROLE — in one round trip. Fills *out. */
static void
call_as_role(gw_slot *slot, const char *const values[2], const char *role, gw_response *out)
{
	PGconn	   *conn = slot->conn;
	PGresult   *res[3] = {NULL, NULL, NULL};
	PGresult   *late = NULL;	/* an error of the implicit COMMIT at the sync point */
	char	   *quoted = PQescapeIdentifier(conn, role, strlen(role));
	char		setrole[160];
	int			qi = 0;

	if (quoted == NULL)
	{
		gw_error_response(out, 500, GW_EXC_INTERNAL, "Internal server error");
		return;
	}
	snprintf(setrole, sizeof(setrole), "SET ROLE %s", quoted);
	PQfreemem(quoted);
	if (!PQenterPipelineMode(conn) ||
		!PQsendQueryParams(conn, setrole, 0, NULL, NULL, NULL, NULL, 0) ||
		!PQsendQueryPrepared(conn, STMT_NAME, 2, values, NULL, NULL, 0) ||
		!PQsendQueryParams(conn, "RESET ROLE", 0, NULL, NULL, NULL, NULL, 0) ||
		!PQpipelineSync(conn))
	{
		error_response(slot, NULL, out);
		slot_disconnect(slot);
		return;
	}
	/* each query's results end with NULL; the sync point ends the pipeline */
	for (;;)
	{
		PGresult   *r = PQgetResult(conn);

		if (r == NULL)
		{
			if (PQstatus(conn) == CONNECTION_BAD || ++qi > 3)
				break;
			continue;
		}
		if (PQresultStatus(r) == PGRES_PIPELINE_SYNC)
		{
			PQclear(r);
			break;
		}
		if (qi < 3 && res[qi] == NULL)
			res[qi] = r;
		else if (late == NULL && PQresultStatus(r) == PGRES_FATAL_ERROR)
			late = r;
		else
			PQclear(r);
	}
	if (PQstatus(conn) == CONNECTION_BAD || !PQexitPipelineMode(conn))
		slot_disconnect(slot);

	if (res[0] == NULL || PQresultStatus(res[0]) != PGRES_COMMAND_OK)
	{
		if (slot->conn == NULL)
			error_response(slot, res[0], out);
		else
		{
			const char *m = res[0] ? PQresultErrorField(res[0], PG_DIAG_MESSAGE_PRIMARY) : NULL;

			/* a key whose role is missing or not granted to the login user */
			gw_log(GW_LOG_WARNING, "connection %d: SET ROLE \"%s\" failed: %s", slot->index, role,
				   m ? m : "(no message)");
			gw_error_response(out, 400, GW_EXC_ACCESS_DENIED, m ? m : "permission denied to set role");
		}
	}
	else if (res[1] != NULL && PQresultStatus(res[1]) == PGRES_TUPLES_OK && late != NULL)
		error_response(slot, late, out);
	else if (res[1] != NULL && PQresultStatus(res[1]) == PGRES_TUPLES_OK)
		ok_response(res[1], out);
	else
		error_response(slot, res[1], out);

	if (slot->conn != NULL && res[1] != NULL && PQresultStatus(res[1]) == PGRES_TUPLES_OK &&
		(res[2] == NULL || PQresultStatus(res[2]) != PGRES_COMMAND_OK))
	{
		gw_log(GW_LOG_ERROR, "connection %d: RESET ROLE failed; closing the connection", slot->index);
		slot_disconnect(slot);
	}
	for (int i = 0; i < 3; i++)
		PQclear(res[i]);
	PQclear(late);
}

/*
 * Runs singletable.dynamodb(operation, body) on the slot's connection, as
 * `role` (NULL: the login user), and fills *out with DynamoDB's response.
 */
void
gw_call(gw_slot *slot, const char *operation, const char *body, const char *role, gw_response *out)
{
	const char *values[2] = {operation, body};

	out->body = NULL;
	out->len = 0;
	out->warnings = NULL;
	/* the warnings of this call only */
	slot->operation = operation;
	slot->warnings.len = 0;
	slot->warnings.oom = false;
	if (slot->warnings.data)
		slot->warnings.data[0] = '\0';
	if (slot->conn == NULL)
	{
		gw_error_response(out, 503, GW_EXC_UNAVAILABLE, "The database is not reachable; retry later.");
		return;
	}
	if (!slot->prepared && !slot_prepare(slot, out))
	{
		if (PQstatus(slot->conn) == CONNECTION_BAD)
			slot_disconnect(slot);
		return;
	}
	if (role != NULL)
		call_as_role(slot, values, role, out);
	else
	{
		PGresult   *r = PQexecPrepared(slot->conn, STMT_NAME, 2, values, NULL, NULL, 0);

		if (PQresultStatus(r) == PGRES_TUPLES_OK)
			ok_response(r, out);
		else
			error_response(slot, r, out);
		PQclear(r);
		if (PQstatus(slot->conn) == CONNECTION_BAD)
		{
			gw_log(GW_LOG_WARNING, "connection %d: the database connection was lost during a call", slot->index);
			slot_disconnect(slot);
		}
	}
	/* a call that broke its connection answers 500, whatever the error said */
	if (slot->conn == NULL && out->status < 500)
	{
		free(out->body);
		gw_error_response(out, 500, GW_EXC_INTERNAL, "Internal server error");
	}
	if (out->body == NULL)
		gw_error_response(out, 500, GW_EXC_INTERNAL, "Internal server error");
	out->warnings = warnings_header(&slot->warnings);
	slot->operation = NULL;
}
