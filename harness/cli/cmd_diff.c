/* SPDX-License-Identifier: MIT */
/* rocetest diff: what two endpoints did differently for the same work, message by message. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rocetest/capture.h"
#include "rocetest/diff.h"
#include "rocetest/diff_report.h"

static const char diff_help[] =
	"usage: rocetest diff [--profile NAME|FILE] [--payload] [--map A_QPN=B_QPN]... [--json F] [--html F] [--examples N] [--quiet] A B\n"
	"       rocetest diff --list-fields\n"
	"\n"
	"Compares two captures of the same work (a device under test against a\n"
	"reference NIC) by what the endpoints did, not by their bytes. Each capture is\n"
	"read by the conformance checker, which finds its connections; connections of A\n"
	"are paired with those of B that carry the same messages (or by --map), their\n"
	"messages aligned (a message one capture lacks shifts nothing else) and compared\n"
	"field by field. QPNs, PSNs (made relative to each direction's first), RETH\n"
	"addresses (relative to the first), R_Keys, UDP source ports, IP IDs, TTL, MACs,\n"
	"IPs and timestamps always differ and are not compared. Every other difference\n"
	"is semantic (operation, length, segmentation, immediate data, PadCnt, SE,\n"
	"addresses, NAK and RNR NAK events, READ responses, payload with --payload),\n"
	"behaviour (AckReq policy, ACK coalescing, retransmissions, ACK timing) or\n"
	"cosmetic (TOS, MigReq, UDP source-port policy, ACK credits), as the profile says.\n"
	"Each capture is read twice (pairing, then alignment as messages come), so\n"
	"memory does not grow with the captures; standard input is kept in a\n"
	"temporary file for the second reading.\n"
	"\n"
	"  --profile P      connectx (default: the reference is a ConnectX NIC), rxe\n"
	"                   (soft-RoCE: its fixed ACK credits, QPN-derived source ports\n"
	"                   and software timing ignored), strict (every difference\n"
	"                   semantic), or a file of lines FIELD CLASS, optionally after\n"
	"                   a first line 'profile NAME' (see --list-fields)\n"
	"  --payload        compare payload bytes too (READ responses, atomic values)\n"
	"  --map A=B        pair the connection holding QP A in capture A with the one\n"
	"                   holding QP B in capture B (decimal or 0x hex; repeatable)\n"
	"  --json F         every difference as JSON (\"-\": standard output)\n"
	"  --html F         the two ladder diagrams side by side, differing rows marked\n"
	"  --examples N     differences listed per field and direction (default 3)\n"
	"  --list-fields    the fields compared and their class in each profile\n"
	"  -q, --quiet      print only the verdict line\n"
	"  -h, --help       this text\n"
	"\n"
	"Exit status: 0 no semantic difference; 1 a semantic difference; 2 usage error\n"
	"or a capture that cannot be read.\n";

struct diff_opts {
	struct rt_diff_options o;
	const char *json, *html;
	unsigned examples;
	bool quiet;
};

/* "0x11=0x22" or "17=34". */
static bool parse_map(const char *s, struct rt_diff_options *o)
{
	char *end;
	if (o->n_map >= RT_DIFF_MAX_MAP)
		return false;
	unsigned long a = strtoul(s, &end, 0);
	if (end == s || *end != '=' || a > 0xFFFFFF)
		return false;
	const char *b_str = end + 1;
	unsigned long b = strtoul(b_str, &end, 0);
	if (end == b_str || *end || b > 0xFFFFFF)
		return false;
	o->map[o->n_map].qp_a = (uint32_t)a;
	o->map[o->n_map++].qp_b = (uint32_t)b;
	return true;
}

static int set_profile(struct rt_diff_options *o, const char *arg)
{
	struct rt_error err;
	if (!rt_diff_profile_builtin(&o->profile, arg))
		return 0;
	if (!strchr(arg, '/') && !strchr(arg, '.'))
		return cli_usage_error("diff", "no profile '%s' (connectx, rxe, strict, or a file)", arg);
	if (rt_diff_profile_load(&o->profile, arg, &err)) {
		cli_error("%s", err.msg);
		return RT_EXIT_INPUT;
	}
	return 0;
}

