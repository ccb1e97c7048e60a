/*
 * main.c — singletable-gateway: DynamoDB's HTTP endpoint in front of
 * PostgreSQL. Every DynamoDB SDK, the AWS CLI and boto3 POST JSON to an
 * endpoint with X-Amz-Target: DynamoDB_20120810.<Operation>, signed with
 * SigV4, and check the response's x-amz-crc32; this program answers them by
 * calling singletable.dynamodb(operation, request) over a pool of libpq
 * connections (pool.c), as the role of the request's access key (sigv4.c).
 *
 * HTTP is libmicrohttpd (GNU, in Debian as libmicrohttpd-dev): a small,
 * well-kept embeddable HTTP/1.1 server library with its own tested parser
 * (chunked bodies, 100-continue, keep-alive, header and memory limits), a
 * thread-pool and a thread-per-connection mode and a clean shutdown
 * (MHD_quiesce_daemon), so this program has no HTTP parser of its own. It
 * runs in thread-per-connection mode: a request blocks its thread on the
 * pool and on libpq, which is simplest to get right, and the pool bounds
 * the work in the database whatever the number of connections (bounded by
 * --max-connections).
 *
 * One request: the body is collected (at most DynamoDB's 16 MB: a larger
 * Content-Length is answered at once with 413); the signature is verified;
 * X-Amz-Target names the operation; the body must be one JSON object
 * (else SerializationException); a pooled connection runs the call; the
 * response carries Content-Type application/x-amz-json-1.0, a unique
 * x-amzn-RequestId and x-amz-crc32 (CRC32 of the body, which the SDKs
 * check). Errors are DynamoDB's bodies and HTTP statuses (json.c, pool.c).
 *
 * Signals (handled by the main thread with sigwait; every other thread has
 * them blocked): SIGHUP reloads the credentials file; SIGTERM or SIGINT stop
 * accepting connections, wait for the requests in flight (at most
 * --drain-timeout seconds) and exit.
 */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>
#include <openssl/rand.h>
#include <zlib.h>

#include "gateway.h"

#define TARGET_PREFIX "DynamoDB_20120810."
#define MAX_OPERATION 64
/* a body streamed past the limit without Content-Length is read this far, then the connection is closed */
#define DISCARD_LIMIT (2 * GW_MAX_REQUEST_BYTES)

typedef struct gw_request
{
	bool		post;
	bool		responded;		/* a response was queued early (413) */
	bool		too_large;
	bool		json_ct;		/* the client sent application/json */
	size_t		received;
	gw_buf		body;
	struct timeval start;
	const char *operation;		/* from X-Amz-Target once read; NULL before */
	const char *warnings;		/* the call's warnings for x-singletable-warning, or NULL */
} gw_request;

static const char *opt_credentials;
static const char *opt_role;
static int	opt_drain_timeout = 30;

static pthread_mutex_t inflight_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t inflight_cond = PTHREAD_COND_INITIALIZER;
static int	inflight;
static volatile bool draining;

static void
usage(FILE *f)
{
	fprintf(f,
			"Usage: " GW_NAME " [OPTION]...\n"
			"DynamoDB's HTTP API in front of PostgreSQL: each request calls\n"
			"singletable.dynamodb(operation, request).\n\n"
			"  --listen HOST:PORT      address to listen on (default 127.0.0.1:8000; port 0: any free port)\n"
			"  --dsn CONNINFO          libpq connection string (default: libpq's PG* variables)\n"
			"  --pool N                database connections (default 8)\n"
			"  --schema S              schema of the dynamodb() function (default singletable)\n"
			"  --credentials FILE      access keys: ACCESS_KEY_ID SECRET_KEY ROLE per line;\n"
			"                          without it any request is accepted (development only)\n"
			"  --role ROLE             without --credentials: the role every request runs as\n"
			"                          (default: the login user)\n"
			"  --max-connections N     HTTP connections served at once (default 1024)\n"
			"  --drain-timeout SECS    on SIGTERM, how long to wait for requests in flight (default 30)\n"
			"  --log-level LEVEL       error, warning, info (default) or debug\n"
			"  --help, --version\n");
}

/* DynamoDB's request ids: 52 characters of [A-Z0-9]. */
static void
request_id(char out[53])
{
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char raw[52];

	if (RAND_bytes(raw, sizeof(raw)) != 1)
	{
		/* cannot happen with a working OpenSSL; still unique per process */
		static unsigned long counter;
		unsigned long c = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);

		snprintf((char *) raw, sizeof(raw), "%051lu", c);
	}
	for (int i = 0; i < 52; i++)
		out[i] = alphabet[raw[i] % 36];
	out[52] = '\0';
}

