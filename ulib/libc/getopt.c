/*
 * getopt (POSIX) and getopt_long (GNU), in glibc's default order: options
 * may follow operands (prog in -v out), and argv is permuted as the scan
 * goes so that when it ends the options come first and optind names the
 * first operand. A leading '+' in opts, or POSIXLY_CORRECT in the
 * environment, asks for POSIX's order instead: options end at the first
 * operand. "--" ends options either way. A leading ':' makes a missing
 * argument return ':' and silences messages; a leading '-' (operands
 * returned as option 1) is not supported and means the default order.
 * Messages go to stderr, in glibc's words. Setting optind = 0 or 1
 * restarts the scan.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *optarg;
int optind = 1, opterr = 1, optopt;
static int pos;          /* within argv[optind]: the next option letter */
/* The operands skipped so far, argv[first_nonopt .. last_nonopt): moved
   behind the options found after them (exchange). */
static int first_nonopt = 1, last_nonopt = 1;

static int nonopt(const char *a)
{
	return a[0] != '-' || !a[1];
}

static void reverse(char **v, int a, int b)
{
	for (b--; a < b; a++, b--) {
		char *t = v[a];
		v[a] = v[b];
		v[b] = t;
	}
}

/* The skipped operands, then the options after them up to optind: swap
   the two blocks (three reversals, in place), as glibc's exchange does. */
static void exchange(char **v)
{
	reverse(v, first_nonopt, last_nonopt);
	reverse(v, last_nonopt, optind);
	reverse(v, first_nonopt, optind);
	first_nonopt += optind - last_nonopt;
	last_nonopt = optind;
}

/* At the start of a new word in the default order: move the operands
   skipped before to behind the options since, skip the next operands.
   1: the scan is over (optind at the first operand), else 0. */
static int permute(int argc, char **argv)
{
	if (last_nonopt > optind)
		last_nonopt = optind;
	if (first_nonopt > optind)
		first_nonopt = optind;
	if (first_nonopt != last_nonopt && last_nonopt != optind)
		exchange(argv);
	else if (last_nonopt != optind)
		first_nonopt = optind;
	while (optind < argc && argv[optind] && nonopt(argv[optind]))
		optind++;
	last_nonopt = optind;
	if (optind < argc && !strcmp(argv[optind], "--")) {
		optind++;
		if (first_nonopt != last_nonopt && last_nonopt != optind)
			exchange(argv);
		else if (first_nonopt == last_nonopt)
			first_nonopt = optind;
		last_nonopt = argc;
		optind = argc;
	}
	if (optind >= argc || !argv[optind]) {
		if (first_nonopt != last_nonopt)
			optind = first_nonopt;
		return 1;
	}
	return 0;
}

static int scan(int argc, char *const argv[], const char *opts,
		const struct option *lo, int *index, int long_only)
{
	if (optind == 0)
		optind = 1, pos = 0, first_nonopt = last_nonopt = 1;
	int in_order = *opts == '+' || getenv("POSIXLY_CORRECT");
	if (*opts == '+' || *opts == '-')
		opts++;
	int quiet = *opts == ':';
	optarg = 0;
	if (!pos) {
		if (!in_order && permute(argc, (char **)argv))
			return -1;
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
