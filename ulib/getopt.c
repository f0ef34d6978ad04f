/*
 * getopt (POSIX) and getopt_long (GNU). Options end at the first
 * non-option argument or at "--" (POSIX order: arguments are not
 * permuted, as GNU does unless POSIXLY_CORRECT). A leading ':' in opts
 * makes a missing argument return ':' and silences messages; a leading
 * '+' is accepted (it asks for this order anyway), '-' is not supported.
 * Messages go to stderr, in glibc's words. Setting optind = 0 or 1
 * restarts the scan.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

char *optarg;
int optind = 1, opterr = 1, optopt;
static int pos;          /* within argv[optind]: the next option letter */

static int scan(int argc, char *const argv[], const char *opts,
		const struct option *lo, int *index, int long_only)
{
	if (optind == 0)
		optind = 1, pos = 0;
	if (*opts == '+' || *opts == '-')
		opts++;
	int quiet = *opts == ':';
	optarg = 0;
	if (!pos) {
		if (optind >= argc || !argv[optind] || argv[optind][0] != '-' || !argv[optind][1])
			return -1;
		if (!strcmp(argv[optind], "--")) {
			optind++;
			return -1;
		}
		if (lo && (argv[optind][1] == '-' || long_only)) {
			const char *name = argv[optind] + 1 + (argv[optind][1] == '-');
			size_t len = strcspn(name, "=");
			const struct option *hit = 0;
			int n = 0;
			for (const struct option *o = lo; o->name; o++)
				if (!strncmp(o->name, name, len)) {
					if (strlen(o->name) == len) {   /* exact: wins */
						hit = o, n = 1;
						break;
					}
					hit = o, n++;
				}
			if (n == 1) {
				optind++;
				if (index)
					*index = (int)(hit - lo);
				if (name[len] == '=') {
					if (hit->has_arg == no_argument) {
						if (opterr && !quiet)
							fprintf(stderr, "%s: option '--%s' doesn't allow an argument\n",
								argv[0], hit->name);
						optopt = hit->val;
						return '?';
					}
					optarg = (char *)name + len + 1;
				} else if (hit->has_arg == required_argument) {
					if (optind >= argc) {
						if (opterr && !quiet)
							fprintf(stderr, "%s: option '--%s' requires an argument\n",
								argv[0], hit->name);
						optopt = hit->val;
						return quiet ? ':' : '?';
					}
					optarg = argv[optind++];
				}
				if (hit->flag) {
					*hit->flag = hit->val;
					return 0;
				}
				return hit->val;
			}
			if (argv[optind][1] == '-' || !strchr(opts, name[0])) {
				if (opterr && !quiet)
					fprintf(stderr, n ? "%s: option '%s' is ambiguous\n"
						  : "%s: unrecognized option '%s'\n", argv[0], argv[optind]);
				optind++;
				optopt = 0;
				return '?';
			}
			/* -x under getopt_long_only with no long match: a short option */
		}
		pos = 1;
	}
	const char *arg = argv[optind];
	int c = (unsigned char)arg[pos++];
	const char *spec = c == ':' ? 0 : strchr(opts, c);
	if (!arg[pos])
		optind++, pos = 0;
	if (!spec) {
		optopt = c;
		if (opterr && !quiet)
			fprintf(stderr, "%s: invalid option -- '%c'\n", argv[0], c);
		return '?';
	}
	if (spec[1] == ':') {
		if (pos) {                    /* the rest of this word: -ofile */
			optarg = (char *)arg + pos;
			optind++, pos = 0;
		} else if (spec[2] == ':') {  /* optional: only when attached */
			optarg = 0;
		} else if (optind < argc) {   /* the next word: -o file */
			optarg = argv[optind++];
		} else {
			optopt = c;
			if (opterr && !quiet)
				fprintf(stderr, "%s: option requires an argument -- '%c'\n", argv[0], c);
			return quiet ? ':' : '?';
		}
	}
	return c;
}

int getopt(int argc, char *const argv[], const char *opts)
{
	return scan(argc, argv, opts, 0, 0, 0);
}

int getopt_long(int argc, char *const argv[], const char *opts,
		const struct option *lo, int *index)
{
	return scan(argc, argv, opts, lo, index, 0);
}

int getopt_long_only(int argc, char *const argv[], const char *opts,
		     const struct option *lo, int *index)
{
	return scan(argc, argv, opts, lo, index, 1);
}
