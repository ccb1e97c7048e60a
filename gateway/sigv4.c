/*
 * sigv4.c — who is calling: the credentials file and AWS Signature
 * Version 4 as the DynamoDB SDKs sign requests.
 *
 * The credentials file has one key per line, fields separated by blanks:
 *
 *     # access key id        secret access key                          role
 *     AKIAEXAMPLE00000001    wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY   app_tenant_1
 *     AKIAEXAMPLE00000002    another-secret                             -
 *
 * The role is the PostgreSQL role the request runs as (SET ROLE); "-" runs
 * it as the gateway's own login user. Blank lines and lines starting with
 * '#' are skipped. The file should be readable by the gateway's user only
 * (a warning says so otherwise). SIGHUP reloads it; a file that fails to
 * parse leaves the previous keys in force.
 *
 * A signature is checked as AWS does (the canonical request, the string to
 * sign, the key derived from the secret, date, region and service), with
 * DynamoDB's exceptions and messages: MissingAuthenticationTokenException,
 * IncompleteSignatureException, InvalidSignatureException (also for a date
 * more than 15 minutes off) and UnrecognizedClientException for an unknown
 * key. The signatures are compared in constant time.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include <microhttpd.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include "gateway.h"

#define MAX_KEY_ID 128
#define MAX_SECRET 256
#define MAX_ROLE 63				/* NAMEDATALEN - 1 */
#define MAX_SIGNED_HEADERS 64
#define CLOCK_SKEW_SECONDS (15 * 60)

typedef struct cred
{
	char	   *key_id;
	char	   *secret;
	char	   *role;			/* NULL: the login user */
} cred;

typedef struct credset
{
	cred	   *items;
	int			n;
} credset;

static pthread_mutex_t creds_lock = PTHREAD_MUTEX_INITIALIZER;
static credset *creds;			/* NULL: no --credentials, any signature accepted */

static void
credset_free(credset *cs)
{
	if (cs == NULL)
		return;
	for (int i = 0; i < cs->n; i++)
	{
		free(cs->items[i].key_id);
		if (cs->items[i].secret)
			OPENSSL_cleanse(cs->items[i].secret, strlen(cs->items[i].secret));
		free(cs->items[i].secret);
		free(cs->items[i].role);
	}
	free(cs->items);
	free(cs);
}

/* Characters of an access key id (AWS: [\w+=,.@-]). */
static bool
valid_key_id(const char *s)
{
	size_t		n = strlen(s);

	if (n == 0 || n > MAX_KEY_ID)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char) *s) && strchr("_+=,.@-", *s) == NULL)
			return false;
	return true;
}

/*
 * Loads the credentials file and, when it parses, puts its keys in force.
 * False (and a logged reason naming the line) when it does not; the keys
 * in force are then unchanged.
 */
