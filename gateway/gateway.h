/*
 * gateway.h — the declarations shared by the files of singletable-gateway,
 * the HTTP endpoint that speaks DynamoDB's JSON protocol and forwards each
 * request to singletable.dynamodb_as(role, operation, request) in PostgreSQL.
 *
 *   main.c    the program's options
 *   server.c  signals, the event loop, the HTTP side (libmicrohttpd): gw_serve
 *   pool.c    the pool of libpq connections, driven non-blocking in pipeline mode
 *   endpoint.c  the same served from inside PostgreSQL: background workers that
 *             run each call in their own backend (gw_pool_* without libpq)
 *   sigv4.c   the credentials file and AWS Signature Version 4
 *   json.c    a strict JSON checker (request bodies, error DETAILs)
 *   log.c     the log (stderr)
 *   viewer.c  the viewer's static files (--viewer DIR)
 *   errors_table.h  DynamoDB's exceptions, generated from src/utils/errors.tab
 *
 * Only endpoint.c includes PostgreSQL's server headers; the other files
 * are built alike into the program and into singletable_endpoint.so.
 */
#ifndef SINGLETABLE_GATEWAY_H
#define SINGLETABLE_GATEWAY_H

#include <stdbool.h>
#include <stddef.h>

#define GW_NAME "singletable-gateway"
#define GW_VERSION "0.2.0"

/* DynamoDB's largest request: 16 MB */
#define GW_MAX_REQUEST_BYTES (16 * 1024 * 1024)

/*
 * DynamoDB's exceptions ("__type": GW_EXC_*), the exception of each SQLSTATE
 * (GW_SQLSTATE_EXCEPTIONS, GW_CLASS_EXCEPTIONS, GW_EXC_OTHERWISE) and the
 * HTTP status of each (GW_EXCEPTION_STATUSES): generated at build time from
 * the extension's error table, src/utils/errors.tab, so that the gateway
 * and the extension pair SQLSTATEs and exceptions alike.
 */
#include "errors_table.h"

/* log.c */
typedef enum gw_log_level
{
	GW_LOG_ERROR,
	GW_LOG_WARNING,
	GW_LOG_INFO,
	GW_LOG_DEBUG
} gw_log_level;

extern gw_log_level gw_log_min;
/* when set, each line (without stamp, at most 1 KB) goes here instead of stderr */
extern void (*gw_log_sink) (gw_log_level level, const char *line);
extern bool gw_log_set_level(const char *name);
extern void gw_log(gw_log_level level, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));

#define gw_log_enabled(level) ((level) <= gw_log_min)

/* json.c */
#define GW_JSON_MAX_DEPTH 256
extern const char *gw_json_check(const char *s, size_t len, int max_depth,
								 bool *too_deep);
extern bool gw_json_top_string(const char *s, size_t len, const char *key,
							   char *buf, size_t bufsize);

/* a growing NUL-terminated byte buffer; oom set once an allocation failed */
typedef struct gw_buf
{
	char	   *data;
	size_t		len;
	size_t		cap;
	bool		oom;
} gw_buf;

extern void gw_buf_append(gw_buf *b, const char *s, size_t n);
extern void gw_buf_append_json_string(gw_buf *b, const char *s);

/*
 * a response body with its HTTP status: malloc'd, or (owner not NULL) held
 * by the PGresult `owner`, released with gw_result_free
 */
typedef struct gw_response
{
	int			status;
	char	   *body;
	size_t		len;
	void	   *owner;
	char	   *warnings;		/* the call's WARNINGs, header-safe, " | " between; malloc'd or NULL */
} gw_response;

/* The longest x-singletable-warning header value; longer is cut, ending "..." */
#define GW_MAX_WARNING_HEADER 2048

extern void gw_error_response(gw_response *out, int status, const char *type,
							  const char *message);
