/* SPDX-License-Identifier: MIT */
/*
 * Loads the Verilator model of the included FPGA endpoint (dut/sim/, a
 * shared object built by `make dut-sim`) and opens it as a device (dut.h).
 * It is loaded at run time so that rocetest itself builds and runs without
 * Verilator, and says exactly what is missing when the model is not there.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dut_load.h"

/* build/bin/rocetest -> build/dut/wW/libroce_dut_sim.so */
static void default_path(unsigned width, char *buf, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0) {
		snprintf(buf, size, "build/dut/w%u/libroce_dut_sim.so", width);
		return;
	}
	exe[n] = 0;
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = 0;	/* build/bin */
	if ((size_t)snprintf(buf, size, "%.*s/../dut/w%u/libroce_dut_sim.so", PATH_MAX - 64, exe, width) >= size)
		snprintf(buf, size, "build/dut/w%u/libroce_dut_sim.so", width);
}

int dut_sim_open(const struct dut_sim_request *req, struct dut_sim *sim, char *err, size_t errlen)
{
	memset(sim, 0, sizeof *sim);
	if (req->lib)
		snprintf(sim->path, sizeof sim->path, "%s", req->lib);
	else
		default_path(req->width, sim->path, sizeof sim->path);
	if (access(sim->path, R_OK) && req->lib) {
		snprintf(err, errlen, "--sim-lib %s: %s", sim->path, strerror(errno));
		return -1;
	}
	if (access(sim->path, R_OK)) {
		/* Another width is built along with the default one by naming both. */
		char hint[64] = "";
		if (req->width != 512)
			snprintf(hint, sizeof hint, " DUT_SIM_WIDTHS=\"512 %u\"", req->width);
		snprintf(err, errlen,
			 "the Verilator model of dut/ at DATA_WIDTH %u is not built (no %s): run `make dut-sim%s` "
			 "(it installs Verilator with harness/scripts/deps.sh rtl), or name the model with --sim-lib",
			 req->width, sim->path, hint);
		return -1;
	}
	sim->handle = dlopen(sim->path, RTLD_NOW | RTLD_LOCAL);
	if (!sim->handle) {
		snprintf(err, errlen, "cannot load the model %s: %s", sim->path, dlerror());
		return -1;
	}
	int (*abi)(void) = (int (*)(void))dlsym(sim->handle, "roce_dut_sim_abi");
	void (*params_init)(struct roce_dut_sim_params *) =
		(void (*)(struct roce_dut_sim_params *))dlsym(sim->handle, "roce_dut_sim_params_init");
	sim->create = (struct roce_dut_sim * (*)(const struct roce_dut_sim_params *, char *, size_t))
		dlsym(sim->handle, "roce_dut_sim_create");
	sim->destroy = (void (*)(struct roce_dut_sim *))dlsym(sim->handle, "roce_dut_sim_destroy");
	void (*ops)(struct roce_dut_sim *, struct rt_dut_ops *) =
		(void (*)(struct roce_dut_sim *, struct rt_dut_ops *))dlsym(sim->handle, "roce_dut_sim_ops");
	if (!abi || !params_init || !sim->create || !sim->destroy || !ops) {
		snprintf(err, errlen, "%s is not a rocetest device model (roce_dut_sim_* symbols missing)", sim->path);
		dut_sim_close(sim);
		return -1;
	}
	if (abi() != ROCE_DUT_SIM_ABI) {
		snprintf(err, errlen, "%s speaks model ABI %d, this rocetest %d: rebuild it with `make dut-sim`",
			 sim->path, abi(), ROCE_DUT_SIM_ABI);
		dut_sim_close(sim);
		return -1;
	}
	struct roce_dut_sim_params p;
	params_init(&p);
	p.data_width = req->width;
	p.seed = req->seed;
	char msg[512];
	sim->sim = sim->create(&p, msg, sizeof msg);
	if (!sim->sim) {
		snprintf(err, errlen, "%s: %s", sim->path, msg);
		dut_sim_close(sim);
		return -1;
	}
	ops(sim->sim, &sim->ops);
	const struct rt_dut_ops *o = &sim->ops;
	if (!o->reset || !o->configure || !o->push_rx || !o->pull_tx || !o->post_wr || !o->poll_cpl || !o->step ||
	    !o->cycle || !o->memory || !o->counters || !o->qp_state || !o->quiet || !o->port_error) {
		snprintf(err, errlen, "%s leaves device functions unset: rebuild it with `make dut-sim`", sim->path);
		dut_sim_close(sim);
		return -1;
	}
	return 0;
}

void dut_sim_close(struct dut_sim *sim)
{
	if (sim->sim)
		sim->destroy(sim->sim);
	sim->sim = NULL;
	if (sim->handle)
		dlclose(sim->handle);
	sim->handle = NULL;
}
