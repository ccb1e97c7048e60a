/*
 * server.c — the HTTP side of the endpoint and its event loop, gw_serve():
 * shared by the singletable-gateway program (main.c, with pool.c's libpq
 * connections) and the in-server endpoint (endpoint.c, a background worker
 * of PostgreSQL that runs each call in its own backend).
 *
 * Every DynamoDB SDK, the AWS CLI and boto3 POST JSON to an endpoint with
 * X-Amz-Target: DynamoDB_20120810.<Operation> (DynamoDB Streams':
 * DynamoDBStreams_20120810.<Operation>), signed with SigV4, and check the
 * response's x-amz-crc32; the endpoint answers them by calling
 * singletable.dynamodb_as(role, operation, request) through the pool
 * (gw_pool_submit: pool.c's libpq connections, or endpoint.c's own
 * backend), as the role of the request's access key (sigv4.c).
 *
 * HTTP is libmicrohttpd (GNU, in Debian as libmicrohttpd-dev): a small,
 * well-kept embeddable HTTP/1.1 server library with its own tested parser
 * (chunked bodies, 100-continue, keep-alive, header and memory limits),
 * per-address connection limits and a clean shutdown (MHD_quiesce_daemon),
 * so this program has no HTTP parser of its own.
 *
 * The process is one thread running one event loop (epoll). Its epoll set
 * holds libmicrohttpd's own epoll descriptor (MHD_USE_EPOLL without an
 * internal thread: this loop calls MHD_run when it is ready), the sockets of
 * the pool's database connections and a signalfd. libmicrohttpd's internal
 * polling thread would have been simpler to start, but the database side
 * would then need a thread of its own and every request two thread
 * handoffs (a queue and a wakeup each way); in one loop a request costs no
 * handoff, no lock and no wakeup beyond the sockets' own. An HTTP connection
 * costs a socket and at most 64 KB of buffers, no thread, so thousands can
 * be open (--max-connections; RLIMIT_NOFILE is raised to match).
 *
 * One request: the body is collected (at most DynamoDB's 16 MB: a larger
 * Content-Length is answered at once with 413); the signature is verified;
 * X-Amz-Target names the operation; the body must be one JSON object (else
 * SerializationException); then the call is handed to pool.c, which sends
 * it on a database connection in pipeline mode, and the connection is
 * suspended (MHD_suspend_connection; see handle_post); when its result is
 * back (gw_call_done) the connection is resumed, libmicrohttpd calls the
 * handler again, and the response goes out with Content-Type
 * application/x-amz-json-1.0, a unique x-amzn-RequestId and x-amz-crc32
 * (CRC32 of the body, which the SDKs check). Errors are DynamoDB's bodies
 * and HTTP statuses (json.c, pool.c). The per-request state lives in the
 * HTTP connection's own structure (one allocation per connection, its body
 * buffer reused), and the function's response text is sent from libpq's
 * result without a copy.
 *
 * Slow clients. A connection that is waiting for a request holds no worker
 * (there is none), only its socket. Each connection has a deadline for
 * receiving a whole request, headers and body, independent of activity:
 * --request-timeout seconds from the moment it is ready for one (accepted,
 * or its previous response sent); past it, the connection is shut down. The
 * connections waiting for a request are kept in one list in the order they
 * became ready, which is the order of their deadlines, so finding the
 * expired ones costs nothing per connection. libmicrohttpd limits the
 * connections per client address (--max-connections-per-address) and in
 * all (--max-connections), and closes a connection 60 s inactive.
 *
 * Signals (a signalfd in the loop): SIGHUP reloads the credentials file;
 * SIGTERM or SIGINT stop accepting connections, let the requests in flight
 * finish (at most --drain-timeout seconds) and exit.
 */
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>
#include <openssl/rand.h>
#include <zlib.h>

#include "gateway.h"

#define TARGET_PREFIX "DynamoDB_20120810."
#define STREAMS_TARGET_PREFIX "DynamoDBStreams_20120810."
/*
 * the extension's own operations, for the viewer (--viewer only): sent to
 * dynamodb_as as "SingleTable.<Op>", which calls singletable.viewer_api
 */
#define SINGLETABLE_TARGET_PREFIX "SingleTable_20261201."
#define SINGLETABLE_OPERATION_PREFIX "SingleTable."
#define MAX_OPERATION 64
/* a body streamed past the limit without Content-Length is read this far, then the connection is closed */
#define DISCARD_LIMIT (2 * GW_MAX_REQUEST_BYTES)
/* a connection keeps a body buffer this large for its next request; a larger one is freed */
#define KEEP_BODY_BUFFER (16 * 1024)

/*
 * the epoll_event.data.u64 of the loop's sources: the pool's are GW_EV_POOL + i;
 * an HTTP connection's is its gw_conn's address (never below EV_CONN_MIN)
 */
#define EV_MHD 1
#define EV_SIGNAL 2
#define EV_CONN_MIN 65536

typedef enum req_phase
{
	PHASE_RECEIVING,			/* headers in, body coming (or the request is GET) */
	PHASE_CALLING,				/* its call is in pool.c (the connection suspended from the next handler call on) */
	PHASE_ANSWERED				/* the call is done; the handler sends its response */
} req_phase;

