/* SPDX-License-Identifier: MIT */
/*
 * The gate's two inputs as items and metrics: a run's summary.json
 * (harness/report/run_json.c writes it) or a `check --json` report
 * (harness/report/json.c). Every field read is checked for its type; a
 * wrong one is an error naming the file, the line and the field.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gate_priv.h"
#include "rocetest/json_read.h"

struct loader {
	struct rt_gate_result *r;
	struct rt_jv_reader rd;	/* the JSON file and the error, for messages */
	size_t cap_items, cap_metrics;
};

/* ---- the lists ------------------------------------------------------------- */

static struct rt_gate_item *add_item(struct loader *ld, const char *id)
{
	struct rt_gate_result *r = ld->r;
	if (!rt_grow((void **)&r->items, &ld->cap_items, r->n_items, sizeof *r->items)) {
		rt_jv_fail(&ld->rd, NULL, "out of memory");
		return NULL;
	}
	struct rt_gate_item *it = &r->items[r->n_items++];
	memset(it, 0, sizeof *it);
	snprintf(it->id, sizeof it->id, "%s", id);
	it->evaluated = true;
	return it;
}

static int add_metric(struct loader *ld, enum rt_gate_metric_kind kind, const char *item, double value)
{
	struct rt_gate_result *r = ld->r;
	if (!rt_grow((void **)&r->metrics, &ld->cap_metrics, r->n_metrics, sizeof *r->metrics))
		return rt_jv_fail(&ld->rd, NULL, "out of memory");
	struct rt_gate_metric *m = &r->metrics[r->n_metrics++];
	m->kind = kind;
	snprintf(m->item, sizeof m->item, "%s", item);
	m->value = value;
	return 0;
}

/* The first line of text into buf. */
static void first_line(char *buf, size_t size, const char *text)
{
	size_t n = strcspn(text, "\n");
	snprintf(buf, size, "%.*s", (int)n, text);
}

/* ---- a run's summary.json -------------------------------------------------- */

static int load_case(struct loader *ld, const char *suite, const struct rt_jv *c)
{
	const struct rt_jv *name = rt_jv_need(&ld->rd, c, "a test case", "name", RT_JV_STRING);
	if (!name)
		return -1;
	char id[RT_GATE_ID], what[RT_GATE_ID + 16];
	snprintf(id, sizeof id, "%s/%s", suite, name->string);
	snprintf(what, sizeof what, "test '%s'", id);
	const struct rt_jv *passed = rt_jv_need(&ld->rd, c, what, "passed", RT_JV_BOOL);
	const struct rt_jv *cycles = passed ? rt_jv_need(&ld->rd, c, what, "cycles", RT_JV_NUMBER) : NULL;
	const struct rt_jv *wrs = cycles ? rt_jv_need(&ld->rd, c, what, "wrs", RT_JV_NUMBER) : NULL;
	const struct rt_jv *retx = wrs ? rt_jv_need(&ld->rd, c, what, "retransmissions", RT_JV_NUMBER) : NULL;
	const struct rt_jv *checker = retx ? rt_jv_need(&ld->rd, c, what, "checker", RT_JV_OBJECT) : NULL;
	const struct rt_jv *errors = checker ? rt_jv_need(&ld->rd, checker, what, "errors", RT_JV_NUMBER) : NULL;
	const struct rt_jv *warnings = errors ? rt_jv_need(&ld->rd, checker, what, "warnings", RT_JV_NUMBER) : NULL;
	const char *failure, *html;
	if (!warnings || rt_jv_opt_string(&ld->rd, c, what, "failure", &failure) || rt_jv_opt_string(&ld->rd, c, what, "html", &html))
		return -1;
	struct rt_gate_item *it = add_item(ld, id);
	if (!it)
		return -1;
	/* Untimed (a board's harness too slow for the test's timers): neither passed nor failed. */
	const struct rt_jv *untimed = rt_jv_get(c, "untimed");
	if (untimed && untimed->type != RT_JV_BOOL && untimed->type != RT_JV_NULL)
		return rt_jv_fail(&ld->rd, untimed, "%s: \"untimed\" is %s, not true, false or null", what,
				  rt_jv_type_word(untimed));
	bool not_timed = untimed && untimed->type == RT_JV_BOOL && untimed->boolean;
	it->passed = passed->boolean || not_timed;
	it->evaluated = !not_timed;
	first_line(it->detail, sizeof it->detail, failure);
	snprintf(it->page, sizeof it->page, "%s", html);
	if (add_metric(ld, RT_GATE_RETRANSMISSIONS, id, retx->number) ||
	    add_metric(ld, RT_GATE_VIOLATIONS, id, errors->number + warnings->number))
		return -1;
	/* A test that posted nothing has no cycles per message. */
	return wrs->number > 0 ? add_metric(ld, RT_GATE_CYCLES_PER_MESSAGE, id, cycles->number / wrs->number) : 0;
}

