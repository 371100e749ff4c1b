/* SPDX-License-Identifier: MIT */
/*
 * The diff's summary for people and its JSON. The summary groups what
 * differs by pair, field and direction: a systematic difference (every
 * message cut at another PMTU) is one line with a count and the first
 * examples, not a line per message.
 */
#include <inttypes.h>

#include "rocetest/diff_report.h"
#include "util.h"

/* "10.0.0.1 QP 0x000011 <-> 10.0.0.2 QP 0x000012 (RC)" for flow id of one capture. */
static void flow_desc(const struct rt_diff *d, int capture, uint32_t id, char *buf, size_t size)
{
	const struct rt_flow_info *f = rt_checker_flow(rt_diff_checker(d, capture), id - 1);
	char e0[80], e1[80];
	if (!f) {
		snprintf(buf, size, "flow %" PRIu32, id);
		return;
	}
	rt_rep_endpoint(f, 0, e0, sizeof e0);
	rt_rep_endpoint(f, 1, e1, sizeof e1);
	snprintf(buf, size, "%s <-> %s (%s)", e0, e1, rt_transport_name((enum rt_transport)f->transport));
}

static bool semantic_free(const struct rt_diff_result *r)
{
	return r->count[RT_DIFF_SEMANTIC] == 0;
}

/* ---- text --------------------------------------------------------------------- */

/* [*begin, *end): the kept differences of pair id (they are stored pair by pair). */
static void pair_range(const struct rt_diff_result *r, uint32_t id, size_t *begin, size_t *end)
{
	size_t i = 0;
	while (i < r->n_differences && r->differences[i].pair < id)
		i++;
	*begin = i;
	while (i < r->n_differences && r->differences[i].pair == id)
		i++;
	*end = i;
}

static void text_group(FILE *out, const struct rt_diff_result *r, size_t begin, size_t end, int field, int side,
		       unsigned examples)
{
	size_t n = 0;
	for (size_t i = begin; i < end; i++) {
		const struct rt_diff_difference *x = &r->differences[i];
		if ((int)x->field != field || x->side != side)
			continue;
		if (n++ < examples) {
			fprintf(out, "  %-9s %-14s %s", rt_diff_class_name(x->cls), rt_diff_field_name(x->field), x->what);
			if (x->frame_a || x->frame_b)
				fprintf(out, " [frame %" PRIu64 " / %" PRIu64 "]", x->frame_a, x->frame_b);
			fputc('\n', out);
		}
	}
	if (n > examples)
		fprintf(out, "  %-9s %-14s ... and %zu more message(s) like these\n", "", "", n - examples);
}

static void text_pair(FILE *out, const struct rt_diff *d, const struct rt_diff_pair *p, unsigned examples)
{
	const struct rt_diff_result *r = rt_diff_result(d);
	char a[200], b[200];
	flow_desc(d, 0, p->flow_a, a, sizeof a);
	flow_desc(d, 1, p->flow_b, b, sizeof b);
	fprintf(out, "pair %" PRIu32 ": A flow %" PRIu32 " %s\n        B flow %" PRIu32 " %s%s%s\n", p->id, p->flow_a, a,
		p->flow_b, b, p->swapped ? " (sides swapped)" : "", p->mapped ? " (--map)" : "");
	for (int s = 0; s < 2; s++)
		if (p->messages_a[s] || p->messages_b[s])
			fprintf(out, "  side %d's messages: %" PRIu64 " in A, %" PRIu64 " in B, %" PRIu64 " aligned\n", s,
				p->messages_a[s], p->messages_b[s], p->matched[s]);
	for (unsigned k = 0; k < p->n_notes; k++)
		fprintf(out, "  note: %s\n", p->notes[k]);
	size_t begin, end;
	pair_range(r, p->id, &begin, &end);
	for (int f = 0; f < RT_DIFF_FIELDS; f++)
		for (int s = 0; s < 2; s++)
			text_group(out, r, begin, end, f, s, examples);
	if (!p->differences[RT_DIFF_SEMANTIC] && !p->differences[RT_DIFF_BEHAVIOUR] && !p->differences[RT_DIFF_COSMETIC])
		fputs("  no differences\n", out);
}

static void text_unpaired(FILE *out, const struct rt_diff *d, const uint32_t *ids, size_t n, int capture)
{
	char desc[200];
	for (size_t i = 0; i < n; i++) {
		flow_desc(d, capture, ids[i], desc, sizeof desc);
		fprintf(out, "unpaired: %s flow %" PRIu32 " %s: nothing like it in %s\n", capture ? "B" : "A", ids[i], desc,
			capture ? "A" : "B");
	}
}