extern int	gw_status_of_type(const char *type);
extern const char *gw_exception_of_sqlstate(const char *sqlstate);
extern void gw_error_from_fields(gw_response *out, const char *where, const char *sqlstate,
								 const char *detail, const char *primary, const char *schema);
extern char *gw_warnings_header(gw_buf *warnings);

/* sigv4.c */
typedef struct gw_sig_input
{
	const char *method;
	const char *path;			/* decoded, as libmicrohttpd gives it */
	const char *body;
	size_t		body_len;
	void	   *connection;		/* struct MHD_Connection * */
	long long	now;			/* time(NULL), for the 15-minute window */
} gw_sig_input;

extern bool gw_creds_load(const char *path);
extern bool gw_creds_configured(void);
extern bool gw_sigv4_verify(const gw_sig_input *in, char **role,
							gw_response *err);

/* viewer.c: the viewer's static files (--viewer DIR) */
extern const char *const gw_viewer_headers[][2];
extern bool gw_viewer_load(const char *dir);
extern bool gw_viewer_enabled(void);
extern bool gw_viewer_lookup(const char *url, const char **data, size_t *len,
							 const char **content_type, bool *redirect, bool *found);

/*
 * server.c: the HTTP side and the event loop (gw_serve), run by main.c (the
 * program) and endpoint.c (the in-server endpoint, a background worker)
 */
typedef struct gw_serve_config
{
	const char *listen_addr;	/* HOST:PORT, [IPv6]:PORT */
	const char *dsn;			/* gw_pool_init's */
	const char *schema;			/* of dynamodb_as */
	const char *credentials;	/* the credentials file, or NULL: no authentication */
	const char *role;			/* without credentials: the role of every request, or NULL */
	int			pool;			/* gw_pool_init's */
	int			max_connections;
	int			per_address;	/* 0: no limit */
	int			request_timeout;	/* seconds for a whole request */
	int			drain_timeout;	/* seconds for the requests in flight after SIGTERM */
	bool		sigint_cancels;	/* SIGINT is not a drain (the in-server endpoint: the call's cancel) */
	/* SIGHUP, before the credentials are reloaded: may change credentials and role */
	void		(*on_sighup) (struct gw_serve_config *config);
} gw_serve_config;

extern int	gw_serve(gw_serve_config *config);

/* server.c: the event loop's clock, milliseconds (CLOCK_MONOTONIC) */
extern long long gw_now_ms(void);

/*
 * pool.c: one call of dynamodb_as, from gw_pool_submit to gw_call_done. The
 * caller owns it (main.c keeps one per HTTP connection, reused) and keeps
 * operation, body and role alive until gw_call_done.
 */
typedef struct gw_call
{
	const char *operation;
	const char *body;			/* NUL-terminated */
	const char *role;			/* NULL: the login user */
	gw_response resp;			/* the answer, when gw_call_done is called */
	gw_buf		warnings;		/* pool.c's: the call's WARNINGs as they come */
	struct gw_call *next;		/* pool.c's: in its queue or a connection's pipeline */
	void	   *res;			/* pool.c's: the statement's PGresult */
	void	   *late;			/* pool.c's: an error after it (the implicit COMMIT's) */
} gw_call;

/* the calls sent on one database connection before their results come back */
#define GW_PIPELINE_DEPTH 4

/* epoll_event.data.u64 of the pool's sockets: GW_EV_POOL + connection number */
#define GW_EV_POOL 16

extern bool gw_pool_init(int size, const char *dsn, const char *schema);
extern bool gw_pool_start(int epoll_fd);
extern void gw_pool_submit(gw_call *call);
extern void gw_pool_event(int index, unsigned int events);
extern int	gw_pool_timeout(long long now);
extern void gw_pool_tick(long long now);
extern int	gw_pool_pending(void);
extern void gw_pool_close(void);
extern void gw_result_free(void *owner);

/* server.c: call's response is ready (called by pool.c, maybe within gw_pool_submit) */
extern void gw_call_done(gw_call *call);

#endif
