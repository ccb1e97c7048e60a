/*
 * number.c — DynamoDB numbers: parsing, canonical form, size, exact
 * comparison and addition.
 *
 * A number is kept as its canonical decimal text (no exponent, no leading
 * or trailing zeros, "-0" is "0"). For arithmetic it is decomposed into
 * sign, significant digits and the decimal exponent of the first digit.
 * Limits: 38 significant digits, magnitude 1E-130 .. 9.99..E+125.
 */
#include "st_base.h"

#include "lib/stringinfo.h"

#include "expr.h"

/* A decomposed number: value = 0.d1d2..dn * 10^(e+1), i.e. d1 is at 10^e */
typedef struct Dec
{
	bool		neg;
	int			n;				/* significant digits; 0 means zero */
	int			e;
	char		d[ST_NUMBER_MAX_DIGITS + 1];
} Dec;

/* DynamoDB's text for each parse error */
const char *
st_number_error_text(StNumberError e)
{
	switch (e)
	{
		case ST_NUM_OK:
			return "";
		case ST_NUM_SYNTAX:
			return "The parameter cannot be converted to a numeric value";
		case ST_NUM_PRECISION:
			return "Attempting to store more than 38 significant digits in a Number";
		case ST_NUM_OVERFLOW:
			return "Number overflow. Attempting to store a number with magnitude larger than supported range";
		case ST_NUM_UNDERFLOW:
			return "Number underflow. Attempting to store a number with magnitude smaller than supported range";
	}
	return "";
}

/* Whether d is within DynamoDB's precision and range. */
static StNumberError
dec_check(const Dec *d)
{
	if (d->n == 0)
		return ST_NUM_OK;
	if (d->n > ST_NUMBER_MAX_DIGITS)
		return ST_NUM_PRECISION;
	if (d->e > 125)
		return ST_NUM_OVERFLOW;
	if (d->e < -130)
		return ST_NUM_UNDERFLOW;
	return ST_NUM_OK;
}

/*
 * DynamoDB's size of d: base-100 digit pairs aligned on the point, an
 * exponent byte, a sign byte for negatives; zero is 1 byte.
 */
static int
dec_size(const Dec *d)
{
	if (d->n == 0)
		return 1;
	return 1 + (d->n + 1) / 2 + ((d->n % 2 == 0 && (d->e & 1) == 0) ? 1 : 0) + (d->neg ? 1 : 0);
}

/* Checks range and writes the canonical text and size of d. */
static StNumberError
dec_format(const Dec *d, StNumber *out)
{
	StringInfoData buf;
	StNumberError err = dec_check(d);

	if (err != ST_NUM_OK)
		return err;
	initStringInfo(&buf);
	out->size = dec_size(d);
	if (d->n == 0)
	{
		appendStringInfoChar(&buf, '0');
		out->canonical = buf.data;
		return ST_NUM_OK;
	}

	if (d->neg)
		appendStringInfoChar(&buf, '-');
	if (d->e >= d->n - 1)
	{
		appendBinaryStringInfo(&buf, d->d, d->n);
		for (int z = 0; z < d->e - (d->n - 1); z++)
			appendStringInfoChar(&buf, '0');
	}
	else if (d->e >= 0)
	{
		appendBinaryStringInfo(&buf, d->d, d->e + 1);
		appendStringInfoChar(&buf, '.');
		appendBinaryStringInfo(&buf, d->d + d->e + 1, d->n - (d->e + 1));
	}
	else
	{
		appendStringInfoString(&buf, "0.");
		for (int z = 0; z < -d->e - 1; z++)
			appendStringInfoChar(&buf, '0');
		appendBinaryStringInfo(&buf, d->d, d->n);
	}
	out->canonical = buf.data;
	return ST_NUM_OK;
}

/*
 * Decomposes text in DynamoDB's syntax, [+-]? (digits[.digits?] | .digits)
 * ([eE][+-]?digits)?, into d. Digits beyond 38 significant ones make it fail
 * with ST_NUM_PRECISION.
 */
