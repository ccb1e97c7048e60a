/*
 * main.c — singletable-gateway: DynamoDB's HTTP endpoint in front of
 * PostgreSQL, as a program of its own. Every DynamoDB SDK, the AWS CLI and
 * boto3 POST JSON to an endpoint with X-Amz-Target:
 * DynamoDB_20120810.<Operation>, signed with SigV4; this program answers
 * them by calling singletable.dynamodb_as(role, operation, request) over a
 * pool of libpq connections (pool.c), as the role of the request's access
 * key (sigv4.c). The HTTP side and the event loop are server.c's
 * (gw_serve), shared with the in-server endpoint (endpoint.c); this file
 * reads the options and raises the limit of open files.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>


#include "gateway.h"

/* file descriptors besides the HTTP connections and the pool's: listener, epoll x2, signalfd, stdio, files */
#define SPARE_FDS 32

static const char *opt_credentials;
static const char *opt_role;
static int	opt_drain_timeout = 30;
static int	opt_request_timeout = 20;

static void
usage(FILE *f)
{
	fprintf(f,
			"Usage: " GW_NAME " [OPTION]...\n"
			"DynamoDB's HTTP API in front of PostgreSQL: each request calls\n"
			"singletable.dynamodb_as(role, operation, request).\n\n"
			"  --listen HOST:PORT      address to listen on (default 127.0.0.1:8000; port 0: any free port)\n"
			"  --dsn CONNINFO          libpq connection string (default: libpq's PG* variables)\n"
			"  --pool N                database connections (default 8)\n"
			"  --schema S              schema of the dynamodb_as() function (default singletable)\n"
			"  --credentials FILE      access keys: ACCESS_KEY_ID SECRET_KEY ROLE per line;\n"
			"                          without it any request is accepted (development only)\n"
			"  --role ROLE             without --credentials: the role every request runs as\n"
			"                          (default: the login user)\n"
			"  --max-connections N     HTTP connections open at once (default 8192)\n"
			"  --max-connections-per-address N\n"
			"                          HTTP connections open at once from one client address\n"
			"                          (default 256; 0: no limit)\n"
			"  --request-timeout SECS  time for receiving a whole request, headers and body, from\n"
			"                          the moment the connection is ready for one (default 20)\n"
			"  --drain-timeout SECS    on SIGTERM, how long to wait for requests in flight (default 30)\n"
			"  --log-level LEVEL       error, warning, info (default) or debug\n"
			"  --viewer DIR            serve the viewer's files of DIR at /viewer/ and answer the\n"
			"                          extension's own operations (X-Amz-Target SingleTable_20261201.*);\n"
			"                          make install puts them in $(pg_config --sharedir)/singletable/viewer\n"
			"  --help, --version\n");
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

/*
 * Raises RLIMIT_NOFILE's soft limit to what the connections need. When the
 * hard limit is lower: an explicit --max-connections is an error; the
 * default is lowered to fit, with a warning. False: exit.
 */
static bool
raise_nofile(int *max_connections, bool explicit, int pool)
{
	struct rlimit rl;
	rlim_t		need = (rlim_t) *max_connections + (rlim_t) pool + SPARE_FDS;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return true;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur >= need)
		return true;
	if (rl.rlim_cur == RLIM_INFINITY)
		return true;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
	{
		long long	fit = (long long) rl.rlim_max - pool - SPARE_FDS;

		if (explicit || fit < 16)
		{
			fprintf(stderr, GW_NAME ": --max-connections %d needs %llu open files (with --pool %d), but the hard "
					"limit (RLIMIT_NOFILE, ulimit -Hn) is %llu: raise it (LimitNOFILE= in a systemd unit) or "
					"lower --max-connections\n", *max_connections, (unsigned long long) need, pool,
					(unsigned long long) rl.rlim_max);
			return false;
		}
		gw_log(GW_LOG_WARNING, "--max-connections lowered from %d to %lld: the hard limit of open files "
			   "(RLIMIT_NOFILE, ulimit -Hn) is %llu", *max_connections, fit, (unsigned long long) rl.rlim_max);
		*max_connections = (int) fit;
		need = rl.rlim_max;
	}
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
	{
		fprintf(stderr, GW_NAME ": could not raise the limit of open files to %llu: %s\n",
				(unsigned long long) need, strerror(errno));
		return false;
	}
	return true;
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
		{"max-connections-per-address", required_argument, NULL, 'a'},
		{"request-timeout", required_argument, NULL, 'T'},
		{"drain-timeout", required_argument, NULL, 't'},
		{"log-level", required_argument, NULL, 'L'},
		{"viewer", required_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0}
	};
	const char *listen_addr = "127.0.0.1:8000";
	const char *dsn = NULL;
	const char *schema = "singletable";
	const char *viewer_dir = NULL;
	int			pool = 8;
	int			max_connections = 8192;
	bool		max_connections_set = false;
	int			per_address = 256;
	int			c;
	gw_serve_config config = {0};

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
				max_connections = parse_int("max-connections", optarg, 1, 1000000);
				max_connections_set = true;
				break;
			case 'a':
				per_address = parse_int("max-connections-per-address", optarg, 0, 1000000);
				break;
			case 'T':
				opt_request_timeout = parse_int("request-timeout", optarg, 1, 3600);
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
			case 'v':
				viewer_dir = optarg;
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
	if (viewer_dir != NULL && !gw_viewer_load(viewer_dir))
		return 2;
	if (!raise_nofile(&max_connections, max_connections_set, pool))
		return 2;

	config.listen_addr = listen_addr;
	config.dsn = dsn;
	config.schema = schema;
	config.credentials = opt_credentials;
	config.role = opt_role;
	config.pool = pool;
	config.max_connections = max_connections;
	config.per_address = per_address;
	config.request_timeout = opt_request_timeout;
	config.drain_timeout = opt_drain_timeout;
	return gw_serve(&config);
}
