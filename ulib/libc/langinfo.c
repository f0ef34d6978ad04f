/*
 * nl_langinfo: the C locale's strings, exactly glibc 2.36's (an unknown
 * item gives "", as glibc). The one copy of the day and month names,
 * AM/PM and the date and time formats: strftime and strptime read them
 * here.
 */
#include <langinfo.h>

static const char *const c_locale[] = {
	[CODESET] = "ANSI_X3.4-1968",           /* glibc's name of ASCII */
	[D_T_FMT] = "%a %b %e %H:%M:%S %Y",
	[D_FMT] = "%m/%d/%y",
	[T_FMT] = "%H:%M:%S",
	[T_FMT_AMPM] = "%I:%M:%S %p",
	[AM_STR] = "AM",
	[PM_STR] = "PM",
	[DAY_1] = "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
	[ABDAY_1] = "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat",
	[MON_1] = "January", "February", "March", "April", "May", "June", "July", "August",
	"September", "October", "November", "December",
	[ABMON_1] = "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
	"Dec",
	[RADIXCHAR] = ".",
	[YESEXPR] = "^[yY]",
	[NOEXPR] = "^[nN]",
	[CRNCYSTR] = "-",                       /* no currency symbol */
};

char *nl_langinfo(nl_item item)
{
	/* The items left out above (ERA ..., THOUSEP) are "" too. Callers
	   must not write the string (POSIX), so the cast is safe. */
	if (item < 0 || item >= (nl_item)(sizeof c_locale / sizeof *c_locale) || !c_locale[item])
		return (char *)"";
	return (char *)c_locale[item];
}

char *nl_langinfo_l(nl_item item, locale_t locale)
{
	(void)locale;                           /* every locale is "C" */
	return nl_langinfo(item);
}