bool
gw_creds_load(const char *path)
{
	FILE	   *f;
	struct stat st;
	credset    *cs;
	char		line[2048];
	int			lineno = 0;
	int			cap = 16;

	f = fopen(path, "r");
	if (f == NULL)
	{
		gw_log(GW_LOG_ERROR, "could not open credentials file \"%s\": %s", path, strerror(errno));
		return false;
	}
	if (fstat(fileno(f), &st) == 0 && (st.st_mode & (S_IRWXG | S_IRWXO)) != 0)
		gw_log(GW_LOG_WARNING, "credentials file \"%s\" has group or world access; it holds secret keys (chmod 600 it)", path);

	cs = calloc(1, sizeof(*cs));
	if (cs == NULL || (cs->items = calloc(cap, sizeof(cred))) == NULL)
	{
		free(cs);
		fclose(f);
		gw_log(GW_LOG_ERROR, "out of memory loading credentials");
		return false;
	}
	while (fgets(line, sizeof(line), f) != NULL)
	{
		char	   *fields[4];
		int			nf = 0;
		char	   *save = NULL;
		char	   *tok;

		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f))
		{
			gw_log(GW_LOG_ERROR, "credentials file \"%s\", line %d: line too long", path, lineno);
			goto bad;
		}
		for (tok = strtok_r(line, " \t\r\n", &save); tok && nf < 4;
			 tok = strtok_r(NULL, " \t\r\n", &save))
			fields[nf++] = tok;
		if (nf == 0 || fields[0][0] == '#')
			continue;
		if (nf != 3)
		{
			gw_log(GW_LOG_ERROR, "credentials file \"%s\", line %d: expected 3 fields (access key id, secret key, role), found %d",
				   path, lineno, nf);
			goto bad;
		}
		if (!valid_key_id(fields[0]))
		{
			gw_log(GW_LOG_ERROR, "credentials file \"%s\", line %d: invalid access key id (1 to %d characters of [A-Za-z0-9_+=,.@-])",
				   path, lineno, MAX_KEY_ID);
			goto bad;
		}
		if (strlen(fields[1]) > MAX_SECRET)
		{
			gw_log(GW_LOG_ERROR, "credentials file \"%s\", line %d: secret key longer than %d bytes", path, lineno, MAX_SECRET);
			goto bad;
		}
		if (strlen(fields[2]) > MAX_ROLE)
		{
			gw_log(GW_LOG_ERROR, "credentials file \"%s\", line %d: role name longer than %d bytes", path, lineno, MAX_ROLE);
			goto bad;
		}
		for (int i = 0; i < cs->n; i++)
			if (strcmp(cs->items[i].key_id, fields[0]) == 0)
			{
				gw_log(GW_LOG_ERROR, "credentials file \"%s\", line %d: access key id \"%s\" listed twice",
					   path, lineno, fields[0]);
				goto bad;
			}
		if (cs->n == cap)
		{
			cred	   *n = realloc(cs->items, sizeof(cred) * cap * 2);

			if (n == NULL)
				goto oom;
			cs->items = n;
			cap *= 2;
		}
		cs->items[cs->n].key_id = strdup(fields[0]);
		cs->items[cs->n].secret = strdup(fields[1]);
		cs->items[cs->n].role = strcmp(fields[2], "-") == 0 ? NULL : strdup(fields[2]);
		cs->n++;
		if (cs->items[cs->n - 1].key_id == NULL || cs->items[cs->n - 1].secret == NULL ||
			(strcmp(fields[2], "-") != 0 && cs->items[cs->n - 1].role == NULL))
			goto oom;
	}
	OPENSSL_cleanse(line, sizeof(line));
	if (ferror(f))
	{
		gw_log(GW_LOG_ERROR, "could not read credentials file \"%s\"", path);
		goto bad;
	}
	fclose(f);

	pthread_mutex_lock(&creds_lock);
	{
		credset    *old = creds;

		creds = cs;
		pthread_mutex_unlock(&creds_lock);
		credset_free(old);
	}
	gw_log(GW_LOG_INFO, "loaded %d access key%s from \"%s\"", cs->n, cs->n == 1 ? "" : "s", path);
	return true;

oom:
	gw_log(GW_LOG_ERROR, "out of memory loading credentials");
bad:
	OPENSSL_cleanse(line, sizeof(line));
	fclose(f);
	credset_free(cs);
	return false;
}

/* True when a credentials file is in force (else any signature is accepted). */
bool
gw_creds_configured(void)
{
	bool		r;

	pthread_mutex_lock(&creds_lock);
	r = creds != NULL;
	pthread_mutex_unlock(&creds_lock);
	return r;
}

/* Copies the secret and role of key_id; false for an unknown key. */
static bool
creds_lookup(const char *key_id, char *secret, size_t secretsize, char **role)
{
	bool		found = false;

	pthread_mutex_lock(&creds_lock);
	for (int i = 0; creds && i < creds->n; i++)
	{
		if (strcmp(creds->items[i].key_id, key_id) == 0)
		{
			snprintf(secret, secretsize, "%s", creds->items[i].secret);
			*role = creds->items[i].role ? strdup(creds->items[i].role) : NULL;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&creds_lock);
	return found;
}

static void
hex(const unsigned char *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++)
	{
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 0xF];
	}
	out[2 * n] = '\0';
}