typedef struct gw_conn gw_conn;

typedef struct gw_request
{
	gw_conn    *conn;
	req_phase	phase;
	bool		post;
	bool		responded;		/* a response was queued (early: 413, 404) */
	bool		preflight;		/* an OPTIONS request with an Origin (CORS) */
	bool		too_large;
	bool		json_ct;		/* the client sent application/json */
	bool		role_owned;		/* role is malloc'd (sigv4.c's) */
	bool		suspended;		/* MHD_suspend_connection'd while its call runs */
	bool		orphaned;		/* ended (its connection closed) while its call runs */
	size_t		received;
	long long	start;			/* gw_now_ms() at the headers */
	const char *operation;		/* from X-Amz-Target once read; NULL before */
	char		op_buf[MAX_OPERATION + sizeof(SINGLETABLE_OPERATION_PREFIX)];	/* "SingleTable.<Op>" */
	char	   *role;
	const char *warnings;		/* the call's warnings for x-singletable-warning, or NULL */
	gw_buf		body;
	gw_call		call;
} gw_request;

/* One HTTP connection (libmicrohttpd's socket context). */
struct gw_conn
{
	struct MHD_Connection *mc;
	int			fd;
	bool		waiting;		/* in the list of connections waiting for a request */
	bool		shut;			/* shut down by its deadline, or after the client's end */
	bool		peer_gone;		/* the client shut its side of the connection */
	bool		peer_listed;	/* in the peer_closed list, to be looked at after MHD_run */
	bool		gone;			/* closed; freed once out of that list and its call is back */
	gw_conn    *peer_next;		/* the peer_closed list */
	long long	ready;			/* when it became ready for a request */
	gw_conn    *prev;			/* the waiting list, or the free list (next) */
	gw_conn    *next;
	gw_request	req;
};

static gw_serve_config *cfg;		/* gw_serve's */

static int	inflight;			/* requests from their headers to their end */
static bool draining;
static bool resume_pending;		/* gw_call_done resumed a connection: run libmicrohttpd */
static gw_conn *waiting_head;	/* oldest first: the order of their deadlines */
static gw_conn *waiting_tail;
static gw_conn *free_conns;
static gw_conn *peer_closed;	/* connections whose client shut its side, to check after MHD_run */
static int	loop_epfd = -1;
static int	shut_count;			/* connections shut down by their deadline, not yet logged */

static void request_free(gw_request *req);

long long
gw_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
/* DynamoDB's request ids: 52 characters of [A-Z0-9], from a buffer of OpenSSL's random bytes. */
static void
request_id(char out[53])
{
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static unsigned char raw[52 * 64];
	static size_t used = sizeof(raw);
	static unsigned long counter;

	if (used + 52 > sizeof(raw))
	{
		if (RAND_bytes(raw, sizeof(raw)) != 1)
		{
			/* cannot happen with a working OpenSSL; still unique per process */
			for (size_t i = 0; i + 52 <= sizeof(raw); i += 52)
				snprintf((char *) raw + i, 52, "%051lu", ++counter);
		}
		used = 0;
	}
	for (int i = 0; i < 52; i++)
		out[i] = alphabet[raw[used + i] % 36];
	used += 52;
	out[52] = '\0';
}

/* The list of connections waiting for a request, oldest first. */
static void
waiting_remove(gw_conn *c)
{
	if (!c->waiting)
		return;
	if (c->prev)
		c->prev->next = c->next;
	else
		waiting_head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		waiting_tail = c->prev;
	c->prev = c->next = NULL;
	c->waiting = false;
}

static void
waiting_append(gw_conn *c)
{
	if (c->waiting || c->shut)
		return;
	c->ready = gw_now_ms();
	c->prev = waiting_tail;
	c->next = NULL;
	if (waiting_tail)
		waiting_tail->next = c;
	else
		waiting_head = c;
	waiting_tail = c;
	c->waiting = true;
}

/*
 * Shuts down the connections whose deadline for a whole request has passed.
 * shutdown(), not close(): libmicrohttpd sees the end of the socket on its
 * next run and closes the connection itself.
 */
static void
expire_waiting(long long now)
{
	long long	limit = (long long) cfg->request_timeout * 1000;

	while (waiting_head != NULL && now - waiting_head->ready >= limit)
	{
		gw_conn    *c = waiting_head;

		waiting_remove(c);
		c->shut = true;
		(void) shutdown(c->fd, SHUT_RDWR);
		shut_count++;
	}
	if (shut_count > 0)
	{
		gw_log(GW_LOG_INFO, "closed %d connection%s that sent no whole request within %d s (--request-timeout)",
			   shut_count, shut_count == 1 ? "" : "s", cfg->request_timeout);
		shut_count = 0;
	}
}

/*
 * A closed connection's structure goes back to the free list, unless the
 * peer_closed list still has it or its call is still in the pool (a
 * connection closed between the call's start and its suspension, by an
 * error of its socket): then when that is over.
 */
static void
conn_release(gw_conn *c)
{
	if (!c->gone || c->peer_listed || c->req.phase == PHASE_CALLING)
		return;
	free(c->req.body.data);
	free(c->req.call.warnings.data);
	c->req.body.data = NULL;
	c->req.call.warnings.data = NULL;
	c->next = free_conns;
	free_conns = c;
}

