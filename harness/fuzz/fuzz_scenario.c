/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the scenario parser. Input: the text of a scenario
 * file. It goes into a malloc'd buffer of exactly its size, not
 * NUL-terminated (the parser takes a length), so AddressSanitizer catches a
 * read one byte past the end; LeakSanitizer catches what an error path
 * forgets to free.
 *
 * Beyond not crashing, a parse must keep its promises: a failure names the
 * file and leaves no actions; a success gives actions and faults within
 * their bounds, each request's local bytes inside its node's memory, and
 * the two ends pointed at each other.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rocetest/scenario.h"

#define NAME "fuzz.scn"

static void check_scenario(const struct rt_scenario *sc)
{
	const struct rt_sim_config *sim = &sc->sim;
	if (sc->n_expect > RT_SCENARIO_MAX_EXPECT || sim->n_faults > RT_SIM_MAX_FAULTS)
		abort();
	if (sc->n_actions && !sc->actions)
		abort();
	if (!memchr(sc->name, '\0', sizeof sc->name) || !memchr(sc->description, '\0', sizeof sc->description))
		abort();
	for (unsigned n = 0; n < 2; n++) {
		const struct rt_qp_config *cfg = &sim->node[n], *peer = &sim->node[1 - n];
		if (cfg->peer_qpn != peer->qpn || cfg->rq_psn != peer->sq_psn || memcmp(cfg->peer_ip, peer->ip, 16) ||
		    memcmp(cfg->peer_mac, peer->mac, 6))
			abort();
		if (cfg->qpn < 2 || cfg->qpn > 0xffffff || cfg->sq_psn > 0xffffff || cfg->window < 1 ||
		    cfg->ack_every < 1 || (cfg->ip_version != 4 && cfg->ip_version != 6) ||
		    cfg->transport != peer->transport || cfg->pmtu != peer->pmtu)
			abort();
	}
	for (unsigned i = 0; i < sim->n_faults; i++) {
		const struct rt_fault *f = &sim->faults[i];
		if (f->dir > 1 || (f->by_psn ? f->psn > 0xffffff || f->count < 1 : f->first < 1 || f->last < f->first))
			abort();
	}
	for (unsigned i = 0; i < sc->n_actions; i++) {
		const struct rt_sim_action *a = &sc->actions[i];
		if (a->node > 1 || a->at_ns < 0)
			abort();
		if (a->kind == RT_ACTION_SEND &&
		    a->wr.local_offset + a->wr.length > sim->node[a->node].mem_size)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Exactly size bytes; under ASan malloc(0) is a real zero-byte block, so any read is caught. */
	char *text = malloc(size);
	if (!text)
		return 0;
	if (size)
		memcpy(text, data, size);

	struct rt_scenario sc;
	struct rt_error err = { .msg = "" };
	if (rt_scenario_parse(NAME, text, size, &sc, &err) == 0) {
		check_scenario(&sc);
	} else {
		/* Every message starts "fuzz.scn:LINE: " or "fuzz.scn: ". */
		if (strncmp(err.msg, NAME ":", strlen(NAME ":")) || sc.actions || sc.n_actions)
			abort();
	}
	rt_scenario_free(&sc);
	rt_scenario_free(&sc);	/* a second free is harmless */
	free(text);
	return 0;
}