static double elapsed_ms(const struct timeval *start);

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
		   status, exception, req ? elapsed_ms(&req->start) : 0.0);
}

/* Queues body (taking ownership) with the DynamoDB headers; logs an error response. */
static enum MHD_Result
send_response(struct MHD_Connection *conn, gw_request *req, int status, char *body, size_t len,
			  const char *content_type)
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
	resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (resp == NULL)
	{
		free(body);
		return MHD_NO;
	}
	request_id(id);
	MHD_add_response_header(resp, "x-amzn-RequestId", id);
	MHD_add_response_header(resp, "x-amz-crc32", crc);
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
	gw_response r;

	gw_error_response(&r, status, type, message);
	return send_response(conn, req, r.status, r.body, r.len, json_content_type(req));
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

static double
elapsed_ms(const struct timeval *start)
{
	struct timeval now;

	gettimeofday(&now, NULL);
	return (now.tv_sec - start->tv_sec) * 1000.0 + (now.tv_usec - start->tv_usec) / 1000.0;
}

/* A complete POST: authenticate, dispatch, answer. */
static enum MHD_Result
handle_post(struct MHD_Connection *conn, gw_request *req, const char *url)
{
	const char *target;
	const char *operation;
	const char *why;
	char	   *role = NULL;
	bool		too_deep = false;
	gw_response r = {0};
	gw_slot    *slot;
	enum MHD_Result ret;

	if (req->too_large)
	{
		char		msg[96];

		snprintf(msg, sizeof(msg), "Request size exceeded %d bytes", GW_MAX_REQUEST_BYTES);
		return send_error(conn, req, 413, GW_EXC_VALIDATION, msg);
	}

	/* what: DynamoDB_20120810.<Operation>, read first for the log, refused after who */
	target = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Amz-Target");
	operation = target && strncmp(target, TARGET_PREFIX, strlen(TARGET_PREFIX)) == 0
		? target + strlen(TARGET_PREFIX) : NULL;
	if (operation != NULL)
	{
		size_t		n = strlen(operation);

		if (n == 0 || n > MAX_OPERATION || strspn(operation,
												  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") != n)
			operation = NULL;
	}
	req->operation = operation;

	/* who: SigV4 against the credentials file, or the configured role */
	if (gw_creds_configured())
	{
		gw_sig_input in = {"POST", url, req->body.data, req->body.len, conn, (long long) time(NULL)};

		if (!gw_sigv4_verify(&in, &role, &r))
			return send_response(conn, req, r.status, r.body, r.len, json_content_type(req));
	}
	else if (opt_role != NULL && (role = strdup(opt_role)) == NULL)
		return send_error(conn, req, 500, GW_EXC_INTERNAL, "Internal server error");

	if (operation == NULL)
	{
		free(role);
		return send_error(conn, req, 400, GW_EXC_UNKNOWN_OP, NULL);
	}

	/* the body: one JSON object */
	why = req->body.len == 0 ? "empty request body"
		: gw_json_check(req->body.data, req->body.len, GW_JSON_MAX_DEPTH, &too_deep);
	if (why == NULL && req->body.data[strspn(req->body.data, " \t\r\n")] != '{')
		why = "the request body is not a JSON object";
	if (why != NULL)
	{
		char		msg[128];

		free(role);
		if (too_deep)
			return send_error(conn, req, 400, GW_EXC_VALIDATION, "Nesting Levels have exceeded supported limits");
		snprintf(msg, sizeof(msg), "Malformed request body: %s", why);
		return send_error(conn, req, 400, GW_EXC_SERIALIZATION, msg);
	}

	slot = gw_pool_acquire();
	gw_call(slot, operation, req->body.data, role, &r);
	gw_pool_release(slot);
	if (gw_log_enabled(GW_LOG_DEBUG))
		gw_log(GW_LOG_DEBUG, "%s as %s: %d in %.1f ms", operation, role ? role : "(login user)", r.status,
			   elapsed_ms(&req->start));
	free(role);
	req->warnings = r.warnings;
	ret = send_response(conn, req, r.status, r.body, r.len, json_content_type(req));
	req->warnings = NULL;
	free(r.warnings);
	return ret;
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
		const char *cl;

		req = calloc(1, sizeof(*req));
		if (req == NULL)
			return MHD_NO;
		*con_cls = req;
		gettimeofday(&req->start, NULL);
		pthread_mutex_lock(&inflight_lock);
		inflight++;
		pthread_mutex_unlock(&inflight_lock);
		req->post = strcmp(method, MHD_HTTP_METHOD_POST) == 0;
		if (!req->post)
			return MHD_YES;
		if (!content_type_ok(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type"), &req->json_ct))
		{
			/* what DynamoDB answers for a body it does not take as JSON */
			char	   *body = strdup("<UnknownOperationException/>\n");

			return send_response(conn, req, 404, body, body ? strlen(body) : 0, "text/xml");
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
	if (req->responded)
		return MHD_YES;
	if (req->post)
		return handle_post(conn, req, url);
	if (strcmp(method, MHD_HTTP_METHOD_GET) == 0 || strcmp(method, MHD_HTTP_METHOD_HEAD) == 0)
	{
		/* health: a load balancer's probe */
		char	   *body = strdup(draining ? "draining: " GW_NAME "\n" : "healthy: " GW_NAME " " GW_VERSION "\n");

		return send_response(conn, req, draining ? 503 : 200, body, body ? strlen(body) : 0, "text/plain");
	}
	{
		char	   *body = strdup("<UnknownOperationException/>\n");

		return send_response(conn, req, 404, body, body ? strlen(body) : 0, "text/xml");
	}
}

/* The end of a request (answered, or its connection gone): free it, count it out. */
static void
completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode code)
{
	gw_request *req = *con_cls;

	(void) cls;
	(void) conn;
	(void) code;
	if (req == NULL)
		return;
	free(req->body.data);
	free(req);
	*con_cls = NULL;
	pthread_mutex_lock(&inflight_lock);
	inflight--;
	pthread_cond_broadcast(&inflight_cond);
	pthread_mutex_unlock(&inflight_lock);
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

/* Waits until no request is in flight, at most `seconds`; true if none is left. */
static bool
drain(int seconds)
{
	struct timespec deadline;
	bool		done;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += seconds;
	pthread_mutex_lock(&inflight_lock);
	while (inflight > 0)
	{
		if (pthread_cond_timedwait(&inflight_cond, &inflight_lock, &deadline) == ETIMEDOUT)
			break;
	}
	done = inflight == 0;
	if (!done)
		gw_log(GW_LOG_WARNING, "%d request%s still in flight after %d s", inflight, inflight == 1 ? "" : "s", seconds);
	pthread_mutex_unlock(&inflight_lock);
	return done;
}

static int
parse_int(const char *name, const char *s, int min, int max)
{
	char	   *end;
	long		v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
	{
		fprintf(stderr, GW_NAME ": --%s must be an integer from %d to %d\n", name, min, max);
		exit(2);
	}
	return (int) v;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"listen", required_argument, NULL, 'l'},
		{"dsn", required_argument, NULL, 'd'},
		{"pool", required_argument, NULL, 'p'},
		{"schema", required_argument, NULL, 's'},
		{"credentials", required_argument, NULL, 'c'},
		{"role", required_argument, NULL, 'r'},
		{"max-connections", required_argument, NULL, 'm'},
		{"drain-timeout", required_argument, NULL, 't'},
		{"log-level", required_argument, NULL, 'L'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0}
	};
	const char *listen_addr = "127.0.0.1:8000";
	const char *dsn = NULL;
	const char *schema = "singletable";
	int			pool = 8;
	int			max_connections = 1024;
	char		host[256];
	const char *port;
	struct addrinfo hints = {0};
	struct addrinfo *ai;
	struct MHD_Daemon *daemon;
	const union MHD_DaemonInfo *info;
	unsigned int flags;
	sigset_t	sigs;
	int			c;
	int			rc;
	bool		clean;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1)
	{
		switch (c)
		{
			case 'l':
				listen_addr = optarg;
				break;
			case 'd':
				dsn = optarg;
				break;
			case 'p':
				pool = parse_int("pool", optarg, 1, 1000);
				break;
			case 's':
				schema = optarg;
				break;
			case 'c':
				opt_credentials = optarg;
				break;
			case 'r':
				opt_role = optarg;
				break;
			case 'm':
				max_connections = parse_int("max-connections", optarg, 1, 65536);
				break;
			case 't':
				opt_drain_timeout = parse_int("drain-timeout", optarg, 0, 3600);
				break;
			case 'L':
				if (!gw_log_set_level(optarg))
				{
					fprintf(stderr, GW_NAME ": --log-level must be error, warning, info or debug\n");
					return 2;
				}
				break;
			case 'h':
				usage(stdout);
				return 0;
			case 'V':
				printf(GW_NAME " " GW_VERSION "\n");
				return 0;
			default:
				usage(stderr);
				return 2;
		}
	}
	if (optind < argc)
	{
		fprintf(stderr, GW_NAME ": unexpected argument \"%s\"\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (strlen(schema) == 0 || strlen(schema) > 63)
	{
		fprintf(stderr, GW_NAME ": --schema must be 1 to 63 bytes\n");
		return 2;
	}
	if (opt_role != NULL && (strlen(opt_role) == 0 || strlen(opt_role) > 63))
	{
		fprintf(stderr, GW_NAME ": --role must be 1 to 63 bytes\n");
		return 2;
	}
	if (opt_role != NULL && opt_credentials != NULL)
	{
		fprintf(stderr, GW_NAME ": --role is for running without --credentials (the file names each key's role)\n");
		return 2;
	}

	/* HOST:PORT, [IPv6]:PORT */
	{
		const char *colon = strrchr(listen_addr, ':');
		const char *h = listen_addr;
		size_t		hlen;

		if (colon == NULL || colon[1] == '\0')
		{
			fprintf(stderr, GW_NAME ": --listen must be HOST:PORT\n");
			return 2;
		}
		hlen = colon - listen_addr;
		if (hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']')
			h++, hlen -= 2;
		if (hlen == 0 || hlen >= sizeof(host))
		{
			fprintf(stderr, GW_NAME ": --listen must be HOST:PORT\n");
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
		fprintf(stderr, GW_NAME ": cannot listen on \"%s\": %s\n", listen_addr, gai_strerror(rc));
		return 2;
	}

	/* signals: only the main thread takes them, with sigwait */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);

	if (opt_credentials != NULL)
	{
		if (!gw_creds_load(opt_credentials))
			return 1;
	}
	else
		gw_log(GW_LOG_WARNING,
			   "NO AUTHENTICATION: started without --credentials, so every request is accepted, signed or not, "
			   "and runs as %s%s%s. Use this for local development only.",
			   opt_role ? "role \"" : "the login user", opt_role ? opt_role : "", opt_role ? "\"" : "");

	if (!gw_pool_init(pool, dsn, schema))
	{
		gw_log(GW_LOG_ERROR, "could not open %d database connection%s; exiting", pool, pool == 1 ? "" : "s");
		return 1;
	}

	flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG;
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	daemon = MHD_start_daemon(flags, 0, NULL, NULL, handler, NULL,
							  MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, NULL,
							  MHD_OPTION_SOCK_ADDR, ai->ai_addr,
							  MHD_OPTION_CONNECTION_LIMIT, (unsigned int) max_connections,
							  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) 60,
							  MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t) (64 * 1024),
							  MHD_OPTION_THREAD_STACK_SIZE, (size_t) (1024 * 1024),
							  MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
							  MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int) 1,
							  MHD_OPTION_END);
	freeaddrinfo(ai);
	if (daemon == NULL)
	{
		gw_log(GW_LOG_ERROR, "could not listen on %s", listen_addr);
		gw_pool_close();
		return 1;
	}
	info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
	gw_log(GW_LOG_INFO, "listening on %s port %u with %d database connection%s (schema \"%s\")",
		   host, info ? (unsigned int) info->port : 0u, pool, pool == 1 ? "" : "s", schema);

	for (;;)
	{
		int			sig;

		if (sigwait(&sigs, &sig) != 0)
			continue;
		if (sig == SIGHUP)
		{
			if (opt_credentials == NULL)
				gw_log(GW_LOG_INFO, "SIGHUP: no --credentials file to reload");
			else if (!gw_creds_load(opt_credentials))
				gw_log(GW_LOG_WARNING, "SIGHUP: the credentials file did not load; the previous keys stay in force");
			continue;
		}
		gw_log(GW_LOG_INFO, "%s: no new connections; waiting for the requests in flight",
			   sig == SIGTERM ? "SIGTERM" : "SIGINT");
		break;
	}
	draining = true;
	{
		MHD_socket	ls = MHD_quiesce_daemon(daemon);

		if (ls != MHD_INVALID_SOCKET)
			close(ls);
	}
	clean = drain(opt_drain_timeout);
	if (!clean)
	{
		/* threads still blocked in the database: don't wait for them */
		gw_log(GW_LOG_WARNING, "exiting with requests in flight");
		_exit(1);
	}
	MHD_stop_daemon(daemon);
	gw_pool_close();
	gw_log(GW_LOG_INFO, "stopped");
	return 0;
}