static void list_fields(void)
{
	static const char *const names[] = { "connectx", "rxe", "strict" };
	struct rt_diff_profile p[3];
	for (int k = 0; k < 3; k++)
		rt_diff_profile_builtin(&p[k], names[k]);
	printf("%-16s %-10s %-10s %-10s\n", "field", names[0], names[1], names[2]);
	for (int f = 0; f < RT_DIFF_FIELDS; f++)
		printf("%-16s %-10s %-10s %-10s\n", rt_diff_field_name((enum rt_diff_field)f), rt_diff_class_name(p[0].cls[f]),
		       rt_diff_class_name(p[1].cls[f]), rt_diff_class_name(p[2].cls[f]));
}

/* 0 to go on, -1 after --help or --list-fields (exit 0), else the exit status of a usage error. */
static int parse_args(int argc, char **argv, struct diff_opts *o)
{
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, 'p' }, { "payload", no_argument, NULL, 'P' },
		{ "map", required_argument, NULL, 'm' },     { "json", required_argument, NULL, 'j' },
		{ "html", required_argument, NULL, 'H' },    { "examples", required_argument, NULL, 'e' },
		{ "list-fields", no_argument, NULL, 'l' },   { "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },	     { NULL, 0, NULL, 0 },
	};
	int c, rc;
	uint64_t v;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': if ((rc = set_profile(&o->o, optarg))) return rc; break;
		case 'P': o->o.payload = true; break;
		case 'm':
			if (!parse_map(optarg, &o->o))
				return cli_usage_error("diff", "--map needs A_QPN=B_QPN (at most %d), not '%s'", RT_DIFF_MAX_MAP,
						       optarg);
			break;
		case 'j': o->json = optarg; break;
		case 'H': o->html = optarg; break;
		case 'e':
			if (!cli_parse_uint(optarg, 100000, &v))
				return cli_usage_error("diff", "--examples needs a whole number, not '%s'", optarg);
			o->examples = (unsigned)v;
			break;
		case 'l': list_fields(); return -1;
		case 'q': o->quiet = true; break;
		case 'h': fputs(diff_help, stdout); return -1;
		case ':': return cli_usage_error("diff", "option '%s' needs a value", argv[optind - 1]);
		default: return cli_usage_error("diff", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return cli_usage_error("diff", "expected two captures A and B, got %d", argc - optind);
	return 0;
}

/* One capture as the diff reads it: twice, so standard input is kept in a temporary file. */
struct source {
	const char *path;
	FILE *spool;			/* standard input, copied */
	struct rt_capture *cap;
	enum rt_link link;
	bool at_end;
	struct cli_progress progress;
};