/* libmicrohttpd: a connection opens or closes. */
static void
notify_connection(void *cls, struct MHD_Connection *mc, void **socket_context,
				  enum MHD_ConnectionNotificationCode code)
{
	gw_conn    *c = *socket_context;

	(void) cls;
	if (code == MHD_CONNECTION_NOTIFY_STARTED)
	{
		const union MHD_ConnectionInfo *fd = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);

		if (free_conns != NULL)
		{
			c = free_conns;
			free_conns = c->next;
		}
		else if ((c = malloc(sizeof(*c))) == NULL)
		{
			*socket_context = NULL;
			return;
		}
		memset(c, 0, sizeof(*c));
		c->mc = mc;
		c->fd = fd ? fd->connect_fd : -1;
		c->req.conn = c;
		*socket_context = c;
		waiting_append(c);

		/*
		 * The client's end of its side (EPOLLRDHUP) is watched here too:
		 * libmicrohttpd's edge-triggered reads miss an end of file that came
		 * with the last bytes, and the connection would wait for its
		 * deadline (see close_peer_closed).
		 */
		if (c->fd >= 0 && loop_epfd >= 0)
		{
			struct epoll_event ev = {0};

			ev.events = EPOLLRDHUP | EPOLLET;
			ev.data.u64 = (uint64_t) (uintptr_t) c;
			(void) epoll_ctl(loop_epfd, EPOLL_CTL_ADD, c->fd, &ev);
		}
		return;
	}
	if (c == NULL)
		return;
	waiting_remove(c);
	*socket_context = NULL;
	c->gone = true;
	conn_release(c);
}

/* Lists a connection whose client shut its side, to be looked at after MHD_run. */
static void
list_peer_closed(gw_conn *c)
{
	if (c->peer_listed)
		return;
	c->peer_listed = true;
	c->peer_next = peer_closed;
	peer_closed = c;
}

/*
 * After libmicrohttpd has run: a connection whose client shut its side and
 * that waits for a request (libmicrohttpd answered what it had and parsed
 * what was left, an incomplete request or nothing) is shut down, so that it
 * does not hold its place until its deadline. One with a request in
 * progress is looked at again when that request ends (completed).
 */
static void
close_peer_closed(void)
{
	while (peer_closed != NULL)
	{
		gw_conn    *c = peer_closed;

		peer_closed = c->peer_next;
		c->peer_listed = false;
		if (c->gone)
		{
			conn_release(c);
			continue;
		}
		if (c->waiting)
		{
			waiting_remove(c);
			c->shut = true;
			(void) shutdown(c->fd, SHUT_RDWR);
		}
	}
}

/*
 * Logs an error response by operation, status and exception name (the part
 * of its "__type" after '#'): 4xx at info, 5xx at warning. Never its message,
 * which can echo what the client sent.
 */
static void
log_error_response(const gw_request *req, int status, const char *body, size_t len)
{
	gw_log_level level = status >= 500 ? GW_LOG_WARNING : GW_LOG_INFO;
	char		type[128];
	const char *exception = "(no exception name)";

	if (!gw_log_enabled(level))
		return;
	if (body != NULL && len > 1 && body[0] == '<')
	{
		/* the XML answer to a request that is not DynamoDB JSON: <Name/> */
		size_t		n = strcspn(body + 1, "/> ");

		snprintf(type, sizeof(type), "%.*s", (int) (n < sizeof(type) - 1 ? n : sizeof(type) - 1), body + 1);
		exception = type;
	}
	else if (body != NULL && gw_json_top_string(body, len, "__type", type, sizeof(type)))
	{
		char	   *hash = strrchr(type, '#');

		exception = hash ? hash + 1 : type;
	}
	gw_log(level, "%s: %d %s in %.1f ms", req && req->operation ? req->operation : "(no operation)",
		   status, exception, req ? (double) (gw_now_ms() - req->start) : 0.0);
}

/* A request header value that may be echoed in a response header: printable ASCII only */
static bool
header_value_ok(const char *v)
{
	size_t		n = strlen(v);

	if (n > 1024)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char) v[i] < 0x20 || (unsigned char) v[i] > 0x7e)
			return false;
	return true;
}

/*
 * Queues body with the DynamoDB headers, taking ownership of it: malloc'd,
 * or (owner not NULL) held by a PGresult; logs an error response.
 */
