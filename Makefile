# rocetest: RoCEv2 conformance and interop test harness.
#
# `make help` lists every target (each says what it does after "##" on its
# rule line, here or in the makefiles included below). The README's two
# commands are `make conformance` (the main job) and `make test` (the tests).
# Missing Debian packages are installed by the goal that needs them, before
# anything else (see "dependencies" below). Output goes to $(BUILD)/.

BUILD ?= build
# JOBS jobs at once (default: one per CPU, counted from /proc/cpuinfo
# without running a tool) unless the command line gives -jN; JOBS=1 for one
# at a time (make reads no -j1 from its command line).
NPROC := $(words $(filter processor,$(file < /proc/cpuinfo)))
JOBS ?= $(or $(filter-out 0,$(NPROC)),1)
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(JOBS)
endif
# The configuration is shared by every BUILD (the sanitizer build, helpers' trees).
CONFIG := build/config.mk
DEPS := harness/scripts/deps.sh

CC ?= cc
OPT ?= -O2
SAN_FLAGS ?=
# WERROR=0 for a compiler newer than Debian 12's, whose new warnings would stop the build.
WERROR ?= 1
WERROR_FLAG = $(if $(filter 1,$(WERROR)),-Werror)
WARN_FLAGS = -Wall -Wextra $(WERROR_FLAG) -Wshadow -Wstrict-prototypes
CFLAGS_COMMON = -std=c11 -D_GNU_SOURCE $(OPT) -g $(WARN_FLAGS) \
	-Iharness/include $(PCAP_CFLAGS) $(DEFLATE_CFLAGS) $(IBVERBS_CFLAGS) $(SAN_FLAGS)
LDLIBS_COMMON = $(PCAP_LIBS) $(DEFLATE_LIBS) -lm $(SAN_FLAGS)