/*
 * SHA-256 through one digest fetched once and one reused context: OpenSSL
 * 3's one-shot SHA256() and HMAC() look the algorithm up (under a lock) and
 * allocate a context on every call, which cost more than the hashing of a
 * small request. If the fetch fails, the built-in EVP_sha256() is used.
 */
static const EVP_MD *sha256_md;
static EVP_MD_CTX *sha256_ctx;

/* SHA-256 of a then b (b may be NULL); all zeros (matching no signature) if OpenSSL fails. */
static void
sha256_2(const void *a, size_t alen, const void *b, size_t blen, unsigned char out[32])
{
	if (sha256_md == NULL)
	{
		EVP_MD	   *fetched = EVP_MD_fetch(NULL, "SHA256", NULL);

		sha256_md = fetched ? fetched : EVP_sha256();
		sha256_ctx = EVP_MD_CTX_new();
	}
	if (sha256_ctx == NULL ||
		!EVP_DigestInit_ex(sha256_ctx, sha256_md, NULL) ||
		!EVP_DigestUpdate(sha256_ctx, a, alen) ||
		(b != NULL && !EVP_DigestUpdate(sha256_ctx, b, blen)) ||
		!EVP_DigestFinal_ex(sha256_ctx, out, NULL))
		memset(out, 0, 32);
}

static void
sha256_hex(const void *data, size_t n, char out[65])
{
	unsigned char md[SHA256_DIGEST_LENGTH];

	sha256_2(data, n, NULL, 0, md);
	hex(md, sizeof(md), out);
}

/* HMAC-SHA256 (RFC 2104) over sha256_2; key and out may be the same buffer. */
static void
hmac(const unsigned char *key, size_t keylen, const char *data, size_t n,
	 unsigned char out[32])
{
	unsigned char k[64];
	unsigned char pad[64];
	unsigned char inner[32];

	memset(k, 0, sizeof(k));
	if (keylen > sizeof(k))
		sha256_2(key, keylen, NULL, 0, k);
	else
		memcpy(k, key, keylen);
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	sha256_2(pad, sizeof(pad), data, n, inner);
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	sha256_2(pad, sizeof(pad), inner, sizeof(inner), out);
	OPENSSL_cleanse(k, sizeof(k));
	OPENSSL_cleanse(pad, sizeof(pad));
	OPENSSL_cleanse(inner, sizeof(inner));
}

/*
 * The signing keys derived lately, by secret, date and region (the service
 * and terminator are always dynamodb and aws4_request): deriving one takes
 * four HMACs, and a key signs every request of a day. Looked up by the
 * secret itself, so a reloaded credentials file that changes a key's secret
 * never finds the old one's signing key.
 */
#define SIGNING_CACHE 8

typedef struct signing_key
{
	char		secret[MAX_SECRET + 8];	/* "AWS4" + secret; "" for an empty slot */
	char		date[16];
	char		region[64];
	unsigned char k[32];
} signing_key;

static signing_key signing_cache[SIGNING_CACHE];
static int	signing_next;

static void
signing_key_for(const char *secret, const char *date, const char *region, unsigned char k[32])
{
	signing_key *e;

	for (int i = 0; i < SIGNING_CACHE; i++)
	{
		e = &signing_cache[i];
		if (e->secret[0] != '\0' && strcmp(e->date, date) == 0 && strcmp(e->region, region) == 0 &&
			strcmp(e->secret, secret) == 0)
		{
			memcpy(k, e->k, 32);
			return;
		}
	}
	hmac((const unsigned char *) secret, strlen(secret), date, strlen(date), k);
	hmac(k, 32, region, strlen(region), k);
	hmac(k, 32, "dynamodb", 8, k);
	hmac(k, 32, "aws4_request", 12, k);
	if (strlen(secret) < sizeof(e->secret) && strlen(date) < sizeof(e->date) && strlen(region) < sizeof(e->region))
	{
		e = &signing_cache[signing_next];
		signing_next = (signing_next + 1) % SIGNING_CACHE;
		OPENSSL_cleanse(e, sizeof(*e));
		strcpy(e->secret, secret);
		strcpy(e->date, date);
		strcpy(e->region, region);
		memcpy(e->k, k, 32);
	}
}

