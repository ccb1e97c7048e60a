/*
 * keys.h — DynamoDB key types (S, N, B): validation, limits, canonical numbers,
 * base64, comparison and the prefix successor used for begins_with ranges.
 */
#ifndef SINGLETABLE_KEYS_H
#define SINGLETABLE_KEYS_H

#include "expr/expr.h"

typedef enum StKeyType
{
	ST_KEY_S = 'S',				/* string: text COLLATE "C" (UTF-8 byte order) */
	ST_KEY_N = 'N',				/* number: numeric, canonical DynamoDB form */
	ST_KEY_B = 'B'				/* binary: bytea, base64 in JSON and in text */
} StKeyType;

/* DynamoDB key size limits, in bytes (UTF-8 for S, decoded bytes for B) */
#define ST_MAX_PARTITION_KEY_BYTES	2048
#define ST_MAX_SORT_KEY_BYTES		1024

/*
 * PostgreSQL's btree holds at most 2704 bytes per index tuple (BTMaxItemSize
 * for 8 kB pages). A (pk, sk) tuple needs 8 bytes of header, 4 bytes of
 * varlena header per key and up to 3 bytes of alignment padding between them:
 * 8 + 4 + pk + 3 + 4 + sk <= 2704. We accept pk + sk up to 2680 bytes, which
 * is below that bound for every split, and reject larger combinations with
 * our own error instead of PostgreSQL's "index row size" one.
 */
#define ST_MAX_COMBINED_KEY_BYTES	2680

/* DynamoDB item limits */
#define ST_MAX_ITEM_BYTES			409600

/* A key value converted to its column representation */
typedef struct StKey
{
	Datum		datum;			/* text, numeric or bytea */
	int			nbytes;			/* size counted against the key limits */
	char	   *display;		/* canonical text form (for output and messages) */
} StKey;

extern StKeyType st_key_type_from_text(const char *s, const char *param);
extern Oid	st_key_type_oid(StKeyType t);
extern const char *st_key_sql_type(StKeyType t);

extern void st_number_parse_or_error(const char *str, int len, StNumber *out,
									 const char *attname);

extern char *st_base64_encode(const char *data, int len, int *outlen);
extern char *st_base64_decode(const char *data, int len, int *outlen);

extern void st_key_from_text(StKeyType t, const char *str, int len,
							 const char *attname, const char *tabname,
							 bool is_sort, StKey *out);
extern void st_key_check_combined(const StKey *pk, const StKey *sk,
								  const char *tabname);
extern text *st_key_datum_to_text(StKeyType t, Datum d);
extern int	st_key_compare(StKeyType t, Datum a, Datum b);

extern char *st_prefix_successor_utf8(const char *p, int len, int *outlen);
extern char *st_prefix_successor_bytes(const char *p, int len, int *outlen);

#endif