# The library: four layers, each an archive of harness/lib/LAYER/, each
# using only its own and the layers before it (README "Layout";
# harness/scripts/check-layers.sh holds them to it).
LIB_LAYERS := packet check model run
layer_srcs = $(wildcard harness/lib/$(1)/*.c)
layer_archive = $(BUILD)/lib/librocetest-$(1).a
LIB_SRCS := $(foreach l,$(LIB_LAYERS),$(call layer_srcs,$(l)))
CLI_SRCS := $(wildcard harness/cli/*.c)
# The report writers (JSON, JUnit, HTML) read what the checker and the runner collected.
REPORT_SRCS := $(wildcard harness/report/*.c)
CLI_OBJS = $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
REPORT_OBJS = $(REPORT_SRCS:%.c=$(BUILD)/obj/%.o)
# In link order: each archive before the ones it uses.
LIB = $(foreach l,run model check packet,$(call layer_archive,$(l)))
REPORT_LIB = $(BUILD)/lib/librocetest-report.a
ROCETEST = $(BUILD)/bin/rocetest
GENCAP = $(BUILD)/bin/rocetest-gencap

.PHONY: all clean conformance conformance-matrix gate gate-baseline demo check check-layers dep-groups test test-list unit integration fuzz sanitize bench help vectors deps fresh-check FORCE
.DEFAULT_GOAL := all

# ---------------------------------------------------------------- dependencies
# The dependency step comes before anything else. Each goal needs some groups
# of Debian packages (harness/scripts/deps.sh: build, check, test, rtl, doc,
# fresh); deps.sh installs them and writes $(CONFIG) with every value read
# from those tools (pkg-config flags, Verilator's root, ...). Make remakes an
# included makefile first and then restarts, so no rule and no variable sees
# a tool before it is installed, and a make with nothing to do runs no tool.
GOALS := $(or $(MAKECMDGOALS),$(.DEFAULT_GOAL))
NO_CONFIG_GOALS := clean help uninstall dep-groups test-list
GROUP_check_GOALS := deps check unit test integration sanitize
GROUP_test_GOALS := deps test integration fuzz fuzz-build sanitize bench
GROUP_rtl_GOALS := deps conformance conformance-matrix test integration sanitize bench interop dut-sim dut-sim-test dut-mutants \
	rtl-lint rtl-test synth-check
GROUP_doc_GOALS := deps man install test integration
GROUP_fresh_GOALS := fresh-check
GROUP_dissector_GOALS := deps test integration dissector install-dissector uninstall-dissector dissector-screenshot \
	bench sanitize
GROUP_gui_GOALS := dissector-screenshot
GROUP_interop_GOALS := interop
# $(call dep_groups,GOALS): the groups those goals need.
dep_groups = build $(foreach g,check test rtl doc fresh dissector gui interop,$(if $(filter $(GROUP_$(g)_GOALS),$(1)),$(g)))
DEP_GROUPS := $(call dep_groups,$(GOALS))

ifneq ($(filter-out $(NO_CONFIG_GOALS),$(GOALS)),)
include $(CONFIG)
MISSING_GROUPS := $(filter-out $(CONFIGURED_GROUPS),$(DEP_GROUPS))
# After its restart make must find every group configured: never loop.
ifneq ($(MISSING_GROUPS),)
ifneq ($(MAKE_RESTARTS),)
$(error $(CONFIG) still lacks the groups $(MISSING_GROUPS) after $(DEPS) ran; delete it and run make again)
endif
endif
endif
# Rewritten (with every group configured so far) when it is older than
# deps.sh or lacks a group the goals need.
$(CONFIG): $(DEPS) $(if $(MISSING_GROUPS),FORCE)
	@bash $(DEPS) --config $@ $(sort $(CONFIGURED_GROUPS) $(DEP_GROUPS))
FORCE:

# $(call config_flags,GROUP): the file holding GROUP's values, which changes
# only when they do (what compiled objects depend on).
config_flags = $(CONFIG:.mk=-$(1).flags)

# $(call configured,VAR,GROUP): $(VAR), or a clear stop when GROUP was not
# configured (a file under build/ asked for by name, not by its goal).
configured = $(or $($(1)),$(error $(1) is unknown: the '$(2)' dependencies are not configured; run 'make deps' or a goal that needs them))

# The groups that the goals in FOR need (fresh-check asks, to know what a user is told to install).
dep-groups:
	@echo $(call dep_groups,$(FOR))

deps: ## install every Debian package the goals need (as root) and write build/config.mk
	@echo "deps: groups $(CONFIGURED_GROUPS) installed; their settings are in $(CONFIG)"

all: $(ROCETEST) ## the library and build/bin/rocetest (the default)

$(BUILD)/obj/%.o: %.c $(call config_flags,build)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) -MMD -MP -c $< -o $@

define LAYER_ARCHIVE_RULE
$(call layer_archive,$(1)): $(patsubst %.c,$(BUILD)/obj/%.o,$(call layer_srcs,$(1)))
	@mkdir -p $$(dir $$@)
	rm -f $$@
	ar rcs $$@ $$^
endef
$(foreach l,$(LIB_LAYERS),$(eval $(call LAYER_ARCHIVE_RULE,$(l))))

$(REPORT_LIB): $(REPORT_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(ROCETEST): $(CLI_OBJS) $(REPORT_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(CLI_OBJS) $(REPORT_LIB) $(LIB) $(LDLIBS_COMMON) $(IBVERBS_LIBS)

# rtl.mk first: tests.mk's `test` needs its list of RTL test benches.
-include dut/rtl.mk
-include dut/sim.mk
-include dut/mutants.mk
-include harness/tests/tests.mk
-include harness/fuzz/fuzz.mk
-include harness/bench/bench.mk
-include dissectors/dissector.mk
-include harness/interop/interop.mk
include harness/install.mk

# The main job: every suite of `rocetest run` against the Verilator model of
# the FPGA endpoint; JUnit, summary.json, the HTML report (goodput plot, per
# test its capture and check report with ladder diagrams) in
# reports/runs/<UTC time>/, reports/runs/latest pointing at it. Fails when a
# test fails. SEED=N changes the seed (default 1).
SEED ?= 1
RUNS_DIR = reports/runs
conformance: $(ROCETEST) dut-sim ## the main job: every conformance suite against the FPGA endpoint's model
	@stamp=$$(date -u +%Y%m%dT%H%M%SZ); mkdir -p $(RUNS_DIR); \
	$(ROCETEST) run --dut sim --seed $(SEED) --report $(RUNS_DIR)/$$stamp; rc=$$?; \
	if [ -f $(RUNS_DIR)/$$stamp/summary.json ]; then ln -sfn $$stamp $(RUNS_DIR)/latest; fi; \
	echo "conformance: report in $(RUNS_DIR)/$$stamp/index.html (also $(RUNS_DIR)/latest/)"; exit $$rc

# Beyond the main job's one seed and width (CI runs it): every suite but
# throughput at seeds MATRIX_SEEDS (the seed picks lengths, addresses, memory
# contents and the memory's latency and stalls), and the quick suite on the
# model at every DATA_WIDTH the endpoint supports (64 to 512, a multiple of 64). Fails
# when any run fails; each run's own line says which.
MATRIX_SEEDS ?= 2 3 4 5
conformance-matrix: $(ROCETEST) $(DUT_SIM_ALL_SOS) ## conformance at seeds 2-5 and at every DATA_WIDTH (64 to 512 in steps of 64)
	@fail=0; \
	for s in $(MATRIX_SEEDS); do \
		echo "conformance-matrix: seed $$s, every suite but throughput"; \
		$(ROCETEST) run --dut sim --seed $$s --suite functional -q || fail=1; \
	done; \
	for w in $(DUT_SIM_ALL_WIDTHS); do \
		echo "conformance-matrix: DATA_WIDTH $$w, the quick suite"; \
		$(ROCETEST) run --dut sim --width $$w --suite quick -q || fail=1; \
	done; \
	if [ $$fail = 0 ]; then echo "conformance-matrix: every run passed"; else echo "conformance-matrix: FAILED (see above)"; fi; \
	exit $$fail

# The release gate (README "Release gate"): a conformance run against the
# committed baseline, reports/baseline/ (its summary.json, xfail.txt and
# tolerances.txt). GATE_RUN=DIR gates that run's report instead of running
# the suites again (CI passes the one `make conformance` just wrote); the
# gate's JSON and JUnit go into the run's directory. A failing test does
# not stop it: whether that is a regression is the gate's to say.
GATE_BASELINE ?= reports/baseline
gate: $(ROCETEST) ## the release gate: a conformance run (or GATE_RUN=DIR) against reports/baseline/
	@run="$(GATE_RUN)"; \
	if [ -z "$$run" ]; then \
		before=$$(readlink $(RUNS_DIR)/latest 2>/dev/null); $(MAKE) --no-print-directory conformance; \
		after=$$(readlink $(RUNS_DIR)/latest 2>/dev/null); \
		if [ -z "$$after" ] || [ "$$after" = "$$before" ]; then echo "gate: the conformance run wrote no report" >&2; exit 2; fi; \
		run=$(RUNS_DIR)/$$after; \
	elif [ -L "$$run" ]; then run=$$(dirname "$$run")/$$(readlink "$$run"); fi; \
	$(ROCETEST) gate --json "$$run/gate.json" --junit "$$run/gate-junit.xml" $(GATE_BASELINE) "$$run"

gate-baseline: ## make the latest conformance run (or GATE_RUN=DIR) the gate's baseline (then commit reports/baseline/)
	cp "$(or $(GATE_RUN),$(RUNS_DIR)/latest)/summary.json" $(GATE_BASELINE)/summary.json
	@echo "gate-baseline: $(GATE_BASELINE)/summary.json is now $(or $(GATE_RUN),$(RUNS_DIR)/latest)'s; commit it"

# A demo of the checker: generate a small RC capture with valid ICRCs, show it, check
# it against the rule catalogue with all three reports; run a scenario (a lost
# packet, NAK, go-back-N) through the reference model and check it; then check
# every real capture in ../shared when it is there (each must be conformant).
DEMO_DIR = $(BUILD)/demo
demo: $(ROCETEST) $(GENCAP) ## the checker on its own: generate, show, verify and check captures, ../shared too
	@mkdir -p $(DEMO_DIR)
	$(GENCAP) --bytes 64K --seed 1 -o $(DEMO_DIR)/rc-write.pcap
	$(ROCETEST) show $(DEMO_DIR)/rc-write.pcap | head -n 12
	$(ROCETEST) icrc $(DEMO_DIR)/rc-write.pcap
	$(ROCETEST) check --pmtu 1024 --json $(DEMO_DIR)/rc-write.json --junit $(DEMO_DIR)/rc-write.xml \
		--html $(DEMO_DIR)/rc-write.html $(DEMO_DIR)/rc-write.pcap
	$(ROCETEST) gen vectors/scenarios/nak-go-back-n.scn -o $(DEMO_DIR)/nak-go-back-n.pcap \
		--expect $(DEMO_DIR)/nak-go-back-n.json
	$(ROCETEST) check --pmtu 1024 --timeout-us 67108.864 --retry-cnt 7 --rnr-retry 7 \
		--html $(DEMO_DIR)/nak-go-back-n.html $(DEMO_DIR)/nak-go-back-n.pcap
	@if [ -d ../shared/captures ]; then \
		$(ROCETEST) check --max-report 5 --json $(DEMO_DIR)/shared.json --junit $(DEMO_DIR)/shared.xml \
			--html $(DEMO_DIR)/shared.html ../shared/captures/*/*.pcap || exit $$?; \
	fi
	@echo "demo: reports in $(DEMO_DIR)/ (rc-write.{json,xml,html}, nak-go-back-n.html, shared.{json,xml,html})"

# The golden vectors are committed; a test asserts that this reproduces them byte for byte.
vectors: $(ROCETEST) ## regenerate vectors/ (golden pcaps and expected verdicts) from vectors/scenarios/
	bash harness/scripts/make-vectors.sh $(ROCETEST) vectors

# The README's two commands on a freshly bootstrapped Debian 12 root: the
# proof that a new machine needs nothing installed by hand (CI runs it).
# FRESH_THEN='CMD;CMD...': more commands to run there after them (CI's steps).
fresh-check: ## the README's two commands in a fresh Debian 12 root (mmdebstrap; root; ~15 min)
	bash harness/scripts/fresh-check.sh $(if $(FRESH_THEN),--then-each '$(FRESH_THEN)')

# Every public target says what it does after "##" on its rule line, in
# whichever makefile defines it; this lists them all.
help: ## this list
	@echo "usage: make [TARGET] [VAR=VALUE]..."
	@echo
	@sed -n 's/^\([a-z][a-z-]*\):.*## \(.*\)/  \1|\2/p' $(MAKEFILE_LIST) | sort -t '|' -k 1,1 -u | \
		awk -F '|' '{ printf "%-16s %s\n", $$1, $$2 }'
	@echo
	@echo "Variables: BUILD (build), PREFIX (/usr/local), DESTDIR, WERROR=0 (warnings not fatal),"
	@echo "JOBS (jobs at once; default one per CPU), SEED (conformance), FUZZ_SECONDS, BENCH_BYTES,"
	@echo "T (make test T=diff: the integration files named so), TEST_JOBS. Missing Debian packages are installed"
	@echo "by the goal that needs them (as root; otherwise the apt-get line is printed)."

clean: ## remove $(BUILD) and the dependency configuration
	rm -rf $(BUILD) $(CONFIG) $(CONFIG:.mk=)-*.flags

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
