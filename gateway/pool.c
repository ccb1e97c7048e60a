/*
 * pool.c — a fixed pool of N libpq connections, driven non-blocking in
 * pipeline mode by main.c's event loop, and the call
 *
 *     SELECT "schema".dynamodb_as($1, $2, $3)      -- role, operation, request
 *
 * prepared once per connection (again after a reconnect): one statement per
 * request. dynamodb_as switches to the key's role for the duration of the
 * call in a way user code cannot undo (SET ROLE and RESET ROLE fail inside
 * it), checks that the login user is a member of that role (SQLSTATE 42501,
 * AccessDeniedException, when not) and returns DynamoDB's response as JSON
 * text, sent to the client as it comes. No connection ever carries a key's
 * role into another request, and grants and row-level security decide what
 * each key may do.
 *
 * Pipelining. Each connection stays in libpq's pipeline mode; a request is
 * PQsendQueryPrepared + PQpipelineSync, so that each keeps its own implicit
 * transaction (an error aborts that request only), and its results end with
 * the sync point. A call goes to an idle connection first, else to the one
 * with the fewest calls in flight, at most GW_PIPELINE_DEPTH (4) per
 * connection; beyond that it waits in the pool's FIFO queue and is sent when
 * a connection's result comes back. Several requests then share a round
 * trip and the backend finds the next request already in its socket; a
 * backend still runs one statement at a time, so --pool N bounds the calls
 * running in the database. The depth is small so that a request queued
 * behind a slow one on a connection waits little more than in the queue.
 * Results are read when the socket is readable (PQconsumeInput, then
 * PQgetResult while not PQisBusy); a call's WARNINGs (the notice receiver)
 * belong to the call at the head of its connection's pipeline, whose
 * results the server is sending.
 *
 * Broken connections. A connection whose socket reports end of file or an
 * error, or whose server sent FATAL (pg_terminate_backend, a shutdown),
 * answers each call in its pipeline with InternalServerError (HTTP 500,
 * which the SDKs retry) and is replaced when the next request comes (it
 * waits for the new connection), without blocking the loop: the new
 * connection is made with PQconnectStartParams/PQconnectPoll on socket
 * readiness (10 s at most) and prepares the statement before it takes calls.
 * One that could not be made is tried again at most once a second, when a
 * request comes; while no connection is up or being made, requests are
 * answered ServiceUnavailable (503, retried by the SDKs). A connection
 * lost while idle is seen at once (its socket becomes readable), so the
 * next request does not find it broken. At start the N connections
 * are made and checked synchronously: a schema without dynamodb_as(text,
 * text, text) (an older singletable) or a login role that may not execute it
 * stops the gateway with one line saying so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include <libpq-fe.h>

#include "gateway.h"

#define STMT_NAME "singletable_gateway_dynamodb_as"
#define CONNECT_TIMEOUT_MS 10000
#define RETRY_MS 1000

typedef enum slot_state
{
	SLOT_DOWN,					/* no connection; tried again from `deadline` on */
	SLOT_CONNECTING,			/* PQconnectPoll until `deadline` */
	SLOT_PREPARING,				/* the statement's Parse sent, until `deadline` */
	SLOT_READY					/* in pipeline mode, taking calls */
} slot_state;

typedef struct gw_slot
{
	int			index;
	slot_state	state;
	PGconn	   *conn;
	int			fd;				/* the socket registered with epoll, or -1 */
	unsigned int events;		/* its registered events */
	bool		fatal;			/* the server sent a FATAL error: the session is over */
	bool		prepare_failed; /* its last attempt failed to prepare (500, not 503) */
	bool		prepared_ok;	/* SLOT_PREPARING: the Parse succeeded */
	long long	deadline;
	gw_call    *head;			/* the pipeline: calls sent, oldest first */
	gw_call    *tail;
	int			inflight;
} gw_slot;

