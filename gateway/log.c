/*
 * log.c — the gateway's log: one line per event on stderr, with a UTC
 * timestamp, the level and the process id, written whole (flockfile) so
 * that lines of concurrent requests never interleave. No line carries a
 * request body or an item: requests are logged by operation, status and
 * time only. In the in-server endpoint (endpoint.c) the lines go to
 * PostgreSQL's log instead, through gw_log_sink.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "gateway.h"

gw_log_level gw_log_min = GW_LOG_INFO;
void		(*gw_log_sink) (gw_log_level level, const char *line);

static const char *const level_names[] = {"error", "warning", "info", "debug"};

/* Sets the least severe level logged from its name; false for an unknown name. */
bool
gw_log_set_level(const char *name)
{
	for (size_t i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
	{
		if (strcasecmp(name, level_names[i]) == 0)
		{
			gw_log_min = (gw_log_level) i;
			return true;
		}
	}
	return false;
}

/* Writes one log line at the given level, if that level is logged. */
void
gw_log(gw_log_level level, const char *fmt,...)
{
	struct timeval tv;
	struct tm	tm;
	char		stamp[32];
	va_list		ap;

	if (!gw_log_enabled(level))
		return;
	if (gw_log_sink != NULL)
	{
		char		line[1024];

		va_start(ap, fmt);
		vsnprintf(line, sizeof(line), fmt, ap);
		va_end(ap);
		gw_log_sink(level, line);
		return;
	}
	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);

	flockfile(stderr);
	fprintf(stderr, "%s.%03d UTC [%d] %s: ", stamp, (int) (tv.tv_usec / 1000),
			(int) getpid(), level_names[level]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	funlockfile(stderr);
}
