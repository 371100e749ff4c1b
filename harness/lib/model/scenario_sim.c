/* SPDX-License-Identifier: MIT */
/* A scenario's simulation: the link and QPs it configures, with its work scheduled. */
#include "rocetest/scenario.h"

struct rt_sim *rt_scenario_sim(const struct rt_scenario *sc, struct rt_error *err)
{
	struct rt_sim *sim = rt_sim_new(&sc->sim, err);
	if (!sim)
		return NULL;
	for (unsigned i = 0; i < sc->n_actions; i++)
		if (rt_sim_schedule(sim, &sc->actions[i], err)) {
			rt_sim_free(sim);
			return NULL;
		}
	return sim;
}
