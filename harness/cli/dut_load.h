/* SPDX-License-Identifier: MIT */
/* The Verilator model of dut/ as a device for `rocetest run --dut sim`. */
#ifndef ROCETEST_DUT_LOAD_H
#define ROCETEST_DUT_LOAD_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "rocetest/dut.h"
#include "roce_dut_sim.h"

struct dut_sim_request {
	unsigned width;		/* DATA_WIDTH of the model to load */
	const char *lib;	/* its path; NULL: build/dut/wW/libroce_dut_sim.so beside this rocetest */
	uint64_t seed;
};

struct dut_sim {
	char path[PATH_MAX];
	void *handle;
	struct roce_dut_sim *sim;
	struct roce_dut_sim *(*create)(const struct roce_dut_sim_params *p, char *err, size_t errlen);
	void (*destroy)(struct roce_dut_sim *s);
	struct rt_dut_ops ops;
};

/* 0, or -1 with a message that says what is missing and how to get it. */
int dut_sim_open(const struct dut_sim_request *req, struct dut_sim *sim, char *err, size_t errlen);
void dut_sim_close(struct dut_sim *sim);

#endif