/* URI-encodes s as SigV4 does (everything but A-Za-z0-9-_.~, and '/' when keep_slash). */
static void
uri_encode(gw_buf *b, const char *s, bool keep_slash)
{
	static const char digits[] = "0123456789ABCDEF";

	for (const unsigned char *p = (const unsigned char *) s; *p; p++)
	{
		if (isalnum(*p) || *p == '-' || *p == '_' || *p == '.' || *p == '~' ||
			(keep_slash && *p == '/'))
			gw_buf_append(b, (const char *) p, 1);
		else
		{
			char		e[3] = {'%', digits[*p >> 4], digits[*p & 0xF]};

			gw_buf_append(b, e, 3);
		}
	}
}

/* One header's canonical value: all its values joined by ',', each trimmed, blank runs folded. */
typedef struct header_collect
{
	const char *name;
	gw_buf	   *out;
	int			count;
} header_collect;

static enum MHD_Result
collect_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	header_collect *hc = cls;
	const char *p;
	const char *end;
	bool		space = false;

	(void) kind;
	if (strcasecmp(key, hc->name) != 0)
		return MHD_YES;
	if (hc->count++ > 0)
		gw_buf_append(hc->out, ",", 1);
	if (value == NULL)
		return MHD_YES;
	p = value;
	end = value + strlen(value);
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	for (; p < end; p++)
	{
		if (*p == ' ' || *p == '\t')
		{
			space = true;
			continue;
		}
		if (space)
			gw_buf_append(hc->out, " ", 1);
		space = false;
		gw_buf_append(hc->out, p, 1);
	}
	return MHD_YES;
}

/* The query string's arguments, for the canonical query string. */
typedef struct query_arg
{
	char	   *key;			/* encoded */
	char	   *value;			/* encoded */
} query_arg;

typedef struct query_collect
{
	query_arg	args[64];
	int			n;
	bool		overflow;
} query_collect;

static char *
encoded(const char *s)
{
	gw_buf		b = {0};

	gw_buf_append(&b, "", 0);
	uri_encode(&b, s ? s : "", false);
	return b.data;
}

static enum MHD_Result
collect_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	query_collect *qc = cls;

	(void) kind;
	if (qc->n == (int) (sizeof(qc->args) / sizeof(qc->args[0])))
	{
		qc->overflow = true;
		return MHD_NO;
	}
	qc->args[qc->n].key = encoded(key);
	qc->args[qc->n].value = encoded(value);
	qc->n++;
	return MHD_YES;
}

static int
cmp_arg(const void *a, const void *b)
{
	const query_arg *x = a;
	const query_arg *y = b;
	int			c = strcmp(x->key ? x->key : "", y->key ? y->key : "");

	return c ? c : strcmp(x->value ? x->value : "", y->value ? y->value : "");
}