static enum MHD_Result
send_response(struct MHD_Connection *conn, gw_request *req, int status, char *body, size_t len,
			  void *owner, const char *content_type)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char		id[53];
	char		crc[16];

	if (body == NULL)
	{
		body = strdup("");
		len = 0;
		if (body == NULL)
			return MHD_NO;
	}
	if (status >= 400)
		log_error_response(req, status, body, len);
	snprintf(crc, sizeof(crc), "%lu", crc32_z(crc32_z(0L, Z_NULL, 0), (const Bytef *) body, len));
	if (owner != NULL)
		resp = MHD_create_response_from_buffer_with_free_callback_cls(len, body, gw_result_free, owner);
	else
		resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (resp == NULL)
	{
		if (owner != NULL)
			gw_result_free(owner);
		else
			free(body);
		return MHD_NO;
	}
	request_id(id);
	MHD_add_response_header(resp, "x-amzn-RequestId", id);
	MHD_add_response_header(resp, "x-amz-crc32", crc);
	/*
	 * CORS as DynamoDB answers it: any origin may call (the signature, not
	 * the origin, decides who is served), and a page may read the headers
	 * an SDK reads; a preflight's headers follow
	 */
	if (MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin") != NULL)
	{
		MHD_add_response_header(resp, "Access-Control-Allow-Origin", "*");
		if (req == NULL || !req->preflight)
			MHD_add_response_header(resp, "Access-Control-Expose-Headers",
									"x-amzn-RequestId,x-amzn-ErrorType,x-amz-request-id,x-amz-id-2,x-amzn-ErrorMessage,Date,x-amz-crc32");
	}
	if (req != NULL && req->preflight)
	{
		const char *h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Access-Control-Request-Headers");
		const char *m = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Access-Control-Request-Method");

		if (h != NULL && header_value_ok(h))
			MHD_add_response_header(resp, "Access-Control-Allow-Headers", h);
		if (m != NULL && header_value_ok(m))
			MHD_add_response_header(resp, "Access-Control-Allow-Methods", m);
		MHD_add_response_header(resp, "Access-Control-Max-Age", "172800");
	}
	/* DynamoDB's own value of the header, which some clients log or check */
	MHD_add_response_header(resp, MHD_HTTP_HEADER_SERVER, "Server");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
	if (req && req->warnings)
		MHD_add_response_header(resp, "x-singletable-warning", req->warnings);
	/* no keep-alive while draining, nor after a body too large to read */
	if (draining || status == 413)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(conn, (unsigned int) status, resp);
	MHD_destroy_response(resp);
	if (req)
		req->responded = true;
	return ret;
}

static const char *
json_content_type(const gw_request *req)
{
	return req && req->json_ct ? "application/json" : "application/x-amz-json-1.0";
}

static enum MHD_Result
send_error(struct MHD_Connection *conn, gw_request *req, int status, const char *type, const char *message)
{
	gw_response r = {0};

	gw_error_response(&r, status, type, message);
	return send_response(conn, req, r.status, r.body, r.len, NULL, json_content_type(req));
}

static enum MHD_Result
send_text(struct MHD_Connection *conn, gw_request *req, int status, const char *text, const char *content_type)
{
	char	   *body = strdup(text);

	return send_response(conn, req, status, body, body ? strlen(body) : 0, NULL, content_type);
}

/*
 * A response of the viewer (--viewer): one of its files (kept in memory for
 * the process's life), a redirect of /viewer to /viewer/, or 404, each with
 * the security headers of viewer.c.
 */
static enum MHD_Result
send_viewer(struct MHD_Connection *conn, gw_request *req, int status, const char *data, size_t len,
			const char *content_type, bool redirect)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	if (status != 200)
	{
		data = redirect ? "" : "not found\n";
		len = strlen(data);
		content_type = "text/plain; charset=utf-8";
	}
	resp = MHD_create_response_from_buffer(len, (void *) data, MHD_RESPMEM_PERSISTENT);
	if (resp == NULL)
		return MHD_NO;
	for (int i = 0; gw_viewer_headers[i][0]; i++)
		MHD_add_response_header(resp, gw_viewer_headers[i][0], gw_viewer_headers[i][1]);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_SERVER, "Server");
	if (redirect)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, "/viewer/");
	if (draining)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(conn, (unsigned int) status, resp);
	MHD_destroy_response(resp);
	req->responded = true;
	return ret;
}

/* True for the content types DynamoDB accepts (parameters such as charset ignored). */
static bool
content_type_ok(const char *ct, bool *json)
{
	size_t		n;

	*json = false;
	if (ct == NULL)
		return true;
	while (*ct == ' ')
		ct++;
	n = strcspn(ct, "; ");
	if (n == strlen("application/x-amz-json-1.0") && strncasecmp(ct, "application/x-amz-json-1.0", n) == 0)
		return true;
	if (n == strlen("application/json") && strncasecmp(ct, "application/json", n) == 0)
	{
		*json = true;
		return true;
	}
	return false;
}

/* pool.c: the call is done; its connection is resumed and the handler answers (next MHD_run). */
void
gw_call_done(gw_call *call)
{
	gw_request *req = (gw_request *) ((char *) call - offsetof(gw_request, call));

	if (req->orphaned)
	{
		/* no one to answer: its connection closed before it was suspended */
		req->orphaned = false;
		req->phase = PHASE_RECEIVING;
		request_free(req);
		conn_release(req->conn);
		return;
	}
	req->phase = PHASE_ANSWERED;
	if (req->suspended)
	{
		req->suspended = false;
		MHD_resume_connection(req->conn->mc);
		resume_pending = true;
	}
}

/* The answer of a call that is done. */
static enum MHD_Result
send_call_response(struct MHD_Connection *conn, gw_request *req)
{
	gw_response *r = &req->call.resp;
	enum MHD_Result ret;

	if (gw_log_enabled(GW_LOG_DEBUG))
		gw_log(GW_LOG_DEBUG, "%s as %s: %d in %.1f ms", req->operation, req->role ? req->role : "(login user)",
			   r->status, (double) (gw_now_ms() - req->start));
	req->warnings = r->warnings;
	ret = send_response(conn, req, r->status, r->body, r->len, r->owner, json_content_type(req));
	req->warnings = NULL;
	free(r->warnings);
	memset(r, 0, sizeof(*r));
	return ret;
}

