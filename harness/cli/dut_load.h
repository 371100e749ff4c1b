/* SPDX-License-Identifier: MIT */
/*
 * Opens a device for `rocetest run` from a device plugin (rocetest/dut.h):
 * for --dut sim, the Verilator model of dut/ that `make dut-sim` builds.
 */
#ifndef ROCETEST_DUT_LOAD_H
#define ROCETEST_DUT_LOAD_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "rocetest/dut.h"

struct dut_sim_request {
	unsigned width;		/* DATA_WIDTH of the model to load */
	const char *lib;	/* its path; NULL: build/dut/wW/libroce_dut_sim.so beside this rocetest */
	uint64_t seed;
};

struct dut_device {
	char path[PATH_MAX];	/* the plugin */
	void *handle;
	struct rt_dut_ops ops;	/* open when ops.ctx is set */
};

/* 0, or -1 with a message that says what is missing and how to get it. */
int dut_sim_open(const struct dut_sim_request *req, struct dut_device *dev, char *err, size_t errlen);
void dut_device_close(struct dut_device *dev);

#endif
