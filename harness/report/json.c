/* SPDX-License-Identifier: MIT */
/*
 * The JSON report: one object per capture (its counts, the configuration,
 * every flow, every enabled rule, the kept violations), one line per flow,
 * rule and violation so that the file is both parseable and greppable.
 */
#include <inttypes.h>
#include <math.h>

#include "rocetest/report.h"
#include "util.h"

/* A key, a string value and the separator before the key. */
static void key_str(FILE *out, const char *sep, const char *key, const char *value)
{
	fprintf(out, "%s\"%s\":", sep, key);
	rt_rep_json_str(out, value);
}

/* An optional unsigned number: null when absent. */
static void key_opt_u64(FILE *out, const char *sep, const char *key, bool present, uint64_t value)
{
	if (present)
		fprintf(out, "%s\"%s\":%" PRIu64, sep, key, value);
	else
		fprintf(out, "%s\"%s\":null", sep, key);
}

static const char *json_bool(bool b)
{
	return b ? "true" : "false";
}

static void write_config(FILE *out, const struct rt_check_config *cfg)
{
	fputs("\"config\":{", out);
	key_opt_u64(out, "", "pmtu", cfg->pmtu != 0, cfg->pmtu);
	if (cfg->have_timeout && isfinite(cfg->timeout_us))
		fprintf(out, ",\"timeout_us\":%.15g", cfg->timeout_us);
	else
		fputs(",\"timeout_us\":null", out);
	key_opt_u64(out, ",", "retry_cnt", cfg->retry_cnt >= 0, (uint64_t)cfg->retry_cnt);
	key_opt_u64(out, ",", "rnr_retry", cfg->rnr_retry >= 0, (uint64_t)cfg->rnr_retry);
	fprintf(out, ",\"max_flows\":%" PRIu32 ",\"ladder_flows\":%" PRIu32 "}",
		cfg->max_flows ? cfg->max_flows : RT_CHECK_DEFAULT_MAX_FLOWS, cfg->ladder_flows);
}

static void write_endpoint(FILE *out, const struct rt_flow_info *f, int side)
{
	const struct rt_flow_side *s = &f->side[side];
	char ip[64];
	rt_flow_format_ip(f, side, ip, sizeof ip);
	key_str(out, "{", "ip", ip);
	key_opt_u64(out, ",", "qp", s->qp_known, s->qp);
	/* A side that sent only RoCE v1 has no UDP source port. */
	key_opt_u64(out, ",", "udp_sport", !s->rocev1 || s->rocev2, s->udp_sport);
	fprintf(out, ",\"roce_versions\":[%s],\"packets\":%" PRIu64 ",\"requests\":%" PRIu64 ",\"responses\":%" PRIu64,
		s->rocev1 && s->rocev2 ? "1,2" : s->rocev1 ? "1" : s->rocev2 ? "2" : "", s->packets, s->requests,
		s->responses);
	key_opt_u64(out, ",", "pmtu", s->pmtu != 0, s->pmtu);
	fprintf(out, ",\"pmtu_inferred\":%s", json_bool(s->pmtu_inferred));
	key_opt_u64(out, ",", "pmtu_frame", s->pmtu_frame != 0, s->pmtu_frame);
	fputc('}', out);
}

static void write_flow(FILE *out, const struct rt_flow_info *f)
{
	fprintf(out, "{\"id\":%" PRIu32, f->id);
	key_str(out, ",", "transport", rt_transport_name((enum rt_transport)f->transport));
	fprintf(out, ",\"ip_version\":%u,\"endpoints\":[", f->ip_version);
	const char *sep = "";
	for (int side = 0; side < 2; side++) {
		if (!rt_rep_side_shown(f, side))
			continue;
		fputs(sep, out);
		write_endpoint(out, f, side);
		sep = ",";
	}
	fprintf(out,
		"],\"paired\":%s,\"packets\":%" PRIu64 ",\"first_frame\":%" PRIu64 ",\"last_frame\":%" PRIu64
		",\"naks\":%" PRIu64 ",\"rnr_naks\":%" PRIu64 ",\"retransmissions\":%" PRIu64 ",\"cnps\":%" PRIu64
		",\"bad_icrc\":%" PRIu64 ",\"errors\":%" PRIu64 ",\"warnings\":%" PRIu64 ",\"notes\":[",
		json_bool(f->paired), f->packets, f->first_frame, f->last_frame, f->naks, f->rnr_naks,
		f->retransmissions, f->cnps, f->bad_icrc, f->errors, f->warnings);
	for (uint32_t i = 0; i < f->note_count && i < RT_FLOW_MAX_NOTES; i++) {
		if (i)
			fputc(',', out);
		rt_rep_json_str(out, f->notes[i]);
	}
	fprintf(out, "],\"notes_dropped\":%" PRIu32, f->notes_dropped);
	/* Whether the HTML report draws this flow's ladder, and how much of it. */
	key_opt_u64(out, ",", "ladder_rows", f->ladder != NULL, f->ladder_count);
	fprintf(out, ",\"ladder_dropped\":%" PRIu64 "}", f->ladder_dropped);
}

