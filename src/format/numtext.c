/*
 * numtext.c — a stored number's text, as numeric_out prints it, without its
 * call.
 *
 * Every N of a response (an item's numbers, the members of an NS) is a
 * stored numeric turned into its decimal text. numeric_out does that
 * through the fmgr, an intermediate NumericVar and a palloc'd result that
 * the caller then copies and frees: for a page of 30 items with two numbers
 * each that was about 15,000 instructions of a Query's conversion, most of
 * it around the few digits themselves.
 *
 * Design notes: the section on numtext.c in README.md of this folder.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "format/numtext.h"

#define NT_SIGN_MASK		0xC000
#define NT_NEG				0x4000
#define NT_SHORT			0x8000
#define NT_SPECIAL			0xC000
#define NT_SHORT_SIGN		0x2000
#define NT_SHORT_DSCALE		0x1F80
#define NT_SHORT_DSCALE_SHIFT 7
#define NT_SHORT_WEIGHT_SIGN 0x0040
#define NT_SHORT_WEIGHT		0x003F
#define NT_LONG_DSCALE		0x3FFF
#define NT_DEC_DIGITS		4

/* The four decimal digits of a base-10000 digit; leading ones suppressed if lead */
static inline char *
put_digit(char *cp, int dig, bool lead)
{
	int			d1;
	bool		putit = !lead;

	d1 = dig / 1000;
	dig -= d1 * 1000;
	putit |= (d1 > 0);
	if (putit)
		*cp++ = (char) (d1 + '0');
	d1 = dig / 100;
	dig -= d1 * 100;
	putit |= (d1 > 0);
	if (putit)
		*cp++ = (char) (d1 + '0');
	d1 = dig / 10;
	dig -= d1 * 10;
	putit |= (d1 > 0);
	if (putit)
		*cp++ = (char) (d1 + '0');
	*cp++ = (char) (dig + '0');
	return cp;
}

/* A numeric's fields, read from its on-disk header (numeric.c's layout) */
typedef struct NtFields
{
	bool		neg;
	int			weight;			/* of the first base-10000 digit */
	int			dscale;			/* decimal digits after the point */
	const char *digits;			/* int16 base-10000 digits, unaligned */
	int			ndigits;
} NtFields;

/* Reads num's fields; false for NaN and the infinities, or a header too short */
static bool
nt_fields(Numeric num, NtFields *f)
{
	const char *p = VARDATA_ANY(num);
	int			len = VARSIZE_ANY_EXHDR(num);
	uint16		header;

	if (len < (int) sizeof(uint16))
		return false;
	memcpy(&header, p, sizeof(uint16));
	if ((header & NT_SIGN_MASK) == NT_SPECIAL)
		return false;
	if ((header & NT_SIGN_MASK) == NT_SHORT)
	{
		f->neg = (header & NT_SHORT_SIGN) != 0;
		f->dscale = (header & NT_SHORT_DSCALE) >> NT_SHORT_DSCALE_SHIFT;
		f->weight = (int) (header & NT_SHORT_WEIGHT);
		if (header & NT_SHORT_WEIGHT_SIGN)
			f->weight -= NT_SHORT_WEIGHT + 1;
		f->digits = p + sizeof(uint16);
		f->ndigits = (len - (int) sizeof(uint16)) / (int) sizeof(int16);
	}
	else
	{
		int16		w;

		if (len < (int) (sizeof(uint16) + sizeof(int16)))
			return false;
		f->neg = (header & NT_SIGN_MASK) == NT_NEG;
		f->dscale = header & NT_LONG_DSCALE;
		memcpy(&w, p + sizeof(uint16), sizeof(int16));
		f->weight = w;
		f->digits = p + sizeof(uint16) + sizeof(int16);
		f->ndigits = (len - (int) (sizeof(uint16) + sizeof(int16))) / (int) sizeof(int16);
	}
	return true;
}

bool
st_numeric_decimal(Numeric num, bool *neg, int *n, int *e)
{
	NtFields	f;
	const char *digits;
	int			weight;
	int			first = 0;
	int			last;
	int16		dig;
	int			lead;
	int			trail;

	if (!nt_fields(num, &f))
		return false;
	*neg = f.neg;
	digits = f.digits;
	weight = f.weight;
	/* numeric strips zero groups at both ends; skipped here all the same */
	last = f.ndigits - 1;
	while (first <= last)
	{
		memcpy(&dig, digits + first * sizeof(int16), sizeof(int16));
		if (dig != 0)
			break;
		first++;
	}
	if (first > last)
	{
		/* zero: numeric_out prints it unsigned */
		*neg = false;
		*n = 0;
		*e = 0;
		return true;
	}
	/* the first group's decimal digits */
	lead = dig >= 1000 ? 4 : dig >= 100 ? 3 : dig >= 10 ? 2 : 1;
	for (;;)
	{
		memcpy(&dig, digits + last * sizeof(int16), sizeof(int16));
		if (dig != 0)
			break;
		last--;
	}
	/* the last group's trailing zeros */
	for (trail = 0; dig % 10 == 0; trail++)
		dig /= 10;
	*e = NT_DEC_DIGITS * (weight - first) + lead - 1;
	*n = *e - (NT_DEC_DIGITS * (weight - last) + trail) + 1;
	return true;
}

int
st_numeric_text(Numeric num, char *out, int size)
{
	NtFields	f;
	const char *digits;
	int			ndigits;
	int			weight;
	int			dscale;
	bool		neg;
	char	   *cp = out;
	int			d;

	if (!nt_fields(num, &f))
		return -1;
	neg = f.neg;
	digits = f.digits;
	ndigits = f.ndigits;
	weight = f.weight;
	dscale = f.dscale;

	/* sign, integer digits (at least one), point, fraction digits rounded up to a group, NUL */
	if (1 + (weight >= 0 ? (weight + 1) * NT_DEC_DIGITS : 1) + 1 + dscale + NT_DEC_DIGITS + 1 > size)
		return -1;

	if (neg)
		*cp++ = '-';
	if (weight < 0)
	{
		d = weight + 1;
		*cp++ = '0';
	}
	else
	{
		for (d = 0; d <= weight; d++)
		{
			int16		dig = 0;

			if (d < ndigits)
				memcpy(&dig, digits + d * sizeof(int16), sizeof(int16));
			cp = put_digit(cp, dig, d == 0);
		}
	}
	if (dscale > 0)
	{
		char	   *endcp;

		*cp++ = '.';
		endcp = cp + dscale;
		for (int i = 0; i < dscale; d++, i += NT_DEC_DIGITS)
		{
			int16		dig = 0;

			if (d >= 0 && d < ndigits)
				memcpy(&dig, digits + d * sizeof(int16), sizeof(int16));
			cp = put_digit(cp, dig, false);
		}
		cp = endcp;
	}
	*cp = '\0';
	return (int) (cp - out);
}

char *
st_numeric_print(Numeric num, char buf[ST_NUMTEXT_BUFSIZE], int *len)
{
	char	   *s;

	*len = st_numeric_text(num, buf, ST_NUMTEXT_BUFSIZE);
	if (*len >= 0)
		return buf;
	s = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(num)));
	*len = strlen(s);
	return s;
}