static StNumberError
dec_parse(const char *str, int len, Dec *d)
{
	int			i = 0;
	bool		any_digit = false;
	bool		seen_sig = false;
	int			intlen = 0;		/* significant-or-later digits before the point */
	int			lead_frac_zeros = 0;
	int			pending_zeros = 0;
	bool		too_many = false;
	long		exp = 0;

	memset(d, 0, sizeof(*d));
	if (len == 0)
		return ST_NUM_SYNTAX;
	if (str[i] == '+' || str[i] == '-')
		d->neg = (str[i++] == '-');

	for (int part = 0; part < 2; part++)
	{
		if (part == 1)
		{
			if (i < len && str[i] == '.')
				i++;
			else
				break;
		}
		for (; i < len && str[i] >= '0' && str[i] <= '9'; i++)
		{
			any_digit = true;
			if (!seen_sig && str[i] == '0')
			{
				if (part == 1)
					lead_frac_zeros++;
				continue;
			}
			seen_sig = true;
			if (part == 0)
				intlen++;
			if (str[i] == '0')
				pending_zeros++;
			else
			{
				/* zeros followed by a nonzero digit are significant */
				while (pending_zeros > 0)
				{
					if (d->n < ST_NUMBER_MAX_DIGITS)
						d->d[d->n++] = '0';
					else
						too_many = true;
					pending_zeros--;
				}
				if (d->n < ST_NUMBER_MAX_DIGITS)
					d->d[d->n++] = str[i];
				else
					too_many = true;
			}
		}
	}
	if (!any_digit)
		return ST_NUM_SYNTAX;
	if (i < len && (str[i] == 'e' || str[i] == 'E'))
	{
		bool		eneg = false;
		bool		edig = false;

		i++;
		if (i < len && (str[i] == '+' || str[i] == '-'))
			eneg = (str[i++] == '-');
		for (; i < len && str[i] >= '0' && str[i] <= '9'; i++)
		{
			edig = true;
			if (exp < 100000000)
				exp = exp * 10 + (str[i] - '0');
		}
		if (!edig)
			return ST_NUM_SYNTAX;
		if (eneg)
			exp = -exp;
	}
	if (i != len)
		return ST_NUM_SYNTAX;
	if (too_many)
		return ST_NUM_PRECISION;
	if (d->n == 0)
	{
		d->neg = false;
		return ST_NUM_OK;
	}
	d->e = (int) ((intlen > 0 ? intlen - 1 : -(lead_frac_zeros + 1)) + exp);
	return ST_NUM_OK;
}

/* Parses a number in DynamoDB's syntax into its canonical form and size. */
StNumberError
st_number_parse(const char *str, int len, StNumber *out)
{
	Dec			d;
	StNumberError err = dec_parse(str, len, &d);

	if (err != ST_NUM_OK)
		return err;
	return dec_format(&d, out);
}

/*
 * DynamoDB's size of a number in DynamoDB's syntax: the size st_number_parse
 * gives, and the same errors, without building the canonical text (no
 * allocation). For sizing many stored numbers (src/size.c).
 */
StNumberError
st_number_size(const char *str, int len, int *size)
{
	Dec			d;
	StNumberError err = dec_parse(str, len, &d);

	if (err == ST_NUM_OK)
		err = dec_check(&d);
	if (err == ST_NUM_OK)
		*size = dec_size(&d);
	return err;
}

/*
 * st_number_size of a number already decomposed: neg, n significant digits
 * (0 for zero), the first at 10^e (a stored numeric's digits, numtext.c).
 */
StNumberError
st_number_size_decomposed(bool neg, int n, int e, int *size)
{
	Dec			d;
	StNumberError err;

	d.neg = neg;
	d.n = n;
	d.e = e;
	err = dec_check(&d);
	if (err == ST_NUM_OK)
		*size = dec_size(&d);
	return err;
}