/* A complete POST: authenticate, check, hand the call to the pool (or answer at once). */
/* The operations of DynamoDB Streams, answered under STREAMS_TARGET_PREFIX */
static const char *const streams_operations[] = {
	"ListStreams", "DescribeStream", "GetShardIterator", "GetRecords", NULL
};

/*
 * The operation an X-Amz-Target names (NULL: none this endpoint answers):
 * DynamoDB_20120810.<Operation> for DynamoDB's operations,
 * DynamoDBStreams_20120810.<Op> for the four of DynamoDB Streams. A Streams
 * name under DynamoDB's prefix, or any other under the Streams prefix, is
 * UnknownOperationException as DynamoDB answers it (the two are separate
 * services there).
 */
static const char *
target_operation(const char *target, char *op_buf)
{
	const char *op;
	size_t		n;
	bool		streams = false;

	if (target == NULL)
		return NULL;
	if (gw_viewer_enabled() && strncmp(target, SINGLETABLE_TARGET_PREFIX, strlen(SINGLETABLE_TARGET_PREFIX)) == 0)
	{
		/* the extension's own operations: SingleTable.<Op>, validated by viewer_api */
		op = target + strlen(SINGLETABLE_TARGET_PREFIX);
		n = strlen(op);
		if (n == 0 || n > MAX_OPERATION ||
			strspn(op, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") != n)
			return NULL;
		snprintf(op_buf, MAX_OPERATION + sizeof(SINGLETABLE_OPERATION_PREFIX), "%s%s",
				 SINGLETABLE_OPERATION_PREFIX, op);
		return op_buf;
	}
	if (strncmp(target, TARGET_PREFIX, strlen(TARGET_PREFIX)) == 0)
		op = target + strlen(TARGET_PREFIX);
	else if (strncmp(target, STREAMS_TARGET_PREFIX, strlen(STREAMS_TARGET_PREFIX)) == 0)
	{
		op = target + strlen(STREAMS_TARGET_PREFIX);
		streams = true;
	}
	else
		return NULL;
	n = strlen(op);
	if (n == 0 || n > MAX_OPERATION ||
		strspn(op, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") != n)
		return NULL;
	for (int i = 0; streams_operations[i]; i++)
		if (strcmp(op, streams_operations[i]) == 0)
			return streams ? op : NULL;
	return streams ? NULL : op;
}

/*
 * DescribeEndpoints: the endpoint is the one the client called, host and
 * port as its Host header names them (DynamoDB answers its regional
 * endpoint), for a day as DynamoDB says; a Host header of other characters
 * than a host name's or an address's is answered as localhost.
 */
static enum MHD_Result
describe_endpoints(struct MHD_Connection *conn, gw_request *req)
{
	const char *host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	char		body[384];

	if (host == NULL || host[0] == '\0' || strlen(host) > 255 ||
		strspn(host, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-:[]") != strlen(host))
		host = "localhost";
	snprintf(body, sizeof(body), "{\"Endpoints\":[{\"Address\":\"%s\",\"CachePeriodInMinutes\":1440}]}", host);
	return send_text(conn, req, 200, body, json_content_type(req));
}

static enum MHD_Result
handle_post(struct MHD_Connection *conn, gw_request *req, const char *url)
{
	const char *target;
	const char *operation;
	const char *why;
	bool		too_deep = false;
	gw_response r = {0};

	if (req->too_large)
	{
		char		msg[96];

		snprintf(msg, sizeof(msg), "Request size exceeded %d bytes", GW_MAX_REQUEST_BYTES);
		return send_error(conn, req, 413, GW_EXC_VALIDATION, msg);
	}

	/*
	 * what: DynamoDB_20120810.<Operation>, or DynamoDBStreams_20120810.<Op>
	 * for the four operations of DynamoDB Streams (and only those: each
	 * name is answered under its own service's target alone), read first
	 * for the log, refused after who
	 */
	target = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Amz-Target");
	operation = target_operation(target, req->op_buf);
	req->operation = operation;

	/* who: SigV4 against the credentials file, or the configured role */
	if (gw_creds_configured())
	{
		gw_sig_input in = {"POST", url, req->body.data, req->body.len, conn, (long long) time(NULL)};

		if (!gw_sigv4_verify(&in, &req->role, &r))
			return send_response(conn, req, r.status, r.body, r.len, NULL, json_content_type(req));
		req->role_owned = req->role != NULL;
	}
	else
		req->role = (char *) cfg->role;

	if (operation == NULL)
		return send_error(conn, req, 400, GW_EXC_UNKNOWN_OP, NULL);

	/* the body: one JSON object */
	why = req->body.len == 0 ? "empty request body"
		: gw_json_check(req->body.data, req->body.len, GW_JSON_MAX_DEPTH, &too_deep);
	if (why == NULL && req->body.data[strspn(req->body.data, " \t\r\n")] != '{')
		why = "the request body is not a JSON object";
	if (why != NULL)
	{
		char		msg[128];

		if (too_deep)
			return send_error(conn, req, 400, GW_EXC_VALIDATION, "Nesting Levels have exceeded supported limits");
		snprintf(msg, sizeof(msg), "Malformed request body: %s", why);
		return send_error(conn, req, 400, GW_EXC_SERIALIZATION, msg);
	}

	if (strcmp(operation, "DescribeEndpoints") == 0)
		return describe_endpoints(conn, req);

	/*
	 * The call goes to the pool; the connection is suspended at the next
	 * handler call, which libmicrohttpd makes on its next run, not now:
	 * libmicrohttpd 0.9.75 keeps the event state a connection had when it
	 * was suspended and, on resuming one suspended while it was reading,
	 * reads first, so that a client which shut its side after its request
	 * would be taken as gone and get no response. After this call returns
	 * without a response the connection waits ("blocked", not reading), and
	 * is suspended in that state. The pool may answer before either
	 * (gw_call_done within gw_pool_submit): then nothing is suspended and
	 * the response is queued at once, below.
	 */
	req->call.operation = operation;
	req->call.body = req->body.data;
	req->call.role = req->role;
	req->phase = PHASE_CALLING;
	gw_pool_submit(&req->call);
	if (req->phase == PHASE_ANSWERED)
	{
		/*
		 * Answered within gw_pool_submit (the in-server endpoint runs every
		 * call there; the pool when it refuses one): the response goes out
		 * from this handler call, not from the next run of libmicrohttpd.
		 */
		req->phase = PHASE_RECEIVING;
		return send_call_response(conn, req);
	}
	return MHD_YES;
}

static enum MHD_Result
handler(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
		const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	gw_request *req = *con_cls;

	(void) cls;
	(void) version;
	if (req == NULL)
	{
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
		gw_conn    *c = ci ? ci->socket_context : NULL;
		gw_buf		body;
		gw_buf		warnings;
		const char *cl;

		if (c == NULL)
			return MHD_NO;		/* no memory for it at its start */
		req = &c->req;
		body = req->body;
		warnings = req->call.warnings;
		memset(req, 0, sizeof(*req));
		req->conn = c;
		req->body = body;
		req->body.len = 0;
		req->body.oom = false;
		if (req->body.data)
			req->body.data[0] = '\0';
		req->call.warnings = warnings;
		*con_cls = req;
		req->start = gw_now_ms();
		inflight++;
		req->post = strcmp(method, MHD_HTTP_METHOD_POST) == 0;
		if (!req->post)
			return MHD_YES;
		if (!content_type_ok(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type"), &req->json_ct))
		{
			/* what DynamoDB answers for a body it does not take as JSON */
			return send_text(conn, req, 404, "<UnknownOperationException/>\n", "text/xml");
		}
		cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl != NULL && strtoull(cl, NULL, 10) > GW_MAX_REQUEST_BYTES)
		{
			req->too_large = true;
			return handle_post(conn, req, url);
		}
		return MHD_YES;
	}
	if (*upload_data_size > 0)
	{
		size_t		n = *upload_data_size;

		*upload_data_size = 0;
		req->received += n;
		if (req->responded || !req->post)
			return req->received > DISCARD_LIMIT ? MHD_NO : MHD_YES;
		if (req->received > GW_MAX_REQUEST_BYTES)
		{
			req->too_large = true;
			free(req->body.data);
			memset(&req->body, 0, sizeof(req->body));
			return req->received > DISCARD_LIMIT ? MHD_NO : MHD_YES;
		}
		if (!req->too_large)
		{
			gw_buf_append(&req->body, upload_data, n);
			if (req->body.oom)
				return MHD_NO;
		}
		return MHD_YES;
	}
	/* the whole request is in: its deadline no longer applies */
	waiting_remove(req->conn);
	if (req->phase == PHASE_ANSWERED)
	{
		req->phase = PHASE_RECEIVING;
		return send_call_response(conn, req);
	}
	if (req->phase == PHASE_CALLING)
	{
		if (!req->suspended)
		{
			req->suspended = true;
			MHD_suspend_connection(conn);
		}
		return MHD_YES;
	}
	if (req->responded)
		return MHD_YES;
	if (req->post)
		return handle_post(conn, req, url);
	if (strcmp(method, MHD_HTTP_METHOD_OPTIONS) == 0 &&
		MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin") != NULL)
	{
		/* a browser's CORS preflight: answered without credentials, as DynamoDB does */
		req->preflight = true;
		return send_text(conn, req, 200, "", "text/plain");
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) == 0 || strcmp(method, MHD_HTTP_METHOD_HEAD) == 0)
	{
		const char *data;
		size_t		len;
		const char *type;
		bool		redirect;
		bool		found;

		/* the viewer's files (--viewer; off: these paths are answered as any other GET) */
		if (gw_viewer_lookup(url, &data, &len, &type, &redirect, &found))
			return send_viewer(conn, req, redirect ? 301 : found ? 200 : 404, data, len, type, redirect);
		/* health: a load balancer's probe */
		return send_text(conn, req, draining ? 503 : 200,
						 draining ? "draining: " GW_NAME "\n" : "healthy: " GW_NAME " " GW_VERSION "\n",
						 "text/plain");
	}
	return send_text(conn, req, 404, "<UnknownOperationException/>\n", "text/xml");
}

/* Frees what a request holds (its response if not sent, its role), not its buffers. */
static void
request_free(gw_request *req)
{
	if (req->call.resp.owner != NULL)
		gw_result_free(req->call.resp.owner);
	else
		free(req->call.resp.body);
	free(req->call.resp.warnings);
	memset(&req->call.resp, 0, sizeof(req->call.resp));
	if (req->role_owned)
		free(req->role);
	req->role = NULL;
	req->role_owned = false;
}

/*
 * The end of a request (answered, or its connection gone): what it holds is
 * freed, and its connection waits for the next request, with a new deadline.
 */
static void
completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode code)
{
	gw_request *req = *con_cls;

	(void) cls;
	(void) conn;
	(void) code;
	if (req == NULL)
		return;
	*con_cls = NULL;
	inflight--;
	if (req->phase == PHASE_CALLING)
	{
		/* its connection closed before it was suspended: gw_call_done cleans up */
		req->orphaned = true;
		return;
	}
	request_free(req);
	req->phase = PHASE_RECEIVING;
	if (req->body.cap > KEEP_BODY_BUFFER)
	{
		free(req->body.data);
		memset(&req->body, 0, sizeof(req->body));
	}
	waiting_append(req->conn);
	if (req->conn->peer_gone)
		list_peer_closed(req->conn);
}

static void
mhd_logger(void *cls, const char *fmt, va_list ap)
{
	char		line[512];
	size_t		n;

	(void) cls;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n > 0 && line[n - 1] == '\n')
		line[--n] = '\0';
	gw_log(GW_LOG_WARNING, "http: %s", line);
}

/*
 * Serves HTTP on config->listen_addr until SIGTERM or SIGINT has drained the
 * requests in flight: 0; 1 when it could not start (logged); 2 for a
 * listening address that is not HOST:PORT. The caller has loaded the
 * viewer's files, if any; gw_serve loads the credentials, sets up the pool
 * (gw_pool_init) and keeps config, which on_sighup may change.
 */
int
gw_serve(gw_serve_config *config)
{
	const char *listen_addr = config->listen_addr;
	int			max_connections = config->max_connections;
	int			per_address = config->per_address;
	int			pool = config->pool;
	char		host[256];
	const char *port;
	struct addrinfo hints = {0};
	struct addrinfo *ai;
	struct MHD_Daemon *daemon;
	const union MHD_DaemonInfo *info;
	unsigned int flags;
	sigset_t	sigs;
	int			rc;
	int			epfd;
	int			sigfd;
	long long	drain_deadline = 0;
	struct epoll_event ev = {0};

	cfg = config;

	/* HOST:PORT, [IPv6]:PORT */
	{
		const char *colon = strrchr(listen_addr, ':');
		const char *h = listen_addr;
		size_t		hlen;

		if (colon == NULL || colon[1] == '\0')
		{
			gw_log(GW_LOG_ERROR, "the listening address \"%s\" must be HOST:PORT", listen_addr);
			return 2;
		}
		hlen = colon - listen_addr;
		if (hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']')
			h++, hlen -= 2;
		if (hlen == 0 || hlen >= sizeof(host))
		{
			gw_log(GW_LOG_ERROR, "the listening address \"%s\" must be HOST:PORT", listen_addr);
			return 2;
		}
		memcpy(host, h, hlen);
		host[hlen] = '\0';
		port = colon + 1;
	}
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	if ((rc = getaddrinfo(host, port, &hints, &ai)) != 0)
	{
		gw_log(GW_LOG_ERROR, "cannot listen on \"%s\": %s", listen_addr, gai_strerror(rc));
		return 2;
	}

	/* signals: read from a signalfd in the loop */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	if (!cfg->sigint_cancels)
		sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);

	if (cfg->credentials != NULL)
	{
		if (!gw_creds_load(cfg->credentials))
			return 1;
	}
	else
		gw_log(GW_LOG_WARNING,
			   "NO AUTHENTICATION: started without --credentials, so every request is accepted, signed or not, "
			   "and runs as %s%s%s. Use this for local development only.",
			   cfg->role ? "role \"" : "the login user", cfg->role ? cfg->role : "", cfg->role ? "\"" : "");

	if (!gw_pool_init(pool, cfg->dsn, cfg->schema))
	{
		gw_log(GW_LOG_ERROR, "could not set up the %d database connection%s; exiting", pool, pool == 1 ? "" : "s");
		return 1;
	}

	/* libmicrohttpd in epoll mode, run by this thread's loop */
	flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	daemon = MHD_start_daemon(flags, 0, NULL, NULL, handler, NULL,
							  MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, NULL,
							  MHD_OPTION_SOCK_ADDR, ai->ai_addr,
							  MHD_OPTION_CONNECTION_LIMIT, (unsigned int) max_connections,
							  MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int) per_address,
							  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) 60,
							  MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t) (64 * 1024),
							  MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
							  MHD_OPTION_NOTIFY_CONNECTION, notify_connection, NULL,
							  MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int) 1,
							  MHD_OPTION_END);
	freeaddrinfo(ai);
	if (daemon == NULL)
	{
		gw_log(GW_LOG_ERROR, "could not listen on %s", listen_addr);
		gw_pool_close();
		return 1;
	}
	info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
	epfd = loop_epfd = epoll_create1(EPOLL_CLOEXEC);
	sigfd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	ev.events = EPOLLIN;
	ev.data.u64 = EV_MHD;
	if (info == NULL || epfd < 0 || sigfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, info->epoll_fd, &ev) != 0)
	{
		gw_log(GW_LOG_ERROR, "could not set up the event loop: %s", strerror(errno));
		return 1;
	}
	ev.data.u64 = EV_SIGNAL;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, sigfd, &ev) != 0 || !gw_pool_start(epfd))
	{
		gw_log(GW_LOG_ERROR, "could not set up the event loop: %s", strerror(errno));
		return 1;
	}
	info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
	gw_log(GW_LOG_INFO, "listening on %s port %u with %d database connection%s (schema \"%s\"), "
		   "at most %d HTTP connections, %d per address",
		   host, info ? (unsigned int) info->port : 0u, pool, pool == 1 ? "" : "s", cfg->schema,
		   max_connections, per_address);

	for (;;)
	{
		struct epoll_event events[64];
		long long	now = gw_now_ms();
		long long	timeout = -1;
		MHD_UNSIGNED_LONG_LONG mhd_timeout;
		int			n;
		int			t;

		/* how long to wait: libmicrohttpd's, the oldest request deadline, the pool's, the drain's */
		if (resume_pending)
			timeout = 0;
		else
		{
			if (MHD_get_timeout(daemon, &mhd_timeout) == MHD_YES)
				timeout = mhd_timeout > INT32_MAX ? INT32_MAX : (long long) mhd_timeout;
			if (waiting_head != NULL)
			{
				long long	d = waiting_head->ready + (long long) cfg->request_timeout * 1000 - now;

				if (d < 0)
					d = 0;
				if (timeout < 0 || d < timeout)
					timeout = d;
			}
			if ((t = gw_pool_timeout(now)) >= 0 && (timeout < 0 || t < timeout))
				timeout = t;
			if (draining && (timeout < 0 || drain_deadline - now < timeout))
				timeout = drain_deadline > now ? drain_deadline - now : 0;
		}
		n = epoll_wait(epfd, events, 64, (int) timeout);
		if (n < 0 && errno != EINTR)
		{
			gw_log(GW_LOG_ERROR, "epoll_wait: %s", strerror(errno));
			_exit(1);
		}
		for (int i = 0; i < n; i++)
		{
			uint64_t	what = events[i].data.u64;

			if (what >= EV_CONN_MIN)
			{
				gw_conn    *c = (gw_conn *) (uintptr_t) what;

				c->peer_gone = true;
				list_peer_closed(c);
			}
			else if (what >= GW_EV_POOL)
				gw_pool_event((int) (what - GW_EV_POOL), events[i].events);
			else if (what == EV_SIGNAL)
			{
				struct signalfd_siginfo si;

				while (read(sigfd, &si, sizeof(si)) == (ssize_t) sizeof(si))
				{
					if (si.ssi_signo == SIGHUP)
					{
						if (cfg->on_sighup != NULL)
							cfg->on_sighup(cfg);
						if (cfg->credentials == NULL)
							gw_log(GW_LOG_INFO, "SIGHUP: no --credentials file to reload");
						else if (!gw_creds_load(cfg->credentials))
							gw_log(GW_LOG_WARNING, "SIGHUP: the credentials file did not load; the previous keys stay in force");
					}
					else if (!draining)
					{
						MHD_socket	ls;

						gw_log(GW_LOG_INFO, "%s: no new connections; waiting for the requests in flight",
							   si.ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT");
						draining = true;
						drain_deadline = gw_now_ms() + (long long) cfg->drain_timeout * 1000;
						ls = MHD_quiesce_daemon(daemon);
						if (ls != MHD_INVALID_SOCKET)
							close(ls);
					}
				}
			}
		}
		now = gw_now_ms();
		gw_pool_tick(now);
		resume_pending = false;
		MHD_run(daemon);

		/*
		 * libmicrohttpd often has more to do at once (a response sent: the
		 * connection goes back to reading on its next run): run it again
		 * now, at most twice, rather than after an epoll_wait of the loop's
		 * that would find nothing else; then the loop looks at its other
		 * sources in any case.
		 */
		for (int again = 0; again < 2; again++)
		{
			MHD_UNSIGNED_LONG_LONG more;

			if (MHD_get_timeout(daemon, &more) != MHD_YES || more != 0)
				break;
			resume_pending = false;
			MHD_run(daemon);
		}
		close_peer_closed();
		expire_waiting(gw_now_ms());
		if (draining && inflight == 0 && gw_pool_pending() == 0)
			break;
		if (draining && gw_now_ms() >= drain_deadline)
		{
			gw_log(GW_LOG_WARNING, "%d request%s still in flight after %d s", inflight, inflight == 1 ? "" : "s",
				   cfg->drain_timeout);
			gw_log(GW_LOG_WARNING, "exiting with requests in flight");
			_exit(1);
		}
	}
	MHD_stop_daemon(daemon);
	gw_pool_close();
	gw_log(GW_LOG_INFO, "stopped");
	return 0;
}
