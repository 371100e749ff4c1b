/* SPDX-License-Identifier: MIT */
/*
 * The diff's fields and profiles: which class a difference in each field
 * is. The built-in profiles are one table, a column per profile.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "diff_priv.h"

static const char *const class_names[RT_DIFF_CLASSES] = { "ignored", "cosmetic", "behaviour", "semantic" };

const char *rt_diff_class_name(enum rt_diff_class c)
{
	return c < RT_DIFF_CLASSES ? class_names[c] : "?";
}

enum { IGN = RT_DIFF_IGNORED, COS = RT_DIFF_COSMETIC, BEH = RT_DIFF_BEHAVIOUR, SEM = RT_DIFF_SEMANTIC };

/* Per field: its name, then its class in the connectx, rxe and strict profiles. */
static const struct {
	const char *name;
	unsigned char cls[3];
} fields[RT_DIFF_FIELDS] = {
	[RT_DIFF_MISSING] = { "missing", { SEM, SEM, SEM } },
	[RT_DIFF_OPCODE] = { "opcode", { SEM, SEM, SEM } },
	[RT_DIFF_LENGTH] = { "length", { SEM, SEM, SEM } },
	[RT_DIFF_SEGMENTS] = { "segments", { SEM, SEM, SEM } },
	[RT_DIFF_IMMEDIATE] = { "immediate", { SEM, SEM, SEM } },
	[RT_DIFF_PADCNT] = { "padcnt", { SEM, SEM, SEM } },
	[RT_DIFF_SOLICITED] = { "solicited", { SEM, SEM, SEM } },
	[RT_DIFF_ADDRESS] = { "address", { SEM, SEM, SEM } },
	[RT_DIFF_ATOMIC] = { "atomic", { SEM, SEM, SEM } },
	[RT_DIFF_PAYLOAD] = { "payload", { SEM, SEM, SEM } },
	[RT_DIFF_RESPONSE] = { "response", { SEM, SEM, SEM } },
	[RT_DIFF_NAK] = { "nak", { SEM, SEM, SEM } },
	[RT_DIFF_ACKREQ] = { "ackreq", { BEH, BEH, SEM } },
	[RT_DIFF_ACK_COALESCING] = { "ack_coalescing", { BEH, BEH, SEM } },
	[RT_DIFF_RETRANSMIT] = { "retransmit", { BEH, BEH, SEM } },
	[RT_DIFF_ACK_TIMING] = { "ack_timing", { BEH, IGN, SEM } },
	[RT_DIFF_TOS] = { "tos", { COS, COS, SEM } },
	[RT_DIFF_MIGREQ] = { "migreq", { COS, COS, SEM } },
	[RT_DIFF_UDP_SPORT] = { "udp_sport", { COS, IGN, SEM } },
	[RT_DIFF_ACK_CREDIT] = { "ack_credit", { COS, IGN, SEM } },
	[RT_DIFF_TTL] = { "ttl", { IGN, IGN, COS } },
};
static const char *const profile_names[3] = { "connectx", "rxe", "strict" };

const char *rt_diff_field_name(enum rt_diff_field f)
{
	return f < RT_DIFF_FIELDS ? fields[f].name : "?";
}

int rt_diff_field_by_name(const char *name)
{
	for (int f = 0; f < RT_DIFF_FIELDS; f++)
		if (!strcmp(fields[f].name, name))
			return f;
	return -1;
}

static int class_by_name(const char *name)
{
	for (int c = 0; c < RT_DIFF_CLASSES; c++)
		if (!strcmp(class_names[c], name))
			return c;
	return -1;
}

int rt_diff_profile_builtin(struct rt_diff_profile *p, const char *name)
{
	for (int k = 0; k < 3; k++) {
		if (strcmp(profile_names[k], name))
			continue;
		snprintf(p->name, sizeof p->name, "%s", name);
		for (int f = 0; f < RT_DIFF_FIELDS; f++)
			p->cls[f] = (enum rt_diff_class)fields[f].cls[k];
		return 0;
	}
	return -1;
}

/* One line of a profile file: "profile NAME" (line 1 only) or "FIELD CLASS". */
static int profile_line(struct rt_diff_profile *p, char *line, unsigned n, bool first, struct rt_error *err)
{
	char *save = NULL, *a = strtok_r(line, " \t", &save), *b = strtok_r(NULL, " \t", &save);
	char *extra = strtok_r(NULL, " \t", &save);
	if (!b || extra) {
		rt_error_set(err, "line %u: expected FIELD CLASS (or 'profile NAME' first)", n);
		return -1;
	}
	if (!strcmp(a, "profile")) {
		if (!first || rt_diff_profile_builtin(p, b)) {
			rt_error_set(err, first ? "line %u: no built-in profile '%s' (connectx, rxe, strict)"
						: "line %u: 'profile %s' must be the first entry", n, b);
			return -1;
		}
		return 0;
	}
	int f = rt_diff_field_by_name(a), c = class_by_name(b);
	if (f < 0 || c < 0) {
		rt_error_set(err, f < 0 ? "line %u: unknown field '%s' (rocetest diff --list-fields)"
					: "line %u: unknown class '%s' (ignored, cosmetic, behaviour, semantic)", n, f < 0 ? a : b);
		return -1;
	}
	p->cls[f] = (enum rt_diff_class)c;
	return 0;
}

int rt_diff_profile_load(struct rt_diff_profile *p, const char *path, struct rt_error *err)
{
	FILE *fp = fopen(path, "r");
	if (!fp) {
		rt_error_set(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	rt_diff_profile_builtin(p, "connectx");
	char line[512];
	unsigned n = 0;
	bool first = true;
	int rc = 0;
	struct rt_error lerr;
	while (!rc && fgets(line, sizeof line, fp)) {
		n++;
		line[strcspn(line, "#\r\n")] = '\0';
		if (!line[strspn(line, " \t")])
			continue;
		rc = profile_line(p, line, n, first, &lerr);
		first = false;
	}
	fclose(fp);
	if (rc)
		rt_error_set(err, "%s:%s", path, lerr.msg + 5);
	else
		snprintf(p->name, sizeof p->name, "%s", path);
	return rc;
}