static gw_slot *slots;
static int	nslots;
static char *pool_dsn;
static char *pool_schema;
static char stmt_sql[256];
static int	epfd = -1;
static gw_call *queue_head;		/* calls waiting for a connection, FIFO */
static gw_call *queue_tail;
static int	queued;

static void slot_down(gw_slot *slot);

/*
 * Notices of the server (RAISE NOTICE) go to the debug log. A FATAL error
 * received while idle (pg_terminate_backend, idle_session_timeout, a server
 * shutdown) also arrives here: it marks the connection dead before libpq has
 * seen the end of file that follows it. A WARNING belongs to the call at the
 * head of the pipeline: the server sends a call's notices before its result.
 */
static void
notice_receiver(void *arg, const PGresult *res)
{
	gw_slot    *slot = arg;
	const char *severity = PQresultErrorField(res, PG_DIAG_SEVERITY_NONLOCALIZED);
	const char *message = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
	gw_call    *call = slot->state == SLOT_READY ? slot->head : NULL;

	if (severity != NULL && (strcmp(severity, "FATAL") == 0 || strcmp(severity, "PANIC") == 0))
	{
		slot->fatal = true;
		gw_log(GW_LOG_WARNING, "connection %d: the server ended the session: %s", slot->index,
			   message ? message : "(no message)");
		return;
	}
	if (severity != NULL && strcmp(severity, "WARNING") == 0 && call != NULL && message != NULL)
	{
		/* a call's warning (singletable's entity checks): logged, and kept for the response header */
		gw_log(GW_LOG_WARNING, "%s: warning %s", call->operation, message);
		if (call->warnings.len <= GW_MAX_WARNING_HEADER)
		{
			if (call->warnings.len > 0)
				gw_buf_append(&call->warnings, " | ", 3);
			gw_buf_append(&call->warnings, message, strlen(message));
		}
		return;
	}
	gw_log(GW_LOG_DEBUG, "connection %d: %s: %s", slot->index, severity ? severity : "NOTICE",
		   message ? message : "");
}

/* Logs libpq's last error of the slot's connection, prefixed. */
static void
log_conn_error(gw_log_level level, gw_slot *slot, const char *what)
{
	const char *m = slot->conn ? PQerrorMessage(slot->conn) : "out of memory";
	size_t		n = strlen(m);

	gw_log(level, "connection %d: %s: %.*s", slot->index, what,
		   (int) (n > 0 && m[n - 1] == '\n' ? n - 1 : n), m);
}

/*
 * Registers the slot's current socket with epoll for `events`. A socket of
 * the same number may be a new one (libpq closes and opens sockets while it
 * connects; a closed socket leaves the epoll set by itself): `force` then
 * registers it again.
 */
static void
watch(gw_slot *slot, unsigned int events, bool force)
{
	int			fd = slot->conn ? PQsocket(slot->conn) : -1;
	struct epoll_event ev = {0};

	if (epfd < 0 || (fd == slot->fd && events == slot->events && !force))
		return;
	ev.events = events;
	ev.data.u64 = GW_EV_POOL + (unsigned) slot->index;
	if (slot->fd >= 0 && slot->fd != fd)
		(void) epoll_ctl(epfd, EPOLL_CTL_DEL, slot->fd, NULL);
	slot->fd = -1;
	if (fd < 0)
		return;
	if (epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev) != 0 &&
		(errno != ENOENT || epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) != 0))
	{
		gw_log(GW_LOG_ERROR, "connection %d: epoll_ctl: %s", slot->index, strerror(errno));
		return;
	}
	slot->fd = fd;
	slot->events = events;
}

/* Closes the slot's connection (its socket leaves the epoll set first). */
static void
slot_close(gw_slot *slot)
{
	if (epfd >= 0 && slot->fd >= 0)
		(void) epoll_ctl(epfd, EPOLL_CTL_DEL, slot->fd, NULL);
	slot->fd = -1;
	slot->events = 0;
	PQfinish(slot->conn);
	slot->conn = NULL;
	slot->fatal = false;
}

