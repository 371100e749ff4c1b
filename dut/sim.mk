# The FPGA endpoint's Verilator model behind a C API (dut/sim/roce_dut_sim.h),
# as a shared object the harness dlopens.
#
#   make dut-sim        build/dut/wW/libroce_dut_sim.so for each W in DUT_SIM_WIDTHS
#   make dut-sim-test   build and run its C smoke test (dut/sim/test_roce_dut_sim.c)
#
# Two stages per width, so that editing dut/sim/ does not re-Verilate: the
# model (Verilator's C++ and its runtime, position independent, cached in
# build/dut/wW/obj/, rebuilt only when dut/rtl/ changes), then the C API
# wrapper compiled against it and linked into the .so. Everything but the
# roce_dut_sim_* functions is hidden, so two widths can be loaded side by side.

DUT_SIM_WIDTHS ?= 512 64
# Compiled into the RTL and the wrapper (roce_dut_sim_create checks them).
DUT_SIM_N_QP := 4
DUT_SIM_CLK_HZ := 322266000
DUT_SIM_QPN_BASE := 256
DUT_SIM_BUILD = $(BUILD)/dut
DUT_SIM_SO = $(DUT_SIM_BUILD)/w512/libroce_dut_sim.so
DUT_SIM_SOS = $(foreach w,$(DUT_SIM_WIDTHS),$(DUT_SIM_BUILD)/w$(w)/libroce_dut_sim.so)
DUT_SIM_TEST = $(DUT_SIM_BUILD)/w512/test_roce_dut_sim
DUT_SIM_SRCS := dut/sim/roce_dut_sim.cpp dut/sim/roce_dut_sim.h harness/include/rocetest/dut.h \
	$(wildcard dut/common/*.h)

# Verilator's root comes from the configuration the dependency step wrote.
DUT_SIM_VROOT = $(call configured,VERILATOR_ROOT,rtl)
# The model's hot code (what every simulated cycle runs): -O3 is about 10 %
# faster than Verilator's default -Os (and -O2) at 512 bits and builds as fast.
DUT_SIM_OPT_FAST ?= -O3
DUT_SIM_CXXFLAGS = -std=gnu++17 -O2 -g -Wall -Wextra $(WERROR_FLAG) -fPIC -fvisibility=hidden \
	-DDUT_SIM_N_QP=$(DUT_SIM_N_QP) -DDUT_SIM_CLK_HZ=$(DUT_SIM_CLK_HZ) -DDUT_SIM_QPN_BASE=$(DUT_SIM_QPN_BASE) \
	-Iharness/include -Idut/sim -Idut/common -isystem $(DUT_SIM_VROOT)/include -isystem $(DUT_SIM_VROOT)/include/vltstd

.PHONY: dut-sim dut-sim-test

dut-sim: $(DUT_SIM_SOS) ## the Verilator model of dut/ as build/dut/wW/libroce_dut_sim.so

DUT_SIM_MAP = $(DUT_SIM_BUILD)/roce_dut_sim.map
$(DUT_SIM_MAP): dut/sim.mk
	@mkdir -p $(dir $@)
	echo '{ global: roce_dut_sim_*; rt_dut_plugin_v1; local: *; };' >$@

# $(1): the width, $(2): the output directory, $(3): the RTL sources
# (dut/mutants.mk builds patched copies the same way). The model: Verilate, then build its archive and
# Verilator's runtime objects (Verilator's own makefile, -j 2, a make of its
# own as Verilator's --build runs it: not $(MAKE), which make -n would run). flock: two
# model builds at a time at most (on 2 cores one Verilates, single-threaded,
# while the other compiles), also across make -j and concurrent makes in this
# tree: a build takes the first of two slots that is free, else waits for the
# second.
DUT_SIM_LOCK = $(DUT_SIM_BUILD)/.model.lock
define DUT_SIM_MODEL
$(VERILATOR) --cc -O3 --x-assign fast --x-initial fast -Wno-fatal --top-module roce_endpoint \
	-GDATA_WIDTH=$(1) -GN_QP=$(DUT_SIM_N_QP) -GCLK_FREQ_HZ=$(DUT_SIM_CLK_HZ) -GQPN_BASE=$(DUT_SIM_QPN_BASE) \
	-Mdir $(2)/obj -CFLAGS "-fPIC -fvisibility=hidden" $(3) && \
MAKEFLAGS= make --no-print-directory -j 2 -C $(2)/obj -f Vroce_endpoint.mk \
	OPT_FAST="$(DUT_SIM_OPT_FAST)" Vroce_endpoint__ALL.a verilated.o verilated_threads.o
endef

define DUT_SIM_RULE
$(2)/obj/.built: $(3) dut/sim.mk
	@mkdir -p $(2)/obj
	@echo "dut-sim: Verilating roce_endpoint at DATA_WIDTH $(1) (log: $(2)/build.log)"
	@cmd='$(call DUT_SIM_MODEL,$(1),$(2),$(3))'; \
	{ flock -n -E 75 $(DUT_SIM_LOCK).1 $(SHELL) -c "$$$$cmd"; rc=$$$$?; \
	  if [ $$$$rc = 75 ]; then flock $(DUT_SIM_LOCK).2 $(SHELL) -c "$$$$cmd"; rc=$$$$?; fi; exit $$$$rc; } >$(2)/build.log 2>&1 || \
		{ echo "dut-sim: FAILED to build the Verilator model at DATA_WIDTH $(1); the end of $(2)/build.log:"; \
		  tail -n 30 $(2)/build.log; exit 1; }
	@touch $$@

# The model's identity (rt_dut_info.build_id): the SHA-256 of the RTL it was
# Verilated from, the files concatenated in name order ($(sort) is byte order).
$(2)/roce_dut_sim.o: $(DUT_SIM_SRCS) $(2)/obj/.built
	$$(CXX) $$(DUT_SIM_CXXFLAGS) -DDATA_WIDTH=$(1) -isystem $(2)/obj \
		-DDUT_SIM_RTL_SHA256='"'"$$$$(cat $(sort $(3)) | sha256sum | cut -c1-64)"'"' -c $$< -o $$@

# libstdc++ dynamically; --no-undefined: a missing symbol fails here, not at
# dlopen; the version script keeps the C++ templates' weak symbols local too.
$(2)/libroce_dut_sim.so: $(2)/roce_dut_sim.o $(DUT_SIM_MAP)
	$(CXX) -shared -o $$@ $$< $(2)/obj/Vroce_endpoint__ALL.a \
		$(2)/obj/verilated.o $(2)/obj/verilated_threads.o \
		-pthread -Wl,--no-undefined -Wl,--version-script=$(DUT_SIM_MAP)
endef
# Every DATA_WIDTH the endpoint supports (roce_endpoint stops at reset on
# any other): make conformance-matrix runs the quick suite on each.
DUT_SIM_ALL_WIDTHS := 64 128 192 256 320 384 448 512
ifneq ($(filter-out $(DUT_SIM_ALL_WIDTHS),$(DUT_SIM_WIDTHS)),)
$(error DUT_SIM_WIDTHS: $(filter-out $(DUT_SIM_ALL_WIDTHS),$(DUT_SIM_WIDTHS)) is not a width roce_endpoint supports ($(DUT_SIM_ALL_WIDTHS)))
endif
DUT_SIM_ALL_SOS = $(foreach w,$(DUT_SIM_ALL_WIDTHS),$(DUT_SIM_BUILD)/w$(w)/libroce_dut_sim.so)
# 512 always: the smoke test and DUT_SIM_SO use it.
$(foreach w,$(sort $(DUT_SIM_WIDTHS) $(DUT_SIM_ALL_WIDTHS)),$(eval $(call DUT_SIM_RULE,$(w),$(DUT_SIM_BUILD)/w$(w),$(RTL_SRCS))))

# The smoke test is plain C: it dlopens the .so next to it, as the harness
# does, and builds its ARP and CM frames with the library's rocetest/cm.h.
$(DUT_SIM_TEST): dut/sim/test_roce_dut_sim.c dut/sim/roce_dut_sim.h harness/include/rocetest/dut.h $(DUT_SIM_SO) $(LIB)
	$(CC) -std=c11 -D_GNU_SOURCE $(OPT) -g $(WARN_FLAGS) \
		-Iharness/include -Idut/sim $< -o $@ $(LIB) $(LDLIBS_COMMON) -ldl

dut-sim-test: $(DUT_SIM_TEST) ## build and run the model's C smoke test
	$(DUT_SIM_TEST)

# `make test` (run-all.sh) and `make rtl-test` run the smoke test as one more
# RTL bench: one summary line, exit status 0 / 1. rtl-test's prerequisites
# were read before this file, hence the extra one.
RTL_TB_BINS += $(DUT_SIM_TEST)
rtl-test: $(DUT_SIM_TEST)