/* Parses X-Amz-Date (YYYYMMDD'T'HHMMSS'Z'). */
static bool
parse_amz_date(const char *s, time_t *t)
{
	struct tm	tm = {0};

	if (strlen(s) != 16 || s[8] != 'T' || s[15] != 'Z')
		return false;
	for (int i = 0; i < 15; i++)
		if (i != 8 && !isdigit((unsigned char) s[i]))
			return false;
	if (sscanf(s, "%4d%2d%2dT%2d%2d%2dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			   &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
		return false;
	if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
		tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
		return false;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*t = timegm(&tm);
	return true;
}

static void
format_amz_date(time_t t, char out[17])
{
	struct tm	tm;

	gmtime_r(&t, &tm);
	strftime(out, 17, "%Y%m%dT%H%M%SZ", &tm);
}

static bool
reject(gw_response *err, const char *type, const char *message)
{
	gw_error_response(err, 400, type, message);
	return false;
}

/* Finds "name=" among the comma-separated parameters of the Authorization header. */
static bool
auth_param(const char *params, const char *name, char *out, size_t outsize)
{
	size_t		nlen = strlen(name);
	const char *p = params;

	while (*p)
	{
		const char *end;

		while (*p == ' ' || *p == ',')
			p++;
		end = strchr(p, ',');
		if (end == NULL)
			end = p + strlen(p);
		if ((size_t) (end - p) > nlen && strncmp(p, name, nlen) == 0 && p[nlen] == '=')
		{
			const char *v = p + nlen + 1;
			const char *vend = end;

			while (vend > v && vend[-1] == ' ')
				vend--;
			if ((size_t) (vend - v) >= outsize)
				return false;
			memcpy(out, v, vend - v);
			out[vend - v] = '\0';
			return true;
		}
		p = end;
	}
	return false;
}

/*
 * Verifies the request's SigV4 signature. On success, *role is the role of
 * the key (malloc'd; NULL for the login user). On failure, fills *err with
 * DynamoDB's error. Without a credentials file every request passes (the
 * caller then uses the configured role).
 */
bool
gw_sigv4_verify(const gw_sig_input *in, char **role, gw_response *err)
{
	struct MHD_Connection *conn = in->connection;
	const char *auth;
	const char *amz_date;
	const char *params;
	const char *payload_header;
	char		credential[512];
	char		signed_headers[1024];
	char		signature[128];
	char		key_id[MAX_KEY_ID + 1];
	char		scope_date[16];
	char		region[64];
	char		service[64];
	char		terminator[64];
	char		secret[MAX_SECRET + 8];
	char		body_hash[65];
	char		creq_hash[65];
	char		expected[65];
	char		msg[512];
	unsigned char k[32];
	time_t		t;
	gw_buf		creq = {0};
	gw_buf		sts = {0};
	query_collect qc;
	bool		host_signed = false;
	bool		date_signed = false;
	bool		target_signed = false;
	bool		ctype_signed = false;
	bool		ok;

	*role = NULL;
	auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
	if (auth == NULL || strncmp(auth, "AWS4-", 5) != 0)
		return reject(err, GW_EXC_MISSING_TOKEN, "Request is missing Authentication Token");
	params = strchr(auth, ' ');
	if (params == NULL || (size_t) (params - auth) != strlen("AWS4-HMAC-SHA256") ||
		strncmp(auth, "AWS4-HMAC-SHA256", params - auth) != 0)
	{
		snprintf(msg, sizeof(msg), "Unsupported AWS 'algorithm': '%.*s' (only AWS4-HMAC-SHA256 for now). ",
				 (int) (params ? params - auth : (ptrdiff_t) strnlen(auth, 64)), auth);
		return reject(err, GW_EXC_INCOMPLETE_SIG, msg);
	}
	amz_date = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Amz-Date");
	msg[0] = '\0';
	if (!auth_param(params, "Credential", credential, sizeof(credential)))
		strcat(msg, "Authorization header requires 'Credential' parameter. ");
	if (!auth_param(params, "Signature", signature, sizeof(signature)))
		strcat(msg, "Authorization header requires 'Signature' parameter. ");
	if (!auth_param(params, "SignedHeaders", signed_headers, sizeof(signed_headers)))
		strcat(msg, "Authorization header requires 'SignedHeaders' parameter. ");
	if (amz_date == NULL)
		strcat(msg, "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ");
	if (msg[0] != '\0')
		return reject(err, GW_EXC_INCOMPLETE_SIG, msg);
	if (!parse_amz_date(amz_date, &t))
	{
		snprintf(msg, sizeof(msg), "Date must be in ISO-8601 'basic format'. Got '%.32s'. See http://en.wikipedia.org/wiki/ISO_8601", amz_date);
		return reject(err, GW_EXC_INCOMPLETE_SIG, msg);
	}
	{
		/* key/date/region/service/aws4_request, nothing empty */
		char	   *parts[5];
		int			n = 0;
		char	   *p = credential;

		while (n < 5)
		{
			parts[n++] = p;
			p = strchr(p, '/');
			if (p == NULL)
				break;
			*p++ = '\0';
		}
		if (n != 5 || p != NULL || strlen(parts[0]) > MAX_KEY_ID || strlen(parts[1]) >= sizeof(scope_date) ||
			strlen(parts[2]) >= sizeof(region) || strlen(parts[3]) >= sizeof(service) ||
			strlen(parts[4]) >= sizeof(terminator) || parts[0][0] == '\0' || parts[2][0] == '\0')
			return reject(err, GW_EXC_INCOMPLETE_SIG,
						  "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term");
		strcpy(key_id, parts[0]);
		strcpy(scope_date, parts[1]);
		strcpy(region, parts[2]);
		strcpy(service, parts[3]);
		strcpy(terminator, parts[4]);
	}
	msg[0] = '\0';
	if (strcmp(service, "dynamodb") != 0)
		strcat(msg, "Credential should be scoped to correct service: 'dynamodb'. ");
	if (strcmp(terminator, "aws4_request") != 0)
		snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
				 "Credential should be scoped with a valid terminator: 'aws4_request', not '%s'. ", terminator);
	if (strlen(scope_date) != 8 || strncmp(scope_date, amz_date, 8) != 0)
		snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
				 "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '%s' != '%.8s', from '%s'.",
				 scope_date, amz_date, amz_date);
	if (msg[0] != '\0')
		return reject(err, GW_EXC_INVALID_SIG, msg);
	if ((long long) t < in->now - CLOCK_SKEW_SECONDS || (long long) t > in->now + CLOCK_SKEW_SECONDS)
	{
		char		now[17];
		char		bound[17];
		bool		past = (long long) t < in->now;

		format_amz_date((time_t) in->now, now);
		format_amz_date((time_t) (past ? in->now - CLOCK_SKEW_SECONDS : in->now + CLOCK_SKEW_SECONDS), bound);
		if (past)
			snprintf(msg, sizeof(msg), "Signature expired: %s is now earlier than %s (%s - 15 min.)", amz_date, bound, now);
		else
			snprintf(msg, sizeof(msg), "Signature not yet current: %s is still later than %s (%s + 15 min.)", amz_date, bound, now);
		return reject(err, GW_EXC_INVALID_SIG, msg);
	}

	/* SignedHeaders: lower-case names separated by ';', host among them */
	{
		int			count = 1;

		for (char *p = signed_headers; *p; p++)
		{
			if (*p == ';')
				count++;
			else if (isupper((unsigned char) *p) || *p == ' ')
				return reject(err, GW_EXC_INVALID_SIG, "SignedHeaders must be lower-case names separated by ';'.");
		}
		if (count > MAX_SIGNED_HEADERS || signed_headers[0] == '\0')
			return reject(err, GW_EXC_INVALID_SIG, "Too many or no SignedHeaders.");
	}

	/* the canonical request */
	gw_buf_append(&creq, in->method, strlen(in->method));
	gw_buf_append(&creq, "\n", 1);
	{
		/* the path as sent (encoded once), encoded again, as for every service but S3 */
		gw_buf		once = {0};

		gw_buf_append(&once, "", 0);
		uri_encode(&once, in->path[0] ? in->path : "/", true);
		uri_encode(&creq, once.data ? once.data : "/", true);
		free(once.data);
	}
	gw_buf_append(&creq, "\n", 1);
	memset(&qc, 0, sizeof(qc));
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_arg, &qc);
	if (qc.overflow)
	{
		for (int i = 0; i < qc.n; i++)
			free(qc.args[i].key), free(qc.args[i].value);
		free(creq.data);
		return reject(err, GW_EXC_INVALID_SIG, "Too many query parameters.");
	}
	qsort(qc.args, qc.n, sizeof(query_arg), cmp_arg);
	for (int i = 0; i < qc.n; i++)
	{
		if (i > 0)
			gw_buf_append(&creq, "&", 1);
		if (qc.args[i].key)
			gw_buf_append(&creq, qc.args[i].key, strlen(qc.args[i].key));
		gw_buf_append(&creq, "=", 1);
		if (qc.args[i].value)
			gw_buf_append(&creq, qc.args[i].value, strlen(qc.args[i].value));
		free(qc.args[i].key);
		free(qc.args[i].value);
	}
	gw_buf_append(&creq, "\n", 1);
	{
		char	   *save = NULL;
		char		names[sizeof(signed_headers)];

		strcpy(names, signed_headers);
		for (char *name = strtok_r(names, ";", &save); name; name = strtok_r(NULL, ";", &save))
		{
			header_collect hc = {name, &creq, 0};

			if (strcmp(name, "host") == 0)
				host_signed = true;
			else if (strcmp(name, "x-amz-date") == 0)
				date_signed = true;
			else if (strcmp(name, "x-amz-target") == 0)
				target_signed = true;
			else if (strcmp(name, "content-type") == 0)
				ctype_signed = true;
			gw_buf_append(&creq, name, strlen(name));
			gw_buf_append(&creq, ":", 1);
			MHD_get_connection_values(conn, MHD_HEADER_KIND, collect_header, &hc);
			gw_buf_append(&creq, "\n", 1);
		}
	}
	/*
	 * The headers that decide what the request does must be signed, else a
	 * captured request could be replayed with another one (a GetItem resent
	 * as DeleteItem with its body and signature): Host, X-Amz-Date (the only
	 * date read), X-Amz-Target (the operation) and Content-Type when sent.
	 * Every SDK, the AWS CLI and curl --aws-sigv4 sign them.
	 */
	{
		const char *unsigned_header = NULL;

		if (!host_signed)
			unsigned_header = "Host";
		else if (!date_signed)
			unsigned_header = "X-Amz-Date";
		else if (!target_signed)
			unsigned_header = "X-Amz-Target";
		else if (!ctype_signed &&
				 MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type") != NULL)
			unsigned_header = "Content-Type";
		if (unsigned_header != NULL)
		{
			free(creq.data);
			snprintf(msg, sizeof(msg), "'%s' must be a 'SignedHeader' in the AWS Authorization.",
					 unsigned_header);
			return reject(err, GW_EXC_INVALID_SIG, msg);
		}
	}
	gw_buf_append(&creq, "\n", 1);
	gw_buf_append(&creq, signed_headers, strlen(signed_headers));
	gw_buf_append(&creq, "\n", 1);
	sha256_hex(in->body ? in->body : "", in->body_len, body_hash);
	payload_header = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Amz-Content-Sha256");
	if (payload_header != NULL && strcasecmp(payload_header, body_hash) != 0)
	{
		free(creq.data);
		return reject(err, GW_EXC_INVALID_SIG,
					  "The provided 'x-amz-content-sha256' header does not match what was computed.");
	}
	gw_buf_append(&creq, body_hash, 64);
	if (creq.oom)
	{
		free(creq.data);
		gw_error_response(err, 500, GW_EXC_INTERNAL, "Internal server error");
		return false;
	}
	sha256_hex(creq.data, creq.len, creq_hash);
	free(creq.data);

	/* the string to sign */
	gw_buf_append(&sts, "AWS4-HMAC-SHA256\n", 17);
	gw_buf_append(&sts, amz_date, strlen(amz_date));
	snprintf(msg, sizeof(msg), "\n%s/%s/%s/%s\n", scope_date, region, service, terminator);
	gw_buf_append(&sts, msg, strlen(msg));
	gw_buf_append(&sts, creq_hash, 64);
	if (sts.oom)
	{
		free(sts.data);
		gw_error_response(err, 500, GW_EXC_INTERNAL, "Internal server error");
		return false;
	}

	/* the key */
	memcpy(secret, "AWS4", 4);
	if (!creds_lookup(key_id, secret + 4, sizeof(secret) - 4, role))
	{
		free(sts.data);
		return reject(err, GW_EXC_UNRECOGNIZED, "The security token included in the request is invalid.");
	}
	/* service and terminator were checked above: dynamodb, aws4_request */
	signing_key_for(secret, scope_date, region, k);
	OPENSSL_cleanse(secret, sizeof(secret));
	hmac(k, 32, sts.data, sts.len, k);
	free(sts.data);
	hex(k, 32, expected);
	OPENSSL_cleanse(k, sizeof(k));

	ok = strlen(signature) == 64 && CRYPTO_memcmp(signature, expected, 64) == 0;
	if (!ok)
	{
		free(*role);
		*role = NULL;
		return reject(err, GW_EXC_INVALID_SIG,
					  "The request signature we calculated does not match the signature you provided. "
					  "Check your AWS Secret Access Key and signing method. Consult the service documentation for details.");
	}
	return true;
}