/* The libpq connection parameters: --dsn comes last, its settings override these defaults. */
static PGconn *
start_conn(bool blocking)
{
	const char *keywords[] = {"client_encoding", "fallback_application_name", "connect_timeout", "dbname", NULL};
	const char *values[] = {"UTF8", GW_NAME, "10", pool_dsn, NULL};

	return blocking ? PQconnectdbParams(keywords, values, 1) : PQconnectStartParams(keywords, values, 1);
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
	const char *primary = r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	char		where[32];

	snprintf(where, sizeof(where), "connection %d", slot->index);
	gw_error_from_fields(out, where, r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL,
						 r ? PQresultErrorField(r, PG_DIAG_MESSAGE_DETAIL) : NULL,
						 primary ? primary : (slot->conn ? PQerrorMessage(slot->conn) : ""),
						 pool_schema);
}

/* Answers the call with InternalServerError (its connection broke). */
static void
internal_error(gw_call *call)
{
	gw_error_response(&call->resp, 500, GW_EXC_INTERNAL, "Internal server error");
}

/* Hands the call back to main.c with call->resp filled; releases what the pool held. */
static void
call_done(gw_call *call)
{
	PQclear(call->late);
	if (call->res != NULL && call->resp.owner != call->res)
		PQclear(call->res);
	call->res = call->late = NULL;
	call->next = NULL;
	if (call->resp.body == NULL && call->resp.owner == NULL)
		gw_error_response(&call->resp, 500, GW_EXC_INTERNAL, "Internal server error");
	if (call->resp.body == NULL)	/* out of memory even for that */
		call->resp.status = 500;
	call->resp.warnings = gw_warnings_header(&call->warnings);
	gw_call_done(call);
}

/* A call whose sync point came back: its response from its results. */
static void
finish_call(gw_slot *slot, gw_call *call)
{
	PGresult   *res = call->res;
	gw_response *out = &call->resp;

	if (res != NULL && PQresultStatus(res) == PGRES_TUPLES_OK && call->late != NULL)
		error_response(slot, call->late, out);
	else if (res != NULL && PQresultStatus(res) == PGRES_TUPLES_OK)
	{
		if (PQntuples(res) == 1 && PQnfields(res) == 1 && !PQgetisnull(res, 0, 0))
		{
			/* the function's text, sent as it is: the PGresult holds it until sent */
			out->status = 200;
			out->body = PQgetvalue(res, 0, 0);
			out->len = (size_t) PQgetlength(res, 0, 0);
			out->owner = res;
		}
		else
		{
			out->status = 200;
			out->body = strdup("{}");
			out->len = 2;
		}
	}
	else
		error_response(slot, res, out);
	call_done(call);
}

/*
 * The connection broke (end of file, a socket error, a FATAL from the
 * server): every call in its pipeline answers 500; a new connection is
 * started at once.
 */
static void
slot_broken(gw_slot *slot)
{
	gw_call    *call = slot->head;

	if (slot->inflight > 0)
		gw_log(GW_LOG_WARNING, "connection %d: the database connection was lost with %d call%s in flight",
			   slot->index, slot->inflight, slot->inflight == 1 ? "" : "s");
	else
		gw_log(GW_LOG_WARNING, "connection %d: the database connection was lost; reconnecting", slot->index);
	slot_close(slot);
	slot->head = slot->tail = NULL;
	slot->inflight = 0;
	slot->state = SLOT_DOWN;
	while (call != NULL)
	{
		gw_call    *next = call->next;

		PQclear(call->res);
		PQclear(call->late);
		call->res = call->late = NULL;
		internal_error(call);
		call_done(call);
		call = next;
	}
	slot->deadline = 0;			/* replaced when the next request comes */
}