static int load_suites(struct loader *ld, const struct rt_jv *suites)
{
	for (const struct rt_jv *s = suites->child; s; s = s->next) {
		const struct rt_jv *name = rt_jv_need(&ld->rd, s, "a suite", "name", RT_JV_STRING);
		const struct rt_jv *cases = name ? rt_jv_need(&ld->rd, s, "a suite", "cases", RT_JV_ARRAY) : NULL;
		if (!cases)
			return -1;
		for (const struct rt_jv *c = cases->child; c; c = c->next)
			if (load_case(ld, name->string, c))
				return -1;
	}
	return 0;
}

static int load_goodput(struct loader *ld, const struct rt_jv *metrics)
{
	const struct rt_jv *goodput = rt_jv_need(&ld->rd, metrics, "metrics", "goodput", RT_JV_ARRAY);
	if (!goodput)
		return -1;
	for (const struct rt_jv *g = goodput->child; g; g = g->next) {
		const struct rt_jv *suite = rt_jv_need(&ld->rd, g, "a goodput measurement", "suite", RT_JV_STRING);
		const struct rt_jv *test = suite ? rt_jv_need(&ld->rd, g, "a goodput measurement", "test", RT_JV_STRING) : NULL;
		double gbps;
		if (!test || rt_jv_opt_number(&ld->rd, g, "a goodput measurement", "gbps", &gbps))
			return -1;
		char id[RT_GATE_ID];
		snprintf(id, sizeof id, "%s/%s", suite->string, test->string);
		if (add_metric(ld, RT_GATE_GOODPUT, id, gbps))
			return -1;
	}
	return 0;
}

static int load_run(struct loader *ld, const struct rt_jv *root)
{
	struct rt_gate_result *r = ld->r;
	const struct rt_jv *dut = rt_jv_need(&ld->rd, root, "the run", "dut", RT_JV_STRING);
	const struct rt_jv *seed = dut ? rt_jv_need(&ld->rd, root, "the run", "seed", RT_JV_NUMBER) : NULL;
	const struct rt_jv *suites = seed ? rt_jv_need(&ld->rd, root, "the run", "suites", RT_JV_ARRAY) : NULL;
	const struct rt_jv *metrics = suites ? rt_jv_need(&ld->rd, root, "the run", "metrics", RT_JV_OBJECT) : NULL;
	if (!metrics)
		return -1;
	r->source = RT_GATE_SOURCE_RUN;
	snprintf(r->dut, sizeof r->dut, "%s", dut->string);
	r->has_seed = true;
	r->seed = (uint64_t)seed->number;
	return load_suites(ld, suites) || load_goodput(ld, metrics) ? -1 : 0;
}

/* ---- a check --json report ------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The first violation of rule in a capture, as "frame N: message" (false when the report kept none). */
static bool first_violation(const struct rt_jv *violations, const char *rule, char *buf, size_t size)
{
	for (const struct rt_jv *v = violations ? violations->child : NULL; v; v = v->next) {
		const char *id = rt_jv_get_str(v, "rule"), *msg = rt_jv_get_str(v, "message");
		if (id && msg && !strcmp(id, rule)) {
			snprintf(buf, size, "frame %.0f: %s", rt_jv_get_num(v, "frame", 0), msg);
			return true;
		}
	}
	return false;
}

static int load_rule(struct loader *ld, const char *file, const struct rt_jv *rule, const struct rt_jv *violations)
{
	const struct rt_jv *id = rt_jv_need(&ld->rd, rule, "a rule", "id", RT_JV_STRING);
	const struct rt_jv *status = id ? rt_jv_need(&ld->rd, rule, "a rule", "status", RT_JV_STRING) : NULL;
	const struct rt_jv *count = status ? rt_jv_need(&ld->rd, rule, "a rule", "violations", RT_JV_NUMBER) : NULL;
	if (!count)
		return -1;
	char item_id[RT_GATE_ID];
	snprintf(item_id, sizeof item_id, "%s:%s", file, id->string);
	struct rt_gate_item *it = add_item(ld, item_id);
	if (!it)
		return -1;
	it->passed = strcmp(status->string, "fail") != 0;
	it->evaluated = strcmp(status->string, "not_evaluated") != 0;
	if (!it->passed && !first_violation(violations, id->string, it->detail, sizeof it->detail))
		snprintf(it->detail, sizeof it->detail, "%.0f violation(s), none kept in the report", count->number);
	return add_metric(ld, RT_GATE_VIOLATIONS, item_id, count->number);
}