/* Compares two numbers in DynamoDB syntax (normally canonical) by value. */
int
st_number_compare(const char *a, int alen, const char *b, int blen)
{
	Dec			x,
				y;
	int			sign;

	if (dec_parse(a, alen, &x) != ST_NUM_OK || dec_parse(b, blen, &y) != ST_NUM_OK)
		return (alen > blen) - (alen < blen);	/* not reached for stored numbers */
	if (x.n == 0 && y.n == 0)
		return 0;
	if (x.n == 0)
		return y.neg ? 1 : -1;
	if (y.n == 0)
		return x.neg ? -1 : 1;
	if (x.neg != y.neg)
		return x.neg ? -1 : 1;
	sign = x.neg ? -1 : 1;
	if (x.e != y.e)
		return (x.e > y.e ? 1 : -1) * sign;
	for (int i = 0; i < Max(x.n, y.n); i++)
	{
		char		cx = i < x.n ? x.d[i] : '0';
		char		cy = i < y.n ? y.d[i] : '0';

		if (cx != cy)
			return (cx > cy ? 1 : -1) * sign;
	}
	return 0;
}

/*
 * Exact a + b (or a - b). Works on digit arrays aligned on the exponent of
 * the last digit; a result needing more than 38 significant digits is an
 * error, as in DynamoDB (which reports it as an overflow).
 */
StNumberError
st_number_add(const char *a, int alen, const char *b, int blen, bool subtract,
			  StNumber *out)
{
	Dec			x,
				y,
				r;
	StNumberError err;
	int			lo,
				hi,
				width;
	int		   *ax,
			   *ay,
			   *ar;
	int			cmp;

	if ((err = dec_parse(a, alen, &x)) != ST_NUM_OK)
		return err;
	if ((err = dec_parse(b, blen, &y)) != ST_NUM_OK)
		return err;
	if (subtract)
		y.neg = !y.neg;
	if (x.n == 0)
		return dec_format(&y, out);
	if (y.n == 0)
		return dec_format(&x, out);

	/* positions are powers of ten: x covers [x.e - x.n + 1, x.e] */
	lo = Min(x.e - x.n + 1, y.e - y.n + 1);
	hi = Max(x.e, y.e) + 1;		/* room for a carry */
	width = hi - lo + 1;
	ax = palloc0(sizeof(int) * width);
	ay = palloc0(sizeof(int) * width);
	ar = palloc0(sizeof(int) * width);
	for (int i = 0; i < x.n; i++)
		ax[x.e - i - lo] = x.d[i] - '0';
	for (int i = 0; i < y.n; i++)
		ay[y.e - i - lo] = y.d[i] - '0';

	memset(&r, 0, sizeof(r));
	if (x.neg == y.neg)
	{
		int			carry = 0;

		for (int p = 0; p < width; p++)
		{
			int			s = ax[p] + ay[p] + carry;

			ar[p] = s % 10;
			carry = s / 10;
		}
		r.neg = x.neg;
	}
	else
	{
		int		   *big,
				   *small;
		int			borrow = 0;

		/* compare magnitudes */
		cmp = 0;
		for (int p = width - 1; p >= 0 && cmp == 0; p--)
			if (ax[p] != ay[p])
				cmp = ax[p] > ay[p] ? 1 : -1;
		if (cmp == 0)
		{
			r.n = 0;
			return dec_format(&r, out);
		}
		big = cmp > 0 ? ax : ay;
		small = cmp > 0 ? ay : ax;
		r.neg = cmp > 0 ? x.neg : y.neg;
		for (int p = 0; p < width; p++)
		{
			int			s = big[p] - small[p] - borrow;

			borrow = s < 0;
			ar[p] = s < 0 ? s + 10 : s;
		}
	}

	/* strip zeros at both ends; count significant digits */
	{
		int			top = width - 1,
					bot = 0;

		while (top >= 0 && ar[top] == 0)
			top--;
		while (bot <= top && ar[bot] == 0)
			bot++;
		if (top < 0)
		{
			r.n = 0;
			return dec_format(&r, out);
		}
		if (top - bot + 1 > ST_NUMBER_MAX_DIGITS)
			return ST_NUM_OVERFLOW;
		r.e = top + lo;
		for (int p = top; p >= bot; p--)
			r.d[r.n++] = '0' + ar[p];
	}
	return dec_format(&r, out);
}