/* Starts a new connection, non-blocking. */
static void
slot_start_connect(gw_slot *slot)
{
	slot->conn = start_conn(false);
	slot->fatal = false;
	slot->prepared_ok = false;
	if (slot->conn == NULL || PQstatus(slot->conn) == CONNECTION_BAD)
	{
		log_conn_error(GW_LOG_ERROR, slot, "could not connect to the database");
		slot_close(slot);
		slot_down(slot);
		return;
	}
	PQsetNoticeReceiver(slot->conn, notice_receiver, slot);
	slot->state = SLOT_CONNECTING;
	slot->deadline = gw_now_ms() + CONNECT_TIMEOUT_MS;
	watch(slot, EPOLLOUT, true);
}

/* Sends the statement's Parse on a new connection (not yet in pipeline mode). */
static void
slot_send_prepare(gw_slot *slot)
{
	int			f;

	if (PQsetnonblocking(slot->conn, 1) != 0 ||
		!PQsendPrepare(slot->conn, STMT_NAME, stmt_sql, 3, NULL) ||
		(f = PQflush(slot->conn)) < 0)
	{
		log_conn_error(GW_LOG_ERROR, slot, "could not prepare the call");
		slot_close(slot);
		slot_down(slot);
		return;
	}
	slot->state = SLOT_PREPARING;
	watch(slot, f == 1 ? EPOLLIN | EPOLLOUT : EPOLLIN, true);
}

/* One PQconnectPoll step on socket readiness. */
static void
slot_connect_step(gw_slot *slot)
{
	switch (PQconnectPoll(slot->conn))
	{
		case PGRES_POLLING_READING:
			watch(slot, EPOLLIN, true);
			return;
		case PGRES_POLLING_WRITING:
			watch(slot, EPOLLOUT, true);
			return;
		case PGRES_POLLING_OK:
			gw_log(GW_LOG_DEBUG, "connection %d: connected (backend pid %d)", slot->index,
				   PQbackendPID(slot->conn));
			slot_send_prepare(slot);
			return;
		default:
			log_conn_error(GW_LOG_ERROR, slot, "could not connect to the database");
			slot_close(slot);
			slot_down(slot);
			return;
	}
}

/* The Parse's result on a new connection: then pipeline mode, and calls. */
static void
slot_prepare_step(gw_slot *slot, unsigned int events)
{
	if ((events & EPOLLOUT) && PQflush(slot->conn) < 0)
		goto failed;
	if ((events & (EPOLLIN | EPOLLERR | EPOLLHUP)) && !PQconsumeInput(slot->conn))
		goto failed;
	while (!PQisBusy(slot->conn))
	{
		PGresult   *r = PQgetResult(slot->conn);

		if (r == NULL)
		{
			if (!slot->prepared_ok)
				goto failed;
			if (!PQenterPipelineMode(slot->conn))
				goto failed;
			slot->state = SLOT_READY;
			slot->prepare_failed = false;
			watch(slot, EPOLLIN, false);
			return;
		}
		if (PQresultStatus(r) == PGRES_COMMAND_OK)
			slot->prepared_ok = true;
		else
		{
			gw_response ignored = {0};

			/* logged as a call's error would be (42883: no dynamodb_as in --schema) */
			error_response(slot, r, &ignored);
			free(ignored.body);
			slot->prepare_failed = true;
		}
		PQclear(r);
	}
	if (PQstatus(slot->conn) != CONNECTION_BAD)
	{
		if (PQflush(slot->conn) == 1)
			watch(slot, EPOLLIN | EPOLLOUT, false);
		return;
	}
failed:
	if (!slot->prepare_failed)
		log_conn_error(GW_LOG_ERROR, slot, "could not prepare the call");
	slot_close(slot);
	slot_down(slot);
}

/* No connection: tried again on demand, from a second on. */
static void
slot_down(gw_slot *slot)
{
	slot->state = SLOT_DOWN;
	slot->deadline = gw_now_ms() + RETRY_MS;
}

/* Flushes libpq's output; watches for writability while some is left. */
static bool
slot_flush(gw_slot *slot)
{
	int			f = PQflush(slot->conn);

	if (f < 0)
		return false;
	watch(slot, f == 1 ? EPOLLIN | EPOLLOUT : EPOLLIN, false);
	return true;
}