static int load_capture(struct loader *ld, const struct rt_jv *f)
{
	const struct rt_jv *file = rt_jv_need(&ld->rd, f, "a capture", "file", RT_JV_STRING);
	const struct rt_jv *rules = file ? rt_jv_need(&ld->rd, f, "a capture", "rules", RT_JV_ARRAY) : NULL;
	const struct rt_jv *summary = rules ? rt_jv_need(&ld->rd, f, "a capture", "summary", RT_JV_OBJECT) : NULL;
	const struct rt_jv *verdict = summary ? rt_jv_need(&ld->rd, summary, "a capture's summary", "verdict", RT_JV_STRING) : NULL;
	if (!verdict)
		return -1;
	const char *name = base_name(file->string);
	struct rt_gate_item *it = add_item(ld, name);
	if (!it)
		return -1;
	/* The capture itself passes when it was read to its end; its rules say the rest. */
	it->passed = strcmp(verdict->string, "incomplete") != 0;
	const char *reason = rt_jv_get_str(summary, "reason");
	snprintf(it->detail, sizeof it->detail, "incomplete: %s", reason ? reason : "(no reason given)");
	const struct rt_jv *violations = rt_jv_get(f, "violations");
	for (const struct rt_jv *rule = rules->child; rule; rule = rule->next)
		if (load_rule(ld, name, rule, violations))
			return -1;
	return 0;
}

static int load_check(struct loader *ld, const struct rt_jv *root)
{
	ld->r->source = RT_GATE_SOURCE_CHECK;
	const struct rt_jv *files = rt_jv_get(root, "files");
	if (!files)
		return load_capture(ld, root);
	if (files->type != RT_JV_ARRAY)
		return rt_jv_fail(&ld->rd, files, "\"files\" is %s, not an array", rt_jv_type_word(files));
	for (const struct rt_jv *f = files->child; f; f = f->next)
		if (load_capture(ld, f))
			return -1;
	return 0;
}

/* ---- the whole ------------------------------------------------------------- */

/* Two items of one name could not be told apart by the comparison. */
static int check_unique(struct loader *ld)
{
	struct rt_gate_result *r = ld->r;
	const struct rt_gate_item **order =
		(const struct rt_gate_item **)gate_sorted(r->items, r->n_items, sizeof *r->items, gate_cmp_item_ids);
	if (!order)
		return rt_jv_fail(&ld->rd, NULL, "out of memory");
	int rc = 0;
	for (size_t i = 1; i < r->n_items && !rc; i++)
		if (!strcmp(order[i - 1]->id, order[i]->id))
			rc = rt_jv_fail(&ld->rd, NULL, "'%s' appears twice (the gate names tests by suite/name and captures by "
					"file name, which must be unique)", order[i]->id);
	free(order);
	return rc;
}

/* The JSON file behind path (a directory's summary.json) and the directory pages are relative to. */
static int locate(struct rt_gate_result *r, const char *path, char *json, size_t size, struct rt_error *err)
{
	struct stat st;
	if (stat(path, &st)) {
		rt_error_set(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(r->path, sizeof r->path, "%s", path);
	if (S_ISDIR(st.st_mode)) {
		snprintf(r->dir, sizeof r->dir, "%s", path);
		snprintf(json, size, "%s/summary.json", path);
		if (access(json, F_OK)) {
			rt_error_set(err, "%s: no summary.json: not a report directory of rocetest run", path);
			return -1;
		}
		return 0;
	}
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(r->dir, sizeof r->dir, ".");
	else
		snprintf(r->dir, sizeof r->dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
	snprintf(json, size, "%s", path);
	return 0;
}

int rt_gate_load(struct rt_gate_result *r, const char *path, struct rt_error *err)
{
	memset(r, 0, sizeof *r);
	char json[RT_GATE_PATH + 16];
	if (locate(r, path, json, sizeof json, err))
		return -1;
	struct rt_json_doc *doc = rt_json_load(json, err);
	if (!doc)
		return -1;
	struct loader ld = { .r = r, .rd = { .file = json, .err = err } };
	const struct rt_jv *root = rt_json_root(doc);
	int rc;
	if (rt_jv_get(root, "suites"))
		rc = load_run(&ld, root);
	else if (rt_jv_get(root, "files") || rt_jv_get(root, "rules"))
		rc = load_check(&ld, root);
	else
		rc = rt_jv_fail(&ld.rd, NULL, "neither a rocetest run summary.json (\"suites\") nor a rocetest check --json "
				"report (\"files\" or \"rules\")");
	rt_json_free(doc);
	if (!rc)
		rc = check_unique(&ld);
	if (rc)
		rt_gate_result_free(r);
	return rc;
}

void rt_gate_result_free(struct rt_gate_result *r)
{
	free(r->items);
	free(r->metrics);
	r->items = NULL;
	r->metrics = NULL;
	r->n_items = r->n_metrics = 0;
}
