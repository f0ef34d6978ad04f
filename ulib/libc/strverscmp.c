/*
 * strverscmp (GNU): strings compared as strcmp does, except that digit
 * runs compare as numbers: "9" < "10". A run starting with '0' is a
 * fraction, compared digit by digit, and while it is all zeros the one
 * that has more digits there is the smaller: "000" < "00" < "01" <
 * "010" < "09" < "0" < "1" < "9" < "10" (glibc's documented order).
 * Weak, as the other GNU string extensions (strext.c).
 */
#include <string.h>
#include <ctype.h>

static size_t run(const char *s)
{
	size_t n = 0;
	while (isdigit((unsigned char)s[n]))
		n++;
	return n;
}

__attribute__((weak)) int strverscmp(const char *a, const char *b)
{
	size_t i = 0;
	while (a[i] == b[i] && a[i])
		i++;
	int lex = (unsigned char)a[i] - (unsigned char)b[i];
	if (!lex)
		return 0;
	size_t s = i;
	while (s > 0 && isdigit((unsigned char)a[s - 1]))
		s--;                                 /* the digit run both share so far */
	int da = isdigit((unsigned char)a[i]) != 0, db = isdigit((unsigned char)b[i]) != 0;
	if (s < i && a[s] == '0') {              /* a fraction */
		for (size_t k = s; k < i; k++)
			if (a[k] != '0')
				return lex;
		return da != db ? db - da : lex;     /* zeros only: more digits, smaller */
	}
	if ((s == i && (!da || !db || a[i] == '0' || b[i] == '0')) || (s < i && (!da && !db)))
		return lex;
	size_t la = run(a + i), lb = run(b + i);    /* an integer: the longer is larger */
	return la != lb ? (la < lb ? -1 : 1) : lex;
}