/* Standard input into an unnamed temporary file; -1 after saying why. */
static int spool_stdin(struct source *s)
{
	char buf[65536];
	size_t n;
	if (!(s->spool = tmpfile())) {
		cli_error("standard input: cannot make a temporary copy: %s", strerror(errno));
		return -1;
	}
	while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)
		if (fwrite(buf, 1, n, s->spool) != n)
			break;
	if (ferror(stdin) || ferror(s->spool) || fflush(s->spool)) {
		cli_error("standard input: cannot make a temporary copy: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* (Re)opens a source at its first frame; -1 after saying why. */
static int source_open(struct source *s)
{
	struct rt_error err;
	rt_capture_close(s->cap);
	s->cap = NULL;
	if (s->spool) {
		int fd = dup(fileno(s->spool));
		FILE *f = fd >= 0 && lseek(fd, 0, SEEK_SET) == 0 ? fdopen(fd, "rb") : NULL;
		if (!f && fd >= 0)
			close(fd);
		s->cap = f ? rt_capture_fopen(f, "standard input", &err) : NULL;
		if (!f)
			rt_error_set(&err, "standard input: cannot read its copy again: %s", strerror(errno));
	} else {
		s->cap = rt_capture_open(s->path, &err);
	}
	if (!s->cap) {
		cli_error("%s", err.msg);
		return -1;
	}
	s->link = rt_capture_link(s->cap);
	s->at_end = false;
	cli_progress_start(&s->progress, s->path);
	return 0;
}

/* Gives the diff the next frame of capture k, or its end; -1 after saying why (the file, the frame). */
static int feed(struct rt_diff *d, struct source *s, int k)
{
	struct rt_error err;
	struct rt_frame fr;
	if (s->at_end && source_open(s))
		return -1;
	int rc = rt_capture_next(s->cap, &fr, &err);
	if (rc == 1) {
		if (s->progress.enabled)
			cli_progress_update(&s->progress, rt_capture_offset(s->cap), rt_capture_size(s->cap), fr.number);
		rt_diff_frame(d, k, s->link, fr.number, fr.ts_ns, fr.data, fr.caplen, fr.wirelen);
		return 0;
	}
	cli_progress_finish(&s->progress);
	if (rc < 0) {
		/* Half a capture would show messages as missing that were only not read. */
		cli_error("%s (the diff needs both captures whole)", err.msg);
		return -1;
	}
	s->at_end = true;
	if (rt_diff_end(d, k, &err)) {
		cli_error("%s", err.msg);
		return -1;
	}
	return 0;
}

/* Both captures, twice, in the order the diff asks for; 0, or -1 after saying why. */
static int read_captures(struct rt_diff *d, const struct rt_diff_names *names)
{
	struct source src[2] = { { .path = names->a }, { .path = names->b } };
	int rc = 0, k;
	for (k = 0; k < 2 && !rc; k++)
		rc = (!strcmp(src[k].path, "-") && spool_stdin(&src[k])) || source_open(&src[k]) ? -1 : 0;
	while (!rc && (k = rt_diff_wants(d)) >= 0)
		rc = feed(d, &src[k], k);
	for (k = 0; k < 2; k++) {
		cli_progress_finish(&src[k].progress);
		rt_capture_close(src[k].cap);
		if (src[k].spool)
			fclose(src[k].spool);
	}
	return rc;
}

struct report_ctx {
	const struct rt_diff *d;
	const struct rt_diff_names *names;
};

static int write_json(const void *ctx, FILE *out)
{
	const struct report_ctx *r = ctx;
	return rt_diff_report_json(r->d, r->names, out);
}

static int write_html(const void *ctx, FILE *out)
{
	const struct report_ctx *r = ctx;
	return rt_diff_report_html(r->d, r->names, out);
}

static int report(const struct diff_opts *o, const struct rt_diff *d, const struct rt_diff_names *names)
{
	const struct rt_diff_result *r = rt_diff_result(d);
	int rc = r->count[RT_DIFF_SEMANTIC] ? RT_EXIT_VIOLATIONS : RT_EXIT_OK;
	struct report_ctx ctx = { d, names };
	bool json_stdout = o->json && !strcmp(o->json, "-");
	if (o->quiet && !json_stdout)
		printf("diff: %llu semantic, %llu behaviour, %llu cosmetic difference(s) -> %s\n",
		       (unsigned long long)r->count[RT_DIFF_SEMANTIC], (unsigned long long)r->count[RT_DIFF_BEHAVIOUR],
		       (unsigned long long)r->count[RT_DIFF_COSMETIC], rc ? "DIFFERENT" : "SAME");
	else if (!json_stdout && rt_diff_report_text(d, names, o->examples, stdout))
		rc = RT_EXIT_INPUT;
	if (o->json && cli_write_report("JSON", o->json, write_json, &ctx))
		rc = RT_EXIT_INPUT;
	if (o->html && cli_write_report("HTML", o->html, write_html, &ctx))
		rc = RT_EXIT_INPUT;
	return rc;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o = { .examples = 3 };
	rt_diff_options_init(&o.o);
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc < 0 ? RT_EXIT_OK : rc;
	struct rt_diff_names names = { argv[optind], argv[optind + 1] };
	if (!strcmp(names.a, "-") && !strcmp(names.b, "-"))
		return cli_usage_error("diff", "only one capture can come from standard input");
	/* The HTML page draws ladders: the checkers keep their rows for the first flows. */
	o.o.ladder_flows = o.html ? 64 : 0;
	struct rt_error err;
	struct rt_diff *d = rt_diff_new(&o.o, &err);
	if (!d) {
		cli_error("%s", err.msg);
		return RT_EXIT_INPUT;
	}
	if (read_captures(d, &names)) {
		rt_diff_free(d);
		return RT_EXIT_INPUT;
	}
	if (rt_diff_finish(d, &err)) {
		cli_error("%s", err.msg);
		rt_diff_free(d);
		return RT_EXIT_INPUT;
	}
	rc = report(&o, d, &names);
	rt_diff_free(d);
	return rc;
}