/* Sends one call on a ready connection: the statement and a sync point. */
static bool
slot_send(gw_slot *slot, gw_call *call)
{
	const char *values[3] = {call->role, call->operation, call->body};

	call->next = NULL;
	call->res = call->late = NULL;
	call->warnings.len = 0;
	call->warnings.oom = false;
	if (slot->tail)
		slot->tail->next = call;
	else
		slot->head = call;
	slot->tail = call;
	slot->inflight++;
	if (!PQsendQueryPrepared(slot->conn, STMT_NAME, 3, values, NULL, NULL, 0) ||
		!PQpipelineSync(slot->conn) ||
		!slot_flush(slot))
	{
		log_conn_error(GW_LOG_WARNING, slot, "could not send a call");
		slot_broken(slot);
		return false;
	}
	if (slot->inflight > 1 && gw_log_enabled(GW_LOG_DEBUG))
		gw_log(GW_LOG_DEBUG, "connection %d: %d calls in flight", slot->index, slot->inflight);
	return true;
}

/*
 * Reads what the connection's socket has and hands back each call whose sync
 * point arrived. A call's results: its statement's (rows or an error), NULL,
 * maybe an error of the implicit COMMIT and NULL, then PGRES_PIPELINE_SYNC.
 */
static void
slot_read(gw_slot *slot)
{
	PGconn	   *conn = slot->conn;
	int			nulls = 0;

	if (!PQconsumeInput(conn) || slot->fatal)
	{
		slot_broken(slot);
		return;
	}
	while (slot->head != NULL && !PQisBusy(conn))
	{
		PGresult   *r = PQgetResult(conn);
		gw_call    *call = slot->head;

		if (r == NULL)
		{
			/* the end of one statement's results; twice in a row: nothing more yet */
			if (++nulls > 1)
				break;
			continue;
		}
		nulls = 0;
		if (PQresultStatus(r) == PGRES_PIPELINE_SYNC)
		{
			PQclear(r);
			slot->head = call->next;
			if (slot->head == NULL)
				slot->tail = NULL;
			slot->inflight--;
			finish_call(slot, call);
			continue;
		}
		if (call->res == NULL)
			call->res = r;
		else if (call->late == NULL && PQresultStatus(r) == PGRES_FATAL_ERROR)
			call->late = r;
		else
			PQclear(r);
	}
	if (slot->fatal || PQstatus(conn) == CONNECTION_BAD)
		slot_broken(slot);
}

static bool
slot_live(const gw_slot *slot)
{
	return slot->state != SLOT_DOWN;
}

/*
 * Sends queued calls to connections with room (the idle first, else the
 * fewest in flight); when no connection is up or being made, answers the
 * queued calls 503 (500 when the last attempt could not prepare the call).
 */
static void
pool_settle(void)
{
	bool		live = false;
	bool		prepare_failed = false;

	while (queue_head != NULL)
	{
		gw_slot    *best = NULL;
		gw_call    *call;

		for (int i = 0; i < nslots; i++)
		{
			gw_slot    *s = &slots[i];

			if (s->state == SLOT_READY && s->inflight < GW_PIPELINE_DEPTH &&
				(best == NULL || s->inflight < best->inflight))
			{
				best = s;
				if (s->inflight == 0)
					break;
			}
		}
		if (best == NULL)
			break;
		call = queue_head;
		queue_head = call->next;
		if (queue_head == NULL)
			queue_tail = NULL;
		queued--;
		slot_send(best, call);
	}
	if (queue_head == NULL)
		return;
	for (int i = 0; i < nslots; i++)
	{
		live |= slot_live(&slots[i]);
		prepare_failed |= slots[i].prepare_failed;
	}
	if (live)
		return;
	while (queue_head != NULL)
	{
		gw_call    *call = queue_head;

		queue_head = call->next;
		if (queue_head == NULL)
			queue_tail = NULL;
		queued--;
		if (prepare_failed)
			internal_error(call);
		else
			gw_error_response(&call->resp, 503, GW_EXC_UNAVAILABLE, "The database is not reachable; retry later.");
		call_done(call);
	}
}