int rt_diff_report_text(const struct rt_diff *d, const struct rt_diff_names *names, unsigned examples, FILE *out)
{
	const struct rt_diff_result *r = rt_diff_result(d);
	fprintf(out, "A: %s (%" PRIu64 " frames, %" PRIu64 " RoCE packets in flows)\nB: %s (%" PRIu64 " frames, %" PRIu64
		" RoCE packets in flows)\nprofile: %s%s\n\n", names->a, r->frames[0], r->packets[0], names->b, r->frames[1],
		r->packets[1], rt_diff_options(d)->profile.name, rt_diff_options(d)->payload ? ", payload compared" : "");
	for (size_t i = 0; i < r->n_pairs; i++)
		text_pair(out, d, &r->pairs[i], examples ? examples : 3);
	text_unpaired(out, d, r->unpaired_a, r->n_unpaired_a, 0);
	text_unpaired(out, d, r->unpaired_b, r->n_unpaired_b, 1);
	if (r->dropped)
		fprintf(out, "(%" PRIu64 " differences past the kept ones are counted, not listed)\n", r->dropped);
	fprintf(out, "diff: %" PRIu64 " semantic, %" PRIu64 " behaviour, %" PRIu64 " cosmetic difference(s) in %zu pair(s) "
		"of flows -> %s\n", r->count[RT_DIFF_SEMANTIC], r->count[RT_DIFF_BEHAVIOUR], r->count[RT_DIFF_COSMETIC],
		r->n_pairs, semantic_free(r) ? "SAME (no semantic difference)" : "DIFFERENT");
	return rt_rep_finish(out);
}

/* ---- JSON --------------------------------------------------------------------- */

static void key_str(FILE *out, const char *sep, const char *key, const char *value)
{
	fprintf(out, "%s\"%s\":", sep, key);
	rt_rep_json_str(out, value);
}

/* {"cosmetic": n, "behaviour": n, "semantic": n, left open for what follows. */
static void json_counts(FILE *out, const uint64_t *count)
{
	fputc('{', out);
	for (int c = RT_DIFF_COSMETIC; c < RT_DIFF_CLASSES; c++)
		fprintf(out, "%s\"%s\":%" PRIu64, c > RT_DIFF_COSMETIC ? "," : "", rt_diff_class_name((enum rt_diff_class)c),
			count[c]);
}

static void json_pair(FILE *out, const struct rt_diff *d, const struct rt_diff_pair *p)
{
	char a[200], b[200];
	flow_desc(d, 0, p->flow_a, a, sizeof a);
	flow_desc(d, 1, p->flow_b, b, sizeof b);
	fprintf(out, "{\"id\":%" PRIu32 ",\"flow_a\":%" PRIu32 ",\"flow_b\":%" PRIu32, p->id, p->flow_a, p->flow_b);
	key_str(out, ",", "a", a);
	key_str(out, ",", "b", b);
	fprintf(out, ",\"swapped\":%s,\"mapped\":%s", p->swapped ? "true" : "false", p->mapped ? "true" : "false");
	fprintf(out, ",\"messages_a\":[%" PRIu64 ",%" PRIu64 "],\"messages_b\":[%" PRIu64 ",%" PRIu64 "]",
		p->messages_a[0], p->messages_a[1], p->messages_b[0], p->messages_b[1]);
	fprintf(out, ",\"aligned\":[%" PRIu64 ",%" PRIu64 "],\"differences\":", p->matched[0], p->matched[1]);
	json_counts(out, p->differences);
	fputs("},\"notes\":[", out);
	for (unsigned k = 0; k < p->n_notes; k++) {
		fputs(k ? "," : "", out);
		rt_rep_json_str(out, p->notes[k]);
	}
	fputs("]}", out);
}

static void json_frame(FILE *out, const char *key, uint64_t frame)
{
	if (frame)
		fprintf(out, ",\"%s\":%" PRIu64, key, frame);
	else
		fprintf(out, ",\"%s\":null", key);
}

static void json_difference(FILE *out, const struct rt_diff_difference *x)
{
	key_str(out, "{", "class", rt_diff_class_name(x->cls));
	fprintf(out, ",\"flow\":%" PRIu32 ",\"side\":%u,\"message\":%" PRIu64, x->pair, x->side, x->message);
	key_str(out, ",", "field", rt_diff_field_name(x->field));
	key_str(out, ",", "a", x->a);
	key_str(out, ",", "b", x->b);
	json_frame(out, "frame_a", x->frame_a);
	json_frame(out, "frame_b", x->frame_b);
	key_str(out, ",", "what", x->what);
	fputc('}', out);
}

static void json_ids(FILE *out, const char *key, const uint32_t *ids, size_t n)
{
	fprintf(out, ",\"%s\":[", key);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%" PRIu32, i ? "," : "", ids[i]);
	fputc(']', out);
}

int rt_diff_report_json(const struct rt_diff *d, const struct rt_diff_names *names, FILE *out)
{
	const struct rt_diff_result *r = rt_diff_result(d);
	key_str(out, "{", "a", names->a);
	key_str(out, ",", "b", names->b);
	key_str(out, ",", "profile", rt_diff_options(d)->profile.name);
	fprintf(out, ",\"payload\":%s,\n\"pairs\":[", rt_diff_options(d)->payload ? "true" : "false");
	for (size_t i = 0; i < r->n_pairs; i++) {
		fputs(i ? ",\n  " : "\n  ", out);
		json_pair(out, d, &r->pairs[i]);
	}
	fputs("]", out);
	json_ids(out, "unpaired_a", r->unpaired_a, r->n_unpaired_a);
	json_ids(out, "unpaired_b", r->unpaired_b, r->n_unpaired_b);
	fputs(",\n\"differences\":[", out);
	for (size_t i = 0; i < r->n_differences; i++) {
		fputs(i ? ",\n  " : "\n  ", out);
		json_difference(out, &r->differences[i]);
	}
	fputs("],\n\"summary\":", out);
	json_counts(out, r->count);
	fprintf(out, ",\"dropped\":%" PRIu64 ",\"verdict\":\"%s\"}}\n", r->dropped, semantic_free(r) ? "same" : "different");
	return rt_rep_finish(out);
}
