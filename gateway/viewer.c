/*
 * viewer.c — the static files of the viewer (--viewer DIR), a web page that
 * shows a table as its entities (docs/viewer.md). Off by default.
 *
 * The files are read once, at start, from DIR (flat: no subdirectory), and
 * kept in memory; a request is answered from that table by exact name, so
 * no request can make the gateway open a file: `..`, `%2e%2e` (libmicrohttpd
 * decodes the path first), `/` and any other character outside
 * [A-Za-z0-9._-] in a name, or a name starting with '.', match nothing. A
 * file of DIR with such a name, or of a type not listed here, is skipped.
 *
 * Every response of the viewer carries the headers a security review
 * expects: a strict Content-Security-Policy (only the page's own scripts,
 * styles and API calls; no inline script or style; no framing),
 * X-Content-Type-Options: nosniff, X-Frame-Options: DENY and
 * Referrer-Policy: no-referrer.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gateway.h"

/* at most this many files, each at most this large */
#define VIEWER_MAX_FILES 64
#define VIEWER_MAX_FILE_BYTES (4 * 1024 * 1024)
#define VIEWER_MAX_NAME 64

typedef struct viewer_file
{
	char		name[VIEWER_MAX_NAME + 1];
	const char *content_type;
	char	   *data;
	size_t		len;
} viewer_file;

static viewer_file files[VIEWER_MAX_FILES];
static int	nfiles;
static bool enabled;

const char *const gw_viewer_headers[][2] = {
	{"Content-Security-Policy",
	 "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
	 "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
	 "form-action 'none'; frame-ancestors 'none'"},
	{"X-Content-Type-Options", "nosniff"},
	{"X-Frame-Options", "DENY"},
	{"Referrer-Policy", "no-referrer"},
	{"Cache-Control", "no-cache"},
	{NULL, NULL}
};

static const char *const types[][2] = {
	{".html", "text/html; charset=utf-8"},
	{".js", "text/javascript; charset=utf-8"},
	{".mjs", "text/javascript; charset=utf-8"},
	{".css", "text/css; charset=utf-8"},
	{".svg", "image/svg+xml"},
	{".png", "image/png"},
	{".ico", "image/x-icon"},
	{".json", "application/json"},
	{".txt", "text/plain; charset=utf-8"},
	{NULL, NULL}
};

/* A name the viewer may serve: [A-Za-z0-9._-], not starting with '.', at most VIEWER_MAX_NAME bytes. */
static bool
name_ok(const char *name)
{
	size_t		n = strlen(name);

	return n > 0 && n <= VIEWER_MAX_NAME && name[0] != '.' &&
		strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == n;
}

static const char *
type_of(const char *name)
{
	const char *dot = strrchr(name, '.');

	if (dot == NULL)
		return NULL;
	for (int i = 0; types[i][0]; i++)
		if (strcmp(dot, types[i][0]) == 0)
			return types[i][1];
	return NULL;
}

static bool
read_file(int dirfd, const char *name, viewer_file *f)
{
	int			fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	size_t		got = 0;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > VIEWER_MAX_FILE_BYTES)
	{
		close(fd);
		return false;
	}
	f->data = malloc((size_t) st.st_size + 1);
	if (f->data == NULL)
	{
		close(fd);
		return false;
	}
	while (got < (size_t) st.st_size)
	{
		ssize_t		n = read(fd, f->data + got, (size_t) st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t) n;
	}
	close(fd);
	f->data[got] = '\0';
	f->len = got;
	return true;
}

/*
 * Loads the files of dir. False (with a line on stderr): the directory
 * cannot be read, or has no index.html.
 */
bool
gw_viewer_load(const char *dir)
{
	int			dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR		   *d;
	struct dirent *e;
	bool		index = false;

	if (dirfd < 0)
	{
		fprintf(stderr, GW_NAME ": --viewer %s: %s\n", dir, strerror(errno));
		return false;
	}
	d = fdopendir(dup(dirfd));
	if (d == NULL)
	{
		fprintf(stderr, GW_NAME ": --viewer %s: %s\n", dir, strerror(errno));
		close(dirfd);
		return false;
	}
	while ((e = readdir(d)) != NULL)
	{
		const char *type;
		viewer_file *f;

		if (!name_ok(e->d_name) || (type = type_of(e->d_name)) == NULL)
			continue;
		if (nfiles == VIEWER_MAX_FILES)
		{
			gw_log(GW_LOG_WARNING, "--viewer %s: more than %d files; the rest are not served", dir, VIEWER_MAX_FILES);
			break;
		}
		f = &files[nfiles];
		if (!read_file(dirfd, e->d_name, f))
			continue;
		/* name_ok checked that it fits (at most VIEWER_MAX_NAME bytes) */
		memcpy(f->name, e->d_name, strlen(e->d_name) + 1);
		f->content_type = type;
		if (strcmp(f->name, "index.html") == 0)
			index = true;
		nfiles++;
	}
	closedir(d);
	close(dirfd);
	if (!index)
	{
		fprintf(stderr, GW_NAME ": --viewer %s: no index.html there (make install puts the viewer's files "
				"into $(pg_config --sharedir)/singletable/viewer)\n", dir);
		return false;
	}
	enabled = true;
	gw_log(GW_LOG_INFO, "viewer: %d files from %s served at /viewer/", nfiles, dir);
	return true;
}

bool
gw_viewer_enabled(void)
{
	return enabled;
}

/*
 * The viewer's answer to a GET or HEAD of url: true with the file (or, for
 * /viewer, redirect set) when url is the viewer's; false when the viewer is
 * off or url is not under /viewer, to be answered as any other GET.
 * *file is NULL (and *redirect false) for a name the viewer does not have: 404.
 */
bool
gw_viewer_lookup(const char *url, const char **data, size_t *len, const char **content_type,
				 bool *redirect, bool *found)
{
	const char *name;

	*redirect = false;
	*found = false;
	if (!enabled || strncmp(url, "/viewer", 7) != 0 || (url[7] != '\0' && url[7] != '/'))
		return false;
	if (url[7] == '\0')
	{
		*redirect = true;
		return true;
	}
	name = url + 8;
	if (*name == '\0')
		name = "index.html";
	if (!name_ok(name))
		return true;
	for (int i = 0; i < nfiles; i++)
		if (strcmp(files[i].name, name) == 0)
		{
			*data = files[i].data;
			*len = files[i].len;
			*content_type = files[i].content_type;
			*found = true;
			return true;
		}
	return true;
}