static void write_rules(FILE *out, const struct rt_checker *c)
{
	const struct rt_check_config *cfg = rt_checker_config(c);
	const struct rt_rule_counts *t = &rt_checker_verdicts(c)->total;
	const char *sep = "\n  ";
	fputs("\"rules\":[", out);
	for (int r = 0; r < RT_RULE_COUNT; r++) {
		if (!cfg->enabled[r])
			continue;
		const struct rt_rule_info *ri = rt_rule_info((enum rt_rule)r);
		fputs(sep, out);
		key_str(out, "{", "id", ri->id);
		key_str(out, ",", "severity", rt_severity_name(ri->severity));
		key_str(out, ",", "group", rt_rule_group((enum rt_rule)r));
		fprintf(out, ",\"checked\":%" PRIu64 ",\"violations\":%" PRIu64 ",\"not_evaluated\":%" PRIu64,
			t->checked[r], t->violations[r], t->not_evaluated[r]);
		key_str(out, ",", "status", rt_rule_status(t, (enum rt_rule)r));
		fputc('}', out);
		sep = ",\n  ";
	}
	fputs("\n]", out);
}

static void write_violations(FILE *out, const struct rt_violation_list *l)
{
	fputs("\"violations\":[", out);
	for (size_t i = 0; l && i < l->count; i++) {
		const struct rt_report_violation *v = &l->items[i];
		fputs(i ? ",\n  " : "\n  ", out);
		key_str(out, "{", "rule", rt_rule_info(v->rule)->id);
		key_str(out, ",", "severity", rt_severity_name(v->severity));
		fprintf(out, ",\"frame\":%" PRIu64, v->frame);
		key_opt_u64(out, ",", "flow", v->flow != 0, v->flow);
		key_str(out, ",", "message", v->message);
		fputc('}', out);
	}
	fprintf(out, "%s],\n\"violations_dropped\":%" PRIu64, l && l->count ? "\n" : "", l ? l->dropped : 0);
}

/*
 * The verdict: "incomplete" when the capture (or, over several, any capture)
 * was not checked to its end, whatever its counts; then "fail" or "pass".
 * An incomplete capture's summary says why ("reason"); the summary of
 * several counts the incomplete ones ("incomplete").
 */
static void write_summary(FILE *out, uint64_t errors, uint64_t warnings, const char *reason, size_t incomplete)
{
	fprintf(out, "\"summary\":{\"errors\":%" PRIu64 ",\"warnings\":%" PRIu64 ",\"verdict\":\"%s\"", errors,
		warnings, reason || incomplete ? "incomplete" : errors ? "fail" : "pass");
	if (reason)
		key_str(out, ",", "reason", reason);
	if (incomplete)
		fprintf(out, ",\"incomplete\":%zu", incomplete);
	fputc('}', out);
}

static void write_file(FILE *out, const struct rt_report_file *rf)
{
	const struct rt_checker *c = rf->checker;
	const struct rt_check_totals *t = rt_checker_totals(c);
	key_str(out, "{", "file", rf->file);
	fprintf(out,
		",\n\"packets\":%" PRIu64 ",\"roce_packets\":%" PRIu64 ",\"not_roce\":%" PRIu64
		",\"truncated\":%" PRIu64 ",\"malformed\":%" PRIu64 ",\"untracked\":%" PRIu64 ",\"seconds\":%.6f,\n",
		t->frames, t->roce_packets, t->not_roce, t->truncated, t->malformed, t->untracked,
		rt_rep_seconds(rf));
	write_config(out, rt_checker_config(c));
	fputs(",\n\"flows\":[", out);
	size_t n = rt_checker_flow_count(c);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n  " : "\n  ", out);
		write_flow(out, rt_checker_flow(c, i));
	}
	fputs(n ? "\n],\n" : "],\n", out);
	write_rules(out, c);
	fputs(",\n", out);
	write_violations(out, rf->violations);
	fputs(",\n", out);
	write_summary(out, t->errors, t->warnings, rf->incomplete, 0);
	fputs("}", out);
}

int rt_report_json(const struct rt_report_file *files, size_t n, FILE *out)
{
	if (n == 1) {
		write_file(out, &files[0]);
	} else {
		uint64_t errors, warnings;
		rt_rep_sum(files, n, &errors, &warnings);
		fputs("{\"files\":[\n", out);
		for (size_t i = 0; i < n; i++) {
			if (i)
				fputs(",\n", out);
			write_file(out, &files[i]);
		}
		fputs("\n],\n", out);
		write_summary(out, errors, warnings, NULL, rt_rep_incomplete(files, n));
		fputc('}', out);
	}
	fputc('\n', out);
	return rt_rep_finish(out);
}