/*
 * Takes a call: it is sent at once when a connection has room, else queued.
 * Connections that are down are tried again (at most once a second each,
 * or at once when none is up). gw_call_done answers it, maybe before this
 * returns (no connection can be made).
 */
void
gw_pool_submit(gw_call *call)
{
	long long	now = gw_now_ms();
	bool		live = false;

	memset(&call->resp, 0, sizeof(call->resp));
	call->next = NULL;
	call->res = call->late = NULL;
	if (queue_tail)
		queue_tail->next = call;
	else
		queue_head = call;
	queue_tail = call;
	queued++;
	for (int i = 0; i < nslots; i++)
		live |= slot_live(&slots[i]);
	for (int i = 0; i < nslots; i++)
		if (slots[i].state == SLOT_DOWN && (!live || slots[i].deadline <= now))
			slot_start_connect(&slots[i]);
	pool_settle();
}

/* The slot's socket is ready (events: EPOLLIN, EPOLLOUT, EPOLLERR, EPOLLHUP). */
void
gw_pool_event(int index, unsigned int events)
{
	gw_slot    *slot;

	if (index < 0 || index >= nslots)
		return;
	slot = &slots[index];
	switch (slot->state)
	{
		case SLOT_DOWN:
			break;
		case SLOT_CONNECTING:
			slot_connect_step(slot);
			break;
		case SLOT_PREPARING:
			slot_prepare_step(slot, events);
			break;
		case SLOT_READY:
			if ((events & EPOLLOUT) && !slot_flush(slot))
			{
				slot_broken(slot);
				break;
			}
			if (events & (EPOLLIN | EPOLLERR | EPOLLHUP))
				slot_read(slot);
			break;
	}
	pool_settle();
}

/* Milliseconds until gw_pool_tick has something to do (a connection attempt's limit); -1: nothing. */
int
gw_pool_timeout(long long now)
{
	long long	t = -1;

	for (int i = 0; i < nslots; i++)
	{
		if (slots[i].state == SLOT_CONNECTING || slots[i].state == SLOT_PREPARING)
		{
			long long	d = slots[i].deadline > now ? slots[i].deadline - now : 0;

			if (t < 0 || d < t)
				t = d;
		}
	}
	return (int) t;
}

/* Gives up connection attempts that took too long. */
void
gw_pool_tick(long long now)
{
	for (int i = 0; i < nslots; i++)
	{
		gw_slot    *slot = &slots[i];

		if ((slot->state == SLOT_CONNECTING || slot->state == SLOT_PREPARING) && slot->deadline <= now)
		{
			gw_log(GW_LOG_ERROR, "connection %d: could not connect to the database: no answer within %d s",
				   slot->index, CONNECT_TIMEOUT_MS / 1000);
			slot_close(slot);
			slot_down(slot);
		}
	}
	pool_settle();
}

/* Calls queued or in flight. */
int
gw_pool_pending(void)
{
	int			n = queued;

	for (int i = 0; i < nslots; i++)
		n += slots[i].inflight;
	return n;
}

/* Releases a response body held by its PGresult (gw_response.owner). */
void
gw_result_free(void *owner)
{
	PQclear((PGresult *) owner);
}

/*
 * At start: is there a dynamodb_as the login role may execute in the
 * schema? false, with one line saying what is missing, when not.
 */
