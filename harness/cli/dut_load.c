/* SPDX-License-Identifier: MIT */
/*
 * Loads the Verilator model of the included FPGA endpoint (dut/sim/, a
 * device plugin built by `make dut-sim`) and opens it as a device (dut.h).
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

/* Loads the plugin at dev->path and opens its device. */
static int open_plugin(struct dut_device *dev, const struct rt_dut_open_params *p, char *err, size_t errlen)
{
	dev->handle = dlopen(dev->path, RTLD_NOW | RTLD_LOCAL);
	if (!dev->handle) {
		snprintf(err, errlen, "cannot load the model %s: %s", dev->path, dlerror());
		return -1;
	}
	const struct rt_dut_plugin *plugin = dlsym(dev->handle, RT_DUT_PLUGIN_SYMBOL);
	if (!plugin) {
		snprintf(err, errlen, "%s is not a rocetest device model (it exports no %s)", dev->path,
			 RT_DUT_PLUGIN_SYMBOL);
		return -1;
	}
	if (plugin->abi != RT_DUT_PLUGIN_ABI) {
		snprintf(err, errlen, "%s speaks device plugin ABI %d, this rocetest %d: rebuild it with `make dut-sim`",
			 dev->path, plugin->abi, RT_DUT_PLUGIN_ABI);
		return -1;
	}
	char msg[512];
	if (plugin->open(p, &dev->ops, msg, sizeof msg)) {
		snprintf(err, errlen, "%s: %s", dev->path, msg);
		memset(&dev->ops, 0, sizeof dev->ops);
		return -1;
	}
	if (rt_dut_ops_check(&dev->ops, msg, sizeof msg)) {
		snprintf(err, errlen, "%s (%s): %s: rebuild it with `make dut-sim`", dev->path, plugin->name, msg);
		return -1;
	}
	return 0;
}

int dut_sim_open(const struct dut_sim_request *req, struct dut_device *dev, char *err, size_t errlen)
{
	memset(dev, 0, sizeof *dev);
	if (req->lib)
		snprintf(dev->path, sizeof dev->path, "%s", req->lib);
	else
		default_path(req->width, dev->path, sizeof dev->path);
	if (access(dev->path, R_OK) && req->lib) {
		snprintf(err, errlen, "--sim-lib %s: %s", dev->path, strerror(errno));
		return -1;
	}
	if (access(dev->path, R_OK)) {
		/* Another width is built along with the default one by naming both. */
		char hint[64] = "";
		if (req->width != 512)
			snprintf(hint, sizeof hint, " DUT_SIM_WIDTHS=\"512 %u\"", req->width);
		snprintf(err, errlen,
			 "the Verilator model of dut/ at DATA_WIDTH %u is not built (no %s): run `make dut-sim%s` "
			 "(it installs Verilator with harness/scripts/deps.sh rtl), or name the model with --sim-lib",
			 req->width, dev->path, hint);
		return -1;
	}
	struct rt_dut_open_params p = { .data_width = req->width, .seed = req->seed };
	if (open_plugin(dev, &p, err, errlen)) {
		dut_device_close(dev);
		return -1;
	}
	return 0;
}

void dut_device_close(struct dut_device *dev)
{
	if (dev->ops.ctx && dev->ops.destroy)
		dev->ops.destroy(dev->ops.ctx);
	memset(&dev->ops, 0, sizeof dev->ops);
	if (dev->handle)
		dlclose(dev->handle);
	dev->handle = NULL;
}
