/* SPDX-License-Identifier: MIT */
/* Layer: model. */
/*
 * Scenario files: a small line-oriented text format (vectors/scenarios/README.md)
 * that names a connection's parameters, the work each end posts and the faults
 * to inject. The parser reports the first problem as "file:line: what is wrong".
 */
#ifndef ROCETEST_SCENARIO_H
#define ROCETEST_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rocetest/error.h"
#include "rocetest/rules.h"
#include "rocetest/sim.h"

#define RT_SCENARIO_MAX_EXPECT 8

struct rt_scenario_expect {
	enum rt_rule rule;
	uint64_t frame;		/* 0: the frame that carries the scenario's bug */
};

struct rt_scenario {
	char name[64];		/* the file name without directory and ".scn" */
	char description[256];
	struct rt_sim_config sim;
	struct rt_sim_action *actions;	/* in file order */
	unsigned n_actions;
	/* "expect clean" (n_expect 0) or the violations the vector must produce. */
	struct rt_scenario_expect expect[RT_SCENARIO_MAX_EXPECT];
	unsigned n_expect;
};

/* Reads a scenario file. 0, or -1 with err = "path:line: message". */
int rt_scenario_load(const char *path, struct rt_scenario *sc, struct rt_error *err);
/* The same from text in memory; name is used in messages and as sc->name. */
int rt_scenario_parse(const char *name, const char *text, size_t len, struct rt_scenario *sc,
		      struct rt_error *err);
void rt_scenario_free(struct rt_scenario *sc);

/*
 * Writes sc as a scenario file that rt_scenario_parse reads back to the same
 * connection, actions, faults, bugs and expectations (scenario_write.c).
 * Every setting is written out, defaults too, so the file does not depend on
 * the parser's defaults. notes (NULL: none) go first, each line a comment.
 * What the language cannot say is left out: rt_scenario_gaps names it.
 * 0, or -1 with err when f could not be written.
 */
int rt_scenario_write(FILE *f, const struct rt_scenario *sc, const char *notes, struct rt_error *err);
/*
 * What of sc a written file would not carry, as "; "-separated phrases in
 * buf ("" when nothing); returns how many. E.g. a send queue depth other than
 * the model's default, receive wr_ids that are not 1, 2, 3... per node.
 */
unsigned rt_scenario_gaps(const struct rt_scenario *sc, char *buf, size_t size);

/* Runs the scenario: builds the simulation, schedules its actions, runs it. */
struct rt_sim *rt_scenario_sim(const struct rt_scenario *sc, struct rt_error *err);

#endif