static bool
check_function(PGconn *conn)
{
	char	   *schema = PQescapeIdentifier(conn, pool_schema, strlen(pool_schema));
	char		sig[256];
	const char *params[1] = {sig};
	PGresult   *r;
	bool		ok = false;

	if (schema == NULL)
		return false;
	snprintf(sig, sizeof(sig), "%s.dynamodb_as(pg_catalog.text,pg_catalog.text,pg_catalog.text)", schema);
	PQfreemem(schema);
	r = PQexecParams(conn,
					 "SELECT p IS NOT NULL, p IS NOT NULL AND pg_catalog.has_function_privilege(p, 'EXECUTE'), current_user"
					 " FROM pg_catalog.to_regprocedure($1) AS p",
					 1, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1)
	{
		const char *m = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);

		gw_log(GW_LOG_ERROR, "could not look up %s.dynamodb_as: %s", pool_schema, m ? m : PQerrorMessage(conn));
	}
	else if (strcmp(PQgetvalue(r, 0, 0), "t") != 0)
		gw_log(GW_LOG_ERROR, "schema \"%s\" has no function dynamodb_as(text, text, text): the gateway needs "
			   "singletable 0.2.0 or later (ALTER EXTENSION singletable UPDATE), or see --schema", pool_schema);
	else if (strcmp(PQgetvalue(r, 0, 1), "t") != 0)
		gw_log(GW_LOG_ERROR, "the login role \"%s\" may not execute %s.dynamodb_as(text, text, text): "
			   "GRANT EXECUTE ON FUNCTION %s.dynamodb_as(text, text, text) TO \"%s\"",
			   PQgetvalue(r, 0, 2), pool_schema, pool_schema, PQgetvalue(r, 0, 2));
	else
		ok = true;
	PQclear(r);
	return ok;
}

/*
 * Makes the `size` connections, checks the function, prepares the call on
 * each and puts them in pipeline mode; false (logged) when any of it fails.
 */
bool
gw_pool_init(int size, const char *dsn, const char *schema)
{
	char	   *quoted;

	slots = calloc(size, sizeof(gw_slot));
	if (slots == NULL)
		return false;
	nslots = size;
	pool_dsn = dsn ? strdup(dsn) : NULL;
	pool_schema = strdup(schema);
	for (int i = 0; i < size; i++)
	{
		gw_slot    *slot = &slots[i];
		PGresult   *r;

		slot->index = i;
		slot->fd = -1;
		slot->conn = start_conn(true);
		if (slot->conn == NULL || PQstatus(slot->conn) != CONNECTION_OK)
		{
			log_conn_error(GW_LOG_ERROR, slot, "could not connect to the database");
			return false;
		}
		PQsetNoticeReceiver(slot->conn, notice_receiver, slot);
		if (i == 0)
		{
			if (!check_function(slot->conn))
				return false;
			quoted = PQescapeIdentifier(slot->conn, pool_schema, strlen(pool_schema));
			if (quoted == NULL)
				return false;
			snprintf(stmt_sql, sizeof(stmt_sql), "SELECT %s.dynamodb_as($1, $2, $3)", quoted);
			PQfreemem(quoted);
		}
		r = PQprepare(slot->conn, STMT_NAME, stmt_sql, 3, NULL);
		if (PQresultStatus(r) != PGRES_COMMAND_OK)
		{
			const char *m = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);

			gw_log(GW_LOG_ERROR, "connection %d: could not prepare the call: %s", i, m ? m : PQerrorMessage(slot->conn));
			PQclear(r);
			return false;
		}
		PQclear(r);
		if (PQsetnonblocking(slot->conn, 1) != 0 || !PQenterPipelineMode(slot->conn))
		{
			log_conn_error(GW_LOG_ERROR, slot, "could not enter pipeline mode");
			return false;
		}
		slot->state = SLOT_READY;
		gw_log(GW_LOG_DEBUG, "connection %d: connected (backend pid %d)", i, PQbackendPID(slot->conn));
	}
	return true;
}

/* Registers the connections' sockets with the event loop's epoll set. */
bool
gw_pool_start(int epoll_fd)
{
	epfd = epoll_fd;
	for (int i = 0; i < nslots; i++)
	{
		watch(&slots[i], EPOLLIN, true);
		if (slots[i].fd < 0)
			return false;
	}
	return true;
}

/* Closes every connection (at exit, with no call in flight). */
void
gw_pool_close(void)
{
	for (int i = 0; i < nslots; i++)
		slot_close(&slots[i]);
}
