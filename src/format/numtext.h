/*
 * numtext.h — a stored number's text as numeric_out prints it (numtext.c).
 *
 * Include after postgres.h.
 */
#ifndef SINGLETABLE_NUMTEXT_H
#define SINGLETABLE_NUMTEXT_H

#include "utils/numeric.h"

/* A buffer size that holds every number of DynamoDB's 38 digits within its exponent range */
#define ST_NUMTEXT_BUFSIZE 192

/*
 * Writes num's text (numeric_out's exactly) and a NUL into out[size];
 * returns its length, or -1 when it is a special value or would not fit:
 * then the caller asks numeric_out.
 */
extern int	st_numeric_text(Numeric num, char *out, int size);

/*
 * num as a decimal without its digits: sign, n significant digits (0 for
 * zero) and the decimal exponent e of the first (value = 0.d1..dn *
 * 10^(e+1)), read off its base-10000 digits; false for a special value.
 */
extern bool st_numeric_decimal(Numeric num, bool *neg, int *n, int *e);

/*
 * num's text: written into buf when it fits (st_numeric_text), else
 * numeric_out's, palloc'd (the caller pfrees it when it is not buf); its
 * length in *len.
 */
extern char *st_numeric_print(Numeric num, char buf[ST_NUMTEXT_BUFSIZE], int *len);

#endif
